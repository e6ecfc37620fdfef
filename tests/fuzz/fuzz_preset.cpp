// libFuzzer target: the preset reader with its chains of `base`s (models/registry.h Configuration::from_preset,
// then build_models) on arbitrary bytes, split at each "\n@@\n" into the files p0.json, p1.json, ... (at most 8).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "models/errors.h"
#include "models/registry.h"
#include "tests/fuzz/fuzz_common.h"

namespace {
constexpr size_t kMaxFiles = 8;
constexpr std::string_view kSeparator = "\n@@\n";
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  // Every file of the last input removed first: a base naming p5.json must not find an older input's.
  std::error_code ec;
  for (size_t i = 0; i < kMaxFiles; ++i)
    std::filesystem::remove(tbdr::fuzz::scratch_dir() / ("p" + std::to_string(i) + ".json"), ec);
  size_t start = 0;
  for (size_t i = 0; i < kMaxFiles && start <= input.size(); ++i) {
    const size_t end = i + 1 == kMaxFiles ? input.npos : input.find(kSeparator, start);
    const std::string_view file = input.substr(start, end == input.npos ? input.npos : end - start);
    tbdr::fuzz::write_input("p" + std::to_string(i) + ".json", reinterpret_cast<const uint8_t*>(file.data()),
                            file.size());
    if (end == input.npos) break;
    start = end + kSeparator.size();
  }
  try {
    const tbdr::models::Configuration config =
        tbdr::models::Configuration::from_preset((tbdr::fuzz::scratch_dir() / "p0.json").string());
    (void)tbdr::models::build_models(config);
  } catch (const tbdr::InputError&) {
  }
  return 0;
}
