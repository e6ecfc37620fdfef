// The binning kind (models/README.md "binning"): aabb, exact and hierarchical list different tiles and
// bytes but render the same pixels; entries worked out by hand for a large and a thin triangle.
#include <gtest/gtest.h>
#include "test_paths.h"

#include <bit>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "sim/binning.h"
#include "sim/binning_exact.h"
#include "sim/pass/param_buffer.h"
#include "sim/pipeline.h"
#include "tests/configured_models.h"
#include "tests/stored_images.h"

namespace fs = std::filesystem;

namespace tbdr {
namespace {

using models::BinningRule;
using models::BinningStrategy;

// One draw's screen triangles from pixel corners (fixed point), no varyings.
struct Triangles {
  ScreenPrims prims;
  Triangles() { prims.varying_stride = 0; }
  void add(int32_t x0, int32_t y0, int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    const int32_t one = kSubpixelOne;
    const uint32_t v[3] = {prims.add_vertex(ScreenVertex{x0 * one, y0 * one, 0.5f, 1.0f}, nullptr),
                           prims.add_vertex(ScreenVertex{x1 * one, y1 * one, 0.5f, 1.0f}, nullptr),
                           prims.add_vertex(ScreenVertex{x2 * one, y2 * one, 0.5f, 1.0f}, nullptr)};
    prims.add_triangle(v, 0, true);
  }
};

uint64_t entries_of(const ScreenPrims& prims, const TileGrid& grid, BinningStrategy strategy) {
  const std::vector<Rect> clip = {grid.render_area};
  BinningRule rule;
  rule.strategy = strategy;
  TileLists lists;
  bin_primitives(prims, 0, prims.size(), clip, grid, rule, lists);
  std::vector<uint64_t> per_primitive(prims.size());
  entries_per_primitive(prims, 0, prims.size(), clip, grid, rule, per_primitive.data());
  uint64_t sum = 0;
  for (uint64_t n : per_primitive) sum += n;
  EXPECT_EQ(sum, lists.written_entries()) << "the parameter buffer's sizing differs from the lists";
  return lists.written_entries();
}

// 128x128 px, 16x16 tiles: 8 x 8 tiles; both triangles' bounding boxes cover all 64.
// Large: (0,0) (128,0) (0,128). In tile row r (y in [16r, 16r + 16]) it reaches x < 128 - 16r,
// so columns 0 .. 7 - r: 8 + 7 + ... + 1 = 36 tiles. Hierarchical (8 levels; 8 tiles a side:
// bit_width(8) = 4 <= 8, levels 0-7 enabled): level 0 has 64 bins, level 1 (32 px) 4 x 4 = 16,
// level 2 (64 px) 2 x 2 = 4 <= max_bins 4: 4 entries.
// Thin: (0,0) (2,0) (128,128), a sliver along the diagonal. In row r its left edge is x = y >= 16r
// and its right edge x = 2 + 126 y / 128 <= 2 + 15.75 (r + 1), past 16 (r + 1) for r <= 6: columns
// r and r + 1 in rows 0-6, column 7 alone in row 7 (x in [112, 128]): 7 x 2 + 1 = 15 tiles.
// Hierarchical: the same box, 4 entries.
TEST(BinningStrategies, LargeAndThinTriangleEntriesByHand) {
  const TileGrid grid(Rect{0, 0, 128, 128}, 16, 16);
  Triangles large, thin;
  large.add(0, 0, 128, 0, 0, 128);
  thin.add(0, 0, 2, 0, 128, 128);
  EXPECT_EQ(entries_of(large.prims, grid, BinningStrategy::aabb), 64u);
  EXPECT_EQ(entries_of(large.prims, grid, BinningStrategy::exact), 36u);
  EXPECT_EQ(entries_of(large.prims, grid, BinningStrategy::hierarchical), 4u);
  EXPECT_EQ(entries_of(thin.prims, grid, BinningStrategy::aabb), 64u);
  EXPECT_EQ(entries_of(thin.prims, grid, BinningStrategy::exact), 15u);
  EXPECT_EQ(entries_of(thin.prims, grid, BinningStrategy::hierarchical), 4u);
}

// binning=exact lists a primitive the same alone or among others: 100 large triangles (indices
// 0-99, either winding, corners on and off tile borders) binned alone (most of them trimmed boxes)
// and followed by 4,000 small ones (most through aabb's packed path): per tile the large ones'
// entries are the same, and every primitive's entry count is the one the parameter buffer sizes it
// by (entries_per_primitive).
TEST(BinningStrategies, ExactListsAreTheSameWhicheverWayTheyAreBuilt) {
  const TileGrid grid(Rect{0, 0, 256, 192}, 16, 16);
  std::mt19937 rng(23);
  auto coord = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Triangles large, mixed;
  for (int i = 0; i < 100; ++i) {
    const int x = coord(-20, 250), y = coord(-20, 190);
    const int v[6] = {x, y, x + coord(-150, 150), y + coord(20, 150), x + coord(20, 150), y + coord(-150, 150)};
    large.add(v[0], v[1], v[2], v[3], v[4], v[5]);
    mixed.add(v[0], v[1], v[2], v[3], v[4], v[5]);
  }
  for (int i = 0; i < 4000; ++i) {
    const int x = coord(0, 250), y = coord(0, 186);
    mixed.add(x, y, x + coord(1, 5), y + coord(0, 3), x + coord(0, 3), y + coord(1, 5));
  }
  const std::vector<Rect> clip = {grid.render_area};
  TileLists alone, together;
  bin_exact(large.prims, 0, large.prims.size(), clip, grid, alone);
  bin_exact(mixed.prims, 0, mixed.prims.size(), clip, grid, together);
  uint64_t dropped = 0;
  for (uint32_t t = 0; t < grid.tile_count(); ++t) {
    std::vector<uint32_t> a(alone.prims.data() + alone.offsets[t], alone.prims.data() + alone.offsets[t + 1]), b;
    for (uint32_t k = together.offsets[t]; k < together.offsets[t + 1]; ++k)
      if (together.prims[k] < 100) b.push_back(together.prims[k]);
    EXPECT_EQ(a, b) << "tile " << t;
  }
  TileLists box;
  bin_triangles(large.prims, clip, grid, box);
  dropped = box.entries() - alone.entries();
  EXPECT_GT(dropped, 0u) << "the large triangles should leave tiles of their boxes out";
  for (const TileLists* lists : {&alone, &together}) {
    const ScreenPrims& prims = lists == &alone ? large.prims : mixed.prims;
    std::vector<uint64_t> expected(prims.size()), counted(prims.size(), 0);
    entries_per_primitive(prims, 0, prims.size(), clip, grid, BinningRule{BinningStrategy::exact}, expected.data());
    for (uint64_t k = 0; k < lists->entries(); ++k) ++counted[lists->prims[k]];
    EXPECT_EQ(counted, expected);
  }
}

// binning=exact's lists built the plain way (each primitive's row spans, in submission order).
std::vector<std::vector<uint32_t>> exact_reference(const ScreenPrims& prims, const std::vector<Rect>& clip,
                                                   const TileGrid& grid) {
  std::vector<std::vector<uint32_t>> tiles(grid.tile_count());
  for (size_t p = 0; p < prims.size(); ++p)
    exact_rows(prims, p, clip[prims.draw[p]], grid, [&](int32_t r, int32_t a, int32_t b) {
      for (int32_t c = a; c <= b; ++c) tiles[size_t(r) * grid.cols + size_t(c)].push_back(uint32_t(p));
    });
  return tiles;
}

// Random triangles of 1 - 200 px sides (a third of them corners of 2x2 tiles that miss one, many
// over one row or column, some wider than the packed code's 15 tiles), in three draws with their
// own clip rectangles, on power-of-two and other tiles, binned by one thread and by four (140,000
// primitives: blocks of their own): bin_exact's lists are the plain way's, tile by tile. Checked
// against a broken rule: with trim_boxes' test skipped (aabb's boxes) or a 2x2 box kept whole, it fails.
TEST(BinningStrategies, ExactPackedListsAreThePlainRowSpans) {
  std::mt19937 rng(7);
  auto coord = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Triangles tris;
  for (int i = 0; i < 140000; ++i) {
    const int size = i % 3 == 0 ? coord(2, 12) : i % 7 == 0 ? coord(20, 200) : coord(1, 40);
    const int x = coord(-30, 520), y = coord(-30, 300);
    tris.add(x, y, x + coord(-size, size), y + coord(0, size), x + coord(0, size), y + coord(-size, size));
    tris.prims.draw.back() = uint32_t(i / 50000);
  }
  const std::vector<Rect> clip = {Rect{0, 0, 500, 280}, Rect{37, 21, 300, 200}, Rect{0, 100, 500, 60}};
  // The last grid starts past the origin (first column 2, first row 1): the packed codes' tiles and
  // the kept spans' must both be grid-relative.
  for (const auto& [tile, area] : {std::pair{16u, Rect{0, 0, 500, 280}}, std::pair{24u, Rect{0, 0, 500, 280}},
                                   std::pair{32u, Rect{0, 0, 500, 280}}, std::pair{16u, Rect{37, 21, 463, 259}}}) {
    const TileGrid grid(area, tile, tile);
    std::vector<Rect> clip_in_area;  // a draw's clip lies inside the render area (the pipeline's rule)
    for (const Rect& c : clip) {
      const int32_t x0 = std::max(c.x, area.x), y0 = std::max(c.y, area.y);
      const int32_t x1 = std::min(c.x + int32_t(c.width), area.x + int32_t(area.width));
      const int32_t y1 = std::min(c.y + int32_t(c.height), area.y + int32_t(area.height));
      clip_in_area.push_back(Rect{x0, y0, uint32_t(x1 - x0), uint32_t(y1 - y0)});
    }
    const auto want = exact_reference(tris.prims, clip_in_area, grid);
    for (const uint32_t threads : {1u, 4u}) {
      TileLists lists;
      bin_exact(tris.prims, 0, tris.prims.size(), clip_in_area, grid, lists, threads);
      for (uint32_t t = 0; t < grid.tile_count(); ++t)
        ASSERT_EQ(std::vector<uint32_t>(lists.prims.begin() + lists.offsets[t], lists.prims.begin() + lists.offsets[t + 1]),
                  want[t])
            << "tile " << t << " of " << tile << " px, " << threads << " threads";
    }
  }
}

// binning=hierarchical's bins built the plain way: per primitive the finest enabled level whose
// bins over its box number at most max_bins (else the top one), listed in each of those bins.
std::vector<std::vector<uint32_t>> hierarchy_reference(const ScreenPrims& prims, const std::vector<Rect>& clip,
                                                       const TileGrid& grid, const BinningRule& rule,
                                                       const HierarchyLists& h) {
  std::vector<std::vector<uint32_t>> bins(h.level_first.back());
  const uint32_t mask = hierarchy_mask(grid, rule), top = uint32_t(std::bit_width(mask)) - 1;
  int32_t c0, r0, c1, r1;
  for (size_t p = 0; p < prims.size(); ++p) {
    if (!tile_range(prims, p, clip[prims.draw[p]], grid, c0, r0, c1, r1)) continue;
    uint32_t level = 0;
    while (!(mask >> level & 1) ||
           (level < top && uint64_t((c1 >> level) - (c0 >> level) + 1) * uint64_t((r1 >> level) - (r0 >> level) + 1) > rule.max_bins))
      ++level;
    for (int32_t r = r0 >> level; r <= r1 >> level; ++r)
      for (int32_t c = c0 >> level; c <= c1 >> level; ++c) bins[h.bin_of(level, uint32_t(c) << level, uint32_t(r) << level)].push_back(uint32_t(p));
  }
  return bins;
}

// bin_hierarchical lists level 0's primitives through the packed loops and the rest apart: with
// level 0 enabled (8 levels; max_bins 1, 4 and 300, past the packed code's 15 x 15 tiles) and
// without it (2 levels, shifted up), on 16 and 24 px tiles, every bin holds the plain way's list.
// Checked against a broken rule: with keep_finest_level keeping every primitive at level 0, it fails.
TEST(BinningStrategies, HierarchyFinestLevelPackedListsAreThePlainBins) {
  std::mt19937 rng(11);
  auto coord = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Triangles tris;
  for (int i = 0; i < 20000; ++i) {
    const int size = i % 5 == 0 ? coord(20, 400) : coord(1, 40);
    const int x = coord(-30, 620), y = coord(-30, 400);
    tris.add(x, y, x + coord(-size, size), y + coord(0, size), x + coord(0, size), y + coord(-size, size));
  }
  const std::vector<Rect> clip = {Rect{0, 0, 600, 380}};
  for (const uint32_t tile : {16u, 24u})
    for (const auto& [levels, max_bins] : {std::pair{8u, 1u}, std::pair{8u, 4u}, std::pair{8u, 300u}, std::pair{2u, 4u}}) {
      const TileGrid grid(clip[0], tile, tile);
      BinningRule rule;
      rule.strategy = BinningStrategy::hierarchical;
      rule.levels = levels;
      rule.max_bins = max_bins;
      HierarchyLists h;
      bin_hierarchical(tris.prims, 0, tris.prims.size(), clip, grid, rule, h);
      const auto want = hierarchy_reference(tris.prims, clip, grid, rule, h);
      for (uint32_t bin = 0; bin < want.size(); ++bin)
        ASSERT_EQ(std::vector<uint32_t>(h.prims.begin() + h.offsets[bin], h.prims.begin() + h.offsets[bin + 1]), want[bin])
            << "bin " << bin << ", " << tile << " px tiles, " << levels << " levels, max_bins " << max_bins;
    }
}

// The hierarchy's levels hold the large triangle at level 2, and each tile reads the level-2 bin
// covering it: 64 tiles x 1 entry x (4 B + 48 B record) read, 4 x 4 B + 48 B written.
TEST(BinningStrategies, HierarchyLevelsAndTileReads) {
  const TileGrid grid(Rect{0, 0, 128, 128}, 16, 16);
  Triangles large;
  large.add(0, 0, 128, 0, 0, 128);
  BinningRule rule;
  rule.strategy = BinningStrategy::hierarchical;
  EXPECT_EQ(hierarchy_mask(grid, rule), 0xffu);
  TileLists lists;
  const std::vector<Rect> clip = {grid.render_area};
  bin_primitives(large.prims, 0, 1, clip, grid, rule, lists);
  ASSERT_EQ(lists.hierarchy.levels(), 8u);
  for (uint32_t level = 0; level < 8; ++level) EXPECT_EQ(lists.hierarchy.level_entries(level), level == 2 ? 4u : 0u);
  PassSetup setup;
  setup.draw_clip = clip;
  setup.draw_record_bytes = {48};
  std::vector<uint64_t> reads(grid.tile_count(), 0);
  const Traffic t = tile_list_traffic(setup, large.prims, 0, 1, grid, lists, reads);
  EXPECT_EQ(t.write_bytes, 4u * 4 + 48);
  EXPECT_EQ(t.read_bytes, 64u * (4 + 48));
  for (uint64_t r : reads) EXPECT_EQ(r, 52u);
  // panvk's rule: a 1920 px wide grid of 16 px tiles (120 tiles, bit_width 7) with 4 levels enables 3-6.
  rule.levels = 4;
  EXPECT_EQ(hierarchy_mask(TileGrid(Rect{0, 0, 1920, 1080}, 16, 16), rule), 0x78u);
}

// What a tile rasterizes under hierarchical (the primitives of its levels' bins whose bounding box
// touches it, in submission order) is the aabb list, which bin_primitives gives the tiles.
TEST(BinningStrategies, HierarchyBinsFilteredByTheBoxAreTheAabbLists) {
  const Rect area{8, 4, 200, 150};
  const TileGrid grid(area, 16, 16);
  std::mt19937 rng(23);
  Triangles tris;
  for (int i = 0; i < 400; ++i) {
    const int32_t x = int32_t(rng() % 220), y = int32_t(rng() % 170), size = 1 + int32_t(rng() % (i % 5 == 0 ? 160 : 20));
    tris.add(x, y, x + int32_t(rng() % uint32_t(size)), y + size, x - size, y + int32_t(rng() % uint32_t(size)));
  }
  const std::vector<Rect> clip = {area};
  BinningRule rule;
  rule.strategy = BinningStrategy::hierarchical;
  TileLists lists, aabb;
  bin_primitives(tris.prims, 0, tris.prims.size(), clip, grid, rule, lists);
  bin_triangles(tris.prims, clip, grid, aabb);
  const HierarchyLists& h = lists.hierarchy;
  ASSERT_LT(h.entries(), aabb.entries());
  for (uint32_t t = 0; t < grid.tile_count(); ++t) {
    const uint32_t col = t % grid.cols, row = t / grid.cols;
    std::vector<uint32_t> merged;
    for (uint32_t level = 0; level < h.levels(); ++level) {
      const uint32_t bin = h.bin_of(level, col, row);
      for (uint32_t e = h.offsets[bin]; e < h.offsets[bin + 1]; ++e) {
        int32_t c0, r0, c1, r1;
        ASSERT_TRUE(tile_range(tris.prims, h.prims[e], area, grid, c0, r0, c1, r1));
        if (int32_t(col) >= c0 && int32_t(col) <= c1 && int32_t(row) >= r0 && int32_t(row) <= r1) merged.push_back(h.prims[e]);
      }
    }
    std::sort(merged.begin(), merged.end());
    const std::vector<uint32_t> want(aabb.prims.begin() + aabb.offsets[t], aabb.prims.begin() + aabb.offsets[t + 1]);
    ASSERT_EQ(merged, want) << "tile " << t;
    ASSERT_EQ(std::vector<uint32_t>(lists.prims.begin() + lists.offsets[t], lists.prims.begin() + lists.offsets[t + 1]), want);
  }
}

// The default trace and the scissor/viewport trace store the same pixels under every strategy;
// exact and hierarchical write fewer tile-list entries than aabb (the documented difference).
TEST(BinningStrategies, ImagesIdenticalUnderEveryStrategy) {
  for (const char* path : {"default/scene.json", "features/scissor_viewport.json"}) {
    SCOPED_TRACE(path);
    const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces" / path);
    std::map<std::string, StoredImages> stored;
    std::map<std::string, uint64_t> entries;
    for (const char* strategy : {"aabb", "exact", "hierarchical"}) {
      const models::ModelSet models = configured_models("reference", {std::string("binning=") + strategy});
      const RunStats stats = simulate(trace, models, SimOptions{}, &stored[strategy]);
      for (const FrameStats& f : stats.frames)
        for (const PassStats& p : f.passes) entries[strategy] += p.counters.tile_list_entries;
    }
    EXPECT_LT(entries["exact"], entries["aabb"]);
    EXPECT_LT(entries["hierarchical"], entries["aabb"]);
    for (const char* strategy : {"exact", "hierarchical"}) {
      ASSERT_EQ(stored[strategy].images.size(), stored["aabb"].images.size());
      for (const auto& [key, surface] : stored["aabb"].images)
        EXPECT_TRUE(same_pixels(stored[strategy].images.at(key), surface)) << strategy << " " << key;
    }
  }
}

}  // namespace
}  // namespace tbdr
