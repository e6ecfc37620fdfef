// traces/features: small traces, one feature each (load/store ops, stencil, scissor and viewport,
// near-plane clipping, blending, texturing, clears and subpasses, copies, clip space, frames).
// Meshes are given in normalized device coordinates so every pixel can be worked out by hand.
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "tools/scenes/common.h"
#include "tools/scenes/scenes.h"

namespace tbdr::scenes {
namespace {

// A rectangle in pixels: a clear region, a scissor, a render area.
Json rect(int x, int y, int w, int h) { return {{"x", x}, {"y", y}, {"width", w}, {"height", h}}; }

// Corner colors of the full-screen background gradient.
const std::vector<Vec4> kGradient = {Vec4(0.15, 0.2, 0.45, 1), Vec4(0.05, 0.05, 0.1, 1), Vec4(0.3, 0.1, 0.2, 1),
                                     Vec4(0.5, 0.35, 0.6, 1)};

void write_load_store_ops(const fs::path& dir) {
  PixelSpace s{1920, 1080};
  Json meshes = {rect_mesh("fullscreen_gradient", s, 0, 0, 1920, 1080, 0.5, kGradient),
                 rect_mesh("far_rect", s, 160, 160, 900, 760, 0.6),
                 rect_mesh("near_rect", s, 480, 400, 1100, 980, 0.3),
                 rect_mesh("middle_rect", s, 1180, 160, 1760, 620, 0.5),
                 rect_mesh("fullscreen", s, 0, 0, 1920, 1080, 0.5),
                 rect_mesh("band", s, 240, 700, 1680, 900, 0.5)};
  const char* ca = "color_attachment";
  auto one = [](Json d) { return Json::array({single_subpass(Json::array({d}))}); };
  Json depth_state = {{"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
  Json passes = Json::array();
  // Defines every pixel without loading them first.
  passes.push_back(render_pass("dont_care_store", {color_attachment("color", "dont_care", "store", "undefined", ca)},
                               one(simple_draw("background", "fullscreen_gradient", vertex_color_program({1, 1, 1, 1})))));
  // Clears (overwriting the above) and uses a transient depth buffer that never reaches DRAM.
  passes.push_back(render_pass(
      "clear_store",
      {color_attachment("color", "clear", "store", ca, ca, {0.1, 0.1, 0.12, 1.0}),
       {{"image", "transient_depth"}, {"load", "clear"}, {"store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}},
        {"old_layout", "undefined"}, {"new_layout", "depth_stencil_attachment"}}},
      {single_subpass({simple_draw("near_red", "near_rect", flat_program({0.9, 0.15, 0.1, 1}), depth_state),
                       simple_draw("far_orange", "far_rect", flat_program({1.0, 0.6, 0.1, 1}), depth_state)},
                      1)}));
  passes.push_back(render_pass("load_store", {color_attachment("color", "load", "store", ca, ca)},
                               one(simple_draw("green", "middle_rect", flat_program({0.2, 0.8, 0.3, 1})))));
  // The next three passes' results are discarded: nothing they draw may appear in the image.
  passes.push_back(render_pass("load_dont_care", {color_attachment("color", "load", "dont_care", ca, ca)},
                               one(simple_draw("lost_white", "fullscreen", flat_program({1, 1, 1, 1})))));
  passes.push_back(render_pass("clear_dont_care", {color_attachment("color", "clear", "dont_care", ca, ca, {1, 0, 1, 1})},
                               one(simple_draw("lost_yellow", "middle_rect", flat_program({1, 1, 0, 1})))));
  passes.push_back(render_pass("dont_care_dont_care", {color_attachment("color", "dont_care", "dont_care", ca, ca)},
                               one(simple_draw("lost_cyan", "far_rect", flat_program({0, 1, 1, 1})))));
  // Only the left half is loaded, drawn and stored: the band is cut at x = 960.
  Json half = render_pass("half_render_area", {color_attachment("color", "load", "store", ca, "transfer_src")},
                          one(simple_draw("blue_band", "band", flat_program({0.2, 0.4, 1.0, 1}))));
  half["render_area"] = rect(0, 0, 960, 1080);
  passes.push_back(half);

  Json trace = trace_header("load_store_ops");
  Json depth_image = image("transient_depth", "D32F", 1920, 1080, {"depth_stencil_attachment"});
  depth_image["transient"] = true;
  trace["images"] = {image("color", "RGBA8", 1920, 1080, {"color_attachment", "transfer_src"}), depth_image};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", passes}}};
  write_json(dir / "load_store_ops.json", trace);
}

void write_stencil(const fs::path& dir) {
  PixelSpace s{256, 256};
  // A disc of radius 80 px as a triangle fan: center first, then the rim (closed).
  Json disc = Json::array();
  for (double v : {s.x(128), s.y(128), 0.5}) disc.push_back(num(v));
  for (int i = 0; i <= 32; ++i) {
    double a = 2.0 * kPi * i / 32;
    for (double v : {s.x(128 + 80 * std::cos(a)), s.y(128 - 80 * std::sin(a)), 0.5}) disc.push_back(num(v));
  }
  Json meshes = {{{"name", "disc"}, {"topology", "triangle_fan"}, {"positions", disc}},
                 rect_mesh("fullscreen", s, 0, 0, 256, 256, 0.5)};
  auto stencil_face = [](const char* compare, const char* pass_op, int write_mask) {
    return Json{{"fail_op", "keep"},     {"pass_op", pass_op},   {"depth_fail_op", "keep"},
                {"compare_op", compare}, {"compare_mask", 255}, {"write_mask", write_mask},
                {"reference", 1}};
  };
  auto stencil_state = [&](const char* compare, const char* pass_op, int write_mask) {
    Json face = stencil_face(compare, pass_op, write_mask);
    return Json{{"stencil_test", true}, {"stencil_front", face}, {"stencil_back", face}};
  };
  Json mask_state = stencil_state("always", "replace", 255);
  mask_state["blend"] = Json::array({{{"enable", false}, {"write_mask", ""}}});  // no color writes
  Json draws = {simple_draw("write_mask", "disc", flat_program({1, 1, 1, 1}), mask_state),
                simple_draw("inside", "fullscreen", flat_program({1.0, 0.35, 0.2, 1}), stencil_state("equal", "keep", 0)),
                simple_draw("outside", "fullscreen", flat_program({0.15, 0.3, 0.8, 1}), stencil_state("not_equal", "keep", 0))};
  Json ds = {{"image", "depth_stencil"}, {"load", "clear"}, {"store", "dont_care"}, {"stencil_load", "clear"},
             {"stencil_store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}}, {"old_layout", "undefined"},
             {"new_layout", "depth_stencil_attachment"}};
  Json trace = trace_header("stencil");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("depth_stencil", "D24S8", 256, 256, {"depth_stencil_attachment"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes",
                       {render_pass("stencil_mask",
                                    {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0, 0, 0, 1}), ds},
                                    {single_subpass(draws, 1)})}}}};
  write_json(dir / "stencil.json", trace);
}

Json viewport(double x, double y, double w, double h) {
  return {{"x", num(x)}, {"y", num(y)}, {"width", num(w)}, {"height", num(h)}, {"min_depth", 0.0}, {"max_depth", 1.0}};
}

void write_scissor_viewport(const fs::path& dir) {
  PixelSpace s{320, 240};
  // Apex at NDC y = -1: the top of whichever viewport it is drawn into.
  Json triangle = {{"name", "apex_up_triangle"},
                   {"positions", nums({-1, 1, 0.5, 1, 1, 0.5, 0, -1, 0.5})},
                   {"colors", nums({1, 0.2, 0.2, 1, 0.2, 1, 0.2, 1, 0.3, 0.4, 1, 1})}};
  Json meshes = {rect_mesh("fullscreen_gradient", s, 0, 0, 320, 240, 0.5, kGradient),
                 rect_mesh("fullscreen", s, 0, 0, 320, 240, 0.5), triangle};
  Json scissored = simple_draw("scissored_red", "fullscreen", flat_program({0.9, 0.2, 0.15, 1}));
  scissored["scissor"] = rect(16, 16, 128, 64);
  Json in_viewport = simple_draw("viewport_triangle", "apex_up_triangle", vertex_color_program({1, 1, 1, 1}));
  in_viewport["viewport"] = viewport(160, 120, 160, 120);
  // The visible part is the intersection: pixels x 100..232, y 140..220.
  Json both = simple_draw("viewport_and_scissor", "fullscreen", flat_program({0.3, 0.85, 0.4, 1}));
  both["viewport"] = viewport(32, 100, 200, 120);
  both["scissor"] = rect(100, 140, 200, 80);
  // A fractional viewport: the quad's edges fall on pixel centers' half way marks.
  Json fractional = simple_draw("fractional_viewport", "fullscreen", flat_program({1.0, 0.85, 0.2, 1}));
  fractional["viewport"] = viewport(250.5, 10.25, 60, 40.5);
  Json draws = {simple_draw("background", "fullscreen_gradient", vertex_color_program({1, 1, 1, 1})), scissored, in_viewport,
                both, fractional};
  Json trace = trace_header("scissor_viewport");
  trace["images"] = {image("color", "RGBA8", 320, 240, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0, 0, 0, 1})},
                                              {single_subpass(draws)})}}}};
  write_json(dir / "scissor_viewport.json", trace);
}

void write_near_clip(const fs::path& dir) {
  Mat4 view = look_at(Vec3(0, 1, 0), Vec3(0, 0.6, -4), Vec3::UnitY());
  Mat4 proj = perspective_vulkan(60.0, 1.0, 0.1, 50.0);
  Json transform = {{"view", mat_json(view)}, {"proj", mat_json(proj)}};
  // The ground runs from 50 units ahead to 50 units behind the eye: clipped at the near plane.
  Json ground = {{"name", "ground"},
                 {"positions", nums({-50, 0, -50, -50, 0, 50, 50, 0, 50, 50, 0, -50})},
                 {"colors", nums({0.2, 0.6, 0.2, 1, 0.9, 0.9, 0.3, 1, 0.3, 0.3, 0.9, 1, 0.8, 0.3, 0.3, 1})},
                 {"indices", {0, 1, 2, 0, 2, 3}},
                 {"index_bits", 16}};
  // The third vertex is 1 unit behind the eye (view z = +1, clip w = -1).
  Json crossing = {{"name", "crossing_triangle"},
                   {"positions", nums({-1.5, 0.5, -3, 1.5, 1.8, -3, 0.3, 1.2, 1})},
                   {"colors", nums({1, 0.2, 0.2, 1, 0.2, 1, 0.2, 1, 0.2, 0.3, 1, 1})}};
  Json depth_state = {{"cull", "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
  Json draws = Json::array();
  for (auto [name, mesh] : {std::pair{"ground", "ground"}, std::pair{"crossing_triangle", "crossing_triangle"}}) {
    draws.push_back(simple_draw(name, mesh, vertex_color_program({1, 1, 1, 1}), depth_state, transform));
  }
  Json depth = {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}},
                {"old_layout", "undefined"}, {"new_layout", "depth_stencil_attachment"}};
  Json trace = trace_header("near_clip");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("depth", "D32F", 256, 256, {"depth_stencil_attachment"})};
  trace["meshes"] = {ground, crossing};
  trace["frames"] = {{{"passes", {render_pass("main",
                                              {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.55, 0.72, 0.9, 1}),
                                               depth},
                                              {single_subpass(draws, 1)})}}}};
  write_json(dir / "near_clip.json", trace);
}

void write_blend_modes(const fs::path& dir) {
  PixelSpace s{448, 240};
  Json meshes = {rect_mesh("band_top", s, 0, 0, 448, 80, 0.5), rect_mesh("band_middle", s, 0, 80, 448, 160, 0.5),
                 rect_mesh("band_bottom", s, 0, 160, 448, 240, 0.5)};
  Json draws = {simple_draw("red_band", "band_top", flat_program({0.8, 0.2, 0.2, 1})),
                simple_draw("green_band", "band_middle", flat_program({0.2, 0.7, 0.3, 1})),
                simple_draw("blue_band", "band_bottom", flat_program({0.2, 0.3, 0.9, 1}))};
  struct Column {
    const char* name;
    Json blend;
    std::vector<double> color;
  };
  Json constant = blend_state("constant_color", "one_minus_constant_color", "add");
  const std::vector<Column> columns = {
      {"alpha", alpha_blend(), {1.0, 1.0, 0.2, 0.5}},
      {"additive", blend_state("one", "one", "add"), {0.3, 0.3, 0.3, 1}},
      {"subtract", blend_state("one", "one", "subtract"), {0.9, 0.9, 0.9, 1}},  // src - dst
      {"reverse_subtract", blend_state("one", "one", "reverse_subtract"), {0.4, 0.4, 0.4, 1}},  // dst - src
      {"min", blend_state("one", "one", "min"), {0.5, 0.5, 0.5, 1}},
      {"max", blend_state("one", "one", "max"), {0.6, 0.6, 0.6, 1}},
      {"constant_color", constant, {1, 1, 1, 1}},
  };
  for (size_t i = 0; i < columns.size(); ++i) {
    std::string mesh = std::string("column_") + columns[i].name;
    meshes.push_back(rect_mesh(mesh, s, 8 + 64.0 * double(i), 16, 56 + 64.0 * double(i), 224, 0.5));
    Json state = {{"blend", Json::array({columns[i].blend})}};
    if (std::string(columns[i].name) == "constant_color") state["blend_constants"] = nums({0.25, 0.5, 0.75, 1.0});
    draws.push_back(simple_draw(columns[i].name, mesh, flat_program(columns[i].color), state));
  }
  // Two bars across every column: a multiply (dst_color, zero) and a half-transparent white, overlapping.
  meshes.push_back(rect_mesh("bar_multiply", s, 0, 100, 448, 140, 0.5));
  meshes.push_back(rect_mesh("bar_alpha", s, 0, 128, 448, 176, 0.5));
  draws.push_back(simple_draw("multiply", "bar_multiply", flat_program({1.0, 0.8, 0.5, 1}),
                              {{"blend", Json::array({blend_state("dst_color", "zero", "add")})}}));
  draws.push_back(simple_draw("alpha_white", "bar_alpha", flat_program({1, 1, 1, 0.5}), {{"blend", Json::array({alpha_blend()})}}));
  Json trace = trace_header("blend_modes");
  trace["images"] = {image("color", "RGBA8", 448, 240, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.5, 0.5, 0.5, 1})},
                                              {single_subpass(draws)})}}}};
  write_json(dir / "blend_modes.json", trace);
}

// 8x8 texture whose texels are distinguishable: red grows to the right, green downwards, a blue
// checker, and a white texel at the top-left corner to show orientation.
std::vector<uint8_t> uv_test_texels() {
  std::vector<uint8_t> rgba(8 * 8 * 4);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x) {
      uint8_t* t = &rgba[size_t((y * 8 + x) * 4)];
      bool corner = x == 0 && y == 0;
      t[0] = corner ? 255 : uint8_t(x * 36);
      t[1] = corner ? 255 : uint8_t(y * 36);
      t[2] = corner ? 255 : uint8_t((x + y) % 2 ? 200 : 40);
      t[3] = 255;
    }
  return rgba;
}

void write_textured(const fs::path& dir) {
  PixelSpace s{256, 256};
  write_png(dir / "uv_test.png", 8, 8, uv_test_texels());
  struct Quad {
    const char* name;
    double x, y;
    const char* filter;
    const char* address;
    double uv0, uv1;
  };
  // Repeat quads show the texture twice; clamp quads stretch the edge texels over a quarter each side.
  const std::vector<Quad> quads = {{"nearest_repeat", 8, 8, "nearest", "repeat", 0, 2},
                                   {"bilinear_repeat", 136, 8, "bilinear", "repeat", 0, 2},
                                   {"nearest_clamp", 8, 136, "nearest", "clamp_to_edge", -0.5, 1.5},
                                   {"bilinear_clamp", 136, 136, "bilinear", "clamp_to_edge", -0.5, 1.5}};
  Json meshes = Json::array(), draws = Json::array();
  for (const Quad& q : quads) {
    // Triangle strip: top-left, bottom-left, top-right, bottom-right.
    double x0 = q.x, y0 = q.y, x1 = q.x + 112, y1 = q.y + 112;
    meshes.push_back({{"name", std::string(q.name) + "_quad"},
                      {"topology", "triangle_strip"},
                      {"positions", nums({s.x(x0), s.y(y0), 0.5, s.x(x0), s.y(y1), 0.5, s.x(x1), s.y(y0), 0.5, s.x(x1), s.y(y1), 0.5})},
                      {"uvs", nums({q.uv0, q.uv0, q.uv0, q.uv1, q.uv1, q.uv0, q.uv1, q.uv1})}});
    Json program = {{"name", "textured"},
                    {"params", {{"tint", nums({1, 1, 1, 1})}}},
                    {"bindings", {{"texture", {{"texture", "uv_test"}, {"filter", q.filter}, {"address", q.address}}}}}};
    Json d = simple_draw(q.name, std::string(q.name) + "_quad", program);
    d["cost"] = cost(3, 1, 2, 8);
    draws.push_back(d);
  }
  Json trace = trace_header("textured");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["textures"] = {{{"name", "uv_test"}, {"file", "uv_test.png"}, {"format", "RGBA8"}, {"mip", "none"}}};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.1, 1})},
                                              {single_subpass(draws)})}}}};
  write_json(dir / "textured.json", trace);
}

void write_clears_and_subpasses(const fs::path& dir) {
  PixelSpace s{256, 256};
  Json big_triangle = {{"name", "big_triangle"},
                       {"positions", nums({s.x(16), s.y(240), 0.5, s.x(240), s.y(240), 0.5, s.x(128), s.y(16), 0.5})},
                       {"colors", nums({1, 0.3, 0.2, 1, 0.2, 0.9, 0.3, 1, 0.3, 0.4, 1, 1})}};
  Json meshes = {big_triangle, rect_mesh("center_rect", s, 96, 112, 160, 176, 0.5), rect_mesh("top_rect", s, 64, 40, 192, 104, 0.5)};
  Json subpass0 = {{"color", {0}},
                   {"draws", {simple_draw("big_triangle", "big_triangle", vertex_color_program({1, 1, 1, 1})),
                              simple_draw("after_clear", "center_rect", flat_program({1.0, 0.9, 0.2, 1}))}},
                   {"clears", {{{"before_draw", 1}, {"color", {0}}, {"value", nums({0.0, 0.4, 0.4, 1})},
                                {"rects", {rect(32, 120, 64, 64), rect(150, 150, 72, 48)}}}}}};
  // Second subpass: draws on top of attachment 0 and into the second attachment; its slot 1
  // (the overlay image) is half cleared first.
  Json subpass1 = {{"color", {0, 1}},
                   {"draws", {simple_draw("on_top", "top_rect", flat_program({0.9, 0.3, 0.6, 1}))}},
                   {"clears", {{{"before_draw", 0}, {"color", {1}}, {"value", nums({0.3, 0.3, 0.8, 1})},
                                {"rects", {rect(0, 128, 256, 128)}}}}}};
  Json dependencies = {{{"src_subpass", "external"}, {"dst_subpass", 0}, {"src_stages", {"color_attachment_output"}},
                        {"dst_stages", {"color_attachment_output"}}, {"src_access", Json::array()},
                        {"dst_access", {"color_attachment_write"}}, {"by_region", false}},
                       {{"src_subpass", 0}, {"dst_subpass", 1}, {"src_stages", {"color_attachment_output"}},
                        {"dst_stages", {"color_attachment_output"}}, {"src_access", {"color_attachment_write"}},
                        {"dst_access", Json::array({"color_attachment_read", "color_attachment_write"})}, {"by_region", true}}};
  Json pass = render_pass("two_subpasses",
                          {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.15, 1}),
                           color_attachment("overlay", "clear", "store", "undefined", "transfer_src", {0.25, 0.25, 0.25, 1})},
                          {subpass0, subpass1});
  pass["dependencies"] = dependencies;
  Json trace = trace_header("clears_and_subpasses");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("overlay", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {pass}}}};
  write_json(dir / "clears_and_subpasses.json", trace);
}

void write_copy_blit(const fs::path& dir) {
  PixelSpace s{256, 256};
  Json meshes = {rect_mesh("fullscreen_gradient", s, 0, 0, 256, 256, 0.5, kGradient),
                 rect_mesh("left_rect", s, 24, 24, 120, 232, 0.5), rect_mesh("right_rect", s, 136, 64, 232, 192, 0.5)};
  Json draws = {simple_draw("background", "fullscreen_gradient", vertex_color_program({1, 1, 1, 1})),
                simple_draw("orange", "left_rect", flat_program({1.0, 0.55, 0.1, 1})),
                simple_draw("teal", "right_rect", flat_program({0.1, 0.7, 0.7, 1}))};
  Json render = render_pass("draw", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0, 0, 0, 1})},
                            {single_subpass(draws)});
  Json copy = {{"name", "copy_to_staging"}, {"type", "copy"}, {"src", {{"image", "color"}}}, {"dst", {{"image", "staging"}}}};
  // The blit reads what the copy wrote: transfer write -> transfer read, and a layout change.
  Json barrier = {{"name", "copy_to_blit"},
                  {"type", "barrier"},
                  {"src_stages", {"transfer"}},
                  {"dst_stages", {"transfer"}},
                  {"src_access", {"transfer_write"}},
                  {"dst_access", {"transfer_read"}},
                  {"images", {{{"image", "staging"}, {"old_layout", "transfer_dst"}, {"new_layout", "transfer_src"},
                               {"src_stages", {"transfer"}}, {"dst_stages", {"transfer"}},
                               {"src_access", {"transfer_write"}}, {"dst_access", {"transfer_read"}}}}}};
  Json blit = {{"name", "downscale"}, {"type", "blit"}, {"src", {{"image", "staging"}}}, {"dst", {{"image", "half"}}},
               {"filter", "bilinear"}};
  Json trace = trace_header("copy_blit");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"}),
                     image("staging", "RGBA8", 256, 256, {"transfer_src", "transfer_dst"}),
                     image("half", "RGBA8", 128, 128, {"transfer_dst"})};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {render, copy, barrier, blit}}}};
  write_json(dir / "copy_blit.json", trace);
}

void write_clip_space(const fs::path& dir) {
  // Clip-space xyzw given directly. Triangle 1: NDC (-0.8, 0.8), (0.8, 0.8), (0, -0.8) at depth 0.3..0.6
  // with w = 1, 4, 2, so perspective-correct color interpolation is visibly skewed towards the
  // w = 1 corner. Triangle 2 (w = 1) reaches past x = +1 and is cut by the right edge.
  std::vector<double> positions;
  auto vertex = [&](double x, double y, double z, double w) { positions.insert(positions.end(), {x * w, y * w, z * w, w}); };
  vertex(-0.8, 0.8, 0.3, 1);
  vertex(0.8, 0.8, 0.3, 4);
  vertex(0.0, -0.8, 0.6, 2);
  vertex(0.5, -0.95, 0.2, 1);
  vertex(1.6, -0.95, 0.2, 1);
  vertex(1.0, 0.2, 0.2, 1);
  Json p = Json::array();
  for (double v : positions) p.push_back(num(v));
  Json mesh = {{"name", "clip_triangles"},
               {"position_components", 4},
               {"positions", p},
               {"colors", nums({1, 0.2, 0.2, 1, 0.2, 1, 0.2, 1, 0.2, 0.3, 1, 1, 1, 1, 0.3, 1, 1, 1, 0.3, 1, 1, 0.5, 0.1, 1})}};
  Json d = simple_draw("clip_space_triangles", "clip_triangles", vertex_color_program({1, 1, 1, 1}), Json::object(),
                       {{"clip_space", true}});
  Json trace = trace_header("clip_space");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["meshes"] = {mesh};
  trace["frames"] = {{{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.1, 1})},
                                              {single_subpass({d})})}}}};
  write_json(dir / "clip_space.json", trace);
}

void write_multi_frame(const fs::path& dir) {
  PixelSpace s{256, 256};
  // The mover's mesh is a 64x64 px square around the center; its model translates it.
  Json meshes = {rect_mesh("center_square", s, 96, 96, 160, 160, 0.5), rect_mesh("static_rect", s, 80, 32, 176, 224, 0.5)};
  Json mover = simple_draw("mover", "center_square", flat_program({1.0, 0.55, 0.1, 1}), Json::object(),
                           {{"model", mat_json(translate(-0.5, 0, 0))}});  // 64 px left
  Json draws = {simple_draw("static", "static_rect", flat_program({0.2, 0.35, 0.8, 1})), mover};
  Json frame0 = {{"passes", {render_pass("main", {color_attachment("color", "clear", "store", "undefined", "transfer_src", {0.1, 0.1, 0.1, 1})},
                                         {single_subpass(draws)})}}};
  // Frame 1 repeats frame 0's passes; the mover goes 64 px right of center and turns green.
  Json frame1 = {{"overrides", {{"mover", {{"transform", {{"model", mat_json(translate(0.5, 0, 0))}}},
                                           {"params", {{"color", nums({0.2, 0.85, 0.3, 1})}}}}}}}};
  Json trace = trace_header("multi_frame");
  trace["images"] = {image("color", "RGBA8", 256, 256, {"color_attachment", "transfer_src"})};
  trace["meshes"] = meshes;
  trace["frames"] = {frame0, frame1};
  write_json(dir / "multi_frame.json", trace);
}

}  // namespace

void write_feature_traces(const fs::path& dir) {
  fs::create_directories(dir);
  write_load_store_ops(dir);
  write_stencil(dir);
  write_scissor_viewport(dir);
  write_near_clip(dir);
  write_blend_modes(dir);
  write_textured(dir);
  write_clears_and_subpasses(dir);
  write_copy_blit(dir);
  write_clip_space(dir);
  write_multi_frame(dir);
}

}  // namespace tbdr::scenes
