// The `dram` kind: external memory bandwidth and latency. A pass is bound by
// max(compute, bytes / bandwidth), not their sum (the three-costs article section 7.2;
// models/README.md "Sources: time").
#pragma once

#include "models/model.h"
#include "models/units.h"

namespace tbdr::models {

// Contract: given the bytes a hardware pass moves, the cycles the transfers need at full
// bandwidth plus one latency. Once per hardware pass; no state.
class DramModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "dram";
  static constexpr const char* k_description = "external memory: bytes per cycle and latency";

  virtual Cycles transfer_cycles(Bytes bytes) const = 0;
};

}  // namespace tbdr::models
