// The frame-level costing stage: the scheduler places each hardware pass's geometry and fragment
// cycles on two queues; passes, the frame and its steady period take their times from it.
#pragma once

#include "models/registry.h"
#include "sim/frame.h"
#include "sim/stats.h"

namespace tbdr {

// Fills every pass's schedule, cycles and energy, and the frame's cycles, steady period, clock
// and energy, from the passes' cycles and bytes (transfers: their DRAM time on the fragment queue).
void schedule_frame(const models::ModelSet& models, const Frame& f, FrameStats& frame);

}  // namespace tbdr
