// The self-contained HTML report: the report JSON and the heatmaps' grids embedded in the page,
// drawn by the page's script (html_report_script.cpp) into tables, SVG and canvases.
#include "tools/commands/html_report.h"

#include <algorithm>

#include "tools/commands/html_page.h"

namespace tbdr {
namespace {

// A grid as runs: value, count, value, count... in row-major order. Per-tile maps repeat values
// over whole rows (untouched tiles, full-screen passes), so runs keep the 23-pass frame's page
// small while every cell keeps its exact value for the hover read-out.
nlohmann::json value_runs(const std::vector<double>& values) {
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < values.size();) {
    size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    runs.push_back(values[i]);
    runs.push_back(j - i);
    i = j;
  }
  return runs;
}

nlohmann::json heatmaps_json(const std::vector<NamedHeatmap>& heatmaps) {
  nlohmann::json list = nlohmann::json::array();
  for (const NamedHeatmap& m : heatmaps) {
    const std::vector<double>& v = m.grid.values;
    list.push_back({{"stem", m.stem},
                    {"frame", m.frame},
                    {"pass", m.pass},
                    {"title", m.grid.title},
                    {"unit", m.grid.unit},
                    {"cell", m.grid.cell},
                    {"width", m.grid.width},
                    {"height", m.grid.height},
                    {"min", v.empty() ? 0.0 : *std::min_element(v.begin(), v.end())},
                    {"max", v.empty() ? 0.0 : *std::max_element(v.begin(), v.end())},
                    {"runs", value_runs(v)}});
  }
  return list;
}

// The orders and meanings of sim/stats.h's lists (the report's JSON objects sort their keys).
nlohmann::json page_schema() {
  nlohmann::json breakdown = nlohmann::json::array();
#define TBDR_ITEM(name, description) breakdown.push_back(std::vector<nlohmann::json>{#name, description});
  TBDR_CYCLE_BREAKDOWN(TBDR_ITEM)
#undef TBDR_ITEM
  nlohmann::json categories = nlohmann::json::array();
  for (size_t c = 0; c < kDramCategoryCount; ++c) categories.push_back(dram_category_name(DramCategory(c)));
  // The heatmaps' colour ramp: the same viridis the PNG heatmaps use, 256 steps.
  nlohmann::json ramp = nlohmann::json::array();
  for (int i = 0; i < 256; ++i) ramp.push_back(viridis(i / 255.0));
  return {{"cycle_breakdown", breakdown}, {"dram_categories", categories}, {"viridis", ramp}};
}

}  // namespace

std::string html_bytes_text(uint64_t bytes) { return grouped_digits(bytes) + " B"; }

std::string html_report(const nlohmann::json& report, const std::vector<NamedHeatmap>& heatmaps,
                        const nlohmann::json& advice) {
  return html::page("tbdrsim report: " + report.value("trace", std::string()),
                    {{"report-json", report},
                     {"heatmaps-json", heatmaps_json(heatmaps)},
                     {"schema-json", page_schema()},
                     {"advice-json", advice}},
                    std::string(html::kReportScript) + html::kReportPassesScript + "render();\n");
}

}  // namespace tbdr
