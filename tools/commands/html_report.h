// The HTML report of a run (`run --html FILE`): one self-contained page (inline CSS, SVG and canvases
// drawn by inline JavaScript), built from the same JSON object `--json` writes and the heatmaps' grids.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/commands/heatmaps.h"

namespace tbdr {

// The page: `report` is report_json()'s object; `heatmaps` (run_heatmaps) are shown in their passes;
// `advice` (advise::advice_json, or null) adds the advisor's findings.
std::string html_report(const nlohmann::json& report, const std::vector<NamedHeatmap>& heatmaps,
                        const nlohmann::json& advice = nullptr);

// A sweep's summary page (report.html beside results.csv): one table row per (trace,
// configuration) `total` row of `rows` (sweep's flattened rows), with the set.* columns that vary, frame
// cycles and milliseconds, DRAM bytes physical and nominal, and the error if it failed.
std::string sweep_html(const std::vector<std::string>& set_columns, const std::vector<nlohmann::ordered_json>& rows);
// Whether sweep_html reads `column` of a row (the set.* columns and its figures): the others may be left out.
bool sweep_html_reads(const std::string& column);

// A byte count as the page prints it: thousands separated by commas ("19,123,456"). Exposed so
// tests can look for a report figure in the rendered page.
std::string html_bytes_text(uint64_t bytes);

}  // namespace tbdr
