// The costing stage: a hardware pass's functional record (TileResults, texture line streams,
// geometry work) and its DRAM ledger through the timing models -> per-tile cycles, the cycle
// breakdown, the texture caches' bytes, the pass's cycles; it never rasterizes again.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/pass/tiles.h"
#include "sim/stats.h"

namespace tbdr {

// One tile's price: its units' cycles and its time, load + max(raster, shading + stalls) +
// resolve + store (the rasterizer feeds the shader while both run; loads and write-backs of one
// tile do not overlap its shading).
struct TileCost {
  models::ShaderCycles shader;
  models::RasterCycles raster;
  models::Cycles stall, cycles;
};
TileCost cost_tile(const models::TileWork& work, const models::ModelSet& models);

// The functional record of a hardware pass: everything costing reads, fixed before any cost
// model runs, so a configuration that changes only cost parameters (models/model.h ParamClass)
// re-costs it without simulating again (sim/pipeline.h cost_recorded).
// Heatmap traffic costing adds per tile on top of the tiles' own loads and stores: tile-list reads
// and the savers' deltas (physical), tile-list reads (nominal). One entry per tile of the grid.
struct PerTileTraffic {
  std::vector<int64_t> physical;
  std::vector<uint64_t> nominal;
};

// The texture caches' replays of one record: the replay's result depends only on the record's line
// streams, the texture model (implementation and parameters) and the tile-to-core assignment, so a
// re-costing that changes neither (a sweep of DRAM, shader or clock rates) takes the stats of an
// earlier replay instead of replaying: under `mali-g710` the replay was 39 % of a cost-only sweep.
// At most kEntries are kept (the latest replace the oldest), each a copy of its assignment (4 B a
// tile). A sweep's workers re-cost one record at once: guarded by a mutex. Copies start empty.
class TextureReplayMemo {
 public:
  TextureReplayMemo() = default;
  TextureReplayMemo(const TextureReplayMemo&) {}
  TextureReplayMemo& operator=(const TextureReplayMemo&) { return *this; }
  std::optional<models::TextureCacheStats> find(const std::string& texture, const std::vector<uint32_t>& core_of_tile,
                                                uint32_t cores) const;
  void add(const std::string& texture, const std::vector<uint32_t>& core_of_tile, uint32_t cores,
           const models::TextureCacheStats& stats);
  uint64_t memory_bytes() const;

 private:
  static constexpr size_t kEntries = 4;
  struct Entry {
    std::string texture;
    std::vector<uint32_t> core_of_tile;
    uint32_t cores = 0;
    models::TextureCacheStats stats;
  };
  mutable std::mutex m_mutex;
  std::vector<Entry> m_entries;
};

struct HardwarePassRecord {
  std::vector<std::vector<TileResult>> renders;      // per render (param_buffer flushes), per tile
  TextureLineStreams texture_lines;  // texture=cache line streams, one per tile of each render
  std::vector<std::vector<models::TextureLineRun>> texture_runs;  // each stream's lines by draw
  uint64_t texture_repeats = 0;        // fetches of the line the previous fetch read (hits in any cache)
  uint64_t texture_nominal_bytes = 0;  // the material textures' footprint
  models::GeometryWork geometry;       // vertex shading, set-up and binning work
  // The hardware pass's figures as the functional stages left them: grid, tile size, ledgers after
  // the savers (textures as footprints), per-tile DRAM bytes zero, no cycles.
  HardwarePassStats functional;
  // Direct rendering: the framebuffer cache's traffic, added after costing (its fragment-phase
  // DRAM bound redone with it).
  bool direct = false;
  DramLedger direct_cache;
  PerTileTraffic tile_traffic;
  // Per draw of the render pass (PassSetup::draws): its share of the hardware pass's work, no cycles.
  std::vector<DrawStats> draws;
  // Filled by costing (cost_hardware_pass), read by later re-costings of this record.
  mutable TextureReplayMemo texture_replays;
  // Bytes the record holds: its structs and vectors by capacity (strings not counted).
  uint64_t memory_bytes() const;
};

// Prices the record: per-tile cycles (hw.tile_cycles, the cycle breakdown, tile-buffer bytes),
// the texture caches' DRAM bytes (replacing the footprint in hw.dram, counted in `counters`),
// then the geometry phase bound by its own DRAM bytes (vertex reads, tile-list writes) and the
// fragment phase by the slowest core, bound by the rest. hw.dram holds the pass's bytes after
// the savers; hw.tile_cycles and hw.tile_dram_bytes are sized to the tile grid.
void cost_hardware_pass(const HardwarePassRecord& record, const models::ModelSet& models, HardwarePassStats& hw,
                        PassCounters& counters, uint32_t threads = 1);

// A render pass's hardware passes priced in order and added to its figures: `stats` comes as the
// functional stages left it (counters, ledgers of the API pass, attachments, merge decision, no
// hardware passes) and leaves with every hardware pass, its DRAM ledgers and texture-cache
// counters; the schedule and energy follow (sim/schedule.h). The same call serves a simulation and
// a re-costing, so the two cannot drift. `threads`: for the texture caches' replay (any count gives
// the same figures).
void price_render_pass(const std::vector<HardwarePassRecord>& records, const models::ModelSet& models,
                       PassStats& stats, uint32_t threads = 1);

}  // namespace tbdr
