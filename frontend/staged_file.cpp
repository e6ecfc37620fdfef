// Safe staging of output files (tools/doc/cli.md "Output files and input limits"): unguessable names created
// exclusively without following symlinks, removal of stale ones a killed run left, checks on the final
// target; temporary folders named by their process, removed on the next start once it is gone.
#include "frontend/staged_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <string_view>

#include "models/errors.h"
#include "models/input_file.h"

namespace tbdr {
namespace {

// Staged files are named ".TARGET.tmp-tbdrsim-PID-RANDOM" (RANDOM: 16 hex digits from getrandom), created
// with O_CREAT | O_EXCL | O_NOFOLLOW: a name planted in advance (a symlink, a FIFO) makes the open fail
// instead of being followed, and the name cannot be guessed to plant one.
constexpr std::string_view kStagedMarker = ".tmp-tbdrsim-";

std::string random_hex() {
  uint64_t value = 0;
  if (::getrandom(&value, sizeof value, 0) != ssize_t(sizeof value)) {
    std::random_device device;
    value = (uint64_t(device()) << 32) ^ device();
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
  return text;
}

bool all_of_chars(const std::string& s, int (*is_class)(int)) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [&](char c) { return is_class(static_cast<unsigned char>(c)) != 0; });
}
int is_lower_hex(int c) { return std::isdigit(c) || (c >= 'a' && c <= 'f'); }

}  // namespace

std::filesystem::path staged_path(const std::filesystem::path& target) {
  std::filesystem::path parent = target.parent_path();
  if (parent.empty()) parent = ".";
  // At most 180 bytes of the target's name, so the staged name stays under the common 255-byte limit.
  std::string name = ".";
  name += target.filename().string().substr(0, 180);
  name += kStagedMarker;
  name += std::to_string(::getpid());
  name += '-';
  name += random_hex();
  return parent / name;
}

// The process id in a staged name of this tool's pattern, or 0 when `name` is not one.
pid_t staged_owner(const std::string& name) {
  const size_t at = name.rfind(kStagedMarker);
  if (name.empty() || name[0] != '.' || at == std::string::npos || at == 0) return 0;
  const std::string rest = name.substr(at + kStagedMarker.size());
  const size_t dash = rest.find('-');
  if (dash == std::string::npos || dash > 9 || rest.size() != dash + 17) return 0;
  const std::string pid = rest.substr(0, dash), hex = rest.substr(dash + 1);
  if (!all_of_chars(pid, [](int c) { return std::isdigit(c); }) || !all_of_chars(hex, is_lower_hex)) return 0;
  return pid_t(std::stol(pid));
}

// Staged files a killed run (SIGKILL, power loss) left in `dir`: this tool's pattern only, regular
// files of this user whose process is gone (a concurrent run's files stay). Once per folder.
void remove_stale_staged(const std::filesystem::path& dir) {
  static std::mutex mutex;
  static std::set<std::filesystem::path> cleaned;
  {
    std::lock_guard lock(mutex);
    if (!cleaned.insert(dir).second) return;
  }
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const pid_t owner = staged_owner(entry.path().filename().string());
    struct stat st {};
    if (owner <= 0 || owner == ::getpid() || ::lstat(entry.path().c_str(), &st) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid()) continue;
    if (::kill(owner, 0) != 0 && errno == ESRCH) ::unlink(entry.path().c_str());
  }
}

// Writes `text` to a new file at `staged` (never an existing one); on any failure (disk full
// included) the partial file is removed and the error names `target`.
void write_staged(const std::filesystem::path& staged, const std::filesystem::path& target, const std::string& text) {
  const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("cannot write " + target.string() + " (" + std::strerror(errno) + ")");
  size_t done = 0;
  int error = 0;
  while (done < text.size() && !error) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n > 0) done += size_t(n);
    else if (!(n < 0 && errno == EINTR)) error = n < 0 ? errno : EIO;
  }
  if (::close(fd) != 0 && !error) error = errno;
  if (!error) return;
  ::unlink(staged.c_str());
  throw std::runtime_error("cannot write " + target.string() + " (" + std::strerror(error) + ")");
}

// An existing output target must be a regular file that is not an input of the run: rename() would
// replace a FIFO, device node or symbolic link by a regular file, or overwrite the trace being run.
void check_replaceable(const std::filesystem::path& target, const std::string& where) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) return;  // absent: it will be created
  if (S_ISLNK(st.st_mode))
    throw InputError(where, "is a symbolic link; outputs never replace one, give another file name");
  if (S_ISDIR(st.st_mode)) throw InputError(where, "names a folder; give a file name");
  if (!S_ISREG(st.st_mode))
    throw InputError(where, "is not a regular file (a FIFO, device or socket); give another file name");
  if (is_registered_input(target)) throw InputError(where, "is an input of this run; give another file name");
}

void ensure_real_folder(const std::filesystem::path& folder) {
  struct stat st {};
  if (::lstat(folder.c_str(), &st) != 0 && errno == ENOENT) {
    std::filesystem::create_directory(folder);
    return;
  }
  if (S_ISLNK(st.st_mode))
    throw InputError(folder.string(), "is a symbolic link; this folder must be a real folder inside " +
                                          folder.parent_path().string() + " (remove the link)");
  if (!S_ISDIR(st.st_mode)) throw InputError(folder.string(), "is not a folder; remove it");
}

namespace {

// The process id in NAME = PREFIX-PID-XXXXXX (mkdtemp's six characters), or 0 when not of that pattern.
pid_t temporary_folder_owner(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() + 8 || name.compare(0, prefix.size() + 1, prefix + "-") != 0) return 0;
  const std::string pid = name.substr(prefix.size() + 1, name.size() - prefix.size() - 8);
  if (name[name.size() - 7] != '-' || pid.size() > 9 || !all_of_chars(pid, [](int c) { return std::isdigit(c); }))
    return 0;
  return pid_t(std::stol(pid));
}

// Removes PREFIX-PID-XXXXXX folders in `dir` that are this user's (not symbolic links) and whose
// process is gone: a run killed with SIGKILL cannot remove its own.
void remove_stale_temporary_folders(const std::filesystem::path& dir, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const pid_t owner = temporary_folder_owner(entry.path().filename().string(), prefix);
    struct stat st {};
    if (owner <= 0 || owner == ::getpid() || ::lstat(entry.path().c_str(), &st) != 0) continue;
    if (!S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
    std::error_code remove_ec;
    if (::kill(owner, 0) != 0 && errno == ESRCH) std::filesystem::remove_all(entry.path(), remove_ec);
  }
}

}  // namespace

std::filesystem::path make_temporary_folder(const std::string& prefix) {
  const std::filesystem::path tmp = std::filesystem::temp_directory_path();
  static std::mutex mutex;
  static std::set<std::string> cleaned;
  bool clean = false;
  {
    std::lock_guard lock(mutex);
    clean = cleaned.insert(prefix).second;
  }
  if (clean) remove_stale_temporary_folders(tmp, prefix);
  std::string pattern = (tmp / (prefix + "-" + std::to_string(::getpid()) + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a temporary folder in " + tmp.string() + " (" + std::strerror(errno) + ")");
  return pattern;
}

}  // namespace tbdr
