// The rasterizer's tiny-triangle path (raster_detail, included by sim/raster.cpp only): a box of up
// to 4x4 or 8x8 pixels set up in SSE2 int32 lanes, its coverage as a bit mask, the depth test two
// fragments (or, with AVX2, a row of four) at a time, deferred colors' stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "sim/raster.h"
#include "sim/raster_deferred.h"
#include "sim/raster_depth.h"
#include "sim/raster_shading.h"

namespace tbdr::raster_detail {

#if defined(__SSE2__)
// (dx, dy) of bit kBox dy + dx of raster_tiny's box as the int16 pair dx | dy << 16 (pmaddwd's
// operand), looked up rather than worked out per fragment.
template <int kBox>
struct BoxSteps {
  int32_t dx_dy[kBox * kBox];
  constexpr BoxSteps() : dx_dy() {
    for (int bit = 0; bit < kBox * kBox; ++bit) dx_dy[bit] = bit % kBox | (bit / kBox) << 16;
  }
};
template <int kBox>
constexpr BoxSteps<kBox> kBoxSteps{};

// What raster_tiny has set up for a box's fragments: bit kBox dy + dx of `covered` is pixel
// (x0 + dx, y0 + dy), index `origin` + the tracker's box_pixel_offsets of the bit in the targets;
// the biased edge values at the origin and their steps (pmaddwd pairs), 1 / area, the depths.
struct TinyBox {
  int32_t x0, y0;
  uint64_t covered;
  size_t origin;
  __m128i e_origin, steps;
  __m128d inv_area2, z01, z2v;
  bool flip;
};

// raster_tiny_deferred's depth test, two fragments of the box at a time (bits a and b), one a
// double lane: per lane the operations of the one-fragment chain it replaced (edge values from the
// origin's and their steps, barycentrics times 1 / area, (l0 z0 + l1 z1) + l2 z2 in double, rounded
// to float, clamped), so the same values bit for bit.
struct TinyDepthLanes {
  __m128d z0, z1, z2;  // the vertices' depths in both lanes
  explicit TinyDepthLanes(const TinyBox& box)
      : z0(_mm_unpacklo_pd(box.z01, box.z01)), z1(_mm_unpackhi_pd(box.z01, box.z01)),
        z2(_mm_unpacklo_pd(box.z2v, box.z2v)) {}
};
struct TinyDepthPair {
  float depth_a, depth_b;
  __m128d l0, l1, l2;  // the barycentrics of a (low lane), of b (high lane)
};
template <int kBox>
[[gnu::always_inline]] static inline TinyDepthPair tiny_depth_pair(const TinyBox& box, const TinyDepthLanes& lanes,
                                                                   uint32_t a, uint32_t b) {
  auto edges = [&](uint32_t bit) {
    return _mm_add_epi32(
        box.e_origin,
        _mm_slli_epi32(_mm_madd_epi16(box.steps, _mm_set1_epi32(kBoxSteps<kBox>.dx_dy[bit])), kSubpixelBits));
  };
  const __m128i ea = edges(a), eb = edges(b);
  const __m128i e01 = _mm_unpacklo_epi32(ea, eb), e23 = _mm_unpackhi_epi32(ea, eb);  // (a0 b0 a1 b1), (a2 b2 ..)
  const __m128d l0 = _mm_mul_pd(_mm_cvtepi32_pd(e01), box.inv_area2);
  const __m128d l1 = _mm_mul_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(e01, _MM_SHUFFLE(3, 2, 3, 2))), box.inv_area2);
  const __m128d l2 = _mm_mul_pd(_mm_cvtepi32_pd(e23), box.inv_area2);
  const __m128d sum =
      _mm_add_pd(_mm_add_pd(_mm_mul_pd(l0, lanes.z0), _mm_mul_pd(l1, lanes.z1)), _mm_mul_pd(l2, lanes.z2));
  // clamped_depth on both lanes.
  const __m128 z = _mm_cvtpd_ps(sum);
  const __m128 not_nan = _mm_andnot_ps(_mm_cmpunord_ps(z, z), z);
  const __m128 depth = _mm_min_ps(_mm_set1_ps(1.0f), _mm_max_ps(_mm_setzero_ps(), not_nan));
  return TinyDepthPair{_mm_cvtss_f32(depth), _mm_cvtss_f32(_mm_shuffle_ps(depth, depth, _MM_SHUFFLE(1, 1, 1, 1))), l0,
                       l1, l2};
}
// A deferred pixel's triangle and barycentrics, those of lane kHigh of l0, l1, l2.
template <bool kHigh>
[[gnu::always_inline]] static inline void store_waiting(const WaitingPixels& waiting, size_t pixel, uint32_t triangle,
                                                        __m128d l0, __m128d l1, __m128d l2) {
  waiting.triangle[pixel] = triangle;
  if constexpr (kHigh) {
    _mm_storeh_pd(waiting.l[0] + pixel, l0);
    _mm_storeh_pd(waiting.l[1] + pixel, l1);
    _mm_storeh_pd(waiting.l[2] + pixel, l2);
  } else {
    _mm_storel_pd(waiting.l[0] + pixel, l0);
    _mm_storel_pd(waiting.l[1] + pixel, l1);
    _mm_storel_pd(waiting.l[2] + pixel, l2);
  }
}

#if defined(__AVX2__)
// The lanes of a row of four fragments whose bits (1 << lane) are set: all ones in 32 and in 64 bits.
struct RowLanes {
  alignas(16) int32_t lanes32[16][4];
  alignas(32) int64_t lanes64[16][4];
  constexpr RowLanes() : lanes32(), lanes64() {
    for (int bits = 0; bits < 16; ++bits)
      for (int lane = 0; lane < 4; ++lane) lanes32[bits][lane] = lanes64[bits][lane] = bits >> lane & 1 ? -1 : 0;
  }
};
constexpr RowLanes kRowLanes{};

// raster_tiny_deferred's depth test and stores for a 4x4 box with AVX2 (TBDR_AVX2), a row of four
// fragments at a time, one a lane: per lane the operations of tiny_depth_pair (edge values from the
// origin's and their steps, barycentrics times 1 / area, (l0 z0 + l1 z1) + l2 z2 in double, rounded
// to float, clamped), so the same values bit for bit. The row's stored depths are loaded, tested
// and written under its coverage, and the waiting pixels of those that passed with one masked store
// an array (masked: the box may reach past the tile's last pixel). Returns the bits that passed.
[[gnu::always_inline]] static inline uint64_t tiny_depth_rows(const TinyBox& box, size_t width, float* depths,
                                                              const WaitingPixels& waiting, uint32_t triangle) {
  // Edge k's values over the row (pixels dx = 0..3: pmaddwd of its (dedx, dedy) pair by (dx, 0)),
  // and its step to the next row (dedy, the pair's high half).
  const __m128i dx = _mm_setr_epi32(0, 1, 2, 3);
  __m128i edge[3], step[3];
  auto setup_edge = [&](auto k) {
    constexpr int kLane = decltype(k)::value;
    const __m128i pair = _mm_shuffle_epi32(box.steps, _MM_SHUFFLE(kLane, kLane, kLane, kLane));
    const __m128i origin = _mm_shuffle_epi32(box.e_origin, _MM_SHUFFLE(kLane, kLane, kLane, kLane));
    edge[kLane] = _mm_add_epi32(origin, _mm_slli_epi32(_mm_madd_epi16(pair, dx), kSubpixelBits));
    step[kLane] = _mm_slli_epi32(_mm_srai_epi32(pair, 16), kSubpixelBits);
  };
  setup_edge(std::integral_constant<int, 0>());
  setup_edge(std::integral_constant<int, 1>());
  setup_edge(std::integral_constant<int, 2>());
  const __m256d inv_area = _mm256_broadcastsd_pd(box.inv_area2);
  const __m256d z0 = _mm256_broadcastsd_pd(box.z01), z2 = _mm256_broadcastsd_pd(box.z2v);
  const __m256d z1 = _mm256_broadcastsd_pd(_mm_unpackhi_pd(box.z01, box.z01));
  const __m128i triangles = _mm_set1_epi32(int32_t(triangle));
  uint64_t passed = 0;
  size_t row = 0;      // the row's first pixel, from the box's origin
  uint32_t shift = 0;  // its first bit
  for (uint64_t rows = box.covered; rows; rows >>= 4, row += width, shift += 4) {
    const uint32_t row_bits = uint32_t(rows) & 0xf;
    if (row_bits) {
      const __m256d l0 = _mm256_mul_pd(_mm256_cvtepi32_pd(edge[0]), inv_area);
      const __m256d l1 = _mm256_mul_pd(_mm256_cvtepi32_pd(edge[1]), inv_area);
      const __m256d l2 = _mm256_mul_pd(_mm256_cvtepi32_pd(edge[2]), inv_area);
      const __m256d sum = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(l0, z0), _mm256_mul_pd(l1, z1)),
                                        _mm256_mul_pd(l2, z2));
      const __m128 z = _mm256_cvtpd_ps(sum);  // clamped_depth on each lane
      const __m128 not_nan = _mm_andnot_ps(_mm_cmpunord_ps(z, z), z);
      const __m128 depth = _mm_min_ps(_mm_set1_ps(1.0f), _mm_max_ps(_mm_setzero_ps(), not_nan));
      const __m128i covered = _mm_load_si128(reinterpret_cast<const __m128i*>(kRowLanes.lanes32[row_bits]));
      const __m128 nearer = _mm_and_ps(_mm_cmplt_ps(depth, _mm_maskload_ps(depths + row, covered)),
                                       _mm_castsi128_ps(covered));
      const uint32_t row_passed = uint32_t(_mm_movemask_ps(nearer));
      if (row_passed) {
        const __m128i lanes32 = _mm_castps_si128(nearer);
        const __m256i lanes64 = _mm256_load_si256(reinterpret_cast<const __m256i*>(kRowLanes.lanes64[row_passed]));
        _mm_maskstore_ps(depths + row, lanes32, depth);
        _mm_maskstore_epi32(reinterpret_cast<int*>(waiting.triangle + row), lanes32, triangles);
        _mm256_maskstore_pd(waiting.l[0] + row, lanes64, l0);
        _mm256_maskstore_pd(waiting.l[1] + row, lanes64, l1);
        _mm256_maskstore_pd(waiting.l[2] + row, lanes64, l2);
        passed |= uint64_t(row_passed) << shift;
      }
    }
    for (int k = 0; k < 3; ++k) edge[k] = _mm_add_epi32(edge[k], step[k]);
  }
  return passed;
}
#endif

// The common case of the tiny-triangle loops, fixed for a draw: a float depth buffer tested `less`
// and written, and deferred colors (every fragment of the million-triangle frame).
static inline bool deferred_less_depth(const PipelineState& state, const TargetSet& targets, const DrawFacts& facts) {
  const bool float_depth = targets.depth_format != Format::D16 && targets.depth_format != Format::D24S8;
  return targets.depth && state.depth_test && state.depth_write && state.depth_compare == CompareOp::less &&
         float_depth && facts.defer;
}

// raster_tiny's common case with a tracker (a float depth buffer tested `less` and written,
// deferred colors, the targets' rows the tile's: every fragment of the million-triangle frame), in
// three loops over the box's bits: the tracker's rasterized fragments, the depth test with the
// deferred pixels' stores, the tracker's candidates (TileWorkTracker::rasterized_box). The same
// operations per fragment as raster_tiny's loop, which is short of registers when they are
// interleaved: its state spilled to the stack, and 140 instructions a fragment went to it.
template <int kBox, class Tracker>
[[gnu::always_inline]] static inline void raster_tiny_deferred(const TinyBox& box, const ScreenPrims& prims,
                                                               size_t prim, const CompiledProgram& program,
                                                               TargetSet& targets, PassCounters& counters,
                                                               Tracker tracker, const DrawFacts& facts) {
  const uint32_t draw = prims.draw[prim];
  const uint32_t pixel_base = tracker.pixel_index(box.x0, box.y0), quad_base = tracker.quad_index(box.x0, box.y0);
  const uint32_t* const pixel_offsets = tracker.template box_pixel_offsets<kBox>();
  const uint32_t* const quad_offsets =
      tracker.template box_quad_offsets<kBox>(box.x0 - tracker.rect().x, box.y0 - tracker.rect().y);
  const uint64_t fragments = tracker.template rasterized_box<kBox>(uint32_t(prim), draw, box.x0, box.y0, box.covered,
                                                                   pixel_base, quad_base, quad_offsets);
  DeferredColors::Impl& deferred = *targets.deferred->impl;
  // The entry add_deferred_triangle appends below, once a fragment has passed.
  const uint32_t triangle = uint32_t(deferred.triangles.size());
  const WaitingPixels waiting = deferred.waiting().from(box.origin);
  float* const depths = targets.depth + box.origin;
#if defined(__AVX2__)
  // The rows' path with its own copy of the tail below: sharing the tail through a (passed, count)
  // result of either path cost 9 instructions a triangle (callgrind, million-triangle frame).
  if constexpr (kBox == 4) {
    const uint64_t passed = tiny_depth_rows(box, targets.area.width, depths, waiting, triangle);
    if (passed) add_deferred_triangle(deferred, prims, prim, box.flip, program.color);
    tracker.template candidates_box<kBox>(draw, passed, pixel_base, quad_base, quad_offsets, facts.occluder,
                                          facts.color_writes);
    counters.fragments += fragments;
    counters.samples_passed += uint64_t(__builtin_popcountll(passed));
    return;
  }
#endif
  // The bits that failed the test, counted: most fragments pass (every one of the million-triangle
  // frame), so the work is on the rarer branch; `fragments` is the number of covered bits.
  uint64_t failed = 0, failed_count = 0;
  // The fragments two at a time, one a double lane (the covered bits in order; a last odd one
  // alone): the same operations on each lane as the one-fragment loop it replaced, so the same
  // depths and barycentrics, in 37 instructions a fragment instead of 45 (callgrind of the
  // million-triangle frame). A fragment's test and stores touch its own pixel only, so testing
  // two before storing either changes nothing.
  const TinyDepthLanes lanes(box);
  // Fragment `bit`, lane kHigh of `d`: stored as the pixel's waiting fragment when nearer, else
  // marked failed.
  auto test_fragment = [&](auto high, uint32_t bit, float depth, const TinyDepthPair& d) [[gnu::always_inline]] {
    const uint32_t offset = pixel_offsets[bit];
    if (depth < depths[offset]) {
      depths[offset] = depth;
      store_waiting<decltype(high)::value>(waiting, offset, triangle, d.l0, d.l1, d.l2);
    } else {
      failed |= uint64_t(1) << bit;
      ++failed_count;
    }
  };
  uint64_t mask = box.covered;
  while (mask) {
    const uint32_t a = uint32_t(__builtin_ctzll(mask));
    mask &= mask - 1;
    if (!mask) {
      // One fragment: lane 0 of a pair with itself.
      const TinyDepthPair d = tiny_depth_pair<kBox>(box, lanes, a, a);
      test_fragment(std::false_type(), a, d.depth_a, d);
      break;
    }
    const uint32_t b = uint32_t(__builtin_ctzll(mask));
    mask &= mask - 1;
    const TinyDepthPair d = tiny_depth_pair<kBox>(box, lanes, a, b);
    test_fragment(std::false_type(), a, d.depth_a, d);
    test_fragment(std::true_type(), b, d.depth_b, d);
  }
  const uint64_t passed = box.covered & ~failed, passed_count = fragments - failed_count;
  if (passed) add_deferred_triangle(deferred, prims, prim, box.flip, program.color);
  tracker.template candidates_box<kBox>(draw, passed, pixel_base, quad_base, quad_offsets, facts.occluder,
                                        facts.color_writes);
  counters.fragments += fragments;
  counters.samples_passed += passed_count;
}

// raster_tiny's set-up of a box (x0, y0)..(x1, y1) up to its coverage (`box.origin` left 0): `far`
// when a vertex lies too far for int32 edge values (nothing done), `empty` for a degenerate
// triangle or one covering no pixel centre of the box.
enum class TinySetup { far, empty, covered };
template <int kBox>
[[gnu::always_inline]] static inline TinySetup tiny_setup(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0,
                                                          int32_t x1, int32_t y1, TinyBox& box) {
  constexpr int32_t kReach = kBox * kSubpixelOne;
  const int32_t cx = (x0 << kSubpixelBits) + kSubpixelOne / 2, cy = (y0 << kSubpixelBits) + kSubpixelOne / 2;
  // The three vertices in lanes 0..2 relative to the centre; lane 3 is 0. Each vertex is loaded
  // whole (x, y, z, 1/w) and the lanes gathered by unpacking: building vx and vy from the six
  // scalars took 20 instructions a triangle more (callgrind of the million-triangle frame).
  const ScreenVertex &s0 = prims.vertex_of(0, prim), &s1 = prims.vertex_of(1, prim), &s2 = prims.vertex_of(2, prim);
  static_assert(sizeof(ScreenVertex) == 16 && offsetof(ScreenVertex, y) == 4, "x, y in a vertex's low lanes");
  auto load = [](const ScreenVertex& v) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(&v)); };
  const __m128i centre = _mm_setr_epi32(cx, cy, 0, 0);
  const __m128i xy01 = _mm_unpacklo_epi32(load(s0), load(s1)), xy2c = _mm_unpacklo_epi32(load(s2), centre);
  __m128i vx = _mm_sub_epi32(_mm_unpacklo_epi64(xy01, xy2c), _mm_shuffle_epi32(centre, _MM_SHUFFLE(0, 0, 0, 0)));
  __m128i vy = _mm_sub_epi32(_mm_unpackhi_epi64(xy01, xy2c), _mm_shuffle_epi32(centre, _MM_SHUFFLE(1, 1, 1, 1)));
  // All six in [-kReach, kReach): each plus kReach has no bit at or above 2 kReach (a power of two).
  const __m128i reach = _mm_set1_epi32(kReach);
  const __m128i far = _mm_and_si128(_mm_or_si128(_mm_add_epi32(vx, reach), _mm_add_epi32(vy, reach)),
                                    _mm_set1_epi32(~(2 * kReach - 1)));
  if (_mm_movemask_epi8(_mm_cmpeq_epi32(far, _mm_setzero_si128())) != 0xffff) return TinySetup::far;
  int32_t area = (s1.x - s0.x) * (s2.y - s0.y) - (s1.y - s0.y) * (s2.x - s0.x);
  if (area == 0) return TinySetup::empty;
  // Counter-clockwise (a predictable branch: meshes keep their winding).
  const bool flip = area < 0;
  if (flip) {
    vx = _mm_shuffle_epi32(vx, _MM_SHUFFLE(3, 1, 2, 0));
    vy = _mm_shuffle_epi32(vy, _MM_SHUFFLE(3, 1, 2, 0));
    area = -area;
  }
  // Edge k (opposite vertex k, lane k) from vertex a = k + 1 to b = k + 2 (mod 3): its value at
  // the centre of pixel (x0, y0), the origin, edge(a, b, 0) = xa yb - xb ya; its steps one pixel
  // right (dedx = ya - yb) and down (dedy = xb - xa), times kSubpixelOne. Every coordinate fits
  // in int16, so pmaddwd forms the products exactly, two a lane.
  const __m128i xa = _mm_shuffle_epi32(vx, _MM_SHUFFLE(3, 0, 2, 1)), xb = _mm_shuffle_epi32(vx, _MM_SHUFFLE(3, 1, 0, 2));
  const __m128i ya = _mm_shuffle_epi32(vy, _MM_SHUFFLE(3, 0, 2, 1)), yb = _mm_shuffle_epi32(vy, _MM_SHUFFLE(3, 1, 0, 2));
  const __m128i low16 = _mm_set1_epi32(0xffff);
  const __m128i e_origin = _mm_madd_epi16(_mm_or_si128(_mm_and_si128(xa, low16), _mm_slli_epi32(xb, 16)),
                                          _mm_or_si128(_mm_and_si128(yb, low16),
                                                       _mm_slli_epi32(_mm_sub_epi32(_mm_setzero_si128(), ya), 16)));
  const __m128i dedx = _mm_sub_epi32(ya, yb), dedy = _mm_sub_epi32(xb, xa);
  // Top-left rule (TriangleEdges::bias): -1 unless dedx > 0 or (dedx == 0 and dedy > 0).
  const __m128i zero = _mm_setzero_si128();
  const __m128i left_or_top = _mm_or_si128(_mm_cmpgt_epi32(dedx, zero),
                                           _mm_and_si128(_mm_cmpeq_epi32(dedx, zero), _mm_cmpgt_epi32(dedy, zero)));
  const __m128i biased_origin = _mm_add_epi32(e_origin, _mm_xor_si128(left_or_top, _mm_set1_epi32(-1)));
  const __m128i step_y = _mm_slli_epi32(dedy, kSubpixelBits);
  // Biased edge values of the box's first row, four pixels a vector: pixel dx adds dx * dedx *
  // kSubpixelOne (pmaddwd of dedx's int16 by dx * kSubpixelOne, at most 768).
  const __m128i lane_steps = _mm_setr_epi32(0, kSubpixelOne, 2 * kSubpixelOne, 3 * kSubpixelOne);
  __m128i rows[3][kBox / 4], row_step[3];
  auto lane = [](__m128i v, auto k) { return _mm_shuffle_epi32(v, _MM_SHUFFLE(k(), k(), k(), k())); };
  auto setup_rows = [&](auto k) {
    const __m128i dx_k = lane(dedx, k);
    rows[k()][0] = _mm_add_epi32(lane(biased_origin, k), _mm_madd_epi16(dx_k, lane_steps));
    if (kBox == 8) rows[k()][1] = _mm_add_epi32(rows[k()][0], _mm_slli_epi32(dx_k, kSubpixelBits + 2));
    row_step[k()] = lane(step_y, k);
  };
  setup_rows(std::integral_constant<int, 0>());
  setup_rows(std::integral_constant<int, 1>());
  setup_rows(std::integral_constant<int, 2>());
  // Coverage of the box, bit kBox * dy + dx: the sign bits of e0 | e1 | e2 are the uncovered
  // pixels, packed with signed saturation (signs kept) to one byte a pixel for pmovmskb.
  auto any_row = [&](int half) { return _mm_or_si128(_mm_or_si128(rows[0][half], rows[1][half]), rows[2][half]); };
  auto next_row = [&]() {
    for (int k = 0; k < 3; ++k)
      for (int half = 0; half < kBox / 4; ++half) rows[k][half] = _mm_add_epi32(rows[k][half], row_step[k]);
  };
  uint64_t outside = 0;
  if (kBox == 4) {
    __m128i any[4];
    for (int dy = 0; dy < 4; ++dy) {
      any[dy] = any_row(0);
      next_row();
    }
    outside = uint32_t(_mm_movemask_epi8(_mm_packs_epi16(_mm_packs_epi32(any[0], any[1]), _mm_packs_epi32(any[2], any[3]))));
  } else {
    for (int dy = 0; dy <= y1 - y0; dy += 2) {
      const __m128i first = _mm_packs_epi32(any_row(0), any_row(1));
      next_row();
      const __m128i second = _mm_packs_epi32(any_row(0), any_row(1));
      next_row();
      outside |= uint64_t(uint32_t(_mm_movemask_epi8(_mm_packs_epi16(first, second)))) << (8 * dy);
    }
  }
  const uint64_t row_bits = (uint64_t(1) << (x1 - x0 + 1)) - 1;
  const uint64_t box_rows = kBox == 4 ? 0x1111u & ((1u << (4 * (y1 - y0 + 1))) - 1)
                                      : 0x0101010101010101ull >> (8 * (7 - (y1 - y0)));
  uint64_t mask = ~outside & row_bits * box_rows;
  if (!mask) return TinySetup::empty;

  const __m128d inv_area2 = _mm_set1_pd(1.0 / double(area));
  const float z1 = s1.z, z2 = s2.z;
  const __m128d z01 = _mm_setr_pd(s0.z, flip ? z2 : z1);
  const __m128d z2v = _mm_set_sd(flip ? z1 : z2);
  // dedx and dedy of each edge as the int16 pair of its lane, for pmaddwd by (dx, dy).
  const __m128i steps = _mm_or_si128(_mm_and_si128(dedx, low16), _mm_slli_epi32(dedy, 16));
  box = TinyBox{x0, y0, mask, 0, e_origin, steps, inv_area2, z01, z2v, flip};
  return TinySetup::covered;
}

// raster_simple for tiny triangles, most of a dense mesh's: a clipped box of up to kBox x kBox
// pixels (kBox 4 or 8) and every vertex within kBox pixels (kBox * 256 subpixels) of the centre of
// pixel (x0, y0). Their edge values over the kBox x kBox box at (x0, y0) then stay below 2^25 and
// are computed in int32, relative to that centre (the edge functions' differences do not change),
// with no more state than fits in registers. The setup works on the three edges at once, one an
// SSE2 lane (vertex coordinates fit in int16, so pmaddwd forms the edge products exactly): up to
// the coverage mask, the per-edge scalar setup it replaces took 33 of BM_Raster/2/16's 81 us, 25
// now. The same coverage, depths and order as raster_simple. Returns false, having done nothing,
// for a triangle whose vertices lie farther.
template <int kBox, class Tracker>
[[gnu::always_inline]] static inline bool raster_tiny(const ScreenPrims& prims, size_t prim, int32_t x0, int32_t y0,
                                                      int32_t x1, int32_t y1, const Draw& draw,
                                                      const CompiledProgram& program, TargetSet& targets,
                                                      PassCounters& counters, Tracker tracker, const DrawFacts& facts) {
  TinyBox box;
  switch (tiny_setup<kBox>(prims, prim, x0, y0, x1, y1, box)) {
    case TinySetup::far: return false;
    case TinySetup::empty: return true;
    case TinySetup::covered: break;
  }
  uint64_t mask = box.covered;
  const bool flip = box.flip;
  const __m128i e_origin = box.e_origin, steps = box.steps;
  const __m128d inv_area2 = box.inv_area2, z01 = box.z01, z2v = box.z2v;
  const double inv_area = _mm_cvtsd_f64(inv_area2);
  const PipelineState& state = draw.state;
  float* const depth_buffer = targets.depth;
  const bool depth_test = depth_buffer && state.depth_test;
  const bool depth_write = depth_test && state.depth_write;
  const CompareOp depth_op = state.depth_compare;
  const Format depth_format = targets.depth_format;
  const size_t width = targets.area.width;
  const size_t origin = size_t(y0 - targets.area.y) * width + size_t(x0 - targets.area.x);
  constexpr bool kTracked = !std::is_same_v<Tracker, NoTracker>;
  const bool common_case = deferred_less_depth(state, targets, facts);
  if constexpr (kTracked) {
    if (common_case && tracker.rect().width == width) {
      box.origin = origin;
      raster_tiny_deferred<kBox>(box, prims, prim, program, targets, counters, tracker, facts);
      return true;
    }
  }
  SimpleShading<Tracker> shading(prims, prim, flip, inv_area, draw, program, targets, tracker, facts);
  // The box's origin in the tracker's tile (pixel and quad indices) and its fragments' offsets from
  // there, by bit (TileWorkTracker::box_pixel_offsets, box_quad_offsets).
  uint32_t pixel_base = 0, quad_base = 0;
  const uint32_t *pixel_offsets = nullptr, *quad_offsets = nullptr;
  bool tile_wide = !kTracked;  // the targets' rows as wide as the tile's: their offsets are the same
  if constexpr (kTracked) {
    pixel_base = tracker.pixel_index(x0, y0);
    quad_base = tracker.quad_index(x0, y0);
    pixel_offsets = tracker.template box_pixel_offsets<kBox>();
    quad_offsets = tracker.template box_quad_offsets<kBox>(x0 - tracker.rect().x, y0 - tracker.rect().y);
    tile_wide = tracker.rect().width == width;
  }
  const uint32_t draw_index = prims.draw[prim];
  uint64_t fragments = 0;
  // The fragments in bit order. `common_case`: std::true_type for a float depth buffer tested
  // `less` and written and deferred colors (every fragment of the million-triangle frame), whose
  // tests and shading path are then fixed at compile time; the loop is short of registers, and
  // the state it tested per fragment was reloaded from the stack each time.
  auto fragment_loop = [&](auto common_case) __attribute__((always_inline)) {
    constexpr bool kCommon = decltype(common_case)::value;
    for (; mask; mask &= mask - 1) {
      const uint32_t bit = uint32_t(__builtin_ctzll(mask));
      const int32_t dx = int32_t(bit % kBox), dy = int32_t(bit / kBox);
      ++fragments;
      const uint32_t tile_pixel = kTracked ? pixel_base + pixel_offsets[bit] : 0;
      const uint32_t tile_quad = kTracked ? quad_base + quad_offsets[bit] : 0;
      if (kTracked) tracker.rasterized_at(uint32_t(prim), draw_index, x0 + dx, y0 + dy, tile_pixel, tile_quad);
      // Edge values at the pixel's centre: origin + (dx dedx + dy dedy) kSubpixelOne, exact in int32.
      const __m128i dx_dy = _mm_set1_epi32(kBoxSteps<kBox>.dx_dy[bit]);
      const __m128i e = _mm_add_epi32(e_origin, _mm_slli_epi32(_mm_madd_epi16(steps, dx_dy), kSubpixelBits));
      // Barycentrics double(e) * inv_area: l0, l1 in one vector, l2 in the low lane of another.
      const __m128d l01 = _mm_mul_pd(_mm_cvtepi32_pd(e), inv_area2);
      const __m128d l2 = _mm_mul_sd(_mm_cvtepi32_pd(_mm_shuffle_epi32(e, _MM_SHUFFLE(3, 3, 3, 2))), inv_area2);
      const size_t i = kCommon && kTracked ? origin + pixel_offsets[bit] : origin + size_t(dy) * width + size_t(dx);
      if (kCommon || depth_buffer) {
        // (l0 z0 + l1 z1) + l2 z2, the scalar order.
        const __m128d products = _mm_mul_pd(l01, z01);
        const __m128d sum = _mm_add_sd(_mm_add_sd(products, _mm_unpackhi_pd(products, products)), _mm_mul_sd(l2, z2v));
        const float z = _mm_cvtss_f32(_mm_cvtsd_ss(_mm_setzero_ps(), sum));
        const float depth = kCommon ? clamped_depth(z) : depth_value(depth_format, z);
        // `less` (the common op) as a plain compare: a well-predicted branch instead of the switch's
        // indirect jump per fragment.
        if (kCommon ? !(depth < depth_buffer[i])
                    : depth_test && !(depth_op == CompareOp::less ? depth < depth_buffer[i]
                                                                  : compare<float>(depth_op, depth, depth_buffer[i])))
          continue;
        if (kCommon || depth_write) depth_buffer[i] = depth;
      }
      const int64_t e0 = _mm_cvtsi128_si32(e), e1 = _mm_cvtsi128_si32(_mm_shuffle_epi32(e, _MM_SHUFFLE(1, 1, 1, 1))),
                    e2 = _mm_cvtsi128_si32(_mm_shuffle_epi32(e, _MM_SHUFFLE(2, 2, 2, 2)));
      const double l0 = _mm_cvtsd_f64(l01), l1 = _mm_cvtsd_f64(_mm_unpackhi_pd(l01, l01));
      if (kCommon) shading.template shade_deferred<kTracked>(x0 + dx, y0 + dy, i, tile_pixel, tile_quad, l0, l1, _mm_cvtsd_f64(l2));
      else shading.shade_at(x0 + dx, y0 + dy, i, tile_pixel, tile_quad, e0, e1, e2, l0, l1, _mm_cvtsd_f64(l2));
    }
  };
  if (common_case && tile_wide)
    fragment_loop(std::true_type());
  else fragment_loop(std::false_type());

  counters.fragments += fragments;
  counters.samples_passed += shading.samples_passed;
  return true;
}
#endif

}  // namespace tbdr::raster_detail
