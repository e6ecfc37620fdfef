// The floors the hot loops are measured against: a naive binner and a naive scalar
// rasterizer, written the obvious way. They are references for speed only; the simulator never
// calls them. Keep them naive: making them slower or faster moves every ratio tools/bench prints.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/binning.h"
#include "sim/geometry.h"
#include "sim/programs.h"
#include "sim/raster.h"

namespace tbdr::bench {

// Per-triangle AABB (clipped to its draw's rectangle), appended to one std::vector per tile in
// submission order. The vectors are cleared, not freed, between calls.
void naive_bin(const ScreenPrims& prims, const std::vector<Rect>& draw_clip, const TileGrid& grid,
               std::vector<std::vector<uint32_t>>& tiles);

// Single-sample scalar rasterizer: for every pixel of the triangle's bounding box clipped to
// `clip`, three float edge functions at the pixel centre; a covered pixel interpolates depth,
// runs the depth test (depth_compare), interpolates the varyings perspective-correctly, shades
// (shade_fragment) and blends into every color target (blend_color) — the same helpers
// raster_triangle uses. Returns the fragments (covered pixels).
uint64_t naive_raster(const ScreenPrims& prims, size_t prim, const Rect& clip, const Draw& draw,
                      const CompiledProgram& program, TargetSet& targets);

}  // namespace tbdr::bench
