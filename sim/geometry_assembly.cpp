// Triangle assembly: a draw's triangles clipped, culled and written as fixed-point primitives
// (eight at a time with AVX2); and the merging of the geometry threads' blocks after a round.
#include "sim/geometry_assembly.h"

#include "sim/parallel.h"

namespace tbdr::geometry_internal {

// Emits the triangle of vertices `v` (indices into the pass's pool, or kLocalVertex ones), `s`
// their screen positions, through `out`; returns false if culled.
[[gnu::always_inline]] inline bool emit_screen_triangle(const uint32_t v[3], const ScreenVertex* const s[3],
                                                        const Draw& draw, uint32_t draw_index, PrimWriter& out) {
  // Read once into locals: a store into the int32_t arrays could alias the vertices.
  const int32_t x[3] = {s[0]->x, s[1]->x, s[2]->x}, y[3] = {s[0]->y, s[1]->y, s[2]->y};
  // Vulkan "Basic Polygon Rasterization": a = -1/2 * sum(x_i * y_(i+1) - x_(i+1) * y_i) in
  // framebuffer coordinates (y down); a > 0 is counter-clockwise. Exact in int64.
  int64_t twice_area = 0;
  for (int i = 0; i < 3; ++i) {
    const int j = (i + 1) % 3;
    twice_area -= int64_t(x[i]) * y[j] - int64_t(x[j]) * y[i];
  }
  if (twice_area == 0) return false;  // zero area: back-facing by the spec, and covers nothing
  const bool ccw = twice_area > 0;
  const bool front = (draw.state.front_face == FrontFace::counter_clockwise) == ccw;
  switch (draw.state.cull) {
    case CullMode::none: break;
    case CullMode::front: if (front) return false; break;
    case CullMode::back: if (!front) return false; break;
    case CullMode::front_and_back: return false;
  }
  if (out.full()) out.make_room();
  out.write(v, x, y, draw_index, front);
  return true;
}

// Clips triangle `idx` (mesh vertices), one vertex of it outside the view volume, and emits its
// polygon as a fan of triangles.
void assemble_clipped(const DrawAssembly& a, const std::array<uint32_t, 3>& idx, AssemblyOutput& out) {
  ++out.counts.primitives_clipped;
  std::vector<ClipVertex>& poly = out.clipper.poly;
  const size_t stride = size_t(out.pool.varying_stride);
  poly.resize(3);
  for (size_t k = 0; k < 3; ++k) {
    ClipVertex& c = poly[k];
    c.pos = clip_position(*a.draw, a.mesh->positions[idx[k]]);
    // The varyings the pass keeps; the rest are never read (ScreenPrims::varying_stride).
    const float* varyings = a.pool->vertex_varyings.data() + size_t(a.pool_index[idx[k]]) * stride;
    std::copy(varyings, varyings + stride, c.varying.begin());
    std::fill(c.varying.begin() + ptrdiff_t(stride), c.varying.end(), 0.0f);
  }
  const Plane planes[] = {kPositiveW, kNearPlane, kFarPlane, a.mapping.guard[0],
                          a.mapping.guard[1], a.mapping.guard[2], a.mapping.guard[3]};
  for (const Plane& plane : planes) {
    if (poly.size() < 3) break;
    clip_polygon(poly, plane, out.clipper.scratch);
  }
  if (poly.size() < 3) {
    ++out.counts.primitives_culled;
    return;
  }
  // The polygon's vertices mapped to the framebuffer and added to the pool; one that cannot be
  // mapped culls the triangles using it. A triangle clipped by the 7 planes has at most 10 in
  // exact arithmetic; rounding could make a plane add more.
  constexpr uint32_t kUnmapped = UINT32_MAX;
  std::vector<ScreenVertex>& mapped = out.clipper.mapped;
  std::vector<uint32_t>& mapped_index = out.clipper.mapped_index;
  mapped.resize(poly.size());
  mapped_index.resize(poly.size());
  for (size_t k = 0; k < poly.size(); ++k)
    mapped_index[k] = to_screen(poly[k], a.mapping, mapped[k])
                          ? out.pool.add_vertex(mapped[k], poly[k].varying.data()) | out.new_vertex_flag
                          : kUnmapped;
  // A clipped polygon becomes a fan of triangles, each rasterized on its own.
  uint64_t fan_emitted = 0;
  for (size_t k = 1; k + 1 < poly.size(); ++k) {
    const uint32_t v[3] = {mapped_index[0], mapped_index[k], mapped_index[k + 1]};
    if (v[0] == kUnmapped || v[1] == kUnmapped || v[2] == kUnmapped) continue;
    const ScreenVertex* const screen[3] = {&mapped[0], &mapped[k], &mapped[k + 1]};
    if (emit_screen_triangle(v, screen, *a.draw, a.index, out.prims)) ++fan_emitted;
  }
  out.counts.primitives += fan_emitted;
  if (fan_emitted == 0) ++out.counts.primitives_culled;
}

#if defined(__AVX2__) && defined(__BMI2__)
// assemble_triangles' common case eight triangles at a time with AVX2: an indexed list's triangles
// whose vertices are all inside the view volume and mapped. Each lane does emit_screen_triangle's
// operations on one triangle (the signed area in int64, exact as there; the same bounds and cull
// test), and the kept lanes are packed in order (a permutation per kept-lane mask) and written as
// eight entries of each array: the same primitives, in the same order, as the scalar loop writes.
// Million-triangle frame, one thread: 149 instructions a triangle in the scalar loop.

// For each 8-bit mask of kept lanes, their numbers in order (then zeros).
struct KeptLanes {
  uint8_t lanes[256][8];
  constexpr KeptLanes() : lanes() {
    for (int mask = 0; mask < 256; ++mask) {
      int n = 0;
      for (int lane = 0; lane < 8; ++lane)
        if (mask >> lane & 1) lanes[mask][n++] = uint8_t(lane);
    }
  }
};
constexpr KeptLanes kKeptLanes{};

// The draw's cull test as lane masks: `front_is_ccw` (its front face), and which faces it culls.
struct GroupCull {
  bool front_is_ccw, cull_front, cull_back;
  explicit GroupCull(const PipelineState& state)
      : front_is_ccw(state.front_face == FrontFace::counter_clockwise),
        cull_front(state.cull == CullMode::front || state.cull == CullMode::front_and_back),
        cull_back(state.cull == CullMode::back || state.cull == CullMode::front_and_back) {}
};

// The vertex gathers index the pool's int32 fields as 4 * vertex + field in int32 lanes.
constexpr size_t kGatherableVertices = size_t(1) << 29;

// Vertex k (0, 1, 2) of each of eight consecutive triangles of a list, from the 24 indices in rows
// r[0..2]: triangle j's vertex k is index 3 j + k, lane (3 j + k) % 8 of row (3 j + k) / 8. Two
// blends put each wanted index in a lane of its own, a permutation puts them in triangle order.
template <int kVertex>
__m256i list_column(const __m256i r[3]) {
  // Lanes taken from r[1] and r[2] (the rest from r[0]; blend's masks are immediates), and the
  // permutation, for vertices 0, 1, 2.
  constexpr int kFromSecond[3] = {0x92, 0x24, 0x49}, kFromThird[3] = {0x24, 0x49, 0x92};
  alignas(32) static constexpr int32_t kOrder[3][8] = {
      {0, 3, 6, 1, 4, 7, 2, 5}, {1, 4, 7, 2, 5, 0, 3, 6}, {2, 5, 0, 3, 6, 1, 4, 7}};
  const __m256i mixed =
      _mm256_blend_epi32(_mm256_blend_epi32(r[0], r[1], kFromSecond[kVertex]), r[2], kFromThird[kVertex]);
  return _mm256_permutevar8x32_epi32(mixed, _mm256_load_si256(reinterpret_cast<const __m256i*>(kOrder[kVertex])));
}

// Bit i of the result is lane i's sign (or equality) test: `even` holds lanes 0, 2, 4, 6 (its four
// 64-bit lanes), `odd` lanes 1, 3, 5, 7.
uint32_t lane_bits(__m256i even, __m256i odd) {
  const uint32_t e = uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(even)));
  const uint32_t o = uint32_t(_mm256_movemask_pd(_mm256_castsi256_pd(odd)));
  return _pdep_u32(e, 0x55) | _pdep_u32(o, 0xaa);
}

// Whether every vertex of the group (`index`: its three columns) is inside and mapped: the `inside`
// bytes read as the low byte of a 32-bit gather (GeometryRun pads the array by 3 bytes). Each is 0,
// 1 or 2, so all three are 2 exactly when their AND is.
bool group_mapped(const DrawAssembly& a, const __m256i index[3]) {
  if (a.all_mapped) return true;
  const int* const inside = reinterpret_cast<const int*>(a.inside);
  const __m256i all_inside = _mm256_and_si256(
      _mm256_and_si256(_mm256_i32gather_epi32(inside, index[0], 1), _mm256_i32gather_epi32(inside, index[1], 1)),
      _mm256_i32gather_epi32(inside, index[2], 1));
  const __m256i low_bytes = _mm256_and_si256(all_inside, _mm256_set1_epi32(0xff));
  return _mm256_movemask_epi8(_mm256_cmpeq_epi32(low_bytes, _mm256_set1_epi32(2))) == -1;
}

// The lanes emit_screen_triangle keeps (bits), and in `front` those that face front: from the sum
// over i of x_i y_j - x_j y_i (j = i + 1 mod 3), its -twice_area, in int64 (the products of the
// even lanes' int32 values, then of the odd lanes', shifted down).
uint32_t kept_lanes(const __m256i x[3], const __m256i y[3], const GroupCull& cull, uint32_t& front) {
  auto cross_sum = [&](auto odd) {
    auto product = [&](__m256i p, __m256i q) {
      if constexpr (decltype(odd)::value) return _mm256_mul_epi32(_mm256_srli_epi64(p, 32), _mm256_srli_epi64(q, 32));
      else return _mm256_mul_epi32(p, q);
    };
    __m256i sum = _mm256_setzero_si256();
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3;
      sum = _mm256_add_epi64(sum, _mm256_sub_epi64(product(x[i], y[j]), product(x[j], y[i])));
    }
    return sum;
  };
  const __m256i even = cross_sum(std::false_type()), odd = cross_sum(std::true_type());
  const __m256i zero = _mm256_setzero_si256();
  const uint32_t degenerate = lane_bits(_mm256_cmpeq_epi64(even, zero), _mm256_cmpeq_epi64(odd, zero));
  const uint32_t ccw = lane_bits(_mm256_cmpgt_epi64(zero, even), _mm256_cmpgt_epi64(zero, odd));  // twice_area > 0
  front = (cull.front_is_ccw ? ccw : ~ccw) & 0xff;
  const uint32_t dropped = degenerate | (cull.cull_front ? front : 0) | (cull.cull_back ? ~front & 0xff : 0);
  return ~dropped & 0xff;
}

// PrimWriter::write's bounds of the lanes: min_x, min_y, max_x, max_y.
void group_bounds(const __m256i x[3], const __m256i y[3], __m256i bounds[4]) {
  auto low = [](const __m256i* c) {
    return _mm256_srai_epi32(_mm256_min_epi32(_mm256_min_epi32(c[0], c[1]), c[2]), kSubpixelBits);
  };
  auto high = [](const __m256i* c) {
    const __m256i max = _mm256_max_epi32(_mm256_max_epi32(c[0], c[1]), c[2]);
    return _mm256_srai_epi32(_mm256_sub_epi32(max, _mm256_set1_epi32(1)), kSubpixelBits);
  };
  bounds[0] = low(x);
  bounds[1] = low(y);
  bounds[2] = high(x);
  bounds[3] = high(y);
}

// Triangles [t, t + 8) of the list, when all their vertices are inside and mapped: written through
// out.prims (which has room for 8), counted in `emitted` and `culled`. Returns false, having done
// nothing, for a group with another vertex (the scalar loop clips or culls its triangles).
bool assemble_group(const DrawAssembly& a, const uint32_t* list, uint32_t t, const GroupCull& cull,
                    AssemblyOutput& out, uint64_t& emitted, uint64_t& culled) {
  const __m256i* rows = reinterpret_cast<const __m256i*>(list + 3 * size_t(t));
  const __m256i r[3] = {_mm256_loadu_si256(rows), _mm256_loadu_si256(rows + 1), _mm256_loadu_si256(rows + 2)};
  const __m256i index[3] = {list_column<0>(r), list_column<1>(r), list_column<2>(r)};
  if (!group_mapped(a, index)) return false;
  const int* const pool_index = reinterpret_cast<const int*>(a.pool_index);
  const int* const fields = reinterpret_cast<const int*>(a.pool->vertices.data());  // x, y of vertex i at 4 i, 4 i + 1
  __m256i v[3], x[3], y[3];
  for (int k = 0; k < 3; ++k) {
    v[k] = _mm256_i32gather_epi32(pool_index, index[k], 4);
    const __m256i at = _mm256_slli_epi32(v[k], 2);
    x[k] = _mm256_i32gather_epi32(fields, at, 4);
    y[k] = _mm256_i32gather_epi32(fields + 1, at, 4);
  }
  uint32_t front = 0;
  const uint32_t kept = kept_lanes(x, y, cull, front);
  __m256i bounds[4];
  group_bounds(x, y, bounds);
  if (kept != 0xff) {
    const __m128i kept_order = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kKeptLanes.lanes[kept]));
    const __m256i order = _mm256_cvtepu8_epi32(kept_order);
    for (__m256i& lanes : v) lanes = _mm256_permutevar8x32_epi32(lanes, order);
    for (__m256i& lanes : bounds) lanes = _mm256_permutevar8x32_epi32(lanes, order);
  }
  const uint64_t front_bytes = _pdep_u64(_pext_u32(front, kept), 0x0101010101010101ull);
  const uint32_t count = uint32_t(__builtin_popcount(kept));
  out.prims.write_eight(v, _mm256_set1_epi32(int32_t(a.index)), bounds, front_bytes, count);
  emitted += count;
  culled += 8 - count;
  return true;
}
#endif

// Triangles [begin, end) of one instance of the draw: clipped, culled and emitted in order.
void assemble_triangles(const DrawAssembly& a, uint32_t begin, uint32_t end, AssemblyOutput& out) {
  if (!is_polygon_topology(a.mesh->topology)) {
    assemble_lines_points(a, begin, end, out);
    return;
  }
  const Draw& draw = *a.draw;
  const uint8_t* const inside = a.inside;
  // Indexed triangle lists, most draws, read their three indices without triangle_vertices' cases.
  const uint32_t* const list = a.mesh->topology == Topology::triangle_list && !a.mesh->indices.empty()
                                   ? a.mesh->indices.data() + draw.first_index
                                   : nullptr;
  uint64_t emitted = 0, culled = 0;
  auto assemble_one = [&](uint32_t t) {
    const std::array<uint32_t, 3> idx =
        list ? std::array<uint32_t, 3>{list[3 * size_t(t)], list[3 * size_t(t) + 1], list[3 * size_t(t) + 2]}
             : triangle_vertices(*a.mesh, draw.first_index, t);
    if (!(inside[idx[0]] && inside[idx[1]] && inside[idx[2]])) {
      assemble_clipped(a, idx, out);
      return;
    }
    const bool mapped = inside[idx[0]] == 2 && inside[idx[1]] == 2 && inside[idx[2]] == 2;
    const uint32_t v[3] = {a.pool_index[idx[0]], a.pool_index[idx[1]], a.pool_index[idx[2]]};
    // Read here: a clipped triangle may grow the pool (on one thread, the pass's own).
    const ScreenVertex* const vertices = a.pool->vertices.data();
    const ScreenVertex* const screen[3] = {&vertices[v[0]], &vertices[v[1]], &vertices[v[2]]};
    if (mapped && emit_screen_triangle(v, screen, draw, a.index, out.prims)) ++emitted;
    else ++culled;
  };
  uint32_t t = begin;
#if defined(__AVX2__) && defined(__BMI2__)
  if (list) {
    const GroupCull cull(draw.state);
    for (; end - t >= 8; t += 8) {
      const bool grouped = out.prims.room() >= 8 && a.pool->vertices.size() < kGatherableVertices &&
                           assemble_group(a, list, t, cull, out, emitted, culled);
      if (!grouped)
        for (uint32_t k = t; k < t + 8; ++k) assemble_one(k);
    }
  }
#endif
  for (; t < end; ++t) assemble_one(t);
  out.counts.primitives_in += end - begin;
  out.counts.primitives += emitted;
  out.counts.primitives_culled += culled;
}

// Block `w`'s primitives in one of the pass's arrays (`into`): moved from its slots to w.at, its
// overflow (`overflow`, the same array of w.prims) copied after them; in the vertex index arrays
// (`vertex_indices`), its own vertices' kLocalVertex indices renumbered to their place in the pool.
template <class Array>
void move_block(Array& into, const Array& overflow, const AssemblyWorker& w, bool vertex_indices) {
  auto* const data = into.data();
  if (w.at != w.slots_begin) std::memmove(data + w.at, data + w.slots_begin, w.slots_written * sizeof(*data));
  std::copy(overflow.begin(), overflow.end(), data + w.at + w.slots_written);
  if constexpr (std::is_same_v<typename Array::value_type, uint32_t>) {
    if (!vertex_indices || w.prims.vertices.empty()) return;
    constexpr uint32_t kLocal = ScreenPrims::kLocalVertex;
    for (size_t p = w.at; p < w.at + w.size(); ++p)
      if (data[p] & kLocal) data[p] = uint32_t(w.vertex_at + (data[p] & ~kLocal));
  }
}

// Block `w`'s own vertices copied into the pass's pool at w.vertex_at.
void copy_block_vertices(ScreenPrims& out, const AssemblyWorker& w) {
  const size_t stride = size_t(out.varying_stride);
  std::copy(w.prims.vertices.begin(), w.prims.vertices.end(), out.vertices.begin() + ptrdiff_t(w.vertex_at));
  std::copy(w.prims.vertex_varyings.begin(), w.prims.vertex_varyings.end(),
            out.vertex_varyings.begin() + ptrdiff_t(w.vertex_at * stride));
}

// After a round: each block's primitives moved to follow the previous block's (`out` already
// sized), its vertices into the pool. Blocks that move right go first, from the last, then those
// that move left or stay, from the first, so that no block overwrites primitives still to move.
// Each array is one task, and each block's vertices one more, spread over the threads.
void close_up_round(ScreenPrims& out, std::vector<AssemblyWorker>& workers, uint32_t blocks, uint32_t threads) {
  std::vector<uint32_t> order, with_vertices;
  for (uint32_t k = blocks; k-- > 0;)
    if (workers[k].at > workers[k].slots_begin) order.push_back(k);
  for (uint32_t k = 0; k < blocks; ++k) {
    if (workers[k].at <= workers[k].slots_begin) order.push_back(k);
    if (!workers[k].prims.vertices.empty()) with_vertices.push_back(k);
  }
  uint32_t arrays = 0;
  ScreenPrims::for_each_array([&](auto&) { ++arrays; }, out);
  const uint32_t tasks = arrays + uint32_t(with_vertices.size());
  for_chunks(threads, tasks, [&](uint32_t task) {
    if (task >= arrays) {
      copy_block_vertices(out, workers[with_vertices[task - arrays]]);
      return;
    }
    for (uint32_t k : order) {
      uint32_t index = 0;
      ScreenPrims::for_each_array(
          [&](auto& into, const auto& overflow) {
            if (index++ == task) move_block(into, overflow, workers[k], task < 3);  // vertex indices first
          },
          out, workers[k].prims);
    }
  });
}

// Drops the first `dead` vertices of the pool (no held primitive uses them) when they are over
// half the pool and over 65,536 vertices, so that moving the rest costs less than the memory it
// frees; the held primitives' indices move down with their vertices. Returns the count dropped.
size_t compact_vertex_pool(ScreenPrims& out, size_t dead) {
  constexpr size_t kCompactAbove = size_t(1) << 16;
  if (dead < kCompactAbove || 2 * dead < out.vertices.size()) return 0;
  const size_t stride = size_t(out.varying_stride);
  out.vertices.erase(out.vertices.begin(), out.vertices.begin() + ptrdiff_t(dead));
  out.vertex_varyings.erase(out.vertex_varyings.begin(), out.vertex_varyings.begin() + ptrdiff_t(dead * stride));
  for (int k = 0; k < 3; ++k)
    for (uint32_t& v : out.vertex[k]) v -= uint32_t(dead);
  return dead;
}

}  // namespace tbdr::geometry_internal
