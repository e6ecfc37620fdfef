// Timing tests: tiny traces built here, each run under a FIXED parameter set (the
// reference preset with every rate a test relies on applied explicitly, kFixed below), asserting
// exact cycles and bytes that the comments derive by hand from the formulas of models/README.md
// and the per-tile rule of sim/pipeline.cpp:
//   tile      = load + max(raster.total, shading + stall) + resolve + store
//   fragment  = max(slowest core's sum of tiles, dram(fragment bytes))
//   geometry  = max(vertex + setup + binning, dram(vertex reads + tile-list writes))
//   dram(b)   = b / bytes_per_cycle + (b > 0 ? latency : 0)
//   two_queue: geometry_start = max(prev geometry_end, waits ? prev fragment_end : 0),
//              fragment_start = max(own geometry_end, prev fragment_end)
//
// Shapes used throughout. A "layer" is ONE triangle covering the whole W x H framebuffer
// (pixel corners (0,0), (2W,0), (0,2H)), so a layer is exactly one primitive, W x H fragments
// and (W/2) x (H/2) quads, with no shared diagonal to split quads between two triangles; with
// 16x16 tiles every tile lists it once. Its mesh is 3 clip-space vertices of 16 B (non-indexed):
// 48 B of vertex reads per draw. Binning writes a 3 x 16 = 48 B record per primitive and 4 B per
// tile-list entry, and each tile reads 4 + 48 = 52 B per entry (sim/pipeline.cpp
// count_tile_list_bytes; the meshes have no colors, uvs or normals).
// A 16x16 tile of one layer: 64 quads, 256 lanes (4 per quad), 256 color samples written.
// An RGBA8 16x16 tile is 1024 B: 1024 / tile_io 16 B/clk = 64 clk to load or store.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "sim/stats.h"
#include "tests/stored_images.h"

namespace fs = std::filesystem;

namespace tbdr {
namespace {

// ---- the fixed parameter set ------------------------------------------------------------------

// Every rate these tests rely on, spelled out so that a preset change cannot move them. The
// values are the reference's documented defaults except dram (64 B/clk, no latency: the DRAM
// bound stays far below compute unless a test asks for it).
const std::vector<std::string> kFixed = {"tiling=fixed",
                                         "tiling.width=16",
                                         "tiling.height=16",
                                         "merge=arm",
                                         "deps=none",
                                         "hsr=none",
                                         "shader=basic",
                                         "shader.alu_ops_per_clk=32",
                                         "shader.texels_per_clk=4",
                                         "shader.tile_reads_per_clk=2",
                                         "shader.varyings_per_clk=16",
                                         "shader.pixels_per_clk=2",
                                         "shader.blend_samples_per_clk=2",
                                         "shader.tile_io_bytes_per_clk=16",
                                         "raster=basic",
                                         "raster.quads_per_clk=1",
                                         "raster.setup_per_clk=1",
                                         "geometry=basic",
                                         "geometry.vertex_alu_ops_per_clk=32",
                                         "geometry.setup_per_clk=1",
                                         "geometry.binning_cycles_per_primitive=1",
                                         "geometry.binning_cycles_per_entry=1",
                                         "dram=basic",
                                         "dram.bytes_per_cycle=64",
                                         "dram.latency=0",
                                         "scheduler=two_queue",
                                         "direct=never",
                                         "cores=round_robin",
                                         "cores.count=1",
                                         "cores.clock_mhz=800",
                                         "energy=basic"};

models::ModelSet fixed_models(const std::vector<std::string>& extra = {}, const std::string& preset = "reference") {
  models::Configuration config = models::Configuration::from_preset(preset);
  for (const std::string& a : kFixed) config.apply(a);
  for (const std::string& a : extra) config.apply(a);
  return models::build_models(config);
}

RunStats run(const Trace& trace, const std::vector<std::string>& extra = {}, const std::string& preset = "reference") {
  const models::ModelSet models = fixed_models(extra, preset);
  return simulate(trace, models, SimOptions{}, nullptr);
}

const PassStats& pass(const RunStats& r, size_t index) { return r.frames.at(0).passes.at(index); }

// ---- trace building ---------------------------------------------------------------------------

int32_t add_image(Trace& trace, Format format, uint32_t width, uint32_t height) {
  ImageDesc d;
  d.name = "image" + std::to_string(trace.images.size());
  d.format = format;
  d.width = width;
  d.height = height;
  trace.images.push_back(std::move(d));
  return int32_t(trace.images.size() - 1);
}

// The full-screen layer: one clip-space triangle over pixel corners (0,0), (2W,0), (0,2H) at
// depth z (w = 1, so every coordinate is exact: x_clip = (px - W/2) / (W/2)).
int32_t add_layer_mesh(Trace& trace, uint32_t width, uint32_t height, float z) {
  auto clip = [&](double px, double py) {
    const double hx = width / 2.0, hy = height / 2.0;
    return Vec4(float((px - hx) / hx), float((py - hy) / hy), z, 1.0f);
  };
  Mesh m;
  m.name = "layer" + std::to_string(trace.meshes.size());
  m.position_components = 4;
  m.positions = {clip(0, 0), clip(2.0 * width, 0), clip(0, 2.0 * height)};
  trace.meshes.push_back(std::move(m));
  return int32_t(trace.meshes.size() - 1);
}

Draw layer(int32_t mesh, DrawCost cost = {}) {
  Draw d;
  d.mesh = mesh;
  d.transform.clip_space = true;
  d.program.params["color"] = {0.5f, 0.5f, 0.5f, 1.0f};
  d.cost = cost;
  return d;
}

Attachment attachment(int32_t image, LoadOp load, StoreOp store) {
  Attachment a;
  a.image = image;
  a.load = load;
  a.store = store;
  return a;
}

Subpass subpass(std::vector<int32_t> color, std::vector<Draw> draws, int32_t depth = kUnused) {
  Subpass s;
  s.color = std::move(color);
  s.depth = depth;
  s.draws = std::move(draws);
  return s;
}

Pass render_pass(const std::string& name, std::vector<Attachment> attachments, std::vector<Subpass> subpasses) {
  Pass p;
  p.name = name;
  p.attachments = std::move(attachments);
  p.subpasses = std::move(subpasses);
  return p;
}

Pass barrier(uint32_t src_stages, uint32_t dst_stages) {
  Pass p;
  p.name = "barrier";
  p.type = PassType::barrier;
  p.src_stages = src_stages;
  p.dst_stages = dst_stages;
  return p;
}

Trace one_frame(Trace trace, std::vector<Pass> passes) {
  Frame f;
  f.passes = std::move(passes);
  trace.frames = {std::move(f)};
  return trace;
}

void expect_schedule(const ScheduleStats& s, double gs, double ge, double fs, double fe) {
  EXPECT_DOUBLE_EQ(s.geometry_start, gs);
  EXPECT_DOUBLE_EQ(s.geometry_end, ge);
  EXPECT_DOUBLE_EQ(s.fragment_start, fs);
  EXPECT_DOUBLE_EQ(s.fragment_end, fe);
}

// ---- 1. merged two-subpass pass vs the same work as two render passes --------------------------

// 16x16 RGBA8 `color`, one tile. Draw D0 and D1 are full-screen layers with cost.vertex_alu = 100
// per vertex (3 vertices each: 300 lane-ops per draw).
//   merged: one render pass, CLEAR/STORE, subpass 0 draws D0 into color, subpass 1 draws D1 into
//           color (they share `color`: merge=arm merges them into one hardware pass).
//   split:  pass 1 CLEAR/STORE draws D0; pass 2 LOAD/STORE draws D1.
// Geometry (vertex = 300 x draws / V, V = geometry.vertex_alu_ops_per_clk; setup 1 per triangle;
// binning 1 per primitive + 1 per entry):
//   merged: 600/V + 2 + (2 + 2);   split, each pass: 300/V + 1 + (1 + 1)
// Fragment (one tile; raster = 64 quads per layer at 1/clk; pixel = 256 samples per layer / 2):
//   merged: 0 + max(128, 256) + 64 (store)        = 320
//   pass 1: 0 + max(64, 128) + 64 (store)         = 192
//   pass 2: 64 (load) + max(64, 128) + 64 (store) = 256
// DRAM at 64 B/clk, no latency, is far below: merged geometry 96 + (96 + 8) = 200 B -> 3.125,
// merged fragment 1024 + 2 x 52 = 1128 B -> 17.6; split pass 2 fragment 2048 + 52 B -> 32.8.
// Frame times:
//   merged = G_m + 320;  split = G1 + max(F1, G2) + F2 with G1 = G2 = G_m / 2 ... so
//   split - merged = (F1 + F2 - 320) - G2       when F1 >= G2 (pass 2's fragments wait for pass 1's)
//                  = F2 - 320 = -64             when G2 >= F1 (geometry-bound: pass 2 waits for its own geometry)
// V = 300: vertex 1 clk per draw, G_m = 8, G1 = G2 = 4: split - merged = 192 + 256 - 320 - 4 = +124,
//          merging wins (the tile round trip, 64 + 64 clk, outweighs the 4 clk geometry overlap).
// V = 1:   vertex 300 clk per draw, G_m = 606, G1 = G2 = 303 > F1: split - merged = 256 - 320 = -64,
//          splitting wins (pass 2's geometry hides under pass 1's fragments; the merged pass bins
//          all 606 clk of geometry before any fragment work).
Trace merge_trace(bool merged) {
  Trace t;
  const int32_t color = add_image(t, Format::RGBA8, 16, 16);
  const int32_t m0 = add_layer_mesh(t, 16, 16, 0.5f), m1 = add_layer_mesh(t, 16, 16, 0.5f);
  DrawCost cost;
  cost.vertex_alu = 100;
  if (merged)
    return one_frame(t, {render_pass("merged", {attachment(color, LoadOp::clear, StoreOp::store)},
                                     {subpass({0}, {layer(m0, cost)}), subpass({0}, {layer(m1, cost)})})});
  return one_frame(
      t, {render_pass("first", {attachment(color, LoadOp::clear, StoreOp::store)}, {subpass({0}, {layer(m0, cost)})}),
          render_pass("second", {attachment(color, LoadOp::load, StoreOp::store)}, {subpass({0}, {layer(m1, cost)})})});
}

TEST(TimingSchedule, MergedPassBinsAllGeometryFirstAndSplitPassesOverlap) {
  const Trace merged = merge_trace(true), split = merge_trace(false);
  {
    SCOPED_TRACE("cheap geometry: vertex_alu_ops_per_clk 300");
    const std::vector<std::string> rates = {"geometry.vertex_alu_ops_per_clk=300"};
    const RunStats m = run(merged, rates), s = run(split, rates);
    ASSERT_EQ(pass(m, 0).hardware_passes.size(), 1u);
    EXPECT_TRUE(pass(m, 0).merge.merged);
    EXPECT_DOUBLE_EQ(pass(m, 0).cycles.geometry, 8);
    EXPECT_DOUBLE_EQ(pass(m, 0).cycles.fragment, 320);
    expect_schedule(pass(m, 0).schedule, 0, 8, 8, 328);
    EXPECT_DOUBLE_EQ(pass(m, 0).schedule.fragment_start, pass(m, 0).schedule.geometry_end);
    expect_schedule(pass(s, 0).schedule, 0, 4, 4, 196);
    expect_schedule(pass(s, 1).schedule, 4, 8, 196, 452);
    EXPECT_LT(pass(s, 1).schedule.geometry_start, pass(s, 0).schedule.fragment_end);
    EXPECT_DOUBLE_EQ(m.frames[0].frame_cycles, 328);
    EXPECT_DOUBLE_EQ(s.frames[0].frame_cycles, 452);
    EXPECT_GT(s.frames[0].frame_cycles - m.frames[0].frame_cycles, 0) << "the formulas predict +124: merging wins";
  }
  {
    SCOPED_TRACE("heavy geometry: vertex_alu_ops_per_clk 1");
    const std::vector<std::string> rates = {"geometry.vertex_alu_ops_per_clk=1"};
    const RunStats m = run(merged, rates), s = run(split, rates);
    EXPECT_DOUBLE_EQ(pass(m, 0).hardware_passes[0].cycles.breakdown.vertex, 600);
    expect_schedule(pass(m, 0).schedule, 0, 606, 606, 926);
    EXPECT_DOUBLE_EQ(pass(m, 0).schedule.fragment_start, pass(m, 0).schedule.geometry_end);
    expect_schedule(pass(s, 0).schedule, 0, 303, 303, 495);
    expect_schedule(pass(s, 1).schedule, 303, 606, 606, 862);
    EXPECT_LT(pass(s, 1).schedule.geometry_start, pass(s, 0).schedule.fragment_end);
    EXPECT_DOUBLE_EQ(m.frames[0].frame_cycles, 926);
    EXPECT_DOUBLE_EQ(s.frames[0].frame_cycles, 862);
    EXPECT_LT(s.frames[0].frame_cycles - m.frames[0].frame_cycles, 0) << "the formulas predict -64: splitting wins";
  }
}

// ---- 2. deps=single vs deps=multi --------------------------------------------------------------

// 16x16 RGBA8, one tile, hsr=none (every rasterized fragment is shaded), five full-screen layers:
// the first writes only (tile_reads 0), the next four read tile memory with tile_reads 2, 4, 2, 4.
// Per pixel 4 tile-reading layers: layer_histogram[4] = 256, waiting = 256 x (4 - 1) = 768;
// R = mean reads of those fragments = (2 + 4 + 2 + 4) / 4 = 3. A = 8, P = 16, T = 2:
//   single: 768 x 3 x 8 / 16          = 1152
//   multi:  768 x min(3, 1) x 8 / (16 x 2) = 192
//   none:   0
// The tile: raster 5 x 64 = 320; tile_read = 64 quads x 4 lanes x (2+4+2+4) / 2 per clk = 1536;
// pixel = 5 x 256 / 2 = 640; shading 1536; store 64:
//   tile = max(320, 1536 + stall) + 64 = 1600 (none), 2752 (single), 1792 (multi).
TEST(TimingDeps, SingleAndMultiStallsOnFourTileReadingLayers) {
  Trace t;
  const int32_t color = add_image(t, Format::RGBA8, 16, 16);
  std::vector<Draw> draws;
  for (float reads : {0.0f, 2.0f, 4.0f, 2.0f, 4.0f}) {
    DrawCost cost;
    cost.tile_reads = reads;
    draws.push_back(layer(add_layer_mesh(t, 16, 16, 0.5f), cost));
  }
  t = one_frame(t,
                {render_pass("lighting", {attachment(color, LoadOp::clear, StoreOp::store)}, {subpass({0}, draws)})});
  const std::vector<std::string> tracker = {"deps.access_latency=8", "deps.overlap=16"};
  struct Case {
    std::string deps;
    double stall, fragment;
  };
  for (const Case& c : {Case{"none", 0, 1600}, Case{"single", 1152, 2752}, Case{"multi", 192, 1792}}) {
    SCOPED_TRACE(c.deps);
    std::vector<std::string> sets = {"deps=" + c.deps};
    if (c.deps != "none") sets.insert(sets.end(), tracker.begin(), tracker.end());
    if (c.deps == "multi") sets.push_back("deps.trackers=2");
    const RunStats r = run(t, sets);
    const CycleBreakdown& b = pass(r, 0).cycles.breakdown;
    EXPECT_DOUBLE_EQ(b.dependency_stall, c.stall);
    EXPECT_DOUBLE_EQ(b.tile_read, 1536);
    EXPECT_DOUBLE_EQ(b.pixel, 640);
    EXPECT_DOUBLE_EQ(b.raster, 320);
    EXPECT_DOUBLE_EQ(pass(r, 0).cycles.fragment, c.fragment);
  }
}

// ---- 3. input attachments vs texture reads under Mali-G76 and Mali-G710 rates -------------------

// One full-screen layer on a 16x16 RGBA8 tile (64 quads = 256 lanes, 256 samples written) with
// cost alu 12 and either tile_reads 4 (input attachments) or texture_samples 4 (the same data
// sampled as a texture). The shader rates are the presets' (models/presets/mali-g76.json,
// mali-g710.json), applied again explicitly; tiles, cores, HSR and deps are fixed (kFixed; one
// tile-reading layer per pixel, so no deps model would stall anyway).
//   G76:  alu 24, texels 2, tile reads 2, pixels 2 /clk
//         alu 256x12/24 = 128; tile_read 256x4/2 = 512 | texture 256x4/2 = 512; pixel 256/2 = 128
//         shading 512 either way: a tie (tile memory is read at the texture rate before G77)
//   G710: alu 64, texels 8, tile reads 4, pixels 4 /clk
//         alu 3072/64 = 48; tile_read 1024/4 = 256 | texture 1024/8 = 128; pixel 64
//         shading 256 vs 128: the texture version is twice as fast (tile reads at half the rate)
// Tile = max(raster 64, shading) + store 64:  G76 576 / 576;  G710 320 / 192.
TEST(TimingShader, InputAttachmentsVsTextureReadsUnderG76AndG710) {
  struct Preset {
    std::string name;
    std::vector<std::string> shader;
    double tile_fragment, texture_fragment;
  };
  const std::vector<Preset> presets = {{"mali-g76",
                                        {"shader.alu_ops_per_clk=24", "shader.texels_per_clk=2",
                                         "shader.tile_reads_per_clk=2", "shader.pixels_per_clk=2"},
                                        576,
                                        576},
                                       {"mali-g710",
                                        {"shader.alu_ops_per_clk=64", "shader.texels_per_clk=8",
                                         "shader.tile_reads_per_clk=4", "shader.pixels_per_clk=4"},
                                        320,
                                        192}};
  for (const Preset& p : presets) {
    SCOPED_TRACE(p.name);
    double fragment[2] = {};
    for (int texture = 0; texture < 2; ++texture) {
      Trace t;
      const int32_t color = add_image(t, Format::RGBA8, 16, 16);
      DrawCost cost;
      cost.alu = 12;
      (texture ? cost.texture_samples : cost.tile_reads) = 4;
      // The mesh is added before one_frame copies `t` (argument evaluation order is unspecified).
      const int32_t mesh = add_layer_mesh(t, 16, 16, 0.5f);
      t = one_frame(t, {render_pass("light", {attachment(color, LoadOp::clear, StoreOp::store)},
                                    {subpass({0}, {layer(mesh, cost)})})});
      const RunStats r = run(t, p.shader, p.name);
      const CycleBreakdown& b = pass(r, 0).cycles.breakdown;
      fragment[texture] = pass(r, 0).cycles.fragment;
      if (p.name == "mali-g76") {
        EXPECT_DOUBLE_EQ(b.alu, 128);
        EXPECT_DOUBLE_EQ(texture ? b.texture : b.tile_read, 512);
        EXPECT_DOUBLE_EQ(b.pixel, 128);
      } else {
        EXPECT_DOUBLE_EQ(b.alu, 48);
        EXPECT_DOUBLE_EQ(texture ? b.texture : b.tile_read, texture ? 128 : 256);
        EXPECT_DOUBLE_EQ(b.pixel, 64);
      }
      EXPECT_DOUBLE_EQ(texture ? b.tile_read : b.texture, 0);
      EXPECT_DOUBLE_EQ(b.dependency_stall, 0);
    }
    EXPECT_DOUBLE_EQ(fragment[0], p.tile_fragment);
    EXPECT_DOUBLE_EQ(fragment[1], p.texture_fragment);
    std::cout << "[ timing   ] " << p.name << ": input attachments " << fragment[0] << " clk, texture reads "
              << fragment[1] << " clk\n";
  }
}

// ---- 4. a DRAM-bound pass: max(compute, bytes / bandwidth + latency), not the sum ---------------

// 64x64 RGBA8 LOAD/STORE, one full-screen layer, 16 tiles of 16x16 on one core.
// Per tile: load 64 + max(raster 64, pixel 128) + store 64 = 256; 16 tiles: compute 4096.
// Fragment bytes: load 16 x 1024 + store 16 x 1024 + tile-list reads 16 x 52 = 33600 B.
// Geometry: vertex 0 + setup 1 + binning (1 + 16) = 18; bytes 48 (vertex) + 48 + 16 x 4 = 160 B.
// Latency 200:
//   4 B/clk:  fragment dram = 33600/4 + 200 = 8600 > 4096  -> fragment 8600 (not 12696)
//             geometry dram = 160/4 + 200 = 240 > 18        -> geometry 240  (not 258)
//             frame = 240 + 8600 = 8840
//   64 B/clk: fragment dram = 525 + 200 = 725 < 4096        -> fragment 4096
//             geometry dram = 2.5 + 200 = 202.5 > 18        -> geometry 202.5
//             frame = 4298.5
// models/README.md "Sources: render passes and load/store ops": "Clearing with a draw or
// vkCmdClear* instead of loadOp CLEAR costs fragment work." A 64x64 RGBA8 pass with one
// full-screen layer: with loadOp CLEAR its pixel
// unit writes the layer's 4096 samples (2048 cycles at 2 samples/clk); cleared instead by a
// mid-pass clear before the draw (loadOp DONT_CARE), it also writes the clear's 4096 samples:
// 2048 cycles more, and the same DRAM bytes.
TEST(TimingShader, MidPassClearCostsFragmentWorkLoadOpClearDoesNot) {
  Trace base;
  const int32_t color = add_image(base, Format::RGBA8, 64, 64);
  const int32_t mesh = add_layer_mesh(base, 64, 64, 0.5f);
  const Trace load_clear = one_frame(
      base,
      {render_pass("load_clear", {attachment(color, LoadOp::clear, StoreOp::store)}, {subpass({0}, {layer(mesh)})})});
  Subpass cleared = subpass({0}, {layer(mesh)});
  MidPassClear clear;
  clear.before_draw = 0;
  clear.color = {0};
  cleared.clears = {clear};
  const Trace mid_pass = one_frame(
      base, {render_pass("mid_pass_clear", {attachment(color, LoadOp::dont_care, StoreOp::store)}, {cleared})});
  const RunStats a = run(load_clear), b = run(mid_pass);
  EXPECT_DOUBLE_EQ(pass(a, 0).cycles.breakdown.pixel, 2048);
  EXPECT_DOUBLE_EQ(pass(b, 0).cycles.breakdown.pixel, 4096);
  EXPECT_DOUBLE_EQ(pass(b, 0).cycles.fragment - pass(a, 0).cycles.fragment, 2048);
  EXPECT_EQ(pass(a, 0).dram.total().read_bytes + pass(a, 0).dram.total().write_bytes,
            pass(b, 0).dram.total().read_bytes + pass(b, 0).dram.total().write_bytes);
}

TEST(TimingDram, DramBoundPassTakesBytesOverBandwidthPlusLatency) {
  Trace t;
  const int32_t color = add_image(t, Format::RGBA8, 64, 64);
  const int32_t mesh = add_layer_mesh(t, 64, 64, 0.5f);  // before one_frame copies `t`
  t = one_frame(
      t, {render_pass("bound", {attachment(color, LoadOp::load, StoreOp::store)}, {subpass({0}, {layer(mesh)})})});
  {
    const RunStats r = run(t, {"dram.bytes_per_cycle=4", "dram.latency=200"});
    const PassStats& p = pass(r, 0);
    const Traffic total = p.dram.total();
    EXPECT_EQ(total.read_bytes + total.write_bytes, 33600u + 160u);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.fragment_dram, 8600);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.geometry_dram, 240);
    double tiles = 0;
    for (double c : p.hardware_passes[0].tile_cycles) tiles += c;
    EXPECT_DOUBLE_EQ(tiles, 4096);
    EXPECT_DOUBLE_EQ(p.cycles.fragment, 8600);
    EXPECT_DOUBLE_EQ(p.cycles.geometry, 240);
    expect_schedule(p.schedule, 0, 240, 240, 8840);
    EXPECT_DOUBLE_EQ(r.frames[0].frame_cycles, 8840);
  }
  {
    const RunStats r = run(t, {"dram.bytes_per_cycle=64", "dram.latency=200"});
    const PassStats& p = pass(r, 0);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.fragment_dram, 725);
    EXPECT_DOUBLE_EQ(p.cycles.fragment, 4096);
    EXPECT_DOUBLE_EQ(p.cycles.geometry, 202.5);
    EXPECT_DOUBLE_EQ(r.frames[0].frame_cycles, 4298.5);
  }
}

// ---- 5. a barrier's destination stage decides the overlap ---------------------------------------

// Two render passes on separate 16x16 RGBA8 images (CLEAR/STORE), one full-screen layer each with
// cost.vertex_alu 100 and geometry.vertex_alu_ops_per_clk 3: geometry = 300/3 + 1 + 2 = 103;
// fragment = max(64, 128) + 64 = 192 (DRAM: 1076 B / 64 -> 16.8, below). Between them a barrier
// from color_attachment_output to dst:
//   fragment_shader: pass 2 geometry [103, 206] overlaps pass 1 fragment [103, 295];
//                    pass 2 fragment [295, 487]; frame 487
//   vertex_shader:   pass 2 geometry waits for pass 1's fragment end: [295, 398], fragment [398, 590];
//                    frame 590 = 487 + 103 (pass 2's geometry no longer hidden)
// The same wait from an external subpass dependency of pass 2 with dst vertex_shader.
TEST(TimingSchedule, BarrierVertexStageDestinationRemovesTheOverlap) {
  auto trace = [](std::optional<uint32_t> barrier_dst, uint32_t dependency_dst) {
    Trace t;
    const int32_t a = add_image(t, Format::RGBA8, 16, 16), b = add_image(t, Format::RGBA8, 16, 16);
    DrawCost cost;
    cost.vertex_alu = 100;
    std::vector<Pass> passes;
    passes.push_back(render_pass("first", {attachment(a, LoadOp::clear, StoreOp::store)},
                                 {subpass({0}, {layer(add_layer_mesh(t, 16, 16, 0.5f), cost)})}));
    if (barrier_dst) passes.push_back(barrier(kStageColorAttachmentOutput, *barrier_dst));
    Pass second = render_pass("second", {attachment(b, LoadOp::clear, StoreOp::store)},
                              {subpass({0}, {layer(add_layer_mesh(t, 16, 16, 0.5f), cost)})});
    if (dependency_dst) {
      SubpassDependency d;
      d.src_subpass = kSubpassExternal;
      d.dst_subpass = 0;
      d.src_stages = kStageColorAttachmentOutput;
      d.dst_stages = dependency_dst;
      second.dependencies.push_back(d);
    }
    passes.push_back(std::move(second));
    return one_frame(t, std::move(passes));
  };
  const std::vector<std::string> rates = {"geometry.vertex_alu_ops_per_clk=3"};
  {
    SCOPED_TRACE("barrier dst fragment_shader");
    const RunStats r = run(trace(kStageFragmentShader, 0), rates);
    expect_schedule(pass(r, 0).schedule, 0, 103, 103, 295);
    expect_schedule(pass(r, 2).schedule, 103, 206, 295, 487);
    EXPECT_DOUBLE_EQ(r.frames[0].frame_cycles, 487);
  }
  {
    SCOPED_TRACE("barrier dst vertex_shader");
    const RunStats r = run(trace(kStageVertexShader, 0), rates);
    expect_schedule(pass(r, 0).schedule, 0, 103, 103, 295);
    expect_schedule(pass(r, 2).schedule, 295, 398, 398, 590);
    EXPECT_DOUBLE_EQ(r.frames[0].frame_cycles, 590);
  }
  {
    SCOPED_TRACE("external dependency dst vertex_shader");
    const RunStats r = run(trace(std::nullopt, kStageVertexShader), rates);
    expect_schedule(pass(r, 1).schedule, 295, 398, 398, 590);
  }
  {
    SCOPED_TRACE("external dependency dst fragment_shader");
    const RunStats r = run(trace(std::nullopt, kStageFragmentShader), rates);
    expect_schedule(pass(r, 1).schedule, 103, 206, 295, 487);
  }
}

// ---- 5b. Adreno concurrent binning: BV bins pass 2 while BR renders pass 1 --------------------

// adreno-a740 as shipped (geometry=binning_pass, scheduler=bv_br) with direct=never: turnip's
// autotune would render so small a pass in sysmem, where no binning pass runs. Two render passes
// on separate 16x16 RGBA8 images (CLEAR/STORE), one full-screen layer each (one bin, one primitive,
// one tile-list entry) whose 3 clip-space vertices carry a color: 16 + 16 B each, 96 B of vertex
// reads, of which the positions are 48 B. cost.vertex_alu 204800 per vertex at 768 lane-ops/clk:
// the full vertex shader is 3 x 204800 / 768 = 800 clk, the position-only binning variant half.
//   binning pass (geometry, BV): vertex 800 x 0.5 = 400 + setup 1 + binning (1 + 1) = 403; its DRAM
//     reads the positions (48 B) and writes one record 3 x (16 + 4 x 4) = 96 B plus a 4 B entry:
//     148 B / 29.4 + 200 = 205.03 < 403, so G = 403.
//   rendering (fragment, BR): the tile plus the full vertex shader again for the one bin that lists
//     the triangle, 800 x 1 entry / 1 primitive = 800: F > 800 > G.
//   concurrent_binning=false (one command processor): pass 2's binning starts at pass 1's fragment end:
//     frame = G + F + G + F.
//   concurrent_binning=true: pass 2's binning runs on BV over [G, 2G] under pass 1's rendering
//     [G, G + F]: frame = G + F + F, 403 cycles less, and pass 2's binning_overlap is all 403.
// Images and DRAM bytes are the same either way (the switch is a cost parameter).
TEST(TimingSchedule, AdrenoConcurrentBinningHidesTheNextPassBinningUnderRendering) {
  Trace t;
  const int32_t a = add_image(t, Format::RGBA8, 16, 16), b = add_image(t, Format::RGBA8, 16, 16);
  DrawCost cost;
  cost.vertex_alu = 204800;
  std::vector<Pass> passes;
  for (const auto& [name, image] : {std::pair{"first", a}, std::pair{"second", b}}) {
    const int32_t mesh = add_layer_mesh(t, 16, 16, 0.5f);
    t.meshes[size_t(mesh)].colors.assign(3, Vec4(1, 0, 0, 1));
    passes.push_back(render_pass(name, {attachment(image, LoadOp::clear, StoreOp::store)}, {subpass({0}, {layer(mesh, cost)})}));
  }
  const Trace trace = one_frame(t, std::move(passes));
  auto simulate_with = [&](const char* concurrent, StoredImages& images) {
    models::Configuration config = models::Configuration::from_preset("adreno-a740");
    config.apply("direct=never");
    config.apply(std::string("scheduler.concurrent_binning=") + concurrent);
    return simulate(trace, models::build_models(config), SimOptions{}, &images);
  };
  StoredImages images_on, images_off;
  const RunStats on = simulate_with("true", images_on), off = simulate_with("false", images_off);
  const double binning_dram = 148 / 29.4 + 200;
  for (const RunStats* r : {&on, &off}) {
    const HardwarePassStats& hw = pass(*r, 1).hardware_passes.at(0);
    EXPECT_DOUBLE_EQ(hw.cycles.breakdown.vertex, 400);
    EXPECT_DOUBLE_EQ(hw.cycles.breakdown.render_vertex, 800);
    EXPECT_DOUBLE_EQ(hw.cycles.breakdown.geometry_dram, binning_dram);
    EXPECT_DOUBLE_EQ(hw.cycles.geometry, 403);
  }
  const double f = pass(on, 0).cycles.fragment;
  ASSERT_GT(f, 800);
  ASSERT_EQ(pass(off, 0).cycles.fragment, f);
  expect_schedule(pass(off, 1).schedule, 403 + f, 806 + f, 806 + f, 806 + 2 * f);
  expect_schedule(pass(on, 1).schedule, 403, 806, 403 + f, 403 + 2 * f);
  EXPECT_DOUBLE_EQ(pass(off, 1).schedule.binning_overlap, 0);
  EXPECT_DOUBLE_EQ(pass(on, 1).schedule.binning_overlap, 403);
  EXPECT_DOUBLE_EQ(pass(on, 0).schedule.binning_overlap, 0);
  EXPECT_DOUBLE_EQ(off.frames[0].frame_cycles - on.frames[0].frame_cycles, 403);
  for (size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(pass(on, p).dram.total().read_bytes, pass(off, p).dram.total().read_bytes);
    EXPECT_EQ(pass(on, p).dram.total().write_bytes, pass(off, p).dram.total().write_bytes);
  }
  EXPECT_EQ(pass(on, 0).dram[DramCategory::vertex].read_bytes, 96u);
  ASSERT_EQ(images_on.images.size(), 2u);
  ASSERT_EQ(images_off.images.size(), 2u);
  for (const auto& [key, image] : images_on.images) EXPECT_TRUE(same_pixels(image, images_off.images.at(key))) << key;
}

// ---- 6. direct=always through a framebuffer cache smaller than one row -------------------------

// 64x4 framebuffer: RGBA8 color and D32F depth, both CLEAR/STORE; N = 3 full-screen opaque layers,
// depth test less, depth write, no blending. direct=always with 64 B lines and a 128 B cache (2
// lines) -- one row of one attachment is 64 x 4 = 256 B, so the cache holds less than a row.
// P = 256 pixels, 4 B each: an attachment is 1024 B = 16 lines of 16 pixels.
// A layer is one triangle, rasterized row by row, so accesses stream through memory; per pixel:
// depth read (a miss fetches the line), depth write if the test passed, color write if it
// passed (write-allocate without fetch). Within a 16-pixel run both lines stay; at the next run
// the depth read misses and evicts the least recent line, the old depth line (dirty: written
// back), then the color write misses and evicts the old color line (dirty: written back). So
// per layer every depth line is fetched once, and every line dirtied in that layer is written
// back once (evicted during the next lines/layer or flushed at the end). Clears write each
// attachment once (1024 B), outside the cache.
//   back-to-front (z 0.75, 0.5, 0.25: every layer passes):
//     framebuffer_depth: read 3 x 1024 = 3072, write 1024 + 3 x 1024 = 4096
//     framebuffer_color: read 0,               write 1024 + 3 x 1024 = 4096
//   front-to-back (z 0.25, 0.5, 0.75: only the first layer passes, later ones only read depth):
//     framebuffer_depth: read 3 x 1024 = 3072, write 1024 + 1024 = 2048
//     framebuffer_color: read 0,               write 1024 + 1024 = 2048
// No tile traffic at all: attachment_load/store 0, tile_list 0 (nothing binned).
Trace direct_trace(bool back_to_front) {
  Trace t;
  const int32_t color = add_image(t, Format::RGBA8, 64, 4), depth = add_image(t, Format::D32F, 64, 4);
  std::vector<Draw> draws;
  for (int i = 0; i < 3; ++i) {
    const float z = back_to_front ? 0.75f - 0.25f * float(i) : 0.25f + 0.25f * float(i);
    Draw d = layer(add_layer_mesh(t, 64, 4, z));
    d.state.depth_test = true;
    d.state.depth_write = true;
    d.state.depth_compare = CompareOp::less;
    draws.push_back(d);
  }
  return one_frame(
      t,
      {render_pass("direct",
                   {attachment(color, LoadOp::clear, StoreOp::store), attachment(depth, LoadOp::clear, StoreOp::store)},
                   {subpass({0}, draws, 1)})});
}

TEST(TimingDirect, FramebufferCacheBytesOfOpaqueLayersWithATinyCache) {
  const std::vector<std::string> direct = {"direct=always", "direct.fb_cache_bytes=128", "direct.line_bytes=64",
                                           "hsr=early_z"};
  struct Case {
    bool back_to_front;
    uint64_t depth_read, depth_write, color_write;
  };
  for (const Case& c : {Case{true, 3072, 4096, 4096}, Case{false, 3072, 2048, 2048}}) {
    SCOPED_TRACE(c.back_to_front ? "back to front" : "front to back");
    const RunStats r = run(direct_trace(c.back_to_front), direct);
    const PassStats& p = pass(r, 0);
    ASSERT_EQ(p.hardware_passes.size(), 1u);
    EXPECT_TRUE(p.hardware_passes[0].direct);
    EXPECT_EQ(p.dram[DramCategory::framebuffer_depth].read_bytes, c.depth_read);
    EXPECT_EQ(p.dram[DramCategory::framebuffer_depth].write_bytes, c.depth_write);
    EXPECT_EQ(p.dram[DramCategory::framebuffer_color].read_bytes, 0u);
    EXPECT_EQ(p.dram[DramCategory::framebuffer_color].write_bytes, c.color_write);
    EXPECT_EQ(p.dram[DramCategory::attachment_load], Traffic{});
    EXPECT_EQ(p.dram[DramCategory::attachment_store], Traffic{});
    EXPECT_EQ(p.dram[DramCategory::tile_list], Traffic{});
  }
}

// The default trace (traces/default/scene.json) under every preset as it ships: the immediate-
// mode baseline moves more DRAM bytes than each tile-based one (figures printed).
TEST(TimingDirect, ImrMovesMoreDramBytesThanEveryTbdrPresetOnTheDefaultTrace) {
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  std::map<std::string, uint64_t> bytes;
  for (const char* preset : {"imr", "reference", "mali-g76", "mali-g710", "adreno-a740", "powervr"}) {
    const models::ModelSet models = models::build_models(models::Configuration::from_preset(preset));
    const RunStats r = simulate(trace, models, SimOptions{}, nullptr);
    bytes[preset] = r.dram.total().read_bytes + r.dram.total().write_bytes;
    std::cout << "[ timing   ] default trace, " << preset << ": " << bytes[preset] << " B DRAM (read + write)\n";
  }
  for (const auto& [preset, b] : bytes)
    if (preset != "imr") {
      EXPECT_GT(bytes["imr"], b) << "imr vs " << preset;
    }
}

// ---- 7. hidden-surface removal on an opaque overdraw stack ---------------------------------------

// 16x16 RGBA8 + D32F (CLEAR, color STORE, depth DONT_CARE), one tile, four full-screen opaque
// layers with depth test less + write and cost.alu 8 (alu = shaded quads x 4 x 8 / 32 = shaded
// quads). Rasterized: 4 x 256 = 1024 fragments (counters.fragments) whatever the policy.
//   back-to-front (z 0.8, 0.6, 0.4, 0.2; every layer passes the depth test):
//     none 1024 shaded; early_z 1024 (each passes in draw order); deferred 256 (each later layer
//     kills the pending one: only the last, visible layer is shaded)
//     fpk: layer k's fragment at a pixel is candidate number 256 k + p + 1 of the tile, so the
//     next layer arrives exactly 256 candidates later: window 256 kills (256 shaded), window 255
//     does not (1024).
//   front-to-back (z 0.2, 0.4, 0.6, 0.8; only the first passes):
//     none 1024; early_z 256; deferred 256.
// Shaded quads = shaded / 4 here (whole layers), so alu = 256 / 64 cycles for 1024 / 256 shaded.
// Color samples written (pixel = written / 2 px/clk): those of the shaded fragments that pass the
// depth test -- every shaded one, except under hsr=none front-to-back, where the 768 hidden
// fragments are shaded but fail the (late) test: 256 written (pixel 128) while 1024 are shaded.
Trace hsr_trace(bool back_to_front, int discard_layer = -1, int blend_layer = -1, int depth_write_layer = -1,
                int tile_read_layer = -1) {
  Trace t;
  const int32_t color = add_image(t, Format::RGBA8, 16, 16), depth = add_image(t, Format::D32F, 16, 16);
  std::vector<Draw> draws;
  for (int i = 0; i < 4; ++i) {
    const float z = back_to_front ? 0.8f - 0.2f * float(i) : 0.2f + 0.2f * float(i);
    DrawCost cost;
    cost.alu = 8;
    if (i == tile_read_layer) cost.tile_reads = 1;
    Draw d = layer(add_layer_mesh(t, 16, 16, z), cost);
    d.state.depth_test = true;
    d.state.depth_write = true;
    d.state.depth_compare = CompareOp::less;
    if (i == discard_layer) d.state.discard = true;
    if (i == depth_write_layer) d.state.shader_depth_write = true;
    if (i == blend_layer) {
      BlendAttachmentState b;
      b.enable = true;
      d.state.blend = {b};
    }
    draws.push_back(d);
  }
  return one_frame(t, {render_pass("stack",
                                   {attachment(color, LoadOp::clear, StoreOp::store),
                                    attachment(depth, LoadOp::clear, StoreOp::dont_care)},
                                   {subpass({0}, draws, 1)})});
}

TEST(TimingHsr, OpaqueStackShadedOncePerPixelUnderDeferred) {
  struct Case {
    bool back_to_front;
    std::vector<std::string> sets;
    uint64_t shaded, written;
  };
  const std::vector<Case> cases = {{true, {"hsr=none"}, 1024, 1024},
                                   {true, {"hsr=early_z"}, 1024, 1024},
                                   {true, {"hsr=deferred"}, 256, 256},
                                   {true, {"hsr=fpk", "hsr.window=256"}, 256, 256},
                                   {true, {"hsr=fpk", "hsr.window=255"}, 1024, 1024},
                                   {false, {"hsr=none"}, 1024, 256},
                                   {false, {"hsr=early_z"}, 256, 256},
                                   {false, {"hsr=deferred"}, 256, 256}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.back_to_front ? "back to front, " : "front to back, ") + c.sets.back());
    const RunStats r = run(hsr_trace(c.back_to_front), c.sets);
    const PassStats& p = pass(r, 0);
    EXPECT_EQ(p.counters.fragments, 1024u);
    EXPECT_EQ(p.counters.fragments_shaded, c.shaded);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.alu, double(c.shaded) / 4);
    // Color output follows shading: a fragment HSR removed writes nothing.
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.pixel, double(c.written) / 2);
    EXPECT_EQ(p.hsr_disabled_blending + p.hsr_disabled_discard + p.hsr_disabled_shader_depth_write, 0u);
  }
}

// The same back-to-front stack under hsr=deferred with one layer that cannot occlude:
//   layer 1 discards (late tests: never an occluder): layer 0 is pending at every pixel when
//   layer 1 arrives, is not killed, and commits; layer 1 commits (all its 256 fragments shaded);
//   layer 2 pends, layer 3 kills it and commits at the tile end: 256 x 3 = 768 shaded.
//   layer 3 blends: layers 0 -> 1 -> 2 kill each other (layer 2 pending); layer 3 commits layer 2
//   and itself: 256 x 2 = 512 shaded.
// Each counts its cause once (one draw). Color samples written are those of the shaded fragments
// (a killed one writes nothing); a blended sample is written and blended:
//   discard: written 768, pixel 768 / 2 = 384, blend 0
//   blend:   written 512 (256 of them blended), blend 256 / 2 = 128, pixel 512 / 2 + 128 = 384
TEST(TimingHsr, DiscardBlendingShaderDepthWritesAndTileReadsDisableHsrForTheirDraw) {
  {
    const RunStats r = run(hsr_trace(true, 1), {"hsr=deferred"});
    const PassStats& p = pass(r, 0);
    EXPECT_EQ(p.counters.fragments_shaded, 768u);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.pixel, 384);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.blend, 0);
    EXPECT_EQ(p.hsr_disabled_discard, 1u);
    EXPECT_EQ(p.hsr_disabled_blending, 0u);
    EXPECT_EQ(p.hsr_disabled_shader_depth_write, 0u);
  }
  {
    const RunStats r = run(hsr_trace(true, -1, 3), {"hsr=deferred"});
    const PassStats& p = pass(r, 0);
    EXPECT_EQ(p.counters.fragments_shaded, 512u);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.blend, 128);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.pixel, 384);
    EXPECT_EQ(p.hsr_disabled_blending, 1u);
    EXPECT_EQ(p.hsr_disabled_discard, 0u);
  }
  // A fragment program writing depth (Arm FPK rules, models/README.md
  // "Sources: bandwidth savers") breaks HSR as discard does: its
  // depth is known only once shaded, so layer 1 is shaded at once, after layer 0's pending
  // fragments, and only layers 2 and 3 are deferred: 768 shaded.
  {
    const RunStats r = run(hsr_trace(true, -1, -1, 1), {"hsr=deferred"});
    const PassStats& p = pass(r, 0);
    EXPECT_EQ(p.counters.fragments_shaded, 768u);
    EXPECT_DOUBLE_EQ(p.cycles.breakdown.pixel, 384);
    EXPECT_EQ(p.hsr_disabled_shader_depth_write, 1u);
    EXPECT_EQ(p.hsr_disabled_discard, 0u);
    EXPECT_EQ(p.hsr_disabled_blending, 0u);
  }
  // A fragment reading tile memory cannot occlude either (models/README.md "Sources: bandwidth savers"): it needs what
  // the older fragments leave at its pixel. Layer 1 reads the tile: layer 0 pending is committed,
  // layer 1 shaded, layer 2 pends, layer 3 kills it: 256 x 3 = 768 shaded, 768 written.
  // Under fpk with a window over the tile's 1024 fragments' spacing (256) each breaker gives what
  // it gives under deferred: discard 768, blending 512, shader depth write 768, tile read 768.
  struct Case {
    const char* what;
    Trace trace;
    uint64_t shaded;
  };
  const Case cases[] = {{"tile read", hsr_trace(true, -1, -1, -1, 1), 768},
                        {"discard", hsr_trace(true, 1), 768},
                        {"blending", hsr_trace(true, -1, 3), 512},
                        {"shader depth write", hsr_trace(true, -1, -1, 1), 768}};
  for (const Case& c : cases) {
    for (const std::vector<std::string>& sets :
         {std::vector<std::string>{"hsr=deferred"}, std::vector<std::string>{"hsr=fpk", "hsr.window=256"}}) {
      SCOPED_TRACE(std::string(c.what) + ", " + sets.front());
      const RunStats r = run(c.trace, sets);
      const PassStats& p = pass(r, 0);
      EXPECT_EQ(p.counters.fragments_shaded, c.shaded);
      EXPECT_EQ(p.hsr_disabled_tile_read, std::string(c.what) == "tile read" ? 1u : 0u);
      EXPECT_EQ(p.hsr_disabled_blending + p.hsr_disabled_discard + p.hsr_disabled_shader_depth_write +
                    p.hsr_disabled_tile_read,
                1u);
    }
  }
  // Without the breaker the same tile-reading stack is shaded once per pixel (checks the case above
  // tests the breaker, not the tile read's own cost).
  const RunStats plain = run(hsr_trace(true), {"hsr=deferred"});
  EXPECT_EQ(pass(plain, 0).counters.fragments_shaded, 256u);
}

// ---- CLI: heatmaps and the JSON report ----------------------------------------------------------

int run_cli(const std::string& args, const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string cmd = "cd '";
  cmd += dir.string();
  cmd += "' && '" + TBDR_BINARY_DIR + "/tbdrsim' ";
  cmd += args;
  cmd += " > stdout.txt 2> stderr.txt";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(TimingCli, HeatmapsWritesNonEmptyPngs) {
  const fs::path dir = fs::path(TBDR_BINARY_DIR) / "test-scratch" / "timing_heatmaps";
  ASSERT_EQ(run_cli("run --quiet --heatmaps --out out", dir), 0);
  size_t cycles = 0, bytes = 0, overdraw = 0;
  const std::string png_magic = "\x89PNG";
  for (const auto& e : fs::recursive_directory_iterator(dir / "out")) {
    const std::string name = e.path().filename().string();
    if (name.find("_heat_") == std::string::npos || e.path().extension() != ".png") continue;  // each also as .csv
    std::ifstream in(e.path(), std::ios::binary);
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_GT(data.size(), 8u) << name;
    EXPECT_EQ(data.substr(0, 4), png_magic) << name;
    cycles += name.ends_with("_heat_cycles.png");
    bytes += name.ends_with("_heat_dram_bytes.png");
    overdraw += name.ends_with("_heat_overdraw.png");
  }
  EXPECT_GT(cycles, 0u);
  EXPECT_GT(bytes, 0u);
  EXPECT_GT(overdraw, 0u);
}

TEST(TimingCli, JsonReportHasCyclesScheduleEnergyAndFrameCycles) {
  const fs::path dir = fs::path(TBDR_BINARY_DIR) / "test-scratch" / "timing_json";
  ASSERT_EQ(run_cli("run --quiet --no-images --json r.json", dir), 0);
  std::ifstream in(dir / "r.json");
  const nlohmann::json report = nlohmann::json::parse(in);
  ASSERT_TRUE(report.contains("frames"));
  ASSERT_FALSE(report["frames"].empty());
  for (const auto& frame : report["frames"]) {
    EXPECT_TRUE(frame.contains("frame_cycles"));
    EXPECT_GT(frame["frame_cycles"].get<double>(), 0);
    ASSERT_FALSE(frame["passes"].empty());
    for (const auto& p : frame["passes"]) {
      EXPECT_TRUE(p.contains("cycles"));
      EXPECT_TRUE(p.contains("schedule"));
      EXPECT_TRUE(p.contains("energy"));
      for (const char* k : {"geometry", "fragment", "total", "breakdown"}) EXPECT_TRUE(p["cycles"].contains(k)) << k;
      for (const char* k : {"geometry_start", "geometry_end", "fragment_start", "fragment_end"})
        EXPECT_TRUE(p["schedule"].contains(k)) << k;
    }
  }
}

}  // namespace
}  // namespace tbdr
