// The rules of `tbdrsim advise` on material textures: textures sampled uncompressed, and textures
// sampled minified without a mip chain. Sources: models/README.md "Sources: advise rules".
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>

#include "sim/format.h"
#include "tools/commands/advise.h"
#include "tools/commands/advise_trace_json.h"

namespace tbdr::advise {
namespace {

using namespace trace_json;

// The index of material texture `name` in the trace's `textures`, -1 if none.
int texture_index(const json& trace, const std::string& name) {
  const json& textures = trace.value("textures", json::array());
  for (size_t i = 0; i < textures.size(); ++i)
    if (str(textures[i], "name", "") == name) return int(i);
  return -1;
}

// One draw of the trace as read (frame overrides applied), and where it is.
struct DrawSite {
  int frame = 0, pass = 0, subpass = 0, draw = 0;
  const Pass* render_pass = nullptr;
  const Draw* call = nullptr;
};

// Every draw of the frames from `first_frame` on that samples material texture `texture` (an index of
// Trace::textures).
void for_each_sampling_draw(const Trace& trace, int texture, size_t first_frame,
                            const std::function<void(const DrawSite&)>& visit) {
  for (size_t f = first_frame; f < trace.frames.size(); ++f)
    for (size_t p = 0; p < trace.frames[f].passes.size(); ++p) {
      const Pass& pass = trace.frames[f].passes[p];
      for (size_t s = 0; s < pass.subpasses.size(); ++s)
        for (size_t d = 0; d < pass.subpasses[s].draws.size(); ++d) {
          const Draw& draw = pass.subpasses[s].draws[d];
          const bool samples = std::any_of(draw.program.bindings.begin(), draw.program.bindings.end(),
                                           [&](const Binding& b) { return !b.is_image && b.resource_index == texture; });
          if (samples) visit({int(f), int(p), int(s), int(d), &pass, &draw});
        }
    }
}

// The draw's share of its pass in the simulated run (PassStats::draw_stats); null if none.
const DrawStats* stats_of(const RunStats& stats, const DrawSite& site) {
  if (size_t(site.frame) >= stats.frames.size() || size_t(site.pass) >= stats.frames[site.frame].passes.size()) return nullptr;
  for (const DrawStats& d : stats.frames[site.frame].passes[site.pass].draw_stats)
    if (int(d.subpass) == site.subpass && int(d.index) == site.draw) return &d;
  return nullptr;
}

// A finding about texture `name`, its subject the draw `site` ("<rule>:<texture>").
Finding about_texture(const std::string& rule, const std::string& name, const DrawSite& site) {
  Finding f;
  f.rule = rule;
  f.id = rule + ":" + name;
  f.where = {site.frame, site.pass, site.subpass, -1, site.draw, site.render_pass->name, name, ""};
  if (site.call->name.rfind("event_", 0) == 0) f.where.event = site.call->name.substr(6);
  return f;
}

// How the text names a draw: its name, else its index in the subpass.
std::string draw_label(const DrawSite& site) {
  return site.call->name.empty() ? "draw " + std::to_string(site.draw) : site.call->name;
}

// Bytes of one level of `w` x `h` texels: whole blocks for block formats.
uint64_t level_bytes(const TextureFormatInfo& info, uint64_t w, uint64_t h) {
  return (w + info.block_width - 1) / info.block_width * ((h + info.block_height - 1) / info.block_height) * info.block_bytes;
}

// ---- compress-textures ---------------------------------------------------------------------------

// The block format of the same channels an uncompressed texture is encoded to, "" for a block format.
// RGBA8 -> ASTC 4x4 (16 B per 4x4 block, the highest-quality ASTC block size; ETC2 RGBA8 moves the same
// 16 B per block where ASTC is missing), RGB8 -> ETC2 RGB8 (8 B per 4x4 block, no alpha to keep).
std::string compressed_format(TextureFormat f) {
  if (f == TextureFormat::RGBA8) return "ASTC_4x4";
  if (f == TextureFormat::RGB8) return "ETC2_RGB8";
  return "";
}

}  // namespace

// Material textures sampled by draws in a format of 3 or 4 bytes per texel (Arm, Mali GPU Application
// Optimization Guide, "Use texture compression"; Qualcomm, Adreno OpenGL ES Developer Guide: ASTC where
// available, else ETC2). The subject is the draw whose fetches move the most texture bytes.
std::vector<Finding> compress_textures(const RuleInput& in) {
  std::vector<Finding> out;
  if (!in.parsed) return out;
  for (size_t t = 0; t < in.parsed->textures.size(); ++t) {
    const Texture& tex = in.parsed->textures[t];
    const std::string target = compressed_format(tex.format);
    const int index = texture_index(in.trace, tex.name);
    if (target.empty() || index < 0) continue;
    DrawSite top;
    uint64_t top_bytes = 0, top_fetches = 0, draws = 0;
    // The last frame's draws: the frame the verdict prices (a repeated frame repeats its draws).
    for_each_sampling_draw(*in.parsed, int(t), in.parsed->frames.size() - 1, [&](const DrawSite& site) {
      const DrawStats* s = stats_of(in.stats, site);
      const uint64_t bytes = s ? s->counters.texture_read_bytes : 0, fetches = s ? s->counters.texel_fetches : 0;
      if (!draws++ || bytes > top_bytes || (bytes == top_bytes && fetches > top_fetches))
        top = site, top_bytes = bytes, top_fetches = fetches;
    });
    if (!draws) continue;
    const TextureFormatInfo& from = texture_format_info(tex.format);
    const TextureFormatInfo& to = texture_format_info(*parse_texture_format(target));
    Finding f = about_texture("compress-textures", tex.name, top);
    f.problem = tex.name + " (" + std::to_string(tex.width) + "x" + std::to_string(tex.height) + " " + from.name +
                ", " + std::to_string(level_bytes(from, tex.width, tex.height)) + " B) is sampled uncompressed by " +
                std::to_string(draws) + " draw(s); " + draw_label(top) + " fetches " + std::to_string(top_fetches) +
                " texels" + (top_bytes ? " (" + std::to_string(top_bytes) + " B of texture lines from DRAM)" : "");
    f.fix = "format: " + target + " (" + std::to_string(level_bytes(to, tex.width, tex.height)) + " B for level 0)";
    f.edit.push_back(set_op("/textures/" + std::to_string(index), "format", target));
    f.changes_images = true;
    f.note = "lossy: an encoder changes texels (the simulator samples the file's pixels, so its images stay the same)";
    out.push_back(std::move(f));
  }
  return out;
}

// ---- add-mipmaps ---------------------------------------------------------------------------------

namespace {

// The framebuffer rectangle (x, y, width, height) clip space maps to: the draw's viewport, else the
// pass's render area, else its first attachment's level.
std::array<double, 4> viewport_of(const Trace& trace, const Pass& pass, const Draw& draw) {
  if (draw.viewport) return {draw.viewport->x, draw.viewport->y, draw.viewport->width, draw.viewport->height};
  if (pass.render_area) {
    const Rect& r = *pass.render_area;
    return {double(r.x), double(r.y), double(r.width), double(r.height)};
  }
  if (pass.attachments.empty() || pass.attachments[0].image < 0) return {0, 0, 0, 0};
  const ImageDesc& image = trace.images[pass.attachments[0].image];
  const uint32_t mip = pass.attachments[0].mip;
  return {0, 0, double(std::max(1u, image.width >> mip)), double(std::max(1u, image.height >> mip))};
}

// The triangles of a draw as vertex indices of its mesh: lists, strips (Vulkan "Triangle Strips": triangle
// i has vertices i, i + (1 + i % 2), i + (2 - i % 2)) and fans (first, i + 1, i + 2).
std::vector<std::array<uint32_t, 3>> triangles_of(const Mesh& mesh, const Draw& draw) {
  std::vector<std::array<uint32_t, 3>> out;
  if (!is_polygon_topology(mesh.topology)) return out;  // lines and points have none
  auto vertex = [&](size_t i) { return mesh.indices.empty() ? uint32_t(i) : mesh.indices[i]; };
  const size_t first = draw.first_index, end = size_t(draw.first_index) + draw.index_count;
  for (size_t i = first; i + 2 < end; i += mesh.topology == Topology::triangle_list ? 3 : 1) {
    const size_t odd = mesh.topology == Topology::triangle_strip ? (i - first) % 2 : 0;
    if (mesh.topology == Topology::triangle_fan) out.push_back({vertex(first), vertex(i + 1), vertex(i + 2)});
    else out.push_back({vertex(i), vertex(i + 1 + odd), vertex(i + 2 - odd)});
  }
  return out;
}

// Whether a triangle of signed framebuffer area `area` (positive: counter-clockwise, Vulkan "Basic
// Polygon Rasterization", y down) survives the draw's culling.
bool survives_culling(const PipelineState& state, double area) {
  const bool front = (area > 0) == (state.front_face == FrontFace::counter_clockwise);
  return area != 0 && state.cull != CullMode::front_and_back && !(state.cull == CullMode::back && !front) &&
         !(state.cull == CullMode::front && front);
}

// The most level-0 texels a triangle of the draw spreads over one pixel, on average over the triangle:
// its area in texels (uv area x width x height) over its area in framebuffer pixels. That ratio is the
// mean Jacobian determinant of the pixel -> texel map, and max(rho_x, rho_y)^2 >= rho_x rho_y >= |det|,
// so at a ratio >= 2 some point of the triangle has rho^2 >= 2, where traces/README.md's level rule
// ((floor(log2(rho^2)) + 1) >> 1) picks level 1 or above. Culled triangles, triangles with a corner
// behind the eye (w <= 0, clipped: not followed) and triangles under one pixel are left out. 0: none.
double max_texels_per_pixel(const Trace& trace, const DrawSite& site, const Texture& tex) {
  const Draw& draw = *site.call;
  if (draw.mesh < 0) return 0;
  const Mesh& mesh = trace.meshes[draw.mesh];
  if (mesh.uvs.size() != mesh.positions.size()) return 0;
  const std::array<double, 4> vp = viewport_of(trace, *site.render_pass, draw);
  double best = 0;
  for (const std::array<uint32_t, 3>& tri : triangles_of(mesh, draw)) {
    double x[3], y[3];
    bool behind = false;
    for (int k = 0; k < 3; ++k) {
      const Vec4 c = draw.transform.clip_space ? mesh.positions[tri[k]] : Vec4(draw.transform.mvp * mesh.positions[tri[k]]);
      behind |= !(c[3] > 0);
      x[k] = vp[0] + (c[0] / c[3] + 1) * 0.5 * vp[2];
      y[k] = vp[1] + (c[1] / c[3] + 1) * 0.5 * vp[3];
    }
    const double area = -0.5 * ((x[0] * y[1] - x[1] * y[0]) + (x[1] * y[2] - x[2] * y[1]) + (x[2] * y[0] - x[0] * y[2]));
    if (behind || std::abs(area) < 1 || !survives_culling(draw.state, area)) continue;
    const Vec2 a = mesh.uvs[tri[1]] - mesh.uvs[tri[0]], b = mesh.uvs[tri[2]] - mesh.uvs[tri[0]];
    const double texels = 0.5 * std::abs(double(a[0]) * b[1] - double(a[1]) * b[0]) * tex.width * tex.height;
    best = std::max(best, texels / std::abs(area));
  }
  return best;
}

// Bytes of the levels 1 .. 1x1 a generated chain adds (traces/README.md: level L + 1 = max(1, floor(size_L / 2))).
uint64_t chain_bytes(const Texture& tex) {
  const TextureFormatInfo& info = texture_format_info(tex.format);
  uint64_t w = tex.width, h = tex.height, bytes = 0;
  while (w > 1 || h > 1) {
    w = std::max<uint64_t>(1, w / 2), h = std::max<uint64_t>(1, h / 2);
    bytes += level_bytes(info, w, h);
  }
  return bytes;
}

}  // namespace

// Material textures without a mip chain that a draw minifies: some triangle spreads 2 or more texels
// over each pixel (max_texels_per_pixel). Arm, Mali GPU Application Optimization Guide, "Use
// mipmapping" (mipmapping reduces memory bandwidth and increases texture cacheability; about 33% more memory).
std::vector<Finding> add_mipmaps(const RuleInput& in) {
  constexpr double kMinified = 2;  // texels per pixel from which the level rule picks level >= 1 somewhere
  std::vector<Finding> out;
  if (!in.parsed) return out;
  for (size_t t = 0; t < in.parsed->textures.size(); ++t) {
    const Texture& tex = in.parsed->textures[t];
    const int index = texture_index(in.trace, tex.name);
    if (tex.mip_mode != MipMode::none || std::max(tex.width, tex.height) < 2 || index < 0) continue;
    DrawSite top;
    double ratio = 0;
    for_each_sampling_draw(*in.parsed, int(t), 0, [&](const DrawSite& site) {
      const double r = max_texels_per_pixel(*in.parsed, site, tex);
      if (r > ratio) top = site, ratio = r;
    });
    if (ratio < kMinified) continue;
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.1f", ratio);
    Finding f = about_texture("add-mipmaps", tex.name, top);
    f.problem = tex.name + " (" + std::to_string(tex.width) + "x" + std::to_string(tex.height) +
                ", no mip chain) is sampled minified: a triangle of " + draw_label(top) + " spreads " + figure +
                " texels over each pixel";
    f.fix = "mip: generate (" + std::to_string(chain_bytes(tex)) + " B more texture memory: levels 1 .. 1x1)";
    f.edit.push_back(set_op("/textures/" + std::to_string(index), "mip", "generate"));
    f.changes_images = true;
    f.note = "where a quad picks level 1 or higher it samples a box-filtered smaller level: fewer aliased texels";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tbdr::advise
