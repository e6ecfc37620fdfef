// make_scenes' shared vocabulary (common.h): JSON and file writing, Vulkan-convention matrices,
// and the builders of trace format v1 objects that several scene families use.
#include "tools/scenes/common.h"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image_write.h>
#pragma GCC diagnostic pop

namespace tbdr::scenes {

// ---- JSON writing with stable, readable formatting ---------------------------------------------

namespace {

// Six decimals are far below a pixel at 1920x1080 and keep the printed numbers short; -0 becomes 0
// so a sign bit of rounding noise never shows in the file.
double round6(double v) {
  double r = std::round(v * 1e6) / 1e6;
  return r == 0.0 ? 0.0 : r;
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

}  // namespace

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

// ---- trace format v1 objects ---------------------------------------------------------------------

Json trace_header(const std::string& name) {
  return {{"format", "tbdrsim-trace"}, {"version", 1}, {"name", name}};
}

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

Json program_json(const std::string& name, Json bindings, Json params) {
  Json p = {{"name", name}};
  if (!params.empty()) p["params"] = params;
  if (!bindings.empty()) p["bindings"] = bindings;
  return p;
}

// An image read by a post-processing program; clamp_to_edge so bilinear taps never wrap around.
Json image_binding(const std::string& image_name) { return {{"image", image_name}, {"address", "clamp_to_edge"}}; }

Json alpha_blend() {
  return {{"enable", true},         {"src_color", "src_alpha"}, {"dst_color", "one_minus_src_alpha"},
          {"color_op", "add"},      {"src_alpha", "one"},       {"dst_alpha", "one_minus_src_alpha"},
          {"alpha_op", "add"}};
}

Json blend_state(const char* src, const char* dst, const char* op) {
  return {{"enable", true}, {"src_color", src}, {"dst_color", dst}, {"color_op", op},
          {"src_alpha", src}, {"dst_alpha", dst}, {"alpha_op", op}};
}

// Indexed quad covering pixels [x0, x1) x [y0, y1) at depth z (counter-clockwise on screen).
Json rect_mesh(const std::string& name, const PixelSpace& s, double x0, double y0, double x1, double y1, double z,
               const std::vector<Vec4>& corner_colors) {
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

// One triangle in clip space (xyzw, w = 1) covering the whole viewport at depth z.
Json fullscreen_triangle_mesh(const std::string& name, double z) {
  return {{"name", name}, {"position_components", 4}, {"positions", nums({-1, -1, z, 1, 3, -1, z, 1, -1, 3, z, 1})}};
}

Json sized_image(const std::string& name, const std::string& format, int w, int h, std::initializer_list<const char*> usage,
                 int layers, int samples, bool transient) {
  Json i = image(name, format, w, h, usage);
  if (layers > 1) i["array_layers"] = layers;
  if (samples > 1) i["samples"] = samples;
  if (transient) i["transient"] = true;
  return i;
}

Json color_attachment(const std::string& image_name, const std::string& load, const std::string& store,
                      const std::string& old_layout, const std::string& new_layout, const std::vector<double>& clear) {
  Json a = {{"image", image_name}, {"load", load}, {"store", store}};
  if (clear.size()) a["clear"] = nums(clear);
  a["old_layout"] = old_layout;
  a["new_layout"] = new_layout;
  return a;
}

Json depth_attachment(const std::string& image_name, const std::string& load, const std::string& store,
                      const std::string& old_layout, const std::string& new_layout, int layer) {
  Json a = {{"image", image_name}};
  if (layer >= 0) a["layer"] = layer;
  a["load"] = load;
  a["store"] = store;
  if (load == "clear") a["clear"] = {{"depth", 1.0}, {"stencil", 0}};
  a["old_layout"] = old_layout;
  a["new_layout"] = new_layout;
  return a;
}

Json simple_draw(const std::string& name, const std::string& mesh, const Json& program, Json state,
                 Json transform) {
  Json d = {{"name", name}, {"mesh", mesh}};
  if (!transform.is_null()) d["transform"] = transform;
  if (!state.empty()) d["state"] = state;
  d["program"] = program;
  d["cost"] = cost(2, 0, program["name"] == "vertex_color" ? 4 : 0, 8);
  return d;
}

// A draw of the full-screen triangle: every pixel of the render area shaded once.
Json fullscreen_draw(const std::string& name, const Json& program, double texture_samples, Json state,
                     const std::string& mesh) {
  Json d = {{"name", name}, {"mesh", mesh}, {"transform", {{"clip_space", true}}}};
  if (!state.empty()) d["state"] = state;
  d["program"] = program;
  d["cost"] = cost(4, texture_samples, 0, 4);
  return d;
}

Json render_pass(const std::string& name, Json attachments, Json subpasses) {
  return {{"name", name}, {"type", "render"}, {"attachments", attachments}, {"subpasses", subpasses}};
}

Json single_subpass(Json draws, int depth) {
  Json s = {{"color", {0}}};
  if (depth >= 0) s["depth"] = depth;
  s["draws"] = draws;
  return s;
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


}  // namespace tbdr::scenes
