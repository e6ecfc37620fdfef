// dram=basic: transfer_cycles(bytes) = bytes / bytes_per_cycle + (bytes > 0 ? latency : 0).
// The bandwidth is in bytes per GPU clock: the sustained DRAM bandwidth divided by the GPU clock
// (cores.clock_mhz), so a preset that changes the clock should rescale it.
#include <memory>

#include "models/dram/dram.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class BasicDram final : public DramModel {
 public:
  explicit BasicDram(Params& p)
      // 25 B/clk: 20 GB/s sustained (the three-costs article section 2: "a conservative mid-range estimate" of
      // LPDDR bandwidth shared by CPU/GPU/NPU) at the 800 MHz reference clock (a guess);
      // models/README.md "Sources: time".
      : m_bytes_per_cycle(p.real("bytes_per_cycle", 25, "B/clk",
                                 "sustained DRAM bandwidth per GPU clock (GB/s / GHz)", 0.001, 1e6)),
        // guess: about 250 ns of LPDDR round trip at 800 MHz.
        m_latency(p.real("latency", 200, "clk", "one DRAM round trip, paid once per pass that moves bytes (guess)", 0,
                         1e9)) {}

  Cycles transfer_cycles(Bytes bytes) const override {
    return Cycles(double(bytes.value) / m_bytes_per_cycle + (bytes.value > 0 ? m_latency : 0.0));
  }

 private:
  double m_bytes_per_cycle, m_latency;
};

const Registrar<DramModel> basic_registrar("dram", "basic", "bytes / bytes_per_cycle + one latency",
                                           [](Params& p) { return std::make_unique<BasicDram>(p); });

}  // namespace
}  // namespace tbdr::models
