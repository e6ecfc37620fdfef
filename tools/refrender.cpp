// refrender: an independent reference renderer for tbdrsim traces (format v1, traces/README.md) on
// Mesa llvmpipe through EGL surfaceless and a desktop GL 4.5 core context. It reads the trace JSON
// itself (nlohmann-json, stb_image) and links nothing from sim/ or frontend/: vertices are
// transformed and clipped by GL in a GLSL vertex shader, every built-in program is written again in
// GLSL, and the stored images are written as PNGs named as `tbdrsim run` names them.
//
//   refrender TRACE.json --out DIR
//
// Conventions:
// - glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE): z in 0..1 as in Vulkan, and Vulkan's framebuffer
//   row y is GL's row y (= memory row y), so viewports, scissors, regions, image contents and
//   texture coordinates go to GL unchanged and images are read back without a flip. Clip y = -1
//   lands on row 0, which is Vulkan's top row, because the PNG rows are written from row 0.
//   GL_UPPER_LEFT was tried first: it puts clip y = -1 on the last memory
//   row, so every image must be flipped, and then llvmpipe's 4x sample pattern (GL_SAMPLE_POSITION
//   (0.375, 0.125), (0.875, 0.375), (0.125, 0.625), (0.625, 0.875), offsets along increasing
//   memory rows, i.e. the Vulkan standard locations in memory space) lands mirrored in y relative
//   to Vulkan's: edge pixels of 4x MSAA differed (96.8% identical on msaa_inline_resolve). Without
//   the flip the sample locations coincide with Vulkan's standard ones.
// - Facing: Vulkan's area a = -1/2 sum(x_i y_i+1 - x_i+1 y_i) in y-down framebuffer space is positive
//   for counter-clockwise; GL's area has no minus sign, so on the same pixels the signs are opposite:
//   Vulkan's counter_clockwise is glFrontFace(GL_CW) and clockwise is GL_CCW.
// - Same-pixel reads (input attachments, copy/mix/composite/tonemap/...) are texelFetch at the
//   pixel's own coordinate in a later draw (GL cannot read an attachment it is writing).
// - A `rendering` scope's local reads (VK_KHR_dynamic_rendering_local_read, VK_EXT_shader_tile_image)
//   are such reads too: the scope becomes one subpass per draw (rendering_subpasses).
// - A per-tile draw (DRAW `per_tile`, VK_QCOM_tile_shading) is drawn once over the render area: run
//   once per tile with the tile as its area, it covers the same pixels once each.
//
// Not supported (refused with exit code 3 "unsupported", listed in tests/refrender_test.cpp):
// 2x and 8x MSAA (llvmpipe here reports GL_MAX_SAMPLES 4), depth_resolve. Array layers are separate
// GL textures (every use in a trace names one layer).
// - Material textures with "mip": "generate" get the chain tbdrsim generates (its rule written again
//   here: integer 2x2 box of 8-bit codes), uploaded level by level, and are sampled with texture()
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

namespace {

struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// ---- small math --------------------------------------------------------------------------------

using Mat4 = std::array<float, 16>;  // column-major
Mat4 identity() { return {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}; }
Mat4 mul(const Mat4& a, const Mat4& b) {
  Mat4 r{};
  for (int c = 0; c < 4; ++c)
    for (int row = 0; row < 4; ++row) {
      float s = 0;
      for (int k = 0; k < 4; ++k) s += a[size_t(k * 4 + row)] * b[size_t(c * 4 + k)];
      r[size_t(c * 4 + row)] = s;
    }
  return r;
}
Mat4 mat_of(const Json& j) {
  Mat4 m{};
  for (size_t i = 0; i < 16; ++i) m[i] = j.at(i).get<float>();
  return m;
}
// The lit program's light direction made unit length, (0, 0, 1) for a zero vector (the rule of
// sim/programs.cpp unit_light_direction, written again).
std::array<float, 3> unit_or_z(const std::vector<float>& v) {
  const float length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(length > 0)) return {0, 0, 1};
  return {v[0] / length, v[1] / length, v[2] / length};
}

// Inverse transpose of the upper 3x3 (normal matrix), as a 3x3 column-major.
std::array<float, 9> normal_matrix(const Mat4& m) {
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
FormatDesc format_desc(const std::string& f) {
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

GLuint compile(GLenum type, const std::string& src) {
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
GLuint link(std::initializer_list<GLuint> shaders) {
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

GLenum compare_op(const std::string& s) {
  static const std::map<std::string, GLenum> m = {{"never", GL_NEVER},   {"less", GL_LESS},
                                                  {"equal", GL_EQUAL},   {"less_or_equal", GL_LEQUAL},
                                                  {"greater", GL_GREATER}, {"not_equal", GL_NOTEQUAL},
                                                  {"greater_or_equal", GL_GEQUAL}, {"always", GL_ALWAYS}};
  return m.at(s);
}
GLenum stencil_op(const std::string& s) {
  static const std::map<std::string, GLenum> m = {
      {"keep", GL_KEEP}, {"zero", GL_ZERO}, {"replace", GL_REPLACE}, {"increment_and_clamp", GL_INCR},
      {"decrement_and_clamp", GL_DECR}, {"invert", GL_INVERT}, {"increment_and_wrap", GL_INCR_WRAP},
      {"decrement_and_wrap", GL_DECR_WRAP}};
  return m.at(s);
}
GLenum blend_factor(const std::string& s) {
  static const std::map<std::string, GLenum> m = {
      {"zero", GL_ZERO}, {"one", GL_ONE}, {"src_color", GL_SRC_COLOR}, {"one_minus_src_color", GL_ONE_MINUS_SRC_COLOR},
      {"dst_color", GL_DST_COLOR}, {"one_minus_dst_color", GL_ONE_MINUS_DST_COLOR}, {"src_alpha", GL_SRC_ALPHA},
      {"one_minus_src_alpha", GL_ONE_MINUS_SRC_ALPHA}, {"dst_alpha", GL_DST_ALPHA},
      {"one_minus_dst_alpha", GL_ONE_MINUS_DST_ALPHA}, {"constant_color", GL_CONSTANT_COLOR},
      {"one_minus_constant_color", GL_ONE_MINUS_CONSTANT_COLOR}, {"constant_alpha", GL_CONSTANT_ALPHA},
      {"one_minus_constant_alpha", GL_ONE_MINUS_CONSTANT_ALPHA}, {"src_alpha_saturate", GL_SRC_ALPHA_SATURATE}};
  return m.at(s);
}
GLenum blend_op(const std::string& s) {
  static const std::map<std::string, GLenum> m = {{"add", GL_FUNC_ADD}, {"subtract", GL_FUNC_SUBTRACT},
                                                  {"reverse_subtract", GL_FUNC_REVERSE_SUBTRACT},
                                                  {"min", GL_MIN}, {"max", GL_MAX}};
  return m.at(s);
}

std::string str(const Json& j, const char* key, const std::string& def) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : def;
}
int num(const Json& j, const char* key, int def) { return j.contains(key) && !j[key].is_null() ? j[key].get<int>() : def; }
bool flag(const Json& j, const char* key, bool def) { return j.contains(key) ? j[key].get<bool>() : def; }
std::vector<float> floats(const Json& j) {
  std::vector<float> v;
  if (j.is_number()) v.push_back(j.get<float>());
  else
    for (const auto& x : j) v.push_back(x.get<float>());
  return v;
}

struct Rect {
  int x = 0, y = 0, w = 0, h = 0;
};
Rect rect_of(const Json& j) { return {j.at("x").get<int>(), j.at("y").get<int>(), j.at("width").get<int>(), j.at("height").get<int>()}; }
Rect intersect(const Rect& a, const Rect& b) {
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
Json rendering_subpasses(const Json& scope) {
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
  void run(bool time = false) {
    init_gl();
    load_images();
    load_textures();
    load_meshes();
    const Json& frames = m_trace.at("frames");
    for (int round = 0; round < (time ? 2 : 1); ++round) {
      m_skip_output = round == 1;
      glFinish();
      const auto start = std::chrono::steady_clock::now();
      Json passes;
      for (size_t f = 0; f < frames.size(); ++f) {
        if (frames[f].contains("passes")) passes = frames[f]["passes"];
        m_overrides = frames[f].value("overrides", Json::object());
        for (size_t p = 0; p < passes.size(); ++p) run_pass(int(f), int(p), passes[p]);
      }
      glFinish();
      if (round == 1)
        std::printf("refrender: draw-to-finish %.6f s\n",
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }

 private:
  // ---- set-up ----
  void init_gl() {
    auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!get_display) throw std::runtime_error("EGL: eglGetPlatformDisplayEXT missing");
    EGLDisplay display = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
    if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr))
      throw std::runtime_error("EGL: no surfaceless display (EGL_MESA_platform_surfaceless)");
    eglBindAPI(EGL_OPENGL_API);
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5, EGL_CONTEXT_OPENGL_PROFILE_MASK,
                              EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
    if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
      throw std::runtime_error("EGL: cannot create a GL 4.5 core context");
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);  // why not GL_UPPER_LEFT: see the file header
    glGetIntegerv(GL_MAX_SAMPLES, &m_max_samples);
    glGenFramebuffers(1, &m_fbo);
    glGenFramebuffers(1, &m_fbo2);
    glGenVertexArrays(1, &m_empty_vao);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glEnable(GL_FRAMEBUFFER_SRGB);
    glDisable(GL_FRAMEBUFFER_SRGB);
    glDisable(GL_DITHER);  // GL enables dithering by default; Vulkan has none
    glEnable(GL_SCISSOR_TEST);
  }

  std::vector<uint8_t> read_file(const std::string& name) {
    std::ifstream in(m_dir / name, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + (m_dir / name).string());
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

  // RGBA float pixels of a PNG/JPEG, top row first (= GL row 0, see the file header).
  std::vector<float> decode(const std::string& name, int* w, int* h, bool grey) {
    const std::vector<uint8_t> data = read_file(name);
    const bool sixteen = stbi_is_16_bit_from_memory(data.data(), int(data.size()));
    int c = 0;
    const int want = grey ? 1 : 4;
    std::vector<float> px;
    if (sixteen) {
      stbi_us* p = stbi_load_16_from_memory(data.data(), int(data.size()), w, h, &c, want);
      if (!p) throw std::runtime_error("cannot decode " + name);
      px.resize(size_t(*w) * size_t(*h) * size_t(want));
      for (int y = 0; y < *h; ++y)
        for (int i = 0; i < *w * want; ++i)
          px[size_t(y) * size_t(*w * want) + size_t(i)] = p[size_t(y) * size_t(*w * want) + size_t(i)] / 65535.0f;
      stbi_image_free(p);
    } else {
      stbi_uc* p = stbi_load_from_memory(data.data(), int(data.size()), w, h, &c, want);
      if (!p) throw std::runtime_error("cannot decode " + name);
      px.resize(size_t(*w) * size_t(*h) * size_t(want));
      for (int y = 0; y < *h; ++y)
        for (int i = 0; i < *w * want; ++i)
          px[size_t(y) * size_t(*w * want) + size_t(i)] = p[size_t(y) * size_t(*w * want) + size_t(i)] / 255.0f;
      stbi_image_free(p);
    }
    return px;
  }

  void load_images() {
    for (const Json& j : m_trace.at("images")) {
      Image im;
      im.name = j.at("name");
      im.format = j.at("format");
      im.fmt = format_desc(im.format);
      im.width = j.at("width");
      im.height = j.at("height");
      im.samples = num(j, "samples", 1);
      im.mips = num(j, "mip_levels", 1);
      im.transient = flag(j, "transient", false);
      if (im.samples > m_max_samples || (im.samples != 1 && im.samples != 4))
        throw Unsupported("image " + im.name + ": " + std::to_string(im.samples) + "x MSAA (llvmpipe offers 1x and 4x)");
      // Array layers are separate GL textures: every use names one layer (attachment, binding,
      // copy region), and a trace never samples a whole array.
      for (int layer = 0; layer < num(j, "array_layers", 1); ++layer) {
        glGenTextures(1, &im.tex);
        im.layer_tex.push_back(im.tex);
        if (im.samples > 1) {
          im.target = GL_TEXTURE_2D_MULTISAMPLE;
          glBindTexture(im.target, im.tex);
          glTexStorage2DMultisample(im.target, im.samples, im.fmt.internal, im.width, im.height, GL_TRUE);
        } else {
          glBindTexture(GL_TEXTURE_2D, im.tex);
          glTexStorage2D(GL_TEXTURE_2D, im.mips, im.fmt.internal, im.width, im.height);
          glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, im.mips - 1);
        }
        // Pixels never written read as zero (traces/README.md "Execution rules").
        clear_whole(im);
      }
      im.tex = im.layer_tex[0];
      for (const Json& c : j.value("contents", Json::array())) {
        const int mip = num(c, "mip", 0);
        int w = 0, h = 0;
        const std::vector<float> px = decode(c.at("file"), &w, &h, im.fmt.depth);
        glBindTexture(GL_TEXTURE_2D, im.layer_tex.at(size_t(num(c, "layer", 0))));
        if (im.fmt.depth)
          glTexSubImage2D(GL_TEXTURE_2D, mip, 0, 0, w, h, GL_DEPTH_COMPONENT, GL_FLOAT, px.data());
        else
          glTexSubImage2D(GL_TEXTURE_2D, mip, 0, 0, w, h, GL_RGBA, GL_FLOAT, px.data());
      }
      m_image_index[im.name] = m_images.size();
      m_images.push_back(im);
    }
  }

  void clear_whole(const Image& im) {
    for (int mip = 0; mip < (im.samples > 1 ? 1 : im.mips); ++mip) {
      attach_only(im, mip);
      glScissor(0, 0, im.w(mip), im.h(mip));
      clear_attachment(im, {0, 0, 0, 0}, 0.0f, 0, true, true);
    }
  }

  void attach_only(const Image& im, int mip) {
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo2);
    glFramebufferTexture(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, 0, 0);
    glFramebufferTexture(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, 0, 0);
    glFramebufferTexture(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, 0, 0);
    glFramebufferTexture(GL_FRAMEBUFFER, GL_STENCIL_ATTACHMENT, 0, 0);
    glFramebufferTexture(GL_FRAMEBUFFER, attachment_point(im), im.tex, mip);
    if (!im.fmt.depth && !im.fmt.stencil) {
      const GLenum b = GL_COLOR_ATTACHMENT0;
      glDrawBuffers(1, &b);
    } else {
      glDrawBuffer(GL_NONE);
    }
  }

  static GLenum attachment_point(const Image& im) {
    if (im.fmt.depth && im.fmt.stencil) return GL_DEPTH_STENCIL_ATTACHMENT;
    if (im.fmt.depth) return GL_DEPTH_ATTACHMENT;
    if (im.fmt.stencil) return GL_STENCIL_ATTACHMENT;
    return GL_COLOR_ATTACHMENT0;
  }

  // Clears the attachment bound at draw buffer `slot` (color) or the depth/stencil attachment,
  // inside the current scissor.
  void clear_attachment(const Image& im, std::array<float, 4> color, float depth, int stencil, bool do_depth,
                        bool do_stencil, int slot = 0) {
    glColorMaski(GLuint(slot), GL_TRUE, GL_TRUE, GL_TRUE, GL_TRUE);
    glDepthMask(GL_TRUE);
    glStencilMask(0xff);
    if (!im.fmt.depth && !im.fmt.stencil) {
      if (!im.fmt.is_float)
        for (float& c : color) c = std::clamp(c, 0.0f, 1.0f);
      glClearBufferfv(GL_COLOR, slot, color.data());
      return;
    }
    if (im.fmt.depth && im.fmt.stencil && do_depth && do_stencil) glClearBufferfi(GL_DEPTH_STENCIL, 0, depth, stencil);
    else if (im.fmt.depth && do_depth) glClearBufferfv(GL_DEPTH, 0, &depth);
    else if (im.fmt.stencil && do_stencil) glClearBufferiv(GL_STENCIL, 0, &stencil);
    if (im.fmt.depth && im.fmt.stencil && !do_depth && do_stencil) glClearBufferiv(GL_STENCIL, 0, &stencil);
  }

  void load_textures() {
    for (const Json& j : m_trace.value("textures", Json::array())) {
      Texture t;
      t.name = j.at("name");
      std::vector<float> px = decode(j.at("file"), &t.width, &t.height, false);
      glGenTextures(1, &t.tex);
      glBindTexture(GL_TEXTURE_2D, t.tex);
      // Stored as 8-bit RGBA as tbdrsim keeps the decoded channels; level 0 only unless "mip":
      // "generate" (traces/README.md "Execution rules").
      const bool mipmapped = j.value("mip", std::string("none")) == "generate";
      if (mipmapped) t.levels = 1 + int(std::floor(std::log2(double(std::max(t.width, t.height)))));
      glTexStorage2D(GL_TEXTURE_2D, t.levels, GL_RGBA8, t.width, t.height);
      glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, t.width, t.height, GL_RGBA, GL_FLOAT, px.data());
      glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, t.levels - 1);
      // Levels 1..: each texel the rounded mean of the 2x2 block's 8-bit codes, (a + b + c + d + 2) / 4,
      // the block's coordinates clamped to the level above (sim/programs.cpp generate_mip_chain).
      std::vector<int> codes(px.size());
      for (size_t i = 0; i < px.size(); ++i) codes[i] = int(std::lround(std::clamp(px[i], 0.0f, 1.0f) * 255.0f));
      int w = t.width, h = t.height;
      for (int level = 1; level < t.levels; ++level) {
        const int nw = std::max(1, w / 2), nh = std::max(1, h / 2);
        std::vector<int> next(size_t(nw) * size_t(nh) * 4);
        std::vector<uint8_t> bytes(next.size());
        for (int y = 0; y < nh; ++y)
          for (int x = 0; x < nw; ++x)
            for (int c = 0; c < 4; ++c) {
              auto at = [&](int xx, int yy) { return codes[(size_t(std::min(yy, h - 1)) * size_t(w) + size_t(std::min(xx, w - 1))) * 4 + size_t(c)]; };
              const int v = (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) + at(2 * x + 1, 2 * y + 1) + 2) / 4;
              next[(size_t(y) * size_t(nw) + size_t(x)) * 4 + size_t(c)] = v;
              bytes[(size_t(y) * size_t(nw) + size_t(x)) * 4 + size_t(c)] = uint8_t(v);
            }
        glTexSubImage2D(GL_TEXTURE_2D, level, 0, 0, nw, nh, GL_RGBA, GL_UNSIGNED_BYTE, bytes.data());
        codes = std::move(next);
        w = nw;
        h = nh;
      }
      m_texture_index[t.name] = m_textures.size();
      m_textures.push_back(t);
    }
  }

  template <typename T>
  std::vector<T> array_or_sidecar(const Json& j, size_t element_bytes) {
    std::vector<T> out;
    if (j.is_array()) {
      for (const auto& x : j) out.push_back(x.get<T>());
      return out;
    }
    const std::vector<uint8_t>& data = cached_file(j.at("file"));
    const size_t offset = j.at("offset"), count = j.at("count");
    if (offset + count * element_bytes > data.size()) throw std::runtime_error("sidecar range outside the file");
    out.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (element_bytes == 2) {
        uint16_t v;
        std::memcpy(&v, &data[offset + 2 * i], 2);
        out[i] = T(v);
      } else {
        std::memcpy(&out[i], &data[offset + 4 * i], 4);
      }
    }
    return out;
  }
  const std::vector<uint8_t>& cached_file(const std::string& name) {
    auto it = m_files.find(name);
    if (it == m_files.end()) it = m_files.emplace(name, read_file(name)).first;
    return it->second;
  }

  void load_meshes() {
    for (const Json& j : m_trace.value("meshes", Json::array())) {
      Mesh m;
      m.name = j.at("name");
      m.topology = str(j, "topology", "triangle_list");
      m.position_components = num(j, "position_components", 3);
      const std::vector<float> pos = array_or_sidecar<float>(j.at("positions"), 4);
      m.vertex_count = int(pos.size()) / m.position_components;
      glGenVertexArrays(1, &m.vao);
      glBindVertexArray(m.vao);
      auto attribute = [&](GLuint location, const std::vector<float>& data, int components) {
        GLuint vbo;
        glGenBuffers(1, &vbo);
        glBindBuffer(GL_ARRAY_BUFFER, vbo);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(data.size() * 4), data.data(), GL_STATIC_DRAW);
        glEnableVertexAttribArray(location);
        glVertexAttribPointer(location, components, GL_FLOAT, GL_FALSE, 0, nullptr);
      };
      attribute(0, pos, m.position_components);
      // Absent attributes: constant vertex attributes (color 1, uv 0, normal (0, 0, 1)).
      if (j.contains("colors")) { attribute(1, array_or_sidecar<float>(j["colors"], 4), 4); m.has_color = true; }
      else glVertexAttrib4f(1, 1, 1, 1, 1);
      if (j.contains("uvs")) { attribute(2, array_or_sidecar<float>(j["uvs"], 4), 2); m.has_uv = true; }
      else glVertexAttrib4f(2, 0, 0, 0, 1);
      if (j.contains("normals")) { attribute(3, array_or_sidecar<float>(j["normals"], 4), 3); m.has_normal = true; }
      else glVertexAttrib4f(3, 0, 0, 1, 0);
      if (j.contains("indices")) {
        const size_t bytes = num(j, "index_bits", 32) == 16 ? 2 : 4;
        const std::vector<uint32_t> idx = array_or_sidecar<uint32_t>(j["indices"], bytes);
        glGenBuffers(1, &m.ibo);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, m.ibo);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(idx.size() * 4), idx.data(), GL_STATIC_DRAW);
        m.index_count = int(idx.size());
      }
      glBindVertexArray(0);
      m_mesh_index[m.name] = m_meshes.size();
      m_meshes.push_back(m);
    }
  }

  // ---- programs ----
  // One GL program per built-in program name (and a variant for clip-space positions).
  GLuint program_for(const std::string& name, bool clip_space) {
    const std::string key = name + (clip_space ? "#clip" : "");
    auto it = m_programs.find(key);
    if (it != m_programs.end()) return it->second;
    const std::string vs = std::string("#version 450 core\n") + (clip_space ? "#define CLIP_SPACE\n" : "") + R"(
layout(location = 0) in vec4 a_position;
layout(location = 1) in vec4 a_color;
layout(location = 2) in vec2 a_uv;
layout(location = 3) in vec3 a_normal;
uniform mat4 u_mvp;
uniform mat3 u_normal_matrix;
out vec4 v_color;
out vec2 v_uv;
out vec3 v_normal;
void main() {
#ifdef CLIP_SPACE
  gl_Position = a_position;
#else
  gl_Position = u_mvp * vec4(a_position.xyz, 1.0);
#endif
  v_color = a_color;
  v_uv = a_uv;
  v_normal = u_normal_matrix * a_normal;
}
)";
    std::string fs = "#version 450 core\n#define PROGRAM_" + name + "\n" + R"(
in vec4 v_color;
in vec2 v_uv;
in vec3 v_normal;
layout(location = 0) out vec4 o0;
layout(location = 1) out vec4 o1;
layout(location = 2) out vec4 o2;
layout(location = 3) out vec4 o3;
layout(location = 4) out vec4 o4;
layout(location = 5) out vec4 o5;
layout(location = 6) out vec4 o6;
layout(location = 7) out vec4 o7;
uniform vec4 u_color;          // flat: color; others: tint
uniform float u_cutoff;
uniform bool u_discard;
uniform vec4 u_scalar;         // intensity/exposure/weight, bloom_strength
uniform mat4 u_inv_view_proj;
uniform vec4 u_lights[8];      // 4 x (position, radius), (color, 0)
uniform vec3 u_ambient;
uniform vec3 u_light_dir;      // lit: unit vector toward the directional light (world space)
uniform vec3 u_light_color;
uniform vec2 u_fb_size;        // framebuffer width, height
uniform int u_slots;
// Samplers 0..3 (binding order of the program's table); each with its texel size, wrap mode
// (0 repeat, 1 clamp_to_edge, 2 mirrored_repeat), bound flag and level.
uniform sampler2D s0, s1, s2, s3;
uniform sampler2DMS m0, m1, m2;
uniform bool u_ms[4];
uniform ivec2 u_size[4];
uniform int u_wrap[4];
uniform bool u_bound[4];
uniform int u_level[4];
uniform bool u_auto_lod[4];  // a mipmapped material texture: GL picks the level per quad
uniform int u_fb_height_px;

// Vulkan pixel (x, y down) of this fragment: GL row y is Vulkan row y (see the file header).
ivec2 vk_pixel() { return ivec2(gl_FragCoord.xy); }

int wrap_coord(int i, int size, int mode) {
  if (mode == 1) return clamp(i, 0, size - 1);
  if (mode == 0) { int m = i % size; return m < 0 ? m + size : m; }
  int period = 2 * size; int m = i % period; if (m < 0) m += period;
  return m < size ? m : period - 1 - m;
}
// Texel (tx, ty) of sampler k; multisampled: sample 0.
vec4 texel(int k, int tx, int ty) {
  ivec2 size = u_size[k];
  tx = wrap_coord(tx, size.x, u_wrap[k]);
  ty = wrap_coord(ty, size.y, u_wrap[k]);
  ivec2 p = ivec2(tx, ty);
  if (u_ms[k]) {
    if (k == 0) return texelFetch(m0, p, 0);
    if (k == 1) return texelFetch(m1, p, 0);
    return texelFetch(m2, p, 0);
  }
  if (k == 0) return texelFetch(s0, p, u_level[k]);
  if (k == 1) return texelFetch(s1, p, u_level[k]);
  if (k == 2) return texelFetch(s2, p, u_level[k]);
  return texelFetch(s3, p, u_level[k]);
}
// GL's own filtering (sampler object state: nearest/linear, wrap) at Vulkan (u, v).
vec4 sample_gl(int k, vec2 uv) {
  vec2 st = uv;  // texture row 0 is the image's top row, as the trace's v = 0
  float lod = float(u_level[k]);
  if (u_auto_lod[k]) {
    if (k == 0) return texture(s0, st);
    if (k == 1) return texture(s1, st);
    if (k == 2) return texture(s2, st);
    return texture(s3, st);
  }
  if (k == 0) return textureLod(s0, st, lod);
  if (k == 1) return textureLod(s1, st, lod);
  if (k == 2) return textureLod(s2, st, lod);
  return textureLod(s3, st, lod);
}
vec2 pixel_uv() { ivec2 p = vk_pixel(); return (vec2(p) + 0.5) / u_fb_size; }
vec4 fetch_at_pixel(int k) { vec2 uv = pixel_uv(); return texel(k, int(floor(uv.x * float(u_size[k].x))), int(floor(uv.y * float(u_size[k].y)))); }
vec4 bilinear_at_pixel(int k) { return sample_gl(k, pixel_uv()); }

vec4 deferred_lighting(vec4 albedo, vec4 enc, float depth) {
  vec3 n = enc.xyz * 2.0 - 1.0;
  float len = length(n);
  if (len > 0.0) n /= len;
  vec2 uv = pixel_uv();
  vec4 h = u_inv_view_proj * vec4(uv.x * 2.0 - 1.0, uv.y * 2.0 - 1.0, depth, 1.0);
  vec3 world = h.xyz / h.w;
  vec3 light = u_ambient;
  for (int i = 0; i < 4; ++i) {
    vec3 lp = u_lights[2 * i].xyz; float radius = u_lights[2 * i].w; vec3 lc = u_lights[2 * i + 1].xyz;
    if (radius <= 0.0) continue;
    vec3 to_light = lp - world;
    float d = length(to_light);
    if (d <= 0.0 || d >= radius) continue;
    float ndl = max(0.0, dot(n, to_light) / d);
    float f = (1.0 - d / radius) * (1.0 - d / radius);
    light += lc * (ndl * f);
  }
  return vec4(albedo.rgb * light, 1.0);
}

// 16-bit float targets: llvmpipe converts shader outputs to half by truncation (checked: 97 of 192
// test values came back rounded toward zero); traces/README.md says round to nearest even, so the
// value is rounded here first (then exactly representable, untouched by the truncation).
uniform int u_half_mask;  // bit k: color slot k is a 16-bit float format
float half_rtne(float f) {
  uint u = floatBitsToUint(f);
  uint e = (u >> 23) & 0xffu;
  if (e == 0xffu) return f;
  if (e < 113u) return roundEven(f * 16777216.0) / 16777216.0;  // half subnormals: steps of 2^-24
  u += 0xfffu + ((u >> 13) & 1u);                              // ties to even on the 13 dropped bits
  return uintBitsToFloat(u & ~0x1fffu);
}
vec4 out_value(int slot, vec4 c) {
  if ((u_half_mask & (1 << slot)) == 0) return c;
  return vec4(half_rtne(c.x), half_rtne(c.y), half_rtne(c.z), half_rtne(c.w));
}
void write_all(vec4 c) {
  o0 = out_value(0, c); o1 = out_value(1, c); o2 = out_value(2, c); o3 = out_value(3, c);
  o4 = out_value(4, c); o5 = out_value(5, c); o6 = out_value(6, c); o7 = out_value(7, c);
}

void main() {
  vec4 color;
#if defined(PROGRAM_flat)
  color = u_color;
#elif defined(PROGRAM_vertex_color)
  color = v_color * u_color;
#elif defined(PROGRAM_lit)
  // sim/programs.cpp directional_lighting: albedo x (ambient + light_color x max(0, n . l)).
  vec4 albedo = v_color * u_color;
  vec3 n = v_normal; float len = length(n);
  n = len > 0.0 ? n / len : vec3(0.0, 0.0, 1.0);
  color = vec4(albedo.rgb * (u_ambient + u_light_color * max(0.0, dot(n, u_light_dir))), albedo.a);
#elif defined(PROGRAM_textured)
  color = sample_gl(0, v_uv) * v_color * u_color;
#elif defined(PROGRAM_gbuffer)
  color = v_color * u_color;
  if (u_bound[0]) color = sample_gl(0, v_uv) * color;
  if (u_discard && color.a < u_cutoff) discard;
  vec3 n = v_normal; float len = length(n);
  n = len > 0.0 ? n / len : vec3(0.0, 0.0, 1.0);
  write_all(color);
  o1 = out_value(1, vec4(n * 0.5 + 0.5, 1.0));
  return;
#elif defined(PROGRAM_deferred_light) || defined(PROGRAM_deferred_light_sampled)
  color = deferred_lighting(fetch_at_pixel(0), fetch_at_pixel(1), fetch_at_pixel(2).x);
#elif defined(PROGRAM_downsample_2x2)
  color = bilinear_at_pixel(0) * u_color;
#elif defined(PROGRAM_upsample_add)
  color = bilinear_at_pixel(0) * u_scalar.x;
  if (u_bound[1]) color += fetch_at_pixel(1);
#elif defined(PROGRAM_tonemap)
  vec4 c = fetch_at_pixel(0);
  if (u_bound[1]) c += bilinear_at_pixel(1) * u_scalar.y;
  c *= u_scalar.x;
  color = vec4(c.rgb / (1.0 + c.rgb), 1.0);
#elif defined(PROGRAM_copy)
  color = fetch_at_pixel(0) * u_color;
#elif defined(PROGRAM_mix)
  color = fetch_at_pixel(0) * (1.0 - u_scalar.x) + fetch_at_pixel(1) * u_scalar.x;
#elif defined(PROGRAM_composite)
  vec4 base = fetch_at_pixel(0), over = fetch_at_pixel(1);
  color = over + base * (1.0 - over.a);
#else
#error unknown program
#endif
  if (u_discard && color.a < u_cutoff) discard;
  write_all(color);
}
)";
    GLuint p = link({compile(GL_VERTEX_SHADER, vs), compile(GL_FRAGMENT_SHADER, fs)});
    glUseProgram(p);
    const char* names[] = {"s0", "s1", "s2", "s3", "m0", "m1", "m2"};
    for (int i = 0; i < 7; ++i) glUniform1i(glGetUniformLocation(p, names[i]), i);
    m_programs[key] = p;
    return p;
  }

  // ---- passes ----
  void run_pass(int frame, int index, const Json& pass) {
    const std::string type = str(pass, "type", "render");
    if (type == "render") render_pass(frame, index, pass);
    else if (type == "copy" || type == "blit") copy_or_blit(frame, index, pass, type == "blit");
    else if (type == "resolve") resolve_pass(frame, index, pass);
    else if (type == "compute") compute_pass(frame, index, pass);
    else if (type == "barrier") glMemoryBarrier(GL_ALL_BARRIER_BITS);
    else throw std::runtime_error("unknown pass type " + type);
    glTextureBarrier();
    m_views.clear();
  }

  Image& image(const std::string& name) { return m_images.at(m_image_index.at(name)); }
  // The image as seen through one array layer (kept until the end of the pass).
  Image& image(const std::string& name, int layer) {
    Image& im = image(name);
    if (layer == 0) return im;
    if (layer < 0 || size_t(layer) >= im.layer_tex.size()) throw std::runtime_error("layer out of range");
    m_views.push_back(im);
    m_views.back().tex = im.layer_tex[size_t(layer)];
    return m_views.back();
  }

  struct Attachment {
    Image* image;
    int mip;
    std::string load, store, stencil_load, stencil_store;
    std::array<float, 4> clear_color{0, 0, 0, 0};
    float clear_depth = 1;
    int clear_stencil = 0;
  };

  // Copy of an image level kept so that store: dont_care / none can put the old contents back.
  GLuint snapshot(const Image& im, int mip) {
    GLuint t;
    glGenTextures(1, &t);
    if (im.samples > 1) {
      glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, t);
      glTexStorage2DMultisample(GL_TEXTURE_2D_MULTISAMPLE, im.samples, im.fmt.internal, im.w(mip), im.h(mip), GL_TRUE);
      glCopyImageSubData(im.tex, im.target, 0, 0, 0, 0, t, GL_TEXTURE_2D_MULTISAMPLE, 0, 0, 0, 0, im.w(mip), im.h(mip), 1);
    } else {
      glBindTexture(GL_TEXTURE_2D, t);
      glTexStorage2D(GL_TEXTURE_2D, 1, im.fmt.internal, im.w(mip), im.h(mip));
      glCopyImageSubData(im.tex, GL_TEXTURE_2D, mip, 0, 0, 0, t, GL_TEXTURE_2D, 0, 0, 0, 0, im.w(mip), im.h(mip), 1);
    }
    return t;
  }

  void render_pass(int frame, int index, const Json& pass) {
    std::vector<Attachment> atts;
    for (const Json& a : pass.at("attachments")) {
      Attachment at;
      at.image = &image(a.at("image"), num(a, "layer", 0));
      at.mip = num(a, "mip", 0);
      at.load = str(a, "load", "dont_care");
      at.store = str(a, "store", "store");
      at.stencil_load = str(a, "stencil_load", "dont_care");
      at.stencil_store = str(a, "stencil_store", "dont_care");
      if (a.contains("clear")) {
        const Json& c = a["clear"];
        if (c.is_array()) for (size_t i = 0; i < 4; ++i) at.clear_color[i] = c.at(i).get<float>();
        else { at.clear_depth = c.value("depth", 1.0f); at.clear_stencil = c.value("stencil", 0); }
      }
      atts.push_back(at);
    }
    const int fw = atts.at(0).image->w(atts[0].mip), fh = atts[0].image->h(atts[0].mip);
    m_fb_w = fw;
    m_fb_h = fh;
    const Rect area = pass.contains("render_area") ? rect_of(pass["render_area"]) : Rect{0, 0, fw, fh};

    // Snapshots for attachments whose contents must survive the pass (store: dont_care / none
    // leaves DRAM as it was). For depth/stencil both aspects count.
    std::vector<GLuint> saved(atts.size(), 0);
    for (size_t i = 0; i < atts.size(); ++i) {
      const Attachment& a = atts[i];
      const bool ds = a.image->fmt.depth || a.image->fmt.stencil;
      const bool stored = a.store == "store" || (ds && a.image->fmt.stencil && a.stencil_store == "store");
      if (!stored && !a.image->transient) saved[i] = snapshot(*a.image, a.mip);
    }

    // Load ops over the render area: clear, or zero for dont_care / none (fixed undefined value).
    for (const Attachment& a : atts) {
      attach_only(*a.image, a.mip);
      scissor(area);
      const bool ds = a.image->fmt.depth || a.image->fmt.stencil;
      if (!ds) {
        if (a.load == "clear") clear_attachment(*a.image, a.clear_color, 0, 0, false, false);
        else if (a.load != "load") clear_attachment(*a.image, {0, 0, 0, 0}, 0, 0, false, false);
        continue;
      }
      const bool depth_aspect = a.image->fmt.depth;
      const bool stencil_aspect = a.image->fmt.stencil;
      if (depth_aspect && a.load != "load") clear_attachment(*a.image, {}, a.load == "clear" ? a.clear_depth : 0.0f, 0, true, false);
      if (stencil_aspect && a.stencil_load != "load")
        clear_attachment(*a.image, {}, 0, a.stencil_load == "clear" ? a.clear_stencil : 0, false, true);
    }

    const Json subpasses = pass.contains("rendering") ? rendering_subpasses(pass["rendering"]) : pass.at("subpasses");
    for (const Json& sp : subpasses) subpass(sp, atts, area);

    // Store ops, then the PNGs of stored attachments.
    for (size_t i = 0; i < atts.size(); ++i) {
      const Attachment& a = atts[i];
      if (saved[i]) {
        const Image& im = *a.image;
        const bool ds = im.fmt.depth || im.fmt.stencil;
        // A depth/stencil image whose one aspect is stored: keep that aspect, restore the other
        // (only whole-aspect restores are supported: D24S8 with mixed ops restores both).
        (void)ds;
        if (im.samples > 1)
          glCopyImageSubData(saved[i], GL_TEXTURE_2D_MULTISAMPLE, 0, 0, 0, 0, im.tex, im.target, 0, 0, 0, 0, im.w(a.mip), im.h(a.mip), 1);
        else
          glCopyImageSubData(saved[i], GL_TEXTURE_2D, 0, 0, 0, 0, im.tex, GL_TEXTURE_2D, a.mip, 0, 0, 0, im.w(a.mip), im.h(a.mip), 1);
        glDeleteTextures(1, &saved[i]);
      }
    }
    for (size_t i = 0; i < atts.size(); ++i) {
      const Attachment& a = atts[i];
      const bool stored = a.store == "store" || (a.image->fmt.stencil && a.stencil_store == "store");
      if (stored && !a.image->transient) write_png(frame, index, str(pass, "name", ""), "att" + std::to_string(i), *a.image, a.mip, area);
    }
  }

  void scissor(const Rect& r) { glScissor(r.x, r.y, r.w, r.h); }

  void bind_subpass_fbo(const Json& sp, const std::vector<Attachment>& atts, std::vector<int>* color_atts, int* depth_att) {
    glBindFramebuffer(GL_FRAMEBUFFER, m_fbo);
    for (int i = 0; i < 8; ++i) glFramebufferTexture(GL_FRAMEBUFFER, GLenum(GL_COLOR_ATTACHMENT0 + i), 0, 0);
    glFramebufferTexture(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, 0, 0);
    glFramebufferTexture(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, 0, 0);
    glFramebufferTexture(GL_FRAMEBUFFER, GL_STENCIL_ATTACHMENT, 0, 0);
    std::vector<GLenum> bufs;
    color_atts->clear();
    if (sp.contains("color"))
      for (const Json& c : sp["color"]) {
        const int slot = int(bufs.size());
        if (c.is_null()) {
          bufs.push_back(GL_NONE);
          color_atts->push_back(-1);
          continue;
        }
        const Attachment& a = atts.at(c.get<size_t>());
        glFramebufferTexture(GL_FRAMEBUFFER, GLenum(GL_COLOR_ATTACHMENT0 + slot), a.image->tex, a.mip);
        bufs.push_back(GLenum(GL_COLOR_ATTACHMENT0 + slot));
        color_atts->push_back(c.get<int>());
      }
    *depth_att = sp.contains("depth") && !sp["depth"].is_null() ? sp["depth"].get<int>() : -1;
    if (*depth_att >= 0) {
      const Attachment& a = atts.at(size_t(*depth_att));
      glFramebufferTexture(GL_FRAMEBUFFER, attachment_point(*a.image), a.image->tex, a.mip);
    }
    if (bufs.empty()) glDrawBuffer(GL_NONE);
    else glDrawBuffers(GLsizei(bufs.size()), bufs.data());
    // With no color attachment, GL needs the default size of the framebuffer.
    glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_WIDTH, m_fb_w);
    glFramebufferParameteri(GL_FRAMEBUFFER, GL_FRAMEBUFFER_DEFAULT_HEIGHT, m_fb_h);
    const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
    if (status != GL_FRAMEBUFFER_COMPLETE) throw std::runtime_error("incomplete framebuffer " + std::to_string(status));
  }

  void subpass(const Json& sp, const std::vector<Attachment>& atts, const Rect& area) {
    std::vector<int> colors;
    int depth = -1;
    bind_subpass_fbo(sp, atts, &colors, &depth);
    std::vector<int> inputs;
    for (const Json& i : sp.value("input", Json::array())) inputs.push_back(i.is_null() ? -1 : i.get<int>());
    const Json draws = sp.value("draws", Json::array());
    const Json clears = sp.value("clears", Json::array());
    for (size_t d = 0; d <= draws.size(); ++d) {
      for (const Json& c : clears)
        if (c.value("before_draw", 0) == int(d)) subpass_clear(c, atts, colors, depth, area);
      if (d < draws.size()) draw(draws[d], atts, colors, depth, inputs, area);
    }
    if (sp.contains("depth_resolve") && !sp["depth_resolve"].is_null()) throw Unsupported("depth_resolve");
    // Inline resolve at the end of the subpass: the average of the samples, over the render area.
    if (sp.contains("resolve"))
      for (size_t i = 0; i < sp["resolve"].size(); ++i) {
        if (sp["resolve"][i].is_null() || i >= colors.size() || colors[i] < 0) continue;
        const Attachment& src = atts[size_t(colors[i])];
        const Attachment& dst = atts.at(sp["resolve"][i].get<size_t>());
        average_samples(*src.image, *dst.image, dst.mip, area);
      }
    glTextureBarrier();
    bind_subpass_fbo(sp, atts, &colors, &depth);
  }

  void subpass_clear(const Json& c, const std::vector<Attachment>& atts, const std::vector<int>& colors, int depth,
                     const Rect& area) {
    std::vector<Rect> rects;
    for (const Json& r : c.value("rects", Json::array())) rects.push_back(intersect(rect_of(r), area));
    if (rects.empty()) rects.push_back(area);
    const Json& value = c.at("value");
    for (const Rect& r : rects) {
      scissor(r);
      for (const Json& slot : c.value("color", Json::array())) {
        const int s = slot.get<int>();
        if (s >= int(colors.size()) || colors[size_t(s)] < 0) continue;
        std::array<float, 4> v{};
        for (size_t k = 0; k < 4; ++k) v[k] = value.at(k).get<float>();
        clear_attachment(*atts[size_t(colors[size_t(s)])].image, v, 0, 0, false, false, s);
      }
      const bool cd = c.value("depth", false), cs = c.value("stencil", false);
      if ((cd || cs) && depth >= 0)
        clear_attachment(*atts[size_t(depth)].image, {}, value.value("depth", 1.0f), value.value("stencil", 0), cd, cs);
    }
  }

  void set_sampler_state(int unit, const std::string& filter, const std::string& address) {
    GLuint s;
    const std::string key = filter + "/" + address;
    auto it = m_samplers.find(key);
    if (it == m_samplers.end()) {
      glGenSamplers(1, &s);
      const GLint f = filter == "nearest" ? GL_NEAREST : GL_LINEAR;
      const GLint mf = filter == "nearest" ? GL_NEAREST_MIPMAP_NEAREST : GL_LINEAR_MIPMAP_NEAREST;
      glSamplerParameteri(s, GL_TEXTURE_MAG_FILTER, f);
      glSamplerParameteri(s, GL_TEXTURE_MIN_FILTER, mf);
      const GLint w = address == "clamp_to_edge" ? GL_CLAMP_TO_EDGE : address == "mirrored_repeat" ? GL_MIRRORED_REPEAT : GL_REPEAT;
      glSamplerParameteri(s, GL_TEXTURE_WRAP_S, w);
      glSamplerParameteri(s, GL_TEXTURE_WRAP_T, w);
      it = m_samplers.emplace(key, s).first;
    }
    glBindSampler(GLuint(unit), it->second);
  }

  // Binds sampler slot k to an image level or texture; sets the texel-fetch uniforms.
  void bind_sampler(GLuint prog, int k, GLuint tex, bool ms, int w, int h, int level, const std::string& filter,
                    const std::string& address, bool auto_lod = false) {
    const int unit = ms ? 4 + k : k;
    glActiveTexture(GLenum(GL_TEXTURE0 + unit));
    glBindTexture(ms ? GL_TEXTURE_2D_MULTISAMPLE : GL_TEXTURE_2D, tex);
    if (!ms) set_sampler_state(unit, filter, address);
    // Appended piecewise: GCC 12 warns falsely (-Wrestrict, GCC bug 105329) on "literal" + string.
    std::string idx = "[";
    idx += std::to_string(k);
    idx += "]";
    glUniform1i(glGetUniformLocation(prog, ("u_ms" + idx).c_str()), ms);
    glUniform2i(glGetUniformLocation(prog, ("u_size" + idx).c_str()), w, h);
    glUniform1i(glGetUniformLocation(prog, ("u_wrap" + idx).c_str()),
                address == "clamp_to_edge" ? 1 : address == "mirrored_repeat" ? 2 : 0);
    glUniform1i(glGetUniformLocation(prog, ("u_bound" + idx).c_str()), 1);
    glUniform1i(glGetUniformLocation(prog, ("u_level" + idx).c_str()), level);
    glUniform1i(glGetUniformLocation(prog, ("u_auto_lod" + idx).c_str()), auto_lod);
  }

  void draw(const Json& d, const std::vector<Attachment>& atts, const std::vector<int>& colors, int depth_att,
            const std::vector<int>& inputs, const Rect& area) {
    const Mesh& mesh = m_meshes.at(m_mesh_index.at(d.at("mesh").get<std::string>()));
    const Json* ov = nullptr;
    if (d.contains("name") && m_overrides.contains(d["name"].get<std::string>())) ov = &m_overrides[d["name"].get<std::string>()];
    Json transform = d.value("transform", Json::object());
    if (ov && ov->contains("transform")) transform = (*ov)["transform"];
    const bool clip_space = transform.value("clip_space", false);
    Json program = d.value("program", Json{{"name", "flat"}});
    const std::string pname = program.value("name", "flat");
    Json params = program.value("params", Json::object());
    if (ov && ov->contains("params"))
      for (auto& [k, v] : (*ov)["params"].items()) params[k] = v;
    const GLuint prog = program_for(pname, clip_space);
    glUseProgram(prog);

    Mat4 model = identity(), mvp = identity();
    if (transform.contains("mvp")) mvp = mat_of(transform["mvp"]);
    else {
      const Mat4 view = transform.contains("view") ? mat_of(transform["view"]) : identity();
      const Mat4 proj = transform.contains("proj") ? mat_of(transform["proj"]) : identity();
      if (transform.contains("model")) model = mat_of(transform["model"]);
      mvp = mul(mul(proj, view), model);
    }
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_mvp"), 1, GL_FALSE, mvp.data());
    const auto nm = normal_matrix(model);
    glUniformMatrix3fv(glGetUniformLocation(prog, "u_normal_matrix"), 1, GL_FALSE, nm.data());

    auto param = [&](const char* key, std::vector<float> def) {
      return params.contains(key) ? floats(params[key]) : def;
    };
    const auto color = param(pname == "flat" ? "color" : "tint", {1, 1, 1, 1});
    glUniform4f(glGetUniformLocation(prog, "u_color"), color[0], color[1], color[2], color[3]);
    glUniform1f(glGetUniformLocation(prog, "u_cutoff"), param("alpha_cutoff", {0.5f})[0]);
    const Json state = d.value("state", Json::object());
    glUniform1i(glGetUniformLocation(prog, "u_discard"), state.value("discard", false));
    float scalar0 = 1;
    if (pname == "upsample_add") scalar0 = param("intensity", {1})[0];
    if (pname == "tonemap") scalar0 = param("exposure", {1})[0];
    if (pname == "mix") scalar0 = param("weight", {0.5f})[0];
    glUniform4f(glGetUniformLocation(prog, "u_scalar"), scalar0, param("bloom_strength", {0.04f})[0], 0, 0);
    const auto ivp = param("inv_view_proj", {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    glUniformMatrix4fv(glGetUniformLocation(prog, "u_inv_view_proj"), 1, GL_FALSE, ivp.data());
    std::vector<float> lights = param("lights", {0, 4, 0, 1, 1, 1, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});
    float packed[32] = {};
    for (int i = 0; i < 4; ++i) {
      const float* l = &lights[size_t(7 * i)];
      float* p = &packed[8 * i];
      p[0] = l[0]; p[1] = l[1]; p[2] = l[2]; p[3] = l[6]; p[4] = l[3]; p[5] = l[4]; p[6] = l[5];
    }
    glUniform4fv(glGetUniformLocation(prog, "u_lights"), 8, packed);
    const float lit_ambient = 0.25f;  // the lit program's defaults (sim/programs.cpp)
    const auto amb = pname == "lit" ? param("ambient", {lit_ambient, lit_ambient, lit_ambient, 0}) : param("ambient", {0.1f, 0.1f, 0.1f, 0});
    glUniform3f(glGetUniformLocation(prog, "u_ambient"), amb[0], amb[1], amb[2]);
    const auto light_direction = unit_or_z(param("light_direction", {0.3f, 0.8f, 0.5f, 0}));
    glUniform3f(glGetUniformLocation(prog, "u_light_dir"), light_direction[0], light_direction[1], light_direction[2]);
    const auto light_color = param("light_color", {0.75f, 0.75f, 0.75f, 0});
    glUniform3f(glGetUniformLocation(prog, "u_light_color"), light_color[0], light_color[1], light_color[2]);
    glUniform2f(glGetUniformLocation(prog, "u_fb_size"), float(m_fb_w), float(m_fb_h));
    glUniform1i(glGetUniformLocation(prog, "u_fb_height_px"), m_fb_h);
    int half_mask = 0;
    for (size_t slot = 0; slot < colors.size(); ++slot)
      if (colors[slot] >= 0) {
        const std::string& f = atts[size_t(colors[slot])].image->format;
        if (f == "RGBA16F" || f == "RG16F") half_mask |= 1 << slot;
      }
    glUniform1i(glGetUniformLocation(prog, "u_half_mask"), half_mask);
    for (const char* bound : {"u_bound[0]", "u_bound[1]", "u_bound[2]", "u_bound[3]"})
      glUniform1i(glGetUniformLocation(prog, bound), 0);

    // Bindings, in the order of the program's table (sim/programs.cpp).
    static const std::map<std::string, std::vector<std::string>> slots = {
        {"textured", {"texture"}}, {"gbuffer", {"texture"}}, {"deferred_light_sampled", {"albedo", "normal", "depth"}},
        {"downsample_2x2", {"source"}}, {"upsample_add", {"low", "high"}}, {"tonemap", {"hdr", "bloom"}},
        {"copy", {"source"}}, {"mix", {"base", "over"}}, {"composite", {"base", "over"}}};
    if (auto it = slots.find(pname); it != slots.end()) {
      const Json bindings = program.value("bindings", Json::object());
      for (size_t k = 0; k < it->second.size(); ++k) {
        if (!bindings.contains(it->second[k])) continue;
        const Json& b = bindings[it->second[k]];
        std::string filter = str(b, "filter", "nearest");
        const std::string address = str(b, "address", "repeat");  // the reader's defaults
        // These slots are read only by bilinear_at_pixel, which filters bilinearly whatever the
        // binding says (sim/programs.cpp: downsample_2x2 source, upsample_add low, tonemap bloom).
        if ((pname == "downsample_2x2" && k == 0) || (pname == "upsample_add" && k == 0) || (pname == "tonemap" && k == 1))
          filter = "bilinear";
        if (b.contains("texture")) {
          const Texture& t = m_textures.at(m_texture_index.at(b["texture"].get<std::string>()));
          bind_sampler(prog, int(k), t.tex, false, t.width, t.height, 0, filter, address, t.levels > 1);
        } else {
          const Image& im = image(b.at("image"), num(b, "layer", 0));
          const int mip = num(b, "mip", 0);
          bind_sampler(prog, int(k), im.tex, im.samples > 1, im.w(mip), im.h(mip), mip, filter, address);
        }
      }
    }
    if (pname == "deferred_light")
      for (size_t k = 0; k < 3 && k < inputs.size(); ++k) {
        if (inputs[k] < 0) continue;
        const Attachment& a = atts[size_t(inputs[k])];
        bind_sampler(prog, int(k), a.image->tex, a.image->samples > 1, a.image->w(a.mip), a.image->h(a.mip), a.mip,
                     "nearest", "clamp_to_edge");
      }

    // Fixed-function state.
    const std::string cull = str(state, "cull", "none");
    if (cull == "none") glDisable(GL_CULL_FACE);
    else {
      glEnable(GL_CULL_FACE);
      glCullFace(cull == "front" ? GL_FRONT : cull == "back" ? GL_BACK : GL_FRONT_AND_BACK);
    }
    // Vulkan's area has a leading minus that GL's lacks: the winding names swap (file header).
    glFrontFace(str(state, "front_face", "counter_clockwise") == "clockwise" ? GL_CCW : GL_CW);
    const bool depth_test = state.value("depth_test", false) && depth_att >= 0 && atts[size_t(depth_att)].image->fmt.depth;
    if (depth_test) glEnable(GL_DEPTH_TEST);
    else glDisable(GL_DEPTH_TEST);
    glDepthMask(state.value("depth_write", false) ? GL_TRUE : GL_FALSE);
    glDepthFunc(compare_op(str(state, "depth_compare", "less")));
    const bool stencil_test = state.value("stencil_test", false) && depth_att >= 0 && atts[size_t(depth_att)].image->fmt.stencil;
    if (stencil_test) {
      glEnable(GL_STENCIL_TEST);
      for (const auto& [key, face] : {std::pair<const char*, GLenum>{"stencil_front", GL_FRONT}, {"stencil_back", GL_BACK}}) {
        const Json s = state.value(key, Json::object());
        glStencilFuncSeparate(face, compare_op(str(s, "compare_op", "always")), num(s, "reference", 0), GLuint(num(s, "compare_mask", 255)));
        glStencilOpSeparate(face, stencil_op(str(s, "fail_op", "keep")), stencil_op(str(s, "depth_fail_op", "keep")),
                            stencil_op(str(s, "pass_op", "keep")));
        glStencilMaskSeparate(face, GLuint(num(s, "write_mask", 255)));
      }
    } else {
      glDisable(GL_STENCIL_TEST);
    }
    const Json blends = state.value("blend", Json::array());
    for (size_t slot = 0; slot < 8; ++slot) {
      const Json b = slot < blends.size() ? blends[slot] : Json::object();
      if (b.value("enable", false)) {
        glEnablei(GL_BLEND, GLuint(slot));
        glBlendFuncSeparatei(GLuint(slot), blend_factor(str(b, "src_color", "one")), blend_factor(str(b, "dst_color", "zero")),
                             blend_factor(str(b, "src_alpha", "one")), blend_factor(str(b, "dst_alpha", "zero")));
        glBlendEquationSeparatei(GLuint(slot), blend_op(str(b, "color_op", "add")), blend_op(str(b, "alpha_op", "add")));
      } else {
        glDisablei(GL_BLEND, GLuint(slot));
      }
      const std::string mask = str(b, "write_mask", "rgba");
      glColorMaski(GLuint(slot), mask.find('r') != std::string::npos, mask.find('g') != std::string::npos,
                   mask.find('b') != std::string::npos, mask.find('a') != std::string::npos);
    }
    const auto bc = state.contains("blend_constants") ? floats(state["blend_constants"]) : std::vector<float>{0, 0, 0, 0};
    glBlendColor(bc[0], bc[1], bc[2], bc[3]);

    // Viewport and scissor (inside the render area), in Vulkan coordinates unchanged.
    if (d.contains("viewport")) {
      const Json& v = d["viewport"];
      const float x = v.at("x"), y = v.at("y"), w = v.at("width"), h = v.at("height");
      glViewportIndexedf(0, x, y, w, h);
      glDepthRangeIndexed(0, v.value("min_depth", 0.0), v.value("max_depth", 1.0));
    } else {
      glViewportIndexedf(0, float(area.x), float(area.y), float(area.w), float(area.h));
      glDepthRangeIndexed(0, 0.0, 1.0);
    }
    scissor(d.contains("scissor") ? intersect(rect_of(d["scissor"]), area) : area);

    GLenum mode = GL_TRIANGLES;
    if (mesh.topology == "triangle_strip") mode = GL_TRIANGLE_STRIP;
    if (mesh.topology == "triangle_fan") mode = GL_TRIANGLE_FAN;
    const int first = num(d, "first_index", 0);
    const int instances = num(d, "instance_count", 1);
    glBindVertexArray(mesh.vao);
    if (mesh.ibo) {
      const int count = d.contains("index_count") ? d["index_count"].get<int>() : mesh.index_count - first;
      glDrawElementsInstanced(mode, count, GL_UNSIGNED_INT, reinterpret_cast<const void*>(uintptr_t(first) * 4), instances);
    } else {
      const int count = d.contains("index_count") ? d["index_count"].get<int>() : mesh.vertex_count - first;
      glDrawArraysInstanced(mode, first, count, instances);
    }
    glBindVertexArray(0);
    glColorMaski(0, 1, 1, 1, 1);
  }

  // ---- full-screen helper programs (resolve, blit, readback, compute) ----
  GLuint helper(const std::string& name, const std::string& body) {
    auto it = m_programs.find("#" + name);
    if (it != m_programs.end()) return it->second;
    const std::string vs = R"(#version 450 core
void main() { vec2 p = vec2((gl_VertexID & 1) * 4 - 1, (gl_VertexID & 2) * 2 - 1); gl_Position = vec4(p, 0.0, 1.0); })";
    GLuint p = link({compile(GL_VERTEX_SHADER, vs), compile(GL_FRAGMENT_SHADER, "#version 450 core\n" + body)});
    m_programs["#" + name] = p;
    return p;
  }

  void fullscreen_state(int w, int h, const Rect& gl_rect) {
    glDisable(GL_CULL_FACE);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    for (GLuint i = 0; i < 8; ++i) glDisablei(GL_BLEND, i), glColorMaski(i, 1, 1, 1, 1);
    glDepthMask(GL_TRUE);
    glViewportIndexedf(0, 0, 0, float(w), float(h));
    glDepthRangeIndexed(0, 0.0, 1.0);
    glScissor(gl_rect.x, gl_rect.y, gl_rect.w, gl_rect.h);
    glBindVertexArray(m_empty_vao);
  }

  // Average of the samples (color) into a single-sample image level, over a Vulkan rect.
  void average_samples(const Image& src, const Image& dst, int dst_mip, const Rect& r) {
    GLuint p = helper("resolve", R"(
uniform sampler2DMS src; uniform int n; out vec4 o;
void main() { vec4 s = vec4(0.0); for (int i = 0; i < n; ++i) s += texelFetch(src, ivec2(gl_FragCoord.xy), i); o = s / float(n); })");
    glTextureBarrier();
    attach_only(dst, dst_mip);
    const int h = dst.h(dst_mip);
    fullscreen_state(dst.w(dst_mip), h, {r.x, r.y, r.w, r.h});
    glUseProgram(p);
    glActiveTexture(GL_TEXTURE4);
    glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, src.tex);
    glUniform1i(glGetUniformLocation(p, "src"), 4);
    glUniform1i(glGetUniformLocation(p, "n"), src.samples);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glTextureBarrier();
  }

  Rect ref_region(const Json& ref, const Image& im) {
    const int mip = num(ref, "mip", 0);
    return ref.contains("region") ? rect_of(ref["region"]) : Rect{0, 0, im.w(mip), im.h(mip)};
  }

  void copy_or_blit(int frame, int index, const Json& pass, bool blit) {
    const Json& s = pass.at("src");
    const Json& d = pass.at("dst");
    Image& src = image(s.at("image"), num(s, "layer", 0));
    Image& dst = image(d.at("image"), num(d, "layer", 0));
    const int sm = num(s, "mip", 0), dm = num(d, "mip", 0);
    const Rect sr = ref_region(s, src), dr = ref_region(d, dst);
    if (!blit) {
      glCopyImageSubData(src.tex, src.target, sm, sr.x, sr.y, 0, dst.tex, dst.target, dm, dr.x, dr.y, 0, sr.w, sr.h, 1);
    } else {
      // vkCmdBlitImage as glBlitFramebuffer (same region mapping; GL's nearest/linear filter).
      if (src.fmt.depth || src.fmt.stencil) throw Unsupported("depth/stencil blit");
      attach_only(dst, dm);  // binds m_fbo2 for reading and drawing; the read side is set next
      glBindFramebuffer(GL_READ_FRAMEBUFFER, m_fbo);
      for (int i = 0; i < 8; ++i) glFramebufferTexture(GL_READ_FRAMEBUFFER, GLenum(GL_COLOR_ATTACHMENT0 + i), 0, 0);
      glFramebufferTexture(GL_READ_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, 0, 0);
      glFramebufferTexture(GL_READ_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, 0, 0);
      glFramebufferTexture(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, src.tex, sm);
      glReadBuffer(GL_COLOR_ATTACHMENT0);
      glDisable(GL_SCISSOR_TEST);
      glBlitFramebuffer(sr.x, sr.y, sr.x + sr.w, sr.y + sr.h, dr.x, dr.y, dr.x + dr.w, dr.y + dr.h,
                        GL_COLOR_BUFFER_BIT, str(pass, "filter", "nearest") == "bilinear" ? GL_LINEAR : GL_NEAREST);
      glEnable(GL_SCISSOR_TEST);
      glFramebufferTexture(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, 0, 0);
    }
    glTextureBarrier();
    write_png(frame, index, str(pass, "name", ""), "dst", dst, dm, dr);
  }

  void resolve_pass(int frame, int index, const Json& pass) {
    const Json& s = pass.at("src");
    const Json& d = pass.at("dst");
    Image& src = image(s.at("image"), num(s, "layer", 0));
    Image& dst = image(d.at("image"), num(d, "layer", 0));
    const Rect dr = ref_region(d, dst);
    average_samples(src, dst, num(d, "mip", 0), dr);
    write_png(frame, index, str(pass, "name", ""), "dst", dst, num(d, "mip", 0), dr);
  }

  void compute_pass(int frame, int index, const Json& pass) {
    const std::string program = pass.at("program").at("name");
    const Json& r = pass.at("reads").at(0);
    const Json& w = pass.at("writes").at(0);
    Image& in = image(r.at("image"), num(r, "layer", 0));
    Image& out = image(w.at("image"), num(w, "layer", 0));
    const int im = num(r, "mip", 0), om = num(w, "mip", 0);
    const Rect ir = ref_region(r, in);
    glTextureBarrier();
    if (program == "downsample") {
      GLuint p = helper("downsample", R"(
uniform sampler2D src; uniform int level; uniform ivec2 origin; uniform int src_h; uniform int dst_h; out vec4 o;
// Vulkan pixel (x, y) of the output; 2x2 box of the input at origin + 2 (x, y).
vec4 t(int x, int y) { return texelFetch(src, ivec2(x, y), level); }
void main() { int x = int(gl_FragCoord.x), y = int(gl_FragCoord.y);
  int sx = origin.x + 2 * x, sy = origin.y + 2 * y;
  o = (t(sx, sy) + t(sx + 1, sy) + t(sx, sy + 1) + t(sx + 1, sy + 1)) * 0.25; })");
      attach_only(out, om);
      fullscreen_state(out.w(om), out.h(om), {0, 0, out.w(om), out.h(om)});
      glUseProgram(p);
      glActiveTexture(GL_TEXTURE0);
      glBindTexture(GL_TEXTURE_2D, in.tex);
      glBindSampler(0, 0);
      glUniform1i(glGetUniformLocation(p, "src"), 0);
      glUniform1i(glGetUniformLocation(p, "level"), im);
      glUniform2i(glGetUniformLocation(p, "origin"), ir.x, ir.y);
      glUniform1i(glGetUniformLocation(p, "src_h"), in.h(im));
      glUniform1i(glGetUniformLocation(p, "dst_h"), out.h(om));
      glDrawArrays(GL_TRIANGLES, 0, 3);
    } else if (program == "histogram") {
      // Compute shader: one invocation per step block, atomic bin counts, then normalized.
      const auto step = r.value("step", Json::array({1, 1}));
      const int sx = step.at(0), sy = step.at(1);
      auto it = m_programs.find("#histogram");
      if (it == m_programs.end()) {
        const GLuint cs = compile(GL_COMPUTE_SHADER, R"(#version 450 core
layout(local_size_x = 8, local_size_y = 8) in;
layout(std430, binding = 0) buffer Bins { uint bins[]; };
uniform sampler2D src; uniform int level; uniform ivec4 region; uniform ivec2 step; uniform int src_h; uniform int nbins;
void main() {
  ivec2 b = ivec2(gl_GlobalInvocationID.xy);
  ivec2 v = b * step;
  if (v.x >= region.z || v.y >= region.w) return;
  vec4 c = texelFetch(src, ivec2(region.x + v.x, region.y + v.y), level);
  // `precise`: no fused multiply-add, the same float rounding as tbdrsim's -ffp-contract=off sum;
  // a luma exactly on a bin boundary otherwise lands in the neighbouring bin.
  precise float luma = clamp(0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b, 0.0, 1.0);
  atomicAdd(bins[min(int(luma * float(nbins - 1)), nbins - 1)], 1u);
})");
        it = m_programs.emplace("#histogram", link({cs})).first;
      }
      const GLuint p = it->second;
      const int nbins = out.w(om);
      std::vector<uint32_t> zero(size_t(nbins), 0);
      GLuint ssbo;
      glGenBuffers(1, &ssbo);
      glBindBuffer(GL_SHADER_STORAGE_BUFFER, ssbo);
      glBufferData(GL_SHADER_STORAGE_BUFFER, GLsizeiptr(zero.size() * 4), zero.data(), GL_DYNAMIC_COPY);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, ssbo);
      glUseProgram(p);
      glActiveTexture(GL_TEXTURE0);
      glBindTexture(GL_TEXTURE_2D, in.tex);
      glBindSampler(0, 0);
      glUniform1i(glGetUniformLocation(p, "src"), 0);
      glUniform1i(glGetUniformLocation(p, "level"), im);
      glUniform4i(glGetUniformLocation(p, "region"), ir.x, ir.y, ir.w, ir.h);
      glUniform2i(glGetUniformLocation(p, "step"), sx, sy);
      glUniform1i(glGetUniformLocation(p, "src_h"), in.h(im));
      glUniform1i(glGetUniformLocation(p, "nbins"), nbins);
      const int bx = (ir.w + sx - 1) / sx, by = (ir.h + sy - 1) / sy;
      glDispatchCompute(GLuint((bx + 7) / 8), GLuint((by + 7) / 8), 1);
      glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
      std::vector<uint32_t> counts(static_cast<size_t>(nbins), 0u);
      glGetBufferSubData(GL_SHADER_STORAGE_BUFFER, 0, GLsizeiptr(counts.size() * 4), counts.data());
      glDeleteBuffers(1, &ssbo);
      const double total = std::max<double>(1.0, double(bx) * double(by));
      const int oh = out.h(om);
      std::vector<float> px(size_t(nbins) * size_t(oh) * 4);
      for (int y = 0; y < oh; ++y)
        for (int x = 0; x < nbins; ++x) {
          float* q = &px[(size_t(y) * size_t(nbins) + size_t(x)) * 4];
          q[0] = float(double(counts[size_t(x)]) / total);
          q[1] = q[2] = 0;
          q[3] = 1;
        }
      glBindTexture(GL_TEXTURE_2D, out.tex);
      glTexSubImage2D(GL_TEXTURE_2D, om, 0, 0, nbins, oh, GL_RGBA, GL_FLOAT, px.data());
    } else {
      throw Unsupported("compute program " + program);
    }
    glTextureBarrier();
    write_png(frame, index, str(pass, "name", ""), "out0", out, om, {0, 0, out.w(om), out.h(om)});
  }

  // ---- PNG output (traces/README.md "Images written by run") ----
  static std::string sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    return out;
  }
  static uint8_t to_byte(float v) { return uint8_t(std::nearbyint(std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 1.0f) * 255.0f)); }

  // Float RGBA (color, samples averaged) or depth (sample 0) or stencil of an image level, top row first.
  std::vector<float> read_level(const Image& im, int mip, int channels_out) {
    const int w = im.w(mip), h = im.h(mip);
    std::vector<float> gl(size_t(w) * size_t(h) * size_t(channels_out));
    if (im.samples > 1) {
      // Samples averaged (color) or sample 0 (depth) through a shader into an RGBA32F target.
      GLuint tmp;
      glGenTextures(1, &tmp);
      glBindTexture(GL_TEXTURE_2D, tmp);
      glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA32F, w, h);
      GLuint p = helper("readback", R"(
uniform sampler2DMS src; uniform int n; out vec4 o;
void main() { vec4 s = vec4(0.0); for (int i = 0; i < n; ++i) s += texelFetch(src, ivec2(gl_FragCoord.xy), i); o = s / float(n); })");
      glBindFramebuffer(GL_FRAMEBUFFER, m_fbo2);
      glFramebufferTexture(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, 0, 0);
      glFramebufferTexture(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, 0, 0);
      glFramebufferTexture(GL_FRAMEBUFFER, GL_STENCIL_ATTACHMENT, 0, 0);
      glFramebufferTexture(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, tmp, 0);
      const GLenum b = GL_COLOR_ATTACHMENT0;
      glDrawBuffers(1, &b);
      fullscreen_state(w, h, {0, 0, w, h});
      glUseProgram(p);
      glActiveTexture(GL_TEXTURE4);
      glBindTexture(GL_TEXTURE_2D_MULTISAMPLE, im.tex);
      glUniform1i(glGetUniformLocation(p, "src"), 4);
      glUniform1i(glGetUniformLocation(p, "n"), im.fmt.depth ? 1 : im.samples);
      glDrawArrays(GL_TRIANGLES, 0, 3);
      glTextureBarrier();
      std::vector<float> rgba(size_t(w) * size_t(h) * 4);
      glBindTexture(GL_TEXTURE_2D, tmp);
      glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_FLOAT, rgba.data());
      glDeleteTextures(1, &tmp);
      for (size_t i = 0; i < size_t(w) * size_t(h); ++i)
        for (int k = 0; k < channels_out; ++k) gl[i * size_t(channels_out) + size_t(k)] = rgba[i * 4 + size_t(k)];
    } else {
      glBindTexture(GL_TEXTURE_2D, im.tex);
      if (im.fmt.depth) glGetTexImage(GL_TEXTURE_2D, mip, GL_DEPTH_COMPONENT, GL_FLOAT, gl.data());
      else if (im.fmt.stencil) {
        std::vector<uint8_t> s(size_t(w) * size_t(h));
        glGetTexImage(GL_TEXTURE_2D, mip, GL_STENCIL_INDEX, GL_UNSIGNED_BYTE, s.data());
        for (size_t i = 0; i < s.size(); ++i) gl[i] = s[i];
      } else {
        glGetTexImage(GL_TEXTURE_2D, mip, GL_RGBA, GL_FLOAT, gl.data());
      }
    }
    return gl;  // GL row 0 is Vulkan row 0 (the top row)
  }

  bool m_skip_output = false;  // --time's second run writes no images

  void write_png(int frame, int pass_index, const std::string& pass_name, const std::string& slot, const Image& im,
                 int mip, const Rect& region) {
    if (m_skip_output) return;
    const int w = im.w(mip), h = im.h(mip);
    std::vector<uint8_t> png;
    int channels = 4;
    if (!im.fmt.depth && !im.fmt.stencil) {
      const std::vector<float> px = read_level(im, mip, 4);
      png.resize(size_t(w) * size_t(h) * 4);
      for (size_t i = 0; i < size_t(w) * size_t(h); ++i) {
        float c[4] = {px[4 * i], px[4 * i + 1], px[4 * i + 2], px[4 * i + 3]};
        if (im.fmt.is_float)
          for (int k = 0; k < 3; ++k) c[k] = c[k] <= 0 ? 0 : c[k] / (1 + c[k]);
        if (im.fmt.channels == 1) { c[1] = c[2] = c[0]; c[3] = 1; }
        if (im.fmt.channels == 2) { c[2] = 0; c[3] = 1; }
        for (int k = 0; k < 4; ++k) png[4 * i + size_t(k)] = to_byte(c[k]);
      }
    } else {
      channels = 1;
      const std::vector<float> px = read_level(im, mip, 1);
      png.resize(size_t(w) * size_t(h));
      if (!im.fmt.depth) {
        for (size_t i = 0; i < png.size(); ++i) png[i] = uint8_t(px[i]);
      } else {
        float lo = 1, hi = 0;
        for (int y = region.y; y < region.y + region.h; ++y)
          for (int x = region.x; x < region.x + region.w; ++x) {
            lo = std::min(lo, px[size_t(y) * size_t(w) + size_t(x)]);
            hi = std::max(hi, px[size_t(y) * size_t(w) + size_t(x)]);
          }
        for (size_t i = 0; i < png.size(); ++i) png[i] = to_byte(hi > lo ? (px[i] - lo) / (hi - lo) : px[i]);
      }
    }
    char prefix[32];
    std::snprintf(prefix, sizeof prefix, "f%d_p%02d_", frame, pass_index);
    const std::string name = std::string(prefix) + sanitize(pass_name) + "_" + slot + "_" + sanitize(im.name) + ".png";
    fs::create_directories(m_out);
    if (!stbi_write_png((m_out / name).string().c_str(), w, h, channels, png.data(), w * channels))
      throw std::runtime_error("cannot write " + (m_out / name).string());
  }

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

}  // namespace

int main(int argc, char** argv) {
  fs::path trace, out = "refout";
  bool time = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc) out = argv[++i];
    else if (a == "--time") time = true;
    else if (a == "--help" || a == "-h") {
      std::cout << "usage: refrender TRACE.json [--out DIR] [--time]\n"
                   "Renders a tbdrsim trace on Mesa llvmpipe (EGL surfaceless, GL 4.5 core) and writes the\n"
                   "stored images as PNGs named as `tbdrsim run` names them. Exit 3: a feature llvmpipe lacks.\n"
                   "--time: render again without image output and print the seconds from draw submission to glFinish.\n";
      return 0;
    } else trace = a;
  }
  if (trace.empty()) {
    std::cerr << "refrender: no trace given (refrender TRACE.json [--out DIR])\n";
    return 2;
  }
  try {
    Renderer r(trace, out);
    r.run(time);
    return 0;
  } catch (const Unsupported& e) {
    std::cerr << "refrender: unsupported: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "refrender: " << trace.string() << ": " << e.what() << "\n";
    return 1;
  }
}
