// The `merge` kind: which subpasses of one API render pass run as one hardware pass, with a
// reason for every refused merge (like VK_EXT_subpass_merge_feedback, plus the why).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/model.h"
#include "models/work.h"

namespace tbdr::models {

struct MergeDecision {
  // Consecutive subpass ranges [first, last], in order, covering every subpass once.
  struct Group {
    uint32_t first = 0, last = 0;
  };
  std::vector<Group> hardware_passes;
  std::vector<std::string> reasons;  // one per refused merge, e.g. "depth attachment differs between subpass 0 and 1"
  bool merged() const { return hardware_passes.size() == 1; }
};

// Contract:
// - Given: the render pass's attachments and subpasses (MergeInput), in submission order.
// - Returns: groups of consecutive subpasses; each becomes one hardware pass whose intermediate
//   attachments stay in the tile buffer. Between groups, sim/ stores every attachment a later
//   group uses and loads it back (the cost of a refused merge). One reason string per boundary
//   between groups, naming the subpasses and the rule.
// - Called once per render pass; deterministic; no state between calls.
class MergeModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "merge";
  static constexpr const char* k_description = "which subpasses of a render pass become one hardware pass";

  virtual MergeDecision decide(const MergeInput& input) const = 0;
};

}  // namespace tbdr::models
