// Naive reference binner and rasterizer (see naive_reference.h). No intrinsics, no tricks.
#include "bench/naive_reference.h"

#include <algorithm>

#include "sim/format.h"

namespace tbdr::bench {

void naive_bin(const ScreenPrims& prims, const std::vector<Rect>& draw_clip, const TileGrid& grid,
               std::vector<std::vector<uint32_t>>& tiles) {
  tiles.resize(grid.tile_count());
  for (std::vector<uint32_t>& t : tiles) t.clear();
  const int32_t tw = int32_t(grid.tile_width), th = int32_t(grid.tile_height);
  for (size_t p = 0; p < prims.size(); ++p) {
    const Rect& clip = draw_clip[prims.draw[p]];
    const int32_t x0 = std::max(prims.min_x[p], clip.x);
    const int32_t y0 = std::max(prims.min_y[p], clip.y);
    const int32_t x1 = std::min(prims.max_x[p], clip.x + int32_t(clip.width) - 1);
    const int32_t y1 = std::min(prims.max_y[p], clip.y + int32_t(clip.height) - 1);
    if (x0 > x1 || y0 > y1) continue;
    // Clip rectangles lie inside the render area (non-negative coordinates here).
    for (int32_t r = y0 / th; r <= y1 / th; ++r)
      for (int32_t c = x0 / tw; c <= x1 / tw; ++c)
        tiles[size_t(r - grid.first_row) * grid.cols + size_t(c - grid.first_col)].push_back(uint32_t(p));
  }
}

uint64_t naive_raster(const ScreenPrims& prims, size_t prim, const Rect& clip, const Draw& draw,
                      const CompiledProgram& program, TargetSet& targets) {
  const int32_t x0 = std::max(prims.min_x[prim], clip.x);
  const int32_t y0 = std::max(prims.min_y[prim], clip.y);
  const int32_t x1 = std::min(prims.max_x[prim], clip.x + int32_t(clip.width) - 1);
  const int32_t y1 = std::min(prims.max_y[prim], clip.y + int32_t(clip.height) - 1);
  float vx[3], vy[3];
  for (int k = 0; k < 3; ++k) {
    vx[k] = float(prims.vertex_of(k, prim).x) / float(kSubpixelOne);
    vy[k] = float(prims.vertex_of(k, prim).y) / float(kSubpixelOne);
  }
  const float area = (vx[1] - vx[0]) * (vy[2] - vy[0]) - (vy[1] - vy[0]) * (vx[2] - vx[0]);
  if (area == 0) return 0;
  const float* var[3] = {prims.varyings_of(0, prim), prims.varyings_of(1, prim), prims.varyings_of(2, prim)};
  const PipelineState& state = draw.state;
  static const BlendAttachmentState kNoBlend;
  uint64_t fragments = 0;
  for (int32_t y = y0; y <= y1; ++y) {
    for (int32_t x = x0; x <= x1; ++x) {
      const float px = float(x) + 0.5f, py = float(y) + 0.5f;
      float b[3];
      for (int k = 0; k < 3; ++k) {
        const int a = (k + 1) % 3, c = (k + 2) % 3;
        b[k] = ((vx[c] - vx[a]) * (py - vy[a]) - (vy[c] - vy[a]) * (px - vx[a])) / area;
      }
      if (b[0] < 0 || b[1] < 0 || b[2] < 0) continue;
      ++fragments;
      const size_t i = size_t(y - targets.area.y) * targets.area.width + size_t(x - targets.area.x);
      const float z = quantize_depth(targets.depth_format,
                                     b[0] * prims.vertex_of(0, prim).z + b[1] * prims.vertex_of(1, prim).z + b[2] * prims.vertex_of(2, prim).z);
      if (targets.depth && state.depth_test) {
        if (!depth_compare(state.depth_compare, z, targets.depth[i])) continue;
        if (state.depth_write) targets.depth[i] = z;
      }
      float w[3], w_sum = 0;
      for (int k = 0; k < 3; ++k) {
        w[k] = b[k] * prims.vertex_of(k, prim).inv_w;
        w_sum += w[k];
      }
      float varyings[kVaryingCount];
      const int stride = prims.varying_stride;  // every varying kept (the bench keeps all 9)
      for (int c = 0; c < stride; ++c)
        varyings[c] = (w[0] * var[0][c] + w[1] * var[1][c] + w[2] * var[2][c]) / w_sum;
      FragmentInput input;
      input.varyings = varyings;
      input.x = x;
      input.y = y;
      Vec4 colors[kMaxColorAttachments];
      if (!shade_fragment(program, input, colors, targets.color_count)) continue;
      for (uint32_t c = 0; c < targets.color_count; ++c) {
        if (!targets.color[c]) continue;
        const BlendAttachmentState& bs = c < state.blend.size() ? state.blend[c] : kNoBlend;
        targets.color[c][i] = blend_color(bs, targets.color_format[c], colors[c], targets.color[c][i], state.blend_constants);
      }
    }
  }
  return fragments;
}

}  // namespace tbdr::bench
