// Bounded, regular-file-only reading of every input (tools/doc/cli.md "Limits of input files") and the set
// of inputs read, which output staging (tools/commands/output.cpp) checks so a run never overwrites one of
// its inputs.
#include "models/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include "models/errors.h"

namespace tbdr {
namespace {

std::mutex g_inputs_mutex;
std::set<std::pair<dev_t, ino_t>> g_inputs;  // (device, inode) of every file read
bool g_record_digests = false;
std::map<std::pair<dev_t, ino_t>, InputDigest> g_digests;  // while g_record_digests

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string size_text(uint64_t bytes) {
  return bytes >= (uint64_t(1) << 30) ? std::to_string(bytes >> 30) + " GiB" : std::to_string(bytes >> 20) + " MiB";
}

// Reads into `out` (a std::string or byte vector) through one descriptor: fstat and read see the
// same file, so a swap between check and read cannot slip a FIFO or a larger file in.
template <typename Buffer>
void read_checked(const std::filesystem::path& path, uint64_t max_bytes, const std::string& where, Buffer& out) {
  const std::string name = where.empty() ? path.string() : where;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw InputError(name, std::string("cannot read the file (") + std::strerror(errno) + ")");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string kind = S_ISREG(st.st_mode) ? "cannot be examined" : "is " + kind_of(st.st_mode);
    ::close(fd);
    throw InputError(name, kind + ", expected a regular file");
  }
  if (uint64_t(st.st_size) > max_bytes) {
    ::close(fd);
    throw InputError(name, "is " + std::to_string(st.st_size) + " bytes, over the limit of " + size_text(max_bytes) +
                               " for this kind of input (tools/doc/cli.md \"Limits of input files\")");
  }
  out.resize(size_t(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::read(fd, reinterpret_cast<char*>(out.data()) + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  ::close(fd);
  if (done != out.size()) throw InputError(name, "cannot read (the file shrank or a read failed)");
  std::lock_guard lock(g_inputs_mutex);
  g_inputs.emplace(st.st_dev, st.st_ino);
  if (g_record_digests && !g_digests.count({st.st_dev, st.st_ino})) {
    const std::string_view bytes(reinterpret_cast<const char*>(out.data()), out.size());
    g_digests[{st.st_dev, st.st_ino}] = InputDigest{path.string(), fnv1a64(bytes)};
  }
}

}  // namespace

std::string read_input_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& where) {
  std::string text;
  read_checked(path, max_bytes, where, text);
  return text;
}

std::vector<uint8_t> read_input_bytes(const std::filesystem::path& path, uint64_t max_bytes, const std::string& where) {
  std::vector<uint8_t> bytes;
  read_checked(path, max_bytes, where, bytes);
  return bytes;
}

uint64_t fnv1a64(std::string_view bytes) { return fnv1a64(bytes, 1469598103934665603ull); }  // FNV-1a 64's offset basis

uint64_t fnv1a64(std::string_view bytes, uint64_t state) {
  for (unsigned char c : bytes) state = (state ^ c) * 1099511628211ull;  // FNV-1a 64's prime
  return state;
}

void record_input_digests() {
  std::lock_guard lock(g_inputs_mutex);
  g_record_digests = true;
}

std::vector<InputDigest> input_digests() {
  std::vector<InputDigest> out;
  {
    std::lock_guard lock(g_inputs_mutex);
    for (const auto& [id, digest] : g_digests) out.push_back(digest);
  }
  std::sort(out.begin(), out.end(), [](const InputDigest& a, const InputDigest& b) { return a.path < b.path; });
  return out;
}

void check_json_depth(std::string_view text, const std::string& where, size_t limit) {
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        throw InputError(where, "JSON nested deeper than " + std::to_string(limit) +
                                    " levels (tools/doc/cli.md \"Limits of input files\")");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

void check_image_size(uint64_t width, uint64_t height, const std::string& where) {
  if (width > InputLimits::kImageSide || height > InputLimits::kImageSide || width * height > InputLimits::kImagePixels)
    throw InputError(where, "image is " + std::to_string(width) + "x" + std::to_string(height) +
                                ", over the limit of " + std::to_string(InputLimits::kImagePixels) +
                                " pixels and sides of " + std::to_string(InputLimits::kImageSide) +
                                " (tools/doc/cli.md \"Limits of input files\")");
}

bool is_registered_input(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  std::lock_guard lock(g_inputs_mutex);
  return g_inputs.count({st.st_dev, st.st_ino}) != 0;
}

}  // namespace tbdr
