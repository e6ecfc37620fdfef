// Geometry phase: per draw, fetch and transform vertices, assemble triangles, clip in homogeneous
// space (Sutherland-Hodgman), divide, map through the viewport, cull, and emit fixed-point prims.
#include "sim/geometry.h"

#include <Eigen/LU>
#include <algorithm>
#include <atomic>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "sim/geometry_assembly.h"
#include "sim/parallel.h"

namespace tbdr {

namespace {
// Indices from kLocalVertex up mark a geometry thread's own vertices (move_block), and such an index
// must stay below UINT32_MAX (assemble_triangles' "unmapped").
void check_vertex_count(size_t count) {
  if (count >= ScreenPrims::kLocalVertex - 1) throw std::length_error("ScreenPrims: over 2^31 vertices in one pass");
}
}  // namespace

void ScreenPrims::clear() {
  vertices.clear();
  vertex_varyings.clear();
  for_each_array([](auto& array) { array.clear(); }, *this);
}

void ScreenPrims::reserve(size_t count) {
  for_each_array([&](auto& array) { array.reserve(count); }, *this);
}

void ScreenPrims::resize(size_t count) {
  for_each_array([&](auto& array) { array.resize(count); }, *this);
}

void ScreenPrims::resize_vertices(size_t count) {
  check_vertex_count(count);
  vertices.resize(count);
  vertex_varyings.resize(count * size_t(varying_stride));
}

uint32_t ScreenPrims::add_vertex(const ScreenVertex& v, const float* varyings) {
  check_vertex_count(vertices.size() + 1);
  vertices.push_back(v);
  vertex_varyings.insert(vertex_varyings.end(), varyings, varyings + varying_stride);
  return uint32_t(vertices.size() - 1);
}

void ScreenPrims::erase_front(size_t count) {
  if (count == 0) return;
  for_each_array([&](auto& array) { array.erase(array.begin(), array.begin() + ptrdiff_t(count)); }, *this);
}

namespace {

using namespace geometry_internal;

#if defined(__AVX2__)
// Vertex shading's position work on eight consecutive mesh vertices with AVX2, one a lane: clip_position,
// inside_all and to_screen with the same float and double operations in the same order (no FMA), so
// the same `inside` values (2, 1, 0) and screen vertices (zero where not 2) bit for bit. Alone, each
// vertex's chain (the division, the mapping, the rounding) left it latency-bound: 4.9 % of the
// million-triangle frame in shade_vertices, the samples at to_fixed.
struct EightMapped {
  alignas(32) ScreenVertex screen[8];
  uint8_t inside[8];
};
// Eight vertices' x, y, z, w, one vertex a lane.
struct PositionLanes {
  __m256 c[4];
};

// The low (high) 64-bit halves of each 128-bit lane of a and b, interleaved: unpcklpd (unpckhpd) on floats.
__m256 low_pairs(__m256 a, __m256 b) {
  return _mm256_castpd_ps(_mm256_unpacklo_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)));
}
__m256 high_pairs(__m256 a, __m256 b) {
  return _mm256_castpd_ps(_mm256_unpackhi_pd(_mm256_castps_pd(a), _mm256_castps_pd(b)));
}

// Eight consecutive positions transposed: vertices k and k + 4 in one register, then unpacked.
PositionLanes load_positions(const Vec4* positions) {
  __m256 v[4];
  for (int k = 0; k < 4; ++k) v[k] = _mm256_loadu2_m128(positions[k + 4].data(), positions[k].data());
  const __m256 xy01 = _mm256_unpacklo_ps(v[0], v[1]), zw01 = _mm256_unpackhi_ps(v[0], v[1]);
  const __m256 xy23 = _mm256_unpacklo_ps(v[2], v[3]), zw23 = _mm256_unpackhi_ps(v[2], v[3]);
  return PositionLanes{{low_pairs(xy01, xy23), high_pairs(xy01, xy23), low_pairs(zw01, zw23), high_pairs(zw01, zw23)}};
}

// clip_position: mvp * position, each row summed left to right.
PositionLanes clip_positions(const Draw& draw, const PositionLanes& p) {
  if (draw.transform.clip_space) return p;
  const Mat4& mvp = draw.transform.mvp;
  PositionLanes pos;
  for (int r = 0; r < 4; ++r) {
    auto term = [&](int c) { return _mm256_mul_ps(_mm256_set1_ps(mvp(r, c)), p.c[c]); };
    pos.c[r] = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(term(0), term(1)), term(2)), term(3));
  }
  return pos;
}

// inside_all, all ones where it holds: ordered comparisons, false on NaN as the scalar tests are.
__m256 inside_lanes(const PositionLanes& p, const ViewportMapping& m) {
  const __m256 x = p.c[0], y = p.c[1], z = p.c[2], w = p.c[3], zero = _mm256_setzero_ps();
  __m256 inside = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(z, zero, _CMP_GE_OQ), _mm256_cmp_ps(z, w, _CMP_LE_OQ)),
                                _mm256_cmp_ps(w, _mm256_set1_ps(kMinW), _CMP_GT_OQ));
  for (const Plane& plane : m.guard) {
    auto term = [&](int k, __m256 v) { return _mm256_mul_ps(_mm256_set1_ps(plane.n[k]), v); };
    const __m256 distance = _mm256_add_ps(
        _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(term(0, x), term(1, y)), term(2, z)), term(3, w)),
        _mm256_set1_ps(plane.offset));
    inside = _mm256_and_ps(inside, _mm256_cmp_ps(distance, zero, _CMP_GE_OQ));
  }
  return inside;
}

// to_fixed of std::clamp(v, -2 kGuardBand, 2 kGuardBand), for lanes that are not NaN.
__m256i fixed_lanes(__m256 v) {
  const __m256 limit = _mm256_set1_ps(2 * kGuardBand);
  const __m256 clamped = _mm256_min_ps(_mm256_max_ps(v, _mm256_sub_ps(_mm256_setzero_ps(), limit)), limit);
  const __m256d bias = _mm256_set1_pd(6755399441055744.0), one = _mm256_set1_pd(double(kSubpixelOne));
  auto half = [&](__m128 lanes) {
    return _mm256_cvttpd_epi32(_mm256_sub_pd(_mm256_add_pd(_mm256_mul_pd(_mm256_cvtps_pd(lanes), one), bias), bias));
  };
  return _mm256_set_m128i(half(_mm256_extractf128_ps(clamped, 1)), half(_mm256_castps256_ps128(clamped)));
}

// Lanes x, y, z, 1/w back to one ScreenVertex a lane.
void store_screen(__m256i x, __m256i y, __m256 z, __m256 inv_w, ScreenVertex* out) {
  const __m256 a = _mm256_unpacklo_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(y));
  const __m256 b = _mm256_unpackhi_ps(_mm256_castsi256_ps(x), _mm256_castsi256_ps(y));
  const __m256 c = _mm256_unpacklo_ps(z, inv_w), d = _mm256_unpackhi_ps(z, inv_w);
  float* const f = reinterpret_cast<float*>(out);
  _mm256_storeu2_m128(f + 16, f + 0, low_pairs(a, c));    // vertices 0 and 4
  _mm256_storeu2_m128(f + 20, f + 4, high_pairs(a, c));   // 1 and 5
  _mm256_storeu2_m128(f + 24, f + 8, low_pairs(b, d));    // 2 and 6
  _mm256_storeu2_m128(f + 28, f + 12, high_pairs(b, d));  // 3 and 7
}

// Eight consecutive mesh vertices' `inside` values and screen vertices, as shade_vertex works them out.
void map_eight_vertices(const Draw& draw, const Vec4* positions, const ViewportMapping& m, EightMapped& out) {
  const PositionLanes p = clip_positions(draw, load_positions(positions));
  const __m256 inside = inside_lanes(p, m);
  // to_screen.
  const __m256 x = p.c[0], y = p.c[1], z = p.c[2], w = p.c[3];
  const __m256 inv_w = _mm256_div_ps(_mm256_set1_ps(1.0f), w);
  const __m256 nx = _mm256_mul_ps(x, inv_w), ny = _mm256_mul_ps(y, inv_w), nz = _mm256_mul_ps(z, inv_w);
  const __m256 sx = _mm256_add_ps(_mm256_set1_ps(m.ox), _mm256_mul_ps(nx, _mm256_set1_ps(m.hx)));
  const __m256 sy = _mm256_add_ps(_mm256_set1_ps(m.oy), _mm256_mul_ps(ny, _mm256_set1_ps(m.hy)));
  const __m256 finite_inv_w = _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), inv_w),
                                            _mm256_set1_ps(std::numeric_limits<float>::infinity()), _CMP_LT_OQ);
  const __m256 mappable = _mm256_and_ps(
      _mm256_and_ps(_mm256_cmp_ps(sx, sx, _CMP_ORD_Q), _mm256_cmp_ps(sy, sy, _CMP_ORD_Q)),
      _mm256_and_ps(_mm256_cmp_ps(nz, nz, _CMP_ORD_Q), finite_inv_w));
  const __m256 mapped = _mm256_and_ps(inside, mappable);
  // Zero where not mapped, as shade_vertex leaves it.
  const __m256i keep = _mm256_castps_si256(mapped);
  const __m256 sz = _mm256_add_ps(_mm256_set1_ps(m.min_depth), _mm256_mul_ps(nz, _mm256_set1_ps(m.depth_range)));
  store_screen(_mm256_and_si256(fixed_lanes(sx), keep), _mm256_and_si256(fixed_lanes(sy), keep),
               _mm256_and_ps(sz, mapped), _mm256_and_ps(inv_w, mapped), out.screen);
  const uint32_t inside_bits = uint32_t(_mm256_movemask_ps(inside)), mapped_bits = uint32_t(_mm256_movemask_ps(mapped));
  for (int k = 0; k < 8; ++k) out.inside[k] = uint8_t((inside_bits >> k & 1) + (mapped_bits >> k & 1));
}
#endif

// One call of transform_draws: its draws in order, each through vertex shading (every vertex it
// references, once per instance) and triangle assembly (on the pass's threads when large), the
// primitives handed to `emitted` in batches.
class GeometryRun {
 public:
  GeometryRun(const Trace& trace, const std::vector<PassDraw>& draws, size_t first, size_t last, ScreenPrims& out,
              PassCounters& counters, Traffic& vertex_traffic, VertexShadingWork* shading, const EmittedFn& emitted,
              uint32_t threads, std::vector<DrawCounters>* per_draw)
      : m_trace(trace), m_draws(draws), m_first(first), m_last(last), m_out(out), m_counters(counters),
        m_per_draw(per_draw),
        m_vertex_traffic(vertex_traffic), m_shading(shading), m_emitted(emitted),
        m_threads(std::max(1u, threads)), m_stride(size_t(out.varying_stride)), m_draw_pool_base(last - first),
        m_unreported(out.size()) {}

  void run() {
    reserve_output();
    m_unreported = m_out.size();
    for (uint32_t d = uint32_t(m_first); d < m_last; ++d) {
      const Draw& draw = *m_draws[d].draw;
      const Mesh& mesh = m_trace.meshes[size_t(draw.mesh)];
      const ViewportMapping mapping = make_mapping(m_draws[d].viewport);
      const uint32_t count = drawn_elements(draw, mesh);
      const PassCounters counted = m_counters;
      const Traffic read = m_vertex_traffic;
      ++m_counters.draws;
      drop_dead_vertices();
      pool_used_vertices(d, draw, mesh, count);
      const bool all_mapped = shade_vertices(draw, mesh, mapping);
      const DrawAssembly assembly{&draw,  &mesh,      d, mapping, m_inside.data(), m_pool_index.data(),
                                  &m_out, all_mapped, m_draws[d].samples > 1};
      const uint32_t triangles = primitive_count(mesh.topology, count);
      const bool parallel = m_threads > 1 && triangles >= kParallelTriangles;
      // As many threads as the draw has half chunks for: a draw just over the threshold is not cut
      // into slivers (at least 4, as the threshold is 4 half chunks).
      const uint32_t round_threads = parallel ? std::min(m_threads, triangles / (kParallelChunk / 2)) : 1;
      if (m_workers.size() < kChunksPerThread * round_threads) m_workers.resize(kChunksPerThread * round_threads);
      for (uint32_t instance = 0; instance < draw.instance_count; ++instance) {
        if (parallel) assemble_in_rounds(assembly, triangles, round_threads);
        else assemble_in_batches(assembly, triangles);
      }
      if (m_per_draw) add_draw_share((*m_per_draw)[d], counted, read);
    }
    if (m_emitted && m_out.size() > m_unreported) report();
  }

 private:
  // Room for every triangle the draws assemble (clipping may add a few more) and every vertex of
  // their meshes, so `out` grows once instead of copying itself at each doubling; capped, as a
  // draw with many instances can assemble far more triangles than a render keeps (param_buffer
  // flushes empty `out`), and many draws can share one large mesh.
  void reserve_output() {
    uint64_t assembled = 0, mesh_vertices = 0;
    for (size_t d = m_first; d < m_last; ++d) {
      const Draw& draw = *m_draws[d].draw;
      const Mesh& mesh = m_trace.meshes[size_t(draw.mesh)];
      const uint32_t count = drawn_elements(draw, mesh);
      assembled += uint64_t(primitive_count(mesh.topology, count)) * draw.instance_count;
      mesh_vertices += std::min<uint64_t>(mesh.positions.size(), count);
    }
    constexpr uint64_t kMaxReserved = uint64_t(1) << 22;
    m_out.reserve(m_out.size() + size_t(std::min(assembled, kMaxReserved)));
    const size_t vertex_room = m_out.vertices.size() + size_t(std::min(mesh_vertices, kMaxReserved));
    m_out.vertices.reserve(vertex_room);
    m_out.vertex_varyings.reserve(vertex_room * m_stride);
  }

  // Between draws, the pool's vertices that no held primitive uses any more (a parameter-buffer
  // flush rendered and dropped theirs) are dropped, so a bounded buffer bounds the pool too. A
  // draw's primitives use only its own vertices, which follow every earlier draw's in the pool:
  // those in front of the first held primitive's draw are unused. (Primitives held from before
  // this call may use any vertex.)
  void drop_dead_vertices() {
    const size_t dead = m_out.size() == 0          ? m_out.vertices.size()
                        : m_out.draw[0] < m_first ? 0
                                                  : size_t(m_draw_pool_base[m_out.draw[0] - m_first] - m_pool_dropped);
    m_pool_dropped += compact_vertex_pool(m_out, dead);
  }

  // Vertex shading counts every vertex the draw references, once per instance (post-transform
  // cache of unlimited size; traces/README.md); the used vertices, in index order, take the next
  // places in the pool (shade_vertices assigns them, block by block, from m_block_first).
  void pool_used_vertices(uint32_t d, const Draw& draw, const Mesh& mesh, uint32_t count) {
    const size_t vertex_count = mesh.positions.size();
    m_used.assign(vertex_count, 0);
    mark_used_vertices(draw, mesh, count);
    const size_t pool_base = m_out.vertices.size();
    m_draw_pool_base[d - m_first] = pool_base + m_pool_dropped;
    const uint64_t unique = count_used_vertices(pool_base);
    m_out.resize_vertices(pool_base + unique);
    m_counters.vertices += unique * draw.instance_count;
    m_vertex_traffic.read_bytes += vertex_fetch_bytes(mesh, unique, count) * draw.instance_count;
    if (!m_shading) return;
    const uint64_t index_bytes = mesh.indices.empty() ? 0 : uint64_t(count) * (mesh.index_bits / 8);
    m_shading->alu_cycles += double(unique * draw.instance_count) * draw.cost.vertex_alu;
    m_shading->position_read_bytes += (unique * position_fetch_stride(mesh) + index_bytes) * draw.instance_count;
  }

  // Blocks of the mesh's vertices, for_chunks' chunks (one below kParallelVertices), each at least kVertexBlock.
  uint32_t vertex_blocks() const {
    const size_t vertex_count = m_used.size();
    return vertex_count >= kParallelVertices ? chunk_count(vertex_count, kVertexBlock, m_threads) : 1;
  }

  // m_block_first[b]: the pool place of vertex block b's first used vertex; returns how many the
  // draw uses. Each block counts its own on the threads (the scan over every vertex was serial).
  uint64_t count_used_vertices(size_t pool_base) {
    const size_t vertex_count = m_used.size();
    const uint32_t blocks = vertex_blocks();
    m_block_first.assign(blocks + 1, 0);
    const uint8_t* flags = m_used.data();
    for_chunks(m_threads, blocks, [&](uint32_t b) {
      uint64_t used = 0;
      const BlockRange range = block_range(vertex_count, b, blocks);
      for (size_t i = range.begin; i < range.end; ++i) used += flags[i];
      m_block_first[b + 1] = used;
    });
    m_block_first[0] = pool_base;
    for (uint32_t b = 0; b < blocks; ++b) m_block_first[b + 1] += m_block_first[b];
    return m_block_first[blocks] - pool_base;
  }

  // m_used[i] = 1 for each vertex the draw's `count` indices name. A large draw's indices are split
  // among the threads: several may set the same flag, each storing the same 1 (relaxed atomic
  // stores, so no data race), and the flags come out the same for any split.
  void mark_used_vertices(const Draw& draw, const Mesh& mesh, uint32_t count) {
    uint8_t* const used = m_used.data();
    if (mesh.indices.empty()) {
      std::fill(used + draw.first_index, used + draw.first_index + count, uint8_t(1));
      return;
    }
    const uint32_t* const indices = mesh.indices.data() + draw.first_index;
    if (count >= 3 * kParallelTriangles && m_threads > 1) {
      const uint32_t chunks = chunk_count(count, 3 * kParallelChunk / kChunksPerThread, m_threads);
      for_chunks(m_threads, chunks, [&](uint32_t c) {
        const BlockRange range = block_range(count, c, chunks);
        mark_indices<true>(used, indices, range.begin, range.end);
      });
      return;
    }
    mark_indices<false>(used, indices, 0, count);
  }

  // used[indices[k]] = 1 for k in [begin, end). A function of values: byte stores may alias any
  // memory, so a loop reading its pointers and bound from variables a lambda captures (by
  // reference: in memory) reloaded all three from the stack after each store (perf annotate on the
  // million frame). The loop now waits only on its index loads (bench/README.md "The used-vertex
  // marking loop").
  template <bool kAtomic>
  static void mark_indices(uint8_t* const used, const uint32_t* const indices, const size_t begin, const size_t end) {
    for (size_t k = begin; k < end; ++k) {
      if constexpr (kAtomic) std::atomic_ref<uint8_t>(used[indices[k]]).store(1, std::memory_order_relaxed);
      else used[indices[k]] = 1;
    }
  }

  // The used vertices' pool places, varyings and screen positions. Each vertex writes only its own
  // entries: the blocks of count_used_vertices go to the threads. Returns whether every used vertex
  // is inside and mapped.
  bool shade_vertices(const Draw& draw, const Mesh& mesh, const ViewportMapping& mapping) {
    const size_t vertex_count = mesh.positions.size();
    m_inside.resize(vertex_count + 3);  // + 3: assemble_group reads each byte as a 32-bit gather's low byte
    m_pool_index.resize(vertex_count);
    // Normals go to world space through the inverse transpose of the model matrix.
    const Eigen::Matrix3f model3 = draw.transform.model.topLeftCorner<3, 3>();
    const VertexShading shading{draw, mesh, mapping, model3.inverse().transpose()};
    const uint32_t blocks = uint32_t(m_block_first.size() - 1);
    std::atomic<bool> unmapped{false};
    for_chunks(m_threads, blocks, [&](uint32_t b) {
      uint64_t place = m_block_first[b];
      const BlockRange range = block_range(vertex_count, b, blocks);
      bool all_mapped = true;
      size_t i = range.begin;
#if defined(__AVX2__)
      for (; range.end - i >= 8; i += 8) {
        EightMapped eight;
        map_eight_vertices(draw, mesh.positions.data() + i, mapping, eight);
        for (size_t k = 0; k < 8; ++k) {
          m_pool_index[i + k] = uint32_t(place);
          if (!m_used[i + k]) continue;
          write_varyings(shading, i + k, place);
          m_out.vertices[place] = eight.screen[k];
          m_inside[i + k] = eight.inside[k];
          all_mapped &= eight.inside[k] == 2;
          ++place;
        }
      }
#endif
      for (; i < range.end; ++i) {
        m_pool_index[i] = uint32_t(place);
        if (!m_used[i]) continue;
        all_mapped &= shade_vertex(shading, i);
        ++place;
      }
      if (!all_mapped) unmapped.store(true, std::memory_order_relaxed);
    });
    return !unmapped.load(std::memory_order_relaxed);
  }

  struct VertexShading {
    const Draw& draw;
    const Mesh& mesh;
    ViewportMapping mapping;
    Eigen::Matrix3f normal_matrix;
  };

  // Returns whether the vertex is inside and mapped.
  bool shade_vertex(const VertexShading& vs, size_t i) {
    ClipVertex cv;
    cv.pos = clip_position(vs.draw, vs.mesh.positions[i]);
    cv.varying = write_varyings(vs, i, m_pool_index[i]);
    // Tested, and mapped to the framebuffer, once per vertex rather than once per triangle
    // using it (the same operations a clipped vertex gets). 2: inside and mapped; 1: inside
    // but not mappable (the triangles using it are culled); 0: outside (only clipped
    // triangles use it, through clip_position).
    ScreenVertex& screen = m_out.vertices[m_pool_index[i]];
    m_inside[i] = inside_all(cv, vs.mapping) ? (to_screen(cv, vs.mapping, screen) ? 2 : 1) : 0;
    if (m_inside[i] != 2) screen = ScreenVertex{0, 0, 0.0f, 0.0f};
    return m_inside[i] == 2;
  }

  // Mesh vertex i's varyings, the first m_stride of them stored at pool place v; returns them all.
  std::array<float, kVaryingCount> write_varyings(const VertexShading& vs, size_t i, size_t v) {
    const Mesh& mesh = vs.mesh;
    const Vec4 color = mesh.colors.empty() ? Vec4(1, 1, 1, 1) : mesh.colors[i];
    const Vec2 uv = mesh.uvs.empty() ? Vec2(0, 0) : mesh.uvs[i];
    Eigen::Vector3f normal(0, 0, 1);
    if (m_stride > kFirstNormalVarying && !mesh.normals.empty()) {  // else never read
      const Eigen::Vector3f& n = mesh.normals[i];
      for (int r = 0; r < 3; ++r)
        normal[r] = vs.normal_matrix(r, 0) * n[0] + vs.normal_matrix(r, 1) * n[1] + vs.normal_matrix(r, 2) * n[2];
    }
    const std::array<float, kVaryingCount> varying = {color[0], color[1], color[2], color[3], uv[0],
                                                      uv[1],    normal[0], normal[1], normal[2]};
    float* const out = m_out.vertex_varyings.data() + v * m_stride;
    // Colors alone (the vertex_color program's four), a fixed-size copy: std::copy of m_stride
    // floats was a memmove call a vertex (callgrind of the million-triangle frame).
    if (m_stride == 4) std::memcpy(out, varying.data(), 4 * sizeof(float));
    else std::copy(varying.begin(), varying.begin() + ptrdiff_t(m_stride), out);
    return varying;
  }

  // One thread: batches of kEmittedBatch triangles, reported as they fill.
  void assemble_in_batches(const DrawAssembly& assembly, uint32_t triangles) {
    for (uint32_t t = 0; t < triangles;) {
      const uint32_t end = uint32_t(std::min<uint64_t>(triangles, uint64_t(t) + kEmittedBatch));
      AssemblyCounts counts;
      const size_t base = m_out.size();
      m_out.resize(base + (end - t));  // room for one primitive a triangle; a clipped one may make more
      PrimWriter writer(m_out, base, base + (end - t), m_out);
      AssemblyOutput out{writer, m_out, 0, counts, m_clipper};
      assemble_triangles(assembly, t, end, out);
      writer.finish();
      counts.add_to(m_counters);
      if (m_emitted && m_out.size() - m_unreported >= kEmittedBatch) report();
      t = end;
    }
  }

  // Rounds of triangles cut into contiguous blocks (a few a thread, for_chunks' chunks), each
  // writing its primitives straight into `out`, into the slots of its own triangles (one primitive
  // a triangle unless clipped), so that `out` holds them in submission order as one thread would
  // have emitted them. Before, each thread wrote its own arrays, copied into `out` after each
  // round: a second pass over every primitive, and rounds of 16,384 triangles a thread, each with
  // two joins.
  void assemble_in_rounds(const DrawAssembly& assembly, uint32_t triangles, uint32_t round_threads) {
    const uint64_t round = std::max<uint64_t>(kParallelRound, uint64_t(kParallelChunk) * round_threads);
    for (uint32_t t0 = 0; t0 < triangles;) {
      const uint32_t n = uint32_t(std::min<uint64_t>(round, triangles - t0));
      const size_t base = m_out.size();
      m_out.resize(base + n);
      const uint32_t blocks = chunk_count(n, kParallelChunk / kChunksPerThread, round_threads);
      for_chunks(round_threads, blocks, [&](uint32_t k) { assemble_block(assembly, t0, n, base, k, blocks); });
      place_blocks(base, base + n, blocks);
      if (m_emitted && m_out.size() - m_unreported >= kEmittedBatch) report();
      t0 += n;
    }
  }

  // Block k of `blocks` of the round's n triangles from t0, its slots from `base` on.
  void assemble_block(const DrawAssembly& assembly, uint32_t t0, uint32_t n, size_t base, uint32_t k,
                      uint32_t blocks) {
    AssemblyWorker& w = m_workers[k];
    w.prims.clear();
    w.prims.varying_stride = m_out.varying_stride;
    w.counts = AssemblyCounts{};
    const uint32_t begin = uint32_t(uint64_t(n) * k / blocks), end = uint32_t(uint64_t(n) * (k + 1) / blocks);
    w.slots_begin = base + begin;
    PrimWriter writer(m_out, base + begin, base + end, w.prims);
    AssemblyOutput out{writer, w.prims, ScreenPrims::kLocalVertex, w.counts, w.clipper};
    assemble_triangles(assembly, t0 + begin, t0 + end, out);
    writer.finish();
    w.slots_written = writer.slots_written();
  }

  // Where the round's blocks go (one after another) and `out` sized to them. Nothing moves unless
  // a block before the last left slots unused (culled triangles), or overflowed, or clipped.
  void place_blocks(size_t base, size_t slots_end, uint32_t blocks) {
    size_t size = base, vertex_size = m_out.vertices.size();
    bool moves = false;
    for (uint32_t k = 0; k < blocks; ++k) {
      AssemblyWorker& w = m_workers[k];
      w.at = size;
      w.vertex_at = vertex_size;
      moves |= w.at != w.slots_begin || w.prims.size() > 0 || !w.prims.vertices.empty();
      size += w.size();
      vertex_size += w.prims.vertices.size();
      w.counts.add_to(m_counters);
    }
    if (size > slots_end) m_out.resize(size);
    m_out.resize_vertices(vertex_size);
    if (moves) close_up_round(m_out, m_workers, blocks, m_threads);
    m_out.resize(size);
  }

  // Primitives from m_unreported on have not been through `emitted` yet: in batches rather than
  // one call per primitive, whose cost showed in perf (about 10 ns a primitive).
  // What the draw just run added to the counts and the vertex bytes (a parameter-buffer flush
  // during it changes only the tile-list and flush counts, not these).
  void add_draw_share(DrawCounters& c, const PassCounters& before, const Traffic& read_before) const {
    c.vertices += m_counters.vertices - before.vertices;
    c.primitives_in += m_counters.primitives_in - before.primitives_in;
    c.primitives_culled += m_counters.primitives_culled - before.primitives_culled;
    c.primitives_clipped += m_counters.primitives_clipped - before.primitives_clipped;
    c.primitives += m_counters.primitives - before.primitives;
    c.vertex_read_bytes += m_vertex_traffic.read_bytes - read_before.read_bytes;
  }

  void report() {
    m_emitted(m_out, m_unreported);
    m_unreported = m_out.size();
  }

  const Trace& m_trace;
  const std::vector<PassDraw>& m_draws;
  size_t m_first, m_last;
  ScreenPrims& m_out;
  PassCounters& m_counters;
  std::vector<DrawCounters>* m_per_draw;
  Traffic& m_vertex_traffic;
  VertexShadingWork* m_shading;
  const EmittedFn& m_emitted;
  uint32_t m_threads;
  size_t m_stride;  // varying floats kept per vertex
  ClipperMemory m_clipper;
  std::vector<AssemblyWorker> m_workers;  // for draws assembled on several threads
  // Per vertex of the current draw's mesh: inside state, used flag, pool index.
  std::vector<uint8_t> m_used, m_inside;
  std::vector<uint32_t> m_pool_index;
  std::vector<uint64_t> m_block_first;  // per vertex block: its first used vertex's pool place
  // Where each draw's vertices begin in the pool, counting those compact_vertex_pool dropped.
  std::vector<uint64_t> m_draw_pool_base;
  uint64_t m_pool_dropped = 0;
  size_t m_unreported;
};

}  // namespace

void transform_draws(const Trace& trace, const std::vector<PassDraw>& draws, size_t first, size_t last,
                     ScreenPrims& out, PassCounters& counters, Traffic& vertex_traffic, VertexShadingWork* shading,
                     const EmittedFn& emitted, uint32_t threads, std::vector<DrawCounters>* per_draw) {
  GeometryRun(trace, draws, first, last, out, counters, vertex_traffic, shading, emitted, threads, per_draw).run();
}

void ScreenPrims::add_triangle(const uint32_t v[3], uint32_t draw_index, bool front) {
  const ScreenVertex* const s[3] = {&vertices[v[0]], &vertices[v[1]], &vertices[v[2]]};
  const size_t at = size();
  resize(at + 1);
  const int32_t x[3] = {s[0]->x, s[1]->x, s[2]->x}, y[3] = {s[0]->y, s[1]->y, s[2]->y};
  PrimWriter(*this, at, at + 1, *this).write(v, x, y, draw_index, front);
}

DrawVertexWork draw_vertex_work(const Trace& trace, const Draw& draw) {
  const Mesh& mesh = trace.meshes[size_t(draw.mesh)];
  const uint32_t count = drawn_elements(draw, mesh);
  std::vector<uint8_t> used(mesh.positions.size(), 0);
  for (uint32_t k = 0; k < count; ++k)
    used[mesh.indices.empty() ? draw.first_index + k : mesh.indices[draw.first_index + k]] = 1;
  const uint64_t unique = uint64_t(std::count(used.begin(), used.end(), uint8_t(1)));
  DrawVertexWork work;
  work.vertices = unique * draw.instance_count;
  work.vertex_alu_cycles = double(work.vertices) * draw.cost.vertex_alu;
  work.fetch_bytes = vertex_fetch_bytes(mesh, unique, count) * draw.instance_count;
  work.primitives_in = uint64_t(primitive_count(mesh.topology, count)) * draw.instance_count;
  return work;
}

}  // namespace tbdr
