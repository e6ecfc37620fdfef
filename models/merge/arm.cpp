// merge=arm and merge=arm_budget: Arm's subpass merge conditions (models/README.md "Sources: merging subpasses", Arm
// "Vulkan best practices for mobile developers": subpasses). A subpass joins the current
// hardware pass only if it shares data with it, the merged pass has at most 8 color
// attachments (depth/stencil not counted), both use the same depth/stencil attachment, and
// their sample counts match; arm_budget also refuses a merge whose color storage exceeds the
// tile-buffer budget (models/README.md "Sources: tile-buffer working set"), where arm would merge and
// shrink the tile instead.
#include <algorithm>
#include <memory>
#include <set>
#include <string>

#include "models/merge/merge.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

constexpr size_t kMaxMergedColorAttachments = 8;  // Arm's merge conditions

class ArmMerge : public MergeModel {
 public:
  ArmMerge() = default;
  explicit ArmMerge(Params& params)
      // 128 bit/px: Mali G71 and older; 256 from G72 (Arm MaliGPUMaxPixelStorage).
      : m_budget_bits(uint32_t(params.integer("budget_bits_per_px", 128, "bit/px",
                                              "color storage per pixel (samples included) a merged pass may use",
                                              32, 4096))),
        m_check_budget(true) {}

  MergeDecision decide(const MergeInput& in) const override {
    MergeDecision d;
    if (in.subpasses.empty()) return d;
    MergeDecision::Group group{0, 0};
    std::set<uint32_t> used, colors;
    int32_t depth = in.subpasses[0].depth;
    uint32_t samples = in.subpasses[0].samples;
    auto add = [&](const SubpassWork& s) {
      used.insert(s.color.begin(), s.color.end());
      used.insert(s.input.begin(), s.input.end());
      used.insert(s.resolve.begin(), s.resolve.end());
      colors.insert(s.color.begin(), s.color.end());
      if (s.depth >= 0) {
        used.insert(uint32_t(s.depth));
        depth = s.depth;
      }
    };
    add(in.subpasses[0]);
    for (uint32_t k = 1; k < in.subpasses.size(); ++k) {
      const SubpassWork& s = in.subpasses[k];
      const std::string pair = "subpass " + std::to_string(group.last) + " and " + std::to_string(k);
      std::string reason;
      std::set<uint32_t> touched(s.color.begin(), s.color.end());
      touched.insert(s.input.begin(), s.input.end());
      if (s.depth >= 0) touched.insert(uint32_t(s.depth));
      std::set<uint32_t> merged_colors = colors;
      merged_colors.insert(s.color.begin(), s.color.end());
      const bool shares = std::any_of(touched.begin(), touched.end(), [&](uint32_t a) { return used.count(a) > 0; });
      if (!shares) {
        reason = "subpasses share no data between " + pair;
      } else if (merged_colors.size() > kMaxMergedColorAttachments) {
        reason = "more than 8 color attachments (" + std::to_string(merged_colors.size()) + ") merging " + pair;
      } else if (s.depth >= 0 && depth >= 0 && s.depth != depth) {
        reason = "depth attachment differs between " + pair;
      } else if (s.samples != samples) {
        reason = "sample count differs between " + pair + " (" + std::to_string(samples) + " vs " +
                 std::to_string(s.samples) + ")";
      } else if (m_check_budget) {
        const uint32_t bits = color_bits(in, merged_colors);
        if (bits > m_budget_bits)
          reason = "color storage " + std::to_string(bits) + " bit/px exceeds budget " + std::to_string(m_budget_bits) +
                   " merging " + pair;
      }
      if (reason.empty()) {
        group.last = k;
        add(s);
        continue;
      }
      d.reasons.push_back(reason);
      d.hardware_passes.push_back(group);
      group = {k, k};
      used.clear();
      colors.clear();
      depth = s.depth;
      samples = s.samples;
      add(s);
    }
    d.hardware_passes.push_back(group);
    return d;
  }

 private:
  static uint32_t color_bits(const MergeInput& in, const std::set<uint32_t>& colors) {
    uint32_t bits = 0;
    for (uint32_t a : colors) bits += in.attachments[a].bytes_per_pixel * 8 * in.attachments[a].samples;
    return bits;
  }

  uint32_t m_budget_bits = 0;
  bool m_check_budget = false;
};

const Registrar<MergeModel> arm_registrar(
    "merge", "arm",
    "Arm's rules: merge unless the subpasses share no data, exceed 8 color attachments, use different "
    "depth/stencil attachments or different sample counts (Arm Mali best practices)",
    [](Params&) { return std::make_unique<ArmMerge>(); });

const Registrar<MergeModel> arm_budget_registrar(
    "merge", "arm_budget",
    "arm's rules, and also refuse a merge whose color storage exceeds the tile-buffer budget",
    [](Params& p) { return std::make_unique<ArmMerge>(p); });

}  // namespace
}  // namespace tbdr::models
