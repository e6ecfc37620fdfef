// Trace reader: a trace file (format v1, traces/README.md) -> sim/frame.h's Trace, fully validated.
// Every error is an InputError whose `where` is "<file as given>: <JSON pointer>".
#pragma once

#include <filesystem>
#include <string>

#include "sim/frame.h"

namespace tbdr {

// Reads `file` and every file it names (relative to the file's folder).
Trace read_trace(const std::filesystem::path& file);

// The same from text already in memory (tests, fuzzers): file names resolve against `base_dir`,
// messages name `display_name`, and the trace's default name is display_name's stem.
Trace read_trace_text(const std::string& json_text, const std::filesystem::path& base_dir,
                      const std::string& display_name);

}  // namespace tbdr
