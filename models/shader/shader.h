// The `shader` kind: a shader core's throughputs, turning a tile's shaded quads and their cost
// descriptors into cycles per functional unit (models/README.md "Sources: merging subpasses",
// "Sources: preset numbers").
#pragma once

#include "models/model.h"
#include "models/units.h"
#include "models/work.h"

namespace tbdr::models {

struct ShaderCycles {
  Cycles alu, texture, tile_read, varying;  // busy cycles of each unit
  Cycles pixel;                             // fragment output (pixels/clk), blending included
  Cycles blend;                             // the part of `pixel` spent on blended samples
  Cycles load, store, resolve;              // tile-buffer fill, write-back and inline resolve
  Cycles shading;                           // the units run in parallel: max(alu, texture, tile_read, varying, pixel)
};

// Contract:
// - Given: one tile's TileWork (after HSR).
// - Returns: cycles of one shader core for that tile, per unit; `shading` is the bottleneck
//   unit (units overlap), load/store/resolve are serial with shading.
// - Called once per tile; deterministic; no state.
class ShaderModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "shader";
  static constexpr const char* k_description = "shader core throughputs: cycles per tile from shaded quads and costs";

  virtual ShaderCycles tile_cycles(const TileWork& work) const = 0;
};

}  // namespace tbdr::models
