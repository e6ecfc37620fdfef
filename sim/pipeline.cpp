// Frame execution: render passes through geometry -> binning -> per-tile work (TBDR) or through
// one whole-area "tile" with every primitive (IMR reference), plus copy/blit/resolve/compute
// passes; fills the DRAM ledger by the rules of traces/README.md.
#include "sim/pipeline.h"

#include <algorithm>
#include <cmath>

#include "models/errors.h"
#include "sim/format.h"
#include "sim/pass/render_pass.h"
#include "sim/savers.h"

namespace tbdr {
namespace {

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

Rect whole(const Surface& s) { return Rect{0, 0, s.width, s.height}; }

Vec4 texel(const Surface& s, int32_t x, int32_t y) {
  x = std::clamp<int32_t>(x, 0, int32_t(s.width) - 1);
  y = std::clamp<int32_t>(y, 0, int32_t(s.height) - 1);
  const size_t i = s.index(uint32_t(x), uint32_t(y), 0);
  if (s.has_color()) return s.color[i];
  return Vec4(s.has_depth() ? s.depth[i] : 0.0f, s.has_stencil() ? float(s.stencil[i]) : 0.0f, 0, 1);
}

void write_texel(Surface& s, uint32_t x, uint32_t y, uint32_t sample, const Vec4& v) {
  const size_t i = s.index(x, y, sample);
  if (s.has_color()) s.color[i] = quantize_color(s.format, v);
  if (s.has_depth()) s.depth[i] = quantize_depth(s.format, v[0]);
  if (s.has_stencil()) s.stencil[i] = uint8_t(std::clamp(v[1], 0.0f, 255.0f));
}

uint64_t image_bytes(const ImageDesc& image, uint64_t texel_count) {
  return image.transient ? 0 : texel_count * format_info(image.format).bytes_per_pixel * image.samples;
}

// A dependency whose destination includes a stage before fragment shading makes the next
// pass's geometry wait for the previous pass's fragment work (domain.md section 1: a too-wide
// barrier removes the overlap; seed 003 measures ~13% frame time).
bool blocks_geometry(uint32_t dst_stages) {
  return (dst_stages & (kStageTopOfPipe | kStageDrawIndirect | kStageVertexInput | kStageVertexShader |
                        kStageAllGraphics | kStageAllCommands)) != 0;
}

class FrameRunner {
 public:
  FrameRunner(const Trace& trace, ImageStore& store, const models::ModelSet& models, const SimOptions& options,
              ImageSink* sink)
      : m_trace(trace), m_store(store), m_models(models), m_options(options), m_sink(sink), m_savers(trace) {}

  FrameStats run(uint32_t frame_index) {
    FrameStats frame;
    const Frame& f = m_trace.frames[frame_index];
    for (uint32_t p = 0; p < f.passes.size(); ++p) {
      const Pass& pass = f.passes[p];
      const std::string where = m_trace.path + ": /frames/" + std::to_string(frame_index) + "/passes/" + std::to_string(p);
      PassStats stats;
      stats.name = pass.name;
      stats.type = pass_type_name(pass.type);
      switch (pass.type) {
        case PassType::render: run_render(frame_index, p, pass, where, stats); break;
        case PassType::copy:
        case PassType::blit:
        case PassType::resolve: run_transfer(frame_index, p, pass, stats); break;
        case PassType::compute: run_compute(frame_index, p, pass, where, stats); break;
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
        // (vkCmdBlitImage always invalidates, domain.md section 6) and its compressed sizes are
        // recomputed from the pixels when next needed.
        for (const ImageRef& w : pass.writes) {
          m_savers.invalidate_signatures(w.image);
          m_savers.forget_compression(w.image);
        }
      }
      frame.passes.push_back(std::move(stats));
    }
    schedule_frame(f, frame);
    return frame;
  }

 private:
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
    m_sink->stored(out);
  }

  void run_render(uint32_t frame, uint32_t pass_index, const Pass& pass, const std::string& where, PassStats& stats) {
    const PassContext ctx{&m_models, &m_options, &m_store, &m_savers, frame};
    const PassSetup setup = run_render_pass(ctx, m_trace, pass, where, stats);
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

  // copy (vkCmdCopyImage), blit (vkCmdBlitImage, scaled), resolve (vkCmdResolveImage).
  void run_transfer(uint32_t frame, uint32_t pass_index, const Pass& pass, PassStats& stats) {
    const ImageRef& src_ref = pass.reads.at(0);
    const ImageRef& dst_ref = pass.writes.at(0);
    const Surface& src = m_store.surface(src_ref.image, src_ref.mip, src_ref.layer);
    Surface& dst = m_store.surface(dst_ref.image, dst_ref.mip, dst_ref.layer);
    const ImageDesc& src_image = m_trace.images[size_t(src_ref.image)];
    const ImageDesc& dst_image = m_trace.images[size_t(dst_ref.image)];
    const Rect sr = src_ref.region.value_or(whole(src)), dr = dst_ref.region.value_or(whole(dst));
    const DramCategory read_cat = pass.type == PassType::resolve ? DramCategory::resolve : DramCategory::image_sample;
    const DramCategory write_cat = pass.type == PassType::resolve ? DramCategory::resolve : DramCategory::attachment_store;
    if (pass.type == PassType::copy) {
      const uint32_t samples = std::min(src.samples, dst.samples);
      for (uint32_t y = 0; y < std::min(sr.height, dr.height); ++y)
        for (uint32_t x = 0; x < std::min(sr.width, dr.width); ++x)
          for (uint32_t s = 0; s < samples; ++s) {
            const size_t si = src.index(uint32_t(sr.x) + x, uint32_t(sr.y) + y, s);
            const size_t di = dst.index(uint32_t(dr.x) + x, uint32_t(dr.y) + y, s);
            if (src.has_color() && dst.has_color()) dst.color[di] = quantize_color(dst.format, src.color[si]);
            if (src.has_depth() && dst.has_depth()) dst.depth[di] = quantize_depth(dst.format, src.depth[si]);
            if (src.has_stencil() && dst.has_stencil()) dst.stencil[di] = src.stencil[si];
          }
      stats.dram[read_cat].read_bytes += image_bytes(src_image, pixels(sr));
      stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(sr));
    } else if (pass.type == PassType::resolve) {
      for (uint32_t y = 0; y < std::min(sr.height, dr.height); ++y)
        for (uint32_t x = 0; x < std::min(sr.width, dr.width); ++x)
          write_texel(dst, uint32_t(dr.x) + x, uint32_t(dr.y) + y, 0,
                      src.has_color() ? src.resolved_color(uint32_t(sr.x) + x, uint32_t(sr.y) + y)
                                      : texel(src, sr.x + int32_t(x), sr.y + int32_t(y)));
      stats.dram[read_cat].read_bytes += image_bytes(src_image, pixels(sr));
      stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(sr));
    } else {
      // Blit: each destination pixel samples the source region at its centre (Vulkan
      // "Image Copies with Scaling"); the read counts the unique source texels touched.
      std::vector<uint8_t> touched(size_t(src.width) * src.height, 0);
      auto fetch = [&](int32_t x, int32_t y) {
        x = std::clamp<int32_t>(x, sr.x, sr.x + int32_t(sr.width) - 1);
        y = std::clamp<int32_t>(y, sr.y, sr.y + int32_t(sr.height) - 1);
        touched[size_t(y) * src.width + size_t(x)] = 1;
        return texel(src, x, y);
      };
      for (uint32_t y = 0; y < dr.height; ++y)
        for (uint32_t x = 0; x < dr.width; ++x) {
          const float u = sr.x + (x + 0.5f) * float(sr.width) / float(dr.width);
          const float v = sr.y + (y + 0.5f) * float(sr.height) / float(dr.height);
          Vec4 value;
          if (pass.blit_filter == Filter::nearest) {
            value = fetch(int32_t(std::floor(u)), int32_t(std::floor(v)));
          } else {
            const float su = u - 0.5f, sv = v - 0.5f;
            const int32_t i0 = int32_t(std::floor(su)), j0 = int32_t(std::floor(sv));
            const float a = su - float(i0), b = sv - float(j0);
            value = (fetch(i0, j0) * (1 - a) + fetch(i0 + 1, j0) * a) * (1 - b) +
                    (fetch(i0, j0 + 1) * (1 - a) + fetch(i0 + 1, j0 + 1) * a) * b;
          }
          for (uint32_t s = 0; s < dst.samples; ++s) write_texel(dst, uint32_t(dr.x) + x, uint32_t(dr.y) + y, s, value);
        }
      uint64_t unique = 0;
      for (uint8_t t : touched) unique += t;
      stats.dram[read_cat].read_bytes += image_bytes(src_image, unique) / src_image.samples;
      stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(dr));
    }
    emit(frame, pass_index, pass, "dst", dst_ref, dr);
  }

  // Built-in compute programs: reads count as sampled footprints, writes as attachment stores.
  void run_compute(uint32_t frame, uint32_t pass_index, const Pass& pass, const std::string& where, PassStats& stats) {
    const std::string& program = pass.program.name;
    if (pass.reads.empty() || pass.writes.empty())
      throw InputError(where, "compute program " + program + " needs one read and one write image");
    const ImageRef& in_ref = pass.reads[0];
    const ImageRef& out_ref = pass.writes[0];
    const Surface& in = m_store.surface(in_ref.image, in_ref.mip, in_ref.layer);
    Surface& out = m_store.surface(out_ref.image, out_ref.mip, out_ref.layer);
    const ImageDesc& in_image = m_trace.images[size_t(in_ref.image)];
    const ImageDesc& out_image = m_trace.images[size_t(out_ref.image)];
    const Rect ir = in_ref.region.value_or(whole(in));
    uint64_t texels_read = 0;
    if (program == "downsample") {
      // 2x2 box filter into an image of half the size (rounded down, at least 1).
      for (uint32_t y = 0; y < out.height; ++y)
        for (uint32_t x = 0; x < out.width; ++x) {
          Vec4 sum = Vec4::Zero();
          for (int32_t dy = 0; dy < 2; ++dy)
            for (int32_t dx = 0; dx < 2; ++dx) sum += texel(in, ir.x + int32_t(2 * x) + dx, ir.y + int32_t(2 * y) + dy);
          write_texel(out, x, y, 0, sum * 0.25f);
        }
      texels_read = std::min<uint64_t>(pixels(ir), uint64_t(out.width) * out.height * 4);
    } else if (program == "histogram") {
      // Luminance histogram (Rec. 709 weights) of one texel per step block, normalized counts.
      std::vector<double> bins(out.width, 0.0);
      for (uint32_t y = 0; y < ir.height; y += in_ref.step_y)
        for (uint32_t x = 0; x < ir.width; x += in_ref.step_x) {
          const Vec4 c = texel(in, ir.x + int32_t(x), ir.y + int32_t(y));
          const float luma = std::clamp(0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2], 0.0f, 1.0f);
          bins[std::min<size_t>(size_t(luma * float(out.width - 1)), out.width - 1)] += 1.0;
          ++texels_read;
        }
      for (uint32_t x = 0; x < out.width; ++x)
        for (uint32_t y = 0; y < out.height; ++y)
          write_texel(out, x, y, 0, Vec4(float(bins[x] / double(std::max<uint64_t>(texels_read, 1))), 0, 0, 1));
    } else {
      throw InputError(where + "/program/name", "unknown compute program " + program);
    }
    stats.dram[DramCategory::image_sample].read_bytes += image_bytes(in_image, texels_read) / in_image.samples;
    stats.dram[DramCategory::attachment_store].write_bytes += image_bytes(out_image, uint64_t(out.width) * out.height);
    emit(frame, pass_index, pass, "out0", out_ref, whole(out));
  }

  // The frame's period when it repeats back to back, as an application does at a steady frame
  // rate: frame N+1's geometry runs on the vertex/compute queue while frame N's fragments run
  // (seed 003 section 17.1: "the vertex/compute slot can run frame N+1's vertices while the
  // fragment slot runs frame N's fragments"), unless a barrier with a vertex-stage destination
  // holds the queue. The frame is scheduled three times in a row; the period is the third
  // copy's last fragment end minus the second's (the first absorbs the start-up). A barrier
  // after the frame's last pass (`wait_at_end`) holds the next copy's first geometry.
  double steady_period(const std::vector<models::PassTiming>& timings, bool wait_at_end) const {
    if (timings.empty()) return 0;
    std::vector<models::PassTiming> repeated;
    for (int copy = 0; copy < 3; ++copy)
      for (size_t i = 0; i < timings.size(); ++i) {
        models::PassTiming t = timings[i];
        if (copy > 0 && i == 0) t.geometry_waits_for_previous_fragment = t.geometry_waits_for_previous_fragment || wait_at_end;
        repeated.push_back(t);
      }
    const std::vector<models::ScheduleSlot> slots = m_models.scheduler->schedule(repeated);
    return slots[3 * timings.size() - 1].fragment_end - slots[2 * timings.size() - 1].fragment_end;
  }

  // Places every hardware pass of the frame on the two queues, then folds the slots into the
  // API passes (geometry of the first to fragment end of the last) and the frame.
  void schedule_frame(const Frame& f, FrameStats& frame) {
    std::vector<models::PassTiming> timings;
    std::vector<std::pair<size_t, int64_t>> owners;  // (API pass, hardware pass or -1)
    bool wait_next = false;
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
          timings.push_back({hw.cycles.geometry, hw.cycles.fragment, wait_next});
          owners.emplace_back(p, int64_t(h));
          wait_next = false;
        }
      } else {
        // Transfers and compute: their DRAM time on the fragment queue, after the work they read.
        const Traffic t = stats.dram.total();
        stats.cycles.fragment = m_models.dram->transfer_cycles(t.read_bytes + t.write_bytes);
        stats.cycles.breakdown.fragment_dram = stats.cycles.fragment;
        timings.push_back({0.0, stats.cycles.fragment, wait_next});
        owners.emplace_back(p, -1);
        wait_next = false;
      }
    }
    const std::vector<models::ScheduleSlot> slots = m_models.scheduler->schedule(timings);
    frame.steady_frame_cycles = steady_period(timings, wait_next);
    std::vector<bool> seen(frame.passes.size(), false);
    for (size_t i = 0; i < slots.size(); ++i) {
      PassStats& stats = frame.passes[owners[i].first];
      const models::ScheduleSlot& slot = slots[i];
      if (owners[i].second >= 0) {
        HardwarePassStats& hw = stats.hardware_passes[size_t(owners[i].second)];
        hw.schedule = {slot.geometry_start, slot.geometry_end, slot.fragment_start, slot.fragment_end};
        hw.cycles.total = slot.fragment_end - slot.geometry_start;
        stats.cycles.geometry += hw.cycles.geometry;
        stats.cycles.fragment += hw.cycles.fragment;
        stats.cycles.breakdown += hw.cycles.breakdown;
      }
      if (!seen[owners[i].first]) {
        stats.schedule.geometry_start = slot.geometry_start;
        stats.schedule.fragment_start = slot.fragment_start;
        seen[owners[i].first] = true;
      }
      stats.schedule.geometry_end = slot.geometry_end;
      stats.schedule.fragment_end = slot.fragment_end;
      stats.cycles.total = stats.schedule.fragment_end - stats.schedule.geometry_start;
      frame.frame_cycles = std::max(frame.frame_cycles, slot.fragment_end);
    }
    frame.clock_mhz = m_models.cores->clock_mhz();
    for (PassStats& stats : frame.passes) {
      uint64_t tile_buffer_bytes = 0;
      for (const HardwarePassStats& hw : stats.hardware_passes) tile_buffer_bytes += hw.tile_buffer_bytes;
      const Traffic t = stats.dram.total();
      const models::EnergyJoules e = m_models.energy->energy(t.read_bytes + t.write_bytes, tile_buffer_bytes);
      stats.energy = {e.dram, e.tile_buffer, e.total};
      frame.energy.dram_joules += e.dram;
      frame.energy.tile_buffer_joules += e.tile_buffer;
      frame.energy.total_joules += e.total;
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

RunStats simulate(const Trace& trace, const models::ModelSet& models, const SimOptions& options, ImageSink* sink) {
  ImageStore store(trace.images);
  RunStats run;
  FrameRunner runner(trace, store, models, options, sink);
  for (uint32_t f = 0; f < trace.frames.size(); ++f) run.frames.push_back(runner.run(f));
  accumulate_totals(run);
  return run;
}

}  // namespace tbdr
