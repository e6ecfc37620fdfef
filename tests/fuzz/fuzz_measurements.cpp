// libFuzzer target: the measurement CSV reader of `calibrate` and `validate` (tools/commands/measurements.h
// read_measurements) on arbitrary bytes, as measurements.csv; the traces it names are not simulated.
#include <cstddef>
#include <cstdint>

#include "models/errors.h"
#include "tests/fuzz/fuzz_common.h"
#include "tools/commands/measurements.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)tbdr::measurements::read_measurements(tbdr::fuzz::write_input("measurements.csv", data, size));
  } catch (const tbdr::InputError&) {
  }
  return 0;
}
