// Trace reader: walks a trace v1 document (traces/README.md is the contract) into sim/frame.h's
// Trace, validating everything sim/ relies on so sim/ never has to re-check its input.
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

namespace tbdr {
namespace {

namespace fs = std::filesystem;

// ---- limits (traces/README.md, IMAGE and SUBPASS) ----------------------------------------------

constexpr uint32_t kMaxImageSize = 16384;
constexpr uint32_t kMaxArrayLayers = 2048;  // Vulkan's guaranteed maxImageArrayLayers
// A swapchain rotates 2 or 3 images in practice (double or triple buffering); each keeps its own set of
// TE signatures (sim/savers.h), so 10^9 grew memory without bound (traces/README.md "IMAGE").
constexpr uint32_t kMaxSwapchainImages = 16;
constexpr uint32_t kMaxColorRefs = 8;       // Vulkan's guaranteed maxColorAttachments
// The simulator keeps every sample of an image as floats (16 B per color sample), so an image's
// samples (width x height x samples) are capped at 2^28, 4 GiB of color: 16384 x 16384 at one
// sample, 8192 x 4096 at 8.
constexpr uint64_t kMaxImageSamples = uint64_t(1) << 28;
// All array layers of an image count together (the simulator keeps every layer), and all images of
// a trace together hold at most 2^29 samples (8 GiB of color floats, a guess sized to a 16-24 GiB
// workstation): a capture's few dozen screen-sized targets take a tenth of it.
constexpr uint64_t kMaxTraceSamples = uint64_t(1) << 29;
// Vertices a render pass draws (index_count x instance_count over its draws): every one becomes a
// screen vertex and up to one triangle held in memory when the parameter buffer is unbounded;
// 2^26 is 16x the stress frame's 4M triangles (a guess).
constexpr uint64_t kMaxVerticesPerPass = uint64_t(1) << 26;
// Attachments of one render pass: 8 colors, their 8 resolve targets, depth/stencil and its resolve
// target need 18; 32 leaves room for input-only and preserved attachments (a guess, not a Vulkan limit).
constexpr size_t kMaxAttachments = 32;
// Draws of one render pass over all its subpasses: every draw is compiled once per worker thread;
// 65536 is far above the few thousand draws of a typical frame (a guess).
constexpr size_t kMaxDrawsPerPass = 65536;
// A captured dispatch: Vulkan's guaranteed maxComputeWorkGroupCount per dimension (65535, which
// also bounds every local size), and at most 2^32 invocations.
constexpr uint32_t kMaxDispatchSize = 65535;
constexpr uint64_t kMaxInvocations = uint64_t(1) << 32;

// ---- enum tables: the names are the README's, in the enums' declaration order -------------------

constexpr EnumEntry<ImageUsage> kUsages[] = {
    {"color_attachment", kUsageColorAttachment}, {"depth_stencil_attachment", kUsageDepthStencilAttachment},
    {"input_attachment", kUsageInputAttachment}, {"sampled", kUsageSampled},
    {"storage", kUsageStorage},                  {"transfer_src", kUsageTransferSrc},
    {"transfer_dst", kUsageTransferDst},
};
constexpr EnumEntry<ImageTiling> kTilings[] = {{"optimal", ImageTiling::optimal}, {"linear", ImageTiling::linear}};
constexpr EnumEntry<MipMode> kMipModes[] = {{"none", MipMode::none}, {"generate", MipMode::generate}};
constexpr EnumEntry<Topology> kTopologies[] = {{"triangle_list", Topology::triangle_list},
                                               {"triangle_strip", Topology::triangle_strip},
                                               {"triangle_fan", Topology::triangle_fan}};
constexpr EnumEntry<CompareOp> kCompareOps[] = {
    {"never", CompareOp::never},
    {"less", CompareOp::less},
    {"equal", CompareOp::equal},
    {"less_or_equal", CompareOp::less_or_equal},
    {"greater", CompareOp::greater},
    {"not_equal", CompareOp::not_equal},
    {"greater_or_equal", CompareOp::greater_or_equal},
    {"always", CompareOp::always},
};
constexpr EnumEntry<StencilOp> kStencilOps[] = {
    {"keep", StencilOp::keep},
    {"zero", StencilOp::zero},
    {"replace", StencilOp::replace},
    {"increment_and_clamp", StencilOp::increment_and_clamp},
    {"decrement_and_clamp", StencilOp::decrement_and_clamp},
    {"invert", StencilOp::invert},
    {"increment_and_wrap", StencilOp::increment_and_wrap},
    {"decrement_and_wrap", StencilOp::decrement_and_wrap},
};
constexpr EnumEntry<BlendFactor> kBlendFactors[] = {
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
constexpr EnumEntry<BlendOp> kBlendOps[] = {{"add", BlendOp::add},
                                            {"subtract", BlendOp::subtract},
                                            {"reverse_subtract", BlendOp::reverse_subtract},
                                            {"min", BlendOp::min},
                                            {"max", BlendOp::max}};
constexpr EnumEntry<CullMode> kCullModes[] = {{"none", CullMode::none},
                                              {"front", CullMode::front},
                                              {"back", CullMode::back},
                                              {"front_and_back", CullMode::front_and_back}};
constexpr EnumEntry<FrontFace> kFrontFaces[] = {{"counter_clockwise", FrontFace::counter_clockwise},
                                                {"clockwise", FrontFace::clockwise}};
constexpr EnumEntry<Filter> kFilters[] = {{"nearest", Filter::nearest}, {"bilinear", Filter::bilinear}};
constexpr EnumEntry<AddressMode> kAddressModes[] = {{"repeat", AddressMode::repeat},
                                                    {"clamp_to_edge", AddressMode::clamp_to_edge},
                                                    {"mirrored_repeat", AddressMode::mirrored_repeat}};
constexpr EnumEntry<LoadOp> kLoadOps[] = {
    {"load", LoadOp::load}, {"clear", LoadOp::clear}, {"dont_care", LoadOp::dont_care}, {"none", LoadOp::none}};
constexpr EnumEntry<StoreOp> kStoreOps[] = {
    {"store", StoreOp::store}, {"dont_care", StoreOp::dont_care}, {"none", StoreOp::none}};
constexpr EnumEntry<Layout> kLayouts[] = {
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
constexpr EnumEntry<LocalRead> kLocalReads[] = {{"input_attachment", LocalRead::input_attachment},
                                                {"tile_image", LocalRead::tile_image}};
constexpr EnumEntry<ResolveMode> kResolveModes[] = {{"none", ResolveMode::none},
                                                    {"sample_zero", ResolveMode::sample_zero},
                                                    {"average", ResolveMode::average},
                                                    {"min", ResolveMode::min},
                                                    {"max", ResolveMode::max}};
constexpr EnumEntry<PipelineStage> kStages[] = {
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
constexpr EnumEntry<AccessFlag> kAccessFlags[] = {
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
constexpr EnumEntry<PassType> kPassTypes[] = {{"render", PassType::render}, {"compute", PassType::compute},
                                              {"copy", PassType::copy},     {"blit", PassType::blit},
                                              {"resolve", PassType::resolve}, {"barrier", PassType::barrier}};

// ---- small helpers --------------------------------------------------------------------------------

uint32_t mip_extent(uint32_t size, uint32_t mip) { return std::max(1u, size >> mip); }

std::string in_quotes(const std::string& s) { return "\"" + s + "\""; }

std::string size_text(uint32_t w, uint32_t h) { return std::to_string(w) + "x" + std::to_string(h); }

template <class E>
E read_enum(const JsonCursor& c, const E& fallback, std::span<const EnumEntry<E>> table, std::string_view key) {
  auto found = c.get(key);
  return found ? found->as_enum<E>(table) : fallback;
}

bool read_bool(const JsonCursor& c, std::string_view key, bool fallback) {
  auto found = c.get(key);
  return found ? found->as_bool() : fallback;
}

uint32_t read_uint(const JsonCursor& c, std::string_view key, uint32_t fallback, uint32_t lo = 0,
                   uint32_t hi = std::numeric_limits<uint32_t>::max()) {
  auto found = c.get(key);
  return found ? found->as_uint(lo, hi) : fallback;
}

template <class E>
uint32_t read_bits(const JsonCursor& c, std::string_view key, std::span<const EnumEntry<E>> table) {
  auto found = c.get(key);
  return found ? found->as_bits<E>(table) : 0u;
}

Vec4 to_vec4(const std::vector<float>& v) { return Vec4(v[0], v[1], v[2], v[3]); }

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
};

Rect parse_rect(const JsonCursor& c) {
  c.expect_object({"x", "y", "width", "height"});
  Rect r;
  r.x = static_cast<int32_t>(read_uint(c, "x", 0, 0, kMaxImageSize));
  r.y = static_cast<int32_t>(read_uint(c, "y", 0, 0, kMaxImageSize));
  r.width = c.require("width").as_uint(1, kMaxImageSize);
  r.height = c.require("height").as_uint(1, kMaxImageSize);
  return r;
}

bool rect_inside(const Rect& r, uint32_t width, uint32_t height) {
  return uint64_t(r.x) + r.width <= width && uint64_t(r.y) + r.height <= height;
}

std::string rect_text(const Rect& r) {
  return "(x " + std::to_string(r.x) + ", y " + std::to_string(r.y) + ", " + size_text(r.width, r.height) + ")";
}

void require_rect_inside(const JsonCursor& c, const Rect& r, uint32_t width, uint32_t height,
                         const std::string& what) {
  if (!rect_inside(r, width, height))
    c.fail("rectangle " + rect_text(r) + " does not lie inside " + what + " (" + size_text(width, height) + ")");
}

// A 4x4 matrix from 16 numbers, column-major as in GLSL/Vulkan.
Mat4 parse_matrix(const JsonCursor& c) {
  const std::vector<float> v = c.as_floats(16);
  Mat4 m;
  for (int k = 0; k < 16; ++k) m(k % 4, k / 4) = v[k];
  return m;
}

// A parameter value: `size` numbers; a single-number parameter may be written as a bare number.
std::vector<float> parse_param_value(const JsonCursor& c, const ProgramParamInfo& param) {
  if (param.size == 1 && c.json().is_number()) return {c.as_float()};
  return c.as_floats(param.size);
}

const ProgramParamInfo& find_param(const JsonCursor& key_cursor, const std::string& key, const ProgramInfo& info) {
  for (const auto& p : info.params)
    if (key == p.name) return p;
  std::vector<std::string> names;
  for (const auto& p : info.params) names.emplace_back(p.name);
  key_cursor.fail("unknown parameter " + in_quotes(key) + " of program " + in_quotes(info.name) + "; valid: " +
                  (names.empty() ? std::string("(none)") : JsonCursor::join(names)));
}

void merge_params(const JsonCursor& c, const ProgramInfo& info, std::map<std::string, std::vector<float>>& params) {
  for (const auto& [key, value] : c.members()) params[key] = parse_param_value(value, find_param(value, key, info));
}

// ---- top level ------------------------------------------------------------------------------------

Trace TraceParser::parse(const nlohmann::json& document) {
  const JsonCursor root(document, m_file);
  if (!document.is_object()) root.fail("expected a trace object, got " + JsonCursor::describe(document));
  // Format and version first: a newer trace's unknown keys should be reported as a version problem.
  const JsonCursor format = root.require("format");
  if (format.as_string() != "tbdrsim-trace")
    format.fail("expected \"tbdrsim-trace\", got " + JsonCursor::describe(format.json()));
  const JsonCursor version = root.require("version");
  if (!version.json().is_number_integer() || version.json().get<int64_t>() != 1)
    version.fail("unsupported trace version " + JsonCursor::describe(version.json()) + "; this reader reads version 1");
  root.expect_object({"format", "version", "name", "warnings", "images", "textures", "meshes", "buffers", "frames"});

  m_trace.path = m_file;
  m_trace.name = fs::path(m_file).stem().string();
  if (auto name = root.get("name")) m_trace.name = name->as_name();
  if (auto warnings = root.get("warnings"))
    for (const auto& w : warnings->elements()) m_trace.warnings.push_back(w.as_string());

  for (const auto& image : root.require("images").elements()) parse_image(image);
  if (auto textures = root.get("textures"))
    for (const auto& texture : textures->elements()) parse_texture(texture);
  if (auto meshes = root.get("meshes"))
    for (const auto& mesh : meshes->elements()) parse_mesh(mesh);
  if (auto buffers = root.get("buffers"))
    for (const auto& buffer : buffers->elements()) parse_buffer(buffer);
  const auto frames = root.require("frames").elements(1);
  for (size_t i = 0; i < frames.size(); ++i) m_trace.frames.push_back(parse_frame(frames[i], i));
  return std::move(m_trace);
}

// ---- images ---------------------------------------------------------------------------------------

void TraceParser::parse_image(const JsonCursor& c) {
  c.expect_object({"name", "format", "width", "height", "samples", "mip_levels", "array_layers", "usage",
                   "transient", "image_tiling", "alias", "mutable_format", "swapchain", "contents"});
  ImageDesc image;
  image.name = c.require("name").as_name();
  m_images.add(image.name, c.child("name"));

  const JsonCursor format = c.require("format");
  auto parsed = parse_format(format.as_string());
  if (!parsed) format.fail(JsonCursor::unknown_value_message(format.as_string(), format_names()));
  image.format = *parsed;

  image.width = c.require("width").as_uint(1, kMaxImageSize);
  image.height = c.require("height").as_uint(1, kMaxImageSize);
  if (auto samples = c.get("samples")) {
    const int64_t s = samples->json().is_number_unsigned() ? samples->as_int(0, INT64_MAX) : -1;
    if (s != 1 && s != 2 && s != 4 && s != 8)
      samples->fail("expected 1, 2, 4 or 8, got " + JsonCursor::describe(samples->json()));
    image.samples = static_cast<uint32_t>(s);
    if (uint64_t(image.width) * image.height * image.samples > kMaxImageSamples)
      samples->fail(size_text(image.width, image.height) + " x " + std::to_string(s) + " samples is over the limit of " +
                    std::to_string(kMaxImageSamples) + " samples per image (traces/README.md \"Limits\")");
  }
  if (uint64_t(image.width) * image.height > kMaxImageSamples)
    c.child("width").fail(size_text(image.width, image.height) + " is over the limit of " +
                          std::to_string(kMaxImageSamples) + " samples per image (traces/README.md \"Limits\")");
  // 1 + floor(log2(max(width, height))) == bit_width(max(width, height)).
  const uint32_t max_mips = static_cast<uint32_t>(std::bit_width(std::max(image.width, image.height)));
  image.mip_levels = read_uint(c, "mip_levels", 1, 1, max_mips);
  if (image.samples > 1 && image.mip_levels > 1)
    c.child("mip_levels").fail("a multisampled image has one mip level (Vulkan), got " +
                               std::to_string(image.mip_levels));
  image.array_layers = read_uint(c, "array_layers", 1, 1, kMaxArrayLayers);
  const uint64_t samples = uint64_t(image.width) * image.height * image.samples * image.array_layers;
  if (samples > kMaxImageSamples)
    c.child("array_layers")
        .fail(size_text(image.width, image.height) + " x " + std::to_string(image.samples) + " samples x " +
              std::to_string(image.array_layers) + " layers is over the limit of " + std::to_string(kMaxImageSamples) +
              " samples per image (traces/README.md \"Limits\")");
  m_image_samples += samples;
  if (m_image_samples > kMaxTraceSamples)
    c.fail("the images up to this one hold " + std::to_string(m_image_samples) + " samples, over the limit of " +
           std::to_string(kMaxTraceSamples) + " per trace (traces/README.md \"Limits\")");
  image.usage = read_bits<ImageUsage>(c, "usage", kUsages);
  image.transient = read_bool(c, "transient", false);
  image.tiling = read_enum<ImageTiling>(c, ImageTiling::optimal, kTilings, "image_tiling");
  image.alias = read_bool(c, "alias", false);
  image.mutable_format = read_bool(c, "mutable_format", false);
  image.swapchain = read_uint(c, "swapchain", 0, 2, kMaxSwapchainImages);

  if (auto contents = c.get("contents")) {
    const auto list = contents->elements();
    if (image.transient && !list.empty())
      contents->fail("a transient image is lazily allocated and cannot have initial contents");
    for (const auto& entry : list) parse_image_contents(entry, image);
  }
  m_trace.images.push_back(std::move(image));
}

uint32_t TraceParser::parse_mip(const JsonCursor& c, const ImageDesc& image) const {
  auto mip = c.get("mip");
  if (!mip) return 0;
  const uint32_t value = mip->as_uint();
  if (value >= image.mip_levels)
    mip->fail("mip " + std::to_string(value) + " is out of range: image " + in_quotes(image.name) + " has " +
              std::to_string(image.mip_levels) + " mip level(s)");
  return value;
}

uint32_t TraceParser::parse_layer(const JsonCursor& c, const ImageDesc& image) const {
  auto layer = c.get("layer");
  if (!layer) return 0;
  const uint32_t value = layer->as_uint();
  if (value >= image.array_layers)
    layer->fail("layer " + std::to_string(value) + " is out of range: image " + in_quotes(image.name) + " has " +
                std::to_string(image.array_layers) + " array layer(s)");
  return value;
}

void TraceParser::parse_image_contents(const JsonCursor& c, ImageDesc& image) {
  c.expect_object({"file", "mip", "layer", "captured"});
  ImageContents contents;
  contents.mip = parse_mip(c, image);
  contents.layer = parse_layer(c, image);
  for (const auto& other : image.contents)
    if (other.mip == contents.mip && other.layer == contents.layer)
      c.fail("mip " + std::to_string(contents.mip) + " layer " + std::to_string(contents.layer) +
             " of image " + in_quotes(image.name) + " already has contents");
  decode_contents(c, image, contents);
  image.contents.push_back(std::move(contents));
}

// `file` and `captured` of a contents object, decoded at the size of `contents.mip`.
void TraceParser::decode_contents(const JsonCursor& c, const ImageDesc& image, ImageContents& contents) {
  const JsonCursor file = c.require("file");
  const fs::path resolved = m_files.resolve(file);
  contents.source = file.as_string();
  contents.captured = read_bool(c, "captured", false);
  // Depth formats take a grey image: depth = grey / max, stencil 0 (README, IMAGE `contents`).
  DecodedImage decoded = m_files.decode_image(resolved, file, is_depth_stencil(image.format));
  const uint32_t w = mip_extent(image.width, contents.mip), h = mip_extent(image.height, contents.mip);
  if (decoded.width != w || decoded.height != h)
    file.fail("image file " + in_quotes(contents.source) + " is " + size_text(decoded.width, decoded.height) +
              "; mip " + std::to_string(contents.mip) + " of image " + in_quotes(image.name) + " is " +
              size_text(w, h));
  contents.pixels = std::move(decoded.pixels);
}

void TraceParser::parse_texture(const JsonCursor& c) {
  c.expect_object({"name", "file", "format", "mip"});
  Texture texture;
  texture.name = c.require("name").as_name();
  m_textures.add(texture.name, c.child("name"));
  const JsonCursor file = c.require("file");
  const fs::path resolved = m_files.resolve(file);
  texture.source = file.as_string();
  if (auto format = c.get("format")) {
    auto parsed = parse_texture_format(format->as_string());
    if (!parsed) format->fail(JsonCursor::unknown_value_message(format->as_string(), texture_format_names()));
    texture.format = *parsed;
  }
  texture.mip_mode = read_enum<MipMode>(c, MipMode::none, kMipModes, "mip");
  DecodedImage decoded = m_files.decode_image(resolved, file, false);
  if (decoded.width > kMaxImageSize || decoded.height > kMaxImageSize)
    file.fail("texture is " + size_text(decoded.width, decoded.height) + "; at most " +
              size_text(kMaxImageSize, kMaxImageSize));
  texture.width = decoded.width;
  texture.height = decoded.height;
  texture.texels = std::move(decoded.pixels);
  if (texture.mip_mode == MipMode::generate) generate_mip_chain(texture);  // "mip chains generated at load"
  m_trace.textures.push_back(std::move(texture));
}

// ---- meshes ---------------------------------------------------------------------------------------

// Checks a sidecar object and returns the file's bytes; `offset`/`count` receive the range.
const std::vector<uint8_t>& TraceParser::sidecar_range(const JsonCursor& c, size_t element_bytes, size_t& offset,
                                                       size_t& count) {
  c.expect_object({"file", "offset", "count"});
  const JsonCursor file = c.require("file");
  const fs::path resolved = m_files.resolve(file);
  offset = static_cast<size_t>(c.get("offset") ? c.child("offset").as_int(0, INT64_MAX) : 0);
  count = static_cast<size_t>(c.require("count").as_int(0, INT64_MAX));
  const std::vector<uint8_t>& bytes = m_files.bytes(resolved, file);
  // Compare without overflow: offset + count * element_bytes <= size.
  const bool inside = offset <= bytes.size() && count <= (bytes.size() - offset) / element_bytes;
  if (!inside)
    c.fail("sidecar range of " + std::to_string(count) + " x " + std::to_string(element_bytes) +
           " bytes at offset " + std::to_string(offset) + " lies beyond the end of " + in_quotes(file.as_string()) +
           " (" + std::to_string(bytes.size()) + " bytes)");
  return bytes;
}

std::vector<float> TraceParser::read_float_stream(const JsonCursor& c) {
  std::vector<float> out;
  if (c.json().is_object()) {
    size_t offset = 0, count = 0;
    const auto& bytes = sidecar_range(c, 4, offset, count);
    out.resize(count);
    // Little-endian float32 (README, SIDECAR); this reader targets little-endian hosts.
    static_assert(std::endian::native == std::endian::little);
    if (count) std::memcpy(out.data(), bytes.data() + offset, count * 4);
    return out;
  }
  if (!c.json().is_array())
    c.fail("expected an array of numbers or a sidecar {\"file\", \"offset\", \"count\"}, got " +
           JsonCursor::describe(c.json()));
  const size_t n = c.json().size();
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const nlohmann::json& v = c.json()[i];
    out[i] = v.is_number() ? static_cast<float>(v.get<double>()) : c.at(i).as_float();
  }
  return out;
}

std::vector<uint32_t> TraceParser::read_index_stream(const JsonCursor& c, uint32_t index_bits) {
  const uint32_t max_index = index_bits == 16 ? 0xffffu : 0xffffffffu;
  std::vector<uint32_t> out;
  if (c.json().is_object()) {
    size_t offset = 0, count = 0;
    const size_t element_bytes = index_bits / 8;
    const auto& bytes = sidecar_range(c, element_bytes, offset, count);
    out.resize(count);
    for (size_t i = 0; i < count; ++i) {
      const uint8_t* p = bytes.data() + offset + i * element_bytes;
      out[i] = index_bits == 16 ? uint32_t(p[0]) | uint32_t(p[1]) << 8
                                : uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
    }
    return out;
  }
  if (!c.json().is_array())
    c.fail("expected an array of indices or a sidecar {\"file\", \"offset\", \"count\"}, got " +
           JsonCursor::describe(c.json()));
  const size_t n = c.json().size();
  out.resize(n);
  for (size_t i = 0; i < n; ++i) {
    // Checked on the raw value; a cursor (and its pointer string) is built only to report.
    const nlohmann::json& v = c.json()[i];
    // Non-negative integers parse as unsigned; anything else gets as_int's type/range message.
    if (!v.is_number_unsigned()) c.at(i).as_int(0, max_index);
    const uint64_t value = v.get<uint64_t>();
    if (value > max_index)
      c.at(i).fail("index " + std::to_string(value) + " does not fit in index_bits " + std::to_string(index_bits));
    out[i] = static_cast<uint32_t>(value);
  }
  return out;
}

void TraceParser::parse_mesh(const JsonCursor& c) {
  c.expect_object({"name", "topology", "positions", "position_components", "colors", "uvs", "normals", "indices",
                   "index_bits", "interleaved"});
  Mesh mesh;
  mesh.name = c.require("name").as_name();
  m_meshes.add(mesh.name, c.child("name"));
  mesh.topology = read_enum<Topology>(c, Topology::triangle_list, kTopologies, "topology");
  if (auto components = c.get("position_components")) {
    mesh.position_components = components->as_uint(3, 4);
  }
  if (auto bits = c.get("index_bits")) {
    if (!bits->json().is_number_unsigned() || (bits->json() != 16 && bits->json() != 32))
      bits->fail("expected 16 or 32, got " + JsonCursor::describe(bits->json()));
    mesh.index_bits = bits->as_uint();
  }
  mesh.interleaved = read_bool(c, "interleaved", false);

  // Positions: 3 or 4 numbers per vertex, all finite (a NaN vertex would poison binning bounds).
  const JsonCursor positions_cursor = c.require("positions");
  const std::vector<float> positions = read_float_stream(positions_cursor);
  const uint32_t k = mesh.position_components;
  if (positions.size() % k != 0)
    positions_cursor.fail(std::to_string(positions.size()) + " numbers is not a whole number of vertices (" +
                          std::to_string(k) + " per vertex, position_components)");
  const size_t vertex_count = positions.size() / k;
  if (vertex_count > std::numeric_limits<uint32_t>::max()) positions_cursor.fail("too many vertices");
  mesh.positions.resize(vertex_count);
  for (size_t v = 0; v < vertex_count; ++v) {
    const float* p = positions.data() + v * k;
    for (uint32_t i = 0; i < k; ++i) {
      if (!std::isfinite(p[i])) {
        std::ostringstream text;
        text << "vertex " << v << " has a non-finite position (";
        for (uint32_t j = 0; j < k; ++j) text << (j ? ", " : "") << p[j];
        text << ")";
        positions_cursor.fail(text.str());
      }
    }
    mesh.positions[v] = Vec4(p[0], p[1], p[2], k == 4 ? p[3] : 1.0f);
  }

  // Per-vertex attributes: exactly `per_vertex` finite numbers per vertex.
  auto read_attribute = [&](const char* key, size_t per_vertex, auto&& store) {
    auto cursor = c.get(key);
    if (!cursor) return;
    const std::vector<float> values = read_float_stream(*cursor);
    if (values.size() != vertex_count * per_vertex)
      cursor->fail("expected " + std::to_string(per_vertex) + " numbers per vertex (" +
                   std::to_string(vertex_count) + " vertices: " + std::to_string(vertex_count * per_vertex) +
                   " numbers), got " + std::to_string(values.size()));
    for (size_t i = 0; i < values.size(); ++i)
      if (!std::isfinite(values[i]))
        cursor->fail("vertex " + std::to_string(i / per_vertex) + " has a non-finite " + key + " value");
    store(values);
  };
  read_attribute("colors", 4, [&](const std::vector<float>& v) {
    mesh.colors.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) mesh.colors[i] = Vec4(v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]);
  });
  read_attribute("uvs", 2, [&](const std::vector<float>& v) {
    mesh.uvs.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) mesh.uvs[i] = Vec2(v[2 * i], v[2 * i + 1]);
  });
  read_attribute("normals", 3, [&](const std::vector<float>& v) {
    mesh.normals.resize(vertex_count);
    for (size_t i = 0; i < vertex_count; ++i) mesh.normals[i] = Eigen::Vector3f(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
  });

  if (auto indices = c.get("indices")) {
    mesh.indices = read_index_stream(*indices, mesh.index_bits);
    // Frame.h reads an empty index list as non-indexed; an explicit empty list is a mistake.
    if (mesh.indices.empty()) indices->fail("an empty index list; omit \"indices\" for a non-indexed mesh");
    for (size_t i = 0; i < mesh.indices.size(); ++i)
      if (mesh.indices[i] >= vertex_count)
        (indices->json().is_array() ? indices->at(i) : *indices)
            .fail("index " + std::to_string(i) + " is " + std::to_string(mesh.indices[i]) +
                  ", not below the vertex count " + std::to_string(vertex_count));
  }
  m_trace.meshes.push_back(std::move(mesh));
}

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
  return frame;
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

Subpass TraceParser::parse_subpass(const JsonCursor& c, const std::vector<AttachmentView>& views, const Rect& area) {
  c.expect_object({"color", "depth", "input", "resolve", "depth_resolve", "depth_resolve_mode",
                   "stencil_resolve_mode", "preserve", "draws", "clears", "tile_dispatches"});
  Subpass subpass;
  auto describe_attachment = [&](int32_t index) {
    const AttachmentView& v = views[index];
    return "attachment " + std::to_string(index) + " (image " + in_quotes(v.image_name) + ", " +
           format_info(v.format).name + ", " + std::to_string(v.samples) + " sample(s))";
  };
  // One attachment reference: an index into the pass's attachments, or null = unused.
  auto parse_ref = [&](const JsonCursor& ref, bool allow_null) -> int32_t {
    if (ref.is_null()) {
      if (!allow_null) ref.fail("expected an attachment index, got null");
      return kUnused;
    }
    if (views.empty()) ref.fail("the render pass has no attachments to refer to");
    return static_cast<int32_t>(ref.as_int(0, static_cast<int64_t>(views.size()) - 1));
  };
  auto parse_ref_list = [&](const char* key, bool allow_null, size_t max) {
    std::vector<int32_t> refs;
    if (auto list = c.get(key)) {
      list->expect_array(0, max);
      for (const auto& ref : list->elements()) refs.push_back(parse_ref(ref, allow_null));
    }
    return refs;
  };

  // Color and depth references share one sample count (Vulkan: pipeline rasterizationSamples).
  std::optional<uint32_t> samples;
  auto check_samples = [&](const JsonCursor& where, int32_t index) {
    if (samples && *samples != views[index].samples)
      where.fail(describe_attachment(index) + " does not match the subpass's other attachments' " +
                 std::to_string(*samples) + " sample(s)");
    samples = views[index].samples;
  };

  subpass.color = parse_ref_list("color", true, kMaxColorRefs);
  for (size_t i = 0; i < subpass.color.size(); ++i) {
    const int32_t ref = subpass.color[i];
    if (ref == kUnused) continue;
    const JsonCursor where = c.child("color").at(i);
    if (is_depth_stencil(views[ref].format)) where.fail(describe_attachment(ref) + " is not a color format");
    check_samples(where, ref);
  }
  if (auto depth = c.get("depth")) {
    subpass.depth = parse_ref(*depth, true);
    if (subpass.depth != kUnused) {
      if (!is_depth_stencil(views[subpass.depth].format))
        depth->fail(describe_attachment(subpass.depth) + " is not a depth/stencil format");
      check_samples(*depth, subpass.depth);
    }
  }
  subpass.input = parse_ref_list("input", true, SIZE_MAX);
  subpass.preserve = parse_ref_list("preserve", false, SIZE_MAX);

  if (auto resolve = c.get("resolve")) {
    const size_t n = resolve->expect_array();
    if (n != subpass.color.size())
      resolve->fail("expected one resolve reference per color reference (" + std::to_string(subpass.color.size()) +
                    "), got " + std::to_string(n));
    for (size_t i = 0; i < n; ++i) {
      const JsonCursor where = resolve->at(i);
      const int32_t target = parse_ref(where, true);
      subpass.resolve.push_back(target);
      if (target == kUnused) continue;
      const int32_t source = subpass.color[i];
      if (source == kUnused) where.fail("resolves color slot " + std::to_string(i) + ", which is unused");
      if (views[source].samples == 1) where.fail("resolves " + describe_attachment(source) + ", which is single-sample");
      if (views[target].samples != 1) where.fail("resolve target " + describe_attachment(target) + " is not single-sample");
      if (views[target].format != views[source].format)
        where.fail("resolve target " + describe_attachment(target) + " has not the format of " +
                   describe_attachment(source));
    }
  }
  subpass.depth_resolve_mode = read_enum<ResolveMode>(c, ResolveMode::none, kResolveModes, "depth_resolve_mode");
  subpass.stencil_resolve_mode =
      read_enum<ResolveMode>(c, ResolveMode::none, kResolveModes, "stencil_resolve_mode");
  if (auto depth_resolve = c.get("depth_resolve")) {
    subpass.depth_resolve = parse_ref(*depth_resolve, true);
    if (subpass.depth_resolve != kUnused) {
      const int32_t target = subpass.depth_resolve, source = subpass.depth;
      if (source == kUnused) depth_resolve->fail("the subpass has no depth attachment to resolve");
      if (views[source].samples == 1)
        depth_resolve->fail("resolves " + describe_attachment(source) + ", which is single-sample");
      if (views[target].samples != 1)
        depth_resolve->fail("resolve target " + describe_attachment(target) + " is not single-sample");
      if (views[target].format != views[source].format)
        depth_resolve->fail("resolve target " + describe_attachment(target) + " has not the format of " +
                            describe_attachment(source));
      // VkSubpassDescriptionDepthStencilResolve: the two modes must not both be none.
      if (subpass.depth_resolve_mode == ResolveMode::none && subpass.stencil_resolve_mode == ResolveMode::none)
        depth_resolve->fail("depth_resolve needs depth_resolve_mode or stencil_resolve_mode other than none");
    }
  }

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

// ---- draws ----------------------------------------------------------------------------------------

Draw TraceParser::parse_draw(const JsonCursor& c, const Subpass& subpass, bool in_rendering_scope) {
  if (in_rendering_scope)
    c.expect_object({"name", "mesh", "first_index", "index_count", "instance_count", "transform", "viewport",
                     "scissor", "state", "program", "cost", "per_tile", "color_locations", "local_reads",
                     "barrier_before"});
  else
    c.expect_object({"name", "mesh", "first_index", "index_count", "instance_count", "transform", "viewport",
                     "scissor", "state", "program", "cost", "per_tile"});
  Draw draw;
  if (auto name = c.get("name")) draw.name = name->as_name();
  draw.mesh = m_meshes.lookup(c.require("mesh"));
  const Mesh& mesh = m_trace.meshes[draw.mesh];

  // The range of indices (vertices when non-indexed); 0 / absent count = the rest of the mesh.
  const uint64_t total = mesh.indices.empty() ? mesh.positions.size() : mesh.indices.size();
  const char* unit = mesh.indices.empty() ? "vertices" : "indices";
  draw.first_index = read_uint(c, "first_index", 0);
  if (draw.first_index > total)
    c.child("first_index").fail("first_index " + std::to_string(draw.first_index) + " is beyond the mesh's " +
                                std::to_string(total) + " " + unit);
  draw.index_count = read_uint(c, "index_count", 0);
  if (draw.index_count == 0) draw.index_count = static_cast<uint32_t>(total - draw.first_index);
  if (uint64_t(draw.first_index) + draw.index_count > total)
    c.child("index_count").fail("range " + std::to_string(draw.first_index) + " + " +
                                std::to_string(draw.index_count) + " exceeds the mesh's " + std::to_string(total) +
                                " " + unit);
  draw.instance_count = read_uint(c, "instance_count", 1, 1);
  m_pass_vertices += uint64_t(draw.index_count) * draw.instance_count;
  if (m_pass_vertices > kMaxVerticesPerPass)
    (c.get("instance_count") ? c.child("instance_count") : c.child("index_count"))
        .fail("the render pass draws " + std::to_string(m_pass_vertices) + " vertices up to this draw " +
              "(index_count x instance_count), over the limit of " + std::to_string(kMaxVerticesPerPass) +
              " (traces/README.md \"Limits\")");

  if (auto transform = c.get("transform")) draw.transform = parse_transform(*transform);
  check_transform_fits_mesh(c.get("transform") ? c.child("transform") : c, draw.transform, draw.mesh);

  if (auto viewport = c.get("viewport")) {
    viewport->expect_object({"x", "y", "width", "height", "min_depth", "max_depth"});
    Viewport v;
    if (auto x = viewport->get("x")) v.x = x->as_float();
    if (auto y = viewport->get("y")) v.y = y->as_float();
    auto positive = [](const JsonCursor& size) {
      const float value = size.as_float();
      if (!(value > 0.0f)) size.fail("expected a number > 0, got " + JsonCursor::describe(size.json()));
      return value;
    };
    v.width = positive(viewport->require("width"));
    v.height = positive(viewport->require("height"));
    if (auto min_depth = viewport->get("min_depth")) v.min_depth = min_depth->as_float(0.0, 1.0);
    if (auto max_depth = viewport->get("max_depth")) v.max_depth = max_depth->as_float(0.0, 1.0);
    draw.viewport = v;
  }
  if (auto scissor = c.get("scissor")) draw.scissor = parse_rect(*scissor);
  if (auto state = c.get("state")) draw.state = parse_state(*state, subpass.color.size());
  // Absent: the default program (flat) with its default parameters.
  static const nlohmann::json kNoProgram = nlohmann::json::object();
  draw.program = parse_program(c.get("program").value_or(JsonCursor(kNoProgram, m_file, c.pointer() + "/program")),
                               false);
  if (auto cost = c.get("cost")) draw.cost = parse_cost(*cost);
  draw.per_tile = read_bool(c, "per_tile", false);
  return draw;
}

Transform TraceParser::parse_transform(const JsonCursor& c) const {
  c.expect_object({"mvp", "model", "view", "proj", "clip_space"});
  Transform t;
  t.clip_space = read_bool(c, "clip_space", false);
  const bool has_parts = c.has("model") || c.has("view") || c.has("proj");
  if (t.clip_space && (c.has("mvp") || has_parts))
    c.child("clip_space").fail("clip_space draws take no matrices (mvp/model/view/proj)");
  if (c.has("mvp") && has_parts) c.child("mvp").fail("give either mvp or model/view/proj, not both");
  if (auto mvp = c.get("mvp")) t.mvp = parse_matrix(*mvp);
  if (has_parts) {
    Mat4 model = Mat4::Identity(), view = Mat4::Identity(), proj = Mat4::Identity();
    if (auto m = c.get("model")) model = parse_matrix(*m);
    if (auto v = c.get("view")) view = parse_matrix(*v);
    if (auto p = c.get("proj")) proj = parse_matrix(*p);
    t.mvp = proj * view * model;
    t.model = model;
  }
  return t;
}

void TraceParser::check_transform_fits_mesh(const JsonCursor& where, const Transform& t, int32_t mesh_index) const {
  const Mesh& mesh = m_trace.meshes[mesh_index];
  if (t.clip_space && mesh.position_components != 4)
    where.fail("clip_space needs a mesh with position_components 4; mesh " + in_quotes(mesh.name) + " has 3");
  if (!t.clip_space && mesh.position_components == 4)
    where.fail("mesh " + in_quotes(mesh.name) +
               " has clip-space positions (position_components 4); the draw needs \"transform\": {\"clip_space\": true}");
}

PipelineState TraceParser::parse_state(const JsonCursor& c, size_t color_slots) const {
  c.expect_object({"cull", "front_face", "depth_test", "depth_write", "depth_compare", "stencil_test",
                   "stencil_front", "stencil_back", "blend", "blend_constants", "discard", "shader_depth_write"});
  PipelineState s;
  s.cull = read_enum<CullMode>(c, CullMode::none, kCullModes, "cull");
  s.front_face = read_enum<FrontFace>(c, FrontFace::counter_clockwise, kFrontFaces, "front_face");
  s.depth_test = read_bool(c, "depth_test", false);
  s.depth_write = read_bool(c, "depth_write", false);
  s.depth_compare = read_enum<CompareOp>(c, CompareOp::less, kCompareOps, "depth_compare");
  s.stencil_test = read_bool(c, "stencil_test", false);
  auto parse_face = [](const JsonCursor& f) {
    f.expect_object({"fail_op", "pass_op", "depth_fail_op", "compare_op", "compare_mask", "write_mask", "reference"});
    StencilFaceState face;
    face.fail_op = read_enum<StencilOp>(f, StencilOp::keep, kStencilOps, "fail_op");
    face.pass_op = read_enum<StencilOp>(f, StencilOp::keep, kStencilOps, "pass_op");
    face.depth_fail_op = read_enum<StencilOp>(f, StencilOp::keep, kStencilOps, "depth_fail_op");
    face.compare_op = read_enum<CompareOp>(f, CompareOp::always, kCompareOps, "compare_op");
    face.compare_mask = read_uint(f, "compare_mask", 0xff);
    face.write_mask = read_uint(f, "write_mask", 0xff);
    face.reference = read_uint(f, "reference", 0);
    return face;
  };
  if (auto front = c.get("stencil_front")) s.stencil_front = parse_face(*front);
  if (auto back = c.get("stencil_back")) s.stencil_back = parse_face(*back);
  if (auto blend = c.get("blend")) {
    const size_t n = blend->expect_array();
    if (n > color_slots)
      blend->fail("expected at most one blend state per color slot (" + std::to_string(color_slots) + "), got " +
                  std::to_string(n));
    for (const auto& b : blend->elements()) {
      b.expect_object({"enable", "src_color", "dst_color", "color_op", "src_alpha", "dst_alpha", "alpha_op", "write_mask"});
      BlendAttachmentState state;
      state.enable = read_bool(b, "enable", false);
      state.src_color = read_enum<BlendFactor>(b, BlendFactor::one, kBlendFactors, "src_color");
      state.dst_color = read_enum<BlendFactor>(b, BlendFactor::zero, kBlendFactors, "dst_color");
      state.color_op = read_enum<BlendOp>(b, BlendOp::add, kBlendOps, "color_op");
      state.src_alpha = read_enum<BlendFactor>(b, BlendFactor::one, kBlendFactors, "src_alpha");
      state.dst_alpha = read_enum<BlendFactor>(b, BlendFactor::zero, kBlendFactors, "dst_alpha");
      state.alpha_op = read_enum<BlendOp>(b, BlendOp::add, kBlendOps, "alpha_op");
      if (auto mask = b.get("write_mask")) {
        // A subset of "rgba", e.g. "rgb" or "" (nothing written).
        state.write_mask = 0;
        for (char ch : mask->as_string()) {
          const size_t bit = std::string_view("rgba").find(ch);
          if (bit == std::string_view::npos || (state.write_mask & (1u << bit)))
            mask->fail("expected a subset of \"rgba\" with each letter once, got " + JsonCursor::describe(mask->json()));
          state.write_mask |= 1u << bit;
        }
      }
      s.blend.push_back(state);
    }
  }
  if (auto constants = c.get("blend_constants")) s.blend_constants = to_vec4(constants->as_floats(4));
  s.discard = read_bool(c, "discard", false);
  s.shader_depth_write = read_bool(c, "shader_depth_write", false);
  return s;
}

Program TraceParser::parse_program(const JsonCursor& c, bool compute) const {
  c.expect_object({"name", "params", "bindings"});
  Program program;
  if (compute)
    program.name = c.require("name").as_name();
  else if (auto name = c.get("name"))
    program.name = name->as_name();
  const JsonCursor name_cursor = c.child("name");
  const ProgramInfo* info = find_program(program.name);
  const std::string expected = JsonCursor::join(program_names(compute));
  if (!info) name_cursor.fail("unknown program " + in_quotes(program.name) + "; expected one of: " + expected);
  if (info->compute != compute)
    name_cursor.fail(in_quotes(program.name) + " is a " + (info->compute ? "compute" : "fragment") + " program; " +
                     (compute ? "a compute pass" : "a draw") + " needs one of: " + expected);

  // Every parameter gets a value (defaults from the table), so sim/ reads them without fallbacks.
  for (const auto& p : info->params) program.params[p.name] = p.defaults;
  if (auto params = c.get("params")) merge_params(*params, *info, program.params);

  std::map<std::string, JsonCursor> given;
  if (auto bindings = c.get("bindings")) {
    for (const auto& [slot, value] : bindings->members()) {
      bool known = false;
      for (const char* s : info->bindings) known = known || slot == s;
      for (const char* s : info->optional_bindings) known = known || slot == s;
      if (!known) {
        std::vector<std::string> slots(info->bindings.begin(), info->bindings.end());
        slots.insert(slots.end(), info->optional_bindings.begin(), info->optional_bindings.end());
        value.fail("unknown binding slot " + in_quotes(slot) + " of program " + in_quotes(program.name) + "; valid: " +
                   (slots.empty() ? std::string("(none)") : JsonCursor::join(slots)));
      }
      given.emplace(slot, value);
    }
  }
  for (const char* slot : info->bindings) {
    auto it = given.find(slot);
    if (it == given.end())
      c.child("bindings").child(slot).fail("program " + in_quotes(program.name) + " needs binding " + in_quotes(slot));
    program.bindings.push_back(parse_binding(it->second, slot));
  }
  for (const char* slot : info->optional_bindings) {
    auto it = given.find(slot);
    if (it != given.end()) program.bindings.push_back(parse_binding(it->second, slot));
  }
  return program;
}

Binding TraceParser::parse_binding(const JsonCursor& c, const std::string& slot) const {
  c.expect_object({"texture", "image", "mip", "layer", "filter", "address"});
  Binding b;
  b.slot = slot;
  const bool has_texture = c.has("texture"), has_image = c.has("image");
  if (has_texture == has_image) c.fail("expected exactly one of \"texture\" or \"image\"");
  if (has_texture) {
    if (c.has("mip") || c.has("layer"))
      c.child(c.has("mip") ? "mip" : "layer").fail("mip and layer apply to image bindings only");
    b.resource = c.child("texture").as_name();
    b.resource_index = m_textures.lookup(c.child("texture"));
  } else {
    b.is_image = true;
    b.resource = c.child("image").as_name();
    b.resource_index = m_images.lookup(c.child("image"));
    const ImageDesc& image = m_trace.images[b.resource_index];
    if (image.samples != 1)
      c.child("image").fail("image " + in_quotes(image.name) + " has " + std::to_string(image.samples) +
                            " samples; a sampled binding needs a single-sample image");
    b.mip = parse_mip(c, image);
    b.layer = parse_layer(c, image);
  }
  b.filter = read_enum<Filter>(c, Filter::nearest, kFilters, "filter");
  b.address = read_enum<AddressMode>(c, AddressMode::repeat, kAddressModes, "address");
  return b;
}

DrawCost TraceParser::parse_cost(const JsonCursor& c) const {
  c.expect_object({"alu", "texture_samples", "tile_reads", "varyings", "vertex_alu"});
  constexpr double kInf = std::numeric_limits<double>::infinity();
  DrawCost cost;
  auto read = [&](const char* key, float& out) {
    if (auto v = c.get(key)) out = v->as_float(0.0, kInf);
  };
  read("alu", cost.alu);
  read("texture_samples", cost.texture_samples);
  read("tile_reads", cost.tile_reads);
  read("varyings", cost.varyings);
  read("vertex_alu", cost.vertex_alu);
  return cost;
}

// ---- compute, transfer and barrier passes ---------------------------------------------------------

ImageRef TraceParser::parse_image_ref(const JsonCursor& c, bool allow_step, bool allow_contents) {
  if (allow_step)
    c.expect_object({"image", "mip", "layer", "region", "step"});
  else if (allow_contents)
    c.expect_object({"image", "mip", "layer", "region", "contents"});
  else
    c.expect_object({"image", "mip", "layer", "region"});
  ImageRef ref;
  ref.image = m_images.lookup(c.require("image"));
  const ImageDesc& image = m_trace.images[ref.image];
  ref.mip = parse_mip(c, image);
  ref.layer = parse_layer(c, image);
  if (auto region = c.get("region")) {
    ref.region = parse_rect(*region);
    require_rect_inside(*region, *ref.region, mip_extent(image.width, ref.mip), mip_extent(image.height, ref.mip),
                        "mip " + std::to_string(ref.mip) + " of image " + in_quotes(image.name));
  }
  if (auto step = c.get("step")) {
    step->expect_array(2, 2);
    ref.step_x = step->at(0).as_uint(1, kMaxImageSize);
    ref.step_y = step->at(1).as_uint(1, kMaxImageSize);
  }
  if (auto contents = c.get("contents")) {
    contents->expect_object({"file", "captured"});
    ref.contents.emplace();
    ref.contents->mip = ref.mip;
    ref.contents->layer = ref.layer;
    decode_contents(*contents, image, *ref.contents);
  }
  return ref;
}

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

}  // namespace

Trace read_trace_text(const std::string& json_text, const fs::path& base_dir, const std::string& display_name) {
  const nlohmann::json document = parse_json_strict(json_text, display_name);
  return TraceParser(display_name, base_dir).parse(document);
}

Trace read_trace(const fs::path& file) {
  const std::string display_name = file.string();
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw InputError(display_name, "is a folder, expected a trace file");
  const std::string text = read_input_file(file, InputLimits::kTextBytes, display_name);
  const fs::path base_dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
  return read_trace_text(text, base_dir, display_name);
}

}  // namespace tbdr
