// Tests of sim/ on traces built in code: rasterization rules, near-plane clipping, conservative binning,
// the DRAM ledger's exact bytes, depth/stencil/scissor/MSAA, and the TBDR path against the IMR path.
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
namespace {

// ---- helpers ---------------------------------------------------------------------------------

models::ModelSet make_models(const std::string& tile = "") {
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

int32_t add_image(Trace& trace, Format format, uint32_t width, uint32_t height, uint32_t samples = 1,
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

int32_t add_mesh(Trace& trace, Mesh mesh) {
  mesh.name = "mesh" + std::to_string(trace.meshes.size());
  trace.meshes.push_back(std::move(mesh));
  return int32_t(trace.meshes.size() - 1);
}

// Clip-space position (w = `w`) of framebuffer point (px, py) for a viewport at the origin of
// size width x height. With w = 1 and power-of-two half extents every step is exact in float.
Vec4 pixel_to_clip(double px, double py, uint32_t width, uint32_t height, float z = 0.5f, float w = 1.0f) {
  const double hx = width / 2.0, hy = height / 2.0;
  return Vec4(float((px - hx) / hx) * w, float((py - hy) / hy) * w, z * w, w);
}

// A non-indexed clip-space mesh of the axis-aligned rectangle [x0, x1] x [y0, y1] (pixels).
int32_t add_rect(Trace& trace, double x0, double y0, double x1, double y1, uint32_t width, uint32_t height,
                 float z = 0.5f) {
  Mesh m;
  m.position_components = 4;
  const Vec4 a = pixel_to_clip(x0, y0, width, height, z), b = pixel_to_clip(x1, y0, width, height, z);
  const Vec4 c = pixel_to_clip(x0, y1, width, height, z), d = pixel_to_clip(x1, y1, width, height, z);
  m.positions = {a, b, c, c, b, d};
  return add_mesh(trace, std::move(m));
}

Draw clip_draw(int32_t mesh) {
  Draw d;
  d.mesh = mesh;
  d.transform.clip_space = true;
  return d;
}

Draw flat_draw(int32_t mesh, const Vec4& color) {
  Draw d = clip_draw(mesh);
  d.program.params["color"] = {color[0], color[1], color[2], color[3]};
  return d;
}

BlendAttachmentState additive() {
  BlendAttachmentState b;
  b.enable = true;
  b.src_color = b.dst_color = b.src_alpha = b.dst_alpha = BlendFactor::one;
  return b;
}

Attachment attachment(int32_t image, LoadOp load, StoreOp store) {
  Attachment a;
  a.image = image;
  a.load = load;
  a.store = store;
  return a;
}

Pass render_pass(const std::string& name, std::vector<Attachment> attachments, std::vector<Subpass> subpasses,
                 std::optional<Rect> area = std::nullopt) {
  Pass p;
  p.name = name;
  p.attachments = std::move(attachments);
  p.subpasses = std::move(subpasses);
  p.render_area = area;
  return p;
}

Subpass color_subpass(std::vector<int32_t> color, int32_t depth = kUnused) {
  Subpass s;
  s.color = std::move(color);
  s.depth = depth;
  return s;
}

// Vulkan spec "Standard Sample Locations" in 1/16 pixel, written out again here (not taken from
// sim/raster.h) so the expectations do not share the simulator's table.
const std::vector<std::pair<int, int>>& standard_samples(uint32_t samples) {
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
int classify(const std::vector<std::pair<double, double>>& poly, double px, double py, double margin) {
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

const PassStats& pass_stats(const RunStats& run, uint32_t pass) { return run.frames.at(0).passes.at(pass); }

// ---- 1. shared edges ------------------------------------------------------------------------

// A convex quad A C B D drawn as two triangles sharing the diagonal AB (ABC, BAD) with additive
// blending of 1.0 into R32F cleared to 0 must hold exactly 0 or 1 in every sample: a 2 is a
// double blend on the shared edge, and a 0 inside the quad is a gap. The same quad split along the
// other diagonal CD must give the identical image: each split's shared edge is interior to the
// other split, and the outer edges (with their fill-rule classification) are the same in both.
// Vertices lie on the simulator's 1/256 px grid. A sample lying exactly on AB is where a fill-rule
// error shows, and random lines almost never pass exactly through one, so 3 quads in 4 put AB on a
// line through a sample position with a small integer direction (axis-aligned, 45 degrees, 2:1...)
// that meets the same sample of every |direction|-th pixel; the rest are fully random. No vertex
// lies on a sample position (there the two splits may legitimately differ). The quads take 1, 2, 4
// and 8 samples in turn, so every standard sample table is checked against the spec's.
TEST(SimRaster, TrianglesSharingAnEdgeCoverEachSampleOnce) {
  const uint32_t kSize = 64;
  const models::ModelSet models = make_models();
  std::mt19937 rng(20240611);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto snap = [](double v) {
    int64_t f = std::llround(v * kSubpixelOne);
    if ((f & 15) == 0) ++f;  // samples sit on multiples of 1/16 px = 16 units
    return f;
  };
  uint64_t on_shared_edge = 0, decided_samples = 0;
  int quads = 0;
  for (int attempt = 0; quads < 200; ++attempt) {
    const uint32_t samples = 1u << (quads % 4);  // 1, 2, 4 and 8 samples in turn
    const auto& pattern = standard_samples(samples);
    int64_t fx[4], fy[4];  // A, B, C, D in 1/256 px
    if (attempt % 4 != 3) {
      int64_t p = 0, q = 0;
      while (p == 0 && q == 0) {
        p = int64_t(rng() % 7) - 3;
        q = int64_t(rng() % 7) - 3;
      }
      const auto [ox, oy] = pattern[rng() % pattern.size()];
      const int64_t bx = int64_t(rng() % kSize) * 256 + ox * 16, by = int64_t(rng() % kSize) * 256 + oy * 16;
      const int64_t k1 = -int64_t(256 + rng() % 1280), k2 = int64_t(256 + rng() % 1280);
      fx[0] = bx + k1 * p;
      fy[0] = by + k1 * q;
      fx[1] = bx + k2 * p;
      fy[1] = by + k2 * q;
    } else {
      const double angle = uniform(0, 2 * std::numbers::pi), length = uniform(8, 60);
      const double ax = uniform(-8, 72), ay = uniform(-8, 72);
      fx[0] = snap(ax);
      fy[0] = snap(ay);
      fx[1] = snap(ax + length * std::cos(angle));
      fy[1] = snap(ay + length * std::sin(angle));
    }
    const double ax = fx[0] / 256.0, ay = fy[0] / 256.0, bx = fx[1] / 256.0, by = fy[1] / 256.0;
    const double len = std::hypot(bx - ax, by - ay), nx = -(by - ay) / len, ny = (bx - ax) / len;
    const double t = uniform(0.25, 0.75), mx = ax + t * (bx - ax), my = ay + t * (by - ay);
    const double sc = uniform(2, 30), sd = uniform(2, 30);
    fx[2] = snap(mx + sc * nx);
    fy[2] = snap(my + sc * ny);
    fx[3] = snap(mx - sd * nx);
    fy[3] = snap(my - sd * ny);
    bool vertex_on_sample = false;
    for (int i = 0; i < 2; ++i)
      for (const auto& [sx, sy] : pattern)
        vertex_on_sample = vertex_on_sample || ((fx[i] & 255) == sx * 16 && (fy[i] & 255) == sy * 16);
    if (vertex_on_sample) continue;
    // Quad A C B D must be strictly convex.
    const int order[4] = {0, 2, 1, 3};
    int positive = 0, negative = 0;
    for (int i = 0; i < 4; ++i) {
      const int a = order[i], b = order[(i + 1) % 4], c = order[(i + 2) % 4];
      const int64_t cross = (fx[b] - fx[a]) * (fy[c] - fy[b]) - (fy[b] - fy[a]) * (fx[c] - fx[b]);
      positive += cross > 0;
      negative += cross < 0;
    }
    if (positive != 4 && negative != 4) continue;
    ++quads;

    Trace trace;
    const int32_t split_ab = add_image(trace, Format::R32F, kSize, kSize, samples);
    const int32_t split_cd = add_image(trace, Format::R32F, kSize, kSize, samples);
    Mesh mesh;
    mesh.position_components = 4;
    for (int i = 0; i < 4; ++i)
      mesh.positions.push_back(pixel_to_clip(double(fx[i]) / kSubpixelOne, double(fy[i]) / kSubpixelOne, kSize, kSize));
    mesh.indices = {0, 1, 2, 1, 0, 3,   // ABC, BAD: shared edge AB
                    2, 3, 0, 3, 2, 1};  // CDA, DCB: shared edge CD
    const int32_t m = add_mesh(trace, std::move(mesh));
    Frame frame;
    for (int split = 0; split < 2; ++split) {
      Draw d = flat_draw(m, Vec4(1, 1, 1, 1));
      d.first_index = 6 * uint32_t(split);
      d.index_count = 6;
      d.state.blend = {additive()};
      Subpass sp = color_subpass({0});
      sp.draws = {d};
      frame.passes.push_back(render_pass("split" + std::to_string(split),
                                         {attachment(split ? split_cd : split_ab, LoadOp::clear, StoreOp::store)},
                                         {sp}));
    }
    trace.frames = {frame};
    Capture capture;
    simulate(trace, models, SimOptions{}, &capture);
    const Surface* ab = capture.find(0, split_ab);
    const Surface* cd = capture.find(1, split_cd);
    ASSERT_TRUE(ab && cd);

    std::vector<std::pair<double, double>> quad;
    for (int i : order) quad.emplace_back(double(fx[i]) / kSubpixelOne, double(fy[i]) / kSubpixelOne);
    for (uint32_t y = 0; y < kSize; ++y)
      for (uint32_t x = 0; x < kSize; ++x)
        for (uint32_t s = 0; s < samples; ++s) {
          const size_t i = ab->index(x, y, s);
          const float v = ab->color[i][0];
          const int64_t sx = int64_t(x) * 256 + pattern[s].first * 16, sy = int64_t(y) * 256 + pattern[s].second * 16;
          auto where = [&] {
            return "quad " + std::to_string(quads) + " pixel " + std::to_string(x) + "," + std::to_string(y) +
                   " sample " + std::to_string(s);
          };
          ASSERT_TRUE(v == 0.0f || v == 1.0f) << where() << " value " << v;
          ASSERT_EQ(v, cd->color[i][0]) << where() << ": the two splits of one quad differ";
          const int expected = classify(quad, sx / 256.0, sy / 256.0, 1e-3);
          if (expected != 0) {
            ++decided_samples;
            ASSERT_EQ(v, expected > 0 ? 1.0f : 0.0f) << where();
          }
          // Exactly on the open segment AB (integer arithmetic): inside the quad, covered by one.
          const int64_t ex = fx[1] - fx[0], ey = fy[1] - fy[0];
          const int64_t dot = ex * (sx - fx[0]) + ey * (sy - fy[0]);
          if (ex * (sy - fy[0]) - ey * (sx - fx[0]) == 0 && dot > 0 && dot < ex * ex + ey * ey) {
            ++on_shared_edge;
            ASSERT_EQ(v, 1.0f) << where() << " lies on the shared edge";
          }
        }
  }
  // The quads really put samples on shared edges and decided many samples (not a vacuous pass).
  EXPECT_GT(on_shared_edge, 500u);
  EXPECT_GT(decided_samples, 1000000u);
}

// The fill rule on its own (the rule sim/raster_setup.h documents: a sample exactly on an edge
// belongs to the triangle only for a top edge or a left edge). Edges through pixel centres:
// the rectangle [3.5,9.5] x [2.5,10.5] covers x 3..8 (left edge in, right edge out) and y 2..9
// (top in, bottom out) = 48 pixels, whichever winding its triangles have (second copy at x + 10
// wound the other way). Triangle (0.5,16.5) (8.5,16.5) (0.5,24.5): its hypotenuse is a right
// edge, so pixel (x, 16 + j) is covered iff x + j <= 7 (36 pixels). Triangle (20.5,16.5)
// (28.5,16.5) (28.5,24.5): its hypotenuse is a left edge, the vertical edge a right edge, so
// pixel (20 + i, 16 + j) is covered iff j <= i <= 7 (36 pixels).
TEST(SimRaster, TopLeftFillRule) {
  const uint32_t kSize = 32;
  Trace trace;
  const int32_t target = add_image(trace, Format::R32F, kSize, kSize);
  Mesh mesh;
  mesh.position_components = 4;
  auto v = [&](double x, double y) { return pixel_to_clip(x, y, kSize, kSize); };
  mesh.positions = {v(3.5, 2.5),  v(9.5, 2.5),   v(3.5, 10.5), v(3.5, 10.5),  v(9.5, 2.5),   v(9.5, 10.5),
                    v(13.5, 2.5), v(13.5, 10.5), v(19.5, 2.5), v(13.5, 10.5), v(19.5, 10.5), v(19.5, 2.5),
                    v(0.5, 16.5), v(8.5, 16.5),  v(0.5, 24.5), v(20.5, 16.5), v(28.5, 16.5), v(28.5, 24.5)};
  const int32_t m = add_mesh(trace, std::move(mesh));
  Draw d = flat_draw(m, Vec4(1, 1, 1, 1));
  d.state.blend = {additive()};
  Subpass sp = color_subpass({0});
  sp.draws = {d};
  trace.frames = {Frame{{render_pass("fill", {attachment(target, LoadOp::clear, StoreOp::store)}, {sp})}, {}}};
  Capture capture;
  simulate(trace, make_models(), SimOptions{}, &capture);
  const Surface* c = capture.find(0, target);
  ASSERT_TRUE(c);
  uint64_t covered = 0;
  for (int y = 0; y < int(kSize); ++y)
    for (int x = 0; x < int(kSize); ++x) {
      const bool rect = (x >= 3 && x <= 8 && y >= 2 && y <= 9) || (x >= 13 && x <= 18 && y >= 2 && y <= 9);
      const bool lower = x >= 0 && y >= 16 && x + (y - 16) <= 7;
      const bool upper = y >= 16 && (y - 16) <= (x - 20) && (x - 20) <= 7;
      const float e = (rect || lower || upper) ? 1.0f : 0.0f;
      const float got = c->color[c->index(uint32_t(x), uint32_t(y), 0)][0];
      EXPECT_EQ(got, e) << x << "," << y;
      covered += got != 0.0f;
    }
  EXPECT_EQ(covered, 48u + 48u + 36u + 36u);
}

// ---- 2. near-plane clipping -------------------------------------------------------------------

// A perspective projection (Vulkan depth 0..1, camera looking down -z, near 0.5, far 100) and a
// triangle with one vertex behind the camera. The expected coverage is the triangle clipped by
// hand in double precision against clip z >= 0 (the near plane), divided, mapped through the
// 64x64 viewport and snapped to the documented 1/256 px vertex precision; pixel centres are tested
// against that polygon with a 1e-3 px margin. Additive blending into R32F also catches a pixel
// covered twice by the fan the clipper splits the polygon into.
TEST(SimClip, TriangleCrossingTheNearPlane) {
  const uint32_t kSize = 64;
  const double n = 0.5, f = 100;
  Mat4 proj = Mat4::Zero();
  proj(0, 0) = 1;
  proj(1, 1) = 1;
  proj(2, 2) = float(f / (n - f));  // z_clip = 0 at z = -n, = w at z = -f
  proj(2, 3) = float(n * f / (n - f));
  proj(3, 2) = -1;  // w = -z

  Trace trace;
  const int32_t crossing_image = add_image(trace, Format::R32F, kSize, kSize);
  const int32_t behind_image = add_image(trace, Format::R32F, kSize, kSize);
  Mesh crossing;
  crossing.positions = {Vec4(-1, -1, -2, 1), Vec4(1.5f, -0.5f, -3, 1), Vec4(0.3f, 1.0f, 1.0f, 1)};
  const int32_t crossing_mesh = add_mesh(trace, crossing);
  // Entirely behind the camera (w = -2): a divide without clipping would put it on screen.
  Mesh behind;
  behind.positions = {Vec4(-1, -1, 2, 1), Vec4(1, -1, 2, 1), Vec4(0, 1, 2, 1)};
  const int32_t behind_mesh = add_mesh(trace, behind);
  Frame frame;
  for (int k = 0; k < 2; ++k) {
    Draw d;
    d.mesh = k ? behind_mesh : crossing_mesh;
    d.transform.mvp = proj;
    d.state.blend = {additive()};
    Subpass sp = color_subpass({0});
    sp.draws = {d};
    frame.passes.push_back(render_pass(k ? "behind" : "crossing",
                                       {attachment(k ? behind_image : crossing_image, LoadOp::clear, StoreOp::store)},
                                       {sp}));
  }
  trace.frames = {frame};
  Capture capture;
  const RunStats run = simulate(trace, make_models(), SimOptions{}, &capture);

  // Expected polygon: Sutherland-Hodgman against z >= 0 in clip space, in double.
  using P4 = std::array<double, 4>;
  std::vector<P4> clip;
  for (const Vec4& p : crossing.positions) {
    P4 c{};
    for (int r = 0; r < 4; ++r)
      for (int k = 0; k < 4; ++k) c[r] += double(proj(r, k)) * double(p[k]);
    clip.push_back(c);
  }
  std::vector<P4> poly;
  for (size_t i = 0; i < clip.size(); ++i) {
    const P4& a = clip[i];
    const P4& b = clip[(i + 1) % clip.size()];
    if (a[2] >= 0) poly.push_back(a);
    if ((a[2] >= 0) != (b[2] >= 0)) {
      const double t = a[2] / (a[2] - b[2]);
      P4 q;
      for (int k = 0; k < 4; ++k) q[k] = a[k] + t * (b[k] - a[k]);
      poly.push_back(q);
    }
  }
  ASSERT_EQ(poly.size(), 4u);  // one vertex cut off: a quad
  std::vector<std::pair<double, double>> screen;
  for (const P4& q : poly) {
    auto snap = [](double v) { return std::nearbyint(v * 256.0) / 256.0; };
    screen.emplace_back(snap(32 + 32 * q[0] / q[3]), snap(32 + 32 * q[1] / q[3]));
  }

  const Surface* covered = capture.find(0, crossing_image);
  ASSERT_TRUE(covered);
  uint64_t inside = 0, outside = 0;
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      const int expected = classify(screen, x + 0.5, y + 0.5, 1e-3);
      const float v = covered->color[covered->index(x, y, 0)][0];
      if (expected == 0) {
        EXPECT_TRUE(v == 0.0f || v == 1.0f) << "pixel " << x << "," << y << " value " << v;
        continue;
      }
      (expected > 0 ? inside : outside)++;
      EXPECT_EQ(v, expected > 0 ? 1.0f : 0.0f) << "pixel " << x << "," << y;
    }
  EXPECT_GT(inside, 800u);
  EXPECT_GT(outside, 800u);
  const PassCounters& c0 = pass_stats(run, 0).counters;
  EXPECT_EQ(c0.primitives_in, 1u);
  EXPECT_EQ(c0.primitives_clipped, 1u);
  EXPECT_EQ(c0.primitives, 2u);  // the clipped quad, as a fan of two triangles
  EXPECT_EQ(c0.primitives_culled, 0u);

  const Surface* empty = capture.find(1, behind_image);
  ASSERT_TRUE(empty);
  for (const Vec4& v : empty->color) ASSERT_EQ(v[0], 0.0f);
  const PassCounters& c1 = pass_stats(run, 1).counters;
  EXPECT_EQ(c1.primitives_in, 1u);
  EXPECT_EQ(c1.primitives_clipped, 1u);
  EXPECT_EQ(c1.primitives_culled, 1u);
  EXPECT_EQ(c1.primitives, 0u);
  EXPECT_EQ(c1.fragments, 0u);
}

// Indexed triangle lists take a path of their own (eight triangles at a time where the build has
// AVX2; a group with a vertex outside the view volume through the scalar loop, which clips): the
// same primitives, in the same order, with the same counts, as the same triangles unindexed, which
// the scalar loop alone assembles. Shared vertices, both windings, degenerate triangles, vertices
// behind the camera and beyond the guard band, every cull mode under both front faces, and a draw
// large enough for the parallel rounds, at 1 and 3 threads.
TEST(SimGeometry, IndexedListsAssembleAsUnindexed) {
  const uint32_t width = 256, height = 128;
  // Without vertices outside the view volume, a draw's groups skip the per-vertex inside test.
  for (const bool outside : {true, false}) {
    SCOPED_TRACE(outside ? "vertices outside" : "every vertex mapped");
    std::mt19937 rng(2026);
    auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
    Mesh indexed;
    indexed.position_components = 4;
    const uint32_t kVertices = 3000, kTriangles = 40003;
    for (uint32_t i = 0; i < kVertices; ++i) {
      const float w = float(uniform(0.5, 2.0));
      Vec4 v = pixel_to_clip(uniform(-10, width + 10), uniform(-10, height + 10), width, height, 0.5f, w);
      if (outside && i % 41 == 0) v[3] = -w;        // behind the camera: its triangles are clipped
      if (outside && i % 43 == 0) v[0] = 1e5f * w;  // beyond the guard band: clipped too
      indexed.positions.push_back(v);
    }
    for (uint32_t t = 0; t < kTriangles; ++t) {
      const uint32_t base = uint32_t(rng() % (kVertices - 16));
      const uint32_t a = base + uint32_t(rng() % 16), b = base + uint32_t(rng() % 16);
      const uint32_t c = t % 29 == 0 ? a : base + uint32_t(rng() % 16);  // some degenerate
      indexed.indices.insert(indexed.indices.end(), {a, b, c});
    }
    Mesh unindexed;
    unindexed.position_components = 4;
    for (const uint32_t i : indexed.indices) unindexed.positions.push_back(indexed.positions[i]);
    Trace trace;
    const int32_t meshes[2] = {add_mesh(trace, std::move(indexed)), add_mesh(trace, std::move(unindexed))};

    // Per cull mode and front face, a draw of a range of the list; then one of the whole list.
    const CullMode culls[] = {CullMode::none, CullMode::back, CullMode::front, CullMode::front_and_back};
    const FrontFace faces[] = {FrontFace::counter_clockwise, FrontFace::clockwise};
    std::vector<Draw> draws[2];
    for (int m = 0; m < 2; ++m) {
      uint32_t first = 0;
      for (const CullMode cull : culls)
        for (const FrontFace face : faces) {
          Draw d = clip_draw(meshes[m]);
          d.state.cull = cull;
          d.state.front_face = face;
          d.first_index = 3 * first;
          d.index_count = 3 * 301;  // not a multiple of 8 triangles
          first += 301;
          draws[m].push_back(d);
        }
      Draw whole = clip_draw(meshes[m]);
      whole.state.cull = CullMode::back;
      draws[m].push_back(whole);
    }
    const Viewport viewport{0, 0, float(width), float(height), 0, 1};
    for (const uint32_t threads : {1u, 3u}) {
      SCOPED_TRACE(threads);
      ScreenPrims prims[2];
      PassCounters counters[2];
      for (int m = 0; m < 2; ++m) {
        std::vector<PassDraw> pass_draws(draws[m].size());
        for (size_t d = 0; d < pass_draws.size(); ++d) {
          pass_draws[d].draw = &draws[m][d];
          pass_draws[d].index_in_subpass = uint32_t(d);
          pass_draws[d].viewport = viewport;
          pass_draws[d].scissor = Rect{0, 0, width, height};
        }
        Traffic vertex_traffic;
        transform_draws(trace, pass_draws, 0, pass_draws.size(), prims[m], counters[m], vertex_traffic, nullptr, {},
                        threads);
      }
      EXPECT_EQ(counters[0].primitives_in, counters[1].primitives_in);
      EXPECT_EQ(counters[0].primitives_clipped, counters[1].primitives_clipped);
      EXPECT_EQ(counters[0].primitives_culled, counters[1].primitives_culled);
      EXPECT_EQ(counters[0].primitives, counters[1].primitives);
      EXPECT_EQ(counters[0].primitives, prims[0].size());
      if (outside) EXPECT_GT(counters[0].primitives_clipped, 1000u);
      else EXPECT_EQ(counters[0].primitives_clipped, 0u);
      EXPECT_GT(counters[0].primitives_culled, 20000u);
      ASSERT_EQ(prims[0].size(), prims[1].size());
      ASSERT_GT(prims[0].size(), 15000u);
      for (size_t p = 0; p < prims[0].size(); ++p) {
        ASSERT_EQ(prims[0].draw[p], prims[1].draw[p]) << p;
        ASSERT_EQ(prims[0].front_facing[p], prims[1].front_facing[p]) << p;
        ASSERT_EQ(prims[0].min_x[p], prims[1].min_x[p]) << p;
        ASSERT_EQ(prims[0].min_y[p], prims[1].min_y[p]) << p;
        ASSERT_EQ(prims[0].max_x[p], prims[1].max_x[p]) << p;
        ASSERT_EQ(prims[0].max_y[p], prims[1].max_y[p]) << p;
        for (int k = 0; k < 3; ++k) {
          const ScreenVertex &a = prims[0].vertex_of(k, p), &b = prims[1].vertex_of(k, p);
          ASSERT_TRUE(a.x == b.x && a.y == b.y && a.z == b.z && a.inv_w == b.inv_w) << p << " vertex " << k;
        }
      }
    }
  }
}

// Vertex shading maps a mesh's vertices eight at a time where the build has AVX2, and the last
// few (fewer than eight) one at a time: the same positions through both give the same primitives.
// Each batch: five edge-case positions and three ordinary ones at vertices 0 - 7 (the eight-wide
// path), copies of vertices 0 - 6 at 8 - 14 (the tail); a triangle of each edge case with two
// ordinary vertices in one draw, the same of the copies in another: the same primitives and counts.
TEST(SimGeometry, VertexLanesMapAsTheTail) {
  const uint32_t width = 128, height = 64;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const float guard_x = (kGuardBand - width / 2.0f) / (width / 2.0f);  // make_mapping's guard band, in NDC
  const std::vector<Vec4> edges = {
      {0.1f, 0.2f, 0.0f, 1.0f},      {0.1f, 0.2f, 1.0f, 1.0f},       {1e-7f, 1e-7f, 1e-7f, 1.1e-6f},
      {guard_x, 0.2f, 0.5f, 1.0f},   {-guard_x, -0.3f, 0.5f, 1.0f},  {nan, 0.2f, 0.5f, 1.0f},
      {inf, 0.2f, 0.5f, 1.0f},       {0.1f, 0.2f, 0.5f, -inf},       {1e30f, 0.2f, 0.5f, 1.0f},
      {-0.0f, -0.0f, 0.5f, 1.0f},    {0.1f, 0.2f, 0.5f, -1.0f},      {0.1f, 0.2f, -1e-7f, 1.0f},
      {0.3f, -0.4f, 2.0f, 1.0f},     {0.7f, 0.1f, 0.25f, 2.0f},      {-0.999f, 0.999f, 0.5f, 1.0f}};
  const Vec4 ordinary[3] = {{-0.5f, -0.5f, 0.5f, 1.0f}, {0.6f, -0.4f, 0.5f, 1.0f}, {0.2f, 0.7f, 0.25f, 0.5f}};
  for (size_t batch = 0; batch < edges.size(); batch += 5) {
    SCOPED_TRACE(batch);
    Mesh mesh;
    mesh.position_components = 4;
    for (size_t k = 0; k < 5; ++k) mesh.positions.push_back(edges[std::min(batch + k, edges.size() - 1)]);
    for (const Vec4& v : ordinary) mesh.positions.push_back(v);
    for (size_t k = 0; k < 7; ++k) mesh.positions.push_back(mesh.positions[k]);
    for (uint32_t copy : {0u, 8u})
      for (uint32_t k = 0; k < 5; ++k) mesh.indices.insert(mesh.indices.end(), {k + copy, 5 + copy, 6 + copy});
    Trace trace;
    const int32_t m = add_mesh(trace, std::move(mesh));
    // Each draw alone, so that its counts (clipped, culled) compare too.
    ScreenPrims prims[2];
    PassCounters counters[2];
    for (uint32_t d = 0; d < 2; ++d) {
      Draw draw = clip_draw(m);
      draw.first_index = 15 * d;
      draw.index_count = 15;
      std::vector<PassDraw> pass_draws(1);
      pass_draws[0].draw = &draw;
      pass_draws[0].viewport = Viewport{0, 0, float(width), float(height), 0, 1};
      pass_draws[0].scissor = Rect{0, 0, width, height};
      Traffic vertex_traffic;
      transform_draws(trace, pass_draws, 0, 1, prims[d], counters[d], vertex_traffic);
    }
    EXPECT_EQ(counters[0].primitives_clipped, counters[1].primitives_clipped);
    EXPECT_EQ(counters[0].primitives_culled, counters[1].primitives_culled);
    ASSERT_EQ(prims[0].size(), prims[1].size());
    ASSERT_GE(prims[0].size(), 2u);
    for (size_t p = 0; p < prims[0].size(); ++p) {
      EXPECT_EQ(prims[0].front_facing[p], prims[1].front_facing[p]) << p;
      EXPECT_TRUE(prims[0].min_x[p] == prims[1].min_x[p] && prims[0].min_y[p] == prims[1].min_y[p] &&
                  prims[0].max_x[p] == prims[1].max_x[p] && prims[0].max_y[p] == prims[1].max_y[p]) << p;
      for (int k = 0; k < 3; ++k) {
        const ScreenVertex &a = prims[0].vertex_of(k, p), &b = prims[1].vertex_of(k, p);
        EXPECT_EQ(std::memcmp(&a, &b, sizeof(ScreenVertex)), 0) << p << " vertex " << k;
      }
    }
  }
}

// ---- 3. binning is conservative ---------------------------------------------------------------

// Random triangles (sub-pixel to much larger than the target, partly off-screen, some crossing
// the near plane) in draws with and without scissors, over a render area that is not at the
// origin. Each primitive is rasterized alone (1 and 8 samples: the 8x pattern has samples 1/16 px
// from the pixel border) and every covered pixel must lie in a tile whose list holds it (under
// bin_triangles and binning=exact's bin_exact) and within the primitive's pixel bounds.
TEST(SimBinning, EveryCoveredPixelIsInABinnedTile) {
  const Rect area{5, 3, 91, 61};
  std::mt19937 rng(777);
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  Trace trace;
  Mesh mesh;
  mesh.position_components = 4;
  const int kDraws = 8, kTrianglesPerDraw = 60;
  const Viewport viewport{float(area.x), float(area.y), float(area.width), float(area.height), 0, 1};
  auto to_clip = [&](double px, double py, double z, double w) {
    const double nx = (px - (area.x + area.width / 2.0)) / (area.width / 2.0);
    const double ny = (py - (area.y + area.height / 2.0)) / (area.height / 2.0);
    return Vec4(float(nx * w), float(ny * w), float(z * w), float(w));
  };
  for (int t = 0; t < kDraws * kTrianglesPerDraw; ++t) {
    const int kind = t % 4;
    if (kind == 3) {  // clip space directly: w in [0.2, 2], z/w in [-1, 1.2]: near and far clipping
      for (int v = 0; v < 3; ++v) {
        const double w = uniform(0.2, 2.0);
        mesh.positions.push_back(
            Vec4(float(uniform(-2, 2) * w), float(uniform(-2, 2) * w), float(uniform(-1, 1.2) * w), float(w)));
      }
      continue;
    }
    const double extent = kind == 0 ? 2.0 : kind == 1 ? 20.0 : 400.0;
    const double cx = uniform(area.x - 20.0, area.x + area.width + 20.0);
    const double cy = uniform(area.y - 20.0, area.y + area.height + 20.0);
    // Every other small or medium triangle has its vertices on pixel corners, where the bounds'
    // last pixel is ceil(max) - 1 rather than the pixel the vertex touches (geometry.cpp).
    const bool on_corners = kind < 2 && t % 8 < 4;
    for (int v = 0; v < 3; ++v) {
      double x = cx + uniform(-extent, extent), y = cy + uniform(-extent, extent);
      if (on_corners) x = std::round(x), y = std::round(y);
      mesh.positions.push_back(to_clip(x, y, 0.5, 1.0));
    }
  }
  const int32_t m = add_mesh(trace, std::move(mesh));
  std::vector<Draw> draws(kDraws);
  std::vector<PassDraw> pass_draws(kDraws);
  std::vector<Rect> draw_clip(kDraws);
  for (int d = 0; d < kDraws; ++d) {
    draws[d] = clip_draw(m);
    draws[d].first_index = uint32_t(d * kTrianglesPerDraw * 3);
    draws[d].index_count = uint32_t(kTrianglesPerDraw * 3);
    pass_draws[d].draw = &draws[d];
    pass_draws[d].index_in_subpass = uint32_t(d);
    pass_draws[d].viewport = viewport;
    // Half the draws have a scissor (already inside the render area, as the pipeline passes it).
    draw_clip[d] = area;
    if (d % 2) {
      const int32_t x0 = area.x + int32_t(rng() % 40), y0 = area.y + int32_t(rng() % 30);
      draw_clip[d] = Rect{x0, y0, 1 + uint32_t(rng() % uint32_t(area.x + area.width - x0)),
                          1 + uint32_t(rng() % uint32_t(area.y + area.height - y0))};
    }
    pass_draws[d].scissor = draw_clip[d];
  }
  ScreenPrims prims;
  PassCounters counters;
  Traffic vertex_traffic;
  transform_draws(trace, pass_draws, 0, pass_draws.size(), prims, counters, vertex_traffic);
  ASSERT_GT(prims.size(), 400u);

  // The coverage comes from the edge functions alone: raster_triangle scans only the pixels of a
  // primitive's bounds, so a copy whose bounds span the whole area is what it rasterizes, and
  // bounds that left out a covered pixel fail here.
  ScreenPrims unbounded = prims;
  for (size_t p = 0; p < prims.size(); ++p) {
    unbounded.min_x[p] = area.x, unbounded.max_x[p] = area.x + int32_t(area.width) - 1;
    unbounded.min_y[p] = area.y, unbounded.max_y[p] = area.y + int32_t(area.height) - 1;
  }
  const CompiledProgram program;  // flat white: writes 1.0 into R32F
  std::vector<std::vector<std::pair<int32_t, int32_t>>> covered(prims.size());
  uint64_t covered_pixels = 0;
  for (uint32_t samples : {1u, 8u}) {
    std::vector<Vec4> buffer(size_t(area.width) * area.height * samples, Vec4::Zero());
    TargetSet targets;
    targets.area = area;
    targets.samples = samples;
    targets.color_count = 1;
    targets.color[0] = buffer.data();
    targets.color_format[0] = Format::R32F;
    for (size_t p = 0; p < prims.size(); ++p) {
      raster_triangle(unbounded, p, draw_clip[prims.draw[p]], draws[prims.draw[p]], program, targets, counters);
      for (int32_t y = area.y; y < area.y + int32_t(area.height); ++y)
        for (int32_t x = area.x; x < area.x + int32_t(area.width); ++x) {
          bool hit = false;
          for (uint32_t s = 0; s < samples; ++s) {
            Vec4& v = buffer[targets.index(x, y, s)];
            hit = hit || v[0] != 0.0f;
            v = Vec4::Zero();
          }
          if (hit) covered[p].emplace_back(x, y);
        }
    }
  }
  for (const auto& c : covered) covered_pixels += c.size();
  ASSERT_GT(covered_pixels, 100000u);

  for (const char* size : {"8x8", "16x16", "24x40", "7x5"}) {
    SCOPED_TRACE(size);
    const uint32_t tw = uint32_t(std::stoul(size)), th = uint32_t(std::stoul(std::strchr(size, 'x') + 1));
    const TileGrid grid(area, tw, th);
    // binning=exact's lists too: a tile it leaves out must hold no covered sample of the primitive.
    for (const bool exact : {false, true}) {
    SCOPED_TRACE(exact ? "exact" : "aabb");
    TileLists lists;
    if (exact)
      bin_exact(prims, 0, prims.size(), draw_clip, grid, lists);
    else
      bin_triangles(prims, draw_clip, grid, lists);
    ASSERT_EQ(lists.offsets.size(), size_t(grid.tile_count()) + 1);
    std::vector<uint8_t> listed(prims.size() * grid.tile_count(), 0);
    for (uint32_t t = 0; t < grid.tile_count(); ++t)
      for (uint32_t k = lists.offsets[t]; k < lists.offsets[t + 1]; ++k) {
        // Lists are in submission order, each primitive at most once.
        if (k > lists.offsets[t]) {
          ASSERT_LT(lists.prims[k - 1], lists.prims[k]);
        }
        listed[size_t(lists.prims[k]) * grid.tile_count() + t] = 1;
      }
    // Tile of a pixel, from the grid's definition (aligned to the framebuffer origin; every x, y
    // here is >= 0), not from the binner's own arithmetic.
    const uint32_t first_col = uint32_t(area.x) / tw, first_row = uint32_t(area.y) / th;
    for (size_t p = 0; p < prims.size(); ++p)
      for (const auto& [x, y] : covered[p]) {
        ASSERT_TRUE(x >= prims.min_x[p] && x <= prims.max_x[p] && y >= prims.min_y[p] && y <= prims.max_y[p])
            << "primitive " << p << " covers pixel " << x << "," << y << " outside its bounds";
        const uint32_t t = (uint32_t(y) / th - first_row) * grid.cols + (uint32_t(x) / tw - first_col);
        ASSERT_LT(t, grid.tile_count());
        const Rect r = grid.tile_rect(t);
        ASSERT_TRUE(x >= r.x && x < r.x + int32_t(r.width) && y >= r.y && y < r.y + int32_t(r.height))
            << "tile_rect(" << t << ") does not hold pixel " << x << "," << y;
        ASSERT_TRUE(listed[p * grid.tile_count() + t])
            << "primitive " << p << " covers pixel " << x << "," << y << " but tile " << t << " does not list it";
      }
    }
  }
}

// geometry.cpp's pixel bounds: columns floor(min x) .. ceil(max x) - 1 of the fixed-point
// vertices, rows likewise. A triangle on the 32x32 tile grid's lines is listed in its own tile
// only (not in the right and lower tiles it touches along an edge); one reaching 1/256 px past a
// line is listed beyond it too; a sliver one pixel row high stays in its row.
TEST(SimBinning, ATileTouchedOnlyAlongAnEdgeIsNotListed) {
  const Rect area{0, 0, 96, 96};
  const TileGrid grid(area, 32, 32);
  const std::vector<Rect> draw_clip = {area};
  ScreenPrims prims;
  auto add = [&](int32_t x0, int32_t y0, int32_t x1, int32_t y1, int32_t x2, int32_t y2) {
    const uint32_t v[3] = {prims.add_vertex(ScreenVertex{x0, y0, 0.5f, 1.0f}, nullptr),
                           prims.add_vertex(ScreenVertex{x1, y1, 0.5f, 1.0f}, nullptr),
                           prims.add_vertex(ScreenVertex{x2, y2, 0.5f, 1.0f}, nullptr)};
    prims.add_triangle(v, 0, true);
  };
  constexpr int32_t kOne = kSubpixelOne, kLine = 32 * kSubpixelOne;
  prims.varying_stride = 0;
  add(0, 0, kLine, 0, 0, kLine);                          // tile 0, touching tiles 1 and 3 along edges
  add(kLine, kLine, 2 * kLine, kLine, kLine, 2 * kLine);  // tile 4 only
  add(0, 0, kLine + 1, 0, 0, kLine);                      // 1/256 px past x = 32: tiles 0 and 1
  add(10 * kOne, 10 * kOne, 20 * kOne, 10 * kOne, 10 * kOne, 10 * kOne + 1);  // sliver: tile 0
  ASSERT_EQ(prims.size(), 4u);
  EXPECT_EQ(prims.max_x[0], 31);
  EXPECT_EQ(prims.max_y[0], 31);
  EXPECT_EQ(prims.min_x[1], 32);
  EXPECT_EQ(prims.max_x[1], 63);
  EXPECT_EQ(prims.max_x[2], 32);
  EXPECT_EQ(prims.max_y[3], 10);
  TileLists lists;
  bin_triangles(prims, draw_clip, grid, lists);
  auto listed = [&](uint32_t t) {
    return std::vector<uint32_t>(lists.prims.begin() + lists.offsets[t], lists.prims.begin() + lists.offsets[t + 1]);
  };
  EXPECT_EQ(listed(0), (std::vector<uint32_t>{0, 2, 3}));
  EXPECT_EQ(listed(1), (std::vector<uint32_t>{2}));
  EXPECT_EQ(listed(3), (std::vector<uint32_t>{}));
  EXPECT_EQ(listed(4), (std::vector<uint32_t>{1}));
  EXPECT_EQ(lists.entries(), 5u);
}

// A grid of "WxH" tiles over `area`.
TileGrid grid_of(const Rect& area, const char* size) {
  return TileGrid(area, uint32_t(std::stoul(size)), uint32_t(std::stoul(std::strchr(size, 'x') + 1)));
}

// Appends a primitive with only what binning reads: its pixel bounds and its draw.
void append_bounds(ScreenPrims& prims, int32_t x0, int32_t y0, int32_t x1, int32_t y1, uint32_t draw) {
  prims.min_x.push_back(x0);
  prims.min_y.push_back(y0);
  prims.max_x.push_back(x1);
  prims.max_y.push_back(y1);
  prims.draw.push_back(draw);
}

// The binner's lists equal the rule written plainly (models/README.md "Sources: the two-phase
// machine"): tile t lists primitive
// p, in submission order, iff p's pixel bounds clipped to its draw's rectangle meet t. Bounds are
// random (1 px to several hundred px, many on the last row and column, some off screen, some
// empty after the scissor), over several draws with scissors, for power-of-two and other tile
// sizes, on a render area away from the origin; whatever the binner's fast paths do.
TEST(SimBinning, ListsEqualTheClippedBoundingBoxRule) {
  const Rect area{40, 24, 500, 300};
  const std::vector<Rect> draw_clip = {area, Rect{40, 24, 500, 300}, Rect{100, 60, 250, 200}, Rect{523, 300, 17, 24}};
  // Small primitives up to 20 px across (many over two tiles: the branch-free fill) or up to 2
  // px (few: the fill that branches on "one tile"), every tenth (hundredth) up to 400 px; and
  // (small 0) a mesh's order: 4 px cells walked row by row in 32x32 blocks, so runs of primitives
  // start in the same tile (the fill's register-held cursors) and hand over to the neighbours,
  // with a large primitive every 50th and an off-screen one every 97th in between.
  for (const int32_t small : {20, 2, 0}) {
    SCOPED_TRACE(small);
    std::mt19937 rng(7);
    ScreenPrims prims;
    if (small == 0) {
      std::uniform_int_distribution<int32_t> extent(0, 5);
      int p = 0;
      for (int32_t by = 0; by < 340; by += 32)
        for (int32_t bx = 0; bx < 560; bx += 32)
          for (int32_t cell = 0; cell < 64; ++cell, ++p) {
            int32_t x0 = bx + cell % 8 * 4, y0 = by + cell / 8 * 4, width = extent(rng), height = extent(rng);
            if (p % 50 == 0) width = 100, height = 60;
            if (p % 97 == 0) x0 = -30, y0 = -50;
            append_bounds(prims, x0, y0, x0 + width, y0 + height, uint32_t((p / 1000) % draw_clip.size()));
          }
    }
    for (int p = 0; p < (small == 0 ? 0 : 20000); ++p) {
      std::uniform_int_distribution<int32_t> size(0, p % (small > 2 ? 10 : 100) == 0 ? 400 : small), x(0, 560),
          y(0, 340);
      int32_t x0 = x(rng), y0 = y(rng);
      if (p % 7 == 0) x0 = 539 - size(rng) % 8, y0 = 323 - size(rng) % 8;  // the last tiles
      if (p % 97 == 0) x0 = -30, y0 = -50;                                 // off screen
      const int32_t width = size(rng), height = size(rng);
      append_bounds(prims, x0, y0, x0 + width, y0 + height, uint32_t((p / 1000) % draw_clip.size()));
    }
    for (const char* size : {"16x16", "32x32", "8x16", "24x40", "7x5"}) {
      SCOPED_TRACE(size);
      const TileGrid grid = grid_of(area, size);
      std::vector<std::vector<uint32_t>> expected(grid.tile_count());
      for (uint32_t p = 0; p < prims.size(); ++p) {
        const Rect& c = draw_clip[prims.draw[p]];
        const int32_t x0 = std::max(prims.min_x[p], c.x), x1 = std::min(prims.max_x[p], c.x + int32_t(c.width) - 1);
        const int32_t y0 = std::max(prims.min_y[p], c.y), y1 = std::min(prims.max_y[p], c.y + int32_t(c.height) - 1);
        for (uint32_t t = 0; t < grid.tile_count(); ++t) {
          const Rect r = grid.tile_rect(t);
          if (x0 <= x1 && y0 <= y1 && x0 < r.x + int32_t(r.width) && x1 >= r.x && y0 < r.y + int32_t(r.height) &&
              y1 >= r.y)
            expected[t].push_back(p);
        }
      }
      TileLists lists;
      for (int again = 0; again < 2; ++again) {  // a second binning reuses the lists' memory
        bin_triangles(prims, draw_clip, grid, lists);
        ASSERT_EQ(lists.offsets.size(), size_t(grid.tile_count()) + 1);
        for (uint32_t t = 0; t < grid.tile_count(); ++t) {
          const std::vector<uint32_t> got(lists.prims.begin() + lists.offsets[t],
                                          lists.prims.begin() + lists.offsets[t + 1]);
          ASSERT_EQ(got, expected[t]) << "tile " << t;
        }
        ASSERT_EQ(lists.entries(), lists.offsets.back());
      }
    }
  }
}

// Binning on several threads (contiguous blocks of primitives, each with its own counts and
// cursors) lists exactly what one thread lists, in the same order: 300,000 primitives, enough
// per tile for three blocks, over scissored draws, power-of-two and other tile sizes.
TEST(SimBinning, ThreadsListTheSame) {
  const Rect area{40, 24, 500, 300};
  const std::vector<Rect> draw_clip = {area, Rect{100, 60, 250, 200}};
  std::mt19937 rng(11);
  ScreenPrims prims;
  for (int p = 0; p < 300000; ++p) {
    std::uniform_int_distribution<int32_t> size(0, p % 50 == 0 ? 200 : 12), x(20, 560), y(10, 340);
    const int32_t x0 = x(rng), y0 = y(rng);
    const int32_t width = size(rng), height = size(rng);
    append_bounds(prims, x0, y0, x0 + width, y0 + height, uint32_t((p / 5000) % 2));
  }
  for (const char* size : {"16x16", "32x32", "7x5"}) {
    SCOPED_TRACE(size);
    const TileGrid grid = grid_of(area, size);
    TileLists one, three;
    bin_triangles(prims, draw_clip, grid, one, 1);
    bin_triangles(prims, draw_clip, grid, three, 3);
    ASSERT_GT(one.entries(), prims.size() / 2);
    EXPECT_EQ(three.offsets, one.offsets);
    EXPECT_TRUE(three.prims == one.prims);
  }
}

// ---- 4. attachment load/store bytes -----------------------------------------------------------

// traces/README.md: LOAD reads and STORE writes render-area pixels x bpp x samples, whatever the
// tile size (partial tiles included); a transient image never touches DRAM. 1920 x 1080 x 4 B =
// 8,294,400 B; half the width, 4,147,200 B. The render area at x = 950 starts mid-tile for every
// tile size tested. A depth/stencil attachment moves whole when either aspect loads (stores).
TEST(SimLedger, AttachmentLoadStoreBytes) {
  Trace trace;
  const int32_t color = add_image(trace, Format::RGBA8, 1920, 1080);
  const int32_t transient = add_image(trace, Format::RGBA8, 1920, 1080, 1, true);
  const int32_t depth = add_image(trace, Format::D32F, 1920, 1080);
  const int32_t depth_stencil = add_image(trace, Format::D24S8, 1920, 1080);
  const int32_t quad = add_rect(trace, 0, 0, 1920, 1080, 1920, 1080);
  struct Case {
    const char* name;
    int32_t image;
    LoadOp load;
    StoreOp store;
    std::optional<Rect> area;
    uint64_t read, write;
    LoadOp stencil_load = LoadOp::dont_care;
    StoreOp stencil_store = StoreOp::dont_care;
  };
  const Case cases[] = {
      {"load_store", color, LoadOp::load, StoreOp::store, std::nullopt, 8294400, 8294400},
      {"clear_dont_care", color, LoadOp::clear, StoreOp::dont_care, std::nullopt, 0, 0},
      {"clear_store", color, LoadOp::clear, StoreOp::store, std::nullopt, 0, 8294400},
      {"load_dont_care", color, LoadOp::load, StoreOp::dont_care, std::nullopt, 8294400, 0},
      // VK_ATTACHMENT_LOAD_OP_NONE reads nothing; storeOp NONE writes nothing (models/README.md
      // "Sources: render passes and load/store ops").
      {"none_store", color, LoadOp::none, StoreOp::store, std::nullopt, 0, 8294400},
      {"load_none", color, LoadOp::load, StoreOp::none, std::nullopt, 8294400, 0},
      {"transient", transient, LoadOp::load, StoreOp::store, std::nullopt, 0, 0},
      {"half", color, LoadOp::load, StoreOp::store, Rect{0, 0, 960, 1080}, 4147200, 4147200},
      {"half_unaligned", color, LoadOp::load, StoreOp::store, Rect{950, 0, 960, 1080}, 4147200, 4147200},
      {"depth", depth, LoadOp::load, StoreOp::store, std::nullopt, 8294400, 8294400},
      // Only the stencil aspect is loaded and stored: the whole 4 B D24S8 pixel moves.
      {"stencil_only", depth_stencil, LoadOp::dont_care, StoreOp::dont_care, std::nullopt, 8294400, 8294400,
       LoadOp::load, StoreOp::store},
  };
  Frame frame;
  for (const Case& c : cases) {
    Subpass sp = c.image == depth || c.image == depth_stencil ? color_subpass({}, 0) : color_subpass({0});
    // A full-screen draw in one pass: drawing does not change the attachment traffic.
    if (std::string(c.name) == "clear_store") sp.draws = {flat_draw(quad, Vec4(1, 0, 0, 1))};
    Attachment a = attachment(c.image, c.load, c.store);
    a.stencil_load = c.stencil_load;
    a.stencil_store = c.stencil_store;
    frame.passes.push_back(render_pass(c.name, {a}, {sp}, c.area));
  }
  trace.frames = {frame};
  for (const char* tile : {"16x16", "32x32", "24x40"}) {
    SCOPED_TRACE(tile);
    const RunStats run = simulate(trace, make_models(tile), SimOptions{}, nullptr);
    for (size_t i = 0; i < std::size(cases); ++i) {
      SCOPED_TRACE(cases[i].name);
      const DramLedger& dram = pass_stats(run, uint32_t(i)).dram;
      EXPECT_EQ(dram[DramCategory::attachment_load], (Traffic{cases[i].read, 0}));
      EXPECT_EQ(dram[DramCategory::attachment_store], (Traffic{0, cases[i].write}));
      for (DramCategory other : {DramCategory::image_sample, DramCategory::texture, DramCategory::resolve,
                                 DramCategory::framebuffer_color, DramCategory::framebuffer_depth})
        EXPECT_EQ(dram[other], Traffic{}) << dram_category_name(other);
    }
  }
}

// ---- 5. vertex and tile-list bytes --------------------------------------------------------------

// Worked by hand from traces/README.md on a 64x64 target with 16x16 tiles (4x4 = 16 tiles):
//
// pass 0: one triangle, 3 object-space positions (stride 12 B), 16-bit indices {0,1,2}, vertices at
//   pixels (2.5,2.5) (30.5,4.5) (5.5,20.5): bounding box x 2..30, y 2..20 -> tiles cols 0-1 x rows
//   0-1 = 4 entries. vertex read = 3*12 + 3*2 = 42. Record = 3 x 16 B = 48 (no varyings).
//   tile_list write = 48 + 4*4 = 64; read = 4 * (4 + 48) = 208.
// pass 1: a full-screen quad: 4 vertices with position (12) + color (16) + uv (8) = 36 B, 32-bit
//   indices {0,1,2, 2,1,3}: vertex read = 4*36 + 6*4 = 168. Two triangles, each covering all 16
//   tiles: 32 entries. Record = 3 x (16 + 4 x 6 varyings) = 120. tile_list write = 2*120 + 32*4 =
//   368; read = 32 * (4 + 120) = 3968.
// pass 2: non-indexed, 3 clip-space positions (4 components, 16 B): vertex read = 48. Vertices at
//   (17.5,17.5) (25.5,18.5) (20.5,28.5): one tile (col 1, row 1). tile_list write 48 + 4 = 52,
//   read 52.
// pass 3: pass 0's draw with instance_count 2 ("per draw and instance"): vertex read 2 * 42 = 84;
//   2 primitives, 8 entries: tile_list write = 2*48 + 8*4 = 128; read = 8 * (4 + 48) = 416.
TEST(SimLedger, VertexAndTileListBytes) {
  const uint32_t kSize = 64;
  Trace trace;
  const int32_t target = add_image(trace, Format::RGBA8, kSize, kSize);
  auto object_space = [&](double px, double py) {
    Vec4 c = pixel_to_clip(px, py, kSize, kSize);
    c[3] = 1;
    return c;
  };
  Mesh small;
  small.positions = {object_space(2.5, 2.5), object_space(30.5, 4.5), object_space(5.5, 20.5)};
  small.indices = {0, 1, 2};
  small.index_bits = 16;
  const int32_t small_mesh = add_mesh(trace, small);
  Mesh quad;
  quad.positions = {object_space(0, 0), object_space(64, 0), object_space(0, 64), object_space(64, 64)};
  quad.colors.assign(4, Vec4(0.5f, 0.5f, 0.5f, 1));
  quad.uvs.assign(4, Vec2(0, 0));
  quad.indices = {0, 1, 2, 2, 1, 3};
  quad.index_bits = 32;
  const int32_t quad_mesh = add_mesh(trace, quad);
  Mesh clip;
  clip.position_components = 4;
  clip.positions = {pixel_to_clip(17.5, 17.5, kSize, kSize), pixel_to_clip(25.5, 18.5, kSize, kSize),
                    pixel_to_clip(20.5, 28.5, kSize, kSize)};
  const int32_t clip_mesh = add_mesh(trace, clip);

  Frame frame;
  const int32_t meshes[] = {small_mesh, quad_mesh, clip_mesh, small_mesh};
  for (int32_t mesh : meshes) {
    Draw d;
    d.mesh = mesh;
    d.instance_count = frame.passes.size() == 3 ? 2 : 1;
    d.transform.clip_space = mesh == clip_mesh;
    Subpass sp = color_subpass({0});
    sp.draws = {d};
    frame.passes.push_back(render_pass("p" + std::to_string(frame.passes.size()),
                                       {attachment(target, LoadOp::clear, StoreOp::store)}, {sp}));
  }
  trace.frames = {frame};
  const RunStats run = simulate(trace, make_models(), SimOptions{}, nullptr);
  struct Expected {
    uint64_t entries, vertex_read, list_write, list_read;
  };
  const Expected expected[] = {{4, 42, 64, 208}, {32, 168, 368, 3968}, {1, 48, 52, 52}, {8, 84, 128, 416}};
  for (uint32_t p = 0; p < 4; ++p) {
    SCOPED_TRACE("pass " + std::to_string(p));
    const PassStats& s = pass_stats(run, p);
    EXPECT_EQ(s.tile_width, 16u);
    EXPECT_EQ(s.counters.tiles, 16u);
    EXPECT_EQ(s.counters.tile_list_entries, expected[p].entries);
    EXPECT_EQ(s.dram[DramCategory::vertex], (Traffic{expected[p].vertex_read, 0}));
    EXPECT_EQ(s.dram[DramCategory::tile_list], (Traffic{expected[p].list_read, expected[p].list_write}));
  }
}

// ---- 6. depth, stencil, scissor, MSAA ----------------------------------------------------------

// Rectangles with integer pixel corners, so every pixel centre is unambiguously in or out.
// Stencil: R1 = [4,20)x[6,18) and R2 = [12,28)x[10,26) each increment the stencil (color writes
// masked off). Full-screen draws testing stencil == 1 (adding 1) and stencil == 2 (adding 10) must
// give exactly 1 on the 320 pixels of R1 xor R2 and 10 on the 64 pixels of R1 n R2 =
// [12,20)x[10,18); the stored stencil is 1 and 2 there, 0 elsewhere.
TEST(SimRaster, StencilMasksCoverage) {
  const uint32_t kSize = 32;
  Trace trace;
  const int32_t color = add_image(trace, Format::R32F, kSize, kSize);
  const int32_t ds = add_image(trace, Format::D24S8, kSize, kSize);
  StencilFaceState increment;
  increment.pass_op = StencilOp::increment_and_clamp;
  BlendAttachmentState no_write;
  no_write.write_mask = 0;
  Subpass sp = color_subpass({0}, 1);
  for (auto [x0, y0, x1, y1] : {std::array<int, 4>{4, 6, 20, 18}, std::array<int, 4>{12, 10, 28, 26}}) {
    Draw d = flat_draw(add_rect(trace, x0, y0, x1, y1, kSize, kSize), Vec4(5, 5, 5, 5));
    d.state.stencil_test = true;
    d.state.stencil_front = d.state.stencil_back = increment;
    d.state.blend = {no_write};
    sp.draws.push_back(d);
  }
  const int32_t full = add_rect(trace, 0, 0, kSize, kSize, kSize, kSize);
  for (uint32_t reference : {1u, 2u}) {
    Draw masked = flat_draw(full, Vec4(reference == 1 ? 1.0f : 10.0f, 0, 0, 0));
    StencilFaceState equal;
    equal.compare_op = CompareOp::equal;
    equal.reference = reference;
    masked.state.stencil_test = true;
    masked.state.stencil_front = masked.state.stencil_back = equal;
    masked.state.blend = {additive()};
    sp.draws.push_back(masked);
  }
  Attachment ds_att = attachment(ds, LoadOp::clear, StoreOp::dont_care);
  ds_att.stencil_load = LoadOp::clear;
  ds_att.stencil_store = StoreOp::store;
  trace.frames = {
      Frame{{render_pass("stencil", {attachment(color, LoadOp::clear, StoreOp::store), ds_att}, {sp})}, {}}};
  Capture capture;
  simulate(trace, make_models(), SimOptions{}, &capture);
  const Surface* c = capture.find(0, color);
  const Surface* s = capture.find(0, ds);
  ASSERT_TRUE(c && s);
  auto in = [](uint32_t x, uint32_t y, int x0, int y0, int x1, int y1) {
    return int(x) >= x0 && int(x) < x1 && int(y) >= y0 && int(y) < y1;
  };
  uint64_t ones = 0, tens = 0, stencil_counts[3] = {0, 0, 0};
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      const bool r1 = in(x, y, 4, 6, 20, 18), r2 = in(x, y, 12, 10, 28, 26);
      const float v = c->color[c->index(x, y, 0)][0];
      const uint8_t st = s->stencil[s->index(x, y, 0)];
      EXPECT_EQ(v, r1 && r2 ? 10.0f : r1 || r2 ? 1.0f : 0.0f) << x << "," << y;
      EXPECT_EQ(st, uint8_t(r1) + uint8_t(r2)) << x << "," << y;
      ones += v == 1.0f;
      tens += v == 10.0f;
      if (st < 3) ++stencil_counts[st];
    }
  EXPECT_EQ(ones, 320u);
  EXPECT_EQ(tens, 64u);
  EXPECT_EQ(stencil_counts[2], 64u);
  EXPECT_EQ(stencil_counts[1], 320u);
  EXPECT_EQ(stencil_counts[0], 1024u - 384u);
}

// Depth (D32F cleared to 1, every draw writes depth): the left half [0,16) is drawn at z 0.5
// (value 1); a full-screen draw at z 0.7 with LESS lands only on the right half (2); one at z 0.5
// with EQUAL only on the left half (3); one at z 0.7 with LESS nowhere (equal depth fails LESS).
// Then draws that may discard (late tests): z 0.9, LESS, not discarded -> nowhere; z 0.1 with
// alpha 0.25 below the 0.5 cutoff -> discarded everywhere, no depth write; z 0.6 LESS -> only the
// right half (7, depth 0.6); last, z 0.6 with LESS again -> nowhere.
TEST(SimRaster, DepthTestCoverage) {
  const uint32_t kSize = 32;
  Trace trace;
  const int32_t color = add_image(trace, Format::R32F, kSize, kSize);
  const int32_t depth = add_image(trace, Format::D32F, kSize, kSize);
  Subpass sp = color_subpass({0}, 1);
  const struct {
    double x1;
    float z;
    float value;
    float alpha;
    CompareOp op;
    bool discard;
  } draws[] = {{16, 0.5f, 1, 1, CompareOp::less, false},  {32, 0.7f, 2, 1, CompareOp::less, false},
               {32, 0.5f, 3, 1, CompareOp::equal, false}, {32, 0.7f, 4, 1, CompareOp::less, false},
               {32, 0.9f, 5, 1, CompareOp::less, true},   {32, 0.1f, 6, 0.25f, CompareOp::less, true},
               {32, 0.6f, 7, 1, CompareOp::less, true},   {32, 0.6f, 8, 1, CompareOp::less, false}};
  for (const auto& dd : draws) {
    Draw d = flat_draw(add_rect(trace, 0, 0, dd.x1, kSize, kSize, kSize, dd.z), Vec4(dd.value, 0, 0, dd.alpha));
    d.state.depth_test = true;
    d.state.depth_write = true;
    d.state.depth_compare = dd.op;
    d.state.discard = dd.discard;
    sp.draws.push_back(d);
  }
  trace.frames = {Frame{
      {render_pass("depth",
                   {attachment(color, LoadOp::clear, StoreOp::store), attachment(depth, LoadOp::clear, StoreOp::store)},
                   {sp})},
      {}}};
  Capture capture;
  simulate(trace, make_models(), SimOptions{}, &capture);
  const Surface* c = capture.find(0, color);
  const Surface* z = capture.find(0, depth);
  ASSERT_TRUE(c && z);
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      EXPECT_EQ(c->color[c->index(x, y, 0)][0], x < 16 ? 3.0f : 7.0f) << x << "," << y;
      EXPECT_EQ(z->depth[z->index(x, y, 0)], x < 16 ? 0.5f : 0.6f) << x << "," << y;
    }
}

// Every blend factor and op against the Vulkan spec's table ("Blend Factors": the RGB and the A
// factor of each), written out by hand: dyadic values, so every product is exact in float, and
// an RGBA32F target (no clamp, no rounding). With dst factor zero the result is src x F; with src
// factor zero, dst x F. src_alpha_saturate is min(As, 1 - Ad) = min(0.875, 0.75) for RGB, 1 for A.
TEST(SimRaster, BlendFactorsAndOpsFollowTheSpecTable) {
  const Vec4 src(0.75f, 0.5f, 0.25f, 0.875f), dst(0.125f, 0.375f, 0.625f, 0.25f);
  const Vec4 constant(0.3125f, 0.5625f, 0.6875f, 0.1875f);
  struct Row {
    BlendFactor factor;
    Vec4 value;  // RGB factor in x, y, z; A factor in w
  };
  const Row table[] = {
      {BlendFactor::zero, Vec4(0, 0, 0, 0)},
      {BlendFactor::one, Vec4(1, 1, 1, 1)},
      {BlendFactor::src_color, Vec4(0.75f, 0.5f, 0.25f, 0.875f)},
      {BlendFactor::one_minus_src_color, Vec4(0.25f, 0.5f, 0.75f, 0.125f)},
      {BlendFactor::dst_color, Vec4(0.125f, 0.375f, 0.625f, 0.25f)},
      {BlendFactor::one_minus_dst_color, Vec4(0.875f, 0.625f, 0.375f, 0.75f)},
      {BlendFactor::src_alpha, Vec4(0.875f, 0.875f, 0.875f, 0.875f)},
      {BlendFactor::one_minus_src_alpha, Vec4(0.125f, 0.125f, 0.125f, 0.125f)},
      {BlendFactor::dst_alpha, Vec4(0.25f, 0.25f, 0.25f, 0.25f)},
      {BlendFactor::one_minus_dst_alpha, Vec4(0.75f, 0.75f, 0.75f, 0.75f)},
      {BlendFactor::constant_color, Vec4(0.3125f, 0.5625f, 0.6875f, 0.1875f)},
      {BlendFactor::one_minus_constant_color, Vec4(0.6875f, 0.4375f, 0.3125f, 0.8125f)},
      {BlendFactor::constant_alpha, Vec4(0.1875f, 0.1875f, 0.1875f, 0.1875f)},
      {BlendFactor::one_minus_constant_alpha, Vec4(0.8125f, 0.8125f, 0.8125f, 0.8125f)},
      {BlendFactor::src_alpha_saturate, Vec4(0.75f, 0.75f, 0.75f, 1)},
  };
  ASSERT_EQ(std::size(table), 15u);  // every BlendFactor
  for (const Row& row : table) {
    SCOPED_TRACE(int(row.factor));
    BlendAttachmentState as_src, as_dst;
    as_src.enable = as_dst.enable = true;
    as_src.src_color = as_src.src_alpha = row.factor;
    as_src.dst_color = as_src.dst_alpha = BlendFactor::zero;
    as_dst.src_color = as_dst.src_alpha = BlendFactor::zero;
    as_dst.dst_color = as_dst.dst_alpha = row.factor;
    const Vec4 by_src = blend_color(as_src, Format::RGBA32F, src, dst, constant);
    const Vec4 by_dst = blend_color(as_dst, Format::RGBA32F, src, dst, constant);
    for (int c = 0; c < 4; ++c) {
      EXPECT_EQ(by_src[c], src[c] * row.value[c]) << "channel " << c;
      EXPECT_EQ(by_dst[c], dst[c] * row.value[c]) << "channel " << c;
    }
  }
  // Ops with both factors one (min and max ignore the factors).
  const struct {
    BlendOp op;
    Vec4 value;
  } ops[] = {{BlendOp::add, Vec4(0.875f, 0.875f, 0.875f, 1.125f)},
             {BlendOp::subtract, Vec4(0.625f, 0.125f, -0.375f, 0.625f)},
             {BlendOp::reverse_subtract, Vec4(-0.625f, -0.125f, 0.375f, -0.625f)},
             {BlendOp::min, Vec4(0.125f, 0.375f, 0.25f, 0.25f)},
             {BlendOp::max, Vec4(0.75f, 0.5f, 0.625f, 0.875f)}};
  for (const auto& o : ops) {
    SCOPED_TRACE(int(o.op));
    BlendAttachmentState state;
    state.enable = true;
    state.src_color = state.dst_color = state.src_alpha = state.dst_alpha = BlendFactor::one;
    state.color_op = state.alpha_op = o.op;
    const Vec4 got = blend_color(state, Format::RGBA32F, src, dst, constant);
    for (int c = 0; c < 4; ++c) EXPECT_EQ(got[c], o.value[c]) << "channel " << c;
  }
}

// The RGBA8 blends raster_triangle runs lane-wise (opaque, and src_alpha over one_minus_src_alpha)
// give blend_color()'s bits for colors outside [0, 1], NaN, infinities and -0 (its sign is kept
// where the channel's code is 0). White vertex colors with 1/w = 1 interpolate to exactly 1, so
// the vertex_color program's color is its tint, as the flat program's is (the latter through
// shade_fragment and the general shading path). A small triangle (the tiny-triangle path) and one
// over a 16x16 area (rows of four) each leave every pixel of the target either as it was or as
// blend_color() says.
TEST(SimRaster, Rgba8BlendPathsMatchBlendColor) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  const Vec4 tints[] = {Vec4(nan, -0.0f, 0.0f, 1.0f),       Vec4(-1.0f, 2.0f, inf, -inf),
                        Vec4(0.5f, 0.25f, 1e-30f, -1e-30f), Vec4(0.0019607844f, 0.9980392f, 0.5019608f, 0.0f),
                        Vec4(-0.0f, -0.0f, -0.0f, -0.0f),   Vec4(0.3f, nan, 0.7f, 0.5f)};
  BlendAttachmentState opaque, alpha;
  alpha.enable = true;
  alpha.src_color = BlendFactor::src_alpha;
  alpha.dst_color = BlendFactor::one_minus_src_alpha;
  alpha.src_alpha = BlendFactor::one;
  alpha.dst_alpha = BlendFactor::one_minus_src_alpha;
  BlendAttachmentState premultiplied = alpha;  // the color already times alpha: src_color one
  premultiplied.src_color = BlendFactor::one;
  const Rect area{0, 0, 16, 16};
  // Pixel corners of the two triangles, in pixels.
  const double triangles[2][6] = {{0.2, 0.1, 3.9, 0.3, 0.1, 3.8}, {-1.0, -1.0, 17.0, -1.0, -1.0, 17.0}};
  const Vec4 before(0.21f, 0.43f, 0.61f, 0.83f);  // no 8-bit code: every blend result differs
  for (const CompiledProgram::Kind kind : {CompiledProgram::Kind::vertex_color, CompiledProgram::Kind::flat})
    for (const BlendAttachmentState& blend : {opaque, alpha, premultiplied})
      for (const Vec4& tint : tints)
        for (const auto& corners : triangles) {
          ScreenPrims prims;
          prims.varying_stride = 4;
          uint32_t vertex[3];
          const float white[4] = {1.0f, 1.0f, 1.0f, 1.0f};
          for (int v = 0; v < 3; ++v) {
            const int32_t fx = int32_t(std::lround(corners[2 * v] * kSubpixelOne));
            const int32_t fy = int32_t(std::lround(corners[2 * v + 1] * kSubpixelOne));
            vertex[v] = prims.add_vertex(ScreenVertex{fx, fy, 0.5f, 1.0f}, white);
          }
          prims.add_triangle(vertex, 0, true);
          Draw draw;
          draw.state.blend = {blend};
          CompiledProgram program;
          program.kind = kind;
          program.color = tint;
          std::vector<Vec4> color(size_t(area.width) * area.height, before);
          TargetSet targets;
          targets.area = area;
          targets.color_count = 1;
          targets.color[0] = color.data();
          targets.color_format[0] = Format::RGBA8;
          PassCounters counters;
          raster_triangle(prims, 0, area, draw, program, targets, counters);
          ASSERT_GT(counters.fragments, 0u);
          const Vec4 expected = blend_color(blend, Format::RGBA8, tint, before, draw.state.blend_constants);
          uint64_t written = 0;
          for (const Vec4& c : color) {
            const bool is_expected = std::memcmp(c.data(), expected.data(), sizeof(Vec4)) == 0;
            written += is_expected;
            ASSERT_TRUE(is_expected || std::memcmp(c.data(), before.data(), sizeof(Vec4)) == 0)
                << "tint " << tint.transpose() << " blend " << blend.enable << ": " << c.transpose() << " vs "
                << expected.transpose();
          }
          EXPECT_EQ(written, counters.fragments);
        }
}

// quantize_colors (the tile store's and the image contents' rows) gives quantize_color's bits for
// every color format: NaN, infinities, -0, values outside [0, 1], ties at half a code, values just
// under a code, in place and into another array (RGBA8 and BGRA8 take unorm8_ps, four channels at
// a time; a 2^23 rounding that ties away from even, or a clamp that drops -0's sign, fails here).
TEST(Format, QuantizeColorsIsQuantizeColorPerPixel) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> values = {nan, inf, -inf, -0.0f, 0.0f, -1.0f, 2.0f, 1e-30f, -1e-30f, 1.0f, 0.5f};
  uint32_t even_ties = 0, odd_ties = 0;  // values whose float product by 255 is exactly code + 0.5
  for (int code = 0; code < 255; ++code) {  // half a code above each and its neighbours
    const float half = float(code) + 0.5f;
    float v = half / 255.0f;
    values.push_back(v);
    values.push_back(std::nextafter(v, 0.0f));
    values.push_back(std::nextafter(v, 1.0f));
    for (int step = 0; step < 8 && v * 255.0f != half; ++step) v = std::nextafter(v, v * 255.0f < half ? 1.0f : 0.0f);
    if (v * 255.0f == half) {
      values.push_back(v);
      ++(code % 2 == 0 ? even_ties : odd_ties);
    }
  }
  // Ties round to the even code: both kinds present, so rounding half up or half away fails.
  ASSERT_GT(even_ties, 0u);
  ASSERT_GT(odd_ties, 0u);
  std::vector<Vec4> pixels;
  for (size_t i = 0; i < values.size(); ++i)
    pixels.emplace_back(values[i], values[(i + 1) % values.size()], values[(i + 7) % values.size()],
                        values[(i + 13) % values.size()]);
  uint32_t formats = 0;
  for (const std::string& name : format_names()) {
    const Format f = *parse_format(name);
    if (is_depth_stencil(f)) continue;
    ++formats;
    std::vector<Vec4> out(pixels.size()), in_place = pixels;
    quantize_colors(f, pixels.data(), out.data(), pixels.size());
    quantize_colors(f, in_place.data(), in_place.data(), in_place.size());
    for (size_t i = 0; i < pixels.size(); ++i) {
      const Vec4 want = quantize_color(f, pixels[i]);
      ASSERT_EQ(std::memcmp(out[i].data(), want.data(), sizeof(Vec4)), 0)
          << name << " " << pixels[i].transpose() << ": " << out[i].transpose() << " vs " << want.transpose();
      ASSERT_EQ(std::memcmp(in_place[i].data(), want.data(), sizeof(Vec4)), 0) << name << " in place";
    }
  }
  EXPECT_GE(formats, 8u);
}

// Two full-screen draws with scissors: {5,7,13,9} (117 pixels, value 1) and {-3,28,10,10}, which
// the 32x32 render area cuts to x 0..6, y 28..31 (28 pixels, value 2). Nothing else is touched.
TEST(SimRaster, ScissorLimitsCoverage) {
  const uint32_t kSize = 32;
  Trace trace;
  const int32_t color = add_image(trace, Format::R32F, kSize, kSize);
  const int32_t quad = add_rect(trace, 0, 0, kSize, kSize, kSize, kSize);
  Subpass sp = color_subpass({0});
  Draw a = flat_draw(quad, Vec4(1, 0, 0, 1));
  a.scissor = Rect{5, 7, 13, 9};
  Draw b = flat_draw(quad, Vec4(2, 0, 0, 1));
  b.scissor = Rect{-3, 28, 10, 10};
  sp.draws = {a, b};
  trace.frames = {Frame{{render_pass("scissor", {attachment(color, LoadOp::clear, StoreOp::store)}, {sp})}, {}}};
  Capture capture;
  const RunStats run = simulate(trace, make_models(), SimOptions{}, &capture);
  const Surface* c = capture.find(0, color);
  ASSERT_TRUE(c);
  uint64_t ones = 0, twos = 0;
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      const bool in_a = x >= 5 && x < 18 && y >= 7 && y < 16;
      const bool in_b = x < 7 && y >= 28;
      const float v = c->color[c->index(x, y, 0)][0];
      EXPECT_EQ(v, in_a ? 1.0f : in_b ? 2.0f : 0.0f) << x << "," << y;
      ones += v == 1.0f;
      twos += v == 2.0f;
    }
  EXPECT_EQ(ones, 117u);
  EXPECT_EQ(twos, 28u);
  EXPECT_EQ(pass_stats(run, 0).counters.fragments, 117u + 28u);
}

// MSAA 4x with an inline resolve: a white rectangle [0,10.5] x [0,20.75] on black, RGBA32F (no
// rounding in the average). With the standard 4x locations (x 6,14,2,10 / y 2,6,10,14 in 1/16 px)
// pixel (10,5) has 2 of 4 samples left of x = 10.5 -> 0.5; pixel (5,20) has 3 of 4 above
// y = 20.75 -> 0.75; (5,5) -> 1; (11,5) -> 0. Every pixel is checked against that count. The
// multisampled image is DONT_CARE, so the only DRAM write is the resolve: 32*32*16 B = 16384.
TEST(SimRaster, Msaa4xInlineResolve) {
  const uint32_t kSize = 32;
  Trace trace;
  const int32_t ms = add_image(trace, Format::RGBA32F, kSize, kSize, 4);
  const int32_t resolved = add_image(trace, Format::RGBA32F, kSize, kSize);
  Subpass sp = color_subpass({0});
  sp.resolve = {1};
  sp.draws = {flat_draw(add_rect(trace, 0, 0, 10.5, 20.75, kSize, kSize), Vec4(1, 1, 1, 1))};
  trace.frames = {Frame{{render_pass("msaa",
                                     {attachment(ms, LoadOp::clear, StoreOp::dont_care),
                                      attachment(resolved, LoadOp::dont_care, StoreOp::store)},
                                     {sp})},
                        {}}};
  Capture capture;
  const RunStats run = simulate(trace, make_models(), SimOptions{}, &capture);
  const Surface* r = capture.find(0, resolved);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->samples, 1u);
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x) {
      int count = 0;
      for (const auto& [sx, sy] : standard_samples(4)) count += (x + sx / 16.0 < 10.5) && (y + sy / 16.0 < 20.75);
      const float e = float(count) / 4.0f;
      EXPECT_EQ(r->color[r->index(x, y, 0)], Vec4(e, e, e, e)) << x << "," << y;
    }
  EXPECT_EQ(r->color[r->index(10, 5, 0)][0], 0.5f);
  EXPECT_EQ(r->color[r->index(5, 20, 0)][0], 0.75f);
  EXPECT_EQ(r->color[r->index(5, 5, 0)][0], 1.0f);
  EXPECT_EQ(r->color[r->index(11, 5, 0)][0], 0.0f);
  const DramLedger& dram = pass_stats(run, 0).dram;
  EXPECT_EQ(dram[DramCategory::resolve], (Traffic{0, 16384}));
  EXPECT_EQ(dram[DramCategory::attachment_store], Traffic{});
}

// Inline depth resolve (models/README.md "Sources: MSAA": SAMPLE_ZERO / AVERAGE / MIN / MAX): 4x D32F cleared
// to 1, the rectangle [0,10.5] x [0,20.75] drawn at depth 0.25 (depth test less, write on). A
// pixel with `count` of its 4 samples inside the rectangle resolves to, by hand: sample_zero 0.25
// if sample 0 is inside, else 1; average (count x 0.25 + (4 - count)) / 4; min 0.25 if count > 0;
// max 0.25 only if count == 4. Pixel (10,5) has samples 0 and 2 inside (x 6/16 and 2/16 of a
// pixel left of 10.5): 0.25, 0.625, 0.25, 1.
TEST(SimRaster, Msaa4xInlineDepthResolveModes) {
  const uint32_t kSize = 32;
  for (const ResolveMode mode : {ResolveMode::sample_zero, ResolveMode::average, ResolveMode::min, ResolveMode::max}) {
    SCOPED_TRACE(int(mode));
    Trace trace;
    const int32_t color = add_image(trace, Format::RGBA8, kSize, kSize, 4);
    const int32_t depth = add_image(trace, Format::D32F, kSize, kSize, 4);
    const int32_t resolved = add_image(trace, Format::D32F, kSize, kSize);
    Subpass sp = color_subpass({0}, 1);
    sp.depth_resolve = 2;
    sp.depth_resolve_mode = mode;
    Draw d = flat_draw(add_rect(trace, 0, 0, 10.5, 20.75, kSize, kSize, 0.25f), Vec4(1, 1, 1, 1));
    d.state.depth_test = d.state.depth_write = true;
    d.state.depth_compare = CompareOp::less;
    sp.draws = {d};
    Attachment depth_attachment = attachment(depth, LoadOp::clear, StoreOp::dont_care);
    depth_attachment.clear.depth = 1.0f;
    trace.frames = {Frame{{render_pass("msaa",
                                       {attachment(color, LoadOp::clear, StoreOp::dont_care), depth_attachment,
                                        attachment(resolved, LoadOp::dont_care, StoreOp::store)},
                                       {sp})},
                          {}}};
    Capture capture;
    simulate(trace, make_models(), SimOptions{}, &capture);
    const Surface* r = capture.find(0, resolved);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->samples, 1u);
    const auto& pattern = standard_samples(4);
    for (uint32_t y = 0; y < kSize; ++y)
      for (uint32_t x = 0; x < kSize; ++x) {
        int count = 0;
        for (const auto& [sx, sy] : pattern) count += (x + sx / 16.0 < 10.5) && (y + sy / 16.0 < 20.75);
        const bool first = (x + pattern[0].first / 16.0 < 10.5) && (y + pattern[0].second / 16.0 < 20.75);
        float expected = 0;
        switch (mode) {
          case ResolveMode::sample_zero:
            expected = first ? 0.25f : 1.0f;
            break;
          case ResolveMode::average:
            expected = (float(count) * 0.25f + float(4 - count)) / 4.0f;
            break;
          case ResolveMode::min:
            expected = count > 0 ? 0.25f : 1.0f;
            break;
          case ResolveMode::max:
            expected = count == 4 ? 0.25f : 1.0f;
            break;
          case ResolveMode::none:
            break;
        }
        ASSERT_EQ(r->depth[r->index(x, y, 0)], expected) << x << "," << y << " (" << count << " samples inside)";
      }
    const float at_10_5[] = {0.25f, 0.625f, 0.25f, 1.0f};
    EXPECT_EQ(r->depth[r->index(10, 5, 0)], at_10_5[int(mode) - 1]);
  }
}

// ---- 7. TBDR == IMR ---------------------------------------------------------------------------

// A random scene: overlapping vertex-colored and flat triangles (some crossing the near plane),
// random blend factors/ops/write masks, depth compare ops, stencil ops on both faces, culling,
// scissors, viewports, discard, a mid-pass clear and two subpasses, over a render area off the
// origin in attachments with random initial contents; then an MSAA 4x pass with an inline
// resolve. Both paths run the same rasterizer, so every stored surface must match bit for bit
// for every tile size, and so must the per-pass work counters that do not depend on tiling.
Trace random_scene() {
  std::mt19937 rng(4242);
  auto uniform = [&](double lo, double hi) { return float(std::uniform_real_distribution<double>(lo, hi)(rng)); };
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  const uint32_t W = 83, H = 61;
  const Rect area{6, 3, 71, 55};
  Trace trace;
  const int32_t color0 = add_image(trace, Format::RGBA8, W, H);
  const int32_t color1 = add_image(trace, Format::RGBA16F, W, H);
  const int32_t ds = add_image(trace, Format::D24S8, W, H);
  const int32_t ms_color = add_image(trace, Format::RGBA8, W, H, 4);
  const int32_t ms_depth = add_image(trace, Format::D32F, W, H, 4);
  const int32_t resolved = add_image(trace, Format::RGBA8, W, H);
  for (int32_t image : {color0, ds}) {
    ImageContents contents;
    for (uint32_t i = 0; i < W * H; ++i)
      contents.pixels.push_back(image == ds ? Vec4(uniform(0.3, 1), float(pick(4)), 0, 0)
                                            : Vec4(uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1)));
    trace.images[size_t(image)].contents.push_back(contents);
  }

  Mesh mesh;
  mesh.index_bits = 16;
  const uint32_t kVertices = 300;
  for (uint32_t v = 0; v < kVertices; ++v) {
    const float w = uniform(0.5, 2);
    const float z = v % 17 == 0 ? uniform(-0.5, 0.2) : uniform(0, 1);
    mesh.positions.push_back(Vec4(uniform(-1.3, 1.3) * w, uniform(-1.3, 1.3) * w, z * w, w));
    mesh.colors.push_back(Vec4(uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1)));
  }
  for (uint32_t i = 0; i < 3 * 200; ++i) mesh.indices.push_back(pick(kVertices));
  mesh.position_components = 4;
  const int32_t m = add_mesh(trace, std::move(mesh));

  const CompareOp compares[] = {CompareOp::never,
                                CompareOp::less,
                                CompareOp::equal,
                                CompareOp::less_or_equal,
                                CompareOp::greater,
                                CompareOp::not_equal,
                                CompareOp::greater_or_equal,
                                CompareOp::always};
  auto random_face = [&] {
    StencilFaceState f;
    f.fail_op = StencilOp(pick(8));
    f.pass_op = StencilOp(pick(8));
    f.depth_fail_op = StencilOp(pick(8));
    f.compare_op = compares[pick(8)];
    f.reference = pick(4);
    f.compare_mask = pick(2) ? 0xff : pick(256);
    f.write_mask = pick(2) ? 0xff : pick(256);
    return f;
  };
  auto random_blend = [&] {
    BlendAttachmentState b;
    b.enable = pick(4) != 0;
    b.src_color = BlendFactor(pick(15));
    b.dst_color = BlendFactor(pick(15));
    b.src_alpha = BlendFactor(pick(15));
    b.dst_alpha = BlendFactor(pick(15));
    b.color_op = BlendOp(pick(5));
    b.alpha_op = BlendOp(pick(5));
    b.write_mask = pick(3) ? 0xf : pick(16);
    return b;
  };
  auto random_draw = [&](uint32_t slots) {
    Draw d = clip_draw(m);
    d.first_index = 3 * pick(190);
    d.index_count = 3 * (1 + pick(10));
    if (pick(2)) {
      d.program.name = "vertex_color";
      d.program.params["tint"] = {uniform(0, 2), uniform(0, 2), uniform(0, 2), uniform(0, 1.5)};
    } else {
      d.program.params["color"] = {uniform(-0.2, 1.2), uniform(0, 1), uniform(0, 1), uniform(0, 1)};
    }
    PipelineState& s = d.state;
    s.cull = CullMode(pick(3));
    s.front_face = FrontFace(pick(2));
    s.depth_test = pick(3) != 0;
    s.depth_write = pick(2) != 0;
    s.depth_compare = compares[pick(8)];
    s.stencil_test = pick(2) != 0;
    s.stencil_front = random_face();
    s.stencil_back = random_face();
    for (uint32_t c = 0; c < slots; ++c) s.blend.push_back(random_blend());
    s.blend_constants = Vec4(uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1));
    s.discard = pick(5) == 0;
    if (pick(3) == 0) d.scissor = Rect{int32_t(pick(W)) - 10, int32_t(pick(H)) - 10, 1 + pick(W), 1 + pick(H)};
    if (pick(4) == 0) {
      const float min_depth = uniform(0, 0.5);
      d.viewport = Viewport{uniform(-20, 40), uniform(-20, 30), uniform(20, 90),
                            uniform(15, 70),  min_depth,        min_depth + uniform(0, 0.5)};
    }
    return d;
  };

  Frame frame;
  {
    Attachment a0 = attachment(color0, LoadOp::load, StoreOp::store);
    Attachment a1 = attachment(color1, LoadOp::clear, StoreOp::store);
    a1.clear.color = Vec4(0.1f, 0.2f, 0.3f, 0.4f);
    Attachment a2 = attachment(ds, LoadOp::load, StoreOp::store);
    a2.stencil_load = LoadOp::load;
    a2.stencil_store = StoreOp::store;
    Subpass first = color_subpass({0, 1}, 2);
    for (int i = 0; i < 40; ++i) first.draws.push_back(random_draw(2));
    MidPassClear clear;
    clear.before_draw = 20;
    clear.color = {1};
    clear.depth = clear.stencil = true;
    clear.value.color = Vec4(0.9f, 0.1f, 0.5f, 1);
    clear.value.depth = 0.6f;
    clear.value.stencil = 1;
    clear.rects = {Rect{10, 8, 30, 20}, Rect{50, 30, 40, 40}};
    first.clears = {clear};
    Subpass second = color_subpass({1}, 2);
    for (int i = 0; i < 20; ++i) second.draws.push_back(random_draw(1));
    frame.passes.push_back(render_pass("main", {a0, a1, a2}, {first, second}, area));
  }
  {
    Attachment c = attachment(ms_color, LoadOp::clear, StoreOp::store);
    c.clear.color = Vec4(0.2f, 0.2f, 0.2f, 1);
    Attachment d = attachment(ms_depth, LoadOp::clear, StoreOp::store);
    d.clear.depth = 1.0f;
    Subpass sp = color_subpass({0}, 1);
    sp.resolve = {2};
    for (int i = 0; i < 30; ++i) sp.draws.push_back(random_draw(1));
    frame.passes.push_back(render_pass("msaa", {c, d, attachment(resolved, LoadOp::dont_care, StoreOp::store)}, {sp}));
  }
  trace.frames = {frame};
  return trace;
}

template <class T, class A1, class A2>
void expect_same_bits(const std::vector<T, A1>& a, const std::vector<T, A2>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  if (a.empty()) return;
  if (std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0) return;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::memcmp(&a[i], &b[i], sizeof(T)) != 0) {
      ADD_FAILURE() << what << " differs first at element " << i;
      return;
    }
}

TEST(SimPaths, TbdrEqualsImrBitForBit) {
  const Trace trace = random_scene();
  Capture imr;
  SimOptions imr_options;
  imr_options.path = RenderPath::imr;
  const RunStats imr_run = simulate(trace, make_models(), imr_options, &imr);
  ASSERT_EQ(imr.entries.size(), 6u);  // main: color0, color1, ds; msaa: ms_color, ms_depth, resolved

  // The scene is not trivial: many samples passed and the main color target changed a lot.
  EXPECT_GT(pass_stats(imr_run, 0).counters.samples_passed, 5000u);
  EXPECT_GT(pass_stats(imr_run, 1).counters.samples_passed, 5000u);

  for (const char* tile : {"8x8", "16x16", "32x32", "64x64", "24x40"}) {
    SCOPED_TRACE(tile);
    Capture tbdr;
    const RunStats tbdr_run = simulate(trace, make_models(tile), SimOptions{}, &tbdr);
    ASSERT_EQ(tbdr.entries.size(), imr.entries.size());
    for (size_t i = 0; i < imr.entries.size(); ++i) {
      const Capture::Entry& a = tbdr.entries[i];
      const Capture::Entry& b = imr.entries[i];
      const std::string what = "pass " + std::to_string(b.pass) + " " + b.slot;
      ASSERT_EQ(a.pass, b.pass);
      ASSERT_EQ(a.image, b.image);
      expect_same_bits(a.surface.color, b.surface.color, what + " color");
      expect_same_bits(a.surface.depth, b.surface.depth, what + " depth");
      expect_same_bits(a.surface.stencil, b.surface.stencil, what + " stencil");
    }
    for (uint32_t p = 0; p < 2; ++p) {
      const PassCounters& a = pass_stats(tbdr_run, p).counters;
      const PassCounters& b = pass_stats(imr_run, p).counters;
      EXPECT_EQ(a.primitives, b.primitives);
      EXPECT_EQ(a.fragments, b.fragments);
      EXPECT_EQ(a.fragments_shaded, b.fragments_shaded);
      EXPECT_EQ(a.samples_passed, b.samples_passed);
      EXPECT_EQ(a.clear_pixels, b.clear_pixels);
    }
  }
}

// Deferred colors (raster.h DeferredColors): a scene made for them. Opaque vertex_color draws
// (colors deferred to a flush) overlap and are interleaved with what must flush them first:
// blended vertex_color draws (which read the waiting colors), flat draws, partial write masks,
// discarding draws, a mid-pass clear of rectangles, a second subpass that blends onto the first's
// result, and the tile store. The IMR path never defers, so every stored surface must match the
// tiled one's bit for bit at every tile size.
Trace deferral_scene() {
  std::mt19937 rng(77);
  auto uniform = [&](double lo, double hi) { return float(std::uniform_real_distribution<double>(lo, hi)(rng)); };
  auto pick = [&](uint32_t n) { return uint32_t(rng() % n); };
  const uint32_t W = 97, H = 70;
  Trace trace;
  const int32_t color = add_image(trace, Format::RGBA8, W, H);
  const int32_t depth = add_image(trace, Format::D32F, W, H);
  Mesh mesh;
  mesh.index_bits = 16;
  const uint32_t kVertices = 400;
  for (uint32_t v = 0; v < kVertices; ++v) {
    const float w = uniform(0.5, 2);
    mesh.positions.push_back(Vec4(uniform(-1.2, 1.2) * w, uniform(-1.2, 1.2) * w, uniform(0, 1) * w, w));
    mesh.colors.push_back(Vec4(uniform(-0.1, 1.1), uniform(0, 1), uniform(0, 1), uniform(0, 1)));
  }
  for (uint32_t i = 0; i < 3 * 300; ++i) mesh.indices.push_back(pick(kVertices));
  mesh.position_components = 4;
  const int32_t m = add_mesh(trace, std::move(mesh));
  // A full-screen quad, drawn opaque just before the mid-pass clear that ends the first subpass:
  // the clear must land on its stored colors, not under its waiting ones.
  Mesh quad;
  quad.index_bits = 16;
  quad.position_components = 4;
  for (auto [x, y] : {std::pair{-1.0f, -1.0f}, {1.0f, -1.0f}, {1.0f, 1.0f}, {-1.0f, 1.0f}}) {
    quad.positions.push_back(Vec4(x, y, 0.5f, 1));
    quad.colors.push_back(Vec4(0.5f + 0.4f * x, 0.5f - 0.4f * y, 0.25f, 1));
  }
  quad.indices = {0, 1, 2, 0, 2, 3};
  const int32_t q = add_mesh(trace, std::move(quad));
  auto random_draw = [&](bool blended_only) {
    Draw d = clip_draw(m);
    d.first_index = 3 * pick(250);
    d.index_count = 3 * (1 + pick(50));
    const uint32_t kind = blended_only ? 6 : pick(8);  // 0..4 opaque vertex_color (deferred), then the others
    if (kind != 5) {
      d.program.name = "vertex_color";
      d.program.params["tint"] = {uniform(0, 1.5), uniform(0, 1.5), uniform(0, 1.5), uniform(0, 1)};
    } else {
      d.program.params["color"] = {uniform(0, 1), uniform(0, 1), uniform(0, 1), uniform(0, 1)};
    }
    BlendAttachmentState b;
    if (kind == 6) {  // alpha blending: reads the waiting colors
      b.enable = true;
      b.src_color = BlendFactor::src_alpha;
      b.dst_color = BlendFactor::one_minus_src_alpha;
      b.src_alpha = BlendFactor::one;
      b.dst_alpha = BlendFactor::one_minus_src_alpha;
    }
    if (kind == 7) b.write_mask = 1 + pick(14);  // some channels only
    d.state.blend = {b};
    d.state.depth_test = pick(4) != 0;
    d.state.depth_write = pick(3) != 0;
    d.state.depth_compare = pick(2) ? CompareOp::less : CompareOp::always;
    d.state.cull = CullMode::none;
    if (pick(10) == 0) d.scissor = Rect{int32_t(pick(W / 2)), int32_t(pick(H / 2)), 1 + pick(W), 1 + pick(H)};
    return d;
  };
  Attachment c = attachment(color, LoadOp::clear, StoreOp::store);
  c.clear.color = Vec4(0.1f, 0.2f, 0.3f, 1);
  Attachment z = attachment(depth, LoadOp::clear, StoreOp::store);
  z.clear.depth = 1.0f;
  Subpass first = color_subpass({0}, 1);
  for (int i = 0; i < 60; ++i) first.draws.push_back(random_draw(false));
  Draw cover = clip_draw(q);
  cover.program.name = "vertex_color";
  cover.state.blend = {BlendAttachmentState{}};
  first.draws.back() = cover;
  MidPassClear clear;
  clear.before_draw = uint32_t(first.draws.size());  // after the last draw
  clear.color = {0};
  clear.value.color = Vec4(0.9f, 0.1f, 0.5f, 1);
  clear.rects = {Rect{7, 9, 31, 22}, Rect{50, 33, 40, 30}};
  first.clears = {clear};
  Subpass second = color_subpass({0}, 1);
  // Blended only: the first subpass's result (the clear included) shows through everywhere.
  for (int i = 0; i < 8; ++i) second.draws.push_back(random_draw(true));
  Frame frame;
  frame.passes.push_back(render_pass("deferral", {c, z}, {first, second}));
  trace.frames = {frame};
  return trace;
}

TEST(SimPaths, DeferredColorsEqualImrBitForBit) {
  const Trace trace = deferral_scene();
  // The scene defers: most of its draws are opaque vertex_color (defers_color's rule for an
  // RGBA8 target: that program, blending off, every channel written, no discard).
  size_t deferred = 0;
  for (const Subpass& sp : trace.frames[0].passes[0].subpasses)
    for (const Draw& d : sp.draws)
      deferred += d.program.name == "vertex_color" && !d.state.blend[0].enable && d.state.blend[0].write_mask == 0xf;
  EXPECT_GT(deferred, 30u);
  Capture imr;
  SimOptions imr_options;
  imr_options.path = RenderPath::imr;
  const RunStats imr_run = simulate(trace, make_models(), imr_options, &imr);
  ASSERT_EQ(imr.entries.size(), 2u);
  EXPECT_GT(pass_stats(imr_run, 0).counters.samples_passed, 20000u);
  for (const char* tile : {"8x8", "16x16", "32x32", "24x40"}) {
    SCOPED_TRACE(tile);
    Capture tbdr;
    const RunStats tbdr_run = simulate(trace, make_models(tile), SimOptions{}, &tbdr);
    ASSERT_EQ(tbdr.entries.size(), imr.entries.size());
    for (size_t i = 0; i < imr.entries.size(); ++i) {
      expect_same_bits(tbdr.entries[i].surface.color, imr.entries[i].surface.color, tbdr.entries[i].slot + " color");
      expect_same_bits(tbdr.entries[i].surface.depth, imr.entries[i].surface.depth, tbdr.entries[i].slot + " depth");
    }
    EXPECT_EQ(pass_stats(tbdr_run, 0).counters.samples_passed, pass_stats(imr_run, 0).counters.samples_passed);
  }
}

// Freed huge-page regions are kept and handed out again (sim/huge_pages.cpp), with what the last
// user wrote: a vector of zeros over them must still read zeros.
TEST(HugePages, FreedRegionsComeBackAndVectorsStillStartZeroed) {
  constexpr size_t kBytes = size_t(8) << 20;
  release_kept_huge_pages();  // whatever earlier tests in this process left kept
  void* first = allocate_huge_pages(kBytes);
  std::memset(first, 0xab, kBytes);
  free_huge_pages(first, kBytes);
  void* again = allocate_huge_pages(kBytes);
  // The kept region, not a fresh mapping (which the kernel may place at the same address, zeroed).
  EXPECT_EQ(again, first);
  EXPECT_EQ(static_cast<const unsigned char*>(again)[kBytes - 1], 0xab);
  std::memset(again, 0xcd, kBytes);
  free_huge_pages(again, kBytes);
  std::vector<uint32_t, HugePageAllocator<uint32_t>> counts(kBytes / sizeof(uint32_t));
  EXPECT_EQ(static_cast<void*>(counts.data()), first);
  EXPECT_TRUE(std::all_of(counts.begin(), counts.end(), [](uint32_t c) { return c == 0; }));
}

// From 1 MiB an array is mapped on its own, 2 MiB aligned and marked for huge pages
// (sim/huge_pages.cpp): the million-triangle frame's per-primitive arrays (4,147,200 B each) were
// below the old 4 MiB threshold and took a 4 KiB page fault each 4 KiB of their first run.
TEST(HugePages, ArraysFromOneMebibyteStartOnAHugePageBoundary) {
  constexpr size_t kHugePage = size_t(2) << 20;
  for (const size_t bytes : {size_t(1) << 20, size_t(4147200), size_t(3) << 20}) {
    SCOPED_TRACE(bytes);
    void* p = allocate_huge_pages(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kHugePage, 0u);
    std::memset(p, 1, bytes);  // the whole request is mapped
    free_huge_pages(p, bytes);
  }
}

// The lit program (untextured imports): Lambert with its default directional light, so a face whose
// normal points at the light is brighter than one lit at a grazing angle, and a face turned away
// keeps the ambient term only (traces/README.md, program table).
TEST(SimPrograms, LitFaceTowardTheLightIsBrighterThanAtGrazingAngle) {
  Trace trace;
  Draw draw;
  draw.program.name = "lit";
  draw.program.params["tint"] = {0.8f, 0.6f, 0.4f, 1};
  ImageStore images({});
  Footprints footprints;
  footprints.reset(trace);
  const CompiledProgram lit = compile_program(trace, draw, images, footprints, 4, 4);
  auto shade = [&](Eigen::Vector3f normal) {
    const float varyings[kVaryingCount] = {1, 1, 1, 1, 0, 0, normal[0], normal[1], normal[2]};
    FragmentInput in;
    in.varyings = varyings;
    Vec4 out;
    EXPECT_TRUE(shade_fragment(lit, in, &out, 1));
    return out;
  };
  const Eigen::Vector3f toward_light = Eigen::Vector3f(0.3f, 0.8f, 0.5f).normalized();
  // At a grazing angle: perpendicular to the light, tilted 10 degrees toward it.
  const Eigen::Vector3f side = Eigen::Vector3f(0.8f, -0.3f, 0).normalized();  // (0.3, 0.8, 0.5) . side = 0
  const float tilt = 10.0f * float(std::numbers::pi) / 180.0f;
  const Vec4 facing = shade(toward_light * 3.0f);  // not unit length: the program normalizes
  const Vec4 grazing = shade(side * std::cos(tilt) + toward_light * std::sin(tilt));
  const Vec4 away = shade(-toward_light);
  for (int c = 0; c < 3; ++c) {
    EXPECT_GT(facing[c], grazing[c]) << c;
    EXPECT_GT(grazing[c], away[c]) << c;
  }
  // Facing: albedo x (ambient 0.25 + light 0.75 x 1); away: albedo x ambient; alpha kept.
  EXPECT_NEAR(facing[0], 0.8f, 1e-6f);
  EXPECT_NEAR(away[1], 0.6f * 0.25f, 1e-6f);
  EXPECT_NEAR(grazing[2], 0.4f * (0.25f + 0.75f * std::sin(tilt)), 1e-5f);
  EXPECT_EQ(facing[3], 1.0f);
}

}  // namespace
}  // namespace tbdr
