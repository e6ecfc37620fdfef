// Frame execution: render passes through geometry -> binning -> per-tile work (TBDR) or through
// one whole-area "tile" with every primitive (IMR reference), plus copy/blit/resolve/compute
// passes; fills the DRAM ledger by the rules of traces/README.md.
#include "sim/pipeline.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include "models/errors.h"
#include "sim/format.h"
#include "sim/pass/phase_clock.h"
#include "sim/pass/render_pass.h"
#include "sim/pass/transfer.h"
#include "sim/savers.h"
#include "sim/present.h"
#include "sim/schedule.h"

namespace tbdr {
namespace {

// Heap bytes of a vector; its header is counted with the struct holding it.
template <class T>
uint64_t heap_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

const char* pass_type_name(PassType t) {
  switch (t) {
    case PassType::render: return "render";
    case PassType::compute: return "compute";
    case PassType::copy: return "copy";
    case PassType::blit: return "blit";
    case PassType::resolve: return "resolve";
    case PassType::barrier: return "barrier";
  }
  return "render";
}

class FrameRunner {
 public:
  FrameRunner(const Trace& trace, ImageStore& store, const models::ModelSet& models, const SimOptions& options,
              ImageSink* sink)
      : m_trace(trace), m_store(store), m_models(models), m_options(options), m_sink(sink), m_savers(trace) {}

  // Runs the frame's functional stages pass by pass, prices each pass, then schedules the frame.
  // With `kept`, each pass's functional figures and records are also kept there.
  FrameStats run(uint32_t frame_index, std::vector<FunctionalRecord::Pass>* kept) {
    FrameStats frame;
    const Frame& f = m_trace.frames[frame_index];
    for (uint32_t p = 0; p < f.passes.size(); ++p) {
      const Pass& pass = f.passes[p];
      const std::string where = m_trace.path + ": /frames/" + std::to_string(frame_index) + "/passes/" + std::to_string(p);
      PassStats stats;
      stats.name = pass.name;
      stats.type = pass_type_name(pass.type);
      std::vector<HardwarePassRecord> records;
      switch (pass.type) {
        case PassType::render:
          run_render(frame_index, p, pass, where, stats, records);
          break;
        case PassType::copy:
        case PassType::blit:
        case PassType::resolve:
        {
          Rect written;
          timed_phase(m_options.phase_times, &PhaseTimes::transfers,
                      [&] { written = run_transfer(m_trace, m_store, pass, stats); });
          emit(frame_index, p, pass, "dst", pass.writes.at(0), written);
          break;
        }
        case PassType::compute:
        {
          Rect written;
          timed_phase(m_options.phase_times, &PhaseTimes::transfers,
                      [&] { written = run_compute(m_trace, m_store, pass, where, stats); });
          for (size_t w = 0; w < pass.writes.size(); ++w)
            emit(frame_index, p, pass, "out" + std::to_string(w), pass.writes[w], w == 0 ? written : level_region(pass.writes[w]));
          break;
        }
        case PassType::barrier:
          // Layouts: a transition from undefined/general/transfer_dst drops TE signatures
          // (swapchain images keep theirs); stages: acted on by the scheduler.
          for (const ImageRef& b : pass.barriers) {
            const bool invalidating = b.old_layout == Layout::undefined || b.old_layout == Layout::general ||
                                      b.old_layout == Layout::transfer_dst;
            if (invalidating && m_trace.images[size_t(b.image)].swapchain == 0) m_savers.invalidate_signatures(b.image);
          }
          break;
      }
      // Transfers and compute: no saver applies here (models/README.md), so the physical ledger
      // equals the nominal one.
      if (pass.type != PassType::render) {
        stats.dram_nominal = stats.dram;
        // A copy, blit, resolve or compute write into an image: its signatures are stale
        // (vkCmdBlitImage always invalidates: models/README.md "Sources: bandwidth savers") and its compressed sizes are
        // recomputed from the pixels when next needed.
        for (const ImageRef& w : pass.writes) {
          m_savers.invalidate_signatures(w.image);
          m_savers.forget_compression(w.image);
        }
      }
      timed_phase(m_options.phase_times, &PhaseTimes::costing,
                  [&] { price_pass(std::move(stats), std::move(records), kept, frame); });
    }
    timed_phase(m_options.phase_times, &PhaseTimes::costing, [&] { schedule_frame(m_models, f, frame); });
    return frame;
  }

 private:
  Rect level_region(const ImageRef& ref) const {
    const Surface& s = m_store.surface(ref.image, ref.mip, ref.layer);
    return ref.region.value_or(Rect{0, 0, s.width, s.height});
  }

  // Prices a pass into the frame; with `kept`, keeps its functional figures and records there too.
  void price_pass(PassStats&& stats, std::vector<HardwarePassRecord>&& records,
                  std::vector<FunctionalRecord::Pass>* kept, FrameStats& frame) {
    if (kept) kept->push_back({stats, {}});
    price_render_pass(records, m_models, stats, std::max(1u, m_options.threads));
    if (kept) kept->back().hardware_passes = std::move(records);
    frame.passes.push_back(std::move(stats));
  }

  void emit(uint32_t frame, uint32_t pass_index, const Pass& pass, const std::string& slot, const ImageRef& ref,
            const Rect& region) {
    if (!m_sink) return;
    StoredImage out;
    out.frame = frame;
    out.pass_index = pass_index;
    out.pass_name = pass.name;
    out.slot = slot;
    out.image = ref.image;
    out.image_name = m_trace.images[size_t(ref.image)].name;
    out.surface = &m_store.surface(ref.image, ref.mip, ref.layer);
    out.region = region;
    timed_phase(m_options.phase_times, &PhaseTimes::images, [&] { m_sink->stored(out); });
  }

  void run_render(uint32_t frame, uint32_t pass_index, const Pass& pass, const std::string& where, PassStats& stats,
                  std::vector<HardwarePassRecord>& records) {
    const PassContext ctx{&m_models, &m_options, &m_store, &m_savers, frame};
    const PassSetup setup = run_render_pass(ctx, m_trace, pass, where, stats, records);
    for (size_t i = 0; i < setup.attachments.size(); ++i) {
      const PassAttachment& a = setup.attachments[i];
      if (!a.stores || a.image->transient) continue;
      ImageRef ref;
      ref.image = a.desc->image;
      ref.mip = a.desc->mip;
      ref.layer = a.desc->layer;
      emit(frame, pass_index, pass, "att" + std::to_string(i), ref, setup.area);
    }
  }

  const Trace& m_trace;
  ImageStore& m_store;
  const models::ModelSet& m_models;
  const SimOptions& m_options;
  ImageSink* m_sink;
  SaverState m_savers;  // signatures and compressed sizes, carried from frame to frame
};

}  // namespace

RunStats simulate(const Trace& trace, const models::ModelSet& models, const SimOptions& options, ImageSink* sink,
                  FunctionalRecord* record) {
  std::optional<ImageStore> store;
  timed_phase(options.phase_times, &PhaseTimes::setup, [&] { store.emplace(trace, std::max(1u, options.threads)); });
  RunStats run;
  FrameRunner runner(trace, *store, models, options, sink);
  if (record) {
    record->frames.clear();
    record->functional_configuration = models::functional_part(models.resolved);
  }
  for (uint32_t f = 0; f < trace.frames.size(); ++f)
    run.frames.push_back(runner.run(f, record ? &record->frames.emplace_back() : nullptr));
  accumulate_totals(run);
  time_presents(models, trace, run);
  return run;
}

RunStats cost_recorded(const Trace& trace, const FunctionalRecord& record, const models::ModelSet& models) {
  if (models::functional_part(models.resolved) != record.functional_configuration)
    throw std::invalid_argument(
        "cost_recorded: the configuration differs from the recorded one in a functional "
        "parameter or implementation; simulate it instead");
  if (record.frames.size() != trace.frames.size())
    throw std::invalid_argument("cost_recorded: the record is of another trace");
  RunStats run;
  for (size_t f = 0; f < record.frames.size(); ++f) {
    FrameStats frame;
    for (const FunctionalRecord::Pass& pass : record.frames[f]) {
      PassStats stats = pass.functional;
      price_render_pass(pass.hardware_passes, models, stats);
      frame.passes.push_back(std::move(stats));
    }
    schedule_frame(models, trace.frames[f], frame);
    run.frames.push_back(std::move(frame));
  }
  accumulate_totals(run);
  time_presents(models, trace, run);
  return run;
}

uint64_t FunctionalRecord::memory_bytes() const {
  uint64_t bytes = sizeof(*this) + heap_bytes(frames);
  for (const std::vector<Pass>& frame : frames) {
    bytes += heap_bytes(frame);
    for (const Pass& pass : frame) {
      bytes += heap_bytes(pass.functional.attachments) + heap_bytes(pass.functional.overdraw) +
               heap_bytes(pass.hardware_passes);
      for (const AttachmentStats& a : pass.functional.attachments)
        bytes += heap_bytes(a.block_ratio) + heap_bytes(a.block_kills);
      for (const HardwarePassRecord& hw : pass.hardware_passes) bytes += hw.memory_bytes() - sizeof(hw);
    }
  }
  return bytes;
}

}  // namespace tbdr
