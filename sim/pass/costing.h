// The costing stage: the functional record of a hardware pass (TileResults, geometry work, the
// DRAM ledger) through the timing models -> per-tile cycles, the cycle breakdown, the texture
// caches' bytes; it never rasterizes again.
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

// Per-tile unit cycles summed over the hardware pass's tiles, render after render, tile after tile.
struct TileCostSums {
  CycleBreakdown breakdown;
  models::Bytes tile_buffer_bytes;
};

// Adds one render's tiles, in tile order, to the sums and to hw's per-tile cycles and DRAM bytes.
void add_tile_costs(const std::vector<TileResult>& results, const models::ModelSet& models, TileCostSums& sums,
                    HardwarePassStats& hw);

// The texture caches of a hardware pass: the tiles' line streams replayed in tile order, each
// through the cache of the core the cores model gives its tile (by hw.tile_cycles): the outcome
// depends on the configuration only, never on which host thread ran a tile.
models::TextureCacheStats replay_texture_caches(const std::vector<std::vector<uint64_t>>& streams,
                                                const std::vector<double>& tile_cycles, const models::ModelSet& models);

// The hardware pass's geometry and fragment cycles: the geometry phase (vertex shading, set-up
// and binning) bound by its own DRAM bytes (vertex reads, tile-list writes); the fragment phase
// by the slowest core, bound by the rest of the bytes. `geometry` counts the pass's work.
void cost_hardware_pass(const models::GeometryWork& geometry, const TileCostSums& sums, const models::ModelSet& models,
                        HardwarePassStats& hw);

}  // namespace tbdr
