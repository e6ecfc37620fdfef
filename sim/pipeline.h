// Executes a Trace frame by frame on the modeled GPU: the TBDR path (geometry, binning, per-tile
// load / raster / resolve / store) or the IMR reference path (draws in order over whole targets).
#pragma once

#include <cstdint>
#include <string>

#include "models/registry.h"
#include "sim/frame.h"
#include "sim/sim_options.h"
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

// Runs every frame of the trace. Throws InputError for inconsistencies the reader could not see
// (e.g. mixed sample counts in a subpass). `sink` may be null.
RunStats simulate(const Trace& trace, const models::ModelSet& models, const SimOptions& options, ImageSink* sink);

}  // namespace tbdr
