// Captured frames end to end (ctest label `external`): vkcube and the tools/samples programs
// captured on lavapipe under Xvfb (tools/capture), converted (tools/rdc2trace) and simulated.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tests/report_draw_sums.h"

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace tbdr;

namespace {

struct Command {
  int exit_code = -1;
  std::string out, err;
};

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

const std::string kTools = TBDR_SOURCE_DIR + "/tools/";
const std::string kBuild = TBDR_BINARY_DIR + "/";

// One capture + conversion per program, shared by the tests of the suite.
struct Captured {
  fs::path dir, rdc, trace;
  std::string log;
  bool ok = false;
};

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
    case Topology::triangle_list: break;
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

// Pixels covered in the capture vs the simulation: how many differ, and how many of those lie
// farther than 1 px (pixel centre to segment) from every triangle edge.
struct CoverageDiff {
  uint64_t covered = 0, differing = 0, far_from_edges = 0;
  double fraction() const { return covered ? double(differing) / double(covered) : 1.0; }
};

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
void expect_coverage_matches(const CoverageDiff& d, const char* what, uint64_t min_covered = 10000) {
  std::printf("%s coverage: %llu covered pixels in the capture, %llu differ (%.4f%%), %llu farther than 1 px "
              "from an edge\n",
              what, (unsigned long long)d.covered, (unsigned long long)d.differing, d.fraction() * 100.0,
              (unsigned long long)d.far_from_edges);
  EXPECT_GT(d.covered, min_covered) << what;
  EXPECT_LE(d.fraction(), 0.005) << what;
  EXPECT_EQ(d.far_from_edges, 0u) << what;
}

// Runs `trace` (reference preset) and returns the surface pass 0 stores into attachment `slot`.
Surface simulated_attachment(const Trace& trace, const std::string& slot, uint32_t pass_index = 0) {
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

// The samples' clear color (0.05, 0.05, 0.08, 1) as RGBA8.
const Vec4 kSampleClear(13 / 255.0f, 13 / 255.0f, 20 / 255.0f, 1.0f);

// The samples' stored output as simulated (stand-in color, contents dropped) against the captured
// image: a pixel is covered when it is not the clear color.
void expect_color_coverage_matches(Trace trace, uint32_t pass_index, size_t att, const char* what,
                                   const Vec4& clear = kSampleClear, uint64_t min_covered = 10000) {
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

// How a glmark2 scene's final image is compared with the capture (traces/README.md's rule, above): by depth
// coverage when its draws test and write depth, by color coverage against the clear color when they
// do not, or, for a frame of clears only, pixel for pixel.
enum class ImageRule { depth, color, clear_only };

// glmark2-es2 2023.01's scenes (`glmark2-es2 --list-scenes`) not captured one by one in the tests
// above, each with its scene options, how its image is compared, the images its draws sample
// (material textures) and the glmark2 data files each of them must equal (texture i: any one of list
// i; jellyfish's caustics image is one of 32, chosen by the clock). Two scenes cover fewer pixels than
// the image rule's 10,000 at the captured moment, so their comparison has a lower floor (0.5% and
// the 1 px edge rule unchanged): `ideas` animates by the wall clock alone (no frame-count mode), so
// its frame would differ from run to run (a later moment draws its lamp's lines as GL_LINE_STRIP,
// which a trace cannot carry, warned); it runs with its clock frozen at the story's start (speed=0):
// 180 draws, table and lamp unlit, 52 pixels written with the depth test on. `pulsar` turns its
// quads by the clock from edge-on: its second frame covered about a thousand pixels on a busy machine
// and none on an idle one, so its 40th is captured (nframes=40).
struct Glmark2Scene {
  std::string name;
  std::string options;
  ImageRule rule;
  uint64_t min_covered;
  size_t textures;
  std::vector<std::vector<std::string>> texture_files;
  uint32_t frames = 2;  // nframes: the last one is captured
};

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

// Each capture is made on first use, once per process, in a folder of its own: ctest runs every
// test in its own process, two at a time, so nothing is shared between processes.
class CaptureTest : public ::testing::Test {
 protected:
  static std::map<std::string, Captured>& captures() {
    static std::map<std::string, Captured> made;
    return made;
  }
  static const Captured& get(const std::string& name, const std::string& options, const std::string& args) {
    auto it = captures().find(name);
    if (it == captures().end()) it = captures().emplace(name, capture(name, options, args)).first;
    return it->second;
  }
  // vkcube runs 30 frames (tools/capture ends it after the capture): frame 3 is then never missed
  // because the program finished before the capture was queued, however loaded the machine.
  static const Captured& vkcube() { return get("vkcube", "vkcube --frame 3", "--c 30 --suppress_popups"); }
  static const Captured& deferred_subpass() {
    return get("deferred_subpass", kBuild + "vk_sample --frame 2", "deferred_subpass 3");
  }
  static const Captured& deferred_two_pass() {
    return get("deferred_two_pass", kBuild + "vk_sample --frame 2", "deferred_two_pass 3");
  }
  static const Captured& msaa() { return get("msaa_resolve", kBuild + "vk_sample --frame 2", "msaa_resolve 3"); }
  static const Captured& transfers() { return get("transfers", kBuild + "vk_sample --frame 2", "transfers 3"); }
  static const Captured& textures() { return get("textures", kBuild + "vk_sample --frame 2", "textures 3"); }
  // Direct3D 12 through vkd3d (Debian vkd3d-demos): vkd3d-gears presents through a Vulkan swapchain.
  static const Captured& vkd3d_gears() { return get("vkd3d_gears", "vkd3d-gears --frame 5", ""); }
  // glmark2-es2 (Debian glmark2-es2-x11) runs each scene for `duration` seconds: 10 s leaves frame 5
  // to a loaded machine; tools/capture ends the program once the frame is captured.
  static const Captured& glmark2(const std::string& scene) {
    return get("glmark2_" + scene, "glmark2-es2 --frame 5", "-b " + scene + ":duration=10 -s 640x480");
  }
  static const Captured& gl_sample() { return get("gl_sample", kBuild + "gl_sample --frame 3", "10"); }
  // terrain is glmark2's heaviest scene on llvmpipe: 640x480 does not reach frame 5 in a minute on
  // this machine; 320x240 reaches frame 2 in seconds.
  static const Captured& glmark2_terrain() {
    return get("glmark2_terrain", "glmark2-es2 --frame 2", "-b terrain:duration=60 -s 320x240");
  }
  static const Captured& dynamic_rendering() {
    return get("dynamic_rendering", kBuild + "vk_sample --frame 2", "dynamic_rendering 3");
  }
  static const Captured& gl_sample_copy_tex_image() {
    return get("gl_sample_copy_tex_image", kBuild + "gl_sample --frame 3", "--copy-tex-image 10");
  }
  static const Captured& gl_sample_indirect() {
    return get("gl_sample_indirect", kBuild + "gl_sample --frame 3", "--indirect 10");
  }
  static const Captured& gl_sample_desktop() {
    return get("gl_sample_desktop", kBuild + "gl_sample --frame 3", "--desktop 10");
  }
  // Endless Sky (Debian endless-sky, SDL2 + GLEW, an OpenGL 3 core-profile context through GLX) at
  // frame 10 of its start, in a 480x320 window: its preferences live in a private XDG_DATA_HOME.
  static const Captured& endless_sky() {
    auto it = captures().find("endless_sky");
    if (it != captures().end()) return it->second;
    const fs::path data = scratch_root() / "endless_sky_data";
    fs::create_directories(data / "endless-sky");
    std::ofstream(data / "endless-sky" / "preferences.txt") << "\"window size\" 480 320\n";
    const char* before = std::getenv("XDG_DATA_HOME");
    const std::string saved = before ? before : "";
    setenv("XDG_DATA_HOME", data.c_str(), 1);
    const Captured& c = get("endless_sky", "/usr/games/endless-sky --frame 10", "");
    if (before)
      setenv("XDG_DATA_HOME", saved.c_str(), 1);
    else
      unsetenv("XDG_DATA_HOME");
    fs::remove_all(data);
    return c;
  }
  // The scenes of glmark2_corpus_scenes() in one launch at 320x240: each runs its `frames` frames
  // (nframes, so a scene's frames have the same numbers however fast the machine is) and its last is
  // captured.
  static const Captured& glmark2_corpus(const std::string& scene) {
    if (captures().find("glmark2_" + scene) == captures().end()) {
      std::vector<std::pair<std::string, uint32_t>> frames;
      std::string args = "-s 320x240";
      uint32_t first = 0;
      for (const Glmark2Scene& s : glmark2_corpus_scenes()) {
        first += s.frames;
        frames.push_back({"glmark2_" + s.name, first - 1});
        args += " -b " + s.name + ":nframes=" + std::to_string(s.frames) + s.options;
      }
      for (const auto& [name, c] : capture_frames("glmark2-es2", frames, args)) captures().emplace(name, c);
    }
    return captures().at("glmark2_" + scene);
  }
  static void TearDownTestSuite() {
    for (const auto& [name, c] : captures()) remove_scratch(c.dir);
    captures().clear();
  }
};

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
  EXPECT_EQ(bc7.format, TextureFormat::ETC2_RGBA8);  // BC7's 16 B blocks
  EXPECT_EQ(r8.format, TextureFormat::RGBA8);
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
// size) bound to the draw. The stand-in program reads it at the same pixel (the UVs are not carried):
// one texel per pixel of the 640x480 window, so nominal `texture` bytes = the texels so reached.
TEST_F(CaptureTest, Glmark2MaterialTextureIsCarried) {
  const Captured& c = glmark2("effect2d");
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  EXPECT_TRUE(trace.warnings.empty());
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
    EXPECT_TRUE(trace.warnings.empty()) << trace.warnings.at(0);
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
  EXPECT_TRUE(trace.warnings.empty());
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

// A game from Debian's archive: Endless Sky's start (the loading screen's 2D sprites, or the menu
// when loading was quick) through a core-profile OpenGL context: one pass into the window, a full
// glClear at its start (clear) and glXSwapBuffers at its end (color store, depth dont_care), its
// draws those of the capture's chunk stream, its sprites carried as material textures, its 24-bit
// window surface as RGBA8 with its captured pixels.
TEST_F(CaptureTest, EndlessSkyFrameIsOneWindowPass) {
  const Captured& c = endless_sky();
  ASSERT_TRUE(c.ok) << c.log;
  const Trace trace = read_trace(c.trace);
  for (const std::string& w : trace.warnings)  // the 24-bit window surface is the only thing not carried
    EXPECT_NE(w.find("R8G8B8_UNORM has no trace equivalent; carried as RGBA8"), std::string::npos) << w;
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

// Bad input around OpenGL ES captures: a damaged capture (the build scene's cut in half), a capture
// of an unsupported API and a frame past the program's end: one line naming the file or program,
// exit code 2, nothing written.
TEST_F(CaptureTest, DamagedOtherApiAndFramePastTheEndAreOneLine) {
  const Captured& c = glmark2("build");
  ASSERT_TRUE(c.ok) << c.log;
  const fs::path dir = scratch_root() / "gl_bad_input";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string whole = read_file(c.rdc);
  std::ofstream(dir / "damaged.rdc", std::ios::binary) << whole.substr(0, whole.size() / 2);
  const Command r = run(kTools + "rdc2trace damaged.rdc -o out/frame.json", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("damaged.rdc"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  // A capture of an API the converter does not read: the header's driver (RDCDriver 9, "OpenGLES",
  // in the capture's metadata after the thumbnail) rewritten to id 4 and the same-length "Direct3D".
  std::string d3d = whole;
  const size_t name = d3d.find(std::string("OpenGLES\0", 9));
  ASSERT_NE(name, std::string::npos);
  ASSERT_GE(name, 5u);
  ASSERT_EQ(d3d.substr(name - 5, 5), std::string("\x09\x00\x00\x00\x09", 5));
  d3d[name - 5] = '\x04';
  d3d.replace(name, 9, std::string("Direct3D\0", 9));
  std::ofstream(dir / "direct3d.rdc", std::ios::binary) << d3d;
  const Command api = run(kTools + "rdc2trace direct3d.rdc -o out/frame.json", dir);
  EXPECT_EQ(api.exit_code, 2);
  EXPECT_NE(api.err.find("direct3d.rdc: a Direct3D capture"), std::string::npos) << api.err;
  EXPECT_EQ(std::count(api.err.begin(), api.err.end(), '\n'), 1) << api.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
  const Command past = run(kTools + "capture glmark2-es2 --frame 100000 --out past.rdc -- -b build:duration=1 -s 64x64", dir);
  EXPECT_EQ(past.exit_code, 2);
  EXPECT_NE(past.err.find("glmark2-es2: the program ended before frame 100000"), std::string::npos) << past.err;
  EXPECT_EQ(std::count(past.err.begin(), past.err.end(), '\n'), 1) << past.err;
  EXPECT_FALSE(fs::exists(dir / "past.rdc"));
  remove_scratch(dir);
}

// A GFXReconstruct recording of vkcube (made here with the gfxreconstruct layer) replayed by
// gfxrecon-replay under tools/capture: the same render pass and draw as the live program.
TEST(CaptureTools, GfxrRecordingIsReplayedAndCaptured) {
  const fs::path dir = scratch_root() / "gfxr";
  fs::create_directories(dir);
  const Command record = run("VK_INSTANCE_LAYERS=VK_LAYER_LUNARG_gfxreconstruct GFXRECON_CAPTURE_FILE=cube.gfxr "
                             "GFXRECON_CAPTURE_FILE_TIMESTAMP=false " + kTools + "lavapipe_run vkcube --c 12 --suppress_popups",
                             dir);
  ASSERT_EQ(record.exit_code, 0) << record.err;
  ASSERT_TRUE(fs::exists(dir / "cube.gfxr"));
  Captured c;
  c.dir = dir;
  c.rdc = dir / "cube.rdc";
  c.trace = dir / "cube.json";
  const Command cap = run(kTools + "capture cube.gfxr --frame 3 --out cube.rdc", dir);
  ASSERT_EQ(cap.exit_code, 0) << cap.err;
  const Command conv = run(kTools + "rdc2trace cube.rdc -o cube.json", dir);
  ASSERT_EQ(conv.exit_code, 0) << conv.err;
  const Trace trace = read_trace(c.trace);
  const std::vector<std::pair<std::string, std::string>> expected = {{"clear", "store"}, {"clear", "dont_care"}};
  EXPECT_EQ(trace_ops(trace), expected);
  EXPECT_EQ(captured_ops(c), expected);
  const Draw& draw = trace.frames[0].passes.at(0).subpasses.at(0).draws.at(0);
  EXPECT_EQ(trace.meshes[size_t(draw.mesh)].positions.size(), 36u);
  remove_scratch(dir);
}

// Several frames in one launch: their output names need {frame} (tools/capture) or {name}
// (tools/rdc2trace), and when one frame is never reached none is written: one line, exit code 2.
TEST(CaptureTools, SeveralFramesAreAllWrittenOrNone) {
  const fs::path dir = scratch_root() / "several_frames";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto expect_one_line = [&](const Command& r, const std::string& text) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  };
  expect_one_line(run(kTools + "capture glmark2-es2 --frame 1,3 --out x.rdc", dir), "--out x.rdc: several frames need {frame}");
  expect_one_line(run(kTools + "capture glmark2-es2 --frame 3,3 --out 'x{frame}.rdc'", dir), "--frame 3,3: expected");
  expect_one_line(run(kTools + "rdc2trace a.rdc b.rdc -o out.json", dir), "-o out.json: several captures need {name}");
  const Command past = run(kTools + "capture glmark2-es2 --frame 1,100000 --out 'past{frame}.rdc' -- -b build:nframes=3 -s 64x64", dir);
  expect_one_line(past, "glmark2-es2: the program ended before frame 100000 was captured");
  for (const auto& e : fs::directory_iterator(dir)) ADD_FAILURE() << "written: " << e.path();
  remove_scratch(dir);
}

// Bad input: one line naming the file, exit code 2, nothing written.
TEST(CaptureTools, BadInputIsOneLineAndWritesNothing) {
  const fs::path dir = scratch_root() / "bad_input";
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream(dir / "not_a_capture.rdc") << "this is not a RenderDoc capture\n";
  }
  for (const std::string& input : {std::string("missing.rdc"), std::string("not_a_capture.rdc")}) {
    const Command r = run(kTools + "rdc2trace " + input + " -o out.json", dir);
    EXPECT_EQ(r.exit_code, 2) << input;
    EXPECT_NE(r.err.find(input), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out.json"));
    EXPECT_FALSE(fs::exists(dir / "out.bin"));
    EXPECT_FALSE(fs::exists(dir / "out_captured"));
  }
  const Command r = run(kTools + "capture no-such-program --out x.rdc", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no-such-program"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir / "x.rdc"));
  // Hidden staging folders are gone too.
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_NE(e.path().filename().string()[0], '.') << e.path();
  remove_scratch(dir);
}

}  // namespace
