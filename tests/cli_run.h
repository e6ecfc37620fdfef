// Running the built tbdrsim from a test: a fresh scratch folder per test, the command's exit status,
// its stdout and stderr in files of that folder, and reading a file back whole.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_paths.h"

namespace cli_run {

namespace fs = std::filesystem;

// build/test-scratch/NAME, emptied.
inline fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(TBDR_BINARY_DIR) / "test-scratch" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

inline int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

inline std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `tbdrsim ARGS` run in `dir`; its stdout in stdout.txt, stderr in stderr.txt.
inline int tbdrsim(const fs::path& dir, const std::string& args) {
  return shell("cd '" + dir.string() + "' && '" + TBDR_BINARY_DIR + "/tbdrsim' " + args + " > stdout.txt 2> stderr.txt");
}

}  // namespace cli_run
