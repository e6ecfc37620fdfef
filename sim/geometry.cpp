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

struct ClipVertex {
  Vec4 pos;                                  // clip space
  std::array<float, kVaryingCount> varying;  // color rgba, uv, world normal
};

// A clip half-space: dot(n, pos) + offset >= 0.
struct Plane {
  float n[4];
  float offset = 0;
};

float plane_distance(const Plane& p, const Vec4& v) {
  // Written out so the evaluation order is fixed (no contraction, no vectorised reordering).
  return p.n[0] * v[0] + p.n[1] * v[1] + p.n[2] * v[2] + p.n[3] * v[3] + p.offset;
}

ClipVertex lerp(const ClipVertex& a, const ClipVertex& b, float t) {
  ClipVertex r;
  r.pos = a.pos + (b.pos - a.pos) * t;
  for (int i = 0; i < kVaryingCount; ++i) r.varying[i] = a.varying[i] + (b.varying[i] - a.varying[i]) * t;
  return r;
}

// Clips a convex polygon against one plane, keeping the inside (distance >= 0).
void clip_polygon(std::vector<ClipVertex>& poly, const Plane& plane, std::vector<ClipVertex>& scratch) {
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

ViewportMapping make_mapping(const Viewport& vp) {
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
constexpr float kMinW = 1e-6f;
const Plane kPositiveW{{0, 0, 0, 1}, -kMinW};
const Plane kNearPlane{{0, 0, 1, 0}};
const Plane kFarPlane{{0, 0, -1, 1}};

bool inside_all(const ClipVertex& v, const ViewportMapping& m) {
  if (!(v.pos[2] >= 0 && v.pos[2] <= v.pos[3] && v.pos[3] > kMinW)) return false;
  for (const Plane& p : m.guard)
    if (!(plane_distance(p, v.pos) >= 0)) return false;
  return true;
}

// std::nearbyint of v * kSubpixelOne without its library call: adding and taking away 1.5 * 2^52
// rounds a double of magnitude below 2^51 to an integer in the current rounding mode (doubles
// from 2^52 to 2^53 are 1 apart); callers clamp v to twice the guard band, far below that.
int32_t to_fixed(float v) {
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

uint32_t vertex_stride_bytes(const Mesh& mesh) {
  uint32_t stride = mesh.position_components * 4;
  if (!mesh.colors.empty()) stride += 16;
  if (!mesh.uvs.empty()) stride += 8;
  if (!mesh.normals.empty()) stride += 12;
  return stride;
}

// Vertex indices of triangle t of the draw, per topology (Vulkan "Primitive Topologies").
std::array<uint32_t, 3> triangle_vertices(const Mesh& mesh, uint32_t first, uint32_t t) {
  auto vertex = [&](uint32_t k) { return mesh.indices.empty() ? first + k : mesh.indices[first + k]; };
  switch (mesh.topology) {
    case Topology::triangle_strip:
      // Odd triangles swap their first two vertices to keep a consistent winding.
      if (t % 2 == 0) return {vertex(t), vertex(t + 1), vertex(t + 2)};
      return {vertex(t + 1), vertex(t), vertex(t + 2)};
    case Topology::triangle_fan: return {vertex(t + 1), vertex(t + 2), vertex(0)};
    case Topology::triangle_list: break;
  }
  return {vertex(3 * t), vertex(3 * t + 1), vertex(3 * t + 2)};
}

// Indices (or vertices, unindexed) the draw reads: index_count, 0 meaning the rest of the mesh.
uint32_t drawn_elements(const Draw& draw, const Mesh& mesh) {
  const uint32_t element_count = mesh.indices.empty() ? uint32_t(mesh.positions.size()) : uint32_t(mesh.indices.size());
  return draw.index_count ? draw.index_count : element_count - draw.first_index;
}

uint32_t triangle_count(Topology topology, uint32_t count) {
  if (topology == Topology::triangle_list) return count / 3;
  return count >= 3 ? count - 2 : 0;
}

// The bytes a position-only fetch (Adreno's binning pass) reads per vertex: the positions, or the
// whole vertex where one buffer interleaves every attribute (traces/README.md, MESH `interleaved`):
// memory is fetched in whole lines, and a vertex's attributes share them with its position.
uint32_t position_fetch_stride(const Mesh& mesh) {
  return mesh.interleaved ? vertex_stride_bytes(mesh) : mesh.position_components * 4;
}

// The vertex and index bytes one instance of a draw of `count` elements fetches, `unique` vertices
// referenced (traces/README.md, `vertex` ledger rule).
uint64_t vertex_fetch_bytes(const Mesh& mesh, uint64_t unique, uint32_t count) {
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
Vec4 clip_position(const Draw& draw, const Vec4& p) {
  if (draw.transform.clip_space) return p;
  // Column-major mvp * (x, y, z, 1), summed in a fixed order.
  const Mat4& mvp = draw.transform.mvp;
  Vec4 pos;
  for (int r = 0; r < 4; ++r) pos[r] = mvp(r, 0) * p[0] + mvp(r, 1) * p[1] + mvp(r, 2) * p[2] + mvp(r, 3) * p[3];
  return pos;
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
constexpr uint32_t kParallelChunk = 16384;
constexpr uint32_t kParallelTriangles = 2 * kParallelChunk;
constexpr uint32_t kParallelRound = uint32_t(1) << 17;
// Meshes of at least this many vertices are transformed on several threads, in blocks of at least
// kVertexBlock vertices (about 200 instructions each, so a block is far more work than its fork).
// Blocks of half kParallelVertices capped the million frame's 130,351-vertex meshes at 3 threads:
// at 16 threads, shading was 37 M instructions on each of 3 threads, 72 % of geometry's critical path.
constexpr size_t kParallelVertices = 65536;
constexpr size_t kVertexBlock = 4096;

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
      const DrawAssembly assembly{&draw, &mesh, d, mapping, m_inside.data(), m_pool_index.data(), &m_out, all_mapped};
      const uint32_t triangles = triangle_count(mesh.topology, count);
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
      assembled += uint64_t(triangle_count(mesh.topology, count)) * draw.instance_count;
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
    std::copy(varying.begin(), varying.begin() + ptrdiff_t(m_stride),
              m_out.vertex_varyings.begin() + ptrdiff_t(v * m_stride));
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
  work.primitives_in = uint64_t(triangle_count(mesh.topology, count)) * draw.instance_count;
  return work;
}

}  // namespace tbdr
