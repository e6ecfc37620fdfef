// Pixel formats of images and textures: names, bytes per pixel / block, and the quantization
// a stored value goes through (so blending reads back what the format can hold).
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tbdr {

// Image (render target / sampled image) formats of trace v1 (traces/README.md).
// B10G11R11_UFLOAT: Vulkan's VK_FORMAT_B10G11R11_UFLOAT_PACK32 (OpenGL ES GL_R11F_G11F_B10F), three
// unsigned floats in 32 bits, no alpha.
enum class Format { RGBA8, BGRA8, RGBA16F, RGB10A2, RG16F, R32F, R8, RG8, RGBA32F, D16, D24S8, D32F, D32FS8, S8, B10G11R11_UFLOAT, RGB8 };

// Material texture formats: decide the bytes a texture fetch moves (block formats per block).
// Appended after ASTC_8x8: the BC (S3TC, RGTC, BPTC) block formats and uncompressed one- to four-channel
// formats at their own texel size.
enum class TextureFormat { RGBA8, RGB8, ETC2_RGB8, ETC2_RGBA8, ASTC_4x4, ASTC_8x8, BC1, BC2, BC3, BC4, BC5, BC6H, BC7,
                           R8, RG8, R16, RG16, R16F, RG16F, RGBA16F, R32F, RG32F, RGBA32F };

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
// their bit depth, half floats rounded to half precision, unsigned 11- and 10-bit floats to theirs,
// missing channels set to (0,0,0,1).
Eigen::Vector4f quantize_color(Format f, const Eigen::Vector4f& c);
// Rounds a depth value to the format's representation (unorm 16/24 bit or float32), clamped to [0,1].
float quantize_depth(Format f, float z);
// quantize_color of n pixels, in[i] into out[i] (in may be out): RGBA8 and BGRA8 four channels at
// a time (unorm8_ps), the others per pixel. The same bits as quantize_color.
void quantize_colors(Format f, const Eigen::Vector4f* in, Eigen::Vector4f* out, size_t n);

#if defined(__SSE2__)
// unorm(v, 8), quantize_color's RGBA8 channel, on four lanes (sim/raster_blend.h's unorm8() is the
// scalar form): NaN -> 0, the same clamp and 2^23 rounding, then code / 255 by the same
// division the table's float(i) / 255.0f is (the rounded value is the code, exactly); a zero code
// takes the clamped value's sign as copysign does (a non-zero code has a positive one). The clamp
// is max(v, 0) then min(., 1): maxps returns its second operand when one is NaN, so NaN becomes 0
// without a compare on the color's latency chain to its store (BM_Raster/2/32 90 -> 87 us, 8/32
// 155 -> 149 us); it also turns -0 into +0, whose sign, the only one a zero code can take from
// the clamped value, comes back from v aside. On a value clamp01_ps already clamped it gives the
// same lanes (tests: SimRaster.Rgba8BlendPathsMatchBlendColor,
// Format.QuantizeColorsIsQuantizeColorPerPixel).
inline __m128 unorm8_ps(__m128 v) {
  const __m128 zero = _mm_setzero_ps();
  const __m128 c = _mm_min_ps(_mm_max_ps(v, zero), _mm_set1_ps(1.0f));
  const __m128 big = _mm_set1_ps(8388608.0f);
  const __m128 code = _mm_sub_ps(_mm_add_ps(_mm_mul_ps(c, _mm_set1_ps(255.0f)), big), big);
  const __m128 negative_zero = _mm_and_ps(_mm_cmpeq_ps(v, zero), _mm_and_ps(v, _mm_set1_ps(-0.0f)));
  return _mm_or_ps(_mm_div_ps(code, _mm_set1_ps(255.0f)), negative_zero);
}
#endif

}  // namespace tbdr
