// Where the bundled data lies, found from the running binary's own location (/proc/self/exe), never
// from a path fixed at build time: installed, PREFIX/bin/tbdrsim reads PREFIX/share/tbdrsim/traces;
// in the build folder, BUILD/tbdrsim reads BUILD/share/tbdrsim/traces (a link to the source tree's).
#pragma once

#include <filesystem>
#include <vector>

namespace tbdr {

// The folders looked at for the bundled traces, in order (for the error message and the tests).
std::vector<std::filesystem::path> bundled_traces_candidates();
// The first candidate holding the default trace; throws std::runtime_error naming every folder
// looked at when none does (a binary copied away from its share/ folder).
std::filesystem::path bundled_traces();

}  // namespace tbdr
