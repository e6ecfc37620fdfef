// `tbdrsim advise`: one tiny trace per rule, the saving worked out by hand from
// traces/README.md's ledger rules, and the edited trace's images compared with the original's.
// Every trace is 64x64: one RGBA8 or D32F image is 64 x 64 x 4 = 16384 B.
#include <gtest/gtest.h>
#include "test_paths.h"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>
#include <stb_image_write.h>
#include <string>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tools/commands/advise.h"
#include "tools/commands/output.h"
#include "tests/advise_test_helpers.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace tbdr::advise {
namespace {

TEST(Advise, LoadOfUndefinedBecomesClear) {
  // The swapchain is loaded from old_layout undefined: LOAD reads 64x64x4 = 16384 B for nothing.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
      {pass("scene", {{{"image", "swapchain"}, {"load", "load"}, {"store", "store"}, {"old_layout", "undefined"}, {"new_layout", "present"}}},
            {{{"color", {0}}, {"draws", {draw("full")}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "load-clear");
  EXPECT_EQ(f.id, "load-clear:f0.scene.a0");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, true), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, true), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, false), int64_t(kImage));  // reference: physical = nominal
  // The full-screen draw covers every pixel, so the undefined contents never showed.
  expect_same_images(t, f, "f0/swapchain");
}

TEST(Advise, LoadOverwrittenByTheFirstDrawBecomesDontCare) {
  // The swapchain (old_layout color_attachment: kept contents) is loaded, then a full-screen opaque
  // draw without depth test overwrites every pixel: the 16384 B load is wasted. A load-clear finding
  // does not apply (the layout is not undefined).
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
      {pass("scene", {{{"image", "swapchain"}, {"load", "load"}, {"store", "store"}, {"old_layout", "color_attachment"}, {"new_layout", "present"}}},
            {{{"color", {0}}, {"draws", {draw("full"), draw("corner", {0, 0, 1, 1})}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "load-dont-care");
  EXPECT_EQ(f.id, "load-dont-care:f0.scene.a0");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, true), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, true), int64_t(kImage));
  EXPECT_THROW(finding(a, "load-clear"), std::runtime_error);
  expect_same_images(t, f, "f0/swapchain");
}

// A captured frame's full-screen quad (tools/rdc2trace): a triangle strip in a sidecar file, drawn
// with a viewport over the pass's render area (32x32 of the 64x64 swapchain) and back-face culling.
// Both triangles are clockwise in framebuffer coordinates (Vulkan "Basic Polygon Rasterization":
// (0,0), (32,0), (0,32) has a = -512): kept when front_face is clockwise, culled otherwise.
json sidecar_quad_trace(const std::string& front_face, double viewport_width) {
  json trace = trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
      {pass("blur", {{{"image", "swapchain"}, {"load", "load"}, {"store", "store"}, {"old_layout", "color_attachment"}, {"new_layout", "present"}}},
            {{{"color", {0}}, {"draws", {draw("quad", {0, 0, 1, 1}, {{"cull", "back"}, {"front_face", front_face}})}}}})});
  trace["meshes"].push_back({{"name", "quad"}, {"topology", "triangle_strip"}, {"position_components", 4},
                             {"positions", {{"file", "quad.bin"}, {"offset", 0}, {"count", 16}}}});
  json& p = trace["frames"][0]["passes"][0];
  p["render_area"] = {{"x", 0}, {"y", 0}, {"width", 32}, {"height", 32}};
  p["subpasses"][0]["draws"][0]["viewport"] = {{"x", 0}, {"y", 0}, {"width", viewport_width}, {"height", 32}};
  return trace;
}
// The quad from x = -1 to `right` (clip space), y = -1 to 1.
void write_quad(const TempTrace& t, float right = 1) {
  const float quad[16] = {-1, -1, 0.5f, 1, right, -1, 0.5f, 1, -1, 1, 0.5f, 1, right, 1, 0.5f, 1};
  std::ofstream(t.dir / "quad.bin", std::ios::binary).write(reinterpret_cast<const char*>(quad), sizeof quad);
}

TEST(Advise, LoadOverwrittenByASidecarQuadOverTheRenderArea) {
  // The load reads the render area only: 32 x 32 x 4 = 4096 B, all of it overwritten by the quad.
  const TempTrace t(sidecar_quad_trace("clockwise", 32));
  write_quad(t);
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "load-dont-care");
  EXPECT_EQ(f.id, "load-dont-care:f0.blur.a0");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, true), 32 * 32 * 4);
  EXPECT_EQ(saved_total(a, f, true), 32 * 32 * 4);
  expect_same_images(t, f, "f0/swapchain");
}

TEST(Advise, LoadKeptWhereTheQuadIsCulledOrMissesAColumn) {
  for (const auto& [front_face, width] : {std::pair<std::string, double>{"counter_clockwise", 32}, {"clockwise", 31}}) {
    const TempTrace t(sidecar_quad_trace(front_face, width));
    write_quad(t);
    const Advice a = run_advice(t);
    EXPECT_THROW(finding(a, "load-dont-care"), std::runtime_error) << front_face << " " << width;
  }
}

TEST(Advise, AFindingWhoseEditChangesThePresentedImageIsWithdrawn) {
  // The quad's right edge lies on the pixel centres of column 31 (x = 0.96875 in clip space is
  // 31.5 in the 32-pixel viewport). The rule's
  // coverage test counts a centre on an edge as covered; the rasterizer's top-left rule (Vulkan
  // "Polygon Rasterization") leaves it to the triangle on its right, and there is none. So LOAD ->
  // DONT_CARE would lose column 31 of the red "fill" stored: advise withdraws the finding, saying why.
  json trace = sidecar_quad_trace("clockwise", 32);
  json& passes = trace["frames"][0]["passes"];
  passes.insert(passes.begin(), pass("fill", {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"clear", {1, 0, 0, 1}}}},
                                     {{{"color", {0}}}}));
  const TempTrace t(trace);
  write_quad(t, 0.96875f);
  const Advice a = run_advice(t);
  EXPECT_THROW(finding(a, "load-dont-care"), std::runtime_error);
  ASSERT_EQ(a.withdrawn.size(), 1u);
  EXPECT_EQ(a.withdrawn[0].id, "load-dont-care:f0.blur.a0");
  EXPECT_NE(a.withdrawn[0].withdrawn_because.find("f0/swapchain"), std::string::npos) << a.withdrawn[0].withdrawn_because;
}

TEST(Advise, UnreadDepthStoreBecomesDontCare) {
  // Depth (D32F, not transient) is stored but nothing reads it, not even the next frame (which clears it):
  // 16384 B of attachment_store per frame.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}), image("depth", "D32F", {"depth_stencil_attachment"})},
      {pass("scene",
            {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}},
             {{"image", "depth"}, {"load", "clear"}, {"store", "store"}}},
            {{{"color", {0}}, {"depth", 1}, {"draws", {draw("full", {0, 1, 0, 1}, {{"depth_test", true}, {"depth_write", true}})}}}})},
      2));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "store-dont-care");
  EXPECT_EQ(f.id, "store-dont-care:f0.scene.a1");
  EXPECT_EQ(f.where.image, "depth");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, true), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, true), int64_t(kImage));
  expect_same_images(t, f, "f1/swapchain");
  // The swapchain is presented: never a store finding.
  for (const Finding& g : a.findings) EXPECT_NE(g.id, "store-dont-care:f0.scene.a0");
}

TEST(Advise, AttachmentInsideOnePassBecomesTransient) {
  // Depth is cleared and not stored: no DRAM traffic either way (0 B saved), but its 16384 B allocation goes.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}), image("depth", "D32F", {"depth_stencil_attachment", "sampled"})},
      {pass("scene",
            {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}},
             {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"}}},
            {{{"color", {0}}, {"depth", 1}, {"draws", {draw("full", {0, 1, 0, 1}, {{"depth_test", true}, {"depth_write", true}})}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "transient");
  EXPECT_EQ(f.where.image, "depth");
  EXPECT_EQ(f.memory_bytes, kImage);
  EXPECT_EQ(saved_total(a, f, true), 0);
  EXPECT_EQ(f.verdict, Verdict::saves);  // no byte, no cycle: the allocation it frees decides
  const json edited = apply_edits(json::parse(std::ifstream(t.file)), {&f});
  EXPECT_EQ(edited["images"][1]["transient"], true);
  EXPECT_EQ(edited["images"][1]["usage"], json::array({"depth_stencil_attachment"}));
  expect_same_images(t, f, "f0/swapchain");
}

TEST(Advise, AttachmentWithCapturedContentsIsNotMadeTransient) {
  // As above, but the depth attachment carries captured pixels (`contents`, as rdc2trace writes for
  // a window's depth): a transient image cannot have stored contents (the trace reader refuses
  // it), so no transient finding is proposed for it and advise prices the rest.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}), image("depth", "D32F", {"depth_stencil_attachment"})},
      {pass("scene",
            {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}},
             {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"},
              {"contents", {{"file", "depth.png"}, {"captured", true}}}}},
            {{{"color", {0}}, {"depth", 1}, {"draws", {draw("full", {0, 1, 0, 1}, {{"depth_test", true}, {"depth_write", true}})}}}})}));
  const std::vector<uint8_t> gray(64 * 64, 128);  // depth contents are greyscale
  ASSERT_NE(stbi_write_png((t.dir / "depth.png").string().c_str(), 64, 64, 1, gray.data(), 64), 0);
  const Advice a = run_advice(t);
  for (const Finding& f : a.findings) EXPECT_NE(f.rule, "transient") << f.id;
}

TEST(Advise, SeparateResolveBecomesInline) {
  // 4x RGBA8 stored (64x64x4x4 = 65536 B attachment_store), then resolved by a pass: resolve reads
  // 65536 B and writes 16384 B. Inline: the resolve target's store, 16384 B in `resolve`, and nothing
  // else. Saved: 65536 (store) + 65536 (resolve read) = 131072 B.
  const TempTrace t(trace_of(
      {image("color_ms", "RGBA8", {"color_attachment", "transfer_src"}, {{"samples", 4}}),
       image("swapchain", "RGBA8", {"color_attachment", "transfer_dst"}, {{"swapchain", 2}})},
      {pass("scene", {{{"image", "color_ms"}, {"load", "clear"}, {"store", "store"}}},
            {{{"color", {0}}, {"draws", {draw("corner")}}}}),
       {{"name", "resolve"}, {"type", "resolve"}, {"src", {{"image", "color_ms"}}}, {"dst", {{"image", "swapchain"}}}}}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "inline-resolve");
  EXPECT_EQ(f.id, "inline-resolve:f0.scene.a0");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, true), 65536);
  EXPECT_EQ(saved(a, f, DramCategory::resolve, true), 65536);
  EXPECT_EQ(saved_total(a, f, true), 131072);
  EXPECT_EQ(f.memory_bytes, 65536u);
  expect_same_images(t, f, "f0/swapchain");
}

TEST(Advise, MidPassClearBecomesLoadOpClear) {
  // The swapchain is loaded (old_layout color_attachment) and then cleared by vkCmdClearAttachments
  // before any draw: the load's 16384 B are wasted.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
      {pass("scene",
            {{{"image", "swapchain"}, {"load", "load"}, {"store", "store"}, {"old_layout", "color_attachment"}, {"new_layout", "present"}}},
            {{{"color", {0}}, {"clears", {{{"before_draw", 0}, {"color", {0}}, {"value", {0, 0, 1, 1}}}}}, {"draws", {draw("corner")}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "clear-on-load");
  EXPECT_EQ(f.id, "clear-on-load:f0.scene.a0.s0.c0");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, true), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, true), int64_t(kImage));
  // The corner triangle leaves most pixels at the clear value: the same blue either way.
  expect_same_images(t, f, "f0/swapchain");
}

TEST(Advise, RenderPassLoadingWhatThePreviousStoredIsMerged) {
  // `first` clears and stores `target`, `second` loads it, draws and stores it. One render pass with two
  // subpasses: the 16384 B store of `first` and the 16384 B load of `second` go (32768 B), and the merge
  // model (reference) merges.
  const TempTrace t(trace_of(
      {image("target", "RGBA8", {"color_attachment"})},
      {pass("first", {{{"image", "target"}, {"load", "clear"}, {"store", "store"}}}, {{{"color", {0}}, {"draws", {draw("corner")}}}}),
       pass("second", {{{"image", "target"}, {"load", "load"}, {"store", "store"}}},
            {{{"color", {0}}, {"draws", {draw("corner", {0, 0, 1, 1})}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "merge-passes");
  EXPECT_EQ(f.id, "merge-passes:f0.first+second");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, true), int64_t(kImage));
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, true), int64_t(kImage));
  EXPECT_EQ(f.note, "the merge model merges the subpasses");
  expect_same_images(t, f, "f0/target");
}

TEST(Advise, UndefinedBarrierKeepsTheLastLayout) {
  // mali-g76 (AFBC and transaction elimination on). `gb` is cleared and drawn flat every frame: 16 solid
  // 16x16 blocks, each stored as its 16 B AFBC header = 256 B. A barrier from UNDEFINED drops the TE
  // signatures each frame; from its last layout (shader_read_only) frame 1's blocks all match frame 0's
  // and cost 0 B: 256 B of attachment_store saved in the last frame, nothing nominal.
  const TempTrace t(trace_of(
      {image("gb", "RGBA8", {"color_attachment", "sampled"})},
      {{{"name", "acquire"}, {"type", "barrier"}, {"images", {{{"image", "gb"}, {"old_layout", "undefined"}, {"new_layout", "color_attachment"}}}}},
       pass("draw", {{{"image", "gb"}, {"load", "clear"}, {"store", "store"}, {"old_layout", "color_attachment"}, {"new_layout", "shader_read_only"}}},
            {{{"color", {0}}, {"draws", {draw("full")}}}})},
      2));
  const Advice a = run_advice(t, "mali-g76");
  const Finding& f = finding(a, "keep-layout");
  EXPECT_EQ(f.id, "keep-layout:f0.acquire.gb");
  EXPECT_EQ(f.edit[0]["value"], "shader_read_only");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, false), 256);
  EXPECT_EQ(saved_total(a, f, false), 256);
  EXPECT_EQ(saved_total(a, f, true), 0);
  expect_same_images(t, f, "f1/gb", "mali-g76");
}

TEST(Advise, StorageUsageOffTheRenderTarget) {
  // mali-g76. The swapchain (2 images) has STORAGE usage and no compute pass: AFBC is off, so frame 1's
  // store (swapchain image 1, no TE signature yet) costs 64x64x4 = 16384 B; without STORAGE its 16 solid
  // blocks cost their 16 B headers, 256 B: 16128 B saved, nothing nominal.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment", "storage"}, {{"swapchain", 2}})},
      {pass("scene", {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}}},
            {{{"color", {0}}, {"draws", {draw("full")}}}})},
      2));
  const Advice a = run_advice(t, "mali-g76");
  const Finding& f = finding(a, "no-storage");
  EXPECT_EQ(f.id, "no-storage:swapchain");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, false), 16128);
  EXPECT_EQ(saved_total(a, f, false), 16128);
  EXPECT_EQ(saved_total(a, f, true), 0);
  expect_same_images(t, f, "f1/swapchain", "mali-g76");
}

TEST(Advise, ParameterBufferFlushesAreReported) {
  // A 1-byte parameter buffer: each of the two full-screen triangles is rendered alone, one flush. It
  // stores the color in every tile (64x64x4 = 16384 B) and reloads it (16384 B). No edit: unpriced.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
      {pass("scene", {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}}},
            {{{"color", {0}}, {"draws", {draw("full"), draw("full", {0, 0, 1, 1})}}}})}));
  std::ofstream(t.dir / "tiny.json") << R"({"name": "tiny", "description": "reference, 1-byte parameter buffer",
    "models": {"param_buffer": {"impl": "fixed", "capacity": 1}}})";
  const Advice a = run_advice(t, (t.dir / "tiny.json").string());
  const Finding& f = finding(a, "param-buffer-flush");
  EXPECT_EQ(f.id, "param-buffer-flush:f0.scene");
  EXPECT_FALSE(f.priced);
  EXPECT_EQ(f.note, "the flushes store 16384 B and reload 16384 B in frame 0");
}

TEST(Advise, GBufferOverTheTileBudgetNarrowed) {
  // mali-g76 (tiling=mali_budget, 256 bit/px): four transient RGBA16F colors (4 x 64) and the RGBA8
  // swapchain (32) hold 288 bit/px, so the 16x16 tile halves to 16x8: 32 tiles instead of 16. As RGB10A2
  // (4 x 32 + 32 = 160 bit/px) the tile stays 16x16. The one full-screen triangle (no varyings: a
  // 3 x 16 = 48 B record) is listed in 16 fewer tiles: 16 x 4 B of list writes and 16 x (4 + 48) B of
  // list reads, 64 + 832 = 896 B saved (tile_list, nominal and physical alike).
  json images = json::array({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})});
  json atts = {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}}};
  for (int i = 0; i < 4; ++i) {
    const std::string name = "g" + std::to_string(i);
    images.push_back(image(name, "RGBA16F", {"color_attachment"}, {{"transient", true}}));
    atts.push_back({{"image", name}, {"load", "clear"}, {"store", "dont_care"}});
  }
  const TempTrace t(trace_of(images, {pass("scene", atts, {{{"color", {0, 1, 2, 3, 4}}, {"draws", {draw("full")}}}})}));
  const Advice a = run_advice(t, "mali-g76");
  const Finding& f = finding(a, "narrow-gbuffer");
  EXPECT_EQ(f.id, "narrow-gbuffer:f0.scene");
  EXPECT_EQ(f.edit.size(), 4u);
  EXPECT_EQ(saved(a, f, DramCategory::tile_list, true), 896);
  EXPECT_EQ(saved_total(a, f, true), 896);
  EXPECT_EQ(saved_total(a, f, false), 896);
  expect_same_images(t, f, "f0/swapchain", "mali-g76");  // the presented image keeps its pixels
}

// ---- verdicts: only the fixes that save are recommended ----------------------------------------

// "+30,752": the text report's grouping, to find the JSON's figures in it.
std::string with_sign_and_commas(int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  for (size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, ",");
  return digits.insert(0, v < 0 ? "-" : v > 0 ? "+" : "");
}
std::string fixed_2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

TEST(AdviseVerdict, LoadToClearThatCostsIsNeverListedAsASaving) {
  // mali-g76 (AFBC, transaction elimination, empty-tile elimination) at 2400x1080, one frame: a forward
  // pass LOADs the swapchain, acquired from UNDEFINED, draws a panel over pixels 8..1111 x 8..599 and
  // stores it. The panel touches tile columns 0..69 and rows 0..37 of the 150 x 68 16x16 tiles: 2660
  // tiles; the other 7540 are empty. LOAD + STORE: empty-tile elimination skips both the load and the
  // store of those 7540 (models/README.md "empty_tile"); the 2660 drawn tiles load the image's initial
  // contents, solid zeros, each AFBC superblock its 16 B header (traces/savers/README.md): 2660 x 16 =
  // 42,560 B. LOAD -> CLEAR drops those loads, but a cleared attachment is stored in every tile, the 7540
  // empty ones as solid blocks too: 7540 x 16 = 120,640 B more. Net: 120,640 - 42,560 = +78,080 B/frame,
  // a cost, although the nominal ledger (whole loads) drops 2400 x 1080 x 4 = 10,368,000 B.
  const double x0 = 8 / 1200.0 - 1, x1 = 1112 / 1200.0 - 1, y0 = 8 / 540.0 - 1, y1 = 600 / 540.0 - 1;
  json trace = trace_of({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}, {"width", 2400}, {"height", 1080}})},
                        {pass("forward", {{{"image", "swapchain"}, {"load", "load"}, {"store", "store"}, {"old_layout", "undefined"}, {"new_layout", "present"}}},
                              {{{"color", {0}}, {"draws", {draw("panel", {0.2, 0.4, 0.8, 1})}}}})});
  trace["meshes"].push_back({{"name", "panel"}, {"position_components", 4},
                             {"positions", {x0, y0, 0.5, 1, x1, y0, 0.5, 1, x0, y1, 0.5, 1, x1, y0, 0.5, 1, x1, y1, 0.5, 1, x0, y1, 0.5, 1}}});
  const TempTrace t(trace);
  const Advice a = run_advice(t, "mali-g76");
  const Finding& f = finding(a, "load-clear");
  EXPECT_EQ(f.verdict, Verdict::costs);
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, false), 42560);
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, false), -120640);
  EXPECT_EQ(saved_total(a, f, false), -78080);
  EXPECT_EQ(saved_total(a, f, true), 10368000);
  // Without --all: not listed, counted as not worth it. With --all: in its own section, as a cost.
  const std::string text = advice_text(a), all = advice_text(a, true);
  EXPECT_EQ(text.find("load-clear:"), std::string::npos) << text;
  EXPECT_NE(text.find("; 0 findings; 1 not worth it (1 cost, 0 change nothing; --all lists them)"), std::string::npos) << text;
  const size_t section = all.find("\nnot worth it:\nload-clear:f0.forward.a0 ");
  ASSERT_NE(section, std::string::npos) << all;
  const json listed = advice_json(a), every = advice_json(a, true);
  EXPECT_TRUE(listed["findings"].empty());
  EXPECT_FALSE(listed.contains("not_worth_it"));
  EXPECT_EQ(listed["not_worth_it_counts"], json({{"costs", 1}, {"no_change", 0}}));
  ASSERT_EQ(every["not_worth_it"].size(), 1u);
  EXPECT_EQ(every["not_worth_it"][0]["verdict"], "costs");
  const json& net = every["not_worth_it"][0]["net"];
  EXPECT_EQ(net["dram"]["bytes"], 78080);
  EXPECT_EQ(net["dram"]["by_category"]["attachment_load"]["read_bytes"], -42560);
  EXPECT_EQ(net["dram"]["by_category"]["attachment_store"]["write_bytes"], 120640);
  EXPECT_EQ(net["dram_nominal"]["bytes"], -10368000);
  // The text prints the JSON's figures: 78,080 B x 60 fps = 4.68 MB/s, and the cycles the fix adds.
  EXPECT_GT(net["cycles"].get<int64_t>(), 0);
  const std::string line = "costs: net +78,080 B/frame (+4.68 MB/s, +" + fixed_2(100 * net["dram_fraction"].get<double>()) +
                           "% of the frame's traffic), nominal -10,368,000 B, " +
                           with_sign_and_commas(net["cycles"].get<int64_t>()) + " cycles";
  EXPECT_NE(all.find(line, section), std::string::npos) << line << "\n" << all;
}

// mali-g76: `depth` (D32F), `ms` (RGBA8, 4 samples) and `gb` (RGBA8), each stored by its own pass from
// UNDEFINED and left shader_read_only, `frames` frames; `ms` and `gb` also carry an unused STORAGE usage.
json layouts_trace(int frames) {
  const json keep = {{"load", "clear"}, {"store", "store"}, {"old_layout", "undefined"}, {"new_layout", "shader_read_only"}};
  auto att = [&](const std::string& image) {
    json a = keep;
    a["image"] = image;
    return a;
  };
  return trace_of({image("depth", "D32F", {"depth_stencil_attachment", "sampled"}),
                   image("ms", "RGBA8", {"color_attachment", "sampled", "storage"}, {{"samples", 4}}),
                   image("gb", "RGBA8", {"color_attachment", "sampled", "storage"})},
                  {pass("depth_pass", {att("depth")}, {{{"depth", 0}, {"draws", {draw("full", {1, 0, 0, 1}, {{"depth_test", true}, {"depth_write", true}})}}}}),
                   pass("ms_pass", {att("ms")}, {{{"color", {0}}, {"draws", {draw("full")}}}}),
                   pass("gb_pass", {att("gb")}, {{{"color", {0}}, {"draws", {draw("full")}}}})},
                  frames);
}
std::set<std::string> ids_of(const std::vector<Finding>& findings, const std::string& rule) {
  std::set<std::string> out;
  for (const Finding& f : findings)
    if (f.rule == rule) out.insert(f.id);
  return out;
}

TEST(AdviseVerdict, NoFindingWhereTheSaverCanNeverApply) {
  // Transaction elimination checks only single-sample, single-level color attachments that are not
  // transient (models/write_elim/te.cpp): neither the D32F depth nor the 4x color, so keeping their
  // layouts can never save; AFBC skips multisampled images (models/compression/afbc.cpp), so dropping
  // STORAGE from `ms` cannot either. Only `gb` gets both findings. Without the models (find_all alone)
  // eligibility is unknown and every image is proposed: the models are what leaves the two out.
  const TempTrace t(layouts_trace(2));
  const Advice a = run_advice(t, "mali-g76");
  EXPECT_EQ(ids_of(a.findings, "keep-layout"), std::set<std::string>{"keep-layout:f0.gb_pass.a0"});
  EXPECT_EQ(ids_of(a.findings, "no-storage"), std::set<std::string>{"no-storage:gb"});
  const std::vector<Finding> unknown = find_all(layouts_trace(2), RunStats{});
  EXPECT_EQ(ids_of(unknown, "keep-layout").size(), 3u);
  EXPECT_EQ(ids_of(unknown, "no-storage").size(), 2u);
  // gb's kept signatures let frame 1's blocks match frame 0's: a saving.
  EXPECT_EQ(finding(a, "keep-layout").verdict, Verdict::saves);
}

TEST(AdviseVerdict, FindingsThatChangeNothingOnlyWithAll) {
  // One frame: transaction elimination checks gb, but nothing was stored before it in the run to match,
  // so keeping its layout changes no byte, cycle or fragment: "no change", left out without --all.
  const TempTrace t(layouts_trace(1));
  const Advice a = run_advice(t, "mali-g76");
  const Finding& f = finding(a, "keep-layout");
  EXPECT_EQ(f.verdict, Verdict::no_change);
  EXPECT_EQ(advice_text(a).find("keep-layout:"), std::string::npos) << advice_text(a);
  const std::string all = advice_text(a, true);
  const size_t section = all.find("\nnot worth it:\n");
  ASSERT_NE(section, std::string::npos) << all;
  EXPECT_NE(all.find("keep-layout:f0.gb_pass.a0 ", section), std::string::npos) << all;
  EXPECT_NE(all.find("no change: net 0 B/frame (0.00 MB/s, 0.00% of the frame's traffic), nominal 0 B, 0 cycles", section),
            std::string::npos) << all;
  const json listed_json = advice_json(a), every_json = advice_json(a, true);
  for (const json& g : listed_json["findings"]) EXPECT_NE(g["rule"], "keep-layout") << g["id"];
  bool listed = false;
  for (const json& g : every_json["not_worth_it"])
    listed |= g["id"] == "keep-layout:f0.gb_pass.a0" && g["verdict"] == "no_change" && g["net"]["dram"]["bytes"] == 0;
  EXPECT_TRUE(listed);
}

TEST(Advise, BadApplyIdIsInputError) {
  const TempTrace t(trace_of({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}})},
                             {pass("scene", {{{"image", "swapchain"}, {"load", "clear"}, {"new_layout", "present"}}},
                                   {{{"color", {0}}, {"draws", {draw("full")}}}})}));
  const Advice a = run_advice(t);
  EXPECT_THROW(select(a, {"no-such-rule"}), InputError);
  // A known rule none of whose findings saves would write the trace unchanged under a new name.
  EXPECT_THROW(select(a, {"store-dont-care"}), InputError);
}

}  // namespace
}  // namespace tbdr::advise

namespace tbdr::advise {
namespace {



const Finding& by_id(const std::vector<Finding>& findings, const std::string& id) {
  for (const Finding& f : findings)
    if (f.id == id) return f;
  throw std::runtime_error("no finding " + id);
}

uint64_t bill(const FrameFigures& f) {  // the bandwidth-bill article's ledger: loads, stores, sampled reads
  const DramLedger& l = f.dram_nominal;
  return l[DramCategory::attachment_load].read_bytes + l[DramCategory::attachment_store].write_bytes +
         l[DramCategory::image_sample].read_bytes;
}

TEST(AdviseSeed002, StructuralChangesReproduceTheArticlesSteps) {
  // traces/seed002/README.md: baseline 504,233,344 B; #1 + #2 403,145,344 B (384.4694 MiB); #3 saves
  // 1F = 20,217,600 B (FXAA stores into `final`, the copy pass's read and store go).
  const fs::path dir = fs::path(TBDR_SOURCE_DIR) / "traces/seed002";
  const json baseline = read_json(dir / "forward_baseline.json");
  const std::vector<Finding> round1 = find_all(baseline, RunStats{});
  const Finding& direct = by_id(round1, "composite-layer:f0.transparency_alpha.a0+composite_premultiplied");
  const Finding& fxaa = by_id(round1, "copy-pass:f0.fxaa.a0+final_composition");
  const json blended = apply_edits(baseline, {&direct});
  // #2 appears once the glass blends into hdr_mixed: the glass pass and the crowd share one render pass.
  const std::vector<Finding> round2 = find_all(blended, RunStats{});
  const Finding& scope = by_id(round2, "merge-passes:f0.transparency_alpha+crowd_proxy");
  const json shared = apply_edits(blended, {&scope});
  EXPECT_EQ(bill(price(shared, dir, "reference", 2)), 403145344u);
  const std::vector<Finding> round3 = find_all(shared, RunStats{});
  const json final_target = apply_edits(shared, {&by_id(round3, fxaa.id)});
  EXPECT_EQ(bill(price(final_target, dir, "reference", 2)), 403145344u - 20217600u);
}

// The Vulkan-Samples cases (traces/validation): each "before" trace has the finding that turns it into its "after".
TEST(AdviseValidation, FindsTheSamplesFixes) {
  const fs::path dir = fs::path(TBDR_SOURCE_DIR) / "traces/validation";
  auto ids = [&](const std::string& name) {
    std::set<std::string> out;
    for (const Finding& f : find_all(read_json(dir / (name + ".json")), RunStats{})) out.insert(f.id);
    return out;
  };
  EXPECT_TRUE(ids("render_passes_color_load").count("load-clear:f0.scene.a0"));
  EXPECT_TRUE(ids("render_passes_depth_store").count("store-dont-care:f0.scene.a1"));
  EXPECT_TRUE(ids("msaa_4x_separate").count("inline-resolve:f0.scene.a0"));
  EXPECT_TRUE(ids("afbc_off").count("no-storage:swapchain"));
  EXPECT_TRUE(ids("subpasses_render_passes").count("merge-passes:f0.gbuffer+lighting"));
  const std::set<std::string> layouts = ids("layout_transitions_undefined");
  EXPECT_TRUE(layouts.count("keep-layout:f0.acquire.albedo")) << layouts.size();
}

}  // namespace
}  // namespace tbdr::advise

namespace tbdr::advise {
namespace {

// The presented swapchain and a stored D32F depth nothing reads: one finding, store-dont-care:f0.scene.a1.
json unread_depth_trace() {
  return trace_of({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}),
                   image("depth", "D32F", {"depth_stencil_attachment"})},
                  {pass("scene",
                        {{{"image", "swapchain"}, {"load", "clear"}, {"new_layout", "present"}},
                         {{"image", "depth"}, {"load", "clear"}, {"store", "store"}}},
                        {{{"color", {0}}, {"depth", 1}, {"draws", {draw("full")}}}})});
}

TEST(AdviseCli, BadInputIsOneLineExit2AndNothingWritten) {
  const TempTrace t(unread_depth_trace());
  const auto one_line = [](const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; };
  Cli r = advise_cli(t.dir, "t.json --apply no-such-id -o out.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_line(r.err) && r.err.find("no-such-id") != std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(t.dir / "out.json"));
  r = advise_cli(t.dir, "t.json --apply store-dont-care -o t.json");  // the output is the input
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_line(r.err) && r.err.find("t.json") != std::string::npos) << r.err;
  r = advise_cli(t.dir, "t.json --json t.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  std::ofstream(t.dir / "bad.json") << R"({"format": "tbdrsim-trace", "version": 1, "images": [], "frames": []})";
  r = advise_cli(t.dir, "bad.json --json advice.json");  // refused by the reader: nothing written
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_line(r.err) && r.err.find("bad.json") != std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(t.dir / "advice.json"));
  // A good run: the edited trace and the JSON are written, the edited trace reads back.
  r = advise_cli(t.dir, "t.json --json advice.json --apply store-dont-care -o edited.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json advice = read_json(t.dir / "advice.json");
  EXPECT_EQ(advice["schema_version"], 2);
  EXPECT_EQ(advice["findings"][0]["id"], "store-dont-care:f0.scene.a1");
  EXPECT_EQ(advice["findings"][0]["verdict"], "saves");
  EXPECT_EQ(advice["findings"][0]["net"]["dram_nominal"]["write_bytes"], -int64_t(kImage));
  EXPECT_EQ(read_json(t.dir / "edited.json")["frames"][0]["passes"][0]["attachments"][1]["store"], "dont_care");
}

TEST(AdviseCli, ApplyOfAnIdNoFindingHasIsOneLineExit2AndNothingWritten) {
  // A finding id of a known rule at an attachment the pass lacks, a draw the subpass lacks, a rule with no finding here,
  // and a good id next to a bad one: each refused by name, before anything is written.
  const TempTrace t(unread_depth_trace());
  for (const std::string& bad : {"store-dont-care:f0.scene.a7", "opaque-blend:f0.scene.s0.d9", "load-clear"}) {
    for (const std::string& apply : {bad, "store-dont-care:f0.scene.a1 " + bad}) {
      const Cli r = advise_cli(t.dir, "t.json --json advice.json --apply " + apply + " -o out.json");
      EXPECT_EQ(r.exit_code, 2) << apply << ": " << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_NE(r.err.find("--apply " + bad + ":"), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(t.dir / "out.json")) << apply;
      EXPECT_FALSE(fs::exists(t.dir / "advice.json")) << apply;
    }
  }
  ASSERT_EQ(advise_cli(t.dir, "t.json --apply store-dont-care:f0.scene.a1 -o out.json").exit_code, 0);
  EXPECT_TRUE(fs::exists(t.dir / "out.json"));
}

// An edited trace that names files (the bundled scene's scene.bin, checker.png: names relative to
// the trace's folder, which files must lie inside) written into another folder could not find them:
// refused by name before anything is simulated, nothing written; into the trace's folder it runs.
TEST(AdviseCli, ApplyIntoAnotherFolderIsRefusedWhenTheTraceNamesFiles) {
  const fs::path dir = fs::path(TBDR_BINARY_DIR) / "test-scratch/advise_apply_elsewhere";
  fs::remove_all(dir);
  fs::create_directories(dir / "fixed");
  fs::copy(fs::path(TBDR_SOURCE_DIR) / "traces/default", dir / "scene");
  const std::string args = "scene/scene.json --preset mali-g710 --apply keep-layout:f0.forward.a0 -o ";
  Cli r = advise_cli(dir, args + "fixed/scene.json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("-o fixed/scene.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scene.bin"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "fixed/scene.json"));
  r = advise_cli(dir, args + "scene/fixed.json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string cmd = "'" + TBDR_BINARY_DIR + "/tbdrsim' run '" + (dir / "scene/fixed.json").string() +
                          "' --no-images --quiet";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
}  // namespace tbdr::advise

namespace tbdr::advise {
namespace {

// A full-screen triangle at depth z (clip space, w = 1).
json full_at(const std::string& name, double z) {
  return {{"name", name}, {"position_components", 4}, {"positions", {-1, -1, z, 1, 3, -1, z, 1, -1, 3, z, 1}}};
}
const json kDepthTest = {{"depth_test", true}, {"depth_write", true}};

uint64_t shaded_saved(const Advice& a, const Finding& f) { return a.before.fragments_shaded - f.after.fragments_shaded; }

// The presented swapchain and a transient D32F depth, one subpass of `draws`, and the extra meshes.
json depth_scene(std::vector<json> draws, const std::vector<json>& extra_meshes) {
  json tr = trace_of({image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}),
                      image("depth", "D32F", {"depth_stencil_attachment"}, {{"transient", true}})},
                     {pass("scene",
                           {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}},
                            {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"}}},
                           {{{"color", {0}}, {"depth", 1}, {"draws", draws}}})});
  for (const json& m : extra_meshes) tr["meshes"].push_back(m);
  return tr;
}

TEST(AdviseHsr, BackToFrontDrawsReorderedUnderDrawOrderHsr) {
  // Two opaque full-screen draws, depth-tested, the far one (z 0.75, red) first, then the near one
  // (z 0.25, blue): 4096 + 4096 = 8192 fragments shaded under early_z (the near one passes too) and
  // under fpk (a 16x16 tile issues 256 fragments between the two at a pixel, over its 64-fragment
  // window). Nearest first: the far draw fails the early depth test everywhere, 4096 shaded: 4096
  // saved, no byte. Under none (every fragment shaded) and deferred (only the visible one) the order
  // changes nothing: no finding.
  const TempTrace t(depth_scene({draw("far", {1, 0, 0, 1}, kDepthTest), draw("near", {0, 0, 1, 1}, kDepthTest)},
                                {full_at("far", 0.75), full_at("near", 0.25)}));
  for (const char* preset : {"mali-g76", "adreno-a740"}) {
    const Advice a = run_advice(t, preset);
    const Finding& f = finding(a, "front-to-back");
    EXPECT_EQ(f.id, "front-to-back:f0.scene.s0") << preset;
    EXPECT_EQ(a.before.fragments_shaded, 8192u) << preset;
    EXPECT_EQ(shaded_saved(a, f), 4096u) << preset;
    EXPECT_EQ(f.verdict, Verdict::saves) << preset;  // by cycles, else by the fragments shaded
    EXPECT_GE(a.before.cycles, f.after.cycles) << preset;  // adreno-a740's frame time is bound elsewhere
    if (std::string(preset) == "mali-g76") {
      EXPECT_GT(a.before.cycles, f.after.cycles);
    }
    EXPECT_EQ(saved_total(a, f, true), 0) << preset;
    EXPECT_FALSE(f.changes_images);
    expect_same_images(t, f, "f0/swapchain", preset);
  }
  for (const char* preset : {"reference", "powervr"})
    EXPECT_THROW(finding(run_advice(t, preset), "front-to-back"), std::runtime_error) << preset;
}

TEST(AdviseHsr, BlendingOffOnOpaqueDraws) {
  // powervr (deferred HSR). A full-screen red draw at depth 0.5, then a full-screen blue `flat` draw
  // (alpha 1) at 0.25, both depth-tested and writing depth, the blue one blended src_alpha /
  // one_minus_src_alpha: blending, it cannot occlude, so the red fragment waiting at each pixel is
  // shaded before it: 8192 fragments. Blending off, the blue draw kills the red one: 4096 shaded,
  // 4096 saved; 1 x blue + 0 x red = blue either way, the same pixels, no byte.
  json blend = {{"blend", {{{"enable", true}, {"src_color", "src_alpha"}, {"dst_color", "one_minus_src_alpha"},
                            {"src_alpha", "one"}, {"dst_alpha", "one_minus_src_alpha"}}}}};
  blend.update(kDepthTest);
  auto make = [&](const json& state) {
    return depth_scene({draw("full", {1, 0, 0, 1}, kDepthTest), draw("near", {0, 0, 1, 1}, state)}, {full_at("near", 0.25)});
  };
  const TempTrace t(make(blend));
  const Advice a = run_advice(t, "powervr");
  const Finding& f = finding(a, "opaque-blend");
  EXPECT_EQ(f.id, "opaque-blend:f0.scene.s0.d1");
  EXPECT_FALSE(f.changes_images);
  EXPECT_EQ(a.before.fragments_shaded, 8192u);
  EXPECT_EQ(shaded_saved(a, f), 4096u);
  EXPECT_EQ(saved_total(a, f, true), 0);
  expect_same_images(t, f, "f0/swapchain", "powervr");
  // Additive (one, one) reads the destination even at alpha 1: the fix changes pixels, and says so.
  json additive = blend;
  additive["blend"][0]["dst_color"] = "one";
  const TempTrace t2(make(additive));
  EXPECT_TRUE(finding(run_advice(t2, "powervr"), "opaque-blend").changes_images);
}

TEST(AdviseGles, MissingInvalidateBeforeAFramebufferSwitch) {
  // An OpenGL ES-style trace (tools/rdc2trace's `inferred`): `offscreen` renders an FBO's color and
  // D32F depth; event 12 (glBindFramebuffer of the window surface) ends it and both are written back
  // for want of a glInvalidateFramebuffer. `main` samples the color, so only the depth store is waste:
  // 64 x 64 x 4 = 16384 B of attachment_store. The window surface's depth store was already dropped at
  // the swap (event 20): no finding, nor a store-dont-care one for the GL depth.
  const std::string back = " ends the pass; the attachment is written back";
  const json copy = {{"mesh", "full"}, {"transform", {{"clip_space", true}}}, {"name", "event_15"},
                     {"program", {{"name", "copy"}, {"bindings", {{"source", {{"image", "fbo_color"}}}}}}}};
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}), image("fbo_color", "RGBA8", {"color_attachment", "sampled"}),
       image("fbo_depth", "D32F", {"depth_stencil_attachment"}), image("depth", "D32F", {"depth_stencil_attachment"})},
      {pass("offscreen",
            {{{"image", "fbo_color"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "shader_read_only"},
              {"inferred", {{"load", "event 5 glClear of the whole attachment (scissor off, full write mask) begins the pass"},
                            {"store", "event 12 binds another framebuffer" + back}}}},
             {{"image", "fbo_depth"}, {"load", "clear"}, {"store", "store"},
              {"inferred", {{"load", "event 5 glClear of the whole attachment (scissor off, full write mask) begins the pass"},
                            {"store", "event 12 binds another framebuffer" + back}}}}},
            {{{"color", {0}}, {"depth", 1}, {"draws", {draw("full", {1, 0, 0, 1}, kDepthTest)}}}}),
       pass("main",
            {{{"image", "swapchain"}, {"load", "dont_care"}, {"store", "store"}, {"new_layout", "present"},
              {"inferred", {{"store", "event 20 eglSwapBuffers" + back}}}},
             {{"image", "depth"}, {"load", "clear"}, {"store", "dont_care"},
              {"inferred", {{"store", "event 20 eglSwapBuffers: the driver discards the window surface's depth and stencil at the swap"}}}}},
            {{{"color", {0}}, {"depth", 1}, {"draws", {copy}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "gl-invalidate");
  EXPECT_EQ(f.id, "gl-invalidate:f0.offscreen");
  EXPECT_EQ(f.where.event, "12");
  EXPECT_EQ(f.fix, "before event 12: glInvalidateFramebuffer(GL_FRAMEBUFFER, 1, {GL_DEPTH_ATTACHMENT})");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, true), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, true), int64_t(kImage));
  EXPECT_EQ(std::count_if(a.findings.begin(), a.findings.end(), [](const Finding& g) { return g.rule == "gl-invalidate"; }), 1);
  EXPECT_THROW(finding(a, "store-dont-care"), std::runtime_error);
  expect_same_images(t, f, "f0/swapchain");
}

TEST(AdviseGles, FramebufferBoundAgainBecomesOneRenderPass) {
  // reference. OpenGL ES order: `main1` draws into the window surface and stores it, `offscreen`
  // renders `overlay`, `main2` loads the surface again and draws a corner sampling `overlay`.
  // `offscreen` names none of main1's images: run it first, then main1 and main2 as one render pass.
  // The surface's store by main1 and load by main2 go: 64 x 64 x 4 = 16,384 B each, 32,768 B saved;
  // every draw and sampled texel stays (the tile buffer carries what the store and load carried).
  json corner_copy = draw("corner");
  corner_copy["program"] = {{"name", "copy"}, {"bindings", {{"source", {{"image", "overlay"}}}}}};
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}), image("overlay", "RGBA8", {"color_attachment", "sampled"})},
      {pass("main1", {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}}}, {{{"color", {0}}, {"draws", {draw("full")}}}}),
       pass("offscreen", {{{"image", "overlay"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "shader_read_only"}}},
            {{{"color", {0}}, {"draws", {draw("full", {0, 0, 1, 1})}}}}),
       pass("main2", {{{"image", "swapchain"}, {"load", "load"}, {"store", "store"}, {"new_layout", "present"}}},
            {{{"color", {0}}, {"draws", {corner_copy}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "reorder-passes");
  EXPECT_EQ(f.id, "reorder-passes:f0.main1+main2");
  EXPECT_EQ(f.verdict, Verdict::saves);
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, false), int64_t(kImage));
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, false), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, false), 2 * int64_t(kImage));
  expect_same_images(t, f, "f0/swapchain");
  const json passes = apply_edits(read_json(t.file), {&f})["frames"][0]["passes"];
  EXPECT_EQ(passes[0]["name"], "offscreen");
  EXPECT_EQ(passes[1]["subpasses"][0]["draws"].size(), 2u);
  EXPECT_EQ(passes[2]["type"], "barrier");
  ASSERT_EQ(advise_cli(t.dir, "t.json --apply reorder-passes -o edited.json").exit_code, 0);
  const Traffic before = a.before.dram.total(), after = price(read_json(t.dir / "edited.json"), t.dir, "reference", 1).dram.total();
  EXPECT_EQ(before.read_bytes + before.write_bytes - (after.read_bytes + after.write_bytes), 2 * kImage);
  // Where the middle pass samples what the first stored, the order stays.
  json dependent = read_json(t.file);
  dependent["frames"][0]["passes"][1]["subpasses"][0]["draws"][0] = corner_copy;
  dependent["frames"][0]["passes"][1]["subpasses"][0]["draws"][0]["program"]["bindings"]["source"]["image"] = "swapchain";
  dependent["images"][0]["usage"].push_back("sampled");
  EXPECT_THROW(finding(run_advice(TempTrace(dependent)), "reorder-passes"), std::runtime_error);
}

TEST(AdviseMerge, DepthAttachmentDiffersFixedBySharingTheDepth) {
  // reference (merge=arm). Subpass 0 draws with depth `d0`, subpass 1 with its own `d1`, both cleared
  // to 1 and not stored: "depth attachment differs", two hardware passes, so the swapchain color is
  // stored after the first (16384 B) and loaded by the second (16384 B). Subpass 1 on d0, cleared to
  // 1 before its first draw: one hardware pass, 32768 B saved, the same depth test and pixels.
  const TempTrace t(trace_of(
      {image("swapchain", "RGBA8", {"color_attachment"}, {{"swapchain", 2}}), image("d0", "D32F", {"depth_stencil_attachment"}),
       image("d1", "D32F", {"depth_stencil_attachment"})},
      {pass("scene",
            {{{"image", "swapchain"}, {"load", "clear"}, {"store", "store"}, {"new_layout", "present"}},
             {{"image", "d0"}, {"load", "clear"}, {"store", "dont_care"}},
             {{"image", "d1"}, {"load", "clear"}, {"store", "dont_care"}}},
            {{{"color", {0}}, {"depth", 1}, {"draws", {draw("full", {1, 0, 0, 1}, kDepthTest)}}},
             {{"color", {0}}, {"depth", 2}, {"draws", {draw("corner", {0, 0, 1, 1}, kDepthTest)}}}})}));
  const Advice a = run_advice(t);
  const Finding& f = finding(a, "merge-fix");
  EXPECT_EQ(f.id, "merge-fix:f0.scene.a2.s1");
  EXPECT_EQ(f.note, "the merge model merges the subpasses");
  EXPECT_EQ(saved(a, f, DramCategory::attachment_store, true), int64_t(kImage));
  EXPECT_EQ(saved(a, f, DramCategory::attachment_load, true), int64_t(kImage));
  EXPECT_EQ(saved_total(a, f, true), 2 * int64_t(kImage));
  expect_same_images(t, f, "f0/swapchain");
}

}  // namespace
}  // namespace tbdr::advise
