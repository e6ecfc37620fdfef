// `tbdrsim advise`'s rules on overdraw (tools/commands/advise_rules_overdraw.cpp): 64x64 traces whose
// saving is worked out by hand from traces/README.md's ledger rules, and `--apply` reproducing it.
#include <gtest/gtest.h>
#include <stb_image_write.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/advise_test_helpers.h"

namespace tbdr::advise {
namespace {

const json kDepthTest = {{"depth_test", true}, {"depth_write", true}};

bool has_finding(const Advice& a, const std::string& rule) {
  for (const Finding& f : a.findings)
    if (f.rule == rule) return true;
  return false;
}

// `tbdrsim advise --apply RULE -o edited.json` under `preset`, the edited trace simulated again: the
// physical DRAM bytes of its last frame.
uint64_t applied_bytes(const TempTrace& t, const std::string& preset, const std::string& rule) {
  const Cli r = advise_cli(t.dir, "t.json --preset '" + preset + "' --apply " + rule + " -o edited.json");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const FrameFigures f = price(read_json(t.dir / "edited.json"), t.dir, preset, 1);
  const Traffic total = f.dram.total();
  return total.read_bytes + total.write_bytes;
}
uint64_t bytes_before(const Advice& a) {
  const Traffic total = a.before.dram.total();
  return total.read_bytes + total.write_bytes;
}

// ---- depth-prepass -------------------------------------------------------------------------------

// A full-screen triangle at depth z (clip space, w = 1) whose uvs run 0 .. 1 across the 64 pixels.
json textured_full_at(const std::string& name, double z) {
  return {{"name", name}, {"position_components", 4},
          {"positions", {-1, -1, z, 1, 3, -1, z, 1, -1, 3, z, 1}}, {"uvs", {0, 0, 2, 0, 0, 2}}};
}
// A draw of mesh `mesh` sampling texture `texture` bilinearly, one sample a fragment, depth-tested.
json textured_draw(const std::string& mesh, const std::string& texture) {
  json d = draw(mesh, {1, 1, 1, 1}, kDepthTest);
  d["program"] = {{"name", "textured"},
                  {"bindings", {{"texture", {{"texture", texture}, {"filter", "bilinear"}, {"address", "repeat"}}}}}};
  d["cost"] = {{"texture_samples", 1}, {"alu", 8}};
  return d;
}

// The presented swapchain and a transient D32F depth; the far textured draw (z 0.75), then the near
// one (z 0.25): each covers all 4096 pixels. The two 64x64 RGBA8 textures are written next to it.
struct PrepassScene {
  TempTrace t;
  PrepassScene()
      : t([] {
          json tr = trace_of({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}),
                              image("depth", "D32F", {"depth_stencil_attachment"}, {{"transient", true}})},
                             {pass("scene",
                                   {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}},
                                    {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"}}},
                                   {{{"color", {0}}, {"depth", 1},
                                     {"draws", {textured_draw("far", "far_tex"), textured_draw("near", "near_tex")}}}})});
          tr["meshes"].push_back(textured_full_at("far", 0.75));
          tr["meshes"].push_back(textured_full_at("near", 0.25));
          tr["textures"] = {{{"name", "far_tex"}, {"file", "far.png"}}, {{"name", "near_tex"}, {"file", "near.png"}}};
          return tr;
        }()) {
    for (const char* name : {"far.png", "near.png"}) {
      std::vector<unsigned char> rgba(64 * 64 * 4);
      for (size_t i = 0; i < rgba.size(); ++i) rgba[i] = static_cast<unsigned char>((i * (name[0] == 'f' ? 37 : 11)) & 0xff);
      EXPECT_NE(stbi_write_png((t.dir / name).string().c_str(), 64, 64, 4, rgba.data(), 64 * 4), 0);
    }
    // The reference with early Z in draw order (the hsr that `imr` and `adreno-a740` use), so the
    // figures stay the reference's plain ledger: no savers, texture=footprint.
    std::ofstream(t.dir / "early_z.json")
        << R"({"name": "early_z", "description": "reference, early Z in draw order", "models": {"hsr": {"impl": "early_z"}}})";
  }
  std::string early_z() const { return (t.dir / "early_z.json").string(); }
};

TEST(AdviseOverdraw, DepthPrePassUnderEarlyZ) {
  // Before, early Z: both draws pass (0.75 < 1, then 0.25 < 0.75): 8192 fragments over 4096 pixels,
  // each texture read whole at 1:1 (traces/README.md `texture`: every texel touched, 64 x 64 x 4 =
  // 16,384 B each). After: the two depth-only copies (flat, no texture) shade 8192 fragments and
  // leave depth 0.25; the far draw then fails EQUAL everywhere, the near one passes: far_tex is never
  // read, 16,384 B saved. The pre-pass costs its geometry: `vertex` 2 draws x 3 vertices x (16 B
  // position + 8 B uv) = 144 B; `tile_list` per triangle a record of 3 x (16 + 4 x 2 uv) = 72 B and
  // 16 entries (a 64x64 pass of 16x16 tiles, the triangle in all): writes 72 + 16 x 4 = 136 B,
  // reads 16 x (4 + 72) = 1,216 B, 2 x 1,352 = 2,704 B. Net: 16,384 - 144 - 2,704 = 13,536 B saved;
  // 8192 + 4096 = 12,288 fragments shaded, 4096 more.
  const PrepassScene scene;
  const Advice a = run_advice(scene.t, scene.early_z());
  const Finding& f = finding(a, "depth-prepass");
  EXPECT_EQ(f.id, "depth-prepass:f0.scene.a1.s0");
  EXPECT_EQ(f.verdict, Verdict::saves);
  EXPECT_EQ(a.before.fragments_shaded, 8192u);
  EXPECT_EQ(f.after.fragments_shaded, 12288u);
  EXPECT_EQ(saved(a, f, DramCategory::texture, false), 16384);
  EXPECT_EQ(saved(a, f, DramCategory::vertex, false), -144);
  EXPECT_EQ(saved(a, f, DramCategory::tile_list, false), -2704);
  EXPECT_EQ(saved_total(a, f, false), 13536);
  EXPECT_FALSE(f.changes_images);
  expect_same_images(scene.t, f, "f0/swapchain", scene.early_z());
  // The edit: the depth-only copies first, color writes masked, then the originals testing EQUAL.
  const json draws = apply_edits(read_json(scene.t.file), {&f})["frames"][0]["passes"][0]["subpasses"][0]["draws"];
  ASSERT_EQ(draws.size(), 4u);
  EXPECT_EQ(draws[0]["state"]["blend"], json::array({{{"write_mask", ""}}}));
  EXPECT_EQ(draws[1]["mesh"], "near");
  EXPECT_EQ(draws[3]["state"]["depth_compare"], "equal");
  EXPECT_EQ(draws[3]["state"]["depth_write"], false);
  EXPECT_EQ(applied_bytes(scene.t, scene.early_z(), "depth-prepass"), bytes_before(a) - 13536);
}

TEST(AdviseOverdraw, NoDepthPrePassWhereHsrAlreadyDecides) {
  // reference (hsr none: every fragment shaded, the depth test after shading) and powervr (deferred:
  // only the visible fragment shaded, 4096 here): a pre-pass removes nothing, no finding.
  const PrepassScene scene;
  for (const char* preset : {"reference", "powervr"}) EXPECT_FALSE(has_finding(run_advice(scene.t, preset), "depth-prepass")) << preset;
  // A blended draw writing depth has no depth-only stand-in: no finding either.
  json tr = read_json(scene.t.file);
  tr["frames"][0]["passes"][0]["subpasses"][0]["draws"][1]["state"]["blend"] = {{{"enable", true}}};
  std::ofstream(scene.t.file) << tr.dump();
  EXPECT_FALSE(has_finding(run_advice(scene.t, scene.early_z()), "depth-prepass"));
}


// ---- merge-layers --------------------------------------------------------------------------------

// A full-screen `flat` layer of `color`, blended straight "over" (src_alpha, one_minus_src_alpha).
json over_layer_draw(json color) {
  return draw("full", color, {{"blend", {{{"enable", true}, {"src_color", "src_alpha"}, {"dst_color", "one_minus_src_alpha"},
                                          {"src_alpha", "one"}, {"dst_alpha", "one_minus_src_alpha"}}}}});
}
json layers_trace(std::vector<json> draws) {
  return trace_of({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
                  {pass("scene", {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}}},
                        {{{"color", {0}}, {"draws", draws}}})});
}

TEST(AdviseOverdraw, BlendedFullScreenLayersMergedIntoOneDraw) {
  // reference. Red at alpha 0.5, then blue at alpha 0.5, both over the whole 64x64 target: 8192
  // fragments shaded and blended. As premultiplied layers (P = a c): P1 = (0.5, 0, 0), P2 = (0, 0, 0.5);
  // composed P = P2 + (1 - a2) P1 = (0.25, 0, 0.5), A = a2 + (1 - a2) a1 = 0.75, blended (one,
  // one_minus_src_alpha): 4096 fragments, 4096 saved. Bytes: one draw fewer, `vertex` 3 x 16 B = 48 B;
  // `tile_list` its triangle (no varyings: a 3 x 16 = 48 B record, 16 entries): 48 + 16 x 4 = 112 B
  // written, 16 x (4 + 48) = 832 B read. Saved: 48 + 112 + 832 = 992 B.
  const TempTrace t(layers_trace({over_layer_draw({1, 0, 0, 0.5}), over_layer_draw({0, 0, 1, 0.5})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "merge-layers");
  EXPECT_EQ(f.id, "merge-layers:f0.scene.s0.d0");
  EXPECT_EQ(f.verdict, Verdict::saves);
  EXPECT_EQ(a.before.fragments_shaded - f.after.fragments_shaded, 4096u);
  EXPECT_EQ(saved(a, f, DramCategory::vertex, false), 48);
  EXPECT_EQ(saved(a, f, DramCategory::tile_list, false), 944);
  EXPECT_EQ(saved_total(a, f, false), 992);
  const json draws = apply_edits(read_json(t.file), {&f})["frames"][0]["passes"][0]["subpasses"][0]["draws"];
  ASSERT_EQ(draws.size(), 1u);
  EXPECT_EQ(draws[0]["program"]["params"]["color"], json::array({0.25, 0.0, 0.5, 0.75}));
  EXPECT_EQ(draws[0]["state"]["blend"][0]["src_color"], "one");
  // One rounding instead of two: every channel within one code of the two-layer image.
  EXPECT_TRUE(f.changes_images);
  const std::vector<uint8_t> before = images_of(read_json(t.file), t.dir, "reference").images.at("f0/swapchain");
  const std::vector<uint8_t> after = images_of(apply_edits(read_json(t.file), {&f}), t.dir, "reference").images.at("f0/swapchain");
  ASSERT_EQ(before.size(), after.size());
  for (size_t i = 0; i < before.size(); ++i) ASSERT_LE(std::abs(int(before[i]) - int(after[i])), 1) << i;
  EXPECT_EQ(applied_bytes(t, "reference", "merge-layers"), bytes_before(a) - 992);
}

TEST(AdviseOverdraw, LayersThatAreNotOverAreLeftAlone) {
  // Additive (dst_color one) is an effect the composed color cannot stand for; a layer drawn twice
  // (instance_count 2) is two layers of its own: neither merges.
  json additive = over_layer_draw({0, 0, 1, 0.5});
  additive["state"]["blend"][0]["dst_color"] = "one";
  const TempTrace t(layers_trace({over_layer_draw({1, 0, 0, 0.5}), additive}));
  EXPECT_FALSE(has_finding(run_advice(t), "merge-layers"));
  json twice = over_layer_draw({0, 0, 1, 0.5});
  twice["instance_count"] = 2;
  const TempTrace t2(layers_trace({over_layer_draw({1, 0, 0, 0.5}), twice}));
  EXPECT_FALSE(has_finding(run_advice(t2), "merge-layers"));
}

}  // namespace
}  // namespace tbdr::advise
