// Two-pass binning (count, exclusive prefix sum, fill) over the conservative tile range of each
// primitive's bounding box, like cudaraster's coarse raster without the tighter edge test.
#include "sim/binning.h"

#include <algorithm>

namespace tbdr {
namespace {

int32_t floor_div(int32_t a, int32_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Tile column/row range of primitive p, or false when it touches no tile.
bool tile_range(const ScreenPrims& prims, size_t p, const Rect& clip, const TileGrid& grid, int32_t& c0, int32_t& r0,
                int32_t& c1, int32_t& r1) {
  const int32_t x0 = std::max(prims.min_x[p], clip.x);
  const int32_t y0 = std::max(prims.min_y[p], clip.y);
  const int32_t x1 = std::min(prims.max_x[p], clip.x + int32_t(clip.width) - 1);
  const int32_t y1 = std::min(prims.max_y[p], clip.y + int32_t(clip.height) - 1);
  if (x0 > x1 || y0 > y1) return false;
  c0 = floor_div(x0, int32_t(grid.tile_width)) - grid.first_col;
  r0 = floor_div(y0, int32_t(grid.tile_height)) - grid.first_row;
  c1 = floor_div(x1, int32_t(grid.tile_width)) - grid.first_col;
  r1 = floor_div(y1, int32_t(grid.tile_height)) - grid.first_row;
  return true;
}

}  // namespace

TileGrid::TileGrid(const Rect& area, uint32_t tw, uint32_t th) : tile_width(tw), tile_height(th), render_area(area) {
  if (area.width == 0 || area.height == 0) return;
  first_col = floor_div(area.x, int32_t(tw));
  first_row = floor_div(area.y, int32_t(th));
  const int32_t last_col = floor_div(area.x + int32_t(area.width) - 1, int32_t(tw));
  const int32_t last_row = floor_div(area.y + int32_t(area.height) - 1, int32_t(th));
  cols = uint32_t(last_col - first_col + 1);
  rows = uint32_t(last_row - first_row + 1);
}

Rect TileGrid::tile_rect(uint32_t t) const {
  const int32_t col = first_col + int32_t(t % cols), row = first_row + int32_t(t / cols);
  const int32_t x0 = std::max(col * int32_t(tile_width), render_area.x);
  const int32_t y0 = std::max(row * int32_t(tile_height), render_area.y);
  const int32_t x1 = std::min((col + 1) * int32_t(tile_width), render_area.x + int32_t(render_area.width));
  const int32_t y1 = std::min((row + 1) * int32_t(tile_height), render_area.y + int32_t(render_area.height));
  return Rect{x0, y0, uint32_t(x1 - x0), uint32_t(y1 - y0)};
}

void bin_triangles(const ScreenPrims& prims, const std::vector<Rect>& draw_clip, const TileGrid& grid,
                   TileLists& lists) {
  const uint32_t tiles = grid.tile_count();
  lists.offsets.assign(size_t(tiles) + 1, 0);
  int32_t c0, r0, c1, r1;
  // Pass 1: count entries per tile (stored one slot ahead for the in-place prefix sum).
  for (size_t p = 0; p < prims.size(); ++p) {
    if (!tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1)) continue;
    for (int32_t r = r0; r <= r1; ++r)
      for (int32_t c = c0; c <= c1; ++c) ++lists.offsets[size_t(r) * grid.cols + size_t(c) + 1];
  }
  // Pass 2: exclusive prefix sum gives each tile's first slot.
  for (uint32_t t = 0; t < tiles; ++t) lists.offsets[t + 1] += lists.offsets[t];
  lists.prims.resize(lists.offsets[tiles]);
  // Pass 3: fill in submission order, so every list is sorted by primitive index.
  std::vector<uint32_t> cursor(lists.offsets.begin(), lists.offsets.end() - 1);
  for (size_t p = 0; p < prims.size(); ++p) {
    if (!tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1)) continue;
    for (int32_t r = r0; r <= r1; ++r)
      for (int32_t c = c0; c <= c1; ++c) lists.prims[cursor[size_t(r) * grid.cols + size_t(c)]++] = uint32_t(p);
  }
}

}  // namespace tbdr
