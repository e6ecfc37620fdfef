// Writes an imported scene as a trace folder: <stem>.json, <stem>.bin (every mesh's positions,
// colors, uvs and indices, little-endian, tightly packed) and <stem>_tex<N>.png, staged under
// temporary names and renamed only when everything was written (tools/doc/design.md "Design rules": errors).
#include "frontend/import_writer.h"

#include <stb_image_write.h>
#include <unistd.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frontend/staged_file.h"
#include "models/errors.h"

namespace tbdr {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

bool is_importable_scene(const fs::path& file) {
  std::string ext = file.extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".gltf" || ext == ".glb" || ext == ".obj";
}

ImportSummary import_scene(const fs::path& scene, const fs::path& trace_json, const ImportOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(scene, ec)) throw InputError(scene.string(), "file not found");
  std::string ext = scene.extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".gltf" || ext == ".glb") return import::import_gltf(scene, trace_json, options);
  if (ext == ".obj") return import::import_obj(scene, trace_json, options);
  throw InputError(scene.string(), "unknown scene type \"" + ext + "\" (expected .gltf, .glb or .obj)");
}

namespace import {

using Eigen::Vector3d;
using Eigen::Vector4d;

Mat4d perspective_vulkan(double fov_y, double aspect, double near_z, double far_z) {
  const double f = 1.0 / std::tan(fov_y / 2);
  Mat4d m = Mat4d::Zero();
  m(0, 0) = f / aspect;
  m(1, 1) = -f;  // Vulkan framebuffer y points down
  if (far_z > 0) {
    m(2, 2) = far_z / (near_z - far_z);
    m(2, 3) = near_z * far_z / (near_z - far_z);
  } else {  // infinite far plane: the limit of the above
    m(2, 2) = -1;
    m(2, 3) = -near_z;
  }
  m(3, 2) = -1;
  return m;
}

Mat4d orthographic_vulkan(double xmag, double ymag, double near_z, double far_z) {
  Mat4d m = Mat4d::Identity();
  m(0, 0) = 1 / xmag;
  m(1, 1) = -1 / ymag;
  m(2, 2) = 1 / (near_z - far_z);
  m(2, 3) = near_z / (near_z - far_z);
  return m;
}

Mat4d look_at(const Vector3d& eye, const Vector3d& target, const Vector3d& up) {
  const Vector3d f = (target - eye).normalized();
  const Vector3d s = f.cross(up).normalized();
  const Vector3d u = s.cross(f);
  Mat4d m = Mat4d::Identity();
  m.block<1, 3>(0, 0) = s.transpose();
  m.block<1, 3>(1, 0) = u.transpose();
  m.block<1, 3>(2, 0) = -f.transpose();
  m(0, 3) = -s.dot(eye);
  m(1, 3) = -u.dot(eye);
  m(2, 3) = f.dot(eye);
  return m;
}

void give_flat_normals(Mesh& mesh) {
  Mesh flat;
  const size_t n = mesh.indices.size();
  auto copy = [](const std::vector<float>& from, std::vector<float>& to, size_t vertex, size_t width) {
    if (!from.empty()) to.insert(to.end(), from.begin() + long(vertex * width), from.begin() + long((vertex + 1) * width));
  };
  for (uint32_t i : mesh.indices) {
    copy(mesh.positions, flat.positions, i, 3);
    copy(mesh.colors, flat.colors, i, 4);
    copy(mesh.uvs, flat.uvs, i, 2);
  }
  flat.normals.resize(n * 3);
  for (size_t t = 0; t + 2 < n; t += 3) {
    const float* p = &flat.positions[t * 3];
    const Vector3d p0(p[0], p[1], p[2]), p1(p[3], p[4], p[5]), p2(p[6], p[7], p[8]);
    Vector3d normal = (p1 - p0).cross(p2 - p0);
    if (normal.norm() > 0 && std::isfinite(normal.norm())) normal.normalize();
    else normal.setZero();
    for (size_t k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) flat.normals[(t + k) * 3 + size_t(c)] = float(normal[c]);
  }
  flat.indices.resize(n);
  for (size_t k = 0; k < n; ++k) flat.indices[k] = uint32_t(k);
  flat.name = std::move(mesh.name);
  mesh = std::move(flat);
}

struct PrimitiveCounts {
  uint64_t triangles = 0, lines = 0, points = 0;
};

// What the draws draw: a line strip of n indices is n - 1 lines.
PrimitiveCounts count_primitives(const std::vector<Draw>& draws, const std::vector<Mesh>& meshes) {
  PrimitiveCounts c;
  for (const Draw& d : draws) {
    const std::string& topology = meshes[d.mesh].topology;
    if (topology == "triangle_list") c.triangles += d.index_count / 3;
    else if (topology == "lines") c.lines += d.index_count / 2;
    else if (topology == "line_strip") c.lines += d.index_count > 1 ? d.index_count - 1 : 0;
    else c.points += d.index_count;
  }
  return c;
}

void SceneBuilder::fail(const std::string& what) const { throw InputError(m_source.string(), what); }

void SceneBuilder::validate() const {
  for (const Mesh& m : meshes) {
    const uint64_t n = m.vertex_count();
    for (float p : m.positions)
      if (!std::isfinite(p)) fail("mesh \"" + m.name + "\": a vertex position is not finite");
    if (m.topology != "line_strip" && m.indices.size() % m.vertices_per_primitive())
      fail("mesh \"" + m.name + "\": index count is not a multiple of " + std::to_string(m.vertices_per_primitive()));
    for (uint32_t i : m.indices)
      if (i >= n)
        fail("mesh \"" + m.name + "\": index " + std::to_string(i) + " out of range (" + std::to_string(n) +
             " vertices)");
  }
  for (const Draw& d : draws) {
    if (!finite_as_float(d.model)) fail("draw \"" + d.name + "\": its transform is not finite as a float");
    for (float c : d.material.base_color)
      if (!std::isfinite(c)) fail("draw \"" + d.name + "\": its base color is not finite");
  }
}

namespace {

Json mat_json(const Mat4d& m) {
  Json a = Json::array();
  for (int c = 0; c < 4; ++c)
    for (int r = 0; r < 4; ++r) a.push_back(float(m(r, c)));  // column-major, float precision
  return a;
}

Json vec_json(const std::array<float, 4>& v) { return Json::array({v[0], v[1], v[2], v[3]}); }

struct Staging {
  std::vector<std::pair<fs::path, fs::path>> files;  // staged -> final
  std::vector<fs::path> created;                      // folders create() made, outermost first
  bool committed = false;
  ~Staging() {
    std::error_code ec;
    for (const auto& [staged, target] : files) fs::remove(staged, ec);
    if (committed) return;
    // A failed import (a write error, a full disk) leaves no folder it created; remove() takes a
    // folder only when it is empty.
    for (auto it = created.rbegin(); it != created.rend(); ++it) fs::remove(*it, ec);
  }
  void create_folder(const fs::path& dir) {
    for (fs::path p = dir; !p.empty() && !fs::exists(p); p = p.parent_path()) created.insert(created.begin(), p);
    fs::create_directories(dir);
  }
  // Through frontend/staged_file.h: never follows a planted symlink, never replaces a non-regular file.
  void add(const fs::path& target, const void* data, size_t size) {
    check_replaceable(target, target.string());
    remove_stale_staged(target.parent_path().empty() ? fs::path(".") : target.parent_path());
    const fs::path staged = staged_path(target);
    write_staged(staged, target, std::string(static_cast<const char*>(data), size));
    files.emplace_back(staged, target);
  }
  void commit() {
    for (const auto& [staged, target] : files) check_replaceable(target, target.string());
    committed = true;
    for (const auto& [staged, target] : files) fs::rename(staged, target);
    files.clear();
  }
};

// The bytes of every mesh array, in one sidecar file; `range` appends an array and returns its
// {file, offset, count} reference.
struct Sidecar {
  std::string name;
  std::vector<uint8_t> bytes;
  size_t append(const void* data, size_t size) {
    const size_t offset = bytes.size();
    bytes.resize(offset + size);
    if (size) std::memcpy(bytes.data() + offset, data, size);
    return offset;
  }
  Json range(const void* data, size_t count, size_t element_bytes) {
    const size_t offset = append(data, count * element_bytes);
    return Json{{"file", name}, {"offset", offset}, {"count", count}};
  }
};

// The image size: --width/--height, else from the camera's aspect ratio, else 640x480; and why.
struct ImageSize {
  uint32_t width = 0, height = 0;
  std::string reason;
};

ImageSize image_size(const ImportOptions& options, const Camera* camera) {
  uint32_t width = options.width ? options.width : 640;
  uint32_t height = options.height;
  std::string size_reason = options.width ? "width given" : "default width";
  if (height) {
    size_reason += ", height given";
  } else if (camera && camera->perspective && camera->aspect > 0 && !options.width) {
    height = uint32_t(std::max(1.0, std::round(width / camera->aspect)));
    size_reason += ", height from the camera's aspect ratio " + std::to_string(camera->aspect).substr(0, 6);
  } else if (options.width) {
    height = std::max(1u, uint32_t(std::round(width * 0.75)));
    size_reason += ", height 3/4 of it";
  } else {
    height = 480;
    size_reason = "default size";
  }
  if (width > 16384 || height > 16384) throw InputError("--width/--height", "at most 16384");
  return ImageSize{width, height, size_reason};
}

// Every texture as <stem>_tex<N>.png (staged), listed as the trace's `textures`.
Json write_textures(const std::vector<Texture>& textures, const std::string& stem, const fs::path& dir,
                    Staging& staging) {
  Json texture_list = Json::array();
  for (size_t t = 0; t < textures.size(); ++t) {
    const Texture& tex = textures[t];
    std::vector<uint8_t> png;
    auto sink = [](void* context, void* data, int size) {
      auto* out = static_cast<std::vector<uint8_t>*>(context);
      out->insert(out->end(), static_cast<uint8_t*>(data), static_cast<uint8_t*>(data) + size);
    };
    if (!stbi_write_png_to_func(sink, &png, int(tex.width), int(tex.height), 4, tex.rgba.data(), int(tex.width * 4)))
      throw std::runtime_error("PNG encoding failed for texture " + tex.name);
    const std::string file = stem + "_tex" + std::to_string(t) + ".png";
    staging.add(dir / file, png.data(), png.size());
    texture_list.push_back(Json{{"name", tex.name}, {"file", file}});
  }
  return texture_list;
}

// Every mesh's arrays into the sidecar (indices 16-bit where they fit), listed as the trace's
// `meshes`; `vertices` counts their vertices.
Json mesh_list_json(const std::vector<Mesh>& meshes, Sidecar& sidecar, uint64_t& vertices) {
  Json mesh_list = Json::array();
  for (const Mesh& m : meshes) {
    Json j{{"name", m.name}};
    if (m.topology != "triangle_list") j["topology"] = m.topology;
    j["positions"] = sidecar.range(m.positions.data(), m.positions.size(), 4);
    if (!m.colors.empty()) j["colors"] = sidecar.range(m.colors.data(), m.colors.size(), 4);
    if (!m.uvs.empty()) j["uvs"] = sidecar.range(m.uvs.data(), m.uvs.size(), 4);
    if (!m.normals.empty()) j["normals"] = sidecar.range(m.normals.data(), m.normals.size(), 4);
    const bool small = m.vertex_count() <= 65536;
    if (small) {
      std::vector<uint16_t> narrow(m.indices.begin(), m.indices.end());
      j["indices"] = sidecar.range(narrow.data(), narrow.size(), 2);
      // Keep float ranges aligned.
      if (sidecar.bytes.size() % 4) sidecar.bytes.resize((sidecar.bytes.size() + 3) / 4 * 4, 0);
    } else {
      j["indices"] = sidecar.range(m.indices.data(), m.indices.size(), 4);
    }
    j["index_bits"] = small ? 16 : 32;
    vertices += m.vertex_count();
    mesh_list.push_back(j);
  }
  return mesh_list;
}

// One draw of the trace: its transform, fixed-function state from the material's alpha mode and
// sidedness, and program (textured, or lit without a texture).
Json draw_json(const Draw& d, const Mesh& mesh, const Mat4d& view, const Mat4d& proj,
               const std::vector<Texture>& textures) {
  const Material& mat = d.material;
  Json draw{{"name", d.name}, {"mesh", mesh.name}};
  if (d.first_index != 0 || d.index_count != mesh.indices.size()) {
    draw["first_index"] = d.first_index;
    draw["index_count"] = d.index_count;
  }
  draw["transform"] = Json{{"model", mat_json(d.model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}};
  Json state{{"cull", mat.double_sided ? "none" : "back"},
             // A mirroring model matrix (negative determinant) reverses the winding (glTF 2.0 3.7.4).
             {"front_face", d.model.block<3, 3>(0, 0).determinant() < 0 ? "clockwise" : "counter_clockwise"},
             {"depth_test", true},
             {"depth_write", mat.alpha_mode != AlphaMode::blend},
             {"depth_compare", "less"}};
  if (mat.alpha_mode == AlphaMode::mask) state["discard"] = true;
  if (mat.alpha_mode == AlphaMode::blend)
    state["blend"] = Json::array({Json{{"enable", true},
                                       {"src_color", "src_alpha"},
                                       {"dst_color", "one_minus_src_alpha"},
                                       {"color_op", "add"},
                                       {"src_alpha", "one"},
                                       {"dst_alpha", "one_minus_src_alpha"},
                                       {"alpha_op", "add"}}});
  draw["state"] = state;
  Json program;
  Json params = Json::object();
  if (mat.texture >= 0) {
    program["name"] = "textured";
    params["tint"] = vec_json(mat.base_color);
    program["bindings"] = Json{{"texture", Json{{"texture", textures[size_t(mat.texture)].name},
                                                {"filter", mat.nearest ? "nearest" : "bilinear"},
                                                {"address", mat.address}}}};
  } else if (mesh.topology != "triangle_list" && mesh.normals.empty()) {
    // Lines and points have no surface to make flat normals of (glTF 2.0 3.7.2.1 asks flat normals
    // of triangles): unlit, COLOR_0 x base color, or the base color alone.
    program["name"] = mesh.colors.empty() ? "flat" : "vertex_color";
    params[mesh.colors.empty() ? "color" : "tint"] = vec_json(mat.base_color);
  } else {
    // Lambert lit with the program's default light (traces/README.md "lit"), albedo = COLOR_0
    // (1 without) x base color: untextured meshes show their shape, not a flat silhouette.
    program["name"] = "lit";
    params["tint"] = vec_json(mat.base_color);
  }
  if (mat.alpha_mode == AlphaMode::mask) params["alpha_cutoff"] = mat.alpha_cutoff;
  program["params"] = params;
  // textured needs the uv attribute; the importers only bind a texture to meshes with uvs.
  draw["program"] = program;
  return draw;
}

}  // namespace

// --camera N, the scene's first camera, or null for the automatic camera; warns when the scene has
// several.
const Camera* SceneBuilder::chosen_camera(const ImportOptions& options) {
  const Camera* camera = nullptr;
  if (options.camera.empty()) {
    if (!cameras.empty()) camera = &cameras[0];
  } else if (options.camera != "auto") {
    size_t used = 0;
    unsigned long index = 0;
    try {
      index = std::stoul(options.camera, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != options.camera.size())
      throw InputError("--camera", "expected a camera index or \"auto\", got \"" + options.camera + "\"");
    if (index >= cameras.size())
      fail("--camera " + options.camera + ": the scene has " + std::to_string(cameras.size()) + " camera(s)");
    camera = &cameras[index];
  }
  if (cameras.size() > 1) {
    const std::string used = camera ? "camera " + std::to_string(camera - cameras.data()) : std::string("the automatic camera");
    warnings.push_back("the scene has " + std::to_string(cameras.size()) + " cameras; " + used +
                       " is used (--camera N picks another)");
  }
  return camera;
}

// The automatic camera: the world-space bounding sphere of every drawn vertex, seen from the front
// (+z, glTF's "front"), a little from the right and above, filling the narrower field of view.
void SceneBuilder::automatic_camera(double aspect, Mat4d& view, Mat4d& proj) const {
  Vector3d lo = Vector3d::Constant(INFINITY), hi = Vector3d::Constant(-INFINITY);
  for (const Draw& d : draws) {
    const Mesh& m = meshes[d.mesh];
    for (uint32_t k = d.first_index; k < d.first_index + d.index_count; ++k) {
      const float* p = &m.positions[size_t(m.indices[k]) * 3];
      const Vector4d w = d.model * Vector4d(p[0], p[1], p[2], 1);
      const Vector3d v = w.head<3>() / w[3];
      lo = lo.cwiseMin(v);
      hi = hi.cwiseMax(v);
    }
  }
  const Vector3d center = (lo + hi) / 2;
  double radius = (hi - lo).norm() / 2;
  if (!(radius > 0) || !std::isfinite(radius)) radius = 1;
  const double fov_y = 45.0 * M_PI / 180.0;
  const double fov_x = 2 * std::atan(std::tan(fov_y / 2) * aspect);
  const double distance = radius / std::sin(std::min(fov_x, fov_y) / 2);
  const Vector3d eye = center + Vector3d(0.5, 0.4, 1.0).normalized() * distance;
  view = look_at(eye, center, Vector3d::UnitY());
  proj = perspective_vulkan(fov_y, aspect, std::max((distance - radius) * 0.5, radius * 1e-3), distance + 2 * radius);
}

ImportSummary SceneBuilder::write(const fs::path& trace_json, const ImportOptions& options) {
  validate();
  std::vector<bool> lit(meshes.size(), false);
  for (const Draw& d : draws) lit[d.mesh] = lit[d.mesh] || d.material.texture < 0;
  for (size_t m = 0; m < meshes.size(); ++m)
    if (lit[m] && meshes[m].normals.empty() && meshes[m].topology == "triangle_list") give_flat_normals(meshes[m]);
  const PrimitiveCounts drawn = count_primitives(draws, meshes);
  if (draws.empty() || drawn.triangles + drawn.lines + drawn.points == 0)
    fail("the scene has no triangles, lines or points to draw");

  // ---- camera ----
  const Camera* camera = chosen_camera(options);
  const ImageSize size = image_size(options, camera);
  const uint32_t width = size.width, height = size.height;
  const double aspect = double(width) / height;

  Mat4d view, proj;
  if (camera) {
    view = camera->view;
    proj = camera->perspective ? perspective_vulkan(camera->yfov, aspect, camera->znear, camera->zfar)
                               : orthographic_vulkan(camera->xmag, camera->ymag, camera->znear, camera->zfar);
  } else {
    automatic_camera(aspect, view, proj);
  }

  if (!finite_as_float(view) || !finite_as_float(proj))
    fail("the camera's view or projection is not finite as a float (a transform or camera value out of range)");

  // ---- files ----
  const fs::path dir = trace_json.parent_path().empty() ? fs::path(".") : trace_json.parent_path();
  Staging staging;
  staging.create_folder(dir);
  const std::string stem = trace_json.stem().string();
  Sidecar sidecar{stem + ".bin", {}};

  Json trace;
  trace["format"] = "tbdrsim-trace";
  trace["version"] = 1;
  trace["name"] = stem;
  std::vector<std::string> all_warnings = warnings;
  if (!all_warnings.empty()) trace["warnings"] = all_warnings;
  trace["images"] = Json::array(
      {Json{{"name", "color"}, {"format", "RGBA8"}, {"width", width}, {"height", height}, {"usage", {"color_attachment"}}},
       Json{{"name", "depth"},
            {"format", "D32F"},
            {"width", width},
            {"height", height},
            {"usage", {"depth_stencil_attachment"}},
            {"transient", true}}});

  const Json texture_list = write_textures(textures, stem, dir, staging);
  if (!texture_list.empty()) trace["textures"] = texture_list;

  uint64_t vertices = 0;
  trace["meshes"] = mesh_list_json(meshes, sidecar, vertices);

  // Opaque and alpha-tested draws first, then blended ones in scene order (glTF: BLEND is drawn
  // after the opaque geometry, without writing depth).
  Json draw_list = Json::array();
  for (int blended = 0; blended < 2; ++blended)
    for (const Draw& d : draws) {
      if ((d.material.alpha_mode == AlphaMode::blend) != bool(blended)) continue;
      if (d.index_count == 0) continue;
      draw_list.push_back(draw_json(d, meshes[d.mesh], view, proj, textures));
    }

  Json pass{{"name", "main"},
            {"attachments",
             Json::array({Json{{"image", "color"}, {"load", "clear"}, {"store", "store"}, {"clear", {0.05, 0.05, 0.08, 1.0}}},
                          Json{{"image", "depth"},
                               {"load", "clear"},
                               {"store", "dont_care"},
                               {"clear", Json{{"depth", 1.0}, {"stencil", 0}}}}})},
            {"subpasses", Json::array({Json{{"color", {0}}, {"depth", 1}, {"draws", draw_list}}})}};
  trace["frames"] = Json::array({Json{{"passes", Json::array({pass})}}});

  staging.add(dir / sidecar.name, sidecar.bytes.data(), sidecar.bytes.size());
  // Names come from the scene file as bytes: invalid UTF-8 becomes U+FFFD instead of an exception.
  const std::string text = trace.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
  staging.add(trace_json, text.data(), text.size());
  staging.commit();

  ImportSummary summary;
  summary.trace = trace_json;
  summary.meshes = meshes.size();
  summary.draws = draw_list.size();
  summary.vertices = vertices;
  summary.triangles = drawn.triangles;
  summary.lines = drawn.lines;
  summary.points = drawn.points;
  summary.textures = textures.size();
  summary.automatic_camera = camera == nullptr;
  summary.width = width;
  summary.height = height;
  summary.size_reason = size.reason;
  summary.warnings = all_warnings;
  return summary;
}

}  // namespace import
}  // namespace tbdr
