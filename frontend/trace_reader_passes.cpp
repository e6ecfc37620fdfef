// Trace reader, frames and render passes: overrides, attachments, subpasses, dynamic-rendering scopes
// lowered to subpasses, mid-pass clears and subpass dependencies (traces/README.md PASS, SUBPASS).
#include "frontend/trace_parser.h"

namespace tbdr::trace_parsing {

// ---- frames ---------------------------------------------------------------------------------------

Frame TraceParser::parse_frame(const JsonCursor& c, size_t index) {
  c.expect_object({"passes", "overrides"});
  Frame frame;
  if (auto passes = c.get("passes")) {
    std::set<std::string> names;
    for (const auto& p : passes->elements()) {
      frame.passes.push_back(parse_pass(p));
      if (!names.insert(frame.passes.back().name).second)
        p.child("name").fail("duplicate pass name " + in_quotes(frame.passes.back().name) + " in this frame");
    }
  } else if (index == 0) {
    c.child("passes").fail("the first frame needs passes (absent means: repeat the previous frame's passes)");
  } else {
    // Absent: the previous frame's passes as it ran them, its overrides included.
    frame.passes = m_trace.frames[index - 1].passes;
  }
  if (auto overrides = c.get("overrides")) apply_overrides(*overrides, frame);
  check_trace_totals(c, frame);
  return frame;
}

// The whole trace's passes and vertices so far, a frame at a time (a frame without passes repeats the
// previous one's, so the totals are counted from what the frame runs, not from its JSON).
void TraceParser::check_trace_totals(const JsonCursor& c, const Frame& frame) {
  const JsonCursor where = c.get("passes") ? c.child("passes") : c;
  m_trace_passes += frame.passes.size();
  if (m_trace_passes > kMaxTracePasses)
    where.fail("the trace has " + std::to_string(m_trace_passes) + " passes up to this frame, over the limit of " +
               std::to_string(kMaxTracePasses) + " (traces/README.md \"Limits\")");
  for (const Pass& pass : frame.passes)
    for (const Subpass& subpass : pass.subpasses)
      for (const Draw& draw : subpass.draws) m_trace_vertices += uint64_t(draw.index_count) * draw.instance_count;
  if (m_trace_vertices > kMaxTraceVertices)
    where.fail("the trace draws " + std::to_string(m_trace_vertices) + " vertices up to this frame " +
               "(index_count x instance_count over every pass), over the limit of " +
               std::to_string(kMaxTraceVertices) + " (traces/README.md \"Limits\")");
}

void TraceParser::apply_overrides(const JsonCursor& c, Frame& frame) {
  for (const auto& [draw_name, entry] : c.members()) {
    entry.expect_object({"transform", "params"});
    DrawOverride override_entry;
    if (auto transform = entry.get("transform")) override_entry.transform = parse_transform(*transform);
    auto params = entry.get("params");
    if (params && !params->json().is_object()) params->fail("expected an object, got " + JsonCursor::describe(params->json()));

    size_t matched = 0;
    for (Pass& pass : frame.passes)
      for (Subpass& subpass : pass.subpasses)
        for (Draw& draw : subpass.draws) {
          if (draw.name != draw_name) continue;
          ++matched;
          if (override_entry.transform) {
            check_transform_fits_mesh(entry.child("transform"), *override_entry.transform, draw.mesh);
            draw.transform = *override_entry.transform;
          }
          if (params) {
            // Validated against each draw's own program: draws sharing a name may differ.
            std::map<std::string, std::vector<float>> values;
            merge_params(*params, *find_program(draw.program.name), values);
            for (auto& [key, value] : values) draw.program.params[key] = value;
            override_entry.params = std::move(values);
          }
        }
    if (matched == 0) entry.fail("no draw named " + in_quotes(draw_name) + " in this frame");
    frame.overrides[draw_name] = std::move(override_entry);
  }
}

Pass TraceParser::parse_pass(const JsonCursor& c) {
  if (!c.json().is_object()) c.fail("expected a pass object, got " + JsonCursor::describe(c.json()));
  Pass pass;
  pass.type = read_enum<PassType>(c, PassType::render, kPassTypes, "type");
  pass.name = c.require("name").as_name();
  switch (pass.type) {
    case PassType::render: parse_render_pass(c, pass); break;
    case PassType::compute: parse_compute_pass(c, pass); break;
    case PassType::copy:
    case PassType::blit:
    case PassType::resolve: parse_transfer_pass(c, pass); break;
    case PassType::barrier: parse_barrier_pass(c, pass); break;
  }
  return pass;
}

// ---- render passes --------------------------------------------------------------------------------

// `inferred` (tools/rdc2trace, OpenGL ES / OpenGL captures): why each op was chosen, naming the call's
// event id, for the advisor and the reader; checked as strings, not simulated.
void check_inferred(const JsonCursor& c, std::initializer_list<std::string_view> keys) {
  if (auto inferred = c.get("inferred")) {
    inferred->expect_object(keys);
    for (std::string_view key : keys)
      if (auto reason = inferred->get(key)) (void)reason->as_string();
  }
}

Attachment TraceParser::parse_attachment(const JsonCursor& c, AttachmentView& view) {
  c.expect_object({"image", "mip", "layer", "load", "store", "stencil_load", "stencil_store", "clear",
                   "old_layout", "new_layout", "contents", "inferred"});
  check_inferred(c, {"load", "store", "stencil_load", "stencil_store"});
  Attachment a;
  a.image = m_images.lookup(c.require("image"));
  const ImageDesc& image = m_trace.images[a.image];
  a.mip = parse_mip(c, image);
  a.layer = parse_layer(c, image);
  a.load = read_enum<LoadOp>(c, LoadOp::dont_care, kLoadOps, "load");
  a.store = read_enum<StoreOp>(c, StoreOp::store, kStoreOps, "store");
  a.stencil_load = read_enum<LoadOp>(c, LoadOp::dont_care, kLoadOps, "stencil_load");
  a.stencil_store = read_enum<StoreOp>(c, StoreOp::dont_care, kStoreOps, "stencil_store");
  if (auto clear = c.get("clear")) a.clear = parse_clear_value(*clear, is_depth_stencil(image.format));
  a.old_layout = read_enum<Layout>(c, Layout::undefined, kLayouts, "old_layout");
  a.new_layout = read_enum<Layout>(c, Layout::general, kLayouts, "new_layout");
  if (auto contents = c.get("contents")) {
    contents->expect_object({"file", "captured"});
    if (image.transient) contents->fail("a transient image is never stored: it cannot have stored contents");
    ImageContents stored;
    stored.mip = a.mip;
    stored.layer = a.layer;
    decode_contents(*contents, image, stored);
    a.contents = std::move(stored);
  }
  view = {image.name, image.format, image.samples, mip_extent(image.width, a.mip), mip_extent(image.height, a.mip)};
  return a;
}

// Color: [r,g,b,a]; depth/stencil: {"depth", "stencil"} (README, ATTACHMENT `clear`).
ClearValue TraceParser::parse_clear_value(const JsonCursor& c, bool depth_stencil) const {
  ClearValue value;
  if (depth_stencil) {
    c.expect_object({"depth", "stencil"});
    if (auto depth = c.get("depth")) value.depth = depth->as_float(0.0, 1.0);
    value.stencil = read_uint(c, "stencil", 0, 0, 255);
  } else {
    if (!c.json().is_array())
      c.fail("expected a color [r, g, b, a] (the attachment has a color format), got " +
             JsonCursor::describe(c.json()));
    value.color = to_vec4(c.as_floats(4));
  }
  return value;
}

// A draw that samples an image view its subpass renders to (a color or resolve attachment, or the
// depth/stencil attachment when the draw writes depth or stencil) is a feedback loop: Vulkan leaves
// it undefined without VK_EXT_attachment_feedback_loop_layout, and the TBDR path (tile memory) and
// the IMR path (memory) would read different values, so the reader refuses it.
void check_feedback_loops(const std::vector<JsonCursor>& draw_cursors, const Pass& pass, const Subpass& subpass) {
  std::vector<int32_t> written = subpass.color;
  written.insert(written.end(), subpass.resolve.begin(), subpass.resolve.end());
  written.push_back(subpass.depth_resolve);
  for (size_t d = 0; d < subpass.draws.size(); ++d) {
    const Draw& draw = subpass.draws[d];
    std::vector<int32_t> targets = written;
    if (draw.state.depth_write || draw.state.stencil_test) targets.push_back(subpass.depth);
    for (const Binding& b : draw.program.bindings) {
      if (!b.is_image) continue;
      for (const int32_t ref : targets) {
        if (ref == kUnused) continue;
        const Attachment& a = pass.attachments[size_t(ref)];
        if (a.image == b.resource_index && a.mip == b.mip && a.layer == b.layer)
          draw_cursors[d].fail(
              "this draw" + (draw.name.empty() ? "" : " (" + in_quotes(draw.name) + ")") +
              " samples image " + in_quotes(b.resource) + " (binding " + in_quotes(b.slot) + ", mip " +
              std::to_string(b.mip) + ", layer " + std::to_string(b.layer) + "), which its subpass renders to as attachment " +
              std::to_string(ref) + ": a feedback loop (traces/README.md \"Reader rules beyond the tables\")");
      }
    }
  }
}

void TraceParser::parse_render_pass(const JsonCursor& c, Pass& pass) {
  c.expect_object(
      {"name", "type", "attachments", "render_area", "subpasses", "dependencies", "rendering", "inferred"});
  check_inferred(c, {"begin", "end"});
  std::vector<AttachmentView> views;
  if (auto attachments = c.get("attachments")) {
    const auto list = attachments->elements();
    if (list.size() > kMaxAttachments)
      attachments->fail("the render pass has " + std::to_string(list.size()) + " attachments, over the limit of " +
                        std::to_string(kMaxAttachments) + " (traces/README.md \"Limits\")");
    views.resize(list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      pass.attachments.push_back(parse_attachment(list[i], views[i]));
      if (views[i].width != views[0].width || views[i].height != views[0].height)
        list[i].fail("attachment " + std::to_string(i) + " (image " + in_quotes(views[i].image_name) + ") is " +
                     size_text(views[i].width, views[i].height) + " at its mip, but attachment 0 is " +
                     size_text(views[0].width, views[0].height) + "; all attachments of a render pass have one size");
    }
  }

  Rect area;
  if (auto render_area = c.get("render_area")) {
    area = parse_rect(*render_area);
    if (!views.empty()) require_rect_inside(*render_area, area, views[0].width, views[0].height, "the attachments");
  } else if (views.empty()) {
    c.child("render_area").fail("required when the pass has no attachments");
  } else {
    area = Rect{0, 0, views[0].width, views[0].height};
  }
  // Filled in so sim/ need not recompute the default.
  pass.render_area = area;

  m_pass_vertices = 0;
  if (auto rendering = c.get("rendering")) {
    if (c.has("subpasses") || c.has("dependencies"))
      rendering->fail("a pass has either `rendering` (one dynamic-rendering scope) or `subpasses`, not both");
    parse_rendering(*rendering, pass, views);
    return;
  }
  const auto subpasses = c.require("subpasses").elements(1);
  size_t draws = 0;
  for (const auto& s : subpasses) {
    // The draw limit is checked on the counts before any draw is parsed.
    if (!s.json().is_object()) continue;  // parse_subpass reports it
    if (auto list = s.get("draws"); list && list->json().is_array()) {
      draws += list->json().size();
      if (draws > kMaxDrawsPerPass)
        list->fail("the render pass has more than " + std::to_string(kMaxDrawsPerPass) +
                   " draws over its subpasses (traces/README.md \"Limits\")");
    }
  }
  for (const auto& s : subpasses) pass.subpasses.push_back(parse_subpass(s, views, area));
  for (size_t s = 0; s < subpasses.size(); ++s) {
    std::vector<JsonCursor> draw_cursors;
    for (size_t d = 0; d < pass.subpasses[s].draws.size(); ++d) draw_cursors.push_back(subpasses[s].child("draws").at(d));
    check_feedback_loops(draw_cursors, pass, pass.subpasses[s]);
  }
  if (auto dependencies = c.get("dependencies"))
    for (const auto& d : dependencies->elements()) pass.dependencies.push_back(parse_dependency(d, subpasses.size()));
}

// "attachment 2 (image "gbuffer", rgba8_unorm, 4 sample(s))": how subpass errors name an attachment.
std::string describe_attachment(const std::vector<AttachmentView>& views, int32_t index) {
  const AttachmentView& v = views[index];
  return "attachment " + std::to_string(index) + " (image " + in_quotes(v.image_name) + ", " +
         format_info(v.format).name + ", " + std::to_string(v.samples) + " sample(s))";
}

// One attachment reference: an index into the pass's attachments, or null = unused.
int32_t parse_attachment_ref(const JsonCursor& ref, const std::vector<AttachmentView>& views, bool allow_null) {
  if (ref.is_null()) {
    if (!allow_null) ref.fail("expected an attachment index, got null");
    return kUnused;
  }
  if (views.empty()) ref.fail("the render pass has no attachments to refer to");
  return static_cast<int32_t>(ref.as_int(0, static_cast<int64_t>(views.size()) - 1));
}

// A resolve from `source` into `target`: a multisampled source, a single-sample target of its format.
void check_resolve_pair(const JsonCursor& where, const std::vector<AttachmentView>& views, int32_t source,
                        int32_t target) {
  if (views[source].samples == 1)
    where.fail("resolves " + describe_attachment(views, source) + ", which is single-sample");
  if (views[target].samples != 1)
    where.fail("resolve target " + describe_attachment(views, target) + " is not single-sample");
  if (views[target].format != views[source].format)
    where.fail("resolve target " + describe_attachment(views, target) + " has not the format of " +
               describe_attachment(views, source));
}

// The subpass's `resolve` (one per color reference), `depth_resolve` and their modes.
void parse_subpass_resolves(const JsonCursor& c, const std::vector<AttachmentView>& views, Subpass& subpass) {
  if (auto resolve = c.get("resolve")) {
    const size_t n = resolve->expect_array();
    if (n != subpass.color.size())
      resolve->fail("expected one resolve reference per color reference (" + std::to_string(subpass.color.size()) +
                    "), got " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) {
      const JsonCursor where = resolve->at(i);
      const int32_t target = parse_attachment_ref(where, views, true);
      subpass.resolve.push_back(target);
      if (target == kUnused) continue;
      const int32_t source = subpass.color[i];
      if (source == kUnused) where.fail("resolves color slot " + std::to_string(i) + ", which is unused");
      check_resolve_pair(where, views, source, target);
    }
  }
  subpass.depth_resolve_mode = read_enum<ResolveMode>(c, ResolveMode::none, kResolveModes, "depth_resolve_mode");
  subpass.stencil_resolve_mode =
      read_enum<ResolveMode>(c, ResolveMode::none, kResolveModes, "stencil_resolve_mode");
  if (auto depth_resolve = c.get("depth_resolve")) {
    subpass.depth_resolve = parse_attachment_ref(*depth_resolve, views, true);
    if (subpass.depth_resolve != kUnused) {
      const int32_t target = subpass.depth_resolve, source = subpass.depth;
      if (source == kUnused) depth_resolve->fail("the subpass has no depth attachment to resolve");
      check_resolve_pair(*depth_resolve, views, source, target);
      // VkSubpassDescriptionDepthStencilResolve: the two modes must not both be none.
      if (subpass.depth_resolve_mode == ResolveMode::none && subpass.stencil_resolve_mode == ResolveMode::none)
        depth_resolve->fail("depth_resolve needs depth_resolve_mode or stencil_resolve_mode other than none");
    }
  }
}

Subpass TraceParser::parse_subpass(const JsonCursor& c, const std::vector<AttachmentView>& views, const Rect& area) {
  c.expect_object({"color", "depth", "input", "resolve", "depth_resolve", "depth_resolve_mode",
                   "stencil_resolve_mode", "preserve", "draws", "clears", "tile_dispatches"});
  Subpass subpass;
  auto parse_ref_list = [&](const char* key, bool allow_null, size_t max) {
    std::vector<int32_t> refs;
    if (auto list = c.get(key)) {
      list->expect_array(0, max);
      for (const auto& ref : list->elements()) refs.push_back(parse_attachment_ref(ref, views, allow_null));
    }
    return refs;
  };

  // Color and depth references share one sample count (Vulkan: pipeline rasterizationSamples).
  std::optional<uint32_t> samples;
  auto check_samples = [&](const JsonCursor& where, int32_t index) {
    if (samples && *samples != views[index].samples)
      where.fail(describe_attachment(views, index) + " does not match the subpass's other attachments' " +
                 std::to_string(*samples) + " sample(s)");
    samples = views[index].samples;
  };

  subpass.color = parse_ref_list("color", true, kMaxColorRefs);
  for (size_t i = 0; i < subpass.color.size(); ++i) {
    const int32_t ref = subpass.color[i];
    if (ref == kUnused) continue;
    const JsonCursor where = c.child("color").at(i);
    if (is_depth_stencil(views[ref].format)) where.fail(describe_attachment(views, ref) + " is not a color format");
    check_samples(where, ref);
  }
  if (auto depth = c.get("depth")) {
    subpass.depth = parse_attachment_ref(*depth, views, true);
    if (subpass.depth != kUnused) {
      if (!is_depth_stencil(views[subpass.depth].format))
        depth->fail(describe_attachment(views, subpass.depth) + " is not a depth/stencil format");
      check_samples(*depth, subpass.depth);
    }
  }
  subpass.input = parse_ref_list("input", true, SIZE_MAX);
  subpass.preserve = parse_ref_list("preserve", false, SIZE_MAX);
  parse_subpass_resolves(c, views, subpass);

  if (auto draws = c.get("draws"))
    for (const auto& d : draws->elements()) subpass.draws.push_back(parse_draw(d, subpass));
  if (auto clears = c.get("clears"))
    for (const auto& k : clears->elements()) subpass.clears.push_back(parse_mid_pass_clear(k, subpass, views, area));
  if (auto dispatches = c.get("tile_dispatches"))
    for (const auto& d : dispatches->elements()) subpass.tile_dispatches.push_back(parse_tile_dispatch(d));
  return subpass;
}

// ---- dynamic rendering with local reads -----------------------------------------------------------

// VkRenderingAttachmentLocationInfo (vkCmdSetRenderingAttachmentLocationsKHR): color attachment i of
// the scope is written by fragment output `color_locations[i]`, null = not written; default:
// location i. Returns the draw's color slots (location -> pass attachment).
std::vector<int32_t> local_color_slots(const JsonCursor& c, const RenderingScope& scope) {
  std::vector<int32_t> slots;
  auto place = [&](uint32_t location, int32_t attachment, const JsonCursor& where) {
    if (slots.size() <= location) slots.resize(location + 1, kUnused);
    if (slots[location] != kUnused) where.fail("location " + std::to_string(location) + " is given twice");
    slots[location] = attachment;
  };
  const auto list = c.get("color_locations");
  if (!list) {
    for (size_t i = 0; i < scope.color.size(); ++i) place(uint32_t(i), scope.color[i], c);
    return slots;
  }
  const auto locations = list->elements(scope.color.size(), scope.color.size());
  for (size_t i = 0; i < locations.size(); ++i)
    if (!locations[i].is_null()) place(locations[i].as_uint(0, kMaxColorRefs - 1), scope.color[i], locations[i]);
  return slots;
}

// VkRenderingInputAttachmentIndexInfo (vkCmdSetRenderingInputAttachmentIndicesKHR): input attachment
// index k reads pass attachment `local_reads[k]`, which must be one of the scope's color or depth
// attachments: those are the only ones the mapping can name.
std::vector<int32_t> local_reads(const JsonCursor& c, const RenderingScope& scope, const Pass& pass) {
  std::vector<int32_t> reads;
  if (auto list = c.get("local_reads")) {
    for (const auto& ref : list->elements()) {
      const auto index = static_cast<int32_t>(ref.as_int(0, static_cast<int64_t>(pass.attachments.size()) - 1));
      const bool in_scope = index == scope.depth ||
                            std::find(scope.color.begin(), scope.color.end(), index) != scope.color.end();
      if (!in_scope)
        ref.fail("attachment " + std::to_string(index) + " is not in the rendering scope (its `color` or `depth`): " +
                 "a local read reads only the scope's own attachments");
      reads.push_back(index);
    }
  }
  return reads;
}

// Vulkan: a fragment shader reads what earlier draws of the scope wrote only after a pipeline barrier
// inside the rendering scope with VK_DEPENDENCY_BY_REGION_BIT (VK_KHR_dynamic_rendering_local_read);
// VK_EXT_shader_tile_image's color reads are coherent in rasterization order without one, its depth
// and stencil reads are not. A draw never reads what it writes itself (the built-in programs have no
// programmable blending).
void check_local_read_hazards(const JsonCursor& c, RenderingScope& scope, const Subpass& layout, const Draw& draw,
                              bool barrier) {
  if (barrier) std::fill(scope.unsynchronized.begin(), scope.unsynchronized.end(), false);
  const bool writes_depth = draw.state.depth_write || draw.state.stencil_test;
  for (const int32_t read : layout.input) {
    const bool own_write = (read == layout.depth && writes_depth) ||
                           std::find(layout.color.begin(), layout.color.end(), read) != layout.color.end();
    if (own_write)
      c.child("local_reads").fail("the draw reads attachment " + std::to_string(read) + ", which it writes: a feedback loop");
    const bool coherent = scope.reads == LocalRead::tile_image && read != scope.depth;
    if (scope.unsynchronized[size_t(read)] && !coherent)
      c.child("local_reads").fail("attachment " + std::to_string(read) + " was written by an earlier draw of the scope " +
                                  "with no local-read barrier since (`barrier_before`)");
  }
  for (const int32_t slot : layout.color)
    if (slot != kUnused) scope.unsynchronized[size_t(slot)] = true;
  if (layout.depth != kUnused && writes_depth) scope.unsynchronized[size_t(layout.depth)] = true;
}

// The by-region dependency a local-read barrier is, between two lowered subpasses.
SubpassDependency local_read_dependency(size_t next_subpass) {
  SubpassDependency d;
  d.src_subpass = static_cast<int32_t>(next_subpass - 1);
  d.dst_subpass = static_cast<int32_t>(next_subpass);
  d.src_stages = kStageColorAttachmentOutput | kStageEarlyFragmentTests | kStageLateFragmentTests;
  d.dst_stages = kStageFragmentShader;
  d.src_access = kAccessColorAttachmentWrite | kAccessDepthStencilAttachmentWrite;
  d.dst_access = kAccessInputAttachmentRead;
  d.by_region = true;
  return d;
}


// A PASS `rendering`: one vkCmdBeginRendering .. vkCmdEndRendering scope whose draws read attachments
// at the same pixel, through VK_KHR_dynamic_rendering_local_read (input attachments mapped with
// vkCmdSetRenderingInputAttachmentIndicesKHR) or VK_EXT_shader_tile_image. The extension proposal
// ("minimal deviation from multi-pass code using render pass objects") makes a span of draws between
// local-read barriers what a subpass is, so the reader lowers the scope to subpasses with by-region
// dependencies; plan, merge and costing then treat local reads exactly as input attachments.
void TraceParser::parse_rendering(const JsonCursor& c, Pass& pass, const std::vector<AttachmentView>& views) {
  c.expect_object({"reads", "color", "depth", "draws"});
  RenderingScope scope;
  scope.reads = read_enum<LocalRead>(c, LocalRead::input_attachment, kLocalReads, "reads");
  scope.unsynchronized.assign(views.size(), false);
  auto attachment_ref = [&](const JsonCursor& ref) {
    if (views.empty()) ref.fail("the render pass has no attachments to refer to");
    return static_cast<int32_t>(ref.as_int(0, static_cast<int64_t>(views.size()) - 1));
  };
  if (auto color = c.get("color")) {
    for (const auto& ref : color->elements(0, kMaxColorRefs)) {
      const int32_t index = attachment_ref(ref);
      if (is_depth_stencil(views[index].format)) ref.fail("attachment " + std::to_string(index) + " is not a color format");
      if (std::find(scope.color.begin(), scope.color.end(), index) != scope.color.end())
        ref.fail("attachment " + std::to_string(index) + " is already a color attachment of the scope");
      if (views[index].samples != views[scope.color.empty() ? index : scope.color[0]].samples)
        ref.fail("attachment " + std::to_string(index) + " has another sample count than color attachment 0");
      scope.color.push_back(index);
    }
  }
  if (auto depth = c.get("depth"); depth && !depth->is_null()) {
    scope.depth = attachment_ref(*depth);
    if (!is_depth_stencil(views[scope.depth].format))
      depth->fail("attachment " + std::to_string(scope.depth) + " is not a depth/stencil format");
  }
  const auto draws = c.require("draws").elements(1, kMaxDrawsPerPass);
  pass.local_read = scope.reads;
  for (const auto& d : draws) parse_local_draw(d, scope, pass);
  for (size_t s = 0; s < pass.subpasses.size(); ++s) check_feedback_loops(scope.draw_cursors[s], pass, pass.subpasses[s]);
}

// One draw of a rendering scope: its color locations and local reads decide its subpass; a draw
// that changes them, or follows a local-read barrier, starts the next one.
void TraceParser::parse_local_draw(const JsonCursor& c, RenderingScope& scope, Pass& pass) {
  if (!c.json().is_object()) c.fail("expected a draw object, got " + JsonCursor::describe(c.json()));
  Subpass layout;
  layout.depth = scope.depth;
  layout.color = local_color_slots(c, scope);
  layout.input = local_reads(c, scope, pass);
  const bool barrier = read_bool(c, "barrier_before", false);
  Draw draw = parse_draw(c, layout, true);
  check_local_read_hazards(c, scope, layout, draw, barrier);

  const bool same_layout = !pass.subpasses.empty() && pass.subpasses.back().color == layout.color &&
                           pass.subpasses.back().input == layout.input;
  if (!same_layout || barrier) {
    if (!pass.subpasses.empty()) pass.dependencies.push_back(local_read_dependency(pass.subpasses.size()));
    pass.subpasses.push_back(std::move(layout));
    scope.draw_cursors.emplace_back();
  }
  pass.subpasses.back().draws.push_back(std::move(draw));
  scope.draw_cursors.back().push_back(c);
  ++scope.draws;
}

MidPassClear TraceParser::parse_mid_pass_clear(const JsonCursor& c, const Subpass& subpass,
                                               const std::vector<AttachmentView>& views, const Rect& area) {
  c.expect_object({"before_draw", "color", "depth", "stencil", "value", "rects"});
  MidPassClear clear;
  clear.before_draw = read_uint(c, "before_draw", 0, 0, static_cast<uint32_t>(subpass.draws.size()));
  if (auto color = c.get("color")) {
    for (const auto& slot_cursor : color->elements()) {
      if (subpass.color.empty()) slot_cursor.fail("the subpass has no color attachments");
      const uint32_t slot = slot_cursor.as_uint(0, static_cast<uint32_t>(subpass.color.size()) - 1);
      if (subpass.color[slot] == kUnused) slot_cursor.fail("color slot " + std::to_string(slot) + " is unused");
      clear.color.push_back(static_cast<int32_t>(slot));
    }
  }
  clear.depth = read_bool(c, "depth", false);
  clear.stencil = read_bool(c, "stencil", false);
  if (clear.depth || clear.stencil) {
    if (subpass.depth == kUnused) c.fail("clears depth/stencil, but the subpass has no depth attachment");
    const FormatInfo& info = format_info(views[subpass.depth].format);
    if (clear.depth && !info.has_depth) c.child("depth").fail(std::string(info.name) + " has no depth aspect");
    if (clear.stencil && !info.has_stencil) c.child("stencil").fail(std::string(info.name) + " has no stencil aspect");
  }
  if (auto value = c.get("value")) {
    // CLEAR: an array is a color, an object a depth/stencil value.
    clear.value = parse_clear_value(*value, !value->json().is_array());
  }
  if (auto rects = c.get("rects")) {
    for (const auto& r : rects->elements()) {
      Rect rect = parse_rect(r);
      // vkCmdClearAttachments: rects must lie inside the render area.
      const bool inside = rect.x >= area.x && rect.y >= area.y &&
                          uint64_t(rect.x) + rect.width <= uint64_t(area.x) + area.width &&
                          uint64_t(rect.y) + rect.height <= uint64_t(area.y) + area.height;
      if (!inside) r.fail("rectangle " + rect_text(rect) + " does not lie inside the render area " + rect_text(area));
      clear.rects.push_back(rect);
    }
  }
  return clear;
}

SubpassDependency TraceParser::parse_dependency(const JsonCursor& c, size_t subpass_count) {
  c.expect_object({"src_subpass", "dst_subpass", "src_stages", "dst_stages", "src_access", "dst_access", "by_region"});
  SubpassDependency d;
  auto parse_subpass_ref = [&](const char* key) -> int32_t {
    const JsonCursor ref = c.require(key);
    if (ref.json().is_string()) {
      if (ref.as_string() != "external")
        ref.fail("expected a subpass index or \"external\", got " + JsonCursor::describe(ref.json()));
      return kSubpassExternal;
    }
    return static_cast<int32_t>(ref.as_int(0, static_cast<int64_t>(subpass_count) - 1));
  };
  d.src_subpass = parse_subpass_ref("src_subpass");
  d.dst_subpass = parse_subpass_ref("dst_subpass");
  if (d.src_subpass == kSubpassExternal && d.dst_subpass == kSubpassExternal)
    c.fail("src_subpass and dst_subpass cannot both be \"external\"");
  // Vulkan: a dependency never points backwards in submission order.
  if (d.src_subpass != kSubpassExternal && d.dst_subpass != kSubpassExternal && d.src_subpass > d.dst_subpass)
    c.child("dst_subpass").fail("dst_subpass " + std::to_string(d.dst_subpass) + " is before src_subpass " +
                                std::to_string(d.src_subpass));
  d.src_stages = read_bits<PipelineStage>(c, "src_stages", kStages);
  d.dst_stages = read_bits<PipelineStage>(c, "dst_stages", kStages);
  d.src_access = read_bits<AccessFlag>(c, "src_access", kAccessFlags);
  d.dst_access = read_bits<AccessFlag>(c, "dst_access", kAccessFlags);
  d.by_region = read_bool(c, "by_region", false);
  return d;
}

}  // namespace tbdr::trace_parsing
