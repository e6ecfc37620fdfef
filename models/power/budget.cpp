// power=budget: average power = the run's energy over the time its present timeline spans, against
// a sustained (thermal) budget; the budget's frame rate = budget / energy per frame.
#include <memory>

#include "models/power/power.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class BudgetPower final : public PowerModel {
 public:
  explicit BudgetPower(Params& p)
      // 1.5 W: Arm, "Principles of high performance: It's all about energy": "For most devices, the
      // System on Chip (SoC) power budget is between 2.5 and 3.5 Watts. This only leaves 1 to 1.5
      // Watts for the GPU" (models/README.md "Sources: power").
      : m_sustained_watts(p.real("sustained_w", 1.5, "W", "sustained (thermal) power budget", 0.001, 1000)) {}

  PowerFigures assess(double total_joules, uint64_t frames, double span_ms) const override {
    PowerFigures f;
    f.sustained_watts = m_sustained_watts;
    if (frames == 0) return f;
    f.energy_per_frame_joules = total_joules / double(frames);
    f.frames_per_second = span_ms > 0 ? double(frames) * 1000.0 / span_ms : 0;
    f.watts = f.energy_per_frame_joules * f.frames_per_second;
    f.within_budget = f.watts <= m_sustained_watts;
    f.budget_frames_per_second = f.energy_per_frame_joules > 0 ? m_sustained_watts / f.energy_per_frame_joules : 0;
    return f;
  }

 private:
  double m_sustained_watts;
};

const Registrar<PowerModel> budget_registrar("power", "budget",
                                             "energy per frame x frame rate against a sustained power budget",
                                             [](Params& p) { return std::make_unique<BudgetPower>(p); });

}  // namespace
}  // namespace tbdr::models
