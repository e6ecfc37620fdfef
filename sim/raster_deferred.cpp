// Deferred colors (visibility-buffer style, sim/raster.h DeferredColors): which draws defer, and
// the flush that computes each waiting pixel's color with the direct path's very operations; also
// draw_facts, the per-draw decisions of raster_triangle.
#include "sim/raster_deferred.h"

#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sim/raster_blend.h"
#include "sim/raster_setup.h"

namespace tbdr {

using namespace raster_detail;

DeferredColors::DeferredColors() : impl(std::make_unique<Impl>()) {}
DeferredColors::DeferredColors(DeferredColors&&) noexcept = default;
DeferredColors& DeferredColors::operator=(DeferredColors&&) noexcept = default;
DeferredColors::~DeferredColors() = default;

void DeferredColors::reset(size_t pixels) {
  if (impl->triangle.size() >= pixels) return;
  impl->triangle.resize(pixels, kNoDeferredTriangle);
  for (std::vector<double>& l : impl->l) l.resize(pixels, 0.0);
}

bool defers_color(const Draw& draw, const CompiledProgram& program, const TargetSet& targets) {
#if defined(__SSE2__)
  const PipelineState& state = draw.state;
  if (program.kind != CompiledProgram::Kind::vertex_color || !takes_simple_path(draw, program, targets)) return false;
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c) {
    if (!targets.color[c]) continue;
    const BlendAttachmentState& blend = c < state.blend.size() ? state.blend[c] : kNoBlend;
    if (blend_path_of(blend, targets.color_format[c]) != BlendPath::opaque_unorm8) return false;
  }
  return true;
#else
  (void)draw, (void)program, (void)targets;
  return false;
#endif
}

DrawFacts draw_facts(const Draw& draw, const CompiledProgram& program, const TargetSet& targets) {
  DrawFacts facts;
  facts.simple_path = takes_simple_path(draw, program, targets);
  facts.defer = targets.deferred && defers_color(draw, program, targets);
  // Only an opaque fragment that writes depth can hide earlier ones (Arm FPK, PowerVR HSR;
  // models/README.md "Sources: bandwidth savers").
  const bool depth_write = targets.depth != nullptr && draw.state.depth_test && draw.state.depth_write;
  facts.occluder = depth_write && !hsr_breakers(draw, program.input_attachments).any();
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c) facts.color_writes += targets.color[c] ? 1 : 0;
  return facts;
}

// Every field of `targets` that draw_facts(), takes_simple_path() and defers_color() read.
DrawFactsKey draw_facts_key(const TargetSet& targets) {
  DrawFactsKey key;
  key.samples = targets.samples;
  key.color_count = targets.color_count;
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c) {
    key.present |= targets.color[c] ? 1u << c : 0u;
    key.color_format[c] = targets.color_format[c];
  }
  const uint32_t others = kMaxColorAttachments;
  key.present |= (targets.depth ? 1u : 0u) << others | (targets.stencil ? 2u : 0u) << others |
                 (targets.framebuffer ? 4u : 0u) << others | (targets.deferred ? 8u : 0u) << others;
  return key;
}

void flush_deferred_colors(TargetSet& targets) {
  if (!targets.deferred) return;
  DeferredColors::Impl& d = *targets.deferred->impl;
  if (d.triangles.empty()) return;
#if defined(__SSE2__)
  const size_t pixels = size_t(targets.area.width) * targets.area.height;
  // The color targets in locals: the stores into them could alias `targets`, whose fields were
  // reloaded for every pixel. defers_color() admits only the opaque unorm8 path, whose stored
  // value (blend_store: unorm8_ps of the color) is the same for every target, RGBA8 or BGRA8.
  Vec4* colors[kMaxColorAttachments];
  uint32_t color_count = 0;
  for (uint32_t c = 0; c < targets.color_count && c < kMaxColorAttachments; ++c)
    if (targets.color[c]) colors[color_count++] = targets.color[c];
  const WaitingPixels waiting = d.waiting();
  const DeferredTriangle* const triangles = d.triangles.data();
  // One color target (the common case) in a copy of the loop of its own: the target loop's count
  // and branches were 4 instructions a pixel.
  auto flush = [&](auto one_target) __attribute__((always_inline)) {
    for (size_t i = 0; i < pixels; ++i) {
      if (waiting.triangle[i] == kNoDeferredTriangle) continue;
      const DeferredTriangle& t = triangles[waiting.triangle[i]];
      const double l[3] = {waiting.l[0][i], waiting.l[1][i], waiting.l[2][i]};
      // SimpleShading::shade's vertex_color color and opaque store, as it would have done them.
      const __m128 stored = unorm8_ps(ShadingSetup::interpolated_vertex_color<true>(t.var, t.inv_w, l, *t.tint));
      if constexpr (decltype(one_target)::value) _mm_storeu_ps(colors[0][i].data(), stored);
      else
        for (uint32_t c = 0; c < color_count; ++c) _mm_storeu_ps(colors[c][i].data(), stored);
      waiting.triangle[i] = kNoDeferredTriangle;
    }
  };
  if (color_count == 1) flush(std::true_type());
  else flush(std::false_type());
#endif
  d.triangles.clear();
}

}  // namespace tbdr
