// The binning strategies besides aabb (models/README.md "Sources: binning strategies"): exact
// triangle-tile overlap, and Mali Bifrost's hierarchical tiler (Mesa src/panfrost/vulkan/panvk_cmd_draw.h).
#include <algorithm>
#include <bit>

#include "sim/binning.h"
#include "sim/parallel.h"

namespace tbdr {
namespace {

// Primitive p's edges as a[k] x + b[k] y + c[k] (fixed point), >= 0 on the triangle's side
// whatever its winding; false for a degenerate (zero-area) triangle.
struct Edges {
  int64_t a[3], b[3], c[3];
};
bool edges_of(const ScreenPrims& prims, size_t p, Edges& e) {
  const ScreenVertex& v0 = prims.vertex_of(0, p);
  const ScreenVertex& v1 = prims.vertex_of(1, p);
  const ScreenVertex& v2 = prims.vertex_of(2, p);
  const int64_t area2 = (int64_t(v1.x) - v0.x) * (int64_t(v2.y) - v0.y) - (int64_t(v1.y) - v0.y) * (int64_t(v2.x) - v0.x);
  if (area2 == 0) return false;
  const int64_t side = area2 > 0 ? 1 : -1;
  const ScreenVertex* v[3] = {&v0, &v1, &v2};
  for (int k = 0; k < 3; ++k) {
    const ScreenVertex& from = *v[k];
    const ScreenVertex& to = *v[(k + 1) % 3];
    const int64_t dx = int64_t(to.x) - from.x, dy = int64_t(to.y) - from.y;
    e.a[k] = -dy * side;
    e.b[k] = dx * side;
    e.c[k] = (dy * from.x - dx * from.y) * side;
  }
  return true;
}

// Calls row_span(row, first_col, last_col) for each tile row primitive p overlaps under
// binning=exact, with the columns of its triangle in that row (within its bounding box's range,
// so never more than aabb lists). Every sample of a tile's pixels lies strictly inside its square
// (Vulkan's standard sample locations are inside the pixel, never on its border), so a tile is
// listed when the (closed) triangle meets its open square: by the separating axis theorem for
// convex polygons, when for each edge the square's corner farthest on the triangle's side is
// strictly on it (the box axes are the bounding-box range's). Integer arithmetic (fixed point,
// products below 2^50), no division; a row's columns are contiguous (a convex set's projection).
template <class RowSpan>
void exact_rows(const ScreenPrims& prims, size_t p, const Rect& clip, const TileGrid& grid, RowSpan row_span) {
  int32_t c0, r0, c1, r1;
  if (!tile_range(prims, p, clip, grid, c0, r0, c1, r1)) return;
  Edges e;
  if (c0 == c1 || r0 == r1 || !edges_of(prims, p, e)) {  // one row or column of tiles: the box is exact
    for (int32_t r = r0; r <= r1; ++r) row_span(r, c0, c1);
    return;
  }
  const int64_t tile_w = int64_t(grid.tile_width) << kSubpixelBits, tile_h = int64_t(grid.tile_height) << kSubpixelBits;
  const int64_t x0 = (int64_t(c0) + grid.first_col) * tile_w;
  int64_t row_value[3], step[3];
  for (int k = 0; k < 3; ++k) {
    row_value[k] = e.a[k] * x0 + e.b[k] * ((int64_t(r0) + grid.first_row) * tile_h) + e.c[k] +
                   std::max<int64_t>(e.a[k], 0) * tile_w + std::max<int64_t>(e.b[k], 0) * tile_h;
    step[k] = e.a[k] * tile_w;
  }
  for (int32_t r = r0; r <= r1; ++r) {
    int64_t v0 = row_value[0], v1 = row_value[1], v2 = row_value[2];
    int32_t first = -1, c = c0;
    for (; c <= c1; ++c, v0 += step[0], v1 += step[1], v2 += step[2]) {
      const bool inside = v0 > 0 && v1 > 0 && v2 > 0;
      if (inside && first < 0) first = c;
      if (!inside && first >= 0) break;
    }
    if (first >= 0) row_span(r, first, c - 1);
    for (int k = 0; k < 3; ++k) row_value[k] += e.b[k] * tile_h;
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

namespace {

// binning=exact's two ways to the same lists. Direct: count and fill from each primitive's row
// spans. Filtered: aabb's lists (bin_triangles' packed loops), less the tiles of a bounding box
// over several rows and columns that its triangle misses; a primitive within one row or column of
// tiles is listed exactly as aabb lists it. Dense small triangles take the second (few span rows and
// columns); large ones the first (aabb would write many entries only to drop them).
void bin_exact_direct(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, TileLists& lists) {
  lists.offsets.assign(size_t(grid.tile_count()) + 1, 0);
  two_pass_lists(first, last, lists.offsets, lists.prims, [&](size_t p, auto list) {
    exact_rows(prims, p, draw_clip[prims.draw[p]], grid, [&](int32_t r, int32_t a, int32_t b) {
      for (int32_t c = a; c <= b; ++c) list(uint32_t(r) * grid.cols + uint32_t(c));
    });
  });
}

bool spans_rows_and_columns(const ScreenPrims& prims, size_t p, const std::vector<Rect>& draw_clip,
                            const TileGrid& grid, int32_t& c0, int32_t& r0, int32_t& c1, int32_t& r1) {
  return tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1) && c0 < c1 && r0 < r1;
}

// True when over half of a sample of primitives (every 64th) spans rows and columns (measured on
// bench/pipeline_bench.cpp's BM_BinStrategy rows: below that, the filtered way was faster).
bool mostly_large(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                  const TileGrid& grid) {
  size_t sampled = 0, large = 0;
  int32_t c0, r0, c1, r1;
  for (size_t p = first; p < last; p += 64, ++sampled)
    large += spans_rows_and_columns(prims, p, draw_clip, grid, c0, r0, c1, r1);
  return large * 2 > sampled;
}

// The (tile, primitive) pairs aabb lists but exact does not, for the primitives `candidates` (those
// over several rows and columns), grouped by tile, each tile's in submission order:
// `first_of[t] .. first_of[t + 1]` index `dropped`.
void dropped_entries(const ScreenPrims& prims, const std::vector<uint32_t>& candidates,
                     const std::vector<Rect>& draw_clip, const TileGrid& grid, std::vector<uint32_t>& first_of,
                     std::vector<uint32_t>& dropped) {
  std::vector<std::pair<uint32_t, uint32_t>> pairs;  // (tile, primitive), primitives ascending
  std::vector<int32_t> span_first, span_last;
  int32_t c0, r0, c1, r1;
  for (const uint32_t p : candidates) {
    tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1);
    span_first.assign(size_t(r1 - r0 + 1), c1 + 1);  // rows exact_rows skips list nothing
    span_last.assign(size_t(r1 - r0 + 1), c1);
    exact_rows(prims, p, draw_clip[prims.draw[p]], grid, [&](int32_t r, int32_t a, int32_t b) {
      span_first[size_t(r - r0)] = a;
      span_last[size_t(r - r0)] = b;
    });
    for (int32_t r = r0; r <= r1; ++r)
      for (int32_t c = c0; c <= c1; ++c)
        if (c < span_first[size_t(r - r0)] || c > span_last[size_t(r - r0)])
          pairs.emplace_back(uint32_t(r) * grid.cols + uint32_t(c), p);
  }
  first_of.assign(size_t(grid.tile_count()) + 1, 0);
  for (const auto& [tile, p] : pairs) ++first_of[tile + 1];
  for (size_t t = 0; t + 1 < first_of.size(); ++t) first_of[t + 1] += first_of[t];
  dropped.resize(pairs.size());
  std::vector<uint32_t> cursor(first_of.begin(), first_of.end() - 1);
  for (const auto& [tile, p] : pairs) dropped[cursor[tile]++] = p;
}

void bin_exact_filtered(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                        const TileGrid& grid, TileLists& lists, uint32_t threads) {
  bin_triangles(prims, first, last, draw_clip, grid, lists, threads);
  std::vector<uint32_t> candidates, first_of, dropped;
  primitives_over_rows_and_columns(prims, first, last, draw_clip, grid, lists, candidates);
  dropped_entries(prims, candidates, draw_clip, grid, first_of, dropped);
  if (dropped.empty()) return;
  // Compact in place: both a tile's list and its dropped primitives ascend, so one merge-like walk.
  uint32_t write = 0;
  for (uint32_t t = 0; t < grid.tile_count(); ++t) {
    const uint32_t begin = lists.offsets[t], end = lists.offsets[t + 1];
    lists.offsets[t] = write;
    const uint32_t* drop = dropped.data() + first_of[t];
    const uint32_t* const drop_end = dropped.data() + first_of[t + 1];
    for (uint32_t k = begin; k < end; ++k) {
      const uint32_t p = lists.prims[k];
      if (drop != drop_end && *drop == p) {
        ++drop;
        continue;
      }
      lists.prims[write++] = p;
    }
  }
  lists.offsets[grid.tile_count()] = write;
  lists.prims.resize(write);
}

}  // namespace

void bin_exact(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
               const TileGrid& grid, TileLists& lists, uint32_t threads) {
  if (mostly_large(prims, first, last, draw_clip, grid)) return bin_exact_direct(prims, first, last, draw_clip, grid, lists);
  bin_exact_filtered(prims, first, last, draw_clip, grid, lists, threads);
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
  if (rule.strategy == models::BinningStrategy::exact) return bin_exact(prims, first, last, draw_clip, grid, lists, threads);
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
