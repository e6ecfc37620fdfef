// compression=none and compression=afbc. AFBC (Linux Documentation/gpu/afbc.rst, drm_fourcc.h,
// Mesa pan_afbc.h; models/README.md "Sources: bandwidth savers"): 16x16 superblocks of 4x4 subblocks, a 16-byte header
// per superblock, a solid-color superblock stored as its header alone. The payload encoding is
// proprietary, so its size is modeled (models/README.md): per 4x4 subblock and channel, the
// channel's minimum as a base (the channel's bits) plus, per pixel, the bits needed for
// (value - minimum); capped at the uncompressed subblock (the uncompressed fallback).
#include <algorithm>
#include <bit>
#include <memory>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "models/compression/compression.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class NoCompression final : public CompressionModel {
 public:
  Eligibility eligibility(const ImageTraits&) const override { return {false, "compression=none"}; }
  Bytes superblock_bytes(const SuperblockPixels& block) const override {
    uint64_t present = 0;
    for (bool p : block.present) present += p ? 1 : 0;
    return Bytes(present * block.bytes_per_pixel);
  }
};

class Afbc final : public CompressionModel {
 public:
  explicit Afbc(Params& params)
      // 32 bpp: Mali-G77-class AFBC formats (Arm: "<=32 bpp on G77+"; models/README.md "Sources: bandwidth savers").
      : m_max_bpp(uint32_t(params.integer("max_bits_per_pixel", 32, "bit/px",
                                          "widest format stored compressed", 8, 128))),
        m_header_bytes(uint32_t(params.integer("header_bytes", 16, "B", "header per 16x16 superblock", 0, 64))) {}

  Eligibility eligibility(const ImageTraits& image) const override {
    // Eligibility exactly as Arm's AFBC conditions (models/README.md "Sources: bandwidth savers").
    // RGB8: VK_FORMAT_R8G8B8_UNORM is in the Vulkan-Samples afbc README's list of formats before G77.
    static const char* const kFormats[] = {"RGBA8", "BGRA8", "RGB10A2", "R8", "RG8", "RGB8"};
    if (std::string reason = shared_ineligibility(image, true); !reason.empty()) return {false, reason};
    if (image.bytes_per_pixel * 8 > m_max_bpp)
      return {false, "format " + image.format + " wider than " + std::to_string(m_max_bpp) + " bit/px"};
    if (std::none_of(std::begin(kFormats), std::end(kFormats), [&](const char* f) { return image.format == f; }))
      return {false, "format " + image.format + " not supported"};
    return {true, ""};
  }

  Bytes superblock_bytes(const SuperblockPixels& b) const override {
    // Solid superblock: every present pixel equal -> header only.
    bool any = false, solid = true;
#if defined(__SSE2__)
    // A block inside the image (most of them): its pixels compared four channels at once.
    const bool whole = every_present(b);
    if (whole) {
      any = true;
      solid = uniform(b);
    } else
#else
    [[maybe_unused]] const bool whole = false;
#endif
      scan_solid(b, any, solid);
    if (!any) return Bytes(0);
    if (solid) return Bytes(m_header_bytes);
    uint64_t payload = 0;
    const bool narrow = std::all_of(b.channel_bits, b.channel_bits + 4, [](uint32_t bits) { return bits <= 15; });
    for (uint32_t sy = 0; sy < kSuperblockSize; sy += 4)
      for (uint32_t sx = 0; sx < kSuperblockSize; sx += 4) {
        RangeEstimate e;
#if defined(__SSE2__)
        if (narrow && (whole || whole_subblock(b, sx, sy))) {
          uint32_t lo[4], hi[4];
          narrow_range(b, sx, sy, lo, hi);
          e = {16, range_bits(b, lo, hi, 16)};
        } else
#endif
          e = range_estimate(b, sx, sy, 4, 4);
        if (!e.pixels) continue;
        payload += std::min<uint64_t>((e.bits + 7) / 8, e.pixels * b.bytes_per_pixel);
      }
    return Bytes(m_header_bytes + payload);
  }

#if defined(__AVX2__)
  // superblock_bytes' rule on a whole superblock's packed 8-bit codes, 32 a register: the
  // default unpacks them into 32-bit codes first, and the savers' stores are mostly such blocks.
  Bytes packed_superblock_bytes(const PackedSuperblock& p) const override {
    // Per band of 4 rows and half row (two subblocks, one a 128-bit lane): each channel's
    // minimum and maximum code over the subblock, in every pixel's place.
    __m256i lo[8], hi[8];
    for (uint32_t band = 0; band < 4; ++band)
      for (uint32_t half = 0; half < 2; ++half) {
        auto row = [&](uint32_t y) {
          return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.codes + 64 * (4 * band + y) + 32 * half));
        };
        __m256i mn = row(0), mx = mn;
        for (uint32_t y = 1; y < 4; ++y) {
          mn = _mm256_min_epu8(mn, row(y));
          mx = _mm256_max_epu8(mx, row(y));
        }
        lo[2 * band + half] = across_pixels(mn, [](__m256i a, __m256i b) { return _mm256_min_epu8(a, b); });
        hi[2 * band + half] = across_pixels(mx, [](__m256i a, __m256i b) { return _mm256_max_epu8(a, b); });
      }
    // A byte of each counted channel in each pixel's 4.
    const __m256i counted = _mm256_set1_epi32(p.channels >= 4 ? -1 : int32_t((1u << (8 * p.channels)) - 1));
    if (packed_solid(lo, hi, counted)) return Bytes(m_header_bytes);
    // Subblock ranges four to a lane (band 2k's two halves, then band 2k + 1's), so every dword
    // holds one subblock's four channel ranges.
    __m256i payload = _mm256_setzero_si256();
    for (uint32_t k = 0; k < 2; ++k) {
      __m256i range[4];
      for (uint32_t j = 0; j < 4; ++j) range[j] = _mm256_sub_epi8(hi[4 * k + j], lo[4 * k + j]);
      const __m256i ranges = _mm256_blend_epi32(_mm256_blend_epi32(range[0], range[1], 0xAA),
                                                _mm256_blend_epi32(range[2], range[3], 0xAA), 0xCC);
      // 16 pixels: bits = sum over channels of (8 + 16 bit_width(range)), so ceil(bits / 8) =
      // channels + 2 x the widths' sum; capped at the 16 uncompressed pixels.
      const __m256i widths = _mm256_madd_epi16(_mm256_maddubs_epi16(bit_widths(ranges), _mm256_and_si256(counted, _mm256_set1_epi8(1))),
                                               _mm256_set1_epi16(1));
      const __m256i bytes = _mm256_add_epi32(_mm256_set1_epi32(int32_t(p.channels)), _mm256_slli_epi32(widths, 1));
      payload = _mm256_add_epi32(payload, _mm256_min_epu32(bytes, _mm256_set1_epi32(int32_t(16 * p.bytes_per_pixel))));
    }
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(payload), _mm256_extracti128_si256(payload, 1));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4E));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0xB1));
    return Bytes(m_header_bytes + uint64_t(uint32_t(_mm_cvtsi128_si32(sum))));
  }
#endif

  // Per 16x16 superblock its header and a body at the uncompressed size (drm_fourcc.h: AFBC buffers are
  // allocated for the worst case; the "sparse" layout places each body at its superblock's fixed
  // offset), without the tiled layout's alignment to 8x8 superblocks (whether a driver uses it is not published).
  Bytes allocation_bytes(const ImageTraits& image) const override {
    const uint64_t superblocks = uint64_t((image.width + kSuperblockSize - 1) / kSuperblockSize) *
                                 ((image.height + kSuperblockSize - 1) / kSuperblockSize);
    return Bytes(superblocks * (m_header_bytes + kSuperblockSize * kSuperblockSize * image.bytes_per_pixel) *
                 image.samples * image.array_layers);
  }

 private:
  // Whether any pixel is present and whether every present pixel's codes equal the first one's.
  static void scan_solid(const SuperblockPixels& b, bool& any, bool& solid) {
    uint32_t first[4] = {};
    for (uint32_t i = 0; i < kSuperblockSize * kSuperblockSize; ++i) {
      if (!b.present[i]) continue;
      if (!any) {
        std::copy(b.codes[i], b.codes[i] + 4, first);
        any = true;
      } else if (!std::equal(first, first + b.channels, b.codes[i])) {
        solid = false;
        return;  // the rest cannot make it solid again
      }
    }
  }
#if defined(__SSE2__)
  // Whether every pixel of the superblock is inside the image (16 bools a compare).
  static bool every_present(const SuperblockPixels& b) {
    static_assert(sizeof(b.present) % 16 == 0 && sizeof(bool) == 1);
    __m128i all = _mm_set1_epi8(1);
    for (size_t i = 0; i < sizeof(b.present); i += 16)
      all = _mm_and_si128(all, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.present + i)));
    return _mm_movemask_epi8(_mm_cmpeq_epi8(all, _mm_set1_epi8(1))) == 0xffff;
  }
  // Whether every pixel's first `channels` codes equal the first pixel's (the scalar loop's std::equal).
  static bool uniform(const SuperblockPixels& b) {
    const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.codes[0]));
    const int channels = (1 << std::min(b.channels, 4u)) - 1;
    for (uint32_t i = 1; i < kSuperblockSize * kSuperblockSize; ++i) {
      const __m128i equal = _mm_cmpeq_epi32(first, _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.codes[i])));
      if ((_mm_movemask_ps(_mm_castsi128_ps(equal)) & channels) != channels) return false;
    }
    return true;
  }
  static bool whole_subblock(const SuperblockPixels& b, uint32_t sx, uint32_t sy) {
    for (uint32_t y = sy; y < sy + 4; ++y)
      for (uint32_t x = sx; x < sx + 4; ++x)
        if (!b.present[y * kSuperblockSize + x]) return false;
    return true;
  }
  // Per channel, the minimum and maximum code over a whole 4x4 subblock: the scalar loop's
  // values, four channels at once in SSE2 (baseline x86-64; superblock_bytes showed in perf of
  // large frames). Codes below 2^15 fill the low 16 bits of their 32-bit lane, the high 16 bits
  // being 0, so signed 16-bit min/max (SSE2 has no 32-bit ones) give the 32-bit results.
  static void narrow_range(const SuperblockPixels& b, uint32_t sx, uint32_t sy, uint32_t lo[4], uint32_t hi[4]) {
    auto codes = [&](uint32_t x, uint32_t y) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(b.codes[y * kSuperblockSize + x]));
    };
    __m128i mn = codes(sx, sy), mx = mn;
    for (uint32_t y = sy; y < sy + 4; ++y)
      for (uint32_t x = sx; x < sx + 4; ++x) {
        const __m128i v = codes(x, y);
        mn = _mm_min_epi16(mn, v);
        mx = _mm_max_epi16(mx, v);
      }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(lo), mn);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(hi), mx);
  }
#endif
#if defined(__AVX2__)
  // `op` of the four pixels (dwords) of each 128-bit lane, in each of them.
  template <class Op>
  static __m256i across_pixels(__m256i v, Op op) {
    v = op(v, _mm256_shuffle_epi32(v, 0x4E));
    return op(v, _mm256_shuffle_epi32(v, 0xB1));
  }
  // Whether the counted channels' minimum over the superblock equals their maximum.
  static bool packed_solid(const __m256i lo[8], const __m256i hi[8], __m256i counted) {
    __m256i mn = lo[0], mx = hi[0];
    for (int i = 1; i < 8; ++i) {
      mn = _mm256_min_epu8(mn, lo[i]);
      mx = _mm256_max_epu8(mx, hi[i]);
    }
    mn = _mm256_min_epu8(mn, _mm256_permute2x128_si256(mn, mn, 1));
    mx = _mm256_max_epu8(mx, _mm256_permute2x128_si256(mx, mx, 1));
    return _mm256_testz_si256(_mm256_xor_si256(mn, mx), counted);
  }
  // bit_width of each byte: the low nibble's, or 4 + the high nibble's when that is not 0.
  static __m256i bit_widths(__m256i v) {
    const __m256i low = _mm256_setr_epi8(0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4,  //
                                         0, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4);
    const __m256i high = _mm256_setr_epi8(0, 5, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8,  //
                                          0, 5, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 8);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    return _mm256_max_epu8(_mm256_shuffle_epi8(low, _mm256_and_si256(v, nibble)),
                           _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble)));
  }
#endif

  uint32_t m_max_bpp, m_header_bytes;
};

const Registrar<CompressionModel> none_registrar("compression", "none", "no framebuffer compression",
                                                 [](Params&) { return std::make_unique<NoCompression>(); });
const Registrar<CompressionModel> afbc_registrar(
    "compression", "afbc",
    "Arm AFBC: 16x16 superblocks, 16-byte header, payload per 4x4 subblock from the pixels' ranges",
    [](Params& p) { return std::make_unique<Afbc>(p); });

}  // namespace
}  // namespace tbdr::models
