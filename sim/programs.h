// Built-in fragment and compute programs: their parameter tables (for the trace reader's
// validation) and their evaluation per fragment (for sim/tile.cpp and the IMR path).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/frame.h"

namespace tbdr {

struct ProgramParamInfo {
  const char* name;
  uint32_t size;                // number of floats
  std::vector<float> defaults;  // `size` values
};

struct ProgramInfo {
  const char* name;
  bool compute;                              // a compute program (compute passes) or a fragment program
  std::vector<ProgramParamInfo> params;
  std::vector<const char*> bindings;         // binding slots the program requires
};

// nullptr when no built-in program has that name.
const ProgramInfo* find_program(const std::string& name);
std::vector<std::string> program_names(bool compute);

}  // namespace tbdr
