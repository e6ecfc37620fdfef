// The HTML report read as a person reads it, in headless Chromium driven through the DevTools
// protocol (tools/browser_drive.py): every figure the page marks as the report's equals the JSON
// report's, "bound by" reads as the text report's, the pass ranking sorts and opens passes, the cycle
// bars make the bound the longest, the palettes differ, hovering a heatmap tile reads the heatmap
// CSV's value, an all-zero map is one line, and the 23-pass frame's page stays under 2 MB.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "browser_driver.h"
#include "tools/commands/heatmaps.h"

namespace {

using namespace browser_test;

// The default scene under mali-g710 with its JSON report, text report, heatmaps and page (once per
// process).
struct DefaultRun {
  fs::path dir;
  nlohmann::json report;
  std::string text;
};

const DefaultRun& default_run() {
  static const DefaultRun run = [] {
    DefaultRun r;
    // A folder per test: ctest runs the tests as parallel processes.
    r.dir = scratch(std::string("explorer_") + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    EXPECT_EQ(tbdrsim(r.dir, "run --preset mali-g710 --no-images --heatmaps --out maps --json r.json --html r.html"), 0)
        << read_text(r.dir / "stderr.txt");
    r.report = nlohmann::json::parse(read_text(r.dir / "r.json"));
    r.text = read_text(r.dir / "stdout.txt");
    return r;
  }();
  return run;
}

// The report's number at "a/b/0/c" (array indices as numbers).
double json_at(const nlohmann::json& report, const std::string& path) {
  const nlohmann::json* at = &report;
  std::stringstream parts(path);
  for (std::string part; std::getline(parts, part, '/');)
    at = at->is_array() ? &(*at)[std::stoul(part)] : &(*at)[part];
  return at->get<double>();
}

// Opens every pass, then lists every element that names its report fields: [paths, value, text].
const char* const kFiguresScript =
    "(async () => { document.querySelectorAll('details').forEach(d => d.open = true);"
    " await new Promise(r => setTimeout(r, 300));"
    " return [...document.querySelectorAll('[data-json]')].map(e => [e.dataset.json, e.dataset.value, e.textContent]); })()";

TEST(HtmlExplorer, FiguresOnThePageEqualTheJsonReport) {
  const DefaultRun& run = default_run();
  const BrowserRun b = drive_browser(run.dir, {{{"open", (run.dir / "r.html").string()}}, {{"eval", kFiguresScript}}});
  ASSERT_EQ(b.failed, "");
  EXPECT_EQ(b.results[0], "ok");
  EXPECT_TRUE(b.errors.empty()) << b.errors.dump();
  const nlohmann::json& figures = b.results[1];
  // Summary (5), ranking (6 per pass), top draws (3 per draw, 10 draws), the pass's own (2).
  EXPECT_GE(figures.size(), 40u);
  for (const nlohmann::json& f : figures) {
    double expected = 0;
    std::stringstream paths(f[0].get<std::string>());
    for (std::string path; std::getline(paths, path, '+');) expected += json_at(run.report, path);
    EXPECT_EQ(std::stod(f[1].get<std::string>()), expected) << f.dump();
    // Whole figures print grouped; others (milliseconds, joules) to three decimals.
    const std::string text = f[2];
    if (expected == std::floor(expected)) {
      EXPECT_NE(text.find(tbdr::grouped_digits(uint64_t(expected))), std::string::npos) << f.dump();
    }
  }
}

// The ranking's "bound by" column, in pass order, and the text report's "bound by:" lines.
TEST(HtmlExplorer, BoundByReadsAsTheTextReport) {
  const DefaultRun& run = default_run();
  const BrowserRun b = drive_browser(run.dir, {{{"open", (run.dir / "r.html").string()}},
                                               {{"eval", "[...document.querySelectorAll('#ranking-table-0 tbody tr')]"
                                                         ".sort((a, b) => a.cells[0].dataset.value - b.cells[0].dataset.value)"
                                                         ".map(tr => tr.cells[11].textContent)"}}});
  ASSERT_EQ(b.failed, "");
  std::vector<std::string> lines;
  std::stringstream text(run.text);
  for (std::string line; std::getline(text, line);)
    if (line.rfind("  bound by: ", 0) == 0) lines.push_back(line.substr(12));
  ASSERT_EQ(lines.size(), run.report["frames"][0]["passes"].size());
  EXPECT_EQ(b.results[1], nlohmann::json(lines));
}

// Sorting by a column orders the rows by it, both ways; clicking a row opens that pass.
TEST(HtmlExplorer, RankingSortsAndOpensThePass) {
  const fs::path dir = scratch("ranking");
  ASSERT_EQ(tbdrsim(dir, "run '" + TBDR_SOURCE_DIR + "/traces/features/load_store_ops.json' --no-images --quiet --html r.html"), 0)
      << read_text(dir / "stderr.txt");
  const std::string column = "[...document.querySelectorAll('#ranking-table-0 tbody tr')].map(tr => Number(tr.cells[7].dataset.value))";
  const BrowserRun b = drive_browser(dir, {{{"open", (dir / "r.html").string()}},
                                           {{"click", "#ranking-table-0 th:nth-child(8)"}}, {{"eval", column}},
                                           {{"click", "#ranking-table-0 th:nth-child(8)"}}, {{"eval", column}},
                                           {{"click", "#ranking-table-0 tbody tr:last-child"}},
                                           {{"eval", "[document.querySelector('#ranking-table-0 tbody tr:last-child').dataset.pass,"
                                                     " [...document.querySelectorAll('details.pass')].filter(d => d.open).map(d => d.id)]"}}});
  ASSERT_EQ(b.failed, "");
  EXPECT_TRUE(b.errors.empty()) << b.errors.dump();
  std::vector<double> descending = b.results[2], ascending = b.results[4];
  ASSERT_GE(descending.size(), 2u);
  EXPECT_TRUE(std::is_sorted(descending.rbegin(), descending.rend()));
  EXPECT_TRUE(std::is_sorted(ascending.begin(), ascending.end()));
  EXPECT_NE(descending, ascending);
  const nlohmann::json& opened = b.results[6];
  EXPECT_EQ(opened[1], nlohmann::json::array({opened[0]}));
}

// Every phase bound by DRAM has its DRAM bar the longest of the phase; the schedule's pass colours
// are none of the DRAM categories' and the categories' colours are all different.
TEST(HtmlExplorer, ChartsShowTheBoundLongestAndKeepPalettesApart) {
  const DefaultRun& run = default_run();
  const BrowserRun b = drive_browser(run.dir, {{{"open", (run.dir / "r.html").string()}},
      {{"eval", "(async () => { document.querySelectorAll('details').forEach(d => d.open = true); await new Promise(r => setTimeout(r, 300));"
                " return [[...document.querySelectorAll('svg.cycle-bars rect')].map(r => [r.dataset.phase, r.dataset.item, Number(r.dataset.share)]),"
                " [...document.querySelectorAll('svg.timeline rect')].map(r => r.getAttribute('fill')),"
                " [...document.querySelectorAll('svg.dram-bars rect')].map(r => [r.dataset.category, r.getAttribute('fill')])]; })()"}},
      {{"eval", "[CATEGORY_COLORS.slice(0, schema.dram_categories.length), [...Array(64).keys()].map(passColor)]"}}});
  ASSERT_EQ(b.failed, "");
  const nlohmann::json& bars = b.results[1][0];
  const nlohmann::json& pass = run.report["frames"][0]["passes"][0];
  ASSERT_GE(bars.size(), 5u);
  for (const std::string phase : {"geometry", "fragment"}) {
    double longest = -1;
    std::string item;
    for (const nlohmann::json& bar : bars)
      if (bar[0] == phase && bar[2].get<double>() > longest) longest = bar[2], item = bar[1];
    const double dram = pass["cycles"]["breakdown"][phase + "_dram"], span = pass["cycles"][phase];
    if (dram >= span) {
      EXPECT_EQ(item, phase + "_dram") << phase;
    }
    EXPECT_LE(longest, 1.0 + 1e-9) << phase;
  }
  std::set<std::string> pass_colours(b.results[1][1].begin(), b.results[1][1].end());
  std::map<std::string, std::string> category_colour;
  for (const nlohmann::json& r : b.results[1][2]) category_colour[r[0]] = r[1];
  std::set<std::string> distinct;
  for (const auto& [category, colour] : category_colour) {
    EXPECT_EQ(pass_colours.count(colour), 0u) << category;
    distinct.insert(colour);
  }
  EXPECT_GE(category_colour.size(), 3u);
  EXPECT_EQ(distinct.size(), category_colour.size());
  // The palettes themselves: a colour for each of the ten categories, none a pass's.
  const std::vector<std::string> categories = b.results[2][0], passes = b.results[2][1];
  EXPECT_EQ(std::set<std::string>(categories.begin(), categories.end()).size(), 10u);
  for (const std::string& colour : categories) EXPECT_EQ(std::count(passes.begin(), passes.end(), colour), 0) << colour;
}

// Hovering cells of the drawn heatmaps reads the values `--heatmaps` writes to its CSVs; the
// all-zero TE map is one line, not a canvas.
TEST(HtmlExplorer, HeatmapHoverReadsTheCsvValue) {
  const DefaultRun& run = default_run();
  const std::string stem = "f0_p00_forward_hw0_heat_dram_bytes";
  const std::string canvas = "canvas[data-stem=\"" + stem + "\"]";
  const std::string readout = "document.querySelector('" + canvas + "').parentElement.querySelector('output').textContent";
  const BrowserRun b = drive_browser(run.dir, {{{"open", (run.dir / "r.html").string()}}, {{"click", "#f0-p0 > summary"}},
      {{"wait", "document.querySelector('" + canvas + "') !== null"}},
      {{"hover", canvas}, {"at", {13.5 / 60, 14.5 / 34}}}, {{"eval", readout}},
      {{"hover", canvas}, {"at", {0.99, 0.01}}}, {{"eval", readout}},
      {{"eval", "[document.querySelectorAll('p.zero-map').length, document.querySelectorAll('canvas[data-stem$=\"te_kills\"]').length,"
                " document.querySelector('p.zero-map').textContent]"}}});
  ASSERT_EQ(b.failed, "");
  EXPECT_TRUE(b.errors.empty()) << b.errors.dump();
  std::vector<std::vector<std::string>> csv;
  std::stringstream lines(read_text(run.dir / "maps" / (stem + ".csv")));
  for (std::string line; std::getline(lines, line);) {
    std::stringstream cells(line);
    csv.emplace_back();
    for (std::string cell; std::getline(cells, cell, ',');) csv.back().push_back(cell);
  }
  ASSERT_EQ(csv.size(), 34u);
  ASSERT_EQ(csv[0].size(), 60u);
  const auto expect = [&](size_t x, size_t y) {
    return "tile (" + std::to_string(x) + ", " + std::to_string(y) + "): " + tbdr::grouped_digits(std::stoull(csv[y][x])) + " B";
  };
  EXPECT_EQ(b.results[4], expect(13, 14));
  EXPECT_EQ(b.results[6], expect(59, 0));
  EXPECT_EQ(b.results[7][0], 1);
  EXPECT_EQ(b.results[7][1], 0);
  EXPECT_NE(b.results[7][2].get<std::string>().find("TE kills per 16x16 block: every 16x16 block is 0 kills"), std::string::npos);
}

// The 23-pass frame (traces/seed002) with its heatmaps: the page under 2 MB (it was 5.7 MB with
// the heatmaps as PNGs) and it renders without an error.
TEST(HtmlExplorer, TwentyThreePassPageStaysSmall) {
  const fs::path dir = scratch("seed002");
  ASSERT_EQ(tbdrsim(dir, "run '" + TBDR_SOURCE_DIR + "/traces/seed002/forward_baseline.json' --no-images --quiet --heatmaps --out maps --html r.html"), 0)
      << read_text(dir / "stderr.txt");
  EXPECT_LE(fs::file_size(dir / "r.html"), 2'000'000u);
  const BrowserRun b = drive_browser(dir, {{{"open", (dir / "r.html").string()}},
                                           {{"eval", "document.querySelectorAll('#ranking-table-0 tbody tr').length"}},
                                           {{"click", "#ranking-table-0 tbody tr:first-child"}},
                                           {{"wait", "document.querySelector('details.pass[open] .maps') !== null"}},
                                           {{"eval", "document.querySelectorAll('details.pass[open] canvas').length"}}});
  ASSERT_EQ(b.failed, "");
  EXPECT_EQ(b.results[0], "ok");
  EXPECT_TRUE(b.errors.empty()) << b.errors.dump();
  EXPECT_EQ(b.results[1], 23);
  EXPECT_GE(b.results[4], 4);  // cycles, DRAM physical and nominal, overdraw
}

}  // namespace

namespace {

// The comparison page of the default scene, mali-g710 against adreno-a740: drawn without an error,
// one row per pass, the frame's figures as in the comparison JSON.
TEST(HtmlExplorer, ComparisonPageRenders) {
  const fs::path dir = scratch("compare");
  ASSERT_EQ(tbdrsim(dir, "run --preset mali-g710 --no-images --quiet --vs adreno-a740 --vs-json c.json --vs-html c.html"), 0)
      << read_text(dir / "stderr.txt");
  const nlohmann::json c = nlohmann::json::parse(read_text(dir / "c.json"));
  const BrowserRun b = drive_browser(dir, {{{"open", (dir / "c.html").string()}},
      {{"eval", "[document.querySelectorAll('#passes-table-0 tbody tr').length, document.querySelector('#frame-table-0 tbody tr:nth-child(2)').textContent]"}},
      {{"screenshot", (dir / "compare.png").string()}, {"full", true}}});
  ASSERT_EQ(b.failed, "");
  EXPECT_EQ(b.results[0], "ok");
  EXPECT_TRUE(b.errors.empty()) << b.errors.dump();
  EXPECT_EQ(b.results[1][0], c["frames"][0]["passes"].size());
  const std::string cycles = b.results[1][1];
  EXPECT_NE(cycles.find(tbdr::grouped_digits(uint64_t(std::llround(c["frames"][0]["frame_cycles"]["b"].get<double>())))), std::string::npos) << cycles;
}

// A sweep's report.html: a plot per varied parameter, frame time against energy with its front, and
// the table sorts by a figure.
TEST(HtmlExplorer, SweepPagePlotsAndSorts) {
  const fs::path dir = scratch("sweep_page");
  ASSERT_EQ(tbdrsim(dir, "sweep '" + TBDR_SOURCE_DIR + "/traces/features/stencil.json' --vary tile=16x16,32x32,64x64 --vary "
                    "dram.bytes_per_cycle=8,32 --quiet -j 1 --out sw"), 0) << read_text(dir / "stderr.txt");
  const std::string column = "[...document.querySelectorAll('#sweep-table tr')].slice(1).map(tr => Number(tr.cells[5].textContent.replace(/,/g, '')))";
  const BrowserRun b = drive_browser(dir, {{{"open", (dir / "sw/report.html").string()}},
      {{"eval", "[document.querySelectorAll('svg.sweep-plot').length, document.querySelectorAll('#plots circle').length,"
                " document.querySelectorAll('polyline.pareto').length]"}},
      {{"click", "#sweep-table th:nth-child(6)"}}, {{"eval", column}}});
  ASSERT_EQ(b.failed, "");
  EXPECT_EQ(b.results[0], "ok");
  EXPECT_TRUE(b.errors.empty()) << b.errors.dump();
  EXPECT_EQ(b.results[1], nlohmann::json::array({4, 18, 1}));  // 3 varied columns and the front; 6 points each
  std::vector<double> sorted = b.results[3];
  ASSERT_EQ(sorted.size(), 6u);
  EXPECT_TRUE(std::is_sorted(sorted.rbegin(), sorted.rend()));
}

}  // namespace
