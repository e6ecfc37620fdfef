// traces/seed000, traces/seed001 and traces/local_read: a deferred G-buffer -> lighting frame, recorded
// as two render passes (the G-buffer stored and sampled), as one render pass of two subpasses (kept on
// chip), or as one dynamic-rendering scope whose lighting draw reads the G-buffer locally.
#include <Eigen/LU>
#include <string>
#include <vector>

#include "tools/scenes/common.h"
#include "tools/scenes/meshes.h"
#include "tools/scenes/scenes.h"

namespace tbdr::scenes {
namespace {

// The bandwidth ledger rows these traces reproduce (the READMEs of traces/seed000 and
// traces/seed001) depend on attachments, formats, load/store ops and sampled footprints, not on
// content: each pass draws a small scene or one full-screen triangle. tests/seed_tables_test.cpp
// asserts the figures.

// Inline mesh with object-space normals (read by the gbuffer program), 16-bit indices.
Json normal_mesh(const std::string& name, const MeshData& m) {
  std::vector<double> positions, normals;
  for (const Vec3& p : m.positions) positions.insert(positions.end(), {p.x(), p.y(), p.z()});
  for (const Vec3& n : m.normals) normals.insert(normals.end(), {n.x(), n.y(), n.z()});
  Json indices = Json::array();
  for (uint32_t i : m.indices) indices.push_back(i);
  return {{"name", name}, {"positions", nums(positions)}, {"normals", nums(normals)}, {"indices", indices}, {"index_bits", 16}};
}

struct DeferredScene {
  Json meshes, gbuffer_draws, light_params;
};

// A floor, a box and a ball seen from above and in front, lit by four point lights.
DeferredScene deferred_scene(int width, int height) {
  const Mat4 view = look_at(Vec3(0.0, 3.4, 6.0), Vec3(0.0, 0.5, 0.0), Vec3::UnitY());
  const Mat4 proj = perspective_vulkan(width < height ? 70.0 : 45.0, double(width) / height, 0.1, 50.0);
  DeferredScene sc;
  sc.meshes = {normal_mesh("floor", make_floor(-4, 4, -4, 4, 1, 1, 0)), normal_mesh("box", make_box(Vec3(1.2, 1.2, 1.2), 1)),
               normal_mesh("ball", make_sphere(0.7, 16, 12)), fullscreen_triangle_mesh("fullscreen_triangle", 0.5)};
  struct Object {
    const char* name;
    const char* mesh;
    Mat4 model;
    std::vector<double> albedo;
  };
  const std::vector<Object> objects = {{"box", "box", translate(-0.9, 0.6, 0.2) * rotate(30, Vec3::UnitY()), {0.85, 0.55, 0.25, 1}},
                                       {"ball", "ball", translate(1.0, 0.7, 0.6), {0.3, 0.55, 0.9, 1}},
                                       {"floor", "floor", Mat4::Identity(), {0.7, 0.7, 0.68, 1}}};
  sc.gbuffer_draws = Json::array();
  for (const Object& o : objects) {
    Json state = {{"cull", "back"}, {"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
    if (std::string(o.name) == "floor") state["cull"] = "none";
    Json d = {{"name", o.name},
              {"mesh", o.mesh},
              {"transform", {{"model", mat_json(o.model)}, {"view", mat_json(view)}, {"proj", mat_json(proj)}}},
              {"state", state},
              {"program", {{"name", "gbuffer"}, {"params", {{"tint", nums(o.albedo)}}}}},
              {"cost", cost(4, 0, 3, 16)}};
    sc.gbuffer_draws.push_back(d);
  }
  sc.light_params = {{"inv_view_proj", mat_json((proj * view).inverse())},
                     {"lights", nums({2.0, 2.5, 2.0, 2.6, 2.3, 2.0, 8.0,    //
                                      -2.5, 1.5, 1.0, 0.8, 1.3, 2.6, 6.0,   //
                                      0.0, 3.0, -2.5, 2.0, 2.0, 2.0, 7.0,   //
                                      1.8, 0.4, 2.4, 2.6, 1.0, 0.5, 3.5})},
                     {"ambient", nums({0.15, 0.15, 0.18, 0})}};
  return sc;
}

const std::vector<double> kGbufferClear = {0.4, 0.5, 0.65, 1};

// Two render passes: the G-buffer is stored, then sampled by the lighting pass (texel fetch at
// the same pixel) which writes the HDR image.
Json deferred_split_trace(const std::string& name, int width, int height, const char* albedo_format, const char* normal_format) {
  const DeferredScene sc = deferred_scene(width, height);
  const char* sro = "shader_read_only";
  Json gbuffer = render_pass("gbuffer",
                             {color_attachment("albedo", "clear", "store", "undefined", sro, kGbufferClear),
                              color_attachment("normal", "clear", "store", "undefined", sro, {0.5, 0.5, 1, 1}),
                              depth_attachment("depth", "clear", "store", "undefined", "depth_stencil_read_only")},
                             {{{"color", {0, 1}}, {"depth", 2}, {"draws", sc.gbuffer_draws}}});
  Json program = {{"name", "deferred_light_sampled"},
                  {"params", sc.light_params},
                  {"bindings", {{"albedo", {{"image", "albedo"}}}, {"normal", {{"image", "normal"}}}, {"depth", {{"image", "depth"}}}}}};
  Json lighting = render_pass("lighting", {color_attachment("hdr", "dont_care", "store", "undefined", "color_attachment")},
                              {single_subpass({fullscreen_draw("deferred_light", program, 3)})});
  Json trace = trace_header(name);
  trace["images"] = {image("albedo", albedo_format, width, height, {"color_attachment", "sampled"}),
                     image("normal", normal_format, width, height, {"color_attachment", "sampled"}),
                     image("depth", "D32F", width, height, {"depth_stencil_attachment", "sampled"}),
                     image("hdr", "RGBA16F", width, height, {"color_attachment", "sampled"})};
  trace["meshes"] = sc.meshes;
  trace["frames"] = {{{"passes", {gbuffer, lighting}}}};
  return trace;
}

// One render pass, two subpasses: gbuffer, then deferred_light reading the three G-buffer
// attachments as input attachments; they are transient and not stored, only the HDR is.
Json deferred_merged_trace(const std::string& name, int width, int height, int samples) {
  const DeferredScene sc = deferred_scene(width, height);
  const char* ro = "shader_read_only";
  Json attachments = {color_attachment("albedo", "clear", "dont_care", "undefined", ro, kGbufferClear),
                      color_attachment("normal", "clear", "dont_care", "undefined", ro, {0.5, 0.5, 1, 1}),
                      depth_attachment("depth", "clear", "dont_care", "undefined", "depth_stencil_read_only"),
                      color_attachment("hdr", "dont_care", "store", "undefined", "color_attachment")};
  Json geometry = {{"color", {0, 1}}, {"depth", 2}, {"draws", sc.gbuffer_draws}};
  // The lighting subpass keeps the same depth attachment bound (read-only: no depth test or
  // write), as the TBDR-and-subpass article's deferred example lays it out (traces/seed000/README.md);
  // it reads depth as input attachment 2.
  Json lighting = {{"color", {3}},
                   {"depth", 2},
                   {"input", {0, 1, 2}},
                   {"draws", {fullscreen_draw("deferred_light", {{"name", "deferred_light"}, {"params", sc.light_params}}, 0)}}};
  lighting["draws"][0]["cost"] = {{"alu", 24}, {"tile_reads", 3}, {"varyings", 0}, {"vertex_alu", 4}};
  Json pass = render_pass("deferred", attachments, {geometry, lighting});
  pass["dependencies"] = gbuffer_to_lighting_dependency();
  Json trace = trace_header(name);
  trace["images"] = {sized_image("albedo", "RGBA8", width, height, {"color_attachment", "input_attachment"}, 1, samples, true),
                     sized_image("normal", "RGB10A2", width, height, {"color_attachment", "input_attachment"}, 1, samples, true),
                     sized_image("depth", "D32F", width, height, {"depth_stencil_attachment", "input_attachment"}, 1, samples, true),
                     sized_image("hdr", "RGBA16F", width, height, {"color_attachment", "sampled"}, 1, samples)};
  trace["meshes"] = sc.meshes;
  trace["frames"] = {{{"passes", {pass}}}};
  return trace;
}

// The same frame as deferred_merged_trace, recorded as one dynamic-rendering scope: the G-buffer
// draws write color attachments 0 and 1 (locations 0, 1), then after a local-read barrier the
// lighting draw writes the HDR image (location 0) and reads albedo, normal and depth at its pixel
// (VK_KHR_dynamic_rendering_local_read input attachments, or VK_EXT_shader_tile_image reads).
Json deferred_local_read_trace(const std::string& name, int width, int height, const char* reads) {
  Json trace = deferred_merged_trace(name, width, height, 1);
  Json& pass = trace["frames"][0]["passes"][0];
  Json draws = Json::array();
  for (Json draw : pass["subpasses"][0]["draws"]) {
    draw["color_locations"] = Json::array({0, 1, nullptr});
    draws.push_back(draw);
  }
  Json light = pass["subpasses"][1]["draws"][0];
  light["color_locations"] = Json::array({nullptr, nullptr, 0});
  light["local_reads"] = Json::array({0, 1, 2});
  light["barrier_before"] = true;
  draws.push_back(light);
  pass.erase("subpasses");
  pass.erase("dependencies");
  pass["rendering"] = {{"reads", reads}, {"color", Json::array({0, 1, 3})}, {"depth", 2}, {"draws", draws}};
  return trace;
}

}  // namespace

void write_deferred_traces(const fs::path& dir) {
  fs::create_directories(dir);
  write_json(dir / "deferred_split.json", deferred_split_trace("seed000_deferred_split", 1080, 2340, "RGBA8", "RGB10A2"));
  write_json(dir / "deferred_merged.json", deferred_merged_trace("seed000_deferred_merged", 1080, 2340, 1));
  write_json(dir / "deferred_merged_msaa4x.json", deferred_merged_trace("seed000_deferred_merged_msaa4x", 1080, 2340, 4));
}

// 128 bit/px crossing the pass boundary: albedo RGBA8 (32) + normal RGBA16F (64) + depth D32F (32).
void write_gbuffer_roundtrip_trace(const fs::path& dir) {
  fs::create_directories(dir);
  write_json(dir / "gbuffer_roundtrip.json", deferred_split_trace("seed001_gbuffer_roundtrip", 1920, 1080, "RGBA8", "RGBA16F"));
}

// The lighting as subpasses and as local reads in one dynamic-rendering scope, at a size small enough
// for the tests that compare them byte for byte and image for image.
void write_local_read_traces(const fs::path& dir) {
  fs::create_directories(dir);
  write_json(dir / "deferred_subpasses.json", deferred_merged_trace("local_read_deferred_subpasses", 240, 320, 1));
  write_json(dir / "deferred_local_read.json",
             deferred_local_read_trace("local_read_deferred_local_read", 240, 320, "input_attachment"));
  write_json(dir / "deferred_tile_image.json",
             deferred_local_read_trace("local_read_deferred_tile_image", 240, 320, "tile_image"));
}

}  // namespace tbdr::scenes
