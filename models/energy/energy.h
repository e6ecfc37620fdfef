// The `energy` kind: energy per pass from DRAM bytes and on-chip tile-buffer bytes
// (about 100 pJ per DRAM byte, on-chip SRAM two orders less: models/README.md "Sources: time").
#pragma once

#include "models/model.h"
#include "models/units.h"

namespace tbdr::models {

struct EnergyJoules {
  double dram = 0, tile_buffer = 0, total = 0;  // joules
};

// Contract: given a pass's DRAM bytes and tile-buffer bytes, its energy. Once per pass; no state.
class EnergyModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "energy";
  static constexpr const char* k_description = "energy: picojoules per DRAM byte and per tile-buffer byte";

  virtual EnergyJoules energy(Bytes dram, Bytes tile_buffer) const = 0;
};

}  // namespace tbdr::models
