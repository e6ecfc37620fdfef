// Sweep tests (tools/doc/sweeps.md): `tbdrsim sweep` rows equal separate `run --json` runs, resume after SIGKILL,
// shards + sweep-merge, -j independence, the Slurm script, the plot script and bad-input handling;
// simulate once, cost many: re-costed results equal full re-simulation byte for byte.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tests/require_external.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const std::string k_binary = TBDR_BINARY_DIR + "/tbdrsim";
// Small traces (64x64, a few triangles): each configuration simulates in milliseconds.
const std::string k_trace_a = TBDR_SOURCE_DIR + "/traces/features/merge_refused_no_shared_data.json";
const std::string k_trace_b = TBDR_SOURCE_DIR + "/traces/features/clip_space.json";

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

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(TBDR_BINARY_DIR) / "test-scratch" / "sweep" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Runs a shell command line in `dir`, capturing stdout and stderr.
CommandResult shell(const std::string& command, const fs::path& dir) {
  const fs::path out = dir / ".stdout", err = dir / ".stderr";
  std::string cmd = "cd '";
  cmd += dir.string();
  cmd += "' && ";
  cmd += command;
  cmd += " > '";
  cmd += out.string();
  cmd += "' 2> '";
  cmd += err.string();
  cmd += "' < /dev/null";
  const int status = std::system(cmd.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

CommandResult tbdrsim(const std::string& args, const fs::path& dir) { return shell("'" + k_binary + "' " + args, dir); }

// Every scalar leaf, path joined by '.', arrays by index: written here independently of tools/commands/sweep.
void flatten(const json& v, const std::string& prefix, std::map<std::string, json>& out) {
  if (v.is_object()) {
    for (const auto& [k, x] : v.items()) flatten(x, prefix.empty() ? k : prefix + "." + k, out);
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) flatten(v[i], prefix.empty() ? std::to_string(i) : prefix + "." + std::to_string(i), out);
  } else if (!v.is_null()) {
    out[prefix] = v;
  }
}

// A part's text without its `inputs` (the files the sweep read, which a --grid sweep has one more of).
std::string without_inputs(const std::string& part_text) {
  nlohmann::ordered_json part = nlohmann::ordered_json::parse(part_text);
  part.erase("inputs");
  return part.dump();
}

// The files whose bytes must not depend on -j, shards or interruptions. `grid`: b is a --grid sweep,
// whose parts also list the grid file among their inputs.
void expect_same_results(const fs::path& a, const fs::path& b, const std::string& grid = "") {
  for (const char* f : {"sweep.json", "results.csv", "results.json", "attachments.csv", "report.html"}) {
    SCOPED_TRACE(f);
    ASSERT_TRUE(fs::exists(a / f));
    ASSERT_TRUE(fs::exists(b / f));
    EXPECT_TRUE(slurp(a / f) == slurp(b / f)) << a / f << " differs from " << b / f;
  }
  std::vector<std::string> la, lb;
  for (const auto& e : fs::directory_iterator(a / "parts")) la.push_back(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(b / "parts")) lb.push_back(e.path().filename().string());
  std::sort(la.begin(), la.end());
  std::sort(lb.begin(), lb.end());
  EXPECT_EQ(la, lb);
  for (const std::string& name : la) {
    if (std::find(lb.begin(), lb.end(), name) == lb.end()) continue;
    const std::string a_part = slurp(a / "parts" / name), b_part = slurp(b / "parts" / name);
    if (grid.empty() || name.rfind("layout-", 0) == 0) {  // a layout file names no input
      EXPECT_TRUE(a_part == b_part) << name;
      continue;
    }
    EXPECT_TRUE(without_inputs(a_part) == without_inputs(b_part)) << name;
    EXPECT_NE(b_part.find(grid), std::string::npos) << name << ": the grid file is not among the inputs";
    EXPECT_EQ(a_part.find(grid), std::string::npos) << name;
  }
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// A sweep of 12 configurations over two traces, used by the resume, shard, -j and Slurm tests.
const std::string k_sweep12 = "'" + k_trace_a + "' '" + k_trace_b +
                              "' --vary tiling.width=8,16,32 --vary tiling.height=16,32 --vary hsr=none,early_z --quiet";

}  // namespace

TEST(Sweep, TwoByTwoRowsEqualSeparateRuns) {
  const fs::path dir = scratch("two_by_two");
  const CommandResult sweep =
      tbdrsim("sweep '" + k_trace_a + "' '" + k_trace_b +
                  "' --vary tiling.width=16,32 --vary dram.bytes_per_cycle=8,32 -j 2 --out out",
              dir);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.err;
  for (const std::string& line : lines(sweep.err))  // progress lines only (Sweep.ProgressLinesWithoutATerminal)
    EXPECT_EQ(line.rfind("sweep: ", 0), 0u) << "stderr holds only progress lines: " << line;
  const json results = json::parse(slurp(dir / "out/results.json"));
  const json& rows = results.at("rows");
  // One row per (trace, configuration, frame, pass) plus one total per (trace, configuration).
  const std::vector<std::string> csv = lines(slurp(dir / "out/results.csv"));
  ASSERT_EQ(csv.size(), rows.size() + 1);
  EXPECT_EQ(csv[0].rfind("trace,config_index,set.", 0), 0u) << csv[0];

  const char* widths[] = {"16", "32"};
  const char* rates[] = {"8", "32"};
  size_t compared = 0, last_row = 0;
  for (size_t config = 0; config < 4; ++config) {
    const std::string width = widths[config / 2], rate = rates[config % 2];  // the first --vary varies slowest
    for (const std::string& trace : {k_trace_a, k_trace_b}) {
      SCOPED_TRACE("configuration " + std::to_string(config) + " " + trace);
      const std::string report_name = "run" + std::to_string(config) + fs::path(trace).stem().string() + ".json";
      const CommandResult run = tbdrsim("run '" + trace + "' --set tiling.width=" + width +
                                            " --set dram.bytes_per_cycle=" + rate + " --no-images --quiet --json " +
                                            report_name,
                                        dir);
      ASSERT_EQ(run.exit_code, 0) << run.err;
      const json report = json::parse(slurp(dir / report_name));
      // Rows of this (trace, configuration), which follow each other in the results.
      std::vector<json> mine;
      for (size_t r = 0; r < rows.size(); ++r)
        if (rows[r].at("trace") == trace && rows[r].at("config_index") == config) {
          mine.push_back(rows[r]);
          EXPECT_GE(r, last_row) << "rows sorted by configuration, then trace";
          last_row = r;
        }
      size_t expected_rows = 1;
      for (const json& frame : report.at("frames")) expected_rows += frame.at("passes").size();
      ASSERT_EQ(mine.size(), expected_rows);
      // The configuration columns: every resolved parameter, defaults included.
      std::map<std::string, json> config_flat;
      flatten(report.at("config"), "", config_flat);
      for (const auto& [key, value] : config_flat) {
        const std::string column = "set." + (key.size() > 5 && key.ends_with(".impl") ? key.substr(0, key.size() - 5) : key);
        std::string col = column;
        const size_t params = col.find(".params.");
        if (params != std::string::npos) col.erase(params, 7);
        EXPECT_EQ(mine[0].at(col), value) << col;
      }
      EXPECT_EQ(mine[0].at("set.tiling.width").get<double>(), std::stod(width));
      EXPECT_EQ(mine[0].at("set.dram.bytes_per_cycle").get<double>(), std::stod(rate));
      size_t k = 0;
      for (const json& frame : report.at("frames"))
        for (size_t p = 0; p < frame.at("passes").size(); ++p, ++k) {
          const json& row = mine[k];
          EXPECT_EQ(row.at("row"), "pass");
          EXPECT_EQ(row.at("frame"), frame.at("index"));
          EXPECT_EQ(row.at("pass"), p);
          json pass = frame.at("passes")[p];
          pass.erase("attachments");  // those go to attachments.csv
          std::map<std::string, json> flat;
          flatten(pass, "", flat);
          for (const auto& [key, value] : flat) {
            ASSERT_TRUE(row.contains(key)) << key;
            EXPECT_EQ(row.at(key), value) << key;
            ++compared;
          }
        }
      const json& total = mine.back();
      EXPECT_EQ(total.at("row"), "total");
      std::map<std::string, json> flat;
      flatten(report.at("totals"), "", flat);
      for (const auto& [key, value] : flat) EXPECT_EQ(total.at(key), value) << key;
      double frame_cycles = 0;
      for (const json& frame : report.at("frames")) frame_cycles += frame.at("frame_cycles").get<double>();
      EXPECT_EQ(total.at("frame_cycles").get<double>(), frame_cycles);
    }
  }
  EXPECT_GT(compared, 100u);

  // attachments.csv: per-attachment records when the report has them, else the header alone.
  const std::vector<std::string> att = lines(slurp(dir / "out/attachments.csv"));
  ASSERT_GE(att.size(), 1u);
  EXPECT_EQ(att[0].rfind("trace,config_index,set.", 0), 0u);
  EXPECT_NE(att[0].find(",frame,pass,name,attachment,image"), std::string::npos) << att[0];
  size_t records = 0;
  for (size_t config = 0; config < 4; ++config)
    for (const std::string& trace : {k_trace_a, k_trace_b}) {
      const json report = json::parse(slurp(dir / ("run" + std::to_string(config) + fs::path(trace).stem().string() + ".json")));
      for (const json& frame : report.at("frames"))
        for (const json& pass : frame.at("passes")) records += pass.value("attachments", json::array()).size();
    }
  EXPECT_EQ(att.size() - 1, records);
}

TEST(Sweep, GridFilesEqualTheProduct) {
  const fs::path dir = scratch("grid");
  ASSERT_EQ(tbdrsim("sweep '" + k_trace_a + "' --vary tiling.width=16,32 --vary hsr=none,early_z -j 1 --quiet --out product", dir).exit_code, 0);
  std::ofstream(dir / "grid.csv") << "tiling.width,hsr\n16,none\n16,early_z\n# a comment\n32,none\n32,early_z\n";
  std::ofstream(dir / "grid.json") << R"([{"tiling.width": 16, "hsr": "none"}, {"tiling.width": 16, "hsr": "early_z"},
                                          ["tiling.width=32", "hsr=none"], {"tiling.width": 32, "hsr": "early_z"}])";
  ASSERT_EQ(tbdrsim("sweep '" + k_trace_a + "' --grid grid.csv -j 2 --quiet --out csv", dir).exit_code, 0);
  ASSERT_EQ(tbdrsim("sweep '" + k_trace_a + "' --grid grid.json --quiet --out json", dir).exit_code, 0);
  expect_same_results(dir / "product", dir / "csv", "grid.csv");
  expect_same_results(dir / "product", dir / "json", "grid.json");
}

TEST(Sweep, JobsDoNotChangeResults) {
  const fs::path dir = scratch("jobs");
  ASSERT_EQ(tbdrsim("sweep " + k_sweep12 + " -j 1 --out j1", dir).exit_code, 0);
  ASSERT_EQ(tbdrsim("sweep " + k_sweep12 + " -j 2 --out j2", dir).exit_code, 0);
  ASSERT_EQ(tbdrsim("sweep " + k_sweep12 + " -j 5 --out j5", dir).exit_code, 0);
  expect_same_results(dir / "j1", dir / "j2");
  expect_same_results(dir / "j1", dir / "j5");
  EXPECT_EQ(lines(slurp(dir / "j1/results.csv")).size(), 1u + 12 * (2 + 2));  // (1 pass + total) x 2 traces x 12
  // Re-running a finished sweep simulates nothing and rewrites the same bytes.
  const std::string before = slurp(dir / "j1/results.json");
  const CommandResult again = tbdrsim("sweep " + k_sweep12 + " -j 1 --out j1", dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(slurp(dir / "j1/results.json"), before);
}

TEST(Sweep, ShardsMergeToTheUnshardedResult) {
  const fs::path dir = scratch("shards");
  ASSERT_EQ(tbdrsim("sweep " + k_sweep12 + " --out whole", dir).exit_code, 0);
  for (int k = 1; k <= 3; ++k) {
    const CommandResult r = tbdrsim("sweep " + k_sweep12 + " --shard " + std::to_string(k) + "/3 --out s" + std::to_string(k), dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // Every configuration is a functional configuration of its own, all of the same estimated work:
    // configuration i belongs to shard (i % 3) + 1.
    std::string shard_dir = "s";  // appended: GCC 12 warns falsely (-Wrestrict, bug 105329) on "s" + string&&
    shard_dir += std::to_string(k);
    for (const auto& e : fs::directory_iterator(dir / shard_dir / "parts"))
      if (e.path().filename().string().rfind("layout-", 0) != 0)  // the rows' layout file (part format 3 on)
        EXPECT_EQ(std::stoul(e.path().stem().string()) % 3 + 1, size_t(k)) << e.path();
  }
  // An incomplete set of shards is refused.
  const CommandResult partial = tbdrsim("sweep-merge s1 s3 --out partial", dir);
  EXPECT_EQ(partial.exit_code, 2);
  EXPECT_NE(partial.err.find("no part"), std::string::npos) << partial.err;
  // Named by the first missing configuration (shard 2's first) and the shard to resubmit.
  EXPECT_NE(partial.err.find("configuration 1): resubmit shard 2 of 3"), std::string::npos) << partial.err;
  EXPECT_FALSE(fs::exists(dir / "partial"));
  const CommandResult merge = tbdrsim("sweep-merge s3 s1 s2 --out merged", dir);
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  expect_same_results(dir / "whole", dir / "merged");
  // A shard of another sweep is refused.
  ASSERT_EQ(tbdrsim("sweep '" + k_trace_a + "' --vary tiling.width=16,32 --shard 1/3 --quiet --out other", dir).exit_code, 0);
  const CommandResult mixed = tbdrsim("sweep-merge s1 s2 other --out mixed", dir);
  EXPECT_EQ(mixed.exit_code, 2);
  EXPECT_NE(mixed.err.find("different sweep"), std::string::npos) << mixed.err;
}

TEST(Sweep, SigkillThenResumeEqualsUninterrupted) {
  const fs::path dir = scratch("sigkill");
  // 12 configurations of some 30 ms each (448x240, one worker): the kill lands after the first part.
  const std::vector<std::string> args = {k_binary, "sweep", TBDR_SOURCE_DIR + "/traces/features/blend_modes.json",
                                         "--vary", "tiling.width=8,16,32", "--vary", "tiling.height=8,16",
                                         "--vary", "hsr=none,early_z", "-j", "1", "--quiet"};
  std::string command;
  for (const std::string& a : args) command += "'" + a + "' ";
  ASSERT_EQ(shell(command + "--out whole", dir).exit_code, 0);

  const fs::path out = dir / "killed";
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::vector<std::string> full = args;
    full.push_back("--out");
    full.push_back(out.string());
    std::vector<char*> argv;
    for (std::string& a : full) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(k_binary.c_str(), argv.data());
    _exit(127);
  }
  // Wait for the first finished part, then kill without warning.
  auto part_count = [&] {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(out / "parts", ec))
      if (e.path().filename().string()[0] != '.') ++n;
    return n;
  };
  int status = 0;
  bool exited = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (part_count() == 0 && std::chrono::steady_clock::now() < deadline) {
    if (waitpid(child, &status, WNOHANG) == child) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!exited) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  ASSERT_FALSE(exited) << "the sweep finished before it could be killed";
  EXPECT_TRUE(WIFSIGNALED(status));
  const size_t finished = part_count();
  EXPECT_GE(finished, 1u);
  EXPECT_LT(finished, 12u);
  EXPECT_FALSE(fs::exists(out / "results.csv"));
  std::map<std::string, fs::file_time_type> kept;
  for (const auto& e : fs::directory_iterator(out / "parts"))
    if (e.path().filename().string()[0] != '.') kept[e.path().filename().string()] = fs::last_write_time(e.path());

  // A different sweep into the same folder is refused; the same one resumes.
  const CommandResult other = shell("'" + k_binary + "' sweep '" + k_trace_a + "' --vary tiling.width=16,32 --out killed", dir);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("different sweep"), std::string::npos) << other.err;
  const CommandResult resumed = shell(command + "--out killed", dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_same_results(dir / "whole", out);
  for (const auto& [name, time] : kept) EXPECT_EQ(fs::last_write_time(out / "parts" / name), time) << name << " was redone";
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"attachments.csv", "parts", "report.html", "results.csv", "results.json",
                                              "sweep.json"}));
}

TEST(Sweep, SlurmScriptArrayThenMergeEqualsUnsharded) {
  const fs::path dir = scratch("slurm");
  ASSERT_EQ(tbdrsim("sweep " + k_sweep12 + " --out whole", dir).exit_code, 0);
  const std::string script = TBDR_SOURCE_DIR + "/tools/slurm_sweep.sbatch";
  for (int task = 1; task <= 3; ++task) {
    const CommandResult r = shell("SLURM_ARRAY_TASK_ID=" + std::to_string(task) +
                                      " SLURM_ARRAY_TASK_COUNT=3 SLURM_CPUS_PER_TASK=2 TBDRSIM='" + k_binary +
                                      "' bash '" + script + "' --shards 3 cluster " + k_sweep12,
                                  dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir / "cluster" / ("shard-" + std::to_string(task) + "-of-3") / "sweep.json"));
  }
  const std::string merge_script = TBDR_SOURCE_DIR + "/tools/slurm_sweep_merge.sbatch";
  const CommandResult merge = shell("TBDRSIM='" + k_binary + "' bash '" + merge_script + "' cluster", dir);
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  expect_same_results(dir / "whole", dir / "cluster/merged");
}

// Shards split by functional configuration: a simulation and its cost variants (dram.bytes_per_cycle)
// run in one shard, so the shards together simulate as often as the unsharded sweep; a shard with no
// configuration left (3 shards, 2 functional configurations) finishes empty and merges.
TEST(Sweep, ShardsKeepEachFunctionalConfigurationWhole) {
  const fs::path dir = scratch("shards_functional");
  const std::string sweep = "sweep '" + k_trace_a + "' --vary tiling.width=16,32 --vary dram.bytes_per_cycle=8,16,32 -j 2";
  auto simulations = [](const std::string& out) {
    const size_t at = out.find("reuse: ");
    const size_t comma = out.find(", ", at);
    return at == std::string::npos ? size_t(0) : size_t(std::stoul(out.substr(comma + 2)));
  };
  const CommandResult whole = tbdrsim(sweep + " --out whole", dir);
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_EQ(simulations(whole.out), 2u) << whole.out;
  size_t sharded = 0;
  std::vector<std::vector<size_t>> owned(3);
  for (int k = 1; k <= 3; ++k) {
    std::string out = "s";
    out += std::to_string(k);
    const CommandResult r = tbdrsim(sweep + " --shard " + std::to_string(k) + "/3 --out " + out, dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    sharded += simulations(r.out);
    const json fingerprint = json::parse(slurp(dir / out / "sweep.json"));
    for (const json& i : fingerprint.at("shard_configurations")) owned[k - 1].push_back(i);
  }
  EXPECT_EQ(sharded, 2u) << "the shards simulated " << sharded << " times, the unsharded sweep twice";
  // Configurations 0-2 (tiling.width=16) in shard 1, 3-5 in shard 2, none in shard 3.
  EXPECT_EQ(owned, (std::vector<std::vector<size_t>>{{0, 1, 2}, {3, 4, 5}, {}}));
  const CommandResult merge = tbdrsim("sweep-merge s1 s2 s3 --out merged", dir);
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  expect_same_results(dir / "whole", dir / "merged");
  // A part of shard 2 lost: sweep-merge names shard 2 of 3, whose folder was given.
  fs::remove(dir / "s2/parts/000003.json");  // configurations 3-5, one functional configuration's
  const CommandResult missing = tbdrsim("sweep-merge s1 s2 s3 --out again", dir);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("configuration 3): resubmit shard 2 of 3"), std::string::npos) << missing.err;
}

// A sweep re-run into its folder with a changed --vary is refused naming the key and the values that
// changed, not the hash of the resolved parameters.
TEST(Sweep, ChangedVaryIsNamedByItsValues) {
  const fs::path dir = scratch("changed_vary");
  const std::string sweep = "sweep '" + k_trace_a + "' --quiet --vary dram.bytes_per_cycle=8,16 ";
  ASSERT_EQ(tbdrsim(sweep + "--vary tiling.width=16,32 --out s", dir).exit_code, 0);
  const CommandResult changed = tbdrsim(sweep + "--vary tiling.width=16,64 --out s", dir);
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_NE(changed.err.find("tiling.width: 16,32 in the folder's sweep, 16,64 in this one (64 new, 32 gone)"),
            std::string::npos)
      << changed.err;
  EXPECT_EQ(changed.err.find("models_fnv1a64"), std::string::npos) << changed.err;
  const CommandResult added = tbdrsim(sweep + "--vary tiling.width=16,32 --vary hsr=none,early_z --out s", dir);
  EXPECT_EQ(added.exit_code, 2);
  EXPECT_NE(added.err.find("hsr=none,early_z in this one (the folder's sweep does not set hsr)"), std::string::npos)
      << added.err;
  const CommandResult preset = tbdrsim(sweep + "--vary tiling.width=16,32 --preset mali-g76 --out s", dir);
  EXPECT_NE(preset.err.find("the preset: \"reference\" in the folder's sweep, \"mali-g76\" in this one"), std::string::npos)
      << preset.err;
}

// A Slurm or CI log is not a terminal: progress comes as plain lines (no carriage return, no escape
// codes), the first at 0 %, the last at 100 %, and the summary gives the time per configuration.
TEST(Sweep, ProgressLinesWithoutATerminal) {
  const fs::path dir = scratch("progress_log");
  const std::string sweep12_verbose = k_sweep12.substr(0, k_sweep12.size() - std::string(" --quiet").size());
  const CommandResult r = tbdrsim("sweep " + sweep12_verbose + " -j 2 --out log", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find('\r'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  const std::vector<std::string> progress = lines(r.err);
  ASSERT_GE(progress.size(), 2u) << r.err;
  EXPECT_EQ(progress.front().rfind("sweep: 0/12 configurations (0 %), 0 failed, elapsed 0:00, ETA ?", 0), 0u) << r.err;
  EXPECT_EQ(progress.back().rfind("sweep: 12/12 configurations (100 %), 0 failed, elapsed ", 0), 0u) << r.err;
  int last_percent = -1;
  for (const std::string& line : progress) {
    const size_t open = line.find(" ("), close = line.find(" %)");
    ASSERT_TRUE(line.rfind("sweep: ", 0) == 0 && open != std::string::npos && close != std::string::npos) << line;
    const int percent = std::stoi(line.substr(open + 2, close - open - 2));
    EXPECT_GE(percent, last_percent) << line;
    last_percent = percent;
  }
  // Within 10 s a line needs another 5 % done: the start plus at most one line per configuration.
  if (progress.back().find("elapsed 0:0") != std::string::npos) {
    EXPECT_LE(progress.size(), 13u) << r.err;
  }
  EXPECT_NE(r.out.find("sweep: 12 configurations simulated in "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" on 2 workers, "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" s per configuration (slowest: configuration "), std::string::npos) << r.out;
}

TEST(Sweep, ImportedScenesAreSwept) {
  const fs::path dir = scratch("imported");
  std::ofstream(dir / "triangle.obj") << "v -1 -1 0\nv 1 -1 0\nv 0 1 0\nf 1 2 3\n";
  const CommandResult r = tbdrsim("sweep triangle.obj --vary tiling.width=16,32 --quiet --out out", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t totals = 0;
  const json results = json::parse(slurp(dir / "out/results.json"));
  for (const json& row : results.at("rows")) {
    EXPECT_EQ(row.at("trace"), "triangle.obj");
    EXPECT_FALSE(row.contains("error")) << row.at("error");
    if (row.at("row") == "total") {
      ++totals;
      EXPECT_GT(row.at("fragments").get<double>(), 0);
    }
  }
  EXPECT_EQ(totals, 2u);
}

TEST(Sweep, FailingRunIsRecordedAndOthersGoOn) {
  const fs::path dir = scratch("failing");
  // A trace the reader accepts but the simulator rejects: a render pass without attachments.
  json trace = json::parse(slurp(k_trace_a));
  trace["frames"][0]["passes"].push_back({{"name", "no_attachments"}, {"type", "render"}, {"attachments", json::array()},
                                          {"render_area", {{"x", 0}, {"y", 0}, {"width", 16}, {"height", 16}}},
                                          {"subpasses", {{{"draws", json::array()}}}}});
  std::ofstream(dir / "bad.json") << trace.dump(1);
  const CommandResult r = tbdrsim("sweep bad.json '" + k_trace_a + "' --vary tiling.width=16,32 --quiet --out out", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json rows = json::parse(slurp(dir / "out/results.json")).at("rows");
  size_t errors = 0, good_totals = 0;
  for (const json& row : rows) {
    if (row.at("trace") == "bad.json") {
      EXPECT_EQ(row.at("row"), "total");
      ASSERT_TRUE(row.contains("error"));
      EXPECT_NE(row.at("error").get<std::string>().find("at least one attachment"), std::string::npos) << row.at("error");
      ++errors;
    } else if (row.at("row") == "total") {
      EXPECT_FALSE(row.contains("error"));
      EXPECT_TRUE(row.contains("dram.write_bytes"));
      ++good_totals;
    }
  }
  EXPECT_EQ(errors, 2u);
  EXPECT_EQ(good_totals, 2u);
  EXPECT_NE(lines(slurp(dir / "out/results.csv"))[0].find(",error,"), std::string::npos);
}

// A part edited or damaged after it was written is named as bad input when the results are rebuilt.
namespace {

// Expects `sweep-merge out --out merged` to refuse, in one line, naming part 000001.json with `fragment`,
// and then resuming the sweep (`args`) to simulate that part again: the same bytes as `original`.
void expect_part_refused_then_redone(const fs::path& dir, const std::string& args, const std::string& original,
                                     const std::string& fragment) {
  const CommandResult merge = tbdrsim("sweep-merge out --out merged", dir);
  EXPECT_EQ(merge.exit_code, 2) << merge.err;
  EXPECT_EQ(std::count(merge.err.begin(), merge.err.end(), '\n'), 1) << merge.err;
  EXPECT_NE(merge.err.find("out/parts/000001.json: not a valid part of this sweep"), std::string::npos) << merge.err;
  EXPECT_NE(merge.err.find(fragment), std::string::npos) << merge.err;
  EXPECT_FALSE(fs::exists(dir / "merged"));
  const CommandResult resumed = tbdrsim(args, dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_FALSE(fs::is_symlink(dir / "out/parts/000001.json"));
  EXPECT_TRUE(slurp(dir / "out/parts/000001.json") == original) << "part 1 was not simulated again";
}

}  // namespace

// A part whose rows were edited, or that is truncated, empty, a symlink, another
// sweep's, or nested too deep, is simulated again on resume and named by sweep-merge (exit 2).
TEST(Sweep, DamagedPartsAreRedoneOnResumeAndRefusedByMerge) {
  const fs::path dir = scratch("damaged_part");
  const std::string args = "sweep '" + k_trace_a + "' --vary tiling.width=16,32 --quiet --out out";
  ASSERT_EQ(tbdrsim(args, dir).exit_code, 0);
  ASSERT_EQ(tbdrsim("sweep '" + k_trace_b + "' --vary tiling.width=16,32 --quiet --out other", dir).exit_code, 0);
  const fs::path part = dir / "out/parts/000001.json";
  const std::string original = slurp(part), results = slurp(dir / "out/results.csv");
  {
    SCOPED_TRACE("a row edited");
    nlohmann::ordered_json edited = nlohmann::ordered_json::parse(original);
    edited["rows"].back().back() = 1;  // the total row's last value (part format 3: a row is [prefix, shape, values...])
    std::ofstream(part, std::ios::trunc) << edited.dump() << "\n";
    expect_part_refused_then_redone(dir, args, original, "rows were edited");
  }
  {
    SCOPED_TRACE("truncated");
    std::ofstream(part, std::ios::trunc) << original.substr(0, original.size() / 2);
    expect_part_refused_then_redone(dir, args, original, "parse error");
  }
  {
    SCOPED_TRACE("empty");
    std::ofstream(part, std::ios::trunc).close();
    expect_part_refused_then_redone(dir, args, original, "parse error");
  }
  {
    SCOPED_TRACE("a symlink");
    fs::remove(part);
    fs::create_symlink(fs::absolute(dir / "out/parts/000000.json"), part);
    expect_part_refused_then_redone(dir, args, original, "not a regular file");
  }
  {
    SCOPED_TRACE("another sweep's");
    fs::copy_file(dir / "other/parts/000001.json", part, fs::copy_options::overwrite_existing);
    expect_part_refused_then_redone(dir, args, original, "a part of another sweep");
  }
  {
    SCOPED_TRACE("nested 100,000 deep");
    std::ofstream(part, std::ios::trunc) << std::string(100000, '[') << std::string(100000, ']');
    expect_part_refused_then_redone(dir, args, original, "nested deeper than 256");
  }
  EXPECT_TRUE(slurp(dir / "out/results.csv") == results);
  EXPECT_EQ(tbdrsim("sweep-merge out --out merged", dir).exit_code, 0);
}

// Parts carry the hashes of every input file (here a trace's texture): a part
// simulated before the file changed is simulated again on resume, and shards simulated on either
// side of the change are not merged.
TEST(Sweep, ChangedInputFileRedoesPartsAndMergeRefusesMixedShards) {
  const fs::path dir = scratch("changed_input");
  fs::create_directories(dir / "scene");
  for (const char* f : {"textured.json", "uv_test.png"})
    fs::copy_file(fs::path(TBDR_SOURCE_DIR + "/traces/features") / f, dir / "scene" / f);
  const std::string args = "sweep scene/textured.json --vary tiling.width=16,32 --quiet --shard ";
  ASSERT_EQ(tbdrsim(args + "1/2 --out s1", dir).exit_code, 0);
  const json part = json::parse(slurp(dir / "s1/parts/000000.json"));
  bool texture_listed = false;
  for (const json& input : part.at("inputs"))
    texture_listed |= input.at("path").get<std::string>().find("uv_test.png") != std::string::npos;
  EXPECT_TRUE(texture_listed) << part.at("inputs").dump();
  // Bytes after the PNG's IEND chunk: the image decodes the same, the file differs.
  std::ofstream(dir / "scene/uv_test.png", std::ios::app | std::ios::binary) << "changed";
  ASSERT_EQ(tbdrsim(args + "2/2 --out s2", dir).exit_code, 0);
  const CommandResult mixed = tbdrsim("sweep-merge s1 s2 --out merged", dir);
  EXPECT_EQ(mixed.exit_code, 2) << mixed.err;
  EXPECT_EQ(std::count(mixed.err.begin(), mixed.err.end(), '\n'), 1) << mixed.err;
  EXPECT_NE(mixed.err.find("s2/parts/000001.json: not a valid part of this sweep: input file"), std::string::npos)
      << mixed.err;
  EXPECT_NE(mixed.err.find("uv_test.png"), std::string::npos) << mixed.err;
  EXPECT_FALSE(fs::exists(dir / "merged"));
  const std::string before = slurp(dir / "s1/parts/000000.json");
  const CommandResult resumed = tbdrsim("sweep scene/textured.json --vary tiling.width=16,32 --shard 1/2 --out s1", dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("uv_test.png"), std::string::npos) << resumed.err;
  EXPECT_FALSE(slurp(dir / "s1/parts/000000.json") == before) << "the part was kept";
  const CommandResult merge = tbdrsim("sweep-merge s1 s2 --out merged", dir);
  EXPECT_EQ(merge.exit_code, 0) << merge.err;
}

// Output staging for sweeps: parts and results are staged as a run's outputs are (unguessable
// names created with O_EXCL | O_NOFOLLOW, frontend/staged_file.h). Symlinks planted at the names a
// sweep used to stage under (".NAME.tmp-PID-N", the PID known to a shell that execs the sweep) leave
// their target alone, and a result that cannot be moved into place (a folder where results.csv goes)
// leaves no staged file and names results.csv.
TEST(Sweep, StagedOutputsFollowNoPlantedSymlinkAndNeverStay) {
  const fs::path dir = scratch("staged_outputs");
  const std::string sweep = "sweep '" + k_trace_a + "' --vary tiling.width=16,32 -j 1 --quiet --out out";
  ASSERT_EQ(tbdrsim(sweep, dir).exit_code, 0);
  fs::remove(dir / "out/parts/000001.json");
  std::ofstream(dir / "victim") << "victim\n";
  std::string plant = "for i in 0 1 2 3 4 5 6 7; do for n in sweep.json results.csv results.json attachments.csv "
                      "report.html; do ln -s ../victim out/.$n.tmp-$$-$i; done; for p in 0 1; do "
                      "ln -s ../../victim out/parts/.00000$p.json.tmp-$$-$i; done; done; ";
  const CommandResult planted = shell(plant + "exec '" + k_binary + "' " + sweep, dir);
  EXPECT_EQ(planted.exit_code, 0) << planted.err;
  EXPECT_EQ(slurp(dir / "victim"), "victim\n") << "a planted symlink was followed";
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "out/parts/000001.json"))) << "the part was not redone";

  fs::remove(dir / "out/results.csv");
  fs::create_directories(dir / "out/results.csv/in_the_way");
  fs::remove(dir / "out/parts/000000.json");
  const CommandResult blocked = tbdrsim(sweep, dir);
  EXPECT_NE(blocked.exit_code, 0);
  EXPECT_EQ(std::count(blocked.err.begin(), blocked.err.end(), '\n'), 1) << blocked.err;
  EXPECT_NE(blocked.err.find("out/results.csv"), std::string::npos) << blocked.err;
  for (const fs::path& folder : {dir / "out", dir / "out/parts"})
    for (const fs::directory_entry& e : fs::directory_iterator(folder)) {
      const std::string name = e.path().filename().string();
      EXPECT_TRUE(name.find(".tmp-") == std::string::npos || fs::is_symlink(e.symlink_status())) << "staged file left: " << name;
    }
}

TEST(Sweep, BadInputIsOneLineAndExitTwoBeforeAnyWork) {
  const fs::path dir = scratch("bad_input");
  std::ofstream(dir / "empty.csv") << "tiling.width\n";
  std::ofstream(dir / "broken.json") << "[{\"tiling.width\": 16},";
  std::ofstream(dir / "dup.json") << "[{\"tiling.width\": 16, \"tiling.width\": 32}]";
  std::ofstream(dir / "cells.csv") << "tiling.width,hsr\n16\n";
  std::ofstream(dir / "dup_column.csv") << "tiling.width,tiling.width\n16,32\n";
  std::ofstream(dir / "dup_assignment.json") << R"([["tiling.width=16", "tiling.width=32"]])";
  std::ofstream(dir / "overflow.json") << R"([{"tiling.width": 16}, {"tiling.width": 1e400}])";
  std::ofstream(dir / "dup_newline_key.json") << "[{\"a\\nb\": 1, \"a\\nb\": 2}]";  // a key holding a line break
  const std::string t = "'" + k_trace_a + "' ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {t + "--vary nosuchkind=a,b", "unknown kind"},
      {t + "--vary tiling.nosuchparam=1,2", "nosuchparam"},
      {t + "--vary tiling.width=16,abc", "tiling.width"},
      {t + "--vary tiling.width=16,,32", "empty value"},
      {t + "--vary tiling.width=16,32 --vary tiling.width=8", "tiling.width is varied twice"},
      {t + "--vary tiling.width=16,32,16", "16 is listed twice"},
      {t + "--vary tiling.width=", "empty"},
      {t + "--vary tiling.width", "KEY=v1,v2"},
      {t + "--vary tile=16x16,32", "tile"},
      {t + "--set tiling.width=16", "nothing to vary"},
      {t + "--grid missing.csv", "cannot read"},
      {t + "--grid empty.csv", "empty"},
      {t + "--grid broken.json", "not valid JSON"},
      {t + "--grid dup.json", "dup.json: /0/tiling.width: duplicate key"},
      {t + "--grid cells.csv", "expected 2 cells"},
      {t + "--grid dup_column.csv", "column tiling.width given twice"},
      {t + "--grid dup_assignment.json", "tiling.width assigned twice"},
      {t + "--grid overflow.json", "overflow.json: /1/tiling.width: not valid JSON: number overflow"},
      {t + "--grid dup_newline_key.json", "/0/a b: duplicate key \"a b\""},  // still one line
      {t + "--grid empty.csv --vary tiling.width=16,32", "alternatives"},
      {t + "--vary tiling.width=16,32 --shard 4/3", "--shard"},
      {"missing_trace.json --vary tiling.width=16,32", "missing_trace.json"},
  };
  for (const auto& [args, expected] : cases) {
    SCOPED_TRACE(args);
    const CommandResult r = tbdrsim("sweep " + args + " --out out", dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out")) << "nothing written before the input is valid";
  }
  // A folder that holds something else is not taken over.
  fs::create_directories(dir / "busy");
  std::ofstream(dir / "busy/notes.txt") << "mine";
  const CommandResult busy = tbdrsim("sweep " + t + "--vary tiling.width=16,32 --out busy", dir);
  EXPECT_EQ(busy.exit_code, 2);
  EXPECT_NE(busy.err.find("holds no sweep"), std::string::npos) << busy.err;
}

TEST(Sweep, PlotScriptWritesPngs) {
  const fs::path dir = scratch("plot");
  const std::string python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  if (shell(python + " -c 'import matplotlib'", dir).exit_code != 0)
    TBDR_SKIP_OR_FAIL("python3-matplotlib is not installed (tools/test installs it): the plot script is not tested");
  ASSERT_EQ(tbdrsim("sweep '" + k_trace_a + "' --vary tiling.width=16,32 --vary tiling.height=16,32 --vary hsr=none,early_z --quiet --out out", dir).exit_code, 0);
  const std::string script = python + " '" + TBDR_SOURCE_DIR + "/tools/plot_sweep.py' out/results.csv ";
  const CommandResult line = shell(script + "--x set.tiling.width --y dram.read_bytes --series set.tiling.height --where set.hsr=none -o line.png", dir);
  ASSERT_EQ(line.exit_code, 0) << line.err;
  const CommandResult heat = shell(script + "--kind heatmap --x set.tiling.width --y set.tiling.height --value frame_cycles -o heat.png", dir);
  ASSERT_EQ(heat.exit_code, 0) << heat.err;
  for (const char* png : {"line.png", "heat.png"}) {
    const std::string bytes = slurp(dir / png);
    EXPECT_GT(bytes.size(), 1000u) << png;
    EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << png;
  }
  const CommandResult bad = shell(script + "--x set.tiling.width --y no.such.column -o bad.png", dir);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("no.such.column"), std::string::npos) << bad.err;
}

// ---- simulate once, cost many ----------------------------------------------------------------------

namespace {

// Small traces covering texture caches, several frames, copies and blits, MSAA resolves and a
// refused merge (two hardware passes).
std::string reuse_traces() {
  std::string out;
  for (const char* name :
       {"textured", "multi_frame", "copy_blit", "msaa_inline_resolve", "merge_refused_no_shared_data"})
    out += std::string(" '") + TBDR_SOURCE_DIR + "/traces/features/" + name + ".json'";
  return out;
}

// The same sweep with and without reuse: every output file byte-identical; returns the reuse run's stdout.
std::string expect_reuse_equals_resimulation(const std::string& args, const fs::path& dir) {
  const CommandResult full = tbdrsim("sweep" + args + " --no-reuse -j 2 --out full", dir);
  EXPECT_EQ(full.exit_code, 0) << full.err;
  EXPECT_EQ(full.out.find("reuse:"), std::string::npos) << full.out;
  const CommandResult reused = tbdrsim("sweep" + args + " -j 2 --out reused", dir);
  EXPECT_EQ(reused.exit_code, 0) << reused.err;
  expect_same_results(dir / "full", dir / "reused");
  return reused.out;
}

}  // namespace

// mali-g710 (texture caches on 10 cores without an L2, AFBC, TE, parameter-buffer flushes forced
// by a small buffer): cost parameters and cost-kind implementations that move cycles, energy and the texture
// caches' bytes (the cores' tile assignment depends on the tiles' cycles), and one functional
// parameter (compression). 32 configurations x 5 traces: 2 simulations per trace, 150 re-costings.
TEST(Sweep, ReuseEqualsFullResimulation) {
  const fs::path dir = scratch("reuse");
  const std::string args = reuse_traces() +
                           " --preset mali-g710 --set param_buffer.capacity=2048 --set texture.l2_bytes=0"
                           " --vary cores=round_robin,least_loaded --vary shader.texels_per_clk=1,8"
                           " --vary dram.bytes_per_cycle=2,23.5 --vary compression=none,afbc"
                           " --vary energy.dram_pj_per_byte=10,100";
  const std::string out = expect_reuse_equals_resimulation(args, dir);
  EXPECT_NE(out.find("reuse: 2 functional configurations, 10 simulations, 150 re-costings from records (0 over "
                     "the budget)"),
            std::string::npos)
      << out;
  // The sweep is not trivial: the cost parameters change cycles and the texture caches' bytes.
  std::set<std::string> cycles, texture_bytes;
  const json results = json::parse(slurp(dir / "reused/results.json"));
  for (const json& row : results.at("rows"))
    if (row.at("row") == "total" && row.at("trace").get<std::string>().ends_with("textured.json")) {
      cycles.insert(row.at("frame_cycles").dump());
      texture_bytes.insert(row.at("dram.by_category.texture.read_bytes").dump());
    }
  EXPECT_GE(cycles.size(), 8u);
  EXPECT_GT(texture_bytes.size(), 1u);
}

// A sweep of at most 4,096 configurations runs each on the models built when it was checked; a larger
// one builds them again for each run: the rows of the same configurations are the same either way.
TEST(Sweep, ModelsKeptFromTheCheckEqualModelsBuiltPerRun) {
  const fs::path dir = scratch("kept_models");
  std::string values = "1";
  for (int v = 2; v <= 4096; ++v) {
    values += ',';  // appended piecewise: GCC 12 warns falsely (-Wrestrict, GCC bug 105329) on "," + string&&
    values += std::to_string(v);
  }
  const std::string args = "'" + k_trace_b + "' --quiet -j 2 --vary dram.bytes_per_cycle=" + values;
  ASSERT_EQ(tbdrsim("sweep " + args + " --out kept", dir).exit_code, 0);
  ASSERT_EQ(tbdrsim("sweep " + args + ",4097 --out built", dir).exit_code, 0);
  const std::string kept = slurp(dir / "kept/results.csv"), built = slurp(dir / "built/results.csv");
  ASSERT_GT(kept.size(), 4096u * 100);
  EXPECT_TRUE(built.compare(0, kept.size(), kept) == 0) << "the first 4,096 configurations' rows differ";
  EXPECT_GT(built.size(), kept.size() + 100) << "configuration 4096 has no rows";
}

// adreno-a740: direct rendering (its framebuffer cache's traffic priced after costing) against
// tiles, two schedulers, DRAM rates.
TEST(Sweep, ReuseOfDirectRenderingEqualsFullResimulation) {
  const fs::path dir = scratch("reuse_direct");
  const std::string args = reuse_traces() +
                           " --preset adreno-a740 --vary direct=never,always --vary scheduler=two_queue,serial"
                           " --vary dram.bytes_per_cycle=1,32 --vary cores.clock_mhz=300,680";
  const std::string out = expect_reuse_equals_resimulation(args, dir);
  EXPECT_NE(out.find("reuse: 2 functional configurations, 10 simulations, 70 re-costings"), std::string::npos) << out;
}

// The present mode, refresh rate and power budget are cost parameters (models/README.md "display",
// "power"): 2 x 2 x 2 configurations over one trace are one simulation and 7 re-costings, equal to
// simulating each; results.csv gains the timeline's and the power's columns, and they move with them.
TEST(Sweep, PresentAndPowerAreSweptAsCostParameters) {
  const fs::path dir = scratch("reuse_present");
  const std::string args = " '" + std::string(TBDR_SOURCE_DIR) +
                           "/traces/savers/hud_swapchain.json' --vary display=fifo,immediate"
                           " --vary display.refresh_hz=60,120 --vary power.sustained_w=0.001,2";
  const std::string out = expect_reuse_equals_resimulation(args, dir);
  EXPECT_NE(out.find("reuse: 1 functional configuration, 1 simulation, 7 re-costings"), std::string::npos) << out;
  const std::string header = lines(slurp(dir / "reused/results.csv")).at(0);
  for (const char* column : {"set.display", "set.display.refresh_hz", "set.power.sustained_w", "present.jitter_ms",
                             "present.mean_latency_ms", "power.watts", "power.within_budget",
                             "power.budget_frames_per_second"})
    EXPECT_NE(header.find(std::string(",") + column + ","), std::string::npos) << column << " in " << header;
  std::set<std::string> spans, within;
  const json results = json::parse(slurp(dir / "reused/results.json"));
  for (const json& row : results.at("rows"))
    if (row.at("row") == "total") {
      spans.insert(row.at("present.span_ms").dump());
      within.insert(row.at("power.within_budget").dump());
    }
  EXPECT_EQ(spans.size(), 3u);  // fifo at 60 Hz, fifo at 120 Hz, immediate (refresh rate unused)
  EXPECT_EQ(within.size(), 2u);
}

// A budget no record fits: every configuration is simulated again, with the same results.
TEST(Sweep, RecordsOverTheBudgetAreSimulatedAgain) {
  const fs::path dir = scratch("reuse_budget");
  const std::string args = " '" + k_trace_a + "' --vary dram.bytes_per_cycle=2,4,8 --record-budget 0";
  const std::string out = expect_reuse_equals_resimulation(args, dir);
  EXPECT_NE(out.find("reuse: 1 functional configuration, 3 simulations, 0 re-costings from records (1 over "
                     "the budget); records held at most 0.0 MiB of the 0.0 MiB budget"),
            std::string::npos)
      << out;
}

// Parameters carry their class, `tbdrsim models` shows it, and the functional part of a
// configuration keeps exactly its functional kinds and parameters.
TEST(Sweep, ParameterClassesAndFunctionalPart) {
  using namespace tbdr::models;
  EXPECT_EQ(kind_param_class("dram"), ParamClass::cost);
  EXPECT_EQ(kind_param_class("tiling"), ParamClass::functional);
  EXPECT_EQ(kind_param_class("a_kind_added_later"), ParamClass::functional);
  for (const ParamInfo& p : implementation_parameters("shader", "basic")) EXPECT_EQ(p.param_class, ParamClass::cost);
  for (const ParamInfo& p : implementation_parameters("texture", "cache"))
    EXPECT_EQ(p.param_class, ParamClass::functional);
  const std::string text = describe_models();
  EXPECT_NE(text.find("dram.bytes_per_cycle  real, B/clk, default 25, range"), std::string::npos);
  EXPECT_NE(text.find("tiling.width  integer, px, default 16, range [1, 4096], functional: "), std::string::npos)
      << text;
  auto functional = [](const std::vector<std::string>& sets) {
    Configuration config = Configuration::from_preset("mali-g710");
    for (const std::string& s : sets) config.apply(s);
    return functional_part(build_models(config).resolved);
  };
  const nlohmann::json base = functional({});
  EXPECT_EQ(functional({"dram.bytes_per_cycle=4", "cores=least_loaded", "shader.alu_ops_per_clk=1"}), base);
  EXPECT_NE(functional({"texture.size_bytes=1024"}), base);
  EXPECT_NE(functional({"tiling.width=16"}), base);
  EXPECT_FALSE(base.contains("dram"));
  EXPECT_TRUE(base.contains("tiling"));
}

// A record holds the tiles' texture line streams in chunks (sim/pass/texture_streams.h) with
// little room to spare: the sweep's record budget counts capacity, and per-tile vectors grown from
// empty by doubling once held up to twice their lines (the default scene's record under mali-g710:
// 17.1 MiB, 11.7 MiB at their size). One thread, as a sweep simulates.
TEST(Sweep, RecordedTextureLineStreamsHoldLittleSlack) {
  const tbdr::Trace trace = tbdr::read_trace(TBDR_SOURCE_DIR + "/traces/default/scene.json");
  const tbdr::models::ModelSet models =
      tbdr::models::build_models(tbdr::models::Configuration::from_preset("mali-g710"));
  tbdr::FunctionalRecord record;
  tbdr::SimOptions options;
  options.threads = 1;
  tbdr::simulate(trace, models, options, nullptr, &record);
  uint64_t lines = 0;
  for (const auto& frame : record.frames)
    for (const auto& pass : frame)
      for (const tbdr::HardwarePassRecord& hardware_pass : pass.hardware_passes) {
        const tbdr::TextureLineStreams& streams = hardware_pass.texture_lines;
        lines += streams.line_count();
        // Beyond the lines and their refs: the unused tail of the writer's last chunk (one render,
        // one writer: under its 2 MiB) and of its first (128 KiB), sim/pass/texture_streams.cpp.
        const uint64_t held = streams.line_count() * sizeof(uint64_t) +
                              streams.size() * sizeof(tbdr::TextureLineStreams::Ref);
        EXPECT_LE(streams.memory_bytes(), held + (uint64_t(2) << 20) + (uint64_t(128) << 10));
      }
  EXPECT_GT(lines, 100000u);
}

// Re-costing equals simulating, and a record is never re-costed under another functional
// configuration.
TEST(Sweep, CostRecordedEqualsSimulateAndRefusesAnotherFunctionalConfiguration) {
  const tbdr::Trace trace = tbdr::read_trace(TBDR_SOURCE_DIR + "/traces/features/textured.json");
  auto models_of = [](const std::string& set) {
    tbdr::models::Configuration config = tbdr::models::Configuration::from_preset("mali-g710");
    config.apply(set);
    return tbdr::models::build_models(config);
  };
  tbdr::SimOptions options;
  options.threads = 2;
  tbdr::FunctionalRecord record;
  const tbdr::RunStats first = tbdr::simulate(trace, models_of("dram.bytes_per_cycle=4"), options, nullptr, &record);
  EXPECT_GT(record.memory_bytes(), 0u);
  const tbdr::models::ModelSet other_cost = models_of("shader.texels_per_clk=1");
  const tbdr::RunStats simulated = tbdr::simulate(trace, other_cost, options, nullptr);
  const tbdr::RunStats costed = tbdr::cost_recorded(trace, record, other_cost);
  ASSERT_EQ(costed.frames.size(), simulated.frames.size());
  EXPECT_EQ(costed.frames[0].frame_cycles, simulated.frames[0].frame_cycles);
  EXPECT_NE(costed.frames[0].frame_cycles, first.frames[0].frame_cycles);
  EXPECT_THROW(tbdr::cost_recorded(trace, record, models_of("compression=none")), std::invalid_argument);
}

// The texture caches' replay memo of a record (sim/pass/costing.h): a replay is taken from it only
// for the same texture model, the same core count and the same tile-to-core assignment; the oldest
// of more than four entries goes. (Sweep.ReuseEqualsFullResimulation checks the re-costed figures.)
TEST(Sweep, TextureReplayMemoMatchesModelCoresAndAssignment) {
  tbdr::TextureReplayMemo memo;
  const std::string texture = R"({"impl":"cache","params":{"size_bytes":16384}})";
  const std::vector<uint32_t> assignment = {0, 1, 2, 0, 1, 2};
  tbdr::models::TextureCacheStats stats;
  stats.hits = 7;
  stats.dram_bytes = 640;
  memo.add(texture, assignment, 3, stats);
  ASSERT_TRUE(memo.find(texture, assignment, 3).has_value());
  EXPECT_EQ(memo.find(texture, assignment, 3)->hits, 7u);
  EXPECT_EQ(memo.find(texture, assignment, 3)->dram_bytes, 640u);
  EXPECT_FALSE(memo.find(texture, {0, 1, 2, 0, 2, 1}, 3).has_value());  // another assignment
  EXPECT_FALSE(memo.find(texture, assignment, 4).has_value());          // another core count
  EXPECT_FALSE(memo.find(R"({"impl":"cache","params":{"size_bytes":8192}})", assignment, 3).has_value());
  for (uint32_t k = 0; k < 4; ++k) memo.add(texture, std::vector<uint32_t>(6, k), 3, stats);
  EXPECT_FALSE(memo.find(texture, assignment, 3).has_value());  // the oldest of five went
  EXPECT_TRUE(memo.find(texture, std::vector<uint32_t>(6, 0), 3).has_value());
  const tbdr::TextureReplayMemo copy = memo;  // a copied record starts without replays
  EXPECT_FALSE(copy.find(texture, std::vector<uint32_t>(6, 0), 3).has_value());
}
