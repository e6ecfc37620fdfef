// Deferred colors' storage (raster_detail, included by sim/raster*.cpp only): the waiting fragment
// of each pixel (its triangle and barycentrics) and each triangle's vertex data, until
// flush_deferred_colors (sim/raster_deferred.cpp) computes and stores the colors.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/raster.h"

namespace tbdr {
namespace raster_detail {

// DeferredColors' storage: per pixel the waiting fragment's triangle (an index into `triangles`,
// kNoDeferredTriangle when none waits) and barycentrics, one array each (so that a row of four
// fragments is stored with one vector store an array); per triangle its shading setup and program.
// WaitingPixels: the arrays from one pixel on.
struct WaitingPixels {
  uint32_t* triangle;
  double* l[3];
  WaitingPixels from(size_t pixel) const { return {triangle + pixel, {l[0] + pixel, l[1] + pixel, l[2] + pixel}}; }
  void store(size_t pixel, uint32_t index, double l0, double l1, double l2) const {
    triangle[pixel] = index;
    l[0][pixel] = l0;
    l[1][pixel] = l1;
    l[2][pixel] = l2;
  }
};
// Only what flush_deferred_colors() reads: defers_color() admits opaque unorm8 stores alone, which
// need neither blend state nor path (a copy of the whole ShadingSetup per triangle cost more).
struct DeferredTriangle {
  const float* var[3];
  float inv_w[3];
  const Vec4* tint;  // the program's color
};
constexpr uint32_t kNoDeferredTriangle = UINT32_MAX;

}  // namespace raster_detail

struct DeferredColors::Impl {
  // Every pixel's triangle is kNoDeferredTriangle between flushes: reset() only grows the arrays.
  std::vector<uint32_t> triangle;
  std::vector<double> l[3];
  std::vector<raster_detail::DeferredTriangle> triangles;
  raster_detail::WaitingPixels waiting() { return {triangle.data(), {l[0].data(), l[1].data(), l[2].data()}}; }
};

namespace raster_detail {

// Appends primitive `prim`'s entry to deferred.triangles and returns its index: its vertices'
// varyings and 1/w in the edge functions' order, as ShadingSetup::init_vertices takes them. Inline
// (perf of the million-triangle frame: init_vertices and the vector's emplace_back were two calls,
// the entry built through a ShadingSetup; then one call, 71 instructions a triangle, 2.6 % of the
// run). Built whole, not value-initialized and then filled: GCC zeroed the latter with a `rep stos`.
[[gnu::always_inline]] static inline uint32_t add_deferred_triangle(DeferredColors::Impl& deferred,
                                                                    const ScreenPrims& prims, size_t prim, bool flip,
                                                                    const Vec4& tint) {
  const int second = flip ? 2 : 1, third = flip ? 1 : 2;
  deferred.triangles.push_back(DeferredTriangle{
      {prims.varyings_of(0, prim), prims.varyings_of(second, prim), prims.varyings_of(third, prim)},
      {prims.vertex_of(0, prim).inv_w, prims.vertex_of(second, prim).inv_w, prims.vertex_of(third, prim).inv_w},
      &tint});
  return uint32_t(deferred.triangles.size() - 1);
}

}  // namespace raster_detail
}  // namespace tbdr
