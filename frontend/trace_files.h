// The files a trace names (sidecar buffers, PNG/JPEG images): confined to the trace's folder,
// read once, and decoded to float pixels. Used by frontend/trace_reader*.cpp.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frontend/json_cursor.h"
#include "sim/frame.h"

namespace tbdr {

// The whole file in one read (a byte-by-byte istreambuf_iterator took about 50 ms of the
// million-triangle trace's 29 MB sidecar, tools/bench_llvmpipe), through models/input_file.h: a
// regular file of at most `max_bytes`, else an InputError naming `where`.
std::vector<uint8_t> read_whole_file(const std::filesystem::path& path, uint64_t max_bytes, const std::string& where);

// `text` (a file name from a trace or a scene) resolved inside `base_dir`: absolute paths, ".."
// components, missing files, non-regular files and symlinks resolving outside the folder are refused
// with `problem` set and an empty path returned; else the canonical path. `folder` names base_dir in
// the problem ("the trace's folder", or "the scene's folder" for an importer).
std::filesystem::path resolve_inside_folder(const std::filesystem::path& base_dir, const std::string& text,
                                            std::string& problem, const std::string& folder = "the trace's folder");

struct DecodedImage {
  uint32_t width = 0, height = 0;
  std::vector<Vec4> pixels;  // row-major, top row first, channels / max (8 or 16 bit)
};

class TraceFiles {
 public:
  explicit TraceFiles(std::filesystem::path base_dir);

  // `name` is the JSON string naming a file. Refuses absolute paths, ".." components and
  // symlinks that resolve outside the trace's folder; a missing file is an error naming it.
  // Returns the canonical path.
  std::filesystem::path resolve(const JsonCursor& name) const;

  // The whole file, read once per trace (many sidecar ranges usually share one .bin).
  const std::vector<uint8_t>& bytes(const std::filesystem::path& resolved, const JsonCursor& where);

  // PNG/JPEG (anything stb_image reads) as RGBA in [0,1]; 16-bit PNGs keep their precision.
  // `grey`: the file must be greyscale (depth contents); its value goes to .x, .y = 0.
  DecodedImage decode_image(const std::filesystem::path& resolved, const JsonCursor& where, bool grey);

 private:
  std::filesystem::path m_base_dir;        // as given, for messages
  std::map<std::filesystem::path, std::vector<uint8_t>> m_cache;
};

}  // namespace tbdr
