// traces/validation: the Khronos Vulkan-Samples performance samples' variants that a Mali-G76
// measurement compares, drawn in a procedural atrium at 2220x1080 (`tbdrsim validate` reads them).
#include <Eigen/LU>
#include <array>
#include <cmath>
#include <initializer_list>
#include <iostream>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tools/scenes/common.h"
#include "tools/scenes/meshes.h"
#include "tools/scenes/scenes.h"
#include "tools/scenes/textures.h"

namespace tbdr::scenes {
namespace {

// The Khronos Vulkan-Samples performance samples as measured on a Mali-G76 (each sample's README
// under samples/performance/ of Vulkan-Samples gives the measured figures; models/README.md
// "Sources"), one trace per variant that a measurement compares, at the Galaxy S10's 2220x1080.
// The samples draw Sponza; here a procedural atrium of comparable content stands in for it
// (traces/validation/README.md): a tiled floor, two storeys of columns and arches, brick walls,
// hanging banners and vases, textured, lighting baked into vertex colors, the sky as the clear
// color. Repeated parts are one mesh drawn many times, so the frame processes about 150k
// triangles while the sidecar holds a few thousand.

constexpr int kValWidth = 2220, kValHeight = 1080;

// 128x128 bricks: 32x16 px courses, every other course offset by half a brick, 2 px mortar.
std::vector<uint8_t> brick_texels() {
  return procedural_texels([](int x, int y) {
    const int course = y / 16, bx = (x + (course % 2) * 16) % 128;
    const bool mortar = y % 16 < 2 || bx % 32 < 2;
    const int shade = int(hash32(uint32_t(course * 8 + bx / 32) + 11u) % 36u) - 18;
    const int g = grain(x, y, 3, 7);
    return mortar ? std::array<int, 3>{150 + g, 144 + g, 132 + g} : std::array<int, 3>{178 + shade + g, 152 + shade + g, 118 + shade + g};
  });
}

// 128x128 cloth: woven grain with two stripes near the edges; the draw's tint colors it.
std::vector<uint8_t> fabric_texels() {
  return procedural_texels([](int x, int y) {
    const bool stripe = (x >= 10 && x < 18) || (x >= 110 && x < 118);
    const int weave = ((x + y) % 4 < 2) ? 10 : -10;
    const int v = (stripe ? 250 : 200) + weave + grain(x, y, 4, 5);
    return std::array<int, 3>{v, v, v};
  });
}

void scale_uvs(MeshData& m, double su, double sv) {
  for (Vec2& uv : m.uvs) uv = Vec2(uv.x() * su, uv.y() * sv);
}

// Half a torus standing in the xy plane (an arch of radius `span` / 2 over the x axis).
MeshData make_arch(double span, double thickness, int segments, int sides) {
  MeshData m;
  const double major = span / 2.0;
  add_grid(m, segments, sides, [&](double u, double v) {
    const double a = u * kPi, b = v * 2.0 * kPi;
    const Vec3 radial(std::cos(a), std::sin(a), 0.0);
    const Vec3 n = std::cos(b) * radial + std::sin(b) * Vec3::UnitZ();
    return GridVertex{major * radial + thickness * n, n, Vec2(u * 4.0, v)};
  });
  return m;
}

// A banner hanging from its top edge (y = 0 down to -height), folded in waves along x.
MeshData make_banner(double width, double height, int cols, int rows) {
  MeshData m;
  add_grid(m, cols, rows, [&](double u, double v) {
    const double w = 6.0 * kPi * u, depth = 0.08 + 0.04 * v;
    const Vec3 p((u - 0.5) * width, -v * height, depth * std::sin(w));
    const Vec3 n = Vec3(-depth * std::cos(w) * 6.0 * kPi / width, 0.0, 1.0).normalized();
    return GridVertex{p, n, Vec2(u, v * 2.0)};
  });
  return m;
}

// The atrium as every variant draws it: meshes, textures, the draws under both programs.
struct ValidationScene {
  Json meshes, textures;
  Json forward_draws, gbuffer_draws;  // the same objects with the textured and the gbuffer program
  Json light_params;                  // deferred_light's parameters (inverse view-projection, lights)
  size_t triangles = 0;               // processed per frame (every draw)
};

// The atrium's four textures as PNG files next to the traces.
void add_atrium_textures(ValidationScene& sc, const fs::path& dir) {
  write_png(dir / "floor_tiles.png", 128, 128, floor_tile_texels());
  write_png(dir / "bricks.png", 128, 128, brick_texels());
  write_png(dir / "wood.png", 128, 128, wood_texels());
  write_png(dir / "fabric.png", 128, 128, fabric_texels());
  sc.textures = Json::array();
  for (const char* t : {"floor_tiles", "bricks", "wood", "fabric"})
    sc.textures.push_back({{"name", t}, {"file", std::string(t) + ".png"}, {"format", "RGBA8"}});
}

// The atrium's meshes in atrium.bin, lit per vertex; returns each mesh's triangle count.
std::map<std::string, size_t> add_atrium_meshes(ValidationScene& sc, const fs::path& dir) {
  Sidecar bin{"atrium.bin", {}};
  sc.meshes = Json::array();
  std::map<std::string, size_t> mesh_triangles;
  auto add_mesh = [&](const std::string& name, MeshData m) {
    if (m.colors.empty()) bake_lambert(m, Mat4::Identity());
    mesh_triangles[name] = m.indices.size() / 3;
    sc.meshes.push_back(sidecar_mesh(bin, name, m, true, true));
  };
  // The floor's baked light includes the columns' soft shadows.
  MeshData floor = make_floor(-6.0, 6.0, -32.0, 4.0, 24, 72, 0.5);
  std::vector<ShadowCaster> casters;
  for (int k = 0; k < 9; ++k)
    for (double x : {-3.3, 3.3}) casters.push_back({Vec3(x, 1.2, 1.0 - 3.6 * k), 0.35});
  for (const Vec3& p : floor.positions) {
    const double l = floor_light(p, casters);
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  add_mesh("floor", floor);
  MeshData column = make_cylinder(0.32, 1.0, 48, 24);
  scale_uvs(column, 2.0, 3.0);
  add_mesh("column", column);
  add_mesh("arch", make_arch(3.6 - 0.64, 0.22, 32, 12));
  add_mesh("wall", make_box(Vec3(1.0, 1.0, 1.0), 24));
  add_mesh("beam", make_box(Vec3(1.0, 1.0, 1.0), 4));
  add_mesh("banner", make_banner(1.6, 4.0, 24, 40));
  MeshData vase = make_sphere(0.45, 48, 32);
  scale_uvs(vase, 3.0, 2.0);
  add_mesh("vase", vase);
  write_file(dir / "atrium.bin", bin.bytes.data(), bin.bytes.size());
  return mesh_triangles;
}

struct AtriumObject {
  std::string name, mesh, texture;
  Mat4 model;
  std::vector<double> tint;
  bool closed;
};

// Two storeys of columns and arches on each side, galleries, walls, banners and vases, the back
// wall and the floor: one draw each.
std::vector<AtriumObject> atrium_objects() {
  std::vector<AtriumObject> objects;
  const double ground_z0 = 1.0, bay = 3.6;
  for (int side = 0; side < 2; ++side) {
    const double x = side ? 3.3 : -3.3;
    const std::string s = side ? "_r" : "_l";
    for (int k = 0; k < 9; ++k) {
      const double z = ground_z0 - bay * k;
      objects.push_back({"column" + s + std::to_string(k), "column", "bricks", translate(x, 0.0, z) * scale(1, 4.0, 1), {0.95, 0.9, 0.82, 1}, true});
      objects.push_back({"upper_column" + s + std::to_string(k), "column", "bricks", translate(x, 4.6, z) * scale(0.75, 3.2, 0.75), {0.95, 0.9, 0.82, 1}, true});
      if (k < 8) {
        const Mat4 turn = rotate(90.0, Vec3::UnitY());
        objects.push_back({"arch" + s + std::to_string(k), "arch", "bricks", translate(x, 2.9, z - bay / 2) * turn, {0.9, 0.84, 0.76, 1}, true});
        objects.push_back({"upper_arch" + s + std::to_string(k), "arch", "bricks", translate(x, 6.9, z - bay / 2) * turn * scale(1, 0.8, 1), {0.9, 0.84, 0.76, 1}, true});
      }
    }
    objects.push_back({"gallery" + s, "beam", "wood", translate(side ? 4.8 : -4.8, 4.3, -14.0) * scale(3.0, 0.5, 36.0), {0.8, 0.7, 0.6, 1}, true});
    objects.push_back({"lintel" + s, "beam", "bricks", translate(x, 4.45, -14.0) * scale(0.8, 0.3, 36.0), {0.9, 0.85, 0.78, 1}, true});
    objects.push_back({"cornice" + s, "beam", "bricks", translate(x, 8.2, -14.0) * scale(0.8, 0.5, 36.0), {0.9, 0.85, 0.78, 1}, true});
    objects.push_back({"wall" + s, "wall", "bricks", translate(side ? 6.3 : -6.3, 6.0, -14.0) * scale(0.6, 12.0, 36.0), {1, 1, 1, 1}, true});
    const std::vector<std::vector<double>> banner_colors = {{0.75, 0.12, 0.1, 1}, {0.15, 0.3, 0.7, 1}, {0.2, 0.55, 0.25, 1}};
    for (int b = 0; b < 3; ++b)
      objects.push_back({"banner" + s + std::to_string(b), "banner", "fabric", translate(side ? 2.6 : -2.6, 7.8, -2.6 - 8.0 * b) * rotate(side ? -90.0 : 90.0, Vec3::UnitY()),
                         banner_colors[size_t((b + side) % 3)], false});
    for (int v = 0; v < 2; ++v)
      objects.push_back({"vase" + s + std::to_string(v), "vase", "wood", translate(side ? 1.7 : -1.7, 0.45, -7.0 - 10.0 * v), {0.85, 0.6, 0.4, 1}, true});
  }
  objects.push_back({"back_wall", "wall", "bricks", translate(0.0, 6.0, -32.3) * scale(13.2, 12.0, 0.6), {1, 1, 1, 1}, true});
  objects.push_back({"floor", "floor", "floor_tiles", Mat4::Identity(), {1, 1, 1, 1}, false});
  return objects;
}

// Each object drawn with the textured program (forward samples) and the gbuffer program (deferred).
void add_atrium_draws(ValidationScene& sc, const std::map<std::string, size_t>& mesh_triangles, const Mat4& view,
                      const Mat4& proj) {
  auto binding = [](const std::string& texture) {
    return Json{{"texture", {{"texture", texture}, {"filter", "bilinear"}, {"address", "repeat"}}}};
  };
  sc.forward_draws = Json::array();
  sc.gbuffer_draws = Json::array();
  for (const AtriumObject& o : atrium_objects()) {
    Json state = {{"cull", o.closed ? "back" : "none"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    Json transform = {{"model", mat_json(o.model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}};
    sc.forward_draws.push_back({{"name", o.name}, {"mesh", o.mesh}, {"transform", transform}, {"state", state},
                                {"program", {{"name", "textured"}, {"params", {{"tint", nums(o.tint)}}}, {"bindings", binding(o.texture)}}},
                                {"cost", cost(6, 1, 6, 16)}});
    sc.gbuffer_draws.push_back({{"name", o.name}, {"mesh", o.mesh}, {"transform", transform}, {"state", state},
                                {"program", {{"name", "gbuffer"}, {"params", {{"tint", nums(o.tint)}}}, {"bindings", binding(o.texture)}}},
                                {"cost", cost(6, 1, 9, 16)}});
    sc.triangles += mesh_triangles.at(o.mesh);
  }
}

ValidationScene validation_scene(const fs::path& dir, int width = kValWidth, int height = kValHeight) {
  ValidationScene sc;
  add_atrium_textures(sc, dir);
  const Mat4 view = look_at(Vec3(0.0, 1.8, 3.0), Vec3(0.0, 3.4, -20.0), Vec3::UnitY());
  const Mat4 proj = perspective_vulkan(60.0, double(width) / height, 0.1, 80.0);
  const std::map<std::string, size_t> mesh_triangles = add_atrium_meshes(sc, dir);
  add_atrium_draws(sc, mesh_triangles, view, proj);
  sc.light_params = {{"inv_view_proj", mat_json((proj * view).inverse())},
                     {"lights", nums({0.0, 3.0, -4.0, 2.4, 2.1, 1.7, 10.0,     //
                                      -2.0, 6.0, -14.0, 1.2, 1.6, 2.4, 12.0,  //
                                      2.0, 2.5, -20.0, 2.2, 1.6, 1.0, 12.0,   //
                                      0.0, 9.0, -28.0, 1.8, 1.8, 1.8, 14.0})},
                     {"ambient", nums({0.25, 0.25, 0.28, 0})}};
  sc.meshes.push_back(fullscreen_triangle_mesh("fullscreen_triangle", 0.5));
  return sc;
}

const std::vector<double> kValSky = {0.55, 0.72, 0.9, 1};
const std::vector<double> kValGbufferClear = {0, 0, 0, 1};  // Vulkan-Samples' G-buffer clear color
constexpr int kValSwapchainImages = 3;

// The swapchain image (RGBA8, three in rotation); `storage` adds STORAGE usage (the afbc sample's switch).
Json validation_swapchain(bool storage = false) {
  Json i = storage ? image("swapchain", "RGBA8", kValWidth, kValHeight, {"color_attachment", "input_attachment", "storage"})
                   : image("swapchain", "RGBA8", kValWidth, kValHeight, {"color_attachment", "input_attachment"});
  i["swapchain"] = kValSwapchainImages;
  return i;
}

Json validation_image(const std::string& name, const std::string& format, std::initializer_list<const char*> usage,
                      int samples = 1, bool transient = false) {
  return sized_image(name, format, kValWidth, kValHeight, usage, 1, samples, transient);
}

// Frame 0 records the passes; frames 1.. repeat them (a static camera, as the samples are measured).
void write_validation_trace(const fs::path& dir, const std::string& name, const ValidationScene& sc, Json images,
                            Json passes, int frames) {
  Json trace = trace_header("validation_" + name);
  trace["images"] = std::move(images);
  trace["textures"] = sc.textures;
  trace["meshes"] = sc.meshes;
  Json fr = Json::array();
  fr.push_back({{"passes", std::move(passes)}});
  for (int f = 1; f < frames; ++f) fr.push_back(Json::object());
  trace["frames"] = std::move(fr);
  write_json(dir / (name + ".json"), trace);
}

// The forward sample frame (render_passes, msaa, afbc): the scene into `attachments`, one subpass.
Json forward_scene_pass(const ValidationScene& sc, Json attachments, Json subpass) {
  subpass["draws"] = sc.forward_draws;
  return render_pass("scene", std::move(attachments), {std::move(subpass)});
}

// The deferred lighting draw: deferred_light over input attachments albedo, normal, depth.
// `alu`: lane-instructions per fragment (the cost the timing models see; models/README.md).
Json lighting_draw(const ValidationScene& sc, double alu) {
  Json d = fullscreen_draw("lighting", {{"name", "deferred_light"}, {"params", sc.light_params}}, 0);
  d["cost"] = {{"alu", num(alu)}, {"tile_reads", 3}, {"varyings", 2}, {"vertex_alu", 4}};
  return d;
}

Json image_barrier(const std::string& image_name, const std::string& old_layout, const std::string& new_layout,
                   std::initializer_list<const char*> src, std::initializer_list<const char*> dst) {
  return {{"image", image_name}, {"old_layout", old_layout}, {"new_layout", new_layout}, {"src_stages", src}, {"dst_stages", dst}};
}

Json barrier_pass(const std::string& name, Json images, std::initializer_list<const char*> src, std::initializer_list<const char*> dst) {
  return {{"name", name}, {"type", "barrier"}, {"src_stages", src}, {"dst_stages", dst}, {"images", std::move(images)}};
}

// The two-render-pass deferred frame of the layout_transitions and pipeline_barriers samples (and
// the subpasses sample's "render passes" mode): a G-buffer pass that clears and stores all four
// attachments (Vulkan-Samples `gbuffer::get_clear_store_all`: the swapchain too, though no subpass
// writes it), then a lighting pass that loads depth, albedo and normal as input attachments and
// stores only the swapchain (`get_load_all_store_swapchain`). `track_layouts`: the barriers at the
// frame's start transition from the last layout instead of UNDEFINED (layout_transitions);
// `lighting_dst`: the destination stage of the barrier between the passes (pipeline_barriers).
Json deferred_two_pass_frame(const ValidationScene& sc, bool track_layouts, const char* lighting_dst, double lighting_alu) {
  auto old = [&](const char* last) { return std::string(track_layouts ? last : "undefined"); };
  const char* ca = "color_attachment";
  const char* sro = "shader_read_only";
  const char* dsa = "depth_stencil_attachment";
  const char* dsro = "depth_stencil_read_only";
  // The pipeline_barriers sample picks the frame-start barriers' destination from the same setting
  // as the barrier between the passes (pipeline_barriers.cpp, draw()): for "frag to vert" every
  // image waits at VERTEX_SHADER, so the next frame's G-buffer geometry waits for this frame's
  // color output; otherwise color at COLOR_ATTACHMENT_OUTPUT, depth at the fragment tests.
  const bool acquire_at_vertex = std::string(lighting_dst) == "vertex_shader";
  // "bottom to top" (lighting_dst top_of_pipe): every barrier of the frame from BOTTOM_OF_PIPE to TOP_OF_PIPE.
  const bool bottom_to_top = std::string(lighting_dst) == "top_of_pipe";
  const std::initializer_list<const char*> vertex = {"vertex_shader"}, color_out = {"color_attachment_output"},
                                           tests = {"early_fragment_tests", "late_fragment_tests"},
                                           color_and_tests = {"color_attachment_output", "early_fragment_tests", "late_fragment_tests"};
  const std::initializer_list<const char*> bottom = {"bottom_of_pipe"}, top = {"top_of_pipe"};
  const auto color_src = bottom_to_top ? bottom : color_out;
  const auto color_dst = bottom_to_top ? top : acquire_at_vertex ? vertex : color_out;
  const auto depth_dst = bottom_to_top ? top : acquire_at_vertex ? vertex : tests;
  Json acquire = barrier_pass("acquire",
                              {image_barrier("swapchain", old("present"), ca, color_src, color_dst),
                               image_barrier("albedo", old(sro), ca, color_src, color_dst),
                               image_barrier("normal", old(sro), ca, color_src, color_dst),
                               image_barrier("depth", old(dsro), dsa, bottom_to_top ? bottom : top, depth_dst)},
                              bottom_to_top ? bottom : std::initializer_list<const char*>{"color_attachment_output", "top_of_pipe"},
                              bottom_to_top ? top : acquire_at_vertex ? vertex : color_and_tests);
  Json gbuffer = render_pass("gbuffer",
                             {color_attachment("swapchain", "clear", "store", ca, ca, kValGbufferClear),
                              depth_attachment("depth", "clear", "store", dsa, dsa),
                              color_attachment("albedo", "clear", "store", ca, ca, kValGbufferClear),
                              color_attachment("normal", "clear", "store", ca, ca, kValGbufferClear)},
                             {{{"color", {2, 3}}, {"depth", 1}, {"draws", sc.gbuffer_draws}}});
  const std::initializer_list<const char*> dst = {lighting_dst};
  Json to_read = barrier_pass("gbuffer_to_lighting",
                              {image_barrier("depth", dsa, dsro, bottom_to_top ? bottom : tests, dst),
                               image_barrier("albedo", ca, sro, color_src, dst),
                               image_barrier("normal", ca, sro, color_src, dst)},
                              bottom_to_top ? bottom : color_and_tests, dst);
  Json lighting = render_pass("lighting",
                              {color_attachment("swapchain", "dont_care", "store", ca, ca),
                               depth_attachment("depth", "load", "dont_care", dsro, dsro),
                               color_attachment("albedo", "load", "dont_care", sro, sro),
                               color_attachment("normal", "load", "dont_care", sro, sro)},
                              {{{"color", {0}}, {"depth", 1}, {"input", {2, 3, 1}}, {"draws", {lighting_draw(sc, lighting_alu)}}}});
  Json present = barrier_pass("present", {image_barrier("swapchain", ca, "present", {"color_attachment_output"}, {"bottom_of_pipe"})},
                              {"color_attachment_output"}, {"bottom_of_pipe"});
  return {acquire, gbuffer, to_read, lighting, present};
}

Json gbuffer_images(const char* albedo_format, const char* normal_format, bool transient) {
  return {validation_swapchain(),
          validation_image("depth", "D32F", {"depth_stencil_attachment", "input_attachment"}, 1, transient),
          validation_image("albedo", albedo_format, {"color_attachment", "input_attachment"}, 1, transient),
          validation_image("normal", normal_format, {"color_attachment", "input_attachment"}, 1, transient)};
}

// Lighting cost per fragment: 16 lane-instructions per point light plus 16 (reconstruction,
// normal decode, output): the subpasses sample adds 48 point lights (8 x 2 x 3 in its prepare());
// the Sponza scene of layout_transitions and pipeline_barriers keeps its own lights, modeled as the
// trace's 4. Both are estimates of the sample's shader, not measurements (traces/validation/README.md).
constexpr double kLightingAluSubpasses = 16.0 * 48 + 16.0, kLightingAluSponza = 16.0 * 4 + 16.0;

// render_passes: color LOAD vs CLEAR, depth STORE vs DONT_CARE (Vulkan-Samples render_passes).
void write_render_passes_traces(const fs::path& dir, const ValidationScene& sc) {
  const char* sc_usage_depth = "depth_stencil_attachment";
  for (const auto& [name, color_load, depth_store] : {std::tuple{"render_passes_clear", "clear", "dont_care"},
                                                      std::tuple{"render_passes_color_load", "load", "dont_care"},
                                                      std::tuple{"render_passes_depth_store", "clear", "store"}}) {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("swapchain", color_load, "store", "undefined", "present", kValSky),
                                    depth_attachment("depth", "clear", depth_store, "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    write_validation_trace(dir, name, sc, {validation_swapchain(), validation_image("depth", "D32F", {sc_usage_depth})}, {pass}, 2);
  }
  // The sample's vkCmdClearAttachments mode: color and depth DONT_CARE at the load, cleared by the command
  // before the first draw (its screenshot moves the CLEAR / DONT_CARE mode's bytes).
  Json pass = forward_scene_pass(sc,
                                 {color_attachment("swapchain", "dont_care", "store", "undefined", "present"),
                                  depth_attachment("depth", "dont_care", "dont_care", "undefined", "depth_stencil_attachment")},
                                 {{"color", {0}}, {"depth", 1}});
  pass["subpasses"][0]["clears"] = Json::array({Json{{"before_draw", 0}, {"color", {0}}, {"value", kValSky}},
                                                Json{{"before_draw", 0}, {"depth", true}, {"value", {{"depth", 1.0}, {"stencil", 0}}}}});
  write_validation_trace(dir, "render_passes_cmd_clear", sc, {validation_swapchain(), validation_image("depth", "D32F", {sc_usage_depth})}, {pass}, 2);
}

// subpasses: one render pass of two subpasses (merged) vs two render passes, and the merged
// frame with a larger G-buffer: RGBA32F albedo and normal, the sample's "more bits" formats since
// Vulkan-Samples commit 12b45d1e (2020-07-27), which published the Mali-G76 figures compared here
// (its first version, 2019, used RGBA16F with other screenshots).
void write_subpasses_traces(const fs::path& dir, const ValidationScene& sc) {
  // The first version's "more bits" G-buffer (RGBA16F albedo and normal, 2019, compared on a Mali-G71) and
  // the merged frame without the TRANSIENT flag (the sample's "transient attachments" switch).
  for (const auto& [name, albedo, normal, transient] : {std::tuple{"subpasses_merged", "RGBA8", "RGB10A2", true},
                                                        std::tuple{"subpasses_over_budget", "RGBA32F", "RGBA32F", true},
                                                        std::tuple{"subpasses_over_budget_rgba16f", "RGBA16F", "RGBA16F", true},
                                                        std::tuple{"subpasses_merged_not_transient", "RGBA8", "RGB10A2", false}}) {
    Json pass = render_pass("deferred",
                            {color_attachment("swapchain", "clear", "store", "undefined", "present", kValGbufferClear),
                             depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment"),
                             color_attachment("albedo", "clear", "dont_care", "undefined", "color_attachment", kValGbufferClear),
                             color_attachment("normal", "clear", "dont_care", "undefined", "color_attachment", kValGbufferClear)},
                            {{{"color", {2, 3}}, {"depth", 1}, {"draws", sc.gbuffer_draws}},
                             {{"color", {0}}, {"depth", 1}, {"input", {2, 3, 1}}, {"draws", {lighting_draw(sc, kLightingAluSubpasses)}}}});
    pass["dependencies"] = gbuffer_to_lighting_dependency();
    write_validation_trace(dir, name, sc, gbuffer_images(albedo, normal, transient), {pass}, 2);
  }
  // The sample keeps the TRANSIENT flag in this mode, but an attachment stored by one render pass
  // and loaded by the next must be backed by memory (lazily allocated memory is committed when
  // needed), so the trace declares the G-buffer non-transient.
  // The sample sets no layouts: its framework's render-target attachments start from UNDEFINED
  // (vkb::Attachment::initial_layout), so every frame's G-buffer pass begins from UNDEFINED (no
  // transaction elimination of the G-buffer stores; layout_transitions is the sample that tracks layouts).
  write_validation_trace(dir, "subpasses_render_passes", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, false, "fragment_shader", kLightingAluSubpasses), 2);
}

// msaa (Vulkan-Samples msaa): 1x; 4x resolved on write-back (pResolveAttachments, transient
// multisampled attachments); 4x stored and resolved by vkCmdResolveImage.
void write_msaa_traces(const fs::path& dir, const ValidationScene& sc) {
  const char* sc_usage_depth = "depth_stencil_attachment";
  const Json depth_transient = validation_image("depth", "D32F", {sc_usage_depth}, 1, true);
  const char* ca = "color_attachment";
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("swapchain", "clear", "store", "undefined", "present", kValSky),
                                    depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    write_validation_trace(dir, "msaa_1x", sc, {validation_swapchain(), depth_transient}, {pass}, 2);
  }
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "dont_care", "undefined", ca, kValSky),
                                    depth_attachment("depth_ms", "clear", "dont_care", "undefined", "depth_stencil_attachment"),
                                    color_attachment("swapchain", "dont_care", "store", "undefined", "present")},
                                   {{"color", {0}}, {"depth", 1}, {"resolve", {2}}});
    write_validation_trace(dir, "msaa_4x_inline", sc,
                           {validation_image("color_ms", "RGBA8", {ca}, 4, true), validation_image("depth_ms", "D32F", {sc_usage_depth}, 4, true),
                            validation_swapchain()},
                           {pass}, 2);
  }
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "store", "undefined", "transfer_src", kValSky),
                                    depth_attachment("depth_ms", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    Json resolve = {{"name", "resolve"}, {"type", "resolve"}, {"src", {{"image", "color_ms"}}}, {"dst", {{"image", "swapchain"}}}};
    write_validation_trace(dir, "msaa_4x_separate", sc,
                           {validation_image("color_ms", "RGBA8", {ca, "transfer_src"}, 4),
                            validation_image("depth_ms", "D32F", {sc_usage_depth}, 4, true), validation_swapchain()},
                           {pass, resolve}, 2);
  }
}

// The post-processing pass copies the resolved color into the swapchain. The sample's post
// effect also reads depth (the resolved image, or the multisampled one at sample 0: 4 B/px either
// way); the trace format has no sampled read of a multisampled image, so neither variant reads
// depth (the same bytes left out of both sides of the comparison; traces/validation/README.md).
Json post_processing_pass(const std::string& source = "color_resolve") {
  Json program = program_json("copy", {{"source", image_binding(source)}});
  return render_pass("postprocessing", {color_attachment("swapchain", "dont_care", "store", "undefined", "present")},
                     {single_subpass({fullscreen_draw("postprocessing", program, 1)})});
}

// msaa with the sample's post-processing pass reading color and depth: both resolved on
// write-back vs both separate (the multisampled depth stored and read by the post pass at sample 0).
void write_msaa_post_traces(const fs::path& dir, const ValidationScene& sc) {
  const char* sc_usage_depth = "depth_stencil_attachment";
  const char* ca = "color_attachment";
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "dont_care", "undefined", ca, kValSky),
                                    depth_attachment("depth_ms", "clear", "dont_care", "undefined", "depth_stencil_attachment"),
                                    color_attachment("color_resolve", "dont_care", "store", "undefined", "shader_read_only"),
                                    depth_attachment("depth_resolve", "dont_care", "store", "undefined", "shader_read_only")},
                                   {{"color", {0}}, {"depth", 1}, {"resolve", {2}}, {"depth_resolve", 3}, {"depth_resolve_mode", "sample_zero"}});
    write_validation_trace(dir, "msaa_4x_post_inline", sc,
                           {validation_image("color_ms", "RGBA8", {ca}, 4, true), validation_image("depth_ms", "D32F", {sc_usage_depth}, 4, true),
                            validation_image("color_resolve", "RGBA8", {ca, "sampled"}),
                            validation_image("depth_resolve", "D32F", {sc_usage_depth, "sampled"}), validation_swapchain()},
                           {pass, post_processing_pass()}, 2);
  }
  {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("color_ms", "clear", "store", "undefined", "transfer_src", kValSky),
                                    depth_attachment("depth_ms", "clear", "store", "undefined", "shader_read_only")},
                                   {{"color", {0}}, {"depth", 1}});
    Json resolve = {{"name", "resolve"}, {"type", "resolve"}, {"src", {{"image", "color_ms"}}}, {"dst", {{"image", "color_resolve"}}}};
    write_validation_trace(dir, "msaa_4x_post_separate", sc,
                           {validation_image("color_ms", "RGBA8", {ca, "transfer_src"}, 4),
                            validation_image("depth_ms", "D32F", {sc_usage_depth, "sampled"}, 4),
                            validation_image("color_resolve", "RGBA8", {ca, "transfer_dst", "sampled"}), validation_swapchain()},
                           {pass, resolve, post_processing_pass()}, 2);
  }
}

// afbc (Vulkan-Samples afbc): the swapchain without and with STORAGE usage (the sample's switch).
void write_afbc_traces(const fs::path& dir, const ValidationScene& sc) {
  const Json depth_transient = validation_image("depth", "D32F", {"depth_stencil_attachment"}, 1, true);
  for (const auto& [name, storage] : {std::pair{"afbc_on", false}, std::pair{"afbc_off", true}}) {
    Json pass = forward_scene_pass(sc,
                                   {color_attachment("swapchain", "clear", "store", "undefined", "present", kValSky),
                                    depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                   {{"color", {0}}, {"depth", 1}});
    write_validation_trace(dir, name, sc, {validation_swapchain(storage), depth_transient}, {pass}, 2);
  }
}

// The barrier samples, both on the two-render-pass deferred frame.
void write_barrier_traces(const fs::path& dir, const ValidationScene& sc) {
  // layout_transitions (Vulkan-Samples layout_transitions): the G-buffer barriers from UNDEFINED vs the last
  // layout; four frames, so the swapchain's three images each have a signature before the last.
  write_validation_trace(dir, "layout_transitions_undefined", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, false, "fragment_shader", kLightingAluSponza), 4);
  write_validation_trace(dir, "layout_transitions_last_layout", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "fragment_shader", kLightingAluSponza), 4);

  // pipeline_barriers (Vulkan-Samples pipeline_barriers): the barrier between the G-buffer and the lighting
  // pass with a vertex-stage vs a fragment-stage destination.
  write_validation_trace(dir, "pipeline_barriers_frag_to_vert", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "vertex_shader", kLightingAluSponza), 2);
  write_validation_trace(dir, "pipeline_barriers_frag_to_frag", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "fragment_shader", kLightingAluSponza), 2);
  write_validation_trace(dir, "pipeline_barriers_bot_to_top", sc, gbuffer_images("RGBA8", "RGB10A2", false),
                         deferred_two_pass_frame(sc, true, "top_of_pipe", kLightingAluSponza), 2);
}

// image_compression_control (Vulkan-Samples, 2024; Pixel 8): Sponza into an RGB8 color attachment at
// 2400x1080, then a post-processing pass into the swapchain. Its compression (none, AFBC, AFRC at a rate)
// is the row's device setting, so one trace serves every mode; `_color` holds the color attachment
// alone, whose footprint the sample charts.
void write_image_compression_traces(const fs::path& dir) {
  constexpr int kWidth = 2400, kHeight = 1080;
  const ValidationScene sc = validation_scene(dir, kWidth, kHeight);
  const char* ca = "color_attachment";
  Json swapchain = image("swapchain", "RGBA8", kWidth, kHeight, {ca});
  swapchain["swapchain"] = kValSwapchainImages;
  const Json color = image("color", "RGB8", kWidth, kHeight, {ca, "sampled"});
  Json scene = forward_scene_pass(sc,
                                  {color_attachment("color", "clear", "store", "undefined", "shader_read_only", kValSky),
                                   depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_attachment")},
                                  {{"color", {0}}, {"depth", 1}});
  write_validation_trace(dir, "image_compression_control", sc,
                         {color, sized_image("depth", "D32F", kWidth, kHeight, {"depth_stencil_attachment"}, 1, 1, true), swapchain},
                         {scene, post_processing_pass("color")}, 2);
  // The color attachment alone, and an RGBA8 one for the Khronos extension's worked example (RGBA8 at 4 bits a component).
  Json clear = render_pass("clear", {color_attachment("color", "clear", "store", "undefined", "shader_read_only", kValSky)},
                           {single_subpass(Json::array(), -1)});
  write_validation_trace(dir, "image_compression_control_color", sc, {color}, {clear}, 2);
  write_validation_trace(dir, "image_compression_control_rgba8", sc, {image("color", "RGBA8", kWidth, kHeight, {ca, "sampled"})},
                         {clear}, 2);
}

}  // namespace

void write_validation_traces(const fs::path& dir) {
  fs::create_directories(dir);
  const ValidationScene sc = validation_scene(dir);
  write_render_passes_traces(dir, sc);
  write_subpasses_traces(dir, sc);
  write_msaa_traces(dir, sc);
  write_msaa_post_traces(dir, sc);
  write_afbc_traces(dir, sc);
  write_barrier_traces(dir, sc);
  write_image_compression_traces(dir);
  std::cout << "validation scene: " << sc.triangles << " triangles per frame\n";
}

}  // namespace tbdr::scenes
