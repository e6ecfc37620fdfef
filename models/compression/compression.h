// The `compression` kind: framebuffer compression of stored images (Arm AFBC, Qualcomm UBWC;
// models/README.md "compression"): which images are eligible and how many bytes a 16x16 superblock takes, from its pixels.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <string>

#include "models/model.h"
#include "models/units.h"
#include "models/work.h"

namespace tbdr::models {

// A superblock wholly inside the image, of a format whose four channel codes are 8 bits each
// (RGBA8, BGRA8, RGB8, RG8, R8: the savers' common case), its codes packed as the image stores
// them: pixel i (row-major) has channel c's code at codes[4 * i + c].
struct PackedSuperblock {
  uint32_t channels = 4;
  uint32_t bytes_per_pixel = 4;
  uint32_t image_width = 0, image_height = 0, origin_x = 0, origin_y = 0;  // as SuperblockPixels
  alignas(32) uint8_t codes[kSuperblockSize * kSuperblockSize * 4] = {};
};

// The same superblock as SuperblockPixels: every pixel present, 8 bits a channel.
inline SuperblockPixels unpacked(const PackedSuperblock& p) {
  SuperblockPixels b;
  b.channels = p.channels;
  std::fill(b.channel_bits, b.channel_bits + 4, 8u);
  b.bytes_per_pixel = p.bytes_per_pixel;
  b.image_width = p.image_width;
  b.image_height = p.image_height;
  b.origin_x = p.origin_x;
  b.origin_y = p.origin_y;
  std::fill(std::begin(b.present), std::end(b.present), true);
  for (uint32_t i = 0; i < kSuperblockSize * kSuperblockSize; ++i)
    for (uint32_t c = 0; c < 4; ++c) b.codes[i][c] = p.codes[4 * i + c];
  return b;
}

// Contract:
// - eligibility: whether the image is stored compressed, else why not (reported per attachment).
// - superblock_bytes: the DRAM bytes of one superblock (header and payload) from its pixels;
//   never more than the header (AFBC) or the image's flag-buffer share (UBWC) plus the
//   uncompressed pixels present, rounded up to whole DRAM bursts (UBWC). Called once per stored
//   superblock (the model needs the pixels themselves, tools/doc/design.md "Design rules").
// - packed_superblock_bytes: superblock_bytes(unpacked(block)), which a model may reach by a
//   faster route (AFBC: on the packed bytes), never to other bytes.
// Deterministic; no state.
// The usage rules AFBC and UBWC share, checked in this order (the first failing one is the
// reported reason; models/README.md compression); "" when none fails. `alias_refused`: AFBC
// refuses the ALIAS flag (Arm), UBWC does not (turnip has no such rule).
inline std::string shared_ineligibility(const ImageTraits& image, bool alias_refused) {
  if (image.samples != 1) return "multisampled (" + std::to_string(image.samples) + " samples)";
  if (image.array_layers != 1) return "not a 2D image (" + std::to_string(image.array_layers) + " layers)";
  if (image.storage) return "storage usage";
  if (image.transient) return "transient";
  if (alias_refused && image.alias) return "alias flag";
  if (image.mutable_format) return "mutable_format flag";
  if (image.linear) return "linear image tiling";
  return "";
}

// The range estimate both payload models use (models/README.md compression): over n pixels, per
// channel the channel's bits (the minimum as a base) plus n x bits_for(max - min), bits_for(r) =
// the least b with 2^b > r.
inline uint64_t range_bits(const SuperblockPixels& b, const uint32_t lo[4], const uint32_t hi[4], uint64_t n) {
  uint64_t bits = 0;
  for (uint32_t c = 0; c < b.channels; ++c) bits += b.channel_bits[c] + n * uint64_t(std::bit_width(hi[c] - lo[c]));
  return bits;
}

// The pixels inside the image of the w x h rectangle at (x0, y0) of a superblock: how many, and
// their range_bits (0 when none).
struct RangeEstimate {
  uint64_t pixels = 0, bits = 0;
};
inline RangeEstimate range_estimate(const SuperblockPixels& b, uint32_t x0, uint32_t y0, uint32_t w, uint32_t h) {
  uint32_t lo[4] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}, hi[4] = {};
  RangeEstimate e;
  for (uint32_t y = y0; y < y0 + h; ++y)
    for (uint32_t x = x0; x < x0 + w; ++x) {
      const uint32_t i = y * kSuperblockSize + x;
      if (!b.present[i]) continue;
      ++e.pixels;
      for (uint32_t c = 0; c < b.channels; ++c) {
        lo[c] = std::min(lo[c], b.codes[i][c]);
        hi[c] = std::max(hi[c], b.codes[i][c]);
      }
    }
  if (e.pixels) e.bits = range_bits(b, lo, hi, e.pixels);
  return e;
}

class CompressionModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "compression";
  static constexpr const char* k_description = "framebuffer compression of stored images (AFBC, UBWC)";

  virtual Eligibility eligibility(const ImageTraits& image) const = 0;
  virtual Bytes superblock_bytes(const SuperblockPixels& block) const = 0;
  virtual Bytes packed_superblock_bytes(const PackedSuperblock& block) const { return superblock_bytes(unpacked(block)); }
  // The memory an eligible image's level 0 occupies (VkMemoryRequirements::size, less driver padding),
  // per sample and layer: by default its raw size (a variable-rate payload is allocated at its worst case).
  virtual Bytes allocation_bytes(const ImageTraits& image) const { return raw_image_bytes(image); }

  static Bytes raw_image_bytes(const ImageTraits& image) {
    return Bytes(uint64_t(image.width) * image.height * image.bytes_per_pixel * image.samples * image.array_layers);
  }
};

}  // namespace tbdr::models
