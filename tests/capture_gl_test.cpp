// Captured desktop OpenGL frames (ctest label `external`): tools/samples/gl_sample's inference
// rules, copies and indirect draws, and Endless Sky's start through a core-profile context.
#include "tests/capture_common.h"

namespace {

// tools/samples/gl_sample exercises every inference rule in one frame (its header lists them): a
// full clear begins the framebuffer object's pass, a scissored clear after a draw is a mid-pass
// clear, glInvalidateFramebuffer makes depth/stencil's store and the window's next load dont_care,
// a glDispatchCompute before them is a warning with its bytes,
// glCopyTexSubImage2D reads the pass's color (ending it) into a copy pass, glBlitFramebuffer is a blit
// pass and glCopyImageSubData a second copy pass, each with its region's bytes, glFlush ends a pass,
// eglSwapBuffers drops the window's depth. Each op names its call.
TEST_F(CaptureTest, GlSampleInfersEveryRule) {
  if (!fs::exists(kBuild + "gl_sample")) GTEST_SKIP() << "gl_sample not built (libgles-dev, libegl-dev, libx11-dev)";
  ASSERT_TRUE(gl_sample().ok) << gl_sample().log;
  const Trace trace = read_trace(gl_sample().trace);
  expect_gl_sample_dispatch_pass(trace);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"clear", "store"}, {"clear", "dont_care"},     // pass 0: FBO color, D24S8
      {"dont_care", "store"}, {"dont_care", "store"},  // pass 1: window color, depth (invalidated; glFlush)
      {"load", "store"}, {"load", "dont_care"}};      // pass 2: window after the flush; the swap
  EXPECT_EQ(trace_ops(trace), expected);
  EXPECT_EQ(trace_draws_per_pass(trace), gl_draws_per_binding(gl_sample()));
  EXPECT_EQ(trace_draws_per_pass(trace), (std::vector<size_t>{2, 1, 1}));
  const auto& passes = trace.frames[0].passes;  // 0: the dispatch (expect_gl_sample_dispatch_pass)
  EXPECT_EQ(passes[1].attachments[1].stencil_load, LoadOp::clear);
  EXPECT_EQ(passes[1].attachments[1].stencil_store, StoreOp::dont_care);
  ASSERT_EQ(passes[1].subpasses[0].clears.size(), 1u);
  const MidPassClear& clear = passes[1].subpasses[0].clears[0];
  EXPECT_EQ(clear.before_draw, 1u);
  EXPECT_EQ(clear.value.color, Vec4(0, 1, 0, 1));
  ASSERT_EQ(clear.rects.size(), 1u);  // glScissor(16, 32, 64, 48) in a 256-row target, rows from the top
  EXPECT_EQ(clear.rects[0].x, 16);
  EXPECT_EQ(clear.rects[0].y, 256 - 32 - 48);
  EXPECT_EQ(clear.rects[0].width, 64u);
  EXPECT_EQ(clear.rects[0].height, 48u);
  ASSERT_EQ(pass_types(trace), (std::vector<PassType>{PassType::compute, PassType::render, PassType::copy, PassType::blit, PassType::copy,
                                                      PassType::render, PassType::render}));
  // glCopyTexSubImage2D(0, 0, 64x64 from the framebuffer's bottom left): the top-left rows 192..255
  // of pass 0's color into the 64x64 texture; glCopyImageSubData of the half-size texture's 32x32
  // at GL (96, 96) into it at GL (32, 32): rows 0..31 of both.
  const Pass& copy_tex = passes[2];
  EXPECT_EQ(copy_tex.reads.at(0).image, passes[1].attachments[0].image);
  ASSERT_TRUE(copy_tex.reads[0].region.has_value());
  EXPECT_EQ(copy_tex.reads[0].region->y, 192);
  EXPECT_EQ(copy_tex.reads[0].region->width, 64u);
  const Pass& copy_image = passes[4];
  EXPECT_EQ(copy_image.reads.at(0).image, passes[3].writes.at(0).image);
  EXPECT_EQ(copy_image.writes.at(0).image, copy_tex.writes.at(0).image);
  ASSERT_TRUE(copy_image.writes[0].region.has_value());
  EXPECT_EQ(copy_image.writes[0].region->x, 32);
  EXPECT_EQ(copy_image.writes[0].region->y, 0);
  EXPECT_EQ(copy_image.writes[0].region->width, 32u);
  EXPECT_EQ(passes[3].blit_filter, Filter::bilinear);  // glBlitFramebuffer 256x256 -> 128x128, GL_LINEAR
  ASSERT_EQ(passes[5].subpasses[0].draws.at(0).program.bindings.size(), 1u);  // pass 0's texture
  EXPECT_TRUE(passes[5].subpasses[0].draws[0].program.bindings[0].is_image);
  const json raw = json::parse(read_file(gl_sample().trace));
  const json& p = raw["frames"][0]["passes"];
  auto reason = [&](size_t pass, size_t att, const char* op) { return p[pass]["attachments"][att]["inferred"][op].get<std::string>(); };
  EXPECT_NE(reason(1, 0, "load").find("glClear"), std::string::npos);
  EXPECT_NE(reason(1, 0, "store").find("glCopyTexSubImage2D"), std::string::npos);
  EXPECT_NE(reason(1, 1, "store").find("glInvalidateFramebuffer"), std::string::npos);
  EXPECT_NE(reason(5, 0, "load").find("glInvalidateFramebuffer"), std::string::npos);
  EXPECT_NE(reason(5, 0, "store").find("glFlush"), std::string::npos);
  EXPECT_NE(reason(6, 1, "store").find("eglSwapBuffers"), std::string::npos);
  EXPECT_NE(p[6]["inferred"]["begin"].get<std::string>().find("glFlush"), std::string::npos);

  const json report = simulate_cli(gl_sample(), "mali-g710");
  expect_ledger_follows_ops(trace, report, "gl_sample");
  const json& blit = report["frames"][0]["passes"][3];
  EXPECT_EQ(dram(blit, "dram_nominal", "image_sample", "read_bytes"), 256u * 256 * 4);
  EXPECT_EQ(dram(blit, "dram_nominal", "attachment_store", "write_bytes"), 128u * 128 * 4);
  for (auto [index, side] : {std::pair<size_t, uint64_t>{2, 64}, {4, 32}}) {  // the two copies' regions
    const json& copy = report["frames"][0]["passes"][index];
    EXPECT_EQ(dram(copy, "dram_nominal", "image_sample", "read_bytes"), side * side * 4) << index;
    EXPECT_EQ(dram(copy, "dram_nominal", "attachment_store", "write_bytes"), side * side * 4) << index;
  }
  // The last triangle samples a 64x64 ETC2 RGB8 texture: carried in its captured block format, its
  // reads counted in 8 B blocks (at most the whole texture, 16 x 16 blocks).
  ASSERT_EQ(trace.textures.size(), 1u);
  EXPECT_EQ(trace.textures[0].format, TextureFormat::ETC2_RGB8);
  EXPECT_EQ(trace.textures[0].width, 64u);
  const uint64_t etc2 = dram(report["frames"][0]["passes"][6], "dram_nominal", "texture", "read_bytes");
  EXPECT_GT(etc2, 0u);
  EXPECT_EQ(etc2 % 8, 0u);
  EXPECT_LE(etc2, 16u * 16 * 8);
  std::printf("gl_sample (mali-g710): 7 passes, DRAM %llu B\n", (unsigned long long)total_dram(report));
}

// gl_sample --copy-tex-image: the 64x64 copy out of pass 0 is glCopyTexImage2D into a texture it
// defines: a copy pass as for glCopyTexSubImage2D (the framebuffer's bottom-left 64x64, top-left rows
// 192..255, into the whole level at (0, 0)), which ends pass 0; no warning.
TEST_F(CaptureTest, GlCopyTexImageIsACopyPass) {
  if (!fs::exists(kBuild + "gl_sample")) GTEST_SKIP() << "gl_sample not built (libgles-dev, libegl-dev, libx11-dev)";
  const Captured& c = gl_sample_copy_tex_image();
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  expect_gl_sample_dispatch_pass(trace);
  ASSERT_EQ(pass_types(trace), (std::vector<PassType>{PassType::compute, PassType::render, PassType::copy, PassType::blit,
                                                      PassType::copy, PassType::render, PassType::render}));
  const auto& passes = trace.frames[0].passes;
  const Pass& copy = passes[2];
  EXPECT_EQ(copy.reads.at(0).image, passes[1].attachments.at(0).image);
  ASSERT_TRUE(copy.reads[0].region.has_value());
  EXPECT_EQ(copy.reads[0].region->y, 192);
  EXPECT_EQ(copy.reads[0].region->width, 64u);
  const ImageDesc& whole = trace.images[size_t(copy.writes.at(0).image)];
  EXPECT_EQ(whole.width, 64u);
  EXPECT_EQ(whole.height, 64u);
  EXPECT_NE(copy.writes[0].image, passes[4].writes.at(0).image);  // not glCopyImageSubData's texture
  const json raw = json::parse(read_file(c.trace));
  EXPECT_NE(raw["frames"][0]["passes"][1]["attachments"][0]["inferred"]["store"].get<std::string>().find("glCopyTexImage2D"),
            std::string::npos);
  const json report = simulate_cli(c, "mali-g710");
  expect_ledger_follows_ops(trace, report, "gl_sample --copy-tex-image");
  const json& p = report["frames"][0]["passes"][2];
  EXPECT_EQ(dram(p, "dram_nominal", "image_sample", "read_bytes"), 64u * 64 * 4);
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_store", "write_bytes"), 64u * 64 * 4);
}

// gl_sample --indirect: pass 2's triangle drawn by glDrawArraysIndirect and glDrawElementsIndirect
// (OpenGL ES 3.1) from a GL_DRAW_INDIRECT_BUFFER: two draws of the chunk stream's, each the
// program's kSmall triangle, its parameters read from the captured buffer (by RenderDoc); no warning.
TEST_F(CaptureTest, GlIndirectDrawsAreCarried) {
  if (!fs::exists(kBuild + "gl_sample")) GTEST_SKIP() << "gl_sample not built (libgles-dev, libegl-dev, libx11-dev)";
  const Captured& c = gl_sample_indirect();
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  expect_gl_sample_dispatch_pass(trace);
  EXPECT_EQ(trace_draws_per_pass(trace), gl_draws_per_binding(c));
  EXPECT_EQ(trace_draws_per_pass(trace), (std::vector<size_t>{2, 1, 2}));
  // kSmall's clip-space corners, y negated and z mapped to (z + w) / 2 (traces/README.md).
  const std::vector<Vec4> small = {{0.1f, -0.1f, 0.55f, 1}, {0.7f, -0.2f, 0.55f, 1}, {0.4f, -0.8f, 0.55f, 1}};
  for (const Draw& draw : trace.frames[0].passes.back().subpasses.at(0).draws) {
    const Mesh& mesh = trace.meshes[size_t(draw.mesh)];
    ASSERT_EQ(mesh.positions.size(), 3u) << mesh.name;
    for (size_t v = 0; v < 3; ++v) EXPECT_LT((mesh.positions[v] - small[v]).cwiseAbs().maxCoeff(), 1e-5f) << mesh.name << " " << v;
  }
  const json report = simulate_cli(c, "mali-g710");
  expect_ledger_follows_ops(trace, report, "gl_sample --indirect");
}

// A game from Debian's archive: Endless Sky's start (the loading screen's 2D sprites, or the menu
// when loading was quick) through a core-profile OpenGL context: one pass into the window, a full
// glClear at its start (clear) and glXSwapBuffers at its end (color store, depth dont_care), its
// draws those of the capture's chunk stream, its sprites carried as material textures, its 24-bit
// window surface as RGBA8 (X11's 32 bits a pixel) with its captured pixels.
TEST_F(CaptureTest, EndlessSkyFrameIsOneWindowPass) {
  const Captured& c = endless_sky();
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  // nothing is left out (besides the draws whose blur offsets their uvs: texture coordinates
  // guessed, said per draw); the 24-bit window surface is RGBA8, 32 bits a pixel in X11, unwarned
  EXPECT_EQ(non_sampling_warnings(trace), std::vector<std::string>{});
  ASSERT_EQ(pass_types(trace), (std::vector<PassType>{PassType::render}));
  const std::vector<std::pair<std::string, std::string>> expected = {{"clear", "store"}, {"dont_care", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  EXPECT_EQ(trace_draws_per_pass(trace), gl_draws_per_binding(c));  // writes capture.xml
  EXPECT_NE(read_file(c.dir / "capture.xml").find(">OpenGL</driver>"), std::string::npos);
  EXPECT_GT(trace_draws_per_pass(trace).at(0), 10u);
  const Pass& pass = trace.frames[0].passes[0];
  const ImageDesc& window = trace.images[size_t(pass.attachments.at(0).image)];
  EXPECT_EQ(window.width, 480u);
  EXPECT_EQ(window.height, 320u);
  EXPECT_FALSE(trace.textures.empty());
  EXPECT_TRUE(pass.attachments[0].contents.has_value());
  const json report = simulate_cli(c, "mali-g710");
  expect_ledger_follows_ops(trace, report, "endless-sky");
  std::printf("endless-sky (OpenGL core, mali-g710): %zu draws, %zu textures, DRAM %llu B\n",
              trace_draws_per_pass(trace)[0], trace.textures.size(), (unsigned long long)total_dram(report));
}

// The same frame through a desktop OpenGL 4.5 core-profile context (gl_sample --desktop): RenderDoc
// captures it as OpenGL, and the converter infers the same passes, ops and draws.
TEST_F(CaptureTest, GlSampleDesktopCoreInfersTheSamePasses) {
  if (!fs::exists(kBuild + "gl_sample")) GTEST_SKIP() << "gl_sample not built (libgles-dev, libegl-dev, libx11-dev)";
  ASSERT_TRUE(gl_sample_desktop().ok) << gl_sample_desktop().log;
  const Trace trace = read_trace(gl_sample_desktop().trace);
  expect_gl_sample_dispatch_pass(trace);
  EXPECT_EQ(trace_draws_per_pass(trace), gl_draws_per_binding(gl_sample_desktop()));
  EXPECT_NE(read_file(gl_sample_desktop().dir / "capture.xml").find(">OpenGL</driver>"), std::string::npos);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"clear", "store"}, {"clear", "dont_care"}, {"dont_care", "store"}, {"dont_care", "store"},
      {"load", "store"}, {"load", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  EXPECT_EQ(trace_draws_per_pass(trace), (std::vector<size_t>{2, 1, 1}));
  EXPECT_EQ(pass_types(trace), (std::vector<PassType>{PassType::compute, PassType::render, PassType::copy, PassType::blit, PassType::copy,
                                                      PassType::render, PassType::render}));
  const json report = simulate_cli(gl_sample_desktop(), "mali-g710");
  expect_ledger_follows_ops(trace, report, "gl_sample --desktop");
  std::printf("gl_sample --desktop (OpenGL core, mali-g710): DRAM %llu B\n", (unsigned long long)total_dram(report));
}

}  // namespace
