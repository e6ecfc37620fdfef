// The simulator's input: one trace (images, textures, meshes, frames of passes) as plain structs.
// frontend/ fills it from files (traces/README.md is the format); sim/ executes it and never opens a file.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/errors.h"
#include "sim/format.h"

namespace tbdr {

using Vec2 = Eigen::Vector2f;
using Vec4 = Eigen::Vector4f;
using Mat4 = Eigen::Matrix4f;

// ---- images (render targets, sampled images) -------------------------------------------------

enum ImageUsage : uint32_t {
  kUsageColorAttachment = 1u << 0,
  kUsageDepthStencilAttachment = 1u << 1,
  kUsageInputAttachment = 1u << 2,
  kUsageSampled = 1u << 3,
  kUsageStorage = 1u << 4,
  kUsageTransferSrc = 1u << 5,
  kUsageTransferDst = 1u << 6,
};

enum class ImageTiling { optimal, linear };

// Initial (or captured) pixels of one mip level / array layer, decoded by the frontend.
// Color: RGBA in [0,1] (or HDR floats); depth formats: depth in .x, stencil in .y.
struct ImageContents {
  uint32_t mip = 0;
  uint32_t layer = 0;
  std::string source;          // the file it came from, for reports
  bool captured = false;       // taken from a capture of a real program (rdc2trace)
  std::vector<Vec4> pixels;    // width(mip) x height(mip), row-major, top row first
};

struct ImageDesc {
  std::string name;
  Format format = Format::RGBA8;
  uint32_t width = 0, height = 0;
  uint32_t samples = 1;
  uint32_t mip_levels = 1;
  uint32_t array_layers = 1;
  uint32_t usage = 0;          // ImageUsage bits
  // lazily allocated: never backed by DRAM (models/README.md "Sources: render passes and load/store ops")
  bool transient = false;
  ImageTiling tiling = ImageTiling::optimal;
  bool alias = false;
  bool mutable_format = false;
  uint32_t swapchain = 0;      // number of images it rotates; 0 = not a swapchain image
  std::vector<ImageContents> contents;
};

// ---- material textures and meshes -------------------------------------------------------------

// `generate`: the texture gets a full mip chain at load (sim/programs.h generate_mip_chain) and is
// sampled mipmapped (level chosen per 2x2 quad, traces/README.md "Execution rules").
enum class MipMode { none, generate };

// One generated mip level (level 1 and on) of a material texture.
struct TextureLevel {
  uint32_t width = 0, height = 0;
  std::vector<Vec4> texels;    // row-major, top row first
};

struct Texture {
  std::string name;
  std::string source;          // file name relative to the trace
  TextureFormat format = TextureFormat::RGBA8;  // decides bytes fetched, not the decoded pixels
  MipMode mip_mode = MipMode::none;
  uint32_t width = 0, height = 0;
  std::vector<Vec4> texels;    // decoded RGBA in [0,1], row-major, top row first
  std::vector<TextureLevel> mips;  // levels 1, 2, ... down to 1x1 (mip: generate); empty otherwise
  uint32_t level_count() const { return 1 + uint32_t(mips.size()); }
  uint32_t level_width(uint32_t level) const { return level == 0 ? width : mips[level - 1].width; }
  uint32_t level_height(uint32_t level) const { return level == 0 ? height : mips[level - 1].height; }
  const Vec4* level_texels(uint32_t level) const { return level == 0 ? texels.data() : mips[level - 1].texels.data(); }
};

// Vulkan "Primitive Topologies": triangles, and line and point primitives (rasterized as
// sim/geometry_lines.cpp says: a line as a parallelogram, a point as a square).
enum class Topology { triangle_list, triangle_strip, triangle_fan, lines, line_strip, points };
inline bool is_line_topology(Topology t) { return t == Topology::lines || t == Topology::line_strip; }
inline bool is_polygon_topology(Topology t) {
  return t == Topology::triangle_list || t == Topology::triangle_strip || t == Topology::triangle_fan;
}

struct Mesh {
  std::string name;
  Topology topology = Topology::triangle_list;
  uint32_t position_components = 3;  // 3: object-space xyz; 4: clip-space xyzw
  std::vector<Vec4> positions;       // w = 1 when 3 components were given
  std::vector<Vec4> colors;          // optional, per vertex
  std::vector<Vec2> uvs;             // optional, per vertex
  std::vector<Eigen::Vector3f> normals;  // optional, per vertex, object space (G-buffer programs)
  std::vector<uint32_t> indices;     // empty: non-indexed
  uint32_t index_bits = 32;          // 16 or 32: decides index bytes fetched
  bool interleaved = false;          // one vertex buffer of whole vertices: a position-only fetch reads them all
};

// ---- fixed-function state ---------------------------------------------------------------------

enum class CompareOp { never, less, equal, less_or_equal, greater, not_equal, greater_or_equal, always };
enum class StencilOp { keep, zero, replace, increment_and_clamp, decrement_and_clamp, invert,
                       increment_and_wrap, decrement_and_wrap };
enum class BlendFactor { zero, one, src_color, one_minus_src_color, dst_color, one_minus_dst_color,
                         src_alpha, one_minus_src_alpha, dst_alpha, one_minus_dst_alpha,
                         constant_color, one_minus_constant_color, constant_alpha,
                         one_minus_constant_alpha, src_alpha_saturate };
enum class BlendOp { add, subtract, reverse_subtract, min, max };
enum class CullMode { none, front, back, front_and_back };
enum class FrontFace { counter_clockwise, clockwise };

struct StencilFaceState {
  StencilOp fail_op = StencilOp::keep;
  StencilOp pass_op = StencilOp::keep;
  StencilOp depth_fail_op = StencilOp::keep;
  CompareOp compare_op = CompareOp::always;
  uint32_t compare_mask = 0xff, write_mask = 0xff, reference = 0;
};

struct BlendAttachmentState {
  bool enable = false;
  BlendFactor src_color = BlendFactor::one, dst_color = BlendFactor::zero;
  BlendOp color_op = BlendOp::add;
  BlendFactor src_alpha = BlendFactor::one, dst_alpha = BlendFactor::zero;
  BlendOp alpha_op = BlendOp::add;
  uint32_t write_mask = 0xf;  // bit 0 R, 1 G, 2 B, 3 A
};

// A polygon's depth offset (Vulkan VkPipelineRasterizationStateCreateInfo depthBiasConstantFactor,
// depthBiasSlopeFactor, depthBiasClamp; OpenGL glPolygonOffsetClamp units, factor, clamp); applied by
// the rasterizer's depth test as Vulkan's "Depth Bias" rules say (sim/raster_depth.h).
struct DepthBias {
  bool enable = false;
  float constant = 0, slope = 0, clamp = 0;
};

struct PipelineState {
  CullMode cull = CullMode::none;
  FrontFace front_face = FrontFace::counter_clockwise;
  bool depth_test = false, depth_write = false;
  CompareOp depth_compare = CompareOp::less;
  bool stencil_test = false;
  StencilFaceState stencil_front, stencil_back;
  std::vector<BlendAttachmentState> blend;  // per color attachment of the subpass; missing = off
  Vec4 blend_constants = Vec4::Zero();
  bool discard = false;             // the fragment program may discard (alpha test)
  bool shader_depth_write = false;  // the fragment program writes depth (breaks early tests / HSR)
  DepthBias depth_bias;
};

struct Rect {
  int32_t x = 0, y = 0;
  uint32_t width = 0, height = 0;
};

struct Viewport {
  float x = 0, y = 0, width = 0, height = 0, min_depth = 0, max_depth = 1;
};

// Per-fragment and per-vertex cost descriptor, read by the timing models.
struct DrawCost {
  float alu = 0;              // ALU cycles per fragment
  float texture_samples = 0;  // texture samples per fragment
  float tile_reads = 0;       // tile-memory (input attachment) reads per fragment
  float varyings = 0;         // interpolated varying components per fragment
  float vertex_alu = 0;       // ALU cycles per vertex
};

enum class Filter { nearest, bilinear };
enum class AddressMode { repeat, clamp_to_edge, mirrored_repeat };

// A program's resource binding: a material texture or a trace image (sampled render target).
struct Binding {
  std::string slot;              // the program's binding name, e.g. "texture"
  std::string resource;          // texture or image name
  bool is_image = false;         // true: `resource` names an image in `images` (image_sample traffic)
  int32_t resource_index = -1;   // index into Trace::textures or Trace::images
  uint32_t mip = 0, layer = 0;   // for images
  Filter filter = Filter::nearest;
  AddressMode address = AddressMode::repeat;
  // `captured` program only: sampled at the mesh's interpolated uvs (the coordinates the captured
  // shader sampled at, traces/README.md "Captured frames") rather than at the pixel's screen position.
  bool at_uv = false;
};

struct Program {
  std::string name = "flat";                         // built-in program (sim/programs.h)
  std::map<std::string, std::vector<float>> params;  // validated against the program's table
  std::vector<Binding> bindings;
};

struct Transform {
  bool clip_space = false;  // positions are already clip-space xyzw
  Mat4 mvp = Mat4::Identity();
  Mat4 model = Mat4::Identity();  // object -> world, for normals (identity when only mvp is given)
};

struct Draw {
  std::string name;                    // optional; frame overrides address draws by name
  int32_t mesh = -1;                   // index into Trace::meshes
  uint32_t first_index = 0;            // range of the mesh's indices (or vertices) drawn
  uint32_t index_count = 0;            // 0 in the file = all
  uint32_t instance_count = 1;
  Transform transform;
  std::optional<Viewport> viewport;    // absent: the whole render area
  std::optional<Rect> scissor;         // absent: the whole render area
  PipelineState state;
  Program program;
  DrawCost cost;
  // Recorded in per-tile execution mode (VK_QCOM_tile_shading, vkCmdBeginPerTileExecutionQCOM): run once
  // in every tile of the render pass with that tile as its area, never binned.
  bool per_tile = false;
  // Line and point primitives only: the line's width (Vulkan lineWidth, OpenGL glLineWidth) and the
  // point's side (Vulkan PointSize, OpenGL glPointSize), in pixels.
  float line_width = 1.0f;
  float point_size = 1.0f;
};

// ---- render passes ---------------------------------------------------------------------------

enum class LoadOp { load, clear, dont_care, none };
enum class StoreOp { store, dont_care, none };
enum class Layout { undefined, general, color_attachment, depth_stencil_attachment,
                    depth_stencil_read_only, shader_read_only, transfer_src, transfer_dst, present };
enum class ResolveMode { none, sample_zero, average, min, max };

struct ClearValue {
  Vec4 color = Vec4::Zero();
  float depth = 1.0f;
  uint32_t stencil = 0;
};

struct Attachment {
  int32_t image = -1;  // index into Trace::images
  uint32_t mip = 0, layer = 0;
  LoadOp load = LoadOp::dont_care;
  StoreOp store = StoreOp::store;
  LoadOp stencil_load = LoadOp::dont_care;     // for depth/stencil formats
  StoreOp stencil_store = StoreOp::dont_care;
  ClearValue clear;
  Layout old_layout = Layout::undefined;
  Layout new_layout = Layout::general;
  // The attachment's pixels at the end of the pass as the program left them (rdc2trace takes them
  // from a capture). When the pass stores the attachment, memory takes these pixels instead of the
  // simulated ones, so AFBC sizes and TE signatures see the program's data (traces/README.md).
  std::optional<ImageContents> contents;
};

// vkCmdClearAttachments inside a subpass: applied before draw `before_draw` of the subpass.
struct MidPassClear {
  uint32_t before_draw = 0;
  std::vector<int32_t> color;       // subpass color slots cleared
  bool depth = false, stencil = false;
  ClearValue value;
  std::vector<Rect> rects;          // empty = the render area
};

constexpr int32_t kUnused = -1;  // VK_ATTACHMENT_UNUSED

// vkCmdDispatchTileQCOM inside per-tile execution (VK_QCOM_tile_shading): run once per covered tile
// of the render pass, after its subpass's draws; `invocations` per tile.
struct TileDispatch {
  uint64_t invocations = 0;          // groups x local size, per tile
  DrawCost cost;                     // per invocation (alu, texture_samples)
  std::vector<int32_t> reads, writes;  // indices into Trace::buffers
};

struct Subpass {
  std::vector<int32_t> color;       // pass attachment indices (kUnused allowed)
  int32_t depth = kUnused;
  std::vector<int32_t> input;
  std::vector<int32_t> resolve;     // empty, or one per color reference (kUnused allowed)
  int32_t depth_resolve = kUnused;
  ResolveMode depth_resolve_mode = ResolveMode::none;
  ResolveMode stencil_resolve_mode = ResolveMode::none;
  std::vector<int32_t> preserve;
  std::vector<Draw> draws;
  std::vector<MidPassClear> clears;
  std::vector<TileDispatch> tile_dispatches;  // after the draws, once per tile
};

enum PipelineStage : uint32_t {
  kStageTopOfPipe = 1u << 0, kStageDrawIndirect = 1u << 1, kStageVertexInput = 1u << 2,
  kStageVertexShader = 1u << 3, kStageFragmentShader = 1u << 4, kStageEarlyFragmentTests = 1u << 5,
  kStageLateFragmentTests = 1u << 6, kStageColorAttachmentOutput = 1u << 7,
  kStageComputeShader = 1u << 8, kStageTransfer = 1u << 9, kStageBottomOfPipe = 1u << 10,
  kStageAllGraphics = 1u << 11, kStageAllCommands = 1u << 12,
};

enum AccessFlag : uint32_t {
  kAccessIndirectCommandRead = 1u << 0, kAccessIndexRead = 1u << 1,
  kAccessVertexAttributeRead = 1u << 2, kAccessUniformRead = 1u << 3,
  kAccessInputAttachmentRead = 1u << 4, kAccessShaderRead = 1u << 5, kAccessShaderWrite = 1u << 6,
  kAccessColorAttachmentRead = 1u << 7, kAccessColorAttachmentWrite = 1u << 8,
  kAccessDepthStencilAttachmentRead = 1u << 9, kAccessDepthStencilAttachmentWrite = 1u << 10,
  kAccessTransferRead = 1u << 11, kAccessTransferWrite = 1u << 12, kAccessMemoryRead = 1u << 13,
  kAccessMemoryWrite = 1u << 14,
};

constexpr int32_t kSubpassExternal = -1;  // VK_SUBPASS_EXTERNAL

struct SubpassDependency {
  int32_t src_subpass = kSubpassExternal, dst_subpass = kSubpassExternal;
  uint32_t src_stages = 0, dst_stages = 0;   // PipelineStage bits
  uint32_t src_access = 0, dst_access = 0;   // AccessFlag bits
  bool by_region = false;
};

// A non-render pass's image reference (compute reads/writes, copy/blit/resolve endpoints,
// barrier transitions).
struct ImageRef {
  int32_t image = -1;
  uint32_t mip = 0, layer = 0;
  std::optional<Rect> region;       // absent: the whole mip level
  // Compute reads: one texel read per step_x * step_y block (the bandwidth-bill article's histogram reads one
  // texel per 2x2 block: step 2,2). Footprint = unique texels touched.
  uint32_t step_x = 1, step_y = 1;
  Layout old_layout = Layout::undefined, new_layout = Layout::undefined;  // barriers
  uint32_t src_stages = 0, dst_stages = 0, src_access = 0, dst_access = 0;
  // `captured_compute` writes: the level as the captured program left it (whole level).
  std::optional<ImageContents> contents;
};

enum class PassType { render, compute, copy, blit, resolve, barrier };

// How a render pass was recorded: with subpasses, or as one dynamic-rendering scope whose draws read
// attachments at the same pixel (traces/README.md `rendering`), lowered by the reader to subpasses.
enum class LocalRead { none, input_attachment, tile_image };

struct Pass {
  std::string name;
  PassType type = PassType::render;
  // render
  std::vector<Attachment> attachments;
  std::optional<Rect> render_area;   // absent: the full size of the attachments
  std::vector<Subpass> subpasses;
  std::vector<SubpassDependency> dependencies;
  LocalRead local_read = LocalRead::none;  // none: recorded with subpasses
  // compute / copy / blit / resolve
  Program program;                   // compute: built-in compute program
  DrawCost cost;                     // compute: per-invocation cost
  uint64_t invocations = 0;          // compute: groups x local size (0: not given; built-in programs)
  std::vector<ImageRef> reads;       // compute reads; copy/blit/resolve: exactly one source
  std::vector<ImageRef> writes;      // compute writes; copy/blit/resolve: exactly one destination
  std::vector<int32_t> buffer_reads, buffer_writes;  // compute: indices into Trace::buffers
  Filter blit_filter = Filter::nearest;
  // barrier
  std::vector<ImageRef> barriers;    // image barriers with layout transitions
  uint32_t src_stages = 0, dst_stages = 0, src_access = 0, dst_access = 0;  // global barrier
};

struct DrawOverride {
  std::optional<Transform> transform;
  std::map<std::string, std::vector<float>> params;
};

struct Frame {
  std::vector<Pass> passes;
  std::map<std::string, DrawOverride> overrides;  // by draw name; already applied to `passes`
};

// A VkBuffer that tile dispatches read and write: only its bytes are simulated. `tile_memory`: bound
// to memory of a VK_QCOM_tile_memory_heap heap (VK_MEMORY_HEAP_TILE_MEMORY_BIT_QCOM), never DRAM.
struct BufferDesc {
  std::string name;
  uint64_t size = 0;
  bool tile_memory = false;
};

struct Trace {
  std::string path;                  // for messages
  std::string name;
  std::vector<std::string> warnings; // converters record what they could not carry
  std::vector<ImageDesc> images;
  std::vector<Texture> textures;
  std::vector<Mesh> meshes;
  std::vector<BufferDesc> buffers;
  std::vector<Frame> frames;
};

}  // namespace tbdr
