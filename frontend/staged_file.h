// Output files staged under unguessable names and renamed into place (tools/doc/cli.md "Output files and input
// limits"), and the temporary and owned folders outputs go through; shared by tools/commands/output.cpp,
// frontend/import_writer.cpp, tools/commands/sweep.cpp.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace tbdr {

// ".TARGET.tmp-tbdrsim-PID-RANDOM" next to `target` (RANDOM: 16 hex digits from getrandom).
std::filesystem::path staged_path(const std::filesystem::path& target);
// The process id in a staged name of that pattern, or 0 when `name` is not one.
pid_t staged_owner(const std::string& name);
// Removes (unlink) the staged files of that pattern in `dir` that are regular files of this user
// whose process is gone (a run killed with SIGKILL left them); a live run's files stay. Once per folder.
void remove_stale_staged(const std::filesystem::path& dir);
// Writes `text` to a new file `staged` opened with O_CREAT | O_EXCL | O_NOFOLLOW (a planted symlink
// or FIFO makes it fail instead of being followed); on any failure, disk full included, the partial
// file is removed and std::runtime_error names `target`.
void write_staged(const std::filesystem::path& staged, const std::filesystem::path& target, const std::string& text);
// An existing output target must be a regular file that is not an input of this run (rename() would
// replace a FIFO, device node or symlink, or overwrite the trace being run). InputError naming `where`.
void check_replaceable(const std::filesystem::path& target, const std::string& where);

// A folder a command owns inside its output folder (a sweep's parts/): created when absent; a symbolic
// link or anything but a folder in its place is refused (InputError naming it), as the writes would
// land wherever it points.
void ensure_real_folder(const std::filesystem::path& folder);

// A new folder $TMPDIR/PREFIX-PID-RANDOM (mkdtemp) for this process's temporary files, after removing
// the folders of that pattern a killed run (kill -9) left: this user's real folders whose process is
// gone, once per process and prefix.
std::filesystem::path make_temporary_folder(const std::string& prefix);

}  // namespace tbdr
