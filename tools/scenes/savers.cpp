// traces/savers: the bandwidth savers' traces. A static HUD over a moving 3D scene for transaction
// elimination, and a textured scene whose stored and sampled images show AFBC on real pixels.
#include <array>
#include <string>
#include <vector>

#include "tools/scenes/common.h"
#include "tools/scenes/meshes.h"
#include "tools/scenes/scenes.h"
#include "tools/scenes/textures.h"

namespace tbdr::scenes {
namespace {

// One mesh of several axis-aligned quads in pixel space (identity transform), for HUD elements.
Json quads_mesh(const std::string& name, const PixelSpace& s, const std::vector<std::array<double, 4>>& quads, double z) {
  Json positions = Json::array(), indices = Json::array();
  for (size_t q = 0; q < quads.size(); ++q) {
    const auto [x0, y0, x1, y1] = quads[q];
    for (auto [px, py] : {std::pair{x0, y0}, std::pair{x0, y1}, std::pair{x1, y1}, std::pair{x1, y0}})
      for (double v : {s.x(px), s.y(py), z}) positions.push_back(num(v));
    const int b = int(4 * q);
    for (int i : {b, b + 1, b + 2, b + 0, b + 2, b + 3}) indices.push_back(i);
  }
  return {{"name", name}, {"positions", positions}, {"indices", indices}, {"index_bits", 16}};
}

// A static HUD over a moving 3D scene, into a 3-image swapchain (transaction elimination kills
// the blocks that match the frame three images earlier) and into an ordinary image whose old
// layout is `undefined` every frame (its signatures are dropped each frame: TE defeated).
struct HudScene {
  Json meshes, draws;
  Mat4 view, proj;
  Mat4 crate_model, ball_model;
};

constexpr int kHudWidth = 640, kHudHeight = 360, kHudFrames = 8;

// The moving draw's model in frame f: the torus knot glides left to right and spins.
Mat4 spinner_model(int frame) {
  const double t = double(frame) / (kHudFrames - 1);
  return translate(-1.6 + 3.2 * t, 1.25, 0.0) * rotate(25.0 * frame, Vec3::UnitY()) * rotate(10.0, Vec3::UnitX());
}

// The 3D scene under the HUD, in hud_scene.bin: a floor with the crate's and the ball's shadows
// baked in, the torus knot, the crate and the ball.
void add_hud_world(HudScene& sc, const fs::path& dir) {
  Sidecar bin{"hud_scene.bin", {}};
  sc.meshes = Json::array();
  MeshData floor = make_floor(-8.0, 8.0, -10.0, 4.0, 16, 14, 1.0);
  for (const Vec3& p : floor.positions) {
    const double l = floor_light(p, {{Vec3(-2.2, 0.5, -1.0), 0.6}, {Vec3(2.4, 0.45, -1.6), 0.5}});
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  sc.meshes.push_back(sidecar_mesh(bin, "floor", floor, false));
  MeshData knot = make_torus_knot(2, 3, 1.0, 0.18, 128, 10);
  bake_lambert(knot, Mat4::Identity());
  sc.meshes.push_back(sidecar_mesh(bin, "torus_knot", knot, false));
  MeshData crate = make_box(Vec3(1.0, 1.0, 1.0), 2);
  sc.crate_model = translate(-2.2, 0.5, -1.0) * rotate(30.0, Vec3::UnitY());
  bake_lambert(crate, sc.crate_model);
  sc.meshes.push_back(sidecar_mesh(bin, "crate", crate, false));
  MeshData ball = make_sphere(0.5, 24, 16);
  sc.ball_model = translate(2.4, 0.5, -1.6);
  bake_lambert(ball, sc.ball_model);
  sc.meshes.push_back(sidecar_mesh(bin, "ball", ball, false));
  write_file(dir / "hud_scene.bin", bin.bytes.data(), bin.bytes.size());
}

void add_hud_overlay(HudScene& sc) {
  // HUD in pixel space, top-left corner: a translucent panel, a health and an energy bar with
  // their frames, and "text": rows of short bars like glyph strokes.
  const PixelSpace s{kHudWidth, kHudHeight};
  sc.meshes.push_back(quads_mesh("hud_panel", s, {{12, 12, 212, 100}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_bar_frames", s, {{22, 22, 182, 36}, {22, 44, 182, 58}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_health", s, {{24, 24, 140, 34}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_energy", s, {{24, 46, 96, 56}}, 0.0));
  std::vector<std::array<double, 4>> glyphs;
  for (int row = 0; row < 2; ++row)
    for (int i = 0; i < 14; ++i) {
      const double x = 22 + 12 * i, y = 68 + 14 * row;
      const uint32_t h = hash32(uint32_t(row * 31 + i));
      glyphs.push_back({x, y, x + 2, y + 9});                                    // stem
      if (h & 1) glyphs.push_back({x, y, x + 8, y + 2});                         // top stroke
      if (h & 2) glyphs.push_back({x, y + 4, x + 7, y + 6});                     // middle stroke
      if (h & 4) glyphs.push_back({x, y + 7, x + 8, y + 9});                     // bottom stroke
      if (h & 8) glyphs.push_back({x + 6, y, x + 8, y + 9});                     // right stem
    }
  sc.meshes.push_back(quads_mesh("hud_text", s, glyphs, 0.0));
  // A minimap square in the top-right corner.
  sc.meshes.push_back(quads_mesh("hud_minimap", s, {{540, 12, 628, 100}}, 0.0));
  sc.meshes.push_back(quads_mesh("hud_minimap_marks", s, {{580, 52, 588, 60}, {556, 30, 560, 34}, {606, 78, 610, 82}}, 0.0));
}

// The 3D draws, then the HUD last, with no depth test.
Json hud_draws(const HudScene& sc) {
  auto lit_draw = [&](const std::string& name, const std::string& mesh, const Mat4& model, const std::vector<double>& albedo,
                      bool closed) {
    Json state = {{"cull", closed ? "back" : "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    return Json{{"name", name},
                {"mesh", mesh},
                {"transform", {{"model", mat_json(model)}, {"view", mat_json(sc.view)}, {"proj", mat_json(sc.proj)}}},
                {"state", state},
                {"program", vertex_color_program(albedo)},
                {"cost", cost(4, 0, 4, 16)}};
  };
  Json draws = Json::array();
  draws.push_back(lit_draw("spinner", "torus_knot", spinner_model(0), {0.95, 0.72, 0.25, 1}, true));
  draws.push_back(lit_draw("crate", "crate", sc.crate_model, {0.85, 0.5, 0.2, 1}, true));
  draws.push_back(lit_draw("ball", "ball", sc.ball_model, {0.25, 0.45, 0.9, 1}, true));
  draws.push_back(lit_draw("floor", "floor", Mat4::Identity(), {0.7, 0.72, 0.66, 1}, false));
  Json blended = {{"blend", Json::array({alpha_blend()})}};
  draws.push_back(simple_draw("hud_panel", "hud_panel", flat_program({0.05, 0.07, 0.1, 0.6}), blended));
  draws.push_back(simple_draw("hud_bar_frames", "hud_bar_frames", flat_program({0.1, 0.1, 0.1, 1})));
  draws.push_back(simple_draw("hud_health", "hud_health", flat_program({0.85, 0.15, 0.12, 1})));
  draws.push_back(simple_draw("hud_energy", "hud_energy", flat_program({0.2, 0.55, 0.95, 1})));
  draws.push_back(simple_draw("hud_text", "hud_text", flat_program({0.92, 0.92, 0.88, 1})));
  draws.push_back(simple_draw("hud_minimap", "hud_minimap", flat_program({0.1, 0.25, 0.15, 0.75}), blended));
  draws.push_back(simple_draw("hud_minimap_marks", "hud_minimap_marks", flat_program({1.0, 0.9, 0.2, 1})));
  return draws;
}

HudScene hud_scene(const fs::path& dir) {
  HudScene sc;
  sc.view = look_at(Vec3(0.0, 2.4, 6.4), Vec3(0.0, 0.8, 0.0), Vec3::UnitY());
  sc.proj = perspective_vulkan(45.0, double(kHudWidth) / kHudHeight, 0.1, 60.0);
  add_hud_world(sc, dir);
  add_hud_overlay(sc);
  sc.draws = hud_draws(sc);
  return sc;
}

// Frames 1.. repeat frame 0's passes and move the spinner.
Json hud_frames(const HudScene& sc, const Json& pass) {
  Json frames = Json::array();
  frames.push_back({{"passes", {pass}}});
  for (int f = 1; f < kHudFrames; ++f)
    frames.push_back({{"overrides",
                       {{"spinner", {{"transform", {{"model", mat_json(spinner_model(f))},
                                                    {"view", mat_json(sc.view)},
                                                    {"proj", mat_json(sc.proj)}}}}}}}});
  return frames;
}

void write_hud_trace(const fs::path& dir, const HudScene& sc, bool swapchain) {
  const std::string target = swapchain ? "swapchain" : "target";
  Json color = image(target, "BGRA8", kHudWidth, kHudHeight, {"color_attachment", "transfer_src"});
  if (swapchain) color["swapchain"] = 3;
  Json depth = sized_image("depth", "D32F", kHudWidth, kHudHeight, {"depth_stencil_attachment"}, 1, 1, true);
  Json pass = render_pass("frame",
                          {color_attachment(target, "clear", "store", "undefined", swapchain ? "present" : "transfer_src",
                                            {0.55, 0.72, 0.9, 1}),
                           depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                          {single_subpass(sc.draws, 1)});
  Json trace = trace_header(swapchain ? "hud_swapchain" : "hud_undefined");
  trace["images"] = {color, depth};
  trace["meshes"] = sc.meshes;
  trace["frames"] = hud_frames(sc, pass);
  write_json(dir / (swapchain ? "hud_swapchain.json" : "hud_undefined.json"), trace);
}

constexpr int kAfbcWidth = 960, kAfbcHeight = 540;

// The room's meshes in afbc_textured.bin: a tiled floor with the crates' and the ball's shadows
// baked in, a crate and a ball, and the post pass's full-screen triangle.
Json afbc_meshes(const fs::path& dir) {
  Sidecar bin{"afbc_textured.bin", {}};
  Json meshes = Json::array();
  MeshData floor = make_floor(-8.0, 8.0, -12.0, 5.0, 16, 17, 0.5);
  std::vector<ShadowCaster> casters = {{Vec3(-1.6, 0.6, -0.4), 0.75}, {Vec3(1.3, 0.45, 0.9), 0.55}, {Vec3(2.2, 0.6, -1.8), 0.6}};
  for (const Vec3& p : floor.positions) {
    const double l = floor_light(p, casters);
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  meshes.push_back(sidecar_mesh(bin, "floor", floor, true));
  MeshData crate = make_box(Vec3(1.2, 1.2, 1.2), 2);
  bake_lambert(crate, Mat4::Identity());
  meshes.push_back(sidecar_mesh(bin, "crate", crate, true));
  MeshData ball = make_sphere(0.6, 32, 20);
  bake_lambert(ball, Mat4::Identity());
  meshes.push_back(sidecar_mesh(bin, "ball", ball, false));
  write_file(dir / "afbc_textured.bin", bin.bytes.data(), bin.bytes.size());
  meshes.push_back(fullscreen_triangle_mesh("fullscreen_triangle", 0.5));
  return meshes;
}

// Two wooden crates (texture x baked lighting), a lit ball and the tiled floor.
Json afbc_draws() {
  const Mat4 view = look_at(Vec3(0.4, 2.6, 7.0), Vec3(0.0, 0.7, 0.0), Vec3::UnitY());
  const Mat4 proj = perspective_vulkan(45.0, double(kAfbcWidth) / kAfbcHeight, 0.1, 60.0);
  const Mat4 crate_a = translate(-1.6, 0.6, -0.4) * rotate(28.0, Vec3::UnitY());
  const Mat4 crate_b = translate(1.3, 0.45, 0.9) * rotate(-15.0, Vec3::UnitY()) * scale(0.75, 0.75, 0.75);
  auto textured = [](const char* texture) {
    return Json{{"name", "textured"},
                {"params", {{"tint", nums({1, 1, 1, 1})}}},
                {"bindings", {{"texture", {{"texture", texture}, {"filter", "bilinear"}, {"address", "repeat"}}}}}};
  };
  auto draw = [&](const std::string& name, const std::string& mesh, const Mat4& model, const Json& program, bool closed,
                  const Json& draw_cost) {
    Json state = {{"cull", closed ? "back" : "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    return Json{{"name", name},
                {"mesh", mesh},
                {"transform", {{"model", mat_json(model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}}},
                {"state", state},
                {"program", program},
                {"cost", draw_cost}};
  };
  return {draw("crate_a", "crate", crate_a, textured("wood"), true, cost(6, 1, 6, 16)),
          draw("crate_b", "crate", crate_b, textured("wood"), true, cost(6, 1, 6, 16)),
          draw("ball", "ball", translate(2.2, 0.6, -1.8), vertex_color_program({0.3, 0.6, 0.35, 1}), true,
               cost(4, 0, 4, 16)),
          draw("floor", "floor", Mat4::Identity(), textured("floor_tiles"), false, cost(6, 1, 6, 16))};
}

// A textured room corner at 960x540: a tiled floor, wooden crates (texture x baked lighting), a
// lit ball, the sky as the clear color; then a post pass samples the scene into the final image.
void write_afbc_textured(const fs::path& dir) {
  write_png(dir / "floor_tiles.png", 128, 128, floor_tile_texels());
  write_png(dir / "wood.png", 128, 128, wood_texels());
  const Json meshes = afbc_meshes(dir);
  const Json draws = afbc_draws();
  Json scene_pass = render_pass("scene",
                                {color_attachment("scene", "clear", "store", "undefined", "shader_read_only", {0.55, 0.72, 0.9, 1}),
                                 depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                {single_subpass(draws, 1)});
  Json post = render_pass("post", {color_attachment("final", "dont_care", "store", "undefined", "transfer_src")},
                          {single_subpass({fullscreen_draw("post_copy", program_json("copy", {{"source", image_binding("scene")}}), 1)})});
  Json trace = trace_header("afbc_textured");
  trace["images"] = {image("scene", "RGBA8", kAfbcWidth, kAfbcHeight, {"color_attachment", "sampled"}),
                     sized_image("depth", "D32F", kAfbcWidth, kAfbcHeight, {"depth_stencil_attachment"}, 1, 1, true),
                     image("final", "BGRA8", kAfbcWidth, kAfbcHeight, {"color_attachment", "transfer_src"})};
  trace["textures"] = {{{"name", "floor_tiles"}, {"file", "floor_tiles.png"}, {"format", "RGBA8"}},
                       {{"name", "wood"}, {"file", "wood.png"}, {"format", "RGBA8"}}};
  trace["meshes"] = meshes;
  trace["frames"] = {{{"passes", {scene_pass, post}}}};
  write_json(dir / "afbc_textured.json", trace);
  // The same scene with mip chains generated at load: the floor receding to the horizon samples
  // smaller levels (pixels and texture bytes differ; the reference renderer compares it too).
  trace["name"] = "textured_mipmaps";
  for (Json& t : trace["textures"]) t["mip"] = "generate";
  write_json(dir / "textured_mipmaps.json", trace);
}

}  // namespace

void write_saver_traces(const fs::path& dir) {
  fs::create_directories(dir);
  const HudScene sc = hud_scene(dir);
  write_hud_trace(dir, sc, true);
  write_hud_trace(dir, sc, false);
  write_afbc_textured(dir);
}

}  // namespace tbdr::scenes
