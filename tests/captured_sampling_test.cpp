// Captured draws sampled where their shader sampled (traces/README.md "Captured frames": a binding's
// `coordinates` "uv"): a hand-made trace in tools/rdc2trace's output shape (clip-space mesh with uvs,
// the `captured` program) whose uvs differ from the screen position (scaled, rotated, an atlas
// region), its texel footprint and cache lines worked out by hand; the reader's one-line errors.
#include <gtest/gtest.h>
#include <stb_image_write.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "sim/pipeline.h"
#include "tests/configured_models.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace tbdr {
namespace {

// A folder holding a 64x64 RGBA8 texture, atlas.png.
struct TextureFolder {
  fs::path dir;
  TextureFolder() {
    std::string pattern = (fs::temp_directory_path() / "tbdr-sampling-XXXXXX").string();
    dir = ::mkdtemp(pattern.data());
    std::vector<unsigned char> rgba(64 * 64 * 4, 200);
    stbi_write_png((dir / "atlas.png").c_str(), 64, 64, 4, rgba.data(), 64 * 4);
  }
  ~TextureFolder() {
    std::error_code ignored;
    fs::remove_all(dir, ignored);
  }
};

// A quad over the whole 32x32 target (clip space, w = 1), two triangles; corner k (top-left,
// top-right, bottom-left, bottom-right) carries uvs[k]. One draw of the captured program samples
// atlas (nearest) at `coordinates`.
json quad_trace(const std::vector<std::array<double, 2>>& uvs, const std::string& coordinates,
               const std::string& format = "RGBA8") {
  const double corners[4][2] = {{-1, -1}, {1, -1}, {-1, 1}, {1, 1}};
  json positions = json::array(), uv = json::array();
  for (int k : {0, 1, 2, 1, 3, 2}) {
    positions.insert(positions.end(), {corners[k][0], corners[k][1], 0.5, 1.0});
    uv.insert(uv.end(), {uvs[size_t(k)][0], uvs[size_t(k)][1]});
  }
  json binding = {{"texture", "atlas"}};
  if (!coordinates.empty()) binding["coordinates"] = coordinates;
  json draw = {{"name", "event_7"}, {"mesh", "draw_event_7"}, {"transform", {{"clip_space", true}}},
               {"program", {{"name", "captured"}, {"bindings", {{"image0", binding}}}}}};
  json pass = {{"name", "pass0"},
               {"attachments", json::array({{{"image", "color"}, {"load", "clear"}, {"store", "store"}}})},
               {"subpasses", json::array({{{"color", {0}}, {"draws", json::array({draw})}}})}};
  return {{"format", "tbdrsim-trace"}, {"version", 1},
          {"images", json::array({{{"name", "color"}, {"format", "RGBA8"}, {"width", 32}, {"height", 32},
                                   {"usage", {"color_attachment"}}}})},
          {"textures", json::array({{{"name", "atlas"}, {"file", "atlas.png"}, {"format", format}}})},
          {"meshes", json::array({{{"name", "draw_event_7"}, {"topology", "triangle_list"}, {"position_components", 4},
                                   {"positions", positions}, {"uvs", uv}}})},
          {"frames", json::array({{{"passes", json::array({pass})}}})}};
}

struct Texture {
  uint64_t bytes = 0, fetches = 0;
};

Texture texture_read(const TextureFolder& folder, const json& trace, const std::vector<std::string>& assignments) {
  const Trace t = read_trace_text(trace.dump(), folder.dir, "captured.json");
  const RunStats stats = simulate(t, configured_models("reference", assignments), SimOptions{}, nullptr);
  const PassStats& pass = stats.frames.at(0).passes.at(0);
  return {pass.dram[DramCategory::texture].read_bytes, pass.counters.texel_fetches};
}

const std::vector<std::string> kFootprint = {};  // the reference preset: texture=footprint
const std::vector<std::string> kLinearCache = {"texture=cache", "texture.layout=linear"};

// Scaled: u and v run over 0 .. 1/4 of the texture across the 32 pixels, so pixel x reads texel
// floor(64 x (x + 0.5) / 32 / 4) = floor((x + 0.5) / 2): texels 0 .. 15 in each direction, 256 texels,
// 1,024 B, against the stand-in's 1,024 texels (4,096 B: each pixel under its own texel at 2x).
TEST(CapturedSampling, ScaledUvsFetchTheTexelsTheShaderSampled) {
  const TextureFolder folder;
  const std::vector<std::array<double, 2>> scaled = {{0, 0}, {0.25, 0}, {0, 0.25}, {0.25, 0.25}};
  const Texture at_uv = texture_read(folder, quad_trace(scaled, "uv"), kFootprint);
  EXPECT_EQ(at_uv.fetches, 32u * 32);  // one nearest fetch per pixel
  EXPECT_EQ(at_uv.bytes, 16u * 16 * 4);
  const Texture at_pixel = texture_read(folder, quad_trace(scaled, ""), kFootprint);
  EXPECT_EQ(at_pixel.fetches, 32u * 32);
  EXPECT_EQ(at_pixel.bytes, 32u * 32 * 4);
  EXPECT_EQ(texture_read(folder, quad_trace(scaled, "pixel"), kFootprint).bytes, at_pixel.bytes);
}

// An atlas region: u over 32 .. 48 texels, v over 16 .. 32 across the quad, a 16 x 16 texel block
// whose rows start on 64 B lines in the linear layout (x 32 = byte 128 of each 256 B row): 256 texels,
// 1,024 B by the footprint and 16 lines of 64 B (one a row) through the cache.
TEST(CapturedSampling, AtlasRegionFetchesItsRegionOnly) {
  const TextureFolder folder;
  const std::vector<std::array<double, 2>> region = {{0.5, 0.25}, {0.75, 0.25}, {0.5, 0.5}, {0.75, 0.5}};
  EXPECT_EQ(texture_read(folder, quad_trace(region, "uv"), kFootprint).bytes, 256u * 4);
  EXPECT_EQ(texture_read(folder, quad_trace(region, "uv"), kLinearCache).bytes, 16u * 64);
}

// Rotated 90 degrees: screen x runs along v (0 .. 1/4: texel rows 0 .. 15) and screen y along u
// (0 .. 1/8: texel columns 0 .. 7). 8 x 16 = 128 texels, 512 B by the footprint; linear rows of
// 8 texels (32 B) in one line each, 16 lines = 1,024 B through the cache. Unrotated (x along u) the
// same 128 texels lie in 8 rows of 16 texels (64 B, a line each): 512 B.
TEST(CapturedSampling, RotatedUvsReadTheRotatedRegion) {
  const TextureFolder folder;
  const std::vector<std::array<double, 2>> rotated = {{0, 0}, {0, 0.25}, {0.125, 0}, {0.125, 0.25}};
  EXPECT_EQ(texture_read(folder, quad_trace(rotated, "uv"), kFootprint).bytes, 128u * 4);
  EXPECT_EQ(texture_read(folder, quad_trace(rotated, "uv"), kLinearCache).bytes, 16u * 64);
  const std::vector<std::array<double, 2>> unrotated = {{0, 0}, {0.25, 0}, {0, 0.125}, {0.25, 0.125}};
  EXPECT_EQ(texture_read(folder, quad_trace(unrotated, "uv"), kLinearCache).bytes, 8u * 64);
}

// The scaled quad's 16 x 16 texels in other formats, at their own size: R8 1 B and RG8 2 B a texel;
// BC1 and BC4 8 B, BC3 and BC7 16 B a 4x4 block (Vulkan's "Compatible Formats"): 4 x 4 = 16 blocks.
TEST(CapturedSampling, FormatsAtTheirOwnSize) {
  const TextureFolder folder;
  const std::vector<std::array<double, 2>> scaled = {{0, 0}, {0.25, 0}, {0, 0.25}, {0.25, 0.25}};
  const std::pair<const char*, uint64_t> expected[] = {{"R8", 256}, {"RG8", 512}, {"RGBA16F", 2048}, {"BC1", 128},
                                                       {"BC4", 128}, {"BC3", 256}, {"BC7", 256}};
  for (const auto& [format, bytes] : expected)
    EXPECT_EQ(texture_read(folder, quad_trace(scaled, "uv", format), kFootprint).bytes, bytes) << format;
}

std::string read_error(const TextureFolder& folder, const json& trace) {
  try {
    read_trace_text(trace.dump(), folder.dir, "captured.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CapturedSampling, ReaderNamesTheFieldOfABadCoordinates) {
  const TextureFolder folder;
  const std::vector<std::array<double, 2>> uvs = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
  json unknown = quad_trace(uvs, "screen");
  EXPECT_NE(read_error(folder, unknown).find("coordinates"), std::string::npos) << read_error(folder, unknown);
  json no_uvs = quad_trace(uvs, "uv");
  no_uvs["meshes"][0].erase("uvs");
  EXPECT_NE(read_error(folder, no_uvs).find("needs uvs"), std::string::npos) << read_error(folder, no_uvs);
  json other_program = quad_trace(uvs, "uv");
  other_program["frames"][0]["passes"][0]["subpasses"][0]["draws"][0]["program"] = {
      {"name", "textured"}, {"bindings", {{"texture", {{"texture", "atlas"}, {"coordinates", "uv"}}}}}};
  EXPECT_NE(read_error(folder, other_program).find("captured program's bindings only"), std::string::npos)
      << read_error(folder, other_program);
}

}  // namespace
}  // namespace tbdr
