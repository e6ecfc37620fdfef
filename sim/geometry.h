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
constexpr int kFirstNormalVarying = 6;           // the world normal's x among them

// A vertex after the perspective divide and the viewport: fixed-point framebuffer position
// (kSubpixelBits fraction), framebuffer depth and 1 / clip w (perspective-correct interpolation).
struct ScreenVertex {
  int32_t x, y;
  float z, inv_w;
};

// Screen-space triangles of one pass (tools/doc/design.md "Design rules": one plain struct per handoff): structure of
// arrays per primitive, pointing at a pool of the pass's screen vertices. A mesh vertex is mapped
// once per draw and shared by every triangle that uses it (a grid shares each among six), as the
// post-transform vertex cache of traces/README.md does; a clipped triangle adds the vertices of
// its polygon. Per primitive 3 x 4 B vertex index + 4 B draw + 1 B facing + 16 B bounds = 33 B;
// per vertex 16 B + 4 B x varying_stride (32 B when the pass's programs read vertex colors only).
// Before, each primitive carried its three vertices (113 B): perf of the million-triangle frame
// showed the kernel zeroing those pages as a quarter of its samples.
// The vertex records are an array of structures: the rasterizer reads all four fields of a vertex
// together, binning none. The arrays are huge-page backed: a pass fills them once, page by page.
struct ScreenPrims {
  template <class T>
  using Array = std::vector<T, UninitializedHugePageAllocator<T>>;  // resize() leaves new elements unset
  // The vertex pool. erase_front drops primitives only, as primitives still to come may share its
  // vertices; between draws, transform_draws drops the vertices no held primitive uses any more.
  Array<ScreenVertex> vertices;
  Array<float> vertex_varyings;  // varying_stride floats per vertex
  // Floats kept per vertex: the first varying_stride of (color rgba, uv, world normal xyz), as
  // many as the pass's programs read (varyings_read); the rest are never looked at.
  int varying_stride = kVaryingCount;
  Array<uint32_t> vertex[3];     // per primitive: its vertices' indices in the pool
  Array<uint32_t> draw;          // index into the pass's draw list (subpass order)
  Array<uint8_t> front_facing;
  // Conservative pixel bounds [min, max] inclusive, from the fixed-point vertices: every pixel
  // with a sample position the triangle can cover (PrimWriter::write's rule, sim/geometry_assembly.h).
  Array<int32_t> min_x, min_y, max_x, max_y;

  size_t size() const { return draw.size(); }
  const ScreenVertex& vertex_of(int k, size_t prim) const { return vertices[vertex[k][prim]]; }
  const float* varyings_of(int k, size_t prim) const {
    return vertex_varyings.data() + size_t(vertex[k][prim]) * size_t(varying_stride);
  }
  // Appends a vertex to the pool (its first varying_stride varyings); returns its index.
  uint32_t add_vertex(const ScreenVertex& v, const float* varyings);
  // Appends a primitive over pool vertices v[0..2] (bounds from their positions).
  void add_triangle(const uint32_t v[3], uint32_t draw_index, bool front);
  // Primitives and vertices, all dropped.
  void clear();
  // Room for `count` primitives in every per-primitive array (appending then never moves them).
  void reserve(size_t count);
  // Every per-primitive array to `count` primitives; new ones are unset until written.
  void resize(size_t count);
  // Both vertex arrays to `count` vertices, new ones unset until written; throws std::length_error
  // past 2^31 - 1 vertices (kLocalVertex).
  void resize_vertices(size_t count);
  // Vertex indices from kLocalVertex up refer to a geometry thread's own pool (the vertices of its
  // clipped triangles) until they join this one (sim/geometry_assembly.cpp, move_block).
  static constexpr uint32_t kLocalVertex = uint32_t(1) << 31;
  // Drops the first `count` primitives (a parameter-buffer flush rendered them); the rest move to
  // the front in order.
  void erase_front(size_t count);

  // The one list of the per-primitive arrays: calls f(first's array, rest's arrays...) for each
  // (reserve, resize, erase_front and geometry's close-up go through it), the vertex indices first.
  template <class F, class First, class... Rest>
  static void for_each_array(F f, First& first, Rest&... rest) {
    for (int v = 0; v < 3; ++v) f(first.vertex[v], rest.vertex[v]...);
    f(first.draw, rest.draw...);
    f(first.front_facing, rest.front_facing...);
    f(first.min_x, rest.min_x...);
    f(first.min_y, rest.min_y...);
    f(first.max_x, rest.max_x...);
    f(first.max_y, rest.max_y...);
  }
};

// One draw of a pass as the pipeline sees it: the draw, its subpass, and the viewport it uses.
struct PassDraw {
  const Draw* draw = nullptr;
  uint32_t subpass = 0;
  uint32_t index_in_subpass = 0;
  Viewport viewport;
  Rect scissor;  // already intersected with the render area
  uint32_t samples = 1;  // of its subpass's attachments: a multisampled one draws rectangular lines
};

// Transforms, clips and culls every draw of a pass in submission order, appending to `out`.
// Counts vertices, primitives_in, primitives_culled, primitives_clipped and primitives, and the
// vertex DRAM bytes (traces/README.md, ledger rules).
// Only draws[first, last) are processed; ScreenPrims::draw holds indices into `draws`.
// `shading` (may be null) accumulates vertex shader invocations x cost.vertex_alu and the bytes of
// positions and indices alone (what a position-only binning pass fetches; whole vertices where the
// mesh is `interleaved`).
// `emitted` (may be empty) runs on the primitives appended to `out` since its last call, from
// index `first` to the end, once at least kEmittedBatch of them wait (a batch holds up to about
// twice that on one thread, up to a round of 131,072 triangles or more on several) and after the
// last draw; it may change `out` (the pipeline renders and drops what is binned when the
// parameter buffer is full).
using EmittedFn = std::function<void(ScreenPrims& out, size_t first)>;
constexpr size_t kEmittedBatch = 4096;
struct VertexShadingWork {
  double alu_cycles = 0;
  uint64_t position_read_bytes = 0;  // per draw and instance: indices + unique vertices x position bytes
                                     // (x the whole vertex stride for an interleaved mesh)
};
// Up to `threads` threads transform a large mesh's vertices and assemble a large draw's
// triangles; `out` and the counts are the same for any count. `per_draw` (may be null; indexed
// like `draws`) receives each draw's share of the counts and of the vertex bytes.
void transform_draws(const Trace& trace, const std::vector<PassDraw>& draws, size_t first, size_t last,
                     ScreenPrims& out, PassCounters& counters, Traffic& vertex_traffic,
                     VertexShadingWork* shading = nullptr, const EmittedFn& emitted = {}, uint32_t threads = 1,
                     std::vector<DrawCounters>* per_draw = nullptr);

// What transform_draws counts for one draw before clipping and culling: vertex shader invocations
// (unique vertices referenced x instances), their vertex_alu cycles, the vertex and index bytes it
// fetches and the triangles it assembles. A per-tile draw (VK_QCOM_tile_shading) repeats it per tile.
struct DrawVertexWork {
  uint64_t vertices = 0;
  double vertex_alu_cycles = 0;
  uint64_t fetch_bytes = 0;
  uint64_t primitives_in = 0;
};
DrawVertexWork draw_vertex_work(const Trace& trace, const Draw& draw);

}  // namespace tbdr
