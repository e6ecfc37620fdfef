// Machine-readable output of every command (tools/doc/cli.md "Machine-readable output"): --json for
// models and diff, `run --json -` alone writes no images, warnings on stderr and in the JSON only.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"
#include "test_paths.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using cli_run::read_text;

fs::path scratch(const std::string& name) { return cli_run::scratch("machine_readable_" + name); }

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The bundled default scene copied into `dir` with a warning of its own (traces/README.md "warnings").
fs::path scene_with_warning(const fs::path& dir, const std::string& warning) {
  const fs::path source = fs::path(TBDR_SOURCE_DIR) / "traces" / "default";
  for (const char* file : {"scene.bin", "checker.png"}) fs::copy_file(source / file, dir / file);
  json trace = json::parse(read_text(source / "scene.json"));
  trace["warnings"] = {warning};
  std::ofstream(dir / "scene.json") << trace.dump(1);
  return dir / "scene.json";
}

}  // namespace

TEST(MachineReadable, RunJsonToStdoutAloneWritesNoImages) {
  const fs::path dir = scratch("run_no_images");
  ASSERT_EQ(cli_run::tbdrsim(dir, "run --json - --threads 2"), 0) << read_text(dir / "stderr.txt");
  EXPECT_FALSE(fs::exists(dir / "out")) << "run --json - wrote images into out/";
  EXPECT_EQ(json::parse(read_text(dir / "stdout.txt")).at("format"), "tbdrsim-report");
  // The same for --csv -; an explicit --out still takes the images.
  ASSERT_EQ(cli_run::tbdrsim(dir, "run --csv - --threads 2"), 0) << read_text(dir / "stderr.txt");
  EXPECT_FALSE(fs::exists(dir / "out")) << "run --csv - wrote images into out/";
  ASSERT_EQ(cli_run::tbdrsim(dir, "run --json - --out images --threads 2"), 0) << read_text(dir / "stderr.txt");
  ASSERT_TRUE(fs::is_directory(dir / "images"));
  EXPECT_FALSE(fs::is_empty(dir / "images"));
  ASSERT_EQ(cli_run::tbdrsim(dir, "run --json report.json --quiet --threads 2"), 0) << read_text(dir / "stderr.txt");
  EXPECT_TRUE(fs::is_directory(dir / "out")) << "run --json FILE keeps writing images into out/";
}

TEST(MachineReadable, TraceWarningsGoToStderrAndTheJsonNeverTheTextReport) {
  const fs::path dir = scratch("warnings");
  const std::string warning = "a warning the trace carries for this test";
  const fs::path trace = scene_with_warning(dir, warning);
  ASSERT_EQ(cli_run::tbdrsim(dir, "run '" + trace.string() + "' --no-images --threads 2"), 0) << read_text(dir / "stderr.txt");
  EXPECT_EQ(occurrences(read_text(dir / "stdout.txt"), warning), 0u) << "the text report on stdout carries the warning";
  EXPECT_EQ(occurrences(read_text(dir / "stderr.txt"), "tbdrsim: warning: " + warning), 1u) << read_text(dir / "stderr.txt");

  ASSERT_EQ(cli_run::tbdrsim(dir, "run '" + trace.string() + "' --json - --threads 2"), 0) << read_text(dir / "stderr.txt");
  EXPECT_EQ(json::parse(read_text(dir / "stdout.txt")).at("warnings"), json::array({warning}));
  EXPECT_EQ(occurrences(read_text(dir / "stderr.txt"), warning), 1u) << read_text(dir / "stderr.txt");

  ASSERT_EQ(cli_run::tbdrsim(dir, "advise '" + trace.string() + "' --threads 2 --json -"), 0) << read_text(dir / "stderr.txt");
  EXPECT_EQ(json::parse(read_text(dir / "stdout.txt")).at("warnings"), json::array({warning}));
  EXPECT_EQ(occurrences(read_text(dir / "stderr.txt"), "tbdrsim: warning: " + warning), 1u) << read_text(dir / "stderr.txt");
  ASSERT_EQ(cli_run::tbdrsim(dir, "advise '" + trace.string() + "' --threads 2"), 0) << read_text(dir / "stderr.txt");
  EXPECT_EQ(occurrences(read_text(dir / "stdout.txt"), warning), 0u) << "advise's text on stdout carries the warning";
  // A sweep says it once per trace on stderr, whatever its configurations.
  ASSERT_EQ(cli_run::tbdrsim(dir, "sweep '" + trace.string() + "' --vary tile=16x16,32x32 -j 2 --out sweep"), 0)
      << read_text(dir / "stderr.txt");
  EXPECT_EQ(occurrences(read_text(dir / "stderr.txt"), warning), 1u) << read_text(dir / "stderr.txt");
  EXPECT_EQ(occurrences(read_text(dir / "stdout.txt"), warning), 0u) << read_text(dir / "stdout.txt");
}

TEST(MachineReadable, ModelsJsonListsWhatTheTextLists) {
  const fs::path dir = scratch("models");
  ASSERT_EQ(cli_run::tbdrsim(dir, "models --json -"), 0) << read_text(dir / "stderr.txt");
  const json models = json::parse(read_text(dir / "stdout.txt"));
  EXPECT_EQ(models.at("format"), "tbdrsim-models");
  EXPECT_EQ(models.at("warnings"), json::array());
  const json* tiling = nullptr;
  for (const json& kind : models.at("kinds"))
    if (kind.at("kind") == "tiling") tiling = &kind;
  ASSERT_NE(tiling, nullptr);
  bool fixed_width = false;
  for (const json& impl : tiling->at("implementations"))
    if (impl.at("name") == "fixed") {
      EXPECT_TRUE(impl.at("reference").get<bool>());
      for (const json& p : impl.at("parameters"))
        if (p.at("name") == "width") fixed_width = p.at("default") == 16 && p.at("type") == "integer";
    }
  EXPECT_TRUE(fixed_width) << "tiling=fixed's width: an integer defaulting to 16";
  std::vector<std::string> presets;
  for (const json& p : models.at("presets")) presets.push_back(p.at("name"));
  EXPECT_EQ(presets.size(), 7u);
  EXPECT_NE(std::find(presets.begin(), presets.end(), "mali-g76"), presets.end());
  // --json FILE: the file, and the text report still on stdout.
  ASSERT_EQ(cli_run::tbdrsim(dir, "models --json models.json"), 0) << read_text(dir / "stderr.txt");
  EXPECT_EQ(json::parse(read_text(dir / "models.json")), models);
  EXPECT_NE(read_text(dir / "stdout.txt").find("tiling=fixed (reference)"), std::string::npos);
}

TEST(MachineReadable, DiffJsonCarriesTheFiguresAndTheVerdict) {
  const fs::path dir = scratch("diff");
  const std::string savers = "'" + (fs::path(TBDR_SOURCE_DIR) / "traces" / "savers").string() + "/";
  const std::string a = savers + "wood.png'", b = savers + "floor_tiles.png'";  // two 128x128 textures
  ASSERT_EQ(cli_run::tbdrsim(dir, "diff " + a + " " + a + " --json -"), 0) << read_text(dir / "stderr.txt");
  const json same = json::parse(read_text(dir / "stdout.txt"));
  EXPECT_EQ(same.at("format"), "tbdrsim-diff");
  EXPECT_EQ(same.at("pixels"), 128 * 128);
  EXPECT_EQ(same.at("identical"), same.at("pixels"));
  EXPECT_TRUE(same.at("psnr_db").is_null()) << "equal images: an infinite PSNR, null in JSON";
  EXPECT_TRUE(same.at("within").get<bool>());
  // Two different images: exit 1, the verdict false, the file written and the text line still printed.
  ASSERT_EQ(cli_run::tbdrsim(dir, "diff " + a + " " + b + " --json d.json"), 1) << read_text(dir / "stderr.txt");
  const json verdict = json::parse(read_text(dir / "d.json"));
  EXPECT_FALSE(verdict.at("within").get<bool>());
  EXPECT_LT(verdict.at("identical").get<uint64_t>(), 128u * 128u);
  EXPECT_GT(verdict.at("psnr_db").get<double>(), 0.0);
  EXPECT_NE(read_text(dir / "stdout.txt").find("over the threshold"), std::string::npos);
  // --json naming an input is refused before anything is written.
  EXPECT_EQ(cli_run::tbdrsim(dir, "diff " + a + " " + b + " --json " + b), 2);
}
