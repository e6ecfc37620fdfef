// The rasterizer's blending (raster_detail, included by sim/raster*.cpp only): the blends most draws
// use resolved once per primitive (BlendPath) and computed inline, per channel or in SSE2 lanes.
#pragma once

#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/format.h"
#include "sim/frame.h"

namespace tbdr::raster_detail {

// Vulkan "Blending" for one attachment (sim/raster_blend.cpp): clamps, factors, write mask, rounding.
Vec4 blend(const BlendAttachmentState& state, Format format, Vec4 src, const Vec4& dst, Vec4 constant);

// The blends most draws use, resolved once per primitive instead of per sample. Each computes
// exactly what blend() computes (same float operations in the same order, -ffp-contract=off).
enum class BlendPath {
  generic,
  opaque_unorm8,  // blending off, every channel written, RGBA8/BGRA8
  // color: src_alpha or one (premultiplied alpha) over one_minus_src_alpha, add; alpha: one or
  // src_alpha over one_minus_src_alpha, add
  alpha_unorm8,
};

static inline BlendPath blend_path_of(const BlendAttachmentState& b, Format format) {
  if ((format != Format::RGBA8 && format != Format::BGRA8) || (b.write_mask & 0xf) != 0xf) return BlendPath::generic;
  if (!b.enable) return BlendPath::opaque_unorm8;
  if ((b.src_color == BlendFactor::src_alpha || b.src_color == BlendFactor::one) &&
      b.dst_color == BlendFactor::one_minus_src_alpha && b.color_op == BlendOp::add &&
      (b.src_alpha == BlendFactor::one || b.src_alpha == BlendFactor::src_alpha) &&
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
inline const Unorm8Table kUnorm8;

// format.cpp's unorm(v, 8): nearbyint(clamp(v) * 255) / 255. Adding and subtracting 2^23 rounds a
// float in [0, 2^23) to the nearest integer, ties to even, as nearbyint does in the default
// rounding mode; -0 keeps its sign as in the division.
[[gnu::always_inline]] static inline float unorm8(float v) {
  const float c = std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 1.0f);
  const float big = 8388608.0f;  // (t + big) - big is not foldable under IEEE rules (no -ffast-math)
  const float t = c * 255.0f;
  const int code = int((t + big) - big);
  return code == 0 ? std::copysign(0.0f, c) : kUnorm8.value[code];
}

// Always inlined: called per fragment from the hot loops, where a call costs more than the blend.
[[gnu::always_inline]] static inline Vec4 blend_fast(BlendPath path, const BlendAttachmentState& state, Format format,
                                                     Vec4 src, const Vec4& dst, const Vec4& constant) {
  switch (path) {
    case BlendPath::generic:
      return blend(state, format, src, dst, constant);
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
static inline __m128 clamp01_ps(__m128 v) { return _mm_min_ps(_mm_set1_ps(1.0f), _mm_max_ps(_mm_setzero_ps(), v)); }

// blend_fast() on a color in a register, `dst` the stored one: the common paths lane-wise with the
// same operations per channel, the others through blend().
[[gnu::always_inline]] static inline void blend_store(BlendPath path, const BlendAttachmentState& state, Format format,
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

// Blend state of a color target the draw gives none for (namespace scope: no guard per call).
inline const BlendAttachmentState kNoBlend;

}  // namespace tbdr::raster_detail
