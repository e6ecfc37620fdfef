// Per-primitive rasterization shared by the TBDR tile path and the IMR path: fixed-point edge
// functions with the top-left rule, per-sample coverage, depth/stencil test, shading, blending.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/frame.h"
#include "sim/framebuffer_cache.h"
#include "sim/geometry.h"
#include "sim/programs.h"
#include "sim/stats.h"
#include "sim/tile_work.h"

namespace tbdr {

constexpr uint32_t kMaxColorAttachments = 8;

// Storage the rasterizer draws into: the pixels of `area` (framebuffer coordinates), each with
// `samples` samples, index ((y - area.y) * area.width + (x - area.x)) * samples + s.
class DeferredColors;

struct TargetSet {
  Rect area;
  uint32_t samples = 1;
  uint32_t color_count = 0;
  Vec4* color[kMaxColorAttachments] = {};   // null: unused slot
  Format color_format[kMaxColorAttachments] = {};
  float* depth = nullptr;                   // null: no depth aspect
  uint8_t* stencil = nullptr;               // null: no stencil aspect
  Format depth_format = Format::D32F;
  // Subpass input attachments (subpassLoad: same pixel, sample 0), laid out like the targets.
  uint32_t input_count = 0;
  const Vec4* input_color[kMaxInputAttachments] = {};
  const float* input_depth[kMaxInputAttachments] = {};
  uint32_t input_samples[kMaxInputAttachments] = {};
  // Direct rendering: the targets are the DRAM images themselves and every access goes through
  // this cache (null in tiles). Byte offset of a sample: ((y * width + x) * samples + s) * bpp.
  FramebufferCache* framebuffer = nullptr;
  uint32_t framebuffer_width = 0;
  uint32_t color_surface[kMaxColorAttachments] = {}, color_bpp[kMaxColorAttachments] = {};
  uint32_t depth_surface = 0, depth_bpp = 0;
  // Where the colors of draws that defers_color() accepts wait (null: every color is stored at
  // once); one sample per pixel, laid out like the targets.
  DeferredColors* deferred = nullptr;

  size_t index(int32_t x, int32_t y, uint32_t s) const {
    return (size_t(y - area.y) * area.width + size_t(x - area.x)) * samples + s;
  }
};

// Colors computed late (visibility-buffer style): an opaque vertex_color fragment that passed
// the depth test replaces every color sample of its pixel, so of a run of such draws only each
// pixel's last fragment decides the stored color. raster_triangle keeps, per pixel, that
// fragment's triangle and barycentrics; flush_deferred_colors() computes and stores its color with
// the very operations of the direct path, so pixels are bit-identical. The caller flushes before
// anything reads or writes the colors otherwise: another draw, a clear, a resolve, a subpass
// change, the tile's store. perf of the million-triangle frame (four opaque layers) showed the
// per-fragment color chain (interpolation divisions, the unorm8 rounding) as the largest cost.
class DeferredColors {
 public:
  DeferredColors();
  DeferredColors(DeferredColors&&) noexcept;
  DeferredColors& operator=(DeferredColors&&) noexcept;
  ~DeferredColors();
  // Ready for a target area of `pixels` pixels, nothing waiting.
  void reset(size_t pixels);
  struct Impl;
  std::unique_ptr<Impl> impl;
};

// Whether raster_triangle defers this draw's colors into targets.deferred: a vertex_color program
// with early tests, one sample, no stencil test, tile memory, and every color target RGBA8/BGRA8
// with blending off and all channels written.
bool defers_color(const Draw& draw, const CompiledProgram& program, const TargetSet& targets);
// Stores every waiting color of targets.deferred into targets.color; none waits afterwards.
void flush_deferred_colors(TargetSet& targets);

// Vulkan standard sample locations (Vulkan spec "Multisampling", standardSampleLocations), in
// 1/16 pixel units.
const uint8_t (*sample_positions(uint32_t samples))[2];

// The per-sample rules raster_triangle applies, exposed so bench/'s naive reference rasterizer
// runs the very same depth compare and blend: `fragment` vs `stored` under a Vulkan compare op,
// and the blend of `src` over `dst` for one attachment (clamps, factors, write mask, rounding).
bool depth_compare(CompareOp op, float fragment, float stored);
Vec4 blend_color(const BlendAttachmentState& state, Format format, const Vec4& src, const Vec4& dst,
                 const Vec4& constant);

// What raster_triangle works out about a draw and its targets, the same for each of its
// primitives: a caller rasterizing many primitives of a draw into the same targets works it out
// once and passes it (perf of the million-triangle frame: the first shaded fragment of each
// primitive worked it out again, 5 % of the run).
struct DrawFacts {
  bool simple_path = false;  // one sample, early tests, no stencil, tile memory
  bool defer = false;        // defers_color()
  bool occluder = false;     // opaque and writing depth: its fragments can hide earlier ones (HSR)
  uint32_t color_writes = 0; // color targets each fragment writes
};
DrawFacts draw_facts(const Draw& draw, const CompiledProgram& program, const TargetSet& targets);
// What draw_facts() reads of the targets: for one draw and program, target sets with equal keys give
// equal facts, so a tile worker works a draw's facts out once for all its tiles (perf of the default
// trace: 14 draws in each of 8,160 tiles, 2 % of the run's instructions).
struct DrawFactsKey {
  uint32_t samples = 0;
  uint32_t color_count = 0;
  uint32_t present = 0;  // bit c: color[c]; then depth, stencil, framebuffer and deferred
  Format color_format[kMaxColorAttachments] = {};
  bool operator==(const DrawFactsKey&) const = default;
};
DrawFactsKey draw_facts_key(const TargetSet& targets);

// Rasterizes primitive `prim` of `prims` over the pixels of `clip` (already intersected with the
// target area and the draw's scissor), running tests, the program and blending into `targets`.
// `tracker` (may be null) counts the tile's work for the timing models; `facts` (may be null:
// worked out here) are draw_facts(draw, program, targets).
void raster_triangle(const ScreenPrims& prims, size_t prim, const Rect& clip, const Draw& draw,
                     const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                     TileWorkTracker* tracker = nullptr, const DrawFacts* facts = nullptr);
// raster_triangle for primitives *first .. *(last - 1) in order, all of `draw` (a draw's run in a
// tile's list): one call, the policy's dispatch and the per-call work once (perf of the
// million-triangle frame: a tiny triangle's call took a third of its instructions).
void raster_triangles(const ScreenPrims& prims, const uint32_t* first, const uint32_t* last, const Rect& clip,
                      const Draw& draw, const CompiledProgram& program, TargetSet& targets, PassCounters& counters,
                      TileWorkTracker* tracker = nullptr, const DrawFacts* facts = nullptr);

}  // namespace tbdr
