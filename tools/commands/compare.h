// Two JSON reports side by side (`tbdrsim compare A.json B.json`, `tbdrsim run --vs PRESET`): per frame
// and per pass, A's figure, B's and B - A, as JSON, text and an HTML page.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace tbdr {

// The comparison of two reports (report_json's objects; `a_label`, `b_label` name them):
// {"format": "tbdrsim-comparison", "version": 1, "a": {...}, "b": {...}, "frames": [...]}. Each figure is
// {"a", "b", "delta": b - a}; frames pair by index, passes by index within a frame (with both names
// when they differ); a frame or pass only one report has is listed with the other side null.
nlohmann::json compare_reports(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_label,
                               const std::string& b_label);

// A comparison as text: the frames' figures, DRAM by category, then one line per pass.
std::string comparison_text(const nlohmann::json& comparison);

// A comparison as one self-contained HTML page (the run report's style and sortable tables).
std::string comparison_html(const nlohmann::json& comparison);

// `tbdrsim compare A.json B.json`: the text on stdout (unless `quiet` or `json` is "-"), the
// comparison JSON to `json` ("-": stdout) and the page to `html`. Outputs are checked before reading.
struct CompareOptions {
  std::string a, b, json, html;
  bool quiet = false;
};
int compare_command(const CompareOptions& options);

// Writes the comparison of `a` and `b` as `options` asks (the files staged and committed together).
void write_comparison(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& options);

// A JSON report read from `path`: exit-2 errors name the file and the field that is wrong.
nlohmann::json read_report_file(const std::filesystem::path& path);

}  // namespace tbdr
