// Render-pass semantics: one small trace per merge-refusal reason of merge=arm, the
// accepted deferred merge and the same pass forced apart (merge=arm_budget), the tile-budget
// boundary of tiling=mali_budget, and MSAA inline against separate resolve. Byte counts are
// worked out by hand in the comments from traces/README.md's ledger rules; every trace here is
// 64x64, so one RGBA8 image is 64 x 64 x 4 = 16384 B and a 16x16 grid has 4 x 4 = 16 tiles.
#include <gtest/gtest.h>
#include "test_paths.h"

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "sim/stats.h"
#include "sim/surface.h"
#include "tests/configured_models.h"
#include "tests/stored_images.h"

namespace fs = std::filesystem;

namespace tbdr {
namespace {

constexpr uint64_t kRgba8Image = 64 * 64 * 4;  // 16384 B: one 64x64 RGBA8 (or D32F) image

// Every stored image of a run, keyed "pass name/image name", copied out of the callback.
struct Stored : ImageSink {
  std::map<std::string, Surface> images;
  void stored(const StoredImage& image) override { images[image.pass_name + "/" + image.image_name] = *image.surface; }
};

struct Result {
  RunStats stats;
  Stored stored;
  const PassStats& pass(size_t index = 0) const { return stats.frames.at(0).passes.at(index); }
  const Surface& image(const std::string& key) const {
    const auto it = stored.images.find(key);
    if (it == stored.images.end()) throw std::runtime_error("no stored image " + key);
    return it->second;
  }
};

Trace feature_trace(const std::string& name) {
  return read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/features" / (name + ".json"));
}

// The reference preset plus --set assignments, e.g. {"merge=arm_budget", "merge.budget_bits_per_px=64"}.
Result run(const Trace& trace, const std::vector<std::string>& assignments = {}, RenderPath path = RenderPath::tbdr) {
  const models::ModelSet models = configured_models("reference", assignments);
  Result r;
  SimOptions options;
  options.path = path;
  r.stats = simulate(trace, models, options, &r.stored);
  return r;
}

Traffic traffic(uint64_t read, uint64_t write) {
  Traffic t;
  t.read_bytes = read;
  t.write_bytes = write;
  return t;
}

// attachment_load read, attachment_store write and resolve read/write of one ledger.
void expect_attachment_bytes(const DramLedger& dram, uint64_t load, uint64_t store, Traffic resolve = {}) {
  EXPECT_EQ(dram[DramCategory::attachment_load], traffic(load, 0));
  EXPECT_EQ(dram[DramCategory::attachment_store], traffic(0, store));
  EXPECT_EQ(dram[DramCategory::resolve], resolve);
}

size_t distinct_colors(const Surface& s) {
  std::set<std::vector<float>> colors;
  for (const Vec4& c : s.color) colors.insert({c[0], c[1], c[2], c[3]});
  return colors.size();
}

// The common shape of a refused two-subpass merge: two hardware passes of one subpass each, 16
// tiles each at the reference 16x16, and exactly the one expected reason, whole.
void expect_refused(const PassStats& pass, const std::string& reason) {
  EXPECT_FALSE(pass.merge.merged);
  ASSERT_EQ(pass.merge.reasons.size(), 1u);
  EXPECT_EQ(pass.merge.reasons[0], reason);
  ASSERT_EQ(pass.hardware_passes.size(), 2u);
  for (uint32_t h = 0; h < 2; ++h) {
    EXPECT_EQ(pass.hardware_passes[h].first_subpass, h);
    EXPECT_EQ(pass.hardware_passes[h].last_subpass, h);
    EXPECT_EQ(pass.hardware_passes[h].tile_width, 16u);
    EXPECT_EQ(pass.hardware_passes[h].tile_height, 16u);
    EXPECT_EQ(pass.hardware_passes[h].tiles, 16u);
  }
  EXPECT_EQ(pass.counters.tiles, 32u);
}

// ---- merge=arm: one trace per refusal reason ----------------------------------------------------

// Subpass 0 draws into `scene`, subpass 1 into `overlay`: nothing in common.
//   hardware pass 0: scene stored (API)        attachment_store 16384
//   hardware pass 1: overlay stored (API)      attachment_store 16384
// No attachment is used by both, so there is no round trip: attachment_load 0.
TEST(RenderPassMerge, RefusedWhenSubpassesShareNoData) {
  const Result r = run(feature_trace("merge_refused_no_shared_data"));
  const PassStats& pass = r.pass();
  expect_refused(pass, "subpasses share no data between subpass 0 and 1");
  expect_attachment_bytes(pass.hardware_passes[0].dram, 0, kRgba8Image);
  expect_attachment_bytes(pass.hardware_passes[1].dram, 0, kRgba8Image);
  expect_attachment_bytes(pass.dram, 0, 2 * kRgba8Image);
}

// Subpass 0 writes color0..color4, subpass 1 color5..color8; both depth-test against the one
// transient D32F `depth` (they share data), but 5 + 4 = 9 color attachments > 8.
//   hardware pass 0: 5 x 16384 (API stores) + depth forced store 64x64x4 = 16384  -> 98304
//   hardware pass 1: depth forced load 16384; 4 x 16384 (API stores) = 65536
// Round trip: the depth buffer, 16384 B out and 16384 B back (transient, yet backed by memory now).
TEST(RenderPassMerge, RefusedWithMoreThanEightColorAttachments) {
  const Result r = run(feature_trace("merge_refused_too_many_colors"));
  const PassStats& pass = r.pass();
  expect_refused(pass, "more than 8 color attachments (9) merging subpass 0 and 1");
  expect_attachment_bytes(pass.hardware_passes[0].dram, 0, 5 * kRgba8Image + 16384);
  expect_attachment_bytes(pass.hardware_passes[1].dram, 16384, 4 * kRgba8Image);
  expect_attachment_bytes(pass.dram, 16384, 9 * kRgba8Image + 16384);
  // Subpass 1's far square is hidden where subpass 0's near square is (pixels 16..40 and 24..56):
  // the depth buffer survived the round trip. color5 there keeps its clear color, as at (0, 0).
  const Surface& far = r.image("nine_colors/color5");
  EXPECT_EQ(far.color[far.index(28, 28, 0)], far.color[far.index(0, 0, 0)]);
  EXPECT_NE(far.color[far.index(50, 30, 0)], far.color[far.index(0, 0, 0)]);
}

// The limit's other side (Arm: "at most 8 color attachments", models/README.md "Sources: merging
// subpasses"): the same pass with
// subpass 1 writing only color5..color7, 5 + 3 = 8 colors, merges into one hardware pass, and
// nothing but the API's stores of the 8 written colors reaches DRAM (no depth round trip).
TEST(RenderPassMerge, EightColorAttachmentsMerge) {
  Trace trace = feature_trace("merge_refused_too_many_colors");
  std::vector<int32_t>& colors = trace.frames[0].passes[0].subpasses[1].color;
  ASSERT_EQ(colors.size(), 4u);
  colors.pop_back();
  for (Draw& d : trace.frames[0].passes[0].subpasses[1].draws) d.state.blend.resize(std::min<size_t>(d.state.blend.size(), 3));
  const Result r = run(trace);
  const PassStats& pass = r.pass();
  ASSERT_EQ(pass.hardware_passes.size(), 1u);
  EXPECT_EQ(pass.hardware_passes[0].dram[DramCategory::attachment_load].read_bytes, 0u);
  // color8, now used by no subpass, is neither loaded nor stored (Vulkan ignores its ops).
  EXPECT_EQ(pass.dram[DramCategory::attachment_store].write_bytes, 8 * kRgba8Image);
}

// Subpass 0 uses depth `scene_depth`, subpass 1 draws into the same `color` with `overlay_depth`.
//   hardware pass 0: color forced store 16384 (depths transient, dont_care: 0)
//   hardware pass 1: color forced load 16384; color API store 16384
// Round trip: the color, 16384 B out and 16384 B back; a merged pass would store it once.
TEST(RenderPassMerge, RefusedWhenDepthAttachmentDiffers) {
  const Result r = run(feature_trace("merge_refused_depth_differs"));
  const PassStats& pass = r.pass();
  expect_refused(pass, "depth attachment differs between subpass 0 and 1");
  expect_attachment_bytes(pass.hardware_passes[0].dram, 0, kRgba8Image);
  expect_attachment_bytes(pass.hardware_passes[1].dram, kRgba8Image, kRgba8Image);
  expect_attachment_bytes(pass.dram, kRgba8Image, 2 * kRgba8Image);
}

// Subpass 0 renders 4x `msaa_color` (transient) and resolves inline into `resolved`; subpass 1
// draws a single-sample overlay on `resolved`: they share `resolved`, but 4 vs 1 samples.
//   hardware pass 0: resolved forced store 16384 (attachment_store: the round trip, not a resolve)
//   hardware pass 1: resolved forced load 16384; resolved API store 16384, counted in `resolve`
//                    (it is the pass's inline resolve target: traces/README.md)
// Working set: hardware pass 0 holds the 4x RGBA8 samples, 16 B/px x 256 = 4096 (the resolve
// target is written at write-back, not held); hardware pass 1 draws into resolved, 4 x 256 = 1024.
TEST(RenderPassMerge, RefusedWhenSampleCountDiffers) {
  const Result r = run(feature_trace("merge_refused_sample_count"));
  const PassStats& pass = r.pass();
  expect_refused(pass, "sample count differs between subpass 0 and 1 (4 vs 1)");
  expect_attachment_bytes(pass.hardware_passes[0].dram, 0, kRgba8Image);
  expect_attachment_bytes(pass.hardware_passes[1].dram, kRgba8Image, 0, traffic(0, kRgba8Image));
  expect_attachment_bytes(pass.dram, kRgba8Image, kRgba8Image, traffic(0, kRgba8Image));
  EXPECT_EQ(pass.hardware_passes[0].working_set_bytes_per_tile, 4096u);
  EXPECT_EQ(pass.hardware_passes[1].working_set_bytes_per_tile, 1024u);
}

// The refusal traces keep their reasons under arm_budget: its budget test comes after Arm's rules.
TEST(RenderPassMerge, ArmBudgetGivesTheSameReasonsForTheRefusalTraces) {
  const std::pair<const char*, const char*> cases[] = {
      {"merge_refused_no_shared_data", "subpasses share no data between subpass 0 and 1"},
      {"merge_refused_too_many_colors", "more than 8 color attachments (9) merging subpass 0 and 1"},
      {"merge_refused_depth_differs", "depth attachment differs between subpass 0 and 1"},
      {"merge_refused_sample_count", "sample count differs between subpass 0 and 1 (4 vs 1)"},
  };
  for (const auto& [trace, reason] : cases) {
    SCOPED_TRACE(trace);
    const Result r = run(feature_trace(trace), {"merge=arm_budget"});
    expect_refused(r.pass(), reason);
  }
}

// A refused merge's round trip goes to driver-owned memory, not to the image: an attachment with
// store: dont_care ends the pass with its contents from before the pass (traces/README.md
// "Execution rules"), so a later pass reading it sees what the IMR path sees (it once saw
// subpass 0's pixels).
TEST(RenderPassMerge, RefusedMergeKeepsADontCareImageAsItWas) {
  const Trace trace = read_trace_text(R"({"format": "tbdrsim-trace", "version": 1,
    "images": [{"name": "color", "format": "RGBA8", "width": 32, "height": 32},
               {"name": "d0", "format": "D32F", "width": 32, "height": 32, "transient": true},
               {"name": "d1", "format": "D32F", "width": 32, "height": 32, "transient": true},
               {"name": "copy", "format": "RGBA8", "width": 32, "height": 32}],
    "meshes": [{"name": "tri", "positions": [-0.9, -0.9, 0.5, 0.9, -0.9, 0.5, 0.0, 0.9, 0.5]}],
    "frames": [{"passes": [
      {"name": "split", "attachments": [{"image": "color", "load": "clear", "store": "dont_care"},
                                        {"image": "d0", "load": "clear", "store": "dont_care"},
                                        {"image": "d1", "load": "clear", "store": "dont_care"}],
       "subpasses": [{"color": [0], "depth": 1, "draws": [{"mesh": "tri"}]}, {"color": [0], "depth": 2}]},
      {"name": "readback", "type": "copy", "src": {"image": "color"}, "dst": {"image": "copy"}}]}]})",
                                      fs::temp_directory_path(), "dont_care_round_trip.json");
  const Result tbdr = run(trace), imr = run(trace, {}, RenderPath::imr);
  ASSERT_EQ(tbdr.pass().merge.reasons, std::vector<std::string>{"depth attachment differs between subpass 0 and 1"});
  EXPECT_TRUE(same_pixels(tbdr.image("readback/copy"), imr.image("readback/copy")));
}

// ---- the accepted deferred merge, and the same pass forced apart ---------------------------------

// G-buffer: albedo RGBA8 4 B + normal RGB10A2 4 B + depth D32F 4 B (all transient, dont_care),
// lit into hdr RGBA16F 8 B: the subpass-lifetime article's 20 B/px, 16 x 16 x 20 = 5120 B per tile.
TEST(RenderPassDeferred, MergesIntoOneHardwarePassWithoutGBufferTraffic) {
  const Result r = run(feature_trace("merge_accepted_deferred"));
  const PassStats& pass = r.pass();
  EXPECT_TRUE(pass.merge.merged);
  EXPECT_TRUE(pass.merge.reasons.empty());
  ASSERT_EQ(pass.hardware_passes.size(), 1u);
  EXPECT_EQ(pass.hardware_passes[0].first_subpass, 0u);
  EXPECT_EQ(pass.hardware_passes[0].last_subpass, 1u);
  EXPECT_EQ(pass.hardware_passes[0].working_set_bytes_per_tile, 16u * 16 * (4 + 4 + 4 + 8));
  EXPECT_EQ(pass.working_set_bytes_per_tile, 5120u);
  // The G-buffer never reaches DRAM: no load at all, and the only store is hdr, 64 x 64 x 8 = 32768.
  expect_attachment_bytes(pass.dram, 0, 32768);
  // The image is lit: many distinct colors, not albedo x ambient alone.
  EXPECT_GT(distinct_colors(r.image("deferred/hdr")), 200u);
}

// arm_budget at its default 128 bit/px: albedo 32 + normal 32 + hdr 64 = 128 is exactly the
// budget, so the pass still merges (the boundary is "exceeds", not "reaches").
TEST(RenderPassDeferred, ArmBudgetExactlyAtTheBudgetStillMerges) {
  const Result r = run(feature_trace("merge_accepted_deferred"), {"merge=arm_budget"});
  EXPECT_TRUE(r.pass().merge.merged);
  EXPECT_EQ(r.pass().hardware_passes.size(), 1u);
}

// Forced apart by arm_budget at 64 bit/px (the merged colors need 128). The lighting subpass now
// reads the G-buffer back from DRAM:
//   hardware pass 0: albedo 16384 + normal 16384 + depth 16384 forced stores = 49152
//                    working set 16 x 16 x 12 = 3072
//   hardware pass 1: the same 49152 forced loads; hdr API store 64 x 64 x 8 = 32768
//                    working set 16 x 16 x 20 = 5120
// and gives the merged run's image bit for bit.
TEST(RenderPassDeferred, ForcedApartGivesTheSameImageAndTheGBufferRoundTrip) {
  const Trace trace = feature_trace("merge_accepted_deferred");
  const Result merged = run(trace);
  const Result apart = run(trace, {"merge=arm_budget", "merge.budget_bits_per_px=64"});
  const PassStats& pass = apart.pass();
  expect_refused(pass, "color storage 128 bit/px exceeds budget 64 merging subpass 0 and 1");
  expect_attachment_bytes(pass.hardware_passes[0].dram, 0, 3 * 16384);
  expect_attachment_bytes(pass.hardware_passes[1].dram, 3 * 16384, 32768);
  expect_attachment_bytes(pass.dram, 49152, 49152 + 32768);
  EXPECT_EQ(pass.hardware_passes[0].working_set_bytes_per_tile, 3072u);
  EXPECT_EQ(pass.hardware_passes[1].working_set_bytes_per_tile, 5120u);
  // The round trip is the whole difference in attachment traffic.
  DramLedger difference = pass.dram;
  difference -= merged.pass().dram;
  EXPECT_EQ(difference[DramCategory::attachment_load], traffic(49152, 0));
  EXPECT_EQ(difference[DramCategory::attachment_store], traffic(0, 49152));
  EXPECT_TRUE(same_pixels(apart.image("deferred/hdr"), merged.image("deferred/hdr")));
  ASSERT_EQ(apart.stored.images.size(), merged.stored.images.size());
}

// The subpass-lifetime article's "20 KiB at 4x": the same G-buffer with every attachment at 4 samples. (The reader
// would need the files changed; the sample count is set on the parsed trace.)
TEST(RenderPassDeferred, WorkingSetAtFourSamplesIsTwentyKiB) {
  Trace trace = feature_trace("merge_accepted_deferred");
  for (ImageDesc& image : trace.images) image.samples = 4;
  const Result r = run(trace);
  EXPECT_TRUE(r.pass().merge.merged);
  EXPECT_EQ(r.pass().working_set_bytes_per_tile, 16u * 16 * 20 * 4);
  EXPECT_EQ(r.pass().working_set_bytes_per_tile, 20u * 1024);
}

// ---- tiling=mali_budget: the budget boundary --------------------------------------------------------

// A 64x64 render pass of one subpass writing every color attachment (format, samples), with a
// D32F depth attachment (not counted: color storage only), one full-screen draw.
Trace budget_trace(const std::vector<std::pair<std::string, uint32_t>>& colors) {
  std::string images, attachments, refs;
  for (size_t i = 0; i < colors.size(); ++i) {
    const std::string n = std::to_string(i);
    images += R"({"name": "c)" + n + R"(", "format": ")" + colors[i].first +
              R"(", "width": 64, "height": 64, "samples": )" + std::to_string(colors[i].second) + "},";
    attachments += R"({"image": "c)" + n + R"(", "load": "clear", "store": "store", "clear": [0.1, 0.2, 0.3, 1]},)";
    refs += (i ? "," : "") + n;
  }
  const std::string samples = std::to_string(colors.at(0).second);
  const std::string text = R"({"format": "tbdrsim-trace", "version": 1, "images": [)" + images +
                           R"({"name": "depth", "format": "D32F", "width": 64, "height": 64, "samples": )" + samples +
                           R"(, "transient": true}],
    "meshes": [{"name": "tri", "positions": [-0.9, -0.8, 0.5, 0.8, -0.3, 0.5, -0.2, 0.9, 0.5]}],
    "frames": [{"passes": [{"name": "p", "attachments": [)" +
                           attachments + R"({"image": "depth", "load": "clear", "store": "dont_care"}],
      "subpasses": [{"color": [)" + refs + R"(], "depth": )" + std::to_string(colors.size()) +
                           R"(, "draws": [{"mesh": "tri", "state": {"depth_test": true, "depth_write": true},
        "program": {"name": "flat", "params": {"color": [1, 0.5, 0.25, 1]}}}]}]}]}]})";
  return read_trace_text(text, fs::temp_directory_path(), "budget.json");
}

struct BudgetCase {
  std::vector<std::pair<std::string, uint32_t>> colors;
  uint32_t tile_width, tile_height;
  uint64_t tiles;
  std::string reason;
};

void expect_budget_case(const BudgetCase& c, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> set = {"tiling=mali_budget"};
  set.insert(set.end(), extra.begin(), extra.end());
  const Trace trace = budget_trace(c.colors);
  const Result r = run(trace, set);
  const PassStats& pass = r.pass();
  EXPECT_EQ(pass.tile_width, c.tile_width);
  EXPECT_EQ(pass.tile_height, c.tile_height);
  EXPECT_EQ(pass.tile_reason, c.reason);
  EXPECT_EQ(pass.counters.tiles, c.tiles);
  ASSERT_EQ(pass.hardware_passes.size(), 1u);
  EXPECT_EQ(pass.hardware_passes[0].tiles, c.tiles);
  // The working set counts every attachment at the chosen size, depth included.
  uint64_t bytes_per_pixel = 4 * uint64_t(c.colors[0].second);  // D32F x samples
  for (const auto& [format, samples] : c.colors) bytes_per_pixel += (format == "RGBA16F" ? 8 : 4) * uint64_t(samples);
  EXPECT_EQ(pass.working_set_bytes_per_tile, uint64_t(c.tile_width) * c.tile_height * bytes_per_pixel);
  // A smaller tile changes no pixel: the same images as the IMR reference.
  const Result imr = run(trace, set, RenderPath::imr);
  ASSERT_EQ(r.stored.images.size(), imr.stored.images.size());
  for (const auto& [key, surface] : imr.stored.images) EXPECT_TRUE(same_pixels(r.image(key), surface)) << key;
}

const std::pair<std::string, uint32_t> kRgba8{"RGBA8", 1}, kRgba16f{"RGBA16F", 1};

// 4 x RGBA8 = 4 x 32 = 128 bit/px: exactly the budget, no shrink. 64x64 / 16x16 = 16 tiles.
TEST(RenderPassTileBudget, ExactlyAtTheBudgetKeepsSixteenBySixteen) {
  expect_budget_case({{kRgba8, kRgba8, kRgba8, kRgba8}, 16, 16, 16, "tile 16x16: color storage 128 bit/px within budget 128"});
}

// 3 x RGBA8 + 1 x RGBA16F = 96 + 64 = 160 bit/px: 16x16 x 160 > 16x16 x 128, so the height halves:
// 16x8 x 160 = 20480 <= 32768. The tile count doubles: 64x64 / 16x8 = 4 x 8 = 32.
TEST(RenderPassTileBudget, OneFormatWiderShrinksToSixteenByEight) {
  expect_budget_case({{kRgba8, kRgba8, kRgba8, kRgba16f}, 16, 8, 32, "tile 16x8: color storage 160 bit/px exceeds budget 128"});
}

// Samples count: 4x RGBA8 = 4 x 32 = 128 bit/px, within budget; 8x RGBA8 = 256 bit/px, twice the
// budget: 16x8 x 256 = 32768 = 16x16 x 128 fits exactly, so one halving (16x8, 32 tiles) suffices;
// 8x RGBA16F = 512 bit/px needs two: 8x8, 64 tiles.
TEST(RenderPassTileBudget, SamplesCountInTheColorStorage) {
  expect_budget_case({{{"RGBA8", 4}}, 16, 16, 16, "tile 16x16: color storage 128 bit/px within budget 128"});
  expect_budget_case({{{"RGBA8", 8}}, 16, 8, 32, "tile 16x8: color storage 256 bit/px exceeds budget 128"});
  expect_budget_case({{{"RGBA16F", 8}}, 8, 8, 64, "tile 8x8: color storage 512 bit/px exceeds budget 128"});
}

// A G72-class budget of 256 bit/px keeps 16x16 for the 160 bit/px pass.
TEST(RenderPassTileBudget, BudgetParameterMovesTheBoundary) {
  expect_budget_case({{kRgba8, kRgba8, kRgba8, kRgba16f}, 16, 16, 16, "tile 16x16: color storage 160 bit/px within budget 256"},
                     {"tiling.budget_bits_per_px=256"});
}

// The merged deferred pass is exactly at the budget too (albedo + normal + hdr = 128 bit/px):
// mali_budget keeps 16x16 there.
TEST(RenderPassTileBudget, MergedDeferredPassIsWithinTheBudget) {
  const Result r = run(feature_trace("merge_accepted_deferred"), {"tiling=mali_budget"});
  ASSERT_EQ(r.pass().hardware_passes.size(), 1u);
  EXPECT_EQ(r.pass().hardware_passes[0].tile_reason, "tile 16x16: color storage 128 bit/px within budget 128");
  EXPECT_EQ(r.pass().hardware_passes[0].tiles, 16u);
}

// ---- MSAA: inline against separate resolve ---------------------------------------------------------

// The same 4x color + depth scene. Inline: the samples stay on chip; only the resolved RGBA8
// image is written, 16384 B in `resolve`. Separate: the 4x image is stored (64 x 64 x 4 B x 4
// samples = 65536 B attachment_store), then the resolve pass reads it (65536 B) and writes the
// resolved image (16384 B), both in `resolve`.
TEST(RenderPassMsaa, InlineAndSeparateResolveGiveTheSameImage) {
  const Result inline_run = run(feature_trace("msaa_inline_resolve"));
  const Result separate = run(feature_trace("msaa_separate_resolve"));
  const Surface& a = inline_run.image("msaa_scene/resolved");
  const Surface& b = separate.image("resolve_image/resolved");
  EXPECT_TRUE(same_pixels(a, b));
  // Not trivially equal: some pixels are a mix of samples (edges).
  const Surface& msaa = separate.image("msaa_scene/msaa_color");
  size_t edge_pixels = 0;
  for (uint32_t y = 0; y < msaa.height; ++y)
    for (uint32_t x = 0; x < msaa.width; ++x)
      for (uint32_t s = 1; s < msaa.samples; ++s)
        if (msaa.color[msaa.index(x, y, s)] != msaa.color[msaa.index(x, y, 0)]) {
          ++edge_pixels;
          break;
        }
  EXPECT_GT(edge_pixels, 50u);

  const PassStats& inline_pass = inline_run.pass(0);
  ASSERT_EQ(inline_run.stats.frames[0].passes.size(), 1u);
  expect_attachment_bytes(inline_pass.dram, 0, 0, traffic(0, kRgba8Image));
  // 4x RGBA8 16 B + 4x D32F 16 B = 32 B/px, x 256 = 8192 B per tile: the resolved image is
  // written at write-back, not held in the tile buffer, so both ways hold the same working set.
  EXPECT_EQ(inline_pass.working_set_bytes_per_tile, 8192u);

  ASSERT_EQ(separate.stats.frames[0].passes.size(), 2u);
  expect_attachment_bytes(separate.pass(0).dram, 0, 4 * kRgba8Image);
  EXPECT_EQ(separate.pass(0).working_set_bytes_per_tile, 8192u);
  EXPECT_EQ(separate.pass(1).type, "resolve");
  expect_attachment_bytes(separate.pass(1).dram, 0, 0, traffic(4 * kRgba8Image, kRgba8Image));
  // Frame totals: the separate resolve costs 65536 B written and 65536 B read more.
  const DramLedger& ti = inline_run.stats.dram;
  const DramLedger& ts = separate.stats.dram;
  EXPECT_EQ(ti[DramCategory::resolve], traffic(0, 16384));
  EXPECT_EQ(ts[DramCategory::resolve], traffic(65536, 16384));
  EXPECT_EQ(ts[DramCategory::attachment_store], traffic(0, 65536));
  EXPECT_EQ(ti[DramCategory::attachment_store], traffic(0, 0));
}

}  // namespace
}  // namespace tbdr
