// Shared back end of the scene importers (import_gltf.cpp, import_obj.cpp): collects meshes,
// draws, textures and the camera in scene terms and writes the trace folder (JSON, sidecar, PNGs).
#pragma once

#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <limits>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frontend/import_scene.h"

namespace tbdr::import {

using Mat4d = Eigen::Matrix4d;

// The trace stores matrices as floats: a double beyond the float range (a 1e308 matrix) would
// become infinite, and the JSON writer writes null for it.
inline bool finite_as_float(const Mat4d& m) {
  return (m.array().abs() <= double(std::numeric_limits<float>::max())).all();
}

struct Mesh {
  std::string name;
  std::vector<float> positions;  // 3 per vertex, object space
  std::vector<float> colors;     // 4 per vertex, or empty
  std::vector<float> uvs;        // 2 per vertex (v = 0: the image's top row, as glTF and the trace), or empty
  std::vector<float> normals;    // 3 per vertex, object space, or empty (flat ones are made for lit draws)
  std::vector<uint32_t> indices; // a list of `topology`'s primitives
  // The trace's MESH topology: "triangle_list" (strips and fans converted to it), "lines" (line loops
  // too), "line_strip" or "points".
  std::string topology = "triangle_list";
  uint64_t vertex_count() const { return positions.size() / 3; }
  uint32_t vertices_per_primitive() const { return topology == "triangle_list" ? 3 : topology == "lines" ? 2 : 1; }
};

// RGBA8 pixels, encoded to PNG when the trace is written.
struct Texture {
  std::string name;
  uint32_t width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

enum class AlphaMode { opaque, mask, blend };

struct Material {
  std::array<float, 4> base_color{1, 1, 1, 1};
  int texture = -1;  // index into the builder's textures
  bool nearest = false;
  std::string address = "repeat";  // trace address mode (one for both axes)
  AlphaMode alpha_mode = AlphaMode::opaque;
  float alpha_cutoff = 0.5f;
  bool double_sided = false;
};

struct Draw {
  std::string name;
  size_t mesh = 0;
  uint32_t first_index = 0, index_count = 0;
  Mat4d model = Mat4d::Identity();
  Material material;
};

// The scene's own camera (glTF): view = inverse of the camera node's world matrix.
struct Camera {
  bool perspective = true;
  double yfov = 0.8, aspect = 0, znear = 0.01, zfar = 0;  // zfar 0: infinite (perspective only)
  double xmag = 1, ymag = 1;                               // orthographic
  Mat4d view = Mat4d::Identity();
};

// Flat normals (glTF 2.0 section 3.7.2.1: without NORMAL, "client implementations MUST calculate
// flat normals"): a face's normal is (p1 - p0) x (p2 - p0) made unit length (zero for a degenerate
// face), and as each vertex carries one normal, every triangle gets three vertices of its own
// (vertex k is the old index k, so draws' index ranges stay valid).
void give_flat_normals(Mesh& mesh);

class SceneBuilder {
 public:
  explicit SceneBuilder(std::filesystem::path source) : m_source(std::move(source)) {}
  std::vector<Mesh> meshes;
  std::vector<Texture> textures;
  std::vector<Draw> draws;
  std::vector<Camera> cameras;  // in scene order
  std::vector<std::string> warnings;

  // Fails (InputError naming the source file) on an index out of range or a non-finite position.
  void validate() const;
  // Writes the trace, its sidecar and PNGs (staged, then renamed). Throws InputError on an empty scene.
  // Meshes without normals that an untextured (lit) draw uses get flat normals first.
  ImportSummary write(const std::filesystem::path& trace_json, const ImportOptions& options);
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const Camera* chosen_camera(const ImportOptions& options);
  void automatic_camera(double aspect, Mat4d& view, Mat4d& proj) const;

  std::filesystem::path m_source;
};

// Vulkan clip conventions (z 0..1, framebuffer y down), as tools/make_scenes.cpp builds them.
Mat4d perspective_vulkan(double fov_y, double aspect, double near_z, double far_z /* 0: infinite */);
Mat4d orthographic_vulkan(double xmag, double ymag, double near_z, double far_z);
Mat4d look_at(const Eigen::Vector3d& eye, const Eigen::Vector3d& target, const Eigen::Vector3d& up);

ImportSummary import_gltf(const std::filesystem::path& scene, const std::filesystem::path& trace_json,
                          const ImportOptions& options);
ImportSummary import_obj(const std::filesystem::path& scene, const std::filesystem::path& trace_json,
                         const ImportOptions& options);

}  // namespace tbdr::import
