// Output files of a run: PNG images of stored attachments and the JSON report, written into a
// staging folder and moved into place only when the whole run succeeded (nothing half-written).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "sim/pipeline.h"

namespace tbdr {

// 8-bit RGBA (or grey for depth/stencil) pixels of an image, by the rules in traces/README.md
// ("Images"): unorm formats as stored, float formats tonemapped c / (1 + c), depth normalized
// to the min..max of the region, multisampled images resolved by averaging.
struct Png {
  uint32_t width = 0, height = 0, channels = 4;
  std::vector<uint8_t> pixels;
};
Png to_png(const StoredImage& image);
std::string png_file_name(const StoredImage& image);
// Encodes with stb_image_write and zlib into memory (tools/commands/png_encode.cpp); throws
// std::runtime_error on failure.
std::vector<uint8_t> encode_png(const Png& png);

// Interrupt safety (tools/doc/cli.md "Output files and input limits"): blocks SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE in the calling
// thread and every thread it starts afterwards (call it first, before any thread exists), and starts a
// watcher thread that, on any of them, removes every registered temporary (OutputFolder's staged files,
// folders given to register_temporary) and the empty folders OutputFolder created, says so on stderr and
// exits with 128 + the signal number. A thread rather than an asynchronous handler: it takes the lock
// under which files are staged, so it never misses a file being created. Outputs already committed stay
// as they were. Only for processes that start no child processes (the mask is inherited). A write to a
// closed pipe then fails with EPIPE instead of ending the process.
void install_interrupt_cleanup(const std::string& program);
// Temporary files or folders the watcher removes (remove_all) if the run is interrupted.
void register_temporary(const std::filesystem::path& path);
void unregister_temporary(const std::filesystem::path& path);

// Checks, before anything is simulated or written, that `path` can be written as an output file
// (`folder` false) or folder: not empty, not an existing entry of the other kind, and below an
// existing folder this process may write in (the nearest existing ancestor: the rest is created).
// Throws InputError naming `option` and the path (bad input: exit code 2); "-" is refused (callers
// whose option means stdout by it do not call this for "-").
void check_output_path(const std::filesystem::path& path, bool folder, const std::string& option);
// The file check_output_path creates and removes to probe a folder: a staged name of this process
// (frontend/staged_file.h), so one that a run killed in between left is removed by the next start.
std::filesystem::path probe_path(const std::filesystem::path& folder);

// One output a command was given: the option that names it and its path.
struct NamedOutput {
  std::string option;
  std::filesystem::path path;
};
// Refuses (InputError, before anything runs) two outputs that would land on one file: equal paths
// once made absolute and weakly canonical (`x.json` and `sub/../x.json`), or one file inside the
// other's path (`--json x --csv x/y.csv`). `folder` (e.g. --out, empty: none) takes the images and
// heatmaps, `f<frame>_p<pass>_*.png` and `.csv`: a file output may lie in it, not under such a name.
void check_distinct_outputs(const std::vector<NamedOutput>& files, const NamedOutput& folder);

// Collects outputs in memory-backed staging and commits them with rename.
class OutputFolder : public ImageSink {
 public:
  OutputFolder(std::filesystem::path dir, bool images);
  // If commit() never ran: removes the staged files, and the folders add_file created that are
  // still empty (a failed run leaves no empty --out folder behind).
  ~OutputFolder() override;
  void stored(const StoredImage& image) override;
  // Writes `text` as `name` in the final place (through a staged file, frontend/staged_file.h, and
  // rename); refuses (InputError) a target that is an input of the run or not a regular file.
  void add_file(const std::filesystem::path& target, const std::string& text);
  // Moves every staged file into place, after checking that no target is an existing folder (so a
  // failure cannot leave some files moved and others not).
  void commit();
  const std::vector<std::filesystem::path>& written() const { return m_written; }

 private:
  std::filesystem::path m_dir, m_staging;
  bool m_images;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> m_pending;  // staged -> final
  std::vector<std::filesystem::path> m_written;
  std::set<std::filesystem::path> m_targets;  // every target added, absolute and weakly canonical
  std::vector<std::filesystem::path> m_created;  // folders add_file created, outermost first
  bool m_committed = false;
};

// The document a command's --json writes (tools/doc/cli.md "Machine-readable output"): {"format":
// `format`, "schema_version": `version`, "tbdrsim": the build (tools/commands/version.h), then `body`'s
// keys in order, then "warnings" (what the command also said on stderr, [] when nothing).
nlohmann::ordered_json json_document(const std::string& format, int version, const nlohmann::ordered_json& body,
                                     const std::vector<std::string>& warnings);
// Writes `text` for --json PATH: "-" is stdout alone (the caller then prints no text report);
// else through a staged file (nothing half-written). Returns whether stdout was taken.
bool write_json_output(const std::string& path, const std::string& text);

}  // namespace tbdr
