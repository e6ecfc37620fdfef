// The costing stage: TileResults and geometry work through the shader, raster, deps, cores,
// texture, geometry and dram models (models/README.md documents each rule and its source).
#include "sim/pass/costing.h"

#include <algorithm>

namespace tbdr {

TileCost cost_tile(const models::TileWork& work, const models::ModelSet& models) {
  TileCost c;
  c.shader = models.shader->tile_cycles(work);
  c.raster = models.raster->tile_cycles(work);
  c.stall = models.deps->stall_cycles(work);
  c.cycles = c.shader.load + std::max(c.raster.total, c.shader.shading + c.stall) + c.shader.resolve + c.shader.store;
  return c;
}

namespace {

// Per-tile unit cycles summed over the hardware pass's tiles, render after render, tile after tile.
struct TileCostSums {
  CycleBreakdown breakdown;
  uint64_t tile_buffer_bytes = 0;
};

// Adds one render's tiles, in tile order, to the sums and to hw's per-tile cycles and DRAM bytes.
void add_tile_costs(const std::vector<TileResult>& results, const models::ModelSet& models, TileCostSums& sums,
                    HardwarePassStats& hw) {
  for (size_t t = 0; t < results.size(); ++t) {
    const TileCost r = cost_tile(results[t].work, models);
    CycleBreakdown& b = sums.breakdown;
    b.load += r.shader.load;
    b.triangle_setup += r.raster.setup;
    b.raster += r.raster.raster;
    b.alu += r.shader.alu;
    b.texture += r.shader.texture;
    b.tile_read += r.shader.tile_read;
    b.varying += r.shader.varying;
    b.dependency_stall += r.stall;
    b.pixel += r.shader.pixel;
    b.blend += r.shader.blend;
    b.resolve += r.shader.resolve;
    b.store += r.shader.store;
    sums.tile_buffer_bytes += results[t].work.tile_buffer_bytes;
    hw.tile_cycles[t] += r.cycles;
    hw.tile_dram_bytes[t] += results[t].dram_bytes;
  }
}

// The texture caches of a hardware pass: the tiles' line streams replayed in tile order, each
// through the cache of the core the cores model gives its tile (by hw.tile_cycles): the outcome
// depends on the configuration only, never on which host thread ran a tile.
models::TextureCacheStats replay_texture_caches(const std::vector<std::vector<uint64_t>>& streams,
                                                const std::vector<double>& tile_cycles, const models::ModelSet& models) {
  const std::vector<uint32_t> core = models.cores->assign_tiles(tile_cycles);
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

// Under a texture cache model, its DRAM bytes replace the footprint.
void cost_texture_caches(const HardwarePassRecord& record, const models::ModelSet& models, HardwarePassStats& hw,
                         PassCounters& counters) {
  if (!models.texture->config().simulate) return;
  const models::TextureCacheStats replay = replay_texture_caches(record.texture_lines, hw.tile_cycles, models);
  counters.texture_cache_hits += replay.hits + record.texture_repeats;
  counters.texture_cache_misses += replay.misses;
  counters.texture_l2_hits += replay.l2_hits;
  counters.texture_l2_misses += replay.l2_misses;
  hw.dram[DramCategory::texture].read_bytes += replay.dram_bytes;
  hw.dram[DramCategory::texture].read_bytes -= record.texture_nominal_bytes;
}

}  // namespace

void cost_hardware_pass(const HardwarePassRecord& record, const models::ModelSet& models, HardwarePassStats& hw,
                        PassCounters& counters) {
  TileCostSums sums;
  for (const std::vector<TileResult>& render : record.renders) add_tile_costs(render, models, sums, hw);
  cost_texture_caches(record, models, hw, counters);
  const models::GeometryCycles g = models.geometry->cycles(record.geometry);
  CycleBreakdown& b = hw.cycles.breakdown;
  b = sums.breakdown;
  b.vertex = g.vertex;
  b.primitive_setup = g.setup;
  b.binning = g.binning;
  const uint64_t geometry_bytes = hw.dram[DramCategory::vertex].read_bytes + hw.dram[DramCategory::tile_list].write_bytes;
  const uint64_t total_bytes = hw.dram.total().read_bytes + hw.dram.total().write_bytes;
  b.geometry_dram = models.dram->transfer_cycles(geometry_bytes);
  b.fragment_dram = models.dram->transfer_cycles(total_bytes - geometry_bytes);
  hw.cycles.geometry = std::max(g.total, b.geometry_dram);
  hw.cycles.fragment = std::max(models.cores->fragment_cycles(hw.tile_cycles), b.fragment_dram);
  hw.tile_buffer_bytes = sums.tile_buffer_bytes;
}

}  // namespace tbdr
