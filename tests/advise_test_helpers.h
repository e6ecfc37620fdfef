// Helpers of the `tbdrsim advise` tests (tests/advise*_test.cpp): tiny 64x64 traces in a temporary
// folder, their advice, the saving per DRAM category, the images they store, the command line.
#pragma once

#include <gtest/gtest.h>
#include "test_paths.h"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tools/commands/advise.h"
#include "tools/commands/output.h"

namespace tbdr::advise {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr uint64_t kImage = 64 * 64 * 4;  // 16384 B

struct TempTrace {
  fs::path dir;
  fs::path file;
  explicit TempTrace(const json& trace) {
    std::string pattern = (fs::temp_directory_path() / "tbdr-advise-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
    file = dir / "t.json";
    std::ofstream(file) << trace.dump(2);
  }
  ~TempTrace() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

inline json image(const std::string& name, const std::string& format, json usage, json extra = json::object()) {
  json i = {{"name", name}, {"format", format}, {"width", 64}, {"height", 64}, {"usage", usage}};
  i.update(extra);
  return i;
}

// A full-screen triangle (clip space) or a small one in the top-left corner.
inline json meshes() {
  return json::array({{{"name", "full"}, {"position_components", 4},
                       {"positions", {-1, -1, 0.5, 1, 3, -1, 0.5, 1, -1, 3, 0.5, 1}}},
                      {{"name", "corner"}, {"position_components", 4},
                       {"positions", {-1, -1, 0.5, 1, 0, -1, 0.5, 1, -1, 0, 0.5, 1}}}});
}
inline json draw(const std::string& mesh, json color = {1, 0, 0, 1}, json state = json::object()) {
  return {{"mesh", mesh}, {"transform", {{"clip_space", true}}}, {"state", state},
          {"program", {{"name", "flat"}, {"params", {{"color", color}}}}}};
}
// Lists as std::vector<json>: a braced list of one json value initializes a `json` parameter as
// that value under clang and as a one-element array under GCC (nlohmann/json README, "brace
// initialization"), so list parameters take vectors.
inline json trace_of(std::vector<json> images, std::vector<json> passes, int frames = 1) {
  json f = json::array({{{"passes", json(passes)}}});
  for (int i = 1; i < frames; ++i) f.push_back(json::object());
  return {{"format", "tbdrsim-trace"}, {"version", 1}, {"images", json(images)}, {"meshes", meshes()}, {"frames", f}};
}

inline Advice run_advice(const TempTrace& t, const std::string& preset = "reference") {
  AdviseOptions o;
  o.trace = t.file;
  o.preset = preset;
  return advise(o);
}

inline const Finding& finding(const Advice& a, const std::string& rule) {
  for (const Finding& f : a.findings)
    if (f.rule == rule) return f;
  throw std::runtime_error("no finding of rule " + rule);
}

// Saved bytes of one category (read + write), nominal or physical.
inline int64_t saved(const Advice& a, const Finding& f, DramCategory c, bool nominal) {
  const Traffic& b = (nominal ? a.before.dram_nominal : a.before.dram)[c];
  const Traffic& e = (nominal ? f.after.dram_nominal : f.after.dram)[c];
  return int64_t(b.read_bytes + b.write_bytes) - int64_t(e.read_bytes + e.write_bytes);
}
inline int64_t saved_total(const Advice& a, const Finding& f, bool nominal) {
  const Traffic b = (nominal ? a.before.dram_nominal : a.before.dram).total();
  const Traffic e = (nominal ? f.after.dram_nominal : f.after.dram).total();
  return int64_t(b.read_bytes + b.write_bytes) - int64_t(e.read_bytes + e.write_bytes);
}

// The last image each frame stores per image name, as the PNG pixels `run` would write.
struct LastImages : ImageSink {
  std::map<std::string, std::vector<uint8_t>> images;
  void stored(const StoredImage& i) override {
    std::string key = std::to_string(i.frame);  // "f" + ...: GCC 12's false -Wrestrict (GCC bug 105329)
    key.insert(0, 1, 'f');
    key += "/";
    key += i.image_name;
    images[key] = to_png(i).pixels;
  }
};
inline LastImages images_of(const json& trace, const fs::path& dir, const std::string& preset) {
  const Trace t = read_trace_text(trace.dump(), dir, "t.json");
  LastImages sink;
  simulate(t, models::build_models(models::Configuration::from_preset(preset)), SimOptions{}, &sink);
  return sink;
}
// Every image both runs store is identical, and `must` (e.g. the presented image) is among them.
inline void expect_same_images(const TempTrace& t, const Finding& f, const std::string& must, const std::string& preset = "reference") {
  std::ifstream in(t.file);
  const json original = json::parse(in);
  const LastImages a = images_of(original, t.dir, preset);
  const LastImages b = images_of(apply_edits(original, {&f}), t.dir, preset);
  ASSERT_TRUE(a.images.count(must) && b.images.count(must)) << must;
  for (const auto& [key, pixels] : b.images)
    if (a.images.count(key)) {
      EXPECT_EQ(pixels, a.images.at(key)) << key;
    }
}

struct Cli {
  int exit_code = -1;
  std::string err;
};
// Runs `tbdrsim advise ARGS` in `dir`, stderr captured.
inline Cli advise_cli(const fs::path& dir, const std::string& args) {
  const fs::path err = dir / "stderr.txt";
  const std::string cmd = "cd '" + dir.string() + "' && '" + TBDR_BINARY_DIR + "/tbdrsim' advise " + args + " > /dev/null 2> '" +
                          err.string() + "'";
  const int status = std::system(cmd.c_str());
  Cli r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err);
  std::getline(in, r.err, '\0');
  return r;
}

inline json read_json(const fs::path& p) { return json::parse(std::ifstream(p)); }

inline json pass(const std::string& name, std::vector<json> atts, std::vector<json> subpasses) {
  return {{"name", name}, {"attachments", atts}, {"subpasses", subpasses}};
}

}  // namespace tbdr::advise
