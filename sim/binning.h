// Binning: conservative AABB coverage of each screen triangle intersected with the tile grid,
// written as per-tile lists in two passes (count -> prefix sum -> fill);
// models/README.md "Sources: the two-phase machine".
#pragma once

#include <cstdint>
#include <vector>

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

// Compressed rows: the primitives of tile t are prims[offsets[t] .. offsets[t+1]), in submission
// order. Size: 4 B per tile + 4 B per entry.
struct TileLists {
  std::vector<uint32_t> offsets;
  // Written whole by every binning (each entry, each primitive's range) before anything reads
  // them: on huge pages and not zero-filled when they grow, like the screen primitives (the
  // million-triangle frame's binning went 0.014 -> 0.011 s: a zeroing resize touched fresh pages).
  ScreenPrims::Array<uint32_t> prims;
  uint64_t entries() const { return prims.size(); }
  // bin_triangles' working memory (per primitive its tile range; per tile and thread its counts
  // and write cursor), kept so that binning again into the same lists allocates nothing.
  ScreenPrims::Array<uint32_t> scratch_ranges;
  std::vector<uint32_t> scratch_counts, scratch_cursors;
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

// The number of tiles each of primitives [first, last) is listed in (its entries), as
// bin_triangles lists it, into touched[p - first] (`draw_clip` indexed by draw): one tight loop,
// not a call per primitive (the parameter buffer sizes every primitive as geometry emits it).
void tiles_touched(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                   const TileGrid& grid, uint64_t* touched);

}  // namespace tbdr
