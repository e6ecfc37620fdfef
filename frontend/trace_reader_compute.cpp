// Trace reader, the passes other than render passes: captured and tile dispatches, compute,
// transfer (copy, blit, resolve) and barrier passes, and the buffers they use (traces/README.md PASS).
#include "frontend/trace_parser.h"

namespace tbdr::trace_parsing {

// A dispatch of a captured program (tools/rdc2trace): any number of images read and written,
// each written level carrying its captured pixels; `groups` x `local_size` invocations of `cost`.
// A dispatch's `groups` x `local_size` (three sizes each, 1 - 65535: Vulkan's guaranteed
// maxComputeWorkGroupCount), at most kMaxInvocations.
uint64_t parse_invocations(const JsonCursor& c) {
  uint64_t invocations = 1;
  for (const char* key : {"groups", "local_size"}) {
    const JsonCursor size = c.require(key);
    size.expect_array(3, 3);
    for (size_t i = 0; i < 3; ++i) invocations *= size.at(i).as_uint(1, kMaxDispatchSize);
  }
  if (invocations > kMaxInvocations)
    c.child("groups").fail(std::to_string(invocations) + " invocations; at most " + std::to_string(kMaxInvocations));
  return invocations;
}

void TraceParser::parse_captured_compute(const JsonCursor& c, Pass& pass) {
  if (auto reads = c.get("reads"))
    for (const auto& r : reads->elements()) pass.reads.push_back(parse_image_ref(r, false));
  if (auto writes = c.get("writes"))
    for (const auto& w : writes->elements()) pass.writes.push_back(parse_image_ref(w, false, true));
  if (auto cost = c.get("cost")) pass.cost = parse_cost(*cost);
  pass.invocations = parse_invocations(c);
}

// ---- tile shading (VK_QCOM_tile_shading, VK_QCOM_tile_memory_heap) -------------------------------

// BUFFER: a VkBuffer whose bytes dispatches (tile dispatches, compute passes) move; `memory: tile` binds it to a tile-memory heap
// (VK_MEMORY_HEAP_TILE_MEMORY_BIT_QCOM), whose contents live in GMEM and never reach DRAM.
void TraceParser::parse_buffer(const JsonCursor& c) {
  c.expect_object({"name", "size", "memory"});
  BufferDesc buffer;
  buffer.name = c.require("name").as_name();
  m_buffers.add(buffer.name, c.child("name"));
  buffer.size = uint64_t(c.require("size").as_int(1, int64_t(1) << 40));
  if (auto memory = c.get("memory")) {
    const std::string kind = memory->as_string();
    if (kind != "device" && kind != "tile") memory->fail(JsonCursor::unknown_value_message(kind, {"device", "tile"}));
    buffer.tile_memory = kind == "tile";
  }
  m_trace.buffers.push_back(std::move(buffer));
}

// A SUBPASS `tile_dispatches` entry: vkCmdDispatchTileQCOM in per-tile execution mode
// (vkCmdBeginPerTileExecutionQCOM: "the recorded draw or dispatch is invoked exactly once for each
// covered tile"), groups x local_size invocations per tile, after the subpass's draws.
TileDispatch TraceParser::parse_tile_dispatch(const JsonCursor& c) {
  c.expect_object({"groups", "local_size", "cost", "reads", "writes"});
  TileDispatch d;
  d.invocations = parse_invocations(c);
  if (auto cost = c.get("cost")) d.cost = parse_cost(*cost);
  if (auto reads = c.get("reads"))
    for (const auto& r : reads->elements()) d.reads.push_back(m_buffers.lookup(r));
  if (auto writes = c.get("writes"))
    for (const auto& w : writes->elements()) d.writes.push_back(m_buffers.lookup(w));
  return d;
}

Rect TraceParser::image_ref_region(const ImageRef& ref) const {
  if (ref.region) return *ref.region;
  const ImageDesc& image = m_trace.images[ref.image];
  return Rect{0, 0, mip_extent(image.width, ref.mip), mip_extent(image.height, ref.mip)};
}

void TraceParser::parse_compute_pass(const JsonCursor& c, Pass& pass) {
  c.expect_object({"name", "type", "program", "reads", "writes", "cost", "groups", "local_size", "buffer_reads",
                   "buffer_writes"});
  pass.program = parse_program(c.require("program"), true);
  if (auto reads = c.get("buffer_reads"))
    for (const auto& r : reads->elements()) pass.buffer_reads.push_back(m_buffers.lookup(r));
  if (auto writes = c.get("buffer_writes"))
    for (const auto& w : writes->elements()) pass.buffer_writes.push_back(m_buffers.lookup(w));
  if (pass.program.name == "captured_compute") return parse_captured_compute(c, pass);
  for (const char* key : {"groups", "local_size"})
    if (c.has(key)) c.child(key).fail("only a captured_compute pass gives its dispatch size");
  if (auto reads = c.get("reads"))
    for (const auto& r : reads->elements()) pass.reads.push_back(parse_image_ref(r, true));
  if (auto writes = c.get("writes"))
    for (const auto& w : writes->elements()) pass.writes.push_back(parse_image_ref(w, false));
  if (auto cost = c.get("cost")) pass.cost = parse_cost(*cost);

  // The built-in compute programs' contracts (README, `compute`).
  const JsonCursor where = c.child("program").child("name");
  auto need_one_each = [&] {
    if (pass.reads.size() != 1 || pass.writes.size() != 1)
      where.fail(in_quotes(pass.program.name) + " needs exactly one read and one write, got " +
                 std::to_string(pass.reads.size()) + " and " + std::to_string(pass.writes.size()));
  };
  if (pass.program.name == "downsample") {
    need_one_each();
    // Its 2x2 filter reads every texel of each block (traces/README.md `compute`); a step would
    // promise a sparser read than the program makes, so it is refused rather than ignored.
    const ImageRef& read = pass.reads[0];
    if (read.step_x != 1 || read.step_y != 1)
      c.child("reads").at(0).child("step").fail("downsample reads every texel of its 2x2 filter; step applies to "
                                                "histogram only, got [" + std::to_string(read.step_x) + ", " +
                                                std::to_string(read.step_y) + "]");
    const Rect src = image_ref_region(pass.reads[0]), dst = image_ref_region(pass.writes[0]);
    const uint32_t w = std::max(1u, src.width / 2), h = std::max(1u, src.height / 2);
    if (dst.width != w || dst.height != h)
      c.child("writes").at(0).fail("downsample writes half the read size (" + size_text(w, h) + "), got " +
                                   size_text(dst.width, dst.height));
  } else if (pass.program.name == "histogram") {
    need_one_each();
    const ImageDesc& target = m_trace.images[pass.writes[0].image];
    const Rect dst = image_ref_region(pass.writes[0]);
    if (target.format != Format::R32F || dst.width != 256 || dst.height != 1)
      c.child("writes").at(0).fail("histogram writes a 256x1 R32F image, got " + size_text(dst.width, dst.height) +
                                   " " + format_info(target.format).name);
  }
}

void TraceParser::parse_transfer_pass(const JsonCursor& c, Pass& pass) {
  if (pass.type == PassType::blit)
    c.expect_object({"name", "type", "src", "dst", "filter"});
  else
    c.expect_object({"name", "type", "src", "dst"});
  const JsonCursor src_cursor = c.require("src"), dst_cursor = c.require("dst");
  pass.reads.push_back(parse_image_ref(src_cursor, false));
  pass.writes.push_back(parse_image_ref(dst_cursor, false));
  pass.blit_filter = read_enum<Filter>(c, Filter::nearest, kFilters, "filter");

  const ImageDesc& src = m_trace.images[pass.reads[0].image];
  const ImageDesc& dst = m_trace.images[pass.writes[0].image];
  const Rect src_region = image_ref_region(pass.reads[0]), dst_region = image_ref_region(pass.writes[0]);
  const FormatInfo &src_info = format_info(src.format), &dst_info = format_info(dst.format);
  const bool same_size = src_region.width == dst_region.width && src_region.height == dst_region.height;
  const std::string formats = std::string(src_info.name) + " -> " + dst_info.name;
  switch (pass.type) {
    case PassType::copy:
      // vkCmdCopyImage: size-compatible formats (depth/stencil: identical), equal sample counts.
      if (!same_size)
        dst_cursor.fail("copy regions differ in size: " + size_text(src_region.width, src_region.height) + " -> " +
                        size_text(dst_region.width, dst_region.height));
      if (is_depth_stencil(src.format) || is_depth_stencil(dst.format) ? src.format != dst.format
                                                                       : src_info.bytes_per_pixel != dst_info.bytes_per_pixel)
        dst_cursor.fail("copy between incompatible formats " + formats);
      if (src.samples != dst.samples) dst_cursor.fail("copy between different sample counts");
      break;
    case PassType::blit:
      // vkCmdBlitImage: single-sample; depth/stencil only to the same format with nearest filtering.
      if (src.samples != 1 || dst.samples != 1) c.fail("blit needs single-sample images (use a resolve pass)");
      if (is_depth_stencil(src.format) || is_depth_stencil(dst.format)) {
        if (src.format != dst.format) dst_cursor.fail("blit between incompatible formats " + formats);
        if (pass.blit_filter != Filter::nearest) c.child("filter").fail("depth/stencil blits use nearest filtering");
      }
      break;
    case PassType::resolve:
      // vkCmdResolveImage: multisampled color source, single-sample destination, same format.
      if (src.samples == 1) src_cursor.fail("resolve source image " + in_quotes(src.name) + " is single-sample");
      if (dst.samples != 1) dst_cursor.fail("resolve destination image " + in_quotes(dst.name) + " is multisampled");
      if (src.format != dst.format || is_depth_stencil(src.format))
        dst_cursor.fail("resolve needs one color format on both sides, got " + formats);
      if (!same_size)
        dst_cursor.fail("resolve regions differ in size: " + size_text(src_region.width, src_region.height) + " -> " +
                        size_text(dst_region.width, dst_region.height));
      break;
    default: break;
  }
}

ImageRef TraceParser::parse_image_barrier(const JsonCursor& c) {
  c.expect_object({"image", "mip", "layer", "old_layout", "new_layout", "src_stages", "dst_stages", "src_access",
                   "dst_access"});
  ImageRef ref;
  ref.image = m_images.lookup(c.require("image"));
  const ImageDesc& image = m_trace.images[ref.image];
  ref.mip = parse_mip(c, image);
  ref.layer = parse_layer(c, image);
  ref.old_layout = read_enum<Layout>(c, Layout::undefined, kLayouts, "old_layout");
  ref.new_layout = read_enum<Layout>(c, Layout::undefined, kLayouts, "new_layout");
  ref.src_stages = read_bits<PipelineStage>(c, "src_stages", kStages);
  ref.dst_stages = read_bits<PipelineStage>(c, "dst_stages", kStages);
  ref.src_access = read_bits<AccessFlag>(c, "src_access", kAccessFlags);
  ref.dst_access = read_bits<AccessFlag>(c, "dst_access", kAccessFlags);
  return ref;
}

void TraceParser::parse_barrier_pass(const JsonCursor& c, Pass& pass) {
  c.expect_object({"name", "type", "src_stages", "dst_stages", "src_access", "dst_access", "images"});
  pass.src_stages = read_bits<PipelineStage>(c, "src_stages", kStages);
  pass.dst_stages = read_bits<PipelineStage>(c, "dst_stages", kStages);
  pass.src_access = read_bits<AccessFlag>(c, "src_access", kAccessFlags);
  pass.dst_access = read_bits<AccessFlag>(c, "dst_access", kAccessFlags);
  if (auto images = c.get("images"))
    for (const auto& i : images->elements()) pass.barriers.push_back(parse_image_barrier(i));
}

}  // namespace tbdr::trace_parsing
