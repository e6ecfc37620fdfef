// traces/seed002: a mobile forward pipeline at 1080x2340 (Pre-Z, cascaded shadow maps, GTAO,
// opaque, transmission, transparency, bloom, histogram, tonemap, FXAA) and its optimized variants.
#include <string>
#include <vector>

#include "tools/scenes/common.h"
#include "tools/scenes/scenes.h"

namespace tbdr::scenes {
namespace {

// The bandwidth ledger rows these traces reproduce (traces/seed002/README.md) depend on
// attachments, formats, load/store ops and sampled footprints, not on content: each pass draws a
// few simple triangles or one full-screen triangle. tests/seed_tables_test.cpp asserts the figures.

constexpr int kWidth = 1080, kHeight = 2340;
// Bloom levels: each halves the previous one rounded up (Unreal's DivideAndRoundUp): 540x1170,
// 270x585, 135x293, 68x147. traces/seed002/README.md says why not rounded down.
constexpr int kBloomWidth[5] = {kWidth, 540, 270, 135, 68}, kBloomHeight[5] = {kHeight, 1170, 585, 293, 147};

// Which of the bandwidth-bill article's optimizations #1-#6 (traces/seed002/README.md) a variant
// applies; each includes the earlier.
struct ForwardVariant {
  std::string file, name;
  bool direct_blend_shared_scope = false;  // #1 + #2: alpha straight into the HDR, alpha + crowd one scope
  bool fxaa_to_final = false;              // #3: FXAA writes the final image, no FinalComposition
  bool histogram_quarter = false;          // #4: the histogram reads one texel per 2x2 block
  bool refraction_snapshot = false;        // #5: half-size snapshot, transmission blends into the HDR
  int csm_size = 2048;                     // #6: 1024
};

// Opaque scene: ground and three blocks; the same meshes are the shadow casters and the
// Pre-Z geometry.
struct Block {
  const char* name;
  double x0, y0, x1, y1, z;
  std::vector<Vec4> colors;
};
const std::vector<Block> kOpaqueBlocks = {
    {"ground", 0, 1650, 1080, 2340, 0.35, {Vec4(0.3, 0.45, 0.2, 1), Vec4(0.2, 0.3, 0.12, 1), Vec4(0.22, 0.32, 0.14, 1), Vec4(0.32, 0.48, 0.22, 1)}},
    {"block_left", 60, 700, 460, 1700, 0.6, {Vec4(0.7, 0.66, 0.6, 1), Vec4(0.45, 0.42, 0.4, 1), Vec4(0.5, 0.46, 0.42, 1), Vec4(0.75, 0.7, 0.64, 1)}},
    {"block_right", 560, 420, 1000, 1750, 0.7, {Vec4(0.55, 0.6, 0.7, 1), Vec4(0.35, 0.38, 0.45, 1), Vec4(0.38, 0.42, 0.5, 1), Vec4(0.6, 0.65, 0.75, 1)}},
    {"bridge", 300, 1200, 800, 1330, 0.5, {Vec4(0.8, 0.5, 0.3, 1), Vec4(0.6, 0.35, 0.2, 1), Vec4(0.6, 0.35, 0.2, 1), Vec4(0.8, 0.5, 0.3, 1)}},
};

// The blocks, the transparent glass and the crowd impostors, and the full-screen triangles of the
// sky and of every post-processing pass.
Json forward_meshes() {
  PixelSpace s{kWidth, kHeight};
  Json meshes = {fullscreen_triangle_mesh("fullscreen_triangle", 0.5), fullscreen_triangle_mesh("sky_triangle", 0.9999)};
  for (const Block& b : kOpaqueBlocks) meshes.push_back(rect_mesh(b.name, s, b.x0, b.y0, b.x1, b.y1, b.z, b.colors));
  meshes.push_back(rect_mesh("glass_a", s, 150, 900, 700, 1400, 0.3));
  meshes.push_back(rect_mesh("glass_b", s, 450, 1250, 950, 1900, 0.3));
  for (int i = 0; i < 3; ++i)
    meshes.push_back(rect_mesh("crowd_" + std::to_string(i), s, 120 + 300.0 * i, 1950, 260 + 300.0 * i, 2250, 0.3));
  return meshes;
}

// The draws of the scene's passes: depth only (Pre-Z and shadow casters), opaque + sky with an
// equal depth test, straight-alpha glass, and premultiplied crowd impostors.
struct ForwardDraws {
  Json depth_only, opaque, alpha, crowd;
};

ForwardDraws forward_draws() {
  const Json write_depth = {{"depth_test", true}, {"depth_write", true}, {"depth_compare", "less"}};
  const Json equal_depth = {{"depth_test", true}, {"depth_write", false}, {"depth_compare", "less_or_equal"}};
  const Json test_depth = {{"depth_test", true}, {"depth_write", false}, {"depth_compare", "less"}};
  Json alpha_state = test_depth;  // straight (not premultiplied) RGB: SrcAlpha / OneMinusSrcAlpha
  alpha_state["blend"] = Json::array({alpha_blend()});
  Json crowd_state = test_depth;  // the crowd outputs premultiplied RGB: One / OneMinusSrcAlpha
  crowd_state["blend"] = Json::array({blend_state("one", "one_minus_src_alpha", "add")});

  ForwardDraws d;
  d.depth_only = Json::array();
  d.opaque = Json::array();
  for (const Block& b : kOpaqueBlocks) {
    d.depth_only.push_back(simple_draw(b.name, b.name, flat_program({1, 1, 1, 1}), write_depth));
    d.opaque.push_back(simple_draw(b.name, b.name, vertex_color_program({1, 1, 1, 1}), equal_depth));
  }
  d.opaque.push_back(fullscreen_draw("sky", flat_program({0.45, 0.65, 1.2, 1}), 0, equal_depth, "sky_triangle"));
  d.alpha = {simple_draw("glass_a", "glass_a", flat_program({0.3, 0.7, 1.0, 0.4}), alpha_state),
             simple_draw("glass_b", "glass_b", flat_program({1.0, 0.6, 0.2, 0.35}), alpha_state)};
  d.crowd = Json::array();
  for (int i = 0; i < 3; ++i)
    d.crowd.push_back(simple_draw("crowd_" + std::to_string(i), "crowd_" + std::to_string(i),
                                  flat_program({0.36 - 0.08 * i, 0.24, 0.12 + 0.08 * i, 0.6}), crowd_state));
  return d;
}

// The frame as it is recorded: its images and passes in order, and the HDR image that the
// post-processing chain reads (replaced by each pass that composites into a new one).
struct ForwardFrame {
  Json images = Json::array();
  Json passes = Json::array();
  std::string scene = "hdr";
};

// A render pass that writes every pixel of `target` with one full-screen draw of `program`
// (so the target is not loaded: dont_care) and stores it for a later sampled read.
Json fullscreen_pass(const std::string& name, const std::string& target, const Json& program, double texture_samples) {
  return render_pass(name, {color_attachment(target, "dont_care", "store", "undefined", "shader_read_only")},
                     {single_subpass({fullscreen_draw(name, program, texture_samples)})});
}

// Pre-Z, the shadow cascades, ambient occlusion, then the opaque scene and the sky.
void add_opaque_passes(ForwardFrame& f, const ForwardVariant& v, const ForwardDraws& d) {
  const char* ca = "color_attachment";
  const char* sro = "shader_read_only";
  // (1) Pre-Z: depth only.
  f.images.push_back(image("depth", "D32F", kWidth, kHeight, {"depth_stencil_attachment", "sampled"}));
  f.passes.push_back(render_pass("pre_z", {depth_attachment("depth", "clear", "store", "undefined", "depth_stencil_attachment")},
                                 {{{"color", Json::array()}, {"depth", 0}, {"draws", d.depth_only}}}));
  // (1) CSM: three cascades, one render pass per layer of a D16 array.
  f.images.push_back(sized_image("csm", "D16", v.csm_size, v.csm_size, {"depth_stencil_attachment", "sampled"}, 3));
  for (int c = 0; c < 3; ++c) {
    f.passes.push_back(render_pass("csm_cascade" + std::to_string(c),
                                   {depth_attachment("csm", "clear", "store", "undefined", "depth_stencil_read_only", c)},
                                   {{{"color", Json::array()}, {"depth", 0}, {"draws", d.depth_only}}}));
  }
  // (1) GTAO at half width and height, its stand-in a 2x2 downsample of the depth; then the denoise.
  f.images.push_back(image("ao", "RG16F", kWidth / 2, kHeight / 2, {ca, "sampled"}));
  f.images.push_back(image("ao_denoised", "RG16F", kWidth / 2, kHeight / 2, {ca, "sampled"}));
  f.passes.push_back(fullscreen_pass("gtao", "ao", program_json("downsample_2x2", {{"source", image_binding("depth")}}), 4));
  f.passes.push_back(fullscreen_pass("ao_denoise", "ao_denoised", program_json("copy", {{"source", image_binding("ao")}}), 1));
  // (2) Opaque + sky: depth loaded from Pre-Z (equal test), color cleared; both stored.
  f.images.push_back(image("hdr", "RGBA16F", kWidth, kHeight, {ca, "sampled"}));
  f.passes.push_back(render_pass("opaque_sky",
                                 {color_attachment("hdr", "clear", "store", "undefined", sro, {0, 0, 0, 1}),
                                  depth_attachment("depth", "load", "store", "depth_stencil_attachment", "depth_stencil_read_only")},
                                 {single_subpass(d.opaque, 1)}));
}

// Transmission: into its own layer mixed over the HDR, or (#5) sampling a half-size snapshot.
void add_transmission_passes(ForwardFrame& f, const ForwardVariant& v) {
  const char* ca = "color_attachment";
  const char* sro = "shader_read_only";
  if (!v.refraction_snapshot) {
    // (3) Transmission into its own layer, sampling the whole HDR as the background; full-screen Mix.
    f.images.push_back(image("transmission_layer", "RGBA16F", kWidth, kHeight, {ca, "sampled"}));
    f.images.push_back(image("hdr_mixed", "RGBA16F", kWidth, kHeight, {ca, "sampled"}));
    f.passes.push_back(render_pass(
        "transmission",
        {color_attachment("transmission_layer", "clear", "store", "undefined", sro, {0, 0, 0, 0}),
         depth_attachment("depth", "load", "store", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass({fullscreen_draw("refraction", program_json("copy", {{"source", image_binding("hdr")}}), 1)}, 1)}));
    f.passes.push_back(fullscreen_pass("mix", "hdr_mixed",
                                       program_json("mix", {{"base", image_binding("hdr")}, {"over", image_binding("transmission_layer")}},
                                                    {{"weight", nums({0.5})}}),
                                       2));
    f.scene = "hdr_mixed";
  } else {
    // #5: a half-size snapshot of the unmodified HDR, sampled by transmission drawn straight into the HDR.
    f.images.push_back(image("refraction_snapshot", "RGBA16F", kWidth / 2, kHeight / 2, {ca, "sampled"}));
    f.passes.push_back(fullscreen_pass("refraction_snapshot", "refraction_snapshot",
                                       program_json("downsample_2x2", {{"source", image_binding("hdr")}}), 4));
    Json blended = Json::object();
    blended["blend"] = Json::array({alpha_blend()});
    f.passes.push_back(render_pass(
        "transmission",
        {color_attachment("hdr", "load", "store", sro, sro),
         depth_attachment("depth", "load", "store", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass({fullscreen_draw("refraction",
                                         program_json("copy", {{"source", image_binding("refraction_snapshot")}},
                                                      {{"tint", nums({1, 1, 1, 0.5})}}),
                                         1, blended)},
                        1)}));
  }
}

// Transparency and the crowd: a premultiplied layer composited over the HDR, or (#1 + #2) both
// drawn straight into the HDR in one scope.
void add_transparency_passes(ForwardFrame& f, const ForwardVariant& v, const ForwardDraws& d) {
  const char* ca = "color_attachment";
  const char* sro = "shader_read_only";
  if (!v.direct_blend_shared_scope) {
    // (3) Transparency into a premultiplied layer over black, CompositePremultiplied, then CrowdProxy.
    f.images.push_back(image("alpha_layer", "RGBA16F", kWidth, kHeight, {ca, "sampled"}));
    f.images.push_back(image("hdr_composited", "RGBA16F", kWidth, kHeight, {ca, "sampled"}));
    // alpha_blend on (0,0,0,0) accumulates the premultiplied layer: rgb = a x C, alpha = a.
    f.passes.push_back(render_pass(
        "transparency_alpha",
        {color_attachment("alpha_layer", "clear", "store", "undefined", sro, {0, 0, 0, 0}),
         depth_attachment("depth", "load", "store", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass(d.alpha, 1)}));
    f.passes.push_back(fullscreen_pass("composite_premultiplied", "hdr_composited",
                                       program_json("composite", {{"base", image_binding(f.scene)}, {"over", image_binding("alpha_layer")}}),
                                       2));
    f.passes.push_back(render_pass(
        "crowd_proxy",
        {color_attachment("hdr_composited", "load", "store", sro, sro),
         depth_attachment("depth", "load", "dont_care", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass(d.crowd, 1)}));
    f.scene = "hdr_composited";
  } else {
    // #1 + #2: alpha straight into the HDR and the crowd in the same scope: one HDR load and store,
    // one depth load, no depth store (nothing reads the depth afterwards).
    Json draws = d.alpha;
    for (const Json& crowd : d.crowd) draws.push_back(crowd);
    f.passes.push_back(render_pass(
        "alpha_crowd_shared_scope",
        {color_attachment(f.scene, "load", "store", sro, sro),
         depth_attachment("depth", "load", "dont_care", "depth_stencil_read_only", "depth_stencil_read_only")},
        {single_subpass(draws, 1)}));
  }
}

// Bloom at four levels, each half the size of the one above.
void add_bloom_passes(ForwardFrame& f) {
  const char* ca = "color_attachment";
  // (4) Bloom: four 2x2 downsamples, three bilinear upsamples that read only the lower level.
  for (int l = 1; l <= 4; ++l) {
    const std::string target = "bloom_down" + std::to_string(l);
    const std::string source = l == 1 ? f.scene : "bloom_down" + std::to_string(l - 1);
    f.images.push_back(image(target, "RGBA16F", kBloomWidth[l], kBloomHeight[l], {ca, "sampled"}));
    f.passes.push_back(fullscreen_pass(target, target, program_json("downsample_2x2", {{"source", image_binding(source)}}), 4));
  }
  for (int l = 3; l >= 1; --l) {
    const std::string target = "bloom_up" + std::to_string(l);
    const std::string low = l == 3 ? "bloom_down4" : "bloom_up" + std::to_string(l + 1);
    f.images.push_back(image(target, "RGBA16F", kBloomWidth[l], kBloomHeight[l], {ca, "sampled"}));
    f.passes.push_back(fullscreen_pass(target, target, program_json("upsample_add", {{"low", image_binding(low)}}), 4));
  }
}

// The histogram, the tonemap to LDR, FXAA and the final composition (or FXAA into the final image, #3).
void add_tonemap_passes(ForwardFrame& f, const ForwardVariant& v) {
  const char* ca = "color_attachment";
  // (4) BuildHistogram (compute): every texel, or one per 2x2 block (#4).
  f.images.push_back(image("histogram", "R32F", 256, 1, {"storage", "sampled"}));
  const int step = v.histogram_quarter ? 2 : 1;
  f.passes.push_back({{"name", "build_histogram"},
                      {"type", "compute"},
                      {"program", {{"name", "histogram"}}},
                      {"reads", {{{"image", f.scene}, {"step", {step, step}}}}},
                      {"writes", {{{"image", "histogram"}}}}});
  // (4) Tonemap (HDR + bloom) to LDR, FXAA, FinalComposition.
  f.images.push_back(image("ldr", "RGBA8", kWidth, kHeight, {ca, "sampled"}));
  f.passes.push_back(fullscreen_pass(
      "tonemap", "ldr",
      program_json("tonemap", {{"hdr", image_binding(f.scene)}, {"bloom", image_binding("bloom_up1")}},
                   {{"exposure", nums({1})}, {"bloom_strength", nums({0.25})}}),
      5));
  if (v.fxaa_to_final) {
    f.images.push_back(image("final", "BGRA8", kWidth, kHeight, {ca, "transfer_src"}));
    f.passes.push_back(fullscreen_pass("fxaa", "final", program_json("copy", {{"source", image_binding("ldr")}}), 9));
  } else {
    f.images.push_back(image("aa", "RGBA8", kWidth, kHeight, {ca, "sampled"}));
    f.images.push_back(image("final", "BGRA8", kWidth, kHeight, {ca, "transfer_src"}));
    f.passes.push_back(fullscreen_pass("fxaa", "aa", program_json("copy", {{"source", image_binding("ldr")}}), 9));
    f.passes.push_back(fullscreen_pass("final_composition", "final", program_json("copy", {{"source", image_binding("aa")}}), 1));
  }
}

void write_forward(const fs::path& dir, const ForwardVariant& v) {
  const ForwardDraws draws = forward_draws();
  ForwardFrame f;
  add_opaque_passes(f, v, draws);
  add_transmission_passes(f, v);
  add_transparency_passes(f, v, draws);
  add_bloom_passes(f);
  add_tonemap_passes(f, v);
  Json trace = trace_header(v.name);
  trace["images"] = f.images;
  trace["meshes"] = forward_meshes();
  trace["frames"] = {{{"passes", f.passes}}};
  write_json(dir / v.file, trace);
}

}  // namespace

void write_forward_traces(const fs::path& dir) {
  fs::create_directories(dir);
  ForwardVariant v;
  v.file = "forward_baseline.json";
  v.name = "seed002_forward_baseline";
  write_forward(dir, v);
  v.direct_blend_shared_scope = true;
  v.file = "forward_direct_blend_shared_scope.json";
  v.name = "seed002_forward_direct_blend_shared_scope";
  write_forward(dir, v);
  v.fxaa_to_final = v.histogram_quarter = true;
  v.file = "forward_fxaa_to_final_histogram_quarter.json";
  v.name = "seed002_forward_fxaa_to_final_histogram_quarter";
  write_forward(dir, v);
  v.refraction_snapshot = true;
  v.csm_size = 1024;
  v.file = "forward_csm1024_refraction_snapshot.json";
  v.name = "seed002_forward_csm1024_refraction_snapshot";
  write_forward(dir, v);
}

}  // namespace tbdr::scenes
