// The compute read rule (traces/README.md `compute`): a compute read counts the texels its program
// reads: `downsample` every texel of its 2x2 filter, `histogram` one per step block; `step` on
// `downsample` is refused. Bytes are computed by hand in each test.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "sim/stats.h"

namespace tbdr {
namespace {

using nlohmann::json;

// An object of the given members, built key by key: a braced list of one pair would be an array under
// clang (the sanitizer build) and an object under GCC.
json object(const std::vector<std::pair<std::string, json>>& members) {
  json o = json::object();
  for (const auto& [key, value] : members) o[key] = value;
  return o;
}

json image(const std::string& name, const std::string& format, int width, int height, const std::string& usage) {
  return object({{"name", name}, {"format", format}, {"width", width}, {"height", height},
                 {"usage", json::array({usage})}});
}

// One frame of one compute pass reading `src` (W x H RGBA8) into `dst` (w x h); `read` adds to reads[0].
json compute_trace(const std::string& program, int src_w, int src_h, int dst_w, int dst_h, const std::string& dst_format,
                   json read) {
  read["image"] = "src";
  json pass = object({{"name", "work"}, {"type", "compute"}, {"program", object({{"name", program}})}});
  pass["reads"] = json::array({read});
  pass["writes"] = json::array({object({{"image", "dst"}})});
  json trace = object({{"format", "tbdrsim-trace"}, {"version", 1}, {"name", "compute"}});
  trace["images"] = json::array({image("src", "RGBA8", src_w, src_h, "sampled"),
                                 image("dst", dst_format, dst_w, dst_h, "storage")});
  trace["frames"] = json::array({object({{"passes", json::array({pass})}})});
  return trace;
}

// The compute pass's sampled-image reads, in bytes.
uint64_t sampled_read_bytes(const json& trace) {
  const Trace t = read_trace_text(trace.dump(), ".", "compute.json");
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("reference"));
  const RunStats stats = simulate(t, models, SimOptions{}, nullptr);
  const PassStats& pass = stats.frames.at(0).passes.at(0);
  EXPECT_EQ(pass.type, "compute");
  return pass.dram[DramCategory::image_sample].read_bytes;
}

TEST(ComputeFootprint, DownsampleOfAnOddSourceReadsItsTwoByTwoFilter) {
  // 3x3 -> 1x1: output (0, 0) reads source (0..1, 0..1); the last column and row are never read.
  // 4 texels x 4 B (RGBA8) = 16 B, not the 3 x 3 x 4 = 36 B of "one texel per step block".
  EXPECT_EQ(sampled_read_bytes(compute_trace("downsample", 3, 3, 1, 1, "RGBA8", json::object())), 16u);
}

TEST(ComputeFootprint, DownsampleOfAOneTexelWideRegionReadsTheNextColumnToo) {
  // A 1x4 region at x = 1 of a 4x4 image -> 1x2: the filter reads columns 1 and 2 (the image's, not the
  // region's, edge clamps) and rows 0..3: 2 x 4 texels x 4 B = 32 B (the old min(region, 4 x output) gave 16 B).
  const json region = object({{"region", object({{"x", 1}, {"y", 0}, {"width", 1}, {"height", 4}})}});
  EXPECT_EQ(sampled_read_bytes(compute_trace("downsample", 4, 4, 1, 2, "RGBA8", region)), 32u);
}

TEST(ComputeFootprint, HistogramReadsOneTexelPerStepBlock) {
  // 8x8 with step [2, 2]: texels (0, 2, 4, 6) x (0, 2, 4, 6) = 16 x 4 B = 64 B.
  EXPECT_EQ(sampled_read_bytes(compute_trace("histogram", 8, 8, 256, 1, "R32F", object({{"step", json::array({2, 2})}}))), 64u);
}

TEST(ComputeFootprint, StepOnDownsampleIsRefusedNamingTheField) {
  // 8x8 with step [2, 2]: the filter would read all 256 B, which the step promises it does not.
  const json trace = compute_trace("downsample", 8, 8, 4, 4, "RGBA8", object({{"step", json::array({2, 2})}}));
  try {
    read_trace_text(trace.dump(), ".", "compute.json");
    FAIL() << "step on downsample was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("compute.json: /frames/0/passes/0/reads/0/step"), std::string::npos) << e.what();
  }
  // Without step the same pass reads its whole 8x8 source: 64 texels x 4 B.
  EXPECT_EQ(sampled_read_bytes(compute_trace("downsample", 8, 8, 4, 4, "RGBA8", json::object())), 256u);
}

}  // namespace
}  // namespace tbdr
