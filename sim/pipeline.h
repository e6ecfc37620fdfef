// Executes a Trace frame by frame on the modeled GPU: the TBDR path (geometry, binning, per-tile
// load / raster / resolve / store) or the IMR reference path (draws in order over whole targets).
#pragma once

#include <cstdint>
#include <string>

#include "models/registry.h"
#include "sim/frame.h"
#include "sim/stats.h"
#include "sim/surface.h"

namespace tbdr {

// One image written to DRAM by a pass (a stored attachment, or a copy/blit/resolve/compute
// destination), handed to the caller at the end of the pass.
struct StoredImage {
  uint32_t frame = 0;
  uint32_t pass_index = 0;
  std::string pass_name;
  std::string slot;        // "att0", "att1", ... for attachments; "dst" / "out0" otherwise
  int32_t image = -1;
  std::string image_name;
  const Surface* surface = nullptr;
  Rect region;             // the pixels the pass wrote
};

class ImageSink {
 public:
  virtual ~ImageSink() = default;
  virtual void stored(const StoredImage& image) = 0;
};

enum class RenderPath {
  tbdr,  // tiles: the modeled GPU
  imr,   // immediate mode reference: one "tile" covering the render area, no binning
};

// Wall seconds simulate() spent per phase, summed over hardware passes (tbdrsim run --time). Not
// part of the report: timings differ from run to run, the report may not.
struct PhaseTimes {
  double geometry = 0;  // vertex transform, clipping, screen primitives, parameter-buffer accounting
  double binning = 0;   // bin_triangles
  double tiles = 0;     // the tiles: load, rasterize, shade, store, per-tile timing models
  double savers = 0;    // AFBC sizes and transaction-elimination signatures of stored blocks
};

struct SimOptions {
  RenderPath path = RenderPath::tbdr;
  bool overdraw = false;  // keep per-pixel fragment counts per render pass (PassStats::overdraw)
  // Threads for the tiles of a hardware pass; outputs are byte-identical whatever the count.
  uint32_t threads = 1;
  PhaseTimes* phase_times = nullptr;  // when set, simulate() adds its phases' wall times here
};

// Runs every frame of the trace. Throws InputError for inconsistencies the reader could not see
// (e.g. mixed sample counts in a subpass). `sink` may be null.
RunStats simulate(const Trace& trace, const models::ModelSet& models, const SimOptions& options, ImageSink* sink);

}  // namespace tbdr
