// refrender's shared pieces: small math, format and GL helpers, the trace resources and the Renderer
// class, whose members are defined in tools/refrender*.cpp (tools/refrender.cpp says what it does).
#pragma once

//   under *_MIPMAP_NEAREST, so llvmpipe picks the level per quad from its own derivatives.
#define GL_GLEXT_PROTOTYPES
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/glcorearb.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>


namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace refrender {


struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- small math --------------------------------------------------------------------------------

using Mat4 = std::array<float, 16>;  // column-major
inline Mat4 identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }
inline Mat4 mul(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) {
      float s = 0;
      for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
      r[size_t(c * 4 + row)] = s;
    }
  return r;
}
inline Mat4 mat_of(const Json& j) {
  Mat4 m{};
  for (size_t i = 0; i < 16; ++i) m[i] = j.at(i).get<float>();
  return m;
}
// The lit program's light direction made unit length, (0, 0, 1) for a zero vector (the rule of
// sim/programs.cpp unit_light_direction, written again).
inline std::array<float, 3> unit_or_z(const std::vector<float>& v) {
  const float length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(length > 0)) return {0, 0, 1};
  return {v[0] / length, v[1] / length, v[2] / length};
}

// Inverse transpose of the upper 3x3 (normal matrix), as a 3x3 column-major.
inline std::array<float, 9> normal_matrix(const Mat4& m) {
  const float a = m[0], b = m[4], c = m[8], d = m[1], e = m[5], f = m[9], g = m[2], h = m[6], i = m[10];
  const float A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
  const float D = -(b * i - c * h), E = a * i - c * g, F = -(a * h - b * g);
  const float G = b * f - c * e, H = -(a * f - c * d), I = a * e - b * d;
  const float det = a * A + b * B + c * C;
  const float s = det != 0 ? 1 / det : 0;
  // inverse = adj / det with adj = cofactor^T; inverse transpose = cofactor / det.
  // Row-major cofactor matrix [[A,B,C],[D,E,F],[G,H,I]] -> column-major storage.
  return {A * s, D * s, G * s, B * s, E * s, H * s, C * s, F * s, I * s};
}

// ---- formats -----------------------------------------------------------------------------------

struct FormatDesc {
  GLenum internal;
  int channels;  // color channels (1, 2, 4); 0 for depth/stencil
  bool is_float, depth, stencil;
};
inline FormatDesc format_desc(const std::string& f) {
  static const std::map<std::string, FormatDesc> table = {
      {"RGBA8", {GL_RGBA8, 4, false, false, false}},     {"BGRA8", {GL_RGBA8, 4, false, false, false}},
      {"RGBA16F", {GL_RGBA16F, 4, true, false, false}},  {"RGB10A2", {GL_RGB10_A2, 4, false, false, false}},
      {"RG16F", {GL_RG16F, 2, true, false, false}},      {"R32F", {GL_R32F, 1, true, false, false}},
      {"R8", {GL_R8, 1, false, false, false}},           {"RG8", {GL_RG8, 2, false, false, false}},
      {"RGBA32F", {GL_RGBA32F, 4, true, false, false}},  {"D16", {GL_DEPTH_COMPONENT16, 0, false, true, false}},
      {"D24S8", {GL_DEPTH24_STENCIL8, 0, false, true, true}}, {"D32F", {GL_DEPTH_COMPONENT32F, 0, false, true, false}},
      {"D32FS8", {GL_DEPTH32F_STENCIL8, 0, false, true, true}}, {"S8", {GL_STENCIL_INDEX8, 0, false, false, true}},
  };
  auto it = table.find(f);
  if (it == table.end()) throw std::runtime_error("unknown format " + f);
  return it->second;
}

// ---- GL helpers ----------------------------------------------------------------------------------

inline GLuint compile(GLenum type, const std::string& src) {
  GLuint s = glCreateShader(type);
  const char* p = src.c_str();
  glShaderSource(s, 1, &p, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[4096];
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("shader compile: ") + log + "\n" + src);
  }
  return s;
}
inline GLuint link(std::initializer_list<GLuint> shaders) {
  GLuint p = glCreateProgram();
  for (GLuint s : shaders) glAttachShader(p, s);
  glLinkProgram(p);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[4096];
    glGetProgramInfoLog(p, sizeof log, nullptr, log);
    throw std::runtime_error(std::string("program link: ") + log);
  }
  return p;
}

inline GLenum compare_op(const std::string& s) {
  static const std::map<std::string, GLenum> m = {{"never", GL_NEVER},   {"less", GL_LESS},
                                                  {"equal", GL_EQUAL},   {"less_or_equal", GL_LEQUAL},
                                                  {"greater", GL_GREATER}, {"not_equal", GL_NOTEQUAL},
                                                  {"greater_or_equal", GL_GEQUAL}, {"always", GL_ALWAYS}};
  return m.at(s);
}
inline GLenum stencil_op(const std::string& s) {
  static const std::map<std::string, GLenum> m = {
      {"keep", GL_KEEP}, {"zero", GL_ZERO}, {"replace", GL_REPLACE}, {"increment_and_clamp", GL_INCR},
      {"decrement_and_clamp", GL_DECR}, {"invert", GL_INVERT}, {"increment_and_wrap", GL_INCR_WRAP},
      {"decrement_and_wrap", GL_DECR_WRAP}};
  return m.at(s);
}
inline GLenum blend_factor(const std::string& s) {
  static const std::map<std::string, GLenum> m = {
      {"zero", GL_ZERO}, {"one", GL_ONE}, {"src_color", GL_SRC_COLOR}, {"one_minus_src_color", GL_ONE_MINUS_SRC_COLOR},
      {"dst_color", GL_DST_COLOR}, {"one_minus_dst_color", GL_ONE_MINUS_DST_COLOR}, {"src_alpha", GL_SRC_ALPHA},
      {"one_minus_src_alpha", GL_ONE_MINUS_SRC_ALPHA}, {"dst_alpha", GL_DST_ALPHA},
      {"one_minus_dst_alpha", GL_ONE_MINUS_DST_ALPHA}, {"constant_color", GL_CONSTANT_COLOR},
      {"one_minus_constant_color", GL_ONE_MINUS_CONSTANT_COLOR}, {"constant_alpha", GL_CONSTANT_ALPHA},
      {"one_minus_constant_alpha", GL_ONE_MINUS_CONSTANT_ALPHA}, {"src_alpha_saturate", GL_SRC_ALPHA_SATURATE}};
  return m.at(s);
}
inline GLenum blend_op(const std::string& s) {
  static const std::map<std::string, GLenum> m = {{"add", GL_FUNC_ADD}, {"subtract", GL_FUNC_SUBTRACT},
                                                  {"reverse_subtract", GL_FUNC_REVERSE_SUBTRACT},
                                                  {"min", GL_MIN}, {"max", GL_MAX}};
  return m.at(s);
}

inline std::string str(const Json& j, const char* key, const std::string& def) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : def;
}
inline int num(const Json& j, const char* key, int def) { return j.contains(key) && !j[key].is_null() ? j[key].get<int>() : def; }
inline bool flag(const Json& j, const char* key, bool def) { return j.contains(key) ? j[key].get<bool>() : def; }
inline std::vector<float> floats(const Json& j) {
  std::vector<float> v;
  if (j.is_number()) v.push_back(j.get<float>());
  else
    for (const auto& x : j) v.push_back(x.get<float>());
  return v;
}

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};
inline Rect rect_of(const Json& j) { return {j.at("x").get<int>(), j.at("y").get<int>(), j.at("width").get<int>(), j.at("height").get<int>()}; }
inline Rect intersect(const Rect& a, const Rect& b) {
  const int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
  const int x1 = std::min(a.x + a.w, b.x + b.w), y1 = std::min(a.y + a.h, b.y + b.h);
  return {x0, y0, std::max(0, x1 - x0), std::max(0, y1 - y0)};
}

// ---- dynamic rendering with local reads -------------------------------------------------------

// A PASS `rendering` (one dynamic-rendering scope whose draws read attachments at the same pixel:
// VK_KHR_dynamic_rendering_local_read or VK_EXT_shader_tile_image, traces/README.md "RENDERING") as
// subpasses GL can draw: one per draw, its color slots by fragment output location
// (`color_locations`, vkCmdSetRenderingAttachmentLocations; default attachment i at location i), its
// input attachments the attachments it reads (`local_reads`, vkCmdSetRenderingInputAttachmentIndices),
// the scope's depth attachment in each. Every subpass ends with glTextureBarrier, so each draw reads
// what the earlier ones wrote, as the scope's local-read barriers (or tile-image coherence) ensure.
inline Json rendering_subpasses(const Json& scope) {
  const Json color = scope.value("color", Json::array());
  Json subpasses = Json::array();
  for (const Json& d : scope.at("draws")) {
    Json slots = Json::array();
    for (size_t i = 0; i < color.size(); ++i) {
      const Json location = d.contains("color_locations") ? d["color_locations"].at(i) : Json(i);
      if (location.is_null()) continue;
      while (slots.size() <= location.get<size_t>()) slots.push_back(nullptr);
      slots[location.get<size_t>()] = color[i];
    }
    Json draw = d;
    for (const char* key : {"color_locations", "local_reads", "barrier_before"}) draw.erase(key);
    Json subpass = Json::object();
    subpass["color"] = slots;
    subpass["draws"] = std::vector<Json>{draw};
    if (scope.contains("depth")) subpass["depth"] = scope["depth"];
    if (d.contains("local_reads")) subpass["input"] = d["local_reads"];
    subpasses.push_back(subpass);
  }
  return subpasses;
}

// ---- trace resources ---------------------------------------------------------------------------

struct Image {
  std::string name, format;
  FormatDesc fmt;
  int width = 0, height = 0, samples = 1, mips = 1;
  bool transient = false;
  GLuint tex = 0;                // this view's layer
  std::vector<GLuint> layer_tex;  // array layers: one GL texture each (views select one)
  GLenum target = GL_TEXTURE_2D;
  int w(int mip) const { return std::max(1, width >> mip); }
  int h(int mip) const { return std::max(1, height >> mip); }
};

struct Texture {
  std::string name;
  int width = 0, height = 0;
  int levels = 1;  // > 1: "mip": "generate"
  GLuint tex = 0;
};

struct Mesh {
  std::string name, topology;
  GLuint vao = 0, ibo = 0;
  int vertex_count = 0, index_count = 0;
  bool has_color = false, has_uv = false, has_normal = false;
  int position_components = 3;
};

class Renderer {
 public:
  Renderer(const fs::path& trace_file, const fs::path& out) : m_file(trace_file), m_dir(trace_file.parent_path()), m_out(out) {
    std::ifstream in(trace_file);
    if (!in) throw std::runtime_error("cannot open " + trace_file.string());
    m_trace = Json::parse(in);
  }

  // `time` (--time): after a first run (which compiles the programs and writes the images), the
  // frames run again without image output and the seconds from the first draw submission to
  // glFinish are printed (tools/bench_llvmpipe).
  void run(bool time = false);

 private:
  // ---- set-up ----
  void init_gl();

  std::vector<uint8_t> read_file(const std::string& name);

  // RGBA float pixels of a PNG/JPEG, top row first (= GL row 0, see tools/refrender.cpp's header).
  std::vector<float> decode(const std::string& name, int* w, int* h, bool grey);

  void load_images();

  void clear_whole(const Image& im);

  void attach_only(const Image& im, int mip);

  static GLenum attachment_point(const Image& im);

  // Clears the attachment bound at draw buffer `slot` (color) or the depth/stencil attachment,
  // inside the current scissor.
  void clear_attachment(const Image& im, std::array<float, 4> color, float depth, int stencil, bool do_depth,
                        bool do_stencil, int slot = 0);

  void load_textures();

  template <typename T>
  std::vector<T> array_or_sidecar(const Json& j, size_t element_bytes);
  const std::vector<uint8_t>& cached_file(const std::string& name);

  void load_meshes();

  // ---- programs ----
  // One GL program per built-in program name (and a variant for clip-space positions).
  GLuint program_for(const std::string& name, bool clip_space);

  // ---- passes ----
  void run_pass(int frame, int index, const Json& pass);

  Image& image(const std::string& name) { return m_images.at(m_image_index.at(name)); }
  // The image as seen through one array layer (kept until the end of the pass).
  Image& image(const std::string& name, int layer);

  struct Attachment {
    Image* image;
    int mip;
    std::string load, store, stencil_load, stencil_store;
    std::array<float, 4> clear_color{0, 0, 0, 0};
    float clear_depth = 1;
    int clear_stencil = 0;
  };

  // Copy of an image level kept so that store: dont_care / none can put the old contents back.
  GLuint snapshot(const Image& im, int mip);

  void render_pass(int frame, int index, const Json& pass);

  void scissor(const Rect& r) { glScissor(r.x, r.y, r.w, r.h); }

  void bind_subpass_fbo(const Json& sp, const std::vector<Attachment>& atts, std::vector<int>* color_atts, int* depth_att);

  void subpass(const Json& sp, const std::vector<Attachment>& atts, const Rect& area);

  void subpass_clear(const Json& c, const std::vector<Attachment>& atts, const std::vector<int>& colors, int depth,
                     const Rect& area);

  void set_sampler_state(int unit, const std::string& filter, const std::string& address);

  // Binds sampler slot k to an image level or texture; sets the texel-fetch uniforms.
  void bind_sampler(GLuint prog, int k, GLuint tex, bool ms, int w, int h, int level, const std::string& filter,
                    const std::string& address, bool auto_lod = false);

  void set_program_uniforms(GLuint prog, const std::string& pname, const Json& params, const Json& state,
                            const std::vector<Attachment>& atts, const std::vector<int>& colors);
  void bind_program_inputs(GLuint prog, const std::string& pname, const Json& program, const std::vector<Attachment>& atts,
                           const std::vector<int>& inputs);
  void draw(const Json& d, const std::vector<Attachment>& atts, const std::vector<int>& colors, int depth_att,
            const std::vector<int>& inputs, const Rect& area);

  // ---- full-screen helper programs (resolve, blit, readback, compute) ----
  GLuint helper(const std::string& name, const std::string& body);

  void fullscreen_state(int w, int h, const Rect& gl_rect);

  // Average of the samples (color) into a single-sample image level, over a Vulkan rect.
  void average_samples(const Image& src, const Image& dst, int dst_mip, const Rect& r);

  Rect ref_region(const Json& ref, const Image& im);

  void copy_or_blit(int frame, int index, const Json& pass, bool blit);

  void resolve_pass(int frame, int index, const Json& pass);

  void compute_pass(int frame, int index, const Json& pass);

  // ---- PNG output (traces/README.md "Images written by run") ----
  static std::string sanitize(const std::string& s);
  static uint8_t to_byte(float v) { return uint8_t(std::nearbyint(std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 1.0f) * 255.0f)); }

  // Float RGBA (color, samples averaged) or depth (sample 0) or stencil of an image level, top row first.
  std::vector<float> read_level(const Image& im, int mip, int channels_out);

  bool m_skip_output = false;  // --time's second run writes no images

  void write_png(int frame, int pass_index, const std::string& pass_name, const std::string& slot, const Image& im,
                 int mip, const Rect& region);

  fs::path m_file, m_dir, m_out;
  Json m_trace, m_overrides;
  std::vector<Image> m_images;
  std::deque<Image> m_views;  // per-layer views of m_images (stable addresses)
  std::map<std::string, size_t> m_image_index, m_texture_index, m_mesh_index;
  std::vector<Texture> m_textures;
  std::vector<Mesh> m_meshes;
  std::map<std::string, std::vector<uint8_t>> m_files;
  std::map<std::string, GLuint> m_programs, m_samplers;
  GLint m_max_samples = 1;
  GLuint m_fbo = 0, m_fbo2 = 0, m_empty_vao = 0;
  int m_fb_w = 1, m_fb_h = 1;
};

}  // namespace refrender
