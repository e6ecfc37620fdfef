// Tests of the present timeline (display=fifo|mailbox|immediate) and sustained power (power=budget):
// each expectation worked out by hand in the comments from the rules of models/README.md "display".
#include <gtest/gtest.h>
#include "test_paths.h"

#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "sim/present.h"
#include "tools/commands/report.h"

namespace tbdr {
namespace {

constexpr double k_blank = 1000.0 / 60;  // 16.667 ms between vertical blanks at 60 Hz
constexpr double k_ms = 1e-9;             // tolerance of the hand figures (rounding only)

models::ModelSet models_with(const std::vector<std::string>& sets) {
  models::Configuration config = models::Configuration::reference();
  for (const std::string& s : sets) config.apply(s);
  return models::build_models(config);
}

// Present times, or -1 for a frame never shown.
std::vector<double> presents(const std::vector<models::FramePresent>& timeline) {
  std::vector<double> out;
  for (const models::FramePresent& f : timeline) out.push_back(f.shown ? f.present_ms : -1);
  return out;
}

void expect_near_all(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], k_ms) << "frame " << i;
}

// A run of frames of the given GPU times (2 mJ each) through sim/present.cpp's timeline and power.
RunStats run_of(const std::vector<std::string>& sets, const std::vector<double>& gpu_ms) {
  RunStats run;
  for (double ms : gpu_ms) {
    FrameStats frame;
    frame.clock_mhz = 1;  // 1 MHz: 1,000 cycles per ms
    frame.frame_cycles = ms * 1000;
    frame.energy.total_joules = 0.002;
    run.frames.push_back(frame);
  }
  time_presents(models_with(sets), Trace{}, run);
  return run;
}

PresentStats pacing_of(const std::vector<std::string>& sets, const std::vector<double>& gpu_ms) {
  return run_of(sets, gpu_ms).present;
}

// FIFO, frames of 10, 20 and 10 ms, 3 images: the GPU runs them back to back (submits at 0, 10, 30;
// ready at 10, 30, 40); each is shown at the first blank after it is ready: 16.667, 33.333, 50.0.
TEST(Present, FifoShowsEachFrameAtTheNextBlank) {
  const models::ModelSet m = models_with({"display=fifo"});
  const std::vector<models::FramePresent> t = m.display->present({10, 20, 10}, 3);
  expect_near_all(presents(t), {k_blank, 2 * k_blank, 3 * k_blank});
  expect_near_all({t[0].submit_ms, t[1].submit_ms, t[2].submit_ms}, {0, 10, 30});
}

// FIFO, frames of 10, 30, 5, 10 ms. Ready at 10, 40, 45 -> blanks 1, 3, and 4 (blank 3 is taken by
// frame 1: one image per blank). Frame 3 renders into frame 0's image, free when frame 1 replaces
// it on screen at blank 3 (50 ms): submit 50, ready 60 -> blank 4 is taken -> blank 5 (83.333).
// Intervals 2T, T, T (T = 16.667): mean 4T/3 = 22.222; deviations 2T/3, -T/3, -T/3: variance
// (4 + 1 + 1) / 9 / 3 T^2 = 2T^2/9, jitter T sqrt(2) / 3 = 7.857 ms. Latencies 16.667, 40, 26.667, 33.333.
TEST(Present, FifoWaitsForAFreeImageAndJitterIsByHand) {
  const PresentStats p = pacing_of({"display=fifo"}, {10, 30, 5, 10});
  EXPECT_EQ(p.mode, "fifo");
  EXPECT_EQ(p.swapchain_images, 3u);
  EXPECT_EQ(p.images_from, "display.images");
  std::vector<double> on_screen, latency;
  for (const FramePresentStats& f : p.frames) on_screen.push_back(f.present_ms), latency.push_back(f.latency_ms);
  expect_near_all(on_screen, {k_blank, 3 * k_blank, 4 * k_blank, 5 * k_blank});
  expect_near_all(latency, {k_blank, 40, 4 * k_blank - 40, 5 * k_blank - 50});
  EXPECT_NEAR(p.frames[3].submit_ms, 50, k_ms);
  EXPECT_NEAR(p.mean_interval_ms, 4 * k_blank / 3, k_ms);
  EXPECT_NEAR(p.jitter_ms, k_blank * std::sqrt(2.0) / 3, k_ms);
  EXPECT_NEAR(p.jitter_ms, 7.857, 5e-4);
  EXPECT_NEAR(p.max_interval_ms, 2 * k_blank, k_ms);
  EXPECT_NEAR(p.mean_latency_ms, (k_blank + 40 + 4 * k_blank - 40 + 5 * k_blank - 50) / 4, k_ms);
  EXPECT_EQ(p.shown, 4u);
  EXPECT_EQ(p.dropped, 0u);
  EXPECT_NEAR(p.span_ms, 5 * k_blank, k_ms);
}

// Two images: frame 2 renders into frame 0's image, free at frame 1's blank 3 (50 ms): ready 55 ->
// blank 4; frame 3 waits for blank 4 (66.667), ready 76.667 -> blank 5.
TEST(Present, FifoWithTwoImagesWaitsLonger) {
  const models::ModelSet m = models_with({"display=fifo"});
  const std::vector<models::FramePresent> t = m.display->present({10, 30, 5, 10}, 2);
  expect_near_all({t[2].submit_ms, t[3].submit_ms}, {50, 4 * k_blank});
  expect_near_all(presents(t), {k_blank, 3 * k_blank, 4 * k_blank, 5 * k_blank});
}

// MAILBOX, the same frames: never waits for an image with 3 (on screen + pending + the one rendered).
// Ready at 10, 40, 45, 55. Frame 0 is pending for blank 1 and shown at 16.667; frame 1 is pending for
// blank 3 (50 ms) when frame 2 arrives at 45: replaced, never shown; frame 2 is shown at 50; frame 3
// (ready 55) at blank 4, 66.667. Intervals 2T, T: mean 25, jitter T/2 = 8.333. Latencies 16.667,
// 50 - 40 = 10, 66.667 - 45 = 21.667.
TEST(Present, MailboxReplacesThePendingImage) {
  const PresentStats p = pacing_of({"display=mailbox"}, {10, 30, 5, 10});
  EXPECT_EQ(p.mode, "mailbox");
  EXPECT_FALSE(p.frames[1].shown);
  std::vector<double> on_screen, latency, submit;
  for (const FramePresentStats& f : p.frames)
    on_screen.push_back(f.shown ? f.present_ms : -1), latency.push_back(f.latency_ms), submit.push_back(f.submit_ms);
  expect_near_all(on_screen, {k_blank, -1, 3 * k_blank, 4 * k_blank});
  expect_near_all(submit, {0, 10, 40, 45});
  expect_near_all(latency, {k_blank, 0, 10, 4 * k_blank - 45});
  EXPECT_EQ(p.shown, 3u);
  EXPECT_EQ(p.dropped, 1u);
  EXPECT_NEAR(p.mean_interval_ms, 25, k_ms);
  EXPECT_NEAR(p.jitter_ms, k_blank / 2, k_ms);
}

// MAILBOX with two images: frame 1 takes the second image at 10 ms (frame 0 pending, none on screen);
// frame 2 finds one image on screen and one pending, and waits for the pending one's blank (50 ms);
// frame 3 likewise (66.667): the same presents as FIFO with two images.
TEST(Present, MailboxWithTwoImagesWaitsForThePendingOne) {
  const models::ModelSet m = models_with({"display=mailbox"});
  const std::vector<models::FramePresent> t = m.display->present({10, 30, 5, 10}, 2);
  expect_near_all({t[1].submit_ms, t[2].submit_ms, t[3].submit_ms}, {10, 50, 4 * k_blank});
  expect_near_all(presents(t), {k_blank, 3 * k_blank, 4 * k_blank, 5 * k_blank});
}

// IMMEDIATE tears: each frame is on screen when ready, 10, 40, 45, 55. Intervals 30, 5, 10: mean 15,
// deviations 15, -10, -5: variance 350 / 3, jitter sqrt(116.667) = 10.801 ms; latency = GPU time.
TEST(Present, ImmediateShowsEachFrameWhenReady) {
  const PresentStats p = pacing_of({"display=immediate"}, {10, 30, 5, 10});
  std::vector<double> on_screen, latency;
  for (const FramePresentStats& f : p.frames) on_screen.push_back(f.present_ms), latency.push_back(f.latency_ms);
  expect_near_all(on_screen, {10, 40, 45, 55});
  expect_near_all(latency, {10, 30, 5, 10});
  EXPECT_NEAR(p.mean_interval_ms, 15, k_ms);
  EXPECT_NEAR(p.jitter_ms, std::sqrt(350.0 / 3), k_ms);
}

// The refresh rate is a parameter: at 100 Hz (10 ms blanks) FIFO shows 10, 20, 10 ms frames at 20
// (ready 10 is a blank's instant: the next blank strictly after), 40 and 50.
TEST(Present, RefreshRateIsAParameter) {
  const models::ModelSet m = models_with({"display=fifo", "display.refresh_hz=100"});
  expect_near_all(presents(m.display->present({10, 20, 10}, 3)), {20, 40, 50});
}

// Power: 2 mJ a frame; FIFO of 10, 30, 5, 10 ms spans 83.333 ms (the last frame on screen): 4 frames
// in 83.333 ms = 48 frames/s, 96 mW. A 1.5 W budget allows 1.5 / 0.002 = 750 frames/s; 0.05 W allows
// 25 frames/s, and 96 mW is over it.
TEST(Power, EnergyPerFrameTimesFrameRateAgainstTheBudget) {
  for (const auto& [budget, within, fps] : {std::tuple{1.5, true, 750.0}, std::tuple{0.05, false, 25.0}}) {
    const RunStats run = run_of({"power.sustained_w=" + std::to_string(budget)}, {10, 30, 5, 10});
    EXPECT_NEAR(run.power.energy_per_frame_joules, 0.002, 1e-12);
    EXPECT_NEAR(run.power.frames_per_second, 48, 1e-9);
    EXPECT_NEAR(run.power.watts, 0.096, 1e-12);
    EXPECT_EQ(run.power.within_budget, within) << budget;
    EXPECT_NEAR(run.power.budget_frames_per_second, fps, 1e-9);
  }
}

// A simulated multi-frame trace: the swapchain's image count comes from the trace (hud_swapchain:
// 3 images), each frame's GPU time is its frame_cycles at the clock, and the report carries it all.
TEST(Present, SimulatedTraceReportsItsTimelineAndPower) {
  const Trace trace = read_trace(TBDR_SOURCE_DIR + "/traces/savers/hud_swapchain.json");
  SimOptions options;
  options.threads = 2;
  const RunStats run = simulate(trace, models_with({"display=fifo", "power.sustained_w=0.001"}), options, nullptr);
  EXPECT_EQ(run.present.swapchain_images, 3u);
  EXPECT_EQ(run.present.images_from, "trace");
  ASSERT_EQ(run.present.frames.size(), run.frames.size());
  double joules = 0;
  for (size_t f = 0; f < run.frames.size(); ++f) {
    EXPECT_DOUBLE_EQ(run.present.frames[f].gpu_ms, run.frames[f].frame_cycles / (run.frames[f].clock_mhz * 1000));
    EXPECT_TRUE(run.present.frames[f].shown);
    joules += run.frames[f].energy.total_joules;
  }
  EXPECT_EQ(run.present.shown, run.frames.size());
  // Frames far shorter than a blank: FIFO shows one per blank, so the run spans frames x 16.667 ms.
  EXPECT_NEAR(run.present.span_ms, double(run.frames.size()) * k_blank, k_ms);
  EXPECT_NEAR(run.present.mean_interval_ms, k_blank, k_ms);
  EXPECT_NEAR(run.present.jitter_ms, 0, k_ms);
  EXPECT_NEAR(run.power.watts, joules / (run.present.span_ms / 1000), 1e-12);
  EXPECT_FALSE(run.power.within_budget);
  const nlohmann::json report = report_json({"t", "t", "reference", {}, {}, {}}, run);
  EXPECT_EQ(report["totals"]["present"]["mode"], "fifo");
  EXPECT_EQ(report["frames"][0]["present"]["shown"], true);
  EXPECT_EQ(report["totals"]["power"]["within_budget"], false);
  EXPECT_NE(report_text({"t", "t", "reference", {}, {}, {}}, run).find("present: fifo at 60.0 Hz, 3 swapchain images (trace)"),
            std::string::npos);
}

}  // namespace
}  // namespace tbdr
