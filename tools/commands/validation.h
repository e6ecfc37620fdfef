// `tbdrsim validate`: simulates traces/validation under the mali-g76 preset (plus each row's device
// settings) and compares each figure with published measurements (models/README.md "Validation against published measurements").
// The figures (a report field of one trace, or two traces combined) are shared with `tbdrsim calibrate`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/memory_estimate.h"

namespace tbdr {
class StepProgress;
}

namespace tbdr::validation {

// One comparison: the measured figure, the simulated one and whether it lies within the tolerance
// fixed in advance in traces/validation/measurements.csv. `cause` is set for a row known to lie outside: why (models/README.md).
struct Row {
  std::string source;     // the published document the measurement comes from (the table groups rows by it)
  std::string case_name;  // the sample: render_passes, subpasses, msaa, afbc, layout_transitions, pipeline_barriers
  std::string figure;     // what is compared, with its unit
  std::string measured;   // as published
  double measured_value = 0;
  double simulated_value = 0;
  std::string ratio;  // simulated / measured, or the difference for absolute tolerances
  std::string tolerance;
  bool within = false;
  std::string cause;  // why the row misses (empty: unexplained)
  int decimals = 1;   // for printing the simulated figure
};

// What a figure needs from one trace's last frame (a steady frame: the validation traces repeat
// frame 0 with a static camera).
struct FrameFigures {
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t tiles = 0;  // over every hardware pass of the frame
  uint64_t te_blocks_killed = 0;
  uint64_t fragments = 0, fragments_shaded = 0, primitives = 0;
  double steady_cycles = 0;  // the frame's period when repeated (FrameStats::steady_frame_cycles)
  double frame_cycles = 0;
  double geometry_cycles = 0, fragment_cycles = 0;  // the passes' stage cycles, summed
  uint64_t footprint_bytes = 0;  // the trace's images' memory under the compression model (each image once)
};

// How a figure combines its traces' field values a (first trace) and b (second trace).
enum class Combine { value, difference, ratio, change_pct };

// A tolerance as traces/validation/measurements.csv fixes them: |sim / measured - 1| <= amount (relative), |sim - measured|
// <= amount (absolute, in `unit`), or lo <= sim <= hi (range).
struct Tolerance {
  enum class Kind { relative, absolute, range } kind = Kind::relative;
  double amount = 0.1, lo = 0, hi = 0;
  std::string unit, text;  // text: the range as printed ("1.5x to 3x")
};

// One measured figure: a report field of one or two traces, combined (`tbdrsim calibrate`'s
// measurement rows and validate's table are both lists of these).
struct Comparison {
  std::string case_name, figure;  // the row's label: case and figure with its unit
  std::string measured_text;
  double measured = 0;
  std::vector<std::string> traces;  // one (value) or two (a then b) trace files
  std::string field;                // a name of figure_fields()
  Combine combine = Combine::value;
  Tolerance tolerance;
  double weight = 1;  // in calibrate's objective
  int decimals = 1;
  std::string where;  // FILE:LINE, column NAME of a measurement file's row (empty: none)
  std::string source;  // the published document (document, figure, device), for grouping
  // The device's configuration per trace (in `traces` order): KIND=IMPL or KIND.PARAM=VALUE applied, in
  // order, on top of the preset (a row measured on another GPU, or comparing compression settings).
  std::vector<std::vector<std::string>> settings;
  std::string settings_where;  // FILE:LINE, column settings (for a setting the preset refuses)
  const std::vector<std::string>& settings_of(size_t trace) const {
    static const std::vector<std::string> none;
    return trace < settings.size() ? settings[trace] : none;
  }
  std::string cause;  // why the row is known to lie outside its tolerance (printed only when it does)
};

// The key of a trace simulated under a row's settings ("PATH" alone when there are none).
std::string figure_key(const std::string& path, const std::vector<std::string>& settings);
// The preset's configuration with a row's settings applied; throws InputError naming `where` for a bad one.
models::ModelSet models_with_settings(models::Configuration config, const std::vector<std::string>& settings,
                                      const std::string& where);

// The fields a figure can name, each with its meaning and unit: report fields of the last frame
// (models/README.md "Calibration" lists them).
const std::map<std::string, std::string>& figure_fields();
// The field's value; throws std::logic_error for a name not in figure_fields().
double field_value(const FrameFigures& f, const std::string& field);
// The figure of a comparison from its traces' figures (in `traces` order).
double combined_value(const Comparison& c, const std::vector<FrameFigures>& figures);
// (simulated - measured) over the tolerance's half-width: |error| <= 1 is within the tolerance
// (for a range, measured is taken at its middle).
double tolerance_error(const Comparison& c, double simulated);

// Simulates a trace under `models` and keeps its last frame's figures. A configuration whose memory
// estimate exceeds `max_memory` is refused first, naming `where` (tools/doc/cli.md "Memory budget"): a fitted
// or hand-written preset can size caches past any machine, as `run`'s can.
FrameFigures simulate_figures(const Trace& trace, const models::ModelSet& models, unsigned threads,
                              uint64_t max_memory = kDefaultMemoryBudget, const std::string& where = "trace");

// Each comparison's simulated figure under `config` plus the row's settings; every trace is read once
// (all before the first simulation, so a missing one is reported at once) and simulated once per settings.
std::vector<double> simulate_comparisons(const std::vector<Comparison>& comparisons, const models::Configuration& config,
                                         unsigned threads, uint64_t max_memory = kDefaultMemoryBudget);
// The same with the traces already read (keyed by the names in Comparison::traces). `progress`, when
// given, hears of each trace simulated.
std::vector<double> simulate_comparisons(const std::vector<Comparison>& comparisons,
                                         const std::map<std::string, Trace>& traces, const models::Configuration& config,
                                         unsigned threads, uint64_t max_memory = kDefaultMemoryBudget,
                                         StepProgress* progress = nullptr);
// Reads every trace the comparisons name.
std::map<std::string, Trace> read_comparison_traces(const std::vector<Comparison>& comparisons);

// The table of Vulkan-Samples measurements (`table`: traces/validation/measurements.csv), its
// traces' file names resolved in `dir`.
std::vector<Comparison> vulkan_samples_comparisons(const std::filesystem::path& table, const std::filesystem::path& dir);
// A comparison and its simulated figure as a table row (verdict, known cause).
Row make_row(const Comparison& c, double simulated);

// Runs every comparison of `table` on the traces in `dir` (one simulation each, `threads` per hardware pass) under
// `preset` (a name or a preset JSON file; the published figures are mali-g76's).
// `progress`: a line per trace on stderr (tools/commands/progress.h).
// `warnings` (optional): each trace's own warnings (traces/README.md "warnings"), as "FILE: WARNING".
std::vector<Row> run_validation(const std::filesystem::path& table, const std::filesystem::path& dir, unsigned threads,
                                const std::string& preset = "mali-g76", uint64_t max_memory = kDefaultMemoryBudget,
                                bool progress = false, std::vector<std::string>* warnings = nullptr);
// `validate --json`'s table: {"rows": [{case, figure, measured (as published), measured_value,
// simulated_value (null when not finite), ratio and tolerance (as the table prints them), within, cause
// (null: none known)}], "within", "total", "outside_without_cause", "summary" (summary_line)}.
nlohmann::ordered_json table_json(const std::vector<Row>& rows);
// "9 of 12 within their tolerance (3 outside: each with a known cause), from 2 sources": the line
// validate ends with.
std::string summary_line(const std::vector<Row>& rows);
// validate's exit status: 1 when a row lies outside its tolerance without a known cause, or with
// `strict` outside it at all; else 0.
int exit_status(const std::vector<Row>& rows, bool strict);

// The table as Markdown, grouped by source (in order of first appearance): per source a line
// "Source: TEXT (N rows, M within)" and its table of case, figure, measured, simulated, ratio, tolerance,
// verdict. A row outside its tolerance reads `outside: CAUSE`, or `OUTSIDE, no cause` when none is known.
std::string table_markdown(const std::vector<Row>& rows);
// The two presets' tables side by side: case, figure, measured, then simulated, ratio and verdict
// under each (`tbdrsim validate --calibrated`); rows in the same order.
std::string side_by_side_markdown(const std::vector<Row>& uncalibrated, const std::vector<Row>& calibrated,
                                  const std::string& calibrated_name);

// Throws InputError unless `readme` can be read and holds both validation markers: checked before
// the simulations, so a wrong --write-readme costs no work.
void check_readme_section(const std::filesystem::path& readme);
// Replaces the text between the validation markers of `readme` (models/README.md) with `text`.
void replace_readme_section(const std::filesystem::path& readme, const std::string& text);

extern const char* const k_begin_marker;
extern const char* const k_end_marker;

}  // namespace tbdr::validation
