// make_scenes: writes every generated trace under traces/ of trace format v1 (JSON, sidecar .bin,
// texture PNG), one scene family per folder (tools/scenes/). Deterministic: rerunning reproduces every byte.
#include <exception>
#include <filesystem>
#include <iostream>

#include "tools/scenes/scenes.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: make_scenes OUT_TRACES_DIR\n";
    return 2;
  }
  try {
    namespace scenes = tbdr::scenes;
    const std::filesystem::path out = argv[1];
    scenes::write_default_trace(out / "default");
    scenes::write_feature_traces(out / "features");
    scenes::write_deferred_traces(out / "seed000");
    scenes::write_gbuffer_roundtrip_trace(out / "seed001");
    scenes::write_local_read_traces(out / "local_read");
    scenes::write_forward_traces(out / "seed002");
    scenes::write_saver_traces(out / "savers");
    scenes::write_validation_traces(out / "validation");
  } catch (const std::exception& e) {
    std::cerr << "make_scenes: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
