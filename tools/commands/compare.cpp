// The comparison of two JSON reports: figures paired by frame and pass, B - A, as JSON and text; the
// HTML page draws the same JSON with the report page's helpers.
#include "tools/commands/compare.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <vector>

#include "models/errors.h"
#include "models/input_file.h"
#include "models/json_duplicates.h"
#include "sim/stats.h"
#include "tools/commands/heatmaps.h"
#include "tools/commands/html_page.h"
#include "tools/commands/output.h"

namespace tbdr {
namespace {

nlohmann::json delta(double a, double b) { return {{"a", a}, {"b", b}, {"delta", b - a}}; }
double ledger_total(const nlohmann::json& ledger) { return ledger["read_bytes"].get<double>() + ledger["write_bytes"].get<double>(); }

// Physical bytes by DRAM category, the categories either side moved.
nlohmann::json categories(const nlohmann::json& a, const nlohmann::json& b) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t c = 0; c < kDramCategoryCount; ++c) {
    const std::string name = dram_category_name(DramCategory(c));
    const double x = ledger_total(a["by_category"][name]), y = ledger_total(b["by_category"][name]);
    if (x || y) out[name] = delta(x, y);
  }
  return out;
}

std::string tile_text(const nlohmann::json& pass) {
  const uint64_t w = pass["tile_size"][0], h = pass["tile_size"][1];
  return w ? std::to_string(w) + "x" + std::to_string(h) : "-";
}
nlohmann::json merge_text(const nlohmann::json& pass) {
  if (!pass.contains("merge")) return nullptr;
  const nlohmann::json& m = pass["merge"];
  const uint64_t n = m["hardware_passes"];
  return std::string(m["merged"].get<bool>() ? "merged" : "not merged") + " into " + std::to_string(n) + " hardware pass" + (n == 1 ? "" : "es");
}

// The savers' bytes over a pass's attachments (models/README.md "Bandwidth savers: what they share"): stores raw and after AFBC, TE and
// empty-tile savings.
nlohmann::json savers(const nlohmann::json& a, const nlohmann::json& b) {
  nlohmann::json out = nlohmann::json::object();
  for (const char* key : {"store_raw_bytes", "store_bytes", "te_bytes_saved", "empty_tile_bytes_saved", "load_bytes"}) {
    double x = 0, y = 0;
    for (const nlohmann::json& att : a.value("attachments", nlohmann::json::array())) x += att[key].get<double>();
    for (const nlohmann::json& att : b.value("attachments", nlohmann::json::array())) y += att[key].get<double>();
    out[key] = delta(x, y);
  }
  return out;
}

nlohmann::json pass_delta(size_t index, const nlohmann::json* a, const nlohmann::json* b) {
  nlohmann::json p = {{"index", index}, {"name", (a ? *a : *b)["name"]}, {"type", (a ? *a : *b)["type"]}};
  if (!a || !b) {
    p["only_in"] = a ? "a" : "b";
    return p;
  }
  if ((*a)["name"] != (*b)["name"]) p["name_b"] = (*b)["name"];
  for (const char* phase : {"geometry", "fragment", "total"})
    p["cycles"][phase] = delta((*a)["cycles"][phase], (*b)["cycles"][phase]);
  p["dram"] = delta(ledger_total((*a)["dram"]), ledger_total((*b)["dram"]));
  p["dram_nominal"] = delta(ledger_total((*a)["dram_nominal"]), ledger_total((*b)["dram_nominal"]));
  p["by_category"] = categories((*a)["dram"], (*b)["dram"]);
  p["energy_joules"] = delta((*a)["energy"]["total_joules"], (*b)["energy"]["total_joules"]);
  p["tile_size"] = {{"a", tile_text(*a)}, {"b", tile_text(*b)}};
  p["merge"] = {{"a", merge_text(*a)}, {"b", merge_text(*b)}};
  p["savers"] = savers(*a, *b);
  return p;
}

nlohmann::json frame_delta(size_t index, const nlohmann::json& a, const nlohmann::json& b) {
  nlohmann::json f = {{"index", index}};
  f["frame_cycles"] = delta(a["frame_cycles"], b["frame_cycles"]);
  f["frame_ms"] = delta(a["frame_ms"], b["frame_ms"]);
  f["dram"] = delta(ledger_total(a["totals"]["dram"]), ledger_total(b["totals"]["dram"]));
  f["dram_nominal"] = delta(ledger_total(a["totals"]["dram_nominal"]), ledger_total(b["totals"]["dram_nominal"]));
  f["energy_joules"] = delta(a["totals"]["energy"]["total_joules"], b["totals"]["energy"]["total_joules"]);
  f["by_category"] = categories(a["totals"]["dram"], b["totals"]["dram"]);
  nlohmann::json passes = nlohmann::json::array();
  const size_t count = std::max(a["passes"].size(), b["passes"].size());
  for (size_t p = 0; p < count; ++p)
    passes.push_back(pass_delta(p, p < a["passes"].size() ? &a["passes"][p] : nullptr,
                                p < b["passes"].size() ? &b["passes"][p] : nullptr));
  f["passes"] = std::move(passes);
  return f;
}

// Text figures: whole numbers grouped, signed deltas, the change in percent of A.
std::string grouped_signed(double v) {
  const std::string digits = grouped_digits(uint64_t(std::llround(std::fabs(v))));
  return (std::llround(v) < 0 ? "-" : std::llround(v) > 0 ? "+" : "") + digits;
}
std::string change(const nlohmann::json& d, const char* unit = "") {
  const double a = d["a"], b = d["b"];
  char pct[32] = "";
  if (a != 0) std::snprintf(pct, sizeof pct, " (%+.1f %%)", 100.0 * (b - a) / a);
  return grouped_digits(uint64_t(std::llround(a))) + unit + " -> " + grouped_digits(uint64_t(std::llround(b))) + unit + ", " +
         grouped_signed(b - a) + pct;
}
std::string padded(std::string s, size_t width) { return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' '); }

void frame_text(std::ostringstream& out, const nlohmann::json& f) {
  char ms[96];
  std::snprintf(ms, sizeof ms, "%.3f ms -> %.3f ms", f["frame_ms"]["a"].get<double>(), f["frame_ms"]["b"].get<double>());
  out << "\nframe " << f["index"] << ": " << ms << "\n  cycles " << change(f["frame_cycles"]) << "\n  DRAM physical "
      << change(f["dram"], " B") << "\n  DRAM nominal " << change(f["dram_nominal"], " B") << "\n";
  char energy[96];
  std::snprintf(energy, sizeof energy, "  energy %.3f mJ -> %.3f mJ\n", f["energy_joules"]["a"].get<double>() * 1e3,
                f["energy_joules"]["b"].get<double>() * 1e3);
  out << energy << "  DRAM by category (physical):\n";
  for (const auto& [name, d] : f["by_category"].items()) out << "    " << padded(name, 20) << change(d, " B") << "\n";
  out << "  " << padded("pass", 28) << padded("cycles (longer queue) A -> B", 44) << padded("DRAM physical A -> B", 52)
      << padded("tile", 16) << "merge\n";
  for (const nlohmann::json& p : f["passes"]) {
    std::string name = std::to_string(p["index"].get<int>()) + " " + p["name"].get<std::string>();
    if (p.contains("only_in")) {
      out << "  " << padded(name, 28) << "only in " << p["only_in"].get<std::string>() << "\n";
      continue;
    }
    const nlohmann::json& c = p["cycles"];
    const auto longer = [&](const char* side) { return std::max(c["geometry"][side].get<double>(), c["fragment"][side].get<double>()); };
    const std::string merge = p["merge"]["a"].is_null() ? "-" : p["merge"]["a"] == p["merge"]["b"] ? p["merge"]["a"].get<std::string>()
                              : p["merge"]["a"].get<std::string>() + " -> " + p["merge"]["b"].get<std::string>();
    out << "  " << padded(name, 28) << padded(change(delta(longer("a"), longer("b"))), 44) << padded(change(p["dram"], " B"), 52)
        << padded(p["tile_size"]["a"].get<std::string>() + " -> " + p["tile_size"]["b"].get<std::string>(), 16) << merge << "\n";
  }
}

void require(bool ok, const std::filesystem::path& path, const std::string& field, const std::string& what) {
  if (!ok) throw InputError(path.string() + ": " + field, what);
}

}  // namespace

nlohmann::json compare_reports(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_label,
                               const std::string& b_label) {
  nlohmann::json out = {{"format", "tbdrsim-comparison"}, {"version", 1}};
  out["a"] = {{"label", a_label}, {"trace", a["trace"]}, {"preset", a["preset"]}};
  out["b"] = {{"label", b_label}, {"trace", b["trace"]}, {"preset", b["preset"]}};
  nlohmann::json frames = nlohmann::json::array();
  for (size_t f = 0; f < std::min(a["frames"].size(), b["frames"].size()); ++f)
    frames.push_back(frame_delta(f, a["frames"][f], b["frames"][f]));
  out["frames"] = std::move(frames);
  out["frame_counts"] = {{"a", a["frames"].size()}, {"b", b["frames"].size()}};
  return out;
}

std::string comparison_text(const nlohmann::json& c) {
  std::ostringstream out;
  out << "A: " << c["a"]["label"].get<std::string>() << " (" << c["a"]["trace"].get<std::string>() << ", preset "
      << c["a"]["preset"].get<std::string>() << ")\nB: " << c["b"]["label"].get<std::string>() << " ("
      << c["b"]["trace"].get<std::string>() << ", preset " << c["b"]["preset"].get<std::string>()
      << ")\nfigures: A -> B, then B - A (its percent of A); B: bytes\n";
  if (c["frame_counts"]["a"] != c["frame_counts"]["b"])
    out << "frames: A has " << c["frame_counts"]["a"] << ", B has " << c["frame_counts"]["b"] << "; the first ones compared\n";
  for (const nlohmann::json& f : c["frames"]) frame_text(out, f);
  return out.str();
}

// Every field the comparison reads, checked before any is read (a missing one is an exit-2 error naming it).
static void require_fields(const nlohmann::json& report, const std::filesystem::path& path, const std::string& at,
                    const std::vector<std::string>& numbers) {
  for (const std::string& field : numbers) {
    const nlohmann::json::json_pointer pointer(at + "/" + field);
    require(report.contains(pointer) && report.at(pointer).is_number(), path, (at + "/" + field).substr(1), "expected a number");
  }
}

static std::vector<std::string> ledger_fields(const std::string& ledger) {
  std::vector<std::string> fields = {ledger + "/read_bytes", ledger + "/write_bytes"};
  for (size_t c = 0; c < kDramCategoryCount; ++c)
    for (const char* side : {"/read_bytes", "/write_bytes"})
      fields.push_back(ledger + "/by_category/" + dram_category_name(DramCategory(c)) + side);
  return fields;
}

static void require_pass(const nlohmann::json& report, const std::filesystem::path& path, const std::string& at) {
  const nlohmann::json& pass = report.at(nlohmann::json::json_pointer(at));
  require(pass.is_object() && pass.value("name", nlohmann::json()).is_string() && pass.value("type", nlohmann::json()).is_string(),
          path, at.substr(1), "expected a pass with a name and a type");
  std::vector<std::string> fields = ledger_fields("dram");
  for (const char* f : {"dram_nominal/read_bytes", "dram_nominal/write_bytes", "cycles/geometry", "cycles/fragment",
                               "cycles/total", "energy/total_joules", "tile_size/0", "tile_size/1"})
    fields.push_back(f);
  if (pass.contains("merge")) fields.push_back("merge/hardware_passes");
  const size_t attachments = pass.value("attachments", nlohmann::json::array()).size();
  for (size_t i = 0; i < attachments; ++i)
    for (const char* key : {"store_raw_bytes", "store_bytes", "te_bytes_saved", "empty_tile_bytes_saved", "load_bytes"})
      fields.push_back("attachments/" + std::to_string(i) + "/" + key);
  require_fields(report, path, at, fields);
  if (pass.contains("merge")) require(pass["merge"].value("merged", nlohmann::json()).is_boolean(), path, at.substr(1) + "/merge/merged", "expected true or false");
}

nlohmann::json read_report_file(const std::filesystem::path& path) {
  // Read as every input is (tools/doc/cli.md "Limits of input files"): a regular file of bounded size
  // (a FIFO hung, a folder was an I/O error), remembered so no output of this command replaces it
  // (--html A.json overwrote the report it compared), its nesting bounded and its keys unrepeated.
  const std::string text = read_input_file(path, InputLimits::kTextBytes);
  DuplicateKeyChecker<nlohmann::json> checker(path.string());
  nlohmann::json report;
  try {
    report = parse_checking_duplicates(text, checker);
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    throw InputError(path.string() + ": (file)", "expected a JSON report (tbdrsim run --json): " +
                                                     without_json_exception_tags(e.what()));
  }
  require(report.is_object() && report.value("format", "") == "tbdrsim-report", path, "format", "expected \"tbdrsim-report\"");
  for (const char* key : {"trace", "preset"}) require(report.value(key, nlohmann::json()).is_string(), path, key, "expected a string");
  require(report.contains("frames") && report["frames"].is_array(), path, "frames", "expected an array");
  for (size_t f = 0; f < report["frames"].size(); ++f) {
    const std::string at = "/frames/" + std::to_string(f);
    require(report["frames"][f].is_object(), path, at.substr(1), "expected an object");
    std::vector<std::string> fields = {"frame_cycles", "frame_ms", "totals/dram_nominal/read_bytes", "totals/dram_nominal/write_bytes",
                                       "totals/energy/total_joules"};
    for (const std::string& field : ledger_fields("totals/dram")) fields.push_back(field);
    require_fields(report, path, at, fields);
    require(report["frames"][f].value("passes", nlohmann::json()).is_array(), path, at.substr(1) + "/passes", "expected an array");
    for (size_t p = 0; p < report["frames"][f]["passes"].size(); ++p) require_pass(report, path, at + "/passes/" + std::to_string(p));
  }
  return report;
}

void write_comparison(const nlohmann::json& a, const nlohmann::json& b, const CompareOptions& options) {
  const nlohmann::json comparison = compare_reports(a, b, options.a, options.b);
  OutputFolder output(".", false);
  if (!options.json.empty() && options.json != "-") output.add_file(options.json, comparison.dump(2) + "\n");
  if (!options.html.empty()) output.add_file(options.html, comparison_html(comparison));
  output.commit();
  if (options.json == "-") std::cout << comparison.dump(2) << "\n";
  else if (!options.quiet) std::cout << comparison_text(comparison);
}

int compare_command(const CompareOptions& options) {
  std::vector<NamedOutput> files;
  for (const auto& [option, path] : {std::pair{"--json", options.json}, {"--html", options.html}})
    if (!path.empty() && (path != "-" || option == std::string("--html"))) {  // only --json - is stdout
      check_output_path(path, false, option);
      files.push_back({option, path});
    }
  check_distinct_outputs(files, NamedOutput{});
  const nlohmann::json a = read_report_file(options.a), b = read_report_file(options.b);
  write_comparison(a, b, options);
  return 0;
}

}  // namespace tbdr
