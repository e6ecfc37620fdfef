// glTF 2.0 importer (.gltf / .glb through tinygltf): the default scene's node hierarchy, its mesh
// primitives (triangles; strips and fans converted to lists), cameras, base-color textures and
// factors (KHR_texture_transform baked into the uvs), COLOR_0, NORMAL, alpha modes and
// double-sidedness -> SceneBuilder (import_writer.cpp); a warning names each feature not carried.
#include <stb_image.h>
#include <tiny_gltf.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "frontend/import_writer.h"
#include "frontend/trace_files.h"
#include "models/errors.h"
#include "models/input_file.h"

namespace tbdr::import {

namespace fs = std::filesystem;

namespace {

const char* mode_name(int mode) {
  switch (mode) {
    case TINYGLTF_MODE_POINTS: return "POINTS";
    case TINYGLTF_MODE_LINE: return "LINES";
    case TINYGLTF_MODE_LINE_LOOP: return "LINE_LOOP";
    case TINYGLTF_MODE_LINE_STRIP: return "LINE_STRIP";
    case TINYGLTF_MODE_TRIANGLES: return "TRIANGLES";
    case TINYGLTF_MODE_TRIANGLE_STRIP: return "TRIANGLE_STRIP";
    case TINYGLTF_MODE_TRIANGLE_FAN: return "TRIANGLE_FAN";
  }
  return "unknown";
}

// Reads a .glb whole and checks its chunk layout (glTF 2.0 section 4.4, "Binary glTF Layout") before
// tinygltf sees it: the Debian tinygltf checks a BIN chunk's length against the file without its
// 8-byte chunk header and so reads up to 8 bytes past the end of a truncated file (found by
// tools/fuzz --ci, tests/data/fuzz_regressions/gltf-bin-chunk-past-end.glb).
std::vector<unsigned char> read_glb(const fs::path& scene) {
  std::vector<unsigned char> bytes = read_whole_file(scene, InputLimits::kBinaryBytes, scene.string());
  auto u32 = [&](size_t at) {
    uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);  // GLB is little-endian, as this reader's hosts are
    return v;
  };
  if (bytes.size() < 12 || std::memcmp(bytes.data(), "glTF", 4) != 0)
    throw InputError(scene.string(), "malformed glTF: the binary header (magic \"glTF\", version, length) is missing");
  const uint64_t length = u32(8);
  if (length > bytes.size())
    throw InputError(scene.string(), "malformed glTF: header length " + std::to_string(length) + " exceeds the file's " +
                                         std::to_string(bytes.size()) + " bytes");
  for (uint64_t at = 12, chunk = 0; at < length; ++chunk) {
    const std::string which = "chunk " + std::to_string(chunk);
    if (at + 8 > length) throw InputError(scene.string(), "malformed glTF: " + which + "'s 8-byte header runs past the end");
    const uint64_t chunk_length = u32(size_t(at));
    if (at + 8 + chunk_length > length)
      throw InputError(scene.string(), "malformed glTF: " + which + "'s chunkLength " + std::to_string(chunk_length) +
                                           " runs past the end (" + std::to_string(length - at - 8) + " bytes follow its header)");
    at += 8 + chunk_length;
  }
  bytes.resize(size_t(length));  // what follows the declared length is not part of the glTF
  if (length >= 20)  // chunk 0 is the JSON (glTF 2.0 section 4.4.3.1), scanned before tinygltf parses it
    check_json_depth(std::string_view(reinterpret_cast<const char*>(bytes.data()) + 20,
                                      std::min<uint64_t>(u32(12), length - 20)), scene.string());
  return bytes;
}

// tinygltf's image loader behind a bounds check and a format check: the Debian tinygltf 2.7.0 hands the decoder
// bufferView.byteLength bytes at the view's offset without checking them against the buffer, so a
// view past its buffer's end made stb_image read past it (found by tools/fuzz --ci,
// tests/data/fuzz_regressions/gltf-image-view-past-buffer.glb). `model` is the one being loaded:
// its buffers and views are parsed before its images.
bool load_image_checked(tinygltf::Image* image, const int index, std::string* err, std::string* warn, int width,
                        int height, const unsigned char* bytes, int size, void* model_being_loaded) {
  const auto& model = *static_cast<const tinygltf::Model*>(model_being_loaded);
  if (image->bufferView >= 0) {
    // tinygltf has checked that the view and its buffer exist before calling.
    const tinygltf::BufferView& view = model.bufferViews[size_t(image->bufferView)];
    const size_t buffer_size = model.buffers[size_t(view.buffer)].data.size();
    if (size < 0 || view.byteOffset > buffer_size || view.byteLength > buffer_size - view.byteOffset) {
      if (err)
        *err += "image " + std::to_string(index) + ": bufferView " + std::to_string(image->bufferView) + " (" +
                std::to_string(view.byteLength) + " bytes at " + std::to_string(view.byteOffset) +
                ") lies beyond its buffer (" + std::to_string(buffer_size) + " bytes)";
      return false;
    }
  }
  // Only the formats glTF 2.0 allows (section 3.8.1: image/png, image/jpeg) reach stb_image,
  // whose other decoders (GIF, PSD, PIC, TGA, ...) would only widen what malformed input reaches.
  const bool png = size >= 8 && std::memcmp(bytes, "\x89PNG\r\n\x1a\n", 8) == 0;
  const bool jpeg = size >= 3 && bytes[0] == 0xff && bytes[1] == 0xd8 && bytes[2] == 0xff;
  if (!png && !jpeg) {
    if (err) *err += "image " + std::to_string(index) + " is neither PNG nor JPEG (glTF 2.0 allows only those)";
    return false;
  }
  int header_width = 0, header_height = 0, header_channels = 0;
  if (stbi_info_from_memory(bytes, size, &header_width, &header_height, &header_channels)) {
    try {
      check_image_size(uint64_t(header_width), uint64_t(header_height), "image " + std::to_string(index));
    } catch (const InputError& e) {
      if (err) *err += e.what();
      return false;
    }
  }
  return tinygltf::LoadImageData(image, index, err, warn, width, height, bytes, size, nullptr);
}

// tinygltf's file access confined to the scene's folder (tools/doc/cli.md "Output files and input limits"):
// every buffer and image URI is resolved by resolve_inside_folder (no absolute path, no "..", no
// symlink out) and read by read_input_bytes (a regular file of bounded size). The first refusal is
// kept for the error message.
struct SceneFolder {
  fs::path dir;
  std::string refusal;
};

// tinygltf joins the scene's folder and the URI; the part after the folder is the URI.
std::string uri_of(const SceneFolder& folder, const std::string& joined) {
  const std::string prefix = folder.dir.string() + "/";
  return joined.rfind(prefix, 0) == 0 ? joined.substr(prefix.size()) : joined;
}

// A missing file is tinygltf's to report (an image then is "missing or cannot be decoded"), unless
// its URI could never be read: an absolute path or a ".." component is refused as such.
bool folder_file_exists(const std::string& path, void* user) {
  auto& folder = *static_cast<SceneFolder*>(user);
  const fs::path uri(uri_of(folder, path));
  const bool leaves_folder = uri.is_absolute() || uri.has_root_directory() ||
                             std::find(uri.begin(), uri.end(), fs::path("..")) != uri.end();
  std::error_code ec;
  if (!leaves_folder && !fs::exists(path, ec)) return false;
  std::string problem;
  resolve_inside_folder(folder.dir, uri.string(), problem, "the scene's folder");
  if (!problem.empty() && folder.refusal.empty()) folder.refusal = problem;
  return problem.empty();
}

bool folder_read_file(std::vector<unsigned char>* out, std::string* err, const std::string& path, void* user) {
  auto& folder = *static_cast<SceneFolder*>(user);
  std::string problem;
  const fs::path resolved = resolve_inside_folder(folder.dir, uri_of(folder, path), problem, "the scene's folder");
  try {
    if (problem.empty()) *out = read_input_bytes(resolved, InputLimits::kBinaryBytes, resolved.string());
  } catch (const InputError& e) {
    problem = e.what();
  }
  if (problem.empty()) return true;
  if (folder.refusal.empty()) folder.refusal = problem;
  if (err) *err += problem;
  return false;
}

std::string same_path(const std::string& path, void*) { return path; }  // no ~ or $VAR expansion (wordexp)
bool write_nothing(std::string* err, const std::string&, const std::vector<unsigned char>&, void*) {
  if (err) *err += "the importer writes no files through tinygltf";
  return false;
}

// The glTF extensions the importer applies.
bool extension_carried(const std::string& name) { return name == "KHR_texture_transform"; }

// "node 3" or "node 3 \"Arm\"": how warnings name a glTF object.
std::string labelled(const char* kind, size_t index, const std::string& name) {
  return std::string(kind) + " " + std::to_string(index) + (name.empty() ? "" : " \"" + name + "\"");
}

// Node instances over every path through the hierarchy: four times the 65536 draws a trace's pass
// may hold (traces/README.md "Limits"), room for nodes without meshes (a guess).
constexpr size_t kMaxNodeInstances = size_t(1) << 18;

class GltfReader {
 public:
  GltfReader(const fs::path& file, const tinygltf::Model& model, SceneBuilder& out)
      : m_file(file), m_model(model), m_out(out) {}

  void read_scene() {
    warn_unsupported_features();
    std::vector<int> roots;
    if (!m_model.scenes.empty()) {
      const int s = m_model.defaultScene >= 0 ? m_model.defaultScene : 0;
      if (s >= int(m_model.scenes.size())) fail("scene " + std::to_string(s) + " does not exist");
      roots = m_model.scenes[size_t(s)].nodes;
    } else {
      // No scene: every node that is nobody's child is a root.
      std::vector<bool> child(m_model.nodes.size(), false);
      for (const auto& n : m_model.nodes)
        for (int c : n.children)
          if (c >= 0 && c < int(child.size())) child[size_t(c)] = true;
      for (size_t i = 0; i < child.size(); ++i)
        if (!child[i]) roots.push_back(int(i));
    }
    for (int r : roots) visit(r, Mat4d::Identity(), 0);
  }

 private:
  // One warning per glTF feature the trace does not carry (skins and morph targets: in visit and
  // primitive_mesh, where the node or mesh is known).
  void warn_unsupported_features() {
    for (const std::string& e : m_model.extensionsUsed)
      if (!extension_carried(e)) warn("extension " + e + " is not supported: ignored");
    if (!m_model.animations.empty())
      warn(std::to_string(m_model.animations.size()) + " animation(s) ignored: the scene is drawn at its rest pose");
    if (m_model.scenes.size() > 1) warn("the file has " + std::to_string(m_model.scenes.size()) + " scenes; only the default one is drawn");
    for (size_t i = 0; i < m_model.materials.size(); ++i) {
      const tinygltf::Material& m = m_model.materials[i];
      std::vector<std::string> unused;
      if (m.normalTexture.index >= 0) unused.push_back("normalTexture");
      if (m.occlusionTexture.index >= 0) unused.push_back("occlusionTexture");
      if (m.emissiveTexture.index >= 0) unused.push_back("emissiveTexture");
      if (std::any_of(m.emissiveFactor.begin(), m.emissiveFactor.end(), [](double f) { return f != 0; }))
        unused.push_back("emissiveFactor");
      if (m.pbrMetallicRoughness.metallicRoughnessTexture.index >= 0) unused.push_back("metallicRoughnessTexture");
      for (const std::string& name : unused)
        warn(labelled("material", i, m.name) + ": " + name + " ignored (base color only)");
    }
    for (size_t i = 0; i < m_model.samplers.size(); ++i) {
      const int f = m_model.samplers[i].minFilter;
      if (f != -1 && f != TINYGLTF_TEXTURE_FILTER_NEAREST && f != TINYGLTF_TEXTURE_FILTER_LINEAR)
        warn("sampler " + std::to_string(i) + ": minFilter mipmapping ignored (level 0 sampled, magFilter's filter)");
    }
  }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(m_file.string(), what); }

  Mat4d local_matrix(const tinygltf::Node& n) const {
    Mat4d m = Mat4d::Identity();
    if (n.matrix.size() == 16) {
      for (int i = 0; i < 16; ++i) m(i % 4, i / 4) = n.matrix[size_t(i)];
      return m;
    }
    if (n.translation.size() == 3) m.block<3, 1>(0, 3) = Eigen::Vector3d(n.translation[0], n.translation[1], n.translation[2]);
    Eigen::Matrix3d rs = Eigen::Matrix3d::Identity();
    if (n.rotation.size() == 4)
      rs = Eigen::Quaterniond(n.rotation[3], n.rotation[0], n.rotation[1], n.rotation[2]).normalized().toRotationMatrix();
    if (n.scale.size() == 3) rs = rs * Eigen::Vector3d(n.scale[0], n.scale[1], n.scale[2]).asDiagonal();
    m.block<3, 3>(0, 0) = rs;
    return m;
  }

  void visit(int index, const Mat4d& parent, int depth) {
    if (index < 0 || index >= int(m_model.nodes.size())) fail("node " + std::to_string(index) + " does not exist");
    if (m_on_path.count(index)) fail("node " + std::to_string(index) + " is its own ancestor (the hierarchy has a cycle)");
    if (depth > 1000) fail("node hierarchy deeper than 1000");
    // A node reached along many paths is instanced once per path: shared children nest 2^depth
    // instances, so their total is capped (tools/doc/cli.md "Limits of input files").
    if (++m_instances > kMaxNodeInstances)
      fail("the node hierarchy instances more than " + std::to_string(kMaxNodeInstances) + " nodes (nodes shared along many paths)");
    m_on_path.insert(index);
    const tinygltf::Node& node = m_model.nodes[size_t(index)];
    const Mat4d world = parent * local_matrix(node);
    // The trace stores matrices as floats: a value beyond the float range would become infinite.
    if (!finite_as_float(world))
      fail("node " + std::to_string(index) + ": its transform (with its parents') is not finite as a float");
    const std::string node_name = node.name.empty() ? "node" + std::to_string(index) : node.name;
    if (node.mesh >= 0 && node.skin >= 0)
      warn(labelled("node", size_t(index), node.name) + ": skin " + std::to_string(node.skin) +
           " not applied (joints and weights ignored); drawn at its rest pose");
    if (node.mesh >= 0) add_mesh(node.mesh, world, node_name);
    if (node.camera >= 0) add_camera(node.camera, world);
    for (int c : node.children) visit(c, world, depth + 1);
    m_on_path.erase(index);
  }

  void add_camera(int index, const Mat4d& world) {
    if (index >= int(m_model.cameras.size())) fail("camera " + std::to_string(index) + " does not exist");
    const tinygltf::Camera& c = m_model.cameras[size_t(index)];
    Camera cam;
    // The camera looks down its local -z with +y up (glTF 2.0 3.10.1); scale is ignored.
    Mat4d rigid = world;
    for (int k = 0; k < 3; ++k) rigid.block<3, 1>(0, k).normalize();
    cam.view = rigid.inverse();
    if (c.type == "orthographic") {
      cam.perspective = false;
      cam.xmag = c.orthographic.xmag;
      cam.ymag = c.orthographic.ymag;
      cam.znear = c.orthographic.znear;
      cam.zfar = c.orthographic.zfar;
      if (cam.xmag == 0 || cam.ymag == 0 || !(cam.zfar > cam.znear)) fail("camera " + std::to_string(index) + ": bad orthographic parameters");
    } else {
      cam.yfov = c.perspective.yfov;
      cam.aspect = c.perspective.aspectRatio;
      cam.znear = c.perspective.znear;
      cam.zfar = c.perspective.zfar;
      if (!(cam.yfov > 0) || !(cam.znear > 0) || (cam.zfar != 0 && !(cam.zfar > cam.znear)))
        fail("camera " + std::to_string(index) + ": bad perspective parameters");
    }
    m_out.cameras.push_back(cam);
  }

  // One accessor as floats (`want` components per element; missing ones from `fill`), through its
  // buffer view with bounds checks. Normalized integers become 0..1 (glTF 2.0 3.11).
  std::vector<float> read_floats(int accessor_index, int want, float fill, const std::string& what) const {
    const tinygltf::Accessor& a = accessor(accessor_index, what);
    const int components = tinygltf::GetNumComponentsInType(uint32_t(a.type));
    if (components < 1 || components > 4) fail(what + ": accessor " + std::to_string(accessor_index) + " is not a vector");
    const uint8_t* base = nullptr;
    size_t stride = 0;
    const int size = element_bytes(a, components);
    locate(a, accessor_index, size, what, &base, &stride);
    std::vector<float> out(size_t(a.count) * size_t(want), fill);
    for (size_t i = 0; i < a.count; ++i) {
      const uint8_t* e = base + i * stride;
      for (int k = 0; k < std::min(components, want); ++k) {
        float v = 0;
        switch (a.componentType) {
          case TINYGLTF_COMPONENT_TYPE_FLOAT: std::memcpy(&v, e + 4 * k, 4); break;
          case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: v = e[k] / (a.normalized || what != "POSITION" ? 255.0f : 1.0f); break;
          case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: {
            uint16_t s;
            std::memcpy(&s, e + 2 * k, 2);
            v = s / (a.normalized || what != "POSITION" ? 65535.0f : 1.0f);
            break;
          }
          default: fail(what + ": accessor " + std::to_string(accessor_index) + " has an unsupported component type " + std::to_string(a.componentType));
        }
        if (!std::isfinite(v)) fail(what + ": accessor " + std::to_string(accessor_index) + " element " + std::to_string(i) + " is not finite");
        out[i * size_t(want) + size_t(k)] = v;
      }
    }
    return out;
  }

  std::vector<uint32_t> read_indices(int accessor_index) const {
    const tinygltf::Accessor& a = accessor(accessor_index, "indices");
    if (a.type != TINYGLTF_TYPE_SCALAR) fail("indices: accessor " + std::to_string(accessor_index) + " is not SCALAR");
    const uint8_t* base = nullptr;
    size_t stride = 0;
    locate(a, accessor_index, element_bytes(a, 1), "indices", &base, &stride);
    std::vector<uint32_t> out(a.count);
    for (size_t i = 0; i < a.count; ++i) {
      const uint8_t* e = base + i * stride;
      switch (a.componentType) {
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE: out[i] = e[0]; break;
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT: { uint16_t s; std::memcpy(&s, e, 2); out[i] = s; break; }
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT: std::memcpy(&out[i], e, 4); break;
        default: fail("indices: accessor " + std::to_string(accessor_index) + " has component type " + std::to_string(a.componentType) + " (expected an unsigned integer)");
      }
    }
    return out;
  }

  const tinygltf::Accessor& accessor(int index, const std::string& what) const {
    if (index < 0 || index >= int(m_model.accessors.size())) fail(what + ": accessor " + std::to_string(index) + " does not exist");
    const tinygltf::Accessor& a = m_model.accessors[size_t(index)];
    if (a.sparse.isSparse) fail(what + ": accessor " + std::to_string(index) + " is sparse (not supported)");
    return a;
  }

  int element_bytes(const tinygltf::Accessor& a, int components) const {
    const int c = tinygltf::GetComponentSizeInBytes(uint32_t(a.componentType));
    if (c <= 0) fail("accessor has an unknown component type " + std::to_string(a.componentType));
    return c * components;
  }

  void locate(const tinygltf::Accessor& a, int index, int size, const std::string& what, const uint8_t** base,
              size_t* stride) const {
    const std::string where = what + ": accessor " + std::to_string(index);
    if (a.bufferView < 0 || a.bufferView >= int(m_model.bufferViews.size())) fail(where + " has no valid bufferView");
    const tinygltf::BufferView& view = m_model.bufferViews[size_t(a.bufferView)];
    if (view.buffer < 0 || view.buffer >= int(m_model.buffers.size())) fail(where + ": its bufferView names no valid buffer");
    const std::vector<unsigned char>& data = m_model.buffers[size_t(view.buffer)].data;
    *stride = view.byteStride ? view.byteStride : size_t(size);
    // Checked: offsets and counts of 2^60 wrapped 64-bit arithmetic and passed the bounds check.
    size_t need = 0, view_end = 0;
    const bool wraps = a.count && (__builtin_mul_overflow(a.count - 1, *stride, &need) ||
                                   __builtin_add_overflow(need, size_t(size), &need) ||
                                   __builtin_add_overflow(need, a.byteOffset, &need));
    if (wraps || __builtin_add_overflow(view.byteOffset, view.byteLength, &view_end))
      fail(where + ": byteOffset, count and byteStride overflow 64 bits (far past the end of its buffer)");
    if (need > view.byteLength || view_end > data.size())
      fail(where + " reads past the end of its buffer (" + std::to_string(view.byteOffset) + " + " + std::to_string(need) +
           " > " + std::to_string(std::min(data.size(), view_end)) + " bytes)");
    *base = data.data() + view.byteOffset + a.byteOffset;
  }

  int texture(int texture_index, Material& mat) {
    if (texture_index < 0 || texture_index >= int(m_model.textures.size()))
      fail("texture " + std::to_string(texture_index) + " does not exist");
    const tinygltf::Texture& t = m_model.textures[size_t(texture_index)];
    if (t.sampler >= 0 && t.sampler < int(m_model.samplers.size())) {
      const tinygltf::Sampler& s = m_model.samplers[size_t(t.sampler)];
      mat.nearest = s.magFilter == TINYGLTF_TEXTURE_FILTER_NEAREST;
      auto address = [](int wrap) {
        return wrap == TINYGLTF_TEXTURE_WRAP_CLAMP_TO_EDGE ? "clamp_to_edge"
               : wrap == TINYGLTF_TEXTURE_WRAP_MIRRORED_REPEAT ? "mirrored_repeat" : "repeat";
      };
      mat.address = address(s.wrapS);
      if (s.wrapS != s.wrapT)
        warn("texture " + std::to_string(texture_index) + ": wrapT differs from wrapS; both use " + mat.address);
    }
    const int source = t.source;
    if (source < 0 || source >= int(m_model.images.size())) fail("texture " + std::to_string(texture_index) + " has no image");
    auto cached = m_texture_of_image.find(source);
    if (cached != m_texture_of_image.end()) return cached->second;
    const tinygltf::Image& img = m_model.images[size_t(source)];
    const std::string label = img.uri.empty() ? "image " + std::to_string(source) : "image \"" + img.uri + "\"";
    if (img.image.empty() || img.width <= 0 || img.height <= 0)
      fail(label + " (texture " + std::to_string(texture_index) + ") is missing or cannot be decoded");
    if (img.component < 1 || img.component > 4 || (img.bits != 8 && img.bits != 16))
      fail(label + ": unsupported pixel layout");
    Texture tex;
    tex.name = "image" + std::to_string(source);
    tex.width = uint32_t(img.width);
    tex.height = uint32_t(img.height);
    const size_t n = size_t(img.width) * size_t(img.height);
    const size_t bytes = size_t(img.bits / 8);
    if (img.image.size() < n * size_t(img.component) * bytes) fail(label + ": decoded size mismatch");
    tex.rgba.resize(n * 4);
    for (size_t i = 0; i < n; ++i) {
      uint8_t c[4] = {0, 0, 0, 255};
      for (int k = 0; k < img.component; ++k) {
        const size_t at = (i * size_t(img.component) + size_t(k)) * bytes;
        c[k] = bytes == 1 ? img.image[at] : uint8_t((img.image[at] | (img.image[at + 1] << 8)) >> 8);  // 16-bit: keep the high byte
      }
      if (img.component == 1) c[1] = c[2] = c[0];
      if (img.component == 2) { c[3] = c[1]; c[1] = c[2] = c[0]; }  // grey + alpha
      std::memcpy(&tex.rgba[i * 4], c, 4);
    }
    m_out.textures.push_back(std::move(tex));
    const int result = int(m_out.textures.size()) - 1;
    m_texture_of_image[source] = result;
    return result;
  }

  void warn(const std::string& w) {
    if (std::find(m_out.warnings.begin(), m_out.warnings.end(), w) == m_out.warnings.end()) m_out.warnings.push_back(w);
  }

  // Where the base color texture's coordinates come from: TEXCOORD_<texCoord> and, with
  // KHR_texture_transform, uv' = T(offset) x R(rotation) x S(scale) x (u, v, 1) (the extension's
  // README, Khronos glTF repository extensions/2.0/Khronos/KHR_texture_transform: scale, then a
  // counter-clockwise rotation about the origin, then the offset; its texCoord overrides the
  // textureInfo's). The transform is baked into the written uvs: a primitive has one material.
  struct UvSource {
    int set = 0;
    Eigen::Matrix3d transform = Eigen::Matrix3d::Identity();
  };

  UvSource uv_source(const tinygltf::TextureInfo& info, const std::string& where) const {
    UvSource uv;
    uv.set = info.texCoord;
    const auto ext = info.extensions.find("KHR_texture_transform");
    if (info.index < 0 || ext == info.extensions.end()) return uv;
    const tinygltf::Value& t = ext->second;
    const std::string field = where + ": KHR_texture_transform ";
    auto number = [&](const tinygltf::Value& v, const char* name) {
      if (!v.IsNumber() || !std::isfinite(v.GetNumberAsDouble())) fail(field + name + " is not a finite number");
      return v.GetNumberAsDouble();
    };
    auto pair = [&](const char* name, double fill) {
      if (!t.Has(name)) return Eigen::Vector2d(fill, fill);
      const tinygltf::Value& a = t.Get(name);
      if (!a.IsArray() || a.ArrayLen() != 2) fail(field + name + " is not an array of 2 numbers");
      return Eigen::Vector2d(number(a.Get(0), name), number(a.Get(1), name));
    };
    const Eigen::Vector2d offset = pair("offset", 0), scale = pair("scale", 1);
    const double rotation = t.Has("rotation") ? number(t.Get("rotation"), "rotation") : 0;
    if (t.Has("texCoord")) {
      const tinygltf::Value& c = t.Get("texCoord");
      if (!c.IsInt() || c.GetNumberAsInt() < 0) fail(field + "texCoord is not a non-negative integer");
      uv.set = c.GetNumberAsInt();
    }
    Eigen::Matrix3d translate = Eigen::Matrix3d::Identity(), rotate = Eigen::Matrix3d::Identity();
    translate.block<2, 1>(0, 2) = offset;
    rotate << std::cos(rotation), std::sin(rotation), 0, -std::sin(rotation), std::cos(rotation), 0, 0, 0, 1;
    uv.transform = translate * rotate * Eigen::Vector3d(scale[0], scale[1], 1).asDiagonal();
    return uv;
  }

  void read_material(int index, const Mesh& m, int uv_set, Material& mat, const std::string& where) {
    const tinygltf::Material& gm = m_model.materials[size_t(index)];
    const auto& f = gm.pbrMetallicRoughness.baseColorFactor;
    if (f.size() == 4) mat.base_color = {float(f[0]), float(f[1]), float(f[2]), float(f[3])};
    const auto& bct = gm.pbrMetallicRoughness.baseColorTexture;
    if (bct.index >= 0) {
      if (m.uvs.empty())
        warn(where + ": base color texture without TEXCOORD_" + std::to_string(uv_set) + "; drawn untextured");
      else
        mat.texture = texture(bct.index, mat);
    }
    if (gm.alphaMode == "MASK") mat.alpha_mode = AlphaMode::mask;
    else if (gm.alphaMode == "BLEND") mat.alpha_mode = AlphaMode::blend;
    else if (!gm.alphaMode.empty() && gm.alphaMode != "OPAQUE") fail(where + ": unknown alphaMode \"" + gm.alphaMode + "\"");
    mat.alpha_cutoff = float(gm.alphaCutoff);
    mat.double_sided = gm.doubleSided;
  }

  void add_mesh(int mesh_index, const Mat4d& world, const std::string& node_name) {
    if (mesh_index >= int(m_model.meshes.size())) fail("mesh " + std::to_string(mesh_index) + " does not exist");
    const tinygltf::Mesh& mesh = m_model.meshes[size_t(mesh_index)];
    for (size_t p = 0; p < mesh.primitives.size(); ++p) {
      const tinygltf::Primitive& prim = mesh.primitives[p];
      const std::string where = "mesh " + std::to_string(mesh_index) + " primitive " + std::to_string(p);
      if (prim.mode < -1 || prim.mode > TINYGLTF_MODE_TRIANGLE_FAN)
        fail(where + ": unknown primitive mode " + std::to_string(prim.mode) + " (" + mode_name(prim.mode) + ")");
      if (prim.material >= int(m_model.materials.size())) fail(where + ": material " + std::to_string(prim.material) + " does not exist");
      const UvSource uv = prim.material >= 0
          ? uv_source(m_model.materials[size_t(prim.material)].pbrMetallicRoughness.baseColorTexture, where) : UvSource{};
      const size_t mesh_slot = primitive_mesh(mesh_index, p, prim, where, uv);
      Material mat;
      if (prim.material >= 0) read_material(prim.material, m_out.meshes[mesh_slot], uv.set, mat, where);
      Draw d;
      d.name = node_name + (mesh.primitives.size() > 1 ? "/" + std::to_string(p) : "");
      d.mesh = mesh_slot;
      d.first_index = 0;
      d.index_count = uint32_t(m_out.meshes[mesh_slot].indices.size());
      d.model = world;
      d.material = mat;
      m_out.draws.push_back(d);
    }
  }

  // The primitive's texture coordinates (set uv.set, uv.transform applied in double precision).
  std::vector<float> read_uvs(const tinygltf::Primitive& prim, const UvSource& uv, size_t vertices, const std::string& where) const {
    const std::string name = "TEXCOORD_" + std::to_string(uv.set);
    const auto t = prim.attributes.find(name);
    if (t == prim.attributes.end()) return {};
    std::vector<float> uvs = read_floats(t->second, 2, 0, name);
    if (uvs.size() != vertices * 2) fail(where + ": " + name + " count differs from POSITION count");
    if (uv.transform.isIdentity()) return uvs;
    for (size_t i = 0; i < uvs.size(); i += 2) {
      const Eigen::Vector3d moved = uv.transform * Eigen::Vector3d(uvs[i], uvs[i + 1], 1);
      uvs[i] = float(moved[0]);
      uvs[i + 1] = float(moved[1]);
    }
    return uvs;
  }

  // The trace mesh of a primitive, shared by every node instancing it.
  size_t primitive_mesh(int mesh_index, size_t p, const tinygltf::Primitive& prim, const std::string& where, const UvSource& uv) {
    const auto key = std::make_pair(mesh_index, p);
    auto it = m_mesh_of_primitive.find(key);
    if (it != m_mesh_of_primitive.end()) return it->second;
    Mesh m;
    m.name = "mesh" + std::to_string(mesh_index) + "_" + std::to_string(p);
    const auto pos = prim.attributes.find("POSITION");
    if (pos == prim.attributes.end()) fail(where + ": no POSITION attribute");
    {
      const tinygltf::Accessor& a = accessor(pos->second, "POSITION");
      if (a.type != TINYGLTF_TYPE_VEC3 || a.componentType != TINYGLTF_COMPONENT_TYPE_FLOAT)
        fail(where + ": POSITION must be VEC3 of FLOAT");
    }
    m.positions = read_floats(pos->second, 3, 0, "POSITION");
    const size_t n = m.vertex_count();
    if (const auto c = prim.attributes.find("COLOR_0"); c != prim.attributes.end()) {
      m.colors = read_floats(c->second, 4, 1, "COLOR_0");
      if (m.colors.size() != n * 4) fail(where + ": COLOR_0 count differs from POSITION count");
    }
    m.uvs = read_uvs(prim, uv, n, where);
    if (const auto normal = prim.attributes.find("NORMAL"); normal != prim.attributes.end()) {
      m.normals = read_floats(normal->second, 3, 0, "NORMAL");
      if (m.normals.size() != n * 3) fail(where + ": NORMAL count differs from POSITION count");
    }
    if (!prim.targets.empty())
      warn(labelled("mesh", size_t(mesh_index), m_model.meshes[size_t(mesh_index)].name) +
           ": morph targets ignored (weights ignored); drawn with its base positions");
    std::vector<uint32_t> order;
    if (prim.indices >= 0) {
      order = read_indices(prim.indices);
    } else {
      order.resize(n);
      for (size_t i = 0; i < n; ++i) order[i] = uint32_t(i);
    }
    for (uint32_t i : order)
      if (i >= n) fail(where + ": index " + std::to_string(i) + " out of range (" + std::to_string(n) + " vertices)");
    const int mode = prim.mode == -1 ? TINYGLTF_MODE_TRIANGLES : prim.mode;
    if (mode == TINYGLTF_MODE_POINTS || mode == TINYGLTF_MODE_LINE || mode == TINYGLTF_MODE_LINE_LOOP ||
        mode == TINYGLTF_MODE_LINE_STRIP) {
      lines_or_points(mode, std::move(order), m, where);
    } else if (mode == TINYGLTF_MODE_TRIANGLES) {
      if (order.size() % 3) fail(where + ": TRIANGLES with " + std::to_string(order.size()) + " indices (not a multiple of 3)");
      m.indices = std::move(order);
    } else if (mode == TINYGLTF_MODE_TRIANGLE_STRIP) {
      // Every other triangle swaps its first two vertices, so all keep the strip's winding
      // (Vulkan 21.1.4: the order (i+1, i, i+2) for odd i; glTF uses the same convention).
      for (size_t i = 0; i + 2 < order.size(); ++i) {
        if (i % 2 == 0) m.indices.insert(m.indices.end(), {order[i], order[i + 1], order[i + 2]});
        else m.indices.insert(m.indices.end(), {order[i + 1], order[i], order[i + 2]});
      }
    } else {  // fan: (i+1, i+2, 0), the Vulkan order
      for (size_t i = 0; i + 2 < order.size(); ++i) m.indices.insert(m.indices.end(), {order[i + 1], order[i + 2], order[0]});
    }
    m_out.meshes.push_back(std::move(m));
    m_mesh_of_primitive[key] = m_out.meshes.size() - 1;
    return m_out.meshes.size() - 1;
  }

  // POINTS, LINES and LINE_STRIP as the trace's points, lines and line_strip; LINE_LOOP as lines,
  // its closing segment (last, first) appended (glTF 2.0 3.7.2.1, the primitive modes of OpenGL ES).
  void lines_or_points(int mode, std::vector<uint32_t> order, Mesh& m, const std::string& where) const {
    if (mode == TINYGLTF_MODE_POINTS) {
      m.topology = "points";
    } else if (mode == TINYGLTF_MODE_LINE_STRIP) {
      m.topology = "line_strip";
      if (order.size() < 2) fail(where + ": LINE_STRIP with " + std::to_string(order.size()) + " indices (fewer than 2)");
    } else if (mode == TINYGLTF_MODE_LINE) {
      m.topology = "lines";
      if (order.size() % 2) fail(where + ": LINES with " + std::to_string(order.size()) + " indices (not a multiple of 2)");
    } else {
      m.topology = "lines";
      if (order.size() < 2) fail(where + ": LINE_LOOP with " + std::to_string(order.size()) + " indices (fewer than 2)");
      std::vector<uint32_t> pairs;
      for (size_t i = 0; i < order.size(); ++i) pairs.insert(pairs.end(), {order[i], order[(i + 1) % order.size()]});
      order = std::move(pairs);
    }
    m.indices = std::move(order);
  }

  fs::path m_file;
  const tinygltf::Model& m_model;
  SceneBuilder& m_out;
  std::set<int> m_on_path;
  size_t m_instances = 0;  // nodes visited over every path (kMaxNodeInstances)
  std::map<std::pair<int, size_t>, size_t> m_mesh_of_primitive;
  std::map<int, int> m_texture_of_image;
};

}  // namespace

ImportSummary import_gltf(const fs::path& scene, const fs::path& trace_json, const ImportOptions& options) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string err, warn;
  std::string ext = scene.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  loader.SetImageLoader(&load_image_checked, &model);
  SceneFolder folder{scene.parent_path().empty() ? fs::path(".") : scene.parent_path(), ""};
  loader.SetFsCallbacks({&folder_file_exists, &same_path, &folder_read_file, &write_nothing, &folder});
  bool ok = false;
  if (ext == ".glb") {
    const std::vector<unsigned char> bytes = read_glb(scene);
    ok = loader.LoadBinaryFromMemory(&model, &err, &warn, bytes.data(), unsigned(bytes.size()), folder.dir.string());
  } else {
    // Read here (bounded, regular file) and scanned for nesting before tinygltf's recursive parser.
    const std::string text = read_input_file(scene, InputLimits::kTextBytes, scene.string());
    check_json_depth(text, scene.string());
    ok = loader.LoadASCIIFromString(&model, &err, &warn, text.data(), unsigned(text.size()), folder.dir.string());
  }
  if (!folder.refusal.empty()) throw InputError(scene.string(), folder.refusal);
  if (!ok)
    throw InputError(scene.string(), "malformed glTF: " + one_line_trimmed(without_json_exception_tags(err.empty() ? warn : err)));
  for (const std::string& required : model.extensionsRequired)
    if (!extension_carried(required)) throw InputError(scene.string(), "requires the unsupported extension " + required);
  SceneBuilder builder(scene);
  GltfReader reader(scene, model, builder);
  reader.read_scene();
  return builder.write(trace_json, options);
}

}  // namespace tbdr::import
