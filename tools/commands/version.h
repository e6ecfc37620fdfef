// The version tbdrsim was built as: the project's semantic version (CMakeLists.txt `project(VERSION)`)
// and the git commit, both written at build time by tools/version.cmake.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace tbdr {

extern const char* const k_semantic_version;  // "MAJOR.MINOR.PATCH"
extern const char* const k_build_commit;      // `git describe --always --dirty`, "unknown" outside git

// "tbdrsim 0.9.0 (commit c0c4263abcde)": `tbdrsim --version`'s line.
inline std::string version_line() {
  return std::string("tbdrsim ") + k_semantic_version + " (commit " + k_build_commit + ")";
}

// {"version": "0.9.0", "commit": "..."}: the "tbdrsim" object of every JSON report, so a figure can be
// traced back to the build that computed it.
inline nlohmann::json version_json() { return {{"version", k_semantic_version}, {"commit", k_build_commit}}; }

}  // namespace tbdr
