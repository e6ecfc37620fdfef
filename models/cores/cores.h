// The `cores` kind: the shader cores tiles are spread over, and the GPU clock.
#pragma once

#include <cstdint>
#include <vector>

#include "models/model.h"
#include "models/units.h"

namespace tbdr::models {

// Contract:
// - fragment_cycles: given every tile's cycles in tile order, assign tiles to cores by the
//   implementation's policy and return the slowest core's total (fragment time of the pass).
// - assign_tiles: the same policy's core for every tile (the order a core runs its tiles is tile
//   order); sim/ replays per-core state (texture caches) with it, so it never depends on host threads.
// - core_count, clock_mhz: constants of the configuration.
// Once per hardware pass; deterministic; no state.
class CoresModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "cores";
  static constexpr const char* k_description = "shader cores, tile distribution policy and GPU clock";

  virtual Cycles fragment_cycles(const std::vector<Cycles>& tile_cycles) const = 0;
  virtual std::vector<uint32_t> assign_tiles(const std::vector<Cycles>& tile_cycles) const = 0;
  virtual uint32_t core_count() const = 0;
  virtual double clock_mhz() const = 0;
};

}  // namespace tbdr::models
