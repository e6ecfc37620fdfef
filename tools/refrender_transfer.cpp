// refrender, the passes other than render passes: copies, blits, resolves and captured compute
// dispatches, through full-screen helper programs; and the stored images written as PNGs.
#include "tools/refrender.h"

namespace refrender {

namespace {
// Program `p` in use, reading mip `level` of `texture` through texelFetch: uniform `src` on unit 0
// with no sampler object (texelFetch ignores filtering), uniform `level`.
void use_reading_level(GLuint p, GLuint texture, int level) {
  glUseProgram(p);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture);
  glBindSampler(0, 0);
  glUniform1i(glGetUniformLocation(p, "src"), 0);
  glUniform1i(glGetUniformLocation(p, "level"), level);
}
}  // namespace

GLuint Renderer::helper(const std::string& name, const std::string& body) {
  auto it = m_programs.find("#" + name);
  if (it != m_programs.end()) return it->second;
  const std::string vs = R"(#version 450 core
void main() { vec2 p = vec2((gl_VertexID & 1) * 4 - 1, (gl_VertexID & 2) * 2 - 1); gl_Position = vec4(p, 0.0, 1.0); })";
  GLuint p = link({compile(GL_VERTEX_SHADER, vs), compile(GL_FRAGMENT_SHADER, "#version 450 core\n" + body)});
  m_programs["#" + name] = p;
  return p;
}

void Renderer::fullscreen_state(int w, int h, const Rect& gl_rect) {
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

void Renderer::average_samples(const Image& src, const Image& dst, int dst_mip, const Rect& r) {
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

Rect Renderer::ref_region(const Json& ref, const Image& im) {
  const int mip = num(ref, "mip", 0);
  return ref.contains("region") ? rect_of(ref["region"]) : Rect{0, 0, im.w(mip), im.h(mip)};
}

void Renderer::copy_or_blit(int frame, int index, const Json& pass, bool blit) {
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

void Renderer::resolve_pass(int frame, int index, const Json& pass) {
  const Json& s = pass.at("src");
  const Json& d = pass.at("dst");
  Image& src = image(s.at("image"), num(s, "layer", 0));
  Image& dst = image(d.at("image"), num(d, "layer", 0));
  const Rect dr = ref_region(d, dst);
  average_samples(src, dst, num(d, "mip", 0), dr);
  write_png(frame, index, str(pass, "name", ""), "dst", dst, num(d, "mip", 0), dr);
}

void Renderer::compute_pass(int frame, int index, const Json& pass) {
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
    use_reading_level(p, in.tex, im);
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
    use_reading_level(p, in.tex, im);
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

std::string Renderer::sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out;
}

std::vector<float> Renderer::read_level(const Image& im, int mip, int channels_out) {
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

void Renderer::write_png(int frame, int pass_index, const std::string& pass_name, const std::string& slot, const Image& im,
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

}  // namespace refrender
