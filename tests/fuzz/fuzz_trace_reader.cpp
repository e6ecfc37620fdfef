// libFuzzer target: the trace reader (frontend/trace_reader.h) on arbitrary JSON text. File names
// resolve against traces/default, so mutated seeds that keep its sidecar names still read them.
// Bad input must be an InputError; any other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include "../test_paths.h"
#include <cstdint>
#include <string>

#include "frontend/trace_reader.h"
#include "models/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)tbdr::read_trace_text(text, TBDR_SOURCE_DIR + "/traces/default", "fuzz.json");
  } catch (const tbdr::InputError&) {
  }
  return 0;
}
