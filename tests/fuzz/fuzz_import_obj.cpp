// libFuzzer target: the obj importer (frontend/import_scene.h) on arbitrary bytes, written to a
// scratch file, imported, and the
// trace it writes read back by the trace reader. Bad input must be an InputError.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "frontend/import_scene.h"
#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  const fs::path scene = tbdr::fuzz::write_input("scene.obj", data, size);
  const fs::path out = tbdr::fuzz::scratch_dir() / "out";
  fs::remove_all(out);
  try {
    const tbdr::ImportSummary summary = tbdr::import_scene(scene, out / "scene.json");
    (void)tbdr::read_trace(summary.trace);
  } catch (const tbdr::InputError&) {
  }
  return 0;
}
