// Every file the tool reads goes through here (tools/doc/cli.md "Limits of input files"): a regular file of
// bounded size, checked on the open descriptor before reading, and remembered so no output of the run
// may replace it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tbdr {

// Size limits per kind of input file (tools/doc/cli.md "Limits of input files" lists them with reasons).
struct InputLimits {
  static constexpr uint64_t kTextBytes = uint64_t(512) << 20;       // trace, preset, grid, glTF JSON, OBJ/MTL
  static constexpr uint64_t kBinaryBytes = uint64_t(4) << 30;       // sidecar buffers, .glb, glTF buffers
  static constexpr uint64_t kImageFileBytes = uint64_t(256) << 20;  // PNG/JPEG files
  // Decoded images (textures, captured contents), checked with stb_image's header (stbi_info) before
  // decoding: 4096 x 4096 texels, 256 MiB as the reader's float texels; a side at most 16384.
  static constexpr uint64_t kImagePixels = uint64_t(1) << 24;
  static constexpr uint32_t kImageSide = 16384;
  // Nesting of [ and { in a JSON input, checked by a scan before any parser recurses into it.
  static constexpr size_t kJsonDepth = 256;
};

// The deepest nesting of arrays and objects in JSON `text` (strings skipped); stops counting once
// over `limit`. InputError naming `where` when deeper than `limit`.
void check_json_depth(std::string_view text, const std::string& where, size_t limit = InputLimits::kJsonDepth);

// Width x height of an image file's header against kImageSide and kImagePixels; InputError naming `where`.
void check_image_size(uint64_t width, uint64_t height, const std::string& where);

// The whole file. Refuses (InputError naming `where`, or the path when `where` is empty) a path that
// is not a regular file (a FIFO, a device such as /dev/zero, a folder) and a file over `max_bytes`,
// before reading a byte; opening never blocks (O_NONBLOCK), so a FIFO cannot hang the run.
std::string read_input_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& where = "");
std::vector<uint8_t> read_input_bytes(const std::filesystem::path& path, uint64_t max_bytes,
                                      const std::string& where = "");

// FNV-1a 64 (Fowler, Noll, Vo; http://www.isthe.com/chongo/tech/comp/fnv/) of `bytes`: the sweep's
// fingerprint of configurations, rows and input files. Not cryptographic: it detects changed or
// damaged files, not a forger (tools/doc/sweeps.md).
uint64_t fnv1a64(std::string_view bytes);
// The same over several pieces: fnv1a64(b, fnv1a64(a)) == fnv1a64(a + b), so a long text is hashed
// without being held whole (a sweep's million configurations).
uint64_t fnv1a64(std::string_view bytes, uint64_t state);

// One file read through read_input_file/read_input_bytes while digests were being recorded.
struct InputDigest {
  std::string path;  // as the reader named it (the user's argument, or a trace's resolved file)
  uint64_t fnv1a64 = 0;
};
// From now on every file read is also hashed (a sweep records its inputs: presets, grid, traces,
// sidecars, textures, imported scenes' files).
void record_input_digests();
// The files read since record_input_digests(), one per file (device, inode), sorted by path.
std::vector<InputDigest> input_digests();

// True when `path` is (the same inode as) a file read through read_input_file by this process.
bool is_registered_input(const std::filesystem::path& path);

}  // namespace tbdr
