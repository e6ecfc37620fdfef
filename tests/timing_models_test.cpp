// Tests of the timing model kinds (shader, deps, hsr, raster, geometry, dram, scheduler, direct,
// cores, energy) and tiling=gmem_bins: each formula on small inputs whose results the comments
// derive by hand from the formulas documented in models/<kind>/*.cpp and models/README.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <variant>
#include <vector>

#include "models/registry.h"

namespace tbdr::models {
namespace {

const std::vector<std::pair<std::string, std::string>> k_timing_implementations = {
    {"shader", "basic"},         {"deps", "none"},         {"deps", "single"},          {"deps", "multi"},
    {"hsr", "none"},             {"hsr", "early_z"},       {"hsr", "fpk"},              {"hsr", "deferred"},
    {"raster", "basic"},         {"geometry", "basic"},    {"dram", "basic"},           {"scheduler", "two_queue"},
    {"scheduler", "serial"},     {"scheduler", "bv_br"},   {"geometry", "binning_pass"},     {"direct", "never"},      {"direct", "always"},        {"direct", "turnip_autotune"},
    {"cores", "round_robin"},    {"cores", "least_loaded"}, {"energy", "basic"},        {"tiling", "gmem_bins"},
};

const std::vector<std::string> k_presets = {"reference", "mali-g76", "mali-g710", "adreno-a740", "powervr", "imr"};

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// The reference preset with `--set` assignments applied left to right.
ModelSet build(const std::vector<std::string>& sets, const std::string& preset = "reference") {
  Configuration config = Configuration::from_preset(preset);
  for (const std::string& s : sets) config.apply(s);
  return build_models(config);
}

TEST(TimingModelsRegistry, EveryImplementationIsRegistered) {
  for (const auto& [kind, impl] : k_timing_implementations) {
    EXPECT_TRUE(contains(registered_kinds(), kind)) << kind;
    EXPECT_TRUE(contains(registered_implementations(kind), impl)) << kind << "=" << impl;
  }
}

TEST(TimingModelsRegistry, ReferencePresetNamesThePlainestImplementations) {
  ModelSet set = build({});
  EXPECT_EQ(set.resolved["shader"]["impl"], "basic");
  EXPECT_EQ(set.resolved["deps"]["impl"], "none");
  EXPECT_EQ(set.resolved["hsr"]["impl"], "none");
  EXPECT_EQ(set.resolved["raster"]["impl"], "basic");
  EXPECT_EQ(set.resolved["geometry"]["impl"], "basic");
  EXPECT_EQ(set.resolved["dram"]["impl"], "basic");
  EXPECT_EQ(set.resolved["scheduler"]["impl"], "two_queue");
  EXPECT_EQ(set.resolved["direct"]["impl"], "never");
  EXPECT_EQ(set.resolved["cores"].dump(), R"({"impl":"round_robin","params":{"clock_mhz":800.0,"count":1}})");
  EXPECT_EQ(set.resolved["energy"]["impl"], "basic");
  EXPECT_EQ(set.resolved["shader"]["params"].dump(),
            R"({"alu_ops_per_clk":32.0,"blend_samples_per_clk":2.0,"pixels_per_clk":2.0,"texels_per_clk":4.0,)"
            R"("tile_io_bytes_per_clk":16.0,"tile_reads_per_clk":2.0,"varyings_per_clk":16.0})");
  ASSERT_TRUE(set.shader && set.deps && set.hsr && set.raster && set.geometry && set.dram && set.scheduler &&
              set.direct && set.cores && set.energy);
}

TEST(TimingModelsPresets, EveryPresetBuilds) {
  for (const std::string& name : k_presets) {
    EXPECT_TRUE(contains(preset_names(), name)) << name;
    Configuration config = Configuration::from_preset(name);
    EXPECT_EQ(config.preset_name(), name);
    EXPECT_NO_THROW(build_models(config)) << name;
  }
}

TEST(TimingModelsPresets, PresetNumbers) {
  ModelSet g76 = build({}, "mali-g76");
  EXPECT_EQ(g76.resolved["tiling"].dump(),
            R"({"impl":"mali_budget","params":{"budget_bits_per_px":256,"height":16,"width":16}})");
  EXPECT_EQ(g76.resolved["deps"]["impl"], "single");
  EXPECT_EQ(g76.resolved["hsr"]["impl"], "fpk");
  // Tile-memory reads at the texture rate on G76: 2 and 2 per clock.
  EXPECT_EQ(g76.resolved["shader"]["params"]["tile_reads_per_clk"], 2.0);
  EXPECT_EQ(g76.resolved["shader"]["params"]["texels_per_clk"], 2.0);
  EXPECT_EQ(g76.resolved["shader"]["params"]["alu_ops_per_clk"], 24.0);
  EXPECT_EQ(g76.cores->core_count(), 10u);

  ModelSet g710 = build({}, "mali-g710");
  EXPECT_EQ(g710.resolved["tiling"]["params"]["width"], 32);
  EXPECT_EQ(g710.resolved["deps"]["impl"], "multi");
  // Half the texture rate from G77 on: 4 tile reads vs 8 texels per clock.
  EXPECT_EQ(g710.resolved["shader"]["params"]["tile_reads_per_clk"], 4.0);
  EXPECT_EQ(g710.resolved["shader"]["params"]["texels_per_clk"], 8.0);
  EXPECT_EQ(g710.resolved["shader"]["params"]["alu_ops_per_clk"], 64.0);
  EXPECT_EQ(g710.resolved["shader"]["params"]["pixels_per_clk"], 4.0);

  ModelSet adreno = build({}, "adreno-a740");
  EXPECT_EQ(adreno.resolved["tiling"]["impl"], "gmem_bins");
  EXPECT_EQ(adreno.resolved["tiling"]["params"]["gmem_bytes"], 3145728);
  EXPECT_EQ(adreno.resolved["direct"]["impl"], "turnip_autotune");

  EXPECT_TRUE(std::holds_alternative<Deferred>(build({}, "powervr").hsr->policy()));
  EXPECT_EQ(build({}, "powervr").tiling->choose_tile_size(TilingInput{64, 64, {}}).width, 32u);
  ModelSet imr = build({}, "imr");
  EXPECT_TRUE(imr.direct->decide(DirectInput{}).direct);
  EXPECT_EQ(imr.direct->decide(DirectInput{}).fb_cache_bytes, 262144u);
  EXPECT_TRUE(std::holds_alternative<EarlyZ>(imr.hsr->policy()));
}

TEST(TimingModelsShader, BasicFormulas) {
  ModelSet set = build({});  // alu 32, texels 4, tile reads 2, varyings 16, pixels 2, blend 2, tile io 16
  TileWork w;
  w.alu_cycles = 640;       // 640 / 32 = 20
  w.texture_samples = 48;   // 48 / 4 = 12
  w.tile_reads = 30;        // 30 / 2 = 15
  w.varyings = 128;         // 128 / 16 = 8
  w.written_samples = 20;   // 20 / 2 = 10
  w.blended_samples = 8;    // blend 8 / 2 = 4; pixel = 10 + 4 = 14
  w.load_bytes = Bytes(160);  // 160 / 16 = 10
  w.store_bytes = Bytes(64);  // 64 / 16 = 4
  w.resolve_pixels = 6;     // 6 / 2 = 3
  const ShaderCycles c = set.shader->tile_cycles(w);
  EXPECT_EQ(c.alu.value, 20.0);
  EXPECT_EQ(c.texture.value, 12.0);
  EXPECT_EQ(c.tile_read.value, 15.0);
  EXPECT_EQ(c.varying.value, 8.0);
  EXPECT_EQ(c.blend.value, 4.0);
  EXPECT_EQ(c.pixel.value, 14.0);
  EXPECT_EQ(c.load.value, 10.0);
  EXPECT_EQ(c.store.value, 4.0);
  EXPECT_EQ(c.resolve.value, 3.0);
  EXPECT_EQ(c.shading.value, 20.0);  // max(20, 12, 15, 8, 14): ALU-bound
  // Raise the ALU rate: the tile-read unit becomes the bottleneck.
  EXPECT_EQ(build({"shader.alu_ops_per_clk=64"}).shader->tile_cycles(w).shading.value, 15.0);
  EXPECT_EQ(set.shader->tile_cycles(TileWork{}).shading.value, 0.0);
}

TEST(TimingModelsShader, TileReadsVsTextureUnderG76AndG710) {
  // One simple shader reading 64 values per tile, through input attachments or textures.
  TileWork tile_read, texture;
  tile_read.tile_reads = 64;
  texture.texture_samples = 64;
  // G76: both at 2 per clock, 32 cycles either way.
  ModelSet g76 = build({}, "mali-g76");
  EXPECT_EQ(g76.shader->tile_cycles(tile_read).shading.value, 32.0);
  EXPECT_EQ(g76.shader->tile_cycles(texture).shading.value, 32.0);
  // G710: tile reads 4/clk (16 cycles), textures 8/clk (8 cycles): the tile-read version is slower.
  ModelSet g710 = build({}, "mali-g710");
  EXPECT_EQ(g710.shader->tile_cycles(tile_read).shading.value, 16.0);
  EXPECT_EQ(g710.shader->tile_cycles(texture).shading.value, 8.0);
}

TileWork layered_tile(double reads_per_fragment) {
  TileWork w;
  w.layer_histogram[1] = 10;  // one layer: never waits
  w.layer_histogram[2] = 4;   // 4 x 1 waiting layers
  w.layer_histogram[3] = 2;   // 2 x 2
  w.layer_histogram[kMaxTrackedLayers - 1] = 1;  // the last slot counts as 15 layers: 14
  w.tile_reads_per_fragment = reads_per_fragment;  // waiting layers = 4 + 4 + 14 = 22
  return w;
}

TEST(TimingModelsDeps, StallFormulas) {
  // Defaults: access_latency 8, overlap 16, trackers 2.
  const TileWork w = layered_tile(3);
  EXPECT_EQ(build({}).deps->stall_cycles(w).value, 0.0);                // deps=none
  EXPECT_EQ(build({"deps=single"}).deps->stall_cycles(w).value, 33.0);  // 22 x 3 x 8 / 16
  EXPECT_EQ(build({"deps=multi"}).deps->stall_cycles(w).value, 5.5);    // 22 x min(3,1) x 8 / (16 x 2)
  EXPECT_EQ(build({"deps=multi", "deps.trackers=1"}).deps->stall_cycles(w).value, 11.0);  // 22 x 1 x 8 / 16
  EXPECT_EQ(build({"deps=single", "deps.access_latency=4", "deps.overlap=8"}).deps->stall_cycles(w).value, 33.0);
  // Fewer than one read per fragment: 22 x 0.5 x 8 / 16 = 5.5 and 22 x 0.5 x 8 / 32 = 2.75.
  EXPECT_EQ(build({"deps=single"}).deps->stall_cycles(layered_tile(0.5)).value, 5.5);
  EXPECT_EQ(build({"deps=multi"}).deps->stall_cycles(layered_tile(0.5)).value, 2.75);
}

TEST(TimingModelsDeps, SingleStallsAtLeastAsMuchAsMultiAndBothZeroForOneLayer) {
  ModelSet single = build({"deps=single"}), multi = build({"deps=multi"});
  for (double reads : {0.25, 1.0, 2.0, 7.5}) {
    for (size_t layers = 0; layers < kMaxTrackedLayers; ++layers) {
      TileWork w;
      w.layer_histogram[layers] = 5;
      w.tile_reads_per_fragment = reads;
      const double s = single.deps->stall_cycles(w).value, m = multi.deps->stall_cycles(w).value;
      if (layers <= 1) {
        EXPECT_EQ(s, 0.0);
        EXPECT_EQ(m, 0.0);
      } else {
        EXPECT_GT(s, m) << layers << " layers, " << reads << " reads";  // strictly fewer with 2 trackers
      }
    }
  }
}

TEST(TimingModelsHsr, Policies) {
  EXPECT_TRUE(std::holds_alternative<NoHsr>(build({}).hsr->policy()));
  EXPECT_TRUE(std::holds_alternative<EarlyZ>(build({"hsr=early_z"}).hsr->policy()));
  EXPECT_TRUE(std::holds_alternative<Deferred>(build({"hsr=deferred"}).hsr->policy()));
  const HsrPolicy fpk = build({"hsr=fpk"}).hsr->policy();
  ASSERT_TRUE(std::holds_alternative<Fpk>(fpk));
  EXPECT_EQ(std::get<Fpk>(fpk).window, 64u);
  EXPECT_EQ(std::get<Fpk>(build({"hsr=fpk", "hsr.window=128"}).hsr->policy()).window, 128u);
}

TEST(TimingModelsRaster, SetupAndQuadsPipelined) {
  TileWork w;
  w.primitives = 10;
  w.quads_rasterized = 25;
  RasterCycles c = build({}).raster->tile_cycles(w);  // 1 tri/clk, 1 quad/clk
  EXPECT_EQ(c.setup.value, 10.0);
  EXPECT_EQ(c.raster.value, 25.0);
  EXPECT_EQ(c.total.value, 25.0);
  c = build({"raster.quads_per_clk=5"}).raster->tile_cycles(w);  // 25 / 5 = 5 < 10
  EXPECT_EQ(c.raster.value, 5.0);
  EXPECT_EQ(c.total.value, 10.0);
}

// geometry=binning_pass: the work of VertexSetupBinningInSeries, binned, with 1,000 B of vertex
// reads of which 360 B are positions and indices. The binning pass keeps half the vertex shader
// (320 / 32 x 0.5 = 5) and fetches the 360 B; rendering shades again per listed bin: 10 x 20 / 8 = 25.
// Unbinned (direct, IMR) it is basic's.
TEST(TimingModelsGeometry, BinningPassShadesPositionsThenEveryListedBinAgain) {
  GeometryWork w;
  w.vertex_alu_cycles = 320;
  w.primitives_in = 12;
  w.primitives = 8;
  w.tile_list_entries = 20;
  w.vertex_read_bytes = 1000;
  w.position_read_bytes = 360;
  w.binned = true;
  GeometryCycles c = build({"geometry=binning_pass"}).geometry->cycles(w);
  EXPECT_EQ(c.vertex.value, 5.0);
  EXPECT_EQ(c.total.value, 45.0);  // 5 + 12 + 28
  EXPECT_EQ(c.render_vertex.value, 25.0);
  EXPECT_EQ(c.geometry_fetch.value, 360u);
  w.binned = false;
  c = build({"geometry=binning_pass"}).geometry->cycles(w);
  EXPECT_EQ(c.vertex.value, 10.0);
  EXPECT_EQ(c.render_vertex.value, 0.0);
  EXPECT_EQ(c.geometry_fetch.value, 1000u);
  EXPECT_EQ(build({}).geometry->cycles(w).geometry_fetch.value, 1000u);
}

TEST(TimingModelsGeometry, VertexSetupBinningInSeries) {
  GeometryWork w;
  w.vertices = 40;
  w.vertex_alu_cycles = 320;  // 320 / 32 = 10
  w.primitives_in = 12;       // 12 / 1 = 12
  w.primitives = 8;           // 8 x 1
  w.tile_list_entries = 20;   // + 20 x 1 = 28
  GeometryCycles c = build({}).geometry->cycles(w);
  EXPECT_EQ(c.vertex.value, 10.0);
  EXPECT_EQ(c.setup.value, 12.0);
  EXPECT_EQ(c.binning.value, 28.0);
  EXPECT_EQ(c.total.value, 50.0);
  c = build({"geometry.binning_cycles_per_entry=0.5", "geometry.setup_per_clk=4"}).geometry->cycles(w);
  EXPECT_EQ(c.setup.value, 3.0);     // 12 / 4
  EXPECT_EQ(c.binning.value, 18.0);  // 8 + 20 x 0.5
  EXPECT_EQ(c.total.value, 31.0);
}

TEST(TimingModelsDram, BandwidthPlusOneLatency) {
  ModelSet set = build({});  // 25 B/clk, latency 200
  EXPECT_EQ(set.dram->transfer_cycles(Bytes(0)).value, 0.0);
  EXPECT_EQ(set.dram->transfer_cycles(Bytes(1000)).value, 240.0);  // 1000 / 25 + 200
  EXPECT_EQ(build({"dram.bytes_per_cycle=16", "dram.latency=0"}).dram->transfer_cycles(Bytes(1000)).value, 62.5);
}

// Three passes (geometry, fragment cycles), the third waiting for the second's fragments.
std::vector<PassTiming> three_passes() {
  return {{Cycles(10), Cycles(100), false}, {Cycles(20), Cycles(50), false}, {Cycles(5), Cycles(10), true}};
}

// Each slot's geometry start and end, fragment start and end.
void expect_slots(const std::vector<ScheduleSlot>& s, const std::vector<std::array<double, 4>>& expected) {
  ASSERT_EQ(s.size(), expected.size());
  for (size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(s[i].geometry_start.value, expected[i][0]) << i;
    EXPECT_EQ(s[i].geometry_end.value, expected[i][1]) << i;
    EXPECT_EQ(s[i].fragment_start.value, expected[i][2]) << i;
    EXPECT_EQ(s[i].fragment_end.value, expected[i][3]) << i;
  }
}

TEST(TimingModelsScheduler, TwoQueueOverlapsUnlessThePassWaits) {
  expect_slots(build({}).scheduler->schedule(three_passes()),
               {{0, 10, 10, 110},      // pass 0: geometry 0..10, fragment 10..110
                {10, 30, 110, 160},    // pass 1: geometry right after pass 0's, overlapping its fragments
                {160, 165, 165, 175}}  // pass 2 waits for pass 1's fragments
  );
}

TEST(TimingModelsScheduler, SerialNeverOverlaps) {
  expect_slots(build({"scheduler=serial"}).scheduler->schedule(three_passes()),
               {{0, 10, 10, 110}, {110, 130, 130, 180}, {180, 185, 185, 195}});
  EXPECT_TRUE(build({}).scheduler->schedule({}).empty());
}

// scheduler=bv_br (models/README.md "scheduler"), three binned passes (geometry, fragment) 10/100,
// 20/50, 5/10, none waiting:
//   concurrent_binning=false: each binning pass after the previous pass's rendering, as serial.
//   concurrent_binning=true, bv_ahead_passes=1: pass 1 bins under pass 0's rendering [10, 110]; pass
//     2 may bin only once BR has finished pass 0 (one pass ahead), at 110, not at 30 as two_queue.
//   bv_ahead_passes=2: pass 2 bins at 30, as two_queue.
TEST(TimingModelsScheduler, BvBrBinsAheadOnlyWithConcurrentBinningAndOnePassAhead) {
  const std::vector<PassTiming> binned = {
      {Cycles(10), Cycles(100), false, true}, {Cycles(20), Cycles(50), false, true}, {Cycles(5), Cycles(10), false, true}};
  expect_slots(build({"scheduler=bv_br", "scheduler.concurrent_binning=false"}).scheduler->schedule(binned),
               {{0, 10, 10, 110}, {110, 130, 130, 180}, {180, 185, 185, 195}});
  expect_slots(build({"scheduler=bv_br"}).scheduler->schedule(binned),
               {{0, 10, 10, 110}, {10, 30, 110, 160}, {110, 115, 160, 170}});
  expect_slots(build({"scheduler=bv_br", "scheduler.bv_ahead_passes=2"}).scheduler->schedule(binned),
               {{0, 10, 10, 110}, {10, 30, 110, 160}, {30, 35, 160, 170}});
}

TEST(TimingModelsDirect, NeverAndAlways) {
  const DirectDecision never = build({}).direct->decide(DirectInput{});
  EXPECT_FALSE(never.direct);
  EXPECT_EQ(never.reason, "tiled: direct=never");
  const DirectDecision always = build({"direct=always", "direct.fb_cache_bytes=1024"}).direct->decide(DirectInput{});
  EXPECT_TRUE(always.direct);
  EXPECT_EQ(always.fb_cache_bytes, 1024u);
  EXPECT_EQ(always.line_bytes, 64u);
  EXPECT_EQ(build({"direct=always"}).direct->decide(DirectInput{}).fb_cache_bytes, 262144u);
}

TEST(TimingModelsDirect, TurnipAutotuneFlipsWhereTheFormulaSays) {
  ModelSet set = build({"direct=turnip_autotune"});
  DirectInput in;
  in.pixels = 100;
  in.draws = 10;
  in.draw_bytes = 200;
  in.gmem_bytes_per_pixel = 8;  // gmem_bw = (8 x 100 x 11 + 200) / 10 = 900
  in.sysmem_bytes_per_pixel = 7;  // sysmem_bw = 7 x 100 + 200 = 900 <= 900: direct
  DirectDecision d = set.direct->decide(in);
  EXPECT_TRUE(d.direct);
  EXPECT_EQ(d.sysmem_bandwidth, 900.0);
  EXPECT_EQ(d.gmem_bandwidth, 900.0);
  EXPECT_EQ(d.reason, "direct: sysmem_bw 900 <= gmem_bw 900");
  EXPECT_EQ(d.fb_cache_bytes, 1966080u);
  in.sysmem_bytes_per_pixel = 7.5;  // 950 > 900: tiles
  d = set.direct->decide(in);
  EXPECT_FALSE(d.direct);
  EXPECT_EQ(d.sysmem_bandwidth, 950.0);
  EXPECT_EQ(d.reason, "tiled: sysmem_bw 950 > gmem_bw 900");
  // Without history: direct only with <= 5 draws and one sample.
  ModelSet fallback = build({"direct=turnip_autotune", "direct.history=false"});
  in.draws = 5;
  EXPECT_TRUE(fallback.direct->decide(in).direct);
  EXPECT_EQ(fallback.direct->decide(in).sysmem_bandwidth, 0.0);  // not compared
  in.draws = 6;
  EXPECT_FALSE(fallback.direct->decide(in).direct);
  in.draws = 1;
  in.samples = 4;
  EXPECT_FALSE(fallback.direct->decide(in).direct);
}

TEST(TimingModelsCores, PoliciesOnAFixedTileList) {
  const std::vector<Cycles> tiles = {Cycles(5), Cycles(1), Cycles(1), Cycles(1), Cycles(4), Cycles(2)};
  // round_robin, 2 cores: core 0 = 5 + 1 + 4 = 10, core 1 = 1 + 1 + 2 = 4.
  EXPECT_EQ(build({"cores.count=2"}).cores->fragment_cycles(tiles).value, 10.0);
  // 3 cores: 5 + 1 = 6, 1 + 4 = 5, 1 + 2 = 3.
  EXPECT_EQ(build({"cores.count=3"}).cores->fragment_cycles(tiles).value, 6.0);
  // least_loaded, 2 cores: 5 -> c0 (tie, lowest) [5,0]; 1,1,1 -> c1 [5,3]; 4 -> c1 [5,7]; 2 -> c0 [7,7].
  EXPECT_EQ(build({"cores=least_loaded", "cores.count=2"}).cores->fragment_cycles(tiles).value, 7.0);
  // One core: the sum.
  ModelSet one = build({});
  EXPECT_EQ(one.cores->fragment_cycles(tiles).value, 14.0);
  EXPECT_EQ(one.cores->fragment_cycles({}).value, 0.0);
  EXPECT_EQ(one.cores->core_count(), 1u);
  EXPECT_EQ(one.cores->clock_mhz(), 800.0);
  EXPECT_EQ(build({"cores=least_loaded", "cores.count=4", "cores.clock_mhz=500"}).cores->clock_mhz(), 500.0);
}

TEST(TimingModelsEnergy, PicojoulesPerByte) {
  const EnergyJoules e = build({}).energy->energy(Bytes(1000000), Bytes(1000000));  // 100 and 1 pJ/B
  EXPECT_DOUBLE_EQ(e.dram, 1e-4);
  EXPECT_DOUBLE_EQ(e.tile_buffer, 1e-6);
  EXPECT_DOUBLE_EQ(e.total, 1.01e-4);
  EXPECT_EQ(build({}).energy->energy(Bytes(0), Bytes(0)).total, 0.0);
}

TEST(TimingModelsGmemBins, TurnipLayout) {
  ModelSet set = build({"tiling=gmem_bins"});  // A740 defaults: 3 MiB, align 96x32, max 1024x1008
  // 1920x1080, RGBA8 + D32: 8 B/px, 3145728 / 8 = 393216 px. Start 1920x1088; over the maximum:
  // 2 columns (960) and 2 rows (544); 960 x 544 = 522240 > 393216 and 960 > 544: 3 columns,
  // align(640, 96) = 672; 672 x 544 = 365568 fits.
  TilingInput in{1920, 1080, {{4, 1, true, false, false}, {4, 1, false, true, false}}};
  TileSize t = set.tiling->choose_tile_size(in);
  EXPECT_EQ(t.width, 672u);
  EXPECT_EQ(t.height, 544u);
  EXPECT_EQ(t.reason, "bin 672x544 (3x2 bins): 8 B/px, GMEM 3145728 B holds 393216 px");
  // 4x MSAA: 32 B/px, 98304 px. From 960x544: cols 3 (672), cols 4 (480), rows 3 (384),
  // cols 5 (384), rows 4 (288), cols 6 (align(320, 96) = 384), cols 7 (align(275, 96) = 288):
  // 288 x 288 = 82944 fits.
  in.attachments = {{4, 4, true, false, false}, {4, 4, false, true, false}};
  t = set.tiling->choose_tile_size(in);
  EXPECT_EQ(t.width, 288u);
  EXPECT_EQ(t.height, 288u);
  EXPECT_EQ(t.reason, "bin 288x288 (7x4 bins): 32 B/px, GMEM 3145728 B holds 98304 px");
  // A small render area fits in one aligned bin.
  t = set.tiling->choose_tile_size(TilingInput{100, 50, {{4, 1, true, false, false}}});
  EXPECT_EQ(t.width, 192u);
  EXPECT_EQ(t.height, 64u);
  // Too little GMEM for even one aligned bin: the smallest aligned bin, and the reason says so.
  t = build({"tiling=gmem_bins", "tiling.gmem_bytes=1000"})
          .tiling->choose_tile_size(TilingInput{200, 100, {{8, 1, true, false, false}}});
  EXPECT_EQ(t.width, 96u);
  EXPECT_EQ(t.height, 32u);
  EXPECT_NE(t.reason.find("does not fit"), std::string::npos) << t.reason;
}

TEST(TimingModelsParams, UnknownAndOutOfRangeParametersAreRefused) {
  struct Case {
    std::vector<std::string> sets;
    std::string what;
  };
  const std::vector<Case> cases = {
      {{"shader.texel_per_clk=2"}, "shader.texel_per_clk is not a parameter of shader=basic"},
      {{"deps=single", "deps.trackers=2"}, "deps.trackers is not a parameter of deps=single"},
      {{"hsr.window=8"}, "hsr.window is not a parameter of hsr=none"},
      {{"direct.fb_cache_bytes=1"}, "direct.fb_cache_bytes is not a parameter of direct=never"},
      {{"scheduler.overlap=1"}, "scheduler=two_queue has no parameters"},
      {{"shader.alu_ops_per_clk=0"}, "shader.alu_ops_per_clk"},
      {{"cores.count=0"}, "cores.count"},
      {{"deps=multi", "deps.trackers=0"}, "deps.trackers"},
  };
  for (const Case& c : cases) {
    Configuration config = Configuration::reference();
    for (const std::string& s : c.sets) config.apply(s);
    try {
      build_models(config);
      ADD_FAILURE() << "expected an InputError for " << c.sets.back();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.what), std::string::npos) << e.what();
    }
  }
}

TEST(TimingModelsParams, EveryParameterIsDescribed) {
  const std::string text = describe_models();
  for (const auto& [kind, impl] : k_timing_implementations)
    for (const ParamInfo& p : implementation_parameters(kind, impl)) {
      EXPECT_FALSE(p.description.empty()) << kind << "." << p.name;
      EXPECT_NE(text.find(kind + "." + p.name), std::string::npos) << kind << "." << p.name;
    }
  std::vector<std::string> names;
  for (const ParamInfo& p : implementation_parameters("shader", "basic")) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alu_ops_per_clk", "texels_per_clk", "tile_reads_per_clk",
                                             "varyings_per_clk", "pixels_per_clk", "blend_samples_per_clk",
                                             "tile_io_bytes_per_clk"}));
}

}  // namespace
}  // namespace tbdr::models
