// cores=round_robin and least_loaded: N shader cores; a pass's fragment time is its slowest core's.
//   round_robin:  tile i (in tile order) goes to core i % count
//   least_loaded: each tile, in tile order, goes to the core with the least work so far
//                 (ties: the lowest core index)
#include <algorithm>
#include <memory>

#include "models/cores/cores.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class Cores final : public CoresModel {
 public:
  Cores(Params& p, bool least_loaded)
      // 1 core: the reference measures one core's work; presets set their configuration's count.
      : m_count(uint32_t(p.integer("count", 1, "cores", "shader cores tiles are spread over", 1, 1024))),
        // guess: 800 MHz, a typical mobile GPU clock (Mali-G76 MP10 in Kirin 980: 720 MHz).
        m_clock_mhz(p.real("clock_mhz", 800, "MHz", "GPU clock, to turn cycles into milliseconds (guess)", 1, 1e5)),
        m_least_loaded(least_loaded) {}

  Cycles fragment_cycles(const std::vector<Cycles>& tile_cycles) const override {
    std::vector<Cycles> load(m_count);
    const std::vector<uint32_t> core = assign_tiles(tile_cycles);
    for (size_t i = 0; i < tile_cycles.size(); ++i) load[core[i]] += tile_cycles[i];
    return *std::max_element(load.begin(), load.end());
  }
  std::vector<uint32_t> assign_tiles(const std::vector<Cycles>& tile_cycles) const override {
    std::vector<Cycles> load(m_count);
    std::vector<uint32_t> core(tile_cycles.size());
    for (size_t i = 0; i < tile_cycles.size(); ++i) {
      size_t c = i % m_count;
      if (m_least_loaded) c = size_t(std::min_element(load.begin(), load.end()) - load.begin());  // first minimum
      load[c] += tile_cycles[i];
      core[i] = uint32_t(c);
    }
    return core;
  }
  uint32_t core_count() const override { return m_count; }
  double clock_mhz() const override { return m_clock_mhz; }

 private:
  uint32_t m_count;
  double m_clock_mhz;
  bool m_least_loaded;
};

const Registrar<CoresModel> round_robin_registrar("cores", "round_robin", "tile i runs on core i % count",
                                                  [](Params& p) { return std::make_unique<Cores>(p, false); });
const Registrar<CoresModel> least_loaded_registrar(
    "cores", "least_loaded", "each tile runs on the least-loaded core so far (ties: lowest index)",
    [](Params& p) { return std::make_unique<Cores>(p, true); });

}  // namespace
}  // namespace tbdr::models
