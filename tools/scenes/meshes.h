// make_scenes' geometry: indexed meshes built on parametric grids (floor, sphere, torus knot,
// cylinder, box), Lambert lighting and soft floor shadows baked into vertex colors, sidecar packing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/scenes/common.h"

namespace tbdr::scenes {

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
void add_triangle(MeshData& m, uint32_t a, uint32_t b, uint32_t c);
uint32_t add_vertex(MeshData& m, const Vec3& p, const Vec3& n, const Vec2& uv = Vec2::Zero());

struct GridVertex {
  Vec3 p, n;
  Vec2 uv;
};

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

MeshData make_floor(double x0, double x1, double z0, double z1, int cols, int rows, double uv_per_unit);
MeshData make_sphere(double radius, int slices, int stacks);
// (p, q) torus knot: a tube around the curve, framed by a rotation-minimizing-enough frame
// (curve tangent and the direction to the knot's axis).
MeshData make_torus_knot(int p, int q, double size, double tube, int segments, int sides);
// Closed cylinder along +y from y = 0 to height, with separate cap vertices for flat cap normals.
MeshData make_cylinder(double radius, double height, int sides, int stacks);
// Axis-aligned box centered on the origin; each face a subdivided grid with its own vertices.
MeshData make_box(const Vec3& size, int subdivisions);

// ---- lighting baked into vertex colors ---------------------------------------------------------

struct ShadowCaster {
  Vec3 center;
  double radius;
};

// Soft shadows on the floor: each object is approximated by spheres; the penumbra widens with the
// distance from the caster, like an area light.
double floor_light(const Vec3& p, const std::vector<ShadowCaster>& casters);
// Grey Lambert + hemisphere ambient per vertex, seen through `model`'s rotation; the draw's tint
// supplies the albedo (the vertex_color program multiplies the two).
void bake_lambert(MeshData& m, const Mat4& model, double alpha = 1.0);

// ---- sidecar -------------------------------------------------------------------------------------

// A sidecar file: the binary arrays of one trace's meshes, each starting 4-byte aligned.
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

Json sidecar_mesh(Sidecar& bin, const std::string& name, const MeshData& m, bool with_uvs, bool with_normals = false);

}  // namespace tbdr::scenes
