// PNG conversion and the staged output folder (temporary names, renamed on success).
#include "tools/commands/output.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "frontend/staged_file.h"
#include "models/errors.h"
#include "models/input_file.h"
#include "tools/commands/version.h"

namespace tbdr {
namespace {

uint8_t to_byte(float v) { return uint8_t(std::nearbyint(std::clamp(std::isnan(v) ? 0.0f : v, 0.0f, 1.0f) * 255.0f)); }

// Float (HDR) formats: Reinhard c / (1 + c) per color channel, so values above 1 stay visible.
float tonemap(float v) { return v <= 0 ? 0 : v / (1 + v); }

// Temporaries of this process. The mutex is held while a staged file is created and written and
// while staged files are renamed, so the interrupt watcher sees each file either absent or registered.
std::mutex g_temporaries_mutex;
std::set<std::filesystem::path> g_temporaries;
// Folders OutputFolder created for outputs not yet committed, outermost first: removed (rmdir, so
// only when empty) after the staged files when the run is interrupted.
std::vector<std::filesystem::path> g_created_folders;

size_t fs_remove_count(const std::filesystem::path& path, std::error_code& ec) {
  const auto n = std::filesystem::remove_all(path, ec);
  return n == static_cast<std::uintmax_t>(-1) ? 0 : size_t(n);
}

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out;
}

}  // namespace

Png to_png(const StoredImage& image) {
  const Surface& s = *image.surface;
  Png png;
  png.width = s.width;
  png.height = s.height;
  if (s.has_color()) {
    const FormatInfo& info = format_info(s.format);
    png.channels = 4;
    png.pixels.resize(size_t(s.width) * s.height * 4);
    for (uint32_t y = 0; y < s.height; ++y)
      for (uint32_t x = 0; x < s.width; ++x) {
        Vec4 c = s.samples == 1 ? s.color[s.index(x, y, 0)] : s.resolved_color(x, y);
        if (info.is_float)
          for (int k = 0; k < 3; ++k) c[k] = tonemap(c[k]);
        if (info.channels == 1) c = Vec4(c[0], c[0], c[0], 1);
        if (info.channels == 2) c = Vec4(c[0], c[1], 0, 1);
        uint8_t* p = &png.pixels[(size_t(y) * s.width + x) * 4];
        for (int k = 0; k < 4; ++k) p[k] = to_byte(c[k]);
      }
    return png;
  }
  // Depth: grey, normalized to the min..max found in the stored region (sample 0); stencil-only
  // formats: the stencil value.
  png.channels = 1;
  png.pixels.assign(size_t(s.width) * s.height, 0);
  if (!s.has_depth()) {
    for (uint32_t y = 0; y < s.height; ++y)
      for (uint32_t x = 0; x < s.width; ++x) png.pixels[size_t(y) * s.width + x] = s.stencil[s.index(x, y, 0)];
    return png;
  }
  float lo = 1, hi = 0;
  for (uint32_t y = 0; y < image.region.height; ++y)
    for (uint32_t x = 0; x < image.region.width; ++x) {
      const float z = s.depth[s.index(uint32_t(image.region.x) + x, uint32_t(image.region.y) + y, 0)];
      lo = std::min(lo, z);
      hi = std::max(hi, z);
    }
  for (uint32_t y = 0; y < s.height; ++y)
    for (uint32_t x = 0; x < s.width; ++x) {
      const float z = s.depth[s.index(x, y, 0)];
      png.pixels[size_t(y) * s.width + x] = to_byte(hi > lo ? (z - lo) / (hi - lo) : z);
    }
  return png;
}

namespace {

// A name part of at most 64 bytes, so a PNG's file name stays under the common 255-byte limit
// whatever the trace names: a longer one keeps its first 55 bytes and appends "~" and 8 hex digits
// of its FNV-1a hash, so two long names with the same start still give different files.
std::string file_name_part(const std::string& name) {
  std::string part = sanitize(name);
  if (part.size() <= 64) return part;
  uint32_t hash = 2166136261u;
  for (const unsigned char c : name) hash = (hash ^ c) * 16777619u;
  char suffix[16];
  std::snprintf(suffix, sizeof suffix, "~%08x", hash);
  part.resize(55);
  return part + suffix;
}

}  // namespace

std::string png_file_name(const StoredImage& image) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "f%u_p%02u_", image.frame, image.pass_index);
  std::string name = prefix;
  name += file_name_part(image.pass_name);
  name += '_';
  name += image.slot;
  name += '_';
  name += file_name_part(image.image_name);
  name += ".png";
  return name;
}

void check_output_path(const std::filesystem::path& path, bool folder, const std::string& option) {
  namespace fs = std::filesystem;
  const std::string where = option + " " + path.string();
  if (path.empty()) throw InputError(option, "an empty path; give a " + std::string(folder ? "folder" : "file name"));
  // Only --json -, --csv - and --vs-json - mean stdout (their callers pass no "-" here); elsewhere a
  // file named "-" was written where stdout was meant (tools/doc/cli.md, `--json -`).
  if (path == "-")
    throw InputError(where, std::string("writes a ") + (folder ? "folder" : "file") +
                                ", not stdout (only --json, --csv and --vs-json take -); give a name (./- for one named -)");
  std::error_code ec;
  if (!folder) {
    const std::string text = path.string();
    if (text.back() == '/' || fs::is_directory(path, ec) || path.filename() == "." || path.filename() == "..")
      throw InputError(where, "names a folder; give a file name");
    check_replaceable(path, where);
  } else if (fs::exists(path, ec) && !fs::is_directory(path, ec)) {
    throw InputError(where, "is a file, not a folder");
  }
  fs::path existing = folder ? path : path.parent_path();
  while (!existing.empty() && !fs::exists(existing, ec)) existing = existing.parent_path();
  if (existing.empty()) existing = ".";
  if (!fs::is_directory(existing, ec)) throw InputError(where, existing.string() + " is not a folder");
  // Probed by creating (and at once removing) a file: access() says yes to root everywhere, even in
  // /proc and /sys, where the run would only fail after simulating.
  const std::string probe = probe_path(existing).string();
  remove_stale_staged(existing);  // a probe (or staged file) that a run killed in between left
  // The probe exists only under the temporaries' lock, as a staged file does: an interrupt meanwhile
  // waits for its removal (the interrupt watcher takes the lock before it exits).
  std::lock_guard lock(g_temporaries_mutex);
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) throw InputError(where, "cannot write in " + existing.string() + " (" + std::strerror(errno) + ")");
  ::close(fd);
  if (::unlink(probe.c_str()) != 0)  // a folder that takes new files but keeps them (append-only)
    throw InputError(where, "cannot remove the probe file " + probe + " (" + std::strerror(errno) + ")");
}

std::filesystem::path probe_path(const std::filesystem::path& folder) { return staged_path(folder / "tbdrsim-probe"); }

namespace {

std::filesystem::path resolved_path(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, ec);
  return ec ? absolute.lexically_normal() : canonical;
}

// Whether `inner` is `outer` or lies below it, component by component.
bool is_within(const std::filesystem::path& inner, const std::filesystem::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i)
    if (i == inner.end() || *i != *o) return false;
  return true;
}

// A name the images (png_file_name) and heatmaps (tools/commands/heatmaps.cpp) may take: f<digits>_p....
bool is_image_folder_name(const std::filesystem::path& name) {
  const std::string text = name.string(), ext = name.extension().string();
  const size_t digits = text.empty() ? 0 : text.find_first_not_of("0123456789", 1);
  return text[0] == 'f' && digits != std::string::npos && digits > 1 && text.compare(digits, 2, "_p") == 0 &&
         (ext == ".png" || ext == ".csv");
}

}  // namespace

void check_distinct_outputs(const std::vector<NamedOutput>& files, const NamedOutput& folder) {
  std::vector<std::filesystem::path> resolved;
  for (const NamedOutput& file : files) resolved.push_back(resolved_path(file.path));
  for (size_t i = 0; i < files.size(); ++i) {
    const std::string where = files[i].option + " " + files[i].path.string();
    for (size_t j = 0; j < i; ++j)
      if (is_within(resolved[i], resolved[j]) || is_within(resolved[j], resolved[i]))
        throw InputError(where, "names the file of " + files[j].option + " " + files[j].path.string() +
                                    " (or a folder of its path); give each output its own file");
    if (folder.path.empty()) continue;
    const std::filesystem::path dir = resolved_path(folder.path);
    if (is_within(dir, resolved[i]))
      throw InputError(where, "is the " + folder.option + " folder " + folder.path.string() + " or a folder of its path");
    if (resolved[i].parent_path() == dir && is_image_folder_name(resolved[i].filename()))
      throw InputError(where, "lies in the " + folder.option + " folder under a name its images and heatmaps take "
                              "(f<frame>_p<pass>_...); give another name");
  }
}

namespace {

// The signals that end a run by default and can be caught (SIGKILL cannot: remove_stale_staged
// removes what a killed run left on the next run into the same folder).
constexpr std::pair<int, const char*> kCleanupSignals[] = {
    {SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}, {SIGQUIT, "SIGQUIT"}, {SIGPIPE, "SIGPIPE"}};

}  // namespace

void install_interrupt_cleanup(const std::string& program) {
  sigset_t set;
  sigemptyset(&set);
  for (const auto& [sig, name] : kCleanupSignals) sigaddset(&set, sig);
  if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) return;
  std::thread([set, program] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    std::lock_guard lock(g_temporaries_mutex);  // held until exit: nothing new gets staged
    std::error_code ec;
    size_t removed = 0;
    for (const auto& path : g_temporaries) removed += fs_remove_count(path, ec);
    for (auto it = g_created_folders.rbegin(); it != g_created_folders.rend(); ++it) ::rmdir(it->c_str());
    const char* name = "a signal";
    for (const auto& [s, n] : kCleanupSignals)
      if (s == sig) name = n;
    // stderr may be the closed pipe that raised SIGPIPE: the write then fails, which is harmless.
    std::cerr << program << ": interrupted by " << name << ": removed " << removed
              << " temporary file" << (removed == 1 ? "" : "s") << "; outputs written before stay as they were"
              << std::endl;
    std::_Exit(128 + sig);
  }).detach();
}

void register_temporary(const std::filesystem::path& path) {
  std::lock_guard lock(g_temporaries_mutex);
  g_temporaries.insert(path);
}

void unregister_temporary(const std::filesystem::path& path) {
  std::lock_guard lock(g_temporaries_mutex);
  g_temporaries.erase(path);
}

OutputFolder::OutputFolder(std::filesystem::path dir, bool images) : m_dir(std::move(dir)), m_images(images) {}

OutputFolder::~OutputFolder() {
  std::error_code ec;
  std::lock_guard lock(g_temporaries_mutex);
  for (const auto& [staged, target] : m_pending) {
    std::filesystem::remove(staged, ec);
    g_temporaries.erase(staged);
  }
  for (const auto& folder : m_created) std::erase(g_created_folders, folder);
  if (m_committed) return;
  // Innermost first; remove() takes a folder only when it is empty.
  for (auto it = m_created.rbegin(); it != m_created.rend(); ++it) std::filesystem::remove(*it, ec);
}

void OutputFolder::add_file(const std::filesystem::path& target, const std::string& text) {
  std::filesystem::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  // The folders this creates, outermost first, to remove again if the run fails.
  std::vector<std::filesystem::path> missing;
  for (std::filesystem::path p = parent; !p.empty() && !std::filesystem::exists(p); p = p.parent_path())
    missing.insert(missing.begin(), p);
  if (is_registered_input(target))
    throw InputError(target.string(), "is an input of this run; give another output file name");
  // check_distinct_outputs refuses this before the run; here it is exact (image names included).
  if (!m_targets.insert(resolved_path(target)).second)
    throw InputError(target.string(), "is written twice by this run (two outputs name one file); give each its own");
  std::lock_guard lock(g_temporaries_mutex);
  std::filesystem::create_directories(parent);
  m_created.insert(m_created.end(), missing.begin(), missing.end());
  g_created_folders.insert(g_created_folders.end(), missing.begin(), missing.end());
  remove_stale_staged(parent);
  const std::filesystem::path staged = staged_path(target);
  g_temporaries.insert(staged);
  try {
    write_staged(staged, target, text);
  } catch (...) {
    g_temporaries.erase(staged);
    throw;
  }
  m_pending.emplace_back(staged, target);
}

void OutputFolder::stored(const StoredImage& image) {
  if (!m_images) return;
  const std::vector<uint8_t> bytes = encode_png(to_png(image));
  add_file(m_dir / png_file_name(image), std::string(bytes.begin(), bytes.end()));
}

void OutputFolder::commit() {
  std::lock_guard lock(g_temporaries_mutex);
  for (const auto& [staged, target] : m_pending) {
    std::error_code ec;
    if (std::filesystem::is_directory(target, ec))
      throw std::runtime_error("cannot write " + target.string() + ": a folder of that name exists");
    check_replaceable(target, target.string());  // again: the target may have changed while simulating
  }
  m_committed = true;
  for (const auto& [staged, target] : m_pending) {
    std::filesystem::rename(staged, target);
    g_temporaries.erase(staged);
    m_written.push_back(target);
  }
  m_pending.clear();
}

nlohmann::ordered_json json_document(const std::string& format, int version, const nlohmann::ordered_json& body,
                                     const std::vector<std::string>& warnings) {
  nlohmann::ordered_json out = {{"format", format}, {"schema_version", version}};
  out["tbdrsim"] = version_json();
  for (const auto& [key, value] : body.items()) out[key] = value;
  out["warnings"] = warnings;
  return out;
}

bool write_json_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return true;
  }
  OutputFolder output(".", false);
  output.add_file(path, text);
  output.commit();
  return false;
}

}  // namespace tbdr
