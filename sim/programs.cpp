// Built-in program tables (traces/README.md lists them for users).
#include "sim/programs.h"

#include <algorithm>
#include <cmath>

#include "sim/surface.h"

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
      {"deferred_light", false, {inv_view_proj, lights, ambient}, {}, {}, 3},
      {"deferred_light_sampled", false, {inv_view_proj, lights, ambient}, {"albedo", "normal", "depth"}},
      {"downsample_2x2", false, {tint}, {"source"}},
      {"upsample_add", false, {{"intensity", 1, {1}}}, {"low"}, {"high"}},
      {"tonemap", false, {{"exposure", 1, {1}}, {"bloom_strength", 1, {0.04f}}}, {"hdr"}, {"bloom"}},
      {"copy", false, {tint}, {"source"}},
      {"mix", false, {{"weight", 1, {0.5f}}}, {"base", "over"}},
      {"composite", false, {}, {"base", "over"}},
      {"downsample", true, {}, {}},
      {"histogram", true, {}, {}},
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

std::vector<float> param_value(const Program& program, const ProgramInfo& info, const char* name) {
  const auto it = program.params.find(name);
  if (it != program.params.end()) return it->second;
  for (const auto& p : info.params)
    if (std::string(p.name) == name) return p.defaults;
  return {};
}

void set_bit(std::vector<uint64_t>& bits, size_t i) { bits[i >> 6] |= uint64_t(1) << (i & 63); }

uint64_t count_bits(const std::vector<uint64_t>& bits) {
  uint64_t n = 0;
  for (uint64_t w : bits) n += uint64_t(__builtin_popcountll(w));
  return n;
}

// Texel coordinate after the address mode (Vulkan "Wrapping Operation").
int32_t wrap(int32_t i, int32_t size, AddressMode mode) {
  switch (mode) {
    case AddressMode::clamp_to_edge: return std::clamp(i, 0, size - 1);
    case AddressMode::repeat: {
      const int32_t m = i % size;
      return m < 0 ? m + size : m;
    }
    case AddressMode::mirrored_repeat: {
      const int32_t period = 2 * size;
      int32_t m = i % period;
      if (m < 0) m += period;
      return m < size ? m : period - 1 - m;
    }
  }
  return 0;
}

// Texel coordinates beyond +-2^20 would overflow the integer wrap; they carry no information
// anyway (float uv has no sub-texel precision there), so they are clamped first.
int32_t texel_floor(float f) { return int32_t(std::floor(std::clamp(f, -1048576.0f, 1048576.0f))); }

Vec4 fetch(const CompiledProgram& p, int32_t tx, int32_t ty) {
  const int32_t w = int32_t(p.texel_width), h = int32_t(p.texel_height);
  tx = wrap(tx, w, p.address);
  ty = wrap(ty, h, p.address);
  if (p.footprint) {
    const size_t blocks_per_row = (p.texel_width + p.block_width - 1) / p.block_width;
    set_bit(*p.footprint, size_t(ty / int32_t(p.block_height)) * blocks_per_row + size_t(tx / int32_t(p.block_width)));
  }
  if (p.texture) return p.texture->texels[size_t(ty) * p.texel_width + size_t(tx)];
  return p.image->has_color() ? p.image->color[p.image->index(uint32_t(tx), uint32_t(ty), 0)]
                              : Vec4(p.image->depth[p.image->index(uint32_t(tx), uint32_t(ty), 0)], 0, 0, 1);
}

// Level-0 sampling (nearest or bilinear, Vulkan "Texel Filtering"); mip selection arrives with
// the texture model.
Vec4 sample(const CompiledProgram& p, float u, float v) {
  const float fu = u * float(p.texel_width), fv = v * float(p.texel_height);
  if (p.filter == Filter::nearest) return fetch(p, texel_floor(fu), texel_floor(fv));
  const float su = fu - 0.5f, sv = fv - 0.5f;
  const int32_t i0 = texel_floor(su), j0 = texel_floor(sv);
  const float a = su - std::floor(su), b = sv - std::floor(sv);
  const Vec4 t00 = fetch(p, i0, j0), t10 = fetch(p, i0 + 1, j0), t01 = fetch(p, i0, j0 + 1), t11 = fetch(p, i0 + 1, j0 + 1);
  return (t00 * (1 - a) + t10 * a) * (1 - b) + (t01 * (1 - a) + t11 * a) * b;
}

}  // namespace

void Footprints::reset(const Trace& trace) {
  m_textures.clear();
  for (const Texture& t : trace.textures) {
    const auto& info = texture_format_info(t.format);
    const size_t blocks = size_t((t.width + info.block_width - 1) / info.block_width) *
                          ((t.height + info.block_height - 1) / info.block_height);
    m_textures.emplace_back((blocks + 63) / 64, 0);
  }
  m_images.clear();
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
    bytes += count_bits(m_textures[t]) * texture_format_info(trace.textures[t].format).block_bytes;
  return bytes;
}

uint64_t Footprints::image_bytes(const Trace& trace) const {
  uint64_t bytes = 0;
  for (const ImageLevel& level : m_images)
    if (!trace.images[size_t(level.image)].transient)
      bytes += count_bits(level.bits) * format_info(trace.images[size_t(level.image)].format).bytes_per_pixel;
  return bytes;
}

CompiledProgram compile_program(const Trace& trace, const Draw& draw, const ImageStore& images, Footprints& footprints) {
  CompiledProgram p;
  const ProgramInfo& info = *find_program(draw.program.name);
  const std::string name = info.name;
  p.discard = draw.state.discard;
  const auto cutoff = param_value(draw.program, info, "alpha_cutoff");
  p.alpha_cutoff = cutoff.empty() ? 0.5f : cutoff[0];
  const auto color = param_value(draw.program, info, name == "flat" ? "color" : "tint");
  if (color.size() == 4) p.color = Vec4(color[0], color[1], color[2], color[3]);
  if (name == "flat") p.kind = CompiledProgram::Kind::flat;
  else if (name == "vertex_color") p.kind = CompiledProgram::Kind::vertex_color;
  else p.kind = CompiledProgram::Kind::textured;
  for (const Binding& b : draw.program.bindings) {
    if (b.slot != "texture") continue;
    p.filter = b.filter;
    p.address = b.address;
    if (b.is_image) {
      p.image = &images.surface(b.resource_index, b.mip, b.layer);
      p.texel_width = p.image->width;
      p.texel_height = p.image->height;
      p.footprint = footprints.image_bits(b.resource_index, b.mip, b.layer, size_t(p.texel_width) * p.texel_height);
    } else {
      p.texture = &trace.textures[size_t(b.resource_index)];
      p.texel_width = p.texture->width;
      p.texel_height = p.texture->height;
      const auto& fmt = texture_format_info(p.texture->format);
      p.block_width = fmt.block_width;
      p.block_height = fmt.block_height;
      p.footprint = footprints.texture_bits(b.resource_index);
    }
  }
  return p;
}

bool shade_fragment(const CompiledProgram& p, const float* varyings, Vec4& color) {
  const Vec4 vertex_color(varyings[0], varyings[1], varyings[2], varyings[3]);
  switch (p.kind) {
    case CompiledProgram::Kind::flat: color = p.color; break;
    case CompiledProgram::Kind::vertex_color: color = vertex_color.cwiseProduct(p.color); break;
    case CompiledProgram::Kind::textured:
      color = sample(p, varyings[4], varyings[5]).cwiseProduct(vertex_color).cwiseProduct(p.color);
      break;
  }
  return !(p.discard && color[3] < p.alpha_cutoff);
}

}  // namespace tbdr
