// libFuzzer target: sweep-merge's validation of sweep parts and sweep.json (tools/lib/sweep.h
// merge_sweeps) on arbitrary bytes. First byte even: the bytes after it are parts/000000.json of a
// fixed one-configuration sweep; odd: they are the shard's sweep.json (beside a fixed valid part).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "models/errors.h"
#include "models/input_file.h"
#include "tests/fuzz/fuzz_common.h"
#include "tools/lib/sweep.h"

namespace {

// In sweep.json's own layout (tools/lib/sweep.cpp fingerprint_text), so its hash is that of these bytes.
const std::string kSweepJson =
    "{\n \"format\": \"tbdrsim-sweep\",\n \"version\": 2,\n \"preset\": \"reference\",\n"
    " \"traces\": [{\"path\":\"t.json\",\"fnv1a64\":\"0000000000000000\"}],\n"
    " \"models_fnv1a64\": \"0000000000000000\",\n \"shard\": \"1/1\",\n \"configurations\": [\n"
    "  {\"index\":0,\"assignments\":[\"tiling.width=16\"]}\n ]\n}\n";

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The valid part of kSweepJson's configuration 0 (README.md "Sweeps", "Resuming"): the seeds' shape.
const std::string& valid_part() {
  static const std::string text = [] {
    using ojson = nlohmann::ordered_json;
    ojson row = ojson::object();
    row["trace"] = "t.json";
    row["config_index"] = 0;
    row["row"] = "total";
    const ojson rows = std::vector<ojson>{row}, attachments = ojson::array();
    ojson part = ojson::object();
    part["format"] = "tbdrsim-sweep-part";
    part["version"] = 2;
    part["index"] = 0;
    part["assignments"] = std::vector<std::string>{"tiling.width=16"};
    part["sweep_fnv1a64"] = hex64(tbdr::fnv1a64(kSweepJson));
    part["configuration_fnv1a64"] = "0000000000000000";
    part["inputs"] = ojson::array();
    part["rows_fnv1a64"] = hex64(tbdr::fnv1a64(rows.dump() + "\n" + attachments.dump()));
    part["rows"] = rows;
    part["attachments"] = attachments;
    return part.dump() + "\n";
  }();
  return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  if (size == 0) return 0;
  const fs::path shard = tbdr::fuzz::scratch_dir() / "shard", out = tbdr::fuzz::scratch_dir() / "merged";
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::remove_all(shard, ec);  // each input alone: nothing kept from the one before
  fs::create_directories(shard / "parts");
  const bool sweep_json = (data[0] & 1) != 0;
  tbdr::fuzz::write_input(sweep_json ? "shard/sweep.json" : "shard/parts/000000.json",
                                                 data + 1, size - 1);
  const std::string& fixed = sweep_json ? valid_part() : kSweepJson;
  tbdr::fuzz::write_input(sweep_json ? "shard/parts/000000.json" : "shard/sweep.json",
                          reinterpret_cast<const uint8_t*>(fixed.data()), fixed.size());
  try {
    tbdr::sweep::merge_sweeps({shard.string()}, out.string(), true);
  } catch (const tbdr::InputError&) {
  }
  return 0;
}
