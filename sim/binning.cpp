// Two-pass binning (count, exclusive prefix sum, fill) over the conservative tile range of each
// primitive's bounding box, like cudaraster's coarse raster without the tighter edge test.
//
// The hot loops (measured by bench/pipeline_bench.cpp, bench/README.md): primitives are walked in
// runs of one draw, so the draw's clip rectangle sits in registers instead of being looked up per
// primitive; a power-of-two tile size turns the tile range into shifts; pass 1 first computes each primitive's
// range packed in 4 bytes (first tile, width and height in tiles) in a loop the compiler
// vectorizes, so the counts and the fill read 4 bytes per primitive instead of its bounding box;
// it counts a primitive of up to 2x2 tiles (most of a dense mesh's) once, in a table of its shape,
// a larger one as its box's four corners in a difference table, and pass 2 sums what reaches each
// tile; the fill pass moves a large box's cursors four a row at a time, and keeps the cursors of the 2x2 tiles of the
// latest primitive in one SSE2 register while the next ones start in the same tile, and moves all
// four without a branch on the shape, by 0 for a neighbour the primitive does not reach (whose
// entry goes to a dump slot past the end), or, when few primitives span tiles, branches on "one
// tile".
#include "sim/binning.h"

#include <algorithm>
#include <bit>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/binning_exact.h"
#include "sim/binning_fill.h"
#include "sim/parallel.h"

namespace tbdr {
namespace {

int32_t floor_div(int32_t a, int32_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// floor(a / size) for a tile size: a shift for a power of two (an arithmetic shift is floor
// division), as every preset's tiles are. tile_range() runs per primitive as a pass is
// transformed (parameter-buffer accounting), where four divisions showed in perf.
int32_t tile_floor_div(int32_t a, uint32_t size) {
  // size & (size - 1) rather than std::has_single_bit, which is a library popcount call on the
  // baseline x86-64 target (no POPCNT instruction).
  return size != 0 && (size & (size - 1)) == 0 ? a >> std::countr_zero(size) : floor_div(a, int32_t(size));
}


// The plain loops, for grids the packed form cannot describe (over 2^24 - 1 tiles).
void bin_generic(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                 const TileGrid& grid, TileLists& lists) {
  const uint32_t tiles = grid.tile_count();
  int32_t c0, r0, c1, r1;
  for (size_t p = first; p < last; ++p) {
    if (!tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1)) continue;
    for (int32_t r = r0; r <= r1; ++r)
      for (int32_t c = c0; c <= c1; ++c) ++lists.offsets[size_t(r) * grid.cols + size_t(c) + 1];
  }
  for (uint32_t t = 0; t < tiles; ++t) lists.offsets[t + 1] += lists.offsets[t];
  lists.prims.resize(lists.offsets[tiles]);
  std::vector<uint32_t> cursor(lists.offsets.begin(), lists.offsets.end() - 1);
  for (size_t p = first; p < last; ++p) {
    if (!tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1)) continue;
    for (int32_t r = r0; r <= r1; ++r)
      for (int32_t c = c0; c <= c1; ++c) lists.prims[cursor[size_t(r) * grid.cols + size_t(c)]++] = uint32_t(p);
  }
}

// Packed range: first tile << 8 | min(columns - 1, 15) << 4 | min(rows - 1, 15); 15 means "look
// at the bounding box again" (large primitives, whose many entries pay for it).
constexpr uint32_t kEmpty = 0xffffffffu;
constexpr uint32_t kWide = 15;
// binning=exact: a box over several rows and columns that its triangle does not fill, listed from
// its rows' spans (TrimmedBoxes) instead. Its tile field (2^24 - 1) is no tile's, its shape "wide".
constexpr uint32_t kTrimmed = 0xfffffffeu;

// A block's kTrimmed primitives, in submission order: a box of up to 32 tiles as one word, its first
// tile (bits 0-23), width - 1 (bits 24-28) and which of its tiles (row-major) the triangle overlaps
// (bits 32-63); a larger box as a header word (kSpansTag, its rows in bits 32-63), then a word per
// row it overlaps: the row's first overlapped tile (bits 0-31) and how many (bits 32-63). The spans
// are found once, by trim_boxes: count_shapes and fill_block had each walked the edges again.
struct TrimmedBoxes {
  std::vector<uint64_t>* words = nullptr;
  size_t next = 0;  // the next word count_shapes or fill_block meets
};
// Bit 31: never set in a box word (its first tile is under 2^24, width - 1 in bits 24 - 28).
constexpr uint64_t kSpansTag = uint64_t(1) << 31;

// The next trimmed primitive's tiles: tile_entry(tile, listed) for each tile of a box of up to 32
// (listed: 1 where its triangle overlaps the tile, else 0), every tile of a row without a branch on
// its bit (which tiles a triangle misses is as random as the shapes of small ones); row_span(first
// tile, tiles) for each row of a larger box's spans.
template <class TileEntry, class RowSpan>
void next_trimmed_entries(TrimmedBoxes& trimmed, const TileGrid& grid, TileEntry tile_entry, RowSpan row_span) {
  const uint64_t* word = trimmed.words->data() + trimmed.next;
  if (word[0] & kSpansTag) {
    const uint32_t rows = uint32_t(word[0] >> 32);
    for (uint32_t r = 1; r <= rows; ++r) row_span(uint32_t(word[r]), uint32_t(word[r] >> 32));
    trimmed.next += 1 + rows;
    return;
  }
  ++trimmed.next;
  const uint32_t width = (uint32_t(word[0] >> 24) & 0x1f) + 1;
  uint32_t row_first = uint32_t(word[0]) & 0xffffff;
  for (uint32_t mask = uint32_t(word[0] >> 32); mask != 0; mask >>= width, row_first += grid.cols)
    for (uint32_t c = 0; c < width; ++c) tile_entry(row_first + c, (mask >> c) & 1);
}

// flag (0 or 1) ? a : b, by masks: the compiler turns the conditional into a branch, which
// mispredicts on the random shapes of small primitives.
inline uint32_t pick(uint32_t flag, uint32_t a, uint32_t b) { return b ^ ((a ^ b) & (0u - flag)); }

struct ShiftDiv {
  uint32_t sx, sy;
  int32_t col(int32_t x) const { return x >> sx; }  // arithmetic shift: floor division
  int32_t row(int32_t y) const { return y >> sy; }
};
struct FloorDiv {
  int32_t tw, th;
  int32_t col(int32_t x) const { return floor_div(x, tw); }
  int32_t row(int32_t y) const { return floor_div(y, th); }
};

// Pass 1's ranges of `n` primitives into range[0, n), of plain arithmetic on values (no
// reference a store could alias), which the compiler vectorizes.
template <class Div>
void range_codes(const int32_t* __restrict min_x, const int32_t* __restrict min_y, const int32_t* __restrict max_x,
                 const int32_t* __restrict max_y, size_t n, const Rect& clip, const Div div, uint32_t cols, uint32_t base,
                 uint32_t* __restrict range) {
  const int32_t cx0 = clip.x, cy0 = clip.y;
  const int32_t cx1 = clip.x + int32_t(clip.width) - 1, cy1 = clip.y + int32_t(clip.height) - 1;
  for (size_t p = 0; p < n; ++p) {
    const int32_t x0 = std::max(min_x[p], cx0), y0 = std::max(min_y[p], cy0);
    const int32_t x1 = std::min(max_x[p], cx1), y1 = std::min(max_y[p], cy1);
    const int32_t c0 = div.col(x0), r0 = div.row(y0);
    const uint32_t dc = uint32_t(div.col(x1) - c0), dr = uint32_t(div.row(y1) - r0);
    // Unsigned: an empty range's (discarded) tile may lie far off the grid.
    const uint32_t t = uint32_t(r0) * cols + uint32_t(c0) - base;
    const uint32_t code = (t << 8) | (std::min(dc, kWide) << 4) | std::min(dr, kWide);
    range[p] = x0 > x1 || y0 > y1 ? kEmpty : code;
  }
}

// A range code's extent `dc` x `dr` (tiles - 1) made exact where the code clamped it to kWide
// (large primitives, whose many entries pay for looking at the bounding box again).
void real_extent(const ScreenPrims& prims, size_t p, const std::vector<Rect>& draw_clip, const TileGrid& grid,
                 uint32_t& dc, uint32_t& dr) {
  if (dc != kWide && dr != kWide) [[likely]] return;
  int32_t c0 = 0, r0 = 0, c1 = 0, r1 = 0;
  tile_range(prims, p, draw_clip[prims.draw[p]], grid, c0, r0, c1, r1);
  dc = uint32_t(c1 - c0);
  dr = uint32_t(r1 - r0);
}

// Pass 1's counts of primitives [first, last) (ranges range[0, last - first)) into the block's
// tables (`stride` apart, bin_packed): a primitive of up to 2x2 tiles once in the table of its
// shape, a larger box as its four corners in `box_corners` (a 2D difference table, `cols + 1` a row
// and one row more than the grid: +1 at its first tile, -1 past its right and lower edges, +1 past
// both), which box_corner_counts sums into tiles: four updates a box instead of one a tile (a
// 2048 px triangle has about 30 tiles at 16 px). A trimmed box (binning=exact) counts its tiles
// in the fifth table. Returns how many were larger than 2x2. A function of values, like fill_block.
size_t count_shapes(const ScreenPrims& prims, size_t first, size_t last, const uint32_t* __restrict range,
                    const std::vector<Rect>& draw_clip, const TileGrid& grid, const uint32_t stride,
                    uint32_t* __restrict shape_count, uint32_t* __restrict box_corners, TrimmedBoxes& trimmed) {
  const uint32_t corner_cols = grid.cols + 1;
  uint32_t* const direct_count = shape_count + 4 * size_t(stride);
  size_t wide = 0;
  for (size_t p = first; p < last; ++p) {
    const uint32_t code = range[p - first];
    const uint32_t dc = (code >> 4) & 0xf, dr = code & 0xf;
    if ((dc | dr) <= 1) [[likely]] {
      ++shape_count[size_t(dc + 2 * dr) * stride + (code >> 8)];
      continue;
    }
    if (code == kEmpty) continue;
    ++wide;
    if (code == kTrimmed) {
      next_trimmed_entries(
          trimmed, grid, [&](uint32_t tile, uint32_t listed) { direct_count[tile] += listed; },
          [&](uint32_t tile, uint32_t tiles) {
            for (uint32_t i = 0; i < tiles; ++i) ++direct_count[tile + i];
          });
      continue;
    }
    uint32_t c1 = dc, r1 = dr;
    real_extent(prims, p, draw_clip, grid, c1, r1);
    // Tile t = r0 cols + c0 is corner t + r0 (one division a large box, off the loop's critical path).
    const uint32_t t = code >> 8;
    uint32_t* const corner = box_corners + t + t / grid.cols;
    const size_t right = c1 + 1, below = size_t(r1 + 1) * corner_cols;
    ++corner[0];
    --corner[right];
    --corner[below];
    ++corner[below + right];
  }
  return wide;
}

// The tile counts of a block's box corners (count_shapes), added into its fifth table: the 2D
// prefix sum of the difference table, columns down then rows across (unsigned: the -1s wrap and
// cancel), leaving the difference table summed (bin_packed zeroes it before each binning).
void box_corner_counts(const TileGrid& grid, uint32_t* __restrict box_corners, uint32_t* __restrict direct_count) {
  const uint32_t cols = grid.cols, corner_cols = cols + 1;
  for (uint32_t r = 1; r < grid.rows; ++r)
    for (uint32_t c = 0; c < cols; ++c) box_corners[size_t(r) * corner_cols + c] += box_corners[size_t(r - 1) * corner_cols + c];
  for (uint32_t r = 0; r < grid.rows; ++r) {
    const uint32_t* row = box_corners + size_t(r) * corner_cols;
    uint32_t* tile = direct_count + size_t(r) * cols;
    uint32_t sum = 0;
    for (uint32_t c = 0; c < cols; ++c) tile[c] += sum += row[c];
  }
}

// Pass 3 of primitives [first, last) (ranges range[0, last - first)), with the block's cursors and
// dump slot, in submission order so every list is sorted by primitive index. When pass 1 saw few
// primitives over more than one tile (under a fifth: big tiles, tiny triangles), a branch on "one
// tile" mispredicts less often than the three idle neighbour updates cost. A function of values:
// as a lambda over references, each store into the lists made GCC reload the captured bounds
// (a 64-bit division per primitive for the block's end) and pointers.
template <bool kOneTileBranch>
void fill_block(const ScreenPrims& prims, size_t first, size_t last, const uint32_t* __restrict range,
                const std::vector<Rect>& draw_clip, const TileGrid& grid, uint32_t* __restrict cursor,
                uint32_t* __restrict out, const uint32_t dump, TrimmedBoxes& trimmed) {
  const uint32_t cols = grid.cols;
  // Through memory, each primitive's cursor loads wait for the stores of the previous one in the
  // same tile (store forwarding): what bounded the spatial rows. So while consecutive primitives
  // start in the same tile, as a mesh's neighbours do, the cursors of its 2x2 tiles stay in one
  // SSE2 register (`held`, none: kEmpty), from the second primitive of the run on; a primitive
  // whose tile differs from the previous one's (every one in shuffled order) goes through memory.
  [[maybe_unused]] uint32_t held = kEmpty, previous = kEmpty;  // previous: the latest one through memory
#if defined(__SSE2__)
  // Lanes: the tile, its right, lower and lower-right neighbours. Per shape (dc + 2 dr): how far
  // each cursor moves, and which lanes the primitive reaches (the others write the dump slot).
  static const __m128i kMove[4] = {_mm_setr_epi32(1, 0, 0, 0), _mm_setr_epi32(1, 1, 0, 0), _mm_setr_epi32(1, 0, 1, 0),
                                   _mm_setr_epi32(1, 1, 1, 1)};
  const __m128i dump_lanes = _mm_set1_epi32(int32_t(dump));
  __m128i held_cursors = _mm_setzero_si128();
#endif
  auto release = [&] {
#if defined(__SSE2__)
    if (held == kEmpty) return;
    // One cursor a store (and a load, below): the next tiles often overlap these by a cursor, and
    // a load that straddles two earlier stores cannot take their values by forwarding.
    cursor[held] = lane<0>(held_cursors);
    cursor[held + 1] = lane<1>(held_cursors);
    cursor[held + cols] = lane<2>(held_cursors);
    cursor[held + cols + 1] = lane<3>(held_cursors);
    previous = held;
    held = kEmpty;
#endif
  };
  for (size_t p = first; p < last; ++p) {
    const uint32_t code = range[p - first];
    const uint32_t t = code >> 8;
    uint32_t dc = (code >> 4) & 0xf, dr = code & 0xf;
    if ((dc | dr) <= 1 && code != kEmpty) [[likely]] {
#if defined(__SSE2__)
      if (t != held) release();
      if (t == held || t == previous) {
        if (t != held) {  // the run's second primitive
          held = t;
          held_cursors = _mm_setr_epi32(int32_t(cursor[t]), int32_t(cursor[t + 1]), int32_t(cursor[t + cols]),
                                        int32_t(cursor[t + cols + 1]));
        }
        const uint32_t shape = dc + 2 * dr;
        if (kOneTileBranch && shape == 0) {
          out[lane<0>(held_cursors)] = uint32_t(p);
          held_cursors = _mm_add_epi32(held_cursors, kMove[0]);
          continue;
        }
        // Each lane's slot: its cursor where the primitive reaches (move 1), else the dump slot.
        const __m128i move = kMove[shape];
        const __m128i reached = _mm_cmpeq_epi32(move, _mm_set1_epi32(1));
        const __m128i slot = _mm_or_si128(_mm_and_si128(reached, held_cursors), _mm_andnot_si128(reached, dump_lanes));
        out[lane<0>(slot)] = uint32_t(p);
        out[lane<1>(slot)] = uint32_t(p);
        out[lane<2>(slot)] = uint32_t(p);
        out[lane<3>(slot)] = uint32_t(p);
        held_cursors = _mm_add_epi32(held_cursors, move);
        continue;
      }
#endif
      previous = t;
      const uint32_t i0 = cursor[t];
      out[i0] = uint32_t(p);
      cursor[t] = i0 + 1;
      if (kOneTileBranch && (dc | dr) == 0) continue;
      // The three neighbours' cursors always move (by 0 where the primitive does not reach them),
      // and a neighbour it does not reach takes its write in the dump slot.
      const uint32_t i1 = cursor[t + 1];
      out[pick(dc, i1, dump)] = uint32_t(p);
      cursor[t + 1] = i1 + dc;
      const uint32_t i2 = cursor[t + cols];
      out[pick(dr, i2, dump)] = uint32_t(p);
      cursor[t + cols] = i2 + dr;
      const uint32_t i3 = cursor[t + cols + 1];
      out[pick(dc & dr, i3, dump)] = uint32_t(p);
      cursor[t + cols + 1] = i3 + (dc & dr);
      continue;
    }
    if (code == kEmpty) continue;
    release();
    if (code == kTrimmed) {
      next_trimmed_entries(
          trimmed, grid,
          [&](uint32_t tile, uint32_t listed) {
            const uint32_t slot = cursor[tile];
            out[pick(listed, slot, dump)] = uint32_t(p);  // a tile it misses: the dump slot
            cursor[tile] = slot + listed;
          },
          [&](uint32_t tile, uint32_t tiles) { fill_span(cursor + tile, tiles, out, uint32_t(p)); });
      continue;
    }
    real_extent(prims, p, draw_clip, grid, dc, dr);
    for (uint32_t r = 0; r <= dr; ++r) fill_span(cursor + t + size_t(r) * cols, dc + 1, out, uint32_t(p));
  }
  release();
}

// What bin_packed lists of each primitive besides its whole box (aabb, `whole`): binning=exact
// trims the boxes over several rows and columns to the tiles their triangle overlaps (a box within
// one row or column is exact already: the triangle is connected and spans its box, so it meets every
// tile of a single row or column of them); binning=hierarchical's finest level takes only the
// primitives whose level is 0, leaving the others (`coarser`) to sim/binning_strategies.cpp.
struct BoxRule {
  enum Kind { whole, exact, finest_level } kind = whole;
  uint32_t max_bins = 0;        // finest_level: a primitive over more tiles goes coarser...
  bool finest_is_top = false;   // ...unless level 0 is the only level
  std::vector<TrimmedBoxes> trimmed;            // exact: per block, its words in (*trimmed_words)[block]
  std::vector<std::vector<uint64_t>>* trimmed_words = nullptr;
  std::vector<std::vector<uint32_t>> coarser;   // finest_level: per block
};

// trim_boxes' test of primitive p, whose box spans several rows and columns.
void trim_box(const ScreenPrims& prims, size_t p, size_t first, uint32_t* __restrict range,
              const std::vector<Rect>& draw_clip, const TileGrid& grid, std::vector<uint64_t>& trimmed) {
  const uint32_t code = range[p - first];
  uint32_t dc = (code >> 4) & 0xf, dr = code & 0xf;
  real_extent(prims, p, draw_clip, grid, dc, dr);
  const uint64_t box = uint64_t(dc + 1) * (dr + 1);
  const uint32_t first_tile = code >> 8;
  if (box > 32) {
    const size_t header = trimmed.size();
    trimmed.push_back(kSpansTag);
    uint64_t listed = 0;
    exact_rows(prims, p, draw_clip[prims.draw[p]], grid, [&](int32_t r, int32_t a, int32_t b) {
      listed += uint64_t(b - a + 1);
      trimmed.push_back(uint64_t(b - a + 1) << 32 | (uint32_t(r) * grid.cols + uint32_t(a)));
    });
    if (listed == box) {  // the triangle meets every tile of its box
      trimmed.resize(header);
      return;
    }
    range[p - first] = kTrimmed;
    trimmed[header] |= uint64_t(trimmed.size() - header - 1) << 32;
    return;
  }
  const int32_t row0 = int32_t(first_tile / grid.cols), col0 = int32_t(first_tile % grid.cols);
  const uint32_t mask = exact_small_box_bits(prims, p, grid, col0, row0, dc + 1, dr + 1);
  if (mask == (box == 32 ? ~0u : (1u << box) - 1)) return;  // the triangle meets every tile of its box
  range[p - first] = kTrimmed;
  trimmed.push_back(uint64_t(mask) << 32 | uint64_t(dc) << 24 | first_tile);
}

// Bit i set where range[i] (i < n <= 64) is flagged: four codes a compare (SSE2) where `flagged4`
// gives the lanes' flags (all ones where flagged), the rest by `flagged`. Most of a dense mesh's
// codes are not flagged, so a loop that branched on each code spent its time on the codes it skipped.
template <class Flagged4, class Flagged>
uint64_t flag_bits(const uint32_t* range, size_t n, Flagged4 flagged4, Flagged flagged) {
  uint64_t bits = 0;
  size_t i = 0;
#if defined(__SSE2__)
  for (; i + 4 <= n; i += 4) {
    const __m128i lanes = flagged4(_mm_loadu_si128(reinterpret_cast<const __m128i*>(range + i)));
    bits |= uint64_t(_mm_movemask_ps(_mm_castsi128_ps(lanes))) << i;
  }
#else
  (void)flagged4;
#endif
  for (; i < n; ++i) bits |= uint64_t(flagged(range[i])) << i;
  return bits;
}

// Calls f(p) for each primitive of [first, last) whose code (range[p - first]) `bits_of` flags, in
// order, a chunk of 64 at a time; `prefetch(p)` first for each of the chunk's where they are under
// half of it (more are nearly a sequential stream, which the hardware prefetches itself; on the
// lent Xeon BM_BinStrategy/exact/2048/32/spatial, where every box is tested, ran 16 % slower with
// every chunk prefetched than before: bench/README.md "binning=exact's tests").
template <class BitsOf, class Prefetch, class F>
void for_flagged(size_t first, size_t last, const uint32_t* range, BitsOf bits_of, Prefetch prefetch, F f) {
  constexpr size_t kChunk = 64;
  for (size_t chunk = first; chunk < last; chunk += kChunk) {
    uint64_t found = bits_of(range + (chunk - first), std::min(last - chunk, kChunk));
    if (std::popcount(found) < int(kChunk / 2))
      for (uint64_t bits = found; bits != 0; bits &= bits - 1) prefetch(chunk + size_t(std::countr_zero(bits)));
    for (; found != 0; found &= found - 1) f(chunk + size_t(std::countr_zero(found)));
  }
}

#if defined(__SSE2__)
// Per lane: all ones where the code's column and row fields (dc, dr) are as `test` says and the code is no kEmpty.
template <class Test>
__m128i fields_flag(__m128i code, Test test) {
  const __m128i nibble = _mm_set1_epi32(0xf);
  const __m128i dc = _mm_and_si128(_mm_srli_epi32(code, 4), nibble), dr = _mm_and_si128(code, nibble);
  return _mm_andnot_si128(_mm_cmpeq_epi32(code, _mm_set1_epi32(int32_t(kEmpty))), test(dc, dr));
}
#endif

// A box over several rows and columns (binning=exact's boxes to test).
uint64_t several_rows_and_columns(const uint32_t* range, size_t n) {
  return flag_bits(
      range, n,
      [](auto code) {
#if defined(__SSE2__)
        return fields_flag(code, [](__m128i dc, __m128i dr) {
          const __m128i zero = _mm_setzero_si128();
          return _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi32(dc, zero), _mm_cmpeq_epi32(dr, zero)),
                                  _mm_set1_epi32(-1));
        });
#else
        return code;
#endif
      },
      [](uint32_t code) { return (code & 0xf0) != 0 && (code & 0xf) != 0 && code != kEmpty; });
}

// A box over more than max_bins tiles, or one whose extent the code clamped (binning=hierarchical's
// primitives that may go to a coarser level).
uint64_t over_max_bins(const uint32_t* range, size_t n, uint32_t max_bins) {
  return flag_bits(
      range, n,
      [max_bins](auto code) {
#if defined(__SSE2__)
        return fields_flag(code, [max_bins](__m128i dc, __m128i dr) {
          const __m128i one = _mm_set1_epi32(1), wide = _mm_set1_epi32(int32_t(kWide));
          // (dc + 1) (dr + 1) <= 256: the 16-bit product is the 32-bit one.
          const __m128i tiles = _mm_mullo_epi16(_mm_add_epi32(dc, one), _mm_add_epi32(dr, one));
          const __m128i over = _mm_cmpgt_epi32(tiles, _mm_set1_epi32(int32_t(std::min(max_bins, 256u))));
          return _mm_or_si128(over, _mm_or_si128(_mm_cmpeq_epi32(dc, wide), _mm_cmpeq_epi32(dr, wide)));
        });
#else
        return code;
#endif
      },
      [max_bins](uint32_t code) {
        const uint32_t dc = (code >> 4) & 0xf, dr = code & 0xf;
        return code != kEmpty && (dc == kWide || dr == kWide || (dc + 1) * (dr + 1) > max_bins);
      });
}

// binning=exact over a block's ranges: each box over several rows and columns whose triangle misses
// some of its tiles becomes kTrimmed, its word appended to `trimmed` (only these boxes are tested;
// the rest keep aabb's packed path).
void trim_boxes(const ScreenPrims& prims, size_t first, size_t last, uint32_t* __restrict range,
                const std::vector<Rect>& draw_clip, const TileGrid& grid, std::vector<uint64_t>& trimmed) {
  trimmed.clear();
  // Which boxes span several rows and columns found a chunk at a time, their vertices prefetched,
  // then the tests: tested one by one as met, each waited for its vertices after a mispredicted
  // branch (perf: 56 % of edges_of on its first load); 31 -> 21 ms on BM_BinStrategy/exact/32/16
  // (bench/README.md "binning=exact's tests").
  for_flagged(
      first, last, range, several_rows_and_columns,
      [&](size_t p) {
        for (int k = 0; k < 3; ++k) __builtin_prefetch(&prims.vertex_of(k, p));
      },
      [&](size_t p) { trim_box(prims, p, first, range, draw_clip, grid, trimmed); });
}

// binning=hierarchical's level 0 over a block's ranges: a primitive over more than max_bins tiles
// (a coarser level's, Mesa panvk's choice in choose_level) is dropped from the tile lists into `coarser`.
void keep_finest_level(const ScreenPrims& prims, size_t first, size_t last, uint32_t* __restrict range,
                       const std::vector<Rect>& draw_clip, const TileGrid& grid, uint32_t max_bins,
                       std::vector<uint32_t>& coarser) {
  auto bits_of = [max_bins](const uint32_t* codes, size_t n) { return over_max_bins(codes, n, max_bins); };
  for_flagged(first, last, range, bits_of, [](size_t) {}, [&](size_t p) {
    const uint32_t code = range[p - first];
    uint32_t dc = (code >> 4) & 0xf, dr = code & 0xf;
    real_extent(prims, p, draw_clip, grid, dc, dr);
    if (uint64_t(dc + 1) * (dr + 1) <= max_bins) return;
    coarser.push_back(uint32_t(p));
    range[p - first] = kEmpty;
  });
}

// Pass 2 of bin_packed over tiles [t0, t1): each tile's entries per block (from block b's tables,
// `tables(b)`), summed from 0 at t0 in (tile, block) order into offsets[t] (the tile's first entry)
// and cursors[cursor_stride * b + t] (block b's first slot in it); returns the range's entries.
// `multi` gets the range's primitives counted over more than one tile.
template <class Tables>
uint32_t tile_range_sums(uint32_t t0, uint32_t t1, uint32_t blocks, Tables tables, uint32_t stride, uint32_t cols,
                         uint32_t* offsets, uint32_t* cursors, size_t cursor_stride, size_t& multi) {
  uint32_t entries = 0;
  for (uint32_t t = t0; t < t1; ++t) {
    offsets[t] = entries;
    for (uint32_t b = 0; b < blocks; ++b) {
      const uint32_t* n11 = tables(b);
      const uint32_t* n21 = n11 + stride;
      const uint32_t* n12 = n11 + 2 * size_t(stride);
      const uint32_t* n22 = n11 + 3 * size_t(stride);
      const uint32_t* direct_count = n11 + 4 * size_t(stride);
      multi += n21[t] + n12[t] + n22[t];
      cursors[cursor_stride * b + t] = entries;
      // Left and upper neighbours' entries sit in front of the tile's (the tables' padding).
      entries += n11[t] + n21[t] + n21[int64_t(t) - 1] + n12[t] + n12[int64_t(t) - cols] + n22[t] +
                 n22[int64_t(t) - 1] + n22[int64_t(t) - cols] + n22[int64_t(t) - cols - 1] + direct_count[t];
    }
  }
  return entries;
}

template <class Div, class Lists>
void bin_packed(const ScreenPrims& prims, size_t first_prim, size_t last_prim, const std::vector<Rect>& draw_clip,
                const TileGrid& grid, const Div div, uint32_t threads, Lists& lists, BoxRule& rule) {
  const size_t n = last_prim - first_prim;
  const uint32_t tiles = grid.tile_count();
  const uint32_t cols = grid.cols;
  // Threads take contiguous blocks of primitives, each with its own counts and cursors; a tile's
  // entries of block 0 come first, then block 1's, so every list stays in submission order and
  // equals the one-thread result. A block is worth a thread only with many primitives per tile.
  const uint32_t blocks =
      uint32_t(std::clamp<size_t>(std::min<size_t>(n / 65536, n / (size_t(tiles) * 4 + 1)), 1, std::max(1u, threads)));
  auto block_begin = [&](uint32_t b) { return first_prim + n * b / blocks; };
  // Pass 1 counts a primitive of up to 2x2 tiles once, by shape (1x1, 2x1, 1x2, 2x2) at its first
  // tile, in one of four tables (one read-modify-write instead of four; the shape of small
  // primitives is random, so it indexes the table instead of branching); pass 2 adds up what
  // reaches each tile from its own, left, upper and upper-left tables' entries. Larger primitives
  // count as their box's corners (count_shapes), summed into the fifth table before pass 2. Each
  // table has cols + 1 zeros in front, so a tile's upper-left neighbour exists for every tile. Five
  // tables and the corners' per block.
  const uint32_t front = cols + 1, stride = front + tiles;
  const size_t corner_size = size_t(grid.rows + 1) * (cols + 1), block_counts = size_t(stride) * 5 + corner_size;
  auto& counts = lists.scratch_counts;
  counts.resize(block_counts * blocks);  // each block zeroes its own tables on its thread (pass 1)
  auto tables = [&](uint32_t b) { return counts.data() + block_counts * b + front; };  // table k at + k * stride
  auto box_corners = [&](uint32_t b) { return tables(b) - front + 5 * size_t(stride); };
  lists.scratch_ranges.resize(n);
  uint32_t* range = lists.scratch_ranges.data();  // of primitive p at p - first_prim
  const int32_t* min_x = prims.min_x.data();
  const int32_t* min_y = prims.min_y.data();
  const int32_t* max_x = prims.max_x.data();
  const int32_t* max_y = prims.max_y.data();
  const uint32_t* draw = prims.draw.data();

  // Pass 1: range and count, in runs of one draw (one run when every draw has the same clip
  // rectangle: the loop then keeps everything in registers).
  const int32_t base = grid.first_row * int32_t(cols) + grid.first_col;
  const bool one_clip = std::all_of(draw_clip.begin(), draw_clip.end(), [&](const Rect& r) {
    return r.x == draw_clip[0].x && r.y == draw_clip[0].y && r.width == draw_clip[0].width &&
           r.height == draw_clip[0].height;
  });
  std::vector<size_t> wide(blocks, 0);  // per block: primitives over more than 2x2 tiles
  rule.trimmed.assign(blocks, TrimmedBoxes{});
  if (rule.kind == BoxRule::exact) {
    rule.trimmed_words->resize(blocks);
    for (uint32_t b = 0; b < blocks; ++b) rule.trimmed[b].words = &(*rule.trimmed_words)[b];
  }
  rule.coarser.assign(blocks, {});
  for_blocks(blocks, [&](uint32_t b) {
    std::fill(counts.begin() + ptrdiff_t(block_counts * b), counts.begin() + ptrdiff_t(block_counts * (b + 1)), 0u);
    uint32_t* shape_count = tables(b);
    // The ranges first, in a loop of plain arithmetic the compiler vectorizes, then the counts.
    auto range_run = [&](size_t begin, size_t end, const Rect& clip) {
      range_codes(min_x + begin, min_y + begin, max_x + begin, max_y + begin, end - begin, clip, div, cols,
                  uint32_t(base), range + (begin - first_prim));
    };
    const size_t first = block_begin(b), last = block_begin(b + 1);
    if (one_clip && first < last)
      range_run(first, last, draw_clip[0]);
    else
      for (size_t begin = first; begin < last;) {
        const uint32_t d = draw[begin];
        size_t end = begin + 1;
        while (end < last && draw[end] == d) ++end;
        range_run(begin, end, draw_clip[d]);
        begin = end;
      }
    uint32_t* block_range = range + (first - first_prim);
    if (rule.kind == BoxRule::exact) trim_boxes(prims, first, last, block_range, draw_clip, grid, *rule.trimmed[b].words);
    if (rule.kind == BoxRule::finest_level && !rule.finest_is_top)
      keep_finest_level(prims, first, last, block_range, draw_clip, grid, rule.max_bins, rule.coarser[b]);
    wide[b] = count_shapes(prims, first, last, block_range, draw_clip, grid, stride, shape_count, box_corners(b),
                           rule.trimmed[b]);
    box_corner_counts(grid, box_corners(b), shape_count + 4 * size_t(stride));
    rule.trimmed[b].next = 0;
  });

  // Pass 2: each tile's count per block, then the exclusive prefix sum over (tile, block) gives
  // each block's first slot in each tile. Serial, it cost tiles x blocks steps on one thread (5.8 M
  // instructions at 16 threads on the million frame): each block's thread sums a range of tiles from
  // 0 (tile_range_sums), and the fill pass adds the ranges' bases in front of its own work.
  const size_t cursor_stride = size_t(tiles) + cols + 2;
  auto& cursors = lists.scratch_cursors;
  cursors.resize(cursor_stride * blocks);
  auto tile_begin = [&](uint32_t r) { return uint32_t(uint64_t(tiles) * r / blocks); };
  std::vector<uint32_t> range_base(blocks + 1, 0);  // entries in front of tile range r, once summed
  size_t multi_tile = 0;  // primitives over more than one tile, for the choice of fill loop
  std::vector<size_t> range_multi(blocks, 0);
  for_blocks(blocks, [&](uint32_t r) {
    range_base[r + 1] = tile_range_sums(tile_begin(r), tile_begin(r + 1), blocks, [&](uint32_t b) { return tables(b); },
                                        stride, cols, lists.offsets.data(), cursors.data(), cursor_stride, range_multi[r]);
  });
  for (uint32_t b = 0; b < blocks; ++b) multi_tile += wide[b] + range_multi[b];
  for (uint32_t r = 0; r < blocks; ++r) range_base[r + 1] += range_base[r];  // unsigned: wraps as one sum would
  const uint32_t entries = range_base[blocks];
  lists.offsets[tiles] = entries;
  lists.prims.resize(size_t(entries) + blocks);  // + a dump slot per block
  uint32_t* out = lists.prims.data();

  // Pass 3: the bases of pass 2's tile ranges added (block b's cursors, and the offsets of tile range
  // b), then fill_block. The fill moves the cursors of the cols + 2 padding tiles past the grid by 0
  // only; they point at the block's dump slot past the last entry.
  const bool one_tile_branch = multi_tile * 5 < n;
  for_blocks(blocks, [&](uint32_t b) {
    uint32_t* cursor = cursors.data() + cursor_stride * b;
    for (uint32_t r = 1; r < blocks; ++r)
      for (uint32_t t = tile_begin(r); t < tile_begin(r + 1); ++t) cursor[t] += range_base[r];
    std::fill(cursor + tiles, cursor + cursor_stride, entries + b);
    for (uint32_t t = tile_begin(b); t < tile_begin(b + 1); ++t) lists.offsets[t] += range_base[b];
    const size_t first = block_begin(b), last = block_begin(b + 1);
    const uint32_t* block_range = range + (first - first_prim);
    if (one_tile_branch)
      fill_block<true>(prims, first, last, block_range, draw_clip, grid, cursor, out, entries + b, rule.trimmed[b]);
    else
      fill_block<false>(prims, first, last, block_range, draw_clip, grid, cursor, out, entries + b, rule.trimmed[b]);
  });
  lists.prims.resize(entries);  // drops the dump slots (no reallocation)
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

bool tile_range(const ScreenPrims& prims, size_t p, const Rect& clip, const TileGrid& grid, int32_t& c0, int32_t& r0,
                int32_t& c1, int32_t& r1) {
  const int32_t x0 = std::max(prims.min_x[p], clip.x);
  const int32_t y0 = std::max(prims.min_y[p], clip.y);
  const int32_t x1 = std::min(prims.max_x[p], clip.x + int32_t(clip.width) - 1);
  const int32_t y1 = std::min(prims.max_y[p], clip.y + int32_t(clip.height) - 1);
  if (x0 > x1 || y0 > y1) return false;
  c0 = tile_floor_div(x0, grid.tile_width) - grid.first_col;
  r0 = tile_floor_div(y0, grid.tile_height) - grid.first_row;
  c1 = tile_floor_div(x1, grid.tile_width) - grid.first_col;
  r1 = tile_floor_div(y1, grid.tile_height) - grid.first_row;
  return true;
}

namespace {

// Calls each(p, tiles) with the number of tiles bin_triangles lists each of primitives [first, last)
// in, in runs of one draw (its clip rectangle in registers), the tile division as `div`.
template <class Div, class Each>
void count_touched(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                   const Div div, Each each) {
  const int32_t* min_x = prims.min_x.data();
  const int32_t* min_y = prims.min_y.data();
  const int32_t* max_x = prims.max_x.data();
  const int32_t* max_y = prims.max_y.data();
  const uint32_t* draw = prims.draw.data();
  for (size_t begin = first; begin < last;) {
    const uint32_t d = draw[begin];
    size_t end = begin + 1;
    while (end < last && draw[end] == d) ++end;
    const Rect& clip = draw_clip[d];
    const int32_t cx0 = clip.x, cy0 = clip.y;
    const int32_t cx1 = clip.x + int32_t(clip.width) - 1, cy1 = clip.y + int32_t(clip.height) - 1;
    for (size_t p = begin; p < end; ++p) {
      const int32_t x0 = std::max(min_x[p], cx0), y0 = std::max(min_y[p], cy0);
      const int32_t x1 = std::min(max_x[p], cx1), y1 = std::min(max_y[p], cy1);
      each(p, x0 > x1 || y0 > y1 ? 0
                                 : uint64_t(div.col(x1) - div.col(x0) + 1) * uint64_t(div.row(y1) - div.row(y0) + 1));
    }
    begin = end;
  }
}

// count_touched with the tile division the grid allows (shifts for power-of-two tiles).
template <class Each>
void count_touched_on(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, Each each) {
  if (std::has_single_bit(grid.tile_width) && std::has_single_bit(grid.tile_height))
    count_touched(prims, first, last, draw_clip,
                  ShiftDiv{uint32_t(std::countr_zero(grid.tile_width)), uint32_t(std::countr_zero(grid.tile_height))},
                  each);
  else
    count_touched(prims, first, last, draw_clip, FloorDiv{int32_t(grid.tile_width), int32_t(grid.tile_height)}, each);
}

}  // namespace

void tiles_touched(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                   const TileGrid& grid, uint64_t* touched) {
  count_touched_on(prims, first, last, draw_clip, grid,
                   [touched, first](size_t p, uint64_t n) { touched[p - first] = n; });
}

uint64_t listed_bytes(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, const uint64_t* record_bytes) {
  const uint32_t* draw = prims.draw.data();
  uint64_t sum = 0;
  count_touched_on(prims, first, last, draw_clip, grid,
                   [&sum, draw, record_bytes](size_t p, uint64_t n) { sum += record_bytes[draw[p]] + 4 * n; });
  return sum;
}

void bin_triangles(const ScreenPrims& prims, const std::vector<Rect>& draw_clip, const TileGrid& grid, TileLists& lists,
                   uint32_t threads) {
  bin_triangles(prims, 0, prims.size(), draw_clip, grid, lists, threads);
}

namespace {

// bin_packed with the tile division the grid allows (shifts for power-of-two tiles).
template <class Lists>
void bin_packed_on(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                   const TileGrid& grid, uint32_t threads, Lists& lists, BoxRule& rule) {
  if (std::has_single_bit(grid.tile_width) && std::has_single_bit(grid.tile_height))
    return bin_packed(
        prims, first, last, draw_clip, grid,
        ShiftDiv{uint32_t(std::countr_zero(grid.tile_width)), uint32_t(std::countr_zero(grid.tile_height))}, threads,
        lists, rule);
  bin_packed(prims, first, last, draw_clip, grid, FloorDiv{int32_t(grid.tile_width), int32_t(grid.tile_height)},
             threads, lists, rule);
}

}  // namespace

void bin_triangles(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                   const TileGrid& grid, TileLists& lists, uint32_t threads) {
  const uint32_t tiles = grid.tile_count();
  lists.offsets.assign(size_t(tiles) + 1, 0);
  if (tiles >= kPackedTileLimit) return bin_generic(prims, first, last, draw_clip, grid, lists);
  BoxRule rule;
  bin_packed_on(prims, first, last, draw_clip, grid, threads, lists, rule);
}

void bin_exact_packed(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, TileLists& lists, uint32_t threads) {
  lists.offsets.assign(size_t(grid.tile_count()) + 1, 0);
  BoxRule rule;
  rule.kind = BoxRule::exact;
  rule.trimmed_words = &lists.scratch_trimmed;
  bin_packed_on(prims, first, last, draw_clip, grid, threads, lists, rule);
}

void bin_finest_level(const ScreenPrims& prims, size_t first, size_t last, const std::vector<Rect>& draw_clip,
                      const TileGrid& grid, uint32_t max_bins, bool finest_is_top, HierarchyLists& lists,
                      std::vector<uint32_t>& coarser, uint32_t threads) {
  BoxRule rule;
  rule.kind = BoxRule::finest_level;
  rule.max_bins = max_bins;
  rule.finest_is_top = finest_is_top;
  bin_packed_on(prims, first, last, draw_clip, grid, threads, lists, rule);
  coarser.clear();
  for (const std::vector<uint32_t>& block : rule.coarser) coarser.insert(coarser.end(), block.begin(), block.end());
}

}  // namespace tbdr
