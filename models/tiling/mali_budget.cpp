// tiling=mali_budget: Mali's fixed tile shrunk while the pass's color storage exceeds the
// per-pixel budget: "the driver dynamically reduces the tile size until sufficient storage is
// available" (Arm libGPUCounters MaliGPUMaxPixelStorage; models/README.md "Sources: tile-buffer working set"). The
// tile's total color storage at the base size is the budget; the longer side halves (height
// first when square: 16x16 -> 16x8 -> 8x8, Arm; models/README.md "Sources: merging subpasses") until the pass fits.
#include <memory>
#include <string>

#include "models/registry.h"
#include "models/tiling/tiling.h"

namespace tbdr::models {
namespace {

class MaliBudgetTiling final : public TilingModel {
 public:
  explicit MaliBudgetTiling(Params& params)
      : m_width(uint32_t(params.integer("width", 16, "px", "base tile width (16 on Bifrost/Valhall, 32 from G710)", 1, 4096))),
        m_height(uint32_t(params.integer("height", 16, "px", "base tile height", 1, 4096))),
        // 128 bit/px: G71 and older; presets of G72-class parts set 256 (MaliGPUMaxPixelStorage).
        m_budget_bits(uint32_t(params.integer("budget_bits_per_px", 128, "bit/px",
                                              "color storage per pixel (samples included) at the base tile size",
                                              8, 4096))) {}

  TileSize choose_tile_size(const TilingInput& input) const override {
    uint64_t bits = 0;
    for (const AttachmentWork& a : input.attachments)
      if (a.is_color) bits += uint64_t(a.bytes_per_pixel) * 8 * a.samples;
    const uint64_t capacity = uint64_t(m_width) * m_height * m_budget_bits;
    uint32_t w = m_width, h = m_height;
    while (uint64_t(w) * h * bits > capacity && (w > 1 || h > 1)) {
      if (h >= w) h = (h + 1) / 2;
      else w = (w + 1) / 2;
    }
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    if (bits <= m_budget_bits)
      return {w, h, "tile " + size + ": color storage " + std::to_string(bits) + " bit/px within budget " +
                        std::to_string(m_budget_bits)};
    return {w, h, "tile " + size + ": color storage " + std::to_string(bits) + " bit/px exceeds budget " +
                      std::to_string(m_budget_bits)};
  }

 private:
  uint32_t m_width, m_height, m_budget_bits;
};

const Registrar<TilingModel> mali_budget_registrar(
    "tiling", "mali_budget", "a base tile shrunk, longer side first, until the color storage per pixel fits the budget",
    [](Params& p) { return std::make_unique<MaliBudgetTiling>(p); });

}  // namespace
}  // namespace tbdr::models
