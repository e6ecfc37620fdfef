// The binning strategies besides aabb (models/README.md "Sources: binning strategies"): exact
// triangle-tile overlap, and Mali Bifrost's hierarchical tiler (Mesa src/panfrost/vulkan/panvk_cmd_draw.h).
#include <algorithm>
#include <bit>

#include "sim/binning.h"
#include "sim/parallel.h"

namespace tbdr {
namespace {

int64_t floor_div64(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
int64_t ceil_div64(int64_t a, int64_t b) { return -floor_div64(-a, b); }

// The x extent, in fixed point, of the triangle within the closed band y0 <= y <= y1 (fixed point),
// rounded outward, or false when the triangle misses the band. The triangle within the band is a
// convex polygon whose corners are the ends of its edges clamped to the band.
bool band_extent(const ScreenPrims& prims, size_t p, int64_t y0, int64_t y1, int64_t& x_min, int64_t& x_max) {
  bool any = false;
  x_min = INT64_MAX;
  x_max = INT64_MIN;
  for (int k = 0; k < 3; ++k) {
    const ScreenVertex& a = prims.vertex_of(k, p);
    const ScreenVertex& b = prims.vertex_of((k + 1) % 3, p);
    const int64_t lo = std::max<int64_t>(std::min(a.y, b.y), y0), hi = std::min<int64_t>(std::max(a.y, b.y), y1);
    if (lo > hi) continue;
    any = true;
    if (a.y == b.y) {
      x_min = std::min<int64_t>({x_min, a.x, b.x});
      x_max = std::max<int64_t>({x_max, a.x, b.x});
      continue;
    }
    // x(y) = a.x + (b.x - a.x) (y - a.y) / (b.y - a.y), at both ends of the clamped edge.
    const int64_t dy = int64_t(b.y) - a.y, sign = dy < 0 ? -1 : 1;
    for (int64_t y : {lo, hi}) {
      const int64_t num = (int64_t(b.x) - a.x) * (y - a.y) * sign;
      x_min = std::min(x_min, a.x + floor_div64(num, dy * sign));
      x_max = std::max(x_max, a.x + ceil_div64(num, dy * sign));
    }
  }
  return any;
}

// Calls row_span(row, first_col, last_col) for each tile row primitive p overlaps under
// binning=exact, with the columns of its triangle in that row (within its bounding box's range,
// so never more than aabb lists). Every sample of a tile's pixels lies strictly inside its square
// (Vulkan's standard sample locations are inside the pixel, never on its border), so a triangle
// that misses the open square covers none of them: a row's band is closed (its extent there is the
// extent over the open band), and a column is listed only when the extent passes its left border.
template <class RowSpan>
void exact_rows(const ScreenPrims& prims, size_t p, const Rect& clip, const TileGrid& grid, RowSpan row_span) {
  int32_t c0, r0, c1, r1;
  if (!tile_range(prims, p, clip, grid, c0, r0, c1, r1)) return;
  if (c0 == c1 || r0 == r1) {  // one row or column of tiles: the box is exact
    for (int32_t r = r0; r <= r1; ++r) row_span(r, c0, c1);
    return;
  }
  const int64_t tile_w = int64_t(grid.tile_width) << kSubpixelBits, tile_h = int64_t(grid.tile_height) << kSubpixelBits;
  for (int32_t r = r0; r <= r1; ++r) {
    const int64_t y0 = (int64_t(r) + grid.first_row) * tile_h;
    int64_t x_min, x_max;
    if (!band_extent(prims, p, y0, y0 + tile_h, x_min, x_max)) continue;
    const int32_t a = std::max(c0, int32_t(floor_div64(x_min, tile_w) - grid.first_col));
    const int32_t b = std::min(c1, int32_t(floor_div64(x_max - 1, tile_w) - grid.first_col));
    if (a <= b) row_span(r, a, b);
  }
}

// Hierarchy level of a primitive over tiles [c0, c1] x [r0, r1]: the finest enabled level where it
// touches at most rule.max_bins bins, else the coarsest enabled one. `bins` gets its bin count there.
uint32_t choose_level(int32_t c0, int32_t r0, int32_t c1, int32_t r1, uint32_t mask, uint32_t max_bins, uint64_t& bins) {
  const uint32_t top = uint32_t(std::bit_width(mask)) - 1;
  for (uint32_t level = 0; level <= top; ++level) {
    if (!(mask >> level & 1)) continue;
    bins = uint64_t((c1 >> level) - (c0 >> level) + 1) * uint64_t((r1 >> level) - (r0 >> level) + 1);
    if (bins <= max_bins || level == top) return level;
  }
  return top;  // unreachable: the top level is enabled
}

// Calls bin(global bin index) for each bin primitive p is listed in under binning=hierarchical.
template <class Bin>
void hierarchy_bins(const ScreenPrims& prims, size_t p, const Rect& clip, const TileGrid& grid, const HierarchyLists& h,
                    uint32_t mask, uint32_t max_bins, Bin bin) {
  int32_t c0, r0, c1, r1;
  if (!tile_range(prims, p, clip, grid, c0, r0, c1, r1)) return;
  uint64_t bins;
  const uint32_t level = choose_level(c0, r0, c1, r1, mask, max_bins, bins);
  for (int32_t r = r0 >> level; r <= r1 >> level; ++r) {
    const uint32_t row_first = h.level_first[level] + uint32_t(r) * h.level_cols[level];
    for (int32_t c = c0 >> level; c <= c1 >> level; ++c) bin(row_first + uint32_t(c));
  }
}

// Count, exclusive prefix sum, fill: for_each_slot(p, f) calls f(slot) for each list of p.
template <class Out, class ForEachSlot>
void two_pass_lists(size_t first, size_t last, std::vector<uint32_t>& offsets, Out& out,
                    ForEachSlot for_each_slot) {
  const size_t slots = offsets.size() - 1;
  std::fill(offsets.begin(), offsets.end(), 0u);
  for (size_t p = first; p < last; ++p) for_each_slot(p, [&](uint32_t s) { ++offsets[s + 1]; });
  for (size_t s = 0; s < slots; ++s) offsets[s + 1] += offsets[s];
  out.resize(offsets[slots]);
  std::vector<uint32_t> cursor(offsets.begin(), offsets.end() - 1);
  for (size_t p = first; p < last; ++p) for_each_slot(p, [&](uint32_t s) { out[cursor[s]++] = uint32_t(p); });
}

}  // namespace

uint32_t hierarchy_mask(const TileGrid& grid, const models::BinningRule& rule) {
  const uint32_t last_bit = uint32_t(std::bit_width(std::max(grid.cols, grid.rows)));
  uint32_t mask = (1u << rule.levels) - 1;
  if (last_bit > rule.levels) mask <<= last_bit - rule.levels;
  return mask;
}

void bin_exact(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
               const TileGrid& grid, TileLists& lists) {
  lists.offsets.assign(size_t(grid.tile_count()) + 1, 0);
  two_pass_lists(first, last, lists.offsets, lists.prims, [&](size_t p, auto list) {
    exact_rows(prims, p, draw_clip[prims.draw[p]], grid, [&](int32_t r, int32_t a, int32_t b) {
      for (int32_t c = a; c <= b; ++c) list(uint32_t(r) * grid.cols + uint32_t(c));
    });
  });
}

void bin_hierarchical(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, const models::BinningRule& rule, HierarchyLists& h) {
  const uint32_t mask = hierarchy_mask(grid, rule);
  const uint32_t levels = uint32_t(std::bit_width(mask));
  h.level_first.assign(1, 0);
  h.level_cols.clear();
  for (uint32_t level = 0; level < levels; ++level) {
    const uint32_t cols = ((std::max(grid.cols, 1u) - 1) >> level) + 1, rows = ((std::max(grid.rows, 1u) - 1) >> level) + 1;
    h.level_cols.push_back(cols);
    h.level_first.push_back(h.level_first.back() + cols * rows);
  }
  h.offsets.resize(size_t(h.level_first.back()) + 1);
  two_pass_lists(first, last, h.offsets, h.prims, [&](size_t p, auto list) {
    hierarchy_bins(prims, p, draw_clip[prims.draw[p]], grid, h, mask, rule.max_bins, list);
  });
}

void bin_primitives(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                    const TileGrid& grid, const models::BinningRule& rule, TileLists& lists, uint32_t threads) {
  lists.hierarchical = rule.strategy == models::BinningStrategy::hierarchical;
  if (rule.strategy == models::BinningStrategy::exact) return bin_exact(prims, first, last, draw_clip, grid, lists);
  // hierarchical: a tile rasterizes the primitives of its levels' bins whose bounding box touches it
  // (the tiler's per-tile culling), which are the aabb lists (BinningStrategies test).
  bin_triangles(prims, first, last, draw_clip, grid, lists, threads);
  if (lists.hierarchical) bin_hierarchical(prims, first, last, draw_clip, grid, rule, lists.hierarchy);
}

void entries_per_primitive(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                           const TileGrid& grid, const models::BinningRule& rule, uint64_t* entries) {
  if (rule.strategy == models::BinningStrategy::aabb) return tiles_touched(prims, first, last, draw_clip, grid, entries);
  const uint32_t mask = hierarchy_mask(grid, rule);
  for (size_t p = first; p < last; ++p) {
    uint64_t n = 0;
    const Rect& clip = draw_clip[prims.draw[p]];
    if (rule.strategy == models::BinningStrategy::exact) {
      exact_rows(prims, p, clip, grid, [&](int32_t, int32_t a, int32_t b) { n += uint64_t(b - a + 1); });
    } else {
      int32_t c0, r0, c1, r1;
      if (tile_range(prims, p, clip, grid, c0, r0, c1, r1)) choose_level(c0, r0, c1, r1, mask, rule.max_bins, n);
    }
    entries[p - first] = n;
  }
}

}  // namespace tbdr
