// Bandwidth savers on real pixels: AFBC superblock sizes, transaction-elimination signatures per
// 16x16 block kept across frames, and the per-image state they carry
// (models/README.md "Sources: bandwidth savers").
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/compression/compression.h"
#include "models/work.h"
#include "models/write_elim/write_elim.h"
#include "sim/frame.h"
#include "sim/surface.h"

namespace tbdr {

// The 16x16 superblock / TE block grid of an image level (its own grid, independent of tiles).
struct BlockGrid {
  uint32_t cols = 0, rows = 0;
  explicit BlockGrid(const Surface& s)
      : cols((s.width + models::kSuperblockSize - 1) / models::kSuperblockSize),
        rows((s.height + models::kSuperblockSize - 1) / models::kSuperblockSize) {}
  uint32_t count() const { return cols * rows; }
};

models::ImageTraits image_traits(const ImageDesc& image);

// The superblock's pixels as integer codes (sample 0), for the compression model; every field of
// `out` is written (the codes outside the image 0), so a caller may reuse one.
void superblock_pixels(const Surface& surface, uint32_t block, models::SuperblockPixels& out);
// The block's codes packed a byte each, as superblock_pixels would give them, when the block lies
// wholly inside a single-sampled color image of 8-bit unorm channels (RGBA8, BGRA8, RGB8, RG8,
// R8); false, `out` unspecified, otherwise. Its codes are then also the block's stored bytes
// (block_bytes), 4 a pixel.
bool packed_superblock(const Surface& surface, uint32_t block, models::PackedSuperblock& out);
// The block's stored bytes, for signatures: sample 0 of each pixel inside the image, its four
// channel codes, each in ceil(bits / 8) little-endian bytes (RGBA8: 4 a pixel, as stored; a
// 32-bit channel: 4), written to `scratch` (kBlockBytesMax bytes). A code fits its bits, so equal
// bytes mean equal codes.
constexpr size_t kBlockBytesMax = models::kSuperblockSize * models::kSuperblockSize * 16;
std::span<const uint8_t> block_bytes(const models::SuperblockPixels& pixels, uint8_t* scratch);
// Pixels of the block inside the image.
uint64_t block_pixels(const Surface& surface, uint32_t block);

// Per image, across passes and frames: the AFBC size of each superblock as last written, and the
// TE signatures per swapchain image (one set for other images).
struct ImageSaverState {
  std::vector<uint64_t> afbc_bytes;          // per superblock; empty: not known (recomputed)
  std::vector<std::vector<uint64_t>> signatures;  // [rotation][block]: 0 = none, else (1 << 32) | crc
};

class SaverState {
 public:
  explicit SaverState(const Trace& trace);
  ImageSaverState& image(int32_t index) { return m_images.at(size_t(index)); }
  // A layout transition from undefined/general/transfer_dst (not for swapchain images), a copy
  // or blit into the image: its signatures no longer describe memory (Arm TE; models/README.md
  // "Sources: bandwidth savers").
  void invalidate_signatures(int32_t index);
  // A write the savers did not see (copy, blit, compute): compressed sizes are recomputed.
  void forget_compression(int32_t index) { m_images.at(size_t(index)).afbc_bytes.clear(); }

 private:
  std::vector<ImageSaverState> m_images;
};

}  // namespace tbdr
