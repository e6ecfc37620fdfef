// compression=ubwc: Qualcomm Adreno's Universal Bandwidth Compression. Block geometry and the flag
// (metadata) buffer as Mesa's freedreno layout code computes them (src/freedreno/fdl/fd6_layout.c,
// freedreno_layout.h; eligibility after turnip's tu_image.cc); the payload rule is a model (a guess:
// UBWC's encoding is not public). models/README.md "compression" gives the rule and its sources.
#include <algorithm>
#include <bit>
#include <memory>
#include <string>

#include "models/compression/compression.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

struct BlockShape {
  uint32_t width = 0, height = 0;
};

// fdl6_get_ubwc_blockwidth: 16x4 for 1, 2 and 4 bytes a pixel, 8x4 for 8, 4x4 for 16, 4x2 for
// 32; R8G8 (2 bytes, 2 channels) is 16x8. Other sizes (3, 5 bytes...) get no UBWC (zero block).
BlockShape ubwc_block(uint32_t bytes_per_pixel, uint32_t channels) {
  if (bytes_per_pixel == 2 && channels == 2) return {16, 8};
  switch (bytes_per_pixel) {
    case 1: case 2: case 4: return {16, 4};
    case 8: return {8, 4};
    case 16: return {4, 4};
    case 32: return {4, 2};
    default: return {};
  }
}

uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) / alignment * alignment; }
uint64_t div_up(uint64_t value, uint64_t divisor) { return (value + divisor - 1) / divisor; }

// The flag buffer of one single-level image as fdl6_layout_image sizes it: one byte per block,
// the pitch in blocks aligned to RGB_TILE_WIDTH_ALIGNMENT (64), the rows to
// RGB_TILE_HEIGHT_ALIGNMENT (16), the plane to UBWC_PLANE_SIZE_ALIGNMENT (4096).
uint64_t flag_buffer_bytes(uint32_t width, uint32_t height, BlockShape block) {
  const uint64_t pitch = align_up(div_up(width, block.width), 64);
  const uint64_t rows = align_up(div_up(height, block.height), 16);
  return align_up(pitch * rows, 4096);
}

class Ubwc final : public CompressionModel {
 public:
  explicit Ubwc(Params& params)
      : m_burst(uint32_t(params.integer("burst_bytes", 32, "B",
                                        "a block's payload is a whole number of DRAM bursts (guess)", 1, 4096))),
        m_min_width(uint32_t(params.integer("min_width", 16, "px",
                                            "narrower images are not compressed (Mesa FDL_MIN_UBWC_WIDTH)", 0, 65536))) {}

  Eligibility eligibility(const ImageTraits& image) const override {
    // turnip tu_image_init / ubwc_possible and fdl6_layout_image (models/README.md compression).
    // Mesa has MSAA block shapes, but the savers size sample 0 only: MSAA images stay raw.
    if (std::string reason = shared_ineligibility(image, false); !reason.empty()) return {false, reason};
    if (image.depth_stencil) return {false, "depth/stencil format " + image.format + " (not modeled)"};
    if (ubwc_block(image.bytes_per_pixel, image.channels).width == 0)
      return {false, "format " + image.format + " (" + std::to_string(image.bytes_per_pixel) + " B/px) has no UBWC block"};
    if (image.width < m_min_width)
      return {false, "narrower than " + std::to_string(m_min_width) + " px (" + std::to_string(image.width) + ")"};
    return {true, ""};
  }

  Bytes superblock_bytes(const SuperblockPixels& b) const override {
    const BlockShape block = ubwc_block(b.bytes_per_pixel, b.channels);
    uint64_t bytes = 0;
    if (block.width == 0) {  // not eligible (no UBWC block): stored uncompressed
      for (bool p : b.present) bytes += p ? b.bytes_per_pixel : 0;
      return Bytes(bytes);
    }
    for (uint32_t by = 0; by < kSuperblockSize; by += block.height)
      for (uint32_t bx = 0; bx < kSuperblockSize; bx += block.width) bytes += block_payload(b, bx, by, block);
    return Bytes(bytes + flag_share(b, block));
  }

 private:
  // One UBWC block inside the superblock (its pixels inside the image, n of them): per channel
  // the minimum at full precision plus n offsets in just enough bits, rounded up to whole bursts,
  // capped at the n uncompressed pixels rounded up to whole bursts. A solid block is one burst.
  uint64_t block_payload(const SuperblockPixels& b, uint32_t bx, uint32_t by, BlockShape block) const {
    const RangeEstimate e = range_estimate(b, bx, by, block.width, block.height);
    if (!e.pixels) return 0;
    return std::min(align_up(div_up(e.bits, 8), m_burst), align_up(e.pixels * b.bytes_per_pixel, m_burst));
  }

  // This superblock's even share of the image's flag buffer (superblocks in row-major order,
  // share(k) = floor(F (k+1) / N) - floor(F k / N)): storing every superblock of the image moves
  // the whole buffer, F bytes, once. 0 when the image's size is unknown.
  static uint64_t flag_share(const SuperblockPixels& b, BlockShape block) {
    if (b.image_width == 0 || b.image_height == 0) return 0;
    const uint64_t flags = flag_buffer_bytes(b.image_width, b.image_height, block);
    const uint64_t cols = div_up(b.image_width, kSuperblockSize), rows = div_up(b.image_height, kSuperblockSize);
    const uint64_t count = cols * rows, k = (b.origin_y / kSuperblockSize) * cols + b.origin_x / kSuperblockSize;
    return flags * (k + 1) / count - flags * k / count;
  }

  uint32_t m_burst, m_min_width;
};

const Registrar<CompressionModel> ubwc_registrar(
    "compression", "ubwc",
    "Qualcomm UBWC: Mesa's per-format blocks (16x4 at 4 B/px) and flag buffer; payload per block from the pixels' "
    "ranges in 32 B bursts (a guess)",
    [](Params& p) { return std::make_unique<Ubwc>(p); });

}  // namespace
}  // namespace tbdr::models
