// The `power` kind: sustained power (energy per frame x frame rate) against a thermal budget, and
// the frame rate the budget allows: models/README.md "power".
#pragma once

#include "models/model.h"

namespace tbdr::models {

struct PowerFigures {
  double energy_per_frame_joules = 0;  // the run's energy over its frames
  double frames_per_second = 0;        // frames rendered per second of the present timeline
  double watts = 0;                    // energy per frame x frames per second
  double sustained_watts = 0;          // the budget
  bool within_budget = true;
  double budget_frames_per_second = 0;  // the frame rate whose power equals the budget
};

// Contract: given the run's total energy (J), its frame count and the time the present timeline
// spans (ms), the power figures against the implementation's budget. No state between calls.
class PowerModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "power";
  static constexpr const char* k_description = "power: sustained power budget (thermal) and the frame rate it allows";

  virtual PowerFigures assess(double total_joules, uint64_t frames, double span_ms) const = 0;
};

}  // namespace tbdr::models
