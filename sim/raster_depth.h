// The rasterizer's per-sample tests (raster_detail, included by sim/raster*.cpp only): the Vulkan
// compare ops (depth and stencil), the stencil ops, a polygon's depth bias, and the stored value of a
// fragment's depth.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/format.h"
#include "sim/frame.h"
#include "sim/geometry.h"

namespace tbdr::raster_detail {

// Vulkan compare ops, used for depth (fragment depth vs stored) and stencil (reference vs stored).
// Always inlined: GCC left it out of line, a call per fragment (perf: 5% of BM_Raster/2/16).
template <class T>
[[gnu::always_inline]] static inline bool compare(CompareOp op, T a, T b) {
  switch (op) {
    case CompareOp::never:
      return false;
    case CompareOp::less:
      return a < b;
    case CompareOp::equal: return a == b;
    case CompareOp::less_or_equal: return a <= b;
    case CompareOp::greater: return a > b;
    case CompareOp::not_equal: return a != b;
    case CompareOp::greater_or_equal: return a >= b;
    case CompareOp::always: return true;
  }
  return true;
}

static inline uint8_t apply_stencil_op(StencilOp op, uint8_t value, const StencilFaceState& face) {
  uint32_t v = value;
  switch (op) {
    case StencilOp::keep:
      break;
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

// The float depth formats' (D32F, D32FS8) stored value: std::clamp(std::isnan(z) ? 0 : z, 0, 1).
[[gnu::always_inline]] static inline float clamped_depth(float z) {
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
[[gnu::always_inline]] static inline float depth_value(Format f, float z) {
  if (f == Format::D16 || f == Format::D24S8) return quantize_depth(f, z);
  return clamped_depth(z);
}

// The depth offset o of a triangle (vertices a, b, c), Vulkan spec "Depth Bias" (OpenGL's polygon
// offset is the same rule): o = m x slope + r x constant, m = max(|dz/dx|, |dz/dy|) of the triangle's
// plane in framebuffer pixels, r the minimum resolvable difference of the depth format: 2^-n for an
// n-bit unorm format (D16, D24S8), 2^(e - 23) for a float one, e the largest exponent of the
// triangle's z values; then clamped: o <= clamp for a clamp above 0, o >= clamp below 0, none at 0.
// o is added to every fragment's depth before the test (and the format's clamp to [0, 1]).
static inline float depth_bias_offset(const DepthBias& bias, Format depth_format, const ScreenVertex& a,
                                      const ScreenVertex& b, const ScreenVertex& c) {
  const double x1 = double(b.x - a.x) / kSubpixelOne, y1 = double(b.y - a.y) / kSubpixelOne;
  const double x2 = double(c.x - a.x) / kSubpixelOne, y2 = double(c.y - a.y) / kSubpixelOne;
  const double z1 = double(b.z) - a.z, z2 = double(c.z) - a.z;
  const double det = x1 * y2 - x2 * y1;
  const double m = det == 0 ? 0.0 : std::max(std::abs((z1 * y2 - z2 * y1) / det), std::abs((z2 * x1 - z1 * x2) / det));
  double r;
  if (depth_format == Format::D16) r = std::ldexp(1.0, -16);
  else if (depth_format == Format::D24S8) r = std::ldexp(1.0, -24);
  else {
    const float largest = std::max({std::abs(a.z), std::abs(b.z), std::abs(c.z)});
    r = largest > 0 ? std::ldexp(1.0, std::ilogb(largest) - 23) : std::ldexp(1.0, -149);
  }
  double o = m * bias.slope + r * bias.constant;
  if (bias.clamp > 0) o = std::min(o, double(bias.clamp));
  else if (bias.clamp < 0) o = std::max(o, double(bias.clamp));
  return float(o);
}

#if defined(__SSE2__)
// compare() on four lanes at once: all ones where fragment depth `d` passes `op` against `stored`
// (ordered compares are false on NaN as the scalar ones are; not_equal is true on NaN as != is).
static inline __m128 depth_pass(CompareOp op, __m128 d, __m128 stored) {
  switch (op) {
    case CompareOp::never:
      return _mm_setzero_ps();
    case CompareOp::less:
      return _mm_cmplt_ps(d, stored);
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

}  // namespace tbdr::raster_detail
