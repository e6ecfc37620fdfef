// Replays every input the fuzzers (tests/fuzz) once crashed on, kept in tests/data/fuzz_regressions/
// as KIND-NAME (KIND: trace, gltf, obj, grid, part; the extension is the file type the reader is given).
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
#include "tests/fuzz/sweep_part_harness.h"
#include "tools/commands/sweep.h"

namespace tbdr {
namespace {

namespace fs = std::filesystem;

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
    } else {
      ADD_FAILURE() << name << ": unknown kind \"" << kind << "\" (trace, gltf, obj, grid, part)";
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
