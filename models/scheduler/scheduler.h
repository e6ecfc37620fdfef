// The `scheduler` kind: hardware passes on two queues, vertex/compute and fragment (Mali job
// slots, models/README.md "Sources: the two-phase machine"); geometry of pass N+1 overlaps
// fragment work of pass N unless a dependency forbids it.
#pragma once

#include <vector>

#include "models/model.h"
#include "models/units.h"

namespace tbdr::models {

struct PassTiming {
  Cycles geometry;  // on the vertex/compute queue (binning: all of it before fragments)
  Cycles fragment;  // on the fragment queue
  // A dependency with a vertex-stage (or top-of-pipe) destination on the previous pass's
  // fragment output: this pass's geometry waits for the previous fragment work to end.
  bool geometry_waits_for_previous_fragment = false;
  // A binned (tiled) hardware pass: its geometry is a binning pass writing a visibility stream
  // that its fragment work reads (scheduler=bv_br bounds how many are in flight).
  bool binned = false;
};

struct ScheduleSlot {
  Cycles geometry_start, geometry_end, fragment_start, fragment_end;
};

// Contract:
// - Given: the frame's hardware passes in submission order.
// - Returns: one slot per pass. Within a pass fragment_start >= geometry_end (a TBDR bins all
//   geometry of a hardware pass before its fragment work); each queue runs its passes in order.
// - Once per frame; deterministic; no state.
class SchedulerModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "scheduler";
  static constexpr const char* k_description = "how hardware passes overlap on the vertex/compute and fragment queues";

  virtual std::vector<ScheduleSlot> schedule(const std::vector<PassTiming>& passes) const = 0;
};

}  // namespace tbdr::models
