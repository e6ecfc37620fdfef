// Progress lines of long work on stderr (tools/commands/progress.h).
#include "tools/commands/progress.h"

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace tbdr {

std::string minutes_seconds(double seconds) {
  const long s = long(seconds + 0.5);
  char text[32];
  if (s >= 3600) std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  return text;
}

StepProgress::StepProgress(std::string command, size_t total, std::ostream& out, bool terminal, double quiet_seconds)
    : m_command(std::move(command)), m_total(total), m_out(out), m_terminal(terminal), m_quiet_seconds(quiet_seconds),
      m_start(std::chrono::steady_clock::now()) {}

StepProgress::StepProgress(std::string command, size_t total)
    : StepProgress(std::move(command), total, std::cerr, ::isatty(STDERR_FILENO) == 1) {}

StepProgress::~StepProgress() { finish(); }

// "tbdrsim validate: 3 of 8: simulating X (0:12 elapsed, about 0:20 left)". The estimate: the steps
// done so far took their average each, the ones left will too (after the first step, which often
// reads the trace, is done).
std::string StepProgress::line(const std::string& label, double elapsed) const {
  std::string text = "tbdrsim " + m_command + ": ";
  if (m_total > 0) text += std::to_string(m_started) + " of " + std::to_string(m_total) + ": ";
  text += label + " (" + minutes_seconds(elapsed) + " elapsed";
  const size_t done = m_started - 1;
  if (done > 0 && m_total >= m_started) {
    const double per_step = elapsed / double(done);
    text += ", about " + minutes_seconds(per_step * double(m_total - done)) + " left";
  }
  return text + ")";
}

void StepProgress::next(const std::string& label) {
  ++m_started;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
  if (elapsed < m_quiet_seconds && !m_terminal) return;
  if (m_terminal) {
    m_out << "\r" << line(label, elapsed) << "\x1b[K" << std::flush;
    m_drawn = true;
  } else {
    m_out << line(label, elapsed) << "\n" << std::flush;
  }
}

void StepProgress::finish() {
  if (m_drawn) m_out << "\r\x1b[K" << std::flush;
  m_drawn = false;
}

}  // namespace tbdr
