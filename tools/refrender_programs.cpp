// refrender, programs: every built-in tbdrsim program written again in GLSL (vertex transform,
// texturing, lighting, same-pixel reads), compiled once per name.
#include "tools/refrender.h"

namespace refrender {

namespace {

// The vertex shader of every program: object positions through u_mvp (or clip-space positions as
// given under CLIP_SPACE), the attributes passed on.
constexpr const char* kVertexShader = R"(
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

// The fragment shaders' shared part: outputs, uniforms, texel fetch and filtering as tbdrsim does
// them, deferred lighting, and the rounding of 16-bit float outputs.
constexpr const char* kFragmentLibrary = R"(
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

// Vulkan pixel (x, y down) of this fragment: GL row y is Vulkan row y (see tools/refrender.cpp's header).
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

)";

// The fragment shaders' main: one branch per built-in program (PROGRAM_<name> is defined).
constexpr const char* kFragmentMain = R"(void main() {
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

}  // namespace

GLuint Renderer::program_for(const std::string& name, bool clip_space) {
  const std::string key = name + (clip_space ? "#clip" : "");
  auto it = m_programs.find(key);
  if (it != m_programs.end()) return it->second;
  const std::string vs = std::string("#version 450 core\n") + (clip_space ? "#define CLIP_SPACE\n" : "") + kVertexShader;
  std::string fs = "#version 450 core\n#define PROGRAM_" + name + "\n" + kFragmentLibrary + kFragmentMain;
  GLuint p = link({compile(GL_VERTEX_SHADER, vs), compile(GL_FRAGMENT_SHADER, fs)});
  glUseProgram(p);
  const char* names[] = {"s0", "s1", "s2", "s3", "m0", "m1", "m2"};
  for (int i = 0; i < 7; ++i) glUniform1i(glGetUniformLocation(p, names[i]), i);
  m_programs[key] = p;
  return p;
}

}  // namespace refrender
