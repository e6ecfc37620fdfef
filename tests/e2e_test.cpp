// End-to-end tests: every bundled trace through the TBDR path at several tile sizes equals the
// IMR reference path bit for bit, and the CLI's outputs, exit codes and bad-input handling.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <nlohmann/json.hpp>
#include <stb_image.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tools/commands/output.h"

namespace fs = std::filesystem;
using namespace tbdr;

namespace {

std::vector<fs::path> bundled_traces() {
  std::vector<fs::path> traces;
  for (const char* dir : {"traces/default", "traces/features", "traces/savers"}) {
    const fs::path d = fs::path(TBDR_SOURCE_DIR) / dir;
    if (!fs::exists(d)) continue;
    for (const auto& e : fs::directory_iterator(d))
      if (e.path().extension() == ".json") traces.push_back(e.path());
  }
  std::sort(traces.begin(), traces.end());
  return traces;
}

// Every stored image of a run, keyed by frame/pass/slot, copied out of the callback.
struct CapturedImages : ImageSink {
  std::map<std::string, Surface> images;
  void stored(const StoredImage& image) override {
    images[std::to_string(image.frame) + "/" + std::to_string(image.pass_index) + "/" + image.slot] = *image.surface;
  }
};

CapturedImages run_trace(const Trace& trace, RenderPath path, const std::string& tile) {
  models::Configuration config = models::Configuration::from_preset("reference");
  if (!tile.empty()) config.set_tile(tile);
  const models::ModelSet models = models::build_models(config);
  CapturedImages captured;
  SimOptions options;
  options.path = path;
  simulate(trace, models, options, &captured);
  return captured;
}

// Counts samples that differ, over color, depth and stencil.
size_t differing_values(const Surface& a, const Surface& b) {
  size_t diff = 0;
  for (size_t i = 0; i < a.color.size(); ++i) diff += (a.color[i] != b.color[i]) ? 1 : 0;
  for (size_t i = 0; i < a.depth.size(); ++i) diff += (a.depth[i] != b.depth[i]) ? 1 : 0;
  for (size_t i = 0; i < a.stencil.size(); ++i) diff += (a.stencil[i] != b.stencil[i]) ? 1 : 0;
  return diff;
}

struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

CommandResult run_cli(const std::string& args, const fs::path& work_dir) {
  fs::create_directories(work_dir);
  const fs::path out = work_dir / "stdout.txt", err = work_dir / "stderr.txt";
  // Built piecewise: GCC 12 warns falsely (-Wrestrict, GCC bug 105329) on "literal" + string&&.
  std::string cmd = "cd '";
  cmd += work_dir.string();
  cmd += "' && '" + TBDR_BINARY_DIR + "/tbdrsim' ";
  cmd += args;
  cmd += " > '";
  cmd += out.string();
  cmd += "' 2> '";
  cmd += err.string();
  cmd += "'";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(TBDR_BINARY_DIR) / "test-scratch" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

}  // namespace

TEST(EndToEnd, BundledTracesExist) {
  const auto traces = bundled_traces();
  ASSERT_FALSE(traces.empty());
  EXPECT_TRUE(fs::exists(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json"));
}

// The proof that binning is conservative: any missed tile would leave a hole.
TEST(EndToEnd, TbdrEqualsImrForEveryBundledTraceAndTileSize) {
  for (const fs::path& path : bundled_traces()) {
    SCOPED_TRACE(path.string());
    const Trace trace = read_trace(path);
    const CapturedImages imr = run_trace(trace, RenderPath::imr, "");
    ASSERT_FALSE(imr.images.empty());
    for (const char* tile : {"8x8", "16x16", "32x32", "64x64", "24x40"}) {
      SCOPED_TRACE(tile);
      const CapturedImages tbdr = run_trace(trace, RenderPath::tbdr, tile);
      ASSERT_EQ(tbdr.images.size(), imr.images.size());
      for (const auto& [key, surface] : imr.images) {
        const auto it = tbdr.images.find(key);
        ASSERT_NE(it, tbdr.images.end()) << key;
        EXPECT_EQ(differing_values(it->second, surface), 0u) << key;
      }
    }
  }
}

namespace {

// Every counter, cycle count and stored image of two runs of one trace are the same.
void expect_same_run(const RunStats& a, const CapturedImages& a_images, const RunStats& b, const CapturedImages& b_images) {
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (size_t f = 0; f < a.frames.size(); ++f) {
    EXPECT_EQ(a.frames[f].frame_cycles, b.frames[f].frame_cycles);
    ASSERT_EQ(a.frames[f].passes.size(), b.frames[f].passes.size());
    for (size_t p = 0; p < a.frames[f].passes.size(); ++p) {
      const PassStats &x = a.frames[f].passes[p], &y = b.frames[f].passes[p];
      EXPECT_TRUE(x.counters == y.counters) << x.name;
      EXPECT_TRUE(x.dram == y.dram) << x.name;
      EXPECT_TRUE(x.dram_nominal == y.dram_nominal) << x.name;
      EXPECT_EQ(x.cycles.fragment, y.cycles.fragment) << x.name;
      EXPECT_EQ(x.cycles.breakdown.alu, y.cycles.breakdown.alu) << x.name;
    }
  }
  ASSERT_EQ(a_images.images.size(), b_images.images.size());
  for (const auto& [key, surface] : a_images.images) EXPECT_EQ(differing_values(b_images.images.at(key), surface), 0u) << key;
}

}  // namespace

// Same inputs, same outputs whatever the thread count (tools/doc/design.md "Design rules": determinism): every stored
// image and every counter of every bundled trace, under a preset with every model active. The
// three-thread run also measures its phases (tbdrsim run --time), which must change nothing
// either, and which add up to no more than the run's wall time.
TEST(EndToEnd, ThreadCountChangesNothing) {
  models::Configuration config = models::Configuration::from_preset("mali-g710");
  const models::ModelSet models = models::build_models(config);
  for (const fs::path& path : bundled_traces()) {
    SCOPED_TRACE(path.string());
    const Trace trace = read_trace(path);
    CapturedImages one, three;
    SimOptions options;
    options.threads = 1;
    const RunStats a = simulate(trace, models, options, &one);
    options.threads = 3;
    PhaseTimes phases;
    options.phase_times = &phases;
    const auto start = std::chrono::steady_clock::now();
    const RunStats b = simulate(trace, models, options, &three);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    for (double t : {phases.geometry, phases.binning, phases.tiles, phases.savers}) EXPECT_GE(t, 0.0);
    EXPECT_GT(phases.tiles, 0.0);
    EXPECT_LE(phases.geometry + phases.binning + phases.tiles + phases.savers, wall);
    expect_same_run(a, one, b, three);
  }
}

// --time's tile workers (PhaseTimes::tile_workers) on the default trace (one pass of 2,040 tiles):
// one worker at one thread, never idle at the end; three at three threads; each worker's parts
// within its span, the span within workers x the tiles phase. (No bound on how busy they were:
// that is a timing, and a loaded machine may start a helper late.)
TEST(EndToEnd, TileWorkerTimesDescribeTheWorkers) {
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("mali-g710"));
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  for (const uint32_t threads : {1u, 3u}) {
    SCOPED_TRACE(threads);
    SimOptions options;
    options.threads = threads;
    PhaseTimes phases;
    options.phase_times = &phases;
    simulate(trace, models, options, nullptr);
    const TileWorkerTimes& t = phases.tile_workers;
    EXPECT_EQ(t.workers, threads);
    EXPECT_GT(t.busy, 0.0);
    EXPECT_GE(t.start_wait, 0.0);
    EXPECT_LE(t.busy + t.start_wait + t.end_wait, t.span * (1 + 1e-9));
    EXPECT_LE(t.span, threads * phases.tiles * (1 + 1e-9));
    if (threads == 1) {
      EXPECT_EQ(t.end_wait, 0.0);  // the only worker is the last to finish
    } else {
      EXPECT_GE(t.end_wait, 0.0);
    }
  }
}

// A later simulate() in the process (a sweep's next configuration, tbdrsim run --repeat) gets the
// huge-page regions earlier ones freed, with their old contents (sim/huge_pages.cpp): it must
// still give a lone run's results. The default trace's 1080p surfaces and screen primitives are
// large enough for huge pages; a run under another preset (other tiles, other models) in between
// leaves other contents in them than the first run's own.
TEST(EndToEnd, SimulatingAgainInTheProcessChangesNothing) {
  const models::ModelSet models = models::build_models(models::Configuration::from_preset("mali-g710"));
  const models::ModelSet other_models = models::build_models(models::Configuration::from_preset("powervr"));
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  SimOptions options;
  options.threads = 2;
  CapturedImages first_images, other_images, again_images;
  const RunStats first = simulate(trace, models, options, &first_images);
  simulate(trace, other_models, options, &other_images);
  const RunStats again = simulate(trace, models, options, &again_images);
  expect_same_run(first, first_images, again, again_images);
}

TEST(EndToEnd, DefaultTraceIsASceneNotATestPattern) {
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  ASSERT_EQ(trace.images.empty(), false);
  size_t triangles = 0;
  for (const Mesh& m : trace.meshes) triangles += m.indices.empty() ? m.positions.size() / 3 : m.indices.size() / 3;
  EXPECT_GE(triangles, 10000u);
  EXPECT_LE(triangles, 200000u);
  const CapturedImages images = run_trace(trace, RenderPath::tbdr, "");
  // An opaque subpass, then a blended subpass drawing on its color and depth (one render pass,
  // as a mobile forward renderer records it; the two merge into one hardware pass).
  const Pass& forward = trace.frames.at(0).passes.at(0);
  ASSERT_EQ(forward.subpasses.size(), 2u);
  auto blends = [](const Subpass& sp) {
    bool any = false;
    for (const Draw& d : sp.draws)
      for (const auto& b : d.state.blend) any = any || b.enable;
    return any;
  };
  EXPECT_FALSE(blends(forward.subpasses[0]));
  EXPECT_TRUE(blends(forward.subpasses[1]));
  // Many distinct colors: a lit scene, not a flat pattern.
  const Surface& color = images.images.at("0/0/att0");
  std::map<uint32_t, int> distinct;
  for (size_t i = 0; i < color.color.size(); i += 97) {
    const Vec4& c = color.color[i];
    distinct[uint32_t(c[0] * 255) << 16 | uint32_t(c[1] * 255) << 8 | uint32_t(c[2] * 255)]++;
  }
  EXPECT_GT(distinct.size(), 200u);
}

TEST(Cli, RunWritesReportAndImagesAndTileSizeChangesNoPixel) {
  const fs::path dir = scratch("cli_tiles");
  for (const fs::path& trace : bundled_traces()) {
    SCOPED_TRACE(trace.string());
    fs::remove_all(dir / "a");
    fs::remove_all(dir / "b");
    const CommandResult a = run_cli("run '" + trace.string() + "' --quiet --tile 16x16 --out a --json a/r.json", dir);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const CommandResult b = run_cli("run '" + trace.string() + "' --quiet --tile 24x40 --out b", dir);
    ASSERT_EQ(b.exit_code, 0) << b.err;
    ASSERT_TRUE(fs::exists(dir / "a/r.json"));
    size_t pngs = 0;
    for (const auto& e : fs::directory_iterator(dir / "a")) {
      if (e.path().extension() != ".png") continue;
      ++pngs;
      ASSERT_TRUE(fs::exists(dir / "b" / e.path().filename())) << e.path();
      EXPECT_EQ(slurp(e.path()), slurp(dir / "b" / e.path().filename())) << e.path().filename();
    }
    EXPECT_GT(pngs, 0u);
  }
}

TEST(Cli, DefaultTraceRunsFromAnyDirectory) {
  const fs::path dir = scratch("cli_default");
  const CommandResult r = run_cli("run --no-images --json r.json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pass 0"), std::string::npos);
  EXPECT_NE(r.out.find("MB = 10^6 B"), std::string::npos);
  const std::string json = slurp(dir / "r.json");
  EXPECT_NE(json.find("\"tile_list\""), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "out")) << "--no-images must not create the image folder";
}

// --time prints, for each run of --repeat, its wall time and peak RSS, the page faults it took
// (what a first run pays for fresh pages, bench/README.md), its phases and its tile workers' times,
// in that order.
TEST(Cli, TimePrintsEachRunsWallTimePageFaultsPhasesAndTileWorkers) {
  const CommandResult r = run_cli("run --no-images --quiet --time --repeat 2 --threads 2", scratch("cli_time"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string expected;
  for (const char* run : {"1", "2"}) {
    const std::string which = std::string(" \\(run ") + run + " of 2\\)\n";
    expected += "tbdrsim: simulate [0-9.]+ s, peak RSS [0-9.]+ MiB" + which;
    expected += "tbdrsim: page faults [0-9]+ minor, [0-9]+ major" + which;
    // --no-images: the sink returns at once (a microsecond or so of `images`).
    expected += "tbdrsim: phases geometry [0-9.]+ s, .*, costing [0-9.]+ s, images [0-9.]+ s, other -?[0-9.]+ s" + which;
    expected += "tbdrsim: tile workers 2: busy [0-9.]+ s of [0-9.]+ s \\([0-9.]+ %\\), waiting to start [0-9.]+ s, "
                "idle at the end [0-9.]+ s, other -?[0-9.]+ s" + which;
  }
  EXPECT_TRUE(std::regex_match(r.err, std::regex(expected))) << r.err;
}

// The images phase is the PNG writing of the run that writes them (the last of --repeat), not
// `other`: the default trace's 1920x1080 PNG takes tens of milliseconds to encode; the first run
// has no sink at all (exactly zero).
TEST(Cli, TimePutsTheImageWritingInItsOwnPhase) {
  const CommandResult r = run_cli("run --quiet --time --repeat 2 --threads 1", scratch("cli_time_images"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  const std::regex images("images ([0-9.]+) s, other (-?[0-9.]+) s \\(run ([12]) of 2\\)");
  std::map<std::string, double> seconds;
  for (auto it = std::sregex_iterator(r.err.begin(), r.err.end(), images); it != std::sregex_iterator(); ++it)
    seconds[(*it)[3]] = std::stod((*it)[1]);
  ASSERT_EQ(seconds.size(), 2u) << r.err;
  EXPECT_EQ(seconds["1"], 0.0) << r.err;
  EXPECT_GT(seconds["2"], 0.0) << r.err;
}

// encode_png (tools/commands/png_encode.cpp): grey and RGBA images of odd widths decode to their own
// pixels, and the image data is zlib's stream (header 78 01, its fastest level, RFC 1950), not
// stb_image_write's own deflate (78 5E).
TEST(Cli, PngImagesRoundTripThroughZlib) {
  for (const uint32_t channels : {1u, 4u}) {
    tbdr::Png png;
    png.width = 37;
    png.height = 5;
    png.channels = channels;
    for (size_t i = 0; i < size_t(png.width) * png.height * channels; ++i) png.pixels.push_back(uint8_t(i * 7 % 251));
    const std::vector<uint8_t> bytes = tbdr::encode_png(png);
    int w = 0, h = 0, c = 0;
    uint8_t* decoded = stbi_load_from_memory(bytes.data(), int(bytes.size()), &w, &h, &c, 0);
    ASSERT_NE(decoded, nullptr) << channels;
    EXPECT_EQ(std::vector<uint8_t>(decoded, decoded + size_t(w) * h * c), png.pixels) << channels;
    stbi_image_free(decoded);
    EXPECT_EQ(w, 37);
    EXPECT_EQ(h, 5);
    EXPECT_EQ(uint32_t(c), channels);
    const std::string text(bytes.begin(), bytes.end());
    const size_t idat = text.find("IDAT");
    ASSERT_NE(idat, std::string::npos);
    EXPECT_EQ(uint8_t(text[idat + 4]), 0x78);
    EXPECT_EQ(uint8_t(text[idat + 5]), 0x01);
  }
}

// A trace's warning is printed once: in the text report, or on stderr when the report is not
// printed (--quiet, --json -).
TEST(Cli, EachWarningIsPrintedOnce) {
  const fs::path dir = scratch("cli_warning_once");
  std::ifstream in(fs::path(TBDR_SOURCE_DIR) / "traces/features/clip_space.json");
  nlohmann::json trace = nlohmann::json::parse(in);
  trace["warnings"] = nlohmann::json::array({"converter note 1234"});
  std::ofstream(dir / "t.json") << trace.dump();
  auto count = [](const std::string& text) {
    size_t n = 0;
    for (size_t at = text.find("converter note 1234"); at != std::string::npos; at = text.find("converter note 1234", at + 1)) ++n;
    return n;
  };
  for (const std::string options : {"", "--quiet", "--json -"}) {
    const CommandResult r = run_cli("run t.json --no-images " + options, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // With --json - stdout is the report's data (its "warnings" list); the message is on stderr.
    const size_t printed = options == "--json -" ? count(r.err) : count(r.out) + count(r.err);
    EXPECT_EQ(printed, 1u) << options << "\n" << r.out << r.err;
  }
}

// --heatmaps adds per-block maps of the AFBC ratio and TE kills (tools/doc/reports.md "HTML report and heatmaps").
TEST(Cli, HeatmapsIncludeAfbcRatioAndTeKills) {
  const fs::path dir = scratch("cli_heatmaps");
  const std::string trace = std::string(TBDR_SOURCE_DIR) + "/traces/savers/hud_swapchain.json";
  const CommandResult r = run_cli("run '" + trace + "' --preset mali-g710 --quiet --heatmaps --out o", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"f4_p00_frame_att0_heat_afbc_ratio.png", "f4_p00_frame_att0_heat_te_kills.png",
                           "f4_p00_frame_hw0_heat_cycles.png", "f4_p00_frame_heat_overdraw.png"}) {
    ASSERT_TRUE(fs::exists(dir / "o" / name)) << name;
    EXPECT_GT(fs::file_size(dir / "o" / name), 100u) << name;
  }
}

TEST(Cli, ModelsListsKindsAndParameters) {
  const CommandResult r = run_cli("models", scratch("cli_models"));
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("tiling.width"), std::string::npos);
  EXPECT_NE(r.out.find("reference"), std::string::npos);
}

// Bad input: one line naming the file and field, exit code 2, no output files.
// A PNG's file name stays under 255 bytes whatever the trace's names (a 300-byte pass name once
// failed the write), and two long names that share their start still give two files.
TEST(Cli, LongNamesGiveShortDistinctFileNames) {
  StoredImage a;
  a.pass_name = std::string(300, 'p') + "A";
  a.slot = "att0";
  a.image_name = std::string(300, 'i');
  StoredImage b = a;
  b.pass_name = std::string(300, 'p') + "B";
  const std::string name_a = png_file_name(a), name_b = png_file_name(b);
  EXPECT_LE(name_a.size(), 160u) << name_a;
  EXPECT_NE(name_a, name_b);
  a.pass_name = "main";  // short names are kept as they are
  EXPECT_EQ(png_file_name(a).substr(0, 16), "f0_p00_main_att0");
}

// A run that fails after staging files leaves neither the files nor the folders it created.
// An error the simulator raises after earlier passes stored their images: nothing is written.
TEST(Cli, ErrorDuringSimulationLeavesNoOutput) {
  const fs::path dir = scratch("cli_error_mid_run");
  std::ifstream in(fs::path(TBDR_SOURCE_DIR) / "traces/features/merge_refused_no_shared_data.json");
  nlohmann::json trace = nlohmann::json::parse(in);
  // The reader accepts a render pass without attachments; the simulator refuses it when it gets there.
  trace["frames"][0]["passes"].push_back({{"name", "no_attachments"}, {"type", "render"}, {"attachments", nlohmann::json::array()},
                                          {"render_area", {{"x", 0}, {"y", 0}, {"width", 16}, {"height", 16}}},
                                          {"subpasses", {{{"draws", nlohmann::json::array()}}}}});
  std::ofstream(dir / "late_error.json") << trace.dump(1);
  const CommandResult r = run_cli("run late_error.json --out o/images --json o/report.json --heatmaps", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("at least one attachment"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir / "o")) << "a failed run left output behind";
  for (const auto& e : fs::directory_iterator(dir))  // nor a staging folder or probe file
    EXPECT_EQ(e.path().filename().string().rfind(".", 0), std::string::npos) << e.path();
}

TEST(Cli, FailedOutputLeavesNoFolderBehind) {
  const fs::path dir = scratch("cli_no_folder");
  {
    OutputFolder output(dir / "out" / "nested", true);
    output.add_file(dir / "out" / "nested" / "r.json", "{}");
  }  // destroyed without commit(), as when the run throws
  EXPECT_FALSE(fs::exists(dir / "out"));
  EXPECT_TRUE(fs::exists(dir));  // it existed before
}

TEST(Cli, BadInputGivesOneLineErrorExitTwoAndNoOutput) {
  const fs::path dir = scratch("cli_bad");
  std::ofstream(dir / "broken.json") << "{\"format\":\"tbdrsim-trace\",\"version\":1,\"images\":[{\"name\":\"c\",\"format\":\"RGBA8\","
                                        "\"width\":0,\"height\":4}],\"frames\":[{\"passes\":[]}]}";
  std::ofstream(dir / "syntax.json") << "{\"format\": \"tbdrsim-trace\", \"version\": 1, ";
  // Over the documented limits (traces/README.md "Limits"): refused while reading, before any work.
  std::ofstream(dir / "wide.json") << "{\"format\":\"tbdrsim-trace\",\"version\":1,\"images\":[{\"name\":\"c\",\"format\":\"RGBA8\","
                                      "\"width\":16385,\"height\":4}],\"frames\":[{\"passes\":[]}]}";
  std::ofstream(dir / "msaa.json") << "{\"format\":\"tbdrsim-trace\",\"version\":1,\"images\":[{\"name\":\"c\",\"format\":\"RGBA8\","
                                      "\"width\":16384,\"height\":16384,\"samples\":2}],\"frames\":[{\"passes\":[]}]}";
  struct Case {
    std::string args, must_mention;
  };
  const Case cases[] = {
      {"run broken.json --out o --json o/r.json", "broken.json"},
      {"run broken.json --out o --json o/r.json", "/images/0/width"},
      {"run syntax.json --out o --json o/r.json", "syntax.json"},
      {"run wide.json --out o --json o/r.json", "wide.json: /images/0/width"},
      {"run msaa.json --out o --json o/r.json", "msaa.json: /images/0/samples"},
      {"run missing.json --out o --json o/r.json", "missing.json"},
      {"run --set tiling.bogus=3 --out o --json o/r.json", "bogus"},
      {"run --set tiling.width=wide --out o --json o/r.json", "tiling.width"},
      {"run --set nokind=fixed --out o --json o/r.json", "tiling"},
      {"run --set tiling=nonsense --out o --json o/r.json", "fixed"},
      {"run --preset nosuchpreset --out o --json o/r.json", "nosuchpreset"},
      {"run --tile 0x16 --out o --json o/r.json", "tiling.width"},
      // Output paths and options, checked before anything is simulated or written.
      {"run --out o --json o/rep/", "--json o/rep/: names a folder"},
      {"run --out afile --json o/r.json", "--out afile: is a file"},
      {"run --threads abc --out o --json o/r.json", "--threads"},
      {"run --repeat 0 --out o --json o/r.json", "--repeat"},
      {"import scene.obj -o o/", "-o o/: names a folder"},
      {"import scene.obj -o o/t.json --width 0", "--width"},
      {"diff a.png b.png --tolerance -1 --out o/d.png", "--tolerance"},
      {"diff a.png b.png --max-mismatch nan --out o/d.png", "--max-mismatch"},
      // Preset files are read as strictly as traces.
      {"run --preset dup_preset.json --out o --json o/r.json", "dup_preset.json#/models/tiling/width: duplicate key"},
      {"run --preset huge_preset.json --out o --json o/r.json", "huge_preset.json#/models/tiling/width: not valid JSON: number overflow"},
      // A value of the wrong JSON type is refused, as in a trace: "32" is not a number.
      {"run --preset quoted_preset.json --out o --json o/r.json",
       "quoted_preset.json#/models/tiling/width: tiling.width: expected an integer"},
      // An empty path would read as "not given" (no report written, the bundled trace simulated).
      {"run --out o --json ''", "--json: expected a path, got an empty string"},
      // Folders no one can create files in, even root (access() says yes to root): refused up front.
      {"run --out /proc/tbdrsim_out --json o/r.json", "--out /proc/tbdrsim_out: cannot write in /proc"},
      {"run --no-images --json /proc/tbdrsim.json", "--json /proc/tbdrsim.json: cannot write in /proc"},
      // validate: --write-readme is checked before the traces (here none), the traces before simulating.
      {"validate --dir no_traces --write-readme plain.md", "plain.md: no validation table markers"},
      {"validate --dir no_traces", "render_passes_color_load.json: validation trace missing"},
      {"run '' --out o --json o/r.json", "expected a path, got an empty string"},
      {"diff a.png b.png --out ''", "--out: expected a path, got an empty string"},
      // Only one output can take stdout.
      {"run --out o --json - --csv -", "--csv -: --json - already writes to stdout"},
      {"run --out o --csv o/rep/", "--csv o/rep/: names a folder"},
  };
  std::ofstream(dir / "afile") << "not a folder";
  std::ofstream(dir / "plain.md") << "# a README without the validation table's markers\n";
  fs::create_directories(dir / "no_traces");
  std::ofstream(dir / "dup_preset.json") << R"({"name": "d", "models": {"tiling": {"impl": "fixed", "width": 32, "width": 8}}})";
  std::ofstream(dir / "quoted_preset.json") << R"({"name": "q", "description": "", "models": {"tiling": {"impl": "fixed", "width": "32"}}})";
  std::ofstream(dir / "huge_preset.json") << R"({"name": "h", "models": {"tiling": {"impl": "fixed", "width": 1e400}}})";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.args);
    const CommandResult r = run_cli(c.args, dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(dir / "o")) << "no output on bad input";
  }
}

// Conventions a user expects of a command-line tool (tools/doc/cli.md "Using the CLI").
namespace {
const std::string k_small_trace = TBDR_SOURCE_DIR + "/traces/features/copy_blit.json";

// Runs git in the source tree; its exit status (nonzero when git or the repository is missing).
int git(const std::string& args) {
  const std::string cmd = "git -C '" + TBDR_SOURCE_DIR + "' " + args + " >/dev/null 2>&1";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// One CSV line's cells (RFC 4180 quoting: "a,b" and "" inside quotes).
std::vector<std::string> csv_cells(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') cells.back() += c, ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) cells.emplace_back();
    else cells.back() += c;
  }
  return cells;
}

// 1234567 -> "1,234,567", written here apart from tools/commands/report.cpp.
std::string with_separators(uint64_t v) {
  std::string reversed;
  for (int digit = 0; v > 0 || digit == 0; ++digit, v /= 10) {
    if (digit > 0 && digit % 3 == 0) reversed += ',';
    reversed += char('0' + v % 10);
  }
  return std::string(reversed.rbegin(), reversed.rend());
}
}  // namespace

TEST(Cli, VersionPrintsTheSemanticVersionAndTheCommitItWasBuiltFrom) {
  const CommandResult r = run_cli("--version", scratch("cli_version"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch line;
  const std::string first = r.out.substr(0, r.out.find('\n'));
  ASSERT_TRUE(std::regex_match(first, line, std::regex(R"(tbdrsim (\d+\.\d+\.\d+) \(commit (\S+)\))"))) << r.out;
  // The version is the project's (CMakeLists.txt), and every report carries the same pair.
  std::ifstream lists(fs::path(TBDR_SOURCE_DIR) / "CMakeLists.txt");
  const std::string cmake((std::istreambuf_iterator<char>(lists)), std::istreambuf_iterator<char>());
  EXPECT_NE(cmake.find("project(tbdrsim VERSION " + line[1].str() + " "), std::string::npos) << line[1];
  const CommandResult report = run_cli("run '" + k_small_trace + "' --no-images --json -", scratch("cli_version"));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(nlohmann::json::parse(report.out).at("tbdrsim"),
            (nlohmann::json{{"version", line[1].str()}, {"commit", line[2].str()}}));
  const std::string commit = line[2];
  if (git("rev-parse HEAD") != 0) {
    EXPECT_EQ(commit, "unknown");
    return;
  }
  // `git describe --always --dirty --abbrev=12` of an untagged tree: 12+ hex digits, maybe "-dirty".
  // The commit built is HEAD or, after later commits without a rebuild, one of its ancestors.
  const std::string hash = commit.substr(0, commit.find('-'));
  ASSERT_GE(hash.size(), 12u) << commit;
  ASSERT_EQ(hash.find_first_not_of("0123456789abcdef"), std::string::npos) << commit;
  EXPECT_EQ(git("merge-base --is-ancestor " + hash + " HEAD"), 0) << commit << " is not a commit of this tree's history";
}

TEST(Cli, JsonAndCsvDashWriteToStdout) {
  const fs::path dir = scratch("cli_stdout");
  const std::string run = "run '" + k_small_trace + "' --no-images ";
  ASSERT_EQ(run_cli(run + "--quiet --json r.json --csv r.csv", dir).exit_code, 0);
  const CommandResult json = run_cli(run + "--json -", dir);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.out, slurp(dir / "r.json"));
  EXPECT_FALSE(fs::exists(dir / "-"));
  const CommandResult csv = run_cli(run + "--csv - --json r2.json", dir);
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out, slurp(dir / "r.csv"));
  EXPECT_EQ(slurp(dir / "r2.json"), slurp(dir / "r.json"));
}

TEST(Cli, AdviseJsonDashWritesToStdout) {
  const fs::path dir = scratch("cli_advise_stdout");
  const std::string advise = "advise '" + TBDR_SOURCE_DIR + "/traces/features/load_store_ops.json' ";
  ASSERT_EQ(run_cli(advise + "--json a.json", dir).exit_code, 0);
  const CommandResult r = run_cli(advise + "--json -", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(dir / "a.json"));
  EXPECT_FALSE(fs::exists(dir / "-"));
}

// run --csv: a header, then one row per pass of every frame, its cells the report's figures.
TEST(Cli, RunCsvHasOneRowPerPassWithTheReportsFigures) {
  const fs::path dir = scratch("cli_csv");
  const CommandResult r = run_cli("run '" + k_small_trace + "' --no-images --quiet --json r.json --csv r.csv", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(slurp(dir / "r.json"));
  std::istringstream csv(slurp(dir / "r.csv"));
  std::string line;
  std::getline(csv, line);
  const std::vector<std::string> header = csv_cells(line);
  ASSERT_GE(header.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(header.begin(), header.begin() + 4), (std::vector<std::string>{"frame", "pass", "name", "type"}));
  const auto column = [&](const std::string& name) { return size_t(std::find(header.begin(), header.end(), name) - header.begin()); };
  const size_t frame_col = column("frame"), pass_col = column("pass"), write_col = column("dram.write_bytes"),
               tiles_col = column("tiles");
  ASSERT_LT(write_col, header.size());
  ASSERT_LT(tiles_col, header.size());
  size_t rows = 0;
  for (const nlohmann::json& frame : report["frames"]) {
    for (size_t p = 0; p < frame["passes"].size(); ++p) {
      const nlohmann::json& pass = frame["passes"][p];
      ASSERT_TRUE(std::getline(csv, line));
      std::vector<std::string> cells = csv_cells(line);
      ASSERT_EQ(cells.size(), header.size()) << line;
      EXPECT_EQ(cells[frame_col], frame["index"].dump());
      EXPECT_EQ(cells[pass_col], std::to_string(p));
      EXPECT_EQ(cells[write_col], pass["dram"]["write_bytes"].dump()) << line;
      EXPECT_EQ(cells[tiles_col], pass["tiles"].dump()) << line;
      ++rows;
    }
  }
  EXPECT_GT(rows, 1u);
  EXPECT_FALSE(std::getline(csv, line)) << "a row more than the report's passes: " << line;
}

// A report's config block, and the whole report, given back to --preset reproduce the report.
TEST(Cli, ReportConfigRoundTripsAsAPreset) {
  const fs::path dir = scratch("cli_config_round_trip");
  const std::string run = "run '" + k_small_trace + "' --no-images --quiet ";
  ASSERT_EQ(run_cli(run + "--preset mali-g710 --set dram.bytes_per_cycle=20 --tile 32x16 --json r.json", dir).exit_code, 0);
  nlohmann::json report = nlohmann::json::parse(slurp(dir / "r.json"));
  std::ofstream(dir / "config.json") << report["config"].dump(2);
  const CommandResult from_config = run_cli(run + "--preset config.json --json r2.json", dir);
  ASSERT_EQ(from_config.exit_code, 0) << from_config.err;
  nlohmann::json again = nlohmann::json::parse(slurp(dir / "r2.json"));
  EXPECT_EQ(again["preset"], "config");  // a config block has no name: the file's stem
  again["preset"] = report["preset"];
  EXPECT_EQ(again, report);
  const CommandResult from_report = run_cli(run + "--preset r.json --json r3.json", dir);
  ASSERT_EQ(from_report.exit_code, 0) << from_report.err;
  EXPECT_EQ(slurp(dir / "r3.json"), slurp(dir / "r.json"));
}

// The text report: thousands separators, one unit said once, a "bound by" line per pass, the span named.
TEST(Cli, TextReportSeparatesThousandsAndSaysWhatBoundsEachPass) {
  const fs::path dir = scratch("cli_text_report");
  const CommandResult text = run_cli("run --no-images --json r.json", dir);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const nlohmann::json report = nlohmann::json::parse(slurp(dir / "r.json"));
  const std::string& out = text.out;
  EXPECT_EQ(out.find("MiB"), std::string::npos);
  size_t unit_lines = 0;
  for (size_t at = out.find("MB = 10^6 B"); at != std::string::npos; at = out.find("MB = 10^6 B", at + 1)) ++unit_lines;
  EXPECT_EQ(unit_lines, 1u);
  EXPECT_EQ(out.find("config {"), std::string::npos) << "the resolved config JSON is in --json, not the text";
  size_t passes = 0, bound = 0, spans = 0;
  for (const nlohmann::json& frame : report["frames"]) passes += frame["passes"].size();
  for (size_t at = out.find("\n  bound by: "); at != std::string::npos; at = out.find("\n  bound by: ", at + 1)) ++bound;
  for (size_t at = out.find("; span "); at != std::string::npos; at = out.find("; span ", at + 1)) ++spans;
  EXPECT_EQ(bound, passes);
  EXPECT_EQ(spans, passes);
  const double frame_cycles = report["frames"][0]["frame_cycles"].get<double>();
  ASSERT_GT(frame_cycles, 1000.0);
  EXPECT_NE(out.find("frame 0 total: " + with_separators(uint64_t(frame_cycles + 0.5)) + " cycles"), std::string::npos) << out;
  const uint64_t reads = report["frames"][0]["totals"]["dram"]["read_bytes"].get<uint64_t>();
  ASSERT_GT(reads, 1000u);
  EXPECT_NE(out.find(with_separators(reads)), std::string::npos);
}
