// Google Benchmark programs for the hot loops: binning random triangles of a given area into
// 16x16 tiles, and simulating the bundled default frame end to end.
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/binning.h"
#include "sim/geometry.h"
#include "sim/pipeline.h"

namespace {

using namespace tbdr;

// 100k screen triangles of roughly `area` pixels, spatially shuffled, on a 1920x1080 target.
ScreenPrims random_prims(double area, size_t count) {
  ScreenPrims prims;
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> px(0, 1920), py(0, 1080), angle(0, 6.2831853f);
  const float side = float(std::sqrt(2.0 * area));
  for (size_t i = 0; i < count; ++i) {
    const float x = px(rng), y = py(rng), a = angle(rng);
    const float xs[3] = {x, x + side * std::cos(a), x + side * std::cos(a + 1.5707963f)};
    const float ys[3] = {y, y + side * std::sin(a), y + side * std::sin(a + 1.5707963f)};
    int32_t min_x = INT32_MAX, min_y = INT32_MAX, max_x = INT32_MIN, max_y = INT32_MIN;
    for (int v = 0; v < 3; ++v) {
      const int32_t fx = int32_t(xs[v] * kSubpixelOne), fy = int32_t(ys[v] * kSubpixelOne);
      prims.x[v].push_back(fx);
      prims.y[v].push_back(fy);
      prims.z[v].push_back(0.5f);
      prims.inv_w[v].push_back(1.0f);
      min_x = std::min(min_x, fx >> kSubpixelBits);
      min_y = std::min(min_y, fy >> kSubpixelBits);
      max_x = std::max(max_x, fx >> kSubpixelBits);
      max_y = std::max(max_y, fy >> kSubpixelBits);
    }
    prims.min_x.push_back(min_x);
    prims.min_y.push_back(min_y);
    prims.max_x.push_back(max_x);
    prims.max_y.push_back(max_y);
    prims.draw.push_back(0);
    prims.front_facing.push_back(1);
  }
  return prims;
}

void BM_BinTriangles(benchmark::State& state) {
  const ScreenPrims prims = random_prims(double(state.range(0)), 100000);
  const Rect screen{0, 0, 1920, 1080};
  const TileGrid grid(screen, 16, 16);
  const std::vector<Rect> clip = {screen};
  TileLists lists;
  for (auto _ : state) {
    bin_triangles(prims, clip, grid, lists);
    benchmark::DoNotOptimize(lists.prims.data());
  }
  state.counters["triangles/s"] =
      benchmark::Counter(double(prims.size()) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["entries/s"] =
      benchmark::Counter(double(lists.entries()) * double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BinTriangles)->Arg(2)->Arg(8)->Arg(32)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);

void BM_DefaultFrame(benchmark::State& state) {
  const Trace trace = read_trace(std::filesystem::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("reference"));
  for (auto _ : state) {
    RunStats stats = simulate(trace, models, SimOptions{}, nullptr);
    benchmark::DoNotOptimize(stats.counters.fragments);
  }
}
BENCHMARK(BM_DefaultFrame)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
