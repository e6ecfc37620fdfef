// Executes a Trace frame by frame on the modeled GPU: the TBDR path (geometry, binning, per-tile
// load / raster / resolve / store) or the IMR reference path (draws in order over whole targets).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/frame.h"
#include "sim/pass/costing.h"
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

// The functional result of simulating a trace under one configuration: every pass's figures as
// the functional stages left them (before costing) and the records costing prices (tools/doc/design.md "The
// pipeline: the stages a frame flows through": costing, schedule). Costing, the schedule and energy read nothing else.
struct FunctionalRecord {
  struct Pass {
    PassStats functional;                             // no hardware passes, cycles, schedule or energy yet
    std::vector<HardwarePassRecord> hardware_passes;  // render passes: one per hardware pass
  };
  std::vector<std::vector<Pass>> frames;
  nlohmann::json functional_configuration;  // models::functional_part of the configuration simulated
  // Bytes the record holds (its structs and vectors by capacity; strings not counted).
  uint64_t memory_bytes() const;
};

// Runs every frame of the trace. Throws InputError for inconsistencies the reader could not see
// (e.g. mixed sample counts in a subpass). `sink` may be null. With `record`, also keeps the
// functional result there (the report is the same).
RunStats simulate(const Trace& trace, const models::ModelSet& models, const SimOptions& options, ImageSink* sink,
                  FunctionalRecord* record = nullptr);

// Simulate once, cost many: prices `record` (of `trace`) under `models`, whose functional part
// (models::functional_part) must equal the record's (else std::invalid_argument). The figures are
// those simulate() gives under `models`, byte for byte in every report; no image is produced.
RunStats cost_recorded(const Trace& trace, const FunctionalRecord& record, const models::ModelSet& models);

}  // namespace tbdr
