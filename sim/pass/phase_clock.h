// Wall time per phase of simulate() (tbdrsim run --time): a stage's work timed into PhaseTimes
// when the caller asked for it, at no cost otherwise.
#pragma once

#include <chrono>

#include "sim/sim_options.h"

namespace tbdr {

// Runs `work` and, when `times` is set, adds its wall time to `phase`.
template <class Work>
void timed_phase(PhaseTimes* times, double PhaseTimes::*phase, Work&& work) {
  if (!times) return work();
  const auto start = std::chrono::steady_clock::now();
  work();
  times->*phase += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// timed_phase() for geometry, less the renders that parameter-buffer flushes start inside it
// (their binning, tiles and savers count as theirs).
template <class Work>
void timed_geometry(PhaseTimes* times, Work&& work) {
  if (!times) return work();
  const double others = times->binning + times->tiles + times->savers;
  timed_phase(times, &PhaseTimes::geometry, work);
  times->geometry -= times->binning + times->tiles + times->savers - others;
}

}  // namespace tbdr
