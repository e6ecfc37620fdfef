// The rasterizer's general blend (Vulkan "Blending": any factors and ops, the write mask, the
// attachment format's rounding), the path blend_fast and blend_store fall back on.
#include "sim/raster.h"
#include "sim/raster_blend.h"

namespace tbdr {
namespace raster_detail {
namespace {

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

}  // namespace

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

}  // namespace raster_detail

Vec4 blend_color(const BlendAttachmentState& state, Format format, const Vec4& src, const Vec4& dst,
                 const Vec4& constant) {
  return raster_detail::blend(state, format, src, dst, constant);
}

}  // namespace tbdr
