// The fixture of the hostile-input tests (tests/hardening_test.cpp, tests/hardening_work_test.cpp): a
// scratch folder per test and tbdrsim run as a user would, its exit code and stderr checked.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "frontend/import_scene.h"
#include "models/errors.h"
#include "test_paths.h"

namespace tbdr {
namespace fs = std::filesystem;

inline const std::string kBinary = TBDR_BINARY_DIR + "/tbdrsim";
inline const std::string kDefaultTrace = TBDR_SOURCE_DIR + "/traces/default/scene.json";

// A one-pass trace of one triangle in a 16x16 image: the smallest valid run.
inline constexpr const char* kTinyTrace = R"({"format": "tbdrsim-trace", "version": 1,
  "images": [{"name": "color", "format": "RGBA8", "width": 16, "height": 16}],
  "meshes": [{"name": "tri", "positions": [0,0,0, 1,0,0, 0,1,0]}],
  "frames": [{"passes": [{"name": "main", "attachments": [{"image": "color", "load": "clear"}],
    "subpasses": [{"color": [0], "draws": [{"name": "d", "mesh": "tri"}]}]}]}]})";


inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

class Hardening : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::path(TBDR_BINARY_DIR) / "test-scratch" / "hardening" /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Runs `tbdrsim ARGS` (stderr kept in m_stderr, stdout as `redirect` says) under a 60 s timeout,
  // after the shell commands `setup` (e.g. a ulimit); returns the exit status.
  int run_cli(const std::string& args, const std::string& setup = "", const std::string& redirect = "> /dev/null") {
    const fs::path err = m_dir / "stderr.txt";
    const std::string command = setup + "timeout 60 " + kBinary + " " + args + " " + redirect + " 2> " + err.string();
    const int status = std::system(command.c_str());
    m_stderr = slurp(err);
    fs::remove(err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // Expects exit 2 and a one-line message containing `fragment`.
  void expect_refused(const std::string& args, const std::string& fragment) {
    SCOPED_TRACE(args);
    EXPECT_EQ(run_cli(args), 2) << m_stderr;
    EXPECT_NE(m_stderr.find(fragment), std::string::npos) << m_stderr;
    EXPECT_EQ(message_lines(m_stderr), 1) << m_stderr;
  }

  // stderr's lines less the progress lines a step slower than the progress line's quiet time prints
  // ("tbdrsim validate: 1 of 17: simulating X (0:04 elapsed)"): a slow machine (a sanitizer build
  // under load) prints one before the refusal, a fast one none.
  static long message_lines(const std::string& text) {
    static const std::regex progress(R"(tbdrsim [a-z-]+: \d+ of \d+: .* \(\d+:\d\d elapsed.*\))");
    long lines = 0;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
      if (!std::regex_match(line, progress)) ++lines;
    return lines;
  }

  // Expects importing `scene` to throw an InputError containing `fragment`, naming the scene file.
  void expect_import_refused(const fs::path& scene, const std::string& fragment) {
    SCOPED_TRACE(scene.string());
    try {
      import_scene(scene, m_dir / "out" / "scene.json");
      ADD_FAILURE() << "imported; expected an InputError containing \"" << fragment << "\"";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(fragment), std::string::npos) << message;
      EXPECT_NE(message.find(scene.filename().string()), std::string::npos) << message;
    }
    EXPECT_FALSE(fs::exists(m_dir / "out" / "scene.json"));
  }

  fs::path m_dir;
  std::string m_stderr;
};

}  // namespace tbdr
