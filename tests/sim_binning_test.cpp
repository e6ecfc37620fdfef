// Tests of sim/binning on traces built in code: every covered pixel is in a binned tile, edge-only
// tiles are not listed, lists follow the clipped bounding-box rule, any thread count lists the same.
#include "tests/sim_test_common.h"

namespace tbdr {
namespace {

// ---- 3. binning is conservative ---------------------------------------------------------------

// `count` random triangles over `area` into `mesh` (4-component positions): sub-pixel, 20 px and
// 400 px across, and every fourth given in clip space directly (w in [0.2, 2], z/w in [-1, 1.2]:
// near and far clipping).
void add_random_triangles(Mesh& mesh, std::mt19937& rng, const Rect& area, int count) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto to_clip = [&](double px, double py, double z, double w) {
    const double nx = (px - (area.x + area.width / 2.0)) / (area.width / 2.0);
    const double ny = (py - (area.y + area.height / 2.0)) / (area.height / 2.0);
    return Vec4(float(nx * w), float(ny * w), float(z * w), float(w));
  };
  for (int t = 0; t < count; ++t) {
    const int kind = t % 4;
    if (kind == 3) {  // clip space directly: w in [0.2, 2], z/w in [-1, 1.2]: near and far clipping
      for (int v = 0; v < 3; ++v) {
        const double w = uniform(0.2, 2.0);
        mesh.positions.push_back(
            Vec4(float(uniform(-2, 2) * w), float(uniform(-2, 2) * w), float(uniform(-1, 1.2) * w), float(w)));
      }
      continue;
    }
    const double extent = kind == 0 ? 2.0 : kind == 1 ? 20.0 : 400.0;
    const double cx = uniform(area.x - 20.0, area.x + area.width + 20.0);
    const double cy = uniform(area.y - 20.0, area.y + area.height + 20.0);
    // Every other small or medium triangle has its vertices on pixel corners, where the bounds'
    // last pixel is ceil(max) - 1 rather than the pixel the vertex touches (sim/geometry_assembly.h,
    // PrimWriter).
    const bool on_corners = kind < 2 && t % 8 < 4;
    for (int v = 0; v < 3; ++v) {
      double x = cx + uniform(-extent, extent), y = cy + uniform(-extent, extent);
      if (on_corners) x = std::round(x), y = std::round(y);
      mesh.positions.push_back(to_clip(x, y, 0.5, 1.0));
    }
  }
}

using CoveredPixels = std::vector<std::vector<std::pair<int32_t, int32_t>>>;

// The pixels each primitive covers at 1 or 8 samples, rasterized alone from the edge functions:
// raster_triangle scans only the pixels of a primitive's bounds, so a copy whose bounds span the
// whole area is what it rasterizes, and bounds that left out a covered pixel fail the test.
CoveredPixels covered_pixels_of(const ScreenPrims& prims, const Rect& area, const std::vector<Rect>& draw_clip,
                                const std::vector<Draw>& draws, PassCounters& counters) {
  ScreenPrims unbounded = prims;
  for (size_t p = 0; p < prims.size(); ++p) {
    unbounded.min_x[p] = area.x, unbounded.max_x[p] = area.x + int32_t(area.width) - 1;
    unbounded.min_y[p] = area.y, unbounded.max_y[p] = area.y + int32_t(area.height) - 1;
  }
  const CompiledProgram program;  // flat white: writes 1.0 into R32F
  CoveredPixels covered(prims.size());
  for (uint32_t samples : {1u, 8u}) {
    std::vector<Vec4> buffer(size_t(area.width) * area.height * samples, Vec4::Zero());
    TargetSet targets;
    targets.area = area;
    targets.samples = samples;
    targets.color_count = 1;
    targets.color[0] = buffer.data();
    targets.color_format[0] = Format::R32F;
    for (size_t p = 0; p < prims.size(); ++p) {
      raster_triangle(unbounded, p, draw_clip[prims.draw[p]], draws[prims.draw[p]], program, targets, counters);
      for (int32_t y = area.y; y < area.y + int32_t(area.height); ++y)
        for (int32_t x = area.x; x < area.x + int32_t(area.width); ++x) {
          bool hit = false;
          for (uint32_t s = 0; s < samples; ++s) {
            Vec4& v = buffer[targets.index(x, y, s)];
            hit = hit || v[0] != 0.0f;
            v = Vec4::Zero();
          }
          if (hit) covered[p].emplace_back(x, y);
        }
    }
  }
  return covered;
}

// Random triangles (sub-pixel to much larger than the target, partly off-screen, some crossing
// the near plane) in draws with and without scissors, over a render area that is not at the
// origin. Each primitive is rasterized alone (1 and 8 samples: the 8x pattern has samples 1/16 px
// from the pixel border) and every covered pixel must lie in a tile whose list holds it (under
// bin_triangles and binning=exact's bin_exact) and within the primitive's pixel bounds.
TEST(SimBinning, EveryCoveredPixelIsInABinnedTile) {
  const Rect area{5, 3, 91, 61};
  std::mt19937 rng(777);
  Trace trace;
  Mesh mesh;
  mesh.position_components = 4;
  const int kDraws = 8, kTrianglesPerDraw = 60;
  const Viewport viewport{float(area.x), float(area.y), float(area.width), float(area.height), 0, 1};
  add_random_triangles(mesh, rng, area, kDraws * kTrianglesPerDraw);
  const int32_t m = add_mesh(trace, std::move(mesh));
  std::vector<Draw> draws(kDraws);
  std::vector<PassDraw> pass_draws(kDraws);
  std::vector<Rect> draw_clip(kDraws);
  for (int d = 0; d < kDraws; ++d) {
    draws[d] = clip_draw(m);
    draws[d].first_index = uint32_t(d * kTrianglesPerDraw * 3);
    draws[d].index_count = uint32_t(kTrianglesPerDraw * 3);
    pass_draws[d].draw = &draws[d];
    pass_draws[d].index_in_subpass = uint32_t(d);
    pass_draws[d].viewport = viewport;
    // Half the draws have a scissor (already inside the render area, as the pipeline passes it).
    draw_clip[d] = area;
    if (d % 2) {
      const int32_t x0 = area.x + int32_t(rng() % 40), y0 = area.y + int32_t(rng() % 30);
      draw_clip[d] = Rect{x0, y0, 1 + uint32_t(rng() % uint32_t(area.x + area.width - x0)),
                          1 + uint32_t(rng() % uint32_t(area.y + area.height - y0))};
    }
    pass_draws[d].scissor = draw_clip[d];
  }
  ScreenPrims prims;
  PassCounters counters;
  Traffic vertex_traffic;
  transform_draws(trace, pass_draws, 0, pass_draws.size(), prims, counters, vertex_traffic);
  ASSERT_GT(prims.size(), 400u);

  const CoveredPixels covered = covered_pixels_of(prims, area, draw_clip, draws, counters);
  uint64_t covered_pixels = 0;
  for (const auto& c : covered) covered_pixels += c.size();
  ASSERT_GT(covered_pixels, 100000u);

  for (const char* size : {"8x8", "16x16", "24x40", "7x5"}) {
    SCOPED_TRACE(size);
    const uint32_t tw = uint32_t(std::stoul(size)), th = uint32_t(std::stoul(std::strchr(size, 'x') + 1));
    const TileGrid grid(area, tw, th);
    // binning=exact's lists too: a tile it leaves out must hold no covered sample of the primitive.
    for (const bool exact : {false, true}) {
    SCOPED_TRACE(exact ? "exact" : "aabb");
    TileLists lists;
    if (exact)
      bin_exact(prims, 0, prims.size(), draw_clip, grid, lists);
    else
      bin_triangles(prims, draw_clip, grid, lists);
    ASSERT_EQ(lists.offsets.size(), size_t(grid.tile_count()) + 1);
    std::vector<uint8_t> listed(prims.size() * grid.tile_count(), 0);
    for (uint32_t t = 0; t < grid.tile_count(); ++t)
      for (uint32_t k = lists.offsets[t]; k < lists.offsets[t + 1]; ++k) {
        // Lists are in submission order, each primitive at most once.
        if (k > lists.offsets[t]) {
          ASSERT_LT(lists.prims[k - 1], lists.prims[k]);
        }
        listed[size_t(lists.prims[k]) * grid.tile_count() + t] = 1;
      }
    // Tile of a pixel, from the grid's definition (aligned to the framebuffer origin; every x, y
    // here is >= 0), not from the binner's own arithmetic.
    const uint32_t first_col = uint32_t(area.x) / tw, first_row = uint32_t(area.y) / th;
    for (size_t p = 0; p < prims.size(); ++p)
      for (const auto& [x, y] : covered[p]) {
        ASSERT_TRUE(x >= prims.min_x[p] && x <= prims.max_x[p] && y >= prims.min_y[p] && y <= prims.max_y[p])
            << "primitive " << p << " covers pixel " << x << "," << y << " outside its bounds";
        const uint32_t t = (uint32_t(y) / th - first_row) * grid.cols + (uint32_t(x) / tw - first_col);
        ASSERT_LT(t, grid.tile_count());
        const Rect r = grid.tile_rect(t);
        ASSERT_TRUE(x >= r.x && x < r.x + int32_t(r.width) && y >= r.y && y < r.y + int32_t(r.height))
            << "tile_rect(" << t << ") does not hold pixel " << x << "," << y;
        ASSERT_TRUE(listed[p * grid.tile_count() + t])
            << "primitive " << p << " covers pixel " << x << "," << y << " but tile " << t << " does not list it";
      }
    }
  }
}

// sim/geometry_assembly.h's pixel bounds (PrimWriter): columns floor(min x) .. ceil(max x) - 1 of the fixed-point
// vertices, rows likewise. A triangle on the 32x32 tile grid's lines is listed in its own tile
// only (not in the right and lower tiles it touches along an edge); one reaching 1/256 px past a
// line is listed beyond it too; a sliver one pixel row high stays in its row.
TEST(SimBinning, ATileTouchedOnlyAlongAnEdgeIsNotListed) {
  const Rect area{0, 0, 96, 96};
  const TileGrid grid(area, 32, 32);
  const std::vector<Rect> draw_clip = {area};
  ScreenPrims prims;
  auto add = [&](int32_t x0, int32_t y0, int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    const uint32_t v[3] = {prims.add_vertex(ScreenVertex{x0, y0, 0.5f, 1.0f}, nullptr),
                           prims.add_vertex(ScreenVertex{x1, y1, 0.5f, 1.0f}, nullptr),
                           prims.add_vertex(ScreenVertex{x2, y2, 0.5f, 1.0f}, nullptr)};
    prims.add_triangle(v, 0, true);
  };
  constexpr int32_t kOne = kSubpixelOne, kLine = 32 * kSubpixelOne;
  prims.varying_stride = 0;
  add(0, 0, kLine, 0, 0, kLine);                          // tile 0, touching tiles 1 and 3 along edges
  add(kLine, kLine, 2 * kLine, kLine, kLine, 2 * kLine);  // tile 4 only
  add(0, 0, kLine + 1, 0, 0, kLine);                      // 1/256 px past x = 32: tiles 0 and 1
  add(10 * kOne, 10 * kOne, 20 * kOne, 10 * kOne, 10 * kOne, 10 * kOne + 1);  // sliver: tile 0
  ASSERT_EQ(prims.size(), 4u);
  EXPECT_EQ(prims.max_x[0], 31);
  EXPECT_EQ(prims.max_y[0], 31);
  EXPECT_EQ(prims.min_x[1], 32);
  EXPECT_EQ(prims.max_x[1], 63);
  EXPECT_EQ(prims.max_x[2], 32);
  EXPECT_EQ(prims.max_y[3], 10);
  TileLists lists;
  bin_triangles(prims, draw_clip, grid, lists);
  auto listed = [&](uint32_t t) {
    return std::vector<uint32_t>(lists.prims.begin() + lists.offsets[t], lists.prims.begin() + lists.offsets[t + 1]);
  };
  EXPECT_EQ(listed(0), (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(listed(1), (std::vector<uint32_t>{2}));
  EXPECT_EQ(listed(3), (std::vector<uint32_t>{}));
  EXPECT_EQ(listed(4), (std::vector<uint32_t>{1}));
  EXPECT_EQ(lists.entries(), 5u);
}

// A grid of "WxH" tiles over `area`.
TileGrid grid_of(const Rect& area, const char* size) {
  return TileGrid(area, uint32_t(std::stoul(size)), uint32_t(std::stoul(std::strchr(size, 'x') + 1)));
}

// Appends a primitive with only what binning reads: its pixel bounds and its draw.
void append_bounds(ScreenPrims& prims, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint32_t draw) {
  prims.min_x.push_back(x0);
  prims.min_y.push_back(y0);
  prims.max_x.push_back(x1);
  prims.max_y.push_back(y1);
  prims.draw.push_back(draw);
}

// The binner's lists equal the rule written plainly (models/README.md "Sources: the two-phase
// machine"): tile t lists primitive
// p, in submission order, iff p's pixel bounds clipped to its draw's rectangle meet t. Bounds are
// random (1 px to several hundred px, many on the last row and column, some off screen, some
// empty after the scissor), over several draws with scissors, for power-of-two and other tile
// sizes, on a render area away from the origin; whatever the binner's fast paths do.
TEST(SimBinning, ListsEqualTheClippedBoundingBoxRule) {
  const Rect area{40, 24, 500, 300};
  const std::vector<Rect> draw_clip = {area, Rect{40, 24, 500, 300}, Rect{100, 60, 250, 200}, Rect{523, 300, 17, 24}};
  // Small primitives up to 20 px across (many over two tiles: the branch-free fill) or up to 2
  // px (few: the fill that branches on "one tile"), every tenth (hundredth) up to 400 px; and
  // (small 0) a mesh's order: 4 px cells walked row by row in 32x32 blocks, so runs of primitives
  // start in the same tile (the fill's register-held cursors) and hand over to the neighbours,
  // with a large primitive every 50th and an off-screen one every 97th in between.
  for (const int32_t small : {20, 2, 0}) {
    SCOPED_TRACE(small);
    std::mt19937 rng(7);
    ScreenPrims prims;
    if (small == 0) {
      std::uniform_int_distribution<int32_t> extent(0, 5);
      int p = 0;
      for (int32_t by = 0; by < 340; by += 32)
        for (int32_t bx = 0; bx < 560; bx += 32)
          for (int32_t cell = 0; cell < 64; ++cell, ++p) {
            int32_t x0 = bx + cell % 8 * 4, y0 = by + cell / 8 * 4, width = extent(rng), height = extent(rng);
            if (p % 50 == 0) width = 100, height = 60;
            if (p % 97 == 0) x0 = -30, y0 = -50;
            append_bounds(prims, x0, y0, x0 + width, y0 + height, uint32_t((p / 1000) % draw_clip.size()));
          }
    }
    for (int p = 0; p < (small == 0 ? 0 : 20000); ++p) {
      std::uniform_int_distribution<int32_t> size(0, p % (small > 2 ? 10 : 100) == 0 ? 400 : small), x(0, 560),
          y(0, 340);
      int32_t x0 = x(rng), y0 = y(rng);
      if (p % 7 == 0) x0 = 539 - size(rng) % 8, y0 = 323 - size(rng) % 8;  // the last tiles
      if (p % 97 == 0) x0 = -30, y0 = -50;                                 // off screen
      const int32_t width = size(rng), height = size(rng);
      append_bounds(prims, x0, y0, x0 + width, y0 + height, uint32_t((p / 1000) % draw_clip.size()));
    }
    for (const char* size : {"16x16", "32x32", "8x16", "24x40", "7x5"}) {
      SCOPED_TRACE(size);
      const TileGrid grid = grid_of(area, size);
      std::vector<std::vector<uint32_t>> expected(grid.tile_count());
      for (uint32_t p = 0; p < prims.size(); ++p) {
        const Rect& c = draw_clip[prims.draw[p]];
        const int32_t x0 = std::max(prims.min_x[p], c.x), x1 = std::min(prims.max_x[p], c.x + int32_t(c.width) - 1);
        const int32_t y0 = std::max(prims.min_y[p], c.y), y1 = std::min(prims.max_y[p], c.y + int32_t(c.height) - 1);
        for (uint32_t t = 0; t < grid.tile_count(); ++t) {
          const Rect r = grid.tile_rect(t);
          if (x0 <= x1 && y0 <= y1 && x0 < r.x + int32_t(r.width) && x1 >= r.x && y0 < r.y + int32_t(r.height) &&
              y1 >= r.y)
            expected[t].push_back(p);
        }
      }
      TileLists lists;
      for (int again = 0; again < 2; ++again) {  // a second binning reuses the lists' memory
        bin_triangles(prims, draw_clip, grid, lists);
        ASSERT_EQ(lists.offsets.size(), size_t(grid.tile_count()) + 1);
        for (uint32_t t = 0; t < grid.tile_count(); ++t) {
          const std::vector<uint32_t> got(lists.prims.begin() + lists.offsets[t],
                                          lists.prims.begin() + lists.offsets[t + 1]);
          ASSERT_EQ(got, expected[t]) << "tile " << t;
        }
        ASSERT_EQ(lists.entries(), lists.offsets.back());
      }
    }
  }
}

// Binning on several threads (contiguous blocks of primitives, each with its own counts and
// cursors) lists exactly what one thread lists, in the same order: 300,000 primitives, enough
// per tile for three blocks, over scissored draws, power-of-two and other tile sizes.
TEST(SimBinning, ThreadsListTheSame) {
  const Rect area{40, 24, 500, 300};
  const std::vector<Rect> draw_clip = {area, Rect{100, 60, 250, 200}};
  std::mt19937 rng(11);
  ScreenPrims prims;
  for (int p = 0; p < 300000; ++p) {
    std::uniform_int_distribution<int32_t> size(0, p % 50 == 0 ? 200 : 12), x(20, 560), y(10, 340);
    const int32_t x0 = x(rng), y0 = y(rng);
    const int32_t width = size(rng), height = size(rng);
    append_bounds(prims, x0, y0, x0 + width, y0 + height, uint32_t((p / 5000) % 2));
  }
  for (const char* size : {"16x16", "32x32", "7x5"}) {
    SCOPED_TRACE(size);
    const TileGrid grid = grid_of(area, size);
    TileLists one, three;
    bin_triangles(prims, draw_clip, grid, one, 1);
    bin_triangles(prims, draw_clip, grid, three, 3);
    ASSERT_GT(one.entries(), prims.size() / 2);
    EXPECT_EQ(three.offsets, one.offsets);
    EXPECT_TRUE(three.prims == one.prims);
  }
}

}  // namespace
}  // namespace tbdr
