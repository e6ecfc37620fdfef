// Per-draw costs (PassStats::draw_stats, the report's `draw_costs`): over every bundled trace and
// preset, each attributed figure summed over a render pass's draws equals the pass's own.
#include <gtest/gtest.h>
#include "test_paths.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tests/sanitizer.h"

namespace fs = std::filesystem;
using namespace tbdr;

namespace {

std::vector<fs::path> every_bundled_trace() {
  std::vector<fs::path> traces;
  for (const auto& dir : fs::directory_iterator(fs::path(TBDR_SOURCE_DIR) / "traces")) {
    if (!dir.is_directory() || dir.path().filename() == "schema") continue;
    for (const auto& e : fs::directory_iterator(dir.path()))
      if (e.path().extension() == ".json") traces.push_back(e.path());
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

RunStats run(const Trace& trace, models::Configuration config, unsigned threads) {
  const models::ModelSet models = models::build_models(config);
  SimOptions options;
  options.threads = threads;
  return simulate(trace, models, options, nullptr);
}

// Doubles summed in another order than the pass's: equal to the last few bits.
void expect_near_sum(double draws, double pass, const char* what) {
  EXPECT_NEAR(draws, pass, 1e-9 * std::max(1.0, std::fabs(pass))) << what;
}

// The draws of one render pass against the pass. `flat_lists`: binned into flat per-tile lists
// (the tile-list figures are attributed); `cached_textures`: texture=cache (texture bytes are).
void expect_draws_sum_to_pass(const PassStats& pass, bool flat_lists, bool cached_textures, bool dispatches) {
  DrawCounters sum;
  CycleBreakdown cycles;
  for (const DrawStats& d : pass.draw_stats) {
    sum += d.counters;
    cycles.triangle_setup += d.cycles.triangle_setup;
    cycles.raster += d.cycles.raster;
    cycles.alu += d.cycles.alu;
    cycles.texture += d.cycles.texture;
    cycles.varying += d.cycles.varying;
    cycles.tile_read += d.cycles.tile_read;
    cycles.pixel += d.cycles.pixel;
    cycles.blend += d.cycles.blend;
    EXPECT_LE(d.counters.fragments_shaded, d.counters.fragments);
    EXPECT_LE(d.counters.quads_shaded, d.counters.quads_rasterized);
  }
  ASSERT_EQ(pass.draw_stats.size(), pass.counters.draws);
  const PassCounters& c = pass.counters;
  EXPECT_EQ(sum.vertices, c.vertices);
  EXPECT_EQ(sum.primitives_in, c.primitives_in);
  EXPECT_EQ(sum.primitives_culled, c.primitives_culled);
  EXPECT_EQ(sum.primitives_clipped, c.primitives_clipped);
  EXPECT_EQ(sum.primitives, c.primitives);
  EXPECT_EQ(sum.fragments, c.fragments);
  EXPECT_EQ(sum.fragments_shaded, c.fragments_shaded);
  EXPECT_EQ(sum.texel_fetches, c.texel_fetches);
  EXPECT_EQ(sum.vertex_read_bytes, pass.dram[DramCategory::vertex].read_bytes);
  if (flat_lists) {
    EXPECT_EQ(sum.tile_list_entries, c.tile_list_entries);
    EXPECT_EQ(sum.tile_list_write_bytes, pass.dram[DramCategory::tile_list].write_bytes);
    EXPECT_EQ(sum.tile_list_read_bytes, pass.dram[DramCategory::tile_list].read_bytes);
  }
  if (cached_textures) EXPECT_EQ(sum.texture_read_bytes, pass.dram[DramCategory::texture].read_bytes);
  const CycleBreakdown& b = pass.cycles.breakdown;
  expect_near_sum(cycles.triangle_setup, b.triangle_setup, "triangle_setup");
  expect_near_sum(cycles.raster, b.raster, "raster");
  expect_near_sum(cycles.texture, b.texture, "texture");
  expect_near_sum(cycles.varying, b.varying, "varying");
  expect_near_sum(cycles.blend, b.blend, "blend");
  // Tile dispatches shade without a draw, mid-pass clears write pixels without one.
  if (!dispatches) expect_near_sum(cycles.alu, b.alu, "alu");
  if (!dispatches) expect_near_sum(cycles.tile_read, b.tile_read, "tile_read");
  if (c.clear_pixels == 0) expect_near_sum(cycles.pixel, b.pixel, "pixel");
}

// Whether any subpass of the trace runs tile dispatches (VK_QCOM_tile_shading).
bool has_tile_dispatches(const Trace& trace) {
  for (const Frame& frame : trace.frames)
    for (const Pass& pass : frame.passes)
      for (const Subpass& sp : pass.subpasses)
        if (!sp.tile_dispatches.empty()) return true;
  return false;
}

void expect_every_pass_sums(const Trace& trace, const RunStats& stats, bool flat_lists, bool cached_textures) {
  for (const FrameStats& frame : stats.frames)
    for (const PassStats& pass : frame.passes) {
      SCOPED_TRACE(pass.name);
      if (pass.type == "render")
        expect_draws_sum_to_pass(pass, flat_lists, cached_textures, has_tile_dispatches(trace));
      else EXPECT_TRUE(pass.draw_stats.empty());
    }
}

}  // namespace

// Every preset on the feature, saver and local-read traces (each exercises one mechanism); the
// larger scenes (default, seeds, validation) under one preset of each texture model, as every
// preset on all of them took 3.5 minutes on two cores.
TEST(DrawCosts, EveryBundledTraceSumsToItsPasses) {
  const std::vector<fs::path> traces = every_bundled_trace();
  ASSERT_GT(traces.size(), 40u);
  for (const fs::path& path : traces) {
    SCOPED_TRACE(path.string());
    const Trace trace = read_trace(path);
    const std::string folder = path.parent_path().filename().string();
    const bool small = folder == "features" || folder == "savers" || folder == "local_read";
    // Under AddressSanitizer (tools/test --sanitize) the small traces under one preset of each texture
    // model: the whole set took over ten minutes there; the Release suite runs it all.
    if (kAddressSanitizer && !small) continue;
    const std::vector<std::string> presets = small && !kAddressSanitizer
                                                 ? models::preset_names()
                                                 : std::vector<std::string>{"reference", "mali-g710"};
    for (const std::string& preset : presets) {
      SCOPED_TRACE(preset);
      const models::Configuration config = models::Configuration::from_preset(preset);
      const RunStats stats = run(trace, config, 2);
      const bool cached = models::build_models(config).texture->config().simulate;
      // Direct and immediate-mode passes write no tile lists: their draws' figures are 0, as the pass's.
      expect_every_pass_sums(trace, stats, true, cached);
    }
  }
}

// The sums hold through parameter-buffer flushes (a draw split between renders) and hierarchical
// binning (whose tile-list figures stay the pass's: entries are written per level, not per draw).
TEST(DrawCosts, FlushesAndHierarchicalBinningKeepTheSums) {
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  models::Configuration flushed = models::Configuration::from_preset("mali-g710");
  flushed.apply("param_buffer.capacity=262144");
  const RunStats a = run(trace, flushed, 2);
  ASSERT_GT(a.counters.param_buffer_flushes, 0u);
  expect_every_pass_sums(trace, a, true, true);
  models::Configuration hierarchical = models::Configuration::from_preset("mali-g710");
  hierarchical.apply("binning=hierarchical");
  const RunStats b = run(trace, hierarchical, 2);
  expect_every_pass_sums(trace, b, false, true);
  for (const DrawStats& d : b.frames[0].passes[0].draw_stats) EXPECT_EQ(d.counters.tile_list_entries, 0u);
}

// Same draws at any thread count, figure for figure.
TEST(DrawCosts, ThreadCountChangesNoDrawFigure) {
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  const models::Configuration config = models::Configuration::from_preset("mali-g710");
  const RunStats one = run(trace, config, 1), three = run(trace, config, 3);
  const std::vector<DrawStats>& a = one.frames[0].passes[0].draw_stats;
  const std::vector<DrawStats>& b = three.frames[0].passes[0].draw_stats;
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a.size(), 14u);
  for (size_t d = 0; d < a.size(); ++d) {
    EXPECT_EQ(a[d].counters, b[d].counters) << d;
    EXPECT_EQ(a[d].fragment_cycles(), b[d].fragment_cycles()) << d;
  }
  // The floor (draw 10 of the bundled scene) is what the frame's fragments are mostly spent on.
  const auto top = std::max_element(a.begin(), a.end(), [](const DrawStats& x, const DrawStats& y) {
    return x.fragment_cycles() < y.fragment_cycles();
  });
  EXPECT_EQ(top->name, "floor");
}
