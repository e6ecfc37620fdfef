// refrender, render passes: attachments and their load/store operations, subpasses and their
// clears and resolves, and draws (pipeline state, bindings, instancing) on a GL framebuffer.
#include "tools/refrender.h"

namespace refrender {

void Renderer::run_pass(int frame, int index, const Json& pass) {
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

Image& Renderer::image(const std::string& name, int layer) {
  Image& im = image(name);
  if (layer == 0) return im;
  if (layer < 0 || size_t(layer) >= im.layer_tex.size()) throw std::runtime_error("layer out of range");
  m_views.push_back(im);
  m_views.back().tex = im.layer_tex[size_t(layer)];
  return m_views.back();
}

GLuint Renderer::snapshot(const Image& im, int mip) {
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

void Renderer::render_pass(int frame, int index, const Json& pass) {
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

void Renderer::bind_subpass_fbo(const Json& sp, const std::vector<Attachment>& atts, std::vector<int>* color_atts, int* depth_att) {
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

void Renderer::subpass(const Json& sp, const std::vector<Attachment>& atts, const Rect& area) {
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

void Renderer::subpass_clear(const Json& c, const std::vector<Attachment>& atts, const std::vector<int>& colors, int depth,
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

void Renderer::set_sampler_state(int unit, const std::string& filter, const std::string& address) {
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

void Renderer::bind_sampler(GLuint prog, int k, GLuint tex, bool ms, int w, int h, int level, const std::string& filter,
                            const std::string& address, bool auto_lod) {
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

namespace {

// u_mvp (the transform's mvp, or proj x view x model) and the normal matrix of its model matrix.
void set_transform_uniforms(GLuint prog, const Json& transform) {
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

}

// The draw's fixed-function state: culling and facing, depth and stencil tests, blending per color
// slot, write masks and blend constants.
void set_fixed_function_state(const Json& state, bool has_depth, bool has_stencil) {
  const std::string cull = str(state, "cull", "none");
  if (cull == "none") glDisable(GL_CULL_FACE);
  else {
    glEnable(GL_CULL_FACE);
    glCullFace(cull == "front" ? GL_FRONT : cull == "back" ? GL_BACK : GL_FRONT_AND_BACK);
  }
  // Vulkan's area has a leading minus that GL's lacks: the winding names swap (tools/refrender.cpp's header).
  glFrontFace(str(state, "front_face", "counter_clockwise") == "clockwise" ? GL_CCW : GL_CW);
  const bool depth_test = state.value("depth_test", false) && has_depth;
  if (depth_test) glEnable(GL_DEPTH_TEST);
  else glDisable(GL_DEPTH_TEST);
  glDepthMask(state.value("depth_write", false) ? GL_TRUE : GL_FALSE);
  glDepthFunc(compare_op(str(state, "depth_compare", "less")));
  const bool stencil_test = state.value("stencil_test", false) && has_stencil;
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

}

}  // namespace

// The program's parameters (defaults as sim/programs.cpp's), the framebuffer size and which color
// slots round to 16-bit floats, as uniforms; every sampler slot unbound.
void Renderer::set_program_uniforms(GLuint prog, const std::string& pname, const Json& params, const Json& state,
                                    const std::vector<Attachment>& atts, const std::vector<int>& colors) {
  auto param = [&](const char* key, std::vector<float> def) {
    return params.contains(key) ? floats(params[key]) : def;
  };
  const auto color = param(pname == "flat" ? "color" : "tint", {1, 1, 1, 1});
  glUniform4f(glGetUniformLocation(prog, "u_color"), color[0], color[1], color[2], color[3]);
  glUniform1f(glGetUniformLocation(prog, "u_cutoff"), param("alpha_cutoff", {0.5f})[0]);
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

}

// The program's sampler slots: its bindings (textures, image levels) or, for deferred_light, the
// subpass's input attachments.
void Renderer::bind_program_inputs(GLuint prog, const std::string& pname, const Json& program,
                                   const std::vector<Attachment>& atts, const std::vector<int>& inputs) {
  // In the order of the program's table (sim/programs.cpp).
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

}

void Renderer::draw(const Json& d, const std::vector<Attachment>& atts, const std::vector<int>& colors, int depth_att,
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

  set_transform_uniforms(prog, transform);
  const Json state = d.value("state", Json::object());
  set_program_uniforms(prog, pname, params, state, atts, colors);
  bind_program_inputs(prog, pname, program, atts, inputs);
  set_fixed_function_state(state, depth_att >= 0 && atts[size_t(depth_att)].image->fmt.depth,
                           depth_att >= 0 && atts[size_t(depth_att)].image->fmt.stencil);

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
  // Line and point topologies, at the draw's width and size (glLineWidth above 1 is allowed in a
  // core context that is not forward-compatible; GL_PROGRAM_POINT_SIZE is off: glPointSize rules).
  if (mesh.topology == "lines") mode = GL_LINES;
  if (mesh.topology == "line_strip") mode = GL_LINE_STRIP;
  if (mesh.topology == "points") mode = GL_POINTS;
  glLineWidth(d.value("line_width", 1.0f));
  glPointSize(d.value("point_size", 1.0f));
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

}  // namespace refrender
