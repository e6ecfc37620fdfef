// Pixel formats of images and textures: names, bytes per pixel / block, and the quantization
// a stored value goes through (so blending reads back what the format can hold).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tbdr {

// Image (render target / sampled image) formats of trace v1 (traces/README.md).
enum class Format { RGBA8, BGRA8, RGBA16F, RGB10A2, RG16F, R32F, R8, RG8, RGBA32F, D16, D24S8, D32F, D32FS8, S8 };

// Material texture formats: decide the bytes a texture fetch moves (block formats per block).
enum class TextureFormat { RGBA8, RGB8, ETC2_RGB8, ETC2_RGBA8, ASTC_4x4, ASTC_8x8 };

struct FormatInfo {
  const char* name;
  uint32_t bytes_per_pixel;   // in DRAM and in the tile buffer, per sample
  uint32_t channels;          // color channels stored (1..4); 0 for depth/stencil formats
  bool is_float;              // float color (no clamp to [0,1])
  bool has_depth, has_stencil;
};

const FormatInfo& format_info(Format f);
std::optional<Format> parse_format(const std::string& name);
std::vector<std::string> format_names();
inline bool is_depth_stencil(Format f) { return format_info(f).has_depth || format_info(f).has_stencil; }

struct TextureFormatInfo {
  const char* name;
  uint32_t block_width, block_height;  // 1x1 for uncompressed
  uint32_t block_bytes;                // bytes per block (per texel when 1x1)
};

const TextureFormatInfo& texture_format_info(TextureFormat f);
std::optional<TextureFormat> parse_texture_format(const std::string& name);
std::vector<std::string> texture_format_names();

// Rounds a color to what the format stores: unorm channels clamped to [0,1] and rounded to
// their bit depth, half floats rounded to half precision, missing channels set to (0,0,0,1).
Eigen::Vector4f quantize_color(Format f, const Eigen::Vector4f& c);
// Rounds a depth value to the format's representation (unorm 16/24 bit or float32), clamped to [0,1].
float quantize_depth(Format f, float z);

}  // namespace tbdr
