// binning=aabb (the reference), binning=exact and binning=hierarchical (models/README.md "Sources:
// binning strategies"; Mali Bifrost's hierarchical tiler, Mesa src/panfrost/vulkan/panvk_cmd_draw.h).
#include <memory>

#include "models/binning/binning.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class FixedRule final : public BinningModel {
 public:
  explicit FixedRule(BinningRule rule) : m_rule(rule) {}
  BinningRule rule() const override { return m_rule; }

 private:
  BinningRule m_rule;
};

BinningRule hierarchical_rule(Params& params) {
  BinningRule rule;
  rule.strategy = BinningStrategy::hierarchical;
  // Guess: Mesa reads the level count from the GPU's tiler features (panfrost_query_tiler_features);
  // 8 levels = bins of 16 to 2048 px with 16x16 tiles.
  rule.levels = uint32_t(params.integer("levels", 8, "",
                                        "hierarchy levels the tiler may use (level i: bins of 2^i x 2^i tiles)", 1, 16));
  // Guess: Arm does not publish the level choice; a 2x2 footprint keeps a primitive's entries at most 4.
  rule.max_bins = uint32_t(params.integer(
      "max_bins", 4, "", "a primitive goes to the finest level where its bounding box touches at most this many bins",
      1, 256));
  return rule;
}

const Registrar<BinningModel> aabb_registrar(
    "binning", "aabb", "every tile the primitive's bounding box (within its scissor) touches",
    [](Params&) { return std::make_unique<FixedRule>(BinningRule{}); });
const Registrar<BinningModel> exact_registrar(
    "binning", "exact", "only the tiles the triangle itself overlaps (its span in each tile row)",
    [](Params&) { return std::make_unique<FixedRule>(BinningRule{BinningStrategy::exact}); });
const Registrar<BinningModel> hierarchical_registrar(
    "binning", "hierarchical",
    "Mali Bifrost's hierarchical tiler: one list entry per bin at the finest level whose bins fit the primitive; "
    "a tile reads the bins of every level covering it",
    [](Params& p) { return std::make_unique<FixedRule>(hierarchical_rule(p)); });

}  // namespace
}  // namespace tbdr::models
