// geometry=basic: the geometry phase as one serial pipeline (models/README.md "Sources: the two-phase machine"):
// vertex = vertex_alu_cycles / vertex_alu_ops_per_clk, setup = primitives_in / setup_per_clk,
// binning = primitives x binning_cycles_per_primitive + tile_list_entries x binning_cycles_per_entry,
// total = vertex + setup + binning.
// geometry=binning_pass: Adreno's binning pass (models/README.md "geometry"): the same figures with a
// position-only vertex shader in the geometry phase and the full one again in the fragment phase.
#include <memory>

#include "models/geometry/geometry.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class BasicGeometry final : public GeometryModel {
 public:
  explicit BasicGeometry(Params& p)
      // 32: one Mali-G77/G78 core's FMA/clk (models/README.md "Sources: preset numbers"), as if one core shaded
      // vertices. Presets with N cores set N x FMA/clk: vertex shading spreads over every core.
      : m_vertex(p.real("vertex_alu_ops_per_clk", 32, "lane-op/clk",
                        "vertex-shader ALU lane-instructions per clock, whole GPU", 0.001, 1e7)),
        // guess: one triangle assembled, clipped and culled per clock.
        m_setup(p.real("setup_per_clk", 1, "tri/clk", "triangles assembled, clipped and culled per clock (guess)",
                       0.001, 1e6)),
        // guess: the tiler takes one clock per binned triangle...
        m_per_primitive(p.real("binning_cycles_per_primitive", 1, "clk",
                               "tiler cycles per binned triangle (guess)", 0, 1e6)),
        // guess: ...and one per tile-list entry written.
        m_per_entry(p.real("binning_cycles_per_entry", 1, "clk", "tiler cycles per tile-list entry (guess)", 0,
                           1e6)) {}

  GeometryCycles cycles(const GeometryWork& w) const override {
    GeometryCycles c;
    c.vertex = Cycles(w.vertex_alu_cycles / m_vertex);
    c.setup = Cycles(double(w.primitives_in) / m_setup);
    c.binning = Cycles(double(w.primitives) * m_per_primitive + double(w.tile_list_entries) * m_per_entry);
    c.total = c.vertex + c.setup + c.binning;
    c.geometry_fetch = Bytes(w.vertex_read_bytes);
    return c;
  }

 private:
  double m_vertex, m_setup, m_per_primitive, m_per_entry;
};

// Adreno: the binning pass runs a vertex shader stripped to the position computation, fetching only
// positions and indices; rendering runs the full vertex shader again for each bin that lists the
// triangle (Meta, "Adreno Hardware Profile"; Mesa ir3's binning-pass variant). Direct (sysmem) and
// IMR passes bin nothing: they cost as basic.
//   vertex = full x position_alu_fraction, render_vertex = full x tile_list_entries / primitives,
//   geometry_fetch = position_read_bytes, with full = vertex_alu_cycles / vertex_alu_ops_per_clk.
class BinningPassGeometry final : public GeometryModel {
 public:
  explicit BinningPassGeometry(Params& p)
      : m_basic(p),
        // guess: no public figure; a model-view-projection transform is about half of a lit vertex shader.
        m_position_fraction(p.real("position_alu_fraction", 0.5, "fraction",
                                   "share of the vertex shader's ALU the position-only binning variant keeps (guess; Meta \"Adreno Hardware Profile\")",
                                   0, 1)) {}

  GeometryCycles cycles(const GeometryWork& w) const override {
    GeometryCycles c = m_basic.cycles(w);
    if (!w.binned) return c;
    const Cycles full = c.vertex;
    c.vertex = Cycles(full.value * m_position_fraction);
    c.total = c.vertex + c.setup + c.binning;
    if (w.primitives > 0) c.render_vertex = Cycles(full.value * double(w.tile_list_entries) / double(w.primitives));
    c.geometry_fetch = Bytes(w.position_read_bytes);
    return c;
  }

 private:
  BasicGeometry m_basic;
  double m_position_fraction;
};

const Registrar<GeometryModel> binning_pass_registrar(
    "geometry", "binning_pass",
    "Adreno: a position-only binning pass, the full vertex shader again per bin while rendering",
    [](Params& p) { return std::make_unique<BinningPassGeometry>(p); });

const Registrar<GeometryModel> basic_registrar(
    "geometry", "basic", "vertex shading, set-up and binning in series, each a throughput",
    [](Params& p) { return std::make_unique<BasicGeometry>(p); });

}  // namespace
}  // namespace tbdr::models
