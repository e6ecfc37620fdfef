// Tests of sim/raster on traces built in code: shared edges and the top-left rule, depth, stencil,
// scissor, blending (every factor and op, the RGBA8 paths), MSAA with inline resolves.
#include "tests/sim_test_common.h"

namespace tbdr {
namespace {

// ---- 1. shared edges ------------------------------------------------------------------------

// The quad of the test below, vertices A, B, C, D in 1/256 px; drawn in the order A C B D.
struct SharedEdgeQuad {
  int64_t fx[4], fy[4];
};
constexpr int kQuadOrder[4] = {0, 2, 1, 3};

// Attempt `attempt`'s quad (its edge AB through a sample position, or at random every fourth
// attempt) for `pattern`'s sample positions on a kSize x kSize image; false when a vertex lies on
// a sample position or the quad is not strictly convex (the attempt is skipped).
bool random_shared_edge_quad(std::mt19937& rng, const std::vector<std::pair<int, int>>& pattern, uint32_t kSize,
                             int attempt, SharedEdgeQuad& quad) {
  auto uniform = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  auto snap = [](double v) {
    int64_t f = std::llround(v * kSubpixelOne);
    if ((f & 15) == 0) ++f;  // samples sit on multiples of 1/16 px = 16 units
    return f;
  };
  int64_t* const fx = quad.fx;
  int64_t* const fy = quad.fy;
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
  if (vertex_on_sample) return false;
  // Quad A C B D must be strictly convex.
  int positive = 0, negative = 0;
  for (int i = 0; i < 4; ++i) {
    const int a = kQuadOrder[i], b = kQuadOrder[(i + 1) % 4], c = kQuadOrder[(i + 2) % 4];
    const int64_t cross = (fx[b] - fx[a]) * (fy[c] - fy[b]) - (fy[b] - fy[a]) * (fx[c] - fx[b]);
    positive += cross > 0;
    negative += cross < 0;
  }
  return positive == 4 || negative == 4;
}

// Two render passes drawing the quad additively into R32F images `split_ab` and `split_cd`: split
// along AB (ABC, BAD), then along CD (CDA, DCB).
Trace two_splits_trace(const SharedEdgeQuad& quad, uint32_t samples, uint32_t kSize, int32_t& split_ab,
                       int32_t& split_cd) {
  const int64_t* const fx = quad.fx;
  const int64_t* const fy = quad.fy;
  Trace trace;
  split_ab = add_image(trace, Format::R32F, kSize, kSize, samples);
  split_cd = add_image(trace, Format::R32F, kSize, kSize, samples);
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
  return trace;
}

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
  uint64_t on_shared_edge = 0, decided_samples = 0;
  int quads = 0;
  for (int attempt = 0; quads < 200; ++attempt) {
    const uint32_t samples = 1u << (quads % 4);  // 1, 2, 4 and 8 samples in turn
    const auto& pattern = standard_samples(samples);
    SharedEdgeQuad q;
    if (!random_shared_edge_quad(rng, pattern, kSize, attempt, q)) continue;
    const int64_t* const fx = q.fx;
    const int64_t* const fy = q.fy;
    ++quads;

    int32_t split_ab = 0, split_cd = 0;
    const Trace trace = two_splits_trace(q, samples, kSize, split_ab, split_cd);
    Capture capture;
    simulate(trace, models, SimOptions{}, &capture);
    const Surface* ab = capture.find(0, split_ab);
    const Surface* cd = capture.find(1, split_cd);
    ASSERT_TRUE(ab && cd);

    std::vector<std::pair<double, double>> quad;
    for (int i : kQuadOrder) quad.emplace_back(double(fx[i]) / kSubpixelOne, double(fy[i]) / kSubpixelOne);
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

}  // namespace
}  // namespace tbdr
