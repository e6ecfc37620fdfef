// The self-contained HTML report: the report JSON and the heatmaps' grids embedded in the page,
// drawn by the page's script (html_report_script.cpp) into tables, SVG and canvases.
#include "tools/lib/html_report.h"

#include <algorithm>
#include <set>

#include "tools/lib/html_page.h"

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

// A sweep cell: whole numbers grouped, other numbers as JSON writes them, strings escaped.
std::string sweep_cell(const nlohmann::ordered_json& row, const std::string& column) {
  const auto it = row.find(column);
  if (it == row.end() || it->is_null()) return "";
  if (it->is_string()) return html::escape(it->get<std::string>());
  if (it->is_number_unsigned()) return grouped_digits(it->get<uint64_t>());
  return html::escape(it->dump());
}

uint64_t column_sum(const nlohmann::ordered_json& row, const char* a, const char* b) {
  const auto get = [&](const char* key) { return row.contains(key) && row[key].is_number_unsigned() ? row[key].get<uint64_t>() : 0; };
  return get(a) + get(b);
}

// The set.* columns whose value differs between configurations (the rest is the same everywhere).
std::vector<std::string> varied_columns(const std::vector<std::string>& set_columns,
                                        const std::vector<nlohmann::ordered_json>& rows) {
  std::vector<std::string> varied;
  for (const std::string& c : set_columns) {
    std::set<std::string> values;
    for (const nlohmann::ordered_json& row : rows)
      if (row.value("row", std::string()) == "total") values.insert(sweep_cell(row, c));
    if (values.size() > 1) varied.push_back(c);
  }
  return varied;
}

}  // namespace

std::string sweep_html(const std::vector<std::string>& all_set_columns, const std::vector<nlohmann::ordered_json>& rows) {
  const std::vector<std::string> set_columns = varied_columns(all_set_columns, rows);
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tbdrsim sweep</title>\n<style>";
  page += std::string(html::kPageStyle) + "</style>\n</head>\n<body>\n<h1>tbdrsim sweep</h1>\n<table>\n<tr><th>trace</th><th>configuration</th>";
  for (const std::string& c : set_columns) page += "<th>" + html::escape(c) + "</th>";
  page += "<th>frame cycles</th><th>frame ms</th><th>DRAM bytes (physical)</th><th>DRAM bytes (nominal)</th><th>error</th></tr>\n";
  for (const nlohmann::ordered_json& row : rows) {
    if (row.value("row", std::string()) != "total") continue;
    page += "<tr><td>" + sweep_cell(row, "trace") + "</td><td class=\"n\">" + sweep_cell(row, "config_index") + "</td>";
    for (const std::string& c : set_columns) page += "<td>" + sweep_cell(row, c) + "</td>";
    page += "<td class=\"n\">" + sweep_cell(row, "frame_cycles") + "</td><td class=\"n\">" + sweep_cell(row, "frame_ms") + "</td>";
    const bool failed = !sweep_cell(row, "error").empty();
    for (const char* ledger : {"dram", "dram_nominal"}) {
      const std::string key = ledger;
      const uint64_t bytes = column_sum(row, (key + ".read_bytes").c_str(), (key + ".write_bytes").c_str());
      page += "<td class=\"n\">" + (failed ? std::string() : grouped_digits(bytes)) + "</td>";
    }
    page += "<td>" + sweep_cell(row, "error") + "</td></tr>\n";
  }
  return page + "</table>\n</body>\n</html>\n";
}

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
