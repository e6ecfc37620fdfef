// The present timeline of a multi-frame run (the display model on each frame's GPU time), its
// latency and frame-pacing statistics, and the run's sustained power (models/README.md "display").
#include "sim/present.h"

#include <algorithm>
#include <cmath>

namespace tbdr {
namespace {

// The swapchain's image count: the largest `swapchain` of the trace's images (what the program
// created), else the display model's `images` parameter.
void swapchain_images(const models::DisplayModel& display, const Trace& trace, PresentStats& out) {
  uint32_t images = 0;
  for (const ImageDesc& image : trace.images) images = std::max(images, image.swapchain);
  out.swapchain_images = images ? images : display.default_images();
  out.images_from = images ? "trace" : "display.images";
}

// Latency and the intervals between consecutive shown frames: mean, population standard deviation
// (jitter: seed 001's "variance of the intervals between presents", as a deviation in ms), largest.
void pacing(PresentStats& out) {
  std::vector<double> intervals;
  double last_present = -1, latency_sum = 0;
  for (const FramePresentStats& f : out.frames) {
    out.span_ms = std::max(out.span_ms, f.shown ? f.present_ms : f.ready_ms);
    if (!f.shown) continue;
    ++out.shown;
    latency_sum += f.latency_ms;
    out.max_latency_ms = std::max(out.max_latency_ms, f.latency_ms);
    if (last_present >= 0) intervals.push_back(f.present_ms - last_present);
    last_present = f.present_ms;
  }
  out.dropped = out.frames.size() - out.shown;
  if (out.shown) out.mean_latency_ms = latency_sum / double(out.shown);
  if (intervals.empty()) return;
  double sum = 0, squares = 0;
  for (double i : intervals) sum += i;
  out.mean_interval_ms = sum / double(intervals.size());
  for (double i : intervals) squares += (i - out.mean_interval_ms) * (i - out.mean_interval_ms);
  out.jitter_ms = std::sqrt(squares / double(intervals.size()));
  out.max_interval_ms = *std::max_element(intervals.begin(), intervals.end());
}

}  // namespace

void time_presents(const models::ModelSet& models, const Trace& trace, RunStats& run) {
  PresentStats& out = run.present;
  out = {};
  out.mode = models.display->mode();
  out.refresh_hz = models.display->refresh_hz();
  swapchain_images(*models.display, trace, out);
  std::vector<double> gpu_ms;
  double joules = 0;
  for (const FrameStats& frame : run.frames) {
    gpu_ms.push_back(frame.clock_mhz > 0 ? frame.frame_cycles / (frame.clock_mhz * 1000.0) : 0.0);
    joules += frame.energy.total_joules;
  }
  const std::vector<models::FramePresent> timeline = models.display->present(gpu_ms, out.swapchain_images);
  for (size_t f = 0; f < timeline.size(); ++f) {
    const models::FramePresent& t = timeline[f];
    out.frames.push_back({gpu_ms[f], t.submit_ms, t.ready_ms, t.shown, t.shown ? t.present_ms : 0,
                          t.shown ? t.present_ms - t.submit_ms : 0});
  }
  pacing(out);
  const models::PowerFigures p = models.power->assess(joules, run.frames.size(), out.span_ms);
  run.power = {p.energy_per_frame_joules, p.frames_per_second, p.watts, p.sustained_watts, p.within_budget,
               p.budget_frames_per_second};
}

}  // namespace tbdr
