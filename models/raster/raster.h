// The `raster` kind: fixed-function rasterizer throughput (triangle set-up and quads per clock).
#pragma once

#include "models/model.h"
#include "models/units.h"
#include "models/work.h"

namespace tbdr::models {

struct RasterCycles {
  Cycles setup;   // triangle set-up of the tile's list entries
  Cycles raster;  // quads rasterized (coverage, depth/stencil test)
  Cycles total;   // the two pipeline: max(setup, raster)
};

// Contract: given one tile's TileWork, the rasterizer's cycles for it. Once per tile; no state.
class RasterModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "raster";
  static constexpr const char* k_description = "rasterizer throughput: triangle set-up and quads per clock";

  virtual RasterCycles tile_cycles(const TileWork& work) const = 0;
};

}  // namespace tbdr::models
