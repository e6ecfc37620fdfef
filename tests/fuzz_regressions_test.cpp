// Replays every input the fuzzers (tests/fuzz) once crashed on, kept in tests/data/fuzz_regressions/
// as KIND-NAME (KIND: trace, gltf, obj, grid, part, preset, measurements; the extension is the file type the
// reader is given; a preset input is split at each "\n@@\n" into p0.json, p1.json, ... as fuzz_preset does).
// Each must now be read, or rejected with an InputError: no other exception, no crash (and, in the
// sanitizer build, no sanitizer report).
#include <gtest/gtest.h>
#include "test_paths.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "frontend/import_scene.h"
#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "tests/fuzz/sweep_part_harness.h"
#include "tools/commands/measurements.h"
#include "tools/commands/sweep.h"

namespace tbdr {
namespace {

namespace fs = std::filesystem;

// fuzz_preset's input: files p0.json ... split at "\n@@\n", p0.json read as the preset with its bases.
void replay_preset(const fs::path& file, const fs::path& scratch) {
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string separator = "\n@@\n";
  size_t start = 0;
  for (size_t i = 0; i < 8 && start <= bytes.size(); ++i) {
    const size_t end = i + 1 == 8 ? std::string::npos : bytes.find(separator, start);
    std::ofstream(scratch / ("p" + std::to_string(i) + ".json"), std::ios::binary)
        << bytes.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (end == std::string::npos) break;
    start = end + separator.size();
  }
  (void)models::build_models(models::Configuration::from_preset((scratch / "p0.json").string()));
}

void replay(const fs::path& file, const fs::path& scratch) {
  const std::string name = file.filename().string();
  const std::string kind = name.substr(0, name.find('-'));
  try {
    if (kind == "trace") {
      std::ifstream in(file, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      (void)read_trace_text(text.str(), TBDR_SOURCE_DIR + "/traces/default", name);
    } else if (kind == "gltf" || kind == "obj") {
      const fs::path scene = scratch / ("scene" + file.extension().string());
      fs::copy_file(file, scene, fs::copy_options::overwrite_existing);
      (void)read_trace(import_scene(scene, scratch / "out" / "scene.json").trace);
    } else if (kind == "grid") {
      sweep::SweepOptions options;
      options.traces = {"unused.json"};
      options.grid = file.string();
      (void)sweep::expand_configurations(options);
    } else if (kind == "part") {  // fuzz_sweep_part's input: its first byte picks the part or sweep.json
      std::ifstream in(file, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      fuzz::merge_fuzzed_part(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), scratch);
    } else if (kind == "preset") {
      replay_preset(file, scratch);
    } else if (kind == "measurements") {
      (void)measurements::read_measurements(file);
    } else {
      ADD_FAILURE() << name << ": unknown kind \"" << kind << "\" (trace, gltf, obj, grid, part, preset, measurements)";
    }
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

TEST(RobustnessFuzzRegressions, EveryFileIsReadOrRejectedWithAnInputError) {
  const fs::path dir = TBDR_SOURCE_DIR + "/tests/data/fuzz_regressions";
  const fs::path scratch = fs::temp_directory_path() / ("tbdr_fuzz_regressions_" + std::to_string(::getpid()));
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().filename() == "README.md") continue;
    SCOPED_TRACE(entry.path().filename().string());
    fs::remove_all(scratch);
    fs::create_directories(scratch);
    replay(entry.path(), scratch);
    ++count;
  }
  fs::remove_all(scratch);
  EXPECT_GE(count, 2u);
}

}  // namespace
}  // namespace tbdr
