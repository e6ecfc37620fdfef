// The browser tests' driver: tools/browser_drive.py runs a list of steps (open a page, click, hover,
// evaluate, screenshot) in headless Chromium through the DevTools protocol and returns each step's
// result and every console or script error.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.h"
#include "test_paths.h"

namespace browser_test {

namespace fs = std::filesystem;

using cli_run::read_text;
using cli_run::shell;
using cli_run::tbdrsim;

inline fs::path scratch(const std::string& name) { return cli_run::scratch("html_" + name); }

struct BrowserRun {
  int status = -1;
  nlohmann::json results = nlohmann::json::array();
  nlohmann::json errors = nlohmann::json::array();
  std::string failed;  // why the driver stopped early, or empty
};

// Runs `steps` (tools/browser_drive.py's list) with a fresh profile under `dir`.
inline BrowserRun drive_browser(const fs::path& dir, const nlohmann::json& steps) {
  std::ofstream(dir / "steps.json") << steps.dump(1);
  fs::remove_all(dir / "profile");
  fs::create_directories(dir / "profile");
  BrowserRun run;
  run.status = shell("cd '" + dir.string() + "' && timeout 240 python3 '" + TBDR_SOURCE_DIR +
                     "/tools/browser_drive.py' steps.json --profile '" + (dir / "profile").string() +
                     "' > driver.json 2> driver.log");
  const nlohmann::json out = nlohmann::json::parse(read_text(dir / "driver.json"), nullptr, false);
  if (out.is_discarded()) {
    run.failed = "driver printed no JSON: " + read_text(dir / "driver.log");
    return run;
  }
  run.results = out.value("results", nlohmann::json::array());
  run.errors = out.value("errors", nlohmann::json::array());
  run.failed = out.value("failed", std::string());
  return run;
}

}  // namespace browser_test
