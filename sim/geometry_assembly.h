// Geometry's shared pieces: clip-space vertices and clipping planes, the viewport mapping to fixed
// point, the primitive writer and the triangle-assembly types, for sim/geometry*.cpp.
#pragma once

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

#include "sim/parallel.h"
#include "sim/geometry.h"

namespace tbdr::geometry_internal {

struct ClipVertex {
  Vec4 pos;                                  // clip space
  std::array<float, kVaryingCount> varying;  // color rgba, uv, world normal
};

// A clip half-space: dot(n, pos) + offset >= 0.
struct Plane {
  float n[4];
  float offset = 0;
};

inline float plane_distance(const Plane& p, const Vec4& v) {
  // Written out so the evaluation order is fixed (no contraction, no vectorised reordering).
  return p.n[0] * v[0] + p.n[1] * v[1] + p.n[2] * v[2] + p.n[3] * v[3] + p.offset;
}

inline ClipVertex lerp(const ClipVertex& a, const ClipVertex& b, float t) {
  ClipVertex r;
  r.pos = a.pos + (b.pos - a.pos) * t;
  for (int i = 0; i < kVaryingCount; ++i) r.varying[i] = a.varying[i] + (b.varying[i] - a.varying[i]) * t;
  return r;
}

// Clips a convex polygon against one plane, keeping the inside (distance >= 0).
inline void clip_polygon(std::vector<ClipVertex>& poly, const Plane& plane, std::vector<ClipVertex>& scratch) {
  scratch.clear();
  const size_t n = poly.size();
  for (size_t i = 0; i < n; ++i) {
    const ClipVertex& a = poly[i];
    const ClipVertex& b = poly[(i + 1) % n];
    const float da = plane_distance(plane, a.pos), db = plane_distance(plane, b.pos);
    if (da >= 0) scratch.push_back(a);
    if ((da >= 0) != (db >= 0)) {
      // Interpolate from the inside vertex so the same edge clips identically in both directions.
      if (da >= 0) scratch.push_back(lerp(a, b, da / (da - db)));
      else scratch.push_back(lerp(b, a, db / (db - da)));
    }
  }
  poly.swap(scratch);
}

struct ViewportMapping {
  float ox, oy, hx, hy, min_depth, depth_range;
  Plane guard[4];
};

inline ViewportMapping make_mapping(const Viewport& vp) {
  ViewportMapping m;
  m.hx = vp.width * 0.5f;
  m.hy = vp.height * 0.5f;
  m.ox = vp.x + m.hx;
  m.oy = vp.y + m.hy;
  m.min_depth = vp.min_depth;
  m.depth_range = vp.max_depth - vp.min_depth;
  // Guard band in NDC: |screen| <= |origin| + g * |half extent| <= kGuardBand.
  const float gx = (kGuardBand - std::fabs(m.ox)) / std::max(std::fabs(m.hx), 1.0f);
  const float gy = (kGuardBand - std::fabs(m.oy)) / std::max(std::fabs(m.hy), 1.0f);
  m.guard[0] = Plane{{-1, 0, 0, gx}};  // x <= gx * w
  m.guard[1] = Plane{{1, 0, 0, gx}};   // x >= -gx * w
  m.guard[2] = Plane{{0, -1, 0, gy}};
  m.guard[3] = Plane{{0, 1, 0, gy}};
  return m;
}

// Vulkan's view volume: 0 <= z <= w (and w > 0, which also keeps the divide finite).
inline constexpr float kMinW = 1e-6f;
inline const Plane kPositiveW{{0, 0, 0, 1}, -kMinW};
inline const Plane kNearPlane{{0, 0, 1, 0}};
inline const Plane kFarPlane{{0, 0, -1, 1}};

inline bool inside_all(const ClipVertex& v, const ViewportMapping& m) {
  if (!(v.pos[2] >= 0 && v.pos[2] <= v.pos[3] && v.pos[3] > kMinW)) return false;
  for (const Plane& p : m.guard)
    if (!(plane_distance(p, v.pos) >= 0)) return false;
  return true;
}

// std::nearbyint of v * kSubpixelOne without its library call: adding and taking away 1.5 * 2^52
// rounds a double of magnitude below 2^51 to an integer in the current rounding mode (doubles
// from 2^52 to 2^53 are 1 apart); callers clamp v to twice the guard band, far below that.
inline int32_t to_fixed(float v) {
  constexpr double kRoundingBias = 6755399441055744.0;  // 1.5 * 2^52
  return int32_t((double(v) * kSubpixelOne + kRoundingBias) - kRoundingBias);
}

// Maps clip-space vertex `v` to the framebuffer; false if it cannot be (the triangle is culled).
[[gnu::always_inline]] inline bool to_screen(const ClipVertex& v, const ViewportMapping& m, ScreenVertex& out) {
  const float w = v.pos[3];
  const float inv_w = 1.0f / w;
  const float nx = v.pos[0] * inv_w, ny = v.pos[1] * inv_w, nz = v.pos[2] * inv_w;
  const float sx = m.ox + nx * m.hx, sy = m.oy + ny * m.hy;
  // Clipping keeps vertices inside the guard band, but a vertex interpolated between coordinates
  // near the float range (1e30) carries an absolute error far beyond it, or is NaN once they
  // overflow: NaN culls the triangle, and a finite stray is clamped to twice the guard band
  // (which no properly clipped vertex reaches) so the int32 conversion cannot overflow.
  if (std::isnan(sx) || std::isnan(sy) || std::isnan(nz) || !std::isfinite(inv_w)) return false;
  out.x = to_fixed(std::clamp(sx, -2 * kGuardBand, 2 * kGuardBand));
  out.y = to_fixed(std::clamp(sy, -2 * kGuardBand, 2 * kGuardBand));
  out.z = m.min_depth + nz * m.depth_range;
  out.inv_w = inv_w;
  return true;
}

// Writes primitives into a ScreenPrims' arrays by index, in room [next, end) sized beforehand:
// nine push_backs cost about 160 instructions a primitive (each reloads and compares its vector's
// end, which a uint8_t store may alias). Past the room, the writer continues in `overflow`, grown
// as needed: the same ScreenPrims on one thread; a geometry thread's own arrays when the room is
// its slots in the pass's arrays (other threads write beside them).
class PrimWriter {
 public:
  PrimWriter(ScreenPrims& slots, size_t begin, size_t end, ScreenPrims& overflow)
      : m_overflow(&overflow), m_slots_begin(begin), m_slots_end(end), m_in_overflow(&slots == &overflow) {
    point_at(slots, begin, end);
  }
  bool full() const { return m_next == m_end; }
  size_t room() const { return m_end - m_next; }
#if defined(__AVX2__) && defined(__BMI2__)
  // assemble_group's eight primitives, the first `count` lanes kept (room() >= 8: the lanes past
  // them are written too, into room the next writes or finish() and slots_written() leave out);
  // `front`: a byte a lane.
  void write_eight(const __m256i v[3], __m256i draw_index, const __m256i bounds[4], uint64_t front, uint32_t count) {
    const size_t p = m_next;
    m_next += count;
    auto store = [&](auto* array, __m256i lanes) { _mm256_storeu_si256(reinterpret_cast<__m256i*>(array + p), lanes); };
    for (int i = 0; i < 3; ++i) store(m_vertex[i], v[i]);
    store(m_draw, draw_index);
    store(m_min_x, bounds[0]);
    store(m_min_y, bounds[1]);
    store(m_max_x, bounds[2]);
    store(m_max_y, bounds[3]);
    std::memcpy(m_front_facing + p, &front, sizeof(front));
  }
#endif
  // Written into the slots (all of them once the writer has moved on to `overflow`).
  size_t slots_written() const { return m_left_slots ? m_slots_end - m_slots_begin : m_next - m_slots_begin; }
  // Where the next primitive goes in the array it writes.
  size_t next() const { return m_next; }
  // Cuts `overflow` down to what was written (the slots are the caller's to trim).
  void finish() {
    if (m_in_overflow) m_overflow->resize(m_next);
  }
  [[gnu::noinline]] void make_room() {
    if (!m_in_overflow) {
      m_in_overflow = m_left_slots = true;
      point_at(*m_overflow, m_overflow->size(), m_overflow->size());
    }
    // Room doubling from 64: m_end may be far into the pass's arrays, so a fraction of it could
    // ask for far more than a few clipped triangles need.
    const size_t end = m_end + m_growth;
    m_growth *= 2;
    m_overflow->resize(end);
    point_at(*m_overflow, m_next, end);
  }

  // Primitive (v[0], v[1], v[2]), x and y its vertices' fixed-point positions. Conservative pixel bounds:
  // pixel p is sampled at p + sample offset in (0, 1) (the standard sample locations lie 1/16 ..
  // 15/16 in), so a triangle reaching x only up to p exactly never covers a sample of pixel p: its
  // last pixel is ceil(max) - 1, its first floor(min), as llvmpipe's triangle binning takes its
  // bounding box (Mesa lp_setup_tri.c: "inclusive x0, exclusive x1", x1 = (max - 1) >>
  // FIXED_ORDER). floor(max) would list a tile the triangle only touches along its edge: a mesh
  // on the tile grid, as the million-triangle frame's, got 1.26 entries a triangle instead of 1.00.
  // The arithmetic shift is floor division by kSubpixelOne (C++20 defines it on negatives).
  void write(const uint32_t v[3], const int32_t x[3], const int32_t y[3], uint32_t draw_index, bool front) {
    const size_t p = m_next++;
    for (int i = 0; i < 3; ++i) m_vertex[i][p] = v[i];
    m_draw[p] = draw_index;
    m_min_x[p] = std::min({x[0], x[1], x[2]}) >> kSubpixelBits;
    m_min_y[p] = std::min({y[0], y[1], y[2]}) >> kSubpixelBits;
    m_max_x[p] = (std::max({x[0], x[1], x[2]}) - 1) >> kSubpixelBits;
    m_max_y[p] = (std::max({y[0], y[1], y[2]}) - 1) >> kSubpixelBits;
    m_front_facing[p] = front ? 1 : 0;  // last: a byte store may alias the pointers above
  }

 private:
  void point_at(ScreenPrims& prims, size_t next, size_t end) {
    for (int i = 0; i < 3; ++i) m_vertex[i] = prims.vertex[i].data();
    m_draw = prims.draw.data();
    m_front_facing = prims.front_facing.data();
    m_min_x = prims.min_x.data();
    m_min_y = prims.min_y.data();
    m_max_x = prims.max_x.data();
    m_max_y = prims.max_y.data();
    m_next = next;
    m_end = end;
  }

  uint32_t* m_vertex[3];
  uint32_t* m_draw;
  uint8_t* m_front_facing;
  int32_t *m_min_x, *m_min_y, *m_max_x, *m_max_y;
  size_t m_next = 0, m_end = 0;
  ScreenPrims* m_overflow;
  size_t m_slots_begin, m_slots_end;
  bool m_in_overflow, m_left_slots = false;
  size_t m_growth = 64;
};

inline uint32_t vertex_stride_bytes(const Mesh& mesh) {
  uint32_t stride = mesh.position_components * 4;
  if (!mesh.colors.empty()) stride += 16;
  if (!mesh.uvs.empty()) stride += 8;
  if (!mesh.normals.empty()) stride += 12;
  return stride;
}

// Vertex indices of triangle t of the draw, per topology (Vulkan "Primitive Topologies").
inline std::array<uint32_t, 3> triangle_vertices(const Mesh& mesh, uint32_t first, uint32_t t) {
  auto vertex = [&](uint32_t k) { return mesh.indices.empty() ? first + k : mesh.indices[first + k]; };
  switch (mesh.topology) {
    case Topology::triangle_strip:
      // Odd triangles swap their first two vertices to keep a consistent winding.
      if (t % 2 == 0) return {vertex(t), vertex(t + 1), vertex(t + 2)};
      return {vertex(t + 1), vertex(t), vertex(t + 2)};
    case Topology::triangle_fan: return {vertex(t + 1), vertex(t + 2), vertex(0)};
    default: break;  // triangle_list (line and point topologies never come here)
  }
  return {vertex(3 * t), vertex(3 * t + 1), vertex(3 * t + 2)};
}

// Indices (or vertices, unindexed) the draw reads: index_count, 0 meaning the rest of the mesh.
inline uint32_t drawn_elements(const Draw& draw, const Mesh& mesh) {
  const uint32_t element_count = mesh.indices.empty() ? uint32_t(mesh.positions.size()) : uint32_t(mesh.indices.size());
  return draw.index_count ? draw.index_count : element_count - draw.first_index;
}

// Primitives a draw of `count` indices (or vertices) assembles (Vulkan "Primitive Topologies").
inline uint32_t primitive_count(Topology topology, uint32_t count) {
  switch (topology) {
    case Topology::triangle_list: return count / 3;
    case Topology::triangle_strip:
    case Topology::triangle_fan: return count >= 3 ? count - 2 : 0;
    case Topology::lines: return count / 2;
    case Topology::line_strip: return count >= 2 ? count - 1 : 0;
    case Topology::points: return count;
  }
  return 0;
}

// The bytes a position-only fetch (Adreno's binning pass) reads per vertex: the positions, or the
// whole vertex where one buffer interleaves every attribute (traces/README.md, MESH `interleaved`):
// memory is fetched in whole lines, and a vertex's attributes share them with its position.
inline uint32_t position_fetch_stride(const Mesh& mesh) {
  return mesh.interleaved ? vertex_stride_bytes(mesh) : mesh.position_components * 4;
}

// The vertex and index bytes one instance of a draw of `count` elements fetches, `unique` vertices
// referenced (traces/README.md, `vertex` ledger rule).
inline uint64_t vertex_fetch_bytes(const Mesh& mesh, uint64_t unique, uint32_t count) {
  return unique * vertex_stride_bytes(mesh) + (mesh.indices.empty() ? 0 : uint64_t(count) * (mesh.index_bits / 8));
}

// What assembling one draw's triangles reads, set up once per draw: per mesh vertex the draw
// uses, its clip-space position, whether it is inside the view volume (`inside`: 2 inside and
// mapped, 1 inside but not mappable, 0 outside) and its vertex in the pass's pool (`pool`, whose
// varyings it holds and, mapped, its screen position).
struct DrawAssembly {
  const Draw* draw;
  const Mesh* mesh;
  uint32_t index;  // in the pass's draw list
  ViewportMapping mapping;
  const uint8_t* inside;
  const uint32_t* pool_index;
  const ScreenPrims* pool;
  bool all_mapped;  // every vertex the draw uses is inside and mapped (`inside` 2)
  bool rectangular_lines = false;  // lines as rectangles (a multisampled subpass), sim/geometry_lines.cpp
};

// Primitive counts of a range of triangles (PassCounters' names).
struct AssemblyCounts {
  uint64_t primitives_in = 0, primitives = 0, primitives_culled = 0, primitives_clipped = 0;
  void add_to(PassCounters& c) const {
    c.primitives_in += primitives_in;
    c.primitives += primitives;
    c.primitives_culled += primitives_culled;
    c.primitives_clipped += primitives_clipped;
  }
};

// The clipper's working memory, kept between triangles: the polygon, and its vertices mapped.
struct ClipperMemory {
  std::vector<ClipVertex> poly, scratch;
  std::vector<ScreenVertex> mapped;
  std::vector<uint32_t> mapped_index;
};

// Where assembled triangles go: primitives through `prims`; a clipped triangle's vertices into
// `pool`'s vertex pool, their indices or'd with `new_vertex_flag` (kLocalVertex for a geometry
// thread's own pool).
struct AssemblyOutput {
  PrimWriter& prims;
  ScreenPrims& pool;
  uint32_t new_vertex_flag;
  AssemblyCounts& counts;
  ClipperMemory& clipper;
};

// A mesh vertex's clip-space position under the draw: computed again for a clipped triangle rather
// than stored for every vertex (a 16-byte write a vertex that only clipped triangles read).
inline Vec4 clip_position(const Draw& draw, const Vec4& p) {
  if (draw.transform.clip_space) return p;
  // Column-major mvp * (x, y, z, 1), summed in a fixed order.
  const Mat4& mvp = draw.transform.mvp;
  Vec4 pos;
  for (int r = 0; r < 4; ++r) pos[r] = mvp(r, 0) * p[0] + mvp(r, 1) * p[1] + mvp(r, 2) * p[2] + mvp(r, 3) * p[3];
  return pos;
}

// A geometry thread's block of a round: the slots of its triangles in the pass's arrays and how
// many it wrote; its own `prims` for what did not fit (overflow) and for its clipped triangles'
// vertices; its counts and clipper memory; `at` and `vertex_at`, where its primitives and its
// vertices end up in the pass's arrays.
struct AssemblyWorker {
  ScreenPrims prims;
  AssemblyCounts counts;
  ClipperMemory clipper;
  size_t slots_begin = 0, slots_written = 0;
  size_t at = 0, vertex_at = 0;
  size_t size() const { return slots_written + prims.size(); }
};

// Draws of at least this many triangles (per instance) are assembled on several threads, in
// rounds of at least kParallelRound triangles (kParallelChunk a thread at more threads): larger
// rounds cost fewer joins, and let the parameter buffer size each round on the threads.
inline constexpr uint32_t kParallelChunk = 16384;
inline constexpr uint32_t kParallelTriangles = 2 * kParallelChunk;
inline constexpr uint32_t kParallelRound = uint32_t(1) << 17;
// Meshes of at least this many vertices are transformed on several threads, in blocks of at least
// kVertexBlock vertices (about 200 instructions each, so a block is far more work than its fork).
// Blocks of half kParallelVertices capped the million frame's 130,351-vertex meshes at 3 threads:
// at 16 threads, shading was 37 M instructions on each of 3 threads, 72 % of geometry's critical path.
inline constexpr size_t kParallelVertices = 65536;
inline constexpr size_t kVertexBlock = 4096;

// Primitives [begin, end) of one instance of the draw: clipped, culled and emitted in order (line
// and point topologies through assemble_lines_points).
void assemble_triangles(const DrawAssembly& a, uint32_t begin, uint32_t end, AssemblyOutput& out);

// Lines or points [begin, end) of one instance of the draw (sim/geometry_lines.cpp): each clipped,
// set up as a quad and emitted as its two triangles, front-facing and never culled by the cull mode.
void assemble_lines_points(const DrawAssembly& a, uint32_t begin, uint32_t end, AssemblyOutput& out);

// After a round: each block's primitives moved to follow the previous block's (`out` already
// sized), its vertices into the pool.
void close_up_round(ScreenPrims& out, std::vector<AssemblyWorker>& workers, uint32_t blocks, uint32_t threads);

// Drops the first `dead` vertices of the pool (no held primitive uses them) when that pays;
// returns the count dropped.
size_t compact_vertex_pool(ScreenPrims& out, size_t dead);

}  // namespace tbdr::geometry_internal
