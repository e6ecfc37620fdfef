// Captured compute dispatches (`captured_compute`, traces/README.md `compute`): the reader's
// contract, the DRAM bytes of the bound levels, the captured pixels written, and the dispatch's
// shading time, each worked out by hand under the `reference` preset.
#include <gtest/gtest.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tests/stored_images.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace tbdr {
namespace {

// A folder with the dispatch's captured 8x8 level: pixel (x, y) = (8x, 8y, 100, 255) / 255.
struct DispatchFolder {
  fs::path dir;
  DispatchFolder() {
    std::string pattern = (fs::temp_directory_path() / "tbdr-compute-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
    std::vector<unsigned char> rgba;
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x) rgba.insert(rgba.end(), {uint8_t(8 * x), uint8_t(8 * y), 100, 255});
    stbi_write_png((dir / "dst.png").c_str(), 8, 8, 4, rgba.data(), 8 * 4);
  }
  ~DispatchFolder() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

// A 16x16 RGBA8 source read and an 8x8 RGBA8 level written: 2 x 2 groups of 4 x 4 = 64 invocations.
json dispatch_trace(double alu) {
  json pass = {{"name", "dispatch"}, {"type", "compute"}, {"program", {{"name", "captured_compute"}}},
               {"groups", {2, 2, 1}}, {"local_size", {4, 4, 1}},
               {"reads", json::array({{{"image", "src"}}})},
               {"writes", json::array({{{"image", "dst"}, {"contents", {{"file", "dst.png"}, {"captured", true}}}}})},
               {"cost", {{"alu", alu}}}};
  return {{"format", "tbdrsim-trace"}, {"version", 1},
          {"images", json::array({{{"name", "src"}, {"format", "RGBA8"}, {"width", 16}, {"height", 16}, {"usage", {"sampled"}}},
                                  {{"name", "dst"}, {"format", "RGBA8"}, {"width", 8}, {"height", 8}, {"usage", {"storage"}}}})},
          {"frames", json::array({{{"passes", json::array({pass})}}})}};
}

struct DispatchRun {
  RunStats stats;
  StoredImages images;
};
DispatchRun simulate_dispatch(const DispatchFolder& folder, const json& trace) {
  DispatchRun run;
  const Trace t = read_trace_text(trace.dump(), folder.dir, "dispatch.json");
  run.stats = simulate(t, models::build_models(models::Configuration::from_preset("reference")), SimOptions{}, &run.images);
  return run;
}

TEST(CapturedCompute, CountsTheBoundLevelsAndWritesTheCapturedPixels) {
  const DispatchFolder folder;
  const DispatchRun run = simulate_dispatch(folder, dispatch_trace(0));
  const PassStats& pass = run.stats.frames.at(0).passes.at(0);
  // Reads: the whole 16x16 RGBA8 level, 1024 B; writes: the whole 8x8 level, 256 B.
  EXPECT_EQ(pass.dram[DramCategory::image_sample].read_bytes, 16u * 16 * 4);
  EXPECT_EQ(pass.dram[DramCategory::attachment_store].write_bytes, 8u * 8 * 4);
  EXPECT_EQ(pass.dram.total().read_bytes + pass.dram.total().write_bytes, 1280u);
  const Surface& dst = run.images.images.at("f0/dispatch/out0/dst");
  ASSERT_EQ(dst.width, 8u);
  for (uint32_t y = 0; y < 8; ++y)
    for (uint32_t x = 0; x < 8; ++x) {
      const Vec4 expected(float(8 * x) / 255, float(8 * y) / 255, 100.0f / 255, 1);
      EXPECT_LT((dst.color[dst.index(x, y, 0)] - expected).cwiseAbs().maxCoeff(), 1e-6f) << x << "," << y;
    }
  // No shading cost: the pass takes its DRAM time, as a built-in program does.
  EXPECT_EQ(pass.cycles.breakdown.alu, 0.0);
  EXPECT_EQ(pass.cycles.fragment, pass.cycles.breakdown.fragment_dram);
}

TEST(CapturedCompute, ShadingTimeIsTheInvocationsAtTheShaderRate) {
  // 64 invocations x 1000 ALU lane-instructions / 32 lane-instructions per clock (reference's
  // `shader.alu_ops_per_clk`) on its one core = 2000 cycles, longer than the 1280 B of DRAM.
  const DispatchFolder folder;
  const DispatchRun run = simulate_dispatch(folder, dispatch_trace(1000));
  const PassStats& pass = run.stats.frames.at(0).passes.at(0);
  EXPECT_EQ(pass.cycles.breakdown.alu, 2000.0);
  EXPECT_EQ(pass.cycles.fragment, 2000.0);
  EXPECT_LT(pass.cycles.breakdown.fragment_dram, 2000.0);
}

void expect_refused(const DispatchFolder& folder, const json& trace, const std::string& field, const std::string& text) {
  try {
    (void)read_trace_text(trace.dump(), folder.dir, "dispatch.json");
    ADD_FAILURE() << "accepted; expected an error at " << field;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(field), std::string::npos) << message;
    EXPECT_NE(message.find(text), std::string::npos) << message;
  }
}

TEST(CapturedCompute, TheReaderRefusesWhatADispatchCannotBe) {
  const DispatchFolder folder;
  json t = dispatch_trace(0);
  json& pass = t["frames"][0]["passes"][0];
  pass["groups"] = {65536, 1, 1};
  expect_refused(folder, t, "/frames/0/passes/0/groups/0", "65535");
  pass["groups"] = {2, 2, 1};
  pass["local_size"] = {0, 4, 1};
  expect_refused(folder, t, "/frames/0/passes/0/local_size/0", "");
  pass["local_size"] = {4, 4, 1};
  pass.erase("groups");
  expect_refused(folder, t, "/frames/0/passes/0", "groups");
  pass["groups"] = {2, 2, 1};
  pass["reads"][0]["contents"] = {{"file", "dst.png"}};
  expect_refused(folder, t, "/frames/0/passes/0/reads/0", "contents");
  pass["reads"][0].erase("contents");
  pass["program"]["name"] = "histogram";
  expect_refused(folder, t, "/frames/0/passes/0/groups", "only a captured_compute pass");
}

// Buffers a dispatch binds (traces/README.md `compute`, BUFFER): `params` (4,096 B) listed twice in
// buffer_reads counts once, `gmem` (512 B, tile memory) 0 B, `scratch` (1,000 B) written once: the
// pass's `buffer` ledger is 4,096 B read and 1,000 B written, on top of the images' 1,280 B, and its
// DRAM time is that of 6,376 B. An unknown buffer name is refused naming the field.
TEST(CapturedCompute, BoundBuffersCountTheirSizeOnce) {
  const DispatchFolder folder;
  json trace = dispatch_trace(0);
  trace["buffers"] = json::array({{{"name", "params"}, {"size", 4096}},
                                  {{"name", "scratch"}, {"size", 1000}},
                                  {{"name", "gmem"}, {"size", 512}, {"memory", "tile"}}});
  json& pass = trace["frames"][0]["passes"][0];
  pass["buffer_reads"] = json::array({"params", "gmem", "params"});
  pass["buffer_writes"] = json::array({"scratch"});
  const DispatchRun run = simulate_dispatch(folder, trace);
  const PassStats& stats = run.stats.frames.at(0).passes.at(0);
  EXPECT_EQ(stats.dram[DramCategory::buffer].read_bytes, 4096u);
  EXPECT_EQ(stats.dram[DramCategory::buffer].write_bytes, 1000u);
  EXPECT_EQ(stats.dram.total().read_bytes + stats.dram.total().write_bytes, 1280u + 4096 + 1000);
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("reference"));
  EXPECT_EQ(stats.cycles.breakdown.fragment_dram, models.dram->transfer_cycles(models::Bytes(6376)).value);
  pass["buffer_writes"] = json::array({"nothing"});
  expect_refused(folder, trace, "/frames/0/passes/0/buffer_writes/0", "nothing");
}

}  // namespace
}  // namespace tbdr
