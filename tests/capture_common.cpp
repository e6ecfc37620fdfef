// The captured-frame tests' helpers: captures made and converted, traces and reports compared with
// the captures' own records (RenderDoc action lists, chunk streams, pixels).
#include "tests/capture_common.h"

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs a shell command line in `dir`, capturing stdout and stderr.
Command run(const std::string& line, const fs::path& dir) {
  const fs::path out = dir / "cmd_stdout.txt", err = dir / "cmd_stderr.txt";
  std::string cmd = "cd '" + dir.string() + "' && " + line;
  cmd += " > '" + out.string() + "' 2> '" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  Command r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

// `options` go to tools/capture (program, --frame), `program_args` to the program.
fs::path scratch_root() {
  return fs::path(TBDR_BINARY_DIR) / "test-scratch" / ("capture_" + std::to_string(getpid()));
}

// Removes `dir`, and the process's scratch root once it is empty (the CaptureTest fixture may still
// hold captures there when tests run in one process).
void remove_scratch(const fs::path& dir) {
  fs::remove_all(dir);
  std::error_code ignored;
  fs::remove(scratch_root(), ignored);
}

Captured capture(const std::string& name, const std::string& options, const std::string& program_args) {
  Captured c;
  c.dir = scratch_root() / name;
  fs::remove_all(c.dir);
  fs::create_directories(c.dir);
  c.rdc = c.dir / (name + ".rdc");
  c.trace = c.dir / (name + ".json");
  const Command cap =
      run(kTools + "capture " + options + " --out '" + c.rdc.string() + "' -- " + program_args, c.dir);
  c.log = cap.out + cap.err;
  if (cap.exit_code != 0) return c;
  // RenderDoc's replay crashed now and then on a loaded machine (a segfault in a conversion that
  // passes when rerun): tools/rdc2trace runs the replay again itself once before reporting it.
  const Command conv = run(kTools + "rdc2trace '" + c.rdc.string() + "' -o '" + c.trace.string() + "'", c.dir);
  c.log += conv.out + conv.err;
  c.ok = conv.exit_code == 0;
  return c;
}

// Several frames of one launch (tools/capture --frame A,B,...), frame `frames[i].second` becoming
// the capture `frames[i].first` in a folder of its own, all converted by one tools/rdc2trace run (one
// RenderDoc replay session: each capture after the first opens several times faster).
std::map<std::string, Captured> capture_frames(const std::string& program,
                                               const std::vector<std::pair<std::string, uint32_t>>& frames,
                                               const std::string& program_args) {
  std::map<std::string, Captured> made;
  const fs::path staging = scratch_root() / "frames_staging";
  fs::remove_all(staging);
  fs::create_directories(staging);
  std::string list, rdcs;
  for (const auto& [name, frame] : frames) {
    list += (list.empty() ? "" : ",") + std::to_string(frame);
    Captured& c = made[name];
    c.dir = scratch_root() / name;
    fs::remove_all(c.dir);
    fs::create_directories(c.dir);
    c.rdc = c.dir / (name + ".rdc");
    c.trace = c.dir / (name + ".json");
    rdcs += " '" + c.rdc.string() + "'";
  }
  const auto start = std::chrono::steady_clock::now();
  const Command cap = run(kTools + "capture " + program + " --frame " + list + " --out 'frame{frame}.rdc' -- " + program_args,
                          staging);
  const auto captured = std::chrono::steady_clock::now();
  std::string log = cap.out + cap.err;
  bool ok = cap.exit_code == 0;
  for (const auto& [name, frame] : frames)
    if (ok) fs::rename(staging / ("frame" + std::to_string(frame) + ".rdc"), made[name].rdc);
  remove_scratch(staging);
  if (ok) {  // a crashed replay is rerun by tools/rdc2trace itself
    const Command conv = run(kTools + "rdc2trace" + rdcs + " -o '" + (scratch_root() / "{name}" / "{name}.json").string() + "'",
                             scratch_root());
    log += conv.out + conv.err;
    ok = conv.exit_code == 0;
  }
  const auto seconds = [](auto from, auto to) { return std::chrono::duration<double>(to - from).count(); };
  std::printf("%zu frames of %s: captured in %.1f s (one launch), converted in %.1f s (one rdc2trace)\n", frames.size(),
              program.c_str(), seconds(start, captured), seconds(captured, std::chrono::steady_clock::now()));
  for (auto& [name, c] : made) {
    c.ok = ok;
    c.log = log;
  }
  return made;
}

// The load/store ops of every render pass the capture created, in creation order, read from
// RenderDoc's own XML export (renderdoccmd convert): an independent reading of the same chunks.
std::vector<std::pair<std::string, std::string>> captured_ops(const Captured& c) {
  const fs::path xml = c.dir / "capture.xml";
  const Command r = run("renderdoccmd convert -f '" + c.rdc.string() + "' -o '" + xml.string() + "' -c xml", c.dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(xml);
  const std::regex op(R"re(<enum name="(loadOp|storeOp)" typename="VkAttachment(?:Load|Store)Op" string="VK_ATTACHMENT_(?:LOAD|STORE)_OP_([A-Z_]+)")re");
  std::vector<std::pair<std::string, std::string>> ops;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), op); it != std::sregex_iterator(); ++it) {
    std::string value = (*it)[2];
    std::transform(value.begin(), value.end(), value.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
    if ((*it)[1] == "loadOp")
      ops.push_back({value, ""});
    else if (!ops.empty())
      ops.back().second = value;
  }
  return ops;
}

std::string load_name(LoadOp op) {
  switch (op) {
    case LoadOp::load: return "load";
    case LoadOp::clear: return "clear";
    case LoadOp::dont_care: return "dont_care";
    case LoadOp::none: return "none";
  }
  return "?";
}

std::string store_name(StoreOp op) {
  switch (op) {
    case StoreOp::store: return "store";
    case StoreOp::dont_care: return "dont_care";
    case StoreOp::none: return "none";
  }
  return "?";
}

std::vector<std::pair<std::string, std::string>> trace_ops(const Trace& trace) {
  std::vector<std::pair<std::string, std::string>> ops;
  for (const Pass& p : trace.frames.at(0).passes)
    for (const Attachment& a : p.attachments) ops.push_back({load_name(a.load), store_name(a.store)});
  return ops;
}

json simulate_cli(const Captured& c, const std::string& preset) {
  const fs::path report = c.dir / ("report_" + preset + ".json");
  const Command r = run(kBuild + "tbdrsim run '" + c.trace.string() + "' --preset " + preset + " --quiet --out '" +
                            (c.dir / ("images_" + preset)).string() + "' --json '" + report.string() + "'",
                        c.dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json parsed = json::parse(read_file(report));
  // Every captured frame's per-draw costs add up to its passes, as the bundled traces' do.
  test::expect_draw_costs_sum_to_passes(parsed);
  return parsed;
}

uint64_t dram(const json& pass, const char* ledger, const char* category, const char* direction) {
  return pass[ledger]["by_category"][category][direction].get<uint64_t>();
}

// Distance from point p to segment ab.
double segment_distance(const Vec2& p, const Vec2& a, const Vec2& b) {
  const Vec2 ab = b - a;
  const double len2 = double(ab.squaredNorm());
  const double t = len2 > 0 ? std::clamp(double((p - a).dot(ab)) / len2, 0.0, 1.0) : 0.0;
  return double((a + ab * float(t) - p).norm());
}

// The vertex positions (into the index stream) of triangle `i` of a list, strip or fan; a strip's odd
// triangles swap two vertices so that every triangle keeps the strip's winding (Khronos: OpenGL ES
// 3.2 and Vulkan 1.3 specifications, "Triangle Strips" and "Triangle Fans").
std::array<size_t, 3> triangle_vertices(Topology topology, size_t i) {
  switch (topology) {
    case Topology::triangle_strip: return i % 2 ? std::array<size_t, 3>{i + 1, i, i + 2} : std::array<size_t, 3>{i, i + 1, i + 2};
    case Topology::triangle_fan: return {i + 1, i + 2, 0};
    default: break;  // triangle_list
  }
  return {3 * i, 3 * i + 1, 3 * i + 2};
}

// The draw's triangles in framebuffer coordinates (viewport transform of its clip-space mesh,
// through its indices and topology), those the draw's cull state keeps.
std::vector<std::array<Vec2, 3>> screen_triangles(const Trace& trace, const Draw& draw) {
  const Mesh& mesh = trace.meshes[size_t(draw.mesh)];
  const Viewport vp = draw.viewport.value();
  std::vector<std::array<Vec2, 3>> triangles;
  const size_t count = mesh.indices.empty() ? mesh.positions.size() : mesh.indices.size();
  const size_t n = mesh.topology == Topology::triangle_list ? count / 3 : (count >= 3 ? count - 2 : 0);
  for (size_t i = 0; i < n; ++i) {
    std::array<Vec2, 3> t;
    const std::array<size_t, 3> v = triangle_vertices(mesh.topology, i);
    for (size_t k = 0; k < 3; ++k) {
      const Vec4& c = mesh.positions[mesh.indices.empty() ? v[k] : mesh.indices[v[k]]];
      t[k] = Vec2(vp.x + (c.x() / c.w() + 1) * vp.width / 2, vp.y + (c.y() / c.w() + 1) * vp.height / 2);
    }
    // Framebuffer y points down: counter-clockwise on screen has a negative cross product here.
    const float area = (t[1] - t[0]).x() * (t[2] - t[0]).y() - (t[1] - t[0]).y() * (t[2] - t[0]).x();
    const bool front = draw.state.front_face == FrontFace::counter_clockwise ? area < 0 : area > 0;
    const bool culled = draw.state.cull == CullMode::front_and_back || (draw.state.cull == CullMode::back && !front) ||
                        (draw.state.cull == CullMode::front && front);
    if (!culled) triangles.push_back(t);
  }
  return triangles;
}

CoverageDiff compare_coverage(const std::vector<bool>& captured, const std::vector<bool>& simulated, uint32_t width,
                              const std::vector<std::array<Vec2, 3>>& triangles) {
  CoverageDiff d;
  for (size_t i = 0; i < captured.size(); ++i) {
    d.covered += captured[i] ? 1 : 0;
    if (captured[i] == simulated[i]) continue;
    ++d.differing;
    const Vec2 centre(float(i % width) + 0.5f, float(i / width) + 0.5f);
    double nearest = 1e30;
    for (const auto& t : triangles)
      for (size_t k = 0; k < 3; ++k) nearest = std::min(nearest, segment_distance(centre, t[k], t[(k + 1) % 3]));
    if (nearest > 1.0) ++d.far_from_edges;
  }
  return d;
}

// OpenGL ES captures: the draws of every span between framebuffer bindings and flushes, read from
// RenderDoc's XML export (the chunk stream: glBindFramebuffer, glFlush/glFinish and glDraw* in call order), independent of the
// converter's replay. Each such span is one of the converter's passes in the glmark2 scenes, where
// nothing else ends a pass (traces/README.md "OpenGL ES and OpenGL captures").
std::vector<size_t> gl_draws_per_binding(const Captured& c) {
  const fs::path xml = c.dir / "capture.xml";
  const Command r = run("renderdoccmd convert -f '" + c.rdc.string() + "' -o '" + xml.string() + "' -c xml", c.dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(xml);
  const std::regex chunk(
      R"re(<chunk [^>]*name="(glBindFramebuffer|glFlush|glFinish|glDraw[A-Za-z]*)"[^>]*>\s*(?:<enum name="target"[^>]*>[^<]*</enum>\s*<ResourceId name="framebuffer"[^>]*>([0-9]+)<)?)re");
  std::vector<size_t> spans;
  std::string bound = "?", span_fb;
  bool flushed = false;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), chunk); it != std::sregex_iterator(); ++it) {
    if ((*it)[1] == "glBindFramebuffer") {
      bound = (*it)[2];
      continue;
    }
    if ((*it)[1] == "glFlush" || (*it)[1] == "glFinish") {
      flushed = true;
      continue;
    }
    if (spans.empty() || span_fb != bound || flushed) spans.push_back(0);
    span_fb = bound;
    flushed = false;
    ++spans.back();
  }
  return spans;
}

// Vulkan captures: the frame's passes as RenderDoc's XML export lists the recorded commands, in
// order: a vkCmdPipelineBarrier outside a render pass is a barrier pass, a vkCmdBeginRenderPass a
// render pass holding the vkCmdDraw* up to its vkCmdEndRenderPass (each command buffer recorded
// once and submitted once, as in vkd3d-gears's frame).
std::vector<std::pair<PassType, size_t>> vk_passes_of_chunks(const Captured& c) {
  const fs::path xml = c.dir / "capture.xml";
  const Command r = run("renderdoccmd convert -f '" + c.rdc.string() + "' -o '" + xml.string() + "' -c xml", c.dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string text = read_file(xml);
  const std::regex chunk(R"re(<chunk [^>]*name="(vkCmdPipelineBarrier|vkCmdBeginRenderPass|vkCmdEndRenderPass|vkCmdDraw)[A-Za-z0-9]*")re");
  std::vector<std::pair<PassType, size_t>> passes;
  bool inside = false;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), chunk); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    if (name == "vkCmdBeginRenderPass") {
      passes.push_back({PassType::render, 0});
      inside = true;
    } else if (name == "vkCmdEndRenderPass") {
      inside = false;
    } else if (name == "vkCmdDraw" && inside) {
      ++passes.back().second;
    } else if (name == "vkCmdPipelineBarrier" && !inside) {
      passes.push_back({PassType::barrier, 0});
    }
  }
  return passes;
}

std::vector<std::string> non_sampling_warnings(const Trace& trace) {
  std::vector<std::string> others;
  for (const std::string& w : trace.warnings)
    if (w.find("texture coordinates guessed") == std::string::npos &&
        w.find("pixel's screen position (a stand-in)") == std::string::npos)
      others.push_back(w);
  return others;
}

// gl_sample's glDispatchCompute(4, 4, 1) of 8 x 8 invocations writes its 32x32 RGBA8 image with the
// colour of a 16-byte storage buffer and samples nothing: the frame's first pass, a captured_compute
// pass with the image as captured after the dispatch, reading that buffer (16 B); no warning.
void expect_gl_sample_dispatch_pass(const Trace& trace) {
  EXPECT_TRUE(trace.warnings.empty()) << trace.warnings.at(0);
  const Pass& dispatch = trace.frames.at(0).passes.at(0);
  EXPECT_EQ(dispatch.type, PassType::compute);
  EXPECT_EQ(dispatch.program.name, "captured_compute");
  EXPECT_EQ(dispatch.invocations, 4u * 4 * 8 * 8);
  EXPECT_TRUE(dispatch.reads.empty());
  ASSERT_EQ(dispatch.writes.size(), 1u);
  const ImageDesc& image = trace.images.at(size_t(dispatch.writes[0].image));
  EXPECT_EQ(image.width, 32u);
  EXPECT_EQ(image.format, Format::RGBA8);
  ASSERT_TRUE(dispatch.writes[0].contents.has_value());
  EXPECT_TRUE(dispatch.writes[0].contents->captured);
  ASSERT_EQ(dispatch.buffer_reads.size(), 1u);
  EXPECT_TRUE(dispatch.buffer_writes.empty());
  EXPECT_EQ(trace.buffers.at(size_t(dispatch.buffer_reads[0])).size, 16u);
}

std::vector<PassType> pass_types(const Trace& trace) {
  std::vector<PassType> types;
  for (const Pass& p : trace.frames.at(0).passes) types.push_back(p.type);
  return types;
}

std::vector<size_t> trace_draws_per_pass(const Trace& trace) {
  std::vector<size_t> draws;
  for (const Pass& p : trace.frames.at(0).passes)
    if (p.type == PassType::render) draws.push_back(p.subpasses.at(0).draws.size());
  return draws;
}

// The ledger of inferred ops (mali-g710, nominal bytes): each pass reads every `load` attachment and
// writes every `store` attachment whole, and moves nothing for clear / dont_care.
void expect_ledger_follows_ops(const Trace& trace, const json& report, const std::string& what) {
  const auto& passes = trace.frames.at(0).passes;
  for (size_t i = 0; i < passes.size(); ++i) {
    if (passes[i].type != PassType::render) continue;
    uint64_t load = 0, store = 0;
    for (const Attachment& a : passes[i].attachments) {
      const ImageDesc& image = trace.images[size_t(a.image)];
      const uint64_t bytes = uint64_t(std::max(1u, image.width >> a.mip)) * std::max(1u, image.height >> a.mip) *
                             format_info(image.format).bytes_per_pixel * std::max(1u, image.samples);
      if (a.load == LoadOp::load) load += bytes;
      if (a.store == StoreOp::store) store += bytes;
    }
    const json& p = report["frames"][0]["passes"][i];
    EXPECT_EQ(dram(p, "dram_nominal", "attachment_load", "read_bytes"), load) << what << " pass " << i;
    EXPECT_EQ(dram(p, "dram_nominal", "attachment_store", "write_bytes"), store) << what << " pass " << i;
  }
}

uint64_t total_dram(const json& report) {
  uint64_t sum = 0;
  for (const json& p : report["frames"][0]["passes"])
    sum += p["dram"]["read_bytes"].get<uint64_t>() + p["dram"]["write_bytes"].get<uint64_t>();
  return sum;
}

// traces/README.md's image rule for a captured frame: at most 0.5% of the pixels covered in the capture
// differ from the simulation, and every differing pixel centre lies within 1 px of a drawn edge;
// more than `min_covered` pixels are covered, so the comparison is not vacuous.
void expect_coverage_matches(const CoverageDiff& d, const char* what, uint64_t min_covered) {
  std::printf("%s coverage: %llu covered pixels in the capture, %llu differ (%.4f%%), %llu farther than 1 px "
              "from an edge\n",
              what, (unsigned long long)d.covered, (unsigned long long)d.differing, d.fraction() * 100.0,
              (unsigned long long)d.far_from_edges);
  EXPECT_GT(d.covered, min_covered) << what;
  EXPECT_LE(d.fraction(), 0.005) << what;
  EXPECT_EQ(d.far_from_edges, 0u) << what;
}

// Runs `trace` (reference preset) and returns the surface pass 0 stores into attachment `slot`.
Surface simulated_attachment(const Trace& trace, const std::string& slot, uint32_t pass_index) {
  struct Sink : ImageSink {
    std::string slot;
    uint32_t pass_index = 0;
    Surface surface;
    void stored(const StoredImage& image) override {
      if (image.pass_index == pass_index && image.slot == slot) surface = *image.surface;
    }
  } sink;
  sink.slot = slot;
  sink.pass_index = pass_index;
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("reference"));
  simulate(trace, models, SimOptions{}, &sink);
  return sink.surface;
}

// The samples' stored output as simulated (stand-in color, contents dropped) against the captured
// image: a pixel is covered when it is not the clear color.
void expect_color_coverage_matches(Trace trace, uint32_t pass_index, size_t att, const char* what,
                                   const Vec4& clear, uint64_t min_covered) {
  Pass& pass = trace.frames[0].passes.at(pass_index);
  ASSERT_TRUE(pass.attachments.at(att).contents.has_value());
  const std::vector<Vec4> captured = pass.attachments[att].contents->pixels;
  pass.attachments[att].contents.reset();
  const Surface out = simulated_attachment(trace, "att" + std::to_string(att), pass_index);
  ASSERT_EQ(size_t(out.width) * out.height, captured.size());
  std::vector<bool> in_capture(captured.size()), in_sim(captured.size());
  for (size_t i = 0; i < captured.size(); ++i) {
    in_capture[i] = (captured[i] - clear).cwiseAbs().maxCoeff() > 0.5f / 255.0f;
    in_sim[i] = (out.color[i] - clear).cwiseAbs().maxCoeff() > 0.5f / 255.0f;
  }
  std::vector<std::array<Vec2, 3>> triangles;
  for (const Draw& draw : pass.subpasses.at(0).draws) {
    const auto more = screen_triangles(trace, draw);
    triangles.insert(triangles.end(), more.begin(), more.end());
  }
  expect_coverage_matches(compare_coverage(in_capture, in_sim, out.width, triangles), what, min_covered);
}

// The simulated depth of render pass `pass_index` (its depth attachment `att` stored, its contents
// dropped) against the depth the capture holds at the pass's last draw: a pixel is covered where
// depth < 1 (the rule of the vkcube and build tests, over every draw of the pass).
CoverageDiff depth_coverage(Trace trace, uint32_t pass_index, size_t att) {
  Pass& pass = trace.frames[0].passes.at(pass_index);
  if (!pass.attachments.at(att).contents.has_value()) {
    ADD_FAILURE() << "pass " << pass_index << " attachment " << att << " has no captured contents";
    return {};
  }
  const std::vector<Vec4> captured = pass.attachments[att].contents->pixels;
  pass.attachments[att].store = StoreOp::store;
  pass.attachments[att].contents.reset();
  const Surface depth = simulated_attachment(trace, "att" + std::to_string(att), pass_index);
  EXPECT_EQ(size_t(depth.width) * depth.height, captured.size());
  if (size_t(depth.width) * depth.height != captured.size()) return {};
  std::vector<std::array<Vec2, 3>> triangles;
  for (const Draw& draw : pass.subpasses.at(0).draws) {
    const auto more = screen_triangles(trace, draw);
    triangles.insert(triangles.end(), more.begin(), more.end());
  }
  std::vector<bool> in_capture(captured.size()), in_sim(captured.size());
  for (size_t i = 0; i < captured.size(); ++i) {
    in_capture[i] = captured[i].x() < 1.0f;
    in_sim[i] = depth.depth[i] < 1.0f;  // one sample per pixel
  }
  return compare_coverage(in_capture, in_sim, depth.width, triangles);
}

// A frame of clears only: the captured color of pass `pass_index` is the clear value everywhere
// (within half an RGBA8 step), and so is the simulated one (contents dropped).
void expect_cleared_image_matches(Trace trace, uint32_t pass_index, const char* what) {
  Pass& pass = trace.frames[0].passes.at(pass_index);
  EXPECT_TRUE(pass.subpasses.at(0).draws.empty()) << what;
  ASSERT_TRUE(pass.attachments.at(0).contents.has_value());
  const Vec4 clear = pass.attachments[0].clear.color;
  const std::vector<Vec4> captured = pass.attachments[0].contents->pixels;
  pass.attachments[0].contents.reset();
  const Surface out = simulated_attachment(trace, "att0", pass_index);
  ASSERT_EQ(size_t(out.width) * out.height, captured.size());
  size_t differing = 0;
  for (size_t i = 0; i < captured.size(); ++i)
    differing += (captured[i] - clear).cwiseAbs().maxCoeff() > 0.5f / 255.0f ||
                 (out.color[i] - clear).cwiseAbs().maxCoeff() > 0.5f / 255.0f;
  std::printf("%s: %zu of %zu pixels differ from the clear value (%.3f, %.3f, %.3f, %.3f)\n", what, differing,
              captured.size(), clear.x(), clear.y(), clear.z(), clear.w());
  EXPECT_EQ(differing, 0u) << what;
}

const std::vector<Glmark2Scene>& glmark2_corpus_scenes() {
  const std::string data = "/usr/share/glmark2/textures/";
  std::vector<std::string> caustics;
  for (int i = 1; i <= 32; ++i) caustics.push_back(data + "jellyfish-caustics-" + (i < 10 ? "0" : "") + std::to_string(i) + ".png");
  static const std::vector<Glmark2Scene> scenes = {
      {"buffer", "", ImageRule::depth, 10000, 0, {}},
      {"bump", "", ImageRule::depth, 10000, 0, {}},
      {"clear", "", ImageRule::clear_only, 0, 0, {}},
      {"conditionals", "", ImageRule::depth, 10000, 0, {}},
      {"function", "", ImageRule::depth, 10000, 0, {}},
      {"ideas", ":speed=0", ImageRule::depth, 40, 0, {}},
      {"jellyfish", "", ImageRule::color, 10000, 2, {{data + "jellyfish256.png"}, caustics}},
      {"loop", "", ImageRule::depth, 10000, 0, {}},
      {"pulsar", "", ImageRule::color, 500, 0, {}, 40},
      {"shading", "", ImageRule::depth, 10000, 0, {}},
      {"texture", "", ImageRule::depth, 10000, 1, {{data + "crate-base.png"}}},
  };
  return scenes;
}
