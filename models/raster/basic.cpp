// raster=basic: triangle set-up and quad rasterization as two pipelined stages of one tile:
// setup = primitives / setup_per_clk, raster = quads_rasterized / quads_per_clk,
// total = max(setup, raster).
#include <algorithm>
#include <memory>

#include "models/raster/raster.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class BasicRaster final : public RasterModel {
 public:
  explicit BasicRaster(Params& p)
      // 1 quad/clk: the usual rasterizer width (one 2x2 quad, i.e. 4 pixels, per clock); guess, no Arm figure.
      : m_quads(p.real("quads_per_clk", 1, "quad/clk", "2x2 quads rasterized (coverage, early ZS) per clock; guess",
                       0.001, 1e6)),
        // guess: one triangle set up per clock.
        m_setup(p.real("setup_per_clk", 1, "tri/clk", "tile-list triangles set up per clock (guess)", 0.001, 1e6)) {}

  RasterCycles tile_cycles(const TileWork& w) const override {
    RasterCycles c;
    c.setup = Cycles(double(w.primitives) / m_setup);
    c.raster = Cycles(double(w.quads_rasterized) / m_quads);
    c.total = std::max(c.setup, c.raster);
    return c;
  }

 private:
  double m_quads, m_setup;
};

const Registrar<RasterModel> basic_registrar("raster", "basic",
                                             "set-up and rasterization pipelined: max(primitives/setup, quads/rate)",
                                             [](Params& p) { return std::make_unique<BasicRaster>(p); });

}  // namespace
}  // namespace tbdr::models
