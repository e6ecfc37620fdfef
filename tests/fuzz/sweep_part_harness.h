// The sweep-part fuzz input's harness, shared by tests/fuzz/fuzz_sweep_part.cpp and the regression replay
// (tests/fuzz_regressions_test.cpp). First byte even: the bytes after it are parts/000000.json of a fixed
// one-configuration sweep; odd: they are the shard's sweep.json (beside a fixed valid part).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/input_file.h"
#include "tools/commands/sweep.h"

namespace tbdr::fuzz {

// In sweep.json's own layout (tools/commands/sweep_parts.cpp fingerprint_text), so its hash is that of these bytes.
inline const std::string kSweepJson =
    "{\n \"format\": \"tbdrsim-sweep\",\n \"version\": 2,\n \"preset\": \"reference\",\n"
    " \"traces\": [{\"path\":\"t.json\",\"fnv1a64\":\"0000000000000000\"}],\n"
    " \"models_fnv1a64\": \"0000000000000000\",\n \"shard\": \"1/1\",\n \"configurations\": [\n"
    "  {\"index\":0,\"assignments\":[\"tiling.width=16\"]}\n ]\n}\n";

inline std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// The layout file the valid part names (part format 4): its columns and the one shape of its row.
inline const std::string kLayoutJson =
    "{\"format\":\"tbdrsim-sweep-layout\",\"version\":4,\"columns\":[\"trace\",\"config_index\",\"row\"],\"shapes\":[[0,1,2]]}\n";

// The valid part of kSweepJson's configuration 0 (tools/doc/sweeps.md, "Resuming"): the seeds' shape.
inline const std::string& valid_part() {
  static const std::string text = [] {
    using ojson = nlohmann::ordered_json;
    const ojson rows = ojson::parse("[[0,0,\"t.json\",0,\"total\"]]"), attachments = ojson::array();
    ojson part = ojson::object();
    part["format"] = "tbdrsim-sweep-part";
    part["version"] = 4;  // sweep_internal.h k_part_version
    part["index"] = 0;
    part["assignments"] = std::vector<std::string>{"tiling.width=16"};
    part["sweep_fnv1a64"] = hex64(tbdr::fnv1a64(kSweepJson));
    part["configuration_fnv1a64"] = "0000000000000000";
    part["inputs"] = ojson::array();
    part["layout_fnv1a64"] = hex64(tbdr::fnv1a64(kLayoutJson));
    part["rows_fnv1a64"] = hex64(tbdr::fnv1a64("\"rows\":" + rows.dump() + ",\"attachments\":" + attachments.dump()));
    part["rows"] = rows;
    part["attachments"] = attachments;
    return part.dump() + "\n";
  }();
  return text;
}

// Writes the shard of `data` under `scratch` (nothing kept from an earlier input) and merges it into
// scratch/merged: an InputError for a bad part or sweep.json, anything else is a bug.
inline void merge_fuzzed_part(const uint8_t* data, size_t size, const std::filesystem::path& scratch) {
  namespace fs = std::filesystem;
  if (size == 0) return;
  const fs::path shard = scratch / "shard", out = scratch / "merged";
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::remove_all(shard, ec);
  fs::create_directories(shard / "parts");
  const bool sweep_json = (data[0] & 1) != 0;
  const std::string& fixed = sweep_json ? valid_part() : kSweepJson;
  std::ofstream(shard / (sweep_json ? "sweep.json" : "parts/000000.json"), std::ios::binary)
      .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  std::ofstream(shard / (sweep_json ? "parts/000000.json" : "sweep.json"), std::ios::binary)
      .write(fixed.data(), static_cast<std::streamsize>(fixed.size()));
  std::ofstream(shard / "parts" / ("layout-" + hex64(tbdr::fnv1a64(kLayoutJson)) + ".json"), std::ios::binary) << kLayoutJson;
  sweep::merge_sweeps({shard.string()}, out.string(), true);
}

}  // namespace tbdr::fuzz
