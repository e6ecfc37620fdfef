// `tbdrsim compare` and `run --vs` (tools/commands/compare.h): the comparison's figures are the two JSON
// reports' own (A, B, B - A), per frame and per pass; `run --vs` gives the same comparison as two runs
// and `compare`; bad reports are refused with the file and the field named.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.h"
#include "test_paths.h"

namespace fs = std::filesystem;

namespace {

using cli_run::read_text;

fs::path scratch(const std::string& name) { return cli_run::scratch("compare_" + name); }
int run_cli(const fs::path& dir, const std::string& args) { return cli_run::tbdrsim(dir, args); }

double ledger(const nlohmann::json& l) { return l["read_bytes"].get<double>() + l["write_bytes"].get<double>(); }

void expect_figure(const nlohmann::json& d, double a, double b, const std::string& what) {
  EXPECT_EQ(d["a"].get<double>(), a) << what;
  EXPECT_EQ(d["b"].get<double>(), b) << what;
  EXPECT_EQ(d["delta"].get<double>(), b - a) << what;
}

// The two reports in a folder of the test's own: ctest runs each test in its own process, in
// parallel, so a folder shared by two tests would be wiped by one while the other reads it.
fs::path two_reports(const std::string& test) {
  const fs::path d = scratch("reports_" + test);
  const std::string trace = "'" + TBDR_SOURCE_DIR + "/traces/features/load_store_ops.json'";
  EXPECT_EQ(run_cli(d, "run " + trace + " --preset mali-g710 --no-images --quiet --json a.json"), 0);
  EXPECT_EQ(run_cli(d, "run " + trace + " --preset adreno-a740 --no-images --quiet --json b.json"), 0);
  return d;
}

TEST(Compare, FiguresAreTheReportsOwn) {
  const fs::path dir = two_reports("figures");
  ASSERT_EQ(run_cli(dir, "compare a.json b.json --json c.json --html c.html"), 0) << read_text(dir / "stderr.txt");
  const nlohmann::json a = nlohmann::json::parse(read_text(dir / "a.json")), b = nlohmann::json::parse(read_text(dir / "b.json"));
  const nlohmann::json c = nlohmann::json::parse(read_text(dir / "c.json"));
  EXPECT_EQ(c["format"], "tbdrsim-comparison");
  EXPECT_EQ(c["a"]["preset"], "mali-g710");
  EXPECT_EQ(c["b"]["preset"], "adreno-a740");
  const nlohmann::json &fa = a["frames"][0], &fb = b["frames"][0], &f = c["frames"][0];
  expect_figure(f["frame_cycles"], fa["frame_cycles"], fb["frame_cycles"], "frame cycles");
  expect_figure(f["dram"], ledger(fa["totals"]["dram"]), ledger(fb["totals"]["dram"]), "frame DRAM");
  expect_figure(f["energy_joules"], fa["totals"]["energy"]["total_joules"], fb["totals"]["energy"]["total_joules"], "energy");
  double by_category = 0;
  for (const auto& [name, d] : f["by_category"].items()) by_category += d["b"].get<double>();
  EXPECT_EQ(by_category, ledger(fb["totals"]["dram"]));
  ASSERT_EQ(f["passes"].size(), fa["passes"].size());
  for (size_t p = 0; p < fa["passes"].size(); ++p) {
    const nlohmann::json &pa = fa["passes"][p], &pb = fb["passes"][p], &d = f["passes"][p];
    EXPECT_EQ(d["name"], pa["name"]);
    expect_figure(d["cycles"]["fragment"], pa["cycles"]["fragment"], pb["cycles"]["fragment"], "pass fragment");
    expect_figure(d["dram"], ledger(pa["dram"]), ledger(pb["dram"]), "pass DRAM");
    const std::string tile = std::to_string(pb["tile_size"][0].get<int>()) + "x" + std::to_string(pb["tile_size"][1].get<int>());
    if (pb["tile_size"][0] != 0) {
      EXPECT_EQ(d["tile_size"]["b"], tile);
    }
    if (pa.contains("merge")) {
      EXPECT_EQ(d["merge"]["a"].get<std::string>().rfind(pa["merge"]["merged"] ? "merged" : "not merged", 0), 0u);
    }
  }
  // The text names every pass and the frame's figures.
  ASSERT_EQ(run_cli(dir, "compare a.json b.json"), 0);
  const std::string text = read_text(dir / "stdout.txt");
  EXPECT_NE(text.find("frame 0: "), std::string::npos) << text;
  for (const nlohmann::json& p : fa["passes"]) EXPECT_NE(text.find(" " + p["name"].get<std::string>() + " "), std::string::npos) << p["name"];
  EXPECT_NE(read_text(dir / "c.html").find("comparison-json"), std::string::npos);
}

// run --vs: both runs and the comparison, as two runs and `compare` give it (labels aside).
TEST(Compare, RunVsEqualsTwoRunsAndCompare) {
  const fs::path dir = two_reports("run_vs");
  ASSERT_EQ(run_cli(dir, "compare a.json b.json --json c.json"), 0);
  const std::string trace = "'" + TBDR_SOURCE_DIR + "/traces/features/load_store_ops.json'";
  ASSERT_EQ(run_cli(dir, "run " + trace + " --preset mali-g710 --vs adreno-a740 --no-images --vs-json vs.json"), 0)
      << read_text(dir / "stderr.txt");
  EXPECT_NE(read_text(dir / "stdout.txt").find("A: mali-g710"), std::string::npos);
  const nlohmann::json c = nlohmann::json::parse(read_text(dir / "c.json")), vs = nlohmann::json::parse(read_text(dir / "vs.json"));
  EXPECT_EQ(vs["frames"], c["frames"]);
  EXPECT_EQ(vs["b"]["preset"], "adreno-a740");
}

TEST(Compare, BadReportsAreRefused) {
  const fs::path dir = scratch("bad");
  std::ofstream(dir / "not_report.json") << R"({"format": "something"})";
  EXPECT_EQ(run_cli(dir, "compare not_report.json not_report.json"), 2);
  EXPECT_NE(read_text(dir / "stderr.txt").find("not_report.json: format"), std::string::npos) << read_text(dir / "stderr.txt");
  std::ofstream(dir / "no_cycles.json") << R"({"format": "tbdrsim-report", "trace": "t", "preset": "p", "frames": [{"frame_ms": 1}]})";
  EXPECT_EQ(run_cli(dir, "compare no_cycles.json no_cycles.json"), 2);
  EXPECT_NE(read_text(dir / "stderr.txt").find("no_cycles.json: frames/0/frame_cycles"), std::string::npos) << read_text(dir / "stderr.txt");
  // A missing report is bad input, as a missing trace is for `run` (exit 2, naming it).
  EXPECT_EQ(run_cli(dir, "compare missing.json missing.json"), 2);
  EXPECT_NE(read_text(dir / "stderr.txt").find("missing.json: cannot read the file"), std::string::npos) << read_text(dir / "stderr.txt");
  EXPECT_FALSE(fs::exists(dir / "c.html"));
  EXPECT_EQ(run_cli(dir, "run --no-images --quiet --vs-html c.html"), 2);
}

}  // namespace
