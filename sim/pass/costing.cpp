// The costing stage: TileResults and geometry work through the shader, raster, deps, cores,
// texture, geometry and dram models (models/README.md documents each rule and its source).
// The models speak models::Cycles and Bytes; the stats (CycleBreakdown, hw.tile_cycles) keep plain
// numbers for the report writers, so values cross with `.value` here.
#include "sim/pass/costing.h"

#include <algorithm>

namespace tbdr {
namespace {

// The per-tile cycles of the stats, as the cores model takes them.
std::vector<models::Cycles> as_cycles(const std::vector<double>& tile_cycles) {
  std::vector<models::Cycles> out;
  out.reserve(tile_cycles.size());
  for (double c : tile_cycles) out.emplace_back(c);
  return out;
}

}  // namespace

TileCost cost_tile(const models::TileWork& work, const models::ModelSet& models) {
  TileCost c;
  c.shader = models.shader->tile_cycles(work);
  c.raster = models.raster->tile_cycles(work);
  c.stall = models.deps->stall_cycles(work);
  c.cycles = c.shader.load + std::max(c.raster.total, c.shader.shading + c.stall) + c.shader.resolve + c.shader.store;
  return c;
}

void add_tile_costs(const std::vector<TileResult>& results, const models::ModelSet& models, TileCostSums& sums,
                    HardwarePassStats& hw) {
  for (size_t t = 0; t < results.size(); ++t) {
    const TileCost r = cost_tile(results[t].work, models);
    CycleBreakdown& b = sums.breakdown;
    b.load += r.shader.load.value;
    b.triangle_setup += r.raster.setup.value;
    b.raster += r.raster.raster.value;
    b.alu += r.shader.alu.value;
    b.texture += r.shader.texture.value;
    b.tile_read += r.shader.tile_read.value;
    b.varying += r.shader.varying.value;
    b.dependency_stall += r.stall.value;
    b.pixel += r.shader.pixel.value;
    b.blend += r.shader.blend.value;
    b.resolve += r.shader.resolve.value;
    b.store += r.shader.store.value;
    sums.tile_buffer_bytes += results[t].work.tile_buffer_bytes;
    hw.tile_cycles[t] += r.cycles.value;
    hw.tile_dram_bytes[t] += results[t].dram_bytes;
  }
}

models::TextureCacheStats replay_texture_caches(const std::vector<std::vector<uint64_t>>& streams,
                                                const std::vector<double>& tile_cycles, const models::ModelSet& models) {
  const std::vector<uint32_t> core = models.cores->assign_tiles(as_cycles(tile_cycles));
  // One stream per tile and render (param_buffer flushes), render after render: stream i is tile
  // i % tiles of its render, so a core sees its tiles of each render in order, render after render.
  std::vector<const std::vector<uint64_t>*> tiles;
  std::vector<uint32_t> core_of_stream;
  for (size_t i = 0; !core.empty() && i < streams.size(); ++i) {
    tiles.push_back(&streams[i]);
    core_of_stream.push_back(core[i % core.size()]);
  }
  return models.texture->replay(tiles, core_of_stream, models.cores->core_count());
}

void cost_hardware_pass(const models::GeometryWork& geometry, const TileCostSums& sums, const models::ModelSet& models,
                        HardwarePassStats& hw) {
  const models::GeometryCycles g = models.geometry->cycles(geometry);
  CycleBreakdown& b = hw.cycles.breakdown;
  b = sums.breakdown;
  b.vertex = g.vertex.value;
  b.primitive_setup = g.setup.value;
  b.binning = g.binning.value;
  const models::Bytes geometry_bytes(hw.dram[DramCategory::vertex].read_bytes +
                                     hw.dram[DramCategory::tile_list].write_bytes);
  const models::Bytes total_bytes(hw.dram.total().read_bytes + hw.dram.total().write_bytes);
  b.geometry_dram = models.dram->transfer_cycles(geometry_bytes).value;
  b.fragment_dram = models.dram->transfer_cycles(total_bytes - geometry_bytes).value;
  hw.cycles.geometry = std::max(g.total.value, b.geometry_dram);
  hw.cycles.fragment = std::max(models.cores->fragment_cycles(as_cycles(hw.tile_cycles)).value, b.fragment_dram);
  hw.tile_buffer_bytes = sums.tile_buffer_bytes.value;
}

}  // namespace tbdr
