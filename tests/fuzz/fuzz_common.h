// Shared by the libFuzzer targets: a private scratch folder per process for readers that take files.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace tbdr::fuzz {

inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    // The pid padded to a fixed width: the folder's name reaches error messages, and a name whose
    // length varied from run to run would vary the coverage libFuzzer steers by (tools/fuzz --ci).
    char name[32];
    std::snprintf(name, sizeof name, "tbdr_fuzz_%010ld", long(::getpid()));
    std::filesystem::path d = std::filesystem::temp_directory_path() / name;
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Writes the input to scratch_dir()/name and returns the path.
inline std::filesystem::path write_input(const std::string& name, const uint8_t* data, size_t size) {
  const std::filesystem::path p = scratch_dir() / name;
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                             static_cast<std::streamsize>(size));
  return p;
}

}  // namespace tbdr::fuzz
