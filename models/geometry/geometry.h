// The `geometry` kind: cycles of the geometry phase of a hardware pass (vertex shading,
// primitive set-up and binning into tile lists, models/README.md "Sources: the two-phase machine").
#pragma once

#include "models/model.h"
#include "models/units.h"
#include "models/work.h"

namespace tbdr::models {

struct GeometryCycles {
  Cycles vertex;   // vertex shading
  Cycles setup;    // primitive assembly, clipping, culling
  Cycles binning;  // tile-list writes
  Cycles total;    // vertex + setup + binning (one pipeline, serial per primitive batch)
};

// Contract: given one hardware pass's GeometryWork, its geometry cycles on the vertex/compute
// queue. Once per hardware pass; no state.
class GeometryModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "geometry";
  static constexpr const char* k_description = "geometry phase: vertex shading, set-up and binning cycles";

  virtual GeometryCycles cycles(const GeometryWork& work) const = 0;
};

}  // namespace tbdr::models
