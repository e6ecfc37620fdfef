// Google Benchmark rows for sweeps that simulate once and cost many (bench/README.md "Sweeps: simulate
// once, cost many"): seconds per configuration of a 1,000-configuration sweep of cost parameters over
// the default trace, with and without reuse.
//
//   BM_Sweep/reuse/PRESET   run_sweep of the 1,000 configurations, one worker: one simulation, 999 re-costings
//   BM_Sweep/full/PRESET    8 cost configurations (dram.bytes_per_cycle) with --no-reuse, each simulated (a
//                           shard of the thousand would not do: shards hold whole functional configurations)
//
// Counter s/config: wall seconds per configuration, the whole sweep included (configuration checks,
// reports, part files, results.csv/json). tools/bench prints the ratio full / reuse (target >= 20x).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "tools/commands/sweep.h"

namespace {

namespace fs = std::filesystem;

// 10 x 10 x 10 cost parameters (models/model.h ParamClass): DRAM rate, shader ALU rate, clock.
tbdr::sweep::SweepOptions thousand_cost_configurations(const std::string& preset, const fs::path& out) {
  tbdr::sweep::SweepOptions o;
  o.traces = {std::string(TBDR_SOURCE_DIR) + "/traces/default/scene.json"};
  o.preset = preset;
  using Step = tbdr::sweep::Step;
  o.steps = {{Step::Kind::vary, "dram.bytes_per_cycle=1,2,4,6,8,12,16,24,32,64"},
             {Step::Kind::vary, "shader.alu_ops_per_clk=4,8,12,16,24,32,48,64,96,128"},
             {Step::Kind::vary, "cores.clock_mhz=300,400,500,600,700,800,900,1000,1100,1200"}};
  o.jobs = 1;
  o.quiet = true;
  o.out = out.string();
  return o;
}

void BM_Sweep(benchmark::State& state, bool reuse, const std::string& preset) {
  const fs::path out = fs::temp_directory_path() / ("tbdr_bench_sweep_" + preset + (reuse ? "_reuse" : "_full"));
  tbdr::sweep::SweepOptions o = thousand_cost_configurations(preset, out);
  o.reuse = reuse;
  if (!reuse) o.steps = {{tbdr::sweep::Step::Kind::vary, "dram.bytes_per_cycle=1,2,4,6,8,12,16,24"}};
  const size_t configurations = reuse ? 1000 : 8;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(out);  // a fresh folder: nothing resumed
    state.ResumeTiming();
    tbdr::sweep::run_sweep(o);
  }
  fs::remove_all(out);
  state.counters["s/config"] = benchmark::Counter(double(configurations) * double(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void register_sweeps() {
  for (const char* preset : {"reference", "mali-g710"})
    for (bool reuse : {true, false})
      benchmark::RegisterBenchmark((std::string("BM_Sweep/") + (reuse ? "reuse/" : "full/") + preset).c_str(), BM_Sweep,
                                   reuse, std::string(preset))
          ->Unit(benchmark::kSecond)
          ->UseRealTime()
          ->Iterations(1);
}

[[maybe_unused]] const bool registered = (register_sweeps(), true);

}  // namespace
