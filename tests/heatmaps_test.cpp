// Heatmaps (tools/doc/reports.md "HTML report and heatmaps"): per-tile physical and nominal DRAM bytes worked out
// by hand on a small trace, every CSV summing to the report's per-tile categories, and the viridis
// table.
#include "tools/commands/heatmaps.h"
#include "test_paths.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(TBDR_BINARY_DIR) / "test-scratch" / ("heatmaps_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

int run_cli(const std::string& args, const fs::path& dir) {
  const std::string cmd = "cd '" + dir.string() + "' && '" + TBDR_BINARY_DIR + "/tbdrsim' " + args + " > stdout.txt 2> stderr.txt";
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::vector<double>> read_csv(const fs::path& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<double>& row = rows.emplace_back();
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) row.push_back(std::stod(cell));
  }
  return rows;
}

double csv_sum(const fs::path& path) {
  double sum = 0;
  for (const auto& row : read_csv(path))
    for (double v : row) sum += v;
  return sum;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// 48x32 RGBA8 (3x2 tiles of 16x16), cleared to opaque black and stored; one draw of two
// triangles covering the screen in the clear colour, scissored to the top-left tile.
nlohmann::json scissored_trace() {
  using nlohmann::json;
  json image = {{"name", "color"}, {"format", "RGBA8"}, {"width", 48}, {"height", 32}};
  image["usage"] = json::array({"color_attachment", "transfer_src"});
  json mesh = {{"name", "fullscreen"}, {"index_bits", 16}};
  mesh["positions"] = json::array({-1.0, -1.0, 0.5, -1.0, 1.0, 0.5, 1.0, 1.0, 0.5, 1.0, -1.0, 0.5});
  mesh["indices"] = json::array({0, 1, 2, 0, 2, 3});
  json draw = {{"name", "scissored"}, {"mesh", "fullscreen"}, {"scissor", {{"x", 0}, {"y", 0}, {"width", 16}, {"height", 16}}}};
  draw["program"] = {{"name", "flat"}, {"params", {{"color", json::array({0.0, 0.0, 0.0, 1.0})}}}};
  json attachment = {{"image", "color"}, {"load", "clear"}, {"store", "store"}, {"old_layout", "undefined"},
                     {"new_layout", "transfer_src"}};
  attachment["clear"] = json::array({0.0, 0.0, 0.0, 1.0});
  json subpass = {{"color", json::array({0})}, {"draws", std::vector<json>{draw}}};
  json pass = {{"name", "main"}, {"type", "render"}, {"attachments", std::vector<json>{attachment}},
               {"subpasses", std::vector<json>{subpass}}};
  json frame = {{"passes", std::vector<json>{pass}}};
  return {{"format", "tbdrsim-trace"}, {"version", 1}, {"name", "scissored"}, {"images", std::vector<json>{image}},
          {"meshes", std::vector<json>{mesh}}, {"frames", std::vector<json>{frame}}};
}

// What a tile moves that the per-tile maps leave to the pass (stats.h HardwarePassStats): vertex
// reads, tile-list writes, texture and sampled-image reads.
uint64_t per_tile_part(const nlohmann::json& ledger) {
  const nlohmann::json& by = ledger["by_category"];
  uint64_t pass_only = 0;
  for (const char* c : {"vertex", "texture", "image_sample"})
    pass_only += by[c]["read_bytes"].get<uint64_t>() + by[c]["write_bytes"].get<uint64_t>();
  pass_only += by["tile_list"]["write_bytes"].get<uint64_t>();
  return ledger["read_bytes"].get<uint64_t>() + ledger["write_bytes"].get<uint64_t>() - pass_only;
}

// Every hardware pass's CSVs (physical and nominal) sum to its ledgers' per-tile part; returns
// how many hardware passes were checked.
size_t expect_csv_sums_match_report(const fs::path& dir) {
  const nlohmann::json report = read_json(dir / "r.json");
  size_t checked = 0;
  for (size_t p = 0; p < report["frames"][0]["passes"].size(); ++p) {
    const nlohmann::json& pass = report["frames"][0]["passes"][p];
    if (pass["type"] != "render") continue;
    for (size_t h = 0; h < pass["hardware_passes"].size(); ++h) {
      char stem[64];
      std::snprintf(stem, sizeof stem, "f0_p%02zu_%s_hw%zu_heat_", p, pass["name"].get<std::string>().c_str(), h);
      const nlohmann::json& hw = pass["hardware_passes"][h];
      EXPECT_EQ(csv_sum(dir / "o" / (std::string(stem) + "dram_bytes.csv")), double(per_tile_part(hw["dram"]))) << stem;
      EXPECT_EQ(csv_sum(dir / "o" / (std::string(stem) + "dram_nominal_bytes.csv")), double(per_tile_part(hw["dram_nominal"])))
          << stem;
      ++checked;
    }
  }
  return checked;
}

TEST(Heatmaps, TileBytesWorkedOutByHand) {
  const fs::path dir = scratch("by_hand");
  std::ofstream(dir / "t.json") << scissored_trace().dump();
  ASSERT_EQ(run_cli("run t.json --set compression=afbc --quiet --heatmaps --no-images --out o --json r.json", dir), 0);
  // Tile 0 lists both triangles: 2 x (4 B entry + 3 x 16 B record, no varyings) = 104 B of
  // tile-list reads. Every tile stores 16 x 16 x 4 = 1,024 B raw, one solid AFBC superblock:
  // its 16 B header alone (models/README.md "compression").
  const std::vector<std::vector<double>> physical = read_csv(dir / "o/f0_p00_main_hw0_heat_dram_bytes.csv");
  const std::vector<std::vector<double>> nominal = read_csv(dir / "o/f0_p00_main_hw0_heat_dram_nominal_bytes.csv");
  ASSERT_EQ(physical.size(), 2u);
  ASSERT_EQ(physical[0].size(), 3u);
  EXPECT_EQ(physical[0][0], 104.0 + 16.0);
  EXPECT_EQ(nominal[0][0], 104.0 + 1024.0);
  for (size_t t = 1; t < 6; ++t) {
    EXPECT_EQ(physical[t / 3][t % 3], 16.0) << t;
    EXPECT_EQ(nominal[t / 3][t % 3], 1024.0) << t;
  }
  EXPECT_EQ(expect_csv_sums_match_report(dir), 1u);
}

// 24x16 tiles: a 16x16 superblock straddles two tiles; its saving is shared, the sum kept exact.
TEST(Heatmaps, BlocksAcrossTilesKeepTheSum) {
  const fs::path dir = scratch("straddle");
  std::ofstream(dir / "t.json") << scissored_trace().dump();
  ASSERT_EQ(run_cli("run t.json --set compression=afbc --tile 24x16 --quiet --heatmaps --no-images --out o --json r.json", dir), 0);
  const std::vector<std::vector<double>> physical = read_csv(dir / "o/f0_p00_main_hw0_heat_dram_bytes.csv");
  ASSERT_EQ(physical.size(), 2u);
  ASSERT_EQ(physical[0].size(), 2u);
  // Bottom row: blocks 3, 4, 5 (16 B each); block 4 (x 16-31) is half in each tile: 8 B each.
  EXPECT_EQ(physical[1][0], 16.0 + 8.0);
  EXPECT_EQ(physical[1][1], 8.0 + 16.0);
  EXPECT_EQ(expect_csv_sums_match_report(dir), 1u);
}

// The default scene under presets with every saver (AFBC, TE, empty tiles), GMEM bins, and an
// immediate-mode GPU (framebuffer cache).
TEST(Heatmaps, CsvSumsEqualTheReportsPerTileBytes) {
  for (const char* preset : {"mali-g710", "adreno-a740", "imr"}) {
    const fs::path dir = scratch(std::string("sums_") + preset);
    ASSERT_EQ(run_cli(std::string("run --preset ") + preset + " --quiet --heatmaps --no-images --out o --json r.json", dir), 0)
        << preset;
    EXPECT_GT(expect_csv_sums_match_report(dir), 0u) << preset;
  }
}

TEST(Heatmaps, PhysicalMapIsNotUniform) {
  const fs::path dir = scratch("not_uniform");
  ASSERT_EQ(run_cli("run --preset mali-g710 --quiet --heatmaps --no-images --out o --json r.json", dir), 0);
  double lo = 1e300, hi = 0;
  for (const auto& row : read_csv(dir / "o/f0_p00_forward_hw0_heat_dram_bytes.csv"))
    for (double v : row) lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_LT(lo, hi);
}

// matplotlib's viridis table (matplotlib/_cm_listed.py) at entries 0, 64, 128, 192 and 255, x 255.
TEST(Heatmaps, ViridisMatchesMatplotlib) {
  const double table[5][3] = {{0.267004, 0.004874, 0.329415}, {0.229739, 0.322361, 0.545706},
                              {0.127568, 0.566949, 0.550556}, {0.369214, 0.788888, 0.382914},
                              {0.993248, 0.906157, 0.143936}};
  const int entries[5] = {0, 64, 128, 192, 255};
  for (int i = 0; i < 5; ++i) {
    const std::array<uint8_t, 3> rgb = tbdr::viridis(entries[i] / 255.0);
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(rgb[c], table[i][c] * 255.0, 2.0) << entries[i] << " channel " << c;
  }
}

TEST(Heatmaps, PngHasTitleAndLegendBands) {
  tbdr::HeatmapGrid grid{{0, 1, 2, 3}, 2, 2, 8, "test map", "B"};
  const tbdr::Png png = tbdr::heatmap_png(grid);
  EXPECT_GE(png.width, 16u);
  EXPECT_GT(png.height, 16u + 40u);  // the 16-pixel map plus the title and legend bands
  EXPECT_EQ(tbdr::heatmap_csv(grid), "0,1\n2,3\n");
}

}  // namespace
