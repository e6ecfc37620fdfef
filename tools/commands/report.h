// Report writers: the per-pass text table on stdout and the JSON report (schema v1,
// traces/README.md), both produced from the counter lists of sim/stats.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "sim/frame.h"
#include "sim/stats.h"

namespace tbdr {

struct ReportContext {
  std::string trace_path;
  std::string trace_name;
  std::string preset;
  nlohmann::json config;                 // models::ModelSet::resolved
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // captured_frame_notes: empty but for captured frames
};

nlohmann::json ledger_json(const DramLedger& ledger);
nlohmann::json counters_json(const PassCounters& counters);
nlohmann::json report_json(const ReportContext& context, const RunStats& stats);
std::string report_text(const ReportContext& context, const RunStats& stats);
// One CSV row per draw of every render pass: frame, pass, the draw's place, counters and cycles.
std::string draws_csv(const RunStats& stats);

}  // namespace tbdr
