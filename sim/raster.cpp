// Triangle rasterization with exact integer edge functions (8 sub-pixel bits), the top-left fill
// rule, per-sample coverage, per-pixel shading, the Vulkan depth/stencil tests and blending.
#include "sim/raster.h"

#include <algorithm>
#include <cmath>
#if defined(__SSE2__)
#include <emmintrin.h>
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
template <class T>
bool compare(CompareOp op, T a, T b) {
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
  alpha_unorm8,   // color: src_alpha, one_minus_src_alpha, add; alpha: one or src_alpha over one_minus_src_alpha, add
};

BlendPath blend_path_of(const BlendAttachmentState& b, Format format) {
  if ((format != Format::RGBA8 && format != Format::BGRA8) || (b.write_mask & 0xf) != 0xf) return BlendPath::generic;
  if (!b.enable) return BlendPath::opaque_unorm8;
  if (b.src_color == BlendFactor::src_alpha && b.dst_color == BlendFactor::one_minus_src_alpha &&
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
      const float sfa = state.src_alpha == BlendFactor::one ? 1.0f : a;
      Vec4 out;
      for (int c = 0; c < 3; ++c) out[c] = src[c] * a + dst[c] * one_minus_a;
      out[3] = src[3] * sfa + dst[3] * one_minus_a;
      return Vec4(unorm8(out[0]), unorm8(out[1]), unorm8(out[2]), unorm8(out[3]));
    }
  }
  return blend(state, format, src, dst, constant);
}

// format.cpp's quantize_depth with its float case inline (a call per fragment otherwise): D32F
// and D32FS8 clamp, the unorm formats round through quantize_depth.
[[gnu::always_inline]] inline float depth_value(Format f, float z) {
  if (f == Format::D16 || f == Format::D24S8) return quantize_depth(f, z);
  return std::clamp(std::isnan(z) ? 0.0f : z, 0.0f, 1.0f);
}

// Edge function of a->b at p: positive on the interior side once the triangle is made positive.
inline int64_t edge(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px, int64_t py) {
  return (bx - ax) * (py - ay) - (by - ay) * (px - ax);
}

// Blend state of a color target the draw gives none for (namespace scope: no guard per call).
const BlendAttachmentState kNoBlend;

}  // namespace

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

void raster_triangle(const ScreenPrims& prims, size_t prim, const Rect& clip, const Draw& draw,
                     const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                     TileWorkTracker* tracker) {
  if (clip.width == 0 || clip.height == 0) return;
  const int32_t x0 = std::max(prims.min_x[prim], clip.x);
  const int32_t y0 = std::max(prims.min_y[prim], clip.y);
  const int32_t x1 = std::min(prims.max_x[prim], clip.x + int32_t(clip.width) - 1);
  const int32_t y1 = std::min(prims.max_y[prim], clip.y + int32_t(clip.height) - 1);
  if (x0 > x1 || y0 > y1) return;

  // Vertex order made counter-clockwise in the edge functions' sense (positive area).
  int64_t vx[3], vy[3];
  for (int i = 0; i < 3; ++i) {
    vx[i] = prims.x[i][prim];
    vy[i] = prims.y[i][prim];
  }
  int64_t area = edge(vx[0], vy[0], vx[1], vy[1], vx[2], vy[2]);
  if (area == 0) return;
  // Selects rather than a branch: the winding of small random triangles is unpredictable.
  const bool flip = area < 0;
  {
    const int64_t x1v = vx[1], y1v = vy[1];
    vx[1] = flip ? vx[2] : x1v;
    vy[1] = flip ? vy[2] : y1v;
    vx[2] = flip ? x1v : vx[2];
    vy[2] = flip ? y1v : vy[2];
    area = flip ? -area : area;
  }
  // Edge k is opposite vertex k. Top-left rule (y down): a sample exactly on an edge is inside
  // only for a left edge (interior to its right: dE/dx > 0) or a top edge (horizontal, interior
  // below: dE/dx == 0 and dE/dy > 0), so two triangles sharing an edge never both cover it.
  int64_t bias[3];
  for (int k = 0; k < 3; ++k) {
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    const int64_t dedx = -(vy[b] - vy[a]);
    const int64_t dedy = vx[b] - vx[a];
    bias[k] = (dedx > 0 || (dedx == 0 && dedy > 0)) ? 0 : -1;
  }
  auto edge_k = [&](int k, int64_t px, int64_t py) {
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    return edge(vx[a], vy[a], vx[b], vy[b], px, py);
  };

  const uint32_t samples = targets.samples;
  const auto* positions = sample_positions(samples);

  // Edge k at a point is linear, so stepping one pixel right adds step_x[k] and one row down
  // step_y[k], exactly in int64: the values equal edge_k() at every sample.
  int64_t step_x[3], step_y[3];
  for (int k = 0; k < 3; ++k) {
    const int a = (k + 1) % 3, b = (k + 2) % 3;
    step_x[k] = -(vy[b] - vy[a]) * kSubpixelOne;
    step_y[k] = (vx[b] - vx[a]) * kSubpixelOne;
  }
  // Edge values at each sample of pixel (x0, y0).
  int64_t row_e[8][3];
  for (uint32_t s = 0; s < samples; ++s) {
    const int64_t px = (int64_t(x0) << kSubpixelBits) + positions[s][0] * (kSubpixelOne / 16);
    const int64_t py = (int64_t(y0) << kSubpixelBits) + positions[s][1] * (kSubpixelOne / 16);
    for (int k = 0; k < 3; ++k) row_e[s][k] = edge_k(k, px, py);
  }
  const PipelineState& state = draw.state;
  const bool has_stencil = targets.stencil != nullptr && state.stencil_test;
  // Early tests are legal only when the program neither discards nor writes depth; the result
  // is the same either way, the order only changes how many fragments are shaded.
  const bool late_tests = program.discard || state.shader_depth_write;
  // The common case: one sample (at the pixel centre, so the coverage edges are the shading
  // edges), early depth tests, no stencil, tile memory (no framebuffer cache).
  const bool simple = samples == 1 && !has_stencil && !late_tests && !targets.framebuffer;
  // Small triangles in the common case (bounding box up to 8x8): the coverage of the whole box
  // first, as a bit mask (bit 8 * dy + dx) without a branch per pixel (tiny triangles cover
  // about half their box, so such branches mispredict), before the rest of the setup, which a
  // triangle covering no pixel centre (many tiny ones) skips.
  const bool small = simple && x1 - x0 < 8 && y1 - y0 < 8;
  uint64_t small_mask = 0;
  int small_shift = 3;  // log2 of the mask's row stride
  if (small) {
    int64_t r0 = row_e[0][0] + bias[0], r1 = row_e[0][1] + bias[1], r2 = row_e[0][2] + bias[2];
#if defined(__SSE2__)
    // Up to 4x4 pixels whose edge values all fit in int32 (every tiny triangle's): the 4x4 box
    // at (x0, y0) four pixels at a time in SSE2 (baseline x86-64), with no loop exits to
    // mispredict; the sign bits of e0 | e1 | e2 are the uncovered pixels.
    const auto fits = [](int64_t r, int64_t sx, int64_t sy) {
      return std::abs(r) + 3 * std::abs(sx) + 3 * std::abs(sy) < (int64_t(1) << 31);
    };
    if (x1 - x0 < 4 && y1 - y0 < 4 && fits(r0, step_x[0], step_y[0]) && fits(r1, step_x[1], step_y[1]) &&
        fits(r2, step_x[2], step_y[2])) {
      auto row_of = [](int64_t r, int64_t sx) {
        return _mm_setr_epi32(int32_t(r), int32_t(r + sx), int32_t(r + 2 * sx), int32_t(r + 3 * sx));
      };
      __m128i e0 = row_of(r0, step_x[0]), e1 = row_of(r1, step_x[1]), e2 = row_of(r2, step_x[2]);
      const __m128i sy0 = _mm_set1_epi32(int32_t(step_y[0])), sy1 = _mm_set1_epi32(int32_t(step_y[1])),
                    sy2 = _mm_set1_epi32(int32_t(step_y[2]));
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
      small_mask = ~outside & box;
      small_shift = 2;
      if (!small_mask) return;
    } else
#endif
    for (int32_t dy = 0; dy <= y1 - y0; ++dy, r0 += step_y[0], r1 += step_y[1], r2 += step_y[2]) {
      int64_t e0 = r0, e1 = r1, e2 = r2;
      for (int32_t dx = 0; dx <= x1 - x0; ++dx, e0 += step_x[0], e1 += step_x[1], e2 += step_x[2])
        small_mask |= uint64_t((e0 | e1 | e2) >= 0) << (8 * dy + dx);
    }
    if (!small_mask) return;
  } else {
    // Whole-rectangle reject: an edge whose largest value over the pixel rectangle (at its
    // corner points, a superset of every sample position) still fails covers nothing.
    const int64_t rx0 = int64_t(x0) << kSubpixelBits, ry0 = int64_t(y0) << kSubpixelBits;
    const int64_t rx1 = int64_t(x1 + 1) << kSubpixelBits, ry1 = int64_t(y1 + 1) << kSubpixelBits;
    for (int k = 0; k < 3; ++k) {
      const int64_t px = step_x[k] > 0 ? rx1 : rx0, py = step_y[k] > 0 ? ry1 : ry0;
      if (edge_k(k, px, py) + bias[k] < 0) return;
    }
  }

  // Per-vertex data in the edge functions' vertex order (vertices 1 and 2 swapped when flipped).
  const float* const varyings_of_prim = prims.varyings_of(prim);
  const float* var[3] = {varyings_of_prim, varyings_of_prim + (flip ? 2 : 1) * kVaryingCount,
                         varyings_of_prim + (flip ? 1 : 2) * kVaryingCount};
  // Only the varyings the program reads are interpolated (the others are never looked at).
  const int varying_count = program.kind == CompiledProgram::Kind::gbuffer    ? kVaryingCount
                            : program.kind == CompiledProgram::Kind::textured ? 6
                                                                              : 4;
  const float z1 = prims.z[1][prim], z2 = prims.z[2][prim];
  const float z[3] = {prims.z[0][prim], flip ? z2 : z1, flip ? z1 : z2};
  const float w1 = prims.inv_w[1][prim], w2 = prims.inv_w[2][prim];
  const float inv_w[3] = {prims.inv_w[0][prim], flip ? w2 : w1, flip ? w1 : w2};
  const bool front = prims.front_facing[prim] != 0;
  const StencilFaceState& face = front ? state.stencil_front : state.stencil_back;
  const bool has_depth = targets.depth != nullptr;
  const bool depth_test = has_depth && state.depth_test;
  const bool depth_write = depth_test && state.depth_write;
  const double inv_area = 1.0 / double(area);
  const uint32_t draw_index = prims.draw[prim];
  const uint32_t all_samples = (1u << samples) - 1;
  // Only an opaque fragment that writes depth can hide earlier ones (domain.md section 6).
  const bool occluder_draw = tracker && depth_write && !hsr_breakers(draw).any();
  // Per color target, resolved once: its blend state and whether the common cases apply.
  const BlendAttachmentState* blend_state[kMaxColorAttachments];
  BlendPath blend_path[kMaxColorAttachments];
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c) {
    blend_state[c] = c < state.blend.size() ? &state.blend[c] : &kNoBlend;
    blend_path[c] = blend_path_of(*blend_state[c], targets.color_format[c]);
  }
  const Format depth_format = targets.depth_format;
  // Mipmapped textures: uv at the centres of the fragment's 2x2 quad (pixels (x & ~1, y & ~1), one
  // to the right, one below; extrapolated where they lie outside the triangle, as helper lanes do),
  // perspective-correct like the fragment's own varyings. `ec`: edge values at the fragment's centre.
  const bool uv_derivatives = program.uv_derivatives;
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
  auto quad_derivatives = [&](FragmentInput& input, int32_t x, int32_t y, const int64_t* ec) {
    int64_t q[3], right[3], below[3];
    for (int k = 0; k < 3; ++k) {
      q[k] = ec[k] - (x & 1) * step_x[k] - (y & 1) * step_y[k];
      right[k] = q[k] + step_x[k];
      below[k] = q[k] + step_y[k];
    }
    float u00, v00, u10, v10, u01, v01;
    uv_at(q, u00, v00);
    uv_at(right, u10, v10);
    uv_at(below, u01, v01);
    input.du_dx = u10 - u00;
    input.dv_dx = v10 - v00;
    input.du_dy = u01 - u00;
    input.dv_dy = v01 - v00;
    input.has_derivatives = true;
  };

  // The common case in one tight loop, the same operations in the same order as the general loop
  // below.
  if (simple) {
    const CompareOp depth_op = state.depth_compare;
    const bool vertex_color_program = program.kind == CompiledProgram::Kind::vertex_color;
    // In locals: the compiler cannot keep them in registers across the color stores otherwise.
    const int32_t area_x = targets.area.x, area_y = targets.area.y;
    const size_t area_width = targets.area.width;
    float* const depth_buffer = targets.depth;
    // One covered pixel, `e0..e2` its edge values (at its centre, the only sample).
    auto fragment = [&](int32_t x, int32_t y, int64_t e0, int64_t e1, int64_t e2) __attribute__((always_inline)) {
      ++counters.fragments;
      if (tracker) tracker->rasterized(uint32_t(prim), draw_index, x, y);
      const double l0 = double(e0) * inv_area, l1 = double(e1) * inv_area, l2 = double(e2) * inv_area;
      const size_t i = size_t(y - area_y) * area_width + size_t(x - area_x);
      if (has_depth) {
        const float depth = depth_value(depth_format, float(l0 * z[0] + l1 * z[1] + l2 * z[2]));
        if (depth_test && !compare<float>(depth_op, depth, depth_buffer[i])) return;
        if (depth_write) depth_buffer[i] = depth;
      }
      if (tracker) tracker->candidate(uint32_t(prim), draw_index, x, y, occluder_draw);
      const double w0 = l0 * inv_w[0], w1 = l1 * inv_w[1], w2 = l2 * inv_w[2];
      double weight_sum = 0;
      weight_sum += w0;
      weight_sum += w1;
      weight_sum += w2;
      float varyings[kVaryingCount];
      for (int c = 0; c < varying_count; ++c)
        varyings[c] = float((w0 * var[0][c] + w1 * var[1][c] + w2 * var[2][c]) / weight_sum);
      FragmentInput input;
      input.varyings = varyings;
      input.x = x;
      input.y = y;
      if (uv_derivatives) {
        const int64_t ec[3] = {e0, e1, e2};
        quad_derivatives(input, x, y, ec);
      }
      for (uint32_t k = 0; k < targets.input_count && k < kMaxInputAttachments; ++k) {
        const size_t ii = (size_t(y - targets.area.y) * targets.area.width + size_t(x - targets.area.x)) * targets.input_samples[k];
        if (targets.input_color[k]) input.inputs[k] = targets.input_color[k][ii];
        else if (targets.input_depth[k]) input.inputs[k] = Vec4(targets.input_depth[k][ii], 0, 0, 1);
      }
      Vec4 colors[kMaxColorAttachments];
      if (vertex_color_program) {
        // shade_fragment's vertex_color case inline (no discard here: early tests), the same product.
        const Vec4 color = Vec4(varyings[0], varyings[1], varyings[2], varyings[3]).cwiseProduct(program.color);
        for (uint32_t c = 0; c < targets.color_count; ++c) colors[c] = color;
      } else if (!shade_fragment(program, input, colors, targets.color_count)) {
        return;
      }
      ++counters.samples_passed;
      for (uint32_t c = 0; c < targets.color_count; ++c) {
        if (!targets.color[c]) continue;
        targets.color[c][i] = blend_fast(blend_path[c], *blend_state[c], targets.color_format[c], colors[c],
                                         targets.color[c][i], state.blend_constants);
        if (tracker) tracker->color_written(blend_state[c]->enable);
      }
    };
    // Small triangles: the covered pixels of the mask in row-major order, with their edge values
    // computed exactly (the products the stepping adds up).
    if (small) {
      for (uint64_t mask = small_mask; mask; mask &= mask - 1) {
        const int bit = __builtin_ctzll(mask);
        const int64_t dx = bit & ((1 << small_shift) - 1), dy = bit >> small_shift;
        fragment(x0 + int32_t(dx), y0 + int32_t(dy), row_e[0][0] + dx * step_x[0] + dy * step_y[0],
                 row_e[0][1] + dx * step_x[1] + dy * step_y[1], row_e[0][2] + dx * step_x[2] + dy * step_y[2]);
      }
      return;
    }
    int64_t r0 = row_e[0][0], r1 = row_e[0][1], r2 = row_e[0][2];
    for (int32_t y = y0; y <= y1; ++y, r0 += step_y[0], r1 += step_y[1], r2 += step_y[2]) {
      int64_t e0 = r0, e1 = r1, e2 = r2;
      for (int32_t x = x0; x <= x1; ++x, e0 += step_x[0], e1 += step_x[1], e2 += step_x[2])
        if (((e0 + bias[0]) | (e1 + bias[1]) | (e2 + bias[2])) >= 0) fragment(x, y, e0, e1, e2);
    }
    return;
  }

  // Edge values at the centre of pixel (x0, y0), for shading.
  int64_t row_c[3];
  {
    const int64_t cx = (int64_t(x0) << kSubpixelBits) + kSubpixelOne / 2;
    const int64_t cy = (int64_t(y0) << kSubpixelBits) + kSubpixelOne / 2;
    for (int k = 0; k < 3; ++k) row_c[k] = edge_k(k, cx, cy);
  }
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
      if (tracker) tracker->rasterized(uint32_t(prim), draw_index, x, y);

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
        if (tracker) tracker->candidate(uint32_t(prim), draw_index, x, y, occluder_draw && passed == all_samples);
      } else if (tracker) {
        tracker->candidate(uint32_t(prim), draw_index, x, y, false);
      }

      // Shading once per pixel at the pixel centre, perspective-correct (Vulkan "Basic Polygon
      // Rasterization": attributes interpolated with 1/w weights).
      double weight[3], weight_sum = 0;
      for (int k = 0; k < 3; ++k) {
        weight[k] = double(e_c[k]) * inv_area * inv_w[k];
        weight_sum += weight[k];
      }
      float varyings[kVaryingCount];
      for (int c = 0; c < varying_count; ++c)
        varyings[c] = float((weight[0] * var[0][c] + weight[1] * var[1][c] + weight[2] * var[2][c]) / weight_sum);
      FragmentInput input;
      input.varyings = varyings;
      input.x = x;
      input.y = y;
      if (uv_derivatives) quad_derivatives(input, x, y, e_c);
      for (uint32_t k = 0; k < targets.input_count && k < kMaxInputAttachments; ++k) {
        const size_t i = (size_t(y - targets.area.y) * targets.area.width + size_t(x - targets.area.x)) * targets.input_samples[k];
        if (targets.input_color[k]) input.inputs[k] = targets.input_color[k][i];
        else if (targets.input_depth[k]) input.inputs[k] = Vec4(targets.input_depth[k][i], 0, 0, 1);
      }
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
          const BlendAttachmentState& b = *blend_state[c];
          if (targets.framebuffer && b.enable)
            targets.framebuffer->read(targets.color_surface[c], fb_offset(s, targets.color_bpp[c]), DramCategory::framebuffer_color);
          targets.color[c][i] = blend_fast(blend_path[c], b, targets.color_format[c], colors[c], targets.color[c][i],
                                           state.blend_constants);
          if (targets.framebuffer)
            targets.framebuffer->write(targets.color_surface[c], fb_offset(s, targets.color_bpp[c]), DramCategory::framebuffer_color);
          if (tracker) tracker->color_written(b.enable);
        }
      }
    }
  }
}

}  // namespace tbdr
