// Google Benchmark programs for the hot loops. Speed lives here, never in tests.
//
//   BM_StreamWrite/AREA/TILE      the same number of 4-byte entries as that binning case, written
//                                 sequentially: the in-run physical baseline of the ratios
//   BM_AppendWrite/AREA/TILE      the same entries appended one at a time to a std::vector
//                                 (push_back, capacity reserved): the baseline the binning target's
//                                 calibration implies (its naive binner at 5 - 9 %), reported beside
//   BM_Bin/AREA/TILE/SHUFFLED     sim's bin_triangles on 1M triangles of ~AREA px on 1920x1080
//   BM_NaiveBin/AREA/TILE/SHUFFLED the naive reference binner (bench/naive_reference.cpp)
//   BM_BinStrategy/STRATEGY/AREA/TILE/SHUFFLED the binning kind's binners (models/README.md
//                                 "binning"): exact (bin_exact) and hierarchical (bin_hierarchical,
//                                 the lists it writes); aabb is BM_Bin
//   BM_CountFloor/AREA/TILE/SHUFFLED one count per triangle into its first tile, no lists: less
//                                 than any binner does, so its rate bounds every binning ratio
//   BM_MoveFloor/AREA/TILE        read each triangle's bounds, write one entry, sequentially: the
//                                 data movement under every binner, bounding the ratios too
//   BM_ScatterFloor/AREA/TILE/SHUFFLED that binning's list writes alone: each entry's tile and
//                                 primitive precomputed, written through per-tile cursors
//   BM_FillFloor/AREA/TILE/SHUFFLED aabb's fill pass alone (512 and 2048 px): each triangle's tile
//                                 box precomputed (8 B a triangle), written through per-tile cursors
//   BM_Raster/AREA/TILE           sim's raster_triangle into one tile: depth test + blend
//   BM_NaiveRaster/AREA/TILE      the naive scalar reference rasterizer on the same triangles
//   BM_StreamWriteRaster          4-byte sequential writes, the raster ratios' baseline
//   BM_Frame/default/PRESET       simulate() of traces/default, one thread
//   BM_ForkJoin/BLOCKS            one for_blocks round trip of BLOCKS empty blocks (the worker
//                                 pool's wake-up and join, paid by each parallel step of a pass)
//
// Counters: triangles/s, entries/s (binning), fragments/s (raster). tools/bench turns them into
// ratios from one run.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <string>

#include "bench/naive_reference.h"
#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/binning.h"
#include "sim/binning_fill.h"
#include "sim/geometry.h"
#include "sim/parallel.h"
#include "sim/pipeline.h"
#include "sim/programs.h"
#include "sim/raster.h"

namespace {

using namespace tbdr;

constexpr int32_t kWidth = 1920, kHeight = 1080;
constexpr size_t kBinTriangles = 1'000'000;
constexpr size_t kRasterTriangles = 2048;
const int kAreas[] = {2, 8, 32, 512, 2048};
const int kTiles[] = {16, 32};

uint32_t spread_bits(uint32_t v) {  // 16 bits -> even bit positions (Morton order)
  v &= 0xffff;
  v = (v | (v << 8)) & 0x00ff00ff;
  v = (v | (v << 4)) & 0x0f0f0f0f;
  v = (v | (v << 2)) & 0x33333333;
  return (v | (v << 1)) & 0x55555555;
}

// `count` right triangles of `area` pixels (legs sqrt(2 area), random rotation) with their first
// vertex uniform in [ox, ox + w) x [oy, oy + h), in fixed point like transform_draws produces.
// Spatial order: sorted along a Morton curve of that vertex (a mesh's neighbours come
// together); shuffled: random order. Varyings: a color with alpha 0.5 per vertex.
ScreenPrims make_prims(double area, size_t count, bool shuffled, float ox, float oy, float w, float h,
                       bool varyings) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> px(ox, ox + w), py(oy, oy + h), angle(0, 6.2831853f), unit(0, 1);
  const float side = float(std::sqrt(2.0 * area));
  struct Tri { float x[3], y[3], z[3]; uint32_t key; };
  std::vector<Tri> tris(count);
  for (Tri& t : tris) {
    const float x = px(rng), y = py(rng), a = angle(rng);
    t.x[0] = x, t.y[0] = y;
    t.x[1] = x + side * std::cos(a), t.y[1] = y + side * std::sin(a);
    t.x[2] = x + side * std::cos(a + 1.5707963f), t.y[2] = y + side * std::sin(a + 1.5707963f);
    for (float& z : t.z) z = unit(rng);
    t.key = (spread_bits(uint32_t(std::max(0.0f, y))) << 1) | spread_bits(uint32_t(std::max(0.0f, x)));
  }
  if (!shuffled) std::stable_sort(tris.begin(), tris.end(), [](const Tri& a, const Tri& b) { return a.key < b.key; });
  ScreenPrims prims;
  prims.reserve(count);
  prims.vertices.reserve(3 * count);
  prims.vertex_varyings.reserve(3 * count * kVaryingCount);
  for (const Tri& t : tris) {
    float c[3][kVaryingCount] = {};
    if (varyings)
      for (int v = 0; v < 3; ++v) {
        const float random[kVaryingCount] = {unit(rng), unit(rng), unit(rng), 0.5f, unit(rng), unit(rng), 0, 0, 1};
        std::copy(random, random + kVaryingCount, c[v]);
      }
    uint32_t vertex[3];
    for (int v = 0; v < 3; ++v) {
      const int32_t fx = int32_t(std::lround(t.x[v] * kSubpixelOne)), fy = int32_t(std::lround(t.y[v] * kSubpixelOne));
      vertex[v] = prims.add_vertex(ScreenVertex{fx, fy, t.z[v], 1.0f}, c[v]);
    }
    prims.add_triangle(vertex, 0, true);
  }
  return prims;
}

// The binning input of (area, order), kept while consecutive benchmarks share it.
const ScreenPrims& bin_input(int area, bool shuffled) {
  static int cached_area = -1;
  static bool cached_shuffled = false;
  static std::unique_ptr<ScreenPrims> cached;
  if (!cached || cached_area != area || cached_shuffled != shuffled) {
    cached.reset();
    cached = std::make_unique<ScreenPrims>(make_prims(area, kBinTriangles, shuffled, 0, 0, kWidth, kHeight, false));
    cached_area = area;
    cached_shuffled = shuffled;
  }
  return *cached;
}

const Rect kScreen{0, 0, uint32_t(kWidth), uint32_t(kHeight)};

uint64_t entry_count(int area, int tile) {
  static std::map<std::pair<int, int>, uint64_t> counts;
  auto it = counts.find({area, tile});
  if (it != counts.end()) return it->second;
  TileLists lists;
  bin_triangles(bin_input(area, false), {kScreen}, TileGrid(kScreen, tile, tile), lists);
  return counts[{area, tile}] = lists.entries();
}

void set_bin_counters(benchmark::State& state, uint64_t triangles, uint64_t entries) {
  state.counters["triangles/s"] = benchmark::Counter(double(triangles) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["entries/s"] = benchmark::Counter(double(entries) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["entries"] = double(entries);
}

// A binner's or a write loop's first run in a process maps and zeroes its output's pages (the lists
// of 2048 px triangles over 16 px tiles: hundreds of MB); a row of a few iterations then timed
// those faults at up to 5x the loop's time in one process and not in the next (bench/README.md
// "Binning rows warmed up"). Each row runs its loop once before timing, as time_list_writes does for
// the floors, whose outputs are allocated and written before their loops; the simulator's binning
// of a later pass or run reuses its lists likewise.
template <class Body>
void warm_up(Body body) {
  body();
  benchmark::ClobberMemory();
}

void BM_StreamWrite(benchmark::State& state, int area, int tile) {
  const uint64_t n = entry_count(area, tile);
  std::vector<uint32_t> out(n);
  for (auto _ : state) {
    uint32_t* p = out.data();
    for (uint64_t i = 0; i < n; ++i) p[i] = uint32_t(i);
    benchmark::ClobberMemory();
  }
  state.counters["entries/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// The binning target's calibration puts a naive append loop at 5 - 9 % of the streaming write on
// 2.3 GHz Xeon cores; the vectorized sequential write above runs several times faster than that
// implies (naive 0.8 - 1.6 % on both machines measured), an append loop about as fast as it implies.
// Both are reported.
void BM_AppendWrite(benchmark::State& state, int area, int tile) {
  const uint64_t n = entry_count(area, tile);
  std::vector<uint32_t> out;
  out.reserve(n);
  auto append = [&] {
    out.clear();
    for (uint64_t i = 0; i < n; ++i) out.push_back(uint32_t(i));
    benchmark::DoNotOptimize(out.data());
  };
  warm_up(append);
  for (auto _ : state) {
    append();
    benchmark::ClobberMemory();
  }
  state.counters["entries/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_Bin(benchmark::State& state, int area, int tile, bool shuffled) {
  const ScreenPrims& prims = bin_input(area, shuffled);
  const TileGrid grid(kScreen, uint32_t(tile), uint32_t(tile));
  const std::vector<Rect> clip = {kScreen};
  TileLists lists;
  auto bin = [&] { bin_triangles(prims, clip, grid, lists); };
  warm_up(bin);
  for (auto _ : state) {
    bin();
    benchmark::DoNotOptimize(lists.prims.data());
    benchmark::ClobberMemory();
  }
  set_bin_counters(state, prims.size(), lists.entries());
}

// binning=exact and binning=hierarchical: each strategy's own lists, as the tiler writes them.
void BM_BinStrategy(benchmark::State& state, models::BinningStrategy strategy, int area, int tile, bool shuffled) {
  const ScreenPrims& prims = bin_input(area, shuffled);
  const TileGrid grid(kScreen, uint32_t(tile), uint32_t(tile));
  const std::vector<Rect> clip = {kScreen};
  models::BinningRule rule;
  rule.strategy = strategy;
  TileLists lists;
  HierarchyLists& hierarchy = lists.hierarchy;
  auto bin = [&] {
    if (strategy == models::BinningStrategy::exact)
      bin_exact(prims, 0, prims.size(), clip, grid, lists);
    else
      bin_hierarchical(prims, 0, prims.size(), clip, grid, rule, hierarchy);
  };
  warm_up(bin);
  for (auto _ : state) {
    bin();
    benchmark::DoNotOptimize(lists.prims.data());
    benchmark::DoNotOptimize(hierarchy.prims.data());
    benchmark::ClobberMemory();
  }
  set_bin_counters(state, prims.size(), strategy == models::BinningStrategy::exact ? lists.entries() : hierarchy.entries());
}

void BM_NaiveBin(benchmark::State& state, int area, int tile, bool shuffled) {
  const ScreenPrims& prims = bin_input(area, shuffled);
  const TileGrid grid(kScreen, uint32_t(tile), uint32_t(tile));
  const std::vector<Rect> clip = {kScreen};
  std::vector<std::vector<uint32_t>> tiles;
  uint64_t entries = 0;
  auto bin = [&] { bench::naive_bin(prims, clip, grid, tiles); };
  warm_up(bin);
  for (auto _ : state) {
    bin();
    benchmark::ClobberMemory();
  }
  for (const auto& t : tiles) entries += t.size();
  set_bin_counters(state, prims.size(), entries);
}

// The floor under every binner on this machine: per triangle, read its bounding box's corner and
// add one to an L1-resident count of its first tile. Every binner does at least this (a counting
// pass), plus the far corner, the clip, the other tiles and the list writes; so the rate, as a
// percentage of the streaming write, bounds what any binning row can reach here.
void BM_CountFloor(benchmark::State& state, int area, int tile, bool shuffled) {
  const ScreenPrims& prims = bin_input(area, shuffled);
  const TileGrid grid(kScreen, uint32_t(tile), uint32_t(tile));
  const uint32_t shift = uint32_t(std::countr_zero(uint32_t(tile)));
  std::vector<uint32_t> count(grid.tile_count());
  const int32_t* min_x = prims.min_x.data();
  const int32_t* min_y = prims.min_y.data();
  const int32_t max_col = int32_t(grid.cols) - 1, max_row = int32_t(grid.rows) - 1;
  for (auto _ : state) {
    std::fill(count.begin(), count.end(), 0);
    for (size_t p = 0; p < prims.size(); ++p) {
      const int32_t c = std::clamp(min_x[p] >> shift, 0, max_col), r = std::clamp(min_y[p] >> shift, 0, max_row);
      ++count[size_t(r) * grid.cols + size_t(c)];
    }
    benchmark::DoNotOptimize(count.data());
    benchmark::ClobberMemory();
  }
  set_bin_counters(state, prims.size(), entry_count(area, tile));
}

// The data movement under every binner: per triangle, read its four bounds (16 B) and write one
// 4-byte entry, sequentially, in a loop the compiler vectorizes, and nothing else. A binner reads
// at least the bounds and writes at least an entry per triangle (every entry, in fact), besides
// counting and scattering; so this rate bounds the binning rows from the memory side, as the
// count floor does from the counting side. Spatial-order input (the order reads nothing else).
void BM_MoveFloor(benchmark::State& state, int area, int tile) {
  const ScreenPrims& prims = bin_input(area, false);
  const size_t n = prims.size();
  std::vector<uint32_t> out(n);
  const int32_t* __restrict min_x = prims.min_x.data();
  const int32_t* __restrict min_y = prims.min_y.data();
  const int32_t* __restrict max_x = prims.max_x.data();
  const int32_t* __restrict max_y = prims.max_y.data();
  for (auto _ : state) {
    uint32_t* __restrict o = out.data();
    for (size_t p = 0; p < n; ++p) o[p] = uint32_t(min_x[p] ^ min_y[p] ^ max_x[p] ^ max_y[p]);
    benchmark::ClobberMemory();
  }
  set_bin_counters(state, n, entry_count(area, tile));
}

// A floor's timing: `write` fills `out` once, which must equal bin_triangles' lists (else the row
// is skipped with `differs`), then runs once per iteration.
template <class Write>
void time_list_writes(benchmark::State& state, Write write, const std::vector<uint32_t>& out, const TileLists& lists,
                      const char* differs) {
  write();
  if (!std::equal(out.begin(), out.end(), lists.prims.begin())) state.SkipWithError(differs);
  for (auto _ : state) {
    write();
    benchmark::ClobberMemory();
  }
}

// The list writes under every binner: each entry of bin_triangles' lists for this input, its tile
// and primitive precomputed in submission order (8 B read sequentially per entry), written through
// per-tile cursors set from the final offsets; nothing counted, no bounds read. A binner that
// places each entry through its tile's cursor (any counting-sort or append binner) does at least
// this, so the rate bounds the binning rows from the list side, as BM_CountFloor does from the
// counting side. The lists it writes are checked against bin_triangles' once.
void BM_ScatterFloor(benchmark::State& state, int area, int tile, bool shuffled) {
  const ScreenPrims& prims = bin_input(area, shuffled);
  const TileGrid grid(kScreen, uint32_t(tile), uint32_t(tile));
  TileLists lists;
  bin_triangles(prims, {kScreen}, grid, lists);
  std::vector<uint64_t> entries;  // primitive << 32 | tile: sorted, the order a binner meets them
  entries.reserve(lists.entries());
  for (uint32_t t = 0; t < grid.tile_count(); ++t)
    for (uint32_t i = lists.offsets[t]; i < lists.offsets[t + 1]; ++i) entries.push_back(uint64_t(lists.prims[i]) << 32 | t);
  std::sort(entries.begin(), entries.end());
  std::vector<uint32_t> cursor(grid.tile_count()), out(entries.size());
  auto scatter = [&] {
    std::copy(lists.offsets.begin(), lists.offsets.end() - 1, cursor.begin());
    uint32_t* __restrict c = cursor.data();
    uint32_t* __restrict o = out.data();
    for (const uint64_t e : entries) o[c[uint32_t(e)]++] = uint32_t(e >> 32);
  };
  time_list_writes(state, scatter, out, lists, "scatter differs from bin_triangles");
  set_bin_counters(state, prims.size(), entries.size());
}

// aabb's fill pass alone: each triangle's tile box precomputed (first tile, columns, rows: 8 B read
// once a triangle, less than the 16 B of bounds a binner reads), its entries written through per-tile
// cursors set from the final offsets, a row's cursors four at a time as aabb's fill moves them
// (sim/binning_fill.h); no count, no clipping, no range arithmetic. Every binner that
// writes aabb's lists through per-tile cursors does at least this (it also counts, reads the bounds
// and clips), so at 512 and 2048 px, where BM_ScatterFloor's 8 B a list entry is more input than a
// binner reads, this rate bounds the aabb rows. The lists it writes are checked against bin_triangles' once.
void BM_FillFloor(benchmark::State& state, int area, int tile, bool shuffled) {
  const ScreenPrims& prims = bin_input(area, shuffled);
  const TileGrid grid(kScreen, uint32_t(tile), uint32_t(tile));
  TileLists lists;
  bin_triangles(prims, {kScreen}, grid, lists);
  struct Box { uint32_t first_tile; uint16_t cols, rows; };  // cols 0: no tile
  std::vector<Box> boxes(prims.size());
  int32_t c0, r0, c1, r1;
  for (size_t p = 0; p < prims.size(); ++p)
    boxes[p] = tile_range(prims, p, kScreen, grid, c0, r0, c1, r1)
                   ? Box{uint32_t(r0) * grid.cols + uint32_t(c0), uint16_t(c1 - c0 + 1), uint16_t(r1 - r0 + 1)}
                   : Box{0, 0, 0};
  std::vector<uint32_t> cursor(grid.tile_count()), out(lists.entries());
  const uint32_t cols = grid.cols;
  auto fill = [&] {
    std::copy(lists.offsets.begin(), lists.offsets.end() - 1, cursor.begin());
    uint32_t* __restrict c = cursor.data();
    uint32_t* __restrict o = out.data();
    for (size_t p = 0; p < boxes.size(); ++p) {
      const Box b = boxes[p];
      for (uint32_t r = 0; r < b.rows; ++r) fill_span(c + b.first_tile + r * cols, b.cols, o, uint32_t(p));
    }
  };
  time_list_writes(state, fill, out, lists, "fill differs from bin_triangles");
  set_bin_counters(state, prims.size(), out.size());
}

// ---- raster: one tile at (64, 64), triangles whose first vertex lies in it ----

struct RasterSetup {
  ScreenPrims prims;
  Rect tile;
  Draw draw;
  CompiledProgram program;
  std::vector<Vec4> color;
  std::vector<float> depth;
  TargetSet targets;

  RasterSetup(int area, int tile_size) {
    tile = Rect{64, 64, uint32_t(tile_size), uint32_t(tile_size)};
    prims = make_prims(area, kRasterTriangles, true, 64, 64, float(tile_size), float(tile_size), true);
    draw.state.depth_test = true;
    draw.state.depth_write = true;
    draw.state.depth_compare = CompareOp::less_or_equal;
    BlendAttachmentState blend;
    blend.enable = true;
    blend.src_color = BlendFactor::src_alpha;
    blend.dst_color = BlendFactor::one_minus_src_alpha;
    blend.src_alpha = BlendFactor::one;
    blend.dst_alpha = BlendFactor::one_minus_src_alpha;
    draw.state.blend = {blend};
    program.kind = CompiledProgram::Kind::vertex_color;
    color.assign(size_t(tile_size) * tile_size, Vec4::Zero());
    depth.assign(size_t(tile_size) * tile_size, 1.0f);
    targets.area = tile;
    targets.color_count = 1;
    targets.color[0] = color.data();
    targets.color_format[0] = Format::RGBA8;
    targets.depth = depth.data();
    targets.depth_format = Format::D32F;
  }
  void reset() {
    std::fill(color.begin(), color.end(), Vec4::Zero());
    std::fill(depth.begin(), depth.end(), 1.0f);
  }
};

void BM_Raster(benchmark::State& state, int area, int tile) {
  RasterSetup s(area, tile);
  PassCounters counters;
  uint64_t fragments = 0;
  // Worked out once per draw, as the pipeline's tiles do.
  const DrawFacts facts = draw_facts(s.draw, s.program, s.targets);
  for (auto _ : state) {
    s.reset();
    counters = PassCounters{};
    for (size_t p = 0; p < s.prims.size(); ++p)
      raster_triangle(s.prims, p, s.tile, s.draw, s.program, s.targets, counters, nullptr, &facts);
    fragments += counters.fragments;
    benchmark::DoNotOptimize(s.color.data());
  }
  state.counters["fragments/s"] = benchmark::Counter(double(fragments), benchmark::Counter::kIsRate);
  state.counters["fragments"] = double(counters.fragments);
}

void BM_NaiveRaster(benchmark::State& state, int area, int tile) {
  RasterSetup s(area, tile);
  uint64_t fragments = 0, last = 0;
  for (auto _ : state) {
    s.reset();
    last = 0;
    for (size_t p = 0; p < s.prims.size(); ++p) last += bench::naive_raster(s.prims, p, s.tile, s.draw, s.program, s.targets);
    fragments += last;
    benchmark::DoNotOptimize(s.color.data());
  }
  state.counters["fragments/s"] = benchmark::Counter(double(fragments), benchmark::Counter::kIsRate);
  state.counters["fragments"] = double(last);
}

// The raster ratios' baseline: 1M sequential 4-byte writes (4 MiB).
void BM_StreamWriteRaster(benchmark::State& state) {
  const uint64_t n = 1 << 20;
  std::vector<uint32_t> out(n);
  for (auto _ : state) {
    uint32_t* p = out.data();
    for (uint64_t i = 0; i < n; ++i) p[i] = uint32_t(i);
    benchmark::ClobberMemory();
  }
  state.counters["entries/s"] = benchmark::Counter(double(n) * double(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_Frame(benchmark::State& state, const std::string& trace_path, const std::string& preset) {
  const Trace trace = read_trace(trace_path);
  const models::ModelSet models = models::build_models(models::Configuration::from_preset(preset));
  SimOptions options;
  options.threads = 1;
  for (auto _ : state) {
    RunStats stats = simulate(trace, models, options, nullptr);
    benchmark::DoNotOptimize(stats.counters.fragments);
  }
}

// A parallel step's fixed cost: BLOCKS blocks that do nothing but count themselves done.
void BM_ForkJoin(benchmark::State& state) {
  const uint32_t blocks = uint32_t(state.range(0));
  std::vector<uint64_t> ran(size_t(blocks) * 8, 0);  // a cache line a block
  for (auto _ : state) for_blocks(blocks, [&](uint32_t b) { ++ran[size_t(b) * 8]; });
  benchmark::DoNotOptimize(ran.data());
  if (ran[0] != uint64_t(state.iterations())) state.SkipWithError("a block did not run once per round trip");
}

// "/AREA/TILE", built by appending: GCC 12 warns falsely (-Wrestrict, GCC bug 105329) on "/" + std::string&&.
std::string area_tile_args(int area, int tile) {
  std::string args = "/";
  args += std::to_string(area);
  args += "/";
  args += std::to_string(tile);
  return args;
}

void register_all() {
  // Binning: per (area, order, tile) the baseline, the naive floor and sim's binner side by side.
  for (int area : kAreas)
    for (int shuffled : {0, 1})
      for (int tile : kTiles) {
        const std::string args = area_tile_args(area, tile);
        if (!shuffled) {
          benchmark::RegisterBenchmark(("BM_StreamWrite" + args).c_str(), BM_StreamWrite, area, tile)->Unit(benchmark::kMillisecond);
          benchmark::RegisterBenchmark(("BM_AppendWrite" + args).c_str(), BM_AppendWrite, area, tile)->Unit(benchmark::kMillisecond);
          if (area <= 32)
            benchmark::RegisterBenchmark(("BM_MoveFloor" + args).c_str(), BM_MoveFloor, area, tile)->Unit(benchmark::kMillisecond);
        }
        const std::string order = shuffled ? "/shuffled" : "/spatial";
        benchmark::RegisterBenchmark(("BM_NaiveBin" + args + order).c_str(), BM_NaiveBin, area, tile, shuffled != 0)->Unit(benchmark::kMillisecond);
        benchmark::RegisterBenchmark(("BM_Bin" + args + order).c_str(), BM_Bin, area, tile, shuffled != 0)->Unit(benchmark::kMillisecond);
        for (const auto& [name, strategy] : {std::pair{"exact", models::BinningStrategy::exact},
                                             std::pair{"hierarchical", models::BinningStrategy::hierarchical}})
          benchmark::RegisterBenchmark(("BM_BinStrategy/" + std::string(name) + args + order).c_str(), BM_BinStrategy,
                                       strategy, area, tile, shuffled != 0)
              ->Unit(benchmark::kMillisecond);
        if (area <= 32)
          benchmark::RegisterBenchmark(("BM_CountFloor" + args + order).c_str(), BM_CountFloor, area, tile, shuffled != 0)
              ->Unit(benchmark::kMillisecond);
        // The list-write floor at every size: it bounds every binner writing aabb's lists, so at 512 and
        // 2048 px it says how far above the naive binner any such binner can go.
        benchmark::RegisterBenchmark(("BM_ScatterFloor" + args + order).c_str(), BM_ScatterFloor, area, tile,
                                     shuffled != 0)
            ->Unit(benchmark::kMillisecond);
        // aabb's fill pass alone: the floor under aabb's lists where a triangle has many entries.
        if (area >= 512)
          benchmark::RegisterBenchmark(("BM_FillFloor" + args + order).c_str(), BM_FillFloor, area, tile, shuffled != 0)
              ->Unit(benchmark::kMillisecond);
      }
  benchmark::RegisterBenchmark("BM_StreamWriteRaster", BM_StreamWriteRaster)->Unit(benchmark::kMicrosecond);
  for (int area : kAreas)
    for (int tile : kTiles) {
      const std::string args = area_tile_args(area, tile);
      benchmark::RegisterBenchmark(("BM_NaiveRaster" + args).c_str(), BM_NaiveRaster, area, tile)->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("BM_Raster" + args).c_str(), BM_Raster, area, tile)->Unit(benchmark::kMicrosecond);
    }
  benchmark::RegisterBenchmark("BM_ForkJoin", BM_ForkJoin)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Unit(benchmark::kMicrosecond);
  const std::string trace = std::string(TBDR_SOURCE_DIR) + "/traces/default/scene.json";
  for (const char* preset : {"mali-g710", "reference"})
    benchmark::RegisterBenchmark((std::string("BM_Frame/default/") + preset).c_str(), BM_Frame, trace, std::string(preset))
        ->Unit(benchmark::kMillisecond);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
