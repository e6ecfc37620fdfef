// The trace reader's shared pieces: limits, enum tables, small helpers and the TraceParser class,
// whose members are defined in frontend/trace_reader*.cpp (one file per part of the format).
#pragma once

#include "frontend/trace_reader.h"


#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "frontend/json_cursor.h"
#include "frontend/trace_files.h"
#include "models/input_file.h"
#include "sim/format.h"
#include "sim/programs.h"

namespace tbdr::trace_parsing {


namespace fs = std::filesystem;

// ---- limits (traces/README.md, IMAGE and SUBPASS) ----------------------------------------------

inline constexpr uint32_t kMaxImageSize = 16384;
inline constexpr uint32_t kMaxArrayLayers = 2048;  // Vulkan's guaranteed maxImageArrayLayers
// A swapchain rotates 2 or 3 images in practice (double or triple buffering); each keeps its own set of
// TE signatures (sim/savers.h), so 10^9 grew memory without bound (traces/README.md "IMAGE").
inline constexpr uint32_t kMaxSwapchainImages = 16;
inline constexpr uint32_t kMaxColorRefs = 8;       // Vulkan's guaranteed maxColorAttachments
// The simulator keeps every sample of an image as floats (16 B per color sample), so an image's
// samples (width x height x samples) are capped at 2^28, 4 GiB of color: 16384 x 16384 at one
// sample, 8192 x 4096 at 8.
inline constexpr uint64_t kMaxImageSamples = uint64_t(1) << 28;
// All array layers of an image count together (the simulator keeps every layer), and all images of
// a trace together hold at most 2^29 samples (8 GiB of color floats, a guess sized to a 16-24 GiB
// workstation): a capture's few dozen screen-sized targets take a tenth of it.
inline constexpr uint64_t kMaxTraceSamples = uint64_t(1) << 29;
// Vertices a render pass draws (index_count x instance_count over its draws): every one becomes a
// screen vertex and up to one triangle held in memory when the parameter buffer is unbounded;
// 2^26 is 16x the stress frame's 4M triangles (a guess).
inline constexpr uint64_t kMaxVerticesPerPass = uint64_t(1) << 26;
// Passes of a whole trace (every frame's, repeated ones included): each costs its images' tile loads
// and stores whatever it draws, and `advise` simulates them all once per finding; a captured frame has
// tens to hundreds (a guess with 100x room).
inline constexpr uint64_t kMaxTracePasses = 16384;
// Vertices of a whole trace (index_count x instance_count over every draw of every frame): four
// render passes at the per-pass limit. 4096 passes of 65536 instances (805 million vertices, each
// under the per-pass limit) ran past 600 s.
inline constexpr uint64_t kMaxTraceVertices = uint64_t(1) << 28;
// Attachments of one render pass: 8 colors, their 8 resolve targets, depth/stencil and its resolve
// target need 18; 32 leaves room for input-only and preserved attachments (a guess, not a Vulkan limit).
inline constexpr size_t kMaxAttachments = 32;
// Draws of one render pass over all its subpasses: every draw is compiled once per worker thread;
// 65536 is far above the few thousand draws of a typical frame (a guess).
inline constexpr size_t kMaxDrawsPerPass = 65536;
// A captured dispatch: Vulkan's guaranteed maxComputeWorkGroupCount per dimension (65535, which
// also bounds every local size), and at most 2^32 invocations.
inline constexpr uint32_t kMaxDispatchSize = 65535;
inline constexpr uint64_t kMaxInvocations = uint64_t(1) << 32;

// ---- enum tables: the names are the README's, in the enums' declaration order -------------------

inline constexpr EnumEntry<ImageUsage> kUsages[] = {
    {"color_attachment", kUsageColorAttachment}, {"depth_stencil_attachment", kUsageDepthStencilAttachment},
    {"input_attachment", kUsageInputAttachment}, {"sampled", kUsageSampled},
    {"storage", kUsageStorage},                  {"transfer_src", kUsageTransferSrc},
    {"transfer_dst", kUsageTransferDst},
};
inline constexpr EnumEntry<ImageTiling> kTilings[] = {{"optimal", ImageTiling::optimal}, {"linear", ImageTiling::linear}};
inline constexpr EnumEntry<MipMode> kMipModes[] = {{"none", MipMode::none}, {"generate", MipMode::generate}};
inline constexpr EnumEntry<Topology> kTopologies[] = {{"triangle_list", Topology::triangle_list},
                                               {"triangle_strip", Topology::triangle_strip},
                                               {"triangle_fan", Topology::triangle_fan},
                                               {"lines", Topology::lines},
                                               {"line_strip", Topology::line_strip},
                                               {"points", Topology::points}};
inline constexpr EnumEntry<CompareOp> kCompareOps[] = {
    {"never", CompareOp::never},
    {"less", CompareOp::less},
    {"equal", CompareOp::equal},
    {"less_or_equal", CompareOp::less_or_equal},
    {"greater", CompareOp::greater},
    {"not_equal", CompareOp::not_equal},
    {"greater_or_equal", CompareOp::greater_or_equal},
    {"always", CompareOp::always},
};
inline constexpr EnumEntry<StencilOp> kStencilOps[] = {
    {"keep", StencilOp::keep},
    {"zero", StencilOp::zero},
    {"replace", StencilOp::replace},
    {"increment_and_clamp", StencilOp::increment_and_clamp},
    {"decrement_and_clamp", StencilOp::decrement_and_clamp},
    {"invert", StencilOp::invert},
    {"increment_and_wrap", StencilOp::increment_and_wrap},
    {"decrement_and_wrap", StencilOp::decrement_and_wrap},
};
inline constexpr EnumEntry<BlendFactor> kBlendFactors[] = {
    {"zero", BlendFactor::zero},
    {"one", BlendFactor::one},
    {"src_color", BlendFactor::src_color},
    {"one_minus_src_color", BlendFactor::one_minus_src_color},
    {"dst_color", BlendFactor::dst_color},
    {"one_minus_dst_color", BlendFactor::one_minus_dst_color},
    {"src_alpha", BlendFactor::src_alpha},
    {"one_minus_src_alpha", BlendFactor::one_minus_src_alpha},
    {"dst_alpha", BlendFactor::dst_alpha},
    {"one_minus_dst_alpha", BlendFactor::one_minus_dst_alpha},
    {"constant_color", BlendFactor::constant_color},
    {"one_minus_constant_color", BlendFactor::one_minus_constant_color},
    {"constant_alpha", BlendFactor::constant_alpha},
    {"one_minus_constant_alpha", BlendFactor::one_minus_constant_alpha},
    {"src_alpha_saturate", BlendFactor::src_alpha_saturate},
};
inline constexpr EnumEntry<BlendOp> kBlendOps[] = {{"add", BlendOp::add},
                                            {"subtract", BlendOp::subtract},
                                            {"reverse_subtract", BlendOp::reverse_subtract},
                                            {"min", BlendOp::min},
                                            {"max", BlendOp::max}};
inline constexpr EnumEntry<CullMode> kCullModes[] = {{"none", CullMode::none},
                                              {"front", CullMode::front},
                                              {"back", CullMode::back},
                                              {"front_and_back", CullMode::front_and_back}};
inline constexpr EnumEntry<FrontFace> kFrontFaces[] = {{"counter_clockwise", FrontFace::counter_clockwise},
                                                {"clockwise", FrontFace::clockwise}};
inline constexpr EnumEntry<Filter> kFilters[] = {{"nearest", Filter::nearest}, {"bilinear", Filter::bilinear}};
inline constexpr EnumEntry<AddressMode> kAddressModes[] = {{"repeat", AddressMode::repeat},
                                                    {"clamp_to_edge", AddressMode::clamp_to_edge},
                                                    {"mirrored_repeat", AddressMode::mirrored_repeat}};
inline constexpr EnumEntry<LoadOp> kLoadOps[] = {
    {"load", LoadOp::load}, {"clear", LoadOp::clear}, {"dont_care", LoadOp::dont_care}, {"none", LoadOp::none}};
inline constexpr EnumEntry<StoreOp> kStoreOps[] = {
    {"store", StoreOp::store}, {"dont_care", StoreOp::dont_care}, {"none", StoreOp::none}};
inline constexpr EnumEntry<Layout> kLayouts[] = {
    {"undefined", Layout::undefined},
    {"general", Layout::general},
    {"color_attachment", Layout::color_attachment},
    {"depth_stencil_attachment", Layout::depth_stencil_attachment},
    {"depth_stencil_read_only", Layout::depth_stencil_read_only},
    {"shader_read_only", Layout::shader_read_only},
    {"transfer_src", Layout::transfer_src},
    {"transfer_dst", Layout::transfer_dst},
    {"present", Layout::present},
};
inline constexpr EnumEntry<LocalRead> kLocalReads[] = {{"input_attachment", LocalRead::input_attachment},
                                                {"tile_image", LocalRead::tile_image}};
inline constexpr EnumEntry<ResolveMode> kResolveModes[] = {{"none", ResolveMode::none},
                                                    {"sample_zero", ResolveMode::sample_zero},
                                                    {"average", ResolveMode::average},
                                                    {"min", ResolveMode::min},
                                                    {"max", ResolveMode::max}};
inline constexpr EnumEntry<PipelineStage> kStages[] = {
    {"top_of_pipe", kStageTopOfPipe},
    {"draw_indirect", kStageDrawIndirect},
    {"vertex_input", kStageVertexInput},
    {"vertex_shader", kStageVertexShader},
    {"fragment_shader", kStageFragmentShader},
    {"early_fragment_tests", kStageEarlyFragmentTests},
    {"late_fragment_tests", kStageLateFragmentTests},
    {"color_attachment_output", kStageColorAttachmentOutput},
    {"compute_shader", kStageComputeShader},
    {"transfer", kStageTransfer},
    {"bottom_of_pipe", kStageBottomOfPipe},
    {"all_graphics", kStageAllGraphics},
    {"all_commands", kStageAllCommands},
};
inline constexpr EnumEntry<AccessFlag> kAccessFlags[] = {
    {"indirect_command_read", kAccessIndirectCommandRead},
    {"index_read", kAccessIndexRead},
    {"vertex_attribute_read", kAccessVertexAttributeRead},
    {"uniform_read", kAccessUniformRead},
    {"input_attachment_read", kAccessInputAttachmentRead},
    {"shader_read", kAccessShaderRead},
    {"shader_write", kAccessShaderWrite},
    {"color_attachment_read", kAccessColorAttachmentRead},
    {"color_attachment_write", kAccessColorAttachmentWrite},
    {"depth_stencil_attachment_read", kAccessDepthStencilAttachmentRead},
    {"depth_stencil_attachment_write", kAccessDepthStencilAttachmentWrite},
    {"transfer_read", kAccessTransferRead},
    {"transfer_write", kAccessTransferWrite},
    {"memory_read", kAccessMemoryRead},
    {"memory_write", kAccessMemoryWrite},
};
inline constexpr EnumEntry<PassType> kPassTypes[] = {{"render", PassType::render}, {"compute", PassType::compute},
                                              {"copy", PassType::copy},     {"blit", PassType::blit},
                                              {"resolve", PassType::resolve}, {"barrier", PassType::barrier}};

// ---- small helpers --------------------------------------------------------------------------------

inline uint32_t mip_extent(uint32_t size, uint32_t mip) { return std::max(1u, size >> mip); }

inline std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

inline std::string size_text(uint32_t w, uint32_t h) { return std::to_string(w) + "x" + std::to_string(h); }

template <class E>
E read_enum(const JsonCursor& c, const E& fallback, std::span<const EnumEntry<E>> table, std::string_view key) {
  auto found = c.get(key);
  return found ? found->as_enum<E>(table) : fallback;
}

inline bool read_bool(const JsonCursor& c, std::string_view key, bool fallback) {
  auto found = c.get(key);
  return found ? found->as_bool() : fallback;
}

inline uint32_t read_uint(const JsonCursor& c, std::string_view key, uint32_t fallback, uint32_t lo = 0,
                   uint32_t hi = std::numeric_limits<uint32_t>::max()) {
  auto found = c.get(key);
  return found ? found->as_uint(lo, hi) : fallback;
}

template <class E>
inline uint32_t read_bits(const JsonCursor& c, std::string_view key, std::span<const EnumEntry<E>> table) {
  auto found = c.get(key);
  return found ? found->as_bits<E>(table) : 0u;
}

inline Vec4 to_vec4(const std::vector<float>& v) { return Vec4(v[0], v[1], v[2], v[3]); }

// Unique names of one kind (images, textures, meshes) -> their index in the trace's list.
class NameIndex {
 public:
  NameIndex(const char* kind, const char* plural) : m_kind(kind), m_plural(plural) {}

  void add(const std::string& name, const JsonCursor& where) {
    if (!m_index.emplace(name, static_cast<int32_t>(m_names.size())).second)
      where.fail("duplicate " + std::string(m_kind) + " name " + in_quotes(name));
    m_names.push_back(name);
  }

  int32_t lookup(const JsonCursor& c) const {
    const std::string name = c.as_string();
    auto it = m_index.find(name);
    if (it == m_index.end()) {
      std::vector<std::string> known;
      for (const auto& n : m_names) known.push_back(in_quotes(n));
      c.fail("unknown " + std::string(m_kind) + " " + in_quotes(name) + "; the trace's " + m_plural + " are: " +
             (known.empty() ? std::string("(none)") : JsonCursor::join(known, 20)));
    }
    return it->second;
  }

 private:
  const char* m_kind;
  const char* m_plural;
  std::map<std::string, int32_t> m_index;
  std::vector<std::string> m_names;
};

// What subpass validation needs to know about one attachment of a render pass.
struct AttachmentView {
  std::string image_name;
  Format format;
  uint32_t samples, width, height;
};

// A dynamic-rendering scope (PASS `rendering`) being lowered to subpasses, draw by draw.
struct RenderingScope {
  LocalRead reads = LocalRead::input_attachment;
  std::vector<int32_t> color;  // VkRenderingInfo::pColorAttachments, as pass attachment indices
  int32_t depth = kUnused;     // pDepthAttachment / pStencilAttachment
  std::vector<bool> unsynchronized;  // per pass attachment: written since the last local-read barrier
  std::vector<std::vector<JsonCursor>> draw_cursors;  // per lowered subpass, its draws' cursors
  size_t draws = 0;            // draws of the scope parsed so far
};

// ---- the parser -----------------------------------------------------------------------------------

class TraceParser {
 public:
  TraceParser(std::string display_name, const fs::path& base_dir)
      : m_file(std::move(display_name)), m_files(base_dir) {}

  Trace parse(const nlohmann::json& document);

 private:
  // images, textures, meshes
  void parse_image(const JsonCursor& c);
  void parse_image_contents(const JsonCursor& c, ImageDesc& image);
  void decode_contents(const JsonCursor& c, const ImageDesc& image, ImageContents& contents);
  void parse_texture(const JsonCursor& c);
  void parse_mesh(const JsonCursor& c);
  void parse_buffer(const JsonCursor& c);
  TileDispatch parse_tile_dispatch(const JsonCursor& c);
  std::vector<float> read_float_stream(const JsonCursor& c);
  std::vector<uint32_t> read_index_stream(const JsonCursor& c, uint32_t index_bits);
  const std::vector<uint8_t>& sidecar_range(const JsonCursor& c, size_t element_bytes, size_t& offset,
                                            size_t& count);

  // frames and passes
  Frame parse_frame(const JsonCursor& c, size_t index);
  void apply_overrides(const JsonCursor& c, Frame& frame);
  void check_trace_totals(const JsonCursor& c, const Frame& frame);
  Pass parse_pass(const JsonCursor& c);
  void parse_render_pass(const JsonCursor& c, Pass& pass);
  Attachment parse_attachment(const JsonCursor& c, AttachmentView& view);
  Subpass parse_subpass(const JsonCursor& c, const std::vector<AttachmentView>& views, const Rect& area);
  void parse_rendering(const JsonCursor& c, Pass& pass, const std::vector<AttachmentView>& views);
  void parse_local_draw(const JsonCursor& c, RenderingScope& scope, Pass& pass);
  MidPassClear parse_mid_pass_clear(const JsonCursor& c, const Subpass& subpass,
                                    const std::vector<AttachmentView>& views, const Rect& area);
  SubpassDependency parse_dependency(const JsonCursor& c, size_t subpass_count);
  void parse_compute_pass(const JsonCursor& c, Pass& pass);
  void parse_transfer_pass(const JsonCursor& c, Pass& pass);
  void parse_barrier_pass(const JsonCursor& c, Pass& pass);
  ImageRef parse_image_ref(const JsonCursor& c, bool allow_step, bool allow_contents = false);
  void parse_captured_compute(const JsonCursor& c, Pass& pass);
  ImageRef parse_image_barrier(const JsonCursor& c);
  Rect image_ref_region(const ImageRef& ref) const;

  // draws
  Draw parse_draw(const JsonCursor& c, const Subpass& subpass, bool in_rendering_scope = false);
  Transform parse_transform(const JsonCursor& c) const;
  void check_transform_fits_mesh(const JsonCursor& where, const Transform& t, int32_t mesh) const;
  void check_binding_coordinates(const JsonCursor& draw, const Program& program, const Mesh& mesh) const;
  void parse_primitive_size(const JsonCursor& c, const Mesh& mesh, Draw& draw) const;
  PipelineState parse_state(const JsonCursor& c, size_t color_slots) const;
  Program parse_program(const JsonCursor& c, bool compute) const;
  Binding parse_binding(const JsonCursor& c, const std::string& slot) const;
  DrawCost parse_cost(const JsonCursor& c) const;

  // shared pieces
  uint32_t parse_mip(const JsonCursor& c, const ImageDesc& image) const;
  uint32_t parse_layer(const JsonCursor& c, const ImageDesc& image) const;
  ClearValue parse_clear_value(const JsonCursor& c, bool depth_stencil) const;

  std::string m_file;
  TraceFiles m_files;
  Trace m_trace;
  NameIndex m_images{"image", "images"}, m_textures{"texture", "textures"}, m_meshes{"mesh", "meshes"},
      m_buffers{"buffer", "buffers"};
  uint64_t m_image_samples = 0;  // over the images read so far (kMaxTraceSamples)
  uint64_t m_pass_vertices = 0;  // over the current render pass's draws so far (kMaxVerticesPerPass)
  uint64_t m_trace_passes = 0, m_trace_vertices = 0;  // over the frames read so far (kMaxTracePasses, kMaxTraceVertices)
};

inline Rect parse_rect(const JsonCursor& c) {
  c.expect_object({"x", "y", "width", "height"});
  Rect r;
  r.x = static_cast<int32_t>(read_uint(c, "x", 0, 0, kMaxImageSize));
  r.y = static_cast<int32_t>(read_uint(c, "y", 0, 0, kMaxImageSize));
  r.width = c.require("width").as_uint(1, kMaxImageSize);
  r.height = c.require("height").as_uint(1, kMaxImageSize);
  return r;
}

inline bool rect_inside(const Rect& r, uint32_t width, uint32_t height) {
  return uint64_t(r.x) + r.width <= width && uint64_t(r.y) + r.height <= height;
}

inline std::string rect_text(const Rect& r) {
  return "(x " + std::to_string(r.x) + ", y " + std::to_string(r.y) + ", " + size_text(r.width, r.height) + ")";
}

inline void require_rect_inside(const JsonCursor& c, const Rect& r, uint32_t width, uint32_t height,
                         const std::string& what) {
  if (!rect_inside(r, width, height))
    c.fail("rectangle " + rect_text(r) + " does not lie inside " + what + " (" + size_text(width, height) + ")");
}

// A 4x4 matrix from 16 numbers, column-major as in GLSL/Vulkan.
inline Mat4 parse_matrix(const JsonCursor& c) {
  const std::vector<float> v = c.as_floats(16);
  Mat4 m;
  for (int k = 0; k < 16; ++k) m(k % 4, k / 4) = v[k];
  return m;
}

// A parameter value: `size` numbers; a single-number parameter may be written as a bare number.
inline std::vector<float> parse_param_value(const JsonCursor& c, const ProgramParamInfo& param) {
  if (param.size == 1 && c.json().is_number()) return {c.as_float()};
  return c.as_floats(param.size);
}

inline const ProgramParamInfo& find_param(const JsonCursor& key_cursor, const std::string& key, const ProgramInfo& info) {
  for (const auto& p : info.params)
    if (key == p.name) return p;
  std::vector<std::string> names;
  for (const auto& p : info.params) names.emplace_back(p.name);
  key_cursor.fail("unknown parameter " + in_quotes(key) + " of program " + in_quotes(info.name) + "; valid: " +
                  (names.empty() ? std::string("(none)") : JsonCursor::join(names)));
}

inline void merge_params(const JsonCursor& c, const ProgramInfo& info, std::map<std::string, std::vector<float>>& params) {
  for (const auto& [key, value] : c.members()) params[key] = parse_param_value(value, find_param(value, key, info));
}

}  // namespace tbdr::trace_parsing
