// Trace-side file access: the folder sandbox (traces/README.md: "absolute paths, `..` components
// and symlinks leading out of the folder are refused"), a byte cache, and stb_image decoding.
#include "frontend/trace_files.h"

#include <stb_image.h>

#include <fstream>

#include "models/errors.h"
#include "models/input_file.h"
#include <system_error>

namespace tbdr {

namespace fs = std::filesystem;

TraceFiles::TraceFiles(fs::path base_dir) : m_base_dir(std::move(base_dir)) {
  if (m_base_dir.empty()) m_base_dir = ".";
}

fs::path resolve_inside_folder(const fs::path& base_dir, const std::string& text, std::string& problem,
                               const std::string& folder) {
  std::error_code ec;
  fs::path canonical_base = fs::weakly_canonical(fs::absolute(base_dir.empty() ? "." : base_dir, ec), ec);
  if (ec) canonical_base = fs::absolute(base_dir).lexically_normal();
  problem.clear();
  const fs::path relative(text);
  if (text.empty()) problem = "expected a file name, got an empty string";
  else if (relative.is_absolute() || relative.has_root_name() || relative.has_root_directory())
    problem = "file \"" + text + "\" is an absolute path; file names are relative to " + folder;
  for (const auto& component : relative)
    if (problem.empty() && component == "..")
      problem = "file \"" + text + "\" has a \"..\" component; files must lie inside " + folder;
  if (!problem.empty()) return {};
  const fs::path full = base_dir / relative;
  // exists() follows symlinks, so a dangling link reads as missing, which it is.
  if (!fs::exists(full, ec)) problem = "file \"" + text + "\" not found (looked for " + full.string() + ")";
  const fs::path canonical = problem.empty() ? fs::canonical(full, ec) : fs::path();
  if (problem.empty() && ec) problem = "file \"" + text + "\" cannot be resolved: " + ec.message();
  if (!problem.empty()) return {};
  // A symlink may lead anywhere; only its target counts.
  const fs::path inside = canonical.lexically_relative(canonical_base);
  if (inside.empty() || *inside.begin() == "..")
    problem = "file \"" + text + "\" resolves to " + canonical.string() + ", outside " + folder + " " +
              canonical_base.string();
  else if (!fs::is_regular_file(canonical, ec))
    problem = "file \"" + text + "\" is not a regular file";
  return problem.empty() ? canonical : fs::path();
}

fs::path TraceFiles::resolve(const JsonCursor& name) const {
  std::string problem;
  const fs::path canonical = resolve_inside_folder(m_base_dir, name.as_string(), problem);
  if (!problem.empty()) name.fail(problem);
  return canonical;
}

std::vector<uint8_t> read_whole_file(const fs::path& path, uint64_t max_bytes, const std::string& where) {
  return read_input_bytes(path, max_bytes, where);
}

const std::vector<uint8_t>& TraceFiles::bytes(const fs::path& resolved, const JsonCursor& where) {
  auto it = m_cache.find(resolved);
  if (it != m_cache.end()) return it->second;
  std::vector<uint8_t> data;
  try {
    data = read_whole_file(resolved, InputLimits::kBinaryBytes, resolved.string());
  } catch (const InputError& e) {
    where.fail(e.what());
  }
  return m_cache.emplace(resolved, std::move(data)).first->second;
}

DecodedImage TraceFiles::decode_image(const fs::path& resolved, const JsonCursor& where, bool grey) {
  const std::vector<uint8_t>& data = bytes(resolved, where);
  const auto* buffer = reinterpret_cast<const stbi_uc*>(data.data());
  const int length = static_cast<int>(data.size());
  const std::string name = resolved.filename().string();

  int width = 0, height = 0, channels = 0;
  if (data.empty() || !stbi_info_from_memory(buffer, length, &width, &height, &channels))
    where.fail("cannot decode image \"" + name + "\": " + (data.empty() ? "empty file" : stbi_failure_reason()));
  try {
    check_image_size(uint64_t(width), uint64_t(height), "image \"" + name + "\"");
  } catch (const InputError& e) {
    where.fail(e.what());
  }
  if (grey && channels > 2)
    where.fail("image \"" + name + "\" has " + std::to_string(channels) +
               " channels; depth contents must be a greyscale image");

  // Grey decodes to one channel (depth), everything else to RGBA (missing alpha = 1).
  const int wanted = grey ? 1 : 4;
  const bool sixteen = stbi_is_16_bit_from_memory(buffer, length) != 0;
  DecodedImage out;
  out.width = static_cast<uint32_t>(width);
  out.height = static_cast<uint32_t>(height);
  out.pixels.resize(static_cast<size_t>(width) * height);
  auto store = [&](auto* decoded, float max_value) {
    if (!decoded) where.fail("cannot decode image \"" + name + "\": " + stbi_failure_reason());
    for (size_t i = 0; i < out.pixels.size(); ++i) {
      if (grey) {
        out.pixels[i] = Vec4(decoded[i] / max_value, 0.0f, 0.0f, 0.0f);
      } else {
        const auto* p = decoded + 4 * i;
        out.pixels[i] = Vec4(p[0] / max_value, p[1] / max_value, p[2] / max_value, p[3] / max_value);
      }
    }
    stbi_image_free(decoded);
  };
  int w = 0, h = 0, c = 0;
  if (sixteen)
    store(stbi_load_16_from_memory(buffer, length, &w, &h, &c, wanted), 65535.0f);
  else
    store(stbi_load_from_memory(buffer, length, &w, &h, &c, wanted), 255.0f);
  return out;
}

}  // namespace tbdr
