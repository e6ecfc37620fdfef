// Tile shading (VK_QCOM_tile_shading) and tile memory (VK_QCOM_tile_memory_heap): per-tile dispatches
// costed once per tile, and buffers in tile memory that never touch DRAM; hand-computed figures.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "sim/pipeline.h"

using namespace tbdr;
using nlohmann::json;

namespace {

// A 64 x 48 RGBA8 pass (16 x 16 tiles under `reference`: 4 x 3 = 12 tiles) with no draws, cleared and
// not stored, whose subpass runs the given tile dispatches.
json tile_pass(const std::string& name, const json& dispatches) {
  json subpass = {{"color", json::array({0})}};
  if (!dispatches.empty()) subpass["tile_dispatches"] = dispatches;
  return {{"name", name},
          {"attachments", json::array({json{{"image", "target"}, {"load", "clear"}, {"store", "dont_care"}}})},
          {"subpasses", json::array({subpass})}};
}

json tile_trace(const std::string& memory, const json& passes) {
  return {{"format", "tbdrsim-trace"},
          {"version", 1},
          {"images", json::array({json{{"name", "target"}, {"format", "RGBA8"}, {"width", 64}, {"height", 48}}})},
          {"buffers", json::array({json{{"name", "lights"}, {"size", 4096}, {"memory", memory}}})},
          {"frames", json::array({json{{"passes", passes}}})}};
}

// groups 2 x 2 x 1 of local size 8 x 8 x 1: 256 invocations per tile, 8 ALU lane-ops each.
json dispatch(const char* buffer_key) {
  json d = {{"groups", json::array({2, 2, 1})}, {"local_size", json::array({8, 8, 1})}, {"cost", {{"alu", 8}}}};
  if (buffer_key) d[buffer_key] = json::array({"lights"});
  return d;
}

RunStats run(const json& trace) {
  const Trace t = read_trace_text(trace.dump(), ".", "tile.json");
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("reference"));
  return simulate(t, models, SimOptions{}, nullptr);
}

}  // namespace

// Per tile: 256 invocations = 64 quads x 4 lanes x 8 ALU ops = 2,048 lane-ops, at reference's
// 32 lane-ops per clock = 64 cycles; 12 tiles on one core: 768 cycles, all of the pass's fragment
// time (no draws, nothing loaded or stored).
TEST(TileShading, PerTileDispatchCostsTilesTimesPerTileCycles) {
  const RunStats with = run(tile_trace("device", json::array({tile_pass("p", json::array({dispatch(nullptr)}))})));
  const RunStats without = run(tile_trace("device", json::array({tile_pass("p", json::array())})));
  const PassStats& p = with.frames[0].passes[0];
  const PassStats& q = without.frames[0].passes[0];
  EXPECT_EQ(p.counters.tiles, 12u);
  EXPECT_DOUBLE_EQ(p.cycles.breakdown.alu, 12 * 64.0);
  EXPECT_DOUBLE_EQ(q.cycles.breakdown.alu, 0.0);
  EXPECT_DOUBLE_EQ(p.cycles.fragment - q.cycles.fragment, 12 * 64.0);
}

// A 4,096 B buffer written by pass 1's tile dispatch and read by pass 2's: in device memory it
// moves exactly its size twice (4,096 B written, 4,096 B read); in tile memory 0 B, and nothing
// else in either ledger changes.
TEST(TileShading, TileMemoryBufferNeverTouchesDram) {
  const json passes = json::array({tile_pass("write", json::array({dispatch("writes")})),
                                   tile_pass("read", json::array({dispatch("reads")}))});
  const RunStats device = run(tile_trace("device", passes));
  const RunStats tile = run(tile_trace("tile", passes));
  EXPECT_EQ(device.frames[0].passes[0].dram[DramCategory::buffer].write_bytes, 4096u);
  EXPECT_EQ(device.frames[0].passes[0].dram[DramCategory::buffer].read_bytes, 0u);
  EXPECT_EQ(device.frames[0].passes[1].dram[DramCategory::buffer].read_bytes, 4096u);
  const Traffic device_total = device.dram.total(), tile_total = tile.dram.total();
  EXPECT_EQ(device_total.read_bytes + device_total.write_bytes, 2 * 4096u);
  EXPECT_EQ(tile_total.read_bytes + tile_total.write_bytes, 0u);
  EXPECT_EQ(tile.dram_nominal.total().read_bytes + tile.dram_nominal.total().write_bytes, 0u);
  EXPECT_EQ(device.frames[0].passes[1].cycles.breakdown.alu, tile.frames[0].passes[1].cycles.breakdown.alu);
}

// Bad tile-shading input: one line naming the file and the field.
TEST(TileShading, BadInputNamesTheField) {
  auto error = [](const json& trace) -> std::string {
    try {
      (void)read_trace_text(trace.dump(), ".", "tile.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  json bad_memory = tile_trace("gmem", json::array({tile_pass("p", json::array())}));
  EXPECT_NE(error(bad_memory).find("tile.json: /buffers/0/memory"), std::string::npos) << error(bad_memory);
  json unknown = tile_trace("tile", json::array({tile_pass("p", json::array({dispatch("reads")}))}));
  unknown["buffers"][0]["name"] = "other";
  EXPECT_NE(error(unknown).find("/subpasses/0/tile_dispatches/0/reads/0"), std::string::npos) << error(unknown);
  json zero = tile_trace("tile", json::array({tile_pass("p", json::array({dispatch(nullptr)}))}));
  zero["frames"][0]["passes"][0]["subpasses"][0]["tile_dispatches"][0]["groups"][1] = 0;
  EXPECT_NE(error(zero).find("/tile_dispatches/0/groups/1"), std::string::npos) << error(zero);
  json no_size = tile_trace("tile", json::array({tile_pass("p", json::array())}));
  no_size["buffers"][0].erase("size");
  EXPECT_NE(error(no_size).find("/buffers/0/size"), std::string::npos) << error(no_size);
}
