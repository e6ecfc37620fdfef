// Measurement tables (CSV) for `tbdrsim validate` and `tbdrsim calibrate`: rows of measured
// figures, named as figure fields or as Arm Mali or Qualcomm Adreno hardware counters.
#include "tools/commands/measurements.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "models/errors.h"
#include "models/input_file.h"
#include "tools/commands/csv.h"

namespace fs = std::filesystem;

namespace tbdr::measurements {

const std::vector<std::pair<std::string, std::string>>& counter_fields() {
  // Arm names and meanings from Arm's libGPUCounters (formerly HWCPipe; its counter reference gives each
  // counter's Streamline title and hardware name) and the Mali counter guide; models/README.md "Calibration".
  static const std::vector<std::pair<std::string, std::string>> counters = {
      {"maliextbusrdby", "read_bytes"},   {"output external read bytes", "read_bytes"},
      {"maliextbuswrby", "write_bytes"},  {"output external write bytes", "write_bytes"},
      {"malifragtile", "tiles"},          {"tiles", "tiles"},
      {"malifragtilekill", "te_blocks_killed"}, {"constant tiles killed", "te_blocks_killed"},
      {"malifragqueueactivecy", "fragment_cycles"}, {"fragment queue active cycles", "fragment_cycles"},
      {"malifragactivecy", "fragment_cycles"},      {"fragment active cycles", "fragment_cycles"},
      {"malinonfragqueueactivecy", "geometry_cycles"}, {"non-fragment queue active cycles", "geometry_cycles"},
      {"malitileractivecy", "geometry_cycles"},        {"tiler active cycles", "geometry_cycles"},
      {"maligpuactivecy", "steady_cycles"},            {"gpu active cycles", "steady_cycles"},
      {"malifragthread", "fragments_shaded"},          {"fragment threads", "fragments_shaded"},
      {"maligeomvisibleprim", "primitives"},           {"visible primitives", "primitives"},
      // Qualcomm Adreno: Snapdragon Profiler's metric names as Android GPU Inspector lists them and Mesa's
      // freedreno Perfetto producer (src/freedreno/ds/fd_pps_driver.cc) derives them; the metrics are per
      // second, compared at the 60 frames/s of the *_per_s fields. Raw countables (Mesa src/freedreno/perfcntrs,
      // as `fdperf` shows them) are per-frame counts like Arm's.
      {"read total (bytes/sec)", "read_bytes_per_s"},   {"write total (bytes/sec)", "write_bytes_per_s"},
      {"fragments shaded / second", "fragments_shaded_per_s"},
      {"perf_sp_pixels", "fragments_shaded"},           {"perf_rbbm_status_masked", "steady_cycles"},
  };
  return counters;
}

std::string field_of(const std::string& name) {
  if (validation::figure_fields().count(name)) return name;
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  for (const auto& [counter, field] : counter_fields())
    if (counter == lower) return field;
  return "";
}

namespace {

// Every row is simulated at every evaluation of every fit (calibrate) or once per run (validate): far
// fewer rows than this already take hours, while the parsed table of a 512 MiB file could take
// gigabytes (models/README.md "Measurement files").
constexpr size_t kMaxMeasurementRows = 100000;

const std::set<std::string> k_columns = {"traces",   "case",          "label",     "figure",   "combine", "measured",
                                         "measured_text", "tolerance", "decimals", "weight", "source",  "settings",
                                         "cause"};

double number(const std::string& text, const std::string& where, const std::string& what) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw InputError(where, "expected " + what + ", got '" + text + "'");
  return v;
}

// "15%" relative; "1.5" or "1.5 pp" absolute (the rest is the unit); "LO..HI (TEXT)" a range.
validation::Tolerance tolerance(const std::string& text, const std::string& where) {
  validation::Tolerance t;
  const std::string grammar = "a tolerance: 15% (relative), 1.5 or 1.5 UNIT (absolute), LO..HI (TEXT) (range)";
  if (text.empty()) return t;  // 10% relative
  if (text.back() == '%') {
    t.amount = number(text.substr(0, text.size() - 1), where, grammar) / 100.0;
  } else if (const size_t dots = text.find(".."); dots != std::string::npos) {
    t.kind = validation::Tolerance::Kind::range;
    const size_t open = text.find(" (");
    t.lo = number(text.substr(0, dots), where, grammar);
    t.hi = number(text.substr(dots + 2, open == std::string::npos ? std::string::npos : open - dots - 2), where, grammar);
    t.text = open == std::string::npos ? text : text.substr(open + 2, text.size() - open - 3);
    if (!(t.lo < t.hi)) throw InputError(where, "a range's LO must lie below its HI, got '" + text + "'");
    return t;
  } else {
    t.kind = validation::Tolerance::Kind::absolute;
    const size_t space = text.find(' ');
    t.amount = number(text.substr(0, space), where, grammar);
    if (space != std::string::npos) t.unit = text.substr(space);
  }
  if (!(t.amount > 0)) throw InputError(where, "a tolerance must be above 0, got '" + text + "'");
  return t;
}

validation::Combine combine(const std::string& text, const std::string& where) {
  using C = validation::Combine;
  static const std::map<std::string, C> names = {
      {"value", C::value}, {"difference", C::difference}, {"ratio", C::ratio}, {"change_pct", C::change_pct}};
  const auto it = names.find(text.empty() ? "value" : text);
  if (it == names.end())
    throw InputError(where, "expected value, difference, ratio or change_pct, got '" + text + "'");
  return it->second;
}

// The cells of one data line by column name, and where each lies (file:line, column NAME).
struct Line {
  std::map<std::string, std::string> cells;
  std::string file_line;
  std::string get(const std::string& column) const {
    const auto it = cells.find(column);
    return it == cells.end() ? "" : it->second;
  }
  std::string where(const std::string& column) const { return file_line + ", column " + column; }
};

std::vector<std::string> trace_paths(const Line& line, const fs::path& dir) {
  std::vector<std::string> paths;
  std::stringstream list(line.get("traces"));
  for (std::string item; std::getline(list, item, ';');) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) paths.push_back((dir / item).lexically_normal().string());
  }
  if (paths.empty() || paths.size() > 2)
    throw InputError(line.where("traces"), "expected one or two trace files separated by ';'");
  return paths;
}

// "KIND=IMPL;KIND.PARAM=VALUE": the row's device configuration over the preset, for both traces, or
// "A | B", one list per trace (checked when simulated, once the preset is known: a parameter's name
// depends on the implementation chosen).
std::vector<std::string> settings_list(const std::string& text, const Line& line) {
  std::vector<std::string> out;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ';');) {
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) continue;
    if (item.find('=') == std::string::npos)
      throw InputError(line.where("settings"), "expected KIND=IMPL or KIND.PARAM=VALUE separated by ';', got '" + item + "'");
    out.push_back(item);
  }
  return out;
}

std::vector<std::vector<std::string>> settings(const Line& line, size_t traces) {
  const std::string text = line.get("settings");
  const size_t bar = text.find('|');
  if (bar == std::string::npos) return std::vector<std::vector<std::string>>(traces, settings_list(text, line));
  if (traces != 2 || text.find('|', bar + 1) != std::string::npos)
    throw InputError(line.where("settings"), "'A | B' gives one list per trace: it needs two traces and one '|'");
  return {settings_list(text.substr(0, bar), line), settings_list(text.substr(bar + 1), line)};
}

// Checks the trace count against the combination and fills the row's label. A count, a byte figure,
// a rate or a ratio of them is never negative; a difference or a change may be.
void finish(validation::Comparison& c, const Line& line, const std::string& column) {
  using validation::Combine;
  if (c.measured < 0 && (c.combine == Combine::value || c.combine == Combine::ratio))
    throw InputError(line.where(column), "a measured " + c.field + (c.combine == Combine::ratio ? " ratio" : "") +
                                             " is never negative, got '" + line.get(column) + "'");
  c.where = line.where(column);
  const bool two = c.combine != validation::Combine::value;
  if (c.traces.size() != (two ? 2u : 1u))
    throw InputError(line.where("traces"), std::string(two ? "a combined figure needs two traces (a;b)"
                                                           : "a value figure needs one trace"));
  if (c.tolerance.kind == validation::Tolerance::Kind::relative && c.measured == 0)
    throw InputError(line.where(column), "a relative tolerance needs a measured value other than 0");
  if (c.case_name.empty()) c.case_name = fs::path(c.traces[0]).stem().string();
  if (c.figure.empty()) c.figure = c.combine == validation::Combine::value ? column : c.field + " " + line.get("combine");
  if (c.measured_text.empty()) c.measured_text = line.get(column);
}

// The measurements of one data line: its `figure` column's, then one per counter or field column.
void add_line(const Line& line, const std::vector<std::string>& header, const fs::path& dir,
              std::vector<validation::Comparison>& out) {
  validation::Comparison base;
  base.traces = trace_paths(line, dir);
  base.case_name = line.get("case");
  base.source = line.get("source");
  base.cause = line.get("cause");
  base.settings = settings(line, base.traces.size());
  base.settings_where = line.where("settings");
  base.tolerance = tolerance(line.get("tolerance"), line.where("tolerance"));
  if (!line.get("weight").empty()) base.weight = number(line.get("weight"), line.where("weight"), "a weight above 0");
  if (!(base.weight > 0)) throw InputError(line.where("weight"), "expected a weight above 0");
  if (!line.get("decimals").empty()) {
    // A double beyond int's range converted to int is undefined behaviour: checked first.
    const double decimals = number(line.get("decimals"), line.where("decimals"), "a number of decimals");
    if (!(decimals >= 0 && decimals <= 17 && decimals == std::trunc(decimals)))
      throw InputError(line.where("decimals"), "expected a whole number of decimals from 0 to 17");
    base.decimals = int(decimals);
  }
  if (!line.get("figure").empty()) {
    validation::Comparison c = base;
    c.field = field_of(line.get("figure"));
    if (c.field.empty()) throw InputError(line.where("figure"), "not a figure field nor a counter: '" + line.get("figure") + "'");
    c.combine = combine(line.get("combine"), line.where("combine"));
    c.measured = number(line.get("measured"), line.where("measured"), "the measured value (a number)");
    c.figure = line.get("label");
    c.measured_text = line.get("measured_text");
    finish(c, line, "measured");
    out.push_back(std::move(c));
  }
  for (const std::string& column : header) {
    if (k_columns.count(column) || line.get(column).empty()) continue;
    validation::Comparison c = base;
    c.field = field_of(column);
    c.measured = number(line.get(column), line.where(column), "a measured value (a number)");
    finish(c, line, column);
    out.push_back(std::move(c));
  }
}

// The header's cells, each a known column, `traces` among them, none twice (a repeated column read
// as the last one's cells, silently).
std::vector<std::string> read_header(std::vector<std::string> cells, const std::string& file_line) {
  std::set<std::string> seen;
  for (const std::string& column : cells) {
    if (!k_columns.count(column) && field_of(column).empty())
      throw InputError(file_line + ", column " + column, "not a measurement column, figure field nor counter name");
    if (!seen.insert(column).second) throw InputError(file_line + ", column " + column, "appears twice in the header");
  }
  if (!seen.count("traces")) throw InputError(file_line, "the header needs a traces column");
  return cells;
}

}  // namespace

std::vector<validation::Comparison> read_measurements(const fs::path& csv) {
  // Bounded, regular files only (tools/doc/cli.md "Output files and input limits"): a FIFO or /dev/zero is refused in one line.
  const std::string text = read_input_file(csv, InputLimits::kTextBytes, csv.string());
  std::vector<std::string> header;
  std::vector<validation::Comparison> out;
  size_t rows = 0;
  csv::read_records(text, csv.string(), [&](csv::Record& record) {  // RFC 4180: quoted cells may span lines
    const std::string file_line = csv.string() + ":" + std::to_string(record.line);
    if (header.empty()) {
      header = read_header(std::move(record.cells), file_line);
      return;
    }
    if (++rows > kMaxMeasurementRows)
      throw InputError(file_line, "more than " + std::to_string(kMaxMeasurementRows) +
                                      " rows (models/README.md \"Measurement files\")");
    const std::vector<std::string>& cells = record.cells;
    if (cells.size() != header.size())
      throw InputError(file_line, "expected " + std::to_string(header.size()) + " cells (one per header column), found " +
                                      std::to_string(cells.size()));
    Line line{{}, file_line};
    for (size_t i = 0; i < cells.size(); ++i) line.cells[header[i]] = cells[i];
    add_line(line, header, csv.parent_path(), out);
  });
  if (out.empty()) throw InputError(csv.string(), "no measurements (a header with traces, then rows)");
  return out;
}

}  // namespace tbdr::measurements
