// Line and point assembly: each primitive clipped, set up as the quad Mesa's llvmpipe rasterizes
// (src/gallium/drivers/llvmpipe/lp_setup_line.c and lp_setup_point.c) and emitted as its two triangles.
#include <cmath>

#include "sim/geometry_assembly.h"

namespace tbdr::geometry_internal {
namespace {

// A vertex at its framebuffer position in float (the setup rules test fractions of it), with the
// varyings it carries.
struct WindowVertex {
  float x, y, z, inv_w;
  const float* varying;
};

// The framebuffer position of clip-space vertex `v` (to_screen's arithmetic, before fixed point);
// false when it cannot be mapped.
bool window_position(const ClipVertex& v, const ViewportMapping& m, WindowVertex& out) {
  const float inv_w = 1.0f / v.pos[3];
  const float nx = v.pos[0] * inv_w, ny = v.pos[1] * inv_w, nz = v.pos[2] * inv_w;
  out.x = m.ox + nx * m.hx;
  out.y = m.oy + ny * m.hy;
  out.z = m.min_depth + nz * m.depth_range;
  out.inv_w = inv_w;
  out.varying = v.varying.data();
  return std::isfinite(out.x) && std::isfinite(out.y) && std::isfinite(out.z) && std::isfinite(inv_w) &&
         std::fabs(out.x) <= 2 * kGuardBand && std::fabs(out.y) <= 2 * kGuardBand;
}

// Fixed point as llvmpipe snaps (round to nearest even of 256 a, in float), moved from llvmpipe's
// sample grid (samples at whole coordinates once half a pixel is taken away) to this simulator's
// (samples at pixel centres): + half a pixel.
int32_t snap(float a) { return int32_t(std::lrint(float(kSubpixelOne) * (a - 0.5f))) + kSubpixelOne / 2; }

bool non_negative(float v) { return v >= 0.0f; }
float fraction(float v) { return v - std::floor(v); }

// The quad's corners in fixed point, in order around it.
struct Quad {
  int32_t x[4], y[4];
};

// Where a line's ends move along its major axis, in pixels (with the minor axis' matching move).
struct EndShift {
  float major = 0, minor = 0;
};

// OpenGL's diamond-exit rule (OpenGL 4.6 "Basic Line Segment Rasterization"), llvmpipe's tests of
// it: whether the pixel an end lies in is drawn. `xd`, `yd`: the end's offset from its pixel centre;
// `dx`, `dy`: first end - second end; `slope`: minor over major difference; the last argument the
// end's minor coordinate. The x-major and y-major forms differ in their sign tests (as llvmpipe's
// do: kept so that the pixels are equal).
bool draws_start_x_major(float xd, float yd, float dx, float dy, float slope, float y) {
  if (std::fabs(xd) + std::fabs(yd) < 0.5f) return true;
  if (non_negative(xd) == non_negative(-dx)) return false;
  if (non_negative(-yd) != non_negative(dy)) return true;
  const float crossing = fraction(y) + xd * slope;
  return crossing < 1.0f && crossing > 0.0f;
}
bool draws_end_x_major(float xd, float yd, float dx, float dy, float slope, float y) {
  if (std::fabs(xd) + std::fabs(yd) < 0.5f) return false;
  if (non_negative(xd) != non_negative(-dx)) return false;
  if (non_negative(-yd) == non_negative(dy)) return true;
  const float crossing = fraction(y) + xd * slope;
  return crossing < 1.0f && crossing > 0.0f;
}
bool draws_start_y_major(float xd, float yd, float dx, float dy, float slope, float x) {
  if (std::fabs(xd) + std::fabs(yd) < 0.5f) return true;
  if (non_negative(-yd) == non_negative(dy)) return false;
  if (non_negative(xd) != non_negative(-dx)) return true;
  const float crossing = fraction(x) + yd * slope;
  return crossing < 1.0f && crossing > 0.0f;
}
bool draws_end_y_major(float xd, float yd, float dx, float dy, float slope, float x) {
  if (std::fabs(xd) + std::fabs(yd) < 0.5f) return false;
  if (non_negative(-yd) != non_negative(dy)) return false;
  if (non_negative(xd) == non_negative(-dx)) return true;
  const float crossing = fraction(x) + yd * slope;
  return crossing < 1.0f && crossing >= 0.0f;
}

// Offset of a coordinate from its pixel's centre.
float centre_offset(float v) { return v - std::floor(v) - 0.5f; }

// A line of width `width` from a to b as llvmpipe's non-rectangular ("non-strict", Vulkan "Basic
// Line Segment Rasterization") line: a parallelogram `width` pixels across along the minor axis,
// its ends moved by up to half a pixel along the major axis so that the pixels drawn at each end
// follow the diamond-exit rule. Under the top-left fill rule a sample on a horizontal edge
// belongs to the quad below it. `a`, `b` may come back swapped (llvmpipe orders the ends).
Quad line_quad(WindowVertex a, WindowVertex b, float width) {
  const float dx = a.x - b.x, dy = a.y - b.y;
  float xd1 = centre_offset(a.x), yd1 = centre_offset(a.y), xd2 = centre_offset(b.x), yd2 = centre_offset(b.y);
  const int32_t half = int32_t(std::lrint(std::max(1.0f, width))) * kSubpixelOne / 2;
  EndShift first, second;  // of the quad's first and second ends once ordered
  Quad q;
  if (std::fabs(dx) >= std::fabs(dy)) {
    const float slope = dy / dx;
    if (yd2 == -0.5f && dy < 0.0f) yd2 = 0.5f;
    const bool start = draws_start_x_major(xd1, yd1, dx, dy, slope, a.y);
    const bool end = draws_end_x_major(xd2, yd2, dx, dy, slope, b.y);
    // The rasterized parallelogram draws an end's pixel when the end lies right of (left of,
    // going left) its centre; where that disagrees with the rule, the end moves to the centre's
    // far side (half a pixel past it) or near side.
    if (dx < 0.0f) {
      std::swap(a, b);
      if ((xd1 <= 0.0f) != start) second.major = -xd1 - 0.5f, second.minor = second.major * slope;
      if ((xd2 > 0.0f) != end) first.major = -xd2 - 0.5f, first.minor = first.major * slope;
    } else {
      if ((xd1 > 0.0f) != start) first.major = -xd1 + 0.5f, first.minor = first.major * slope;
      if ((xd2 <= 0.0f) != end) second.major = -xd2 + 0.5f, second.minor = second.major * slope;
    }
    q.x[0] = q.x[3] = snap(a.x + first.major);
    q.x[1] = q.x[2] = snap(b.x + second.major);
    const int32_t ya = snap(a.y + first.minor), yb = snap(b.y + second.minor);
    q.y[0] = ya - half, q.y[1] = yb - half, q.y[2] = yb + half, q.y[3] = ya + half;
    return q;
  }
  const float slope = dx / dy;
  if (xd2 == -0.5f && dx < 0.0f) xd2 = 0.5f;
  const bool start = draws_start_y_major(xd1, yd1, dx, dy, slope, a.x);
  const bool end = draws_end_y_major(xd2, yd2, dx, dy, slope, b.x);
  // As above along y; the top-left rule (llvmpipe's bottom_edge_rule 0) decides an end exactly
  // on a centre.
  if (dy > 0.0f) {
    std::swap(a, b);
    if ((yd1 > 0.0f) != start) second.major = -yd1 + 0.5f, second.minor = second.major * slope;
    if ((yd2 <= 0.0f) != end) first.major = -yd2 + 0.5f, first.minor = first.major * slope;
  } else {
    if ((yd1 <= 0.0f) != start) first.major = -yd1 - 0.5f, first.minor = first.major * slope;
    if ((yd2 > 0.0f) != end) second.major = -yd2 - 0.5f, second.minor = second.major * slope;
  }
  q.y[0] = q.y[3] = snap(a.y + first.major);
  q.y[1] = q.y[2] = snap(b.y + second.major);
  const int32_t xa = snap(a.x + first.minor), xb = snap(b.x + second.minor);
  q.x[0] = xa - half, q.x[1] = xb - half, q.x[2] = xb + half, q.x[3] = xa + half;
  return q;
}

// A line of width `width` from a to b as a rectangle (Vulkan's strict lines, "Basic Line Segment
// Rasterization", VK_LINE_RASTERIZATION_MODE_RECTANGULAR; llvmpipe's rectangular lines, which its
// multisampled OpenGL lines are): `width` pixels across, centred on the segment, ending at its ends.
Quad rectangular_line_quad(const WindowVertex& a, const WindowVertex& b, float width) {
  const float dx = a.x - b.x, dy = a.y - b.y;
  const float scale = width * 0.5f / std::sqrt(dx * dx + dy * dy);
  const int32_t tx = int32_t(std::lrint(float(kSubpixelOne) * (-dy * scale)));
  const int32_t ty = int32_t(std::lrint(float(kSubpixelOne) * (dx * scale)));
  const int32_t xa = snap(a.x), ya = snap(a.y), xb = snap(b.x), yb = snap(b.y);
  return Quad{{xa - tx, xb - tx, xb + tx, xa + tx}, {ya - ty, yb - ty, yb + ty, ya + ty}};
}

// A point of side `size` as llvmpipe's (non-legacy) point: the square of that side, at least one
// pixel, centred on the vertex, covering the samples inside it (top-left rule on its edges).
Quad point_quad(const WindowVertex& v, float size) {
  const int32_t side = std::max(kSubpixelOne, int32_t(std::lrint(float(kSubpixelOne) * size)));
  const int32_t x0 = snap(v.x) - side / 2, y0 = snap(v.y) - side / 2;
  return Quad{{x0, x0 + side, x0 + side, x0}, {y0, y0, y0 + side, y0 + side}};
}

// How a line's attributes vary (llvmpipe's line coefficients): linearly in framebuffer space, from
// the first end's value, as t = (p - a) . gradient (0 at a, 1 at b); perspective-correct through
// 1/w. Along the major axis only for a parallelogram line (constant across it); along the segment
// (Vulkan's t = (p - a) . (b - a) / |b - a|^2) for a rectangular one.
struct LineGradient {
  float x, y;
};

LineGradient line_gradient(const WindowVertex& a, const WindowVertex& b, bool rectangular) {
  const float dx = b.x - a.x, dy = b.y - a.y;
  if (rectangular) {
    const float length2 = dx * dx + dy * dy;
    return {dx / length2, dy / length2};
  }
  // llvmpipe: d(attribute)/d(major) = (a1 - a2) d_major (1 + slope^2) / (dx^2 + dy^2) = (a1 - a2) / d_major.
  if (std::fabs(dx) >= std::fabs(dy)) return {1.0f / dx, 0.0f};
  return {0.0f, 1.0f / dy};
}

// The quad's corner k as a pool vertex: its depth, 1/w and varyings those of the line at the corner.
uint32_t add_line_corner(const Quad& q, int k, const WindowVertex& a, const WindowVertex& b, const LineGradient& g,
                         AssemblyOutput& out) {
  const float px = float(q.x[k]) / float(kSubpixelOne), py = float(q.y[k]) / float(kSubpixelOne);
  const float t = (px - a.x) * g.x + (py - a.y) * g.y;
  ScreenVertex v{q.x[k], q.y[k], a.z + (b.z - a.z) * t, a.inv_w + (b.inv_w - a.inv_w) * t};
  std::array<float, kVaryingCount> varying{};
  for (int i = 0; i < out.pool.varying_stride; ++i) {
    const float over_w = a.varying[i] * a.inv_w + (b.varying[i] * b.inv_w - a.varying[i] * a.inv_w) * t;
    varying[size_t(i)] = over_w / v.inv_w;
  }
  return out.pool.add_vertex(v, varying.data()) | out.new_vertex_flag;
}

// Writes the quad's two triangles (0 1 2, 0 2 3), front-facing (lines and points always are) and
// never culled; returns how many had an area.
uint32_t emit_quad(const Quad& q, const uint32_t v[4], uint32_t draw_index, PrimWriter& prims) {
  uint32_t written = 0;
  for (const auto& tri : {std::array<int, 3>{0, 1, 2}, std::array<int, 3>{0, 2, 3}}) {
    const int32_t x[3] = {q.x[tri[0]], q.x[tri[1]], q.x[tri[2]]}, y[3] = {q.y[tri[0]], q.y[tri[1]], q.y[tri[2]]};
    const int64_t twice_area = int64_t(x[1] - x[0]) * (y[2] - y[0]) - int64_t(x[2] - x[0]) * (y[1] - y[0]);
    if (twice_area == 0) continue;
    const uint32_t index[3] = {v[tri[0]], v[tri[1]], v[tri[2]]};
    if (prims.full()) prims.make_room();
    prims.write(index, x, y, draw_index, true);
    ++written;
  }
  return written;
}

// Clips segment a-b to the view volume as Mesa's draw module clips a line (src/gallium/auxiliary/
// draw/draw_pipe_clip.c, do_clip_line), which llvmpipe's lines go through: -w <= x, y <= w,
// 0 <= z <= w; each end outside moves along the segment by the largest fraction a plane asks,
// interpolated from that end. False when nothing is left.
bool clip_segment(ClipVertex& a, ClipVertex& b) {
  static const Plane planes[] = {{{-1, 0, 0, 1}}, {{1, 0, 0, 1}}, {{0, -1, 0, 1}}, {{0, 1, 0, 1}},
                                 {{0, 0, 1, 0}},  {{0, 0, -1, 1}}};
  float ta = 0.0f, tb = 0.0f;
  bool a_out = false, b_out = false;
  for (const Plane& plane : planes) {
    const float da = plane_distance(plane, a.pos), db = plane_distance(plane, b.pos);
    a_out |= da < 0, b_out |= db < 0;
    if (db < 0.0f) tb = std::max(tb, db / (db - da));
    if (da < 0.0f) ta = std::max(ta, da / (da - db));
    if (ta + tb >= 1.0f) return false;
  }
  const ClipVertex from_a = a, from_b = b;
  if (a_out) a = lerp(from_a, from_b, ta);
  if (b_out) b = lerp(from_b, from_a, tb);
  return !(a.pos[3] <= 0.0f || b.pos[3] <= 0.0f);
}

// Whether `v` is inside Vulkan's view volume (-w <= x, y <= w, 0 <= z <= w, w > 0): a line or point
// is clipped or culled at the volume, not at the guard band triangles use.
bool inside_view_volume(const ClipVertex& v) {
  const Vec4& p = v.pos;
  return -p[3] <= p[0] && p[0] <= p[3] && -p[3] <= p[1] && p[1] <= p[3] && 0 <= p[2] && p[2] <= p[3] && p[3] > kMinW;
}

// Mesh vertex `index`'s clip-space vertex with the varyings the pass keeps.
ClipVertex clip_vertex(const DrawAssembly& a, uint32_t index, const AssemblyOutput& out) {
  ClipVertex c;
  c.pos = clip_position(*a.draw, a.mesh->positions[index]);
  const size_t stride = size_t(out.pool.varying_stride);
  const float* varyings = a.pool->vertex_varyings.data() + size_t(a.pool_index[index]) * stride;
  std::copy(varyings, varyings + stride, c.varying.begin());
  std::fill(c.varying.begin() + ptrdiff_t(stride), c.varying.end(), 0.0f);
  return c;
}

// The line from mesh vertex `first` to `second`: returns how many of its quad's triangles it emits
// (none: culled).
uint32_t assemble_line(const DrawAssembly& a, uint32_t first, uint32_t second, AssemblyOutput& out) {
  ClipVertex ca = clip_vertex(a, first, out), cb = clip_vertex(a, second, out);
  if (!(inside_view_volume(ca) && inside_view_volume(cb))) {
    ++out.counts.primitives_clipped;
    if (!clip_segment(ca, cb)) return 0;
  }
  WindowVertex wa, wb;
  if (!window_position(ca, a.mapping, wa) || !window_position(cb, a.mapping, wb)) return 0;
  if (wa.x == wb.x && wa.y == wb.y) return 0;  // no direction: llvmpipe draws nothing
  const LineGradient gradient = line_gradient(wa, wb, a.rectangular_lines);
  const Quad q = a.rectangular_lines ? rectangular_line_quad(wa, wb, a.draw->line_width)
                                     : line_quad(wa, wb, a.draw->line_width);
  uint32_t v[4];
  for (int k = 0; k < 4; ++k) v[k] = add_line_corner(q, k, wa, wb, gradient, out);
  return emit_quad(q, v, a.index, out.prims);
}

// The point at mesh vertex `index`: returns its triangles emitted; culled unless its vertex is
// inside the view volume, as Mesa's draw module culls a point (draw_pipe_clip.c, clip_point; OpenGL
// 4.6 "Points": a point whose centre is outside is discarded), drawn whole otherwise, past the
// viewport's edge too.
uint32_t assemble_point(const DrawAssembly& a, uint32_t index, AssemblyOutput& out) {
  const ClipVertex c = clip_vertex(a, index, out);
  WindowVertex w;
  if (!inside_view_volume(c) || !window_position(c, a.mapping, w)) return 0;
  const Quad q = point_quad(w, a.draw->point_size);
  uint32_t v[4];
  for (int k = 0; k < 4; ++k)
    v[k] = out.pool.add_vertex(ScreenVertex{q.x[k], q.y[k], w.z, w.inv_w}, w.varying) | out.new_vertex_flag;
  return emit_quad(q, v, a.index, out.prims);
}

}  // namespace

void assemble_lines_points(const DrawAssembly& a, uint32_t begin, uint32_t end, AssemblyOutput& out) {
  const Mesh& mesh = *a.mesh;
  const uint32_t first_index = a.draw->first_index;
  auto vertex = [&](uint32_t k) { return mesh.indices.empty() ? first_index + k : mesh.indices[first_index + k]; };
  for (uint32_t p = begin; p < end; ++p) {
    uint32_t emitted = 0;
    switch (mesh.topology) {
      case Topology::lines: emitted = assemble_line(a, vertex(2 * p), vertex(2 * p + 1), out); break;
      case Topology::line_strip: emitted = assemble_line(a, vertex(p), vertex(p + 1), out); break;
      case Topology::points: emitted = assemble_point(a, vertex(p), out); break;
      default: break;
    }
    out.counts.primitives += emitted;
    if (emitted == 0) ++out.counts.primitives_culled;
  }
  out.counts.primitives_in += end - begin;
}

}  // namespace tbdr::geometry_internal
