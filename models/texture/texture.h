// The `texture` kind: how material-texture fetches become DRAM bytes (physical ledger): the
// footprint rule (unique texels or blocks, models/README.md "Sources: the DRAM ledger") or a per-core texture cache.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "models/model.h"

namespace tbdr::models {

// Where a texture's elements (texels, or blocks of a block-compressed format) lie in DRAM.
enum class TextureLayout {
  linear,  // row after row, no padding
  // Arm's 16x16 "u-interleaved" block layout (Mesa docs/drivers/panfrost/tiling.rst,
  // DRM_FORMAT_MOD_ARM_16X16_BLOCK_U_INTERLEAVED): tiles of 16x16 texels (4x4 blocks for block
  // formats) in row-major order, each tile contiguous, elements inside a tile ordered by
  // |y3|x3^y3|y2|x2^y2|y1|x1^y1|y0|x0^y0| (most significant bit first).
  tiled,
};

// What sim/ needs to record the line-address stream of the fetches: asked once per pass.
struct TextureCacheConfig {
  bool simulate = false;        // false: no cache, the physical bytes are the footprint
  uint32_t line_bytes = 64;     // power of two
  TextureLayout layout = TextureLayout::tiled;
};

// One level of a texture as the address rule sees it.
struct TextureLevelShape {
  uint32_t elements_x = 0, elements_y = 0;  // texels, or blocks for block formats
  uint32_t element_bytes = 4;               // bytes per texel or per block
  bool block_format = false;
};

// Bytes of one level in `layout` (tiled levels are padded to whole tiles).
uint64_t texture_level_bytes(const TextureLevelShape& level, TextureLayout layout);

// The tiled layout's order of element (x, y) inside its tile, for x, y < 16: bit 2b is x_b ^ y_b,
// bit 2b + 1 is y_b (the order above). A 4x4 tile of blocks is the table's x, y < 4 corner, as its
// high bits are zero. A table: the bit loop, once per fetch, showed in the default trace's profile.
inline constexpr auto kTiledElementIndex = [] {
  std::array<uint8_t, 256> index{};
  for (uint32_t y = 0; y < 16; ++y)
    for (uint32_t x = 0; x < 16; ++x) {
      uint32_t i = 0;
      for (uint32_t b = 0; b < 4; ++b) {
        const uint32_t xb = (x >> b) & 1, yb = (y >> b) & 1;
        i |= ((xb ^ yb) << (2 * b)) | (yb << (2 * b + 1));
      }
      index[y * 16 + x] = uint8_t(i);
    }
  return index;
}();

// texture_element_offset's terms for one level in one layout, worked out once: a fetch recorder
// asks for the offsets of many elements of the same level (sim/texture_fetch.h), and working them
// out per element was about 50 instructions a bilinear sample (callgrind of the default trace).
class ElementAddressing {
 public:
  ElementAddressing() = default;
  ElementAddressing(const TextureLevelShape& level, TextureLayout layout)
      : m_linear(layout == TextureLayout::linear), m_elements_x(level.elements_x), m_element_bytes(level.element_bytes),
        m_tile_bits(level.block_format ? 2 : 4),  // 4x4 blocks or 16x16 texels per tile
        m_tile_mask((1u << m_tile_bits) - 1),
        m_tiles_per_row((uint64_t(level.elements_x) + m_tile_mask) >> m_tile_bits) {}

  // Byte offset of element (ex, ey) inside its level (0 <= ex < elements_x, 0 <= ey < elements_y).
  uint64_t offset(uint32_t ex, uint32_t ey) const {
    if (m_linear) return (uint64_t(ey) * m_elements_x + ex) * m_element_bytes;
    const uint64_t tile = uint64_t(ey >> m_tile_bits) * m_tiles_per_row + (ex >> m_tile_bits);
    const uint32_t index = kTiledElementIndex[(ey & m_tile_mask) * 16 + (ex & m_tile_mask)];
    return ((tile << (2 * m_tile_bits)) + index) * m_element_bytes;  // a tile holds side x side elements
  }

 private:
  bool m_linear = true;
  uint32_t m_elements_x = 0, m_element_bytes = 0, m_tile_bits = 0, m_tile_mask = 0;
  uint64_t m_tiles_per_row = 0;
};

// Byte offset of element (ex, ey) inside its level (0 <= ex < elements_x, 0 <= ey < elements_y).
inline uint64_t texture_element_offset(const TextureLevelShape& level, TextureLayout layout, uint32_t ex, uint32_t ey) {
  return ElementAddressing(level, layout).offset(ex, ey);
}

// What the texture caches did over a hardware pass.
struct TextureCacheStats {
  uint64_t hits = 0, misses = 0;        // the cores' own (L1) texture caches
  uint64_t l2_hits = 0, l2_misses = 0;  // the shared L2 (0 without one)
  uint64_t dram_bytes = 0;              // bytes read from DRAM: the lines missed last, x line bytes
  // With labels (TextureLineLabels): per label, the DRAM bytes of the lines fetched under it.
  std::vector<uint64_t> dram_bytes_by_label;
};

// Labels over the replay's line streams: per tile, runs of lines that carry one label (sim/ labels
// each line with the draw whose fetch it was), so the replay can say whose fetches went to DRAM.
// A tile's runs are in order; run k covers the lines from the previous run's `end` up to its own.
struct TextureLineRun {
  uint32_t end = 0;
  uint32_t label = 0;
};
struct TextureLineLabels {
  std::vector<std::span<const TextureLineRun>> tiles;  // one per tile, like the streams
  uint32_t count = 0;                                  // labels are [0, count)
};

// Contract:
// - config(): constants of the configuration; sim/ records line addresses only when simulate.
// - replay(tiles, core_of_tile, cores): once per hardware pass, after the tiles ran: per tile, in
//   tile order, the line addresses (byte address / line_bytes) it fetched, with consecutive
//   repeats of a line already removed (sim/ counts those as hits), and the core that ran it (the
//   cores model's assignment; a core runs its tiles in tile order). Caches start empty. Returns the
//   hits and misses and the DRAM bytes. Deterministic; no state between calls. With `labels`, also
//   the DRAM bytes per label (their sum is dram_bytes).
class TextureModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "texture";
  static constexpr const char* k_description = "material-texture DRAM bytes: footprint rule or per-core texture cache";

  // Runs body(b) for b in [0, blocks), possibly at once on several threads (sim/ passes its
  // thread pool; the default runs them in order). Bodies write only their own block's data.
  using ForBlocks = std::function<void(uint32_t blocks, const std::function<void(uint32_t)>& body)>;
  static void in_order(uint32_t blocks, const std::function<void(uint32_t)>& body) {
    for (uint32_t b = 0; b < blocks; ++b) body(b);
  }

  virtual TextureCacheConfig config() const = 0;
  // `for_blocks` may run the cores' own caches side by side: each sees only its tiles, in order;
  // the shared L2 then takes their misses in tile order, so the result never depends on it.
  virtual TextureCacheStats replay(const std::vector<std::span<const uint64_t>>& tiles,
                                   const std::vector<uint32_t>& core_of_tile, uint32_t cores,
                                   const ForBlocks& for_blocks = in_order,
                                   const TextureLineLabels* labels = nullptr) const = 0;
};

}  // namespace tbdr::models
