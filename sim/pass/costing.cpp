// The costing stage: TileResults and geometry work through the shader, raster, deps, cores,
// texture, geometry and dram models (models/README.md documents each rule and its source).
// The models speak models::Cycles and Bytes; the stats (CycleBreakdown, hw.tile_cycles) keep plain
// numbers for the report writers, so values cross with `.value` here.
#include "sim/pass/costing.h"

#include <algorithm>
#include <functional>

#include "sim/parallel.h"

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

namespace {

// Per-tile unit cycles summed over the hardware pass's tiles, render after render, tile after tile.
struct TileCostSums {
  CycleBreakdown breakdown;
  models::Bytes tile_buffer_bytes;
};

// Adds one render's tiles, in tile order, to the sums and to hw's per-tile cycles and DRAM bytes.
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
    hw.tile_dram_nominal_bytes[t] += results[t].dram_bytes + results[t].empty_saved_bytes;
  }
}

// The texture caches of a hardware pass: the tiles' line streams replayed in tile order, each
// through the cache of the core the cores model gives its tile (by hw.tile_cycles): the outcome
// depends on the configuration only, never on which host thread ran a tile. A replay with the same
// texture model and assignment as an earlier one of the record is taken from its memo.
models::TextureCacheStats replay_texture_caches(const HardwarePassRecord& record,
                                                const std::vector<double>& tile_cycles, const models::ModelSet& models,
                                                uint32_t threads) {
  const TextureLineStreams& streams = record.texture_lines;
  const std::vector<uint32_t> core = models.cores->assign_tiles(as_cycles(tile_cycles));
  // One stream per tile and render (param_buffer flushes), render after render: stream i is tile
  // i % tiles of its render, so a core sees its tiles of each render in order, render after render.
  std::vector<std::span<const uint64_t>> tiles;
  std::vector<uint32_t> core_of_stream;
  models::TextureLineLabels labels;
  labels.count = uint32_t(record.draws.size());
  for (size_t i = 0; !core.empty() && i < streams.size(); ++i) {
    tiles.push_back(streams[i]);
    core_of_stream.push_back(core[i % core.size()]);
    labels.tiles.emplace_back(record.texture_runs.at(i));
  }
  // The cores' caches on up to `threads` of the pool's threads (sim/parallel.h).
  auto on_threads = [threads](uint32_t blocks, const std::function<void(uint32_t)>& body) {
    const uint32_t n = std::min(blocks, threads);
    for_blocks(n, [&](uint32_t k) {
      for (uint32_t b = k; b < blocks; b += n) body(b);
    });
  };
  // The texture model's implementation and parameters as configured (a ModelSet built without a
  // resolved configuration is never memoized).
  const auto texture = models.resolved.find("texture");
  const std::string key = texture == models.resolved.end() ? std::string() : texture->dump();
  const uint32_t cores = models.cores->core_count();
  if (!key.empty())
    if (const std::optional<models::TextureCacheStats> seen = record.texture_replays.find(key, core_of_stream, cores))
      return *seen;
  const models::TextureCacheStats stats = models.texture->replay(tiles, core_of_stream, cores, on_threads, &labels);
  if (!key.empty()) record.texture_replays.add(key, core_of_stream, cores, stats);
  return stats;
}

// Under a texture cache model, its DRAM bytes replace the footprint.
void cost_texture_caches(const HardwarePassRecord& record, const models::ModelSet& models, HardwarePassStats& hw,
                         PassCounters& counters, uint32_t threads) {
  if (!models.texture->config().simulate) return;
  const models::TextureCacheStats replay = replay_texture_caches(record, hw.tile_cycles, models, threads);
  counters.texture_cache_hits += replay.hits + record.texture_repeats;
  counters.texture_cache_misses += replay.misses;
  counters.texture_l2_hits += replay.l2_hits;
  counters.texture_l2_misses += replay.l2_misses;
  hw.dram[DramCategory::texture].read_bytes += replay.dram_bytes;
  hw.texture_dram_bytes_by_draw = replay.dram_bytes_by_label;
  hw.dram[DramCategory::texture].read_bytes -= record.texture_nominal_bytes;
}

}  // namespace

void cost_hardware_pass(const HardwarePassRecord& record, const models::ModelSet& models, HardwarePassStats& hw,
                        PassCounters& counters, uint32_t threads) {
  TileCostSums sums;
  for (const std::vector<TileResult>& render : record.renders) add_tile_costs(render, models, sums, hw);
  cost_texture_caches(record, models, hw, counters, threads);
  const models::GeometryCycles g = models.geometry->cycles(record.geometry);
  CycleBreakdown& b = hw.cycles.breakdown;
  b = sums.breakdown;
  b.vertex = g.vertex.value;
  b.primitive_setup = g.setup.value;
  b.binning = g.binning.value;
  b.render_vertex = g.render_vertex.value;
  // The geometry phase reads what the geometry model says it fetches (all vertex bytes, or a binning
  // pass's positions and indices) and writes the tile lists; the fragment phase moves the rest.
  const models::Bytes geometry_bytes = g.geometry_fetch + models::Bytes(hw.dram[DramCategory::tile_list].write_bytes);
  const models::Bytes total_bytes(hw.dram.total().read_bytes + hw.dram.total().write_bytes);
  b.geometry_dram = models.dram->transfer_cycles(geometry_bytes).value;
  hw.geometry_dram_bytes = geometry_bytes.value;
  b.fragment_dram = models.dram->transfer_cycles(total_bytes - geometry_bytes).value;
  hw.cycles.geometry = std::max(g.total.value, b.geometry_dram);
  const models::Cycles rendering = models.cores->fragment_cycles(as_cycles(hw.tile_cycles)) + g.render_vertex;
  hw.cycles.fragment = std::max(rendering.value, b.fragment_dram);
  hw.tile_buffer_bytes = sums.tile_buffer_bytes.value;
}

namespace {

// One hardware pass priced from its record. Direct rendering: the framebuffer cache's dirty lines are
// fragment-phase traffic, so the fragment DRAM bound is redone with them, and its nominal ledger is
// the physical one with textures as footprints.
HardwarePassStats price_hardware_pass(const HardwarePassRecord& record, const models::ModelSet& models,
                                      PassCounters& counters, uint32_t threads) {
  HardwarePassStats hw = record.functional;
  cost_hardware_pass(record, models, hw, counters, threads);
  for (size_t t = 0; t < record.tile_traffic.physical.size(); ++t) {
    hw.tile_dram_bytes[t] = uint64_t(int64_t(hw.tile_dram_bytes[t]) + record.tile_traffic.physical[t]);
    hw.tile_dram_nominal_bytes[t] += record.tile_traffic.nominal[t];
  }
  if (!record.direct) return hw;
  hw.dram += record.direct_cache;
  const Traffic cached = record.direct_cache.total();  // the heatmaps' one tile: the whole render area
  hw.tile_dram_bytes[0] += cached.read_bytes + cached.write_bytes;
  hw.tile_dram_nominal_bytes[0] += cached.read_bytes + cached.write_bytes;
  hw.dram_nominal = hw.dram;
  hw.dram_nominal[DramCategory::texture].read_bytes = record.texture_nominal_bytes;
  const uint64_t geometry_bytes = hw.dram[DramCategory::vertex].read_bytes;
  hw.geometry_dram_bytes = geometry_bytes;
  const Traffic total = hw.dram.total();
  hw.cycles.breakdown.fragment_dram =
      models.dram->transfer_cycles(models::Bytes(total.read_bytes + total.write_bytes - geometry_bytes)).value;
  hw.cycles.fragment = std::max(hw.cycles.fragment, hw.cycles.breakdown.fragment_dram);
  return hw;
}

// Adds a hardware pass to the API pass's figures; the first gives the pass its tile size.
void add_hardware_pass(HardwarePassStats&& hw, PassStats& stats) {
  stats.dram += hw.dram;
  stats.dram_nominal += hw.dram_nominal;
  if (stats.hardware_passes.empty()) {
    stats.tile_width = hw.tile_width;
    stats.tile_height = hw.tile_height;
    stats.tile_reason = hw.tile_reason;
  }
  stats.hardware_passes.push_back(std::move(hw));
}

// The heap bytes of a vector (its header is counted with the struct holding it).
template <class T>
uint64_t heap_bytes(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}


// A draw's unit cycles under the shader and raster models: its work priced as one tile's would be.
// The basic models are linear in the work (cycles = work / rate per unit), so the draws' cycles
// sum to the pass's breakdown of those units, up to the rounding of the sums' order.
void price_draw(DrawStats& draw, const models::ModelSet& models) {
  models::TileWork w;
  w.primitives = draw.counters.triangle_setups;
  w.quads_rasterized = draw.counters.quads_rasterized;
  w.alu_cycles = draw.alu_work;
  w.texture_samples = draw.texture_work;
  w.tile_reads = draw.tile_read_work;
  w.varyings = draw.varying_work;
  w.written_samples = draw.counters.written_samples;
  w.blended_samples = draw.counters.blended_samples;
  const models::ShaderCycles shader = models.shader->tile_cycles(w);
  const models::RasterCycles raster = models.raster->tile_cycles(w);
  draw.cycles = CycleBreakdown{};
  draw.cycles.triangle_setup = raster.setup.value;
  draw.cycles.raster = raster.raster.value;
  draw.cycles.alu = shader.alu.value;
  draw.cycles.texture = shader.texture.value;
  draw.cycles.tile_read = shader.tile_read.value;
  draw.cycles.varying = shader.varying.value;
  draw.cycles.pixel = shader.pixel.value;
  draw.cycles.blend = shader.blend.value;
}

// The render pass's draws: each hardware pass's share of each draw added up (a draw runs in one
// hardware pass; the others hold zeros for it), then priced.
void add_draw_stats(const std::vector<HardwarePassRecord>& records, const models::ModelSet& models, PassStats& stats) {
  stats.draw_stats.clear();
  for (const HardwarePassRecord& record : records) {
    if (stats.draw_stats.empty()) {
      stats.draw_stats = record.draws;
      continue;
    }
    for (size_t d = 0; d < record.draws.size() && d < stats.draw_stats.size(); ++d)
      stats.draw_stats[d].add_share(record.draws[d]);
  }
  for (const HardwarePassStats& hw : stats.hardware_passes)
    for (size_t d = 0; d < hw.texture_dram_bytes_by_draw.size() && d < stats.draw_stats.size(); ++d)
      stats.draw_stats[d].counters.texture_read_bytes += hw.texture_dram_bytes_by_draw[d];
  for (DrawStats& draw : stats.draw_stats) price_draw(draw, models);
}

}  // namespace

void price_render_pass(const std::vector<HardwarePassRecord>& records, const models::ModelSet& models,
                       PassStats& stats, uint32_t threads) {
  for (const HardwarePassRecord& record : records)
    add_hardware_pass(price_hardware_pass(record, models, stats.counters, threads), stats);
  add_draw_stats(records, models, stats);
}

std::optional<models::TextureCacheStats> TextureReplayMemo::find(const std::string& texture,
                                                                 const std::vector<uint32_t>& core_of_tile,
                                                                 uint32_t cores) const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  for (const Entry& e : m_entries)
    if (e.cores == cores && e.texture == texture && e.core_of_tile == core_of_tile) return e.stats;
  return std::nullopt;
}

void TextureReplayMemo::add(const std::string& texture, const std::vector<uint32_t>& core_of_tile, uint32_t cores,
                            const models::TextureCacheStats& stats) {
  const std::lock_guard<std::mutex> lock(m_mutex);
  if (m_entries.size() == kEntries) m_entries.erase(m_entries.begin());
  m_entries.push_back({texture, core_of_tile, cores, stats});
}

uint64_t TextureReplayMemo::memory_bytes() const {
  const std::lock_guard<std::mutex> lock(m_mutex);
  uint64_t bytes = heap_bytes(m_entries);
  for (const Entry& e : m_entries) bytes += heap_bytes(e.core_of_tile);
  return bytes;
}

uint64_t HardwarePassRecord::memory_bytes() const {
  uint64_t bytes = sizeof(*this) + heap_bytes(renders) + texture_lines.memory_bytes() + texture_replays.memory_bytes();
  for (const std::vector<TileResult>& render : renders) bytes += heap_bytes(render);
  bytes += heap_bytes(texture_runs) + heap_bytes(draws);
  for (const auto& runs : texture_runs) bytes += heap_bytes(runs);
  return bytes + heap_bytes(functional.tile_cycles) + heap_bytes(functional.tile_dram_bytes) +
         heap_bytes(functional.tile_dram_nominal_bytes) + heap_bytes(tile_traffic.physical) +
         heap_bytes(tile_traffic.nominal);
}

}  // namespace tbdr
