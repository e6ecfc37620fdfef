// libFuzzer target: sweep-merge's validation of sweep parts and sweep.json (tools/commands/sweep.h
// merge_sweeps) on arbitrary bytes, through tests/fuzz/sweep_part_harness.h.
#include <cstddef>
#include <cstdint>

#include "models/errors.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/fuzz/sweep_part_harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tbdr::fuzz::merge_fuzzed_part(data, size, tbdr::fuzz::scratch_dir());
  } catch (const tbdr::InputError&) {
  }
  return 0;
}
