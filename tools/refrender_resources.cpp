// refrender, the trace's resources as GL objects: images (one texture per array layer, their stored
// contents), material textures with their generated mip chains, meshes as vertex arrays.
#include "tools/refrender.h"

namespace refrender {

std::vector<uint8_t> Renderer::read_file(const std::string& name) {
  std::ifstream in(m_dir / name, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + (m_dir / name).string());
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<float> Renderer::decode(const std::string& name, int* w, int* h, bool grey) {
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

void Renderer::load_images() {
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

void Renderer::clear_whole(const Image& im) {
  for (int mip = 0; mip < (im.samples > 1 ? 1 : im.mips); ++mip) {
    attach_only(im, mip);
    glScissor(0, 0, im.w(mip), im.h(mip));
    clear_attachment(im, {0, 0, 0, 0}, 0.0f, 0, true, true);
  }
}

void Renderer::attach_only(const Image& im, int mip) {
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

GLenum Renderer::attachment_point(const Image& im) {
  if (im.fmt.depth && im.fmt.stencil) return GL_DEPTH_STENCIL_ATTACHMENT;
  if (im.fmt.depth) return GL_DEPTH_ATTACHMENT;
  if (im.fmt.stencil) return GL_STENCIL_ATTACHMENT;
  return GL_COLOR_ATTACHMENT0;
}

void Renderer::clear_attachment(const Image& im, std::array<float, 4> color, float depth, int stencil, bool do_depth,
                                bool do_stencil, int slot) {
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

void Renderer::load_textures() {
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
std::vector<T> Renderer::array_or_sidecar(const Json& j, size_t element_bytes) {
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

const std::vector<uint8_t>& Renderer::cached_file(const std::string& name) {
  auto it = m_files.find(name);
  if (it == m_files.end()) it = m_files.emplace(name, read_file(name)).first;
  return it->second;
}

void Renderer::load_meshes() {
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

}  // namespace refrender
