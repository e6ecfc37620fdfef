// Shared by the captured-frame tests (tests/capture_*_test.cpp, ctest label `external`): running
// tools/capture and tools/rdc2trace once per program, the coverage comparisons and the CaptureTest fixture.
#pragma once

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

struct Command {
  int exit_code = -1;
  std::string out, err;
};

inline const std::string kTools = TBDR_SOURCE_DIR + "/tools/";
inline const std::string kBuild = TBDR_BINARY_DIR + "/";

// One capture + conversion per program, shared by the tests of the suite.
struct Captured {
  fs::path dir, rdc, trace;
  std::string log;
  bool ok = false;
};

// Pixels covered in the capture vs the simulation: how many differ, and how many of those lie
// farther than 1 px (pixel centre to segment) from every triangle edge.
struct CoverageDiff {
  uint64_t covered = 0, differing = 0, far_from_edges = 0;
  double fraction() const { return covered ? double(differing) / double(covered) : 1.0; }
};

// The samples' clear color (0.05, 0.05, 0.08, 1) as RGBA8.
inline const Vec4 kSampleClear(13 / 255.0f, 13 / 255.0f, 20 / 255.0f, 1.0f);

// How a glmark2 scene's final image is compared with the capture (traces/README.md's rule): by depth
// coverage when its draws test and write depth, by color coverage against the clear color when they
// do not, or, for a frame of clears only, pixel for pixel.
enum class ImageRule { depth, color, clear_only };

// glmark2-es2 2023.01's scenes (`glmark2-es2 --list-scenes`) not captured one by one by tests of
// their own, each with its scene options, how its image is compared, the images its draws sample
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

// ---- helpers (tests/capture_common.cpp) ----

std::string read_file(const fs::path& p);
Command run(const std::string& line, const fs::path& dir);
fs::path scratch_root();
void remove_scratch(const fs::path& dir);
Captured capture(const std::string& name, const std::string& options, const std::string& program_args);
std::map<std::string, Captured> capture_frames(const std::string& program,
                                               const std::vector<std::pair<std::string, uint32_t>>& frames,
                                               const std::string& program_args);
std::vector<std::pair<std::string, std::string>> captured_ops(const Captured& c);
std::string load_name(LoadOp op);
std::string store_name(StoreOp op);
std::vector<std::pair<std::string, std::string>> trace_ops(const Trace& trace);
json simulate_cli(const Captured& c, const std::string& preset);
uint64_t dram(const json& pass, const char* ledger, const char* category, const char* direction);
double segment_distance(const Vec2& p, const Vec2& a, const Vec2& b);
std::array<size_t, 3> triangle_vertices(Topology topology, size_t i);
std::vector<std::array<Vec2, 3>> screen_triangles(const Trace& trace, const Draw& draw);
CoverageDiff compare_coverage(const std::vector<bool>& captured, const std::vector<bool>& simulated, uint32_t width,
                              const std::vector<std::array<Vec2, 3>>& triangles);
std::vector<size_t> gl_draws_per_binding(const Captured& c);
std::vector<std::pair<PassType, size_t>> vk_passes_of_chunks(const Captured& c);
void expect_gl_sample_dispatch_pass(const Trace& trace);
std::vector<PassType> pass_types(const Trace& trace);
// The trace's warnings but those that say where a draw's shader samples (coordinates guessed, reads
// left at the pixel's screen position): rdc2trace says so per draw by design, traces/README.md
// "Captured frames", texture coordinates.
std::vector<std::string> non_sampling_warnings(const Trace& trace);
std::vector<size_t> trace_draws_per_pass(const Trace& trace);
void expect_ledger_follows_ops(const Trace& trace, const json& report, const std::string& what);
uint64_t total_dram(const json& report);
void expect_coverage_matches(const CoverageDiff& d, const char* what, uint64_t min_covered = 10000);
Surface simulated_attachment(const Trace& trace, const std::string& slot, uint32_t pass_index = 0);
void expect_color_coverage_matches(Trace trace, uint32_t pass_index, size_t att, const char* what,
                                   const Vec4& clear = kSampleClear, uint64_t min_covered = 10000);
CoverageDiff depth_coverage(Trace trace, uint32_t pass_index, size_t att);
void expect_cleared_image_matches(Trace trace, uint32_t pass_index, const char* what);
const std::vector<Glmark2Scene>& glmark2_corpus_scenes();

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
  static const Captured& points() { return get("points", kBuild + "vk_sample --frame 2", "points 3"); }
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
