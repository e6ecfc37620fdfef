// Format tables and quantization rules (Vulkan spec, "Fixed-Point Data Conversions": unorm
// c = round(clamp(f,0,1) * (2^b - 1)); half floats round to nearest even, as Eigen::half does).
#include "sim/format.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

namespace tbdr {
namespace {

constexpr FormatInfo kFormats[] = {
    {"RGBA8", 4, 4, false, false, false},   {"BGRA8", 4, 4, false, false, false},
    {"RGBA16F", 8, 4, true, false, false},  {"RGB10A2", 4, 4, false, false, false},
    {"RG16F", 4, 2, true, false, false},    {"R32F", 4, 1, true, false, false},
    {"R8", 1, 1, false, false, false},      {"RG8", 2, 2, false, false, false},
    {"RGBA32F", 16, 4, true, false, false}, {"D16", 2, 0, false, true, false},
    {"D24S8", 4, 0, false, true, true},     {"D32F", 4, 0, false, true, false},
    {"D32FS8", 5, 0, false, true, true},    {"S8", 1, 0, false, false, true},
    {"B10G11R11_UFLOAT", 4, 3, true, false, false},
    // RGB8 (VK_FORMAT_R8G8B8_UNORM, 3 B a pixel, no alpha): the color attachment of the Vulkan-Samples
    // image_compression_control sample, whose footprint chart matches 2400 x 1088 x 3 B.
    {"RGB8", 3, 3, false, false, false},
};

// Block sizes: Vulkan 1.3 spec, "Compatible Formats" table (BC1 / BC4 in the 64-bit block classes,
// BC2 / BC3 / BC5 / BC6H / BC7 in the 128-bit ones, all 4x4 texels); the Khronos Data Format
// Specification 1.3 describes the same blocks ("S3TC", "RGTC", "BPTC Compressed Texture Image Formats").
constexpr TextureFormatInfo kTextureFormats[] = {
    {"RGBA8", 1, 1, 4},     {"RGB8", 1, 1, 3},       {"ETC2_RGB8", 4, 4, 8}, {"ETC2_RGBA8", 4, 4, 16},
    {"ASTC_4x4", 4, 4, 16}, {"ASTC_8x8", 8, 8, 16},  {"BC1", 4, 4, 8},       {"BC2", 4, 4, 16},
    {"BC3", 4, 4, 16},      {"BC4", 4, 4, 8},        {"BC5", 4, 4, 16},      {"BC6H", 4, 4, 16},
    {"BC7", 4, 4, 16},      {"R8", 1, 1, 1},         {"RG8", 1, 1, 2},       {"R16", 1, 1, 2},
    {"RG16", 1, 1, 4},      {"R16F", 1, 1, 2},       {"RG16F", 1, 1, 4},     {"RGBA16F", 1, 1, 8},
    {"R32F", 1, 1, 4},      {"RG32F", 1, 1, 8},      {"RGBA32F", 1, 1, 16},
};

float unorm(float v, int bits) {
  const float max_code = float((1u << bits) - 1u);
  float c = std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 1.0f);
  return std::nearbyint(c * max_code) / max_code;
}

float half(float v) { return static_cast<float>(Eigen::half(v)); }

// An unsigned float of 5 exponent bits (bias 15, as a half) and `mantissa` bits: Vulkan "Unsigned
// 11-Bit Floating-Point Numbers" (6 bits) and "Unsigned 10-Bit ..." (5). Rounded to nearest even;
// negative values and NaN become 0 (no sign bit), values above the largest finite one
// (2 - 2^-mantissa) x 2^15 that largest one, denormals below 2^-14.
float ufloat(float v, int mantissa) {
  if (!(v > 0)) return 0.0f;
  const float largest = std::ldexp(2.0f - std::ldexp(1.0f, -mantissa), 15);
  if (v >= largest) return largest;
  int e = 0;
  std::frexp(v, &e);  // v = f x 2^e, f in [0.5, 1)
  const int step = std::max(e - 1, -14) - mantissa;  // the value of one mantissa unit
  return std::min(largest, std::ldexp(std::nearbyint(std::ldexp(v, -step)), step));
}

}  // namespace

const FormatInfo& format_info(Format f) { return kFormats[static_cast<int>(f)]; }

std::optional<Format> parse_format(const std::string& name) {
  for (size_t i = 0; i < std::size(kFormats); ++i)
    if (name == kFormats[i].name) return static_cast<Format>(i);
  return std::nullopt;
}

std::vector<std::string> format_names() {
  std::vector<std::string> names;
  for (const auto& f : kFormats) names.emplace_back(f.name);
  return names;
}

const TextureFormatInfo& texture_format_info(TextureFormat f) { return kTextureFormats[static_cast<int>(f)]; }

std::optional<TextureFormat> parse_texture_format(const std::string& name) {
  for (size_t i = 0; i < std::size(kTextureFormats); ++i)
    if (name == kTextureFormats[i].name) return static_cast<TextureFormat>(i);
  return std::nullopt;
}

std::vector<std::string> texture_format_names() {
  std::vector<std::string> names;
  for (const auto& f : kTextureFormats) names.emplace_back(f.name);
  return names;
}

Eigen::Vector4f quantize_color(Format f, const Eigen::Vector4f& c) {
  switch (f) {
    case Format::RGBA8:
    case Format::BGRA8:
      return {unorm(c[0], 8), unorm(c[1], 8), unorm(c[2], 8), unorm(c[3], 8)};
    case Format::RGB10A2:
      return {unorm(c[0], 10), unorm(c[1], 10), unorm(c[2], 10), unorm(c[3], 2)};
    case Format::R8: return {unorm(c[0], 8), 0, 0, 1};
    case Format::RGB8: return {unorm(c[0], 8), unorm(c[1], 8), unorm(c[2], 8), 1};
    case Format::RG8: return {unorm(c[0], 8), unorm(c[1], 8), 0, 1};
    case Format::RGBA16F: return {half(c[0]), half(c[1]), half(c[2]), half(c[3])};
    case Format::RG16F: return {half(c[0]), half(c[1]), 0, 1};
    case Format::R32F: return {c[0], 0, 0, 1};
    case Format::RGBA32F: return c;
    case Format::B10G11R11_UFLOAT: return {ufloat(c[0], 6), ufloat(c[1], 6), ufloat(c[2], 5), 1};
    default: return c;  // depth/stencil formats hold no color
  }
}

void quantize_colors(Format f, const Eigen::Vector4f* in, Eigen::Vector4f* out, size_t n) {
#if defined(__SSE2__)
  if (f == Format::RGBA8 || f == Format::BGRA8) {
    for (size_t i = 0; i < n; ++i) _mm_storeu_ps(out[i].data(), unorm8_ps(_mm_loadu_ps(in[i].data())));
    return;
  }
#endif
  for (size_t i = 0; i < n; ++i) out[i] = quantize_color(f, in[i]);
}

float quantize_depth(Format f, float z) {
  switch (f) {
    case Format::D16: return unorm(z, 16);
    case Format::D24S8: return unorm(z, 24);
    default: return std::clamp(std::isnan(z) ? 0.0f : z, 0.0f, 1.0f);
  }
}

}  // namespace tbdr
