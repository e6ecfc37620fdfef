// Triangle rasterization with exact integer edge functions (8 sub-pixel bits), the top-left fill
// rule, per-sample coverage, per-pixel shading, the Vulkan depth/stencil tests and blending: the
// entry points, and the choice of path per primitive and per draw's run.
//
// Hot loops: the common case (one sample, early depth tests, no stencil, tile memory) takes tiny
// triangles (box up to 8x8) through raster_tiny (sim/raster_tiny.h: coverage of the box as a bit
// mask from SSE2 int32 edge values, then the covered pixels two at a time, or with AVX2 (TBDR_AVX2)
// a 4x4 box's rows four at a time) and the others through raster_simple's rows of four pixels in
// SSE2 doubles (sim/raster_loops.h); every other case takes raster_general's per-sample loop (the
// same file). Shading (SimpleShading, sim/raster_shading.h, out of line) runs only for fragments
// that pass the depth test. Every path gives the same values bit for bit. The paths are headers
// (namespace raster_detail) included here, their free functions `static` as the one file's
// anonymous namespace made them, so that GCC inlines them into one another as it did then.
#include "sim/raster.h"

#include <algorithm>
#include <cstddef>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/raster_depth.h"
#include "sim/raster_loops.h"
#include "sim/raster_tiny.h"

namespace tbdr {

using namespace raster_detail;

namespace {

// Vulkan spec, "Standard Sample Locations" (VkPhysicalDeviceLimits::standardSampleLocations),
// in 1/16 pixel.
constexpr uint8_t kSamples1[1][2] = {{8, 8}};
constexpr uint8_t kSamples2[2][2] = {{12, 12}, {4, 4}};
constexpr uint8_t kSamples4[4][2] = {{6, 2}, {14, 6}, {2, 10}, {10, 14}};
constexpr uint8_t kSamples8[8][2] = {{9, 5}, {7, 11}, {13, 9}, {5, 3}, {3, 13}, {1, 7}, {11, 15}, {15, 1}};

}  // namespace

bool depth_compare(CompareOp op, float fragment, float stored) { return compare<float>(op, fragment, stored); }

const uint8_t (*sample_positions(uint32_t samples))[2] {
  switch (samples) {
    case 2: return kSamples2;
    case 4: return kSamples4;
    case 8: return kSamples8;
    default: return kSamples1;
  }
}

namespace {

// raster_triangle's paths for a primitive whose box (x0, y0)..(x1, y1) is clipped, `tracker` typed
// with the pass's HSR policy (visit_hsr: once per primitive, so the loops are instantiated per
// policy) or NoTracker. Inline in raster_triangle, each policy's copy, as the one
// path was before policies were types: out of line, passing the arguments cost the million frame
// under hsr=deferred 15 % of its tiles' time.
template <class Tracker>
[[gnu::always_inline]] inline void raster_path(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0,
                                               int32_t x1, int32_t y1, const Draw& draw, const CompiledProgram& program,
                                               TargetSet& targets, PassCounters& counters, Tracker tracker,
                                               const DrawFacts& facts) {
  if (!facts.simple_path) return raster_general(prims, prim, x0, y0, x1, y1, draw, program, targets, counters, tracker);
#if defined(__SSE2__)
  // Apart with and without a tracker: the tracker's inline calls would crowd the other's registers.
  if (x1 - x0 < 4 && y1 - y0 < 4) {
    if (raster_tiny<4>(prims, prim, x0, y0, x1, y1, draw, program, targets, counters, tracker, facts)) return;
  } else if (x1 - x0 < 8 && y1 - y0 < 8) {
    if (raster_tiny<8>(prims, prim, x0, y0, x1, y1, draw, program, targets, counters, tracker, facts)) return;
  }
#endif
  raster_simple(prims, prim, x0, y0, x1, y1, draw, program, targets, counters, tracker, facts);
}

// raster_triangle's work on one primitive, the clip non-empty and the facts worked out.
template <class Tracker>
[[gnu::always_inline]] inline void raster_one(const ScreenPrims& prims, size_t prim, const Rect& clip, const Draw& draw,
                                              const CompiledProgram& program, TargetSet& targets,
                                              PassCounters& counters, Tracker tracker, const DrawFacts& facts) {
  int32_t x0 = std::max(prims.min_x[prim], clip.x);
  int32_t y0 = std::max(prims.min_y[prim], clip.y);
  int32_t x1 = std::min(prims.max_x[prim], clip.x + int32_t(clip.width) - 1);
  int32_t y1 = std::min(prims.max_y[prim], clip.y + int32_t(clip.height) - 1);
  if (x0 > x1 || y0 > y1) return;
  if (facts.simple_path) {
    // One sample, at the pixel centre: only pixels whose centre lies within the triangle's
    // fixed-point bounds can be covered. The bounds binning uses hold every pixel with any sample
    // position the triangle reaches, which can be a pixel more each way than the centres (a
    // triangle reaching a quarter pixel into its last column), or a tile it covers no centre of.
    // The pixels left out are never covered: the coverage, and its order, are the same. Boxes of up
    // to 4x4 pixels keep theirs (they take the smallest path already; BM_Raster/2/16 lost 7 % to
    // the extra work on each).
    if (x1 - x0 >= 4 || y1 - y0 >= 4) {
      const ScreenVertex &a = prims.vertex_of(0, prim), &b = prims.vertex_of(1, prim), &c = prims.vertex_of(2, prim);
      constexpr int32_t kHalf = kSubpixelOne / 2;
      // Pixel p's centre is p * kSubpixelOne + kHalf; the arithmetic shift floors (|v| < 2^24).
      auto first_centre_at_or_after = [](int32_t v) { return (v - kHalf + kSubpixelOne - 1) >> kSubpixelBits; };
      auto last_centre_at_or_before = [](int32_t v) { return (v - kHalf) >> kSubpixelBits; };
      x0 = std::max(x0, first_centre_at_or_after(std::min({a.x, b.x, c.x})));
      y0 = std::max(y0, first_centre_at_or_after(std::min({a.y, b.y, c.y})));
      x1 = std::min(x1, last_centre_at_or_before(std::max({a.x, b.x, c.x})));
      y1 = std::min(y1, last_centre_at_or_before(std::max({a.y, b.y, c.y})));
      if (x0 > x1 || y0 > y1) return;
    }
  }
  raster_path(prims, prim, x0, y0, x1, y1, draw, program, targets, counters, tracker, facts);
}

#if defined(__SSE2__)
// raster_tiny_run's prefetches: a tile's list meets its primitives in short runs (a mesh row's few
// triangles per layer), whose bounds, indices and vertices come from the last-level cache or memory
// at each run's start, and the tiny triangles' work is too short to hide that; the hardware
// prefetchers do not follow the runs. kAhead entries ahead for the arrays, half as far for the
// vertices (their indices then in cache). Million-triangle frame, one thread, on the Xeon: tiles
// 0.097 -> 0.093 s, medians of 15 (bench/README.md "The tiles' stores past the caches, and their
// primitives prefetched"); 8 and 32 measured the same as 16.
constexpr ptrdiff_t kAhead = 16;
[[gnu::always_inline]] inline void prefetch_primitive(const ScreenPrims& prims, size_t prim) {
  __builtin_prefetch(&prims.min_x[prim]);
  __builtin_prefetch(&prims.min_y[prim]);
  __builtin_prefetch(&prims.max_x[prim]);
  __builtin_prefetch(&prims.max_y[prim]);
  for (int k = 0; k < 3; ++k) __builtin_prefetch(&prims.vertex[k][prim]);
  __builtin_prefetch(&prims.draw[prim]);
}

// raster_triangles' loop for a draw whose tiny triangles all take raster_tiny_deferred (its
// conditions hold for the draw): a box of up to 4x4 pixels is set up and rasterized here, any
// other primitive through raster_one. Its own function: the loop invariants stay in registers,
// where raster_one's paths inline beside them left a third of a tiny triangle's instructions to
// reloads and its call (perf of the million-triangle frame).
template <class Tracker>
[[gnu::noinline]] void raster_tiny_run(const ScreenPrims& prims, const uint32_t* first, const uint32_t* last,
                                       const Rect& clip, const Draw& draw, const CompiledProgram& program,
                                       TargetSet& targets, PassCounters& counters, Tracker tracker,
                                       const DrawFacts& facts) {
  const int32_t clip_x1 = clip.x + int32_t(clip.width) - 1, clip_y1 = clip.y + int32_t(clip.height) - 1;
  const size_t width = targets.area.width;
  for (const uint32_t* p = first; p != last; ++p) {
    const size_t prim = *p;
    if (last - p > kAhead) {
      prefetch_primitive(prims, p[kAhead]);
      for (int k = 0; k < 3; ++k) __builtin_prefetch(&prims.vertex_of(k, p[kAhead / 2]));
    }
    const int32_t x0 = std::max(prims.min_x[prim], clip.x), y0 = std::max(prims.min_y[prim], clip.y);
    const int32_t x1 = std::min(prims.max_x[prim], clip_x1), y1 = std::min(prims.max_y[prim], clip_y1);
    if (x0 > x1 || y0 > y1) continue;
    if (x1 - x0 < 4 && y1 - y0 < 4) {
      TinyBox box;
      const TinySetup setup = tiny_setup<4>(prims, prim, x0, y0, x1, y1, box);
      if (setup == TinySetup::empty) continue;
      if (setup == TinySetup::covered) {
        box.origin = size_t(y0 - targets.area.y) * width + size_t(x0 - targets.area.x);
        raster_tiny_deferred<4>(box, prims, prim, program, targets, counters, tracker, facts);
        continue;
      }
    }
    raster_one(prims, prim, clip, draw, program, targets, counters, tracker, facts);
  }
}

// Whether every tiny triangle of the draw takes raster_tiny_deferred: raster_tiny's conditions
// that do not depend on the primitive.
template <class Tracker>
bool tiny_deferred_draw(const Draw& draw, const TargetSet& targets, Tracker tracker, const DrawFacts& facts) {
  return facts.simple_path && deferred_less_depth(draw.state, targets, facts) && tracker.rect().width == targets.area.width;
}
#endif

}  // namespace

void raster_triangles(const ScreenPrims& prims, const uint32_t* first, const uint32_t* last, const Rect& clip,
                      const Draw& draw, const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                      TileWorkTracker* tracker, const DrawFacts* facts) {
  if (clip.width == 0 || clip.height == 0) return;
  DrawFacts worked_out;
  if (!facts) {
    worked_out = draw_facts(draw, program, targets);
    facts = &worked_out;
  }
  if (!tracker) {
    for (const uint32_t* p = first; p != last; ++p)
      raster_one(prims, *p, clip, draw, program, targets, counters, NoTracker(), *facts);
    return;
  }
  tracker->visit_hsr([&](auto typed) __attribute__((always_inline)) {
#if defined(__SSE2__)
    if (tiny_deferred_draw(draw, targets, typed, *facts))
      return raster_tiny_run(prims, first, last, clip, draw, program, targets, counters, typed, *facts);
#endif
    for (const uint32_t* p = first; p != last; ++p)
      raster_one(prims, *p, clip, draw, program, targets, counters, typed, *facts);
  });
}

void raster_triangle(const ScreenPrims& prims, size_t prim, const Rect& clip, const Draw& draw,
                     const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                     TileWorkTracker* tracker, const DrawFacts* facts) {
  const uint32_t index = uint32_t(prim);
  raster_triangles(prims, &index, &index + 1, clip, draw, program, targets, counters, tracker, facts);
}

}  // namespace tbdr
