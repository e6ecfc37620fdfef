// Architecture sweeps (`tbdrsim sweep`, `tbdrsim sweep-merge`): many configurations over many traces,
// simulated by N workers, one resumable part file per configuration, results rebuilt as CSV/JSON.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/memory_estimate.h"

namespace tbdr::sweep {

// One configuration option in command-line order (parse_order): applied left to right after the preset.
struct Step {
  enum class Kind { set, tile, vary, grid };
  Kind kind = Kind::set;
  std::string text;  // "KIND=IMPL", "KIND.PARAM=V", "WxH", "KEY=v1,v2,..." (vary); unused for grid
};

struct SweepOptions {
  std::vector<std::string> traces;  // in this order in the results; at least one
  std::string preset = "reference";
  std::vector<Step> steps;
  std::string grid;         // --grid FILE (.csv or .json); its rows replace the Kind::grid step
  unsigned jobs = 0;        // 0: the number of cores
  std::string shard;        // "K/N"; empty: 1/1
  bool quiet = false;       // no progress line, no summary
  std::string out;          // the sweep folder
  // Simulate once per (trace, functional configuration), re-cost the configurations that differ only
  // in cost parameters (tools/doc/sweeps.md); false (--no-reuse): simulate every configuration.
  bool reuse = true;
  uint64_t record_budget_mib = 1024;  // functional records held at once; past it, re-simulate
  uint64_t max_memory = kDefaultMemoryBudget;  // --max-memory (tools/doc/cli.md "Memory budget")
};

// Runs (or resumes) a sweep. Bad input throws tbdr::InputError before any simulation starts.
// Returns the number of (trace, configuration) runs that failed (recorded in the `error` column).
size_t run_sweep(const SweepOptions& options);

// Combines shard folders of one sweep into `out`, identical to the unsharded sweep's folder.
void merge_sweeps(const std::vector<std::string>& dirs, const std::string& out, bool quiet);

// The configurations a sweep expands to, each as its assignments in application order ("tile=WxH"
// stands for --tile WxH). The cartesian product's first --vary varies slowest. Throws InputError.
std::vector<std::vector<std::string>> expand_configurations(const SweepOptions& options);

// `run --csv`: one row per pass of a report (report_json) with the columns of a sweep's pass rows:
// frame, pass, name, type, then the pass's figures flattened (attachments left out).
std::string report_csv(const nlohmann::json& report);

}  // namespace tbdr::sweep
