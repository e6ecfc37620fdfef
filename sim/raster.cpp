// Triangle rasterization with exact integer edge functions (8 sub-pixel bits), the top-left fill
// rule, per-sample coverage, per-pixel shading, the Vulkan depth/stencil tests and blending.
//
// Hot loops: the common case (one sample, early depth tests, no stencil, tile memory) takes tiny
// triangles (box up to 8x8) through raster_tiny (coverage of the box as a bit mask from SSE2 int32
// edge values, then the covered pixels two at a time, or with AVX2 (TBDR_AVX2) a 4x4 box's rows four
// at a time) and the others through raster_simple's rows of four pixels in SSE2 doubles; every other
// case takes raster_general's per-sample loop. Shading (SimpleShading, out of line) runs only for
// fragments that pass the depth test. Every path gives the same values bit for bit.
#include "sim/raster.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tbdr {
namespace {

// Vulkan spec, "Standard Sample Locations" (VkPhysicalDeviceLimits::standardSampleLocations),
// in 1/16 pixel.
constexpr uint8_t kSamples1[1][2] = {{8, 8}};
constexpr uint8_t kSamples2[2][2] = {{12, 12}, {4, 4}};
constexpr uint8_t kSamples4[4][2] = {{6, 2}, {14, 6}, {2, 10}, {10, 14}};
constexpr uint8_t kSamples8[8][2] = {{9, 5}, {7, 11}, {13, 9}, {5, 3}, {3, 13}, {1, 7}, {11, 15}, {15, 1}};

// Vulkan compare ops, used for depth (fragment depth vs stored) and stencil (reference vs stored).
// Always inlined: GCC left it out of line, a call per fragment (perf: 5% of BM_Raster/2/16).
template <class T>
[[gnu::always_inline]] inline bool compare(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::never: return false;
    case CompareOp::less: return a < b;
    case CompareOp::equal: return a == b;
    case CompareOp::less_or_equal: return a <= b;
    case CompareOp::greater: return a > b;
    case CompareOp::not_equal: return a != b;
    case CompareOp::greater_or_equal: return a >= b;
    case CompareOp::always: return true;
  }
  return true;
}

uint8_t apply_stencil_op(StencilOp op, uint8_t value, const StencilFaceState& face) {
  uint32_t v = value;
  switch (op) {
    case StencilOp::keep: break;
    case StencilOp::zero: v = 0; break;
    case StencilOp::replace: v = face.reference & 0xff; break;
    case StencilOp::increment_and_clamp: v = std::min(v + 1, 255u); break;
    case StencilOp::decrement_and_clamp: v = v == 0 ? 0 : v - 1; break;
    case StencilOp::invert: v = ~v & 0xff; break;
    case StencilOp::increment_and_wrap: v = (v + 1) & 0xff; break;
    case StencilOp::decrement_and_wrap: v = (v - 1) & 0xff; break;
  }
  const uint32_t mask = face.write_mask & 0xff;
  return uint8_t((value & ~mask) | (v & mask));
}

Vec4 blend_factor(BlendFactor f, const Vec4& src, const Vec4& dst, const Vec4& constant) {
  switch (f) {
    case BlendFactor::zero: return Vec4::Zero();
    case BlendFactor::one: return Vec4::Ones();
    case BlendFactor::src_color: return src;
    case BlendFactor::one_minus_src_color: return Vec4::Ones() - src;
    case BlendFactor::dst_color: return dst;
    case BlendFactor::one_minus_dst_color: return Vec4::Ones() - dst;
    case BlendFactor::src_alpha: return Vec4::Constant(src[3]);
    case BlendFactor::one_minus_src_alpha: return Vec4::Constant(1 - src[3]);
    case BlendFactor::dst_alpha: return Vec4::Constant(dst[3]);
    case BlendFactor::one_minus_dst_alpha: return Vec4::Constant(1 - dst[3]);
    case BlendFactor::constant_color: return constant;
    case BlendFactor::one_minus_constant_color: return Vec4::Ones() - constant;
    case BlendFactor::constant_alpha: return Vec4::Constant(constant[3]);
    case BlendFactor::one_minus_constant_alpha: return Vec4::Constant(1 - constant[3]);
    case BlendFactor::src_alpha_saturate: {
      const float f3 = std::min(src[3], 1 - dst[3]);
      return Vec4(f3, f3, f3, 1);
    }
  }
  return Vec4::Ones();
}

float blend_op(BlendOp op, float s, float sf, float d, float df) {
  switch (op) {
    case BlendOp::add: return s * sf + d * df;
    case BlendOp::subtract: return s * sf - d * df;
    case BlendOp::reverse_subtract: return d * df - s * sf;
    case BlendOp::min: return std::min(s, d);  // factors are ignored for min/max (Vulkan spec)
    case BlendOp::max: return std::max(s, d);
  }
  return s;
}

// Vulkan "Blending": unorm attachments clamp the source color and constants to [0,1] first;
// the result is rounded to the attachment format.
Vec4 blend(const BlendAttachmentState& state, Format format, Vec4 src, const Vec4& dst, Vec4 constant) {
  const bool unorm = !format_info(format).is_float;
  if (unorm) {
    src = src.cwiseMax(0.0f).cwiseMin(1.0f);
    constant = constant.cwiseMax(0.0f).cwiseMin(1.0f);
  }
  Vec4 out = src;
  if (state.enable) {
    const Vec4 sf_color = blend_factor(state.src_color, src, dst, constant);
    const Vec4 df_color = blend_factor(state.dst_color, src, dst, constant);
    const Vec4 sf_alpha = blend_factor(state.src_alpha, src, dst, constant);
    const Vec4 df_alpha = blend_factor(state.dst_alpha, src, dst, constant);
    for (int c = 0; c < 3; ++c) out[c] = blend_op(state.color_op, src[c], sf_color[c], dst[c], df_color[c]);
    out[3] = blend_op(state.alpha_op, src[3], sf_alpha[3], dst[3], df_alpha[3]);
  }
  for (int c = 0; c < 4; ++c)
    if (!(state.write_mask & (1u << c))) out[c] = dst[c];
  return quantize_color(format, out);
}

// The blends most draws use, resolved once per primitive instead of per sample. Each computes
// exactly what blend() computes (same float operations in the same order, -ffp-contract=off).
enum class BlendPath {
  generic,
  opaque_unorm8,  // blending off, every channel written, RGBA8/BGRA8
  // color: src_alpha or one (premultiplied alpha) over one_minus_src_alpha, add; alpha: one or
  // src_alpha over one_minus_src_alpha, add
  alpha_unorm8,
};

BlendPath blend_path_of(const BlendAttachmentState& b, Format format) {
  if ((format != Format::RGBA8 && format != Format::BGRA8) || (b.write_mask & 0xf) != 0xf) return BlendPath::generic;
  if (!b.enable) return BlendPath::opaque_unorm8;
  if ((b.src_color == BlendFactor::src_alpha || b.src_color == BlendFactor::one) &&
      b.dst_color == BlendFactor::one_minus_src_alpha &&
      b.color_op == BlendOp::add && (b.src_alpha == BlendFactor::one || b.src_alpha == BlendFactor::src_alpha) &&
      b.dst_alpha == BlendFactor::one_minus_src_alpha && b.alpha_op == BlendOp::add)
    return BlendPath::alpha_unorm8;
  return BlendPath::generic;
}

// i / 255 as float, the same division unorm() does.
struct Unorm8Table {
  float value[256];
  Unorm8Table() {
    for (int i = 0; i < 256; ++i) value[i] = float(i) / 255.0f;
  }
};
const Unorm8Table kUnorm8;

// format.cpp's unorm(v, 8): nearbyint(clamp(v) * 255) / 255. Adding and subtracting 2^23 rounds a
// float in [0, 2^23) to the nearest integer, ties to even, as nearbyint does in the default
// rounding mode; -0 keeps its sign as in the division.
[[gnu::always_inline]] inline float unorm8(float v) {
  const float c = std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 1.0f);
  const float big = 8388608.0f;  // (t + big) - big is not foldable under IEEE rules (no -ffast-math)
  const float t = c * 255.0f;
  const int code = int((t + big) - big);
  return code == 0 ? std::copysign(0.0f, c) : kUnorm8.value[code];
}

Vec4 blend(const BlendAttachmentState& state, Format format, Vec4 src, const Vec4& dst, Vec4 constant);

// Always inlined: called per fragment from the hot loops, where a call costs more than the blend.
[[gnu::always_inline]] inline Vec4 blend_fast(BlendPath path, const BlendAttachmentState& state, Format format,
                                              Vec4 src, const Vec4& dst, const Vec4& constant) {
  switch (path) {
    case BlendPath::generic: return blend(state, format, src, dst, constant);
    case BlendPath::opaque_unorm8:
      src = src.cwiseMax(0.0f).cwiseMin(1.0f);
      return Vec4(unorm8(src[0]), unorm8(src[1]), unorm8(src[2]), unorm8(src[3]));
    case BlendPath::alpha_unorm8: {
      src = src.cwiseMax(0.0f).cwiseMin(1.0f);
      const float a = src[3], one_minus_a = 1 - a;
      const float sfc = state.src_color == BlendFactor::one ? 1.0f : a;
      const float sfa = state.src_alpha == BlendFactor::one ? 1.0f : a;
      Vec4 out;
      for (int c = 0; c < 3; ++c) out[c] = src[c] * sfc + dst[c] * one_minus_a;
      out[3] = src[3] * sfa + dst[3] * one_minus_a;
      return Vec4(unorm8(out[0]), unorm8(out[1]), unorm8(out[2]), unorm8(out[3]));
    }
  }
  return blend(state, format, src, dst, constant);
}

#if defined(__SSE2__)
// clamp to [0, 1] as Eigen's cwiseMax(0).cwiseMin(1) (std::max then std::min) does per lane: NaN
// passes through, -0 stays -0.
inline __m128 clamp01_ps(__m128 v) { return _mm_min_ps(_mm_set1_ps(1.0f), _mm_max_ps(_mm_setzero_ps(), v)); }

// blend_fast() on a color in a register, `dst` the stored one: the common paths lane-wise with the
// same operations per channel, the others through blend().
[[gnu::always_inline]] inline void blend_store(BlendPath path, const BlendAttachmentState& state, Format format,
                                               __m128 src, Vec4& dst, const Vec4& constant) {
  switch (path) {
    case BlendPath::generic: {
      Vec4 s;
      _mm_storeu_ps(s.data(), src);
      dst = blend(state, format, s, dst, constant);
      return;
    }
    case BlendPath::opaque_unorm8: _mm_storeu_ps(dst.data(), unorm8_ps(src)); return;  // clamps as clamp01_ps
    case BlendPath::alpha_unorm8: {
      src = clamp01_ps(src);
      const float a = _mm_cvtss_f32(_mm_shuffle_ps(src, src, _MM_SHUFFLE(3, 3, 3, 3)));
      const __m128 one_minus_a = _mm_set1_ps(1 - a);
      // Color channels times a or 1 (src_color one: premultiplied), alpha times a or 1 (src_alpha one).
      const float sfc = state.src_color == BlendFactor::one ? 1.0f : a;
      const __m128 src_factor = _mm_setr_ps(sfc, sfc, sfc, state.src_alpha == BlendFactor::one ? 1.0f : a);
      const __m128 out = _mm_add_ps(_mm_mul_ps(src, src_factor), _mm_mul_ps(_mm_loadu_ps(dst.data()), one_minus_a));
      _mm_storeu_ps(dst.data(), unorm8_ps(out));
      return;
    }
  }
}
#endif

// The float depth formats' (D32F, D32FS8) stored value: std::clamp(std::isnan(z) ? 0 : z, 0, 1).
[[gnu::always_inline]] inline float clamped_depth(float z) {
#if defined(__SSE2__)
  // Without branches (a depth outside [0, 1] is data): max(0, z) keeps -0 as std::max(z, 0) does,
  // min(1, z) as std::min(z, 1).
  const __m128 v = _mm_set_ss(z);
  const __m128 not_nan = _mm_andnot_ps(_mm_cmpunord_ss(v, v), v);
  return _mm_cvtss_f32(_mm_min_ss(_mm_set_ss(1.0f), _mm_max_ss(_mm_setzero_ps(), not_nan)));
#else
  return std::clamp(std::isnan(z) ? 0.0f : z, 0.0f, 1.0f);
#endif
}

// format.cpp's quantize_depth with its float case inline (a call per fragment otherwise): D32F
// and D32FS8 clamp, the unorm formats round through quantize_depth.
[[gnu::always_inline]] inline float depth_value(Format f, float z) {
  if (f == Format::D16 || f == Format::D24S8) return quantize_depth(f, z);
  return clamped_depth(z);
}

// Edge function of a->b at p: positive on the interior side once the triangle is made positive.
inline int64_t edge(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px, int64_t py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

// Blend state of a color target the draw gives none for (namespace scope: no guard per call).
const BlendAttachmentState kNoBlend;

#if defined(__SSE2__)
// compare() on four lanes at once: all ones where fragment depth `d` passes `op` against `stored`
// (ordered compares are false on NaN as the scalar ones are; not_equal is true on NaN as != is).
inline __m128 depth_pass(CompareOp op, __m128 d, __m128 stored) {
  switch (op) {
    case CompareOp::never: return _mm_setzero_ps();
    case CompareOp::less: return _mm_cmplt_ps(d, stored);
    case CompareOp::equal: return _mm_cmpeq_ps(d, stored);
    case CompareOp::less_or_equal: return _mm_cmple_ps(d, stored);
    case CompareOp::greater: return _mm_cmpgt_ps(d, stored);
    case CompareOp::not_equal: return _mm_cmpneq_ps(d, stored);
    case CompareOp::greater_or_equal: return _mm_cmpge_ps(d, stored);
    case CompareOp::always: break;
  }
  return _mm_castsi128_ps(_mm_set1_epi32(-1));
}
#endif

// Set bits of a 4-bit mask (popcnt is not in baseline x86-64).
constexpr uint8_t kBitCount4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

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
[[gnu::always_inline]] inline bool setup_edges(const ScreenPrims& prims, size_t prim, TriangleEdges& t) {
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
    const __m256d color =
        _mm256_div_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(weight[0]), varyings(var[0])),
                                                  _mm256_mul_pd(_mm256_set1_pd(weight[1]), varyings(var[1]))),
                                    _mm256_mul_pd(_mm256_set1_pd(weight[2]), varyings(var[2]))),
                      sum4);
    return _mm_mul_ps(_mm256_cvtpd_ps(color), _mm_loadu_ps(tint.data()));
#else
    const __m128d w0 = _mm_set1_pd(weight[0]), w1 = _mm_set1_pd(weight[1]), w2 = _mm_set1_pd(weight[2]);
    const __m128d sum = _mm_set1_pd(weight_sum);
    __m128 half[2];
    for (int h = 0; h < 2; ++h)
      half[h] = _mm_cvtpd_ps(_mm_div_pd(_mm_add_pd(_mm_add_pd(_mm_mul_pd(w0, two_varyings(var[0] + 2 * h)),
                                                              _mm_mul_pd(w1, two_varyings(var[1] + 2 * h))),
                                                   _mm_mul_pd(w2, two_varyings(var[2] + 2 * h))),
                                        sum));
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
  FragmentInput input_at(const double* l, float* varyings, int32_t x, int32_t y, const int64_t* ec,
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
// either way, the order only changes how many fragments are shaded), no stencil test, tile memory.
// defers_color() relies on it: a draw it accepts never takes raster_general.
bool takes_simple_path(const Draw& draw, const CompiledProgram& program, const TargetSet& targets) {
  const PipelineState& state = draw.state;
  const bool late_tests = program.discard || state.shader_depth_write;
  const bool has_stencil = targets.stencil != nullptr && state.stencil_test;
  return targets.samples == 1 && !has_stencil && !late_tests && !targets.framebuffer;
}

// DeferredColors' storage: per pixel the waiting fragment's triangle (an index into `triangles`,
// kNoDeferredTriangle when none waits) and barycentrics, one array each (so that a row of four
// fragments is stored with one vector store an array); per triangle its shading setup and program.
// WaitingPixels: the arrays from one pixel on.
struct WaitingPixels {
  uint32_t* triangle;
  double* l[3];
  WaitingPixels from(size_t pixel) const { return {triangle + pixel, {l[0] + pixel, l[1] + pixel, l[2] + pixel}}; }
  void store(size_t pixel, uint32_t index, double l0, double l1, double l2) const {
    triangle[pixel] = index;
    l[0][pixel] = l0;
    l[1][pixel] = l1;
    l[2][pixel] = l2;
  }
};
// Only what flush_deferred_colors() reads: defers_color() admits opaque unorm8 stores alone, which
// need neither blend state nor path (a copy of the whole ShadingSetup per triangle cost more).
struct DeferredTriangle {
  const float* var[3];
  float inv_w[3];
  const Vec4* tint;  // the program's color
};
constexpr uint32_t kNoDeferredTriangle = UINT32_MAX;

}  // namespace

struct DeferredColors::Impl {
  // Every pixel's triangle is kNoDeferredTriangle between flushes: reset() only grows the arrays.
  std::vector<uint32_t> triangle;
  std::vector<double> l[3];
  std::vector<DeferredTriangle> triangles;
  WaitingPixels waiting() { return {triangle.data(), {l[0].data(), l[1].data(), l[2].data()}}; }
};

DeferredColors::DeferredColors() : impl(std::make_unique<Impl>()) {}
DeferredColors::DeferredColors(DeferredColors&&) noexcept = default;
DeferredColors& DeferredColors::operator=(DeferredColors&&) noexcept = default;
DeferredColors::~DeferredColors() = default;

namespace {

// Appends primitive `prim`'s entry to deferred.triangles and returns its index: its vertices'
// varyings and 1/w in the edge functions' order, as ShadingSetup::init_vertices takes them. Inline
// (perf of the million-triangle frame: init_vertices and the vector's emplace_back were two calls,
// the entry built through a ShadingSetup; then one call, 71 instructions a triangle, 2.6 % of the
// run). Built whole, not value-initialized and then filled: GCC zeroed the latter with a `rep stos`.
[[gnu::always_inline]] inline uint32_t add_deferred_triangle(DeferredColors::Impl& deferred, const ScreenPrims& prims,
                                                             size_t prim, bool flip, const Vec4& tint) {
  const int second = flip ? 2 : 1, third = flip ? 1 : 2;
  deferred.triangles.push_back(
      DeferredTriangle{{prims.varyings_of(0, prim), prims.varyings_of(second, prim), prims.varyings_of(third, prim)},
                       {prims.vertex_of(0, prim).inv_w, prims.vertex_of(second, prim).inv_w,
                        prims.vertex_of(third, prim).inv_w},
                       &tint});
  return uint32_t(deferred.triangles.size() - 1);
}

}  // namespace

void DeferredColors::reset(size_t pixels) {
  if (impl->triangle.size() >= pixels) return;
  impl->triangle.resize(pixels, kNoDeferredTriangle);
  for (std::vector<double>& l : impl->l) l.resize(pixels, 0.0);
}

bool defers_color(const Draw& draw, const CompiledProgram& program, const TargetSet& targets) {
#if defined(__SSE2__)
  const PipelineState& state = draw.state;
  if (program.kind != CompiledProgram::Kind::vertex_color || !takes_simple_path(draw, program, targets)) return false;
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c) {
    if (!targets.color[c]) continue;
    const BlendAttachmentState& blend = c < state.blend.size() ? state.blend[c] : kNoBlend;
    if (blend_path_of(blend, targets.color_format[c]) != BlendPath::opaque_unorm8) return false;
  }
  return true;
#else
  (void)draw, (void)program, (void)targets;
  return false;
#endif
}

DrawFacts draw_facts(const Draw& draw, const CompiledProgram& program, const TargetSet& targets) {
  DrawFacts facts;
  facts.simple_path = takes_simple_path(draw, program, targets);
  facts.defer = targets.deferred && defers_color(draw, program, targets);
  // Only an opaque fragment that writes depth can hide earlier ones (Arm FPK, PowerVR HSR;
  // models/README.md "Sources: bandwidth savers").
  const bool depth_write = targets.depth != nullptr && draw.state.depth_test && draw.state.depth_write;
  facts.occluder = depth_write && !hsr_breakers(draw, program.input_attachments).any();
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c) facts.color_writes += targets.color[c] ? 1 : 0;
  return facts;
}

void flush_deferred_colors(TargetSet& targets) {
  if (!targets.deferred) return;
  DeferredColors::Impl& d = *targets.deferred->impl;
  if (d.triangles.empty()) return;
#if defined(__SSE2__)
  const size_t pixels = size_t(targets.area.width) * targets.area.height;
  // The color targets in locals: the stores into them could alias `targets`, whose fields were
  // reloaded for every pixel. defers_color() admits only the opaque unorm8 path, whose stored
  // value (blend_store: unorm8_ps of the color) is the same for every target, RGBA8 or BGRA8.
  Vec4* colors[kMaxColorAttachments];
  uint32_t color_count = 0;
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c)
    if (targets.color[c]) colors[color_count++] = targets.color[c];
  const WaitingPixels waiting = d.waiting();
  const DeferredTriangle* const triangles = d.triangles.data();
  // One color target (the common case) in a copy of the loop of its own: the target loop's count
  // and branches were 4 instructions a pixel.
  auto flush = [&](auto one_target) __attribute__((always_inline)) {
    for (size_t i = 0; i < pixels; ++i) {
      if (waiting.triangle[i] == kNoDeferredTriangle) continue;
      const DeferredTriangle& t = triangles[waiting.triangle[i]];
      const double l[3] = {waiting.l[0][i], waiting.l[1][i], waiting.l[2][i]};
      // SimpleShading::shade's vertex_color color and opaque store, as it would have done them.
      const __m128 stored = unorm8_ps(ShadingSetup::interpolated_vertex_color(t.var, t.inv_w, l, *t.tint));
      if constexpr (decltype(one_target)::value) _mm_storeu_ps(colors[0][i].data(), stored);
      else
        for (uint32_t c = 0; c < color_count; ++c) _mm_storeu_ps(colors[c][i].data(), stored);
      waiting.triangle[i] = kNoDeferredTriangle;
    }
  };
  if (color_count == 1) flush(std::true_type());
  else flush(std::false_type());
#endif
  d.triangles.clear();
}

bool depth_compare(CompareOp op, float fragment, float stored) { return compare<float>(op, fragment, stored); }

Vec4 blend_color(const BlendAttachmentState& state, Format format, const Vec4& src, const Vec4& dst,
                 const Vec4& constant) {
  return blend(state, format, src, dst, constant);
}

const uint8_t (*sample_positions(uint32_t samples))[2] {
  switch (samples) {
    case 2: return kSamples2;
    case 4: return kSamples4;
    case 8: return kSamples8;
    default: return kSamples1;
  }
}


namespace {

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
        m_defer(facts.defer) {}

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
  uint32_t m_deferred_triangle = kNoDeferredTriangle;
  WaitingPixels m_waiting{};
  ShadingSetup m_setup;
  TriangleEdges m_edges;  // for uv derivatives only
  ShadingSetup::QuadDerivativeCache m_quads;  // likewise

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

template <class Tracker>
void SimpleShading<Tracker>::shade_full(int32_t x, int32_t y, size_t i, int64_t e0, int64_t e1, int64_t e2,
                                        double l0, double l1, double l2) {
  const double l[3] = {l0, l1, l2};
  const int64_t e[3] = {e0, e1, e2};
  const PipelineState& state = m_draw.state;
  TargetSet& targets = m_targets;
  if (!m_ready) {
    m_ready = true;
    m_setup.init(m_prims, m_prim, m_flip, m_draw, m_program, targets);
    if (m_program.uv_derivatives) {
      setup_edges(m_prims, m_prim, m_edges);
      m_quads.clear();
    }
  }
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

#if defined(__SSE2__)
// (dx, dy) of bit kBox dy + dx of raster_tiny's box as the int16 pair dx | dy << 16 (pmaddwd's
// operand), looked up rather than worked out per fragment.
template <int kBox>
struct BoxSteps {
  int32_t dx_dy[kBox * kBox];
  constexpr BoxSteps() : dx_dy() {
    for (int bit = 0; bit < kBox * kBox; ++bit) dx_dy[bit] = bit % kBox | (bit / kBox) << 16;
  }
};
template <int kBox>
constexpr BoxSteps<kBox> kBoxSteps{};

// What raster_tiny has set up for a box's fragments: bit kBox dy + dx of `covered` is pixel
// (x0 + dx, y0 + dy), index `origin` + the tracker's box_pixel_offsets of the bit in the targets;
// the biased edge values at the origin and their steps (pmaddwd pairs), 1 / area, the depths.
struct TinyBox {
  int32_t x0, y0;
  uint64_t covered;
  size_t origin;
  __m128i e_origin, steps;
  __m128d inv_area2, z01, z2v;
  bool flip;
};

// raster_tiny_deferred's depth test, two fragments of the box at a time (bits a and b), one a
// double lane: per lane the operations of the one-fragment chain it replaced (edge values from the
// origin's and their steps, barycentrics times 1 / area, (l0 z0 + l1 z1) + l2 z2 in double, rounded
// to float, clamped), so the same values bit for bit.
struct TinyDepthLanes {
  __m128d z0, z1, z2;  // the vertices' depths in both lanes
  explicit TinyDepthLanes(const TinyBox& box)
      : z0(_mm_unpacklo_pd(box.z01, box.z01)), z1(_mm_unpackhi_pd(box.z01, box.z01)),
        z2(_mm_unpacklo_pd(box.z2v, box.z2v)) {}
};
struct TinyDepthPair {
  float depth_a, depth_b;
  __m128d l0, l1, l2;  // the barycentrics of a (low lane), of b (high lane)
};
template <int kBox>
[[gnu::always_inline]] inline TinyDepthPair tiny_depth_pair(const TinyBox& box, const TinyDepthLanes& lanes,
                                                            uint32_t a, uint32_t b) {
  auto edges = [&](uint32_t bit) {
    return _mm_add_epi32(box.e_origin, _mm_slli_epi32(_mm_madd_epi16(box.steps, _mm_set1_epi32(kBoxSteps<kBox>.dx_dy[bit])),
                                                      kSubpixelBits));
  };
  const __m128i ea = edges(a), eb = edges(b);
  const __m128i e01 = _mm_unpacklo_epi32(ea, eb), e23 = _mm_unpackhi_epi32(ea, eb);  // (a0 b0 a1 b1), (a2 b2 ..)
  const __m128d l0 = _mm_mul_pd(_mm_cvtepi32_pd(e01), box.inv_area2);
  const __m128d l1 = _mm_mul_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(e01, _MM_SHUFFLE(3, 2, 3, 2))), box.inv_area2);
  const __m128d l2 = _mm_mul_pd(_mm_cvtepi32_pd(e23), box.inv_area2);
  const __m128d sum =
      _mm_add_pd(_mm_add_pd(_mm_mul_pd(l0, lanes.z0), _mm_mul_pd(l1, lanes.z1)), _mm_mul_pd(l2, lanes.z2));
  // clamped_depth on both lanes.
  const __m128 z = _mm_cvtpd_ps(sum);
  const __m128 not_nan = _mm_andnot_ps(_mm_cmpunord_ps(z, z), z);
  const __m128 depth = _mm_min_ps(_mm_set1_ps(1.0f), _mm_max_ps(_mm_setzero_ps(), not_nan));
  return TinyDepthPair{_mm_cvtss_f32(depth), _mm_cvtss_f32(_mm_shuffle_ps(depth, depth, _MM_SHUFFLE(1, 1, 1, 1))), l0,
                       l1, l2};
}
// A deferred pixel's triangle and barycentrics, those of lane kHigh of l0, l1, l2.
template <bool kHigh>
[[gnu::always_inline]] inline void store_waiting(const WaitingPixels& waiting, size_t pixel, uint32_t triangle,
                                                 __m128d l0, __m128d l1, __m128d l2) {
  waiting.triangle[pixel] = triangle;
  if constexpr (kHigh) {
    _mm_storeh_pd(waiting.l[0] + pixel, l0);
    _mm_storeh_pd(waiting.l[1] + pixel, l1);
    _mm_storeh_pd(waiting.l[2] + pixel, l2);
  } else {
    _mm_storel_pd(waiting.l[0] + pixel, l0);
    _mm_storel_pd(waiting.l[1] + pixel, l1);
    _mm_storel_pd(waiting.l[2] + pixel, l2);
  }
}

#if defined(__AVX2__)
// The lanes of a row of four fragments whose bits (1 << lane) are set: all ones in 32 and in 64 bits.
struct RowLanes {
  alignas(16) int32_t lanes32[16][4];
  alignas(32) int64_t lanes64[16][4];
  constexpr RowLanes() : lanes32(), lanes64() {
    for (int bits = 0; bits < 16; ++bits)
      for (int lane = 0; lane < 4; ++lane) lanes32[bits][lane] = lanes64[bits][lane] = bits >> lane & 1 ? -1 : 0;
  }
};
constexpr RowLanes kRowLanes{};

// raster_tiny_deferred's depth test and stores for a 4x4 box with AVX2 (TBDR_AVX2), a row of four
// fragments at a time, one a lane: per lane the operations of tiny_depth_pair (edge values from the
// origin's and their steps, barycentrics times 1 / area, (l0 z0 + l1 z1) + l2 z2 in double, rounded
// to float, clamped), so the same values bit for bit. The row's stored depths are loaded, tested
// and written under its coverage, and the waiting pixels of those that passed with one masked store
// an array (masked: the box may reach past the tile's last pixel). Returns the bits that passed.
[[gnu::always_inline]] inline uint64_t tiny_depth_rows(const TinyBox& box, size_t width, float* depths,
                                                       const WaitingPixels& waiting, uint32_t triangle) {
  // Edge k's values over the row (pixels dx = 0..3: pmaddwd of its (dedx, dedy) pair by (dx, 0)),
  // and its step to the next row (dedy, the pair's high half).
  const __m128i dx = _mm_setr_epi32(0, 1, 2, 3);
  __m128i edge[3], step[3];
  auto setup_edge = [&](auto k) {
    constexpr int kLane = decltype(k)::value;
    const __m128i pair = _mm_shuffle_epi32(box.steps, _MM_SHUFFLE(kLane, kLane, kLane, kLane));
    const __m128i origin = _mm_shuffle_epi32(box.e_origin, _MM_SHUFFLE(kLane, kLane, kLane, kLane));
    edge[kLane] = _mm_add_epi32(origin, _mm_slli_epi32(_mm_madd_epi16(pair, dx), kSubpixelBits));
    step[kLane] = _mm_slli_epi32(_mm_srai_epi32(pair, 16), kSubpixelBits);
  };
  setup_edge(std::integral_constant<int, 0>());
  setup_edge(std::integral_constant<int, 1>());
  setup_edge(std::integral_constant<int, 2>());
  const __m256d inv_area = _mm256_broadcastsd_pd(box.inv_area2);
  const __m256d z0 = _mm256_broadcastsd_pd(box.z01), z2 = _mm256_broadcastsd_pd(box.z2v);
  const __m256d z1 = _mm256_broadcastsd_pd(_mm_unpackhi_pd(box.z01, box.z01));
  const __m128i triangles = _mm_set1_epi32(int32_t(triangle));
  uint64_t passed = 0;
  size_t row = 0;      // the row's first pixel, from the box's origin
  uint32_t shift = 0;  // its first bit
  for (uint64_t rows = box.covered; rows; rows >>= 4, row += width, shift += 4) {
    const uint32_t row_bits = uint32_t(rows) & 0xf;
    if (row_bits) {
      const __m256d l0 = _mm256_mul_pd(_mm256_cvtepi32_pd(edge[0]), inv_area);
      const __m256d l1 = _mm256_mul_pd(_mm256_cvtepi32_pd(edge[1]), inv_area);
      const __m256d l2 = _mm256_mul_pd(_mm256_cvtepi32_pd(edge[2]), inv_area);
      const __m256d sum = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(l0, z0), _mm256_mul_pd(l1, z1)),
                                        _mm256_mul_pd(l2, z2));
      const __m128 z = _mm256_cvtpd_ps(sum);  // clamped_depth on each lane
      const __m128 not_nan = _mm_andnot_ps(_mm_cmpunord_ps(z, z), z);
      const __m128 depth = _mm_min_ps(_mm_set1_ps(1.0f), _mm_max_ps(_mm_setzero_ps(), not_nan));
      const __m128i covered = _mm_load_si128(reinterpret_cast<const __m128i*>(kRowLanes.lanes32[row_bits]));
      const __m128 nearer = _mm_and_ps(_mm_cmplt_ps(depth, _mm_maskload_ps(depths + row, covered)),
                                       _mm_castsi128_ps(covered));
      const uint32_t row_passed = uint32_t(_mm_movemask_ps(nearer));
      if (row_passed) {
        const __m128i lanes32 = _mm_castps_si128(nearer);
        const __m256i lanes64 = _mm256_load_si256(reinterpret_cast<const __m256i*>(kRowLanes.lanes64[row_passed]));
        _mm_maskstore_ps(depths + row, lanes32, depth);
        _mm_maskstore_epi32(reinterpret_cast<int*>(waiting.triangle + row), lanes32, triangles);
        _mm256_maskstore_pd(waiting.l[0] + row, lanes64, l0);
        _mm256_maskstore_pd(waiting.l[1] + row, lanes64, l1);
        _mm256_maskstore_pd(waiting.l[2] + row, lanes64, l2);
        passed |= uint64_t(row_passed) << shift;
      }
    }
    for (int k = 0; k < 3; ++k) edge[k] = _mm_add_epi32(edge[k], step[k]);
  }
  return passed;
}
#endif

// The common case of the tiny-triangle loops, fixed for a draw: a float depth buffer tested `less`
// and written, and deferred colors (every fragment of the million-triangle frame).
inline bool deferred_less_depth(const PipelineState& state, const TargetSet& targets, const DrawFacts& facts) {
  const bool float_depth = targets.depth_format != Format::D16 && targets.depth_format != Format::D24S8;
  return targets.depth && state.depth_test && state.depth_write && state.depth_compare == CompareOp::less &&
         float_depth && facts.defer;
}

// raster_tiny's common case with a tracker (a float depth buffer tested `less` and written,
// deferred colors, the targets' rows the tile's: every fragment of the million-triangle frame), in
// three loops over the box's bits: the tracker's rasterized fragments, the depth test with the
// deferred pixels' stores, the tracker's candidates (TileWorkTracker::rasterized_box). The same
// operations per fragment as raster_tiny's loop, which is short of registers when they are
// interleaved: its state spilled to the stack, and 140 instructions a fragment went to it.
template <int kBox, class Tracker>
[[gnu::always_inline]] inline void raster_tiny_deferred(const TinyBox& box, const ScreenPrims& prims, size_t prim, const CompiledProgram& program,
                          TargetSet& targets, PassCounters& counters, Tracker tracker, const DrawFacts& facts) {
  const uint32_t draw = prims.draw[prim];
  const uint32_t pixel_base = tracker.pixel_index(box.x0, box.y0), quad_base = tracker.quad_index(box.x0, box.y0);
  const uint32_t* const pixel_offsets = tracker.template box_pixel_offsets<kBox>();
  const uint32_t* const quad_offsets =
      tracker.template box_quad_offsets<kBox>(box.x0 - tracker.rect().x, box.y0 - tracker.rect().y);
  const uint64_t fragments = tracker.template rasterized_box<kBox>(uint32_t(prim), draw, box.x0, box.y0, box.covered,
                                                                   pixel_base, quad_base, quad_offsets);
  DeferredColors::Impl& deferred = *targets.deferred->impl;
  // The entry add_deferred_triangle appends below, once a fragment has passed.
  const uint32_t triangle = uint32_t(deferred.triangles.size());
  const WaitingPixels waiting = deferred.waiting().from(box.origin);
  float* const depths = targets.depth + box.origin;
#if defined(__AVX2__)
  // The rows' path with its own copy of the tail below: sharing the tail through a (passed, count)
  // result of either path cost 9 instructions a triangle (callgrind, million-triangle frame).
  if constexpr (kBox == 4) {
    const uint64_t passed = tiny_depth_rows(box, targets.area.width, depths, waiting, triangle);
    if (passed) add_deferred_triangle(deferred, prims, prim, box.flip, program.color);
    tracker.template candidates_box<kBox>(draw, passed, pixel_base, quad_base, quad_offsets, facts.occluder,
                                          facts.color_writes);
    counters.fragments += fragments;
    counters.samples_passed += uint64_t(__builtin_popcountll(passed));
    return;
  }
#endif
  // The bits that failed the test, counted: most fragments pass (every one of the million-triangle
  // frame), so the work is on the rarer branch; `fragments` is the number of covered bits.
  uint64_t failed = 0, failed_count = 0;
  // The fragments two at a time, one a double lane (the covered bits in order; a last odd one
  // alone): the same operations on each lane as the one-fragment loop it replaced, so the same
  // depths and barycentrics, in 37 instructions a fragment instead of 45 (callgrind of the
  // million-triangle frame). A fragment's test and stores touch its own pixel only, so testing
  // two before storing either changes nothing.
  const TinyDepthLanes lanes(box);
  // Fragment `bit`, lane kHigh of `d`: stored as the pixel's waiting fragment when nearer, else
  // marked failed.
  auto test_fragment = [&](auto high, uint32_t bit, float depth, const TinyDepthPair& d) [[gnu::always_inline]] {
    const uint32_t offset = pixel_offsets[bit];
    if (depth < depths[offset]) {
      depths[offset] = depth;
      store_waiting<decltype(high)::value>(waiting, offset, triangle, d.l0, d.l1, d.l2);
    } else {
      failed |= uint64_t(1) << bit;
      ++failed_count;
    }
  };
  uint64_t mask = box.covered;
  while (mask) {
    const uint32_t a = uint32_t(__builtin_ctzll(mask));
    mask &= mask - 1;
    if (!mask) {
      // One fragment: lane 0 of a pair with itself.
      const TinyDepthPair d = tiny_depth_pair<kBox>(box, lanes, a, a);
      test_fragment(std::false_type(), a, d.depth_a, d);
      break;
    }
    const uint32_t b = uint32_t(__builtin_ctzll(mask));
    mask &= mask - 1;
    const TinyDepthPair d = tiny_depth_pair<kBox>(box, lanes, a, b);
    test_fragment(std::false_type(), a, d.depth_a, d);
    test_fragment(std::true_type(), b, d.depth_b, d);
  }
  const uint64_t passed = box.covered & ~failed, passed_count = fragments - failed_count;
  if (passed) add_deferred_triangle(deferred, prims, prim, box.flip, program.color);
  tracker.template candidates_box<kBox>(draw, passed, pixel_base, quad_base, quad_offsets, facts.occluder,
                                        facts.color_writes);
  counters.fragments += fragments;
  counters.samples_passed += passed_count;
}

// raster_tiny's set-up of a box (x0, y0)..(x1, y1) up to its coverage (`box.origin` left 0): `far`
// when a vertex lies too far for int32 edge values (nothing done), `empty` for a degenerate
// triangle or one covering no pixel centre of the box.
enum class TinySetup { far, empty, covered };
template <int kBox>
[[gnu::always_inline]] inline TinySetup tiny_setup(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0,
                                                   int32_t x1, int32_t y1, TinyBox& box) {
  constexpr int32_t kReach = kBox * kSubpixelOne;
  const int32_t cx = (x0 << kSubpixelBits) + kSubpixelOne / 2, cy = (y0 << kSubpixelBits) + kSubpixelOne / 2;
  // The three vertices in lanes 0..2 relative to the centre; lane 3 is 0. Each vertex is loaded
  // whole (x, y, z, 1/w) and the lanes gathered by unpacking: building vx and vy from the six
  // scalars took 20 instructions a triangle more (callgrind of the million-triangle frame).
  const ScreenVertex &s0 = prims.vertex_of(0, prim), &s1 = prims.vertex_of(1, prim), &s2 = prims.vertex_of(2, prim);
  static_assert(sizeof(ScreenVertex) == 16 && offsetof(ScreenVertex, y) == 4, "x, y in a vertex's low lanes");
  auto load = [](const ScreenVertex& v) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(&v)); };
  const __m128i centre = _mm_setr_epi32(cx, cy, 0, 0);
  const __m128i xy01 = _mm_unpacklo_epi32(load(s0), load(s1)), xy2c = _mm_unpacklo_epi32(load(s2), centre);
  __m128i vx = _mm_sub_epi32(_mm_unpacklo_epi64(xy01, xy2c), _mm_shuffle_epi32(centre, _MM_SHUFFLE(0, 0, 0, 0)));
  __m128i vy = _mm_sub_epi32(_mm_unpackhi_epi64(xy01, xy2c), _mm_shuffle_epi32(centre, _MM_SHUFFLE(1, 1, 1, 1)));
  // All six in [-kReach, kReach): each plus kReach has no bit at or above 2 kReach (a power of two).
  const __m128i reach = _mm_set1_epi32(kReach);
  const __m128i far = _mm_and_si128(_mm_or_si128(_mm_add_epi32(vx, reach), _mm_add_epi32(vy, reach)),
                                    _mm_set1_epi32(~(2 * kReach - 1)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi32(far, _mm_setzero_si128())) != 0xffff) return TinySetup::far;
  int32_t area = (s1.x - s0.x) * (s2.y - s0.y) - (s1.y - s0.y) * (s2.x - s0.x);
  if (area == 0) return TinySetup::empty;
  // Counter-clockwise (a predictable branch: meshes keep their winding).
  const bool flip = area < 0;
  if (flip) {
    vx = _mm_shuffle_epi32(vx, _MM_SHUFFLE(3, 1, 2, 0));
    vy = _mm_shuffle_epi32(vy, _MM_SHUFFLE(3, 1, 2, 0));
    area = -area;
  }
  // Edge k (opposite vertex k, lane k) from vertex a = k + 1 to b = k + 2 (mod 3): its value at
  // the centre of pixel (x0, y0), the origin, edge(a, b, 0) = xa yb - xb ya; its steps one pixel
  // right (dedx = ya - yb) and down (dedy = xb - xa), times kSubpixelOne. Every coordinate fits
  // in int16, so pmaddwd forms the products exactly, two a lane.
  const __m128i xa = _mm_shuffle_epi32(vx, _MM_SHUFFLE(3, 0, 2, 1)), xb = _mm_shuffle_epi32(vx, _MM_SHUFFLE(3, 1, 0, 2));
  const __m128i ya = _mm_shuffle_epi32(vy, _MM_SHUFFLE(3, 0, 2, 1)), yb = _mm_shuffle_epi32(vy, _MM_SHUFFLE(3, 1, 0, 2));
  const __m128i low16 = _mm_set1_epi32(0xffff);
  const __m128i e_origin = _mm_madd_epi16(_mm_or_si128(_mm_and_si128(xa, low16), _mm_slli_epi32(xb, 16)),
                                          _mm_or_si128(_mm_and_si128(yb, low16),
                                                       _mm_slli_epi32(_mm_sub_epi32(_mm_setzero_si128(), ya), 16)));
  const __m128i dedx = _mm_sub_epi32(ya, yb), dedy = _mm_sub_epi32(xb, xa);
  // Top-left rule (TriangleEdges::bias): -1 unless dedx > 0 or (dedx == 0 and dedy > 0).
  const __m128i zero = _mm_setzero_si128();
  const __m128i left_or_top = _mm_or_si128(_mm_cmpgt_epi32(dedx, zero),
                                           _mm_and_si128(_mm_cmpeq_epi32(dedx, zero), _mm_cmpgt_epi32(dedy, zero)));
  const __m128i biased_origin = _mm_add_epi32(e_origin, _mm_xor_si128(left_or_top, _mm_set1_epi32(-1)));
  const __m128i step_y = _mm_slli_epi32(dedy, kSubpixelBits);
  // Biased edge values of the box's first row, four pixels a vector: pixel dx adds dx * dedx *
  // kSubpixelOne (pmaddwd of dedx's int16 by dx * kSubpixelOne, at most 768).
  const __m128i lane_steps = _mm_setr_epi32(0, kSubpixelOne, 2 * kSubpixelOne, 3 * kSubpixelOne);
  __m128i rows[3][kBox / 4], row_step[3];
  auto lane = [](__m128i v, auto k) { return _mm_shuffle_epi32(v, _MM_SHUFFLE(k(), k(), k(), k())); };
  auto setup_rows = [&](auto k) {
    const __m128i dx_k = lane(dedx, k);
    rows[k()][0] = _mm_add_epi32(lane(biased_origin, k), _mm_madd_epi16(dx_k, lane_steps));
    if (kBox == 8) rows[k()][1] = _mm_add_epi32(rows[k()][0], _mm_slli_epi32(dx_k, kSubpixelBits + 2));
    row_step[k()] = lane(step_y, k);
  };
  setup_rows(std::integral_constant<int, 0>());
  setup_rows(std::integral_constant<int, 1>());
  setup_rows(std::integral_constant<int, 2>());
  // Coverage of the box, bit kBox * dy + dx: the sign bits of e0 | e1 | e2 are the uncovered
  // pixels, packed with signed saturation (signs kept) to one byte a pixel for pmovmskb.
  auto any_row = [&](int half) { return _mm_or_si128(_mm_or_si128(rows[0][half], rows[1][half]), rows[2][half]); };
  auto next_row = [&]() {
    for (int k = 0; k < 3; ++k)
      for (int half = 0; half < kBox / 4; ++half) rows[k][half] = _mm_add_epi32(rows[k][half], row_step[k]);
  };
  uint64_t outside = 0;
  if (kBox == 4) {
    __m128i any[4];
    for (int dy = 0; dy < 4; ++dy) {
      any[dy] = any_row(0);
      next_row();
    }
    outside = uint32_t(_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(any[0], any[1]), _mm_packs_epi32(any[2], any[3]))));
  } else {
    for (int dy = 0; dy <= y1 - y0; dy += 2) {
      const __m128i first = _mm_packs_epi32(any_row(0), any_row(1));
      next_row();
      const __m128i second = _mm_packs_epi32(any_row(0), any_row(1));
      next_row();
      outside |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_packs_epi16(first, second)))) << (8 * dy);
    }
  }
  const uint64_t row_bits = (uint64_t(1) << (x1 - x0 + 1)) - 1;
  const uint64_t box_rows = kBox == 4 ? 0x1111u & ((1u << (4 * (y1 - y0 + 1))) - 1)
                                      : 0x0101010101010101ull >> (8 * (7 - (y1 - y0)));
  uint64_t mask = ~outside & row_bits * box_rows;
  if (!mask) return TinySetup::empty;

  const __m128d inv_area2 = _mm_set1_pd(1.0 / double(area));
  const float z1 = s1.z, z2 = s2.z;
  const __m128d z01 = _mm_setr_pd(s0.z, flip ? z2 : z1);
  const __m128d z2v = _mm_set_sd(flip ? z1 : z2);
  // dedx and dedy of each edge as the int16 pair of its lane, for pmaddwd by (dx, dy).
  const __m128i steps = _mm_or_si128(_mm_and_si128(dedx, low16), _mm_slli_epi32(dedy, 16));
  box = TinyBox{x0, y0, mask, 0, e_origin, steps, inv_area2, z01, z2v, flip};
  return TinySetup::covered;
}

// raster_simple for tiny triangles, most of a dense mesh's: a clipped box of up to kBox x kBox
// pixels (kBox 4 or 8) and every vertex within kBox pixels (kBox * 256 subpixels) of the centre of
// pixel (x0, y0). Their edge values over the kBox x kBox box at (x0, y0) then stay below 2^25 and
// are computed in int32, relative to that centre (the edge functions' differences do not change),
// with no more state than fits in registers. The setup works on the three edges at once, one an
// SSE2 lane (vertex coordinates fit in int16, so pmaddwd forms the edge products exactly): up to
// the coverage mask, the per-edge scalar setup it replaces took 33 of BM_Raster/2/16's 81 us, 25
// now. The same coverage, depths and order as raster_simple. Returns false, having done nothing,
// for a triangle whose vertices lie farther.
template <int kBox, class Tracker>
[[gnu::always_inline]] inline bool raster_tiny(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                 const Draw& draw, const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                 Tracker tracker, const DrawFacts& facts) {
  TinyBox box;
  switch (tiny_setup<kBox>(prims, prim, x0, y0, x1, y1, box)) {
    case TinySetup::far: return false;
    case TinySetup::empty: return true;
    case TinySetup::covered: break;
  }
  uint64_t mask = box.covered;
  const bool flip = box.flip;
  const __m128i e_origin = box.e_origin, steps = box.steps;
  const __m128d inv_area2 = box.inv_area2, z01 = box.z01, z2v = box.z2v;
  const double inv_area = _mm_cvtsd_f64(inv_area2);
  const PipelineState& state = draw.state;
  float* const depth_buffer = targets.depth;
  const bool depth_test = depth_buffer && state.depth_test;
  const bool depth_write = depth_test && state.depth_write;
  const CompareOp depth_op = state.depth_compare;
  const Format depth_format = targets.depth_format;
  const size_t width = targets.area.width;
  const size_t origin = size_t(y0 - targets.area.y) * width + size_t(x0 - targets.area.x);
  constexpr bool kTracked = !std::is_same_v<Tracker, NoTracker>;
  const bool common_case = deferred_less_depth(state, targets, facts);
  if constexpr (kTracked) {
    if (common_case && tracker.rect().width == width) {
      box.origin = origin;
      raster_tiny_deferred<kBox>(box, prims, prim, program, targets, counters, tracker, facts);
      return true;
    }
  }
  SimpleShading<Tracker> shading(prims, prim, flip, inv_area, draw, program, targets, tracker, facts);
  // The box's origin in the tracker's tile (pixel and quad indices) and its fragments' offsets from
  // there, by bit (TileWorkTracker::box_pixel_offsets, box_quad_offsets).
  uint32_t pixel_base = 0, quad_base = 0;
  const uint32_t *pixel_offsets = nullptr, *quad_offsets = nullptr;
  bool tile_wide = !kTracked;  // the targets' rows as wide as the tile's: their offsets are the same
  if constexpr (kTracked) {
    pixel_base = tracker.pixel_index(x0, y0);
    quad_base = tracker.quad_index(x0, y0);
    pixel_offsets = tracker.template box_pixel_offsets<kBox>();
    quad_offsets = tracker.template box_quad_offsets<kBox>(x0 - tracker.rect().x, y0 - tracker.rect().y);
    tile_wide = tracker.rect().width == width;
  }
  const uint32_t draw_index = prims.draw[prim];
  uint64_t fragments = 0;
  // The fragments in bit order. `common_case`: std::true_type for a float depth buffer tested
  // `less` and written and deferred colors (every fragment of the million-triangle frame), whose
  // tests and shading path are then fixed at compile time; the loop is short of registers, and
  // the state it tested per fragment was reloaded from the stack each time.
  auto fragment_loop = [&](auto common_case) __attribute__((always_inline)) {
    constexpr bool kCommon = decltype(common_case)::value;
    for (; mask; mask &= mask - 1) {
      const uint32_t bit = uint32_t(__builtin_ctzll(mask));
      const int32_t dx = int32_t(bit % kBox), dy = int32_t(bit / kBox);
      ++fragments;
      const uint32_t tile_pixel = kTracked ? pixel_base + pixel_offsets[bit] : 0;
      const uint32_t tile_quad = kTracked ? quad_base + quad_offsets[bit] : 0;
      if (kTracked) tracker.rasterized_at(uint32_t(prim), draw_index, x0 + dx, y0 + dy, tile_pixel, tile_quad);
      // Edge values at the pixel's centre: origin + (dx dedx + dy dedy) kSubpixelOne, exact in int32.
      const __m128i dx_dy = _mm_set1_epi32(kBoxSteps<kBox>.dx_dy[bit]);
      const __m128i e = _mm_add_epi32(e_origin, _mm_slli_epi32(_mm_madd_epi16(steps, dx_dy), kSubpixelBits));
      // Barycentrics double(e) * inv_area: l0, l1 in one vector, l2 in the low lane of another.
      const __m128d l01 = _mm_mul_pd(_mm_cvtepi32_pd(e), inv_area2);
      const __m128d l2 = _mm_mul_sd(_mm_cvtepi32_pd(_mm_shuffle_epi32(e, _MM_SHUFFLE(3, 3, 3, 2))), inv_area2);
      const size_t i = kCommon && kTracked ? origin + pixel_offsets[bit] : origin + size_t(dy) * width + size_t(dx);
      if (kCommon || depth_buffer) {
        // (l0 z0 + l1 z1) + l2 z2, the scalar order.
        const __m128d products = _mm_mul_pd(l01, z01);
        const __m128d sum = _mm_add_sd(_mm_add_sd(products, _mm_unpackhi_pd(products, products)), _mm_mul_sd(l2, z2v));
        const float z = _mm_cvtss_f32(_mm_cvtsd_ss(_mm_setzero_ps(), sum));
        const float depth = kCommon ? clamped_depth(z) : depth_value(depth_format, z);
        // `less` (the common op) as a plain compare: a well-predicted branch instead of the switch's
        // indirect jump per fragment.
        if (kCommon ? !(depth < depth_buffer[i])
                    : depth_test && !(depth_op == CompareOp::less ? depth < depth_buffer[i]
                                                                  : compare<float>(depth_op, depth, depth_buffer[i])))
          continue;
        if (kCommon || depth_write) depth_buffer[i] = depth;
      }
      const int64_t e0 = _mm_cvtsi128_si32(e), e1 = _mm_cvtsi128_si32(_mm_shuffle_epi32(e, _MM_SHUFFLE(1, 1, 1, 1))),
                    e2 = _mm_cvtsi128_si32(_mm_shuffle_epi32(e, _MM_SHUFFLE(2, 2, 2, 2)));
      const double l0 = _mm_cvtsd_f64(l01), l1 = _mm_cvtsd_f64(_mm_unpackhi_pd(l01, l01));
      if (kCommon) shading.template shade_deferred<kTracked>(x0 + dx, y0 + dy, i, tile_pixel, tile_quad, l0, l1, _mm_cvtsd_f64(l2));
      else shading.shade_at(x0 + dx, y0 + dy, i, tile_pixel, tile_quad, e0, e1, e2, l0, l1, _mm_cvtsd_f64(l2));
    }
  };
  if (common_case && tile_wide)
    fragment_loop(std::true_type());
  else fragment_loop(std::false_type());

  counters.fragments += fragments;
  counters.samples_passed += shading.samples_passed;
  return true;
}
#endif

// raster_triangle's common case: one sample (at the pixel centre, so the coverage edges are the
// shading edges), early depth tests, no stencil, tile memory (no framebuffer cache). The same
// operations in the same order as the general loop, kept apart so that a tiny triangle pays only
// for what it uses: its edges and coverage first, then the depth of its covered pixels, and the
// shading setup only once a fragment passes the depth test.
template <class Tracker>
void raster_simple(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                   const Draw& draw, const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                   Tracker tracker, const DrawFacts& facts) {
  TriangleEdges t;
  if (!setup_edges(prims, prim, t)) return;
  // Edge values at the centre of pixel (x0, y0), the bias added: a pixel is covered where all
  // three are >= 0.
  const int64_t cx = (int64_t(x0) << kSubpixelBits) + kSubpixelOne / 2;
  const int64_t cy = (int64_t(y0) << kSubpixelBits) + kSubpixelOne / 2;
  const int64_t r0 = t.at(0, cx, cy) + t.bias[0], r1 = t.at(1, cx, cy) + t.bias[1], r2 = t.at(2, cx, cy) + t.bias[2];

  const bool has_depth = targets.depth != nullptr;
  const Format depth_format = targets.depth_format;
#if defined(__SSE2__)
  // Rows four pixels at a time in SSE2 (below) for all but tiny triangles; their depth test is
  // vectorized for the float formats only.
  const bool sse_rows = !has_depth || (depth_format != Format::D16 && depth_format != Format::D24S8);
#else
  const bool sse_rows = false;
#endif
  // Tiny triangles: the coverage of their box first, as a bit mask (bit (dy << mask_shift) + dx)
  // without a branch per pixel (tiny triangles cover about half their box, so such branches
  // mispredict); a triangle covering no pixel centre (many tiny ones) stops there.
  bool by_mask = false;
  uint64_t mask = 0;
  int mask_shift = 3;
#if defined(__SSE2__)
  // Up to 4x4 pixels whose edge values all fit in int32 (every tiny triangle's): the 4x4 box
  // at (x0, y0) four pixels at a time, with no loop exits to mispredict; the sign bits of
  // e0 | e1 | e2 are the uncovered pixels.
  const auto fits = [](int64_t r, int64_t sx, int64_t sy) {
    return std::abs(r) + 3 * std::abs(sx) + 3 * std::abs(sy) < (int64_t(1) << 31);
  };
  const auto fits7 = [](int64_t r, int64_t sx, int64_t sy) {
    return std::abs(r) + 7 * std::abs(sx) + 7 * std::abs(sy) < (int64_t(1) << 31);
  };
  if (x1 - x0 < 4 && y1 - y0 < 4 && fits(r0, t.step_x[0], t.step_y[0]) && fits(r1, t.step_x[1], t.step_y[1]) &&
      fits(r2, t.step_x[2], t.step_y[2])) {
    auto row_of = [](int64_t r, int64_t sx) {
      return _mm_setr_epi32(int32_t(r), int32_t(r + sx), int32_t(r + 2 * sx), int32_t(r + 3 * sx));
    };
    __m128i e0 = row_of(r0, t.step_x[0]), e1 = row_of(r1, t.step_x[1]), e2 = row_of(r2, t.step_x[2]);
    const __m128i sy0 = _mm_set1_epi32(int32_t(t.step_y[0])), sy1 = _mm_set1_epi32(int32_t(t.step_y[1])),
                  sy2 = _mm_set1_epi32(int32_t(t.step_y[2]));
    uint32_t outside = 0;
    for (int dy = 0; dy < 4; ++dy) {
      const __m128i any = _mm_or_si128(_mm_or_si128(e0, e1), e2);
      outside |= uint32_t(_mm_movemask_ps(_mm_castsi128_ps(any))) << (4 * dy);
      e0 = _mm_add_epi32(e0, sy0);
      e1 = _mm_add_epi32(e1, sy1);
      e2 = _mm_add_epi32(e2, sy2);
    }
    const uint32_t row_bits = (1u << (x1 - x0 + 1)) - 1;
    const uint32_t box = row_bits * (0x1111u & ((1u << (4 * (y1 - y0 + 1))) - 1));
    mask = ~outside & box;
    mask_shift = 2;
    by_mask = true;
  } else if (x1 - x0 < 8 && y1 - y0 < 8 && fits7(r0, t.step_x[0], t.step_y[0]) && fits7(r1, t.step_x[1], t.step_y[1]) &&
             fits7(r2, t.step_x[2], t.step_y[2])) {
    // Up to 8x8: two vectors per row, the box's rows only.
    auto row_of = [](int64_t r, int64_t sx) {
      return _mm_setr_epi32(int32_t(r), int32_t(r + sx), int32_t(r + 2 * sx), int32_t(r + 3 * sx));
    };
    __m128i e0 = row_of(r0, t.step_x[0]), e1 = row_of(r1, t.step_x[1]), e2 = row_of(r2, t.step_x[2]);
    __m128i f0 = _mm_add_epi32(e0, _mm_set1_epi32(int32_t(4 * t.step_x[0]))),
            f1 = _mm_add_epi32(e1, _mm_set1_epi32(int32_t(4 * t.step_x[1]))),
            f2 = _mm_add_epi32(e2, _mm_set1_epi32(int32_t(4 * t.step_x[2])));
    const __m128i sy0 = _mm_set1_epi32(int32_t(t.step_y[0])), sy1 = _mm_set1_epi32(int32_t(t.step_y[1])),
                  sy2 = _mm_set1_epi32(int32_t(t.step_y[2]));
    uint64_t outside = 0;
    for (int dy = 0; dy <= y1 - y0; ++dy) {
      const __m128i any_lo = _mm_or_si128(_mm_or_si128(e0, e1), e2), any_hi = _mm_or_si128(_mm_or_si128(f0, f1), f2);
      outside |= uint64_t(uint32_t(_mm_movemask_ps(_mm_castsi128_ps(any_lo))) |
                          uint32_t(_mm_movemask_ps(_mm_castsi128_ps(any_hi))) << 4)
                 << (8 * dy);
      e0 = _mm_add_epi32(e0, sy0);
      e1 = _mm_add_epi32(e1, sy1);
      e2 = _mm_add_epi32(e2, sy2);
      f0 = _mm_add_epi32(f0, sy0);
      f1 = _mm_add_epi32(f1, sy1);
      f2 = _mm_add_epi32(f2, sy2);
    }
    const uint64_t row_bits = (uint64_t(1) << (x1 - x0 + 1)) - 1;
    const uint64_t box = row_bits * (0x0101010101010101ull >> (8 * (7 - (y1 - y0))));
    mask = ~outside & box;
    by_mask = true;
  }
#endif
  if (!by_mask && !sse_rows && x1 - x0 < 8 && y1 - y0 < 8) {
    int64_t e_row0 = r0, e_row1 = r1, e_row2 = r2;
    for (int32_t dy = 0; dy <= y1 - y0; ++dy, e_row0 += t.step_y[0], e_row1 += t.step_y[1], e_row2 += t.step_y[2]) {
      int64_t e0 = e_row0, e1 = e_row1, e2 = e_row2;
      for (int32_t dx = 0; dx <= x1 - x0; ++dx, e0 += t.step_x[0], e1 += t.step_x[1], e2 += t.step_x[2])
        mask |= uint64_t((e0 | e1 | e2) >= 0) << (8 * dy + dx);
    }
    by_mask = true;
  }
  if (by_mask) {
    if (!mask) return;
  } else {
    // Whole-rectangle reject: an edge whose largest value over the pixel rectangle (at its
    // corner points, a superset of every sample position) still fails covers nothing.
    const int64_t rx0 = int64_t(x0) << kSubpixelBits, ry0 = int64_t(y0) << kSubpixelBits;
    const int64_t rx1 = int64_t(x1 + 1) << kSubpixelBits, ry1 = int64_t(y1 + 1) << kSubpixelBits;
    for (int k = 0; k < 3; ++k) {
      const int64_t px = t.step_x[k] > 0 ? rx1 : rx0, py = t.step_y[k] > 0 ? ry1 : ry0;
      if (t.at(k, px, py) + t.bias[k] < 0) return;
    }
  }

  const PipelineState& state = draw.state;
  const double inv_area = 1.0 / double(t.area);
  const float z1 = prims.vertex_of(1, prim).z, z2 = prims.vertex_of(2, prim).z;
  const float z[3] = {prims.vertex_of(0, prim).z, t.flip ? z2 : z1, t.flip ? z1 : z2};
  const bool depth_test = has_depth && state.depth_test;
  const bool depth_write = depth_test && state.depth_write;
  const CompareOp depth_op = state.depth_compare;
  // In locals: the compiler cannot keep them in registers across the color stores otherwise.
  const int32_t area_x = targets.area.x, area_y = targets.area.y;
  const size_t area_width = targets.area.width;
  float* const depth_buffer = targets.depth;
  uint64_t fragments = 0;  // added to `counters` at the end
  SimpleShading<Tracker> shading(prims, prim, t.flip, inv_area, draw, program, targets, tracker, facts);

  // One covered pixel, `e0..e2` its edge values (at its centre, the only sample).
  auto fragment = [&](int32_t x, int32_t y, int64_t e0, int64_t e1, int64_t e2) __attribute__((always_inline)) {
    ++fragments;
    if (tracker) tracker.rasterized(uint32_t(prim), prims.draw[prim], x, y);
    const double l[3] = {double(e0) * inv_area, double(e1) * inv_area, double(e2) * inv_area};
    const size_t i = size_t(y - area_y) * area_width + size_t(x - area_x);
    if (has_depth) {
      const float depth = depth_value(depth_format, float(l[0] * z[0] + l[1] * z[1] + l[2] * z[2]));
      if (depth_test && !compare<float>(depth_op, depth, depth_buffer[i])) return;
      if (depth_write) depth_buffer[i] = depth;
    }
    shading.shade(x, y, i, e0, e1, e2, l[0], l[1], l[2]);
  };

  if (by_mask) {
    // The covered pixels of the mask in row-major order, with their edge values computed exactly
    // (the products the stepping adds up).
    const int64_t b0 = t.bias[0], b1 = t.bias[1], b2 = t.bias[2];
    for (; mask; mask &= mask - 1) {
      const int bit = __builtin_ctzll(mask);
      const int64_t dx = bit & ((1 << mask_shift) - 1), dy = bit >> mask_shift;
      fragment(x0 + int32_t(dx), y0 + int32_t(dy), r0 - b0 + dx * t.step_x[0] + dy * t.step_y[0],
               r1 - b1 + dx * t.step_x[1] + dy * t.step_y[1], r2 - b2 + dx * t.step_x[2] + dy * t.step_y[2]);
    }
    counters.fragments += fragments;
    counters.samples_passed += shading.samples_passed;
    return;
  }
#if defined(__SSE2__)
  // Other triangles: four pixels of a row at a time in SSE2 doubles (baseline x86-64). Edge
  // values stay below 2^47 (geometry.h), so they and their sums are exact in double: the coverage
  // compares and barycentrics are those of the int64 values, and the depths are computed, clamped
  // and tested with the same IEEE operations per lane as fragment() does per pixel. Depth writes
  // and everything after them stay per pixel, in row-major order.
  if (sse_rows) {
    const __m128d inv_area2 = _mm_set1_pd(inv_area);
    const __m128d z0 = _mm_set1_pd(z[0]), z1v = _mm_set1_pd(z[1]), z2v = _mm_set1_pd(z[2]);
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    __m128d threshold[3], group_step[3], lane_lo[3], lane_hi[3];
    int64_t e_row[3];
    for (int k = 0; k < 3; ++k) {
      // Covered: e + bias >= 0, that is e >= -bias (integers).
      threshold[k] = _mm_set1_pd(double(-t.bias[k]));
      group_step[k] = _mm_set1_pd(double(4 * t.step_x[k]));
      lane_lo[k] = _mm_setr_pd(0.0, double(t.step_x[k]));
      lane_hi[k] = _mm_setr_pd(double(2 * t.step_x[k]), double(3 * t.step_x[k]));
    }
    e_row[0] = r0 - t.bias[0];
    e_row[1] = r1 - t.bias[1];
    e_row[2] = r2 - t.bias[2];
    for (int32_t y = y0; y <= y1; ++y) {
      __m128d lo[3], hi[3];  // edge values of the group's pixels 0, 1 and 2, 3
      int64_t e_group[3];    // edge values of its pixel 0
      for (int k = 0; k < 3; ++k) {
        const __m128d e = _mm_set1_pd(double(e_row[k]));
        lo[k] = _mm_add_pd(e, lane_lo[k]);
        hi[k] = _mm_add_pd(e, lane_hi[k]);
        e_group[k] = e_row[k];
        e_row[k] += t.step_y[k];
      }
      // Index of (0, y) in the depth buffer; an index, not a pointer: there may be no depth buffer,
      // and the row's pixel 0 may lie left of the tile (pointer arithmetic outside it is undefined).
      const ptrdiff_t depth_row = ptrdiff_t(y - area_y) * ptrdiff_t(area_width) - area_x;
      for (int32_t x = x0; x <= x1; x += 4) {
        const __m128d in_lo = _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(lo[0], threshold[0]), _mm_cmpge_pd(lo[1], threshold[1])),
                                         _mm_cmpge_pd(lo[2], threshold[2]));
        const __m128d in_hi = _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(hi[0], threshold[0]), _mm_cmpge_pd(hi[1], threshold[1])),
                                         _mm_cmpge_pd(hi[2], threshold[2]));
        uint32_t covered = uint32_t(_mm_movemask_pd(in_lo)) | uint32_t(_mm_movemask_pd(in_hi)) << 2;
        if (x1 - x < 3) covered &= (1u << (x1 - x + 1)) - 1;
        if (covered) {
          const __m128d l0_lo = _mm_mul_pd(lo[0], inv_area2), l1_lo = _mm_mul_pd(lo[1], inv_area2),
                        l2_lo = _mm_mul_pd(lo[2], inv_area2);
          const __m128d l0_hi = _mm_mul_pd(hi[0], inv_area2), l1_hi = _mm_mul_pd(hi[1], inv_area2),
                        l2_hi = _mm_mul_pd(hi[2], inv_area2);
          uint32_t passed = covered;
          alignas(16) float depth4[4];
          if (has_depth) {
            const __m128d d_lo = _mm_add_pd(_mm_add_pd(_mm_mul_pd(l0_lo, z0), _mm_mul_pd(l1_lo, z1v)), _mm_mul_pd(l2_lo, z2v));
            const __m128d d_hi = _mm_add_pd(_mm_add_pd(_mm_mul_pd(l0_hi, z0), _mm_mul_pd(l1_hi, z1v)), _mm_mul_pd(l2_hi, z2v));
            __m128 d = _mm_movelh_ps(_mm_cvtpd_ps(d_lo), _mm_cvtpd_ps(d_hi));
            // depth_value(): NaN -> 0, then std::clamp to [0, 1] (max(0, d) keeps -0 as clamp does).
            d = _mm_andnot_ps(_mm_cmpunord_ps(d, d), d);
            d = _mm_min_ps(one, _mm_max_ps(zero, d));
            _mm_store_ps(depth4, d);
            if (depth_test) {
              __m128 stored;
              if (x1 - x >= 3) {
                stored = _mm_loadu_ps(depth_buffer + (depth_row + x));
              } else {
                alignas(16) float part[4] = {0, 0, 0, 0};
                for (int32_t j = 0; j <= x1 - x; ++j) part[j] = depth_buffer[depth_row + x + j];
                stored = _mm_load_ps(part);
              }
              passed &= uint32_t(_mm_movemask_ps(depth_pass(depth_op, d, stored)));
            }
          }
          if (!tracker) fragments += kBitCount4[covered];
          if (passed || tracker) {
            alignas(16) double l_lanes[3][4];
            _mm_store_pd(l_lanes[0], l0_lo);
            _mm_store_pd(l_lanes[0] + 2, l0_hi);
            _mm_store_pd(l_lanes[1], l1_lo);
            _mm_store_pd(l_lanes[1] + 2, l1_hi);
            _mm_store_pd(l_lanes[2], l2_lo);
            _mm_store_pd(l_lanes[2] + 2, l2_hi);
            for (uint32_t lanes = tracker ? covered : passed; lanes; lanes &= lanes - 1) {
              const int j = __builtin_ctz(lanes);
              const int32_t px = x + j;
              if (tracker) {
                ++fragments;
                tracker.rasterized(uint32_t(prim), prims.draw[prim], px, y);
                if (!(passed & (1u << j))) continue;
              }
              if (depth_write) depth_buffer[depth_row + px] = depth4[j];
              const double l[3] = {l_lanes[0][j], l_lanes[1][j], l_lanes[2][j]};
              shading.shade(px, y, size_t(y - area_y) * area_width + size_t(px - area_x), e_group[0] + j * t.step_x[0],
                            e_group[1] + j * t.step_x[1], e_group[2] + j * t.step_x[2], l[0], l[1], l[2]);
            }
          }
        }
        for (int k = 0; k < 3; ++k) {
          lo[k] = _mm_add_pd(lo[k], group_step[k]);
          hi[k] = _mm_add_pd(hi[k], group_step[k]);
          e_group[k] += 4 * t.step_x[k];
        }
      }
    }
    counters.fragments += fragments;
    counters.samples_passed += shading.samples_passed;
    return;
  }
#endif
  int64_t e_row0 = r0, e_row1 = r1, e_row2 = r2;
  for (int32_t y = y0; y <= y1; ++y, e_row0 += t.step_y[0], e_row1 += t.step_y[1], e_row2 += t.step_y[2]) {
    int64_t e0 = e_row0, e1 = e_row1, e2 = e_row2;
    for (int32_t x = x0; x <= x1; ++x, e0 += t.step_x[0], e1 += t.step_x[1], e2 += t.step_x[2])
      if ((e0 | e1 | e2) >= 0) fragment(x, y, e0 - t.bias[0], e1 - t.bias[1], e2 - t.bias[2]);
  }
  counters.fragments += fragments;
  counters.samples_passed += shading.samples_passed;
}

// raster_triangle's general case: any sample count, the stencil test, late tests, direct rendering.
template <class Tracker>
void raster_general(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                    const Draw& draw, const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                    Tracker tracker) {
  TriangleEdges t;
  if (!setup_edges(prims, prim, t)) return;
  const uint32_t samples = targets.samples;
  const auto* positions = sample_positions(samples);
  // Edge values at each sample of pixel (x0, y0).
  int64_t row_e[8][3];
  for (uint32_t s = 0; s < samples; ++s) {
    const int64_t px = (int64_t(x0) << kSubpixelBits) + positions[s][0] * (kSubpixelOne / 16);
    const int64_t py = (int64_t(y0) << kSubpixelBits) + positions[s][1] * (kSubpixelOne / 16);
    for (int k = 0; k < 3; ++k) row_e[s][k] = t.at(k, px, py);
  }
  // Edge values at the centre of pixel (x0, y0), for shading.
  int64_t row_c[3];
  {
    const int64_t cx = (int64_t(x0) << kSubpixelBits) + kSubpixelOne / 2;
    const int64_t cy = (int64_t(y0) << kSubpixelBits) + kSubpixelOne / 2;
    for (int k = 0; k < 3; ++k) row_c[k] = t.at(k, cx, cy);
  }
  const int64_t* const bias = t.bias;
  const int64_t* const step_x = t.step_x;
  const int64_t* const step_y = t.step_y;
  const PipelineState& state = draw.state;
  const bool has_stencil = targets.stencil != nullptr && state.stencil_test;
  const bool late_tests = program.discard || state.shader_depth_write;
  ShadingSetup shading;
  shading.init(prims, prim, t.flip, draw, program, targets);
  const float z1 = prims.vertex_of(1, prim).z, z2 = prims.vertex_of(2, prim).z;
  const float z[3] = {prims.vertex_of(0, prim).z, t.flip ? z2 : z1, t.flip ? z1 : z2};
  const bool front = prims.front_facing[prim] != 0;
  const StencilFaceState& face = front ? state.stencil_front : state.stencil_back;
  const bool has_depth = targets.depth != nullptr;
  const bool depth_test = has_depth && state.depth_test;
  const bool depth_write = depth_test && state.depth_write;
  const double inv_area = 1.0 / double(t.area);
  const uint32_t draw_index = prims.draw[prim];
  const uint32_t all_samples = (1u << samples) - 1;
  // Only an opaque fragment that writes depth can hide earlier ones (Arm FPK, PowerVR HSR;
  // models/README.md "Sources: bandwidth savers").
  const bool occluder_draw = tracker && depth_write && !hsr_breakers(draw, program.input_attachments).any();
  const Format depth_format = targets.depth_format;

  for (int32_t y = y0; y <= y1; ++y) {
    int64_t pix_e[8][3], pix_c[3];
    for (uint32_t s = 0; s < samples; ++s)
      for (int k = 0; k < 3; ++k) pix_e[s][k] = row_e[s][k];
    for (int k = 0; k < 3; ++k) pix_c[k] = row_c[k];
    for (uint32_t s = 0; s < samples; ++s)
      for (int k = 0; k < 3; ++k) row_e[s][k] += step_y[k];
    for (int k = 0; k < 3; ++k) row_c[k] += step_y[k];
    for (int32_t x = x0; x <= x1; ++x) {
      uint32_t coverage = 0;
      double lambda[8][3];
      int64_t e_c[3];
      for (int k = 0; k < 3; ++k) {
        e_c[k] = pix_c[k];
        pix_c[k] += step_x[k];
      }
      for (uint32_t s = 0; s < samples; ++s) {
        const int64_t e0 = pix_e[s][0], e1 = pix_e[s][1], e2 = pix_e[s][2];
        pix_e[s][0] += step_x[0];
        pix_e[s][1] += step_x[1];
        pix_e[s][2] += step_x[2];
        if (e0 + bias[0] < 0 || e1 + bias[1] < 0 || e2 + bias[2] < 0) continue;
        coverage |= 1u << s;
        lambda[s][0] = double(e0) * inv_area;
        lambda[s][1] = double(e1) * inv_area;
        lambda[s][2] = double(e2) * inv_area;
      }
      if (!coverage) continue;
      ++counters.fragments;
      if (tracker) tracker.rasterized(uint32_t(prim), draw_index, x, y);

      // Depth per sample: linear in screen space (Vulkan "Depth Interpolation").
      float sample_depth[8];
      for (uint32_t s = 0; s < samples; ++s)
        if (coverage & (1u << s))
          sample_depth[s] = quantize_depth(depth_format,
                                           float(lambda[s][0] * z[0] + lambda[s][1] * z[1] + lambda[s][2] * z[2]));

      auto fb_offset = [&](uint32_t s, uint32_t bpp) {
        return ((uint64_t(y) * targets.framebuffer_width + uint64_t(x)) * samples + s) * bpp;
      };
      // Depth/stencil test of one sample (Vulkan order: stencil test, depth test, then the
      // stencil op of the outcome and the depth write). Returns whether it passed; `wrote`
      // says whether depth or stencil storage was written (a stencil op that is not `keep`
      // under a non-zero write mask, or a depth write).
      auto test_sample = [&](size_t i, uint32_t s, bool& wrote) {
        auto stencil_op = [&](StencilOp op) {
          targets.stencil[i] = apply_stencil_op(op, targets.stencil[i], face);
          wrote = wrote || (op != StencilOp::keep && (face.write_mask & 0xff) != 0);
        };
        if (has_stencil) {
          const uint32_t cmp_mask = face.compare_mask & 0xff;
          if (!compare<uint32_t>(face.compare_op, face.reference & cmp_mask, targets.stencil[i] & cmp_mask)) {
            stencil_op(face.fail_op);
            return false;
          }
        }
        if (depth_test && !compare<float>(state.depth_compare, sample_depth[s], targets.depth[i])) {
          if (has_stencil) stencil_op(face.depth_fail_op);
          return false;
        }
        if (has_stencil) stencil_op(face.pass_op);
        if (depth_write) {
          targets.depth[i] = sample_depth[s];
          wrote = true;
        }
        return true;
      };
      auto run_tests = [&](uint32_t mask) {
        uint32_t passed = 0;
        for (uint32_t s = 0; s < samples; ++s) {
          if (!(mask & (1u << s))) continue;
          const size_t i = targets.index(x, y, s);
          bool wrote = false;
          if (test_sample(i, s, wrote)) passed |= 1u << s;
          if (targets.framebuffer && (depth_test || has_stencil)) {
            // Direct rendering: the test reads depth/stencil through the framebuffer cache; a
            // change writes it back through the same cache.
            targets.framebuffer->read(targets.depth_surface, fb_offset(s, targets.depth_bpp), DramCategory::framebuffer_depth);
            if (wrote) targets.framebuffer->write(targets.depth_surface, fb_offset(s, targets.depth_bpp), DramCategory::framebuffer_depth);
          }
        }
        return passed;
      };

      uint32_t passed = coverage;
      if (!late_tests) {
        passed = run_tests(coverage);
        if (!passed) continue;
        if (tracker) tracker.candidate(uint32_t(prim), draw_index, x, y, occluder_draw && passed == all_samples);
      } else if (tracker) {
        tracker.candidate(uint32_t(prim), draw_index, x, y, false);
      }

      // Shading once per pixel at the pixel centre, perspective-correct (Vulkan "Basic Polygon
      // Rasterization": attributes interpolated with 1/w weights).
      const double l[3] = {double(e_c[0]) * inv_area, double(e_c[1]) * inv_area, double(e_c[2]) * inv_area};
      float varyings[kVaryingCount];
      const FragmentInput input = shading.input_at(l, varyings, x, y, e_c, t, inv_area, program, targets);
      Vec4 colors[kMaxColorAttachments];
      if (!shade_fragment(program, input, colors, targets.color_count)) continue;

      if (late_tests) {
        passed = run_tests(coverage);
        if (!passed) continue;
      }
      for (uint32_t s = 0; s < samples; ++s) {
        if (!(passed & (1u << s))) continue;
        ++counters.samples_passed;
        const size_t i = targets.index(x, y, s);
        for (uint32_t c = 0; c < targets.color_count; ++c) {
          if (!targets.color[c]) continue;
          const BlendAttachmentState& b = *shading.blend_state[c];
          if (targets.framebuffer && b.enable)
            targets.framebuffer->read(targets.color_surface[c], fb_offset(s, targets.color_bpp[c]), DramCategory::framebuffer_color);
          targets.color[c][i] = blend_fast(shading.blend_path[c], b, targets.color_format[c], colors[c], targets.color[c][i],
                                           state.blend_constants);
          if (targets.framebuffer)
            targets.framebuffer->write(targets.color_surface[c], fb_offset(s, targets.color_bpp[c]), DramCategory::framebuffer_color);
          if (tracker) tracker.color_written(b.enable);
        }
      }
    }
  }
}

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

}  // namespace

namespace {

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
