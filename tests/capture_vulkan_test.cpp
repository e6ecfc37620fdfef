// Captured Vulkan frames (ctest label `external`): vkcube, tools/samples/vk_sample's scenes and
// vkd3d-gears captured on lavapipe, converted and simulated; passes, ops, coverage and transfers checked.
#include "tests/capture_common.h"

namespace {

// vkcube's render pass (vulkan-tools' cube.c): color CLEAR/STORE, depth CLEAR/DONT_CARE; the trace
// carries exactly what the capture's create info says.
TEST_F(CaptureTest, VkcubeLoadStoreOpsEqualTheCaptured) {
  ASSERT_TRUE(vkcube().ok) << vkcube().log;
  const Trace trace = read_trace(vkcube().trace);
  const auto ops = trace_ops(trace);
  EXPECT_EQ(ops, captured_ops(vkcube()));
  const std::vector<std::pair<std::string, std::string>> expected = {{"clear", "store"}, {"clear", "dont_care"}};
  EXPECT_EQ(ops, expected);
  const Pass& pass = trace.frames[0].passes.at(0);
  EXPECT_EQ(trace.images[size_t(pass.attachments[0].image)].format, Format::BGRA8);
  EXPECT_GE(trace.images[size_t(pass.attachments[0].image)].swapchain, 2u);
  EXPECT_EQ(trace.images[size_t(pass.attachments[1].image)].format, Format::D16);
  EXPECT_EQ(pass.attachments[0].old_layout, Layout::undefined);
  EXPECT_EQ(pass.attachments[0].new_layout, Layout::present);
  ASSERT_EQ(pass.subpasses.size(), 1u);
  ASSERT_EQ(pass.subpasses[0].draws.size(), 1u);
  const Draw& draw = pass.subpasses[0].draws[0];
  EXPECT_TRUE(draw.transform.clip_space);
  EXPECT_EQ(trace.meshes[size_t(draw.mesh)].positions.size(), 36u);  // 12 triangles, non-indexed
  EXPECT_EQ(draw.state.cull, CullMode::back);
  EXPECT_TRUE(draw.state.depth_test);
  EXPECT_EQ(draw.state.depth_compare, CompareOp::less_or_equal);
  // cube.frag: one texture() call; cube.vert: one matrix x vector.
  EXPECT_EQ(draw.cost.texture_samples, 1.0f);
  EXPECT_EQ(draw.cost.vertex_alu, 1.0f);

  // Simulated: the stored color is the captured image (AFBC sees its real pixels).
  const json report = simulate_cli(vkcube(), "mali-g710");
  const json& p = report["frames"][0]["passes"][0];
  EXPECT_EQ(p["attachments"][0]["pixels"], "captured");
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_store", "write_bytes"), 500u * 500 * 4);
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_load", "read_bytes"), 0u);
  std::printf("vkcube (mali-g710): attachment_store %llu B physical of %llu B nominal, total write %llu B, read %llu B\n",
              (unsigned long long)dram(p, "dram", "attachment_store", "write_bytes"),
              (unsigned long long)dram(p, "dram_nominal", "attachment_store", "write_bytes"),
              (unsigned long long)p["dram"]["write_bytes"].get<uint64_t>(),
              (unsigned long long)p["dram"]["read_bytes"].get<uint64_t>());
}

// The simulated depth coverage of vkcube's pass against the depth the capture holds at the pass's
// last draw (depth is DONT_CARE, so not at frame end): at most 0.5% of covered pixels differ, and
// every differing pixel centre lies within 1 px of the edge of a drawn (not culled) triangle.
TEST_F(CaptureTest, VkcubeDepthCoverageMatchesTheCapture) {
  ASSERT_TRUE(vkcube().ok) << vkcube().log;
  Trace trace = read_trace(vkcube().trace);
  Pass& pass = trace.frames[0].passes.at(0);
  ASSERT_TRUE(pass.attachments[1].contents.has_value());
  const std::vector<Vec4> captured = pass.attachments[1].contents->pixels;
  // Store the simulated depth (its contents dropped, so the store is the simulated one).
  pass.attachments[1].store = StoreOp::store;
  pass.attachments[1].contents.reset();
  const Surface depth = simulated_attachment(trace, "att1");
  const uint32_t w = depth.width, h = depth.height;
  ASSERT_EQ(size_t(w) * h, captured.size());
  const auto triangles = screen_triangles(trace, pass.subpasses[0].draws.at(0));
  ASSERT_FALSE(triangles.empty());

  std::vector<bool> in_capture(captured.size()), in_sim(captured.size());
  double max_depth_error = 0;
  for (size_t i = 0; i < captured.size(); ++i) {
    in_capture[i] = captured[i].x() < 1.0f;
    in_sim[i] = depth.depth[i] < 1.0f;  // one sample per pixel
    if (in_capture[i] && in_sim[i]) max_depth_error = std::max(max_depth_error, double(std::abs(depth.depth[i] - captured[i].x())));
  }
  const CoverageDiff d = compare_coverage(in_capture, in_sim, w, triangles);
  ASSERT_GT(d.covered, 10000u);  // the cube covers a good part of the 500x500 window
  std::printf("vkcube depth coverage: %llu covered pixels in the capture, %llu differ (%.4f%%), %llu farther than 1 px "
              "from an edge; max depth difference where both cover %.3g\n",
              (unsigned long long)d.covered, (unsigned long long)d.differing, d.fraction() * 100.0,
              (unsigned long long)d.far_from_edges, max_depth_error);
  EXPECT_LE(d.fraction(), 0.005);
  EXPECT_EQ(d.far_from_edges, 0u);
  // Where both cover the pixel, depth agrees to one D16 step (1/65535; both sides are float
  // renderings of 16-bit codes, so the bound is set between one and two steps).
  EXPECT_LT(max_depth_error, 1.5 / 65535.0);
}

// The deferred sample's one render pass: G-buffer (albedo, normal, depth) transient, CLEAR and
// DONT_CARE, read as input attachments in subpass 1; the merge model merges the subpasses, so only
// the lit output is stored.
TEST_F(CaptureTest, DeferredSubpassPassIsMerged) {
  ASSERT_TRUE(deferred_subpass().ok) << deferred_subpass().log;
  const Trace trace = read_trace(deferred_subpass().trace);
  EXPECT_EQ(trace_ops(trace), captured_ops(deferred_subpass()));
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"clear", "store"}, {"clear", "dont_care"}, {"clear", "dont_care"}, {"clear", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  const Pass& pass = trace.frames[0].passes.at(0);
  ASSERT_EQ(pass.subpasses.size(), 2u);
  EXPECT_EQ(pass.subpasses[0].color, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(pass.subpasses[0].depth, 3);
  EXPECT_EQ(pass.subpasses[1].input, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(pass.subpasses[1].color, (std::vector<int32_t>{0}));
  for (int i = 1; i <= 3; ++i) EXPECT_TRUE(trace.images[size_t(pass.attachments[size_t(i)].image)].transient);
  // light_subpass.frag: three subpassLoad calls, no texture samples.
  EXPECT_EQ(pass.subpasses[1].draws.at(0).cost.tile_reads, 3.0f);
  EXPECT_EQ(pass.subpasses[1].draws.at(0).cost.texture_samples, 0.0f);

  const json report = simulate_cli(deferred_subpass(), "mali-g710");
  const json& p = report["frames"][0]["passes"][0];
  EXPECT_EQ(p["merge"]["merged"], true);
  EXPECT_EQ(p["merge"]["hardware_passes"], 1);
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_store", "write_bytes"), 256u * 256 * 4);  // the output only
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_load", "read_bytes"), 0u);
  EXPECT_EQ(dram(p, "dram_nominal", "image_sample", "read_bytes"), 0u);
  std::printf("deferred_subpass (mali-g710): merged; DRAM physical read %llu B, write %llu B (attachment_store %llu B)\n",
              (unsigned long long)p["dram"]["read_bytes"].get<uint64_t>(),
              (unsigned long long)p["dram"]["write_bytes"].get<uint64_t>(),
              (unsigned long long)dram(p, "dram", "attachment_store", "write_bytes"));
}

// The same frame as two render passes: the G-buffer (2 x RGBA8 + D32F at 256x256) is stored by the
// first pass and sampled by the second: 786,432 B written and read back (nominal).
TEST_F(CaptureTest, DeferredTwoPassShowsTheGbufferRoundTrip) {
  ASSERT_TRUE(deferred_two_pass().ok) << deferred_two_pass().log;
  const Trace trace = read_trace(deferred_two_pass().trace);
  EXPECT_EQ(trace_ops(trace), captured_ops(deferred_two_pass()));
  ASSERT_EQ(trace.frames[0].passes.size(), 2u);
  const Draw& light = trace.frames[0].passes[1].subpasses.at(0).draws.at(0);
  EXPECT_EQ(light.program.name, "captured");
  EXPECT_EQ(light.program.bindings.size(), 3u);
  EXPECT_EQ(light.cost.texture_samples, 3.0f);  // three texelFetch calls

  const json report = simulate_cli(deferred_two_pass(), "mali-g710");
  const json& gbuffer = report["frames"][0]["passes"][0];
  const json& lighting = report["frames"][0]["passes"][1];
  const uint64_t round_trip = 256u * 256 * (4 + 4 + 4);
  EXPECT_EQ(dram(gbuffer, "dram_nominal", "attachment_store", "write_bytes"), round_trip);
  EXPECT_EQ(dram(lighting, "dram_nominal", "image_sample", "read_bytes"), round_trip);
  EXPECT_EQ(dram(lighting, "dram_nominal", "attachment_store", "write_bytes"), 256u * 256 * 4);
  const json subpass = simulate_cli(deferred_subpass(), "mali-g710");
  const json& merged = subpass["frames"][0]["passes"][0];
  std::printf("deferred_two_pass (mali-g710): G-buffer pass write %llu B physical (%llu nominal); lighting pass read "
              "%llu B physical (image_sample %llu nominal), write %llu B; merged variant write %llu B\n",
              (unsigned long long)gbuffer["dram"]["write_bytes"].get<uint64_t>(),
              (unsigned long long)gbuffer["dram_nominal"]["write_bytes"].get<uint64_t>(),
              (unsigned long long)lighting["dram"]["read_bytes"].get<uint64_t>(),
              (unsigned long long)dram(lighting, "dram_nominal", "image_sample", "read_bytes"),
              (unsigned long long)lighting["dram"]["write_bytes"].get<uint64_t>(),
              (unsigned long long)merged["dram"]["write_bytes"].get<uint64_t>());
  EXPECT_GT(gbuffer["dram"]["write_bytes"].get<uint64_t>() + lighting["dram"]["write_bytes"].get<uint64_t>(),
            merged["dram"]["write_bytes"].get<uint64_t>());
}

// Material textures of full mip chains (vk_sample textures: 1024x1024 BC7 and R8, 11 levels each,
// uploaded before the frame), where RenderDoc's SaveTexture crashed the converter (exit 139). Both
// are carried with `mip` generate, and level 0 as decoded is checked against RenderDoc's own replay:
// the captured output is the draw's light_sampled.frag of the two at the same texel, so recomputing
// it from the carried PNGs (BC7 decoded by the converter, not by lavapipe) must land within one step.
TEST_F(CaptureTest, MipmappedBc7AndR8TexturesAreCarried) {
  ASSERT_TRUE(textures().ok) << textures().log;
  const Trace trace = read_trace(textures().trace);
  ASSERT_EQ(trace.textures.size(), 2u);
  const Texture& bc7 = trace.textures[0];
  const Texture& r8 = trace.textures[1];
  EXPECT_EQ(bc7.format, TextureFormat::BC7);  // carried as itself: 16 B a 4x4 block
  EXPECT_EQ(r8.format, TextureFormat::R8);    // 1 B a texel
  for (const Texture* t : {&bc7, &r8}) {
    EXPECT_EQ(t->width, 1024u);
    EXPECT_EQ(t->height, 1024u);
    EXPECT_EQ(t->mip_mode, MipMode::generate);
  }
  const Pass& pass = trace.frames[0].passes.at(0);
  ASSERT_TRUE(pass.attachments.at(0).contents.has_value());
  const std::vector<Vec4>& out = pass.attachments[0].contents->pixels;
  const uint32_t size = 256;
  ASSERT_EQ(out.size(), size_t(size) * size);
  const Eigen::Vector3f l = Eigen::Vector3f(0.3f, 0.4f, 1.0f).normalized();
  float worst = 0;
  for (uint32_t y = 0; y < size; ++y)
    for (uint32_t x = 0; x < size; ++x) {
      const Vec4& albedo = bc7.texels[size_t(y) * bc7.width + x];
      const float r = r8.texels[size_t(y) * r8.width + x].x();
      const Eigen::Vector3f n(r * 2 - 1, -1, -1);  // texelFetch(normal).xyz * 2 - 1 of an R8 texel (0, 0, 1 -> g, b = 0)
      const float light = 0.2f + std::max(0.0f, n.dot(l));
      for (int c = 0; c < 3; ++c) {
        const float expected = std::min(1.0f, albedo[c] * light * (r < 1.0f ? 1.0f : 0.0f));
        worst = std::max(worst, std::abs(expected - out[size_t(y) * size + x][c]));
      }
    }
  EXPECT_LE(worst, 1.0f / 255);
  std::printf("vk_sample textures: BC7 and R8 1024x1024 carried; output recomputed from them within %.2f/255\n",
              double(worst) * 255);
}

// A Direct3D 12 program through vkd3d on lavapipe: vkd3d-gears's frame, whose empty vkQueueSubmit is
// an event RenderDoc makes up (no chunk behind it), which once stopped the conversion with a Python
// IndexError. Every pass and every draw is the capture's own (RenderDoc's XML export, in recording
// order): three barriers, the color clear and the depth clear as passes of no draws, the six gear
// draws loading both, and the barrier to present; no warning, and the trace simulates.
TEST_F(CaptureTest, Vkd3dGearsPassesAndDrawsAreTheCaptured) {
  const Captured& c = vkd3d_gears();
  ASSERT_TRUE(c.ok) << c.log;
  EXPECT_EQ(c.log.find("Traceback"), std::string::npos) << c.log;
  const Trace trace = read_trace(c.trace);
  EXPECT_TRUE(trace.warnings.empty()) << trace.warnings.at(0);
  std::vector<std::pair<PassType, size_t>> passes;
  for (const Pass& p : trace.frames.at(0).passes)
    passes.push_back({p.type, p.type == PassType::render ? p.subpasses.at(0).draws.size() : 0});
  const std::vector<std::pair<PassType, size_t>> chunks = vk_passes_of_chunks(c);
  EXPECT_EQ(passes, chunks);
  EXPECT_NE(read_file(c.dir / "capture.xml").find(">Vulkan</driver>"), std::string::npos);
  size_t draws = 0;
  for (const auto& [type, n] : chunks) draws += n;
  EXPECT_EQ(draws, 6u);
  const std::vector<std::pair<std::string, std::string>> ops = {
      {"clear", "store"}, {"clear", "store"}, {"load", "store"}, {"load", "store"}};
  EXPECT_EQ(trace_ops(trace), ops);
  const json report = simulate_cli(c, "mali-g710");
  std::printf("vkd3d-gears (Direct3D 12 via vkd3d, mali-g710): %zu passes, %zu draws, DRAM %llu B\n", passes.size(),
              draws, (unsigned long long)total_dram(report));
}

// 4x MSAA color and depth, transient and DONT_CARE, resolved inline into a 1-sample image: only the
// resolve target reaches DRAM (in `resolve`), the 4x attachments never do.
TEST_F(CaptureTest, MsaaInlineResolveStoresOnlyTheResolvedImage) {
  ASSERT_TRUE(msaa().ok) << msaa().log;
  const Trace trace = read_trace(msaa().trace);
  EXPECT_EQ(trace_ops(trace), captured_ops(msaa()));
  const Pass& pass = trace.frames[0].passes.at(0);
  EXPECT_EQ(trace.images[size_t(pass.attachments[0].image)].samples, 4u);
  EXPECT_EQ(trace.images[size_t(pass.attachments[1].image)].samples, 4u);
  EXPECT_EQ(pass.subpasses.at(0).resolve, (std::vector<int32_t>{2}));
  const json report = simulate_cli(msaa(), "mali-g710");
  const json& p = report["frames"][0]["passes"][0];
  EXPECT_EQ(dram(p, "dram_nominal", "resolve", "write_bytes"), 256u * 256 * 4);
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_store", "write_bytes"), 0u);
  EXPECT_EQ(p["attachments"][2]["pixels"], "captured");
}

// The MSAA sample draws indexed (16-bit indices, triangles in reverse order) through a
// negative-height viewport: the trace's geometry must cover the pixels the program covered. The
// resolved output as simulated (stand-in color, contents dropped) against the captured final image:
// a pixel is covered when it is not the clear color; at most 0.5% differ, all within 1 px of an edge.
TEST_F(CaptureTest, MsaaIndexedFlippedDrawCoversTheCapturedPixels) {
  ASSERT_TRUE(msaa().ok) << msaa().log;
  Trace trace = read_trace(msaa().trace);
  Pass& pass = trace.frames[0].passes.at(0);
  const Draw& draw = pass.subpasses.at(0).draws.at(0);
  const Mesh& mesh = trace.meshes[size_t(draw.mesh)];
  EXPECT_EQ(mesh.indices, (std::vector<uint32_t>{6, 7, 8, 3, 4, 5, 0, 1, 2}));
  EXPECT_EQ(mesh.index_bits, 16u);
  // scene.vert's first vertex (-0.8, -0.7, 0.5) with y negated for the y-up viewport.
  EXPECT_EQ(mesh.positions.at(0), Vec4(-0.8f, 0.7f, 0.5f, 1.0f));
  EXPECT_EQ(draw.state.front_face, FrontFace::clockwise);  // swapped with the flip
  expect_color_coverage_matches(trace, 0, 2, "msaa_resolve");
}

// Vulkan's point size is the vertex shader's PointSize output (Vulkan "Points"): vk_sample's points.vert
// writes 6, read from RenderDoc's post-vertex-shader data. Its nine 6x6 squares (centres on pixel
// corners of the 256x256 target, so each covers 36 pixel centres) are the captured ones pixel for pixel.
TEST_F(CaptureTest, VulkanPointSizeIsTheVertexShaders) {
  ASSERT_TRUE(points().ok) << points().log;
  Trace trace = read_trace(points().trace);
  Pass& pass = trace.frames[0].passes.at(0);
  EXPECT_EQ(pass.subpasses.at(0).draws.at(0).point_size, 6.0f);
  ASSERT_TRUE(pass.attachments.at(0).contents.has_value());
  const std::vector<Vec4> captured = pass.attachments[0].contents->pixels;
  pass.attachments[0].contents.reset();
  const Surface out = simulated_attachment(trace, "att0", 0);
  ASSERT_EQ(size_t(out.width) * out.height, captured.size());
  const Vec4 clear(0.05f, 0.05f, 0.08f, 1.0f);
  size_t covered = 0, differ = 0;
  for (size_t i = 0; i < captured.size(); ++i) {
    const bool in_capture = (captured[i] - clear).cwiseAbs().maxCoeff() > 0.5f / 255.0f;
    const bool in_sim = (out.color[i] - clear).cwiseAbs().maxCoeff() > 0.5f / 255.0f;
    covered += in_capture;
    differ += in_capture != in_sim;
  }
  EXPECT_EQ(covered, 9u * 36u);
  EXPECT_EQ(differ, 0u);
}

// The commands around render passes: a mid-pass vkCmdClearAttachments becomes a subpass clear, an
// image barrier a barrier pass, vkCmdBlitImage / vkCmdCopyImage blit and copy passes, each with
// the DRAM traffic of its regions; vkCmdClearColorImage / vkCmdClearDepthStencilImage render passes
// of no draws (CLEAR / STORE over the level); the compute dispatch a captured_compute pass writing
// the storage image as captured, its time the invocations at the SPIR-V's cost.
TEST_F(CaptureTest, ClearsBarriersBlitsAndCopiesAreCarried) {
  ASSERT_TRUE(transfers().ok) << transfers().log;
  const Trace trace = read_trace(transfers().trace);
  const auto& passes = trace.frames[0].passes;
  ASSERT_EQ(pass_types(trace), (std::vector<PassType>{PassType::render, PassType::barrier, PassType::blit, PassType::copy,
                                                      PassType::barrier, PassType::render, PassType::render,
                                                      PassType::barrier, PassType::compute}));
  // vkCmdClearColorImage (green) of the 128x128 storage image, vkCmdClearDepthStencilImage (0.5) of
  // a 256x256 D32F image: one attachment each, cleared and stored, in the layout the command names.
  for (size_t i : {size_t(5), size_t(6)}) {
    EXPECT_EQ(passes[i].name, "clear" + std::to_string(i));
    ASSERT_EQ(passes[i].attachments.size(), 1u);
    EXPECT_EQ(passes[i].attachments[0].load, LoadOp::clear);
    EXPECT_EQ(passes[i].attachments[0].store, StoreOp::store);
    EXPECT_EQ(passes[i].attachments[0].old_layout, Layout::transfer_dst);
    EXPECT_TRUE(passes[i].subpasses.at(0).draws.empty());
  }
  EXPECT_EQ(passes[5].attachments[0].clear.color, Vec4(0, 1, 0, 1));
  ASSERT_TRUE(passes[5].render_area.has_value());
  EXPECT_EQ(passes[5].render_area->width, 128u);
  EXPECT_EQ(trace.images[size_t(passes[6].attachments[0].image)].format, Format::D32F);
  EXPECT_EQ(passes[6].attachments[0].clear.depth, 0.5f);
  // The dispatch: 16 x 16 groups of 8 x 8 invocations (fill.comp's local size) writing the 128x128
  // RGBA8 storage image, carried with its pixels; no buffer, so no warning.
  EXPECT_TRUE(trace.warnings.empty()) << trace.warnings.at(0);
  const Pass& dispatch = passes[8];
  EXPECT_EQ(dispatch.name, "compute8");
  EXPECT_EQ(dispatch.program.name, "captured_compute");
  EXPECT_EQ(dispatch.invocations, 16u * 16 * 8 * 8);
  EXPECT_GT(dispatch.cost.alu, 0.0f);
  ASSERT_EQ(dispatch.writes.size(), 1u);
  EXPECT_EQ(dispatch.writes[0].image, passes[5].attachments[0].image);  // the image clear5 cleared
  ASSERT_TRUE(dispatch.writes[0].contents.has_value());
  ASSERT_EQ(passes[0].subpasses.at(0).clears.size(), 1u);
  const MidPassClear& clear = passes[0].subpasses[0].clears[0];
  EXPECT_EQ(clear.before_draw, 1u);
  EXPECT_EQ(clear.color, (std::vector<int32_t>{0}));
  EXPECT_EQ(clear.value.color, Vec4(1, 0, 0, 1));
  ASSERT_EQ(clear.rects.size(), 1u);
  EXPECT_EQ(clear.rects[0].x, 16);
  EXPECT_EQ(clear.rects[0].width, 64u);
  ASSERT_EQ(passes[1].barriers.size(), 2u);
  EXPECT_EQ(passes[1].barriers[0].old_layout, Layout::undefined);
  EXPECT_EQ(passes[1].barriers[0].new_layout, Layout::transfer_dst);
  EXPECT_EQ(passes[2].blit_filter, Filter::bilinear);

  const json report = simulate_cli(transfers(), "reference");
  const json& blit = report["frames"][0]["passes"][2];
  const json& copy = report["frames"][0]["passes"][3];
  EXPECT_EQ(dram(blit, "dram_nominal", "attachment_store", "write_bytes"), 128u * 128 * 4);
  EXPECT_EQ(dram(blit, "dram_nominal", "image_sample", "read_bytes"), 256u * 256 * 4);
  EXPECT_EQ(dram(copy, "dram_nominal", "attachment_store", "write_bytes"), 256u * 256 * 4);
  // The dispatch writes the whole 128x128 RGBA8 level; its ALU time is invocations x cost / 32
  // lane-instructions per clock (reference: one core); the stored level is the captured gradient.
  const json& compute = report["frames"][0]["passes"][8];
  EXPECT_EQ(dram(compute, "dram_nominal", "attachment_store", "write_bytes"), 128u * 128 * 4);
  EXPECT_DOUBLE_EQ(compute["cycles"]["breakdown"]["alu"].get<double>(), 16.0 * 16 * 8 * 8 * dispatch.cost.alu / 32);
  const fs::path stored = transfers().dir / "images_reference" /
                          ("f0_p08_compute8_out0_" + trace.images[size_t(dispatch.writes[0].image)].name + ".png");
  const Command same = run(kBuild + "tbdrsim diff '" + stored.string() + "' '" +
                               (transfers().trace.parent_path() / dispatch.writes[0].contents->source).string() + "' --tolerance 0",
                           transfers().dir);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("0 of 16384 pixels differ"), std::string::npos) << same.out;
  EXPECT_EQ(dram(copy, "dram_nominal", "image_sample", "read_bytes"), 256u * 256 * 4);
  const json& clear_color = report["frames"][0]["passes"][5];
  const json& clear_depth = report["frames"][0]["passes"][6];
  EXPECT_EQ(dram(clear_color, "dram_nominal", "attachment_store", "write_bytes"), 128u * 128 * 4);
  EXPECT_EQ(dram(clear_color, "dram_nominal", "attachment_load", "read_bytes"), 0u);
  EXPECT_EQ(dram(clear_depth, "dram_nominal", "attachment_store", "write_bytes"), 256u * 256 * 4);
  EXPECT_TRUE(fs::exists(transfers().dir / "transfers_captured" / "final_2d_image_136.png"));
}

// Vulkan 1.3: vkCmdBeginRendering's attachment infos give the pass's load, store and clear values
// (the same enums RenderDoc's export lists), vkCmdPipelineBarrier2's image barriers barrier passes
// with their layout transitions, an indirect draw its draws; the triangles cover the captured pixels.
TEST_F(CaptureTest, DynamicRenderingSync2AndIndirectAreCarried) {
  ASSERT_TRUE(dynamic_rendering().ok) << dynamic_rendering().log;
  const Trace trace = read_trace(dynamic_rendering().trace);
  EXPECT_TRUE(trace.warnings.empty());
  EXPECT_EQ(trace_ops(trace), captured_ops(dynamic_rendering()));
  const std::vector<std::pair<std::string, std::string>> expected = {{"clear", "store"}, {"clear", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  const auto& passes = trace.frames[0].passes;
  ASSERT_EQ(pass_types(trace),
            (std::vector<PassType>{PassType::barrier, PassType::barrier, PassType::render, PassType::barrier}));
  ASSERT_EQ(passes[0].barriers.size(), 1u);
  EXPECT_EQ(passes[0].barriers[0].new_layout, Layout::color_attachment);
  EXPECT_EQ(passes[3].barriers.at(0).new_layout, Layout::transfer_src);
  EXPECT_TRUE(trace.images[size_t(passes[2].attachments.at(1).image)].transient);
  // vkCmdDrawIndirect with drawCount 2: RenderDoc's two sub-commands (3 and 6 vertices) as two draws.
  const auto& draws = passes[2].subpasses.at(0).draws;
  ASSERT_EQ(draws.size(), 2u);
  EXPECT_EQ(trace.meshes[size_t(draws[0].mesh)].positions.size(), 3u);
  EXPECT_EQ(trace.meshes[size_t(draws[1].mesh)].positions.size(), 6u);
  const json report = simulate_cli(dynamic_rendering(), "mali-g710");
  const json& p = report["frames"][0]["passes"][2];
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_store", "write_bytes"), 256u * 256 * 4);
  EXPECT_EQ(dram(p, "dram_nominal", "attachment_load", "read_bytes"), 0u);
  expect_color_coverage_matches(trace, 2, 0, "dynamic_rendering");
}

}  // namespace
