// `run --trace-events` (tools/commands/trace_events.h) against the Trace Event Format's rules (Chromium's
// "Trace Event Format" document: the JSON Object Format, complete "X", counter "C" and metadata "M"
// events) and against the JSON report of the same run: events on a track never overlap, the queues'
// durations add up to the passes' cycles, each core's busiest share is the fragment phase's compute
// time, and the DRAM counter integrates to the frame's bytes. Same file for any thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "cli_run.h"
#include "test_paths.h"

namespace fs = std::filesystem;

namespace {

using cli_run::read_text;

fs::path scratch(const std::string& name) { return cli_run::scratch("trace_events_" + name); }
int run_cli(const fs::path& dir, const std::string& args) { return cli_run::tbdrsim(dir, args); }

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

// The format's rules for each event kind; the tracks that have a name.
void check_format(const nlohmann::json& trace) {
  ASSERT_TRUE(trace.is_object());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::set<int> named, used;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    ASSERT_TRUE(e["ph"].is_string() && e["name"].is_string() && e["pid"].is_number_integer()) << e.dump();
    const std::string ph = e["ph"];
    if (ph == "X") {
      ASSERT_TRUE(e["tid"].is_number_integer() && e["ts"].is_number() && e["dur"].is_number()) << e.dump();
      EXPECT_GE(e["ts"].get<double>(), 0.0);
      EXPECT_GT(e["dur"].get<double>(), 0.0) << e.dump();
      used.insert(e["tid"].get<int>());
    } else if (ph == "C") {
      ASSERT_TRUE(e["ts"].is_number() && e["args"].is_object()) << e.dump();
      for (const auto& [series, value] : e["args"].items()) EXPECT_TRUE(value.is_number() && value.get<double>() >= 0) << e.dump();
    } else {
      ASSERT_EQ(ph, "M") << e.dump();
      const std::string name = e["name"];
      ASSERT_TRUE(name == "process_name" || name == "thread_name" || name == "thread_sort_index") << name;
      if (name == "thread_name") named.insert(e["tid"].get<int>());
      if (name != "thread_sort_index") EXPECT_TRUE(e["args"]["name"].is_string());
    }
  }
  for (int tid : used) EXPECT_EQ(named.count(tid), 1u) << "track " << tid << " has no thread_name";
}

// Complete events per track, in time order, never overlapping (a track is one queue or one core).
std::map<int, std::vector<nlohmann::json>> tracks(const nlohmann::json& trace) {
  std::map<int, std::vector<nlohmann::json>> by_track;
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == "X") by_track[e["tid"].get<int>()].push_back(e);
  for (auto& [tid, events] : by_track) {
    std::stable_sort(events.begin(), events.end(), [](const auto& a, const auto& b) { return a["ts"] < b["ts"]; });
    for (size_t i = 1; i < events.size(); ++i) {
      const double end = events[i - 1]["ts"].get<double>() + events[i - 1]["dur"].get<double>();
      EXPECT_TRUE(events[i]["ts"].get<double>() >= end || near(events[i]["ts"], end))
          << "track " << tid << ": " << events[i - 1].dump() << " overlaps " << events[i].dump();
    }
  }
  return by_track;
}

// Durations against the JSON report: queues, frames, cores; the counter's integral against DRAM bytes.
void check_against_report(const nlohmann::json& trace, const nlohmann::json& report) {
  const double clock = trace["otherData"]["clock_mhz"];
  const std::map<int, std::vector<nlohmann::json>> by_track = tracks(trace);
  double geometry = 0, fragment = 0, frames = 0, bytes = 0;
  for (const nlohmann::json& frame : report["frames"]) {
    frames += frame["frame_cycles"].get<double>();
    bytes += frame["totals"]["dram"]["read_bytes"].get<double>() + frame["totals"]["dram"]["write_bytes"].get<double>();
    for (const nlohmann::json& p : frame["passes"]) geometry += p["cycles"]["geometry"].get<double>(), fragment += p["cycles"]["fragment"].get<double>();
  }
  const auto sum = [&](int tid) {
    double cycles = 0;
    if (by_track.count(tid))
      for (const nlohmann::json& e : by_track.at(tid)) cycles += e["dur"].get<double>() * clock;
    return cycles;
  };
  EXPECT_TRUE(near(sum(0), frames)) << sum(0) << " vs " << frames;
  EXPECT_TRUE(near(sum(1), geometry)) << sum(1) << " vs " << geometry;
  EXPECT_TRUE(near(sum(2), fragment)) << sum(2) << " vs " << fragment;
  // Where the cores bound a hardware pass, its busiest core plus render_vertex is the fragment phase.
  std::map<std::pair<int, int>, double> busiest;  // (pass, hardware pass) -> cycles, frame 0
  for (const auto& [tid, events] : by_track)
    for (const nlohmann::json& e : events)
      if (tid >= 100 && e["args"]["frame"] == 0)
        busiest[{e["args"]["pass"], e["args"]["hardware_pass"]}] =
            std::max(busiest[{e["args"]["pass"], e["args"]["hardware_pass"]}], e["args"]["busy_cycles"].get<double>());
  const nlohmann::json& passes = report["frames"][0]["passes"];
  for (const auto& [at, cycles] : busiest) {
    const nlohmann::json& hw = passes[at.first]["hardware_passes"][at.second]["cycles"];
    EXPECT_LE(cycles, hw["fragment"].get<double>() * (1 + 1e-12));
    if (hw["breakdown"]["fragment_dram"] < hw["fragment"]) {
      EXPECT_TRUE(near(cycles + hw["breakdown"]["render_vertex"].get<double>(), hw["fragment"])) << cycles;
    }
  }
  EXPECT_FALSE(busiest.empty());
  // The counter is a step function: each value holds until the next sample.
  double integral = 0, last_ts = 0, last_rate = 0;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (e["ph"] != "C") continue;
    integral += last_rate * (e["ts"].get<double>() - last_ts) * clock;
    last_ts = e["ts"], last_rate = e["args"]["geometry"].get<double>() + e["args"]["fragment"].get<double>();
  }
  EXPECT_EQ(last_rate, 0.0);
  EXPECT_NEAR(integral, bytes, 1e-6 * bytes);
}

void check_run(const std::string& name, const std::string& args) {
  const fs::path dir = scratch(name);
  ASSERT_EQ(run_cli(dir, "run " + args + " --no-images --quiet --json r.json --trace-events t.json --threads 1"), 0)
      << read_text(dir / "stderr.txt");
  const nlohmann::json trace = nlohmann::json::parse(read_text(dir / "t.json"));
  const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
  check_format(trace);
  check_against_report(trace, report);
  ASSERT_EQ(run_cli(dir, "run " + args + " --no-images --quiet --trace-events t2.json --threads 2"), 0);
  EXPECT_EQ(read_text(dir / "t.json"), read_text(dir / "t2.json"));
}

TEST(TraceEvents, DefaultSceneOnTenCores) { check_run("default", "--preset mali-g710"); }

TEST(TraceEvents, SevenPassesWithTransfers) {
  check_run("load_store", "'" + TBDR_SOURCE_DIR + "/traces/features/load_store_ops.json' --preset adreno-a740");
}

TEST(TraceEvents, FramesFollowOneAnother) {
  check_run("multi_frame", "'" + TBDR_SOURCE_DIR + "/traces/features/multi_frame.json'");
}

TEST(TraceEvents, OutputPathIsCheckedBeforeSimulating) {
  const fs::path dir = scratch("bad_path");
  fs::create_directories(dir / "folder");
  EXPECT_EQ(run_cli(dir, "run --no-images --quiet --trace-events folder"), 2);
  EXPECT_NE(read_text(dir / "stderr.txt").find("--trace-events folder: names a folder"), std::string::npos) << read_text(dir / "stderr.txt");
  EXPECT_EQ(run_cli(dir, "run --no-images --quiet --trace-events r.json --html r.json"), 2);
  EXPECT_NE(read_text(dir / "stderr.txt").find("--trace-events r.json: names the file of --html"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "r.json"));
}

}  // namespace
