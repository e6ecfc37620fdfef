// `tbdrsim advise`'s rules on material textures (tools/commands/advise_rules_resources.cpp): a 64x64 target
// sampling one texture through a full-screen triangle, the saving worked out by hand from
// traces/README.md's `texture` ledger rule under the reference preset (texture=footprint: unique
// texels, or blocks, touched x bytes per texel, or block).
#include <gtest/gtest.h>
#include <stb_image_write.h>

#include <functional>
#include <string>
#include <vector>

#include "tests/advise_test_helpers.h"

namespace tbdr::advise {
namespace {

// A `size` x `size` RGBA8 PNG of a pattern (no two neighbours alike), `name`.png in the trace's folder.
void write_texture(const TempTrace& t, const std::string& name, int size) {
  std::vector<unsigned char> rgba(size_t(size) * size * 4);
  for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<unsigned char>((i * 37) & 0xff);
  ASSERT_NE(stbi_write_png((t.dir / (name + ".png")).string().c_str(), size, size, 4, rgba.data(), size * 4), 0);
}

// One pass drawing a full-screen triangle whose uvs run 0 .. 1 across the 64 pixels (corners at
// framebuffer 0 and 128: uv 0 and 2), sampling texture `tex` bilinearly.
json textured_trace(const json& texture) {
  json trace = trace_of({image("out", "RGBA8", {"color_attachment"})},
                        {pass("scene", {{{"image", "out"}, {"load", "clear"}, {"store", "store"}}},
                              {{{"color", {0}}, {"draws", {draw("uv_full")}}}})});
  trace["textures"] = json::array({texture});
  trace["meshes"].push_back({{"name", "uv_full"}, {"position_components", 4},
                             {"positions", {-1, -1, 0.5, 1, 3, -1, 0.5, 1, -1, 3, 0.5, 1}},
                             {"uvs", {0, 0, 2, 0, 0, 2}}});
  json& d = trace["frames"][0]["passes"][0]["subpasses"][0]["draws"][0];
  d["program"] = {{"name", "textured"},
                  {"bindings", {{"texture", {{"texture", texture["name"]}, {"filter", "bilinear"}, {"address", "repeat"}}}}}};
  d["cost"] = {{"texture_samples", 1}};
  return trace;
}

// The advice on textured_trace(texture) (after `edit`), its file "albedo.png" written `size` x `size`.
Advice advice_on(const json& texture, int size, const std::function<void(json&)>& edit = nullptr) {
  json trace = textured_trace(texture);
  if (edit) edit(trace);
  const TempTrace t(trace);
  write_texture(t, "albedo", size);
  return run_advice(t);
}

// A finding on texture albedo whose one edit sets the texture's `key` to `value`, and says images change.
void expect_texture_edit(const Finding& f, const std::string& key, const std::string& value) {
  EXPECT_EQ(f.id, f.rule + ":albedo");
  EXPECT_EQ(f.edit, json::array({{{"op", "add"}, {"path", "/textures/0/" + key}, {"value", value}}}));
  EXPECT_EQ(f.where.draw, 0);
  EXPECT_TRUE(f.changes_images);
  EXPECT_FALSE(f.note.empty());
}

bool has_finding(const Advice& a, const std::string& rule) {
  for (const Finding& f : a.findings)
    if (f.rule == rule) return true;
  return false;
}

TEST(AdviseTextures, UncompressedTextureBecomesAstc4x4) {
  // 64x64 RGBA8 sampled 1:1: the bilinear taps of pixel i sit at texel coordinate (i + 0.5) - 0.5 = i,
  // so every texel is touched: 64 x 64 x 4 B = 16,384 B. ASTC 4x4: 16 x 16 blocks x 16 B = 4,096 B.
  // Saved: 16,384 - 4,096 = 12,288 B of texture reads in the last frame, nothing else moves. The second
  // frame repeats the first: the same draw, counted once.
  const Advice a = advice_on({{"name", "albedo"}, {"file", "albedo.png"}, {"format", "RGBA8"}}, 64,
                             [](json& trace) { trace["frames"].push_back(json::object()); });
  const Finding& f = finding(a, "compress-textures");
  expect_texture_edit(f, "format", "ASTC_4x4");  // images change: an encoder is lossy
  EXPECT_NE(f.problem.find("sampled uncompressed by 1 draw(s)"), std::string::npos) << f.problem;
  EXPECT_EQ(f.verdict, Verdict::saves);
  EXPECT_EQ(saved(a, f, DramCategory::texture, false), 12288);
  EXPECT_EQ(saved_total(a, f, false), 12288);
  // 1:1 is not minified (a triangle spreads 1 texel over each pixel): no mip chain proposed.
  EXPECT_FALSE(has_finding(a, "add-mipmaps"));
}

TEST(AdviseTextures, BlockFormatsAndUnsampledTexturesAreLeftAlone) {
  const Advice a = advice_on({{"name", "albedo"}, {"file", "albedo.png"}, {"format", "ETC2_RGBA8"}}, 64, [](json& trace) {
    trace["textures"].push_back({{"name", "unused"}, {"file", "albedo.png"}, {"format", "RGBA8"}});
  });
  EXPECT_FALSE(has_finding(a, "compress-textures"));
}

TEST(AdviseTextures, MinifiedTextureGetsAMipChain) {
  // 128x128 RGBA8 over 64 pixels: the triangle covers 128 x 128 / 2 = 8,192 px and uv area 2 x 2 / 2 = 2,
  // i.e. 2 x 128 x 128 = 32,768 texels: 4.0 texels a pixel. Level 0 (no chain): pixel i's bilinear taps
  // at texel coordinate 2 (i + 0.5) - 0.5 = 2i + 0.5 touch texels 2i and 2i + 1, every texel:
  // 128 x 128 x 4 B = 65,536 B. With the chain rho = 2 (rho^2 = 4), level (floor(log2 4) + 1) >> 1 = 1,
  // 64x64, sampled 1:1: 64 x 64 x 4 B = 16,384 B. Saved: 65,536 - 16,384 = 49,152 B of texture reads.
  const Advice a = advice_on({{"name", "albedo"}, {"file", "albedo.png"}, {"format", "RGBA8"}}, 128);
  const Finding& f = finding(a, "add-mipmaps");
  expect_texture_edit(f, "mip", "generate");  // images change: minified pixels sample the filtered level
  EXPECT_NE(f.problem.find("4.0 texels over each pixel"), std::string::npos) << f.problem;
  // Levels 64x64 .. 1x1: 4 B x (4096 + 1024 + 256 + 64 + 16 + 4 + 1) = 21,844 B more memory.
  EXPECT_NE(f.fix.find("21844 B more texture memory"), std::string::npos) << f.fix;
  EXPECT_EQ(f.verdict, Verdict::saves);
  EXPECT_EQ(saved(a, f, DramCategory::texture, false), 49152);
  EXPECT_EQ(saved_total(a, f, false), 49152);
}

TEST(AdviseTextures, TextureWithAChainOrMagnifiedGetsNone) {
  // Magnified: uvs 0 .. 0.25 across the 64 pixels of a 128x128 texture: 32 texels over 64 pixels.
  const json texture = {{"name", "albedo"}, {"file", "albedo.png"}, {"format", "RGBA8"}};
  const Advice magnified = advice_on(texture, 128, [](json& trace) { trace["meshes"].back()["uvs"] = {0, 0, 0.5, 0, 0, 0.5}; });
  EXPECT_FALSE(has_finding(magnified, "add-mipmaps"));
  json chained = texture;
  chained["mip"] = "generate";
  EXPECT_FALSE(has_finding(advice_on(chained, 128), "add-mipmaps"));
}

}  // namespace
}  // namespace tbdr::advise
