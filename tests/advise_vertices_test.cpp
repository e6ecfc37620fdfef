// `tbdrsim advise`'s rule on vertex layouts (tools/commands/advise_rules_vertices.cpp): a 64x64 quad whose
// vertex buffer interleaves positions and colors, priced under a position-only binning pass.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/advise_test_helpers.h"

namespace tbdr::advise {
namespace {

// adreno-a740's binning pass (geometry=binning_pass, scheduler=bv_br) with direct=never (turnip's
// autotune would render so small a pass in sysmem, where no binning pass runs) and a DRAM of 1 B a
// cycle without latency, so that a phase's DRAM time is its bytes.
const json kBinningPreset = {{"name", "a740-binned"},
                             {"description", "adreno-a740, always binned, 1 B/clk DRAM"},
                             {"base", "adreno-a740"},
                             {"models", {{"direct", {{"impl", "never"}}}, {"dram", {{"bytes_per_cycle", 1}, {"latency", 0}}}}}};

// One render pass into the presented 64x64 swapchain: a full-screen quad (4 clip-space vertices,
// 16 B positions and 16 B colors, 6 16-bit indices) in one interleaved vertex buffer, drawn with
// `vertex_color` at 6144 ALU a fragment so that rendering, not DRAM, bounds the fragment phase.
json quad_trace() {
  json mesh = {{"name", "quad"},        {"position_components", 4},
               {"positions", {-1, -1, 0.5, 1, 1, -1, 0.5, 1, 1, 1, 0.5, 1, -1, 1, 0.5, 1}},
               {"colors", {1, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1, 1}},
               {"indices", {0, 1, 2, 0, 2, 3}}, {"index_bits", 16}, {"interleaved", true}};
  json d = draw("quad");
  d["program"] = {{"name", "vertex_color"}};
  d["cost"] = {{"alu", 6144}};
  json t = trace_of({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
                    {pass("main", {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}}},
                          {{{"color", {0}}, {"draws", {d}}}})});
  t["meshes"] = json::array({mesh});
  return t;
}

// The one hardware pass of the last frame of `trace` simulated under `preset`.
HardwarePassStats hardware_pass(const json& trace, const TempTrace& t, const std::string& preset) {
  RunStats stats;
  price(trace, t.dir, preset, 1, &stats);
  return stats.frames.back().passes.at(0).hardware_passes.at(0);
}

TEST(AdviseVertices, InterleavedPositionsSplitUnderABinningPass) {
  // Worked by hand (traces/README.md's `vertex` and `tile_list` rules, models/README.md "geometry"):
  //   vertex ledger, either layout: 4 unique vertices x (16 + 16) B + 6 indices x 2 B = 140 B.
  //   binning pass fetch (`position_read_bytes`): interleaved, whole vertices: 4 x 32 + 12 = 140 B;
  //     split, positions alone: 4 x 16 + 12 = 76 B. 64 B less.
  //   tile-list writes (geometry phase too): 2 triangles x 3 x (16 + 4 x 4 color components) = 192 B
  //     of records + 2 entries (one bin holds 64x64) x 4 B = 200 B.
  //   geometry phase DRAM at 1 B/clk: 140 + 200 = 340 cycles, split 76 + 200 = 276; the geometry
  //     model's own work (no vertex_alu, 2 triangles set up, 2 binned, 2 entries) is 6 cycles: DRAM bounds it.
  //   fragment phase: at least 4096 fragments x 6144 / 768 ALU a clock = 32,768 cycles of ALU (the
  //     quads on the diagonal shade for both triangles), more than its DRAM time (the 16,384 B store
  //     at most, before UBWC, and the rest: under 17,000 B): the 64 B moved to it change nothing there.
  //   frame = geometry + fragment (one pass): 64 cycles saved, the same DRAM bytes and pixels.
  const TempTrace t(quad_trace());
  const std::string preset = (t.dir / "a740-binned.json").string();
  std::ofstream(preset) << kBinningPreset.dump(2);
  const Advice a = run_advice(t, preset);
  const Finding& f = finding(a, "split-positions");
  EXPECT_EQ(f.id, "split-positions:quad");
  EXPECT_EQ(f.edit, json::array({{{"op", "replace"}, {"path", "/meshes/0/interleaved"}, {"value", false}}}));
  EXPECT_EQ(f.verdict, Verdict::saves);
  EXPECT_FALSE(f.changes_images);
  EXPECT_EQ(saved_total(a, f, false), 0);
  EXPECT_EQ(a.before.dram[DramCategory::vertex].read_bytes, 140u);
  EXPECT_EQ(a.before.cycles - f.after.cycles, 64.0);

  const json original = read_json(t.file), split = apply_edits(original, {&f});
  const HardwarePassStats before = hardware_pass(original, t, preset), after = hardware_pass(split, t, preset);
  EXPECT_EQ(before.cycles.breakdown.geometry_dram, 340.0);
  EXPECT_EQ(after.cycles.breakdown.geometry_dram, 276.0);
  EXPECT_EQ(before.cycles.geometry, 340.0);
  EXPECT_GT(before.cycles.fragment, before.cycles.breakdown.fragment_dram + 64);  // rendering bounds it
  EXPECT_EQ(after.cycles.fragment, before.cycles.fragment);
  expect_same_images(t, f, "f0/swapchain", preset);

  const Cli r = advise_cli(t.dir, "t.json --preset '" + preset + "' --apply split-positions -o edited.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const FrameFigures applied = price(read_json(t.dir / "edited.json"), t.dir, preset, 1);
  EXPECT_EQ(a.before.cycles - applied.cycles, 64.0);
  EXPECT_EQ(applied.dram.total().read_bytes, a.before.dram.total().read_bytes);
}

TEST(AdviseVertices, NoFindingWithoutABinningPass) {
  // reference: geometry=basic fetches every attribute in the geometry phase whatever the layout, so
  // the edit changes nothing and the finding is not listed (--all lists it as no change).
  const TempTrace t(quad_trace());
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "split-positions");
  EXPECT_EQ(f.verdict, Verdict::no_change);
  EXPECT_FALSE(recommended(f));
  EXPECT_EQ(advice_text(a).find("split-positions"), std::string::npos);
  EXPECT_NE(advice_text(a, true).find("split-positions:quad"), std::string::npos);
}

}  // namespace
}  // namespace tbdr::advise
