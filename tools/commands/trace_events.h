// The simulated schedule as a Trace Event Format file (`run --trace-events FILE`), for trace viewers
// (Perfetto UI, chrome://tracing): one track per queue and per shader core, DRAM traffic as a counter.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "models/cores/cores.h"
#include "sim/stats.h"

namespace tbdr {

// The JSON Object Format of the Trace Event Format (Chromium's "Trace Event Format" document):
// {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}. Process 1 is the GPU, named
// `process_label`; its threads (tracks):
//   0 "frames"          one complete ("ph": "X") event per frame
//   1 "geometry queue"  one per hardware pass's geometry phase (vertex shading, primitive setup, binning)
//   2 "fragment queue"  one per hardware pass's fragment phase, transfers and dispatches included
//   100 + k "shader core k"  per hardware pass, core k's busy time over its tiles (the cores model's
//                       tile assignment), from the fragment phase's start
// and the counter ("ph": "C") "DRAM bytes per cycle" with series geometry and fragment: each phase's
// bytes spread evenly over its span. Times ("ts", "dur") are simulated microseconds at the run's
// clock; frames follow one another, each starting where the previous one's cycles end.
nlohmann::json trace_events_json(const RunStats& stats, const models::CoresModel& cores, const std::string& process_label);

}  // namespace tbdr
