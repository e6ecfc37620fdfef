// Goldens (tests/golden/, made by tools/update_goldens): every bundled trace run through the CLI
// under the reference preset must give the committed PNGs pixel for pixel (a mismatch writes a diff
// image, differing pixels red, the rest dimmed, into the build's test-scratch), and under every
// preset the report figures committed in tests/golden/figures.txt.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "models/registry.h"

namespace fs = std::filesystem;

namespace {

struct Decoded {
  int width = 0, height = 0;
  std::vector<uint8_t> rgba;
};

Decoded decode(const fs::path& p) {
  Decoded d;
  int channels = 0;
  uint8_t* pixels = stbi_load(p.string().c_str(), &d.width, &d.height, &channels, 4);
  if (pixels) {
    d.rgba.assign(pixels, pixels + size_t(d.width) * d.height * 4);
    stbi_image_free(pixels);
  }
  return d;
}

std::set<std::string> pngs_in(const fs::path& dir) {
  std::set<std::string> names;
  if (fs::exists(dir))
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".png") names.insert(e.path().filename().string());
  return names;
}

// A path as one shell word (single quotes, a quote inside as '\''), built by appending: GCC 12
// warns falsely (-Wrestrict, GCC bug 105329) on "literal" + std::string&&.
std::string quoted(const fs::path& p) {
  std::string q = "'";
  for (char c : p.string()) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  q += "'";
  return q;
}

}  // namespace

TEST(Golden, EveryBundledTraceMatchesItsGoldenImages) {
  const fs::path golden_root = fs::path(TBDR_SOURCE_DIR) / "tests/golden";
  const fs::path scratch = fs::path(TBDR_BINARY_DIR) / "test-scratch/golden";
  fs::remove_all(scratch);
  size_t compared = 0;
  for (const char* folder : {"default", "features", "savers"}) {
    for (const auto& e : fs::directory_iterator(fs::path(TBDR_SOURCE_DIR) / "traces" / folder)) {
      if (e.path().extension() != ".json") continue;
      const std::string name = std::string(folder) + "_" + e.path().stem().string();
      SCOPED_TRACE(name);
      const fs::path out = scratch / name;
      std::string cmd = quoted(fs::path(TBDR_BINARY_DIR) / "tbdrsim");
      cmd += " run ";
      cmd += quoted(e.path());
      cmd += " --preset reference --quiet --out ";
      cmd += quoted(out);
      ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
      const std::set<std::string> expected = pngs_in(golden_root / name), actual = pngs_in(out);
      ASSERT_FALSE(expected.empty()) << "no goldens: run tools/update_goldens";
      EXPECT_EQ(actual, expected);
      for (const std::string& png : expected) {
        if (!actual.count(png)) continue;
        const Decoded want = decode(golden_root / name / png), got = decode(out / png);
        ASSERT_FALSE(want.rgba.empty()) << png;
        ASSERT_EQ(want.width, got.width) << png;
        ASSERT_EQ(want.height, got.height) << png;
        size_t differing = 0;
        std::vector<uint8_t> diff(want.rgba.size());
        for (size_t i = 0; i < want.rgba.size(); i += 4) {
          const bool same = std::equal(&want.rgba[i], &want.rgba[i] + 4, &got.rgba[i]);
          differing += same ? 0 : 1;
          diff[i] = same ? want.rgba[i] / 4 : 255;
          diff[i + 1] = same ? want.rgba[i + 1] / 4 : 0;
          diff[i + 2] = same ? want.rgba[i + 2] / 4 : 0;
          diff[i + 3] = 255;
        }
        if (differing) {
          const fs::path diff_path = scratch / (name + "_diff_" + png);
          stbi_write_png(diff_path.string().c_str(), want.width, want.height, 4, diff.data(), want.width * 4);
          ADD_FAILURE() << png << ": " << differing << " pixels differ; diff image " << diff_path;
        }
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 10u);
}

// The golden PNGs are stored with their SHA-256 (tests/golden/SHA256SUMS, written by
// tools/update_goldens, tools/doc/design.md "Design rules": tests): a golden replaced, added or removed by hand
// rather than regenerated fails here, and a review sees which images a regeneration changed.
TEST(Golden, ImagesAreTheOnesTheirHashManifestNames) {
  const fs::path golden_root = fs::path(TBDR_SOURCE_DIR) / "tests/golden";
  std::ifstream in(golden_root / "SHA256SUMS");
  ASSERT_TRUE(in) << "no tests/golden/SHA256SUMS: run tools/update_goldens";
  std::set<std::string> listed, present;
  for (std::string line; std::getline(in, line);) {
    ASSERT_GT(line.size(), 66u) << line;  // 64 hex digits, two spaces, the path
    listed.insert(line.substr(66));
  }
  for (const auto& e : fs::recursive_directory_iterator(golden_root))
    if (e.path().extension() == ".png") present.insert(fs::relative(e.path(), golden_root).string());
  EXPECT_EQ(listed, present);
  EXPECT_GT(listed.size(), 10u);
  std::string cmd = "cd ";
  cmd += quoted(golden_root);
  cmd += " && sha256sum --check --quiet --strict SHA256SUMS";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

// Every DRAM byte, cycle and counter of the run totals of every bundled trace under every preset,
// one figure a line ("PRESET FOLDER/TRACE KEY VALUE", zeros left out), from `tbdrsim sweep`'s
// results.json. Any change of a byte or a cycle anywhere fails here until it is made deliberately:
// TBDR_UPDATE_GOLDENS=1 (tools/update_goldens) rewrites the file, and its diff shows what moved.
TEST(Golden, ReportFiguresOfEveryPresetMatchTheManifest) {
  const fs::path manifest = fs::path(TBDR_SOURCE_DIR) / "tests/golden/figures.txt";
  const fs::path scratch = fs::path(TBDR_BINARY_DIR) / "test-scratch/golden_figures";
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  std::vector<fs::path> traces;
  for (const char* folder : {"default", "features", "savers"})
    for (const auto& e : fs::directory_iterator(fs::path(TBDR_SOURCE_DIR) / "traces" / folder))
      if (e.path().extension() == ".json") traces.push_back(e.path());
  std::sort(traces.begin(), traces.end());
  std::ofstream(scratch / "one_configuration.json") << "[{}]";  // each preset as it is

  std::vector<std::string> lines;
  for (const std::string& preset : tbdr::models::preset_names()) {
    SCOPED_TRACE(preset);
    const fs::path out = scratch / preset;
    std::string cmd = quoted(fs::path(TBDR_BINARY_DIR) / "tbdrsim");
    cmd += " sweep";
    for (const fs::path& t : traces) {
      cmd += ' ';
      cmd += quoted(t);
    }
    cmd += " --preset ";
    cmd += preset;
    cmd += " --grid ";
    cmd += quoted(scratch / "one_configuration.json");
    cmd += " --quiet -j 2 --out ";
    cmd += quoted(out);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out / "results.json");
    const nlohmann::json doc = nlohmann::json::parse(in);
    const std::vector<std::string> columns = doc.at("columns").get<std::vector<std::string>>();
    size_t totals = 0;
    for (const nlohmann::json& row : doc.at("rows")) {  // objects keyed by column
      if (row.value("row", "") != "total") continue;
      ++totals;
      const fs::path trace = row.at("trace").get<std::string>();
      const std::string name = trace.parent_path().filename().string() + "/" + trace.stem().string();
      for (const std::string& key : columns) {
        // The configuration (set.*) is the preset's; frame_ms is frame_cycles over the clock.
        if (key.rfind("set.", 0) == 0 || key == "trace" || key == "config_index" || key == "row" || key == "frame_ms")
          continue;
        if (!row.contains(key)) continue;
        const nlohmann::json& v = row.at(key);
        if (v.is_null() || v == "" || v == 0 || v == false) continue;
        lines.push_back(preset + " " + name + " " + key + " " + v.dump());
      }
    }
    ASSERT_EQ(totals, traces.size());  // (before any update below: a failed sweep writes no manifest)
  }

  if (const char* update = std::getenv("TBDR_UPDATE_GOLDENS"); update && std::string(update) == "1") {
    std::ofstream out(manifest);
    for (const std::string& line : lines) out << line << "\n";
    GTEST_SKIP() << "wrote " << lines.size() << " figures to " << manifest;
  }
  std::ifstream in(manifest);
  ASSERT_TRUE(in) << "no " << manifest << ": run tools/update_goldens";
  // Keyed by "PRESET TRACE KEY" so a difference names the figure and both values.
  auto keyed = [](const std::vector<std::string>& from) {
    std::map<std::string, std::string> m;
    for (const std::string& line : from) {
      const size_t last = line.rfind(' ');
      m[line.substr(0, last)] = line.substr(last + 1);
    }
    return m;
  };
  std::vector<std::string> committed;
  for (std::string line; std::getline(in, line);) committed.push_back(line);
  const std::map<std::string, std::string> want = keyed(committed), got = keyed(lines);
  size_t reported = 0;
  for (const auto& [key, value] : want) {
    const auto it = got.find(key);
    const std::string now = it == got.end() ? "0 (or absent)" : it->second;
    if (now != value && reported++ < 20) ADD_FAILURE() << key << ": committed " << value << ", now " << now;
  }
  for (const auto& [key, value] : got)
    if (!want.count(key) && reported++ < 20) ADD_FAILURE() << key << ": committed 0 (or absent), now " << value;
  EXPECT_EQ(reported, 0u) << "figures differ from tests/golden/figures.txt; if the change is deliberate, run "
                             "tools/update_goldens and review the file's diff";
  EXPECT_GT(committed.size(), 1000u);
}
