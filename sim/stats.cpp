// Category names and totals for sim/stats.h.
#include "sim/stats.h"

namespace tbdr {

const char* dram_category_name(DramCategory c) {
  static const char* const names[] = {
#define TBDR_NAME(name) #name,
      TBDR_DRAM_CATEGORIES(TBDR_NAME)
#undef TBDR_NAME
  };
  return names[static_cast<size_t>(c)];
}

void accumulate_totals(RunStats& run) {
  run.counters = {};
  run.dram = {};
  run.dram_nominal = {};
  for (auto& frame : run.frames) {
    frame.counters = {};
    frame.dram = {};
    frame.dram_nominal = {};
    for (const auto& pass : frame.passes) {
      frame.counters += pass.counters;
      frame.dram += pass.dram;
      frame.dram_nominal += pass.dram_nominal;
    }
    run.counters += frame.counters;
    run.dram += frame.dram;
    run.dram_nominal += frame.dram_nominal;
  }
}

}  // namespace tbdr
