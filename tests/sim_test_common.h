// Shared by the tests of sim/ on traces built in code (tests/sim_*_test.cpp): models, an image sink,
// traces of rectangles and flat draws, render passes, the standard sample positions.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/registry.h"
#include "sim/binning.h"
#include "sim/format.h"
#include "sim/frame.h"
#include "sim/geometry.h"
#include "sim/huge_pages.h"
#include "sim/pipeline.h"
#include "sim/programs.h"
#include "sim/raster.h"
#include "sim/stats.h"
#include "sim/surface.h"

namespace tbdr {

inline models::ModelSet make_models(const std::string& tile = "") {
  models::Configuration config = models::Configuration::from_preset("reference");
  if (!tile.empty()) config.set_tile(tile);
  return models::build_models(config);
}

// Copies every stored image (StoredImage::surface is valid only during the callback).
class Capture final : public ImageSink {
 public:
  struct Entry {
    uint32_t pass = 0;
    std::string slot;
    int32_t image = -1;
    Surface surface;
    Rect region;
  };
  std::vector<Entry> entries;

  void stored(const StoredImage& image) override {
    entries.push_back({image.pass_index, image.slot, image.image, *image.surface, image.region});
  }
  // The surface pass `pass` stored for `image`; null (and a test failure) when there is none.
  const Surface* find(uint32_t pass, int32_t image) const {
    for (const Entry& e : entries)
      if (e.pass == pass && e.image == image) return &e.surface;
    ADD_FAILURE() << "pass " << pass << " stored no image " << image;
    return nullptr;
  }
};

inline int32_t add_image(Trace& trace, Format format, uint32_t width, uint32_t height, uint32_t samples = 1,
                  bool transient = false) {
  ImageDesc d;
  d.name = "image" + std::to_string(trace.images.size());
  d.format = format;
  d.width = width;
  d.height = height;
  d.samples = samples;
  d.transient = transient;
  trace.images.push_back(std::move(d));
  return int32_t(trace.images.size() - 1);
}

inline int32_t add_mesh(Trace& trace, Mesh mesh) {
  mesh.name = "mesh" + std::to_string(trace.meshes.size());
  trace.meshes.push_back(std::move(mesh));
  return int32_t(trace.meshes.size() - 1);
}

// Clip-space position (w = `w`) of framebuffer point (px, py) for a viewport at the origin of
// size width x height. With w = 1 and power-of-two half extents every step is exact in float.
inline Vec4 pixel_to_clip(double px, double py, uint32_t width, uint32_t height, float z = 0.5f, float w = 1.0f) {
  const double hx = width / 2.0, hy = height / 2.0;
  return Vec4(float((px - hx) / hx) * w, float((py - hy) / hy) * w, z * w, w);
}

// A non-indexed clip-space mesh of the axis-aligned rectangle [x0, x1] x [y0, y1] (pixels).
inline int32_t add_rect(Trace& trace, double x0, double y0, double x1, double y1, uint32_t width, uint32_t height,
                 float z = 0.5f) {
  Mesh m;
  m.position_components = 4;
  const Vec4 a = pixel_to_clip(x0, y0, width, height, z), b = pixel_to_clip(x1, y0, width, height, z);
  const Vec4 c = pixel_to_clip(x0, y1, width, height, z), d = pixel_to_clip(x1, y1, width, height, z);
  m.positions = {a, b, c, c, b, d};
  return add_mesh(trace, std::move(m));
}

inline Draw clip_draw(int32_t mesh) {
  Draw d;
  d.mesh = mesh;
  d.transform.clip_space = true;
  return d;
}

inline Draw flat_draw(int32_t mesh, const Vec4& color) {
  Draw d = clip_draw(mesh);
  d.program.params["color"] = {color[0], color[1], color[2], color[3]};
  return d;
}

inline BlendAttachmentState additive() {
  BlendAttachmentState b;
  b.enable = true;
  b.src_color = b.dst_color = b.src_alpha = b.dst_alpha = BlendFactor::one;
  return b;
}

inline Attachment attachment(int32_t image, LoadOp load, StoreOp store) {
  Attachment a;
  a.image = image;
  a.load = load;
  a.store = store;
  return a;
}

inline Pass render_pass(const std::string& name, std::vector<Attachment> attachments, std::vector<Subpass> subpasses,
                 std::optional<Rect> area = std::nullopt) {
  Pass p;
  p.name = name;
  p.attachments = std::move(attachments);
  p.subpasses = std::move(subpasses);
  p.render_area = area;
  return p;
}

inline Subpass color_subpass(std::vector<int32_t> color, int32_t depth = kUnused) {
  Subpass s;
  s.color = std::move(color);
  s.depth = depth;
  return s;
}

// Vulkan spec "Standard Sample Locations" in 1/16 pixel, written out again here (not taken from
// sim/raster.h) so the expectations do not share the simulator's table.
inline const std::vector<std::pair<int, int>>& standard_samples(uint32_t samples) {
  static const std::vector<std::pair<int, int>> k1 = {{8, 8}};
  static const std::vector<std::pair<int, int>> k2 = {{12, 12}, {4, 4}};  // (0.75, 0.75), (0.25, 0.25)
  static const std::vector<std::pair<int, int>> k4 = {{6, 2}, {14, 6}, {2, 10}, {10, 14}};
  // (0.5625, 0.3125), (0.4375, 0.6875), (0.8125, 0.5625), (0.3125, 0.1875), (0.1875, 0.8125),
  // (0.0625, 0.4375), (0.6875, 0.9375), (0.9375, 0.0625)
  static const std::vector<std::pair<int, int>> k8 = {{9, 5},  {7, 11}, {13, 9},  {5, 3},
                                                      {3, 13}, {1, 7},  {11, 15}, {15, 1}};
  switch (samples) {
    case 1:
      return k1;
    case 2:
      return k2;
    case 4:
      return k4;
    case 8:
      return k8;
  }
  throw std::invalid_argument("no standard sample locations for " + std::to_string(samples) + " samples");
}

// Classifies point (px, py) against a convex polygon: +1 when it is inside by more than `margin`
// from every edge, -1 when it is outside by more than `margin` from some edge, 0 otherwise
// (too close to call). Plain double geometry, independent of the simulator's edge functions.
inline int classify(const std::vector<std::pair<double, double>>& poly, double px, double py, double margin) {
  double area2 = 0;
  for (size_t i = 0; i < poly.size(); ++i) {
    const auto& a = poly[i];
    const auto& b = poly[(i + 1) % poly.size()];
    area2 += a.first * b.second - b.first * a.second;
  }
  const double orient = area2 > 0 ? 1.0 : -1.0;
  bool inside = true;
  for (size_t i = 0; i < poly.size(); ++i) {
    const auto& a = poly[i];
    const auto& b = poly[(i + 1) % poly.size()];
    const double ex = b.first - a.first, ey = b.second - a.second;
    const double dist = orient * (ex * (py - a.second) - ey * (px - a.first)) / std::hypot(ex, ey);
    if (dist < -margin) return -1;
    if (dist <= margin) inside = false;
  }
  return inside ? 1 : 0;
}

inline const PassStats& pass_stats(const RunStats& run, uint32_t pass) { return run.frames.at(0).passes.at(pass); }

}  // namespace tbdr
