// The costing stage: a hardware pass's functional record (TileResults, texture line streams,
// geometry work) and its DRAM ledger through the timing models -> per-tile cycles, the cycle
// breakdown, the texture caches' bytes, the pass's cycles; it never rasterizes again.
#pragma once

#include <cstdint>
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
// model runs (so a configuration that changes only cost parameters could re-cost it without
// simulating again).
struct HardwarePassRecord {
  std::vector<std::vector<TileResult>> renders;      // per render (param_buffer flushes), per tile
  std::vector<std::vector<uint64_t>> texture_lines;  // texture=cache line streams, one per tile of each render
  uint64_t texture_repeats = 0;        // fetches of the line the previous fetch read (hits in any cache)
  uint64_t texture_nominal_bytes = 0;  // the material textures' footprint
  models::GeometryWork geometry;       // vertex shading, set-up and binning work
};

// Prices the record: per-tile cycles (hw.tile_cycles, the cycle breakdown, tile-buffer bytes),
// the texture caches' DRAM bytes (replacing the footprint in hw.dram, counted in `counters`),
// then the geometry phase bound by its own DRAM bytes (vertex reads, tile-list writes) and the
// fragment phase by the slowest core, bound by the rest. hw.dram holds the pass's bytes after
// the savers; hw.tile_cycles and hw.tile_dram_bytes are sized to the tile grid.
void cost_hardware_pass(const HardwarePassRecord& record, const models::ModelSet& models, HardwarePassStats& hw,
                        PassCounters& counters);

}  // namespace tbdr
