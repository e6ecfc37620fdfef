// Geometry phase: vertex transform (Eigen), clipping to the near/far planes, w > 0 and a guard
// band, perspective divide, viewport, back-face culling -> ScreenPrims in fixed point.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim/frame.h"
#include "sim/huge_pages.h"
#include "sim/stats.h"

namespace tbdr {

constexpr int kSubpixelBits = 8;                 // fixed-point x/y: 1/256 pixel
constexpr int32_t kSubpixelOne = 1 << kSubpixelBits;
// Screen coordinates are clipped to [-kGuardBand, kGuardBand] pixels, so fixed-point x/y stay
// below 2^23 and edge-function products below 2^47 (int64 is exact).
constexpr float kGuardBand = 16384.0f;
constexpr int kVaryingCount = 9;                 // color rgba, uv, world normal xyz

// Screen-space triangles of one pass, structure of arrays (architecture.md "How a stage hands over").
// Size: per primitive 3 x (2 x 4 B fixed x/y + 4 B z + 4 B 1/w + 4 B x varying_stride) + 25 B:
// 113 B when the pass's programs read vertex colors only, 173 B with G-buffer normals.
// The arrays are huge-page backed: a pass's million primitives fill them once, page by page.
struct ScreenPrims {
  template <class T>
  using Array = std::vector<T, UninitializedHugePageAllocator<T>>;  // resize() leaves new elements unset
  Array<int32_t> x[3], y[3];     // framebuffer position, kSubpixelBits fraction
  Array<float> z[3];             // framebuffer depth (after the viewport transform)
  Array<float> inv_w[3];         // 1 / clip w, for perspective-correct interpolation
  Array<float> varyings;         // varying_stride floats x 3 vertices per primitive
  // Floats kept per vertex: the first varying_stride of (color rgba, uv, world normal xyz), as
  // many as the pass's programs read (varyings_read); the rest are never looked at.
  int varying_stride = kVaryingCount;
  Array<uint32_t> draw;          // index into the pass's draw list (subpass order)
  Array<uint8_t> front_facing;
  // Conservative pixel bounds [min, max] inclusive, from the fixed-point vertices.
  Array<int32_t> min_x, min_y, max_x, max_y;

  size_t size() const { return draw.size(); }
  void clear();
  // Room for `count` primitives in every array (appending then never moves what is there).
  void reserve(size_t count);
  // Every array to `count` primitives; new ones are unset until written (copy_to).
  void resize(size_t count);
  // Copies every primitive into `to` from index `at` on (`to` already holds that many more).
  void copy_to(ScreenPrims& to, size_t at) const;
  // Drops the first `count` primitives (a parameter-buffer flush rendered them); the rest move to
  // the front in order.
  void erase_front(size_t count);
  const float* varyings_of(size_t prim) const { return varyings.data() + prim * 3 * size_t(varying_stride); }

  // The one list of the arrays: calls f(elements per primitive, first's array, rest's arrays...)
  // for each (clear, reserve, resize, copy_to, erase_front go through it).
  template <class F, class First, class... Rest>
  static void for_each_array(F f, First& first, Rest&... rest) {
    for (int v = 0; v < 3; ++v) {
      f(size_t(1), first.x[v], rest.x[v]...);
      f(size_t(1), first.y[v], rest.y[v]...);
      f(size_t(1), first.z[v], rest.z[v]...);
      f(size_t(1), first.inv_w[v], rest.inv_w[v]...);
    }
    f(3 * size_t(first.varying_stride), first.varyings, rest.varyings...);
    f(size_t(1), first.draw, rest.draw...);
    f(size_t(1), first.front_facing, rest.front_facing...);
    f(size_t(1), first.min_x, rest.min_x...);
    f(size_t(1), first.min_y, rest.min_y...);
    f(size_t(1), first.max_x, rest.max_x...);
    f(size_t(1), first.max_y, rest.max_y...);
  }
};

// One draw of a pass as the pipeline sees it: the draw, its subpass, and the viewport it uses.
struct PassDraw {
  const Draw* draw = nullptr;
  uint32_t subpass = 0;
  uint32_t index_in_subpass = 0;
  Viewport viewport;
  Rect scissor;  // already intersected with the render area
};

// Transforms, clips and culls every draw of a pass in submission order, appending to `out`.
// Counts vertices, primitives_in, primitives_culled, primitives_clipped and primitives, and the
// vertex DRAM bytes (traces/README.md, ledger rules).
// Only draws[first, last) are processed; ScreenPrims::draw holds indices into `draws`.
// `vertex_alu_cycles` (may be null) accumulates vertex shader invocations x cost.vertex_alu.
// `emitted` (may be empty) runs on the primitives appended to `out` since its last call, from
// index `first` to the end, once at least kEmittedBatch of them wait (a batch holds up to about
// twice that on one thread, up to a round of 16,384 triangles a thread on several) and after the
// last draw; it may change `out` (the pipeline renders and drops what is binned when the
// parameter buffer is full).
using EmittedFn = std::function<void(ScreenPrims& out, size_t first)>;
constexpr size_t kEmittedBatch = 4096;
// Up to `threads` threads transform a large mesh's vertices and assemble a large draw's
// triangles; `out` and the counts are the same for any count.
void transform_draws(const Trace& trace, const std::vector<PassDraw>& draws, size_t first, size_t last,
                     ScreenPrims& out, PassCounters& counters, Traffic& vertex_traffic,
                     double* vertex_alu_cycles = nullptr, const EmittedFn& emitted = {}, uint32_t threads = 1);

}  // namespace tbdr
