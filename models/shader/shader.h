// The `shader` kind: a shader core's throughputs, turning a tile's shaded quads and their cost
// descriptors into cycles per functional unit (models/README.md "Sources: merging subpasses",
// "Sources: preset numbers").
#pragma once

#include "models/model.h"
#include "models/work.h"

namespace tbdr::models {

struct ShaderCycles {
  double alu = 0, texture = 0, tile_read = 0, varying = 0;  // busy cycles of each unit
  double pixel = 0;     // fragment output (pixels/clk), blending included
  double blend = 0;     // the part of `pixel` spent on blended samples
  double load = 0, store = 0, resolve = 0;  // tile-buffer fill, write-back and inline resolve
  double shading = 0;   // the units run in parallel: max(alu, texture, tile_read, varying, pixel)
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
