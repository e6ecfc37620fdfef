// Progress of long work (validate, advise) on stderr. On a terminal: one line redrawn in place with
// the time elapsed and an estimate of the time left, erased at the end. Otherwise (a log, a pipe, a
// Slurm or CI job): one plain line per step. Quick work stays silent: nothing is written before
// `quiet_seconds` have passed, so a short command's stderr holds only what it has to say.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace tbdr {

// A duration as "0:42" or "1:02:03" (also the sweep's progress line).
std::string minutes_seconds(double seconds);

class StepProgress {
 public:
  // `command`: "validate", "advise"; `total`: the number of steps (0: not known yet, set_total()).
  StepProgress(std::string command, size_t total, std::ostream& out, bool terminal, double quiet_seconds = 2.0);
  // On stderr, a terminal when stderr is one.
  StepProgress(std::string command, size_t total);
  ~StepProgress();
  StepProgress(const StepProgress&) = delete;
  StepProgress& operator=(const StepProgress&) = delete;

  void set_total(size_t total) { m_total = total; }
  // Step `label` begins (the previous one is done).
  void next(const std::string& label);
  // Every step done: erases a redrawn line.
  void finish();

 private:
  std::string line(const std::string& label, double elapsed) const;

  std::string m_command;
  size_t m_total = 0, m_started = 0;
  std::ostream& m_out;
  bool m_terminal = false, m_drawn = false;
  double m_quiet_seconds = 2.0;
  std::chrono::steady_clock::time_point m_start;
};

}  // namespace tbdr
