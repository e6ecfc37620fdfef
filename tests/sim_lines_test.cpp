// Tests of line and point primitives (sim/geometry_lines.cpp): pixel sets worked out by hand from
// OpenGL's diamond-exit rule and the square of a point, multisampled lines as rectangles, the
// varyings along a line, the counters, and the TBDR path against the IMR path bit for bit on
// tests/data/lines_points.json.
#include <set>

#include "frontend/trace_reader.h"
#include "sim_test_common.h"
#include "test_paths.h"

namespace tbdr {
namespace {

constexpr uint32_t kSize = 32;
using Pixels = std::set<std::pair<int, int>>;  // (x, y)

// A clip-space mesh of `topology` through framebuffer points (pixels) of a kSize x kSize target.
int32_t add_primitives(Trace& trace, Topology topology, const std::vector<std::pair<double, double>>& points,
                       const std::vector<Vec4>& colors = {}) {
  Mesh m;
  m.topology = topology;
  m.position_components = 4;
  for (const auto& [x, y] : points) m.positions.push_back(pixel_to_clip(x, y, kSize, kSize));
  m.colors = colors;
  return add_mesh(trace, std::move(m));
}

// `draw` rendered alone into a cleared R32F target of `samples` samples: the run and the target.
struct Rendered {
  RunStats run;
  Surface target;
};
Rendered render_alone(Trace trace, const Draw& draw, uint32_t samples = 1) {
  const int32_t target = add_image(trace, Format::R32F, kSize, kSize, samples);
  Subpass sp = color_subpass({0});
  sp.draws = {draw};
  trace.frames = {Frame{{render_pass("lines", {attachment(target, LoadOp::clear, StoreOp::store)}, {sp})}, {}}};
  Capture capture;
  Rendered r{simulate(trace, make_models(), SimOptions{}, &capture), {}};
  if (const Surface* c = capture.find(0, target)) r.target = *c;
  return r;
}

Pixels covered(const Surface& s) {
  Pixels out;
  for (int y = 0; y < int(kSize); ++y)
    for (int x = 0; x < int(kSize); ++x)
      if (s.color[s.index(uint32_t(x), uint32_t(y), 0)][0] != 0.0f) out.insert({x, y});
  return out;
}

// One flat white draw of `topology` through `points`, with a line width or point size.
Pixels drawn(Topology topology, const std::vector<std::pair<double, double>>& points, float size = 1.0f) {
  Trace trace;
  Draw d = flat_draw(add_primitives(trace, topology, points), Vec4(1, 1, 1, 1));
  d.line_width = d.point_size = size;
  return covered(render_alone(trace, d).target);
}

// Pixels of `s` (any size) whose color is not black.
size_t covered_count(const Surface& s) {
  size_t n = 0;
  for (const Vec4& c : s.color) n += (c[0] != 0.0f || c[1] != 0.0f || c[2] != 0.0f) ? 1 : 0;
  return n;
}

Pixels rect_pixels(int x0, int y0, int x1, int y1) {  // inclusive
  Pixels out;
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) out.insert({x, y});
  return out;
}

}  // namespace

// Width 1 (OpenGL 4.6 "Basic Line Segment Rasterization", diamond exit): one pixel per column of an
// x-major line, the row whose centre lies within half a pixel of the line there; the first end
// (inside its pixel's diamond) drawn, the last (inside its diamond, never left) not.
// Shallow (1.5, 1.5) -> (10.5, 4.5): y = 1.5 + (x - 1) / 3 at column x's centre.
TEST(SimLines, ShallowSteepAndDiagonalWidthOne) {
  const Pixels shallow = {{1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 2}, {6, 3}, {7, 3}, {8, 3}, {9, 4}};
  EXPECT_EQ(drawn(Topology::lines, {{1.5, 1.5}, {10.5, 4.5}}), shallow);
  Pixels steep;  // the same line with x and y swapped: y-major, one pixel per row
  for (const auto& [x, y] : shallow) steep.insert({y, x});
  EXPECT_EQ(drawn(Topology::lines, {{1.5, 1.5}, {4.5, 10.5}}), steep);
  // Either direction draws the same pixels but the ends': (10.5, 4.5) -> (1.5, 1.5) starts in
  // pixel (10, 4) and leaves (1, 1) out.
  Pixels reversed = shallow;
  reversed.erase({1, 1});
  reversed.insert({10, 4});
  EXPECT_EQ(drawn(Topology::lines, {{10.5, 4.5}, {1.5, 1.5}}), reversed);
  EXPECT_EQ(drawn(Topology::lines, {{1.5, 1.5}, {6.5, 6.5}}), Pixels({{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}));
  // Ends inside their pixels' diamonds off centre: (1.25, 1.5) -> (6.75, 1.5) is pixels 1..5.
  EXPECT_EQ(drawn(Topology::lines, {{1.25, 1.5}, {6.75, 1.5}}), rect_pixels(1, 1, 5, 1));
}

// Width 3: three pixels across the minor axis (a parallelogram 3 pixels tall for an x-major line),
// the same columns as width 1.
TEST(SimLines, WidthThreeIsThreePixelsAcrossTheMinorAxis) {
  EXPECT_EQ(drawn(Topology::lines, {{2.5, 5.5}, {8.5, 5.5}}, 3.0f), rect_pixels(2, 4, 7, 6));
  EXPECT_EQ(drawn(Topology::lines, {{5.5, 2.5}, {5.5, 8.5}}, 3.0f), rect_pixels(4, 2, 6, 7));
  // Sloped: column x's rows floor(y) - 1 .. floor(y) + 1, y = 1.5 + (x - 1) / 3.
  Pixels sloped;
  for (int x = 1; x <= 9; ++x) {
    const int row = int(std::floor(1.5 + (x - 1) / 3.0));
    for (int r = row - 1; r <= row + 1; ++r) sloped.insert({x, r});
  }
  EXPECT_EQ(drawn(Topology::lines, {{1.5, 1.5}, {10.5, 4.5}}, 3.0f), sloped);
}

// A line strip's segments share their ends: the joint pixel is drawn once, by the segment it starts.
TEST(SimLines, LineStripDrawsEachSegment) {
  Pixels expected = rect_pixels(1, 2, 5, 2);
  for (int y = 2; y <= 7; ++y) expected.insert({6, y});
  EXPECT_EQ(drawn(Topology::line_strip, {{1.5, 2.5}, {6.5, 2.5}, {6.5, 8.5}}), expected);
}

// Vulkan "Basic Point Rasterization": a square of side point size centred on the vertex, covering
// the pixels whose centre lies inside (top-left rule on its edges).
TEST(SimLines, PointsAreSquaresOfTheirSize) {
  EXPECT_EQ(drawn(Topology::points, {{3.5, 3.5}, {6.25, 3.75}}), Pixels({{3, 3}, {6, 3}}));
  // Side 4 at (10, 10): [8, 12)^2; at (20.5, 10.5): [18.5, 22.5) x [8.5, 12.5), centres 18.5 .. 21.5.
  Pixels four = rect_pixels(8, 8, 11, 11);
  for (const auto& p : rect_pixels(18, 8, 21, 11)) four.insert(p);
  EXPECT_EQ(drawn(Topology::points, {{10.0, 10.0}, {20.5, 10.5}}, 4.0f), four);
}

// A line's varyings vary along its major axis only (llvmpipe's line coefficients): a red channel
// from 0 at x = 0.5 to 1 at x = 16.5 is x / 16 at pixel x on every row of a width-3 line.
TEST(SimLines, VaryingsAreInterpolatedAlongTheMajorAxis) {
  Trace trace;
  const int32_t m = add_primitives(trace, Topology::lines, {{0.5, 10.5}, {16.5, 13.5}},
                                   {Vec4(0, 0, 0, 1), Vec4(1, 0, 0, 1)});
  Draw d = clip_draw(m);
  d.program.name = "vertex_color";
  d.line_width = 3.0f;
  const Surface s = render_alone(trace, d).target;
  size_t checked = 0;
  for (int y = 0; y < int(kSize); ++y)
    for (int x = 1; x < 16; ++x) {
      const float v = s.color[s.index(uint32_t(x), uint32_t(y), 0)][0];
      if (v == 0.0f) continue;
      EXPECT_NEAR(v, x / 16.0f, 1e-5f) << x << "," << y;
      ++checked;
    }
  EXPECT_EQ(checked, 15u * 3u);
}

// In a multisampled subpass a line is a rectangle (Vulkan's strict lines): `width` across, centred
// on the segment, ending at its ends. Each sample of a 4x target is checked against that rectangle
// in plain double geometry (those within 1/64 pixel of an edge left out).
TEST(SimLines, MultisampledLinesAreRectangles) {
  const double ax = 2.3, ay = 3.1, bx = 27.7, by = 12.4, width = 2.5;
  Trace trace;
  Draw d = flat_draw(add_primitives(trace, Topology::lines, {{ax, ay}, {bx, by}}), Vec4(1, 1, 1, 1));
  d.line_width = float(width);
  const Surface target = render_alone(trace, d, 4).target;
  const Surface* s = &target;
  ASSERT_EQ(s->samples, 4u);
  const double length = std::hypot(bx - ax, by - ay);
  const double nx = -(by - ay) / length * width / 2, ny = (bx - ax) / length * width / 2;
  const std::vector<std::pair<double, double>> rectangle = {
      {ax + nx, ay + ny}, {bx + nx, by + ny}, {bx - nx, by - ny}, {ax - nx, ay - ny}};
  size_t inside = 0, checked = 0;
  for (uint32_t y = 0; y < kSize; ++y)
    for (uint32_t x = 0; x < kSize; ++x)
      for (uint32_t k = 0; k < 4; ++k) {
        const auto [sx, sy] = standard_samples(4)[k];
        const int expected = classify(rectangle, x + sx / 16.0, y + sy / 16.0, 1.0 / 64);
        if (expected == 0) continue;
        ++checked;
        inside += expected > 0;
        EXPECT_EQ(s->color[s->index(x, y, k)][0], expected > 0 ? 1.0f : 0.0f) << x << "," << y << " sample " << k;
      }
  EXPECT_GT(inside, 200u);  // about 4 x 2.5 x 27.3 samples
  EXPECT_GT(checked, 4u * kSize * kSize - 20u);
}

// The counters: a line or point is one primitive in, set up as the two triangles of its quad;
// cull mode and depth bias never apply to it.
TEST(SimLines, CountersAndCullMode) {
  Trace trace;
  Draw d = flat_draw(add_primitives(trace, Topology::lines, {{1.5, 1.5}, {10.5, 4.5}, {2.5, 20.5}, {20.5, 22.5}}),
                     Vec4(1, 1, 1, 1));
  d.state.cull = CullMode::front_and_back;
  const Rendered r = render_alone(trace, d);
  const PassCounters& c = pass_stats(r.run, 0).counters;
  EXPECT_EQ(c.primitives_in, 2u);
  EXPECT_EQ(c.primitives, 4u);
  EXPECT_EQ(c.primitives_culled, 0u);
  EXPECT_EQ(c.samples_passed, 9u + 18u);  // (10.5 - 1.5) and (20.5 - 2.5) columns
}

// The same lines and points through the TBDR path (several tile sizes) and the IMR path: every
// stored pixel equal, bit for bit.
TEST(SimLines, TbdrEqualsImrBitForBit) {
  const Trace trace = read_trace(std::string(TBDR_SOURCE_DIR) + "/tests/data/lines_points.json");
  SimOptions imr_options;
  imr_options.path = RenderPath::imr;
  Capture imr;
  simulate(trace, make_models(), imr_options, &imr);
  ASSERT_EQ(imr.entries.size(), 1u);
  EXPECT_GT(covered_count(imr.entries[0].surface), 500u);  // 547 of its 4096 pixels drawn
  for (const char* tile : {"8x8", "16x16", "32x32", "24x40"}) {
    SCOPED_TRACE(tile);
    Capture tbdr;
    simulate(trace, make_models(tile), SimOptions{}, &tbdr);
    ASSERT_EQ(tbdr.entries.size(), 1u);
    const Surface& a = tbdr.entries[0].surface;
    const Surface& b = imr.entries[0].surface;
    ASSERT_EQ(a.color.size(), b.color.size());
    EXPECT_EQ(std::memcmp(a.color.data(), b.color.data(), a.color.size() * sizeof(a.color[0])), 0);
  }
}

}  // namespace tbdr
