// `tbdrsim calibrate`: measurement CSVs (figure fields and Arm counter names), the fit recovering
// parameters the simulator itself produced the measurements with, the fitted preset file, and the held-out
// error reported on the Vulkan-Samples table (shown, not required to be small).
#include "tools/commands/calibrate.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/errors.h"
#include "models/registry.h"
#include "tools/commands/measurements.h"
#include "tests/sanitizer.h"

namespace fs = std::filesystem;
using namespace tbdr;

namespace {

fs::path features(const std::string& name) { return fs::path(TBDR_SOURCE_DIR) / "traces" / "features" / name; }

fs::path temp_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("tbdr_calibrate_" + name + "_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

// The figures the simulator gives under mali-g76 with `sets` applied.
std::vector<double> simulated(const std::vector<validation::Comparison>& rows, const std::vector<std::string>& sets) {
  models::Configuration config = models::Configuration::from_preset("mali-g76");
  for (const std::string& s : sets) config.apply(s);
  return validation::simulate_comparisons(rows, config, 1);
}

// Each trace's steady frame time: DRAM-bound traces move with dram.bytes_per_cycle, tile-buffer-bound ones
// (clears, blends, stencil) with shader.tile_io_bytes_per_clk once it binds.
std::vector<validation::Comparison> time_rows() {
  std::vector<validation::Comparison> rows;
  for (const char* trace : {"textured.json", "blend_modes.json", "merge_accepted_deferred.json",
                            "msaa_separate_resolve.json", "clears_and_subpasses.json", "stencil.json"}) {
    validation::Comparison c;
    c.case_name = trace;
    c.figure = "steady_cycles";
    c.traces = {features(trace).string()};
    c.field = "steady_cycles";
    c.tolerance.amount = 0.01;
    rows.push_back(c);
  }
  return rows;
}

std::string run(const std::string& args) {
  FILE* pipe = popen((std::string(TBDR_BINARY_DIR) + "/tbdrsim " + args + " 2>&1").c_str(), "r");
  std::string output;
  char buf[4096];
  for (size_t n; pipe && (n = fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int status = pipe ? pclose(pipe) : -1;
  return output + "\n[exit " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + "]";
}

}  // namespace

TEST(Calibrate, RecoversParametersTheMeasurementsWereMadeWith) {
  // Truth: a slower DRAM than mali-g76's 27.8 B/clk and a narrower tile-buffer port than the 16 B/clk guess.
  std::vector<validation::Comparison> rows = time_rows();
  const std::vector<double> truth = simulated(rows, {"dram.bytes_per_cycle=16", "shader.tile_io_bytes_per_clk=3"});
  for (size_t i = 0; i < rows.size(); ++i) rows[i].measured = truth[i];
  calibrate::Options options;
  options.preset = "mali-g76";
  options.params = {"dram.bytes_per_cycle", "shader.tile_io_bytes_per_clk"};
  options.folds = 3;
  options.max_evaluations = 80;
  const calibrate::Result r = calibrate::calibrate(rows, options);
  ASSERT_EQ(r.fitted.size(), 2u);
  // Within 2% of the truth; the start (the preset) lies 74% and 433% away.
  EXPECT_NEAR(r.fitted[0], 16.0, 0.32) << calibrate::report_text(r);
  EXPECT_NEAR(r.fitted[1], 3.0, 0.06) << calibrate::report_text(r);
  EXPECT_LT(r.in_sample_error, 0.1 * r.uncalibrated_error) << calibrate::report_text(r);
  EXPECT_EQ(r.held_out.size(), rows.size());
}

// An evaluation's traces are simulated --threads at a time, each on one thread with its own models:
// the same fit and report whatever the count, and a row's device settings change its trace's figures.
TEST(Calibrate, SameResultWhateverTheThreadsAndRowSettingsApply) {
  std::vector<validation::Comparison> rows = time_rows();
  const std::vector<double> truth = simulated(rows, {"dram.bytes_per_cycle=16"});
  for (size_t i = 0; i < rows.size(); ++i) rows[i].measured = truth[i];
  calibrate::Options options;
  options.preset = "mali-g76";
  options.params = {"dram.bytes_per_cycle"};
  options.folds = 2;
  options.max_evaluations = 4;
  options.threads = 1;
  const std::string one = calibrate::report_text(calibrate::calibrate(rows, options));
  options.threads = 3;
  EXPECT_EQ(calibrate::report_text(calibrate::calibrate(rows, options)), one);
  // A DRAM-bound row measured on a device with half that DRAM rate: its setting overrides the fitted value.
  const std::vector<double> at8 = simulated(rows, {"dram.bytes_per_cycle=8"}), at27 = simulated(rows, {});
  size_t bound = 0;
  while (bound < rows.size() && at8[bound] == at27[bound]) ++bound;
  ASSERT_LT(bound, rows.size()) << "no DRAM-bound row";
  rows[bound].settings = {{"dram.bytes_per_cycle=8"}};
  const calibrate::Result r = calibrate::calibrate(rows, options);
  EXPECT_EQ(r.uncalibrated[bound], at8[bound]);
  EXPECT_EQ(r.in_sample[bound], at8[bound]) << "a row's device setting is not fitted";
}

TEST(Calibrate, ArmCounterColumnsAreMeasurementsOfTheirFields) {
  const fs::path dir = temp_dir("counters");
  write(dir / "m.csv", "traces,MaliExtBusRdBy,Output external write bytes,MaliFragTile,tolerance\n" +
                           features("textured.json").string() + ",1000,2000,,5%\n");
  const std::vector<validation::Comparison> rows = measurements::read_measurements(dir / "m.csv");
  ASSERT_EQ(rows.size(), 2u) << "an empty counter cell is no measurement";
  EXPECT_EQ(rows[0].field, "read_bytes");
  EXPECT_EQ(rows[0].measured, 1000.0);
  EXPECT_EQ(rows[1].field, "write_bytes");
  EXPECT_EQ(rows[1].tolerance.amount, 0.05);
  // The mapped field is the simulator's: the counter's value is the report's DRAM reads of the last frame.
  const std::vector<double> sim = simulated(rows, {});
  validation::FrameFigures f;
  const Trace trace = read_trace(features("textured.json"));
  f = validation::simulate_figures(trace, models::build_models(models::Configuration::from_preset("mali-g76")), 1);
  EXPECT_EQ(sim[0], double(f.read_bytes));
  EXPECT_EQ(sim[1], double(f.write_bytes));
  fs::remove_all(dir);
}

// One 64x64 RGBA8 target cleared and stored, one position-only triangle over all of it, 16x16 tiles, the savers
// off. Per frame (traces/README.md "DRAM ledger rules"): writes 64 x 64 x 4 = 16384 B stored + the tile lists'
// 48 B record (3 x 16 B positions) + 16 entries x 4 B = 16496 B; reads 16 tiles x (4 + 48) B of tile lists +
// 3 vertices x 12 B = 868 B; 4096 fragments shaded (every quad whole).
const char* const k_one_triangle_trace = R"({"format": "tbdrsim-trace", "version": 1,
    "images": [{"name": "color", "format": "RGBA8", "width": 64, "height": 64}],
    "meshes": [{"name": "tri", "positions": [-1, -1, 0.5, 3, -1, 0.5, -1, 3, 0.5]}],
    "frames": [{"passes": [{"name": "p", "attachments": [{"image": "color", "load": "clear", "store": "store"}],
                            "subpasses": [{"color": [0], "draws": [{"mesh": "tri"}]}]}]}]})";

TEST(Calibrate, AdrenoCounterColumnsAreMeasurementsOfTheirFields) {
  const fs::path dir = temp_dir("adreno");
  write(dir / "one_triangle.json", k_one_triangle_trace);
  // Snapdragon Profiler's per-second metrics at 60 frames/s: 868 x 60 = 52080 B/s, 16496 x 60 = 989760 B/s,
  // 4096 x 60 = 245760 fragments/s; fdperf's countables per frame.
  write(dir / "m.csv",
        "traces,Read Total (Bytes/sec),Write Total (Bytes/sec),Fragments Shaded / Second,PERF_SP_PIXELS,"
        "PERF_RBBM_STATUS_MASKED\none_triangle.json,52080,989760,245760,4096,1000\n");
  const std::vector<validation::Comparison> rows = measurements::read_measurements(dir / "m.csv");
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string> fields = {"read_bytes_per_s", "write_bytes_per_s", "fragments_shaded_per_s",
                                           "fragments_shaded", "steady_cycles"};
  for (size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(rows[i].field, fields[i]) << i;
  const std::vector<double> sim =
      simulated(rows, {"compression=none", "write_elim=none", "empty_tile=off", "tiling=fixed"});
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(sim[i], rows[i].measured) << fields[i];
  EXPECT_GT(sim[4], 0.0) << "GPU busy cycles are the frame's period";
  fs::remove_all(dir);
}

TEST(Calibrate, BadMeasurementFilesNameFileLineAndColumn) {
  const fs::path dir = temp_dir("bad");
  const std::string trace = features("textured.json").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"traces,MaliNoSuchCounter\n" + trace + ",1\n", "m.csv:1, column MaliNoSuchCounter"},
      {"traces,read_bytes\n" + trace + ",abc\n", "m.csv:2, column read_bytes"},
      {"traces,figure,combine,measured\n" + trace + ",read_bytes,ratio,2\n", "m.csv:2, column traces"},
      {"traces,read_bytes,tolerance\n" + trace + ",5,-3%\n", "m.csv:2, column tolerance"},
  };
  for (const auto& [text, where] : cases) {
    write(dir / "m.csv", text);
    try {
      measurements::read_measurements(dir / "m.csv");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  }
  fs::remove_all(dir);
}

TEST(Calibrate, CommandWritesAFittedPresetThatReadsAsAPreset) {
  const fs::path dir = temp_dir("command");
  const std::string csv = (dir / "m.csv").string(), out = (dir / "fitted.json").string();
  write(csv, "traces,figure,measured,tolerance\n" + features("textured.json").string() + ",steady_cycles,30000,5%\n" +
                 features("blend_modes.json").string() + ",steady_cycles,30000,5%\n");
  const std::string report =
      run("calibrate '" + csv + "' --preset mali-g76 --params dram.bytes_per_cycle --max-evaluations 15 -o '" + out + "'");
  EXPECT_NE(report.find("held-out"), std::string::npos) << report;
  EXPECT_NE(report.find("[exit 0]"), std::string::npos) << report;
  const nlohmann::json fitted = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(fitted.at("base"), "mali-g76");
  EXPECT_EQ(fitted.at("models").size(), models::registered_kinds().size()) << "the full parameter set";
  EXPECT_NE(fitted["models"]["dram"]["bytes_per_cycle"].get<double>(), 27.8) << "the fitted value is written";
  // The file is a preset on its own.
  models::build_models(models::Configuration::from_preset(out));
  fs::remove_all(dir);
}

TEST(Calibrate, VulkanSamplesTableReportsHeldOutError) {
  // 2 x 44 simulations of 2220x1080 and 2400x1080 traces, two at a time: minutes in the Release suite,
  // over its 600 s timeout under AddressSanitizer (the clean-clone CI run of 739fe0f). The Release suite runs it.
  if (kAddressSanitizer) GTEST_SKIP() << "too slow under AddressSanitizer; the Release suite runs it";
  // The validation's measurement table (traces/validation/measurements.csv), fitted on one guessed parameter with two
  // evaluations per fit (every fit starts at the same two points and simulations are cached by trace, settings and value:
  // 2 x 44 simulations in all): the report shows in-sample and held-out error; nothing is asserted about their size.
  const fs::path table = fs::path(TBDR_SOURCE_DIR) / "traces" / "validation" / "measurements.csv";
  const std::vector<validation::Comparison> rows = measurements::read_measurements(table);
  ASSERT_GE(rows.size(), 24u);
  calibrate::Options options;
  options.params = {"shader.tile_io_bytes_per_clk"};
  options.folds = 2;
  options.max_evaluations = 2;
  options.threads = 2;
  const calibrate::Result r = calibrate::calibrate(rows, options);
  const std::string text = calibrate::report_text(r);
  EXPECT_NE(text.find("held-out"), std::string::npos) << text;
  EXPECT_TRUE(std::isfinite(r.held_out_error)) << text;
  std::printf("%s", text.c_str());
}

