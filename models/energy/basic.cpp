// energy=basic: joules = bytes x picojoules per byte x 1e-12, for DRAM and tile-buffer bytes.
#include <memory>

#include "models/energy/energy.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class BasicEnergy final : public EnergyModel {
 public:
  explicit BasicEnergy(Params& p)
      // 100 pJ/B: "DRAM energy ~100 mW per GB/s (about 100 pJ/B)" (models/README.md "Sources: time").
      : m_dram(p.real("dram_pj_per_byte", 100, "pJ/B", "energy per DRAM byte moved", 0, 1e6)),
        // 1 pJ/B: "on-chip SRAM about two orders of magnitude less per byte" (models/README.md "Sources: time").
        m_tile_buffer(p.real("tile_buffer_pj_per_byte", 1, "pJ/B", "energy per tile-buffer byte read or written", 0,
                             1e6)) {}

  EnergyJoules energy(Bytes dram, Bytes tile_buffer) const override {
    EnergyJoules e;
    e.dram = double(dram.value) * m_dram * 1e-12;
    e.tile_buffer = double(tile_buffer.value) * m_tile_buffer * 1e-12;
    e.total = e.dram + e.tile_buffer;
    return e;
  }

 private:
  double m_dram, m_tile_buffer;
};

const Registrar<EnergyModel> basic_registrar("energy", "basic", "picojoules per DRAM byte and per tile-buffer byte",
                                             [](Params& p) { return std::make_unique<BasicEnergy>(p); });

}  // namespace
}  // namespace tbdr::models
