// Tile shading (VK_QCOM_tile_shading) and tile memory (VK_QCOM_tile_memory_heap): per-tile dispatches and
// draws costed once per tile, and buffers in tile memory that never touch DRAM; hand-computed figures.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

RunStats run(const json& trace, RenderPath path = RenderPath::tbdr) {
  const Trace t = read_trace_text(trace.dump(), ".", "tile.json");
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("reference"));
  SimOptions options;
  options.path = path;
  return simulate(t, models, options, nullptr);
}

// The same 64 x 48 target covered by one full-screen quad: 4 clip-space vertices (16 B each), 6
// 32-bit indices, 16 vertex ALU lane-ops per vertex; `per_tile`: recorded in per-tile execution mode.
json quad_trace(bool per_tile) {
  json draw = {{"mesh", "quad"}, {"transform", {{"clip_space", true}}}, {"cost", {{"vertex_alu", 16}, {"alu", 1}}}};
  if (per_tile) draw["per_tile"] = true;
  json pass = tile_pass("post", json::array());
  pass["subpasses"][0]["draws"] = json::array({draw});
  json trace = tile_trace("device", json::array({pass}));
  trace["meshes"] = json::array({json{{"name", "quad"},
                                      {"position_components", 4},
                                      {"positions", {-1, -1, 0, 1, 1, -1, 0, 1, -1, 1, 0, 1, 1, 1, 0, 1}},
                                      {"indices", {0, 1, 2, 2, 1, 3}}}});
  return trace;
}

// Every image a run stores, as its surface's colors, by file-name parts (pass and slot).
class ColorSink final : public ImageSink {
 public:
  std::map<std::string, std::vector<Vec4>> images;
  void stored(const StoredImage& image) override {
    std::vector<Vec4>& out = images[image.pass_name + "_" + image.slot];
    out.assign(image.surface->color.begin(), image.surface->color.end());
  }
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
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

// A full-screen quad drawn in per-tile execution mode over the 64 x 48 pass's 12 tiles (16 x 16 under
// `reference`), by hand: its vertex work runs once per tile, 12 x 4 = 48 vertex invocations (4 without),
// 12 x 2 = 24 triangles assembled (2), 12 x (4 x 16 B + 6 x 4 B) = 12 x 88 = 1,056 B of vertex fetch
// (88 B); vertex cycles 48 x 16 / 32 lane-op/clk = 24 (2), set-up 24 x 1 clk = 24 (2); it is never
// binned: 0 binned triangles, 0 list entries and 0 B of tile lists (each of the plain quad's 2 triangles'
// bounds covers all 12 tiles: 24 entries, binning 2 + 24 = 26 clk). Its fragments are shaded once each
// however many tiles run it: 64 x 48 = 3,072 both ways. The IMR path draws it once: 4 vertices.
TEST(TileShading, PerTileDrawRepeatsVertexWorkPerTileAndShadesEachFragmentOnce) {
  const RunStats tiled = run(quad_trace(true));
  const RunStats plain = run(quad_trace(false));
  const RunStats imr = run(quad_trace(true), RenderPath::imr);
  const PassStats& p = tiled.frames[0].passes[0];
  const PassStats& q = plain.frames[0].passes[0];
  EXPECT_EQ(p.counters.tiles, 12u);
  EXPECT_EQ(p.counters.vertices, 48u);
  EXPECT_EQ(q.counters.vertices, 4u);
  EXPECT_EQ(imr.frames[0].passes[0].counters.vertices, 4u);
  EXPECT_EQ(p.counters.primitives_in, 24u);
  EXPECT_EQ(q.counters.primitives_in, 2u);
  EXPECT_EQ(p.dram[DramCategory::vertex].read_bytes, 1056u);
  EXPECT_EQ(q.dram[DramCategory::vertex].read_bytes, 88u);
  EXPECT_DOUBLE_EQ(p.cycles.breakdown.vertex, 24.0);
  EXPECT_DOUBLE_EQ(q.cycles.breakdown.vertex, 2.0);
  EXPECT_DOUBLE_EQ(p.cycles.breakdown.primitive_setup, 24.0);
  EXPECT_DOUBLE_EQ(p.cycles.breakdown.binning, 0.0);
  EXPECT_DOUBLE_EQ(q.cycles.breakdown.binning, 26.0);
  EXPECT_EQ(p.counters.tile_list_entries, 0u);
  EXPECT_EQ(q.counters.tile_list_entries, 24u);
  EXPECT_EQ(p.dram[DramCategory::tile_list].read_bytes + p.dram[DramCategory::tile_list].write_bytes, 0u);
  EXPECT_EQ(p.counters.empty_tiles, 0u);
  EXPECT_EQ(p.counters.fragments_shaded, 3072u);
  EXPECT_EQ(q.counters.fragments_shaded, 3072u);
}

// The deferred lighting of traces/local_read (a full-screen triangle reading the G-buffer as input
// attachments) recorded as a per-tile draw: binned into 15 x 20 tiles it gives the same image as the IMR
// path, which draws it once over the whole pass, and as the plain draw, under two presets.
TEST(TileShading, PerTileDrawGivesTheSameImageBinnedAndImr) {
  const std::filesystem::path dir = std::filesystem::path(TBDR_SOURCE_DIR) / "traces/local_read";
  const std::string plain = slurp(dir / "deferred_subpasses.json");
  json edited = json::parse(plain);
  edited["frames"][0]["passes"][0]["subpasses"][1]["draws"][0]["per_tile"] = true;
  for (const char* preset : {"reference", "mali-g710"}) {
    const models::ModelSet models = models::build_models(models::Configuration::from_preset(preset));
    auto images = [&](const std::string& text, RenderPath path) {
      SimOptions options;
      options.path = path;
      ColorSink sink;
      (void)simulate(read_trace_text(text, dir, "deferred.json"), models, options, &sink);
      return sink.images;
    };
    const auto tiled = images(edited.dump(), RenderPath::tbdr);
    ASSERT_EQ(tiled.size(), 1u) << preset;
    EXPECT_EQ(tiled, images(edited.dump(), RenderPath::imr)) << preset;
    EXPECT_EQ(tiled, images(plain, RenderPath::tbdr)) << preset;
  }
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
  json per_tile = quad_trace(true);
  per_tile["frames"][0]["passes"][0]["subpasses"][0]["draws"][0]["per_tile"] = "yes";
  EXPECT_NE(error(per_tile).find("tile.json: /frames/0/passes/0/subpasses/0/draws/0/per_tile"), std::string::npos)
      << error(per_tile);
}
