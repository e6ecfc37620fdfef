// Wavefront OBJ importer (tinyobjloader): one trace mesh holding every vertex, polygons
// triangulated, one draw per material (diffuse color Kd and dissolve d as the base color,
// map_Kd as the texture); OBJ has no cameras, so the automatic camera frames it.
#include <stb_image.h>
#include <tiny_obj_loader.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "frontend/import_writer.h"
#include "frontend/trace_files.h"
#include "models/errors.h"
#include "models/input_file.h"

namespace tbdr::import {

namespace fs = std::filesystem;

namespace {

// tinyobjloader reads a vertex coordinate it cannot parse ("nan", "abc", a missing one) as 0, so a
// broken file would import as geometry collapsed to the origin: the v, vt and vn lines are checked
// first, each of their numbers finite and present (v: x y z [r g b], vt: u [v [w]], vn: x y z).
// Corners of one face: tinyobjloader's ear clipping takes quadratic time (a 100,000-corner polygon
// took 10 s), so faces are capped (tools/doc/cli.md "Limits of input files").
constexpr size_t kMaxFaceCorners = 1024;

// An f line's corners "v", "v/vt", "v//vn" or "v/vt/vn": tinyobjloader reads each index with atoi,
// so one beyond the int range (2^32 + 1) wrapped to another vertex; refused here, as are faces
// with more than kMaxFaceCorners corners.
void check_face_line(std::istringstream& words, const std::string& where) {
  size_t corners = 0;
  for (std::string word; words >> word && word[0] != '#'; ++corners) {
    std::istringstream parts(word);
    for (std::string part; std::getline(parts, part, '/');) {
      if (part.empty()) continue;
      char* end = nullptr;
      errno = 0;
      const long long index = std::strtoll(part.c_str(), &end, 10);
      if (end != part.c_str() + part.size() || errno == ERANGE || index == 0 || index > INT32_MAX || index < -INT32_MAX)
        throw InputError(where, "f line: index \"" + part + "\" is not a nonzero integer within +-2147483647");
    }
  }
  if (corners > kMaxFaceCorners)
    throw InputError(where, "f line: a face of " + std::to_string(corners) + " corners, over the limit of " +
                                std::to_string(kMaxFaceCorners));
}

void check_vertex_lines(const std::string& file, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    std::istringstream words(line);
    std::string keyword;
    words >> keyword;
    if (keyword == "f") check_face_line(words, file + ":" + std::to_string(number));
    const size_t need = keyword == "v" ? 3 : keyword == "vn" ? 3 : keyword == "vt" ? 1 : 0;
    if (need == 0) continue;
    size_t count = 0;
    for (std::string word; words >> word; ++count) {
      if (word[0] == '#') break;
      char* end = nullptr;
      const double value = std::strtod(word.c_str(), &end);
      if (end != word.c_str() + word.size() || !std::isfinite(value))
        throw InputError(file + ":" + std::to_string(number),
                         keyword + " line: \"" + word + "\" is not a finite number");
    }
    if (count < need)
      throw InputError(file + ":" + std::to_string(number), keyword + " line: " + std::to_string(count) +
                                                                  " numbers, expected at least " + std::to_string(need));
  }
}

// A file the scene names (mtllib, map_Kd), inside the scene's folder (resolve_inside_folder) and
// read bounded (read_input_bytes); InputError naming `where`.
std::vector<uint8_t> read_scene_file(const fs::path& scene, const std::string& name, uint64_t max_bytes,
                                     const std::string& where) {
  std::string problem;
  const fs::path dir = scene.parent_path().empty() ? fs::path(".") : scene.parent_path();
  const fs::path resolved = resolve_inside_folder(dir, name, problem, "the scene's folder");
  if (!problem.empty()) throw InputError(where, problem);
  return read_input_bytes(resolved, max_bytes, where);
}

// The first word of each line of `text`, with the rest of the line's words.
template <class Visit>
void for_each_line(const std::string& text, Visit visit) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string keyword;
    words >> keyword;
    visit(keyword, words);
  }
}

// Every mtllib the OBJ names, read from the scene's folder only and joined in order: tinyobjloader
// then reads them from this text instead of opening paths itself. `mtl_of_material`: the MTL file
// that defines each material first (tinyobjloader keeps the first), for messages naming it.
std::string material_text(const fs::path& scene, const std::string& obj_text,
                          std::map<std::string, std::string>& mtl_of_material) {
  std::string joined;
  for_each_line(obj_text, [&](const std::string& keyword, std::istringstream& words) {
    if (keyword != "mtllib") return;
    for (std::string name; words >> name && name[0] != '#';) {
      const std::vector<uint8_t> bytes =
          read_scene_file(scene, name, InputLimits::kTextBytes, scene.string() + ": mtllib \"" + name + "\"");
      const std::string mtl(bytes.begin(), bytes.end());
      for_each_line(mtl, [&](const std::string& mtl_keyword, std::istringstream& rest) {
        std::string material;
        if (mtl_keyword == "newmtl" && rest >> material) mtl_of_material.emplace(material, name);
      });
      joined += mtl;
      joined += '\n';
    }
  });
  return joined;
}

// Material `m`'s map_Kd decoded and added to the builder's textures; returns its index.
int add_obj_texture(const fs::path& scene, const tinyobj::material_t& m, const std::string& mtl_file,
                    const std::string& texname, SceneBuilder& builder) {
  // The MTL file's folder is the scene's (mtllib names files inside it), so map_Kd's name is given as
  // written, after the files and the material that name it.
  const std::string where = scene.string() + ": " + (mtl_file.empty() ? std::string() : mtl_file + ": ") +
                            "material \"" + m.name + "\": map_Kd \"" + texname + "\"";
  const std::vector<uint8_t> bytes = read_scene_file(scene, texname, InputLimits::kImageFileBytes, where);
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  int w = 0, h = 0, c = 0;
  if (stbi_info_from_memory(data, int(bytes.size()), &w, &h, &c)) check_image_size(uint64_t(w), uint64_t(h), where);
  stbi_uc* pixels = stbi_load_from_memory(data, int(bytes.size()), &w, &h, &c, 4);
  if (!pixels)
    throw InputError(where, std::string("cannot be decoded (") + stbi_failure_reason() + ")");
  Texture tex;
  tex.name = "texture" + std::to_string(builder.textures.size());
  tex.width = uint32_t(w);
  tex.height = uint32_t(h);
  tex.rgba.assign(pixels, pixels + size_t(w) * size_t(h) * 4);
  stbi_image_free(pixels);
  builder.textures.push_back(std::move(tex));
  return int(builder.textures.size()) - 1;
}

// A draw's material from MTL material `m`: diffuse color and dissolve, its map_Kd as a texture (each
// file decoded once, `texture_of_file`) where the mesh has texture coordinates.
void apply_obj_material(const fs::path& scene, const tinyobj::material_t& m,
                        const std::map<std::string, std::string>& mtl_of_material, bool any_uv,
                        std::map<std::string, int>& texture_of_file, SceneBuilder& builder, Draw& d) {
  d.name = m.name;
  d.material.base_color = {float(m.diffuse[0]), float(m.diffuse[1]), float(m.diffuse[2]), float(m.dissolve)};
  if (m.dissolve < 1.0f) d.material.alpha_mode = AlphaMode::blend;
  // MTL files written on Windows separate folders with '\' (assimp's spider.mtl: ".\SpiderTex.jpg");
  // the MTL format names no separator, so both are read as folder separators.
  std::string texname = m.diffuse_texname;
  std::replace(texname.begin(), texname.end(), '\\', '/');
  if (!texname.empty()) {
    if (!any_uv) {
      builder.warnings.push_back("material \"" + m.name + "\": map_Kd without texture coordinates; drawn untextured");
    } else {
      auto it = texture_of_file.find(texname);
      if (it == texture_of_file.end()) {
        const auto mtl = mtl_of_material.find(m.name);
        const std::string mtl_file = mtl == mtl_of_material.end() ? std::string() : mtl->second;
        it = texture_of_file.emplace(texname, add_obj_texture(scene, m, mtl_file, texname, builder)).first;
      }
      d.material.texture = it->second;
    }
  }
}

// A face corner's v, vt and vn indices checked against the file's counts.
void check_face_corner(const std::string& file, const tinyobj::shape_t& s, size_t f, const tinyobj::index_t& i,
                       size_t positions, size_t texcoords, size_t normal_count, bool use_normals) {
  if (i.vertex_index < 0 || size_t(i.vertex_index) >= positions)
    throw InputError(file, "shape \"" + s.name + "\" face " + std::to_string(f) + ": vertex index " +
                               std::to_string(i.vertex_index + 1) + " out of range (" + std::to_string(positions) + " vertices)");
  if (i.texcoord_index >= 0 && size_t(i.texcoord_index) >= texcoords)
    throw InputError(file, "shape \"" + s.name + "\" face " + std::to_string(f) + ": texture coordinate index " +
                               std::to_string(i.texcoord_index + 1) + " out of range");
  if (use_normals && size_t(i.normal_index) >= normal_count)
    throw InputError(file, "shape \"" + s.name + "\" face " + std::to_string(f) + ": normal index " +
                               std::to_string(i.normal_index + 1) + " out of range");
}

// Which vertex attributes the file gives: uvs (any corner names a vt), colors (any `v` line's color
// other than white), normals (every corner names a vn: a vertex carries one normal; otherwise the
// writer computes flat normals for untextured draws, warned when only some corners have one).
struct ObjAttributes {
  bool any_uv = false, any_color = false, use_normals = false;
};

ObjAttributes obj_attributes(const tinyobj::attrib_t& attrib, const std::vector<tinyobj::shape_t>& shapes,
                             std::vector<std::string>& warnings) {
  ObjAttributes a;
  for (const auto& s : shapes)
    for (const auto& i : s.mesh.indices) a.any_uv |= i.texcoord_index >= 0;
  for (float c : attrib.colors) a.any_color |= c != 1.0f;
  size_t corners = 0, corners_with_normal = 0;
  for (const auto& s : shapes)
    for (const auto& i : s.mesh.indices) {
      ++corners;
      corners_with_normal += i.normal_index >= 0;
    }
  a.use_normals = corners > 0 && corners_with_normal == corners;
  if (corners_with_normal > 0 && !a.use_normals)
    warnings.push_back("vn given for some face corners only: ignored (flat normals are computed)");
  return a;
}

}  // namespace

ImportSummary import_obj(const fs::path& scene, const fs::path& trace_json, const ImportOptions& options) {
  const std::string file = scene.string();
  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = true;
  config.mtl_search_path = scene.parent_path().string();
  tinyobj::ObjReader reader;
  const std::string text = read_input_file(scene, InputLimits::kTextBytes, file);
  check_vertex_lines(file, text);
  std::map<std::string, std::string> mtl_of_material;
  if (!reader.ParseFromString(text, material_text(scene, text, mtl_of_material), config))
    throw InputError(file, "malformed OBJ: " + one_line_trimmed(reader.Error().empty() ? "cannot parse" : reader.Error()));
  const tinyobj::attrib_t& attrib = reader.GetAttrib();
  const auto& shapes = reader.GetShapes();
  const auto& materials = reader.GetMaterials();

  SceneBuilder builder(scene);
  if (!reader.Warning().empty()) builder.warnings.push_back(one_line_trimmed(reader.Warning()));
  const size_t positions = attrib.vertices.size() / 3;
  const size_t texcoords = attrib.texcoords.size() / 2;
  const ObjAttributes attributes = obj_attributes(attrib, shapes, builder.warnings);
  const bool any_uv = attributes.any_uv, any_color = attributes.any_color, use_normals = attributes.use_normals;
  const size_t normal_count = attrib.normals.size() / 3;

  // Without texture coordinates and normals a vertex is its position (so the vertex count is the
  // file's `v` count); with them, each distinct (v, vt, vn) triple is one vertex.
  Mesh mesh;
  mesh.name = "obj";
  std::map<std::tuple<int, int, int>, uint32_t> vertex_of;
  auto push_vertex = [&](int v, int vt, int vn) {
    if (use_normals)
      mesh.normals.insert(mesh.normals.end(), {attrib.normals[3 * size_t(vn)], attrib.normals[3 * size_t(vn) + 1],
                                               attrib.normals[3 * size_t(vn) + 2]});
    mesh.positions.insert(mesh.positions.end(), {attrib.vertices[3 * size_t(v)], attrib.vertices[3 * size_t(v) + 1],
                                                 attrib.vertices[3 * size_t(v) + 2]});
    if (any_color) {
      const bool has = attrib.colors.size() >= 3 * size_t(v) + 3;
      mesh.colors.insert(mesh.colors.end(), {has ? attrib.colors[3 * size_t(v)] : 1.0f,
                                             has ? attrib.colors[3 * size_t(v) + 1] : 1.0f,
                                             has ? attrib.colors[3 * size_t(v) + 2] : 1.0f, 1.0f});
    }
    if (any_uv) {
      // OBJ's vt has v = 0 at the bottom of the image; the trace's v = 0 is the top row.
      mesh.uvs.push_back(vt >= 0 ? attrib.texcoords[2 * size_t(vt)] : 0.0f);
      mesh.uvs.push_back(vt >= 0 ? 1.0f - attrib.texcoords[2 * size_t(vt) + 1] : 0.0f);
    }
    return uint32_t(mesh.positions.size() / 3 - 1);
  };
  const bool vertex_per_position = !any_uv && !use_normals;
  if (vertex_per_position)
    for (size_t v = 0; v < positions; ++v) push_vertex(int(v), -1, -1);

  // Faces grouped by material, in order of first use.
  std::map<int, std::vector<uint32_t>> by_material;
  std::vector<int> material_order;
  for (const auto& s : shapes) {
    size_t at = 0;
    for (size_t f = 0; f < s.mesh.num_face_vertices.size(); ++f) {
      const size_t count = s.mesh.num_face_vertices[f];
      const int material = f < s.mesh.material_ids.size() ? s.mesh.material_ids[f] : -1;
      if (count != 3) throw InputError(file, "shape \"" + s.name + "\": a face with " + std::to_string(count) + " vertices after triangulation");
      if (!by_material.count(material)) material_order.push_back(material);
      auto& list = by_material[material];
      for (size_t k = 0; k < count; ++k) {
        const tinyobj::index_t& i = s.mesh.indices[at + k];
        check_face_corner(file, s, f, i, positions, texcoords, normal_count, use_normals);
        if (vertex_per_position) {
          list.push_back(uint32_t(i.vertex_index));
        } else {
          const auto key = std::make_tuple(i.vertex_index, i.texcoord_index, use_normals ? i.normal_index : -1);
          auto it = vertex_of.find(key);
          if (it == vertex_of.end())
            it = vertex_of.emplace(key, push_vertex(i.vertex_index, i.texcoord_index, std::get<2>(key))).first;
          list.push_back(it->second);
        }
      }
      at += count;
    }
  }

  std::map<std::string, int> texture_of_file;
  for (int material : material_order) {
    const auto& list = by_material[material];
    Draw d;
    d.mesh = 0;
    d.first_index = uint32_t(mesh.indices.size());
    d.index_count = uint32_t(list.size());
    mesh.indices.insert(mesh.indices.end(), list.begin(), list.end());
    // OBJ has no face culling information: every face is drawn (double-sided).
    d.material.double_sided = true;
    d.material.base_color = {0.8f, 0.8f, 0.8f, 1.0f};  // no material: the MTL default Kd
    if (material >= 0 && size_t(material) < materials.size())
      apply_obj_material(scene, materials[size_t(material)], mtl_of_material, any_uv, texture_of_file, builder, d);
    if (d.name.empty()) d.name = "default";
    builder.draws.push_back(d);
  }
  builder.meshes.push_back(std::move(mesh));
  return builder.write(trace_json, options);
}

}  // namespace tbdr::import
