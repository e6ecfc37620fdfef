// Scene importers: a glTF 2.0 (.gltf/.glb, tinygltf) or OBJ (.obj, tinyobjloader) file -> a
// self-contained trace (format v1, traces/README.md) in a folder: the trace JSON, one binary
// sidecar of vertex data and every texture re-encoded as PNG, so the reader's folder check holds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace tbdr {

struct ImportOptions {
  uint32_t width = 0, height = 0;  // 0: 640 x 480 (height from the camera's aspect ratio if it has one)
  // Which camera: "" = the scene's first camera (in node order) if it has one, else an automatic
  // camera framing the scene's bounds; "auto" = always the automatic one; "N" = the N-th camera.
  std::string camera;
};

// What the import wrote, for messages and tests: counts as the file declares them.
struct ImportSummary {
  std::filesystem::path trace;  // the trace JSON written
  uint64_t meshes = 0;          // trace meshes (one per glTF primitive / per OBJ file)
  uint64_t draws = 0;
  uint64_t vertices = 0;        // summed over trace meshes
  uint64_t triangles = 0;       // summed over draws (strips and fans converted to lists)
  uint64_t lines = 0, points = 0;  // likewise (line loops converted to lists; a line strip's segments)
  uint64_t textures = 0;
  bool automatic_camera = false;
  uint32_t width = 0, height = 0;     // the framebuffer size chosen
  std::string size_reason;            // why that size ("given", "the camera's aspect ratio", ...)
  std::vector<std::string> warnings;  // also written into the trace's "warnings"
};

// True for the extensions the importers take (.gltf, .glb, .obj; case-insensitive).
bool is_importable_scene(const std::filesystem::path& file);

// Imports `scene` and writes `trace_json` (its folder is created; the sidecar and textures go
// next to it, named after the trace's stem). Files are staged under temporary names and renamed
// at the end, so bad input (InputError naming the file and what was wrong) leaves nothing behind.
ImportSummary import_scene(const std::filesystem::path& scene, const std::filesystem::path& trace_json,
                           const ImportOptions& options = {});

}  // namespace tbdr
