// binning=exact's triangle-tile overlap test (models/README.md "Sources: binning strategies"), shared by
// the packed binner (sim/binning.cpp) and the strategies' entry counts (sim/binning_strategies.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/binning.h"

namespace tbdr {

// Primitive p's edges as a[k] x + b[k] y + c[k] (fixed point), >= 0 on the triangle's side
// whatever its winding; false for a degenerate (zero-area) triangle.
struct Edges {
  int64_t a[3], b[3], c[3];
};
inline bool edges_of(const ScreenPrims& prims, size_t p, Edges& e) {
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

// Edge k's value at the corner of tile (c0, r0) farthest on the triangle's side (row_value), and how
// it changes a tile to the right (step) and a tile down (row_step): fixed point, products below 2^50.
inline void edge_steps(const Edges& e, const TileGrid& grid, int32_t c0, int32_t r0, int64_t row_value[3],
                       int64_t step[3], int64_t row_step[3]) {
  const int64_t tile_w = int64_t(grid.tile_width) << kSubpixelBits, tile_h = int64_t(grid.tile_height) << kSubpixelBits;
  const int64_t x0 = (int64_t(c0) + grid.first_col) * tile_w;
  for (int k = 0; k < 3; ++k) {
    row_value[k] = e.a[k] * x0 + e.b[k] * ((int64_t(r0) + grid.first_row) * tile_h) + e.c[k] +
                   std::max<int64_t>(e.a[k], 0) * tile_w + std::max<int64_t>(e.b[k], 0) * tile_h;
    step[k] = e.a[k] * tile_w;
    row_step[k] = e.b[k] * tile_h;
  }
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
  int64_t row_value[3], step[3], row_step[3];
  edge_steps(e, grid, c0, r0, row_value, step, row_step);
  for (int32_t r = r0; r <= r1; ++r) {
    int64_t v0 = row_value[0], v1 = row_value[1], v2 = row_value[2];
    int32_t first = -1, c = c0;
    for (; c <= c1; ++c, v0 += step[0], v1 += step[1], v2 += step[2]) {
      const bool inside = v0 > 0 && v1 > 0 && v2 > 0;
      if (inside && first < 0) first = c;
      if (!inside && first >= 0) break;
    }
    if (first >= 0) row_span(r, first, c - 1);
    for (int k = 0; k < 3; ++k) row_value[k] += row_step[k];
  }
}

// The tiles of box [c0, c0 + width) x [r0, r0 + height) (at most 32) that primitive p overlaps under
// exact_rows' rule, as bits (row-major, bit (r - r0) * width + c - c0): the same test for every
// tile without a branch (a row's overlap ends where it ends, which mispredicts on large triangles).
// A degenerate triangle's box is exact: all bits.
inline uint32_t exact_box_bits(const ScreenPrims& prims, size_t p, const TileGrid& grid, int32_t c0, int32_t r0,
                               uint32_t width, uint32_t height) {
  const uint32_t tiles = width * height;
  const uint32_t all = tiles == 32 ? ~0u : (1u << tiles) - 1;
  Edges e;
  if (!edges_of(prims, p, e)) return all;
  int64_t row_value[3], step[3], row_step[3];
  edge_steps(e, grid, c0, r0, row_value, step, row_step);
  uint32_t bits = 0, bit = 0;
  for (uint32_t r = 0; r < height; ++r) {
    int64_t v0 = row_value[0], v1 = row_value[1], v2 = row_value[2];
    for (uint32_t c = 0; c < width; ++c, ++bit, v0 += step[0], v1 += step[1], v2 += step[2])
      bits |= uint32_t((v0 > 0) & (v1 > 0) & (v2 > 0)) << bit;
    for (int k = 0; k < 3; ++k) row_value[k] += row_step[k];
  }
  return bits;
}

// exact_box_bits of a box of W x H tiles, in straight-line code (the loops unrolled: a box's
// bounds known at compile time, no branch on them).
template <uint32_t W, uint32_t H>
inline uint32_t exact_fixed_box_bits(const ScreenPrims& prims, size_t p, const TileGrid& grid, int32_t c0, int32_t r0) {
  constexpr uint32_t kAll = (1u << (W * H)) - 1;
  Edges e;
  if (!edges_of(prims, p, e)) return kAll;
  int64_t row_value[3], step[3], row_step[3];
  edge_steps(e, grid, c0, r0, row_value, step, row_step);
  uint32_t bits = kAll;
  for (int k = 0; k < 3; ++k) {
    uint32_t inside = 0;
    for (uint32_t r = 0; r < H; ++r)
      for (uint32_t c = 0; c < W; ++c)
        inside |= uint32_t(row_value[k] + int64_t(r) * row_step[k] + int64_t(c) * step[k] > 0) << (r * W + c);
    bits &= inside;
  }
  return bits;
}

// exact_box_bits of a box of width x height tiles (at most 32): boxes of up to 3 x 3 (a triangle
// about a tile's size, as most of the ones binning=exact trims) through exact_fixed_box_bits.
inline uint32_t exact_small_box_bits(const ScreenPrims& prims, size_t p, const TileGrid& grid, int32_t c0, int32_t r0,
                                     uint32_t width, uint32_t height) {
  switch (width << 4 | height) {
    case 0x22: return exact_fixed_box_bits<2, 2>(prims, p, grid, c0, r0);
    case 0x23: return exact_fixed_box_bits<2, 3>(prims, p, grid, c0, r0);
    case 0x32: return exact_fixed_box_bits<3, 2>(prims, p, grid, c0, r0);
    case 0x33: return exact_fixed_box_bits<3, 3>(prims, p, grid, c0, r0);
    default: return exact_box_bits(prims, p, grid, c0, r0, width, height);
  }
}

}  // namespace tbdr
