// shader=basic: one shader core as a set of functional units running in parallel, each a
// throughput (models/README.md "Sources: merging subpasses", "Sources: preset numbers"): the
// tile's shading time is its busiest unit.
//
// Units of the TileWork counts (models/work.h): every shader count is summed over the shaded
// quads' 4 lanes (helper lanes included), so alu_cycles counts lane-instructions (one FMA-class
// ALU instruction of one lane = 1), texture_samples counts bilinear samples, tile_reads tile-memory
// reads and varyings interpolated components, all per lane. A core's rates are per clock summed
// over its lanes (Arm's "FMA/clk" is lane-FMAs per clock: G77 = 2 engines x 16 lanes = 32), so
// alu = alu_cycles / alu_ops_per_clk is lane-instructions / (lane-instructions per clock) = clocks.
#include <algorithm>
#include <memory>

#include "models/registry.h"
#include "models/shader/shader.h"

namespace tbdr::models {
namespace {

constexpr double kMinRate = 0.001, kMaxRate = 1e6;

class BasicShader final : public ShaderModel {
 public:
  explicit BasicShader(Params& p)
      // 32: FMA/clk per core of Mali-G77/G78 (Arm libGPUCounters; models/README.md "Sources: preset numbers").
      : m_alu(p.real("alu_ops_per_clk", 32, "lane-op/clk",
                     "ALU (FMA-class) lane-instructions per clock per core; Arm's FMA/clk", kMinRate, kMaxRate)),
        // 4: MaliTexSamplePerCy of G57/G68/G77/G78 (Arm libGPUCounters).
        m_texels(p.real("texels_per_clk", 4, "sample/clk", "bilinear texture samples per clock per core", kMinRate,
                        kMaxRate)),
        // 2: half the texture rate, as from Mali-G77 "texture sampling is 2x the rate of
        // tile-memory access" (Arm; models/README.md "Sources: merging subpasses").
        m_tile_reads(p.real("tile_reads_per_clk", 2, "read/clk",
                            "tile-memory reads (input attachments) per clock per core", kMinRate, kMaxRate)),
        // guess: 16 interpolated 32-bit components per clock (one vec4 for each lane of a quad).
        m_varyings(p.real("varyings_per_clk", 16, "component/clk",
                          "varying components interpolated per clock per core (guess)", kMinRate, kMaxRate)),
        // 2: pixels/clk of G76-G78 (models/README.md "Sources: preset numbers").
        m_pixels(p.real("pixels_per_clk", 2, "sample/clk", "color samples written per clock per core", kMinRate,
                        kMaxRate)),
        // guess: the blend stage runs at the pixel rate, so a blended sample (read, blend, write)
        // costs twice an opaque one.
        m_blend(p.real("blend_samples_per_clk", 2, "sample/clk",
                       "extra blend throughput: blended samples per clock on top of the write (guess)", kMinRate,
                       kMaxRate)),
        // guess: one 128-bit port between the tile buffer and the load/store path.
        m_tile_io(p.real("tile_io_bytes_per_clk", 16, "B/clk",
                         "tile-buffer fill (load) and write-back (store) bytes per clock per core (guess)", kMinRate,
                         kMaxRate)) {}

  ShaderCycles tile_cycles(const TileWork& w) const override {
    ShaderCycles c;
    c.alu = Cycles(w.alu_cycles / m_alu);
    c.texture = Cycles(w.texture_samples / m_texels);
    c.tile_read = Cycles(w.tile_reads / m_tile_reads);
    c.varying = Cycles(w.varyings / m_varyings);
    c.blend = Cycles(double(w.blended_samples) / m_blend);
    // A mid-pass clear writes its samples through the pixel path like a draw (models/README.md
    // "Sources: render passes and load/store ops":
    // vkCmdClear* costs fragment work, loadOp CLEAR does not).
    c.pixel = Cycles(double(w.written_samples + w.cleared_samples) / m_pixels) + c.blend;
    c.load = Cycles(double(w.load_bytes.value) / m_tile_io);
    c.store = Cycles(double(w.store_bytes.value) / m_tile_io);
    c.resolve = Cycles(double(w.resolve_pixels) / m_pixels);
    c.shading = std::max({c.alu, c.texture, c.tile_read, c.varying, c.pixel});
    return c;
  }

 private:
  double m_alu, m_texels, m_tile_reads, m_varyings, m_pixels, m_blend, m_tile_io;
};

const Registrar<ShaderModel> basic_registrar(
    "shader", "basic",
    "units in parallel: shading = max(alu, texture, tile_read, varying, pixel); load/store/resolve at their rates",
    [](Params& p) { return std::make_unique<BasicShader>(p); });

}  // namespace
}  // namespace tbdr::models
