// The run's present timeline and sustained power: each frame's simulated time through the
// `display` model (present mode, refresh rate, swapchain images) and its energy through `power`.
#pragma once

#include "models/registry.h"
#include "sim/frame.h"
#include "sim/stats.h"

namespace tbdr {

// Fills run.present and run.power from the frames' cycles, clock and energy (after scheduling).
void time_presents(const models::ModelSet& models, const Trace& trace, RunStats& run);

}  // namespace tbdr
