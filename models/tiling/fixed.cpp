// tiling=fixed: the same tile size for every pass, whatever its attachments, as Mali Bifrost/Valhall
// and PowerVR parts with a fixed tile do; the reference preset's tiling (16x16).
#include <memory>
#include <string>

#include "models/registry.h"
#include "models/tiling/tiling.h"

namespace tbdr::models {
namespace {

class FixedTiling final : public TilingModel {
 public:
  explicit FixedTiling(Params& params)
      // 16x16 default: Arm libGPUCounters MaliGPUTileSize for G31..G78 (models/README.md "Sources: preset numbers").
      // 4096 upper bound: a guess, well above any shipping tile (Adreno A6xx bins max 1024x1008).
      : m_width(static_cast<uint32_t>(params.integer("width", 16, "px", "tile width", 1, 4096))),
        m_height(static_cast<uint32_t>(params.integer("height", 16, "px", "tile height", 1, 4096))) {}

  TileSize choose_tile_size(const TilingInput& /*input*/) const override {
    return TileSize{m_width, m_height, "fixed " + std::to_string(m_width) + "x" + std::to_string(m_height)};
  }

 private:
  uint32_t m_width, m_height;
};

const Registrar<TilingModel> fixed_registrar("tiling", "fixed",
                                             "the same tile size for every pass, whatever its attachments",
                                             [](Params& p) { return std::make_unique<FixedTiling>(p); });

}  // namespace
}  // namespace tbdr::models
