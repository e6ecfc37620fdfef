// A triangle's set-up for the rasterizer (raster_detail, included by sim/raster*.cpp only): its
// edge functions with the top-left rule, and what shading its fragments needs (perspective-correct
// varyings, uv derivatives by quad, blend paths per color target).
#pragma once

#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "sim/raster.h"
#include "sim/raster_blend.h"

namespace tbdr::raster_detail {

// Edge function of a->b at p: positive on the interior side once the triangle is made positive.
static inline int64_t edge(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px, int64_t py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

// A triangle in the edge functions' terms: its vertices ordered counter-clockwise (positive area;
// vertices 1 and 2 swapped when `flip`), edge k opposite vertex k.
struct TriangleEdges {
  int64_t vx[3], vy[3];
  int64_t area;
  bool flip;
  // Top-left rule (y down): a sample exactly on an edge is inside only for a left edge (interior
  // to its right: dE/dx > 0) or a top edge (horizontal, interior below: dE/dx == 0 and dE/dy > 0),
  // so two triangles sharing an edge never both cover it. 0 there, -1 for the other edges.
  int64_t bias[3];
  // Edge k at a point is linear, so stepping one pixel right adds step_x[k] and one row down
  // step_y[k], exactly in int64: the values equal at() at every sample.
  int64_t step_x[3], step_y[3];

  int64_t at(int k, int64_t px, int64_t py) const {
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    return edge(vx[a], vy[a], vx[b], vy[b], px, py);
  }
};

// Sets `t` up for primitive `prim`. False for a degenerate triangle (zero area), which covers nothing.
[[gnu::always_inline]] static inline bool setup_edges(const ScreenPrims& prims, size_t prim, TriangleEdges& t) {
  for (int i = 0; i < 3; ++i) {
    const ScreenVertex& v = prims.vertex_of(i, prim);
    t.vx[i] = v.x;
    t.vy[i] = v.y;
  }
  const int64_t area = edge(t.vx[0], t.vy[0], t.vx[1], t.vy[1], t.vx[2], t.vy[2]);
  if (area == 0) return false;
  // Selects rather than a branch: the winding of small random triangles is unpredictable.
  t.flip = area < 0;
  const int64_t x1v = t.vx[1], y1v = t.vy[1];
  t.vx[1] = t.flip ? t.vx[2] : x1v;
  t.vy[1] = t.flip ? t.vy[2] : y1v;
  t.vx[2] = t.flip ? x1v : t.vx[2];
  t.vy[2] = t.flip ? y1v : t.vy[2];
  t.area = t.flip ? -area : area;
  for (int k = 0; k < 3; ++k) {
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    const int64_t dedx = -(t.vy[b] - t.vy[a]), dedy = t.vx[b] - t.vx[a];
    t.bias[k] = (dedx > 0 || (dedx == 0 && dedy > 0)) ? 0 : -1;
    t.step_x[k] = dedx * kSubpixelOne;
    t.step_y[k] = dedy * kSubpixelOne;
  }
  return true;
}

// What shading a triangle's fragments needs beyond its edges: per-vertex data in the edge
// functions' vertex order and, per color target, its blend state and whether a common blend
// applies. Set up only once a fragment reaches shading (most tiny triangles' never do).
struct ShadingSetup {
  const float* var[3];
  float inv_w[3];
  int varying_count;
  const BlendAttachmentState* blend_state[kMaxColorAttachments];
  BlendPath blend_path[kMaxColorAttachments];

  // var and inv_w: all a deferred color needs.
  void init_vertices(const ScreenPrims& prims, size_t prim, bool flip) {
    var[0] = prims.varyings_of(0, prim);
    var[1] = prims.varyings_of(flip ? 2 : 1, prim);
    var[2] = prims.varyings_of(flip ? 1 : 2, prim);
    const float w1 = prims.vertex_of(1, prim).inv_w, w2 = prims.vertex_of(2, prim).inv_w;
    inv_w[0] = prims.vertex_of(0, prim).inv_w;
    inv_w[1] = flip ? w2 : w1;
    inv_w[2] = flip ? w1 : w2;
  }

  void init(const ScreenPrims& prims, size_t prim, bool flip, const Draw& draw, const CompiledProgram& program,
            const TargetSet& targets) {
    init_vertices(prims, prim, flip);
    // Only the varyings the program reads are interpolated (the others are never looked at).
    varying_count = varyings_read(program.kind);
    for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c) {
      blend_state[c] = c < draw.state.blend.size() ? &draw.state.blend[c] : &kNoBlend;
      blend_path[c] = blend_path_of(*blend_state[c], targets.color_format[c]);
    }
  }

  // Perspective-correct (Vulkan "Basic Polygon Rasterization": attributes interpolated with 1/w
  // weights) varyings at barycentrics `l`.
  [[gnu::always_inline]] void interpolate(const double* l, float* varyings) const {
    double weight[3], weight_sum = 0;
    for (int k = 0; k < 3; ++k) {
      weight[k] = l[k] * inv_w[k];
      weight_sum += weight[k];
    }
    int c = 0;
#if defined(__AVX2__)
    // Four varyings at a time in AVX doubles (a textured program's color, then its uv two at a time
    // below): per lane the same products, sums and division; the pairs' loop took 18 instructions
    // a pair beside the arithmetic (callgrind of the default trace).
    {
      const __m256d w0 = _mm256_set1_pd(weight[0]), w1 = _mm256_set1_pd(weight[1]), w2 = _mm256_set1_pd(weight[2]);
      const __m256d sum = _mm256_set1_pd(weight_sum);
      auto four_varyings = [](const float* v) { return _mm256_cvtps_pd(_mm_loadu_ps(v)); };
      for (; c + 3 < varying_count; c += 4) {
        const __m256d v = _mm256_div_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(w0, four_varyings(var[0] + c)),
                                                                    _mm256_mul_pd(w1, four_varyings(var[1] + c))),
                                                      _mm256_mul_pd(w2, four_varyings(var[2] + c))),
                                        sum);
        _mm_storeu_ps(varyings + c, _mm256_cvtpd_ps(v));
      }
    }
#endif
#if defined(__SSE2__)
    // Two varyings at a time in SSE2 doubles: per lane the same products, sums and division.
    const __m128d w0 = _mm_set1_pd(weight[0]), w1 = _mm_set1_pd(weight[1]), w2 = _mm_set1_pd(weight[2]);
    const __m128d sum = _mm_set1_pd(weight_sum);
    for (; c + 1 < varying_count; c += 2) {
      const __m128d v = _mm_div_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(w0, two_varyings(var[0] + c)),
                                                         _mm_mul_pd(w1, two_varyings(var[1] + c))),
                                              _mm_mul_pd(w2, two_varyings(var[2] + c))),
                                   sum);
      _mm_storel_pi(reinterpret_cast<__m64*>(varyings + c), _mm_cvtpd_ps(v));
    }
#endif
    for (; c < varying_count; ++c)
      varyings[c] = float((weight[0] * var[0][c] + weight[1] * var[1][c] + weight[2] * var[2][c]) / weight_sum);
  }

#if defined(__SSE2__)
  // The vertex_color program's color (varyings 0..3 times the tint, shade_fragment's product),
  // interpolated as interpolate() does, in registers.
  [[gnu::always_inline]] __m128 vertex_color(const double* l, const Vec4& tint) const {
    return interpolated_vertex_color(var, inv_w, l, tint);
  }
  // The same from a triangle's vertex varyings and 1/w (flush_deferred_colors reads them from its
  // DeferredTriangle: copying them into a ShadingSetup first cost two memmove calls a pixel).
  // kSkipUnitDivide: a weight sum of exactly 1.0 (flat triangles of power-of-two area, whose
  // barycentrics sum exactly) skips the division, which returns its dividend unchanged then (IEEE 754
  // division by 1 is exact; a quiet NaN stays itself): the same colors bit for bit without the
  // divider, whose throughput bounds flush_deferred_colors' loop.
  template <bool kSkipUnitDivide = false>
  [[gnu::always_inline]] static __m128 interpolated_vertex_color(const float* const* var, const float* inv_w,
                                                                 const double* l, const Vec4& tint) {
    double weight[3], weight_sum = 0;
    for (int k = 0; k < 3; ++k) {
      weight[k] = l[k] * inv_w[k];
      weight_sum += weight[k];
    }
#if defined(__AVX2__)
    // The four channels in one AVX register: per lane the same operations as the two halves below.
    const __m256d sum4 = _mm256_set1_pd(weight_sum);
    auto varyings = [](const float* v) { return _mm256_cvtps_pd(_mm_loadu_ps(v)); };
    const __m256d weighted =
        _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(weight[0]), varyings(var[0])),
                                    _mm256_mul_pd(_mm256_set1_pd(weight[1]), varyings(var[1]))),
                      _mm256_mul_pd(_mm256_set1_pd(weight[2]), varyings(var[2])));
    const __m256d color = kSkipUnitDivide && weight_sum == 1.0 ? weighted : _mm256_div_pd(weighted, sum4);
    return _mm_mul_ps(_mm256_cvtpd_ps(color), _mm_loadu_ps(tint.data()));
#else
    const __m128d w0 = _mm_set1_pd(weight[0]), w1 = _mm_set1_pd(weight[1]), w2 = _mm_set1_pd(weight[2]);
    const __m128d sum = _mm_set1_pd(weight_sum);
    __m128 half[2];
    const bool divide = !kSkipUnitDivide || weight_sum != 1.0;
    for (int h = 0; h < 2; ++h) {
      const __m128d weighted = _mm_add_pd(_mm_add_pd(_mm_mul_pd(w0, two_varyings(var[0] + 2 * h)),
                                                     _mm_mul_pd(w1, two_varyings(var[1] + 2 * h))),
                                          _mm_mul_pd(w2, two_varyings(var[2] + 2 * h)));
      half[h] = _mm_cvtpd_ps(divide ? _mm_div_pd(weighted, sum) : weighted);
    }
    return _mm_mul_ps(_mm_movelh_ps(half[0], half[1]), _mm_loadu_ps(tint.data()));
#endif
  }

  // Two consecutive floats, widened to double (exactly).
  static __m128d two_varyings(const float* v) {
    return _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(v))));
  }
#endif

  // One triangle's uv derivatives by 2x2 quad: the four fragments of a quad share the edge values
  // at its top-left pixel centre, from which quad_derivatives works out the same four numbers for
  // each, so the quad's later fragments take its first one's. Direct-mapped by quad column: rows
  // walked in order (raster_simple) find, on a quad's second row, what its first row left.
  struct QuadDerivativeCache {
    static constexpr int32_t kColumns = 16;
    struct Entry {
      int32_t qx, qy;
      float du_dx, dv_dx, du_dy, dv_dy;
    };
    Entry entries[kColumns];
    void clear() {
      for (Entry& e : entries) e.qx = e.qy = INT32_MIN;
    }
  };

  // Mipmapped textures: uv at the centres of the fragment's 2x2 quad (pixels (x & ~1, y & ~1), one
  // to the right, one below; extrapolated where they lie outside the triangle, as helper lanes do),
  // perspective-correct like the fragment's own varyings. `ec`: edge values at the fragment's centre.
  // `quads` (or none): the triangle's quads worked out so far.
  void quad_derivatives(FragmentInput& input, int32_t x, int32_t y, const int64_t* ec, const TriangleEdges& t,
                        double inv_area, QuadDerivativeCache* quads) const {
    input.has_derivatives = true;
    QuadDerivativeCache::Entry* entry = nullptr;
    if (quads) {
      entry = &quads->entries[(x >> 1) & (QuadDerivativeCache::kColumns - 1)];
      if (entry->qx == (x >> 1) && entry->qy == (y >> 1)) {
        input.du_dx = entry->du_dx;
        input.dv_dx = entry->dv_dx;
        input.du_dy = entry->du_dy;
        input.dv_dy = entry->dv_dy;
        return;
      }
    }
    auto uv_at = [&](const int64_t* e, float& u, float& v) {
      const double w0 = double(e[0]) * inv_area * inv_w[0], w1 = double(e[1]) * inv_area * inv_w[1],
                   w2 = double(e[2]) * inv_area * inv_w[2];
      double sum = 0;
      sum += w0;
      sum += w1;
      sum += w2;
      u = float((w0 * var[0][4] + w1 * var[1][4] + w2 * var[2][4]) / sum);
      v = float((w0 * var[0][5] + w1 * var[1][5] + w2 * var[2][5]) / sum);
    };
    int64_t q[3], right[3], below[3];
    for (int k = 0; k < 3; ++k) {
      q[k] = ec[k] - (x & 1) * t.step_x[k] - (y & 1) * t.step_y[k];
      right[k] = q[k] + t.step_x[k];
      below[k] = q[k] + t.step_y[k];
    }
    float u00, v00, u10, v10, u01, v01;
    uv_at(q, u00, v00);
    uv_at(right, u10, v10);
    uv_at(below, u01, v01);
    input.du_dx = u10 - u00;
    input.dv_dx = v10 - v00;
    input.du_dy = u01 - u00;
    input.dv_dy = v01 - v00;
    if (entry) *entry = {x >> 1, y >> 1, input.du_dx, input.dv_dx, input.du_dy, input.dv_dy};
  }

  // The program's input at pixel (x, y): the varyings at barycentrics `l`, interpolated into
  // `varyings` (which it points to), uv derivatives from the edge values `ec` at the pixel centre
  // when the program wants them, and the subpass input attachments (subpassLoad reads sample 0).
  // Inline in the shading loops: as a call, its arguments, frame and returned struct took 40
  // instructions a fragment (callgrind of the default trace).
  [[gnu::always_inline]] FragmentInput input_at(const double* l, float* varyings, int32_t x, int32_t y, const int64_t* ec,
                         const TriangleEdges& t, double inv_area, const CompiledProgram& program,
                         const TargetSet& targets, QuadDerivativeCache* quads = nullptr) const {
    interpolate(l, varyings);
    FragmentInput input;
    input.varyings = varyings;
    input.x = x;
    input.y = y;
    if (program.uv_derivatives) quad_derivatives(input, x, y, ec, t, inv_area, quads);
    for (uint32_t k = 0; k < targets.input_count && k < kMaxInputAttachments; ++k) {
      const size_t i = (size_t(y - targets.area.y) * targets.area.width + size_t(x - targets.area.x)) * targets.input_samples[k];
      if (targets.input_color[k]) input.inputs[k] = targets.input_color[k][i];
      else if (targets.input_depth[k]) input.inputs[k] = Vec4(targets.input_depth[k][i], 0, 0, 1);
    }
    return input;
  }
};

// raster_triangle's common case (raster_tiny / raster_simple, shading through SimpleShading): one
// sample, early tests (the program neither discards nor writes depth; the result is the same
// either way, the order only changes how many fragments are shaded), no stencil test, no depth bias,
// tile memory.
// defers_color() relies on it: a draw it accepts never takes raster_general.
static inline bool takes_simple_path(const Draw& draw, const CompiledProgram& program, const TargetSet& targets) {
  const PipelineState& state = draw.state;
  const bool late_tests = program.discard || state.shader_depth_write;
  const bool has_stencil = targets.stencil != nullptr && state.stencil_test;
  // A depth bias moves each triangle's depths: raster_general applies it (the fast paths do not).
  return targets.samples == 1 && !has_stencil && !late_tests && !targets.framebuffer && !state.depth_bias.enable;
}

}  // namespace tbdr::raster_detail
