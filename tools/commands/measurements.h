// Measurement tables (CSV) for `tbdrsim validate` and `tbdrsim calibrate`: each row a measured figure of one
// or two traces, as a figure field or an Arm Mali or Qualcomm Adreno counter (models/README.md "Calibration").
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "tools/commands/validation.h"

namespace tbdr::measurements {

// The rows of a measurement CSV. Columns: `traces` (required; ';'-separated, relative to the file),
// `case`, `label`, `figure` (a figure field or counter name), `combine` (value, difference, ratio,
// change_pct), `measured`, `measured_text`, `tolerance` ("15%", "1.5", "1.5 pp", "1.5..3 (1.5x to 3x)";
// default 10%), `decimals`, `weight`; any other column must be a figure field or a counter name, and
// each of its non-empty cells is one more measurement (combine value) of the row's single trace.
// Throws InputError naming the file, line and column.
std::vector<validation::Comparison> read_measurements(const std::filesystem::path& csv);

// Counter names -> the figure field they measure: Arm Mali's as libGPUCounters/HWCPipe and Streamline
// export them, Qualcomm Adreno's as Snapdragon Profiler (metrics) and Mesa's fdperf (countables) name them;
// compared in lower case, spaces kept (models/README.md "Calibration" gives the sources).
const std::vector<std::pair<std::string, std::string>>& counter_fields();

// The figure field a column or `figure` cell names (a field or a counter), or "" for none.
std::string field_of(const std::string& name);

}  // namespace tbdr::measurements
