// An API render pass: set-up, the merge and direct-rendering decisions, then each hardware pass
// (sim/pass/hardware_pass.h), folded into the pass's report figures.
#pragma once

#include <string>
#include <vector>

#include "sim/pass/hardware_pass.h"
#include "sim/pass/setup.h"

namespace tbdr {

// Runs the functional stages of the render pass `pass` into `stats` and one record per hardware
// pass into `records`, for costing (sim/pass/costing.h price_render_pass); returns its set-up (the
// attachments and render area the caller reports stored images of).
PassSetup run_render_pass(const PassContext& ctx, const Trace& trace, const Pass& pass, const std::string& where,
                          PassStats& stats, std::vector<HardwarePassRecord>& records);

}  // namespace tbdr
