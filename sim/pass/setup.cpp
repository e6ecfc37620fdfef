// Stage 0 of a render pass: resolves its attachments, draws and render area (PassSetup).
#include "sim/pass/setup.h"

#include <algorithm>

#include "models/errors.h"
#include "sim/format.h"
#include "sim/savers.h"

namespace tbdr {
namespace {

// The pass's attachments: one size for all (Vulkan: a framebuffer's attachments share its
// extent here), each aspect's load and store ops folded into loads / stores.
void prepare_attachments(PassSetup& s, ImageStore& store) {
  const Pass& pass = *s.pass;
  if (pass.attachments.empty()) throw InputError(s.where, "a render pass needs at least one attachment");
  uint32_t width = 0, height = 0;
  for (size_t i = 0; i < pass.attachments.size(); ++i) {
    const Attachment& a = pass.attachments[i];
    PassAttachment pa;
    pa.desc = &a;
    pa.image = &s.trace->images[size_t(a.image)];
    pa.surface = &store.surface(a.image, a.mip, a.layer);
    const FormatInfo& info = format_info(pa.image->format);
    pa.color = info.channels > 0;
    pa.loads = (info.channels > 0 || info.has_depth) ? a.load == LoadOp::load : false;
    pa.loads = pa.loads || (info.has_stencil && a.stencil_load == LoadOp::load);
    pa.stores = (info.channels > 0 || info.has_depth) ? a.store == StoreOp::store : false;
    pa.stores = pa.stores || (info.has_stencil && a.stencil_store == StoreOp::store);
    pa.bytes_per_pixel = uint64_t(info.bytes_per_pixel) * pa.image->samples;
    if (i == 0) {
      width = pa.surface->width;
      height = pa.surface->height;
    } else if (pa.surface->width != width || pa.surface->height != height) {
      throw InputError(s.where + "/attachments/" + std::to_string(i),
                       "attachment size differs from attachment 0 (" + std::to_string(width) + "x" +
                           std::to_string(height) + ")");
    }
    s.attachments.push_back(pa);
  }
  for (const Subpass& sp : pass.subpasses) {
    for (int32_t r : sp.resolve)
      if (r != kUnused) s.attachments[size_t(r)].resolve_target = true;
    if (sp.depth_resolve != kUnused) s.attachments[size_t(sp.depth_resolve)].resolve_target = true;
  }
  s.framebuffer_width = width;
  s.framebuffer_height = height;
  s.area = pass.render_area.value_or(Rect{0, 0, width, height});
  const Rect inside = intersect(s.area, Rect{0, 0, width, height});
  if (inside.width != s.area.width || inside.height != s.area.height)
    throw InputError(s.where + "/render_area", "render area must lie inside the attachments");
}

// The largest sample count of a subpass's color and depth attachments, which must agree.
uint32_t checked_subpass_samples(const PassSetup& s, uint32_t index) {
  const Subpass& sp = s.pass->subpasses[index];
  uint32_t samples = 0;
  auto check_samples = [&](int32_t ref) {
    if (ref == kUnused) return;
    const uint32_t n = s.attachments[size_t(ref)].image->samples;
    if (samples && n != samples)
      throw InputError(s.where + "/subpasses/" + std::to_string(index),
                       "color and depth attachments of a subpass must have one sample count");
    samples = n;
  };
  for (int32_t c : sp.color) check_samples(c);
  check_samples(sp.depth);
  return samples;
}

void collect_draws(PassSetup& s) {
  for (uint32_t i = 0; i < s.pass->subpasses.size(); ++i) {
    const Subpass& sp = s.pass->subpasses[i];
    const uint32_t samples = checked_subpass_samples(s, i);
    s.samples = std::max(s.samples, samples);
    for (uint32_t d = 0; d < sp.draws.size(); ++d) {
      const Draw& draw = sp.draws[d];
      PassDraw pd;
      pd.draw = &draw;
      pd.subpass = i;
      pd.index_in_subpass = d;
      pd.viewport = draw.viewport.value_or(
          Viewport{float(s.area.x), float(s.area.y), float(s.area.width), float(s.area.height), 0.0f, 1.0f});
      pd.scissor = intersect(draw.scissor.value_or(s.area), s.area);
      pd.samples = std::max(1u, samples);
      s.draws.push_back(pd);
    }
  }
}

// The record size of every primitive of each draw (a per-primitive lookup through its mesh
// would repeat it for each of a million primitives and their list entries). A per-tile draw
// (VK_QCOM_tile_shading) is issued in each tile, not binned: an empty clip lists it in no tile and
// a record of 0 B keeps it out of the parameter buffer.
void size_records(PassSetup& s) {
  for (const PassDraw& d : s.draws) {
    const Mesh& mesh = s.trace->meshes[size_t(d.draw->mesh)];
    const uint64_t varyings = (mesh.colors.empty() ? 0 : 4) + (mesh.uvs.empty() ? 0 : 2) + (mesh.normals.empty() ? 0 : 3);
    s.draw_record_bytes.push_back(d.draw->per_tile ? 0 : 3 * (16 + 4 * varyings));
    s.draw_clip.push_back(d.draw->per_tile ? Rect{s.area.x, s.area.y, 0, 0} : d.scissor);
  }
}

}  // namespace

Rect intersect(const Rect& a, const Rect& b) {
  const int64_t x0 = std::max<int64_t>(a.x, b.x), y0 = std::max<int64_t>(a.y, b.y);
  const int64_t x1 = std::min<int64_t>(int64_t(a.x) + a.width, int64_t(b.x) + b.width);
  const int64_t y1 = std::min<int64_t>(int64_t(a.y) + a.height, int64_t(b.y) + b.height);
  if (x1 <= x0 || y1 <= y0) return Rect{int32_t(x0), int32_t(y0), 0, 0};
  return Rect{int32_t(x0), int32_t(y0), uint32_t(x1 - x0), uint32_t(y1 - y0)};
}

PassSetup prepare_pass(const Trace& trace, const Pass& pass, const std::string& where, ImageStore& store) {
  PassSetup s;
  s.trace = &trace;
  s.pass = &pass;
  s.where = where;
  prepare_attachments(s, store);
  collect_draws(s);
  size_records(s);
  return s;
}

std::vector<uint32_t> subpass_references(const Subpass& sp) {
  std::vector<uint32_t> refs;
  for (const std::vector<int32_t>* list : {&sp.color, &sp.input, &sp.resolve})
    for (int32_t a : *list)
      if (a != kUnused) refs.push_back(uint32_t(a));
  if (sp.depth != kUnused) refs.push_back(uint32_t(sp.depth));
  if (sp.depth_resolve != kUnused) refs.push_back(uint32_t(sp.depth_resolve));
  return refs;
}

uint32_t subpass_samples(const PassSetup& setup, const Subpass& sp) {
  for (int32_t c : sp.color)
    if (c != kUnused) return setup.attachments[size_t(c)].image->samples;
  return sp.depth != kUnused ? setup.attachments[size_t(sp.depth)].image->samples : 1;
}

models::AttachmentWork attachment_work(const PassAttachment& a) {
  return {format_info(a.image->format).bytes_per_pixel, a.image->samples, a.color, !a.color, a.image->transient};
}

std::vector<AttachmentStats> describe_attachments(const PassSetup& setup, const models::ModelSet& models) {
  std::vector<AttachmentStats> stats(setup.attachments.size());
  for (size_t i = 0; i < setup.attachments.size(); ++i) {
    const PassAttachment& a = setup.attachments[i];
    AttachmentStats& as = stats[i];
    as.attachment = uint32_t(i);
    as.image = a.image->name;
    as.format = format_info(a.image->format).name;
    const models::ImageTraits traits = image_traits(*a.image);
    const models::Eligibility afbc = models.compression->eligibility(traits);
    const models::Eligibility te = models.write_elim->eligibility(traits);
    as.compressed = afbc.eligible;
    as.compression = afbc.eligible ? "compressed" : afbc.reason;
    as.te_checked = te.eligible;
    as.write_elim = te.eligible ? "checked" : te.reason;
    if (const auto& contents = a.desc->contents) as.pixels = contents->captured ? "captured" : "given";
  }
  return stats;
}

}  // namespace tbdr
