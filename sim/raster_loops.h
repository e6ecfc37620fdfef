// The rasterizer's loops over triangles larger than tiny (raster_detail, included by sim/raster.cpp
// only): raster_simple (one sample, early tests: rows of four pixels in SSE2 doubles) and
// raster_general (any sample count, stencil, late tests, direct rendering through the framebuffer cache).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX__)
#include <immintrin.h>
#endif

#include "sim/raster.h"
#include "sim/raster_depth.h"
#include "sim/raster_setup.h"
#include "sim/raster_shading.h"

namespace tbdr::raster_detail {

// floor(a / b) for b > 0.
inline int64_t floor_division(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The pixels of a row that the triangle covers, as offsets from the row's first pixel of the box:
// `e_row` the edge values there less the bias (raster_simple's), `last` the box's last offset.
// Edge k covers offset d where e_row[k] + d * step_x[k] >= -bias[k]; each edge bounds d on one
// side (exactly, in integers) or, parallel to the row, covers all of it or nothing. False when no
// pixel of the row is covered. raster_simple's groups outside the span cover nothing, so it skips
// them: the groups it keeps are computed with the same exact values as when it walked them all.
inline bool covered_span(const int64_t* e_row, const TriangleEdges& t, int64_t last, int64_t& first_covered,
                         int64_t& last_covered) {
  first_covered = 0;
  last_covered = last;
  for (int k = 0; k < 3; ++k) {
    const int64_t room = e_row[k] + t.bias[k];  // e + d * step_x >= -bias: d * step_x >= -room
    const int64_t step = t.step_x[k];
    if (step > 0) first_covered = std::max(first_covered, -floor_division(room, step));
    else if (step < 0) last_covered = std::min(last_covered, floor_division(room, -step));
    else if (room < 0) return false;
  }
  return first_covered <= last_covered;
}

// raster_triangle's common case: one sample (at the pixel centre, so the coverage edges are the
// shading edges), early depth tests, no stencil, tile memory (no framebuffer cache). The same
// operations in the same order as the general loop, kept apart so that a tiny triangle pays only
// for what it uses: its edges and coverage first, then the depth of its covered pixels, and the
// shading setup only once a fragment passes the depth test.
template <class Tracker>
static void raster_simple(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                          const Draw& draw, const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                          Tracker tracker, const DrawFacts& facts) {
  TriangleEdges t;
  if (!setup_edges(prims, prim, t)) return;
  // Edge values at the centre of pixel (x0, y0), the bias added: a pixel is covered where all
  // three are >= 0.
  const int64_t cx = (int64_t(x0) << kSubpixelBits) + kSubpixelOne / 2;
  const int64_t cy = (int64_t(y0) << kSubpixelBits) + kSubpixelOne / 2;
  const int64_t r0 = t.at(0, cx, cy) + t.bias[0], r1 = t.at(1, cx, cy) + t.bias[1], r2 = t.at(2, cx, cy) + t.bias[2];

  const bool has_depth = targets.depth != nullptr;
  const Format depth_format = targets.depth_format;
#if defined(__SSE2__)
  // Rows four pixels at a time in SSE2 (below) for all but tiny triangles; their depth test is
  // vectorized for the float formats only.
  const bool sse_rows = !has_depth || (depth_format != Format::D16 && depth_format != Format::D24S8);
#else
  const bool sse_rows = false;
#endif
  // Tiny triangles: the coverage of their box first, as a bit mask (bit (dy << mask_shift) + dx)
  // without a branch per pixel (tiny triangles cover about half their box, so such branches
  // mispredict); a triangle covering no pixel centre (many tiny ones) stops there.
  bool by_mask = false;
  uint64_t mask = 0;
  int mask_shift = 3;
#if defined(__SSE2__)
  // Up to 4x4 pixels whose edge values all fit in int32 (every tiny triangle's): the 4x4 box
  // at (x0, y0) four pixels at a time, with no loop exits to mispredict; the sign bits of
  // e0 | e1 | e2 are the uncovered pixels.
  const auto fits = [](int64_t r, int64_t sx, int64_t sy) {
    return std::abs(r) + 3 * std::abs(sx) + 3 * std::abs(sy) < (int64_t(1) << 31);
  };
  const auto fits7 = [](int64_t r, int64_t sx, int64_t sy) {
    return std::abs(r) + 7 * std::abs(sx) + 7 * std::abs(sy) < (int64_t(1) << 31);
  };
  if (x1 - x0 < 4 && y1 - y0 < 4 && fits(r0, t.step_x[0], t.step_y[0]) && fits(r1, t.step_x[1], t.step_y[1]) &&
      fits(r2, t.step_x[2], t.step_y[2])) {
    auto row_of = [](int64_t r, int64_t sx) {
      return _mm_setr_epi32(int32_t(r), int32_t(r + sx), int32_t(r + 2 * sx), int32_t(r + 3 * sx));
    };
    __m128i e0 = row_of(r0, t.step_x[0]), e1 = row_of(r1, t.step_x[1]), e2 = row_of(r2, t.step_x[2]);
    const __m128i sy0 = _mm_set1_epi32(int32_t(t.step_y[0])), sy1 = _mm_set1_epi32(int32_t(t.step_y[1])),
                  sy2 = _mm_set1_epi32(int32_t(t.step_y[2]));
    uint32_t outside = 0;
    for (int dy = 0; dy < 4; ++dy) {
      const __m128i any = _mm_or_si128(_mm_or_si128(e0, e1), e2);
      outside |= uint32_t(_mm_movemask_ps(_mm_castsi128_ps(any))) << (4 * dy);
      e0 = _mm_add_epi32(e0, sy0);
      e1 = _mm_add_epi32(e1, sy1);
      e2 = _mm_add_epi32(e2, sy2);
    }
    const uint32_t row_bits = (1u << (x1 - x0 + 1)) - 1;
    const uint32_t box = row_bits * (0x1111u & ((1u << (4 * (y1 - y0 + 1))) - 1));
    mask = ~outside & box;
    mask_shift = 2;
    by_mask = true;
  } else if (x1 - x0 < 8 && y1 - y0 < 8 && fits7(r0, t.step_x[0], t.step_y[0]) && fits7(r1, t.step_x[1], t.step_y[1]) &&
             fits7(r2, t.step_x[2], t.step_y[2])) {
    // Up to 8x8: two vectors per row, the box's rows only.
    auto row_of = [](int64_t r, int64_t sx) {
      return _mm_setr_epi32(int32_t(r), int32_t(r + sx), int32_t(r + 2 * sx), int32_t(r + 3 * sx));
    };
    __m128i e0 = row_of(r0, t.step_x[0]), e1 = row_of(r1, t.step_x[1]), e2 = row_of(r2, t.step_x[2]);
    __m128i f0 = _mm_add_epi32(e0, _mm_set1_epi32(int32_t(4 * t.step_x[0]))),
            f1 = _mm_add_epi32(e1, _mm_set1_epi32(int32_t(4 * t.step_x[1]))),
            f2 = _mm_add_epi32(e2, _mm_set1_epi32(int32_t(4 * t.step_x[2])));
    const __m128i sy0 = _mm_set1_epi32(int32_t(t.step_y[0])), sy1 = _mm_set1_epi32(int32_t(t.step_y[1])),
                  sy2 = _mm_set1_epi32(int32_t(t.step_y[2]));
    uint64_t outside = 0;
    for (int dy = 0; dy <= y1 - y0; ++dy) {
      const __m128i any_lo = _mm_or_si128(_mm_or_si128(e0, e1), e2), any_hi = _mm_or_si128(_mm_or_si128(f0, f1), f2);
      outside |= uint64_t(uint32_t(_mm_movemask_ps(_mm_castsi128_ps(any_lo))) |
                          uint32_t(_mm_movemask_ps(_mm_castsi128_ps(any_hi))) << 4)
                 << (8 * dy);
      e0 = _mm_add_epi32(e0, sy0);
      e1 = _mm_add_epi32(e1, sy1);
      e2 = _mm_add_epi32(e2, sy2);
      f0 = _mm_add_epi32(f0, sy0);
      f1 = _mm_add_epi32(f1, sy1);
      f2 = _mm_add_epi32(f2, sy2);
    }
    const uint64_t row_bits = (uint64_t(1) << (x1 - x0 + 1)) - 1;
    const uint64_t box = row_bits * (0x0101010101010101ull >> (8 * (7 - (y1 - y0))));
    mask = ~outside & box;
    by_mask = true;
  }
#endif
  if (!by_mask && !sse_rows && x1 - x0 < 8 && y1 - y0 < 8) {
    int64_t e_row0 = r0, e_row1 = r1, e_row2 = r2;
    for (int32_t dy = 0; dy <= y1 - y0; ++dy, e_row0 += t.step_y[0], e_row1 += t.step_y[1], e_row2 += t.step_y[2]) {
      int64_t e0 = e_row0, e1 = e_row1, e2 = e_row2;
      for (int32_t dx = 0; dx <= x1 - x0; ++dx, e0 += t.step_x[0], e1 += t.step_x[1], e2 += t.step_x[2])
        mask |= uint64_t((e0 | e1 | e2) >= 0) << (8 * dy + dx);
    }
    by_mask = true;
  }
  if (by_mask) {
    if (!mask) return;
  } else {
    // Whole-rectangle reject: an edge whose largest value over the pixel rectangle (at its
    // corner points, a superset of every sample position) still fails covers nothing.
    const int64_t rx0 = int64_t(x0) << kSubpixelBits, ry0 = int64_t(y0) << kSubpixelBits;
    const int64_t rx1 = int64_t(x1 + 1) << kSubpixelBits, ry1 = int64_t(y1 + 1) << kSubpixelBits;
    for (int k = 0; k < 3; ++k) {
      const int64_t px = t.step_x[k] > 0 ? rx1 : rx0, py = t.step_y[k] > 0 ? ry1 : ry0;
      if (t.at(k, px, py) + t.bias[k] < 0) return;
    }
  }

  const PipelineState& state = draw.state;
  const double inv_area = 1.0 / double(t.area);
  const float z1 = prims.vertex_of(1, prim).z, z2 = prims.vertex_of(2, prim).z;
  const float z[3] = {prims.vertex_of(0, prim).z, t.flip ? z2 : z1, t.flip ? z1 : z2};
  const bool depth_test = has_depth && state.depth_test;
  const bool depth_write = depth_test && state.depth_write;
  const CompareOp depth_op = state.depth_compare;
  // In locals: the compiler cannot keep them in registers across the color stores otherwise.
  const int32_t area_x = targets.area.x, area_y = targets.area.y;
  const size_t area_width = targets.area.width;
  float* const depth_buffer = targets.depth;
  uint64_t fragments = 0;  // added to `counters` at the end
  SimpleShading<Tracker> shading(prims, prim, t.flip, inv_area, draw, program, targets, tracker, facts);

  // One covered pixel, `e0..e2` its edge values (at its centre, the only sample).
  auto fragment = [&](int32_t x, int32_t y, int64_t e0, int64_t e1, int64_t e2) __attribute__((always_inline)) {
    ++fragments;
    if (tracker) tracker.rasterized(uint32_t(prim), prims.draw[prim], x, y);
    const double l[3] = {double(e0) * inv_area, double(e1) * inv_area, double(e2) * inv_area};
    const size_t i = size_t(y - area_y) * area_width + size_t(x - area_x);
    if (has_depth) {
      const float depth = depth_value(depth_format, float(l[0] * z[0] + l[1] * z[1] + l[2] * z[2]));
      if (depth_test && !compare<float>(depth_op, depth, depth_buffer[i])) return;
      if (depth_write) depth_buffer[i] = depth;
    }
    shading.shade(x, y, i, e0, e1, e2, l[0], l[1], l[2]);
  };

  if (by_mask) {
    // The covered pixels of the mask in row-major order, with their edge values computed exactly
    // (the products the stepping adds up).
    const int64_t b0 = t.bias[0], b1 = t.bias[1], b2 = t.bias[2];
    for (; mask; mask &= mask - 1) {
      const int bit = __builtin_ctzll(mask);
      const int64_t dx = bit & ((1 << mask_shift) - 1), dy = bit >> mask_shift;
      fragment(x0 + int32_t(dx), y0 + int32_t(dy), r0 - b0 + dx * t.step_x[0] + dy * t.step_y[0],
               r1 - b1 + dx * t.step_x[1] + dy * t.step_y[1], r2 - b2 + dx * t.step_x[2] + dy * t.step_y[2]);
    }
    counters.fragments += fragments;
    counters.samples_passed += shading.samples_passed;
    return;
  }
#if defined(__SSE2__)
  // Other triangles: four pixels of a row at a time in SSE2 doubles (baseline x86-64). Edge
  // values stay below 2^47 (geometry.h), so they and their sums are exact in double: the coverage
  // compares and barycentrics are those of the int64 values, and the depths are computed, clamped
  // and tested with the same IEEE operations per lane as fragment() does per pixel. Depth writes
  // and everything after them stay per pixel, in row-major order.
  if (sse_rows) {
    const __m128d inv_area2 = _mm_set1_pd(inv_area);
    const __m128d z0 = _mm_set1_pd(z[0]), z1v = _mm_set1_pd(z[1]), z2v = _mm_set1_pd(z[2]);
    const __m128 zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f);
    __m128d threshold[3], group_step[3], lane_lo[3], lane_hi[3];
    int64_t e_row[3];
    for (int k = 0; k < 3; ++k) {
      // Covered: e + bias >= 0, that is e >= -bias (integers).
      threshold[k] = _mm_set1_pd(double(-t.bias[k]));
      group_step[k] = _mm_set1_pd(double(4 * t.step_x[k]));
      lane_lo[k] = _mm_setr_pd(0.0, double(t.step_x[k]));
      lane_hi[k] = _mm_setr_pd(double(2 * t.step_x[k]), double(3 * t.step_x[k]));
    }
    e_row[0] = r0 - t.bias[0];
    e_row[1] = r1 - t.bias[1];
    e_row[2] = r2 - t.bias[2];
    // The tracker's tile and the primitive's draw in locals: through the tracker, each store it
    // makes reloads them (TileWorkTracker::pixel_index); a row's pixel and quad indices once a row.
    const Rect tile = tracker ? tracker.rect() : Rect{};
    const uint32_t quad_columns = tracker ? tracker.quad_columns() : 0;
    const uint32_t draw_index = prims.draw[prim];
    for (int32_t y = y0; y <= y1; ++y) {
      const uint32_t tile_row = uint32_t(y - tile.y);
      const uint32_t row_pixel = tile_row * tile.width, row_quad = (tile_row >> 1) * quad_columns;
      __m128d lo[3], hi[3];  // edge values of the group's pixels 0, 1 and 2, 3
      int64_t e_group[3];    // edge values of its pixel 0
      // The groups of four from the one holding the row's first covered pixel to the one holding
      // its last; their edge values exact integers in double, as the walk from x0 adds them up.
      int64_t first_covered, last_covered;
      const bool any = covered_span(e_row, t, x1 - x0, first_covered, last_covered);
      const int64_t skipped = any ? first_covered & ~int64_t(3) : 0;
      const int32_t row_x0 = x0 + int32_t(skipped), row_x1 = any ? x0 + int32_t(last_covered) : x0 - 1;
      for (int k = 0; k < 3; ++k) {
        const __m128d e = _mm_set1_pd(double(e_row[k] + skipped * t.step_x[k]));
        lo[k] = _mm_add_pd(e, lane_lo[k]);
        hi[k] = _mm_add_pd(e, lane_hi[k]);
        e_group[k] = e_row[k] + skipped * t.step_x[k];
        e_row[k] += t.step_y[k];
      }
      // Index of (0, y) in the depth buffer; an index, not a pointer: there may be no depth buffer,
      // and the row's pixel 0 may lie left of the tile (pointer arithmetic outside it is undefined).
      const ptrdiff_t depth_row = ptrdiff_t(y - area_y) * ptrdiff_t(area_width) - area_x;
      for (int32_t x = row_x0; x <= row_x1; x += 4) {
        const __m128d in_lo = _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(lo[0], threshold[0]), _mm_cmpge_pd(lo[1], threshold[1])),
                                         _mm_cmpge_pd(lo[2], threshold[2]));
        const __m128d in_hi = _mm_and_pd(_mm_and_pd(_mm_cmpge_pd(hi[0], threshold[0]), _mm_cmpge_pd(hi[1], threshold[1])),
                                         _mm_cmpge_pd(hi[2], threshold[2]));
        uint32_t covered = uint32_t(_mm_movemask_pd(in_lo)) | uint32_t(_mm_movemask_pd(in_hi)) << 2;
        if (x1 - x < 3) covered &= (1u << (x1 - x + 1)) - 1;
        if (covered) {
          const __m128d l0_lo = _mm_mul_pd(lo[0], inv_area2), l1_lo = _mm_mul_pd(lo[1], inv_area2),
                        l2_lo = _mm_mul_pd(lo[2], inv_area2);
          const __m128d l0_hi = _mm_mul_pd(hi[0], inv_area2), l1_hi = _mm_mul_pd(hi[1], inv_area2),
                        l2_hi = _mm_mul_pd(hi[2], inv_area2);
          uint32_t passed = covered;
          alignas(16) float depth4[4];
          if (has_depth) {
            const __m128d d_lo = _mm_add_pd(_mm_add_pd(_mm_mul_pd(l0_lo, z0), _mm_mul_pd(l1_lo, z1v)), _mm_mul_pd(l2_lo, z2v));
            const __m128d d_hi = _mm_add_pd(_mm_add_pd(_mm_mul_pd(l0_hi, z0), _mm_mul_pd(l1_hi, z1v)), _mm_mul_pd(l2_hi, z2v));
            __m128 d = _mm_movelh_ps(_mm_cvtpd_ps(d_lo), _mm_cvtpd_ps(d_hi));
            // depth_value(): NaN -> 0, then std::clamp to [0, 1] (max(0, d) keeps -0 as clamp does).
            d = _mm_andnot_ps(_mm_cmpunord_ps(d, d), d);
            d = _mm_min_ps(one, _mm_max_ps(zero, d));
            _mm_store_ps(depth4, d);
            if (depth_test) {
              __m128 stored;
              if (x1 - x >= 3) {
                stored = _mm_loadu_ps(depth_buffer + (depth_row + x));
              } else {
                alignas(16) float part[4] = {0, 0, 0, 0};
                for (int32_t j = 0; j <= x1 - x; ++j) part[j] = depth_buffer[depth_row + x + j];
                stored = _mm_load_ps(part);
              }
              passed &= uint32_t(_mm_movemask_ps(depth_pass(depth_op, d, stored)));
            }
          }
          if (!tracker) fragments += kBitCount4[covered];
          if (passed || tracker) {
            const bool groups = shading.groups() && passed;
            if (groups) shading.prepare_group(l0_lo, l0_hi, l1_lo, l1_hi, l2_lo, l2_hi);
            if constexpr (!std::is_same_v<Tracker, NoTracker>) {
              using Writes = typename SimpleShading<Tracker>::GroupWrites;
              const Writes writes = groups ? shading.group_writes() : Writes::mixed;
              if (writes != Writes::mixed) {
                // The group as the first row of a 4x4 box (raster_tiny's tracker calls): every covered
                // fragment rasterized, then the passed ones' depths, candidates and colors. The same
                // counts and commits as lane by lane (TileWorkTracker::rasterized_box); blended writes,
                // which never wait, are sums counted after the candidates.
                const uint32_t tile_column = uint32_t(x - tile.x);
                const uint32_t pixel_base = row_pixel + tile_column, quad_base = row_quad + (tile_column >> 1);
                const uint32_t* const quad_offsets =
                    tracker.template box_quad_offsets<4>(int32_t(tile_column), int32_t(tile_row));
                fragments += tracker.template rasterized_box<4>(uint32_t(prim), draw_index, x, y, covered, pixel_base,
                                                                quad_base, quad_offsets);
                if (depth_write) {
#if defined(__AVX__)
                  // The passed lanes' depths in one masked store (lanes masked off are not accessed).
                  const __m128i lane_bits = _mm_setr_epi32(1, 2, 4, 8);
                  const __m128i store_mask =
                      _mm_cmpeq_epi32(_mm_and_si128(_mm_set1_epi32(int32_t(passed)), lane_bits), lane_bits);
                  _mm_maskstore_ps(depth_buffer + (depth_row + x), store_mask, _mm_load_ps(depth4));
#else
                  for (uint32_t lanes = passed; lanes; lanes &= lanes - 1)
                    depth_buffer[depth_row + x + __builtin_ctz(lanes)] = depth4[__builtin_ctz(lanes)];
#endif
                }
                const bool blended = writes == Writes::blended;
                tracker.template candidates_box<4>(draw_index, passed, pixel_base, quad_base, quad_offsets, facts.occluder,
                                                   blended ? 0 : facts.color_writes);
                if (blended) tracker.blended_colors_written(uint64_t(kBitCount4[passed]) * facts.color_writes);
                shading.shade_group(passed, x, y, size_t(y - area_y) * area_width + size_t(x - area_x));
                goto next_group;
              }
            }
            // Lane by lane: the barycentrics a lane's shade() takes (the groups above never need them).
            alignas(16) double l_lanes[3][4];
            _mm_store_pd(l_lanes[0], l0_lo);
            _mm_store_pd(l_lanes[0] + 2, l0_hi);
            _mm_store_pd(l_lanes[1], l1_lo);
            _mm_store_pd(l_lanes[1] + 2, l1_hi);
            _mm_store_pd(l_lanes[2], l2_lo);
            _mm_store_pd(l_lanes[2] + 2, l2_hi);
            for (uint32_t lanes = tracker ? covered : passed; lanes; lanes &= lanes - 1) {
              const int j = __builtin_ctz(lanes);
              const int32_t px = x + j;
              const uint32_t tile_column = uint32_t(px - tile.x);
              const uint32_t tile_pixel = row_pixel + tile_column, tile_quad = row_quad + (tile_column >> 1);
              if (tracker) {
                ++fragments;
                tracker.rasterized_at(uint32_t(prim), draw_index, px, y, tile_pixel, tile_quad);
                if (!(passed & (1u << j))) continue;
              }
              if (depth_write) depth_buffer[depth_row + px] = depth4[j];
              if (groups) {
                shading.count_group_lane(tile_pixel, tile_quad);
                continue;
              }
              const double l[3] = {l_lanes[0][j], l_lanes[1][j], l_lanes[2][j]};
              shading.shade(px, y, size_t(y - area_y) * area_width + size_t(px - area_x), e_group[0] + j * t.step_x[0],
                            e_group[1] + j * t.step_x[1], e_group[2] + j * t.step_x[2], l[0], l[1], l[2]);
            }
            if (groups) shading.shade_group(passed, x, y, size_t(y - area_y) * area_width + size_t(x - area_x));
          }
        }
      next_group: __attribute__((unused));  // no tracker (NoTracker): nothing jumps here
        for (int k = 0; k < 3; ++k) {
          lo[k] = _mm_add_pd(lo[k], group_step[k]);
          hi[k] = _mm_add_pd(hi[k], group_step[k]);
          e_group[k] += 4 * t.step_x[k];
        }
      }
    }
    counters.fragments += fragments;
    counters.samples_passed += shading.samples_passed;
    return;
  }
#endif
  int64_t e_row0 = r0, e_row1 = r1, e_row2 = r2;
  for (int32_t y = y0; y <= y1; ++y, e_row0 += t.step_y[0], e_row1 += t.step_y[1], e_row2 += t.step_y[2]) {
    int64_t e0 = e_row0, e1 = e_row1, e2 = e_row2;
    for (int32_t x = x0; x <= x1; ++x, e0 += t.step_x[0], e1 += t.step_x[1], e2 += t.step_x[2])
      if ((e0 | e1 | e2) >= 0) fragment(x, y, e0 - t.bias[0], e1 - t.bias[1], e2 - t.bias[2]);
  }
  counters.fragments += fragments;
  counters.samples_passed += shading.samples_passed;
}

// raster_triangle's general case: any sample count, the stencil test, late tests, direct rendering.
template <class Tracker>
static void raster_general(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                           const Draw& draw, const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                           Tracker tracker) {
  TriangleEdges t;
  if (!setup_edges(prims, prim, t)) return;
  const uint32_t samples = targets.samples;
  const auto* positions = sample_positions(samples);
  // Edge values at each sample of pixel (x0, y0).
  int64_t row_e[8][3];
  for (uint32_t s = 0; s < samples; ++s) {
    const int64_t px = (int64_t(x0) << kSubpixelBits) + positions[s][0] * (kSubpixelOne / 16);
    const int64_t py = (int64_t(y0) << kSubpixelBits) + positions[s][1] * (kSubpixelOne / 16);
    for (int k = 0; k < 3; ++k) row_e[s][k] = t.at(k, px, py);
  }
  // Edge values at the centre of pixel (x0, y0), for shading.
  int64_t row_c[3];
  {
    const int64_t cx = (int64_t(x0) << kSubpixelBits) + kSubpixelOne / 2;
    const int64_t cy = (int64_t(y0) << kSubpixelBits) + kSubpixelOne / 2;
    for (int k = 0; k < 3; ++k) row_c[k] = t.at(k, cx, cy);
  }
  const int64_t* const bias = t.bias;
  const int64_t* const step_x = t.step_x;
  const int64_t* const step_y = t.step_y;
  const PipelineState& state = draw.state;
  const bool has_stencil = targets.stencil != nullptr && state.stencil_test;
  const bool late_tests = program.discard || state.shader_depth_write;
  ShadingSetup shading;
  shading.init(prims, prim, t.flip, draw, program, targets);
  float z1 = prims.vertex_of(1, prim).z, z2 = prims.vertex_of(2, prim).z, z0 = prims.vertex_of(0, prim).z;
  if (state.depth_bias.enable && targets.depth) {
    // The same offset at every vertex: the interpolated depth moves by it (the barycentrics sum to 1).
    const float o = depth_bias_offset(state.depth_bias, targets.depth_format, prims.vertex_of(0, prim),
                                      prims.vertex_of(1, prim), prims.vertex_of(2, prim));
    z0 += o, z1 += o, z2 += o;
  }
  const float z[3] = {z0, t.flip ? z2 : z1, t.flip ? z1 : z2};
  const bool front = prims.front_facing[prim] != 0;
  const StencilFaceState& face = front ? state.stencil_front : state.stencil_back;
  const bool has_depth = targets.depth != nullptr;
  const bool depth_test = has_depth && state.depth_test;
  const bool depth_write = depth_test && state.depth_write;
  const double inv_area = 1.0 / double(t.area);
  const uint32_t draw_index = prims.draw[prim];
  const uint32_t all_samples = (1u << samples) - 1;
  // Only an opaque fragment that writes depth can hide earlier ones (Arm FPK, PowerVR HSR;
  // models/README.md "Sources: bandwidth savers").
  const bool occluder_draw = tracker && depth_write && !hsr_breakers(draw, program.input_attachments).any();
  const Format depth_format = targets.depth_format;

  for (int32_t y = y0; y <= y1; ++y) {
    int64_t pix_e[8][3], pix_c[3];
    for (uint32_t s = 0; s < samples; ++s)
      for (int k = 0; k < 3; ++k) pix_e[s][k] = row_e[s][k];
    for (int k = 0; k < 3; ++k) pix_c[k] = row_c[k];
    for (uint32_t s = 0; s < samples; ++s)
      for (int k = 0; k < 3; ++k) row_e[s][k] += step_y[k];
    for (int k = 0; k < 3; ++k) row_c[k] += step_y[k];
    for (int32_t x = x0; x <= x1; ++x) {
      uint32_t coverage = 0;
      double lambda[8][3];
      int64_t e_c[3];
      for (int k = 0; k < 3; ++k) {
        e_c[k] = pix_c[k];
        pix_c[k] += step_x[k];
      }
      for (uint32_t s = 0; s < samples; ++s) {
        const int64_t e0 = pix_e[s][0], e1 = pix_e[s][1], e2 = pix_e[s][2];
        pix_e[s][0] += step_x[0];
        pix_e[s][1] += step_x[1];
        pix_e[s][2] += step_x[2];
        if (e0 + bias[0] < 0 || e1 + bias[1] < 0 || e2 + bias[2] < 0) continue;
        coverage |= 1u << s;
        lambda[s][0] = double(e0) * inv_area;
        lambda[s][1] = double(e1) * inv_area;
        lambda[s][2] = double(e2) * inv_area;
      }
      if (!coverage) continue;
      ++counters.fragments;
      if (tracker) tracker.rasterized(uint32_t(prim), draw_index, x, y);

      // Depth per sample: linear in screen space (Vulkan "Depth Interpolation").
      float sample_depth[8];
      for (uint32_t s = 0; s < samples; ++s)
        if (coverage & (1u << s))
          sample_depth[s] = quantize_depth(depth_format,
                                           float(lambda[s][0] * z[0] + lambda[s][1] * z[1] + lambda[s][2] * z[2]));

      auto fb_offset = [&](uint32_t s, uint32_t bpp) {
        return ((uint64_t(y) * targets.framebuffer_width + uint64_t(x)) * samples + s) * bpp;
      };
      // Depth/stencil test of one sample (Vulkan order: stencil test, depth test, then the
      // stencil op of the outcome and the depth write). Returns whether it passed; `wrote`
      // says whether depth or stencil storage was written (a stencil op that is not `keep`
      // under a non-zero write mask, or a depth write).
      auto test_sample = [&](size_t i, uint32_t s, bool& wrote) {
        auto stencil_op = [&](StencilOp op) {
          targets.stencil[i] = apply_stencil_op(op, targets.stencil[i], face);
          wrote = wrote || (op != StencilOp::keep && (face.write_mask & 0xff) != 0);
        };
        if (has_stencil) {
          const uint32_t cmp_mask = face.compare_mask & 0xff;
          if (!compare<uint32_t>(face.compare_op, face.reference & cmp_mask, targets.stencil[i] & cmp_mask)) {
            stencil_op(face.fail_op);
            return false;
          }
        }
        if (depth_test && !compare<float>(state.depth_compare, sample_depth[s], targets.depth[i])) {
          if (has_stencil) stencil_op(face.depth_fail_op);
          return false;
        }
        if (has_stencil) stencil_op(face.pass_op);
        if (depth_write) {
          targets.depth[i] = sample_depth[s];
          wrote = true;
        }
        return true;
      };
      auto run_tests = [&](uint32_t mask) {
        uint32_t passed = 0;
        for (uint32_t s = 0; s < samples; ++s) {
          if (!(mask & (1u << s))) continue;
          const size_t i = targets.index(x, y, s);
          bool wrote = false;
          if (test_sample(i, s, wrote)) passed |= 1u << s;
          if (targets.framebuffer && (depth_test || has_stencil)) {
            // Direct rendering: the test reads depth/stencil through the framebuffer cache; a
            // change writes it back through the same cache.
            targets.framebuffer->read(targets.depth_surface, fb_offset(s, targets.depth_bpp), DramCategory::framebuffer_depth);
            if (wrote) targets.framebuffer->write(targets.depth_surface, fb_offset(s, targets.depth_bpp), DramCategory::framebuffer_depth);
          }
        }
        return passed;
      };

      uint32_t passed = coverage;
      if (!late_tests) {
        passed = run_tests(coverage);
        if (!passed) continue;
        if (tracker) tracker.candidate(uint32_t(prim), draw_index, x, y, occluder_draw && passed == all_samples);
      } else if (tracker) {
        tracker.candidate(uint32_t(prim), draw_index, x, y, false);
      }

      // Shading once per pixel at the pixel centre, perspective-correct (Vulkan "Basic Polygon
      // Rasterization": attributes interpolated with 1/w weights).
      const double l[3] = {double(e_c[0]) * inv_area, double(e_c[1]) * inv_area, double(e_c[2]) * inv_area};
      float varyings[kVaryingCount];
      const FragmentInput input = shading.input_at(l, varyings, x, y, e_c, t, inv_area, program, targets);
      Vec4 colors[kMaxColorAttachments];
      if (!shade_fragment(program, input, colors, targets.color_count)) continue;

      if (late_tests) {
        passed = run_tests(coverage);
        if (!passed) continue;
      }
      for (uint32_t s = 0; s < samples; ++s) {
        if (!(passed & (1u << s))) continue;
        ++counters.samples_passed;
        const size_t i = targets.index(x, y, s);
        for (uint32_t c = 0; c < targets.color_count; ++c) {
          if (!targets.color[c]) continue;
          const BlendAttachmentState& b = *shading.blend_state[c];
          if (targets.framebuffer && b.enable)
            targets.framebuffer->read(targets.color_surface[c], fb_offset(s, targets.color_bpp[c]), DramCategory::framebuffer_color);
          targets.color[c][i] = blend_fast(shading.blend_path[c], b, targets.color_format[c], colors[c], targets.color[c][i],
                                           state.blend_constants);
          if (targets.framebuffer)
            targets.framebuffer->write(targets.color_surface[c], fb_offset(s, targets.color_bpp[c]), DramCategory::framebuffer_color);
          if (tracker) tracker.color_written(b.enable);
        }
      }
    }
  }
}

}  // namespace tbdr::raster_detail
