// A small OpenGL ES 3 program whose frames tools/capture + tools/rdc2trace turn into traces, made to
// exercise every render-pass inference rule of traces/README.md "OpenGL ES and OpenGL captures".
// usage: gl_sample [--desktop] [--copy-tex-image] [--indirect] [FRAMES]   (an X11 window through EGL; FRAMES default 8)
// --desktop: the same frame through a desktop OpenGL 4.5 core-profile context (ES 3.0 shaders run
// there through ARB_ES3_compatibility), the path RenderDoc captures as "OpenGL".
// --copy-tex-image: the 64x64 copy out of pass 0 is glCopyTexImage2D into a texture of its own (it
// defines the level; glCopyTexImage2D cannot target the immutable one) instead of glCopyTexSubImage2D.
// --indirect: pass 2's triangle is drawn twice from a GL_DRAW_INDIRECT_BUFFER (OpenGL ES 3.1, OpenGL
// 4.0): glDrawArraysIndirect, then glDrawElementsIndirect of 16-bit indices 10, 11, 12.
// Each frame:
//   a compute dispatch (glDispatchCompute, OpenGL ES 3.1) filling a 32x32 image with a storage
//   buffer's colour: a captured_compute pass reading the buffer;
//   pass 0, a framebuffer object (RGBA8 texture + D24S8 renderbuffer, 256x256): a full glClear of
//     color, depth and stencil (-> load clear), a triangle, a scissored glClear (-> a mid-pass
//     clear), a second triangle, glInvalidateFramebuffer of depth and stencil (-> store dont_care);
//     glCopyTexSubImage2D of its bottom-left 64x64 into a texture reads it and ends it (color ->
//     store), and is itself a copy pass; glBlitFramebuffer of its color into a half-size texture is a
//     blit pass, and glCopyImageSubData of 32x32 of that into the 64x64 texture a copy pass;
//   pass 1, the window: glInvalidateFramebuffer of color and depth (-> load dont_care), a quad that
//     samples pass 0's texture, glFlush (-> the pass ends: store);
//   pass 2, the window again: a triangle sampling an ETC2 texture over it (-> load), eglSwapBuffers (color store, depth
//     dont_care: EGL discards the window's depth at the swap).
#include <EGL/egl.h>
#include <GLES3/gl32.h>
#include <X11/Xlib.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

constexpr int kWidth = 320, kHeight = 240, kTarget = 256;

void die(const char* what) {
  std::fprintf(stderr, "gl_sample: %s\n", what);
  std::exit(1);
}

GLuint shader(GLenum type, const char* source) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &source, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) die("shader compile failed");
  return s;
}

GLuint program(const char* vs, const char* fs) {
  const GLuint p = glCreateProgram();
  glAttachShader(p, shader(GL_VERTEX_SHADER, vs));
  glAttachShader(p, shader(GL_FRAGMENT_SHADER, fs));
  glLinkProgram(p);
  GLint ok = 0;
  glGetProgramiv(p, GL_LINK_STATUS, &ok);
  if (!ok) die("program link failed");
  return p;
}

const char* kVs = R"(#version 300 es
layout(location = 0) in vec3 position;
out vec2 uv;
void main() { uv = position.xy * 0.5 + 0.5; gl_Position = vec4(position, 1.0); })";
const char* kColorFs = R"(#version 300 es
precision mediump float;
uniform vec4 color;
out vec4 outColor;
void main() { outColor = color; })";
const char* kTextureFs = R"(#version 300 es
precision mediump float;
uniform sampler2D image;
in vec2 uv;
out vec4 outColor;
void main() { outColor = texture(image, uv); })";

// Counter-clockwise triangles (GL's default front face), and a full-screen quad as a strip.
const GLfloat kLeft[] = {-0.8f, -0.8f, 0.5f, 0.2f, -0.8f, 0.5f, -0.3f, 0.8f, 0.5f};
const GLfloat kRight[] = {-0.2f, -0.6f, 0.3f, 0.9f, -0.6f, 0.3f, 0.4f, 0.7f, 0.3f};
const GLfloat kQuad[] = {-1, -1, 0.9f, 1, -1, 0.9f, -1, 1, 0.9f, 1, 1, 0.9f};
const GLfloat kSmall[] = {0.1f, 0.1f, 0.1f, 0.7f, 0.2f, 0.1f, 0.4f, 0.8f, 0.1f};

// Every vertex array in one buffer (core profiles have no client-side arrays): its first vertex.
GLint first_vertex(const GLfloat* vertices) {
  if (vertices == kLeft) return 0;
  if (vertices == kRight) return 3;
  return vertices == kQuad ? 6 : 10;
}

void draw(const GLfloat* vertices, GLsizei count, GLenum mode) { glDrawArrays(mode, first_vertex(vertices), count); }

// --indirect: the draw parameters of kSmall's triangle in a GL_DRAW_INDIRECT_BUFFER (arrays: count,
// instanceCount, first, baseInstance; then elements: count, instanceCount, firstIndex, baseVertex,
// baseInstance) and its indices in the vertex array's GL_ELEMENT_ARRAY_BUFFER.
void setup_indirect_draws() {
  const GLuint commands[] = {3, 1, GLuint(first_vertex(kSmall)), 0, 3, 1, 0, 0, 0};
  const GLushort indices[] = {10, 11, 12};
  GLuint buffers[2] = {};
  glGenBuffers(2, buffers);
  glBindBuffer(GL_DRAW_INDIRECT_BUFFER, buffers[0]);
  glBufferData(GL_DRAW_INDIRECT_BUFFER, sizeof(commands), commands, GL_STATIC_DRAW);
  glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buffers[1]);
  glBufferData(GL_ELEMENT_ARRAY_BUFFER, sizeof(indices), indices, GL_STATIC_DRAW);
}

// The window the frames are drawn into, through EGL: an X window, an OpenGL ES 3 context (OpenGL 4.5
// core with --desktop).
struct EglWindow {
  Display* x = nullptr;
  EGLDisplay dpy = EGL_NO_DISPLAY;
  EGLSurface surface = EGL_NO_SURFACE;
};

EglWindow open_window(bool desktop) {
  Display* x = XOpenDisplay(nullptr);
  if (!x) die("no X display");
  const Window window = XCreateSimpleWindow(x, DefaultRootWindow(x), 0, 0, kWidth, kHeight, 0, 0, 0);
  XMapWindow(x, window);
  EGLDisplay dpy = eglGetDisplay(reinterpret_cast<EGLNativeDisplayType>(x));
  if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, nullptr, nullptr)) die("eglInitialize failed");
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_WINDOW_BIT, EGL_RENDERABLE_TYPE,
                                   desktop ? EGL_OPENGL_BIT : EGL_OPENGL_ES3_BIT,
                                   EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
                                   EGL_DEPTH_SIZE, 24, EGL_NONE};
  EGLConfig config;
  EGLint configs = 0;
  if (!eglChooseConfig(dpy, config_attribs, &config, 1, &configs) || configs < 1) die("no EGL config");
  eglBindAPI(desktop ? EGL_OPENGL_API : EGL_OPENGL_ES_API);
  const EGLint es_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
  const EGLint core_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                 EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, desktop ? core_attribs : es_attribs);
  EGLSurface surface = eglCreateWindowSurface(dpy, config, static_cast<EGLNativeWindowType>(window), nullptr);
  if (ctx == EGL_NO_CONTEXT || surface == EGL_NO_SURFACE || !eglMakeCurrent(dpy, surface, surface, ctx))
    die("EGL context or window surface failed");
  return EglWindow{x, dpy, surface};
}

// Pass 0's framebuffer object (a 256x256 color texture, depth/stencil renderbuffer), the ETC2
// material texture, the blit's half-size target and the copies' destinations: 64x64 RGBA8 for
// glCopyTexSubImage2D and glCopyImageSubData, and --copy-tex-image's, defined by the copy.
struct Targets {
  GLuint texture = 0, depth = 0, fbo = 0, etc2 = 0, small = 0, small_fbo = 0, copied = 0, copied_whole = 0;
};

Targets create_targets() {
  Targets t;
  GLuint& texture = t.texture;
  GLuint& depth = t.depth;
  GLuint& fbo = t.fbo;
  glGenTextures(1, &texture);
  glBindTexture(GL_TEXTURE_2D, texture);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, kTarget, kTarget);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glGenRenderbuffers(1, &depth);
  glBindRenderbuffer(GL_RENDERBUFFER, depth);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, kTarget, kTarget);
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_STENCIL_ATTACHMENT, GL_RENDERBUFFER, depth);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) die("incomplete framebuffer");
  // A 64x64 ETC2 RGB8 material texture (GLES 3 core format; 16x16 blocks of 8 B, all zero: black),
  // sampled by pass 2's triangle: the converter carries it as ETC2 blocks, as captured.
  GLuint& etc2 = t.etc2;
  static const GLubyte kEtc2Blocks[16 * 16 * 8] = {};
  glGenTextures(1, &etc2);
  glBindTexture(GL_TEXTURE_2D, etc2);
  glCompressedTexImage2D(GL_TEXTURE_2D, 0, GL_COMPRESSED_RGB8_ETC2, 64, 64, 0, sizeof(kEtc2Blocks), kEtc2Blocks);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  GLuint& small = t.small;
  GLuint& small_fbo = t.small_fbo;
  glGenTextures(1, &small);
  glBindTexture(GL_TEXTURE_2D, small);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, kTarget / 2, kTarget / 2);
  glGenFramebuffers(1, &small_fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, small_fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, small, 0);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) die("incomplete framebuffer");
  GLuint& copied = t.copied;
  glGenTextures(1, &copied);
  glBindTexture(GL_TEXTURE_2D, copied);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 64, 64);
  GLuint& copied_whole = t.copied_whole;
  glGenTextures(1, &copied_whole);
  return t;
}

// The triangles' and the quad's vertices in one buffer, attribute 0.
void create_vertex_buffer() {
  GLuint vao = 0, vbo = 0;
  glGenVertexArrays(1, &vao);
  glBindVertexArray(vao);
  glGenBuffers(1, &vbo);
  glBindBuffer(GL_ARRAY_BUFFER, vbo);
  glBufferData(GL_ARRAY_BUFFER, sizeof(GLfloat) * 39, nullptr, GL_STATIC_DRAW);
  glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof(kLeft), kLeft);
  glBufferSubData(GL_ARRAY_BUFFER, sizeof(GLfloat) * 9, sizeof(kRight), kRight);
  glBufferSubData(GL_ARRAY_BUFFER, sizeof(GLfloat) * 18, sizeof(kQuad), kQuad);
  glBufferSubData(GL_ARRAY_BUFFER, sizeof(GLfloat) * 30, sizeof(kSmall), kSmall);
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
  glEnableVertexAttribArray(0);
}

// A compute shader (OpenGL ES 3.1, OpenGL 4.3) that fills a 32x32 RGBA8 image with the colour a
// 16-byte shader storage buffer holds: one dispatch per frame.
struct ComputeFill {
  GLuint program = 0, image = 0, colour = 0;
};

ComputeFill create_compute_fill() {
  const char* kFillCs = R"(#version 310 es
layout(local_size_x = 8, local_size_y = 8) in;
layout(rgba8, binding = 0) uniform writeonly highp image2D target;
layout(std430, binding = 1) readonly buffer Fill { vec4 colour; };
void main() { imageStore(target, ivec2(gl_GlobalInvocationID.xy), colour); })";
  ComputeFill c;
  const GLuint fill = c.program = glCreateProgram();
  glAttachShader(fill, shader(GL_COMPUTE_SHADER, kFillCs));
  glLinkProgram(fill);
  glGenTextures(1, &c.image);
  glBindTexture(GL_TEXTURE_2D, c.image);
  glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, 32, 32);
  const GLfloat kFillColour[4] = {1.0f, 0.0f, 1.0f, 1.0f};
  glGenBuffers(1, &c.colour);
  glBindBuffer(GL_SHADER_STORAGE_BUFFER, c.colour);
  glBufferData(GL_SHADER_STORAGE_BUFFER, sizeof(kFillColour), kFillColour, GL_STATIC_DRAW);
  return c;
}

// What a frame draws with.
struct FrameObjects {
  GLuint flat, textured;
  GLint color;  // flat's uniform
  Targets targets;
  ComputeFill fill;
  bool copy_tex_image, indirect;
};

// One frame: the compute dispatch, pass 0 into the framebuffer object (a mid-pass scissored clear,
// depth invalidated), the copies and the blit that end it, pass 1 into the invalidated window ended
// by glFlush, pass 2 loading the window, ended by the swap.
void draw_frame(const FrameObjects& o, const EglWindow& w) {
  const GLuint flat = o.flat, textured = o.textured;
  const GLint color = o.color;
  const Targets& t = o.targets;
  const GLuint texture = t.texture, fbo = t.fbo, etc2 = t.etc2, small = t.small, small_fbo = t.small_fbo,
               copied = t.copied, copied_whole = t.copied_whole;
  const GLuint fill = o.fill.program, filled = o.fill.image, fill_colour = o.fill.colour;
  const bool copy_tex_image = o.copy_tex_image, indirect = o.indirect;
  const EGLDisplay dpy = w.dpy;
  const EGLSurface surface = w.surface;
  // Compute first: a dispatch the converter carries as a captured_compute pass with its pixels.
  glUseProgram(fill);
  glBindImageTexture(0, filled, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA8);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, fill_colour);
  glDispatchCompute(4, 4, 1);
  glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT);
  // Pass 0: the framebuffer object.
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, kTarget, kTarget);
  glEnable(GL_DEPTH_TEST);
  glClearColor(0.1f, 0.2f, 0.3f, 1.0f);
  glClearDepthf(1.0f);
  glClearStencil(0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT | GL_STENCIL_BUFFER_BIT);
  glUseProgram(flat);
  glUniform4f(color, 1.0f, 0.5f, 0.0f, 1.0f);
  draw(kLeft, 3, GL_TRIANGLES);
  glEnable(GL_SCISSOR_TEST);
  glScissor(16, 32, 64, 48);
  glClearColor(0.0f, 1.0f, 0.0f, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
  glDisable(GL_SCISSOR_TEST);
  glUniform4f(color, 0.0f, 0.5f, 1.0f, 1.0f);
  draw(kRight, 3, GL_TRIANGLES);
  const GLenum discard_depth[] = {GL_DEPTH_STENCIL_ATTACHMENT};
  glInvalidateFramebuffer(GL_FRAMEBUFFER, 1, discard_depth);
  // glCopyTexSubImage2D of pass 0's bottom-left 64x64 into a texture: it reads the framebuffer,
  // which ends the pass (a copy pass).
  if (copy_tex_image) {
    glBindTexture(GL_TEXTURE_2D, copied_whole);
    glCopyTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 0, 0, 64, 64, 0);
  } else {
    glBindTexture(GL_TEXTURE_2D, copied);
    glCopyTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, 0, 0, 64, 64);
  }
  // A half-size copy of pass 0's color: glBlitFramebuffer reads it, which ends the pass.
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, small_fbo);
  glBlitFramebuffer(0, 0, kTarget, kTarget, 0, 0, kTarget / 2, kTarget / 2, GL_COLOR_BUFFER_BIT, GL_LINEAR);
  // glCopyImageSubData (OpenGL ES 3.2, OpenGL 4.3) of the half-size copy's top-right 32x32 into the
  // same texture at (32, 32): a second copy pass.
  glCopyImageSubData(small, GL_TEXTURE_2D, 0, 96, 96, 0, copied, GL_TEXTURE_2D, 0, 32, 32, 0, 32, 32, 1);
  // Pass 1: the window, invalidated first, sampling pass 0's texture, ended by glFlush.
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glViewport(0, 0, kWidth, kHeight);
  glDisable(GL_DEPTH_TEST);  // the window's depth is invalidated: its contents are undefined
  const GLenum discard_window[] = {GL_COLOR, GL_DEPTH};
  glInvalidateFramebuffer(GL_FRAMEBUFFER, 2, discard_window);
  glUseProgram(textured);
  glBindTexture(GL_TEXTURE_2D, texture);
  draw(kQuad, 4, GL_TRIANGLE_STRIP);
  glFlush();
  // Pass 2: the window again, loaded, ended by the swap.
  glUseProgram(textured);
  glBindTexture(GL_TEXTURE_2D, etc2);
  if (indirect) {
    glDrawArraysIndirect(GL_TRIANGLES, nullptr);
    glDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_SHORT, reinterpret_cast<const void*>(sizeof(GLuint) * 4));
  } else {
    draw(kSmall, 3, GL_TRIANGLES);
  }
  eglSwapBuffers(dpy, surface);
}

}  // namespace

int main(int argc, char** argv) {
  bool desktop = false, copy_tex_image = false, indirect = false;
  int frames = 8;  // past capture's frame 5
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--desktop")
      desktop = true;
    else if (arg == "--copy-tex-image")
      copy_tex_image = true;
    else if (arg == "--indirect")
      indirect = true;
    else
      frames = std::atoi(argv[i]);
  }
  const EglWindow window = open_window(desktop);

  const GLuint flat = program(kVs, kColorFs), textured = program(kVs, kTextureFs);
  const Targets targets = create_targets();
  create_vertex_buffer();
  glEnable(GL_DEPTH_TEST);
  const GLint color = glGetUniformLocation(flat, "color");
  if (indirect) setup_indirect_draws();
  const ComputeFill fill = create_compute_fill();

  const FrameObjects objects{flat, textured, color, targets, fill, copy_tex_image, indirect};
  for (int frame = 0; frame < frames; ++frame) draw_frame(objects, window);
  std::printf("gl_sample: %d frames\n", frames);
  eglMakeCurrent(window.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglTerminate(window.dpy);
  XCloseDisplay(window.x);
  return 0;
}
