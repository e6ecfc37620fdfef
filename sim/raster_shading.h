// Shading of the rasterizer's common case (raster_detail, included by sim/raster*.cpp only): the
// fragments that pass the depth test, their colors stored or left waiting (deferred colors), and
// the tracker that stands in when a tile's work is not counted.
#pragma once

#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/raster.h"
#include "sim/raster_blend.h"
#include "sim/raster_deferred.h"
#include "sim/raster_setup.h"
#include "sim/raster_textured.h"

namespace tbdr::raster_detail {

// Set bits of a 4-bit mask (popcnt is not in baseline x86-64).
inline constexpr uint8_t kBitCount4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

// The tracker of a tile whose work is not counted: raster_triangle's loops take it in place of a
// TypedTracker, and every `if (tracker)` goes at compile time.
struct NoTracker {
  constexpr explicit operator bool() const { return false; }
  Rect rect() const { return {}; }
  uint32_t quad_columns() const { return 0; }
  uint32_t pixel_index(int32_t, int32_t) const { return 0; }
  uint32_t quad_index(int32_t, int32_t) const { return 0; }
  void rasterized(uint32_t, uint32_t, int32_t, int32_t) const {}
  void rasterized_at(uint32_t, uint32_t, int32_t, int32_t, uint32_t, uint32_t) const {}
  void candidate(uint32_t, uint32_t, int32_t, int32_t, bool) const {}
  void candidate_at(uint32_t, uint32_t, uint32_t, uint32_t, bool) const {}
  void candidate_writing_at(uint32_t, uint32_t, uint32_t, bool, uint32_t) const {}
  void color_written(bool) const {}
  void unblended_colors_written(uint32_t) const {}
};

// Shading and blending of the common case's fragments that pass the depth test, set up at the
// first one (most tiny triangles' fragments never get there). Out of line, so that the coverage
// and depth loops that call it keep their registers.
// `Tracker`: TypedTracker<the pass's HSR policy>, or NoTracker when the tile's work is not counted.
template <class Tracker>
class SimpleShading {
 public:
  SimpleShading(const ScreenPrims& prims, size_t prim, bool flip, double inv_area, const Draw& draw,
                const CompiledProgram& program, TargetSet& targets, Tracker tracker, const DrawFacts& facts)
      : m_prims(prims), m_prim(prim), m_flip(flip), m_inv_area(inv_area), m_draw(draw), m_program(program),
        m_targets(targets), m_tracker(tracker), m_facts(facts), m_occluder_draw(tracker && facts.occluder),
        m_defer(facts.defer) {
#if defined(__SSE2__)
    if (!m_defer && TexturedGroups::applies(program)) m_groups = GroupProgram::textured;
    else if (!m_defer && VertexColorGroups::applies(program)) m_groups = GroupProgram::vertex_color;
    // shade_fragment's flat case: its color, the same for every fragment (no discard: no alpha test).
    else if (!m_defer && program.kind == CompiledProgram::Kind::flat && !program.discard) m_groups = GroupProgram::flat;
    else if (!m_defer && CapturedFetches::applies(program)) m_groups = GroupProgram::captured;
#endif
  }
#if defined(__SSE2__)
  ~SimpleShading() {
    if (m_groups == GroupProgram::textured) m_textured.finish();
    else if (m_groups == GroupProgram::captured) m_captured.finish();
  }
#endif
  SimpleShading(const SimpleShading&) = delete;
  SimpleShading& operator=(const SimpleShading&) = delete;

  // The fragment at pixel (x, y), index i of the targets: `l0..l2` its barycentrics, double(e) *
  // inv_area of its edge values `e0..e2` (by value: the callers' loops keep them in registers).
  [[gnu::always_inline]] void shade(int32_t x, int32_t y, size_t i, int64_t e0, int64_t e1, int64_t e2, double l0,
                                    double l1, double l2) {
    if (m_defer) shade_deferred(x, y, i, tracker_pixel(x, y), tracker_quad(x, y), l0, l1, l2);
    else shade_full(x, y, i, e0, e1, e2, l0, l1, l2);
  }
  // The same, `tile_pixel` and `tile_quad` being the fragment's indices in the tracker's tile
  // (TileWorkTracker::pixel_index, quad_index; unused without a tracker).
  [[gnu::always_inline]] void shade_at(int32_t x, int32_t y, size_t i, uint32_t tile_pixel, uint32_t tile_quad,
                                       int64_t e0, int64_t e1, int64_t e2, double l0, double l1, double l2) {
    if (m_defer) shade_deferred(x, y, i, tile_pixel, tile_quad, l0, l1, l2);
    else shade_full(x, y, i, e0, e1, e2, l0, l1, l2);
  }

  // shade_at for a draw whose colors wait in m_targets.deferred (facts.defer): apart from
  // shade_full, whose large frame (the general path's arrays) it would otherwise pay for each time,
  // and inline in the raster loops (the million-triangle frame: 0.278 -> 0.272 s against a call).
  // kJustRasterized: the caller passed this fragment to the tracker's rasterized_at() just before.
  template <bool kJustRasterized = false>
  [[gnu::always_inline]] inline void shade_deferred(int32_t x, int32_t y, size_t i, uint32_t tile_pixel,
                                                    uint32_t tile_quad, double l0, double l1, double l2);

#if defined(__SSE2__)
  // Whether the triangle's row groups go through prepare_group() and shade_group_lane()
  // (TexturedGroups::applies, VertexColorGroups::applies, flat programs, CapturedFetches::applies) rather than
  // shade().
  bool groups() const { return m_groups != GroupProgram::none; }
  // A row group's four fragments at barycentrics (l0, l1, l2), lanes 0, 1 in `*_lo` and 2, 3 in
  // `*_hi`: their varyings and texel coordinates, before any of them is shaded.
  [[gnu::always_inline]] void prepare_group(__m128d l0_lo, __m128d l0_hi, __m128d l1_lo, __m128d l1_hi, __m128d l2_lo,
                                            __m128d l2_hi) {
    if (!m_ready) {
      set_up();
      if (m_groups == GroupProgram::textured) m_textured.init(m_setup, m_program);
      else if (m_groups == GroupProgram::vertex_color) m_vertex_color.init(m_setup, m_program);
      else if (m_groups == GroupProgram::captured) m_captured.init(m_setup, m_program);
    }
    if (m_groups == GroupProgram::textured) m_textured.prepare(l0_lo, l0_hi, l1_lo, l1_hi, l2_lo, l2_hi);
    else if (m_groups == GroupProgram::vertex_color) m_vertex_color.prepare(l0_lo, l0_hi, l1_lo, l1_hi, l2_lo, l2_hi);
    else if (m_groups == GroupProgram::captured) m_captured.prepare(l0_lo, l0_hi, l1_lo, l1_hi, l2_lo, l2_hi);
  }
  // Whether the color targets the group's fragments write all blend or none does (known once
  // prepare_group() ran): the tracker then counts a group's writes at once
  // (TileWorkTracker::candidates_box, blended_colors_written).
  enum class GroupWrites : uint8_t { mixed, unblended, blended };
  GroupWrites group_writes() const { return m_group_writes; }
  // Lane j of the group prepare_group() took, `tile_pixel` and `tile_quad` its indices in the
  // tracker's tile: the tracker's calls for it (its candidate, then its color writes counted), in
  // raster_simple's lane order. Its color comes after the group's lanes (shade_group): the tracker
  // counts, and the colors and fetch records are kept apart, each in lane order, so the same calls
  // and stores in each, the same outputs.
  [[gnu::always_inline]] void count_group_lane(uint32_t tile_pixel, uint32_t tile_quad) {
    if (!m_tracker) return;
    m_tracker.candidate_at(uint32_t(m_prim), m_prims.draw[m_prim], tile_pixel, tile_quad, m_occluder_draw);
    const TargetSet& targets = m_targets;
    for (uint32_t c = 0; c < targets.color_count; ++c)
      if (targets.color[c]) m_tracker.color_written(m_setup.blend_state[c]->enable);
  }
  // The colors of the group's lanes in `passed` (bit j: the pixel (x + j, y), index row_index + j of
  // the targets), in lane order: each one's fetches recorded, its color shaded and blended as
  // shade_full does. Out of line: its own registers, apart from raster_simple's coverage and depth.
  // Flattened: GCC left the fetch records' vector appends (std::vector::push_back) calls once the
  // captured case added callers (the default trace: 31 M instructions of 820 M under mali-g710).
  [[gnu::noinline, gnu::flatten]] void shade_group(uint32_t passed, int32_t x, int32_t y, size_t row_index);
  // shade_group's captured case, out of line: inlined, its fetch records made GCC leave the textured
  // case's line records and their vector appends as calls (the default trace: 31 M instructions).
  [[gnu::noinline]] void shade_captured_group(uint32_t passed, int32_t x, int32_t y, size_t row_index) {
    store_group_colors(passed, row_index, [&](int j) __attribute__((always_inline)) { return m_captured.shade(j, x + j, y); });
  }
#endif

  uint64_t samples_passed = 0;

 private:
  const ScreenPrims& m_prims;
  size_t m_prim;
  bool m_flip;
  double m_inv_area;
  const Draw& m_draw;
  const CompiledProgram& m_program;
  TargetSet& m_targets;
  Tracker m_tracker;
  const DrawFacts& m_facts;
  bool m_ready = false;
  bool m_occluder_draw = false;
  bool m_defer = false;  // the colors wait in m_targets.deferred (defers_color)
  GroupWrites m_group_writes = GroupWrites::mixed;  // of the written color targets (set_up)
  uint32_t m_deferred_triangle = kNoDeferredTriangle;
  WaitingPixels m_waiting{};
  ShadingSetup m_setup;
  TriangleEdges m_edges;  // for uv derivatives only
  ShadingSetup::QuadDerivativeCache m_quads;  // likewise
#if defined(__SSE2__)
  enum class GroupProgram : uint8_t { none, textured, vertex_color, flat, captured };  // what groups() takes
  GroupProgram m_groups = GroupProgram::none;
  TexturedGroups m_textured;
  VertexColorGroups m_vertex_color;
  CapturedFetches m_captured;
#endif

#if defined(__SSE2__)
  // shade_group's lanes in `passed`, in order: `color_of(j)` (lane j's color, its fetches recorded)
  // blended into each color target at index row_index + j. One target without blending (most
  // draws) stores the rounded color straight, as blend_store's opaque_unorm8 case does.
  template <class ColorOf>
  [[gnu::always_inline]] void store_group_colors(uint32_t passed, size_t row_index, ColorOf color_of) {
    TargetSet& targets = m_targets;
    if (targets.color_count == 1 && targets.color[0] && m_setup.blend_path[0] == BlendPath::opaque_unorm8) {
      Vec4* const row = targets.color[0] + row_index;
      for (; passed; passed &= passed - 1) {
        const int j = __builtin_ctz(passed);
        _mm_storeu_ps(row[j].data(), unorm8_ps(color_of(j)));
      }
      return;
    }
    for (; passed; passed &= passed - 1) {
      const int j = __builtin_ctz(passed);
      const __m128 color = color_of(j);
      for (uint32_t c = 0; c < targets.color_count; ++c) {
        if (!targets.color[c]) continue;
        blend_store(m_setup.blend_path[c], *m_setup.blend_state[c], targets.color_format[c], color,
                    targets.color[c][row_index + size_t(j)], m_draw.state.blend_constants);
      }
    }
  }
#endif

  // The triangle's shading setup, at its first shaded fragment.
  void set_up() {
    m_ready = true;
    m_setup.init(m_prims, m_prim, m_flip, m_draw, m_program, m_targets);
    uint32_t blended = 0, unblended = 0;
    for (uint32_t c = 0; c < m_targets.color_count && c < kMaxColorAttachments; ++c)
      if (m_targets.color[c]) ++(m_setup.blend_state[c]->enable ? blended : unblended);
    m_group_writes = !blended ? GroupWrites::unblended : !unblended ? GroupWrites::blended : GroupWrites::mixed;
    if (m_program.uv_derivatives) {
      setup_edges(m_prims, m_prim, m_edges);
      m_quads.clear();
    }
  }

  // Every other fragment, and the first one (the setup).
  [[gnu::noinline]] void shade_full(int32_t x, int32_t y, size_t i, int64_t e0, int64_t e1, int64_t e2, double l0,
                                    double l1, double l2);
  uint32_t tracker_pixel(int32_t x, int32_t y) const { return m_tracker ? m_tracker.pixel_index(x, y) : 0; }
  uint32_t tracker_quad(int32_t x, int32_t y) const { return m_tracker ? m_tracker.quad_index(x, y) : 0; }
};

template <class Tracker>
template <bool kJustRasterized>
inline void SimpleShading<Tracker>::shade_deferred(int32_t x, int32_t y, size_t i, uint32_t tile_pixel,
                                                   uint32_t tile_quad, double l0, double l1, double l2) {
#if defined(__SSE2__)
  (void)x, (void)y;
  if (m_tracker && kJustRasterized) {
    m_tracker.candidate_writing_at(m_prims.draw[m_prim], tile_pixel, tile_quad, m_occluder_draw, m_facts.color_writes);
  } else if (m_tracker) {
    m_tracker.candidate_at(uint32_t(m_prim), m_prims.draw[m_prim], tile_pixel, tile_quad, m_occluder_draw);
    // The color waits for flush_deferred_colors(); the tracker counts the writes now, as
    // shade_full would (defers_color() admits no blending).
    m_tracker.unblended_colors_written(m_facts.color_writes);
  }
  ++samples_passed;
  if (m_deferred_triangle == kNoDeferredTriangle) {
    DeferredColors::Impl& deferred = *m_targets.deferred->impl;
    m_deferred_triangle = add_deferred_triangle(deferred, m_prims, m_prim, m_flip, m_program.color);
    m_waiting = deferred.waiting();
  }
  m_waiting.store(i, m_deferred_triangle, l0, l1, l2);
#else
  (void)x, (void)y, (void)i, (void)tile_pixel, (void)tile_quad, (void)l0, (void)l1, (void)l2;
#endif
}

#if defined(__SSE2__)
template <class Tracker>
void SimpleShading<Tracker>::shade_group(uint32_t passed, int32_t x, int32_t y, size_t row_index) {
  samples_passed += kBitCount4[passed];
  switch (m_groups) {
    case GroupProgram::textured: store_group_colors(passed, row_index, [&](int j) __attribute__((always_inline)) { return m_textured.shade(j); }); return;
    case GroupProgram::vertex_color:
      store_group_colors(passed, row_index, [&](int j) __attribute__((always_inline)) { return m_vertex_color.shade(j); });
      return;
    case GroupProgram::flat: {
      const __m128 color = _mm_loadu_ps(m_program.color.data());
      store_group_colors(passed, row_index, [&](int) __attribute__((always_inline)) { return color; });
      return;
    }
    case GroupProgram::captured: shade_captured_group(passed, x, y, row_index); return;
    case GroupProgram::none: return;
  }
}
#endif

template <class Tracker>
void SimpleShading<Tracker>::shade_full(int32_t x, int32_t y, size_t i, int64_t e0, int64_t e1, int64_t e2,
                                        double l0, double l1, double l2) {
  const double l[3] = {l0, l1, l2};
  const int64_t e[3] = {e0, e1, e2};
  const PipelineState& state = m_draw.state;
  TargetSet& targets = m_targets;
  if (!m_ready) set_up();
  if (m_tracker) m_tracker.candidate(uint32_t(m_prim), m_prims.draw[m_prim], x, y, m_occluder_draw);
#if defined(__SSE2__)
  if (m_program.kind == CompiledProgram::Kind::vertex_color) {
    // shade_fragment's vertex_color case inline (no discard here: early tests), the same product,
    // and the blend, in registers.
    const __m128 color = m_setup.vertex_color(l, m_program.color);
    ++samples_passed;
    for (uint32_t c = 0; c < targets.color_count; ++c) {
      if (!targets.color[c]) continue;
      blend_store(m_setup.blend_path[c], *m_setup.blend_state[c], targets.color_format[c], color, targets.color[c][i],
                  state.blend_constants);
      if (m_tracker) m_tracker.color_written(m_setup.blend_state[c]->enable);
    }
    return;
  }
#endif
  float varyings[kVaryingCount];
  const FragmentInput input =
      m_setup.input_at(l, varyings, x, y, e, m_edges, m_inv_area, m_program, targets, &m_quads);
  Vec4 colors[kMaxColorAttachments];
  if (m_program.kind == CompiledProgram::Kind::vertex_color) {
    // shade_fragment's vertex_color case inline (no discard here: early tests), the same product.
    const Vec4 color = Vec4(varyings[0], varyings[1], varyings[2], varyings[3]).cwiseProduct(m_program.color);
    for (uint32_t c = 0; c < targets.color_count; ++c) colors[c] = color;
  } else if (!shade_fragment(m_program, input, colors, targets.color_count)) {
    return;
  }
  ++samples_passed;
  for (uint32_t c = 0; c < targets.color_count; ++c) {
    if (!targets.color[c]) continue;
#if defined(__SSE2__)
    // The same lanes as blend_fast (SimRaster.Rgba8BlendPathsMatchBlendColor), the four channels'
    // rounding at once: blend_fast's per-channel unorm8 and its branches were a third of this function.
    blend_store(m_setup.blend_path[c], *m_setup.blend_state[c], targets.color_format[c], _mm_loadu_ps(colors[c].data()),
                targets.color[c][i], state.blend_constants);
#else
    targets.color[c][i] = blend_fast(m_setup.blend_path[c], *m_setup.blend_state[c], targets.color_format[c], colors[c],
                                     targets.color[c][i], state.blend_constants);
#endif
    if (m_tracker) m_tracker.color_written(m_setup.blend_state[c]->enable);
  }
}

}  // namespace tbdr::raster_detail
