// Tests of sim/geometry on traces built in code: near-plane clipping, indexed lists assembled as
// unindexed, the AVX2 vertex lanes mapped as the scalar tail.
#include "tests/sim_test_common.h"

namespace tbdr {
namespace {

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

}  // namespace
}  // namespace tbdr
