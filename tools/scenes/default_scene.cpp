// traces/default, the bundled default trace: a still life on a checkered table at 1920x1080, drawn
// as a mobile forward renderer records it (opaque subpass, then blended subpass, one render pass).
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "tools/scenes/common.h"
#include "tools/scenes/meshes.h"
#include "tools/scenes/scenes.h"

namespace tbdr::scenes {
namespace {

constexpr int kWidth = 1920, kHeight = 1080;
const Vec3 kEye(0.6, 3.1, 8.6), kTarget(0.0, 0.9, -0.3);
constexpr double kFovY = 40.0, kNearZ = 0.1, kFarZ = 100.0;

// Torus lying in the xz plane around the y axis.
MeshData make_torus(double major, double minor, int segments, int sides) {
  MeshData m;
  add_grid(m, segments, sides, [&](double u, double v) {
    double a = u * 2.0 * kPi, b = v * 2.0 * kPi;
    Vec3 center(major * std::cos(a), 0.0, major * std::sin(a));
    Vec3 n = std::cos(b) * Vec3(std::cos(a), 0.0, std::sin(a)) + std::sin(b) * Vec3::UnitY();
    return GridVertex{center + minor * n, n, Vec2(u, v)};
  });
  return m;
}

// Unit square in the xy plane, normal +z (used as two-sided glass).
MeshData make_pane(double width, double height) {
  MeshData m;
  add_grid(m, 1, 1, [&](double u, double v) {
    return GridVertex{Vec3((u - 0.5) * width, (0.5 - v) * height, 0.0), Vec3::UnitZ(), Vec2(u, v)};
  });
  return m;
}

// One draw of the still life: which mesh, where, how it is shaded, and its triangle count.
struct SceneObject {
  std::string name;
  std::string mesh;
  Mat4 model;
  Json program;
  Json cost;
  bool closed;
  size_t triangles;
};

// The table top's texture: `checks` x `checks` squares of a size x size RGBA8 image.
std::vector<uint8_t> checker_texels(int size, int checks) {
  std::vector<uint8_t> rgba(size_t(size * size * 4));
  int cell = size / checks;
  for (int y = 0; y < size; ++y)
    for (int x = 0; x < size; ++x) {
      bool light = ((x / cell) + (y / cell)) % 2 == 0;
      // A faint per-texel grain so bilinear filtering and texture compression see real data.
      int grain = ((x * 7 + y * 13) % 5) - 2;
      uint8_t* t = &rgba[size_t((y * size + x) * 4)];
      t[0] = uint8_t((light ? 236 : 128) + grain);
      t[1] = uint8_t((light ? 226 : 104) + grain);
      t[2] = uint8_t((light ? 204 : 84) + grain);
      t[3] = 255;
    }
  return rgba;
}

// The still life as it is built: its meshes (one sidecar), the draws of each subpass, and the
// spheres that approximate each object for the floor's baked soft shadows.
struct StillLife {
  Sidecar bin{"scene.bin", {}};
  Json meshes = Json::array();
  std::vector<SceneObject> opaque, transparent;
  std::vector<ShadowCaster> casters;
  size_t sphere_triangles = 0;
};

// The cost of a draw of a lit mesh (vertex_color program).
Json lit_cost() { return cost(4, 0, 4, 16); }

// Objects standing on the floor (y = 0). Lighting is baked with each draw's rotation applied.
size_t add_lit_mesh(StillLife& s, const std::string& name, MeshData m, const Mat4& model_for_lighting) {
  bake_lambert(m, model_for_lighting);
  s.meshes.push_back(sidecar_mesh(s.bin, name, m, false));
  return m.indices.size() / 3;
}

// The sphere mesh is shared by three opaque draws and the glass ball: their models only
// translate and scale, so the object-space lighting holds for all of them.
void add_balls(StillLife& s) {
  s.sphere_triangles = add_lit_mesh(s, "sphere", make_sphere(1.0, 48, 32), Mat4::Identity());
  struct Ball {
    const char* name;
    Vec3 center;
    double radius;
    std::vector<double> albedo;
  };
  const std::vector<Ball> balls = {
      {"red_ball", Vec3(2.3, 0.85, 0.5), 0.85, {0.86, 0.16, 0.12, 1.0}},
      {"blue_ball", Vec3(-1.9, 0.55, 1.5), 0.55, {0.16, 0.32, 0.86, 1.0}},
      {"green_ball", Vec3(0.95, 0.42, 2.3), 0.42, {0.2, 0.7, 0.3, 1.0}},
  };
  for (const Ball& b : balls)
    s.opaque.push_back({b.name, "sphere", translate(b.center.x(), b.center.y(), b.center.z()) * scale(b.radius, b.radius, b.radius),
                        vertex_color_program(b.albedo), lit_cost(), true, s.sphere_triangles});
  for (const Ball& b : balls) s.casters.push_back({b.center, b.radius});
}

// Pedestal with the torus knot sculpture standing on it.
void add_sculpture(StillLife& s) {
  const Vec3 pedestal_at(0.0, 0.0, -0.6);
  const double pedestal_height = 0.45;
  Mat4 pedestal_model = translate(pedestal_at.x(), 0.0, pedestal_at.z());
  size_t pedestal_tris = add_lit_mesh(s, "pedestal", make_cylinder(0.75, pedestal_height, 48, 1), pedestal_model);
  s.opaque.push_back({"pedestal", "pedestal", pedestal_model, vertex_color_program({0.82, 0.8, 0.76, 1.0}), lit_cost(), true,
                      pedestal_tris});

  MeshData knot = make_torus_knot(2, 3, 1.25, 0.2, 256, 12);
  double knot_min_y = 1e9;
  Mat4 knot_rotation = rotate(-20.0, Vec3::UnitY()) * rotate(8.0, Vec3::UnitX());
  for (const Vec3& p : knot.positions) knot_min_y = std::min(knot_min_y, (knot_rotation * p.homogeneous()).y());
  Mat4 knot_model = translate(pedestal_at.x(), pedestal_height - knot_min_y - 0.02, pedestal_at.z()) * knot_rotation;
  size_t knot_tris = add_lit_mesh(s, "torus_knot", knot, knot_model);
  s.opaque.push_back({"torus_knot", "torus_knot", knot_model, vertex_color_program({0.95, 0.72, 0.25, 1.0}), lit_cost(), true,
                      knot_tris});
  const Vec3 knot_center = (knot_model * Vec4(0, 0, 0, 1)).head<3>();
  s.casters.push_back({Vec3(pedestal_at.x(), 0.2, pedestal_at.z()), 0.7});
  s.casters.push_back({knot_center, 1.05});
}

// Column with a cube capital, back left.
void add_column(StillLife& s) {
  const Vec3 column_at(-3.4, 0.0, -2.8);
  const double column_height = 3.2;
  Mat4 column_model = translate(column_at.x(), 0.0, column_at.z());
  size_t column_tris = add_lit_mesh(s, "column", make_cylinder(0.42, column_height, 48, 12), column_model);
  s.opaque.push_back({"column", "column", column_model, vertex_color_program({0.9, 0.88, 0.84, 1.0}), lit_cost(), true,
                      column_tris});
  Mat4 capital_model = translate(column_at.x(), column_height + 0.2, column_at.z()) * rotate(15.0, Vec3::UnitY());
  size_t capital_tris = add_lit_mesh(s, "capital", make_box(Vec3(1.1, 0.4, 1.1), 4), capital_model);
  s.opaque.push_back({"capital", "capital", capital_model, vertex_color_program({0.9, 0.88, 0.84, 1.0}), lit_cost(), true,
                      capital_tris});
  for (double y = 0.4; y < column_height; y += 0.6) s.casters.push_back({Vec3(column_at.x(), y, column_at.z()), 0.45});
  s.casters.push_back({Vec3(column_at.x(), column_height + 0.2, column_at.z()), 0.65});
}

// Two boxes and a ring lying on the floor.
void add_boxes_and_ring(StillLife& s) {
  Mat4 crate_model = translate(-2.0, 0.6, -0.4) * rotate(32.0, Vec3::UnitY());
  size_t crate_tris = add_lit_mesh(s, "crate", make_box(Vec3(1.2, 1.2, 1.2), 4), crate_model);
  s.opaque.push_back({"crate", "crate", crate_model, vertex_color_program({0.9, 0.5, 0.15, 1.0}), lit_cost(), true, crate_tris});
  Mat4 block_model = translate(3.6, 0.4, -1.9) * rotate(-24.0, Vec3::UnitY());
  size_t block_tris = add_lit_mesh(s, "block", make_box(Vec3(1.4, 0.8, 0.8), 4), block_model);
  s.opaque.push_back({"block", "block", block_model, vertex_color_program({0.55, 0.3, 0.75, 1.0}), lit_cost(), true, block_tris});
  Mat4 ring_model = translate(1.7, 0.2, -2.6);
  size_t ring_tris = add_lit_mesh(s, "ring", make_torus(0.62, 0.2, 64, 24), ring_model);
  s.opaque.push_back({"ring", "ring", ring_model, vertex_color_program({0.25, 0.75, 0.8, 1.0}), lit_cost(), true, ring_tris});
  s.casters.push_back({(crate_model * Vec4(0, 0, 0, 1)).head<3>(), 0.72});
  s.casters.push_back({(block_model * Vec4(-0.35, 0, 0, 1)).head<3>(), 0.45});
  s.casters.push_back({(block_model * Vec4(0.35, 0, 0, 1)).head<3>(), 0.45});
  s.casters.push_back({(ring_model * Vec4(0, 0, 0, 1)).head<3>(), 0.6});
}

// The floor: a checkered table top, its lighting and the soft shadows of every object added
// before it baked per vertex.
void add_floor(StillLife& s) {
  MeshData floor = make_floor(-16.0, 16.0, -16.0, 10.0, 80, 65, 1.0);
  for (const Vec3& p : floor.positions) {
    double l = floor_light(p, s.casters);
    floor.colors.emplace_back(l, l, l, 1.0);
  }
  s.meshes.push_back(sidecar_mesh(s.bin, "floor", floor, true));
  Json floor_program = {{"name", "textured"},
                        {"params", {{"tint", nums({1, 1, 1, 1})}}},
                        {"bindings", {{"texture", {{"texture", "checker"}, {"filter", "bilinear"}, {"address", "repeat"}}}}}};
  // Drawn last among the opaque objects: the usual front-to-back-ish order for a big occludee.
  s.opaque.push_back({"floor", "floor", Mat4::Identity(), floor_program, cost(6, 1, 6, 20), false, floor.indices.size() / 3});
}

// Transparent: two tinted glass panes and a glass ball, sorted back to front.
void add_glass(StillLife& s, const Mat4& view) {
  MeshData pane = make_pane(1.6, 1.9);
  s.meshes.push_back(sidecar_mesh(s.bin, "pane", pane, false));
  s.transparent.push_back({"blue_glass", "pane", translate(1.9, 0.95, 2.9) * rotate(-28.0, Vec3::UnitY()),
                           flat_program({0.35, 0.6, 1.0, 0.35}), cost(2, 0, 0, 12), false, 2});
  s.transparent.push_back({"amber_glass", "pane", translate(-2.7, 0.95, 0.2) * rotate(40.0, Vec3::UnitY()),
                           flat_program({1.0, 0.72, 0.25, 0.4}), cost(2, 0, 0, 12), false, 2});
  s.transparent.push_back({"glass_ball", "sphere", translate(-0.55, 0.6, 3.1) * scale(0.6, 0.6, 0.6),
                           vertex_color_program({0.85, 0.95, 1.0, 0.45}), lit_cost(), true, s.sphere_triangles});
  auto view_depth = [&](const SceneObject& o) { return (view * o.model * Vec4(0, 0, 0, 1)).z(); };
  std::stable_sort(s.transparent.begin(), s.transparent.end(),
                   [&](const SceneObject& a, const SceneObject& b) { return view_depth(a) < view_depth(b); });
}

Json still_life_draw(const SceneObject& o, bool blended, const Mat4& view, const Mat4& proj) {
  Json state = {{"cull", o.closed ? "back" : "none"}, {"front_face", "counter_clockwise"}, {"depth_test", true},
                {"depth_write", !blended}, {"depth_compare", "less"}};
  if (blended) state["blend"] = Json::array({alpha_blend()});
  Json transform = {{"model", mat_json(o.model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}};
  return Json{{"name", o.name}, {"mesh", o.mesh}, {"transform", transform}, {"state", state}, {"program", o.program},
              {"cost", o.cost}};
}

// One render pass, as a mobile forward renderer records it: an opaque subpass, then a blended
// subpass on the same color and depth. They share data, so they merge into one hardware pass
// and depth never leaves the tile buffer (transient, DONT_CARE): the frame a TBDR is built for.
Json forward_pass(const StillLife& s, const Mat4& view, const Mat4& proj) {
  Json opaque_draws = Json::array(), transparent_draws = Json::array();
  for (const SceneObject& o : s.opaque) opaque_draws.push_back(still_life_draw(o, false, view, proj));
  for (const SceneObject& o : s.transparent) transparent_draws.push_back(still_life_draw(o, true, view, proj));

  const Json sky = nums({0.55, 0.72, 0.9, 1.0});
  return {
      {"name", "forward"},
      {"type", "render"},
      {"attachments",
       {{{"image", "color"}, {"load", "clear"}, {"store", "store"}, {"clear", sky}, {"old_layout", "undefined"},
         {"new_layout", "transfer_src"}},
        {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"}, {"clear", {{"depth", 1.0}, {"stencil", 0}}},
         {"old_layout", "undefined"}, {"new_layout", "depth_stencil_attachment"}}}},
      {"subpasses",
       {{{"color", {0}}, {"depth", 1}, {"draws", opaque_draws}}, {{"color", {0}}, {"depth", 1}, {"draws", transparent_draws}}}},
      {"dependencies",
       {{{"src_subpass", 0}, {"dst_subpass", 1}, {"src_stages", {"color_attachment_output", "late_fragment_tests"}},
         {"dst_stages", {"color_attachment_output", "early_fragment_tests"}},
         {"src_access", {"color_attachment_write", "depth_stencil_attachment_write"}},
         {"dst_access", {"color_attachment_read", "color_attachment_write", "depth_stencil_attachment_read"}},
         {"by_region", true}}}}};
}

// The camera and each draw's triangle count, so a change to the scene shows in the run's log.
void print_triangle_counts(const StillLife& s) {
  size_t total = 0;
  std::cout << "default: camera eye (" << kEye.transpose() << ") target (" << kTarget.transpose() << ") fov_y " << kFovY
            << " near " << kNearZ << " far " << kFarZ << "\n";
  for (auto* list : {&s.opaque, &s.transparent}) {
    size_t pass_total = 0;
    for (const SceneObject& o : *list) {
      std::cout << "  " << (list == &s.opaque ? "opaque" : "transparent") << " " << o.name << ": " << o.triangles << " triangles\n";
      pass_total += o.triangles;
    }
    std::cout << "  pass total: " << pass_total << "\n";
    total += pass_total;
  }
  std::cout << "  frame total: " << total << " triangles, scene.bin " << s.bin.bytes.size() << " bytes\n";
}

}  // namespace

void write_default_trace(const fs::path& dir) {
  fs::create_directories(dir);
  Mat4 view = look_at(kEye, kTarget, Vec3::UnitY());
  Mat4 proj = perspective_vulkan(kFovY, double(kWidth) / kHeight, kNearZ, kFarZ);
  StillLife s;
  add_balls(s);
  add_sculpture(s);
  add_column(s);
  add_boxes_and_ring(s);
  add_floor(s);
  add_glass(s, view);

  Json trace = trace_header("still_life");
  trace["images"] = {{{"name", "color"}, {"format", "RGBA8"}, {"width", kWidth}, {"height", kHeight},
                      {"usage", Json::array({"color_attachment", "transfer_src"})}},
                     {{"name", "depth"}, {"format", "D32F"}, {"width", kWidth}, {"height", kHeight},
                      {"usage", Json::array({"depth_stencil_attachment"})}, {"transient", true}}};
  trace["textures"] = {{{"name", "checker"}, {"file", "checker.png"}, {"format", "RGBA8"}}};
  trace["meshes"] = s.meshes;
  trace["frames"] = {{{"passes", {forward_pass(s, view, proj)}}}};

  write_png(dir / "checker.png", 64, 64, checker_texels(64, 2));
  write_file(dir / "scene.bin", s.bin.bytes.data(), s.bin.bytes.size());
  write_json(dir / "scene.json", trace);
  print_triangle_counts(s);
}

}  // namespace tbdr::scenes
