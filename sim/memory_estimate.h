// The memory a simulation will allocate, estimated from the trace and the configuration before any
// large allocation, and the budget a run refuses to exceed (tools/doc/cli.md "Memory budget").
#pragma once

#include <cstdint>
#include <string>
#include <nlohmann/json.hpp>
#include <vector>

#include "sim/frame.h"
#include "sim/sim_options.h"

namespace tbdr {

// 8 GiB: a fixed number, not the machine's memory, so the same inputs are accepted or refused on
// every machine; the trace reader's image limit (2^29 samples, 8 GiB of color floats) fits under it
// only with --max-memory, as it was sized for a 16 - 24 GiB workstation.
constexpr uint64_t kDefaultMemoryBudget = uint64_t(8) << 30;

// One big allocation: what it is, the parameter or file that sizes it, and its bytes.
struct MemoryTerm {
  std::string what;   // "images", "texture caches", ...
  std::string cause;  // e.g. "texture.l2_bytes 17179869184 / texture.line_bytes 16 x 8 B tags"
  uint64_t bytes = 0;
};

struct MemoryEstimate {
  std::vector<MemoryTerm> terms;
  uint64_t total() const;
  const MemoryTerm& largest() const;  // terms must not be empty
};

// Every term of one simulate() of `trace` under the configuration `resolved` (models::ModelSet::resolved)
// with `options.threads` workers, each from its rule (tools/doc/cli.md "Memory budget"). Sums saturate at
// 2^64 - 1 instead of wrapping.
MemoryEstimate estimate_memory(const Trace& trace, const nlohmann::json& resolved, const SimOptions& options);

// The part of `resolved` that estimate_memory reads: each kind's `impl` and the parameters its rules
// use (tiling, texture, cores, write_elim). Configurations that agree on it get the same estimate, so a
// sweep estimates each distinct part once and keeps only it (about 300 bytes of text, not the whole
// configuration).
nlohmann::json memory_estimate_inputs(const nlohmann::json& resolved);

// InputError naming `where` when estimate.total() > budget, in one line: the total, the largest
// term and its cause, the budget and --max-memory.
void check_memory_budget(const MemoryEstimate& estimate, uint64_t budget, const std::string& where);

// "17.2 GiB", "512.0 MiB", "900 B": binary units, one decimal.
std::string format_bytes(uint64_t bytes);

}  // namespace tbdr
