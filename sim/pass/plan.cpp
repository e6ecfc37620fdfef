// The plan stage: merge grouping, direct-rendering input, and each hardware pass's attachment
// access, events and tile size (HardwarePassPlan).
#include "sim/pass/plan.h"

#include <algorithm>

#include "sim/format.h"
#include "sim/programs.h"

namespace tbdr {
namespace {

// Per attachment, where the hardware pass's subpasses [first, last] take it from and leave it.
// An attachment an earlier hardware pass used is loaded back from DRAM; one a later hardware
// pass uses is stored (a refused merge's round trip, even for transient images, which the
// driver must then back with memory). Otherwise the API's load and store ops apply.
// An attachment no subpass references is neither loaded nor stored: Vulkan, VkAttachmentDescription:
// "If an attachment is not used by any subpass, loadOp, storeOp, stencilStoreOp, and stencilLoadOp
// will be ignored for that attachment, and no load or store ops will be performed."
std::vector<AttachmentAccess> plan_access(const PassSetup& setup, int32_t first, int32_t last, bool direct) {
  const Pass& pass = *setup.pass;
  const size_t count = setup.attachments.size();
  std::vector<int32_t> first_use(count, -1), last_use(count, -1);
  std::vector<bool> in_group(count, false);
  for (int32_t s = 0; s < int32_t(pass.subpasses.size()); ++s)
    for (uint32_t a : subpass_references(pass.subpasses[size_t(s)])) {
      if (first_use[a] < 0) first_use[a] = s;
      last_use[a] = s;
      if (s >= first && s <= last) in_group[a] = true;
    }
  std::vector<AttachmentAccess> access(count);
  for (size_t a = 0; a < count; ++a) {
    if (!in_group[a]) continue;
    const bool spilled_in = first_use[a] < first, spilled_out = last_use[a] > last;
    access[a].load = spilled_in ? LoadSource::merge_spill : direct ? LoadSource::direct_cache : LoadSource::api;
    access[a].store = spilled_out ? StoreTarget::merge_spill : direct ? StoreTarget::direct_cache : StoreTarget::api;
  }
  return access;
}

// Empty-tile elimination: an empty tile leaves an attachment as it is when the API loads and
// stores every aspect (LOAD and STORE), in a pass with no mid-pass clears or inline resolves.
void mark_empty_tile_eligible(const PassSetup& setup, bool enabled, std::vector<AttachmentAccess>& access) {
  for (const Subpass& sp : setup.pass->subpasses) {
    if (!sp.clears.empty() || sp.depth_resolve != kUnused) enabled = false;
    for (int32_t r : sp.resolve) enabled = enabled && r == kUnused;
  }
  for (size_t i = 0; enabled && i < access.size(); ++i) {
    if (access[i].load != LoadSource::api || access[i].store != StoreTarget::api) continue;
    const Attachment& d = *setup.attachments[i].desc;
    const FormatInfo& info = format_info(setup.attachments[i].image->format);
    const bool main = info.channels > 0 || info.has_depth;
    if (main && (d.load != LoadOp::load || d.store != StoreOp::store)) continue;
    if (info.has_stencil && (d.stencil_load != LoadOp::load || d.stencil_store != StoreOp::store)) continue;
    access[i].empty_tile_eligible = true;
  }
}

// The hardware pass's per-tile work in order: mid-pass clears, draws, inline resolves at each
// subpass end. A render (param_buffer) runs a range of them: a draw split between two renders
// appears in both, each rasterizing the primitives binned in it; every other event runs exactly
// once, so the pixels are those of a single render.
void build_events(const PassSetup& setup, HardwarePassPlan& plan) {
  const Pass& pass = *setup.pass;
  plan.draw_event.assign(setup.draws.size(), 0);
  uint32_t global_draw = 0;
  for (uint32_t s = 0; s < plan.first_subpass; ++s) global_draw += uint32_t(pass.subpasses[s].draws.size());
  for (uint32_t s = plan.first_subpass; s <= plan.last_subpass && s < pass.subpasses.size(); ++s) {
    const Subpass& sp = pass.subpasses[s];
    for (uint32_t d = 0; d <= sp.draws.size(); ++d) {
      for (uint32_t c = 0; c < sp.clears.size(); ++c)
        if (sp.clears[c].before_draw == d || (d == sp.draws.size() && sp.clears[c].before_draw > d))
          plan.events.push_back({TileEvent::clear, s, c});
      if (d == sp.draws.size()) break;
      plan.draw_event[global_draw] = uint32_t(plan.events.size());
      plan.events.push_back({TileEvent::draw, s, global_draw++});
    }
    for (uint32_t d = 0; d < sp.tile_dispatches.size(); ++d) plan.events.push_back({TileEvent::dispatch, s, d});
    plan.events.push_back({TileEvent::resolve, s, 0});
  }
}

// The tile buffer's contents: every attachment the hardware pass loads, and its bytes per pixel
// (the working set). An inline resolve target is written at write-back, never held per sample
// in the tile buffer (Vulkan pResolveAttachments; Arm: resolve on tile write-back), so the
// working set leaves it out unless a subpass of the group also draws into it or reads it.
void size_tile_buffer(const PassSetup& setup, HardwarePassPlan& plan) {
  const size_t count = setup.attachments.size();
  std::vector<bool> in_tile_memory(count, false);  // color, depth or input of the group
  for (uint32_t sp = plan.first_subpass; sp <= plan.last_subpass; ++sp) {
    const Subpass& subpass = setup.pass->subpasses[sp];
    for (const std::vector<int32_t>* list : {&subpass.color, &subpass.input})
      for (int32_t a : *list)
        if (a != kUnused) in_tile_memory[size_t(a)] = true;
    if (subpass.depth != kUnused) in_tile_memory[size_t(subpass.depth)] = true;
  }
  plan.tiling_input.render_width = setup.area.width;
  plan.tiling_input.render_height = setup.area.height;
  for (size_t a = 0; a < count; ++a) {
    if (plan.access[a].load == LoadSource::skip) continue;
    plan.tiling_input.attachments.push_back(attachment_work(setup.attachments[a]));
    if (!setup.attachments[a].resolve_target || in_tile_memory[a])
      plan.working_set_bytes_per_pixel += setup.attachments[a].bytes_per_pixel;
  }
}

}  // namespace

models::MergeDecision decide_merge(const PassSetup& setup, const models::ModelSet& models, RenderPath path) {
  const Pass& pass = *setup.pass;
  if (path == RenderPath::imr || pass.subpasses.size() <= 1) {
    models::MergeDecision d;
    d.hardware_passes.push_back({0, uint32_t(std::max<size_t>(pass.subpasses.size(), 1) - 1)});
    return d;
  }
  models::MergeInput in;
  for (const PassAttachment& a : setup.attachments) in.attachments.push_back(attachment_work(a));
  for (const Subpass& sp : pass.subpasses) {
    models::SubpassWork w;
    for (int32_t c : sp.color)
      if (c != kUnused) w.color.push_back(uint32_t(c));
    w.depth = sp.depth;
    for (int32_t i : sp.input)
      if (i != kUnused) w.input.push_back(uint32_t(i));
    for (int32_t r : sp.resolve)
      if (r != kUnused) w.resolve.push_back(uint32_t(r));
    if (sp.depth_resolve != kUnused) w.resolve.push_back(uint32_t(sp.depth_resolve));
    w.samples = subpass_samples(setup, sp);
    in.subpasses.push_back(std::move(w));
  }
  return models.merge->decide(in);
}

// Per pixel, direct rendering reads and writes every attachment once; tiles move what the
// load/store ops ask; the draws' own traffic is their indices plus every vertex of their meshes
// (Mesa turnip's autotune compares the two: models/README.md "direct").
models::DirectInput direct_input(const PassSetup& setup) {
  models::DirectInput in;
  in.pixels = pixels(setup.area);
  in.draws = uint32_t(setup.draws.size());
  in.samples = setup.samples;
  for (const PassAttachment& a : setup.attachments) {
    in.sysmem_bytes_per_pixel += 2.0 * double(a.bytes_per_pixel);
    in.gmem_bytes_per_pixel += double(a.bytes_per_pixel) * ((a.loads ? 1 : 0) + (a.stores ? 1 : 0));
  }
  for (const PassDraw& d : setup.draws) {
    const Mesh& mesh = setup.trace->meshes[size_t(d.draw->mesh)];
    in.draw_bytes += double(d.draw->index_count) * (mesh.indices.empty() ? 0 : mesh.index_bits / 8) +
                     double(mesh.positions.size()) * mesh.position_components * 4;
  }
  return in;
}

HardwarePassPlan plan_hardware_pass(const PassSetup& setup, const models::ModelSet& models, RenderPath path,
                                    uint32_t first, uint32_t last, const models::DirectDecision* direct) {
  HardwarePassPlan plan;
  plan.first_subpass = first;
  plan.last_subpass = last;
  plan.direct = direct != nullptr;
  plan.tiled = path == RenderPath::tbdr && !plan.direct;
  if (direct) plan.direct_reason = direct->reason;
  plan.access = plan_access(setup, int32_t(first), int32_t(last), plan.direct);
  mark_empty_tile_eligible(setup, plan.tiled && models.empty_tile->enabled(), plan.access);
  for (size_t d = 0; d < setup.draws.size(); ++d) {
    if (setup.draws[d].subpass < first) plan.draw_begin = d + 1;
    if (setup.draws[d].subpass <= last) plan.draw_end = d + 1;
  }
  build_events(setup, plan);
  // Keep only the varyings this hardware pass's programs read (a vertex-color pass: 4 of 9
  // floats per vertex, 113 B per primitive instead of 173 B).
  for (size_t d = plan.draw_begin; d < plan.draw_end; ++d)
    plan.varying_stride =
        std::max(plan.varying_stride, varyings_read(program_kind(setup.draws[d].draw->program.name)));
  size_tile_buffer(setup, plan);
  if (plan.tiled) {
    const models::TileSize tile = models.tiling->choose_tile_size(plan.tiling_input);
    plan.tile_width = tile.width;
    plan.tile_height = tile.height;
    plan.tile_reason = tile.reason;
  } else {
    plan.tile_width = setup.area.width;
    plan.tile_height = setup.area.height;
    plan.tile_reason = plan.direct ? plan.direct_reason : "immediate mode: whole render area";
  }
  return plan;
}

std::vector<AttachmentAccess> render_access(const HardwarePassPlan& plan, bool first_render, bool last_render) {
  std::vector<AttachmentAccess> access = plan.access;
  for (AttachmentAccess& a : access) {
    if (!(first_render && last_render)) a.empty_tile_eligible = false;
    if (a.load == LoadSource::skip) continue;
    if (!first_render) a.load = LoadSource::flush_reload;
    if (!last_render) a.store = StoreTarget::flush_store;
  }
  return access;
}

}  // namespace tbdr
