// make_scenes: writes the bundled default trace (traces/default: a lit still life), the small
// feature traces (traces/features), the seed tables' traces (traces/seed000, seed001, seed002)
// and the bandwidth savers' traces (traces/savers) of trace format v1. Deterministic: rerunning
// reproduces every byte.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace {

namespace fs = std::filesystem;
// Insertion-ordered objects so the files read in the order the format's tables list their keys.
using Json = nlohmann::ordered_json;
using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;

constexpr double kPi = 3.14159265358979323846;

// ---- JSON writing with stable, readable formatting ---------------------------------------------

// Six decimals are far below a pixel at 1920x1080 and keep the printed numbers short; -0 becomes 0
// so a sign bit of rounding noise never shows in the file.
double round6(double v) {
  double r = std::round(v * 1e6) / 1e6;
  return r == 0.0 ? 0.0 : r;
}

Json num(double v) { return Json(round6(v)); }

Json nums(const std::vector<double>& values) {
  Json a = Json::array();
  for (double v : values) a.push_back(num(v));
  return a;
}

Json mat_json(const Mat4& m) {  // column-major, as the format asks
  Json a = Json::array();
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) a.push_back(num(m(r, c)));
  return a;
}

bool is_scalar(const Json& v) { return !v.is_object() && !v.is_array(); }

std::string compact(const Json& v) {
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      s += first ? "" : ", ";
      s += Json(it.key()).dump() + ": " + compact(it.value());
      first = false;
    }
    return s + "}";
  }
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + compact(v[i]);
    return s + "]";
  }
  return v.dump();
}

// Short values stay on one line; long scalar arrays wrap at a fixed count per line so matrices
// and inline vertex data stay legible.
void pretty(std::string& out, const Json& v, int indent) {
  constexpr int kWidth = 100;
  std::string one_line = compact(v);
  bool matrix = v.is_array() && v.size() == 16 && std::all_of(v.begin(), v.end(), is_scalar);
  if (!matrix && int(one_line.size()) + indent <= kWidth) {
    out += one_line;
    return;
  }
  std::string pad(size_t(indent + 2), ' ');
  if (v.is_object()) {
    out += "{\n";
    size_t i = 0;
    for (auto it = v.begin(); it != v.end(); ++it, ++i) {
      out += pad + Json(it.key()).dump() + ": ";
      pretty(out, it.value(), indent + 2);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
    out += std::string(size_t(indent), ' ') + "}";
    return;
  }
  bool all_scalar = std::all_of(v.begin(), v.end(), is_scalar);
  out += "[\n";
  if (all_scalar) {
    const size_t kPerLine = v.size() == 16 ? 4 : 12;  // a 4x4 matrix: one column per line
    for (size_t i = 0; i < v.size(); ++i) {
      if (i % kPerLine == 0) out += pad;
      out += v[i].dump();
      if (i + 1 < v.size()) out += (i % kPerLine == kPerLine - 1) ? ",\n" : ", ";
    }
    out += "\n";
  } else {
    for (size_t i = 0; i < v.size(); ++i) {
      out += pad;
      pretty(out, v[i], indent + 2);
      out += i + 1 < v.size() ? ",\n" : "\n";
    }
  }
  out += std::string(size_t(indent), ' ') + "]";
}

// Written next to the target, then renamed, so a failed run never leaves half a file.
void write_file(const fs::path& path, const void* data, size_t size) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp.string());
    f.write(static_cast<const char*>(data), std::streamsize(size));
    if (!f) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

void write_json(const fs::path& path, const Json& v) {
  std::string s;
  pretty(s, v, 0);
  s += "\n";
  write_file(path, s.data(), s.size());
}

// RGBA8 rows, top row first.
void write_png(const fs::path& path, int width, int height, const std::vector<uint8_t>& rgba) {
  int png_size = 0;
  unsigned char* png = stbi_write_png_to_mem(rgba.data(), width * 4, width, height, 4, &png_size);
  if (!png) throw std::runtime_error("cannot encode " + path.string());
  write_file(path, png, size_t(png_size));
  STBIW_FREE(png);
}

// ---- matrices (Vulkan conventions) -------------------------------------------------------------

Mat4 translate(double x, double y, double z) {
  Mat4 m = Mat4::Identity();
  m(0, 3) = x;
  m(1, 3) = y;
  m(2, 3) = z;
  return m;
}

Mat4 scale(double x, double y, double z) {
  Mat4 m = Mat4::Identity();
  m(0, 0) = x;
  m(1, 1) = y;
  m(2, 2) = z;
  return m;
}

Mat4 rotate(double degrees, const Vec3& axis) {
  Mat4 m = Mat4::Identity();
  m.block<3, 3>(0, 0) = Eigen::AngleAxisd(degrees * kPi / 180.0, axis.normalized()).toRotationMatrix();
  return m;
}

// Right-handed view space, the camera looking down -z.
Mat4 look_at(const Vec3& eye, const Vec3& target, const Vec3& up) {
  Vec3 f = (target - eye).normalized();
  Vec3 s = f.cross(up).normalized();
  Vec3 u = s.cross(f);
  Mat4 m = Mat4::Identity();
  m.block<1, 3>(0, 0) = s.transpose();
  m.block<1, 3>(1, 0) = u.transpose();
  m.block<1, 3>(2, 0) = -f.transpose();
  m(0, 3) = -s.dot(eye);
  m(1, 3) = -u.dot(eye);
  m(2, 3) = f.dot(eye);
  return m;
}

// Vulkan clip space: z in [0,1] (near -> 0, far -> 1) and framebuffer y pointing down, so view-space
// +y is negated; the image is then upright and not mirrored, and a triangle counter-clockwise seen
// from outside stays counter-clockwise on screen under Vulkan's framebuffer-space area rule.
Mat4 perspective_vulkan(double fov_y_degrees, double aspect, double near_z, double far_z) {
  double f = 1.0 / std::tan(fov_y_degrees * kPi / 360.0);
  Mat4 m = Mat4::Zero();
  m(0, 0) = f / aspect;
  m(1, 1) = -f;
  m(2, 2) = far_z / (near_z - far_z);
  m(2, 3) = near_z * far_z / (near_z - far_z);
  m(3, 2) = -1.0;
  return m;
}

// ---- meshes ------------------------------------------------------------------------------------

struct MeshData {
  std::vector<Vec3> positions;
  std::vector<Vec3> normals;  // object space, unit length; used for lighting and winding only
  std::vector<Vec2> uvs;
  std::vector<Vec4> colors;
  std::vector<uint32_t> indices;
};

// Emits the triangle counter-clockwise seen from the side its vertex normals point to (the
// outside), and drops degenerate ones (sphere poles): all closed meshes then cull with
// front_face counter_clockwise.
void add_triangle(MeshData& m, uint32_t a, uint32_t b, uint32_t c) {
  const Vec3& pa = m.positions[a];
  Vec3 face = (m.positions[b] - pa).cross(m.positions[c] - pa);
  if (face.norm() < 1e-12) return;
  Vec3 outward = m.normals[a] + m.normals[b] + m.normals[c];
  if (face.dot(outward) < 0) std::swap(b, c);
  m.indices.insert(m.indices.end(), {a, b, c});
}

uint32_t add_vertex(MeshData& m, const Vec3& p, const Vec3& n, const Vec2& uv = Vec2::Zero()) {
  m.positions.push_back(p);
  m.normals.push_back(n.normalized());
  m.uvs.push_back(uv);
  return uint32_t(m.positions.size() - 1);
}

// Grid of (cols+1) x (rows+1) vertices; vertex (i, j) at grid(u = i/cols, v = j/rows).
template <class Fn>
void add_grid(MeshData& m, int cols, int rows, Fn vertex_at) {
  uint32_t base = uint32_t(m.positions.size());
  for (int j = 0; j <= rows; ++j)
    for (int i = 0; i <= cols; ++i) {
      auto [p, n, uv] = vertex_at(double(i) / cols, double(j) / rows);
      add_vertex(m, p, n, uv);
    }
  auto at = [&](int i, int j) { return base + uint32_t(j * (cols + 1) + i); };
  for (int j = 0; j < rows; ++j)
    for (int i = 0; i < cols; ++i) {
      add_triangle(m, at(i, j), at(i + 1, j), at(i + 1, j + 1));
      add_triangle(m, at(i, j), at(i + 1, j + 1), at(i, j + 1));
    }
}

struct GridVertex {
  Vec3 p, n;
  Vec2 uv;
};

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

MeshData make_torus(double major, double minor, int segments, int sides) {
  MeshData m;
  add_grid(m, segments, sides, [&](double u, double v) {
    double a = u * 2.0 * kPi, b = v * 2.0 * kPi;
    Vec3 center(major * std::cos(a), 0.0, major * std::sin(a));
    Vec3 n = std::cos(b) * Vec3(std::cos(a), 0.0, std::sin(a)) + std::sin(b) * Vec3::UnitY();
    return GridVertex{center + minor * n, n, Vec2(u, v)};
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

// Unit square in the xy plane, normal +z (used as two-sided glass).
MeshData make_pane(double width, double height) {
  MeshData m;
  add_grid(m, 1, 1, [&](double u, double v) {
    return GridVertex{Vec3((u - 0.5) * width, (0.5 - v) * height, 0.0), Vec3::UnitZ(), Vec2(u, v)};
  });
  return m;
}

// ---- lighting baked into vertex colors ---------------------------------------------------------

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

struct ShadowCaster {
  Vec3 center;
  double radius;
};

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

void bake_lambert(MeshData& m, const Mat4& model, double alpha = 1.0) {
  Mat3 normal_matrix = model.block<3, 3>(0, 0).inverse().transpose();
  m.colors.clear();
  for (const Vec3& n : m.normals) {
    double l = lambert((normal_matrix * n).normalized());
    m.colors.emplace_back(l, l, l, alpha);
  }
}

// ---- trace building ----------------------------------------------------------------------------

// The sidecar: every array of the default scene, each starting 4-byte aligned.
struct Sidecar {
  std::string file;
  std::vector<uint8_t> bytes;

  Json add_floats(const std::vector<float>& values) {
    Json ref = {{"file", file}, {"offset", bytes.size()}, {"count", values.size()}};
    append(values.data(), values.size() * sizeof(float));
    return ref;
  }
  Json add_u16(const std::vector<uint16_t>& values) {
    Json ref = {{"file", file}, {"offset", bytes.size()}, {"count", values.size()}};
    append(values.data(), values.size() * sizeof(uint16_t));
    while (bytes.size() % 4) bytes.push_back(0);
    return ref;
  }
  void append(const void* data, size_t size) {  // little-endian host (x86-64, arm64)
    const uint8_t* p = static_cast<const uint8_t*>(data);
    bytes.insert(bytes.end(), p, p + size);
  }
};

Json sidecar_mesh(Sidecar& bin, const std::string& name, const MeshData& m, bool with_uvs, bool with_normals = false) {
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

Json rect(int x, int y, int w, int h) { return {{"x", x}, {"y", y}, {"width", w}, {"height", h}}; }

Json cost(double alu, double texture_samples, double varyings, double vertex_alu) {
  Json c = {{"alu", num(alu)}};
  if (texture_samples > 0) c["texture_samples"] = num(texture_samples);
  c["varyings"] = num(varyings);
  c["vertex_alu"] = num(vertex_alu);
  return c;
}

Json flat_program(const std::vector<double>& color) {
  return {{"name", "flat"}, {"params", {{"color", nums(color)}}}};
}

Json vertex_color_program(const std::vector<double>& tint) {
  return {{"name", "vertex_color"}, {"params", {{"tint", nums(tint)}}}};
}

Json alpha_blend() {
  return {{"enable", true},         {"src_color", "src_alpha"}, {"dst_color", "one_minus_src_alpha"},
          {"color_op", "add"},      {"src_alpha", "one"},       {"dst_alpha", "one_minus_src_alpha"},
          {"alpha_op", "add"}};
}

Json trace_header(const std::string& name) {
  return {{"format", "tbdrsim-trace"}, {"version", 1}, {"name", name}};
}

// ---- the default trace: a still life -------------------------------------------------------------

struct SceneObject {
  std::string name;
  std::string mesh;
  Mat4 model;
  Json program;
  Json cost;
  bool closed;
  size_t triangles;
};

std::vector<uint8_t> checker_texels(int size, int checks) {
  std::vector<uint8_t> rgba(size_t(size * size * 4));
  int cell = size / checks;
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      bool light = ((x / cell) + (y / cell)) % 2 == 0;
      // A faint per-texel grain so bilinear filtering and texture compression see real data.
      int grain = ((x * 7 + y * 13) % 5) - 2;
      uint8_t* t = &rgba[size_t((y * size + x) * 4)];
      t[0] = uint8_t((light ? 236 : 128) + grain);
      t[1] = uint8_t((light ? 226 : 104) + grain);
      t[2] = uint8_t((light ? 204 : 84) + grain);
      t[3] = 255;
    }
  return rgba;
}

void write_default_trace(const fs::path& dir) {
  fs::create_directories(dir);
  constexpr int kWidth = 1920, kHeight = 1080;
  const Vec3 eye(0.6, 3.1, 8.6), target(0.0, 0.9, -0.3);
  const double fov_y = 40.0, near_z = 0.1, far_z = 100.0;
  Mat4 view = look_at(eye, target, Vec3::UnitY());
  Mat4 proj = perspective_vulkan(fov_y, double(kWidth) / kHeight, near_z, far_z);

  Sidecar bin{"scene.bin", {}};
  Json meshes = Json::array();
  std::vector<SceneObject> opaque, transparent;

  const Json lit_cost = cost(4, 0, 4, 16);

  // Objects standing on the floor (y = 0). Lighting is baked with each draw's rotation applied.
  auto add_lit_mesh = [&](const std::string& name, MeshData m, const Mat4& model_for_lighting, double alpha = 1.0) {
    bake_lambert(m, model_for_lighting, alpha);
    meshes.push_back(sidecar_mesh(bin, name, m, false));
    return m.indices.size() / 3;
  };

  // The sphere mesh is shared by three opaque draws and the glass ball: their models only
  // translate and scale, so the object-space lighting holds for all of them.
  size_t sphere_tris = add_lit_mesh("sphere", make_sphere(1.0, 48, 32), Mat4::Identity());
  struct Ball {
    const char* name;
    Vec3 center;
    double radius;
    std::vector<double> albedo;
  };
  const std::vector<Ball> balls = {
      {"red_ball", Vec3(2.3, 0.85, 0.5), 0.85, {0.86, 0.16, 0.12, 1.0}},
      {"blue_ball", Vec3(-1.9, 0.55, 1.5), 0.55, {0.16, 0.32, 0.86, 1.0}},
      {"green_ball", Vec3(0.95, 0.42, 2.3), 0.42, {0.2, 0.7, 0.3, 1.0}},
  };
  for (const Ball& b : balls)
    opaque.push_back({b.name, "sphere", translate(b.center.x(), b.center.y(), b.center.z()) * scale(b.radius, b.radius, b.radius),
                      vertex_color_program(b.albedo), lit_cost, true, sphere_tris});

  // Pedestal with the torus knot sculpture standing on it.
  const Vec3 pedestal_at(0.0, 0.0, -0.6);
  const double pedestal_height = 0.45;
  Mat4 pedestal_model = translate(pedestal_at.x(), 0.0, pedestal_at.z());
  size_t pedestal_tris = add_lit_mesh("pedestal", make_cylinder(0.75, pedestal_height, 48, 1), pedestal_model);
  opaque.push_back({"pedestal", "pedestal", pedestal_model, vertex_color_program({0.82, 0.8, 0.76, 1.0}), lit_cost, true,
                    pedestal_tris});

  MeshData knot = make_torus_knot(2, 3, 1.25, 0.2, 256, 12);
  double knot_min_y = 1e9;
  Mat4 knot_rotation = rotate(-20.0, Vec3::UnitY()) * rotate(8.0, Vec3::UnitX());
  for (const Vec3& p : knot.positions) knot_min_y = std::min(knot_min_y, (knot_rotation * p.homogeneous()).y());
  Mat4 knot_model = translate(pedestal_at.x(), pedestal_height - knot_min_y - 0.02, pedestal_at.z()) * knot_rotation;
  size_t knot_tris = add_lit_mesh("torus_knot", knot, knot_model);
  opaque.push_back({"torus_knot", "torus_knot", knot_model, vertex_color_program({0.95, 0.72, 0.25, 1.0}), lit_cost, true,
                    knot_tris});
  const Vec3 knot_center = (knot_model * Vec4(0, 0, 0, 1)).head<3>();

  // Column with a cube capital, back left.
  const Vec3 column_at(-3.4, 0.0, -2.8);
  const double column_height = 3.2;
  Mat4 column_model = translate(column_at.x(), 0.0, column_at.z());
  size_t column_tris = add_lit_mesh("column", make_cylinder(0.42, column_height, 48, 12), column_model);
  opaque.push_back({"column", "column", column_model, vertex_color_program({0.9, 0.88, 0.84, 1.0}), lit_cost, true,
                    column_tris});
  Mat4 capital_model = translate(column_at.x(), column_height + 0.2, column_at.z()) * rotate(15.0, Vec3::UnitY());
  size_t capital_tris = add_lit_mesh("capital", make_box(Vec3(1.1, 0.4, 1.1), 4), capital_model);
  opaque.push_back({"capital", "capital", capital_model, vertex_color_program({0.9, 0.88, 0.84, 1.0}), lit_cost, true,
                    capital_tris});

  // Two boxes and a ring lying on the floor.
  Mat4 crate_model = translate(-2.0, 0.6, -0.4) * rotate(32.0, Vec3::UnitY());
  size_t crate_tris = add_lit_mesh("crate", make_box(Vec3(1.2, 1.2, 1.2), 4), crate_model);
  opaque.push_back({"crate", "crate", crate_model, vertex_color_program({0.9, 0.5, 0.15, 1.0}), lit_cost, true, crate_tris});
  Mat4 block_model = translate(3.6, 0.4, -1.9) * rotate(-24.0, Vec3::UnitY());
  size_t block_tris = add_lit_mesh("block", make_box(Vec3(1.4, 0.8, 0.8), 4), block_model);
  opaque.push_back({"block", "block", block_model, vertex_color_program({0.55, 0.3, 0.75, 1.0}), lit_cost, true, block_tris});
  Mat4 ring_model = translate(1.7, 0.2, -2.6);
  size_t ring_tris = add_lit_mesh("ring", make_torus(0.62, 0.2, 64, 24), ring_model);
  opaque.push_back({"ring", "ring", ring_model, vertex_color_program({0.25, 0.75, 0.8, 1.0}), lit_cost, true, ring_tris});

  // The floor: a checkered table top, its lighting and soft shadows baked per vertex.
  std::vector<ShadowCaster> casters;
  for (const Ball& b : balls) casters.push_back({b.center, b.radius});
  casters.push_back({Vec3(pedestal_at.x(), 0.2, pedestal_at.z()), 0.7});
  casters.push_back({knot_center, 1.05});
  for (double y = 0.4; y < column_height; y += 0.6) casters.push_back({Vec3(column_at.x(), y, column_at.z()), 0.45});
  casters.push_back({Vec3(column_at.x(), column_height + 0.2, column_at.z()), 0.65});
  casters.push_back({(crate_model * Vec4(0, 0, 0, 1)).head<3>(), 0.72});
  casters.push_back({(block_model * Vec4(-0.35, 0, 0, 1)).head<3>(), 0.45});
  casters.push_back({(block_model * Vec4(0.35, 0, 0, 1)).head<3>(), 0.45});
  casters.push_back({(ring_model * Vec4(0, 0, 0, 1)).head<3>(), 0.6});
  MeshData floor = make_floor(-16.0, 16.0, -16.0, 10.0, 80, 65, 1.0);
  for (const Vec3& p : floor.positions) {
    double l = floor_light(p, casters);
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  meshes.push_back(sidecar_mesh(bin, "floor", floor, true));
  Json floor_program = {{"name", "textured"},
                        {"params", {{"tint", nums({1, 1, 1, 1})}}},
                        {"bindings", {{"texture", {{"texture", "checker"}, {"filter", "bilinear"}, {"address", "repeat"}}}}}};
  // Drawn last among the opaque objects: the usual front-to-back-ish order for a big occludee.
  opaque.push_back({"floor", "floor", Mat4::Identity(), floor_program, cost(6, 1, 6, 20), false, floor.indices.size() / 3});

  // Transparent: two tinted glass panes and a glass ball, sorted back to front.
  MeshData pane = make_pane(1.6, 1.9);
  meshes.push_back(sidecar_mesh(bin, "pane", pane, false));
  transparent.push_back({"blue_glass", "pane", translate(1.9, 0.95, 2.9) * rotate(-28.0, Vec3::UnitY()),
                         flat_program({0.35, 0.6, 1.0, 0.35}), cost(2, 0, 0, 12), false, 2});
  transparent.push_back({"amber_glass", "pane", translate(-2.7, 0.95, 0.2) * rotate(40.0, Vec3::UnitY()),
                         flat_program({1.0, 0.72, 0.25, 0.4}), cost(2, 0, 0, 12), false, 2});
  transparent.push_back({"glass_ball", "sphere", translate(-0.55, 0.6, 3.1) * scale(0.6, 0.6, 0.6),
                         vertex_color_program({0.85, 0.95, 1.0, 0.45}), lit_cost, true, sphere_tris});
  auto view_depth = [&](const SceneObject& o) { return (view * o.model * Vec4(0, 0, 0, 1)).z(); };
  std::stable_sort(transparent.begin(), transparent.end(),
                   [&](const SceneObject& a, const SceneObject& b) { return view_depth(a) < view_depth(b); });

  auto draw_json = [&](const SceneObject& o, bool blended) {
    Json state = {{"cull", o.closed ? "back" : "none"}, {"front_face", "counter_clockwise"}, {"depth_test", true},
                  {"depth_write", !blended}, {"depth_compare", "less"}};
    if (blended) state["blend"] = Json::array({alpha_blend()});
    Json transform = {{"model", mat_json(o.model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}};
    return Json{{"name", o.name}, {"mesh", o.mesh}, {"transform", transform}, {"state", state}, {"program", o.program},
                {"cost", o.cost}};
  };

  Json opaque_draws = Json::array(), transparent_draws = Json::array();
  for (const SceneObject& o : opaque) opaque_draws.push_back(draw_json(o, false));
  for (const SceneObject& o : transparent) transparent_draws.push_back(draw_json(o, true));

  const Json sky = nums({0.55, 0.72, 0.9, 1.0});
  // One render pass, as a mobile forward renderer records it: an opaque subpass, then a blended
  // subpass on the same color and depth. They share data, so they merge into one hardware pass
  // and depth never leaves the tile buffer (transient, DONT_CARE): the frame a TBDR is built for.
  Json forward_pass = {
      {"name", "forward"},
      {"type", "render"},
      {"attachments",
       {{{"image", "color"}, {"load", "clear"}, {"store", "store"}, {"clear", sky}, {"old_layout", "undefined"},
         {"new_layout", "transfer_src"}},
        {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}},
         {"old_layout", "undefined"}, {"new_layout", "depth_stencil_attachment"}}}},
      {"subpasses",
       {{{"color", {0}}, {"depth", 1}, {"draws", opaque_draws}}, {{"color", {0}}, {"depth", 1}, {"draws", transparent_draws}}}},
      {"dependencies",
       {{{"src_subpass", 0}, {"dst_subpass", 1}, {"src_stages", {"color_attachment_output", "late_fragment_tests"}},
         {"dst_stages", {"color_attachment_output", "early_fragment_tests"}},
         {"src_access", {"color_attachment_write", "depth_stencil_attachment_write"}},
         {"dst_access", {"color_attachment_read", "color_attachment_write", "depth_stencil_attachment_read"}},
         {"by_region", true}}}}};

  Json trace = trace_header("still_life");
  trace["images"] = {{{"name", "color"}, {"format", "RGBA8"}, {"width", kWidth}, {"height", kHeight},
                      {"usage", Json::array({"color_attachment", "transfer_src"})}},
                     {{"name", "depth"}, {"format", "D32F"}, {"width", kWidth}, {"height", kHeight},
                      {"usage", Json::array({"depth_stencil_attachment"})}, {"transient", true}}};
  trace["textures"] = {{{"name", "checker"}, {"file", "checker.png"}, {"format", "RGBA8"}}};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {forward_pass}}}};

  write_png(dir / "checker.png", 64, 64, checker_texels(64, 2));
  write_file(dir / "scene.bin", bin.bytes.data(), bin.bytes.size());
  write_json(dir / "scene.json", trace);

  size_t total = 0;
  std::cout << "default: camera eye (" << eye.transpose() << ") target (" << target.transpose() << ") fov_y " << fov_y
            << " near " << near_z << " far " << far_z << "\n";
  for (auto* list : {&opaque, &transparent}) {
    size_t pass_total = 0;
    for (const SceneObject& o : *list) {
      std::cout << "  " << (list == &opaque ? "opaque" : "transparent") << " " << o.name << ": " << o.triangles << " triangles\n";
      pass_total += o.triangles;
    }
    std::cout << "  pass total: " << pass_total << "\n";
    total += pass_total;
  }
  std::cout << "  frame total: " << total << " triangles, scene.bin " << bin.bytes.size() << " bytes\n";
}

// ---- feature traces ------------------------------------------------------------------------------
// Meshes are given directly in normalized device coordinates (transform identity) so every
// pixel can be worked out by hand: x_px = (x + 1) / 2 * width, y_px = (y + 1) / 2 * height
// (Vulkan: y = -1 is the top row).

struct PixelSpace {
  int width, height;
  double x(double px) const { return 2.0 * px / width - 1.0; }
  double y(double py) const { return 2.0 * py / height - 1.0; }
};

// Indexed quad covering pixels [x0, x1) x [y0, y1) at depth z (counter-clockwise on screen).
Json rect_mesh(const std::string& name, const PixelSpace& s, double x0, double y0, double x1, double y1, double z,
               const std::vector<Vec4>& corner_colors = {}) {
  Json positions = Json::array();
  for (auto [px, py] : {std::pair{x0, y0}, std::pair{x0, y1}, std::pair{x1, y1}, std::pair{x1, y0}})
    for (double v : {s.x(px), s.y(py), z}) positions.push_back(num(v));
  Json mesh = {{"name", name}, {"positions", positions}};
  if (!corner_colors.empty()) {
    Json colors = Json::array();
    for (const Vec4& c : corner_colors)
      for (int i = 0; i < 4; ++i) colors.push_back(num(c[i]));
    mesh["colors"] = colors;
  }
  mesh["indices"] = {0, 1, 2, 0, 2, 3};
  mesh["index_bits"] = 16;
  return mesh;
}

Json image(const std::string& name, const std::string& format, int w, int h, std::initializer_list<const char*> usage) {
  Json u = Json::array();
  for (const char* s : usage) u.push_back(s);
  return {{"name", name}, {"format", format}, {"width", w}, {"height", h}, {"usage", u}};
}

Json color_attachment(const std::string& image_name, const std::string& load, const std::string& store,
                      const std::string& old_layout, const std::string& new_layout, const std::vector<double>& clear = {}) {
  Json a = {{"image", image_name}, {"load", load}, {"store", store}};
  if (clear.size()) a["clear"] = nums(clear);
  a["old_layout"] = old_layout;
  a["new_layout"] = new_layout;
  return a;
}

Json simple_draw(const std::string& name, const std::string& mesh, const Json& program, Json state = Json::object(),
                 Json transform = Json()) {
  Json d = {{"name", name}, {"mesh", mesh}};
  if (!transform.is_null()) d["transform"] = transform;
  if (!state.empty()) d["state"] = state;
  d["program"] = program;
  d["cost"] = cost(2, 0, program["name"] == "vertex_color" ? 4 : 0, 8);
  return d;
}

Json render_pass(const std::string& name, Json attachments, Json subpasses) {
  return {{"name", name}, {"type", "render"}, {"attachments", attachments}, {"subpasses", subpasses}};
}

Json single_subpass(Json draws, int depth = -1) {
  Json s = {{"color", {0}}};
  if (depth >= 0) s["depth"] = depth;
  s["draws"] = draws;
  return s;
}

const std::vector<Vec4> kGradient = {Vec4(0.15, 0.2, 0.45, 1), Vec4(0.05, 0.05, 0.1, 1), Vec4(0.3, 0.1, 0.2, 1),
                                     Vec4(0.5, 0.35, 0.6, 1)};

void write_load_store_ops(const fs::path& dir) {
  PixelSpace s{1920, 1080};
  Json meshes = {rect_mesh("fullscreen_gradient", s, 0, 0, 1920, 1080, 0.5, kGradient),
                 rect_mesh("far_rect", s, 160, 160, 900, 760, 0.6),
                 rect_mesh("near_rect", s, 480, 400, 1100, 980, 0.3),
                 rect_mesh("middle_rect", s, 1180, 160, 1760, 620, 0.5),
                 rect_mesh("fullscreen", s, 0, 0, 1920, 1080, 0.5),
                 rect_mesh("band", s, 240, 700, 1680, 900, 0.5)};
  const char* ca = "color_attachment";
  auto one = [](Json d) { return Json::array({single_subpass(Json::array({d}))}); };
  Json depth_state = {{"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
  Json passes = Json::array();
  // Defines every pixel without loading them first.
  passes.push_back(render_pass("dont_care_store", {color_attachment("color", "dont_care", "store", "undefined", ca)},
                               one(simple_draw("background", "fullscreen_gradient", vertex_color_program({1, 1, 1, 1})))));
  // Clears (overwriting the above) and uses a transient depth buffer that never reaches DRAM.
  passes.push_back(render_pass(
      "clear_store",
      {color_attachment("color", "clear", "store", ca, ca, {0.1, 0.1, 0.12, 1.0}),
       {{"image", "transient_depth"}, {"load", "clear"}, {"store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}},
        {"old_layout", "undefined"}, {"new_layout", "depth_stencil_attachment"}}},
      {single_subpass({simple_draw("near_red", "near_rect", flat_program({0.9, 0.15, 0.1, 1}), depth_state),
                       simple_draw("far_orange", "far_rect", flat_program({1.0, 0.6, 0.1, 1}), depth_state)},
                      1)}));
  passes.push_back(render_pass("load_store", {color_attachment("color", "load", "store", ca, ca)},
                               one(simple_draw("green", "middle_rect", flat_program({0.2, 0.8, 0.3, 1})))));
  // The next three passes' results are discarded: nothing they draw may appear in the image.
  passes.push_back(render_pass("load_dont_care", {color_attachment("color", "load", "dont_care", ca, ca)},
                               one(simple_draw("lost_white", "fullscreen", flat_program({1, 1, 1, 1})))));
  passes.push_back(render_pass("clear_dont_care", {color_attachment("color", "clear", "dont_care", ca, ca, {1, 0, 1, 1})},
                               one(simple_draw("lost_yellow", "middle_rect", flat_program({1, 1, 0, 1})))));
  passes.push_back(render_pass("dont_care_dont_care", {color_attachment("color", "dont_care", "dont_care", ca, ca)},
                               one(simple_draw("lost_cyan", "far_rect", flat_program({0, 1, 1, 1})))));
  // Only the left half is loaded, drawn and stored: the band is cut at x = 960.
  Json half = render_pass("half_render_area", {color_attachment("color", "load", "store", ca, "transfer_src")},
                          one(simple_draw("blue_band", "band", flat_program({0.2, 0.4, 1.0, 1}))));
  half["render_area"] = rect(0, 0, 960, 1080);
  passes.push_back(half);

  Json trace = trace_header("load_store_ops");
  Json depth_image = image("transient_depth", "D32F", 1920, 1080, {"depth_stencil_attachment"});
  depth_image["transient"] = true;
  trace["images"] = {image("color", "RGBA8", 1920, 1080, {"color_attachment", "transfer_src"}), depth_image};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", passes}}};
  write_json(dir / "load_store_ops.json", trace);
}

void write_stencil(const fs::path& dir) {
  PixelSpace s{256, 256};
  // A disc of radius 80 px as a triangle fan: center first, then the rim (closed).
  Json disc = Json::array();
  for (double v : {s.x(128), s.y(128), 0.5}) disc.push_back(num(v));
  for (int i = 0; i <= 32; ++i) {
    double a = 2.0 * kPi * i / 32;
    for (double v : {s.x(128 + 80 * std::cos(a)), s.y(128 - 80 * std::sin(a)), 0.5}) disc.push_back(num(v));
  }
  Json meshes = {{{"name", "disc"}, {"topology", "triangle_fan"}, {"positions", disc}},
                 rect_mesh("fullscreen", s, 0, 0, 256, 256, 0.5)};
  auto stencil_face = [](const char* compare, const char* pass_op, int write_mask) {
    return Json{{"fail_op", "keep"},     {"pass_op", pass_op},   {"depth_fail_op", "keep"},
                {"compare_op", compare}, {"compare_mask", 255}, {"write_mask", write_mask},
                {"reference", 1}};
  };
  auto stencil_state = [&](const char* compare, const char* pass_op, int write_mask) {
    Json face = stencil_face(compare, pass_op, write_mask);
    return Json{{"stencil_test", true}, {"stencil_front", face}, {"stencil_back", face}};
  };
  Json mask_state = stencil_state("always", "replace", 255);
  mask_state["blend"] = Json::array({{{"enable", false}, {"write_mask", ""}}});  // no color writes
  Json draws = {simple_draw("write_mask", "disc", flat_program({1, 1, 1, 1}), mask_state),
                simple_draw("inside", "fullscreen", flat_program({1.0, 0.35, 0.2, 1}), stencil_state("equal", "keep", 0)),
                simple_draw("outside", "fullscreen", flat_program({0.15, 0.3, 0.8, 1}), stencil_state("not_equal", "keep", 0))};
  Json ds = {{"image", "depth_stencil"}, {"load", "clear"}, {"store", "dont_care"}, {"stencil_load", "clear"},
             {"stencil_store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}}, {"old_layout", "undefined"},
             {"new_layout", "depth_stencil_attachment"}};
  Json trace = trace_header("stencil");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("depth_stencil", "D24S8", 256, 256, {"depth_stencil_attachment"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes",
                       {render_pass("stencil_mask",
                                    {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0, 0, 0, 1}), ds},
                                    {single_subpass(draws, 1)})}}}};
  write_json(dir / "stencil.json", trace);
}

Json viewport(double x, double y, double w, double h) {
  return {{"x", num(x)}, {"y", num(y)}, {"width", num(w)}, {"height", num(h)}, {"min_depth", 0.0}, {"max_depth", 1.0}};
}

void write_scissor_viewport(const fs::path& dir) {
  PixelSpace s{320, 240};
  // Apex at NDC y = -1: the top of whichever viewport it is drawn into.
  Json triangle = {{"name", "apex_up_triangle"},
                   {"positions", nums({-1, 1, 0.5, 1, 1, 0.5, 0, -1, 0.5})},
                   {"colors", nums({1, 0.2, 0.2, 1, 0.2, 1, 0.2, 1, 0.3, 0.4, 1, 1})}};
  Json meshes = {rect_mesh("fullscreen_gradient", s, 0, 0, 320, 240, 0.5, kGradient),
                 rect_mesh("fullscreen", s, 0, 0, 320, 240, 0.5), triangle};
  Json scissored = simple_draw("scissored_red", "fullscreen", flat_program({0.9, 0.2, 0.15, 1}));
  scissored["scissor"] = rect(16, 16, 128, 64);
  Json in_viewport = simple_draw("viewport_triangle", "apex_up_triangle", vertex_color_program({1, 1, 1, 1}));
  in_viewport["viewport"] = viewport(160, 120, 160, 120);
  // The visible part is the intersection: pixels x 100..232, y 140..220.
  Json both = simple_draw("viewport_and_scissor", "fullscreen", flat_program({0.3, 0.85, 0.4, 1}));
  both["viewport"] = viewport(32, 100, 200, 120);
  both["scissor"] = rect(100, 140, 200, 80);
  // A fractional viewport: the quad's edges fall on pixel centers' half way marks.
  Json fractional = simple_draw("fractional_viewport", "fullscreen", flat_program({1.0, 0.85, 0.2, 1}));
  fractional["viewport"] = viewport(250.5, 10.25, 60, 40.5);
  Json draws = {simple_draw("background", "fullscreen_gradient", vertex_color_program({1, 1, 1, 1})), scissored, in_viewport,
                both, fractional};
  Json trace = trace_header("scissor_viewport");
  trace["images"] = {image("color", "RGBA8", 320, 240, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0, 0, 0, 1})},
                                              {single_subpass(draws)})}}}};
  write_json(dir / "scissor_viewport.json", trace);
}

void write_near_clip(const fs::path& dir) {
  Mat4 view = look_at(Vec3(0, 1, 0), Vec3(0, 0.6, -4), Vec3::UnitY());
  Mat4 proj = perspective_vulkan(60.0, 1.0, 0.1, 50.0);
  Json transform = {{"view", mat_json(view)}, {"proj", mat_json(proj)}};
  // The ground runs from 50 units ahead to 50 units behind the eye: clipped at the near plane.
  Json ground = {{"name", "ground"},
                 {"positions", nums({-50, 0, -50, -50, 0, 50, 50, 0, 50, 50, 0, -50})},
                 {"colors", nums({0.2, 0.6, 0.2, 1, 0.9, 0.9, 0.3, 1, 0.3, 0.3, 0.9, 1, 0.8, 0.3, 0.3, 1})},
                 {"indices", {0, 1, 2, 0, 2, 3}},
                 {"index_bits", 16}};
  // The third vertex is 1 unit behind the eye (view z = +1, clip w = -1).
  Json crossing = {{"name", "crossing_triangle"},
                   {"positions", nums({-1.5, 0.5, -3, 1.5, 1.8, -3, 0.3, 1.2, 1})},
                   {"colors", nums({1, 0.2, 0.2, 1, 0.2, 1, 0.2, 1, 0.2, 0.3, 1, 1})}};
  Json depth_state = {{"cull", "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
  Json draws = Json::array();
  for (auto [name, mesh] : {std::pair{"ground", "ground"}, std::pair{"crossing_triangle", "crossing_triangle"}}) {
    draws.push_back(simple_draw(name, mesh, vertex_color_program({1, 1, 1, 1}), depth_state, transform));
  }
  Json depth = {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}},
                {"old_layout", "undefined"}, {"new_layout", "depth_stencil_attachment"}};
  Json trace = trace_header("near_clip");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("depth", "D32F", 256, 256, {"depth_stencil_attachment"})};
  trace["meshes"] = {ground, crossing};
  trace["frames"] = {{{"passes", {render_pass("main",
                                              {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.55, 0.72, 0.9, 1}),
                                               depth},
                                              {single_subpass(draws, 1)})}}}};
  write_json(dir / "near_clip.json", trace);
}

Json blend_state(const char* src, const char* dst, const char* op) {
  return {{"enable", true}, {"src_color", src}, {"dst_color", dst}, {"color_op", op},
          {"src_alpha", src}, {"dst_alpha", dst}, {"alpha_op", op}};
}

void write_blend_modes(const fs::path& dir) {
  PixelSpace s{448, 240};
  Json meshes = {rect_mesh("band_top", s, 0, 0, 448, 80, 0.5), rect_mesh("band_middle", s, 0, 80, 448, 160, 0.5),
                 rect_mesh("band_bottom", s, 0, 160, 448, 240, 0.5)};
  Json draws = {simple_draw("red_band", "band_top", flat_program({0.8, 0.2, 0.2, 1})),
                simple_draw("green_band", "band_middle", flat_program({0.2, 0.7, 0.3, 1})),
                simple_draw("blue_band", "band_bottom", flat_program({0.2, 0.3, 0.9, 1}))};
  struct Column {
    const char* name;
    Json blend;
    std::vector<double> color;
  };
  Json constant = blend_state("constant_color", "one_minus_constant_color", "add");
  const std::vector<Column> columns = {
      {"alpha", alpha_blend(), {1.0, 1.0, 0.2, 0.5}},
      {"additive", blend_state("one", "one", "add"), {0.3, 0.3, 0.3, 1}},
      {"subtract", blend_state("one", "one", "subtract"), {0.9, 0.9, 0.9, 1}},  // src - dst
      {"reverse_subtract", blend_state("one", "one", "reverse_subtract"), {0.4, 0.4, 0.4, 1}},  // dst - src
      {"min", blend_state("one", "one", "min"), {0.5, 0.5, 0.5, 1}},
      {"max", blend_state("one", "one", "max"), {0.6, 0.6, 0.6, 1}},
      {"constant_color", constant, {1, 1, 1, 1}},
  };
  for (size_t i = 0; i < columns.size(); ++i) {
    std::string mesh = std::string("column_") + columns[i].name;
    meshes.push_back(rect_mesh(mesh, s, 8 + 64.0 * double(i), 16, 56 + 64.0 * double(i), 224, 0.5));
    Json state = {{"blend", Json::array({columns[i].blend})}};
    if (std::string(columns[i].name) == "constant_color") state["blend_constants"] = nums({0.25, 0.5, 0.75, 1.0});
    draws.push_back(simple_draw(columns[i].name, mesh, flat_program(columns[i].color), state));
  }
  // Two bars across every column: a multiply (dst_color, zero) and a half-transparent white, overlapping.
  meshes.push_back(rect_mesh("bar_multiply", s, 0, 100, 448, 140, 0.5));
  meshes.push_back(rect_mesh("bar_alpha", s, 0, 128, 448, 176, 0.5));
  draws.push_back(simple_draw("multiply", "bar_multiply", flat_program({1.0, 0.8, 0.5, 1}),
                              {{"blend", Json::array({blend_state("dst_color", "zero", "add")})}}));
  draws.push_back(simple_draw("alpha_white", "bar_alpha", flat_program({1, 1, 1, 0.5}), {{"blend", Json::array({alpha_blend()})}}));
  Json trace = trace_header("blend_modes");
  trace["images"] = {image("color", "RGBA8", 448, 240, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.5, 0.5, 0.5, 1})},
                                              {single_subpass(draws)})}}}};
  write_json(dir / "blend_modes.json", trace);
}

// 8x8 texture whose texels are distinguishable: red grows to the right, green downwards, a blue
// checker, and a white texel at the top-left corner to show orientation.
std::vector<uint8_t> uv_test_texels() {
  std::vector<uint8_t> rgba(8 * 8 * 4);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      uint8_t* t = &rgba[size_t((y * 8 + x) * 4)];
      bool corner = x == 0 && y == 0;
      t[0] = corner ? 255 : uint8_t(x * 36);
      t[1] = corner ? 255 : uint8_t(y * 36);
      t[2] = corner ? 255 : uint8_t((x + y) % 2 ? 200 : 40);
      t[3] = 255;
    }
  return rgba;
}

void write_textured(const fs::path& dir) {
  PixelSpace s{256, 256};
  write_png(dir / "uv_test.png", 8, 8, uv_test_texels());
  struct Quad {
    const char* name;
    double x, y;
    const char* filter;
    const char* address;
    double uv0, uv1;
  };
  // Repeat quads show the texture twice; clamp quads stretch the edge texels over a quarter each side.
  const std::vector<Quad> quads = {{"nearest_repeat", 8, 8, "nearest", "repeat", 0, 2},
                                   {"bilinear_repeat", 136, 8, "bilinear", "repeat", 0, 2},
                                   {"nearest_clamp", 8, 136, "nearest", "clamp_to_edge", -0.5, 1.5},
                                   {"bilinear_clamp", 136, 136, "bilinear", "clamp_to_edge", -0.5, 1.5}};
  Json meshes = Json::array(), draws = Json::array();
  for (const Quad& q : quads) {
    // Triangle strip: top-left, bottom-left, top-right, bottom-right.
    double x0 = q.x, y0 = q.y, x1 = q.x + 112, y1 = q.y + 112;
    meshes.push_back({{"name", std::string(q.name) + "_quad"},
                      {"topology", "triangle_strip"},
                      {"positions", nums({s.x(x0), s.y(y0), 0.5, s.x(x0), s.y(y1), 0.5, s.x(x1), s.y(y0), 0.5, s.x(x1), s.y(y1), 0.5})},
                      {"uvs", nums({q.uv0, q.uv0, q.uv0, q.uv1, q.uv1, q.uv0, q.uv1, q.uv1})}});
    Json program = {{"name", "textured"},
                    {"params", {{"tint", nums({1, 1, 1, 1})}}},
                    {"bindings", {{"texture", {{"texture", "uv_test"}, {"filter", q.filter}, {"address", q.address}}}}}};
    Json d = simple_draw(q.name, std::string(q.name) + "_quad", program);
    d["cost"] = cost(3, 1, 2, 8);
    draws.push_back(d);
  }
  Json trace = trace_header("textured");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["textures"] = {{{"name", "uv_test"}, {"file", "uv_test.png"}, {"format", "RGBA8"}, {"mip", "none"}}};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.1, 1})},
                                              {single_subpass(draws)})}}}};
  write_json(dir / "textured.json", trace);
}

void write_clears_and_subpasses(const fs::path& dir) {
  PixelSpace s{256, 256};
  Json big_triangle = {{"name", "big_triangle"},
                       {"positions", nums({s.x(16), s.y(240), 0.5, s.x(240), s.y(240), 0.5, s.x(128), s.y(16), 0.5})},
                       {"colors", nums({1, 0.3, 0.2, 1, 0.2, 0.9, 0.3, 1, 0.3, 0.4, 1, 1})}};
  Json meshes = {big_triangle, rect_mesh("center_rect", s, 96, 112, 160, 176, 0.5), rect_mesh("top_rect", s, 64, 40, 192, 104, 0.5)};
  Json subpass0 = {{"color", {0}},
                   {"draws", {simple_draw("big_triangle", "big_triangle", vertex_color_program({1, 1, 1, 1})),
                              simple_draw("after_clear", "center_rect", flat_program({1.0, 0.9, 0.2, 1}))}},
                   {"clears", {{{"before_draw", 1}, {"color", {0}}, {"value", nums({0.0, 0.4, 0.4, 1})},
                                {"rects", {rect(32, 120, 64, 64), rect(150, 150, 72, 48)}}}}}};
  // Second subpass: draws on top of attachment 0 and into the second attachment; its slot 1
  // (the overlay image) is half cleared first.
  Json subpass1 = {{"color", {0, 1}},
                   {"draws", {simple_draw("on_top", "top_rect", flat_program({0.9, 0.3, 0.6, 1}))}},
                   {"clears", {{{"before_draw", 0}, {"color", {1}}, {"value", nums({0.3, 0.3, 0.8, 1})},
                                {"rects", {rect(0, 128, 256, 128)}}}}}};
  Json dependencies = {{{"src_subpass", "external"}, {"dst_subpass", 0}, {"src_stages", {"color_attachment_output"}},
                        {"dst_stages", {"color_attachment_output"}}, {"src_access", Json::array()},
                        {"dst_access", {"color_attachment_write"}}, {"by_region", false}},
                       {{"src_subpass", 0}, {"dst_subpass", 1}, {"src_stages", {"color_attachment_output"}},
                        {"dst_stages", {"color_attachment_output"}}, {"src_access", {"color_attachment_write"}},
                        {"dst_access", Json::array({"color_attachment_read", "color_attachment_write"})}, {"by_region", true}}};
  Json pass = render_pass("two_subpasses",
                          {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.15, 1}),
                           color_attachment("overlay", "clear", "store", "undefined", "transfer_src", {0.25, 0.25, 0.25, 1})},
                          {subpass0, subpass1});
  pass["dependencies"] = dependencies;
  Json trace = trace_header("clears_and_subpasses");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("overlay", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {pass}}}};
  write_json(dir / "clears_and_subpasses.json", trace);
}

void write_copy_blit(const fs::path& dir) {
  PixelSpace s{256, 256};
  Json meshes = {rect_mesh("fullscreen_gradient", s, 0, 0, 256, 256, 0.5, kGradient),
                 rect_mesh("left_rect", s, 24, 24, 120, 232, 0.5), rect_mesh("right_rect", s, 136, 64, 232, 192, 0.5)};
  Json draws = {simple_draw("background", "fullscreen_gradient", vertex_color_program({1, 1, 1, 1})),
                simple_draw("orange", "left_rect", flat_program({1.0, 0.55, 0.1, 1})),
                simple_draw("teal", "right_rect", flat_program({0.1, 0.7, 0.7, 1}))};
  Json render = render_pass("draw", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0, 0, 0, 1})},
                            {single_subpass(draws)});
  Json copy = {{"name", "copy_to_staging"}, {"type", "copy"}, {"src", {{"image", "color"}}}, {"dst", {{"image", "staging"}}}};
  // The blit reads what the copy wrote: transfer write -> transfer read, and a layout change.
  Json barrier = {{"name", "copy_to_blit"},
                  {"type", "barrier"},
                  {"src_stages", {"transfer"}},
                  {"dst_stages", {"transfer"}},
                  {"src_access", {"transfer_write"}},
                  {"dst_access", {"transfer_read"}},
                  {"images", {{{"image", "staging"}, {"old_layout", "transfer_dst"}, {"new_layout", "transfer_src"},
                               {"src_stages", {"transfer"}}, {"dst_stages", {"transfer"}},
                               {"src_access", {"transfer_write"}}, {"dst_access", {"transfer_read"}}}}}};
  Json blit = {{"name", "downscale"}, {"type", "blit"}, {"src", {{"image", "staging"}}}, {"dst", {{"image", "half"}}},
               {"filter", "bilinear"}};
  Json trace = trace_header("copy_blit");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("staging", "RGBA8", 256, 256, {"transfer_src", "transfer_dst"}),
                     image("half", "RGBA8", 128, 128, {"transfer_dst"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render, copy, barrier, blit}}}};
  write_json(dir / "copy_blit.json", trace);
}

void write_clip_space(const fs::path& dir) {
  // Clip-space xyzw given directly. Triangle 1: NDC (-0.8, 0.8), (0.8, 0.8), (0, -0.8) at depth 0.3..0.6
  // with w = 1, 4, 2, so perspective-correct color interpolation is visibly skewed towards the
  // w = 1 corner. Triangle 2 (w = 1) reaches past x = +1 and is cut by the right edge.
  std::vector<double> positions;
  auto vertex = [&](double x, double y, double z, double w) { positions.insert(positions.end(), {x * w, y * w, z * w, w}); };
  vertex(-0.8, 0.8, 0.3, 1);
  vertex(0.8, 0.8, 0.3, 4);
  vertex(0.0, -0.8, 0.6, 2);
  vertex(0.5, -0.95, 0.2, 1);
  vertex(1.6, -0.95, 0.2, 1);
  vertex(1.0, 0.2, 0.2, 1);
  Json p = Json::array();
  for (double v : positions) p.push_back(num(v));
  Json mesh = {{"name", "clip_triangles"},
               {"position_components", 4},
               {"positions", p},
               {"colors", nums({1, 0.2, 0.2, 1, 0.2, 1, 0.2, 1, 0.2, 0.3, 1, 1, 1, 1, 0.3, 1, 1, 1, 0.3, 1, 1, 0.5, 0.1, 1})}};
  Json d = simple_draw("clip_space_triangles", "clip_triangles", vertex_color_program({1, 1, 1, 1}), Json::object(),
                       {{"clip_space", true}});
  Json trace = trace_header("clip_space");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["meshes"] = {mesh};
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.1, 1})},
                                              {single_subpass({d})})}}}};
  write_json(dir / "clip_space.json", trace);
}

void write_multi_frame(const fs::path& dir) {
  PixelSpace s{256, 256};
  // The mover's mesh is a 64x64 px square around the center; its model translates it.
  Json meshes = {rect_mesh("center_square", s, 96, 96, 160, 160, 0.5), rect_mesh("static_rect", s, 80, 32, 176, 224, 0.5)};
  Json mover = simple_draw("mover", "center_square", flat_program({1.0, 0.55, 0.1, 1}), Json::object(),
                           {{"model", mat_json(translate(-0.5, 0, 0))}});  // 64 px left
  Json draws = {simple_draw("static", "static_rect", flat_program({0.2, 0.35, 0.8, 1})), mover};
  Json frame0 = {{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.1, 1})},
                                         {single_subpass(draws)})}}};
  // Frame 1 repeats frame 0's passes; the mover goes 64 px right of center and turns green.
  Json frame1 = {{"overrides", {{"mover", {{"transform", {{"model", mat_json(translate(0.5, 0, 0))}}},
                                           {"params", {{"color", nums({0.2, 0.85, 0.3, 1})}}}}}}}};
  Json trace = trace_header("multi_frame");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {frame0, frame1};
  write_json(dir / "multi_frame.json", trace);
}


// ---- seed traces: the bandwidth tables of seeds 000, 001 and 002 (traces/seed00N/README.md) ------
// The ledger rows of these tables depend on attachments, formats, load/store ops and sampled
// footprints, not on content: each pass draws a few simple triangles or one full-screen
// triangle. The nominal figures are asserted by tests/seed_tables_test.cpp.

// One triangle in clip space (xyzw, w = 1) covering the whole viewport at depth z.
Json fullscreen_triangle_mesh(const std::string& name, double z) {
  return {{"name", name}, {"position_components", 4}, {"positions", nums({-1, -1, z, 1, 3, -1, z, 1, -1, 3, z, 1})}};
}

// An image read by a post-processing program; clamp_to_edge so bilinear taps never wrap around.
Json image_binding(const std::string& image_name) { return {{"image", image_name}, {"address", "clamp_to_edge"}}; }

Json program_json(const std::string& name, Json bindings, Json params = Json::object()) {
  Json p = {{"name", name}};
  if (!params.empty()) p["params"] = params;
  if (!bindings.empty()) p["bindings"] = bindings;
  return p;
}

// A draw of the full-screen triangle: every pixel of the render area shaded once.
Json fullscreen_draw(const std::string& name, const Json& program, double texture_samples, Json state = Json::object(),
                     const std::string& mesh = "fullscreen_triangle") {
  Json d = {{"name", name}, {"mesh", mesh}, {"transform", {{"clip_space", true}}}};
  if (!state.empty()) d["state"] = state;
  d["program"] = program;
  d["cost"] = cost(4, texture_samples, 0, 4);
  return d;
}

Json depth_attachment(const std::string& image_name, const std::string& load, const std::string& store,
                      const std::string& old_layout, const std::string& new_layout, int layer = -1) {
  Json a = {{"image", image_name}};
  if (layer >= 0) a["layer"] = layer;
  a["load"] = load;
  a["store"] = store;
  if (load == "clear") a["clear"] = {{"depth", 1.0}, {"stencil", 0}};
  a["old_layout"] = old_layout;
  a["new_layout"] = new_layout;
  return a;
}

// A render pass that writes every pixel of `target` with one full-screen draw of `program`
// (so the target is not loaded: dont_care) and stores it for a later sampled read.
Json fullscreen_pass(const std::string& name, const std::string& target, const Json& program, double texture_samples) {
  return render_pass(name, {color_attachment(target, "dont_care", "store", "undefined", "shader_read_only")},
                     {single_subpass({fullscreen_draw(name, program, texture_samples)})});
}

Json sized_image(const std::string& name, const std::string& format, int w, int h, std::initializer_list<const char*> usage,
                 int layers = 1, int samples = 1, bool transient = false) {
  Json i = image(name, format, w, h, usage);
  if (layers > 1) i["array_layers"] = layers;
  if (samples > 1) i["samples"] = samples;
  if (transient) i["transient"] = true;
  return i;
}

// ---- seed 002: the forward pipeline at 1080x2340 and its optimized variants ----

// Which of seed 002's optimizations (its section 4) a variant applies; each includes the earlier.
struct ForwardVariant {
  std::string file, name;
  bool direct_blend_shared_scope = false;  // #1 + #2: alpha straight into the HDR, alpha + crowd one scope
  bool fxaa_to_final = false;              // #3: FXAA writes the final image, no FinalComposition
  bool histogram_quarter = false;          // #4: the histogram reads one texel per 2x2 block
  bool refraction_snapshot = false;        // #5: half-size snapshot, transmission blends into the HDR
  int csm_size = 2048;                     // #6: 1024
};

void write_forward(const fs::path& dir, const ForwardVariant& v) {
  constexpr int W = 1080, H = 2340;
  // Bloom levels: each halves the previous one rounded up (Unreal's DivideAndRoundUp): 540x1170,
  // 270x585, 135x293, 68x147. README.md says why not rounded down.
  const int bloom_w[5] = {W, 540, 270, 135, 68}, bloom_h[5] = {H, 1170, 585, 293, 147};
  PixelSpace s{W, H};
  const char* ca = "color_attachment";
  const char* sro = "shader_read_only";

  // Opaque scene: ground and three blocks; the same meshes are the shadow casters and the
  // Pre-Z geometry. Transparent glass, crowd impostors.
  struct Block {
    const char* name;
    double x0, y0, x1, y1, z;
    std::vector<Vec4> colors;
  };
  const std::vector<Block> opaque = {
      {"ground", 0, 1650, 1080, 2340, 0.35, {Vec4(0.3, 0.45, 0.2, 1), Vec4(0.2, 0.3, 0.12, 1), Vec4(0.22, 0.32, 0.14, 1), Vec4(0.32, 0.48, 0.22, 1)}},
      {"block_left", 60, 700, 460, 1700, 0.6, {Vec4(0.7, 0.66, 0.6, 1), Vec4(0.45, 0.42, 0.4, 1), Vec4(0.5, 0.46, 0.42, 1), Vec4(0.75, 0.7, 0.64, 1)}},
      {"block_right", 560, 420, 1000, 1750, 0.7, {Vec4(0.55, 0.6, 0.7, 1), Vec4(0.35, 0.38, 0.45, 1), Vec4(0.38, 0.42, 0.5, 1), Vec4(0.6, 0.65, 0.75, 1)}},
      {"bridge", 300, 1200, 800, 1330, 0.5, {Vec4(0.8, 0.5, 0.3, 1), Vec4(0.6, 0.35, 0.2, 1), Vec4(0.6, 0.35, 0.2, 1), Vec4(0.8, 0.5, 0.3, 1)}},
  };
  Json meshes = {fullscreen_triangle_mesh("fullscreen_triangle", 0.5), fullscreen_triangle_mesh("sky_triangle", 0.9999)};
  for (const Block& b : opaque) meshes.push_back(rect_mesh(b.name, s, b.x0, b.y0, b.x1, b.y1, b.z, b.colors));
  meshes.push_back(rect_mesh("glass_a", s, 150, 900, 700, 1400, 0.3));
  meshes.push_back(rect_mesh("glass_b", s, 450, 1250, 950, 1900, 0.3));
  for (int i = 0; i < 3; ++i)
    meshes.push_back(rect_mesh("crowd_" + std::to_string(i), s, 120 + 300.0 * i, 1950, 260 + 300.0 * i, 2250, 0.3));

  const Json write_depth = {{"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
  const Json equal_depth = {{"depth_test", true}, {"depth_write", false}, {"depth_compare", "less_or_equal"}};
  const Json test_depth = {{"depth_test", true}, {"depth_write", false}, {"depth_compare", "less"}};
  Json alpha_state = test_depth;  // straight (not premultiplied) RGB: SrcAlpha / OneMinusSrcAlpha
  alpha_state["blend"] = Json::array({alpha_blend()});
  Json crowd_state = test_depth;  // the crowd outputs premultiplied RGB: One / OneMinusSrcAlpha
  crowd_state["blend"] = Json::array({blend_state("one", "one_minus_src_alpha", "add")});

  Json depth_only_draws = Json::array(), opaque_draws = Json::array();
  for (const Block& b : opaque) {
    depth_only_draws.push_back(simple_draw(b.name, b.name, flat_program({1, 1, 1, 1}), write_depth));
    opaque_draws.push_back(simple_draw(b.name, b.name, vertex_color_program({1, 1, 1, 1}), equal_depth));
  }
  opaque_draws.push_back(fullscreen_draw("sky", flat_program({0.45, 0.65, 1.2, 1}), 0, equal_depth, "sky_triangle"));
  Json alpha_draws = {simple_draw("glass_a", "glass_a", flat_program({0.3, 0.7, 1.0, 0.4}), alpha_state),
                      simple_draw("glass_b", "glass_b", flat_program({1.0, 0.6, 0.2, 0.35}), alpha_state)};
  Json crowd_draws = Json::array();
  for (int i = 0; i < 3; ++i)
    crowd_draws.push_back(simple_draw("crowd_" + std::to_string(i), "crowd_" + std::to_string(i),
                                      flat_program({0.36 - 0.08 * i, 0.24, 0.12 + 0.08 * i, 0.6}), crowd_state));

  Json images = Json::array();
  Json passes = Json::array();

  // (1) Pre-Z: depth only.
  images.push_back(image("depth", "D32F", W, H, {"depth_stencil_attachment", "sampled"}));
  passes.push_back(render_pass("pre_z", {depth_attachment("depth", "clear", "store", "undefined", "depth_stencil_attachment")},
                               {{{"color", Json::array()}, {"depth", 0}, {"draws", depth_only_draws}}}));
  // (1) CSM: three cascades, one render pass per layer of a D16 array.
  images.push_back(sized_image("csm", "D16", v.csm_size, v.csm_size, {"depth_stencil_attachment", "sampled"}, 3));
  for (int c = 0; c < 3; ++c) {
    Json casters = Json::array();
    for (const Block& b : opaque) casters.push_back(simple_draw(b.name, b.name, flat_program({1, 1, 1, 1}), write_depth));
    passes.push_back(render_pass("csm_cascade" + std::to_string(c),
                                 {depth_attachment("csm", "clear", "store", "undefined", "depth_stencil_read_only", c)},
                                 {{{"color", Json::array()}, {"depth", 0}, {"draws", casters}}}));
  }
  // (1) GTAO at half width and height, its stand-in a 2x2 downsample of the depth; then the denoise.
  images.push_back(image("ao", "RG16F", W / 2, H / 2, {ca, "sampled"}));
  images.push_back(image("ao_denoised", "RG16F", W / 2, H / 2, {ca, "sampled"}));
  passes.push_back(fullscreen_pass("gtao", "ao", program_json("downsample_2x2", {{"source", image_binding("depth")}}), 4));
  passes.push_back(fullscreen_pass("ao_denoise", "ao_denoised", program_json("copy", {{"source", image_binding("ao")}}), 1));
  // (2) Opaque + sky: depth loaded from Pre-Z (equal test), color cleared; both stored.
  images.push_back(image("hdr", "RGBA16F", W, H, {ca, "sampled"}));
  passes.push_back(render_pass("opaque_sky",
                               {color_attachment("hdr", "clear", "store", "undefined", sro, {0, 0, 0, 1}),
                                depth_attachment("depth", "load", "store", "depth_stencil_attachment", "depth_stencil_read_only")},
                               {single_subpass(opaque_draws, 1)}));
  std::string scene = "hdr";  // the HDR image the post chain reads
  if (!v.refraction_snapshot) {
    // (3) Transmission into its own layer, sampling the whole HDR as the background; full-screen Mix.
    images.push_back(image("transmission_layer", "RGBA16F", W, H, {ca, "sampled"}));
    images.push_back(image("hdr_mixed", "RGBA16F", W, H, {ca, "sampled"}));
    passes.push_back(render_pass(
        "transmission",
        {color_attachment("transmission_layer", "clear", "store", "undefined", sro, {0, 0, 0, 0}),
         depth_attachment("depth", "load", "store", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass({fullscreen_draw("refraction", program_json("copy", {{"source", image_binding("hdr")}}), 1)}, 1)}));
    passes.push_back(fullscreen_pass("mix", "hdr_mixed",
                                     program_json("mix", {{"base", image_binding("hdr")}, {"over", image_binding("transmission_layer")}},
                                                  {{"weight", nums({0.5})}}),
                                     2));
    scene = "hdr_mixed";
  } else {
    // #5: a half-size snapshot of the unmodified HDR, sampled by transmission drawn straight into the HDR.
    images.push_back(image("refraction_snapshot", "RGBA16F", W / 2, H / 2, {ca, "sampled"}));
    passes.push_back(fullscreen_pass("refraction_snapshot", "refraction_snapshot",
                                     program_json("downsample_2x2", {{"source", image_binding("hdr")}}), 4));
    Json blended = Json::object();
    blended["blend"] = Json::array({alpha_blend()});
    passes.push_back(render_pass(
        "transmission",
        {color_attachment("hdr", "load", "store", sro, sro),
         depth_attachment("depth", "load", "store", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass({fullscreen_draw("refraction",
                                         program_json("copy", {{"source", image_binding("refraction_snapshot")}},
                                                      {{"tint", nums({1, 1, 1, 0.5})}}),
                                         1, blended)},
                        1)}));
  }
  if (!v.direct_blend_shared_scope) {
    // (3) Transparency into a premultiplied layer over black, CompositePremultiplied, then CrowdProxy.
    images.push_back(image("alpha_layer", "RGBA16F", W, H, {ca, "sampled"}));
    images.push_back(image("hdr_composited", "RGBA16F", W, H, {ca, "sampled"}));
    // alpha_blend on (0,0,0,0) accumulates the premultiplied layer: rgb = a x C, alpha = a.
    passes.push_back(render_pass(
        "transparency_alpha",
        {color_attachment("alpha_layer", "clear", "store", "undefined", sro, {0, 0, 0, 0}),
         depth_attachment("depth", "load", "store", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass(alpha_draws, 1)}));
    passes.push_back(fullscreen_pass("composite_premultiplied", "hdr_composited",
                                     program_json("composite", {{"base", image_binding(scene)}, {"over", image_binding("alpha_layer")}}),
                                     2));
    passes.push_back(render_pass(
        "crowd_proxy",
        {color_attachment("hdr_composited", "load", "store", sro, sro),
         depth_attachment("depth", "load", "dont_care", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass(crowd_draws, 1)}));
    scene = "hdr_composited";
  } else {
    // #1 + #2: alpha straight into the HDR and the crowd in the same scope: one HDR load and store,
    // one depth load, no depth store (nothing reads the depth afterwards).
    Json draws = alpha_draws;
    for (const Json& d : crowd_draws) draws.push_back(d);
    passes.push_back(render_pass(
        "alpha_crowd_shared_scope",
        {color_attachment(scene, "load", "store", sro, sro),
         depth_attachment("depth", "load", "dont_care", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass(draws, 1)}));
  }
  // (4) Bloom: four 2x2 downsamples, three bilinear upsamples that read only the lower level.
  for (int l = 1; l <= 4; ++l) {
    const std::string target = "bloom_down" + std::to_string(l);
    const std::string source = l == 1 ? scene : "bloom_down" + std::to_string(l - 1);
    images.push_back(image(target, "RGBA16F", bloom_w[l], bloom_h[l], {ca, "sampled"}));
    passes.push_back(fullscreen_pass(target, target, program_json("downsample_2x2", {{"source", image_binding(source)}}), 4));
  }
  for (int l = 3; l >= 1; --l) {
    const std::string target = "bloom_up" + std::to_string(l);
    const std::string low = l == 3 ? "bloom_down4" : "bloom_up" + std::to_string(l + 1);
    images.push_back(image(target, "RGBA16F", bloom_w[l], bloom_h[l], {ca, "sampled"}));
    passes.push_back(fullscreen_pass(target, target, program_json("upsample_add", {{"low", image_binding(low)}}), 4));
  }
  // (4) BuildHistogram (compute): every texel, or one per 2x2 block (#4).
  images.push_back(image("histogram", "R32F", 256, 1, {"storage", "sampled"}));
  const int step = v.histogram_quarter ? 2 : 1;
  passes.push_back({{"name", "build_histogram"},
                    {"type", "compute"},
                    {"program", {{"name", "histogram"}}},
                    {"reads", {{{"image", scene}, {"step", {step, step}}}}},
                    {"writes", {{{"image", "histogram"}}}}});
  // (4) Tonemap (HDR + bloom) to LDR, FXAA, FinalComposition.
  images.push_back(image("ldr", "RGBA8", W, H, {ca, "sampled"}));
  passes.push_back(fullscreen_pass(
      "tonemap", "ldr",
      program_json("tonemap", {{"hdr", image_binding(scene)}, {"bloom", image_binding("bloom_up1")}},
                   {{"exposure", nums({1})}, {"bloom_strength", nums({0.25})}}),
      5));
  if (v.fxaa_to_final) {
    images.push_back(image("final", "BGRA8", W, H, {ca, "transfer_src"}));
    passes.push_back(fullscreen_pass("fxaa", "final", program_json("copy", {{"source", image_binding("ldr")}}), 9));
  } else {
    images.push_back(image("aa", "RGBA8", W, H, {ca, "sampled"}));
    images.push_back(image("final", "BGRA8", W, H, {ca, "transfer_src"}));
    passes.push_back(fullscreen_pass("fxaa", "aa", program_json("copy", {{"source", image_binding("ldr")}}), 9));
    passes.push_back(fullscreen_pass("final_composition", "final", program_json("copy", {{"source", image_binding("aa")}}), 1));
  }

  Json trace = trace_header(v.name);
  trace["images"] = images;
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", passes}}};
  write_json(dir / v.file, trace);
}

void write_seed002(const fs::path& dir) {
  fs::create_directories(dir);
  ForwardVariant v;
  v.file = "forward_baseline.json";
  v.name = "seed002_forward_baseline";
  write_forward(dir, v);
  v.direct_blend_shared_scope = true;
  v.file = "forward_direct_blend_shared_scope.json";
  v.name = "seed002_forward_direct_blend_shared_scope";
  write_forward(dir, v);
  v.fxaa_to_final = v.histogram_quarter = true;
  v.file = "forward_fxaa_to_final_histogram_quarter.json";
  v.name = "seed002_forward_fxaa_to_final_histogram_quarter";
  write_forward(dir, v);
  v.refraction_snapshot = true;
  v.csm_size = 1024;
  v.file = "forward_csm1024_refraction_snapshot.json";
  v.name = "seed002_forward_csm1024_refraction_snapshot";
  write_forward(dir, v);
}

// ---- seeds 000 and 001: deferred G-buffer -> lighting ----

// Inline mesh with object-space normals (read by the gbuffer program), 16-bit indices.
Json normal_mesh(const std::string& name, const MeshData& m) {
  std::vector<double> positions, normals;
  for (const Vec3& p : m.positions) positions.insert(positions.end(), {p.x(), p.y(), p.z()});
  for (const Vec3& n : m.normals) normals.insert(normals.end(), {n.x(), n.y(), n.z()});
  Json indices = Json::array();
  for (uint32_t i : m.indices) indices.push_back(i);
  return {{"name", name}, {"positions", nums(positions)}, {"normals", nums(normals)}, {"indices", indices}, {"index_bits", 16}};
}

struct DeferredScene {
  Json meshes, gbuffer_draws, light_params;
};

// A floor, a box and a ball seen from above and in front, lit by four point lights.
DeferredScene deferred_scene(int width, int height) {
  const Mat4 view = look_at(Vec3(0.0, 3.4, 6.0), Vec3(0.0, 0.5, 0.0), Vec3::UnitY());
  const Mat4 proj = perspective_vulkan(width < height ? 70.0 : 45.0, double(width) / height, 0.1, 50.0);
  DeferredScene sc;
  sc.meshes = {normal_mesh("floor", make_floor(-4, 4, -4, 4, 1, 1, 0)), normal_mesh("box", make_box(Vec3(1.2, 1.2, 1.2), 1)),
               normal_mesh("ball", make_sphere(0.7, 16, 12)), fullscreen_triangle_mesh("fullscreen_triangle", 0.5)};
  struct Object {
    const char* name;
    const char* mesh;
    Mat4 model;
    std::vector<double> albedo;
  };
  const std::vector<Object> objects = {{"box", "box", translate(-0.9, 0.6, 0.2) * rotate(30, Vec3::UnitY()), {0.85, 0.55, 0.25, 1}},
                                       {"ball", "ball", translate(1.0, 0.7, 0.6), {0.3, 0.55, 0.9, 1}},
                                       {"floor", "floor", Mat4::Identity(), {0.7, 0.7, 0.68, 1}}};
  sc.gbuffer_draws = Json::array();
  for (const Object& o : objects) {
    Json state = {{"cull", "back"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    if (std::string(o.name) == "floor") state["cull"] = "none";
    Json d = {{"name", o.name},
              {"mesh", o.mesh},
              {"transform", {{"model", mat_json(o.model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}}},
              {"state", state},
              {"program", {{"name", "gbuffer"}, {"params", {{"tint", nums(o.albedo)}}}}},
              {"cost", cost(4, 0, 3, 16)}};
    sc.gbuffer_draws.push_back(d);
  }
  sc.light_params = {{"inv_view_proj", mat_json((proj * view).inverse())},
                     {"lights", nums({2.0, 2.5, 2.0, 2.6, 2.3, 2.0, 8.0,    //
                                      -2.5, 1.5, 1.0, 0.8, 1.3, 2.6, 6.0,   //
                                      0.0, 3.0, -2.5, 2.0, 2.0, 2.0, 7.0,   //
                                      1.8, 0.4, 2.4, 2.6, 1.0, 0.5, 3.5})},
                     {"ambient", nums({0.15, 0.15, 0.18, 0})}};
  return sc;
}

const std::vector<double> kGbufferClear = {0.4, 0.5, 0.65, 1};

// Two render passes: the G-buffer is stored, then sampled by the lighting pass (texel fetch at
// the same pixel) which writes the HDR image.
Json deferred_split_trace(const std::string& name, int width, int height, const char* albedo_format, const char* normal_format) {
  const DeferredScene sc = deferred_scene(width, height);
  const char* sro = "shader_read_only";
  Json gbuffer = render_pass("gbuffer",
                             {color_attachment("albedo", "clear", "store", "undefined", sro, kGbufferClear),
                              color_attachment("normal", "clear", "store", "undefined", sro, {0.5, 0.5, 1, 1}),
                              depth_attachment("depth", "clear", "store", "undefined", "depth_stencil_read_only")},
                             {{{"color", {0, 1}}, {"depth", 2}, {"draws", sc.gbuffer_draws}}});
  Json program = {{"name", "deferred_light_sampled"},
                  {"params", sc.light_params},
                  {"bindings", {{"albedo", {{"image", "albedo"}}}, {"normal", {{"image", "normal"}}}, {"depth", {{"image", "depth"}}}}}};
  Json lighting = render_pass("lighting", {color_attachment("hdr", "dont_care", "store", "undefined", "color_attachment")},
                              {single_subpass({fullscreen_draw("deferred_light", program, 3)})});
  Json trace = trace_header(name);
  trace["images"] = {image("albedo", albedo_format, width, height, {"color_attachment", "sampled"}),
                     image("normal", normal_format, width, height, {"color_attachment", "sampled"}),
                     image("depth", "D32F", width, height, {"depth_stencil_attachment", "sampled"}),
                     image("hdr", "RGBA16F", width, height, {"color_attachment", "sampled"})};
  trace["meshes"] = sc.meshes;
  trace["frames"] = {{{"passes", {gbuffer, lighting}}}};
  return trace;
}

// Subpass 0 (G-buffer) -> subpass 1 (lighting): the G-buffer's color and depth writes before
// the lighting fragments read them as input attachments, per region (same pixel).
Json gbuffer_to_lighting_dependency() {
  return {{{"src_subpass", 0},
           {"dst_subpass", 1},
           {"src_stages", {"color_attachment_output", "early_fragment_tests", "late_fragment_tests"}},
           {"dst_stages", {"fragment_shader"}},
           {"src_access", {"color_attachment_write", "depth_stencil_attachment_write"}},
           {"dst_access", {"input_attachment_read"}},
           {"by_region", true}}};
}

// One render pass, two subpasses: gbuffer, then deferred_light reading the three G-buffer
// attachments as input attachments; they are transient and not stored, only the HDR is.
Json deferred_merged_trace(const std::string& name, int width, int height, int samples) {
  const DeferredScene sc = deferred_scene(width, height);
  const char* ro = "shader_read_only";
  Json attachments = {color_attachment("albedo", "clear", "dont_care", "undefined", ro, kGbufferClear),
                      color_attachment("normal", "clear", "dont_care", "undefined", ro, {0.5, 0.5, 1, 1}),
                      depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_read_only"),
                      color_attachment("hdr", "dont_care", "store", "undefined", "color_attachment")};
  Json geometry = {{"color", {0, 1}}, {"depth", 2}, {"draws", sc.gbuffer_draws}};
  // The lighting subpass keeps the same depth attachment bound (read-only: no depth test or
  // write), as seed 000's reference table has it; it reads depth as input attachment 2.
  Json lighting = {{"color", {3}},
                   {"depth", 2},
                   {"input", {0, 1, 2}},
                   {"draws", {fullscreen_draw("deferred_light", {{"name", "deferred_light"}, {"params", sc.light_params}}, 0)}}};
  lighting["draws"][0]["cost"] = {{"alu", 24}, {"tile_reads", 3}, {"varyings", 0}, {"vertex_alu", 4}};
  Json pass = render_pass("deferred", attachments, {geometry, lighting});
  pass["dependencies"] = gbuffer_to_lighting_dependency();
  Json trace = trace_header(name);
  trace["images"] = {sized_image("albedo", "RGBA8", width, height, {"color_attachment", "input_attachment"}, 1, samples, true),
                     sized_image("normal", "RGB10A2", width, height, {"color_attachment", "input_attachment"}, 1, samples, true),
                     sized_image("depth", "D32F", width, height, {"depth_stencil_attachment", "input_attachment"}, 1, samples, true),
                     sized_image("hdr", "RGBA16F", width, height, {"color_attachment", "sampled"}, 1, samples)};
  trace["meshes"] = sc.meshes;
  trace["frames"] = {{{"passes", {pass}}}};
  return trace;
}

void write_seed000(const fs::path& dir) {
  fs::create_directories(dir);
  write_json(dir / "deferred_split.json", deferred_split_trace("seed000_deferred_split", 1080, 2340, "RGBA8", "RGB10A2"));
  write_json(dir / "deferred_merged.json", deferred_merged_trace("seed000_deferred_merged", 1080, 2340, 1));
  write_json(dir / "deferred_merged_msaa4x.json", deferred_merged_trace("seed000_deferred_merged_msaa4x", 1080, 2340, 4));
}

// 128 bit/px crossing the pass boundary: albedo RGBA8 (32) + normal RGBA16F (64) + depth D32F (32).
void write_seed001(const fs::path& dir) {
  fs::create_directories(dir);
  write_json(dir / "gbuffer_roundtrip.json", deferred_split_trace("seed001_gbuffer_roundtrip", 1920, 1080, "RGBA8", "RGBA16F"));
}

// ---- bandwidth savers (issue 5): traces/savers ------------------------------------------------
// A static HUD over a moving 3D scene, into a 3-image swapchain (transaction elimination kills
// the blocks that match the frame three images earlier) and into an ordinary image whose old
// layout is `undefined` every frame (its signatures are dropped each frame: TE defeated); and a
// textured scene whose stored and sampled images show AFBC on real pixels.

// Integer hash (lowbias32) for deterministic texture grain.
uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

int grain(int x, int y, int salt, int amplitude) {
  return int(hash32(uint32_t(x) * 73856093u ^ uint32_t(y) * 19349663u ^ uint32_t(salt) * 83492791u) %
             uint32_t(2 * amplitude + 1)) - amplitude;
}

uint8_t clamp_byte(int v) { return uint8_t(std::clamp(v, 0, 255)); }

// A 128x128 opaque RGBA8 texture from `rgb(x, y)` (channel values clamped to 0..255).
template <class Fn>
std::vector<uint8_t> procedural_texels(Fn rgb) {
  constexpr int kSize = 128;
  std::vector<uint8_t> rgba(size_t(kSize * kSize * 4));
  for (int y = 0; y < kSize; ++y)
    for (int x = 0; x < kSize; ++x) {
      uint8_t* t = &rgba[size_t((y * kSize + x) * 4)];
      const std::array<int, 3> c = rgb(x, y);
      for (int i = 0; i < 3; ++i) t[i] = clamp_byte(c[size_t(i)]);
      t[3] = 255;
    }
  return rgba;
}

// 128x128 floor tiles: 4 x 4 tiles of 32 px with 2 px grout, each tile its own shade, per-texel grain.
std::vector<uint8_t> floor_tile_texels() {
  constexpr int kCell = 32;
  return procedural_texels([](int x, int y) {
    const bool grout = x % kCell < 2 || y % kCell < 2;
    const int shade = int(hash32(uint32_t((y / kCell) * 4 + x / kCell) + 7u) % 40u) - 20;
    const int g = grain(x, y, 1, 6);
    return grout ? std::array<int, 3>{70 + g, 66 + g, 60 + g} : std::array<int, 3>{196 + shade + g, 182 + shade + g, 160 + shade + g};
  });
}

// 128x128 wood: rings along x bent by a slow wave, with fine grain.
std::vector<uint8_t> wood_texels() {
  constexpr int kSize = 128;
  return procedural_texels([](int x, int y) {
    const double ring = 0.5 + 0.5 * std::sin((x + 6.0 * std::sin(y * 2.0 * kPi / kSize)) * 2.0 * kPi / 16.0);
    const int g = grain(x, y, 2, 8);
    return std::array<int, 3>{int(150 + 50 * ring) + g, int(96 + 36 * ring) + g, int(52 + 20 * ring) + g};
  });
}

// One mesh of several axis-aligned quads in pixel space (identity transform), for HUD elements.
Json quads_mesh(const std::string& name, const PixelSpace& s, const std::vector<std::array<double, 4>>& quads, double z) {
  Json positions = Json::array(), indices = Json::array();
  for (size_t q = 0; q < quads.size(); ++q) {
    const auto [x0, y0, x1, y1] = quads[q];
    for (auto [px, py] : {std::pair{x0, y0}, std::pair{x0, y1}, std::pair{x1, y1}, std::pair{x1, y0}})
      for (double v : {s.x(px), s.y(py), z}) positions.push_back(num(v));
    const int b = int(4 * q);
    for (int i : {b, b + 1, b + 2, b + 0, b + 2, b + 3}) indices.push_back(i);
  }
  return {{"name", name}, {"positions", positions}, {"indices", indices}, {"index_bits", 16}};
}

struct HudScene {
  Json meshes, draws;
  Mat4 view, proj;
};

constexpr int kHudWidth = 640, kHudHeight = 360, kHudFrames = 8;

// The moving draw's model in frame f: the torus knot glides left to right and spins.
Mat4 spinner_model(int frame) {
  const double t = double(frame) / (kHudFrames - 1);
  return translate(-1.6 + 3.2 * t, 1.25, 0.0) * rotate(25.0 * frame, Vec3::UnitY()) * rotate(10.0, Vec3::UnitX());
}

HudScene hud_scene(const fs::path& dir) {
  HudScene sc;
  sc.view = look_at(Vec3(0.0, 2.4, 6.4), Vec3(0.0, 0.8, 0.0), Vec3::UnitY());
  sc.proj = perspective_vulkan(45.0, double(kHudWidth) / kHudHeight, 0.1, 60.0);
  Sidecar bin{"hud_scene.bin", {}};
  sc.meshes = Json::array();
  MeshData floor = make_floor(-8.0, 8.0, -10.0, 4.0, 16, 14, 1.0);
  for (const Vec3& p : floor.positions) {
    const double l = floor_light(p, {{Vec3(-2.2, 0.5, -1.0), 0.6}, {Vec3(2.4, 0.45, -1.6), 0.5}});
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  sc.meshes.push_back(sidecar_mesh(bin, "floor", floor, false));
  MeshData knot = make_torus_knot(2, 3, 1.0, 0.18, 128, 10);
  bake_lambert(knot, Mat4::Identity());
  sc.meshes.push_back(sidecar_mesh(bin, "torus_knot", knot, false));
  MeshData crate = make_box(Vec3(1.0, 1.0, 1.0), 2);
  const Mat4 crate_model = translate(-2.2, 0.5, -1.0) * rotate(30.0, Vec3::UnitY());
  bake_lambert(crate, crate_model);
  sc.meshes.push_back(sidecar_mesh(bin, "crate", crate, false));
  MeshData ball = make_sphere(0.5, 24, 16);
  const Mat4 ball_model = translate(2.4, 0.5, -1.6);
  bake_lambert(ball, ball_model);
  sc.meshes.push_back(sidecar_mesh(bin, "ball", ball, false));
  write_file(dir / "hud_scene.bin", bin.bytes.data(), bin.bytes.size());

  // HUD in pixel space, top-left corner: a translucent panel, a health and an energy bar with
  // their frames, and "text": rows of short bars like glyph strokes.
  const PixelSpace s{kHudWidth, kHudHeight};
  sc.meshes.push_back(quads_mesh("hud_panel", s, {{12, 12, 212, 100}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_bar_frames", s, {{22, 22, 182, 36}, {22, 44, 182, 58}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_health", s, {{24, 24, 140, 34}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_energy", s, {{24, 46, 96, 56}}, 0.0));
  std::vector<std::array<double, 4>> glyphs;
  for (int row = 0; row < 2; ++row)
    for (int i = 0; i < 14; ++i) {
      const double x = 22 + 12 * i, y = 68 + 14 * row;
      const uint32_t h = hash32(uint32_t(row * 31 + i));
      glyphs.push_back({x, y, x + 2, y + 9});                                    // stem
      if (h & 1) glyphs.push_back({x, y, x + 8, y + 2});                         // top stroke
      if (h & 2) glyphs.push_back({x, y + 4, x + 7, y + 6});                     // middle stroke
      if (h & 4) glyphs.push_back({x, y + 7, x + 8, y + 9});                     // bottom stroke
      if (h & 8) glyphs.push_back({x + 6, y, x + 8, y + 9});                     // right stem
    }
  sc.meshes.push_back(quads_mesh("hud_text", s, glyphs, 0.0));
  // A minimap square in the top-right corner.
  sc.meshes.push_back(quads_mesh("hud_minimap", s, {{540, 12, 628, 100}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_minimap_marks", s, {{580, 52, 588, 60}, {556, 30, 560, 34}, {606, 78, 610, 82}}, 0.0));

  auto lit_draw = [&](const std::string& name, const std::string& mesh, const Mat4& model, const std::vector<double>& albedo,
                      bool closed) {
    Json state = {{"cull", closed ? "back" : "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    return Json{{"name", name},
                {"mesh", mesh},
                {"transform", {{"model", mat_json(model)}, {"view", mat_json(sc.view)}, {"proj", mat_json(sc.proj)}}},
                {"state", state},
                {"program", vertex_color_program(albedo)},
                {"cost", cost(4, 0, 4, 16)}};
  };
  sc.draws = Json::array();
  sc.draws.push_back(lit_draw("spinner", "torus_knot", spinner_model(0), {0.95, 0.72, 0.25, 1}, true));
  sc.draws.push_back(lit_draw("crate", "crate", crate_model, {0.85, 0.5, 0.2, 1}, true));
  sc.draws.push_back(lit_draw("ball", "ball", ball_model, {0.25, 0.45, 0.9, 1}, true));
  sc.draws.push_back(lit_draw("floor", "floor", Mat4::Identity(), {0.7, 0.72, 0.66, 1}, false));
  // The HUD last, no depth test.
  Json blended = {{"blend", Json::array({alpha_blend()})}};
  sc.draws.push_back(simple_draw("hud_panel", "hud_panel", flat_program({0.05, 0.07, 0.1, 0.6}), blended));
  sc.draws.push_back(simple_draw("hud_bar_frames", "hud_bar_frames", flat_program({0.1, 0.1, 0.1, 1})));
  sc.draws.push_back(simple_draw("hud_health", "hud_health", flat_program({0.85, 0.15, 0.12, 1})));
  sc.draws.push_back(simple_draw("hud_energy", "hud_energy", flat_program({0.2, 0.55, 0.95, 1})));
  sc.draws.push_back(simple_draw("hud_text", "hud_text", flat_program({0.92, 0.92, 0.88, 1})));
  sc.draws.push_back(simple_draw("hud_minimap", "hud_minimap", flat_program({0.1, 0.25, 0.15, 0.75}), blended));
  sc.draws.push_back(simple_draw("hud_minimap_marks", "hud_minimap_marks", flat_program({1.0, 0.9, 0.2, 1})));
  return sc;
}

// Frames 1.. repeat frame 0's passes and move the spinner.
Json hud_frames(const HudScene& sc, const Json& pass) {
  Json frames = Json::array();
  frames.push_back({{"passes", {pass}}});
  for (int f = 1; f < kHudFrames; ++f)
    frames.push_back({{"overrides",
                       {{"spinner", {{"transform", {{"model", mat_json(spinner_model(f))},
                                                    {"view", mat_json(sc.view)},
                                                    {"proj", mat_json(sc.proj)}}}}}}}});
  return frames;
}

void write_hud_trace(const fs::path& dir, const HudScene& sc, bool swapchain) {
  const std::string target = swapchain ? "swapchain" : "target";
  Json color = image(target, "BGRA8", kHudWidth, kHudHeight, {"color_attachment", "transfer_src"});
  if (swapchain) color["swapchain"] = 3;
  Json depth = sized_image("depth", "D32F", kHudWidth, kHudHeight, {"depth_stencil_attachment"}, 1, 1, true);
  Json pass = render_pass("frame",
                          {color_attachment(target, "clear", "store", "undefined", swapchain ? "present" : "transfer_src",
                                            {0.55, 0.72, 0.9, 1}),
                           depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                          {single_subpass(sc.draws, 1)});
  Json trace = trace_header(swapchain ? "hud_swapchain" : "hud_undefined");
  trace["images"] = {color, depth};
  trace["meshes"] = sc.meshes;
  trace["frames"] = hud_frames(sc, pass);
  write_json(dir / (swapchain ? "hud_swapchain.json" : "hud_undefined.json"), trace);
}

// A textured room corner at 960x540: a tiled floor, wooden crates (texture x baked lighting), a
// lit ball, the sky as the clear color; then a post pass samples the scene into the final image.
void write_afbc_textured(const fs::path& dir) {
  constexpr int W = 960, H = 540;
  write_png(dir / "floor_tiles.png", 128, 128, floor_tile_texels());
  write_png(dir / "wood.png", 128, 128, wood_texels());
  const Mat4 view = look_at(Vec3(0.4, 2.6, 7.0), Vec3(0.0, 0.7, 0.0), Vec3::UnitY());
  const Mat4 proj = perspective_vulkan(45.0, double(W) / H, 0.1, 60.0);
  Sidecar bin{"afbc_textured.bin", {}};
  Json meshes = Json::array();
  MeshData floor = make_floor(-8.0, 8.0, -12.0, 5.0, 16, 17, 0.5);
  std::vector<ShadowCaster> casters = {{Vec3(-1.6, 0.6, -0.4), 0.75}, {Vec3(1.3, 0.45, 0.9), 0.55}, {Vec3(2.2, 0.6, -1.8), 0.6}};
  for (const Vec3& p : floor.positions) {
    const double l = floor_light(p, casters);
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  meshes.push_back(sidecar_mesh(bin, "floor", floor, true));
  MeshData crate = make_box(Vec3(1.2, 1.2, 1.2), 2);
  const Mat4 crate_a = translate(-1.6, 0.6, -0.4) * rotate(28.0, Vec3::UnitY());
  const Mat4 crate_b = translate(1.3, 0.45, 0.9) * rotate(-15.0, Vec3::UnitY()) * scale(0.75, 0.75, 0.75);
  bake_lambert(crate, Mat4::Identity());
  meshes.push_back(sidecar_mesh(bin, "crate", crate, true));
  MeshData ball = make_sphere(0.6, 32, 20);
  bake_lambert(ball, Mat4::Identity());
  meshes.push_back(sidecar_mesh(bin, "ball", ball, false));
  write_file(dir / "afbc_textured.bin", bin.bytes.data(), bin.bytes.size());
  meshes.push_back(fullscreen_triangle_mesh("fullscreen_triangle", 0.5));

  auto textured = [](const char* texture) {
    return Json{{"name", "textured"},
                {"params", {{"tint", nums({1, 1, 1, 1})}}},
                {"bindings", {{"texture", {{"texture", texture}, {"filter", "bilinear"}, {"address", "repeat"}}}}}};
  };
  auto draw = [&](const std::string& name, const std::string& mesh, const Mat4& model, const Json& program, bool closed,
                  const Json& draw_cost) {
    Json state = {{"cull", closed ? "back" : "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    return Json{{"name", name},
                {"mesh", mesh},
                {"transform", {{"model", mat_json(model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}}},
                {"state", state},
                {"program", program},
                {"cost", draw_cost}};
  };
  Json draws = {draw("crate_a", "crate", crate_a, textured("wood"), true, cost(6, 1, 6, 16)),
                draw("crate_b", "crate", crate_b, textured("wood"), true, cost(6, 1, 6, 16)),
                draw("ball", "ball", translate(2.2, 0.6, -1.8), vertex_color_program({0.3, 0.6, 0.35, 1}), true,
                     cost(4, 0, 4, 16)),
                draw("floor", "floor", Mat4::Identity(), textured("floor_tiles"), false, cost(6, 1, 6, 16))};
  Json scene_pass = render_pass("scene",
                                {color_attachment("scene", "clear", "store", "undefined", "shader_read_only", {0.55, 0.72, 0.9, 1}),
                                 depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                {single_subpass(draws, 1)});
  Json post = render_pass("post", {color_attachment("final", "dont_care", "store", "undefined", "transfer_src")},
                          {single_subpass({fullscreen_draw("post_copy", program_json("copy", {{"source", image_binding("scene")}}), 1)})});
  Json trace = trace_header("afbc_textured");
  trace["images"] = {image("scene", "RGBA8", W, H, {"color_attachment", "sampled"}),
                     sized_image("depth", "D32F", W, H, {"depth_stencil_attachment"}, 1, 1, true),
                     image("final", "BGRA8", W, H, {"color_attachment", "transfer_src"})};
  trace["textures"] = {{{"name", "floor_tiles"}, {"file", "floor_tiles.png"}, {"format", "RGBA8"}},
                       {{"name", "wood"}, {"file", "wood.png"}, {"format", "RGBA8"}}};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {scene_pass, post}}}};
  write_json(dir / "afbc_textured.json", trace);
  // The same scene with mip chains generated at load: the floor receding to the horizon samples
  // smaller levels (pixels and texture bytes differ; the reference renderer compares it too).
  trace["name"] = "textured_mipmaps";
  for (Json& t : trace["textures"]) t["mip"] = "generate";
  write_json(dir / "textured_mipmaps.json", trace);
}

void write_savers(const fs::path& dir) {
  fs::create_directories(dir);
  const HudScene sc = hud_scene(dir);
  write_hud_trace(dir, sc, true);
  write_hud_trace(dir, sc, false);
  write_afbc_textured(dir);
}


// ---- validation (issue 11): traces/validation --------------------------------------------------
// The Khronos Vulkan-Samples performance samples as measured on a Mali-G76 (seed 003 sections
// 13-18; domain.md section 10), one trace per variant that a measurement compares, at the
// Galaxy S10's 2220x1080. The samples draw Sponza; here a procedural atrium of comparable
// content stands in for it (traces/validation/README.md): a tiled floor, two storeys of columns
// and arches, brick walls, hanging banners and vases, textured, lighting baked into vertex
// colors, the sky as the clear color. Repeated parts are one mesh drawn many times, so the
// frame processes about 150k triangles while the sidecar holds a few thousand.

constexpr int kValWidth = 2220, kValHeight = 1080;

// 128x128 bricks: 32x16 px courses, every other course offset by half a brick, 2 px mortar.
std::vector<uint8_t> brick_texels() {
  return procedural_texels([](int x, int y) {
    const int course = y / 16, bx = (x + (course % 2) * 16) % 128;
    const bool mortar = y % 16 < 2 || bx % 32 < 2;
    const int shade = int(hash32(uint32_t(course * 8 + bx / 32) + 11u) % 36u) - 18;
    const int g = grain(x, y, 3, 7);
    return mortar ? std::array<int, 3>{150 + g, 144 + g, 132 + g} : std::array<int, 3>{178 + shade + g, 152 + shade + g, 118 + shade + g};
  });
}

// 128x128 cloth: woven grain with two stripes near the edges; the draw's tint colors it.
std::vector<uint8_t> fabric_texels() {
  return procedural_texels([](int x, int y) {
    const bool stripe = (x >= 10 && x < 18) || (x >= 110 && x < 118);
    const int weave = ((x + y) % 4 < 2) ? 10 : -10;
    const int v = (stripe ? 250 : 200) + weave + grain(x, y, 4, 5);
    return std::array<int, 3>{v, v, v};
  });
}

void scale_uvs(MeshData& m, double su, double sv) {
  for (Vec2& uv : m.uvs) uv = Vec2(uv.x() * su, uv.y() * sv);
}

// Half a torus standing in the xy plane (an arch of radius `span` / 2 over the x axis).
MeshData make_arch(double span, double thickness, int segments, int sides) {
  MeshData m;
  const double major = span / 2.0;
  add_grid(m, segments, sides, [&](double u, double v) {
    const double a = u * kPi, b = v * 2.0 * kPi;
    const Vec3 radial(std::cos(a), std::sin(a), 0.0);
    const Vec3 n = std::cos(b) * radial + std::sin(b) * Vec3::UnitZ();
    return GridVertex{major * radial + thickness * n, n, Vec2(u * 4.0, v)};
  });
  return m;
}

// A banner hanging from its top edge (y = 0 down to -height), folded in waves along x.
MeshData make_banner(double width, double height, int cols, int rows) {
  MeshData m;
  add_grid(m, cols, rows, [&](double u, double v) {
    const double w = 6.0 * kPi * u, depth = 0.08 + 0.04 * v;
    const Vec3 p((u - 0.5) * width, -v * height, depth * std::sin(w));
    const Vec3 n = Vec3(-depth * std::cos(w) * 6.0 * kPi / width, 0.0, 1.0).normalized();
    return GridVertex{p, n, Vec2(u, v * 2.0)};
  });
  return m;
}

struct ValidationScene {
  Json meshes, textures;
  Json forward_draws, gbuffer_draws;  // the same objects with the textured and the gbuffer program
  Json light_params;                  // deferred_light's parameters (inverse view-projection, lights)
  size_t triangles = 0;               // processed per frame (every draw)
};

ValidationScene validation_scene(const fs::path& dir) {
  write_png(dir / "floor_tiles.png", 128, 128, floor_tile_texels());
  write_png(dir / "bricks.png", 128, 128, brick_texels());
  write_png(dir / "wood.png", 128, 128, wood_texels());
  write_png(dir / "fabric.png", 128, 128, fabric_texels());
  ValidationScene sc;
  sc.textures = Json::array();
  for (const char* t : {"floor_tiles", "bricks", "wood", "fabric"})
    sc.textures.push_back({{"name", t}, {"file", std::string(t) + ".png"}, {"format", "RGBA8"}});

  const Mat4 view = look_at(Vec3(0.0, 1.8, 3.0), Vec3(0.0, 3.4, -20.0), Vec3::UnitY());
  const Mat4 proj = perspective_vulkan(60.0, double(kValWidth) / kValHeight, 0.1, 80.0);
  Sidecar bin{"atrium.bin", {}};
  sc.meshes = Json::array();
  std::map<std::string, size_t> mesh_triangles;
  auto add_mesh = [&](const std::string& name, MeshData m) {
    if (m.colors.empty()) bake_lambert(m, Mat4::Identity());
    mesh_triangles[name] = m.indices.size() / 3;
    sc.meshes.push_back(sidecar_mesh(bin, name, m, true, true));
  };
  // The floor's baked light includes the columns' soft shadows.
  MeshData floor = make_floor(-6.0, 6.0, -32.0, 4.0, 24, 72, 0.5);
  std::vector<ShadowCaster> casters;
  for (int k = 0; k < 9; ++k)
    for (double x : {-3.3, 3.3}) casters.push_back({Vec3(x, 1.2, 1.0 - 3.6 * k), 0.35});
  for (const Vec3& p : floor.positions) {
    const double l = floor_light(p, casters);
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  add_mesh("floor", floor);
  MeshData column = make_cylinder(0.32, 1.0, 48, 24);
  scale_uvs(column, 2.0, 3.0);
  add_mesh("column", column);
  add_mesh("arch", make_arch(3.6 - 0.64, 0.22, 32, 12));
  add_mesh("wall", make_box(Vec3(1.0, 1.0, 1.0), 24));
  add_mesh("beam", make_box(Vec3(1.0, 1.0, 1.0), 4));
  add_mesh("banner", make_banner(1.6, 4.0, 24, 40));
  MeshData vase = make_sphere(0.45, 48, 32);
  scale_uvs(vase, 3.0, 2.0);
  add_mesh("vase", vase);
  write_file(dir / "atrium.bin", bin.bytes.data(), bin.bytes.size());

  struct Object {
    std::string name, mesh, texture;
    Mat4 model;
    std::vector<double> tint;
    bool closed;
  };
  std::vector<Object> objects;
  const double ground_z0 = 1.0, bay = 3.6;
  for (int side = 0; side < 2; ++side) {
    const double x = side ? 3.3 : -3.3;
    const std::string s = side ? "_r" : "_l";
    for (int k = 0; k < 9; ++k) {
      const double z = ground_z0 - bay * k;
      objects.push_back({"column" + s + std::to_string(k), "column", "bricks", translate(x, 0.0, z) * scale(1, 4.0, 1), {0.95, 0.9, 0.82, 1}, true});
      objects.push_back({"upper_column" + s + std::to_string(k), "column", "bricks", translate(x, 4.6, z) * scale(0.75, 3.2, 0.75), {0.95, 0.9, 0.82, 1}, true});
      if (k < 8) {
        const Mat4 turn = rotate(90.0, Vec3::UnitY());
        objects.push_back({"arch" + s + std::to_string(k), "arch", "bricks", translate(x, 2.9, z - bay / 2) * turn, {0.9, 0.84, 0.76, 1}, true});
        objects.push_back({"upper_arch" + s + std::to_string(k), "arch", "bricks", translate(x, 6.9, z - bay / 2) * turn * scale(1, 0.8, 1), {0.9, 0.84, 0.76, 1}, true});
      }
    }
    objects.push_back({"gallery" + s, "beam", "wood", translate(side ? 4.8 : -4.8, 4.3, -14.0) * scale(3.0, 0.5, 36.0), {0.8, 0.7, 0.6, 1}, true});
    objects.push_back({"lintel" + s, "beam", "bricks", translate(x, 4.45, -14.0) * scale(0.8, 0.3, 36.0), {0.9, 0.85, 0.78, 1}, true});
    objects.push_back({"cornice" + s, "beam", "bricks", translate(x, 8.2, -14.0) * scale(0.8, 0.5, 36.0), {0.9, 0.85, 0.78, 1}, true});
    objects.push_back({"wall" + s, "wall", "bricks", translate(side ? 6.3 : -6.3, 6.0, -14.0) * scale(0.6, 12.0, 36.0), {1, 1, 1, 1}, true});
    const std::vector<std::vector<double>> banner_colors = {{0.75, 0.12, 0.1, 1}, {0.15, 0.3, 0.7, 1}, {0.2, 0.55, 0.25, 1}};
    for (int b = 0; b < 3; ++b)
      objects.push_back({"banner" + s + std::to_string(b), "banner", "fabric", translate(side ? 2.6 : -2.6, 7.8, -2.6 - 8.0 * b) * rotate(side ? -90.0 : 90.0, Vec3::UnitY()),
                         banner_colors[size_t((b + side) % 3)], false});
    for (int v = 0; v < 2; ++v)
      objects.push_back({"vase" + s + std::to_string(v), "vase", "wood", translate(side ? 1.7 : -1.7, 0.45, -7.0 - 10.0 * v), {0.85, 0.6, 0.4, 1}, true});
  }
  objects.push_back({"back_wall", "wall", "bricks", translate(0.0, 6.0, -32.3) * scale(13.2, 12.0, 0.6), {1, 1, 1, 1}, true});
  objects.push_back({"floor", "floor", "floor_tiles", Mat4::Identity(), {1, 1, 1, 1}, false});

  auto binding = [](const std::string& texture) {
    return Json{{"texture", {{"texture", texture}, {"filter", "bilinear"}, {"address", "repeat"}}}};
  };
  sc.forward_draws = Json::array();
  sc.gbuffer_draws = Json::array();
  for (const Object& o : objects) {
    Json state = {{"cull", o.closed ? "back" : "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    Json transform = {{"model", mat_json(o.model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}};
    sc.forward_draws.push_back({{"name", o.name}, {"mesh", o.mesh}, {"transform", transform}, {"state", state},
                                {"program", {{"name", "textured"}, {"params", {{"tint", nums(o.tint)}}}, {"bindings", binding(o.texture)}}},
                                {"cost", cost(6, 1, 6, 16)}});
    sc.gbuffer_draws.push_back({{"name", o.name}, {"mesh", o.mesh}, {"transform", transform}, {"state", state},
                                {"program", {{"name", "gbuffer"}, {"params", {{"tint", nums(o.tint)}}}, {"bindings", binding(o.texture)}}},
                                {"cost", cost(6, 1, 9, 16)}});
    sc.triangles += mesh_triangles.at(o.mesh);
  }
  sc.light_params = {{"inv_view_proj", mat_json((proj * view).inverse())},
                     {"lights", nums({0.0, 3.0, -4.0, 2.4, 2.1, 1.7, 10.0,     //
                                      -2.0, 6.0, -14.0, 1.2, 1.6, 2.4, 12.0,  //
                                      2.0, 2.5, -20.0, 2.2, 1.6, 1.0, 12.0,   //
                                      0.0, 9.0, -28.0, 1.8, 1.8, 1.8, 14.0})},
                     {"ambient", nums({0.25, 0.25, 0.28, 0})}};
  sc.meshes.push_back(fullscreen_triangle_mesh("fullscreen_triangle", 0.5));
  return sc;
}

const std::vector<double> kValSky = {0.55, 0.72, 0.9, 1};
const std::vector<double> kValGbufferClear = {0, 0, 0, 1};  // Vulkan-Samples' G-buffer clear color
constexpr int kValSwapchainImages = 3;

// The swapchain image (RGBA8, three in rotation); `storage` adds STORAGE usage (the afbc sample's switch).
Json validation_swapchain(bool storage = false) {
  Json i = storage ? image("swapchain", "RGBA8", kValWidth, kValHeight, {"color_attachment", "input_attachment", "storage"})
                   : image("swapchain", "RGBA8", kValWidth, kValHeight, {"color_attachment", "input_attachment"});
  i["swapchain"] = kValSwapchainImages;
  return i;
}

Json validation_image(const std::string& name, const std::string& format, std::initializer_list<const char*> usage,
                      int samples = 1, bool transient = false) {
  return sized_image(name, format, kValWidth, kValHeight, usage, 1, samples, transient);
}

// Frame 0 records the passes; frames 1.. repeat them (a static camera, as the samples are measured).
void write_validation_trace(const fs::path& dir, const std::string& name, const ValidationScene& sc, Json images,
                            Json passes, int frames) {
  Json trace = trace_header("validation_" + name);
  trace["images"] = std::move(images);
  trace["textures"] = sc.textures;
  trace["meshes"] = sc.meshes;
  Json fr = Json::array();
  fr.push_back({{"passes", std::move(passes)}});
  for (int f = 1; f < frames; ++f) fr.push_back(Json::object());
  trace["frames"] = std::move(fr);
  write_json(dir / (name + ".json"), trace);
}

// The forward sample frame (render_passes, msaa, afbc): the scene into `attachments`, one subpass.
Json forward_scene_pass(const ValidationScene& sc, Json attachments, Json subpass) {
  subpass["draws"] = sc.forward_draws;
  return render_pass("scene", std::move(attachments), {std::move(subpass)});
}

// The deferred lighting draw: deferred_light over input attachments albedo, normal, depth.
// `alu`: lane-instructions per fragment (the cost the timing models see; models README).
Json lighting_draw(const ValidationScene& sc, double alu) {
  Json d = fullscreen_draw("lighting", {{"name", "deferred_light"}, {"params", sc.light_params}}, 0);
  d["cost"] = {{"alu", num(alu)}, {"tile_reads", 3}, {"varyings", 2}, {"vertex_alu", 4}};
  return d;
}

Json image_barrier(const std::string& image_name, const std::string& old_layout, const std::string& new_layout,
                   std::initializer_list<const char*> src, std::initializer_list<const char*> dst) {
  return {{"image", image_name}, {"old_layout", old_layout}, {"new_layout", new_layout}, {"src_stages", src}, {"dst_stages", dst}};
}

Json barrier_pass(const std::string& name, Json images, std::initializer_list<const char*> src, std::initializer_list<const char*> dst) {
  return {{"name", name}, {"type", "barrier"}, {"src_stages", src}, {"dst_stages", dst}, {"images", std::move(images)}};
}

// The two-render-pass deferred frame of the layout_transitions and pipeline_barriers samples (and
// the subpasses sample's "render passes" mode): a G-buffer pass that clears and stores all four
// attachments (Vulkan-Samples `gbuffer::get_clear_store_all`: the swapchain too, though no subpass
// writes it), then a lighting pass that loads depth, albedo and normal as input attachments and
// stores only the swapchain (`get_load_all_store_swapchain`). `track_layouts`: the barriers at the
// frame's start transition from the last layout instead of UNDEFINED (layout_transitions);
// `lighting_dst`: the destination stage of the barrier between the passes (pipeline_barriers).
Json deferred_two_pass_frame(const ValidationScene& sc, bool track_layouts, const char* lighting_dst, double lighting_alu) {
  auto old = [&](const char* last) { return std::string(track_layouts ? last : "undefined"); };
  const char* ca = "color_attachment";
  const char* sro = "shader_read_only";
  const char* dsa = "depth_stencil_attachment";
  const char* dsro = "depth_stencil_read_only";
  Json acquire = barrier_pass("acquire",
                              {image_barrier("swapchain", old("present"), ca, {"color_attachment_output"}, {"color_attachment_output"}),
                               image_barrier("albedo", old(sro), ca, {"color_attachment_output"}, {"color_attachment_output"}),
                               image_barrier("normal", old(sro), ca, {"color_attachment_output"}, {"color_attachment_output"}),
                               image_barrier("depth", old(dsro), dsa, {"top_of_pipe"}, {"early_fragment_tests", "late_fragment_tests"})},
                              {"color_attachment_output", "top_of_pipe"}, {"color_attachment_output", "early_fragment_tests", "late_fragment_tests"});
  Json gbuffer = render_pass("gbuffer",
                             {color_attachment("swapchain", "clear", "store", ca, ca, kValGbufferClear),
                              depth_attachment("depth", "clear", "store", dsa, dsa),
                              color_attachment("albedo", "clear", "store", ca, ca, kValGbufferClear),
                              color_attachment("normal", "clear", "store", ca, ca, kValGbufferClear)},
                             {{{"color", {2, 3}}, {"depth", 1}, {"draws", sc.gbuffer_draws}}});
  const std::initializer_list<const char*> dst = {lighting_dst};
  Json to_read = barrier_pass("gbuffer_to_lighting",
                              {image_barrier("depth", dsa, dsro, {"early_fragment_tests", "late_fragment_tests"}, dst),
                               image_barrier("albedo", ca, sro, {"color_attachment_output"}, dst),
                               image_barrier("normal", ca, sro, {"color_attachment_output"}, dst)},
                              {"color_attachment_output", "early_fragment_tests", "late_fragment_tests"}, dst);
  Json lighting = render_pass("lighting",
                              {color_attachment("swapchain", "dont_care", "store", ca, ca),
                               depth_attachment("depth", "load", "dont_care", dsro, dsro),
                               color_attachment("albedo", "load", "dont_care", sro, sro),
                               color_attachment("normal", "load", "dont_care", sro, sro)},
                              {{{"color", {0}}, {"depth", 1}, {"input", {2, 3, 1}}, {"draws", {lighting_draw(sc, lighting_alu)}}}});
  Json present = barrier_pass("present", {image_barrier("swapchain", ca, "present", {"color_attachment_output"}, {"bottom_of_pipe"})},
                              {"color_attachment_output"}, {"bottom_of_pipe"});
  return {acquire, gbuffer, to_read, lighting, present};
}

Json gbuffer_images(const char* albedo_format, const char* normal_format, bool transient) {
  return {validation_swapchain(),
          validation_image("depth", "D32F", {"depth_stencil_attachment", "input_attachment"}, 1, transient),
          validation_image("albedo", albedo_format, {"color_attachment", "input_attachment"}, 1, transient),
          validation_image("normal", normal_format, {"color_attachment", "input_attachment"}, 1, transient)};
}

// Lighting cost per fragment: 16 lane-instructions per point light plus 16 (reconstruction,
// normal decode, output): the subpasses sample adds 48 point lights (8 x 2 x 3 in its prepare());
// the Sponza scene of layout_transitions and pipeline_barriers keeps its own lights, modeled as the
// trace's 4. Both are estimates of the sample's shader, not measurements (README.md).
constexpr double kLightingAluSubpasses = 16.0 * 48 + 16.0, kLightingAluSponza = 16.0 * 4 + 16.0;

void write_validation(const fs::path& dir) {
  fs::create_directories(dir);
  const ValidationScene sc = validation_scene(dir);
  const char* sc_usage_depth = "depth_stencil_attachment";
  const Json depth_transient = validation_image("depth", "D32F", {sc_usage_depth}, 1, true);

  // render_passes: color LOAD vs CLEAR, depth STORE vs DONT_CARE (seed 003 section 13.1).
  for (const auto& [name, color_load, depth_store] : {std::tuple{"render_passes_clear", "clear", "dont_care"},
                                                      std::tuple{"render_passes_color_load", "load", "dont_care"},
                                                      std::tuple{"render_passes_depth_store", "clear", "store"}}) {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("swapchain", color_load, "store", "undefined", "present", kValSky),
                                    depth_attachment("depth", "clear", depth_store, "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    write_validation_trace(dir, name, sc, {validation_swapchain(), validation_image("depth", "D32F", {sc_usage_depth})}, {pass}, 2);
  }

  // subpasses: one render pass of two subpasses (merged) vs two render passes, and the merged
  // frame with a larger G-buffer (seed 003 section 14.1; the sample's RGBA16F albedo and normal).
  for (const auto& [name, albedo, normal] : {std::tuple{"subpasses_merged", "RGBA8", "RGB10A2"},
                                             std::tuple{"subpasses_over_budget", "RGBA16F", "RGBA16F"}}) {
    Json pass = render_pass("deferred",
                            {color_attachment("swapchain", "clear", "store", "undefined", "present", kValGbufferClear),
                             depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment"),
                             color_attachment("albedo", "clear", "dont_care", "undefined", "color_attachment", kValGbufferClear),
                             color_attachment("normal", "clear", "dont_care", "undefined", "color_attachment", kValGbufferClear)},
                            {{{"color", {2, 3}}, {"depth", 1}, {"draws", sc.gbuffer_draws}},
                             {{"color", {0}}, {"depth", 1}, {"input", {2, 3, 1}}, {"draws", {lighting_draw(sc, kLightingAluSubpasses)}}}});
    pass["dependencies"] = gbuffer_to_lighting_dependency();
    write_validation_trace(dir, name, sc, gbuffer_images(albedo, normal, true), {pass}, 2);
  }
  // The sample keeps the TRANSIENT flag in this mode, but an attachment stored by one render pass
  // and loaded by the next must be backed by memory (lazily allocated memory is committed when
  // needed), so the trace declares the G-buffer non-transient.
  write_validation_trace(dir, "subpasses_render_passes", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "fragment_shader", kLightingAluSubpasses), 2);

  // msaa (seed 003 section 15): 1x; 4x resolved on write-back (pResolveAttachments, transient
  // multisampled attachments); 4x stored and resolved by vkCmdResolveImage; and, with the
  // sample's post-processing pass reading color and depth, both resolved on write-back vs both
  // separate (the multisampled depth stored and read by the post pass at sample 0).
  const char* ca = "color_attachment";
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("swapchain", "clear", "store", "undefined", "present", kValSky),
                                    depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    write_validation_trace(dir, "msaa_1x", sc, {validation_swapchain(), depth_transient}, {pass}, 2);
  }
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "dont_care", "undefined", ca, kValSky),
                                    depth_attachment("depth_ms", "clear", "dont_care", "undefined", "depth_stencil_attachment"),
                                    color_attachment("swapchain", "dont_care", "store", "undefined", "present")},
                                   {{"color", {0}}, {"depth", 1}, {"resolve", {2}}});
    write_validation_trace(dir, "msaa_4x_inline", sc,
                           {validation_image("color_ms", "RGBA8", {ca}, 4, true), validation_image("depth_ms", "D32F", {sc_usage_depth}, 4, true),
                            validation_swapchain()},
                           {pass}, 2);
  }
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "store", "undefined", "transfer_src", kValSky),
                                    depth_attachment("depth_ms", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    Json resolve = {{"name", "resolve"}, {"type", "resolve"}, {"src", {{"image", "color_ms"}}}, {"dst", {{"image", "swapchain"}}}};
    write_validation_trace(dir, "msaa_4x_separate", sc,
                           {validation_image("color_ms", "RGBA8", {ca, "transfer_src"}, 4),
                            validation_image("depth_ms", "D32F", {sc_usage_depth}, 4, true), validation_swapchain()},
                           {pass, resolve}, 2);
  }
  // The post-processing pass copies the resolved color into the swapchain. The sample's post
  // effect also reads depth (the resolved image, or the multisampled one at sample 0: 4 B/px either
  // way); the trace format has no sampled read of a multisampled image, so neither variant reads
  // depth (the same bytes left out of both sides of the comparison; README.md).
  auto post_pass = [&]() {
    Json program = program_json("copy", {{"source", image_binding("color_resolve")}});
    return render_pass("postprocessing", {color_attachment("swapchain", "dont_care", "store", "undefined", "present")},
                       {single_subpass({fullscreen_draw("postprocessing", program, 1)})});
  };
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "dont_care", "undefined", ca, kValSky),
                                    depth_attachment("depth_ms", "clear", "dont_care", "undefined", "depth_stencil_attachment"),
                                    color_attachment("color_resolve", "dont_care", "store", "undefined", "shader_read_only"),
                                    depth_attachment("depth_resolve", "dont_care", "store", "undefined", "shader_read_only")},
                                   {{"color", {0}}, {"depth", 1}, {"resolve", {2}}, {"depth_resolve", 3}, {"depth_resolve_mode", "sample_zero"}});
    write_validation_trace(dir, "msaa_4x_post_inline", sc,
                           {validation_image("color_ms", "RGBA8", {ca}, 4, true), validation_image("depth_ms", "D32F", {sc_usage_depth}, 4, true),
                            validation_image("color_resolve", "RGBA8", {ca, "sampled"}),
                            validation_image("depth_resolve", "D32F", {sc_usage_depth, "sampled"}), validation_swapchain()},
                           {pass, post_pass()}, 2);
  }
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "store", "undefined", "transfer_src", kValSky),
                                    depth_attachment("depth_ms", "clear", "store", "undefined", "shader_read_only")},
                                   {{"color", {0}}, {"depth", 1}});
    Json resolve = {{"name", "resolve"}, {"type", "resolve"}, {"src", {{"image", "color_ms"}}}, {"dst", {{"image", "color_resolve"}}}};
    write_validation_trace(dir, "msaa_4x_post_separate", sc,
                           {validation_image("color_ms", "RGBA8", {ca, "transfer_src"}, 4),
                            validation_image("depth_ms", "D32F", {sc_usage_depth, "sampled"}, 4),
                            validation_image("color_resolve", "RGBA8", {ca, "transfer_dst", "sampled"}), validation_swapchain()},
                           {pass, resolve, post_pass()}, 2);
  }

  // afbc (seed 003 section 18): the swapchain without and with STORAGE usage (the sample's switch).
  for (const auto& [name, storage] : {std::pair{"afbc_on", false}, std::pair{"afbc_off", true}}) {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("swapchain", "clear", "store", "undefined", "present", kValSky),
                                    depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    write_validation_trace(dir, name, sc, {validation_swapchain(storage), depth_transient}, {pass}, 2);
  }

  // layout_transitions (seed 003 section 16.5): the G-buffer barriers from UNDEFINED vs the last
  // layout; four frames, so the swapchain's three images each have a signature before the last.
  write_validation_trace(dir, "layout_transitions_undefined", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, false, "fragment_shader", kLightingAluSponza), 4);
  write_validation_trace(dir, "layout_transitions_last_layout", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "fragment_shader", kLightingAluSponza), 4);

  // pipeline_barriers (seed 003 section 17.2): the barrier between the G-buffer and the lighting
  // pass with a vertex-stage vs a fragment-stage destination.
  write_validation_trace(dir, "pipeline_barriers_frag_to_vert", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "vertex_shader", kLightingAluSponza), 2);
  write_validation_trace(dir, "pipeline_barriers_frag_to_frag", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "fragment_shader", kLightingAluSponza), 2);
  std::cout << "validation scene: " << sc.triangles << " triangles per frame\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_scenes OUT_TRACES_DIR\n";
    return 2;
  }
  try {
    fs::path out = argv[1];
    write_default_trace(out / "default");
    fs::path features = out / "features";
    fs::create_directories(features);
    write_load_store_ops(features);
    write_stencil(features);
    write_scissor_viewport(features);
    write_near_clip(features);
    write_blend_modes(features);
    write_textured(features);
    write_clears_and_subpasses(features);
    write_copy_blit(features);
    write_clip_space(features);
    write_multi_frame(features);
    write_seed000(out / "seed000");
    write_seed001(out / "seed001");
    write_seed002(out / "seed002");
    write_savers(out / "savers");
    write_validation(out / "validation");
  } catch (const std::exception& e) {
    std::cerr << "make_scenes: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
