// The presets of models/presets/*.json, embedded in the binary at build time (embed_presets.cmake
// generates the definitions), so `--preset NAME` works from any working directory.
#pragma once

#include <cstddef>

namespace tbdr::models::detail {

struct EmbeddedPreset {
  const char* name;         // file stem: "reference"
  const char* source_path;  // "models/presets/reference.json", for error messages
  const char* json;         // the file's bytes, NUL-terminated
};

extern const EmbeddedPreset k_embedded_presets[];
extern const std::size_t k_embedded_preset_count;

}  // namespace tbdr::models::detail
