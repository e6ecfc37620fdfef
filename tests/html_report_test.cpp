// The HTML report (tools/doc/reports.md "HTML report and heatmaps") in a real browser: headless Chromium loads
// `run --html --advise`'s page of the default scene, its screenshot is not blank, its script ran without
// an error, and the frame's DRAM bytes from the JSON report and the advisor's finding appear in the
// rendered DOM.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <stb/stb_image.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "tools/commands/html_report.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(TBDR_BINARY_DIR) / "test-scratch" / ("html_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One headless Chromium run on `page` (as root it needs --no-sandbox; a private profile and HOME
// so nothing outside `dir` is touched): the DOM after the scripts ran to dom.out, a screenshot to
// shot.png, the browser's log (console messages included) to dom.log.
int chromium(const fs::path& dir, const fs::path& page) {
  const std::string command = "cd '" + dir.string() + "' && HOME='" + (dir / "home").string() +
                              "' timeout 60 chromium --headless --no-sandbox --disable-gpu --no-first-run "
                              "--disable-extensions --user-data-dir='" + (dir / "profile").string() +
                              "' --enable-logging=stderr --v=0 --window-size=1280,2400 --dump-dom --screenshot=shot.png 'file://" +
                              page.string() + "' > dom.out 2> dom.log";
  return shell(command);
}

struct Screenshot {
  int width = 0, height = 0;
  std::set<uint32_t> colors;
  double non_white = 0;  // fraction of pixels that are not near-white
};

Screenshot inspect(const fs::path& png) {
  Screenshot s;
  int channels = 0;
  unsigned char* pixels = stbi_load(png.string().c_str(), &s.width, &s.height, &channels, 3);
  if (!pixels) return s;
  size_t non_white = 0, count = size_t(s.width) * s.height;
  for (size_t i = 0; i < count; ++i) {
    const unsigned char* p = pixels + 3 * i;
    s.colors.insert(uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | p[2]);
    non_white += (p[0] < 235 || p[1] < 235 || p[2] < 235) ? 1 : 0;
  }
  stbi_image_free(pixels);
  s.non_white = double(non_white) / double(count);
  return s;
}

// The checks on one page: what failed, or empty.
std::string browser_check(const fs::path& dir, const fs::path& page, const std::string& figure) {
  if (chromium(dir, page) != 0) return "chromium failed: " + read_text(dir / "dom.log");
  const std::string dom = read_text(dir / "dom.out"), log = read_text(dir / "dom.log");
  if (log.find("Uncaught") != std::string::npos) return "console error: " + log;
  if (dom.find("data-rendered=\"ok\"") == std::string::npos) return "the page's script did not finish";
  if (dom.find(figure) == std::string::npos) return "figure " + figure + " not in the page";
  const Screenshot shot = inspect(dir / "shot.png");
  if (shot.width == 0) return "no screenshot";
  if (shot.colors.size() < 64) return "screenshot has only " + std::to_string(shot.colors.size()) + " colours";
  if (shot.non_white < 0.05) return "screenshot is nearly blank";
  return "";
}

TEST(HtmlReport, DefaultSceneRendersInChromium) {
  const fs::path dir = scratch("default");
  ASSERT_EQ(shell("cd '" + dir.string() + "' && '" + TBDR_BINARY_DIR + "/tbdrsim' run --preset mali-g710 --quiet --no-images "
                  "--json r.json --html r.html --advise > run.log 2>&1"),
            0)
      << read_text(dir / "run.log");
  const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
  const nlohmann::json& dram = report["frames"][0]["totals"]["dram"];
  const std::string figure = tbdr::html_bytes_text(dram["read_bytes"].get<uint64_t>() + dram["write_bytes"].get<uint64_t>());
  const std::string page = read_text(dir / "r.html");
  // Nothing fetched at view time: no linked style sheet, no remote script or image.
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  EXPECT_EQ(browser_check(dir, dir / "r.html", figure), "");
  // The advisor's section (tbdrsim advise on the same scene and preset): the two fixes of its checker
  // texture save (compressed, a mip chain for the minified floor) and are listed; keep-layout on a
  // single frame changes nothing, so it is counted, not listed as a saving.
  const std::string dom = read_text(dir / "dom.out");
  EXPECT_NE(dom.find("advisor findings (2), the last frame under mali-g710"), std::string::npos);
  EXPECT_NE(dom.find("compress-textures:checker"), std::string::npos);
  EXPECT_NE(dom.find("add-mipmaps:checker"), std::string::npos);
  EXPECT_NE(dom.find("1 not worth it (0 cost, 1 change nothing): tbdrsim advise --all lists them"), std::string::npos);
  EXPECT_EQ(dom.find("keep-layout:f0.forward.a0"), std::string::npos);
}

// The checker itself: a page whose script throws after marking itself rendered fails.
TEST(HtmlReport, CheckerCatchesScriptErrors) {
  const fs::path dir = scratch("broken");
  std::ofstream(dir / "throws.html") << "<!DOCTYPE html><html><body><p>1,234 B</p><script>"
                                        "document.body.dataset.rendered = 'ok'; undefined_function();</script></body></html>";
  EXPECT_EQ(browser_check(dir, dir / "throws.html", "1,234 B").rfind("console error: ", 0), 0u);
}

// A sweep's report.html: one row per configuration with its value and figures, as in results.json.
TEST(HtmlReport, SweepPageHasOneRowPerConfiguration) {
  const fs::path dir = scratch("sweep");
  ASSERT_EQ(shell("cd '" + dir.string() + "' && '" + TBDR_BINARY_DIR + "/tbdrsim' sweep '" + TBDR_SOURCE_DIR
                  + "/traces/features/stencil.json' --vary tile=16x16,32x32 --quiet -j 1 --out sw > run.log 2>&1"),
            0)
      << read_text(dir / "run.log");
  const std::string page = read_text(dir / "sw/report.html");
  const nlohmann::json results = nlohmann::json::parse(read_text(dir / "sw/results.json"));
  size_t totals = 0;
  for (const nlohmann::json& row : results["rows"]) {
    if (row["row"] != "total") continue;
    ++totals;
    const uint64_t bytes = row["dram.read_bytes"].get<uint64_t>() + row["dram.write_bytes"].get<uint64_t>();
    const std::string cells = "<td>" + std::to_string(row["set.tiling.width"].get<uint64_t>()) + "</td>";
    EXPECT_NE(page.find(cells), std::string::npos) << cells;
    EXPECT_NE(page.find("<td class=\"n\">" + tbdr::grouped_digits(bytes) + "</td>"), std::string::npos) << bytes;
  }
  EXPECT_EQ(totals, 2u);
  size_t table_rows = 0;
  for (size_t at = page.find("<tr><td title="); at != std::string::npos; at = page.find("<tr><td title=", at + 1)) ++table_rows;
  EXPECT_EQ(table_rows, totals);
  // The trace is named from the sweep's common folder, its whole path in the tooltip.
  EXPECT_NE(page.find("/traces/features/stencil.json\">stencil.json</td>"), std::string::npos);
}

}  // namespace
