// Captured OpenGL ES frames of glmark2-es2 (ctest label `external`): its scenes' passes, inferred
// load/store ops, material textures, mip chains and images against the capture.
#include "tests/capture_common.h"

namespace {

// glmark2-es2's `build` scene (OpenGL ES 2.0, one horse per frame into the window surface): one
// pass, inferred as a tiler driver infers it: color and depth CLEAR (the full glClear that begins
// the frame), color STORE (eglSwapBuffers), depth DONT_CARE (EGL: depth is undefined after a swap);
// each op names the call that decided it.
TEST_F(CaptureTest, Glmark2BuildIsOnePassWithInferredOps) {
  const Captured& c = glmark2("build");
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  const std::vector<std::pair<std::string, std::string>> expected = {{"clear", "store"}, {"clear", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  EXPECT_EQ(trace_draws_per_pass(trace), gl_draws_per_binding(c));
  EXPECT_EQ(trace_draws_per_pass(trace), (std::vector<size_t>{1}));
  const json raw = json::parse(read_file(c.trace));
  const json& atts = raw["frames"][0]["passes"][0]["attachments"];
  EXPECT_NE(atts[0]["inferred"]["load"].get<std::string>().find("glClear"), std::string::npos);
  EXPECT_NE(atts[0]["inferred"]["store"].get<std::string>().find("eglSwapBuffers"), std::string::npos);
  EXPECT_NE(atts[1]["inferred"]["store"].get<std::string>().find("EGL"), std::string::npos);
  const Pass& pass = trace.frames[0].passes.at(0);
  EXPECT_EQ(trace.images[size_t(pass.attachments[0].image)].width, 640u);
  EXPECT_EQ(trace.images[size_t(pass.attachments[0].image)].height, 480u);
  EXPECT_EQ(pass.attachments[0].new_layout, Layout::present);

  const json report = simulate_cli(c, "mali-g710");
  expect_ledger_follows_ops(trace, report, "build");
  const json& p = report["frames"][0]["passes"][0];
  EXPECT_EQ(p["attachments"][0]["pixels"], "captured");
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_store", "write_bytes"), 640u * 480 * 4);
  std::printf("glmark2 build (mali-g710): DRAM read %llu B, write %llu B; %zu warnings\n",
              (unsigned long long)p["dram"]["read_bytes"].get<uint64_t>(),
              (unsigned long long)p["dram"]["write_bytes"].get<uint64_t>(), trace.warnings.size());
}

// The build scene's simulated depth coverage against the depth the capture holds at the pass's last
// draw (GL's bottom-left origin and [-1, 1] depth mapped to the trace's): the same rule as vkcube's.
TEST_F(CaptureTest, Glmark2BuildDepthCoverageMatchesTheCapture) {
  const Captured& c = glmark2("build");
  ASSERT_TRUE(c.ok) << c.log;
  Trace trace = read_trace(c.trace);
  Pass& pass = trace.frames[0].passes.at(0);
  ASSERT_TRUE(pass.attachments[1].contents.has_value());
  const std::vector<Vec4> captured = pass.attachments[1].contents->pixels;
  pass.attachments[1].store = StoreOp::store;
  pass.attachments[1].contents.reset();
  const Surface depth = simulated_attachment(trace, "att1");
  const uint32_t w = depth.width;
  ASSERT_EQ(size_t(w) * depth.height, captured.size());
  const auto triangles = screen_triangles(trace, pass.subpasses[0].draws.at(0));
  ASSERT_FALSE(triangles.empty());
  std::vector<bool> in_capture(captured.size()), in_sim(captured.size());
  std::vector<double> depth_errors;
  for (size_t i = 0; i < captured.size(); ++i) {
    in_capture[i] = captured[i].x() < 1.0f;
    in_sim[i] = depth.depth[i] < 1.0f;
    if (in_capture[i] && in_sim[i]) depth_errors.push_back(std::abs(double(depth.depth[i]) - double(captured[i].x())));
  }
  expect_coverage_matches(compare_coverage(in_capture, in_sim, w, triangles), "glmark2 build depth");
  // Where both cover a pixel the nearest surface agrees (the capture's D32 depth saved as 16-bit
  // grey): GL's [-1, 1] depth and its winding (back faces culled) were carried over right. The horse
  // hides parts of itself: a pixel on such an inner edge may take the other surface, so the bound is
  // on the 99th percentile.
  ASSERT_FALSE(depth_errors.empty());
  std::sort(depth_errors.begin(), depth_errors.end());
  const double p99 = depth_errors[depth_errors.size() * 99 / 100], p50 = depth_errors[depth_errors.size() / 2];
  std::printf("glmark2 build depth difference where both cover: median %.3g, 99th percentile %.3g, max %.3g\n", p50,
              p99, depth_errors.back());
  EXPECT_LT(p99, 1.5 / 65535.0);
}

// Scenes with framebuffer objects: a pass per span of draws into one framebuffer, as RenderDoc's
// chunk stream binds them; `shadow` renders a depth-only shadow map (CLEAR/STORE) sampled by the
// window pass, `desktop` blurs windows through four offscreen targets (ten passes).
TEST_F(CaptureTest, Glmark2FramebufferScenesAreSeveralPasses) {
  for (const std::string scene : {"shadow", "desktop"}) {
    const Captured& c = glmark2(scene);
    ASSERT_TRUE(c.ok) << c.log;
    const Trace trace = read_trace(c.trace);
    const auto draws = trace_draws_per_pass(trace);
    EXPECT_EQ(draws, gl_draws_per_binding(c)) << scene;
    EXPECT_GE(draws.size(), 2u) << scene;
    const json report = simulate_cli(c, "mali-g710");
    expect_ledger_follows_ops(trace, report, scene);
    std::printf("glmark2 %s (mali-g710): %zu passes, DRAM %llu B; %zu warnings\n", scene.c_str(), draws.size(),
                (unsigned long long)total_dram(report), trace.warnings.size());
    if (scene == "shadow") {
      const Pass& map = trace.frames[0].passes.at(0);
      ASSERT_EQ(map.attachments.size(), 1u);
      EXPECT_EQ(map.attachments[0].load, LoadOp::clear);
      EXPECT_EQ(map.attachments[0].store, StoreOp::store);
      const Draw& lit = trace.frames[0].passes.at(1).subpasses.at(0).draws.at(0);
      ASSERT_EQ(lit.program.bindings.size(), 1u);
      const json& p1 = report["frames"][0]["passes"][1];
      EXPECT_GT(dram(p1, "dram_nominal", "image_sample", "read_bytes"), 0u);
    }
  }
}

// Material textures: glmark2's effect2d filters an image with a full-screen quad. The sampled image
// no pass writes is carried as a TEXTURE (RenderDoc's decoded level 0, the captured format's texel
// size) bound to the draw. The stand-in program reads it at the draw's uvs (its shader's blur offsets
// them: a guess, said in a warning): the full-screen quad spreads the image over the 640x480 window,
// one distinct texel per pixel (nearest), so nominal `texture` bytes = the texels so reached.
TEST_F(CaptureTest, Glmark2MaterialTextureIsCarried) {
  const Captured& c = glmark2("effect2d");
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  EXPECT_EQ(non_sampling_warnings(trace), std::vector<std::string>{});
  ASSERT_EQ(trace.textures.size(), 1u);
  const Texture& texture = trace.textures[0];
  const Draw& draw = trace.frames[0].passes.at(0).subpasses.at(0).draws.at(0);
  ASSERT_EQ(draw.program.bindings.size(), 1u);
  EXPECT_FALSE(draw.program.bindings[0].is_image);
  const json report = simulate_cli(c, "mali-g710");
  const json& p = report["frames"][0]["passes"][0];
  EXPECT_EQ(p["primitives_culled"], 0);  // GL_CCW front, back culled: the quad faces the viewer
  const uint64_t bytes = uint64_t(std::min(texture.width, 640u)) * std::min(texture.height, 480u) *
                         texture_format_info(texture.format).block_bytes;
  EXPECT_EQ(dram(p, "dram_nominal", "texture", "read_bytes"), bytes);
  expect_ledger_follows_ops(trace, report, "effect2d");
  std::printf("glmark2 effect2d (mali-g710): texture %ux%u, texture read %llu B physical (%llu nominal), DRAM %llu B\n",
              texture.width, texture.height, (unsigned long long)dram(p, "dram", "texture", "read_bytes"),
              (unsigned long long)bytes, (unsigned long long)total_dram(report));
}

// A glmark2 scene's frame is one pass into the window surface: color and depth CLEAR (the full
// glClear that begins the frame), color STORE at eglSwapBuffers, depth DONT_CARE (EGL: undefined
// after the swap), each op naming its call.
void expect_glmark2_window_pass(const Trace& trace, const Captured& c) {
  ASSERT_EQ(pass_types(trace), (std::vector<PassType>{PassType::render}));
  const std::vector<std::pair<std::string, std::string>> expected = {{"clear", "store"}, {"clear", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  const json raw = json::parse(read_file(c.trace));
  const json& atts = raw["frames"][0]["passes"][0]["attachments"];
  EXPECT_NE(atts[0]["inferred"]["load"].get<std::string>().find("glClear"), std::string::npos);
  EXPECT_NE(atts[1]["inferred"]["load"].get<std::string>().find("glClear"), std::string::npos);
  EXPECT_NE(atts[0]["inferred"]["store"].get<std::string>().find("eglSwapBuffers"), std::string::npos);
  EXPECT_NE(atts[1]["inferred"]["store"].get<std::string>().find("EGL"), std::string::npos);
  const ImageDesc& window = trace.images[size_t(trace.frames[0].passes[0].attachments.at(0).image)];
  EXPECT_EQ(window.width, 320u);
  EXPECT_EQ(window.height, 240u);
}

// The trace's draws per pass against the chunk stream's draws per framebuffer binding; a frame of
// clears only has no draw chunk and one pass of no draws.
void expect_draws_match_chunks(const Trace& trace, const Captured& c, const Glmark2Scene& scene) {
  const std::vector<size_t> draws = trace_draws_per_pass(trace), chunks = gl_draws_per_binding(c);
  if (scene.rule == ImageRule::clear_only) {
    EXPECT_TRUE(chunks.empty());
    EXPECT_EQ(draws, (std::vector<size_t>{0}));
  } else {
    EXPECT_EQ(draws, chunks);
  }
}

// The material textures: as many as the scene samples, texture i pixel for pixel one of the glmark2
// data files of list i (`tbdrsim diff --tolerance 0`).
void expect_scene_textures(const Trace& trace, const Captured& c, const Glmark2Scene& scene) {
  ASSERT_EQ(trace.textures.size(), scene.textures);
  for (size_t i = 0; i < scene.texture_files.size(); ++i) {
    const fs::path carried = c.trace.parent_path() / trace.textures[i].source;
    bool equal = false;
    for (const std::string& file : scene.texture_files[i]) {
      const Command same = run(kBuild + "tbdrsim diff '" + carried.string() + "' '" + file + "' --tolerance 0", c.dir);
      equal = equal || (same.exit_code == 0 && same.out.find(" 0 of ") != std::string::npos);
    }
    EXPECT_TRUE(equal) << trace.textures[i].name << " is none of " << scene.texture_files[i].front() << "...";
  }
}

void expect_scene_image_matches(const Trace& trace, const Glmark2Scene& scene) {
  const std::string what = "glmark2 " + scene.name;
  switch (scene.rule) {
    case ImageRule::depth: return expect_coverage_matches(depth_coverage(trace, 0, 1), what.c_str(), scene.min_covered);
    case ImageRule::color:
      return expect_color_coverage_matches(trace, 0, 0, what.c_str(), trace.frames[0].passes[0].attachments[0].clear.color,
                                           scene.min_covered);
    case ImageRule::clear_only: return expect_cleared_image_matches(trace, 0, what.c_str());
  }
}

// The glmark2 corpus: glmark2-es2's eleven other scenes (glmark2_corpus_scenes()), captured in one
// launch and converted by one rdc2trace run. Each is one window pass with inferred ops, its draws
// those of RenderDoc's chunk stream, its sampled images carried as material textures equal to
// glmark2's data files, its final image matching the capture by traces/README.md's rule, the ledger
// following the ops, and only the warnings the scene expects.
TEST_F(CaptureTest, Glmark2EveryOtherSceneIsCarried) {
  for (const Glmark2Scene& scene : glmark2_corpus_scenes()) {
    SCOPED_TRACE(scene.name);
    const Captured& c = glmark2_corpus(scene.name);
    ASSERT_TRUE(c.ok) << c.log;
    const Trace trace = read_trace(c.trace);
    expect_glmark2_window_pass(trace, c);
    EXPECT_EQ(non_sampling_warnings(trace), std::vector<std::string>{});
    expect_draws_match_chunks(trace, c, scene);
    expect_scene_textures(trace, c, scene);
    expect_scene_image_matches(trace, scene);
    const json report = simulate_cli(c, "mali-g710");
    expect_ledger_follows_ops(trace, report, scene.name);
    std::printf("glmark2 %s 320x240 (mali-g710): 1 pass (clear/store, clear/dont_care), %zu draws, %zu textures, "
                "%zu warnings, DRAM %llu B\n",
                scene.name.c_str(), trace_draws_per_pass(trace).at(0), trace.textures.size(), trace.warnings.size(),
                (unsigned long long)total_dram(report));
  }
}

// glmark2's terrain renders its height map, normal map and blur steps into framebuffer objects
// (each cleared at its start, several with a mip chain built by glGenerateMipmap), then the terrain
// into the window: every framebuffer object its own pass, every generated level a blit, the
// RenderDoc action list's draws per framebuffer binding equal to the trace's.
TEST_F(CaptureTest, Glmark2TerrainIsManyPassesWithMipChains) {
  const Captured& c = glmark2_terrain();
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  const auto types = pass_types(trace);
  const size_t renders = size_t(std::count(types.begin(), types.end(), PassType::render));
  const size_t blits = size_t(std::count(types.begin(), types.end(), PassType::blit));
  EXPECT_GE(renders, 5u);
  EXPECT_GE(blits, 1u);
  EXPECT_EQ(types.back(), PassType::render);  // the window
  EXPECT_EQ(trace_draws_per_pass(trace), gl_draws_per_binding(c));
  EXPECT_FALSE(trace.textures.empty());
  const json report = simulate_cli(c, "mali-g710");
  expect_ledger_follows_ops(trace, report, "terrain");
  std::printf("glmark2 terrain 320x240 (mali-g710): %zu passes (%zu render, %zu blits), %zu textures, DRAM %llu B; "
              "%zu warnings\n", types.size(), renders, blits, trace.textures.size(),
              (unsigned long long)total_dram(report), trace.warnings.size());
}

// glmark2's refract renders into a 1280x960 framebuffer object, calls glGenerateMipmap on its color
// texture (which ends the pass), then samples it in the window pass: the mip chain is carried as a
// bilinear blit per level, each reading its level and writing the next.
TEST_F(CaptureTest, Glmark2GenerateMipmapIsABlitPerLevel) {
  const Captured& c = glmark2("refract");
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  EXPECT_EQ(non_sampling_warnings(trace), std::vector<std::string>{});
  const auto types = pass_types(trace);
  ASSERT_GE(types.size(), 3u);
  EXPECT_EQ(types.front(), PassType::render);
  EXPECT_EQ(types.back(), PassType::render);
  const size_t blits = size_t(std::count(types.begin(), types.end(), PassType::blit));
  const ImageDesc& target = trace.images[size_t(trace.frames[0].passes[0].attachments.at(0).image)];
  EXPECT_EQ(blits + 1, target.mip_levels);
  EXPECT_EQ(trace_draws_per_pass(trace), gl_draws_per_binding(c));
  const json report = simulate_cli(c, "mali-g710");
  const json& first = report["frames"][0]["passes"][1];
  EXPECT_EQ(dram(first, "dram_nominal", "image_sample", "read_bytes"), uint64_t(target.width) * target.height * 4);
  EXPECT_EQ(dram(first, "dram_nominal", "attachment_store", "write_bytes"),
            uint64_t(target.width / 2) * (target.height / 2) * 4);
  std::printf("glmark2 refract (mali-g710): %zu passes (%zu blits), DRAM %llu B\n", types.size(), blits,
              (unsigned long long)total_dram(report));
}

}  // namespace
