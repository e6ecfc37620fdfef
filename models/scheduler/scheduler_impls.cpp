// scheduler=two_queue and serial: hardware passes on the vertex/compute and fragment queues
// (models/README.md "Sources: the two-phase machine"; the three-costs article section 3.1,
// "Sources: merging subpasses").
//   two_queue: geometry_start = max(previous geometry_end, waits ? previous fragment_end : 0)
//              fragment_start = max(own geometry_end, previous fragment_end)
//              (geometry of pass N+1 overlaps fragment work of pass N unless a dependency forbids it)
//   serial:    geometry_start = previous fragment_end, fragment_start = own geometry_end (no overlap)
#include <algorithm>
#include <memory>

#include "models/registry.h"
#include "models/scheduler/scheduler.h"

namespace tbdr::models {
namespace {

class QueueScheduler final : public SchedulerModel {
 public:
  explicit QueueScheduler(bool overlap) : m_overlap(overlap) {}

  std::vector<ScheduleSlot> schedule(const std::vector<PassTiming>& passes) const override {
    std::vector<ScheduleSlot> out;
    out.reserve(passes.size());
    Cycles geometry_free, fragment_free;  // when each queue finished its last pass
    for (const PassTiming& p : passes) {
      ScheduleSlot s;
      if (m_overlap)
        s.geometry_start = std::max(geometry_free, p.geometry_waits_for_previous_fragment ? fragment_free : Cycles());
      else
        s.geometry_start = fragment_free;
      s.geometry_end = s.geometry_start + p.geometry;
      s.fragment_start = std::max(s.geometry_end, fragment_free);
      s.fragment_end = s.fragment_start + p.fragment;
      geometry_free = s.geometry_end;
      fragment_free = s.fragment_end;
      out.push_back(s);
    }
    return out;
  }

 private:
  bool m_overlap;
};

const Registrar<SchedulerModel> two_queue_registrar(
    "scheduler", "two_queue",
    "vertex/compute and fragment queues: pass N+1's geometry overlaps pass N's fragments unless it must wait",
    [](Params&) { return std::make_unique<QueueScheduler>(true); });
const Registrar<SchedulerModel> serial_registrar("scheduler", "serial",
                                                 "no overlap: each pass starts when the previous one's fragments end",
                                                 [](Params&) { return std::make_unique<QueueScheduler>(false); });

}  // namespace
}  // namespace tbdr::models
