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
#include "tools/refrender.h"

namespace refrender {

void Renderer::run(bool time) {
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

void Renderer::init_gl() {
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
  glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);  // why not GL_UPPER_LEFT: see tools/refrender.cpp's header
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

}  // namespace refrender

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
    refrender::Renderer r(trace, out);
    r.run(time);
    return 0;
  } catch (const refrender::Unsupported& e) {
    std::cerr << "refrender: unsupported: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "refrender: " << trace.string() << ": " << e.what() << "\n";
    return 1;
  }
}
