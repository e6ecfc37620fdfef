// Built-in program tables (traces/README.md lists them for users).
#include "sim/programs.h"

#include <algorithm>
#include <cmath>

#include "sim/geometry.h"
#include "sim/surface.h"
#include "sim/texture_fetch.h"

namespace tbdr {
namespace {

const std::vector<ProgramInfo>& program_table() {
  // Lights of the deferred programs: 4 x (x, y, z, r, g, b, radius); radius 0 switches one off.
  const ProgramParamInfo lights{"lights", 28, {0, 4, 0, 1, 1, 1, 20, 0, 0, 0, 0, 0, 0, 0,
                                               0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
  const ProgramParamInfo ambient{"ambient", 4, {0.1f, 0.1f, 0.1f, 0}};
  const ProgramParamInfo inv_view_proj{"inv_view_proj", 16, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}};
  const ProgramParamInfo tint{"tint", 4, {1, 1, 1, 1}};
  const ProgramParamInfo cutoff{"alpha_cutoff", 1, {0.5f}};
  static const std::vector<ProgramInfo> table = {
      {"flat", false, {{"color", 4, {1, 1, 1, 1}}, cutoff}, {}},
      {"vertex_color", false, {tint, cutoff}, {}},
      {"textured", false, {tint, cutoff}, {"texture"}},
      {"gbuffer", false, {tint, cutoff}, {}, {"texture"}},
      // Untextured imports (traces/README.md "Imported scenes"): Lambert, one directional light and ambient.
      {"lit", false, {tint, cutoff, {"light_direction", 4, {0.3f, 0.8f, 0.5f, 0}}, {"light_color", 4, {0.75f, 0.75f, 0.75f, 0}},
                      {"ambient", 4, {0.25f, 0.25f, 0.25f, 0}}}, {}},
      {"deferred_light", false, {inv_view_proj, lights, ambient}, {}, {}, 3},
      {"deferred_light_sampled", false, {inv_view_proj, lights, ambient}, {"albedo", "normal", "depth"}},
      {"downsample_2x2", false, {tint}, {"source"}},
      {"upsample_add", false, {{"intensity", 1, {1}}}, {"low"}, {"high"}},
      {"tonemap", false, {{"exposure", 1, {1}}, {"bloom_strength", 1, {0.04f}}}, {"hdr"}, {"bloom"}},
      {"copy", false, {tint}, {"source"}},
      {"mix", false, {{"weight", 1, {0.5f}}}, {"base", "over"}},
      {"composite", false, {}, {"base", "over"}},
      // Stand-in for a captured program's shader (tools/rdc2trace): its color, and a same-pixel
      // texel read of every render-target image the real shader samples, so the footprints count.
      // A binding with coordinates "uv" is sampled at the mesh's uvs, those the captured shader used.
      {"captured", false, {{"color", 4, {1, 1, 1, 1}}, cutoff}, {}, {"image0", "image1", "image2"}},
      {"downsample", true, {}, {}},
      {"histogram", true, {}, {}},
      // A captured dispatch (tools/rdc2trace): writes the captured levels, traces/README.md `compute`.
      {"captured_compute", true, {}, {}},
  };
  return table;
}

}  // namespace

const ProgramInfo* find_program(const std::string& name) {
  for (const auto& p : program_table())
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> program_names(bool compute) {
  std::vector<std::string> names;
  for (const auto& p : program_table())
    if (p.compute == compute) names.emplace_back(p.name);
  return names;
}

namespace {

using namespace texture_detail;

std::vector<float> param_value(const Program& program, const ProgramInfo& info, const char* name) {
  const auto it = program.params.find(name);
  if (it != program.params.end()) return it->second;
  for (const auto& p : info.params)
    if (std::string(p.name) == name) return p.defaults;
  return {};
}

uint64_t count_bits(const std::vector<uint64_t>& bits) {
  uint64_t n = 0;
  for (uint64_t w : bits) n += uint64_t(__builtin_popcountll(w));
  return n;
}


// The elements one line of `recorder` holds, as an aligned block (log2 of its width and height),
// where the layout makes them one: 2^k elements a line (k = log2(line bytes / element bytes)), the
// level starting on a line. Tiled (texture_element_offset's order): the low k bits of the index
// within a tile vary, so a 2^m x 2^m block for k = 2m and 2^(m+1) x 2^m for k = 2m + 1 (bit 2m is
// x_m ^ y_m, y_m fixed), while the line is no bigger than a tile. Linear: 2^k elements of a row,
// when rows are whole lines. Otherwise (0, 0): each element on its own.
// `lines`' line blocks for a level of shape `lines.shape` at byte address `base`.
void set_line_blocks(const TextureRecorder& recorder, uint64_t base, TextureRecorder::LevelLines& lines) {
  lines.line_block_x = lines.line_block_y = 0;
  if (!recorder.record_lines) return;
  const uint32_t line_shift = recorder.line_shift;
  const uint64_t line_bytes = uint64_t(1) << line_shift;
  const uint32_t element_bytes = lines.shape.element_bytes;
  if (element_bytes == 0 || (element_bytes & (element_bytes - 1)) || element_bytes > line_bytes) return;
  if (base & (line_bytes - 1)) return;
  const uint32_t k = line_shift - uint32_t(__builtin_ctz(element_bytes));
  if (recorder.layout == models::TextureLayout::tiled) {
    const uint32_t tile_bits = lines.shape.block_format ? 2 : 4;
    if (k > 2 * tile_bits) return;
    lines.line_block_x = uint8_t((k + 1) / 2);
    lines.line_block_y = uint8_t(k / 2);
  } else if (uint64_t(lines.shape.elements_x) * element_bytes % line_bytes == 0) {
    lines.line_block_x = uint8_t(k);
  }
}

// One texel, recorded: nearest sampling and same-pixel fetches. kValue false: recorded only (the
// captured program's reads mark footprints and lines, their values unused), Vec4 zero returned;
// likewise below.
template <bool kValue = true>
Vec4 fetch(const SamplerBinding& p, int32_t tx, int32_t ty) {
  tx = wrap_if_outside(tx, int32_t(p.texel_width), p.address);
  ty = wrap_if_outside(ty, int32_t(p.texel_height), p.address);
  FetchRecorder record(p);
  record.add(tx, ty);
  record.finish();
  if constexpr (!kValue) return Vec4::Zero();
  return texel_value(p, tx, ty);
}

// Level-0 sampling at normalized (u, v) (Vulkan "Texel Filtering": texel centres at i + 0.5);
// mip selection arrives with the texture model. Bilinear: the four texels are fetched in the
// order (i0, j0), (i0 + 1, j0), (i0, j0 + 1), (i0 + 1, j0 + 1), each column and row wrapped once.
// `filter` in place of the binding's (bilinear_at_pixel: no copy of the binding per fragment).
template <bool kValue = true>
[[gnu::always_inline]] inline Vec4 sample_filtered(const SamplerBinding& p, Filter filter, float u, float v) {
  const float fu = u * float(p.texel_width), fv = v * float(p.texel_height);
  if (filter == Filter::nearest) return fetch<kValue>(p, texel_floor(fu), texel_floor(fv));
  const float su = fu - 0.5f, sv = fv - 0.5f;
  const int32_t i0 = texel_floor(su), j0 = texel_floor(sv);
  const float a = su - std::floor(su), b = sv - std::floor(sv);
  const int32_t w = int32_t(p.texel_width), h = int32_t(p.texel_height);
  int32_t x0, x1, y0, y1;
  if (p.address == AddressMode::repeat && (w & (w - 1)) == 0 && (h & (h - 1)) == 0) {
    // Repeat over power-of-two sizes (a tiled material's, the default trace's floor whose uv spans
    // 32 periods): every coordinate, inside or not, is its low bits, as wrap_if_outside gives.
    x0 = i0 & (w - 1), x1 = (i0 + 1) & (w - 1);
    y0 = j0 & (h - 1), y1 = (j0 + 1) & (h - 1);
  } else {
    x0 = wrap_if_outside(i0, w, p.address), x1 = wrap_if_outside(i0 + 1, w, p.address);
    y0 = wrap_if_outside(j0, h, p.address), y1 = wrap_if_outside(j0 + 1, h, p.address);
  }
  FetchRecorder record(p);
  record.add_bilinear(x0, x1, y0, y1);
  record.finish();
  if constexpr (!kValue) return Vec4::Zero();
  const Vec4 t00 = texel_value(p, x0, y0), t10 = texel_value(p, x1, y0), t01 = texel_value(p, x0, y1),
             t11 = texel_value(p, x1, y1);
  return (t00 * (1 - a) + t10 * a) * (1 - b) + (t01 * (1 - a) + t11 * a) * b;
}
template <bool kValue = true>
Vec4 sample(const SamplerBinding& p, float u, float v) {
  return sample_filtered<kValue>(p, p.filter, u, v);
}

// The level a mipmapped texture is sampled at, for the fragment's quad (Vulkan spec "Scale
// Factor Operation, LOD Operation": rho_x = sqrt((du/dx x width)^2 + (dv/dx x height)^2), rho_y
// likewise, rho = max(rho_x, rho_y), lambda = log2(rho); NEAREST mipmap mode: level = lambda
// rounded to nearest, clamped to the chain; lambda <= 0 reads level 0). Computed on rho^2 in float
// and rounded through its binary exponent, level = (floor(log2(rho^2)) + 1) >> 1, which is exactly
// round(log2(rho)) with the boundary at 2^(k + 1/2): the way Mesa llvmpipe does it by default
// (gallivm lp_build_rho without rho_approx, lp_build_ilog2_sqrt), so the reference renderer picks
// the same level.
uint32_t mip_level(const SamplerBinding& p, const FragmentInput& in) {
  const float w = float(p.texture->width), h = float(p.texture->height);
  const float ax = in.du_dx * w, bx = in.dv_dx * h, ay = in.du_dy * w, by = in.dv_dy * h;
  const float rho_x2 = ax * ax + bx * bx, rho_y2 = ay * ay + by * by;
  const float rho2 = std::max(rho_x2, rho_y2);
  if (!(rho2 >= 2.0f) || !std::isfinite(rho2)) return 0;  // lambda < 1/2 (or no usable derivative)
  const int level = (std::ilogb(rho2) + 1) >> 1;
  return uint32_t(std::min<int>(level, int(p.texture->level_count()) - 1));
}

// Material-texture sample at (u, v): level 0, or for a mipmapped texture the quad's level.
// A mipmapped texture's sample at `level` (above 0): the binding copied and changed to the level.
template <bool kValue = true>
[[gnu::noinline]] Vec4 sample_level(const SamplerBinding& p, uint32_t level, float u, float v) {
  SamplerBinding at = p;
  at.texel_width = p.texture->level_width(level);
  at.texel_height = p.texture->level_height(level);
  at.texels = p.texture->level_texels(level);
  at.footprint = &(*p.level_footprints)[level];
  // The level's shape, address and line blocks: read by the line records alone, which need a
  // recorder (and then level_bases and level_lines).
  if (p.level_bases) {
    const TextureRecorder::LevelLines& lines = (*p.level_lines)[level];
    at.base = (*p.level_bases)[level];
    at.shape = lines.shape;
    at.line_block_x = lines.line_block_x;
    at.line_block_y = lines.line_block_y;
  }
  return sample<kValue>(at, u, v);
}

// Level 0's sampling inline here (sample_filtered), not a call a fragment (callgrind of the default
// trace: 25 instructions a sample).
template <bool kValue = true>
Vec4 sample_texture(const SamplerBinding& p, float u, float v, const FragmentInput& in) {
  if (in.has_derivatives && p.level_footprints && p.texture->level_count() > 1) {
    const uint32_t level = mip_level(p, in);
    if (level != 0) return sample_level<kValue>(p, level, u, v);
  }
  return sample_filtered<kValue>(p, p.filter, u, v);
}

// Same-pixel texel fetch: the texel under the pixel centre's normalized position (nearest).
template <bool kValue = true>
Vec4 fetch_at_pixel(const CompiledProgram& p, const SamplerBinding& s, const FragmentInput& in) {
  const float u = (float(in.x) + 0.5f) / float(p.framebuffer_width), v = (float(in.y) + 0.5f) / float(p.framebuffer_height);
  return fetch<kValue>(s, texel_floor(u * float(s.texel_width)), texel_floor(v * float(s.texel_height)));
}

Vec4 bilinear_at_pixel(const CompiledProgram& p, const SamplerBinding& s, const FragmentInput& in) {
  return sample_filtered(s, Filter::bilinear, (float(in.x) + 0.5f) / float(p.framebuffer_width),
                         (float(in.y) + 0.5f) / float(p.framebuffer_height));
}

// Lambert with point lights from G-buffer values (the deferred example of the subpass-lifetime article,
// models/README.md "Sources: the source articles"; the lighting
// model itself is a plain textbook one: max(0, n.l) with a quadratic radius falloff).
Vec4 deferred_lighting(const CompiledProgram& p, const FragmentInput& in, const Vec4& albedo, const Vec4& encoded_normal,
                       float depth) {
  Eigen::Vector3f n(encoded_normal[0] * 2 - 1, encoded_normal[1] * 2 - 1, encoded_normal[2] * 2 - 1);
  const float length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (length > 0) n /= length;
  const float ndc_x = (float(in.x) + 0.5f) / float(p.framebuffer_width) * 2 - 1;
  const float ndc_y = (float(in.y) + 0.5f) / float(p.framebuffer_height) * 2 - 1;
  const Vec4 ndc(ndc_x, ndc_y, depth, 1);
  Vec4 h;
  for (int r = 0; r < 4; ++r)
    h[r] = p.inv_view_proj(r, 0) * ndc[0] + p.inv_view_proj(r, 1) * ndc[1] + p.inv_view_proj(r, 2) * ndc[2] +
           p.inv_view_proj(r, 3) * ndc[3];
  const Eigen::Vector3f world(h[0] / h[3], h[1] / h[3], h[2] / h[3]);
  Eigen::Vector3f light = p.ambient;
  for (const PointLight& l : p.lights) {
    if (l.radius <= 0) continue;
    const Eigen::Vector3f to_light = l.position - world;
    const float d = std::sqrt(to_light[0] * to_light[0] + to_light[1] * to_light[1] + to_light[2] * to_light[2]);
    if (d <= 0 || d >= l.radius) continue;
    const float n_dot_l = std::max(0.0f, (n[0] * to_light[0] + n[1] * to_light[1] + n[2] * to_light[2]) / d);
    const float falloff = (1 - d / l.radius) * (1 - d / l.radius);
    light += l.color * (n_dot_l * falloff);
  }
  return Vec4(albedo[0] * light[0], albedo[1] * light[1], albedo[2] * light[2], 1);
}

// The world normal varying made unit length; (0, 0, 1) when it has none (a degenerate face).
Eigen::Vector3f unit_normal(const float* v) {
  const Eigen::Vector3f n(v[0], v[1], v[2]);
  const float length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  return length > 0 ? Eigen::Vector3f(n / length) : Eigen::Vector3f(0, 0, 1);
}

// Lambert (the textbook diffuse term) with one directional light and ambient:
// rgb = albedo x (ambient + light_color x max(0, n . l)), alpha kept. tools/refrender writes it again.
Vec4 directional_lighting(const CompiledProgram& p, const Vec4& albedo, const float* normal) {
  const Eigen::Vector3f n = unit_normal(normal);
  const Eigen::Vector3f& l = p.light_direction;
  const float n_dot_l = std::max(0.0f, n[0] * l[0] + n[1] * l[1] + n[2] * l[2]);
  return Vec4(albedo[0] * (p.ambient[0] + p.light_color[0] * n_dot_l), albedo[1] * (p.ambient[1] + p.light_color[1] * n_dot_l),
              albedo[2] * (p.ambient[2] + p.light_color[2] * n_dot_l), albedo[3]);
}

}  // namespace

Eigen::Vector3f unit_light_direction(const float* xyz) {
  const float length = std::sqrt(xyz[0] * xyz[0] + xyz[1] * xyz[1] + xyz[2] * xyz[2]);
  return length > 0 ? Eigen::Vector3f(xyz[0] / length, xyz[1] / length, xyz[2] / length) : Eigen::Vector3f(0, 0, 1);
}

void generate_mip_chain(Texture& texture) {
  texture.mips.clear();
  // 8-bit codes of the level being halved (texels decoded from 8-bit files are exactly code / 255).
  uint32_t w = texture.width, h = texture.height;
  std::vector<uint32_t> codes(size_t(w) * h * 4);
  for (size_t i = 0; i < size_t(w) * h; ++i)
    for (int c = 0; c < 4; ++c)
      codes[i * 4 + size_t(c)] = uint32_t(std::lround(std::clamp(texture.texels[i][c], 0.0f, 1.0f) * 255.0f));
  while (w > 1 || h > 1) {
    const uint32_t nw = std::max(1u, w / 2), nh = std::max(1u, h / 2);
    std::vector<uint32_t> next(size_t(nw) * nh * 4);
    TextureLevel level;
    level.width = nw;
    level.height = nh;
    level.texels.resize(size_t(nw) * nh);
    for (uint32_t y = 0; y < nh; ++y)
      for (uint32_t x = 0; x < nw; ++x) {
        const uint32_t x0 = std::min(2 * x, w - 1), x1 = std::min(2 * x + 1, w - 1);
        const uint32_t y0 = std::min(2 * y, h - 1), y1 = std::min(2 * y + 1, h - 1);
        const size_t i = size_t(y) * nw + x;
        for (size_t c = 0; c < 4; ++c) {
          const uint32_t sum = codes[(size_t(y0) * w + x0) * 4 + c] + codes[(size_t(y0) * w + x1) * 4 + c] +
                               codes[(size_t(y1) * w + x0) * 4 + c] + codes[(size_t(y1) * w + x1) * 4 + c];
          next[i * 4 + c] = (sum + 2) / 4;
          level.texels[i][int(c)] = float(next[i * 4 + c]) / 255.0f;
        }
      }
    texture.mips.push_back(std::move(level));
    codes = std::move(next);
    w = nw;
    h = nh;
  }
}

models::TextureLevelShape texture_level_shape(const Texture& texture, uint32_t level) {
  const auto& fmt = texture_format_info(texture.format);
  models::TextureLevelShape shape;
  shape.elements_x = (texture.level_width(level) + fmt.block_width - 1) / fmt.block_width;
  shape.elements_y = (texture.level_height(level) + fmt.block_height - 1) / fmt.block_height;
  shape.element_bytes = fmt.block_bytes;
  shape.block_format = fmt.block_width > 1 || fmt.block_height > 1;
  return shape;
}

void TextureRecorder::configure(const Trace& trace, const models::TextureCacheConfig& config) {
  record_lines = config.simulate;
  line_shift = uint32_t(__builtin_ctz(config.line_bytes));
  layout = config.layout;
  base.clear();
  levels.clear();
  uint64_t address = 0;
  constexpr uint64_t kPage = 4096;
  for (const Texture& t : trace.textures) {
    base.emplace_back();
    levels.emplace_back();
    const uint64_t start = address;
    for (uint32_t level = 0; level < t.level_count(); ++level) {
      base.back().push_back(address);
      LevelLines& lines = levels.back().emplace_back();
      lines.shape = texture_level_shape(t, level);
      set_line_blocks(*this, address, lines);
      address += models::texture_level_bytes(lines.shape, layout);
    }
    address = start + (address - start + kPage - 1) / kPage * kPage;
  }
  fetches = repeats = 0;
  begin_tile();
}

void Footprints::reset(const Trace& trace) {
  m_textures.clear();
  for (const Texture& t : trace.textures) {
    m_textures.emplace_back();
    for (uint32_t level = 0; level < t.level_count(); ++level) {
      const models::TextureLevelShape shape = texture_level_shape(t, level);
      m_textures.back().emplace_back((size_t(shape.elements_x) * shape.elements_y + 63) / 64, 0);
    }
  }
  m_images.clear();
}

void Footprints::merge(const Footprints& other) {
  for (size_t t = 0; t < m_textures.size() && t < other.m_textures.size(); ++t)
    for (size_t level = 0; level < m_textures[t].size(); ++level)
      for (size_t i = 0; i < m_textures[t][level].size(); ++i) m_textures[t][level][i] |= other.m_textures[t][level][i];
  for (const ImageLevel& level : other.m_images) {
    std::vector<uint64_t>& bits = *image_bits(level.image, level.mip, level.layer, level.bits.size() * 64);
    for (size_t i = 0; i < bits.size(); ++i) bits[i] |= level.bits[i];
  }
}

std::vector<uint64_t>* Footprints::image_bits(int32_t image, uint32_t mip, uint32_t layer, size_t texels) {
  for (ImageLevel& level : m_images)
    if (level.image == image && level.mip == mip && level.layer == layer) return &level.bits;
  m_images.push_back({image, mip, layer, std::vector<uint64_t>((texels + 63) / 64, 0)});
  return &m_images.back().bits;
}

uint64_t Footprints::texture_bytes(const Trace& trace) const {
  uint64_t bytes = 0;
  for (size_t t = 0; t < m_textures.size(); ++t)
    for (const std::vector<uint64_t>& level : m_textures[t])
      bytes += count_bits(level) * texture_format_info(trace.textures[t].format).block_bytes;
  return bytes;
}

uint64_t Footprints::image_bytes(const Trace& trace) const {
  uint64_t bytes = 0;
  for (const ImageLevel& level : m_images)
    if (!trace.images[size_t(level.image)].transient)
      bytes += count_bits(level.bits) * format_info(trace.images[size_t(level.image)].format).bytes_per_pixel;
  return bytes;
}

CompiledProgram::Kind program_kind(const std::string& name) {
  using Kind = CompiledProgram::Kind;
  static const std::pair<const char*, Kind> kinds[] = {
      {"flat", Kind::flat}, {"vertex_color", Kind::vertex_color}, {"lit", Kind::lit}, {"textured", Kind::textured},
      {"gbuffer", Kind::gbuffer}, {"deferred_light", Kind::deferred_light},
      {"deferred_light_sampled", Kind::deferred_light_sampled}, {"downsample_2x2", Kind::downsample_2x2},
      {"upsample_add", Kind::upsample_add}, {"tonemap", Kind::tonemap}, {"copy", Kind::copy}, {"mix", Kind::mix},
      {"composite", Kind::composite}, {"captured", Kind::captured}};
  for (const auto& [kind_name, kind] : kinds)
    if (name == kind_name) return kind;
  return Kind::flat;
}

int varyings_read(CompiledProgram::Kind kind) {
  using Kind = CompiledProgram::Kind;
  switch (kind) {
    case Kind::gbuffer:
    case Kind::lit: return kVaryingCount;  // color, uv, normal
    case Kind::textured:
    case Kind::captured: return 6;         // color, uv
    case Kind::vertex_color: return 4;     // color
    default: return 0;                     // the others read the pixel position, images and parameters only
  }
}

CompiledProgram compile_program(const Trace& trace, const Draw& draw, const ImageStore& images, Footprints& footprints,
                                uint32_t framebuffer_width, uint32_t framebuffer_height, TextureRecorder* recorder) {
  using Kind = CompiledProgram::Kind;
  CompiledProgram p;
  const ProgramInfo& info = *find_program(draw.program.name);
  p.kind = program_kind(draw.program.name);
  p.framebuffer_width = std::max(1u, framebuffer_width);
  p.framebuffer_height = std::max(1u, framebuffer_height);
  p.input_attachments = info.input_attachments;
  p.discard = draw.state.discard;
  auto param = [&](const char* name) { return param_value(draw.program, info, name); };
  if (const auto cutoff = param("alpha_cutoff"); !cutoff.empty()) p.alpha_cutoff = cutoff[0];
  const auto color = param(p.kind == Kind::flat || p.kind == Kind::captured ? "color" : "tint");
  if (color.size() == 4) p.color = Vec4(color[0], color[1], color[2], color[3]);
  for (const char* name : {"intensity", "exposure", "weight"})
    if (const auto v = param(name); !v.empty()) p.scalar[0] = v[0];
  if (const auto v = param("bloom_strength"); !v.empty()) p.scalar[1] = v[0];
  if (const auto m = param("inv_view_proj"); m.size() == 16)
    for (int i = 0; i < 16; ++i) p.inv_view_proj(i % 4, i / 4) = m[size_t(i)];  // column-major
  if (const auto l = param("lights"); l.size() == 28)
    for (int i = 0; i < 4; ++i) {
      const float* v = l.data() + 7 * i;
      p.lights[i] = {Eigen::Vector3f(v[0], v[1], v[2]), Eigen::Vector3f(v[3], v[4], v[5]), v[6]};
    }
  if (const auto a = param("ambient"); a.size() == 4) p.ambient = Eigen::Vector3f(a[0], a[1], a[2]);
  if (const auto d = param("light_direction"); d.size() == 4) p.light_direction = unit_light_direction(d.data());
  if (const auto c = param("light_color"); c.size() == 4) p.light_color = Eigen::Vector3f(c[0], c[1], c[2]);

  std::vector<const char*> slots(info.bindings.begin(), info.bindings.end());
  slots.insert(slots.end(), info.optional_bindings.begin(), info.optional_bindings.end());
  for (const Binding& b : draw.program.bindings) {
    size_t slot = 0;
    while (slot < slots.size() && b.slot != slots[slot]) ++slot;
    if (slot >= kMaxProgramSamplers) continue;
    SamplerBinding& s = p.samplers[slot];
    s.filter = b.filter;
    s.address = b.address;
    s.at_uv = b.at_uv;
    if (b.is_image) {
      s.image = &images.surface(b.resource_index, b.mip, b.layer);
      s.texel_width = s.image->width;
      s.texel_height = s.image->height;
      s.footprint = footprints.image_bits(b.resource_index, b.mip, b.layer, size_t(s.texel_width) * s.texel_height);
    } else {
      s.texture = &trace.textures[size_t(b.resource_index)];
      s.texel_width = s.texture->width;
      s.texel_height = s.texture->height;
      const auto& fmt = texture_format_info(s.texture->format);
      s.block_width = fmt.block_width;
      s.block_height = fmt.block_height;
      s.texels = s.texture->texels.data();
      s.level_footprints = footprints.texture_bits(b.resource_index);
      s.footprint = &s.level_footprints->at(0);
      s.recorder = recorder;
      s.shape = texture_level_shape(*s.texture);
      if (recorder) {
        s.level_bases = &recorder->base.at(size_t(b.resource_index));
        s.level_lines = &recorder->levels.at(size_t(b.resource_index));
        s.base = s.level_bases->at(0);
        s.line_block_x = s.level_lines->at(0).line_block_x;
        s.line_block_y = s.level_lines->at(0).line_block_y;
      }
      if (s.texture->level_count() > 1) p.uv_derivatives = true;
    }
  }
  return p;
}

bool shade_fragment(const CompiledProgram& p, const FragmentInput& in, Vec4* outputs, uint32_t slots) {
  using Kind = CompiledProgram::Kind;
  const float* v = in.varyings;
  // Read only by the programs that interpolate it (varyings_read): the others' varyings are unset.
  const auto vertex_color = [v] { return Vec4(v[0], v[1], v[2], v[3]); };
  const SamplerBinding* s = p.samplers;
  Vec4 color;
  switch (p.kind) {
    case Kind::flat: color = p.color; break;
    case Kind::vertex_color: color = vertex_color().cwiseProduct(p.color); break;
    case Kind::lit: color = directional_lighting(p, vertex_color().cwiseProduct(p.color), v + 6); break;
    case Kind::textured:
      color = sample_texture(s[0], v[4], v[5], in).cwiseProduct(vertex_color()).cwiseProduct(p.color);
      break;
    case Kind::gbuffer: {
      color = vertex_color().cwiseProduct(p.color);
      if (s[0].bound()) color = sample_texture(s[0], v[4], v[5], in).cwiseProduct(color);
      if (p.discard && color[3] < p.alpha_cutoff) return false;
      const Eigen::Vector3f n = unit_normal(v + 6);
      for (uint32_t i = 0; i < slots; ++i) outputs[i] = color;
      if (slots > 1) outputs[1] = Vec4(n[0] * 0.5f + 0.5f, n[1] * 0.5f + 0.5f, n[2] * 0.5f + 0.5f, 1);
      return true;
    }
    case Kind::deferred_light: color = deferred_lighting(p, in, in.inputs[0], in.inputs[1], in.inputs[2][0]); break;
    case Kind::deferred_light_sampled:
      color = deferred_lighting(p, in, fetch_at_pixel(p, s[0], in), fetch_at_pixel(p, s[1], in), fetch_at_pixel(p, s[2], in)[0]);
      break;
    case Kind::downsample_2x2: color = bilinear_at_pixel(p, s[0], in).cwiseProduct(p.color); break;
    case Kind::upsample_add:
      color = bilinear_at_pixel(p, s[0], in) * p.scalar[0];
      if (s[1].bound()) color += fetch_at_pixel(p, s[1], in);
      break;
    case Kind::tonemap: {
      Vec4 c = fetch_at_pixel(p, s[0], in);
      if (s[1].bound()) c += bilinear_at_pixel(p, s[1], in) * p.scalar[1];
      c *= p.scalar[0];
      color = Vec4(c[0] / (1 + c[0]), c[1] / (1 + c[1]), c[2] / (1 + c[2]), 1);
      break;
    }
    case Kind::copy: color = fetch_at_pixel(p, s[0], in).cwiseProduct(p.color); break;
    case Kind::mix: color = fetch_at_pixel(p, s[0], in) * (1 - p.scalar[0]) + fetch_at_pixel(p, s[1], in) * p.scalar[0]; break;
    case Kind::captured:
      // The reads only mark the footprints (texture and image_sample bytes); the color is the
      // stand-in's. A binding at uv samples where the captured shader did, filtered and mipmapped
      // as any texture; the others read the texel under the pixel.
      for (uint32_t i = 0; i < kMaxProgramSamplers; ++i) {
        if (!s[i].bound()) continue;
        if (!s[i].at_uv) fetch_at_pixel<false>(p, s[i], in);
        else if (s[i].texture) sample_texture<false>(s[i], v[4], v[5], in);
        else sample<false>(s[i], v[4], v[5]);
      }
      color = p.color;
      break;
    case Kind::composite: {
      const Vec4 base = fetch_at_pixel(p, s[0], in), over = fetch_at_pixel(p, s[1], in);
      color = over + base * (1 - over[3]);
      break;
    }
  }
  if (p.discard && color[3] < p.alpha_cutoff) return false;
  for (uint32_t i = 0; i < slots; ++i) outputs[i] = color;
  return true;
}

}  // namespace tbdr
