// The `deps` kind: per-pixel dependency tracking for tile-memory reads (the three-costs article
// section 3.2, models/README.md "Sources: merging subpasses": one tracker per pixel before
// Mali-G710, several from G710 on).
#pragma once

#include "models/model.h"
#include "models/units.h"
#include "models/work.h"

namespace tbdr::models {

// Contract:
// - Given: one tile's TileWork; its layer_histogram counts, per pixel, the shaded fragments
//   that read tile memory, and tile_reads_per_fragment their mean reads.
// - Returns: stall cycles of that tile (added to shading: a stalled warp issues nothing).
// - Called once per tile; deterministic; no state.
class DepsModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "deps";
  static constexpr const char* k_description = "per-pixel dependency tracking: stall cycles of tile-memory reads";

  virtual Cycles stall_cycles(const TileWork& work) const = 0;
};

}  // namespace tbdr::models
