// make_scenes' geometry (meshes.h): parametric grid meshes, baked vertex lighting and soft floor
// shadows, and the packing of meshes into a sidecar file.
#include "tools/scenes/meshes.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tbdr::scenes {

void add_triangle(MeshData& m, uint32_t a, uint32_t b, uint32_t c) {
  const Vec3& pa = m.positions[a];
  Vec3 face = (m.positions[b] - pa).cross(m.positions[c] - pa);
  if (face.norm() < 1e-12) return;
  Vec3 outward = m.normals[a] + m.normals[b] + m.normals[c];
  if (face.dot(outward) < 0) std::swap(b, c);
  m.indices.insert(m.indices.end(), {a, b, c});
}

uint32_t add_vertex(MeshData& m, const Vec3& p, const Vec3& n, const Vec2& uv) {
  m.positions.push_back(p);
  m.normals.push_back(n.normalized());
  m.uvs.push_back(uv);
  return uint32_t(m.positions.size() - 1);
}

MeshData make_floor(double x0, double x1, double z0, double z1, int cols, int rows, double uv_per_unit) {
  MeshData m;
  add_grid(m, cols, rows, [&](double u, double v) {
    Vec3 p(x0 + (x1 - x0) * u, 0.0, z0 + (z1 - z0) * v);
    return GridVertex{p, Vec3::UnitY(), Vec2(p.x() * uv_per_unit, p.z() * uv_per_unit)};
  });
  return m;
}

MeshData make_sphere(double radius, int slices, int stacks) {
  MeshData m;
  add_grid(m, slices, stacks, [&](double u, double v) {
    double theta = v * kPi, phi = u * 2.0 * kPi;
    Vec3 n(std::sin(theta) * std::cos(phi), std::cos(theta), -std::sin(theta) * std::sin(phi));
    return GridVertex{radius * n, n, Vec2(u, v)};
  });
  return m;
}

// (p, q) torus knot: a tube around the curve, framed by a rotation-minimizing-enough frame
// (curve tangent and the direction to the knot's axis).
MeshData make_torus_knot(int p, int q, double size, double tube, int segments, int sides) {
  auto curve = [&](double t) -> Vec3 {  // a named type: Eigen expressions must not outlive their temporaries
    double r = 2.0 + std::cos(q * t);
    return Vec3(r * std::cos(p * t), r * std::sin(p * t), -std::sin(q * t)) * (size / 3.0);
  };
  MeshData m;
  add_grid(m, segments, sides, [&](double u, double v) {
    double t = u * 2.0 * kPi, b = v * 2.0 * kPi;
    Vec3 c = curve(t);
    Vec3 tangent = (curve(t + 1e-4) - curve(t - 1e-4)).normalized();
    Vec3 side = tangent.cross(c + curve(t + kPi)).normalized();  // never parallel to the tangent here
    Vec3 normal = side.cross(tangent).normalized();
    Vec3 n = std::cos(b) * normal + std::sin(b) * side;
    return GridVertex{c + tube * n, n, Vec2(u, v)};
  });
  return m;
}

// Closed cylinder along +y from y = 0 to height, with separate cap vertices for flat cap normals.
MeshData make_cylinder(double radius, double height, int sides, int stacks) {
  MeshData m;
  add_grid(m, sides, stacks, [&](double u, double v) {
    double a = u * 2.0 * kPi;
    Vec3 n(std::cos(a), 0.0, -std::sin(a));
    return GridVertex{Vec3(radius * n.x(), height * v, radius * n.z()), n, Vec2(u, v)};
  });
  for (double y : {0.0, height}) {
    Vec3 n = y > 0 ? Vec3::UnitY() : Vec3(-Vec3::UnitY());
    uint32_t center = add_vertex(m, Vec3(0, y, 0), n);
    uint32_t first = uint32_t(m.positions.size());
    for (int i = 0; i < sides; ++i) {
      double a = 2.0 * kPi * i / sides;
      add_vertex(m, Vec3(radius * std::cos(a), y, -radius * std::sin(a)), n);
    }
    for (int i = 0; i < sides; ++i) add_triangle(m, center, first + uint32_t(i), first + uint32_t((i + 1) % sides));
  }
  return m;
}

// Axis-aligned box centered on the origin; each face a subdivided grid with its own vertices.
MeshData make_box(const Vec3& size, int subdivisions) {
  MeshData m;
  Vec3 h = size / 2.0;
  for (int axis = 0; axis < 3; ++axis)
    for (double sign : {-1.0, 1.0}) {
      Vec3 n = Vec3::Zero();
      n[axis] = sign;
      int a1 = (axis + 1) % 3, a2 = (axis + 2) % 3;
      add_grid(m, subdivisions, subdivisions, [&](double u, double v) {
        Vec3 p;
        p[axis] = sign * h[axis];
        p[a1] = (2.0 * u - 1.0) * h[a1];
        p[a2] = (2.0 * v - 1.0) * h[a2];
        return GridVertex{p, n, Vec2(u, v)};
      });
    }
  return m;
}

// ---- lighting baked into vertex colors ---------------------------------------------------------

namespace {

// Light direction (towards the light): from the upper left and slightly in front, so the
// shadows fall to the right where the camera sees them.
const Vec3 kToLight = Vec3(-0.7, 0.75, 0.3).normalized();

double smoothstep(double e0, double e1, double x) {
  double t = std::clamp((x - e0) / (e1 - e0), 0.0, 1.0);
  return t * t * (3.0 - 2.0 * t);
}

// Grey Lambert + hemisphere ambient; the draw's `tint` supplies the albedo, so one lit mesh can
// be drawn in several colors (the vertex_color program multiplies the two).
double lambert(const Vec3& world_normal) {
  double ambient = 0.28 + 0.08 * world_normal.y();
  return std::min(1.0, ambient + 0.8 * std::max(0.0, world_normal.dot(kToLight)));
}

}  // namespace

// Soft shadows on the floor: each object is approximated by spheres; the penumbra widens with the
// distance from the caster, like an area light.
double floor_light(const Vec3& p, const std::vector<ShadowCaster>& casters) {
  double light = 1.0;
  for (const ShadowCaster& c : casters) {
    double t = (c.center - p).dot(kToLight);
    if (t <= 0) continue;
    double d = (c.center - p - t * kToLight).norm();
    double soft = c.radius * 0.25 + 0.06 * t;
    light *= 1.0 - 0.85 * (1.0 - smoothstep(c.radius - soft, c.radius + soft, d));
  }
  double ambient = 0.35;
  double sun = 0.85 * kToLight.y();
  // Falls off away from the still life, so the table's far edge reads as distance.
  double vignette = 1.0 - 0.35 * smoothstep(5.0, 15.0, Vec2(p.x(), p.z()).norm());
  return std::min(1.0, (ambient + sun * light) * vignette);
}

void bake_lambert(MeshData& m, const Mat4& model, double alpha) {
  Mat3 normal_matrix = model.block<3, 3>(0, 0).inverse().transpose();
  m.colors.clear();
  for (const Vec3& n : m.normals) {
    double l = lambert((normal_matrix * n).normalized());
    m.colors.emplace_back(l, l, l, alpha);
  }
}

// ---- sidecar -------------------------------------------------------------------------------------

Json sidecar_mesh(Sidecar& bin, const std::string& name, const MeshData& m, bool with_uvs, bool with_normals) {
  if (m.positions.size() >= 65536) throw std::runtime_error(name + ": too many vertices for 16-bit indices");
  std::vector<float> positions, colors, uvs;
  for (const Vec3& p : m.positions) positions.insert(positions.end(), {float(p.x()), float(p.y()), float(p.z())});
  for (const Vec4& c : m.colors)
    colors.insert(colors.end(), {float(c[0]), float(c[1]), float(c[2]), float(c[3])});
  for (const Vec2& uv : m.uvs) uvs.insert(uvs.end(), {float(uv.x()), float(uv.y())});
  std::vector<uint16_t> indices(m.indices.begin(), m.indices.end());
  Json j = {{"name", name}, {"topology", "triangle_list"}, {"positions", bin.add_floats(positions)}};
  if (!colors.empty()) j["colors"] = bin.add_floats(colors);
  if (with_uvs) j["uvs"] = bin.add_floats(uvs);
  if (with_normals) {
    std::vector<float> normals;
    for (const Vec3& n : m.normals) normals.insert(normals.end(), {float(n.x()), float(n.y()), float(n.z())});
    j["normals"] = bin.add_floats(normals);
  }
  j["indices"] = bin.add_u16(indices);
  j["index_bits"] = 16;
  return j;
}

}  // namespace tbdr::scenes
