// Local reads in dynamic rendering (VK_KHR_dynamic_rendering_local_read, VK_EXT_shader_tile_image):
// the same lighting as subpasses and as local reads gives the same bytes, cycles and images.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "frontend/trace_reader.h"
#include "models/errors.h"

namespace fs = std::filesystem;

namespace {

const fs::path kTraces = fs::path(TBDR_SOURCE_DIR) / "traces/local_read";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `tbdrsim run` on a trace into its own folder; returns the report without the trace's name.
nlohmann::json run_report(const std::string& trace, const std::string& preset, const fs::path& out,
                          const std::string& extra = "") {
  fs::remove_all(out);
  fs::create_directories(out);
  std::string cmd = "'" + TBDR_BINARY_DIR + "/tbdrsim' run '" + (kTraces / trace).string() + "' --preset " + preset +
                    " " + extra + " --quiet --out '" + (out / "images").string() + "' --json '" + (out / "report.json").string() + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  nlohmann::json report = nlohmann::json::parse(slurp(out / "report.json"));
  report.erase("trace");
  return report;
}

// The stored images of a run, by file name, as bytes.
std::map<std::string, std::string> images_of(const fs::path& out) {
  std::map<std::string, std::string> images;
  for (const auto& e : fs::directory_iterator(out / "images")) images[e.path().filename().string()] = slurp(e.path());
  return images;
}

// A trace of the pair with one edit to its rendering scope, read from text.
std::string local_read_with(const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json trace = nlohmann::json::parse(slurp(kTraces / "deferred_local_read.json"));
  edit(trace["frames"][0]["passes"][0]["rendering"]);
  return trace.dump();
}

std::string reader_error(const std::string& text) {
  try {
    (void)tbdr::read_trace_text(text, kTraces, "edited.json");
  } catch (const tbdr::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

// The trace pair of traces/local_read: subpasses vs one dynamic-rendering scope with a local-read
// barrier (and its VK_EXT_shader_tile_image variant). Every figure of the report and every PNG
// byte is equal, under a preset that merges (mali-g710) and the reference.
TEST(LocalRead, SubpassesAndLocalReadsGiveTheSameBytesCyclesAndImages) {
  const fs::path scratch = fs::path(TBDR_BINARY_DIR) / "test-scratch/local_read";
  for (const char* preset : {"reference", "mali-g710", "adreno-a740"}) {
    SCOPED_TRACE(preset);
    const nlohmann::json subpasses = run_report("deferred_subpasses.json", preset, scratch / "subpasses");
    const auto subpass_images = images_of(scratch / "subpasses");
    ASSERT_FALSE(subpass_images.empty());
    for (const char* trace : {"deferred_local_read.json", "deferred_tile_image.json"}) {
      SCOPED_TRACE(trace);
      const nlohmann::json local = run_report(trace, preset, scratch / "local");
      EXPECT_EQ(local, subpasses);
      EXPECT_TRUE(images_of(scratch / "local") == subpass_images);
    }
  }
  // The in-simulator IMR path draws the same pixels.
  run_report("deferred_local_read.json", "reference", scratch / "imr", "--imr");
  run_report("deferred_local_read.json", "reference", scratch / "tbdr");
  EXPECT_TRUE(images_of(scratch / "imr") == images_of(scratch / "tbdr"));
  // The G-buffer stays on chip when merged: only the HDR image is stored, nothing is loaded.
  const nlohmann::json g710 = run_report("deferred_local_read.json", "mali-g710", scratch / "g710");
  const nlohmann::json& pass = g710["frames"][0]["passes"][0];
  EXPECT_TRUE(pass["merge"]["merged"].get<bool>()) << pass["merge"].dump();
  EXPECT_EQ(pass["dram_nominal"]["by_category"]["attachment_load"]["read_bytes"].get<uint64_t>(), 0u);
  // 240 x 320 RGBA16F: 614,400 B.
  EXPECT_EQ(pass["dram_nominal"]["by_category"]["attachment_store"]["write_bytes"].get<uint64_t>(), 614400u);
}

// The scope is lowered to the subpasses of traces/local_read/deferred_subpasses.json.
TEST(LocalRead, ScopeIsLoweredToSubpassesAtTheBarrier) {
  const tbdr::Trace t = tbdr::read_trace(kTraces / "deferred_local_read.json");
  const tbdr::Pass& pass = t.frames[0].passes[0];
  EXPECT_EQ(pass.local_read, tbdr::LocalRead::input_attachment);
  ASSERT_EQ(pass.subpasses.size(), 2u);
  EXPECT_EQ(pass.subpasses[0].color, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(pass.subpasses[0].draws.size(), 3u);
  EXPECT_EQ(pass.subpasses[1].color, (std::vector<int32_t>{3}));
  EXPECT_EQ(pass.subpasses[1].input, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(pass.subpasses[1].depth, 2);
  ASSERT_EQ(pass.dependencies.size(), 1u);
  EXPECT_TRUE(pass.dependencies[0].by_region);
}

// Bad local reads are refused with one line naming the field.
TEST(LocalRead, BadLocalReadsAreRefusedNamingTheField) {
  // A local read of an attachment that is not in the scope (hdr is attachment 3; drop it from `color`).
  std::string e = reader_error(local_read_with([](nlohmann::json& r) {
    r["color"] = nlohmann::json::array({0, 1});
    for (auto& d : r["draws"]) d["color_locations"] = nlohmann::json::array({0, 1});
    r["draws"][3]["local_reads"] = nlohmann::json::array({0, 1, 3});
  }));
  EXPECT_NE(e.find("/rendering/draws/3/local_reads/2"), std::string::npos) << e;
  EXPECT_NE(e.find("not in the rendering scope"), std::string::npos) << e;
  // No local-read barrier between the G-buffer writes and the read.
  e = reader_error(local_read_with([](nlohmann::json& r) { r["draws"][3].erase("barrier_before"); }));
  EXPECT_NE(e.find("/rendering/draws/3/local_reads"), std::string::npos) << e;
  EXPECT_NE(e.find("no local-read barrier"), std::string::npos) << e;
  // VK_EXT_shader_tile_image: color reads are coherent, a depth read still needs the barrier.
  e = reader_error(local_read_with([](nlohmann::json& r) {
    r["reads"] = "tile_image";
    r["draws"][3].erase("barrier_before");
  }));
  EXPECT_NE(e.find("attachment 2 was written"), std::string::npos) << e;
  e = reader_error(local_read_with([](nlohmann::json& r) {
    r["reads"] = "tile_image";
    r["draws"][3].erase("barrier_before");
    r["draws"][3]["local_reads"] = nlohmann::json::array({0, 1});
  }));
  EXPECT_EQ(e, "");
  // A draw reading what it writes.
  e = reader_error(local_read_with([](nlohmann::json& r) { r["draws"][3]["local_reads"] = nlohmann::json::array({3}); }));
  EXPECT_NE(e.find("which it writes"), std::string::npos) << e;
  // Both `rendering` and `subpasses`; an unknown `reads`.
  e = reader_error(local_read_with([](nlohmann::json& r) { r["reads"] = "framebuffer_fetch"; }));
  EXPECT_NE(e.find("/rendering/reads"), std::string::npos) << e;
  e = reader_error(local_read_with([](nlohmann::json& r) { r["draws"][0]["color_locations"] = nlohmann::json::array({0, 0, nullptr}); }));
  EXPECT_NE(e.find("/rendering/draws/0/color_locations/1"), std::string::npos) << e;
}

// Merge feedback for a scope as for subpasses: a tile-buffer budget too small for the G-buffer and
// the HDR image splits the scope at the barrier, with the budget as the reason, and the G-buffer
// makes the DRAM round trip.
TEST(LocalRead, BudgetOverflowSplitsTheScopeWithAReason) {
  const fs::path out = fs::path(TBDR_BINARY_DIR) / "test-scratch/local_read_budget";
  fs::remove_all(out);
  fs::create_directories(out);
  const std::string cmd = "'" + TBDR_BINARY_DIR + "/tbdrsim' run '" + (kTraces / "deferred_local_read.json").string() +
                          "' --preset mali-g710 --set merge=arm_budget --set merge.budget_bits_per_px=64 --quiet --no-images --json '" +
                          (out / "report.json").string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const nlohmann::json pass = nlohmann::json::parse(slurp(out / "report.json"))["frames"][0]["passes"][0];
  EXPECT_FALSE(pass["merge"]["merged"].get<bool>());
  // The round trip: albedo and normal (4 B each) and depth (4 B) stored and loaded back, 240 x 320.
  EXPECT_EQ(pass["dram"]["by_category"]["attachment_load"]["read_bytes"].get<uint64_t>(), 240u * 320u * 12u);
  EXPECT_NE(pass["merge"].dump().find("color storage 128 bit/px exceeds budget 64 merging subpass 0 and 1"), std::string::npos) << pass["merge"].dump();
}
