// hsr=none, early_z, fpk and deferred: the hidden-surface-removal policy sim/ applies to the real
// fragments (domain.md sections 6 and 10). The models only name the mode; sim/ does the work.
#include <memory>

#include "models/hsr/hsr.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class FixedHsr final : public HsrModel {
 public:
  explicit FixedHsr(HsrPolicy policy) : m_policy(policy) {}
  HsrPolicy policy() const override { return m_policy; }

 private:
  HsrPolicy m_policy;
};

const Registrar<HsrModel> none_registrar("hsr", "none", "no early test: every rasterized fragment is shaded",
                                         [](Params&) { return std::make_unique<FixedHsr>(HsrPolicy{HsrMode::none, 0}); });
const Registrar<HsrModel> early_z_registrar(
    "hsr", "early_z", "early depth/stencil test in draw order: fragments failing it are not shaded",
    [](Params&) { return std::make_unique<FixedHsr>(HsrPolicy{HsrMode::early_z, 0}); });
const Registrar<HsrModel> fpk_registrar(
    "hsr", "fpk", "forward pixel kill (Mali): early_z, and later opaque fragments kill queued ones within a window",
    [](Params& p) {
      // guess: Arm does not publish the depth of the FPK queue; 64 fragments is four 16-lane warps.
      const auto window = uint32_t(p.integer("window", 64, "fragments",
                                             "fragments in flight a later opaque occluder can still kill (guess)", 1,
                                             1 << 24));
      return std::make_unique<FixedHsr>(HsrPolicy{HsrMode::fpk, window});
    });
const Registrar<HsrModel> deferred_registrar(
    "hsr", "deferred", "PowerVR-like deferred HSR: only the finally visible opaque fragment of a pixel is shaded",
    [](Params&) { return std::make_unique<FixedHsr>(HsrPolicy{HsrMode::deferred, 0}); });

}  // namespace
}  // namespace tbdr::models
