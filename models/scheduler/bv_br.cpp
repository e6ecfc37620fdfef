// scheduler=bv_br: Adreno A7xx's two command processors, BV (binning) and BR (rendering), with
// concurrent binning on or off (models/README.md "scheduler"; Mesa turnip tu_cmd_buffer.cc).
//   concurrent_binning=false (A6xx's one SQE, or CB disabled): geometry_start = previous fragment_end
//   concurrent_binning=true:  geometry_start = max(previous geometry_end, waits ? previous fragment_end : 0,
//                                                  fragment_end of the binned pass bv_ahead_passes + 1 back)
//   both:                     fragment_start = max(own geometry_end, previous fragment_end)
#include <algorithm>
#include <memory>

#include "models/registry.h"
#include "models/scheduler/scheduler.h"

namespace tbdr::models {
namespace {

class BvBrScheduler final : public SchedulerModel {
 public:
  explicit BvBrScheduler(Params& p)
      // turnip sets concurrent binning up for every A7xx GMEM pass that allows it (tu7_emit_concurrent_binning_gmem).
      : m_concurrent(p.flag("concurrent_binning", true,
                            "BV bins the next passes while BR renders the current one's bins (Adreno A7xx; Mesa turnip tu_cmd_buffer.cc)")),
        // turnip's CP_BV_BR_COUNT_OPS PIPE_SET_BR_OFFSET, emitted as 1 and patched to the visibility
        // streams at submit: how many passes BV may be ahead of BR (guess: 1 in the steady state).
        m_ahead(uint32_t(p.integer("bv_ahead_passes", 1, "passes",
                                   "binned passes BV may bin ahead of the one BR renders (guess; turnip PIPE_SET_BR_OFFSET)", 1, 64))) {}

  std::vector<ScheduleSlot> schedule(const std::vector<PassTiming>& passes) const override {
    std::vector<ScheduleSlot> out;
    out.reserve(passes.size());
    std::vector<Cycles> binned_fragment_ends;  // BR's end of each binned pass so far, in order
    Cycles geometry_free, fragment_free;
    for (const PassTiming& p : passes) {
      ScheduleSlot s;
      if (!m_concurrent) {
        s.geometry_start = fragment_free;
      } else {
        s.geometry_start = std::max(geometry_free, p.geometry_waits_for_previous_fragment ? fragment_free : Cycles());
        // BV waits for BR to finish reading the visibility stream it would overwrite.
        if (p.binned && binned_fragment_ends.size() > m_ahead)
          s.geometry_start = std::max(s.geometry_start, binned_fragment_ends[binned_fragment_ends.size() - 1 - m_ahead]);
      }
      s.geometry_end = s.geometry_start + p.geometry;
      s.fragment_start = std::max(s.geometry_end, fragment_free);
      s.fragment_end = s.fragment_start + p.fragment;
      geometry_free = s.geometry_end;
      fragment_free = s.fragment_end;
      if (p.binned) binned_fragment_ends.push_back(s.fragment_end);
      out.push_back(s);
    }
    return out;
  }

 private:
  bool m_concurrent;
  uint32_t m_ahead;
};

const Registrar<SchedulerModel> bv_br_registrar(
    "scheduler", "bv_br",
    "Adreno A7xx BV and BR command processors: concurrent binning overlaps the next passes' binning with rendering",
    [](Params& p) { return std::make_unique<BvBrScheduler>(p); });

}  // namespace
}  // namespace tbdr::models
