// Binning: conservative AABB coverage of each screen triangle intersected with the tile grid,
// written as per-tile lists in two passes (count -> prefix sum -> fill);
// models/README.md "Sources: the two-phase machine".
#pragma once

#include <cstdint>
#include <vector>

#include "models/binning/binning.h"
#include "sim/frame.h"
#include "sim/geometry.h"

namespace tbdr {

// Tiles of one hardware pass: a grid aligned to the framebuffer origin, covering the render area.
struct TileGrid {
  uint32_t tile_width = 16, tile_height = 16;
  int32_t first_col = 0, first_row = 0;
  uint32_t cols = 0, rows = 0;
  Rect render_area;

  TileGrid() = default;
  TileGrid(const Rect& render_area, uint32_t tile_width, uint32_t tile_height);
  uint32_t tile_count() const { return cols * rows; }
  // The pixels tile t covers inside the render area (never empty).
  Rect tile_rect(uint32_t t) const;
};

// binning=hierarchical's lists (models/README.md "Sources: binning strategies"): level L has bins of
// 2^L x 2^L tiles aligned to the grid's first tile; bin b of level L is bins[level_first[L] + b],
// its primitives prims[offsets[bin] .. offsets[bin + 1]) in submission order. Every level up to the
// top enabled one has bins; a disabled level's are empty.
// A primitive's bins under binning=hierarchical: `cols` x `rows` of them from `first_bin`,
// `stride` bins a row (its level's; sim/binning_strategies.cpp).
struct LevelBox {
  uint32_t prim, first_bin, stride, cols, rows;
};

struct HierarchyLists {
  std::vector<uint32_t> level_first;  // per level, its first bin; one more: the bin count
  std::vector<uint32_t> level_cols;   // per level, bins a row
  std::vector<uint32_t> offsets;      // per bin, one more at the end
  ScreenPrims::Array<uint32_t> prims;  // written whole before anything reads it (as TileLists::prims)
  // bin_finest_level's working memory, as TileLists' below.
  ScreenPrims::Array<uint32_t> scratch_ranges;
  ScreenPrims::Array<uint32_t> scratch_counts, scratch_cursors;
  std::vector<LevelBox> scratch_boxes;  // the primitives' bins past level 0, kept between passes
  uint32_t levels() const { return uint32_t(level_cols.size()); }
  uint64_t entries() const { return prims.size(); }
  uint64_t level_entries(uint32_t level) const {
    return offsets[level_first[level + 1]] - offsets[level_first[level]];
  }
  // The bin of `level` that holds tile (col, row) of the grid.
  uint32_t bin_of(uint32_t level, uint32_t col, uint32_t row) const {
    return level_first[level] + (row >> level) * level_cols[level] + (col >> level);
  }
};

// Compressed rows: the primitives of tile t are prims[offsets[t] .. offsets[t+1]), in submission
// order. Size: 4 B per tile + 4 B per entry.
struct TileLists {
  std::vector<uint32_t> offsets;
  // Written whole by every binning (each entry, each primitive's range) before anything reads
  // them: on huge pages and not zero-filled when they grow, like the screen primitives (the
  // million-triangle frame's binning went 0.014 -> 0.011 s: a zeroing resize touched fresh pages).
  ScreenPrims::Array<uint32_t> prims;
  uint64_t entries() const { return prims.size(); }
  // binning=hierarchical: the lists binning writes (prims/offsets above are then what each tile
  // rasterizes: the primitives of its levels' bins whose bounding box touches it, i.e. the aabb lists).
  HierarchyLists hierarchy;
  bool hierarchical = false;
  // Entries binning writes to memory: the hierarchy's under binning=hierarchical, else the tiles'.
  uint64_t written_entries() const { return hierarchical ? hierarchy.entries() : entries(); }
  // bin_triangles' working memory (per primitive its tile range; per tile and thread its counts
  // and write cursor), kept so that binning again into the same lists allocates nothing. Not
  // zero-filled when they grow: each block zeroes its own counts on its thread, the cursors are
  // written whole (a zeroing resize was 3.5 MB of serial memset at 15 blocks on the million frame).
  ScreenPrims::Array<uint32_t> scratch_ranges;
  ScreenPrims::Array<uint32_t> scratch_counts, scratch_cursors;
  std::vector<std::vector<uint64_t>> scratch_trimmed;  // binning=exact: per block, its trimmed boxes
};

// `clip[p]` is the pixel rectangle primitive p may touch (its draw's scissor within the render
// area); the AABB is intersected with it before the tile range is taken. Up to `threads` threads
// bin contiguous blocks of primitives when there are many per tile; the lists are the same for
// any count.
void bin_triangles(const ScreenPrims& prims, const std::vector<Rect>& draw_clip, const TileGrid& grid, TileLists& lists,
                   uint32_t threads = 1);
// The same for primitives [first, last) only (one render of a parameter-buffer flush); the lists
// hold their indices in `prims`.
void bin_triangles(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                   const TileGrid& grid, TileLists& lists, uint32_t threads = 1);

// Grids of this many tiles or more are past the packed loops' 24-bit tile field (bin_triangles
// then takes plain loops; the two below need the packed ones).
constexpr uint32_t kPackedTileLimit = (1u << 24) - 1;

// binning=exact's lists through bin_triangles' packed loops (grid under kPackedTileLimit tiles): a
// primitive's box over one row or column of tiles as aabb lists it, a box over several rows and
// columns tested, and trimmed to its triangle's row spans where the triangle misses some of it.
void bin_exact_packed(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, TileLists& lists, uint32_t threads = 1);
// binning=hierarchical's level 0 (bins = tiles) through the packed loops (grid under kPackedTileLimit
// tiles): lists.offsets[0 .. tiles] and lists.prims get the primitives over at most max_bins tiles
// (every one when finest_is_top), `coarser` the others in submission order.
void bin_finest_level(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, uint32_t max_bins, bool finest_is_top, HierarchyLists& lists,
                      std::vector<uint32_t>& coarser, uint32_t threads = 1);

// Tile column/row range [c0, c1] x [r0, r1] of primitive p's bounding box within `clip`, relative to
// the grid's first tile, or false when it touches no tile.
bool tile_range(const ScreenPrims& prims, size_t p, const Rect& clip, const TileGrid& grid, int32_t& c0, int32_t& r0,
                int32_t& c1, int32_t& r1);

// bin_triangles under a binning rule (models/binning/binning.h): aabb is bin_triangles; exact lists a
// primitive only in the tiles its triangle overlaps; hierarchical fills lists.hierarchy and, for the
// tiles, the aabb lists.
void bin_primitives(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                    const TileGrid& grid, const models::BinningRule& rule, TileLists& lists, uint32_t threads = 1);
// The strategies' binners alone (bench/pipeline_bench.cpp times them).
void bin_exact(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
               const TileGrid& grid, TileLists& lists, uint32_t threads = 1);
void bin_hierarchical(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, const models::BinningRule& rule, HierarchyLists& lists);
// The levels binning=hierarchical enables on `grid` (bit L: level L), after Mesa panvk's
// panvk_select_tiler_hierarchy_mask: the lowest rule.levels levels, shifted up when the level
// whose single bin covers the grid lies above them.
uint32_t hierarchy_mask(const TileGrid& grid, const models::BinningRule& rule);

// The entries each of primitives [first, last) adds under `rule` (tiles_touched for aabb).
void entries_per_primitive(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                           const TileGrid& grid, const models::BinningRule& rule, uint64_t* entries);

// The number of tiles each of primitives [first, last) is listed in (its entries), as
// bin_triangles lists it, into touched[p - first] (`draw_clip` indexed by draw): one tight loop,
// not a call per primitive (the parameter buffer sizes every primitive as geometry emits it).
void tiles_touched(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                   const TileGrid& grid, uint64_t* touched);
// The sum over primitives [first, last) of record_bytes[its draw] + 4 B per tile it is listed in
// (tiles_touched), without storing each one's: the parameter buffer's bytes of a batch that fits.
uint64_t listed_bytes(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, const uint64_t* record_bytes);

}  // namespace tbdr
