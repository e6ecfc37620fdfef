// The binning strategies besides aabb (models/README.md "Sources: binning strategies"): exact
// triangle-tile overlap, and Mali Bifrost's hierarchical tiler (Mesa src/panfrost/vulkan/panvk_cmd_draw.h).
#include <algorithm>
#include <bit>

#include "sim/binning.h"
#include "sim/binning_exact.h"
#include "sim/parallel.h"

namespace tbdr {
namespace {

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

// Appends primitive p's LevelBox to `boxes` (nothing for a primitive outside its clip): worked out
// once for both passes of lists_from_boxes. Each pass worked out the tile range and the level again
// before (those passes and tile_range: a third of BM_BinStrategy/hierarchical/512/32 in perf).
void add_level_box(const ScreenPrims& prims, uint32_t p, const std::vector<Rect>& draw_clip, const TileGrid& grid,
                   const HierarchyLists& h, uint32_t mask, uint32_t max_bins, std::vector<LevelBox>& boxes) {
  int32_t c0, r0, c1, r1;
  if (!tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1)) return;
  uint64_t bins;
  const uint32_t level = choose_level(c0, r0, c1, r1, mask, max_bins, bins);
  const uint32_t stride = h.level_cols[level];
  boxes.push_back(LevelBox{p, h.level_first[level] + uint32_t(r0 >> level) * stride + uint32_t(c0 >> level), stride,
                           uint32_t((c1 >> level) - (c0 >> level) + 1), uint32_t((r1 >> level) - (r0 >> level) + 1)});
}

// The lists of bins [from_bin, ..) (h.offsets[from_bin] already set, h.prims' entries before it
// written) of the primitives for_each_prim(f) calls f with, in that order (at most `most` of them):
// their LevelBoxes in h.scratch_boxes, then count, exclusive prefix sum, fill.
template <class ForEachPrim>
void lists_from_boxes(const ScreenPrims& prims, ForEachPrim for_each_prim, size_t most,
                      const std::vector<Rect>& draw_clip, const TileGrid& grid, uint32_t mask, uint32_t max_bins,
                      size_t from_bin, HierarchyLists& h) {
  std::vector<LevelBox>& boxes = h.scratch_boxes;
  boxes.clear();
  boxes.reserve(most);  // grown by doubling, the first pass copied it over and over
  for_each_prim([&](uint32_t p) { add_level_box(prims, p, draw_clip, grid, h, mask, max_bins, boxes); });
  auto each_bin = [](const LevelBox& b, auto f) {
    for (uint32_t r = 0, row = b.first_bin; r < b.rows; ++r, row += b.stride)
      for (uint32_t c = 0; c < b.cols; ++c) f(row + c);
  };
  std::fill(h.offsets.begin() + ptrdiff_t(from_bin) + 1, h.offsets.end(), 0u);
  for (const LevelBox& b : boxes) each_bin(b, [&](uint32_t bin) { ++h.offsets[bin + 1]; });
  for (size_t bin = from_bin; bin + 1 < h.offsets.size(); ++bin) h.offsets[bin + 1] += h.offsets[bin];
  h.prims.resize(h.offsets.back());
  std::vector<uint32_t> cursor(h.offsets.begin() + ptrdiff_t(from_bin), h.offsets.end() - 1);
  for (const LevelBox& b : boxes) each_bin(b, [&](uint32_t bin) { h.prims[cursor[bin - from_bin]++] = b.prim; });
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

// True when over half of a sample of primitives (every 64th, at most 4,096 of them: each costs
// cache misses for its bounds and draw) lies over more than max_bins tiles (a coarser level's): then
// level 0's packed pass would only add its pass over every primitive to the plain two passes
// (BM_BinStrategy/hierarchical/2048/32: 68 -> 83 ms without this choice).
bool mostly_coarser(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                    const TileGrid& grid, uint32_t max_bins) {
  size_t sampled = 0, coarser = 0;
  int32_t c0, r0, c1, r1;
  const size_t stride = std::max<size_t>(64, (last - first) / 4096);
  for (size_t p = first; p < last; p += stride, ++sampled)
    coarser += tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1) &&
               uint64_t(c1 - c0 + 1) * uint64_t(r1 - r0 + 1) > max_bins;
  return coarser * 2 > sampled;
}

// The lists of the bins past level 0 (h.offsets[tiles ..], h.prims past level 0's entries) for the
// primitives `coarser` (submission order), once bin_finest_level has written level 0's.
void bin_coarser_levels(const ScreenPrims& prims, const std::vector<uint32_t>& coarser,
                        const std::vector<Rect>& draw_clip, const TileGrid& grid, HierarchyLists& h, uint32_t mask,
                        uint32_t max_bins) {
  auto each = [&](auto f) {
    for (const uint32_t p : coarser) f(p);
  };
  lists_from_boxes(prims, each, coarser.size(), draw_clip, grid, mask, max_bins, h.level_first[1], h);
}

}  // namespace

uint32_t hierarchy_mask(const TileGrid& grid, const models::BinningRule& rule) {
  const uint32_t last_bit = uint32_t(std::bit_width(std::max(grid.cols, grid.rows)));
  uint32_t mask = (1u << rule.levels) - 1;
  if (last_bit > rule.levels) mask <<= last_bit - rule.levels;
  return mask;
}

namespace {

// binning=exact's lists from each primitive's row spans, for grids past the packed loops.
void bin_exact_direct(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, TileLists& lists) {
  lists.offsets.assign(size_t(grid.tile_count()) + 1, 0);
  two_pass_lists(first, last, lists.offsets, lists.prims, [&](size_t p, auto list) {
    exact_rows(prims, p, draw_clip[prims.draw[p]], grid, [&](int32_t r, int32_t a, int32_t b) {
      for (int32_t c = a; c <= b; ++c) list(uint32_t(r) * grid.cols + uint32_t(c));
    });
  });
}

}  // namespace

void bin_exact(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
               const TileGrid& grid, TileLists& lists, uint32_t threads) {
  if (grid.tile_count() >= kPackedTileLimit) return bin_exact_direct(prims, first, last, draw_clip, grid, lists);
  bin_exact_packed(prims, first, last, draw_clip, grid, lists, threads);
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
  // No level 0, a grid past the packed loops, or mostly coarser primitives: the plain two passes.
  if ((mask & 1) == 0 || grid.tile_count() >= kPackedTileLimit ||
      mostly_coarser(prims, first, last, draw_clip, grid, mask == 1 ? ~0u : rule.max_bins)) {
    auto each = [&](auto f) {
      for (size_t p = first; p < last; ++p) f(uint32_t(p));
    };
    h.offsets[0] = 0;
    lists_from_boxes(prims, each, last - first, draw_clip, grid, mask, rule.max_bins, 0, h);
    return;
  }
  // Level 0's primitives (most of a dense mesh's) through the packed loops, the rest after them.
  std::vector<uint32_t> coarser;
  bin_finest_level(prims, first, last, draw_clip, grid, rule.max_bins, mask == 1, h, coarser);
  bin_coarser_levels(prims, coarser, draw_clip, grid, h, mask, rule.max_bins);
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
