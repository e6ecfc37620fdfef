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
  // Vertex shading that runs in the fragment phase instead (geometry=binning_pass: the full vertex
  // shader again while rendering the bins), 0 for basic.
  Cycles render_vertex;
  // The vertex and index bytes the geometry phase reads; the rest of the pass's vertex ledger is
  // read in the fragment phase (costing puts each on its phase's DRAM time).
  Bytes geometry_fetch;
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
