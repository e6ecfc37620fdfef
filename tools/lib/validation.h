// `tbdrsim validate` (issue 11): simulates traces/validation under the mali-g76 preset and compares
// each figure with the Khronos Vulkan-Samples measurements (models/README.md "Sources: preset numbers").
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tbdr::validation {

// One comparison: the measured figure, the simulated one and whether it lies within the tolerance
// fixed by issue 11. `cause` is set for a row known to lie outside: why (models/README.md).
struct Row {
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

// Runs every validation trace in `dir` (one simulation each, `threads` per hardware pass).
std::vector<Row> run_validation(const std::filesystem::path& dir, unsigned threads);

// The table as Markdown: case, figure, measured, simulated, ratio, tolerance, verdict. A row
// outside its tolerance reads `outside: CAUSE`, or `OUTSIDE, no cause` when none is known.
std::string table_markdown(const std::vector<Row>& rows);

// Throws InputError unless `readme` can be read and holds both validation markers: checked before
// the simulations, so a wrong --write-readme costs no work.
void check_readme_section(const std::filesystem::path& readme);
// Replaces the text between the validation markers of `readme` (models/README.md) with `text`.
void replace_readme_section(const std::filesystem::path& readme, const std::string& text);

extern const char* const k_begin_marker;
extern const char* const k_end_marker;

}  // namespace tbdr::validation
