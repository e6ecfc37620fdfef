// The frame's time: every hardware pass (and transfer) placed on the vertex/compute and fragment
// queues by the scheduler model, folded into passes and the frame, and each pass's energy.
// The models take and return models::Cycles and Bytes; the stats keep plain numbers (`.value`).
#include "sim/schedule.h"

#include <algorithm>

namespace tbdr {
namespace {

// A dependency whose destination includes a stage before fragment shading makes the next
// pass's geometry wait for the previous pass's fragment work (a too-wide barrier removes the
// overlap; Khronos Vulkan-Samples pipeline_barriers measures ~13% frame time: models/README.md
// "Sources: the two-phase machine").
bool blocks_geometry(uint32_t dst_stages) {
  return (dst_stages & (kStageTopOfPipe | kStageDrawIndirect | kStageVertexInput | kStageVertexShader |
                        kStageAllGraphics | kStageAllCommands)) != 0;
}

// The frame's period when it repeats back to back, as an application does at a steady frame
// rate: frame N+1's geometry runs on the vertex/compute queue while frame N's fragments run
// (the TBDR discussion notes, section 17.1: "the vertex/compute slot can run frame N+1's
// vertices while the fragment slot runs frame N's fragments"; models/README.md "Sources:
// time"), unless a barrier with a vertex-stage destination holds the queue. The frame is scheduled three times in a row; the period is the third
// copy's last fragment end minus the second's (the first absorbs the start-up). A barrier
// after the frame's last pass (`wait_at_end`) holds the next copy's first geometry.
double steady_period(const models::ModelSet& models, const std::vector<models::PassTiming>& timings, bool wait_at_end) {
  if (timings.empty()) return 0;
  std::vector<models::PassTiming> repeated;
  for (int copy = 0; copy < 3; ++copy)
    for (size_t i = 0; i < timings.size(); ++i) {
      models::PassTiming t = timings[i];
      if (copy > 0 && i == 0) t.geometry_waits_for_previous_fragment = t.geometry_waits_for_previous_fragment || wait_at_end;
      repeated.push_back(t);
    }
  const std::vector<models::ScheduleSlot> slots = models.scheduler->schedule(repeated);
  return (slots[3 * timings.size() - 1].fragment_end - slots[2 * timings.size() - 1].fragment_end).value;
}

// A captured dispatch's shading time (traces/README.md `compute`): its invocations as fragments of
// the pass's `cost` without pixel output (four lanes a quad, as TileWork counts them), spread
// evenly over the cores. Zero for built-in programs (no invocations given).
models::ShaderCycles dispatch_cycles(const models::ModelSet& models, const Pass& pass) {
  models::ShaderCycles out;
  if (pass.invocations == 0) return out;
  models::TileWork work;
  work.quads_shaded = (pass.invocations + 3) / 4;
  work.fragments_shaded = pass.invocations;
  work.alu_cycles = double(work.quads_shaded) * 4 * pass.cost.alu;
  work.texture_samples = double(work.quads_shaded) * 4 * pass.cost.texture_samples;
  out = models.shader->tile_cycles(work);
  const double cores = std::max(1u, models.cores->core_count());
  for (models::Cycles* c : {&out.alu, &out.texture, &out.tile_read, &out.varying, &out.pixel, &out.shading})
    *c = models::Cycles(c->value / cores);
  return out;
}

// Places every hardware pass of the frame on the two queues, then folds the slots into the
// API passes (geometry of the first to fragment end of the last) and the frame.
// The frame's hardware passes (and transfers) as the scheduler sees them, in submission order,
// with the owner of each: (API pass, hardware pass or -1). `wait_next`: a barrier after the last.
struct FrameTimings {
  std::vector<models::PassTiming> timings;
  std::vector<std::pair<size_t, int64_t>> owners;
  bool wait_next = false;
};

FrameTimings frame_timings(const models::ModelSet& models, const Frame& f, FrameStats& frame) {
  FrameTimings out;
  std::vector<models::PassTiming>& timings = out.timings;
  std::vector<std::pair<size_t, int64_t>>& owners = out.owners;
  bool& wait_next = out.wait_next;
  for (size_t p = 0; p < frame.passes.size(); ++p) {
    const Pass& pass = f.passes[p];
    PassStats& stats = frame.passes[p];
    if (pass.type == PassType::barrier) {
      wait_next = wait_next || blocks_geometry(pass.dst_stages);
      for (const ImageRef& b : pass.barriers) wait_next = wait_next || blocks_geometry(b.dst_stages);
      continue;
    }
    if (pass.type == PassType::render) {
      for (const SubpassDependency& d : pass.dependencies)
        if (d.src_subpass == kSubpassExternal && blocks_geometry(d.dst_stages)) wait_next = true;
      for (size_t h = 0; h < stats.hardware_passes.size(); ++h) {
        const HardwarePassStats& hw = stats.hardware_passes[h];
        timings.push_back({models::Cycles(hw.cycles.geometry), models::Cycles(hw.cycles.fragment), wait_next, hw.binned});
        owners.emplace_back(p, int64_t(h));
        wait_next = false;
      }
    } else {
      // Transfers and compute: their DRAM time on the fragment queue, after the work they read;
      // a captured dispatch's shading where it takes longer.
      const Traffic t = stats.dram.total();
      const models::Cycles dram = models.dram->transfer_cycles(models::Bytes(t.read_bytes + t.write_bytes));
      const models::ShaderCycles shading = dispatch_cycles(models, pass);
      stats.cycles.fragment = std::max(dram.value, shading.shading.value);
      stats.cycles.breakdown.fragment_dram = dram.value;
      stats.cycles.breakdown.alu = shading.alu.value;
      stats.cycles.breakdown.texture = shading.texture.value;
      timings.push_back({models::Cycles(), models::Cycles(stats.cycles.fragment), wait_next});
      owners.emplace_back(p, -1);
      wait_next = false;
    }
  }
  return out;
}

// Slot i's geometry cycles that overlap the fragment work of the slots before it (the fragment
// queue runs them in order: walk back while their fragment work ends after this geometry starts).
double binning_overlap(const std::vector<models::ScheduleSlot>& slots, size_t i) {
  double overlap = 0;
  for (size_t j = i; j-- > 0 && slots[j].fragment_end > slots[i].geometry_start;)
    overlap += std::max(0.0, (std::min(slots[i].geometry_end, slots[j].fragment_end) -
                              std::max(slots[i].geometry_start, slots[j].fragment_start)).value);
  return overlap;
}

// Folds the scheduler's slots into the hardware passes and API passes (geometry of the first to
// fragment end of the last) and the frame.
void place_slots(const std::vector<models::ScheduleSlot>& slots, const FrameTimings& t, FrameStats& frame) {
  const std::vector<std::pair<size_t, int64_t>>& owners = t.owners;
  std::vector<bool> seen(frame.passes.size(), false);
  for (size_t i = 0; i < slots.size(); ++i) {
    PassStats& stats = frame.passes[owners[i].first];
    const models::ScheduleSlot& slot = slots[i];
    if (owners[i].second >= 0) {
      HardwarePassStats& hw = stats.hardware_passes[size_t(owners[i].second)];
      hw.schedule = {slot.geometry_start.value, slot.geometry_end.value, slot.fragment_start.value,
                     slot.fragment_end.value, binning_overlap(slots, i)};
      stats.schedule.binning_overlap += hw.schedule.binning_overlap;
      hw.cycles.total = (slot.fragment_end - slot.geometry_start).value;
      stats.cycles.geometry += hw.cycles.geometry;
      stats.cycles.fragment += hw.cycles.fragment;
      stats.cycles.breakdown += hw.cycles.breakdown;
    }
    if (!seen[owners[i].first]) {
      stats.schedule.geometry_start = slot.geometry_start.value;
      stats.schedule.fragment_start = slot.fragment_start.value;
      seen[owners[i].first] = true;
    }
    stats.schedule.geometry_end = slot.geometry_end.value;
    stats.schedule.fragment_end = slot.fragment_end.value;
    stats.cycles.total = stats.schedule.fragment_end - stats.schedule.geometry_start;
    frame.frame_cycles = std::max(frame.frame_cycles, slot.fragment_end.value);
  }
}

// Each pass's energy from its DRAM bytes and on-chip tile-buffer bytes, and the frame's sum.
void add_energy(const models::ModelSet& models, FrameStats& frame) {
  for (PassStats& stats : frame.passes) {
    models::Bytes tile_buffer_bytes;
    for (const HardwarePassStats& hw : stats.hardware_passes) tile_buffer_bytes += models::Bytes(hw.tile_buffer_bytes);
    const Traffic t = stats.dram.total();
    const models::Bytes dram_bytes(t.read_bytes + t.write_bytes);
    const models::EnergyJoules e = models.energy->energy(dram_bytes, tile_buffer_bytes);
    stats.energy = {e.dram, e.tile_buffer, e.total};
    frame.energy.dram_joules += e.dram;
    frame.energy.tile_buffer_joules += e.tile_buffer;
    frame.energy.total_joules += e.total;
  }
}


}  // namespace

void schedule_frame(const models::ModelSet& models, const Frame& f, FrameStats& frame) {
  const FrameTimings timings = frame_timings(models, f, frame);
  place_slots(models.scheduler->schedule(timings.timings), timings, frame);
  frame.steady_frame_cycles = steady_period(models, timings.timings, timings.wait_next);
  frame.clock_mhz = models.cores->clock_mhz();
  add_energy(models, frame);
}

}  // namespace tbdr
