// One hardware pass, stage by stage: geometry -> binning -> tiles per render (or one whole-area
// render for the IMR and direct paths), then the ledger and the savers: the functional record that
// costing prices.
#pragma once

#include <cstdint>
#include <vector>

#include "models/registry.h"
#include "sim/framebuffer_cache.h"
#include "sim/pass/costing.h"
#include "sim/pass/plan.h"
#include "sim/pass/tile_buffer.h"
#include "sim/savers.h"
#include "sim/sim_options.h"
#include "sim/stats.h"

namespace tbdr {

// What every pass of a frame runs against.
struct PassContext {
  const models::ModelSet* models = nullptr;
  const SimOptions* options = nullptr;
  ImageStore* store = nullptr;
  SaverState* savers = nullptr;  // carried from pass to pass and frame to frame
  uint32_t frame = 0;
};

// What the hardware passes of one render pass share and change.
struct RenderPassState {
  DriverMemory memory;                       // merge spills and flush stores
  std::vector<AttachmentStats> attachments;  // the report's per-attachment records, savers included
  std::vector<uint16_t>* overdraw = nullptr; // per-pixel rasterized fragments (heatmaps), or null
};

// Runs a planned hardware pass's functional stages; `counters` are the API pass's. `cache`: direct
// rendering's framebuffer cache (plan.direct), else null. Costing prices the record it returns
// (sim/pass/costing.h price_render_pass).
HardwarePassRecord run_hardware_pass(const PassContext& ctx, const PassSetup& setup, const HardwarePassPlan& plan,
                                     RenderPassState& state, PassCounters& counters, FramebufferCache* cache);

}  // namespace tbdr
