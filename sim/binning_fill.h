// The list fill's inner writes, shared by bin_triangles' fill pass (sim/binning.cpp) and the
// benchmark floor that times that pass alone (bench/pipeline_bench.cpp BM_FillFloor).
#pragma once

#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace tbdr {

#if defined(__SSE2__)
// Lane k of four uint32 lanes.
template <int k>
inline uint32_t lane(__m128i v) {
  return uint32_t(_mm_cvtsi128_si32(_mm_shuffle_epi32(v, _MM_SHUFFLE(k, k, k, k))));
}
#endif

// Primitive p's entries in the `width` tiles of one row of its box, whose cursors are row[0, width):
// four cursors a load, add and store (SSE2) where the span is that wide, so a large box's
// cursors move without a load-increment-store each.
inline void fill_span(uint32_t* __restrict row, uint32_t width, uint32_t* __restrict out, uint32_t p) {
  uint32_t c = 0;
#if defined(__SSE2__)
  const __m128i one = _mm_set1_epi32(1);
  for (; c + 4 <= width; c += 4) {
    const __m128i slots = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + c));
    out[lane<0>(slots)] = p;
    out[lane<1>(slots)] = p;
    out[lane<2>(slots)] = p;
    out[lane<3>(slots)] = p;
    _mm_storeu_si128(reinterpret_cast<__m128i*>(row + c), _mm_add_epi32(slots, one));
  }
#endif
  for (; c < width; ++c) out[row[c]++] = p;
}

}  // namespace tbdr
