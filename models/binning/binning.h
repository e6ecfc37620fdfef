// The `binning` kind: which tile lists hold a primitive (models/README.md "Sources: binning strategies"):
// the conservative bounding box, an exact triangle-tile overlap test, or Mali Bifrost's hierarchical tiler.
#pragma once

#include <cstdint>

#include "models/model.h"

namespace tbdr::models {

enum class BinningStrategy : uint8_t { aabb, exact, hierarchical };

// What sim/binning.cpp needs to bin a pass. `levels` and `max_bins` matter to `hierarchical` only.
struct BinningRule {
  BinningStrategy strategy = BinningStrategy::aabb;
  // Hierarchy levels the tiler may use (level i: bins of 2^i x 2^i tiles); the enabled ones are the
  // lowest `levels`, shifted up so the top one covers the render area (Mesa panvk's rule).
  uint32_t levels = 8;
  // A primitive goes to the finest enabled level where its bounding box touches at most this many bins.
  uint32_t max_bins = 4;
};

// Contract: rule() is asked once per hardware pass. The rendered image never depends on it (every
// strategy lists each primitive in every tile where it can cover a sample); tile-list entries,
// their bytes and the per-tile primitive work do. No state.
class BinningModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "binning";
  static constexpr const char* k_description =
      "binning strategy: which tile lists hold each primitive (bounding box, exact overlap, hierarchy)";

  virtual BinningRule rule() const = 0;
};

}  // namespace tbdr::models
