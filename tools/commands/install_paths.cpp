// The bundled traces' folder, found relative to the running binary (tools/commands/install_paths.h).
#include "tools/commands/install_paths.h"

#include <stdexcept>
#include <string>

namespace fs = std::filesystem;

namespace tbdr {

std::vector<fs::path> bundled_traces_candidates() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);  // the binary itself, links resolved
  if (ec) return {};
  const fs::path dir = exe.parent_path();
  // The installed layout (GNU coding standards' bindir and datadir), then the build folder's.
  return {(dir.parent_path() / "share" / "tbdrsim" / "traces").lexically_normal(), dir / "share" / "tbdrsim" / "traces"};
}

fs::path bundled_traces() {
  const std::vector<fs::path> candidates = bundled_traces_candidates();
  std::string looked;
  for (const fs::path& c : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(c / "default" / "scene.json", ec)) return c;
    looked += (looked.empty() ? "" : ", ") + c.string();
  }
  throw std::runtime_error("cannot find the bundled traces (looked in " + (looked.empty() ? "nothing: /proc/self/exe unreadable" : looked) +
                           "): install tbdrsim with `cmake --install` or its Debian package, or run it from its build folder");
}

}  // namespace tbdr
