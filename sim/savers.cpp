// Superblock pixel extraction and per-image saver state.
#include "sim/savers.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace tbdr {
namespace {

// Channel bit depths of the unorm formats AFBC takes; other formats use 32-bit float codes.
void channel_bits(Format f, uint32_t& channels, uint32_t bits[4]) {
  channels = std::max(1u, format_info(f).channels);
  for (int c = 0; c < 4; ++c) bits[c] = 32;
  switch (f) {
    case Format::RGBA8: case Format::BGRA8: case Format::R8: case Format::RG8: case Format::RGB8:
      for (int c = 0; c < 4; ++c) bits[c] = 8;
      break;
    case Format::RGB10A2:
      bits[0] = bits[1] = bits[2] = 10;
      bits[3] = 2;
      break;
    default: break;
  }
}

uint32_t code(float v, uint32_t bits) {
  if (bits >= 32) {
    uint32_t u;
    std::memcpy(&u, &v, sizeof u);
    return u;
  }
  const float max_code = float((1u << bits) - 1u);
  const float scaled = std::clamp(v, 0.0f, 1.0f) * max_code;
  // Adding and taking away 2^23 rounds a float in [0, 2^23] to an integer in the current
  // rounding mode, as std::nearbyint does (floats from 2^23 to 2^24 are 1 apart), without its
  // library call; NaN stays NaN either way.
  if (bits <= 23) return uint32_t((scaled + 8388608.0f) - 8388608.0f);
  return uint32_t(std::nearbyint(scaled));
}

// code() of the four channels of a unorm color (every channel at most 23 bits), the same
// operations on four lanes at once in SSE2 (baseline x86-64).
void unorm_codes_of(const Vec4& color, const float max_codes[4], uint32_t codes[4]) {
#if defined(__SSE2__)
  const __m128 v = _mm_loadu_ps(color.data());
  // std::clamp(v, 0, 1) is v < 0 ? 0 : (1 < v ? 1 : v); minps(1, v) is 1 < v ? 1 : v, NaN included.
  const __m128 clamped = _mm_andnot_ps(_mm_cmplt_ps(v, _mm_setzero_ps()), _mm_min_ps(_mm_set1_ps(1.0f), v));
  const __m128 bias = _mm_set1_ps(8388608.0f);
  const __m128 rounded = _mm_sub_ps(_mm_add_ps(_mm_mul_ps(clamped, _mm_loadu_ps(max_codes)), bias), bias);
  // A NaN channel converts to 0 in code() (the 64-bit truncation's low half): the same here.
  const __m128i truncated = _mm_cvttps_epi32(rounded);
  const __m128i codes_v = _mm_andnot_si128(_mm_castps_si128(_mm_cmpunord_ps(rounded, rounded)), truncated);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(codes), codes_v);
#else
  for (int c = 0; c < 4; ++c) {
    const float scaled = std::clamp(color[c], 0.0f, 1.0f) * max_codes[c];
    codes[c] = uint32_t((scaled + 8388608.0f) - 8388608.0f);
  }
#endif
}

#if defined(__AVX2__)
// unorm_codes_of() of two consecutive pixels (eight channels in one AVX register, `codes` the first
// pixel's four then the second's): the same operations on each lane, so the same codes.
void unorm_codes_of_two(const Vec4* colors, const float max_codes[4], uint32_t codes[8]) {
  const __m256 v = _mm256_loadu_ps(colors[0].data());
  const __m256 clamped =
      _mm256_andnot_ps(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ), _mm256_min_ps(_mm256_set1_ps(1.0f), v));
  const __m256 bias = _mm256_set1_ps(8388608.0f);
  const __m256 max = _mm256_broadcast_ps(reinterpret_cast<const __m128*>(max_codes));
  const __m256 rounded = _mm256_sub_ps(_mm256_add_ps(_mm256_mul_ps(clamped, max), bias), bias);
  const __m256i truncated = _mm256_cvttps_epi32(rounded);
  const __m256i codes_v = _mm256_andnot_si256(_mm256_castps_si256(_mm256_cmp_ps(rounded, rounded, _CMP_UNORD_Q)), truncated);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(codes), codes_v);
}
#endif

// The 8-bit codes of 16 pixels of one sample each, a byte a channel: unorm_codes_of's. Its clamp
// min(1, v) then 0 where v < 0 is max(min(1, v), 0), NaN included (minps gives its second operand
// for NaN, maxps its second, 0: unorm_codes_of's code for NaN); the loaded operand second, so the
// load folds into minps. Converting to the nearest integer in the current rounding mode is what
// adding and taking away 2^23 does for [0, 255].
void unorm8_codes_of_row(const Vec4* colors, uint8_t* out) {
  const float* v = colors[0].data();
#if defined(__AVX2__)
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f), max_code = _mm256_set1_ps(255.0f);
  auto codes = [&](const float* at) {
    const __m256 clamped = _mm256_max_ps(_mm256_min_ps(one, _mm256_loadu_ps(at)), zero);
    return _mm256_cvtps_epi32(_mm256_mul_ps(clamped, max_code));
  };
  // Eight pixels a step; the packs work within 128-bit lanes, so pixels 0, 2, 4, 6 land in the
  // low lane and 1, 3, 5, 7 in the high one, put back in order by the permute.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int half = 0; half < 2; ++half, v += 32) {
    const __m256i low = _mm256_packs_epi32(codes(v), codes(v + 8)), high = _mm256_packs_epi32(codes(v + 16), codes(v + 24));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32 * half),
                       _mm256_permutevar8x32_epi32(_mm256_packus_epi16(low, high), order));
  }
#elif defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), max_code = _mm_set1_ps(255.0f);
  auto codes = [&](const float* at) {
    return _mm_cvtps_epi32(_mm_mul_ps(_mm_max_ps(_mm_min_ps(one, _mm_loadu_ps(at)), zero), max_code));
  };
  for (int quarter = 0; quarter < 4; ++quarter, v += 16) {
    const __m128i low = _mm_packs_epi32(codes(v), codes(v + 4)), high = _mm_packs_epi32(codes(v + 8), codes(v + 12));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16 * quarter), _mm_packus_epi16(low, high));
  }
#else
  for (int i = 0; i < 4 * int(models::kSuperblockSize); ++i) out[i] = uint8_t(code(v[i], 8));
#endif
}

}  // namespace

models::ImageTraits image_traits(const ImageDesc& image) {
  models::ImageTraits t;
  t.format = format_info(image.format).name;
  t.bytes_per_pixel = format_info(image.format).bytes_per_pixel;
  t.channels = format_info(image.format).channels;
  t.depth_stencil = is_depth_stencil(image.format);
  t.width = image.width;
  t.height = image.height;
  t.samples = image.samples;
  t.mip_levels = image.mip_levels;
  t.array_layers = image.array_layers;
  t.color_attachment = (image.usage & kUsageColorAttachment) != 0;
  t.storage = (image.usage & kUsageStorage) != 0;
  t.transient = image.transient;
  t.alias = image.alias;
  t.mutable_format = image.mutable_format;
  t.linear = image.tiling == ImageTiling::linear;
  return t;
}

void superblock_pixels(const Surface& s, uint32_t block, models::SuperblockPixels& out) {
  const BlockGrid grid(s);
  const uint32_t n = models::kSuperblockSize;
  const uint32_t bx = (block % grid.cols) * n, by = (block / grid.cols) * n;
  channel_bits(s.format, out.channels, out.channel_bits);
  out.bytes_per_pixel = format_info(s.format).bytes_per_pixel;
  out.image_width = s.width;
  out.image_height = s.height;
  out.origin_x = bx;
  out.origin_y = by;
  const uint32_t width = std::min(n, s.width - bx), height = std::min(n, s.height - by);
  // Unorm channels (8, 10 or 2 bits) take the four-at-once path.
  const bool unorm_codes = std::all_of(out.channel_bits, out.channel_bits + 4, [](uint32_t b) { return b <= 23; });
  float max_codes[4];
  for (uint32_t c = 0; c < 4; ++c) max_codes[c] = float((uint64_t(1) << std::min(out.channel_bits[c], 31u)) - 1u);
  if (width == n && height == n) {
    std::memset(out.present, 1, sizeof out.present);  // most blocks: all inside
  } else {
    // The codes outside the image are 0 (`out` may hold another block's: the callers reuse one).
    for (uint32_t y = 0; y < n; ++y)
      for (uint32_t x = 0; x < n; ++x) {
        out.present[y * n + x] = x < width && y < height;
        if (!out.present[y * n + x]) std::fill(std::begin(out.codes[y * n + x]), std::end(out.codes[y * n + x]), 0u);
      }
  }
  if (s.has_color() && unorm_codes) {
    // The common case in a loop of its own: the tests below, per pixel, were half of its
    // instructions (the million-triangle frame's stored blocks).
    // Sample 0 of each pixel, a row's stepped through (the stores into `out` may alias the
    // surface's size fields, which s.index() reloaded for every pixel).
    const Vec4* const colors = s.color.data();
    const size_t step = s.samples;
    for (uint32_t y = 0; y < height; ++y) {
      const Vec4* pixel = colors + s.index(bx, by + y, 0);
      uint32_t x = 0;
#if defined(__AVX2__)
      if (step == 1)  // single-sampled: two neighbouring pixels a step
        for (; x + 2 <= width; x += 2, pixel += 2) unorm_codes_of_two(pixel, max_codes, out.codes[y * n + x]);
#endif
      for (; x < width; ++x, pixel += step) unorm_codes_of(*pixel, max_codes, out.codes[y * n + x]);
    }
    return;
  }
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      uint32_t* codes = out.codes[y * n + x];
      const size_t p = s.index(bx + x, by + y, 0);
      if (s.has_color()) {
        const Vec4& color = s.color[p];
        for (uint32_t c = 0; c < 4; ++c) codes[c] = code(color[int(c)], out.channel_bits[c]);
      } else {
        codes[0] = s.has_depth() ? code(s.depth[p], 32) : 0;
        codes[1] = s.has_stencil() ? s.stencil[p] : 0;
        codes[2] = codes[3] = 0;
      }
    }
}

bool packed_superblock(const Surface& s, uint32_t block, models::PackedSuperblock& out) {
  const BlockGrid grid(s);
  const uint32_t n = models::kSuperblockSize;
  const uint32_t bx = (block % grid.cols) * n, by = (block / grid.cols) * n;
  uint32_t channels = 0, bits[4];
  channel_bits(s.format, channels, bits);
  if (!s.has_color() || s.samples != 1 || bx + n > s.width || by + n > s.height ||
      !std::all_of(bits, bits + 4, [](uint32_t b) { return b == 8; }))
    return false;
  out.channels = channels;
  out.bytes_per_pixel = format_info(s.format).bytes_per_pixel;
  out.image_width = s.width;
  out.image_height = s.height;
  out.origin_x = bx;
  out.origin_y = by;
  // The row start stepped (the stores into `out` may alias the surface's fields, which s.index() would reload).
  const Vec4* row = s.color.data() + s.index(bx, by, 0);
  const size_t stride = s.width;
  for (uint32_t y = 0; y < n; ++y, row += stride) unorm8_codes_of_row(row, out.codes + 4 * n * y);
  return true;
}

std::span<const uint8_t> block_bytes(const models::SuperblockPixels& pixels, uint8_t* scratch) {
  constexpr uint32_t kPixels = models::kSuperblockSize * models::kSuperblockSize;
#if defined(__SSE2__)
  // 8-bit channels (RGBA8, BGRA8, RGB8, RG8, R8): a byte per code, 4 a pixel (a quarter of the
  // CRC's work over 32-bit words: the million-triangle frame's signatures were 3 % of its run). A
  // code is at most 255, so SSE2's saturating packs take its low byte, four pixels a step, written
  // whole when all four are present (the loop below wrote 12,000 instructions a block cut by the
  // image's edge); the loop below writes the same bytes.
  if (std::all_of(pixels.channel_bits, pixels.channel_bits + 4, [](uint32_t b) { return b == 8; })) {
    static_assert(sizeof(bool) == 1);
    size_t size = 0;
    for (uint32_t i = 0; i < kPixels; i += 4) {
      const auto* codes = reinterpret_cast<const __m128i*>(pixels.codes[i]);
      const __m128i low = _mm_packs_epi32(_mm_loadu_si128(codes), _mm_loadu_si128(codes + 1));
      const __m128i high = _mm_packs_epi32(_mm_loadu_si128(codes + 2), _mm_loadu_si128(codes + 3));
      alignas(16) uint8_t four[16];
      _mm_store_si128(reinterpret_cast<__m128i*>(four), _mm_packus_epi16(low, high));
      uint32_t present;  // a byte, 0 or 1, per pixel
      std::memcpy(&present, pixels.present + i, sizeof present);
      if (present == 0x01010101u) {
        std::memcpy(scratch + size, four, 16);
        size += 16;
        continue;
      }
      for (uint32_t k = 0; k < 4; ++k)
        if (pixels.present[i + k]) {
          std::memcpy(scratch + size, four + 4 * k, 4);
          size += 4;
        }
    }
    return {scratch, size};
  }
#endif
  size_t size = 0;
  for (uint32_t i = 0; i < kPixels; ++i) {
    if (!pixels.present[i]) continue;
    for (uint32_t c = 0; c < 4; ++c)
      for (uint32_t b = 0; b < (pixels.channel_bits[c] + 7) / 8; ++b) scratch[size++] = uint8_t(pixels.codes[i][c] >> (8 * b));
  }
  return {scratch, size};
}

uint64_t block_pixels(const Surface& s, uint32_t block) {
  const BlockGrid grid(s);
  const uint32_t bx = (block % grid.cols) * models::kSuperblockSize, by = (block / grid.cols) * models::kSuperblockSize;
  return uint64_t(std::min(models::kSuperblockSize, s.width - bx)) * std::min(models::kSuperblockSize, s.height - by);
}

SaverState::SaverState(const Trace& trace) {
  for (const ImageDesc& image : trace.images) {
    ImageSaverState state;
    state.signatures.resize(std::max(1u, image.swapchain));
    m_images.push_back(std::move(state));
  }
}

void SaverState::invalidate_signatures(int32_t index) {
  for (auto& set : m_images.at(size_t(index)).signatures) set.clear();
}

}  // namespace tbdr
