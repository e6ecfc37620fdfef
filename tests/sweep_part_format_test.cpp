// Sweep part format 4 (tools/doc/sweeps.md "What the output folder holds"): parts read back to the results
// they were written with, a file per group of configurations whatever -j or shards, their shared layout file,
// and damaged layouts, rows and old-format parts named in one line (the file, the line and the field) by
// sweep-merge and simulated again on resume.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/hardening_fixture.h"  // slurp, kBinary

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using tbdr::slurp;

namespace {

const std::string k_trace = TBDR_SOURCE_DIR + "/traces/features/merge_refused_no_shared_data.json";
const std::string k_trace_b = TBDR_SOURCE_DIR + "/traces/features/clip_space.json";

struct Result {
  int exit_code = -1;
  std::string err;
};

Result tbdrsim(const std::string& args, const fs::path& dir) {
  const std::string cmd = "cd '" + dir.string() + "' && '" + tbdr::kBinary + "' " + args + " > /dev/null 2> .stderr < /dev/null";
  const int status = std::system(cmd.c_str());
  Result r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / ".stderr")};
  fs::remove(dir / ".stderr");
  return r;
}

fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(TBDR_BINARY_DIR) / "test-scratch" / "sweep_part_format" / name;
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

// Two traces, a functional and two cost parameters: rows of several shapes, prefixes shared across traces.
const std::string k_args = "sweep '" + k_trace + "' '" + k_trace_b +
                           "' --vary tiling.width=16,32 --vary dram.bytes_per_cycle=4,8 --vary cores.clock_mhz=500,900 --quiet -j 2";

std::vector<fs::path> layout_files(const fs::path& parts) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(parts))
    if (e.path().filename().string().rfind("layout-", 0) == 0) out.push_back(e.path());
  return out;
}

void expect_same_results(const fs::path& a, const fs::path& b) {
  for (const char* f : {"sweep.json", "results.csv", "results.json", "attachments.csv", "report.html"}) {
    SCOPED_TRACE(f);
    EXPECT_TRUE(slurp(a / f) == slurp(b / f)) << a / f << " differs from " << b / f;
  }
}

// A group file's lines (a part each).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Rewrites configuration 1's part (line 2 of the group file) with `edit` applied and its rows_fnv1a64 made to
// match again, as a forger would.
template <class Edit>
void forge_part(const fs::path& part, Edit edit) {
  std::vector<std::string> lines = lines_of(slurp(part));
  ojson p = ojson::parse(lines.at(1));
  edit(p);
  const std::string rows = "\"rows\":" + p["rows"].dump() + ",\"attachments\":" + p["attachments"].dump();
  uint64_t hash = 1469598103934665603ull;  // models/input_file.cpp fnv1a64's basis
  for (unsigned char c : rows) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  p["rows_fnv1a64"] = hex;
  lines[1] = p.dump();
  std::ofstream out(part, std::ios::trunc);
  for (const std::string& line : lines) out << line << "\n";
}

// sweep-merge refuses in one line naming the part (`named`: the first that refers to a bad layout) and
// `fragment`; the resumed sweep redoes the group file of configurations 0-3.
void expect_refused_then_redone(const fs::path& dir, const std::string& fragment, const std::string& original,
                                const std::string& named = "000000.json") {
  const Result merge = tbdrsim("sweep-merge out --out merged", dir);
  EXPECT_EQ(merge.exit_code, 2) << merge.err;
  EXPECT_EQ(std::count(merge.err.begin(), merge.err.end(), '\n'), 1) << merge.err;
  EXPECT_NE(merge.err.find("out/parts/" + named + ": not a valid part of this sweep"), std::string::npos) << merge.err;
  EXPECT_NE(merge.err.find(fragment), std::string::npos) << merge.err;
  EXPECT_FALSE(fs::exists(dir / "merged"));
  const Result resumed = tbdrsim(k_args + " --out out", dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_TRUE(slurp(dir / "out/parts/000000.json") == original) << "part 0 (configurations 0-3) was not simulated again";
}

}  // namespace

// Parts hold no column names: one layout file for the sweep's rows, each part naming it. A sweep resumed from
// its parts alone (every row decoded from them) and a merge of its folder write the same files.
TEST(SweepPartFormat, PartsReadBackToTheSameResults) {
  const fs::path dir = scratch("round_trip");
  ASSERT_EQ(tbdrsim(k_args + " --out out", dir).exit_code, 0);
  const std::vector<fs::path> layouts = layout_files(dir / "out/parts");
  ASSERT_EQ(layouts.size(), 1u);
  const ojson layout = ojson::parse(slurp(layouts[0]));
  EXPECT_EQ(layout.at("format"), "tbdrsim-sweep-layout");
  // Configurations 0-3 (tiling.width=16) in one file, 4-7 in another: a part a line, in index order.
  const std::vector<std::string> group = lines_of(slurp(dir / "out/parts/000000.json"));
  ASSERT_EQ(group.size(), 4u);
  for (size_t i = 0; i < group.size(); ++i) EXPECT_EQ(ojson::parse(group[i]).at("index"), i);
  EXPECT_EQ(lines_of(slurp(dir / "out/parts/000004.json")).size(), 4u);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "out/parts"), fs::directory_iterator()), 3) << "2 groups, 1 layout";
  const ojson part = ojson::parse(group[1]);
  EXPECT_EQ(part.at("version"), 4);
  EXPECT_EQ("layout-" + part.at("layout_fnv1a64").get<std::string>() + ".json", layouts[0].filename().string());
  EXPECT_EQ(slurp(dir / "out/parts/000000.json").find("\"frame_cycles\""), std::string::npos) << "a column name in a part";
  // Every row shares its trace's cells with the row before it but the first of each trace.
  const auto unshared = std::count_if(part.at("rows").begin(), part.at("rows").end(), [](const ojson& r) { return r.at(0) == 0; });
  EXPECT_EQ(unshared, 2);

  fs::create_directories(dir / "copy");
  fs::copy(dir / "out", dir / "copy", fs::copy_options::recursive);
  for (const char* f : {"results.csv", "results.json", "attachments.csv", "report.html"}) fs::remove(dir / "copy" / f);
  const Result resumed = tbdrsim(k_args + " --out copy", dir);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  expect_same_results(dir / "out", dir / "copy");

  ASSERT_EQ(tbdrsim(k_args + " --shard 1/2 --out s1", dir).exit_code, 0);
  ASSERT_EQ(tbdrsim(k_args + " --shard 2/2 --out s2", dir).exit_code, 0);
  const Result merge = tbdrsim("sweep-merge s1 s2 --out merged", dir);
  ASSERT_EQ(merge.exit_code, 0) << merge.err;
  expect_same_results(dir / "out", dir / "merged");
  EXPECT_EQ(layout_files(dir / "merged/parts").size(), 1u);
  EXPECT_TRUE(slurp(layouts[0]) == slurp(dir / "merged/parts" / layouts[0].filename()));
  // The same part files, byte for byte, from one worker, from two shards merged and from a resumed sweep.
  std::string one_worker = k_args;
  one_worker.replace(one_worker.find("-j 2"), 4, "-j 1");
  ASSERT_EQ(tbdrsim(one_worker + " --out one", dir).exit_code, 0);
  fs::copy(dir / "out", dir / "again", fs::copy_options::recursive);
  fs::remove(dir / "again/parts/000004.json");
  ASSERT_EQ(tbdrsim(k_args + " --out again", dir).exit_code, 0);
  expect_same_results(dir / "out", dir / "again");
  for (const char* folder : {"one", "merged", "again"})
    for (const char* f : {"000000.json", "000004.json"}) {
      SCOPED_TRACE(std::string(folder) + "/parts/" + f);
      EXPECT_TRUE(slurp(dir / "out/parts" / f) == slurp(dir / folder / "parts" / f));
    }
}

// A damaged or missing layout file, a row that does not fit its layout, and a part of format 2 are each named in
// one line by sweep-merge (the part, and the layout file or the row); a resumed sweep simulates the part again.
TEST(SweepPartFormat, DamagedLayoutsRowsAndOldPartsAreNamed) {
  const fs::path dir = scratch("damaged");
  ASSERT_EQ(tbdrsim(k_args + " --out out", dir).exit_code, 0);
  const fs::path part = dir / "out/parts/000000.json", layout = layout_files(dir / "out/parts").at(0);
  const std::string original = slurp(part), layout_text = slurp(layout);
  {
    SCOPED_TRACE("a layout edited");
    std::ofstream(layout, std::ios::trunc) << layout_text.substr(0, layout_text.size() - 1) << " \n";
    expect_refused_then_redone(dir, "its layout " + layout.filename().string() + ": edited or damaged", original, "000000.json");
    EXPECT_TRUE(slurp(layout) == layout_text) << "the layout was not written again";
  }
  {
    SCOPED_TRACE("a layout missing");
    fs::remove(layout);
    expect_refused_then_redone(dir, "its layout " + layout.filename().string() + ": missing", original, "000000.json");
    EXPECT_TRUE(slurp(layout) == layout_text);
  }
  {
    SCOPED_TRACE("a row of a shape the layout lacks");
    forge_part(part, [](ojson& p) { p["rows"][0][1] = 99; });
    expect_refused_then_redone(dir, "line 2: rows[0]: its shape is not one of the layout's", original);
  }
  {
    SCOPED_TRACE("a row with a value too many");
    forge_part(part, [](ojson& p) { p["rows"][1].push_back(1); });
    expect_refused_then_redone(dir, "rows[1]: ", original);  // N values for a shape of M columns
  }
  {
    SCOPED_TRACE("a prefix longer than the row before it");
    forge_part(part, [](ojson& p) { p["rows"][0][0] = 3; });
    expect_refused_then_redone(dir, "rows[0]: its shared prefix", original);
  }
  {
    SCOPED_TRACE("a configuration's line twice");
    std::vector<std::string> lines = lines_of(original);
    lines[1] = lines[0];
    std::ofstream out(part, std::ios::trunc);
    for (const std::string& line : lines) out << line << "\n";
    out.close();
    expect_refused_then_redone(dir, "line 2: configuration 0 out of place", original);
  }
  {
    SCOPED_TRACE("format 2");
    forge_part(part, [](ojson& p) { p["version"] = 2; });
    expect_refused_then_redone(dir, "a part of another version of the sweep format (this tbdrsim reads version 4)", original);
  }
}
