// libFuzzer target: the sweep grid reader (tools/commands/sweep.h expand_configurations with --grid FILE)
// on arbitrary bytes, as a .json grid when the first non-blank byte is '[' or '{', else as .csv.
#include <cstddef>
#include <cstdint>

#include "models/errors.h"
#include "tests/fuzz/fuzz_common.h"
#include "tools/commands/sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t first = 0;
  while (first < size && (data[first] == ' ' || data[first] == '\n' || data[first] == '\t')) ++first;
  const bool json = first < size && (data[first] == '[' || data[first] == '{');
  tbdr::sweep::SweepOptions options;
  options.traces = {"unused.json"};
  options.grid = tbdr::fuzz::write_input(json ? "grid.json" : "grid.csv", data, size).string();
  try {
    (void)tbdr::sweep::expand_configurations(options);
  } catch (const tbdr::InputError&) {
  }
  return 0;
}
