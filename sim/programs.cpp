// Built-in program tables (traces/README.md lists them for users).
#include "sim/programs.h"

namespace tbdr {
namespace {

const std::vector<ProgramInfo>& program_table() {
  static const std::vector<ProgramInfo> table = {
      {"flat", false, {{"color", 4, {1, 1, 1, 1}}, {"alpha_cutoff", 1, {0.5f}}}, {}},
      {"vertex_color", false, {{"tint", 4, {1, 1, 1, 1}}, {"alpha_cutoff", 1, {0.5f}}}, {}},
      {"textured", false, {{"tint", 4, {1, 1, 1, 1}}, {"alpha_cutoff", 1, {0.5f}}}, {"texture"}},
      {"downsample", true, {}, {}},
      {"histogram", true, {}, {}},
  };
  return table;
}

}  // namespace

const ProgramInfo* find_program(const std::string& name) {
  for (const auto& p : program_table())
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> program_names(bool compute) {
  std::vector<std::string> names;
  for (const auto& p : program_table())
    if (p.compute == compute) names.emplace_back(p.name);
  return names;
}

}  // namespace tbdr
