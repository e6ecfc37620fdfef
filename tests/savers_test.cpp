// Bandwidth savers: AFBC sizes from the pixels, transaction elimination across frames
// (plain images and a swapchain in rotation), empty-tile elimination, their independence of the
// tile size, their eligibility reasons, and that no saver changes a single pixel. Byte counts are
// derived in the comments from models/README.md (compression, write_elim, empty_tile) and the
// ledger rules of traces/README.md.
//
// Shapes used throughout: AFBC and TE work on the image's own 16x16 blocks. A W x H RGBA8 image
// has ceil(W/16) x ceil(H/16) superblocks; 1920x1080: 120 x 68 = 8160 (1080 = 67.5 x 16, the last
// row half inside the image), so its headers alone are 8160 x 16 B = 130,560 B and its
// uncompressed pixels 1920 x 1080 x 4 = 8,294,400 B.
#include "sim/savers.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "sim/stats.h"
#include "sim/surface.h"
#include "tests/configured_models.h"
#include "tests/stored_images.h"

namespace fs = std::filesystem;

namespace tbdr {
namespace {

constexpr uint64_t kHeaders1080p = 120 * 68 * 16;      // 130,560 B
constexpr uint64_t kPixels1080p = 1920ull * 1080 * 4;  // 8,294,400 B

struct Result {
  RunStats stats;
  StoredImages stored;
  const PassStats& pass(size_t frame = 0, size_t index = 0) const { return stats.frames.at(frame).passes.at(index); }
  const AttachmentStats& attachment(size_t frame, size_t pass_index, size_t attachment) const {
    return pass(frame, pass_index).attachments.at(attachment);
  }
};

// A preset plus --set assignments, e.g. {"compression=afbc"}.
Result run(const Trace& trace, const std::vector<std::string>& assignments = {},
           const std::string& preset = "reference") {
  const models::ModelSet models = configured_models(preset, assignments);
  Result r;
  r.stats = simulate(trace, models, SimOptions{}, &r.stored);
  return r;
}

Trace saver_trace(const std::string& name) {
  return read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/savers" / (name + ".json"));
}

// ---- trace building ---------------------------------------------------------------------------

int32_t add_image(Trace& trace, const std::string& name, Format format, uint32_t width, uint32_t height,
                  uint32_t usage = kUsageColorAttachment | kUsageTransferSrc) {
  ImageDesc d;
  d.name = name;
  d.format = format;
  d.width = width;
  d.height = height;
  d.usage = usage;
  trace.images.push_back(std::move(d));
  return int32_t(trace.images.size() - 1);
}

// Uniform random RGBA8 codes (every channel 0..255 with the same probability), fixed seed.
ImageContents noise_contents(uint32_t width, uint32_t height, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  ImageContents c;
  c.source = "noise";
  c.pixels.resize(size_t(width) * height);
  for (Vec4& p : c.pixels)
    for (int i = 0; i < 4; ++i) p[i] = float(byte(rng)) / 255.0f;
  return c;
}

// A triangle given by pixel corners, as clip-space positions (w = 1) over a W x H framebuffer.
int32_t add_triangle(Trace& trace, uint32_t width, uint32_t height, std::vector<std::pair<double, double>> corners) {
  Mesh m;
  m.name = "triangle" + std::to_string(trace.meshes.size());
  m.position_components = 4;
  for (auto [px, py] : corners)
    m.positions.push_back(Vec4(float(2.0 * px / width - 1.0), float(2.0 * py / height - 1.0), 0.5f, 1.0f));
  trace.meshes.push_back(std::move(m));
  return int32_t(trace.meshes.size() - 1);
}

Draw flat_draw(int32_t mesh, std::vector<float> color) {
  Draw d;
  d.mesh = mesh;
  d.transform.clip_space = true;
  d.program.params["color"] = std::move(color);
  return d;
}

Attachment attachment(int32_t image, LoadOp load, StoreOp store, Layout old_layout = Layout::undefined,
                      Layout new_layout = Layout::general) {
  Attachment a;
  a.image = image;
  a.load = load;
  a.store = store;
  a.clear.color = Vec4(0.2f, 0.4f, 0.6f, 1.0f);
  a.old_layout = old_layout;
  a.new_layout = new_layout;
  return a;
}

Pass render_pass(const std::string& name, std::vector<Attachment> attachments, std::vector<int32_t> color,
                 std::vector<Draw> draws = {}) {
  Pass p;
  p.name = name;
  p.attachments = std::move(attachments);
  Subpass s;
  s.color = std::move(color);
  s.draws = std::move(draws);
  p.subpasses.push_back(std::move(s));
  return p;
}

Frame frame_of(Pass pass) {
  Frame f;
  f.passes.push_back(std::move(pass));
  return f;
}

// ---- AFBC ---------------------------------------------------------------------------------------

// CLEAR + STORE, no draws: every superblock is one color, so each costs its 16 B header alone.
TEST(SaversAfbc, SolidColorImageIsHeadersOnly) {
  Trace trace;
  const int32_t image = add_image(trace, "color", Format::RGBA8, 1920, 1080);
  trace.frames.push_back(frame_of(render_pass("clear", {attachment(image, LoadOp::clear, StoreOp::store)}, {0})));
  const Result r = run(trace, {"compression=afbc"});
  const AttachmentStats& a = r.attachment(0, 0, 0);
  EXPECT_TRUE(a.compressed);
  EXPECT_EQ(a.compression, "compressed");
  EXPECT_EQ(a.store_raw_bytes, kPixels1080p);
  EXPECT_EQ(a.store_bytes, kHeaders1080p);  // 120 x 68 x 16 = 130,560
  EXPECT_EQ(kHeaders1080p, 130560u);
  EXPECT_EQ(r.pass().dram[DramCategory::attachment_store].write_bytes, kHeaders1080p);
  EXPECT_EQ(r.pass().dram_nominal[DramCategory::attachment_store].write_bytes, kPixels1080p);
  // compression=none: the raw bytes, and the reason it is not compressed.
  const Result off = run(trace);
  EXPECT_FALSE(off.attachment(0, 0, 0).compressed);
  EXPECT_EQ(off.attachment(0, 0, 0).compression, "compression=none");
  EXPECT_EQ(off.attachment(0, 0, 0).store_bytes, kPixels1080p);
  EXPECT_EQ(off.pass().dram[DramCategory::attachment_store].write_bytes, kPixels1080p);
}

// LOAD + STORE of uniform noise, no draws. Per 4x4 subblock and channel the model's payload is 8
// base bits + 16 pixels x bits(max - min); noise spans a range >= 128 in (almost) every channel of
// every subblock: 4 x (8 + 16 x 8) = 544 bits = 68 B > the 64 B uncompressed subblock, so every
// subblock falls back to uncompressed: 8,294,400 B of payload (the half superblocks of the last
// row included, only their pixels inside the image) + 130,560 B of headers = 8,424,960 B.
// (Under 64 B a subblock's offsets must save more than 32 bits, e.g. three channels within a
// range of 127 or one within 31: for this seed no subblock does.) The load is sized the same way.
TEST(SaversAfbc, UniformNoiseCostsUncompressedPayloadPlusHeaders) {
  Trace trace;
  const int32_t image = add_image(trace, "noise", Format::RGBA8, 1920, 1080);
  trace.images[size_t(image)].contents.push_back(noise_contents(1920, 1080, 5));
  trace.frames.push_back(frame_of(render_pass("load_store", {attachment(image, LoadOp::load, StoreOp::store)}, {0})));
  const Result r = run(trace, {"compression=afbc"});
  const AttachmentStats& a = r.attachment(0, 0, 0);
  EXPECT_EQ(a.store_raw_bytes, kPixels1080p);
  EXPECT_EQ(a.store_bytes, kPixels1080p + kHeaders1080p);
  EXPECT_EQ(a.store_bytes, 8424960u);
  EXPECT_EQ(a.load_raw_bytes, kPixels1080p);
  EXPECT_EQ(a.load_bytes, 8424960u);
  EXPECT_EQ(r.pass().dram[DramCategory::attachment_store].write_bytes, 8424960u);
  EXPECT_EQ(r.pass().dram[DramCategory::attachment_load].read_bytes, 8424960u);
  // The image itself is untouched by the sizing.
  const Result off = run(trace);
  EXPECT_TRUE(
      same_pixels(r.stored.images.at("f0/load_store/att0/noise"), off.stored.images.at("f0/load_store/att0/noise")));
}

// A load is sized from the pixels the image holds before the pass, a store from those after it:
// 256x256 noise loaded (16 x 16 superblocks: 262,144 B of uncompressed payload + 256 x 16 B of
// headers = 266,240 B), covered by one opaque full-screen draw and stored solid (4096 B).
TEST(SaversAfbc, LoadIsSizedFromThePixelsBeforeThePass) {
  Trace trace;
  const int32_t image = add_image(trace, "color", Format::RGBA8, 256, 256);
  trace.images[size_t(image)].contents.push_back(noise_contents(256, 256, 11));
  const int32_t mesh = add_triangle(trace, 256, 256, {{0, 0}, {512, 0}, {0, 512}});
  trace.frames.push_back(frame_of(render_pass("cover", {attachment(image, LoadOp::load, StoreOp::store)}, {0},
                                              {flat_draw(mesh, {0.25f, 0.5f, 0.75f, 1.0f})})));
  // A second frame loads the solid image: header-only superblocks, 4096 B.
  trace.frames.push_back(trace.frames[0]);
  const Result r = run(trace, {"compression=afbc"});
  EXPECT_EQ(r.attachment(0, 0, 0).load_bytes, 256u * 256 * 4 + 256 * 16);
  EXPECT_EQ(r.attachment(0, 0, 0).store_bytes, 256u * 16);
  EXPECT_EQ(r.attachment(1, 0, 0).load_bytes, 256u * 16);
  EXPECT_EQ(r.attachment(1, 0, 0).store_bytes, 256u * 16);
}

// An attachment with `contents` (rdc2trace: the captured program's pixels at the pass end) stores
// those pixels instead of the stand-in program's: the same draw over a solid clear is header-only
// (4096 B) when simulated, and the full noise payload (266,240 B, as above) with noise contents;
// the stored image is the noise, and a second identical frame is a full TE kill of those pixels.
// An attachment that is not stored ignores its contents.
TEST(SaversAfbc, AttachmentContentsReplaceTheSimulatedPixelsOnStore) {
  Trace trace;
  const int32_t image = add_image(trace, "color", Format::RGBA8, 256, 256);
  const int32_t mesh = add_triangle(trace, 256, 256, {{0, 0}, {512, 0}, {0, 512}});
  // old_layout color_attachment keeps the TE signatures across frames (undefined would drop them).
  trace.frames.push_back(
      frame_of(render_pass("cover", {attachment(image, LoadOp::clear, StoreOp::store, Layout::color_attachment)}, {0},
                           {flat_draw(mesh, {0.25f, 0.5f, 0.75f, 1.0f})})));
  const Result simulated = run(trace, {"compression=afbc"});
  EXPECT_EQ(simulated.attachment(0, 0, 0).store_bytes, 256u * 16);
  EXPECT_EQ(simulated.attachment(0, 0, 0).pixels, "simulated");

  ImageContents noise = noise_contents(256, 256, 11);
  noise.captured = true;
  trace.frames[0].passes[0].attachments[0].contents = noise;
  trace.frames.push_back(trace.frames[0]);
  const Result r = run(trace, {"compression=afbc", "write_elim=te"});
  EXPECT_EQ(r.attachment(0, 0, 0).pixels, "captured");
  EXPECT_EQ(r.attachment(0, 0, 0).store_bytes, 256u * 256 * 4 + 256 * 16);
  EXPECT_EQ(r.attachment(1, 0, 0).te_blocks_killed, 256u);
  EXPECT_EQ(r.attachment(1, 0, 0).store_bytes, 0u);
  const Surface& stored = r.stored.images.at("f0/cover/att0/color");
  for (size_t i = 0; i < noise.pixels.size(); ++i) ASSERT_EQ(stored.color[i], noise.pixels[i]) << "pixel " << i;

  trace.frames[0].passes[0].attachments[0].store = StoreOp::dont_care;
  trace.frames[0].passes[0].attachments[0].contents->captured = false;
  const Result dropped = run(trace, {"compression=afbc"});
  EXPECT_EQ(dropped.attachment(0, 0, 0).pixels, "given");
  EXPECT_EQ(dropped.attachment(0, 0, 0).store_raw_bytes, 0u);
}

// ---- UBWC ---------------------------------------------------------------------------------------
//
// compression=ubwc (models/README.md compression). Per image: blocks of Mesa's shape (RGBA8: 16x4,
// RGBA16F: 8x4, RG8: 16x8), each block's payload = min(round32(ceil(bits / 8)), round32(n x B/px))
// over its n pixels inside the image, bits = sum over channels of (channel bits + n x
// bits_for(max - min)); plus the flag buffer as Mesa sizes it, F = align(align(ceil(W / bw), 64) x
// align(ceil(H / bh), 16), 4096), moved whole by a whole-image store or load.

// An RGBA8 gradient: red code x, green code y, blue 0, alpha 255 (exact unorm codes).
ImageContents gradient_contents(uint32_t width, uint32_t height) {
  ImageContents c;
  c.source = "gradient";
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) c.pixels.push_back(Vec4(float(x) / 255.0f, float(y) / 255.0f, 0.0f, 1.0f));
  return c;
}

// A W x H image with `contents`, loaded and stored by one pass without draws, under compression=ubwc.
Result ubwc_load_store(Format format, uint32_t width, uint32_t height, ImageContents contents) {
  Trace trace;
  const int32_t image = add_image(trace, "image", format, width, height);
  trace.images[size_t(image)].contents.push_back(std::move(contents));
  trace.frames.push_back(frame_of(render_pass("load_store", {attachment(image, LoadOp::load, StoreOp::store)}, {0})));
  return run(trace, {"compression=ubwc"});
}

// CLEAR + STORE of a 37x23 RGBA8 image: every 16x4 block is solid. Blocks: ceil(37/16) = 3 columns
// x ceil(23/4) = 6 rows = 18; a solid block's bits are 4 x 8 = 32 -> 4 B -> one 32 B burst:
// 18 x 32 = 576 B. Flags: align(3, 64) = 64 x align(6, 16) = 16 = 1024 -> 4096 B. Stored: 4672 B
// against 37 x 23 x 4 = 3404 B raw (the 4 KiB flag plane outweighs so small an image).
// 1920x1080: 120 x 270 = 32,400 blocks x 32 = 1,036,800 B; flags align(120, 64) = 128 x
// align(270, 16) = 272 = 34,816 -> 36,864 B; stored 1,073,664 B against 8,294,400 B raw.
TEST(SaversUbwc, SolidImagesAreOneBurstPerBlockPlusTheFlagBuffer) {
  for (auto [width, height, expected] : {std::tuple{37u, 23u, 4672ull}, std::tuple{1920u, 1080u, 1073664ull}}) {
    Trace trace;
    const int32_t image = add_image(trace, "color", Format::RGBA8, width, height);
    trace.frames.push_back(frame_of(render_pass("clear", {attachment(image, LoadOp::clear, StoreOp::store)}, {0})));
    const Result r = run(trace, {"compression=ubwc"});
    const AttachmentStats& a = r.attachment(0, 0, 0);
    EXPECT_TRUE(a.compressed) << a.compression;
    EXPECT_EQ(a.store_raw_bytes, uint64_t(width) * height * 4);
    EXPECT_EQ(a.store_bytes, expected) << width << "x" << height;
    EXPECT_EQ(r.pass().dram[DramCategory::attachment_store].write_bytes, expected);
  }
}

// LOAD + STORE of 100x7 RGBA8 noise. Blocks: 7 columns (the last 4 px wide) x 2 rows (4 and 3 px
// tall). Noise spans (nearly) the whole 0..255 range per channel, so every block hits its cap:
// 16x4 (n = 64): bits >= 4 x 8 + 64 x 28 -> >= 228 B -> 256, cap 256 -> 256 (x 6);
// 4x4 (n = 16): bits > 256 -> > 32 B -> 64, cap 64 -> 64;
// 16x3 (n = 48): >= 172 B -> 192, cap 192 -> 192 (x 6); 4x3 (n = 12): > 32 B -> 64, cap 48 -> 64.
// Payload 6 x 256 + 64 + 6 x 192 + 64 = 2816 B (raw 2800: edge blocks round up to a burst).
// Flags: align(7, 64) = 64 x align(2, 16) = 16 = 1024 -> 4096 B. Load and store: 6912 B each.
TEST(SaversUbwc, NoiseCostsItsCappedBlocksPlusTheFlagBuffer) {
  const Result r = ubwc_load_store(Format::RGBA8, 100, 7, noise_contents(100, 7, 5));
  const AttachmentStats& a = r.attachment(0, 0, 0);
  EXPECT_EQ(a.store_raw_bytes, 2800u);
  EXPECT_EQ(a.store_bytes, 6912u);
  EXPECT_EQ(a.load_raw_bytes, 2800u);
  EXPECT_EQ(a.load_bytes, 6912u);
}

// LOAD + STORE of a 37x23 RGBA8 gradient (red = x, green = y). Per block: red spans width - 1,
// green height - 1, blue and alpha 0.
// 16x4 (n = 64): red 15 -> 4 bits, green 3 -> 2: 32 + 64 x 6 = 416 bits = 52 B -> 64 (5 rows x 2);
// 5x4 (n = 20): red 4 -> 3 bits, green 2: 32 + 20 x 5 = 132 bits -> 17 B -> 32 (x 5);
// 16x3 (n = 48): green 2 -> 2 bits: 32 + 48 x 6 = 320 bits = 40 B -> 64 (x 2);
// 5x3 (n = 15): 32 + 15 x 5 = 107 bits -> 14 B -> 32.
// Payload 6 rows x (64 + 64 + 32) = 960 B; flags 4096 B (as the solid 37x23); 5056 B each way.
TEST(SaversUbwc, GradientCostsTheBitsOfItsRanges) {
  const Result r = ubwc_load_store(Format::RGBA8, 37, 23, gradient_contents(37, 23));
  const AttachmentStats& a = r.attachment(0, 0, 0);
  EXPECT_EQ(a.store_raw_bytes, 3404u);
  EXPECT_EQ(a.store_bytes, 5056u);
  EXPECT_EQ(a.load_bytes, 5056u);
}

// The block shape follows the format (Mesa fdl6_get_ubwc_blockwidth), shown by solid images.
// RGBA16F 37x23, 8x4 blocks: ceil(37/8) = 5 x 6 = 30 blocks; a solid block's bits are 4 x 32 = 128
// -> 16 B -> 32: 960 B; flags align(5, 64) x align(6, 16) = 1024 -> 4096: 5056 B.
// RG8 100x7, 16x8 blocks: 7 x 1 = 7 blocks x 32 = 224 B; flags 64 x align(1, 16) -> 4096: 4320 B.
// R8 15x8: narrower than Mesa's FDL_MIN_UBWC_WIDTH (16): not compressed, 120 B raw.
TEST(SaversUbwc, BlockShapeAndWidthFollowMesa) {
  ImageContents solid;
  solid.source = "solid";
  solid.pixels.assign(100 * 23, Vec4(0.25f, 0.5f, 0.75f, 1.0f));
  EXPECT_EQ(ubwc_load_store(Format::RGBA16F, 37, 23, solid).attachment(0, 0, 0).store_bytes, 5056u);
  EXPECT_EQ(ubwc_load_store(Format::RG8, 100, 7, solid).attachment(0, 0, 0).store_bytes, 4320u);
  const Result narrow = ubwc_load_store(Format::R8, 15, 8, solid);
  EXPECT_FALSE(narrow.attachment(0, 0, 0).compressed);
  EXPECT_EQ(narrow.attachment(0, 0, 0).compression, "narrower than 16 px (15)");
  EXPECT_EQ(narrow.attachment(0, 0, 0).store_bytes, 120u);
}

// ---- transaction elimination ---------------------------------------------------------------------

// 256x256 RGBA8 (16 x 16 = 256 blocks, 262,144 B): a clear and a triangle, the same every frame.
constexpr uint64_t kImage256 = 256 * 256 * 4;

Trace static_frames(uint32_t frames, uint32_t swapchain, Layout later_old_layout) {
  Trace trace;
  const int32_t image = add_image(trace, "color", Format::BGRA8, 256, 256);
  trace.images[size_t(image)].swapchain = swapchain;
  const int32_t mesh = add_triangle(trace, 256, 256, {{10, 10}, {240, 40}, {60, 230}});
  for (uint32_t f = 0; f < frames; ++f) {
    const Layout old_layout = f == 0 ? Layout::undefined : later_old_layout;
    trace.frames.push_back(frame_of(render_pass("frame",
                                                {attachment(image, LoadOp::clear, StoreOp::store, old_layout,
                                                            swapchain ? Layout::present : Layout::color_attachment)},
                                                {0}, {flat_draw(mesh, {0.9f, 0.3f, 0.1f, 1.0f})})));
  }
  return trace;
}

// Frame 1 stores every block and records its CRC; frame 2's stores all match: 0 B written, 256
// blocks killed, 262,144 B saved. Its old layout color_attachment keeps the signatures.
TEST(SaversTe, SecondIdenticalFrameWritesNothing) {
  const Result r = run(static_frames(2, 0, Layout::color_attachment), {"write_elim=te"});
  EXPECT_TRUE(r.attachment(0, 0, 0).te_checked);
  EXPECT_EQ(r.attachment(0, 0, 0).write_elim, "checked");
  EXPECT_EQ(r.attachment(0, 0, 0).store_bytes, kImage256);
  EXPECT_EQ(r.attachment(0, 0, 0).te_blocks, 256u);
  EXPECT_EQ(r.attachment(0, 0, 0).te_blocks_killed, 0u);
  EXPECT_EQ(r.attachment(1, 0, 0).store_bytes, 0u);
  EXPECT_EQ(r.attachment(1, 0, 0).te_blocks_killed, 256u);
  EXPECT_EQ(r.attachment(1, 0, 0).te_bytes_saved, kImage256);
  EXPECT_EQ(r.pass(1).dram[DramCategory::attachment_store].write_bytes, 0u);
  EXPECT_EQ(r.pass(1).dram_nominal[DramCategory::attachment_store].write_bytes, kImage256);
  EXPECT_EQ(r.stats.frames[1].dram[DramCategory::attachment_store].write_bytes, 0u);
  // With AFBC too, the killed blocks cost nothing and the saving is their compressed size.
  const Result both = run(static_frames(2, 0, Layout::color_attachment), {"write_elim=te", "compression=afbc"});
  EXPECT_EQ(both.attachment(1, 0, 0).store_bytes, 0u);
  EXPECT_EQ(both.attachment(1, 0, 0).te_bytes_saved, both.attachment(0, 0, 0).store_bytes);
  EXPECT_LT(both.attachment(0, 0, 0).store_bytes, kImage256);
}

// write_elim=te's signature is CRC-32 (IEEE 802.3, reflected 0xEDB88320, initial and final value
// all ones): the standard check value of "123456789", and a bit-at-a-time CRC of random blocks of
// every size up to 1,100 bytes (the folded path from 64 bytes, the tables below, and their tails).
uint32_t bitwise_crc32(const uint8_t* bytes, size_t size) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < size; ++i) {
    c ^= bytes[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
  }
  return ~c;
}
TEST(SaversTe, SignatureIsCrc32) {
  models::Configuration config = models::Configuration::reference();
  config.apply("write_elim=te");
  const models::ModelSet set = models::build_models(config);
  const std::string check = "123456789";
  EXPECT_EQ(set.write_elim->signature(reinterpret_cast<const uint8_t*>(check.data()), check.size()), 0xCBF43926u);
  std::mt19937 random(7);
  std::vector<uint8_t> bytes(1100);
  for (size_t size = 0; size <= bytes.size(); ++size) {
    for (uint8_t& b : bytes) b = uint8_t(random());
    ASSERT_EQ(set.write_elim->signature(bytes.data(), size), bitwise_crc32(bytes.data(), size)) << size << " bytes";
  }
}

// The same frames with old layout `undefined` every frame: a transition from undefined drops the
// signatures of a non-swapchain image, so frame 2 writes everything again.
TEST(SaversTe, UndefinedOldLayoutDefeatsIt) {
  const Result r = run(static_frames(2, 0, Layout::undefined), {"write_elim=te"});
  EXPECT_EQ(r.attachment(1, 0, 0).store_bytes, kImage256);
  EXPECT_EQ(r.attachment(1, 0, 0).te_blocks, 256u);
  EXPECT_EQ(r.attachment(1, 0, 0).te_blocks_killed, 0u);
  EXPECT_EQ(r.pass(1).dram[DramCategory::attachment_store].write_bytes, kImage256);
  // So does a barrier from undefined (or general, or transfer_dst) between the frames.
  for (Layout from : {Layout::undefined, Layout::general, Layout::transfer_dst}) {
    Trace trace = static_frames(2, 0, Layout::color_attachment);
    Pass barrier;
    barrier.name = "barrier";
    barrier.type = PassType::barrier;
    ImageRef ref;
    ref.image = 0;
    ref.old_layout = from;
    ref.new_layout = Layout::color_attachment;
    barrier.barriers.push_back(ref);
    trace.frames[1].passes.insert(trace.frames[1].passes.begin(), barrier);
    const Result b = run(trace, {"write_elim=te"});
    EXPECT_EQ(b.attachment(1, 1, 0).te_blocks_killed, 0u) << int(from);
    EXPECT_EQ(b.attachment(1, 1, 0).store_bytes, kImage256) << int(from);
  }
  // A barrier from shader_read_only keeps them.
  Trace keep = static_frames(2, 0, Layout::color_attachment);
  Pass barrier;
  barrier.name = "barrier";
  barrier.type = PassType::barrier;
  ImageRef ref;
  ref.image = 0;
  ref.old_layout = Layout::shader_read_only;
  ref.new_layout = Layout::color_attachment;
  barrier.barriers.push_back(ref);
  keep.frames[1].passes.insert(keep.frames[1].passes.begin(), barrier);
  EXPECT_EQ(run(keep, {"write_elim=te"}).attachment(1, 1, 0).store_bytes, 0u);
}

// A 3-image swapchain, old layout `undefined` every frame (as a swapchain image is acquired):
// frame f is compared with frame f - 3, the last time the same image was rendered. Frames 1-3
// write everything (each image's first use), frames 4-6 nothing.
TEST(SaversTe, SwapchainStaticFrameFourWritesNothing) {
  const Result r = run(static_frames(6, 3, Layout::undefined), {"write_elim=te"});
  for (size_t f = 0; f < 3; ++f) {
    EXPECT_EQ(r.attachment(f, 0, 0).store_bytes, kImage256) << "frame " << f + 1;
    EXPECT_EQ(r.attachment(f, 0, 0).te_blocks_killed, 0u) << "frame " << f + 1;
  }
  for (size_t f = 3; f < 6; ++f) {
    EXPECT_EQ(r.attachment(f, 0, 0).store_bytes, 0u) << "frame " << f + 1;
    EXPECT_EQ(r.attachment(f, 0, 0).te_blocks_killed, 256u) << "frame " << f + 1;
    EXPECT_EQ(r.pass(f).dram[DramCategory::attachment_store].write_bytes, 0u) << "frame " << f + 1;
  }
  // The same static frames into a 2-image swapchain: frame 3 already matches.
  const Result two = run(static_frames(3, 2, Layout::undefined), {"write_elim=te"});
  EXPECT_EQ(two.attachment(1, 0, 0).store_bytes, kImage256);
  EXPECT_EQ(two.attachment(2, 0, 0).store_bytes, 0u);
}

// A block changed in one frame is written again when its image comes round, and a copy or a blit
// into the image drops its signatures (vkCmdCopyImage/vkCmdBlitImage invalidate,
// models/README.md "Sources: bandwidth savers").
TEST(SaversTe, ChangedBlocksAndCopiesAreWritten) {
  // Frame 2 moves nothing but turns the triangle green: every block the triangle touches changes.
  Trace trace = static_frames(3, 0, Layout::color_attachment);
  trace.frames[1].passes[0].subpasses[0].draws[0].program.params["color"] = {0.1f, 0.8f, 0.2f, 1.0f};
  const Result r = run(trace, {"write_elim=te"});
  const uint64_t changed = r.attachment(1, 0, 0).te_blocks - r.attachment(1, 0, 0).te_blocks_killed;
  EXPECT_GT(changed, 0u);
  EXPECT_LT(changed, 256u);
  EXPECT_EQ(r.attachment(1, 0, 0).store_bytes, changed * 1024);  // whole 16x16 blocks of 4 B
  EXPECT_EQ(r.attachment(2, 0, 0).te_blocks - r.attachment(2, 0, 0).te_blocks_killed, changed);  // and back
  // A copy or a same-size blit into the image between frames 1 and 2 (same pixels): nothing is
  // killed in frame 2.
  for (const PassType type : {PassType::copy, PassType::blit}) {
    SCOPED_TRACE(type == PassType::copy ? "copy" : "blit");
    Trace copied = static_frames(2, 0, Layout::color_attachment);
    const int32_t staging =
        add_image(copied, "staging", Format::BGRA8, 256, 256, kUsageTransferSrc | kUsageTransferDst);
    Pass copy;
    copy.name = "copy_in";
    copy.type = type;
    ImageRef src, dst;
    src.image = staging;
    dst.image = 0;
    copy.reads.push_back(src);
    copy.writes.push_back(dst);
    Pass back = copy;
    back.name = "copy_out";
    std::swap(back.reads[0].image, back.writes[0].image);
    copied.frames[0].passes.push_back(back);  // staging = color, so copy_in changes no pixel
    copied.frames[1].passes.insert(copied.frames[1].passes.begin(), copy);
    const Result c = run(copied, {"write_elim=te"});
    EXPECT_EQ(c.attachment(1, 1, 0).te_blocks_killed, 0u);
    EXPECT_EQ(c.attachment(1, 1, 0).store_bytes, kImage256);
  }
}

// ---- tile-size independence ---------------------------------------------------------------------

struct SaverFigures {
  std::vector<uint64_t> values;
  bool operator==(const SaverFigures&) const = default;
};

// Per frame, pass and attachment: stored, loaded and killed bytes and blocks; per pass the
// physical attachment and sampled-image bytes.
SaverFigures saver_figures(const RunStats& stats) {
  SaverFigures s;
  for (const FrameStats& f : stats.frames)
    for (const PassStats& p : f.passes) {
      for (const AttachmentStats& a : p.attachments)
        s.values.insert(s.values.end(), {a.store_raw_bytes, a.store_bytes, a.load_raw_bytes, a.load_bytes, a.te_blocks,
                                         a.te_blocks_killed, a.te_bytes_saved});
      s.values.insert(s.values.end(), {p.dram[DramCategory::attachment_store].write_bytes,
                                       p.dram[DramCategory::attachment_load].read_bytes,
                                       p.dram[DramCategory::image_sample].read_bytes});
    }
  return s;
}

// Blocks are the image's 16x16, not the tile's: 16x16, 32x32 and 24x40 tiles (24x40 straddles
// block boundaries both ways) give the same AFBC and TE bytes on the bundled traces.
TEST(SaversTiles, TileSizeDoesNotChangeAfbcOrTeBytes) {
  for (const char* name : {"hud_swapchain", "hud_undefined", "afbc_textured"}) {
    SCOPED_TRACE(name);
    const Trace trace = saver_trace(name);
    const std::vector<std::string> savers = {"compression=afbc", "write_elim=te"};
    auto with_tile = [&](const char* tile) {
      std::vector<std::string> a = savers;
      a.push_back(std::string("tiling.width=") + tile);
      a.push_back(std::string("tiling.height=") + (tile[0] == '2' ? "40" : tile));
      return a;
    };
    const Result r16 = run(trace, with_tile("16")), r32 = run(trace, with_tile("32")),
                 r24 = run(trace, with_tile("24"));
    EXPECT_EQ(r16.pass().tile_width, 16u);
    EXPECT_EQ(r32.pass().tile_width, 32u);
    EXPECT_EQ(r24.pass().tile_width, 24u);
    EXPECT_EQ(r24.pass().tile_height, 40u);
    const SaverFigures f16 = saver_figures(r16.stats);
    EXPECT_TRUE(f16 == saver_figures(r32.stats));
    EXPECT_TRUE(f16 == saver_figures(r24.stats));
  }
  // A non-square, non-multiple-of-16 image with noise and a draw, under the three tile sizes.
  Trace trace;
  const int32_t image = add_image(trace, "odd", Format::RGBA8, 200, 90);
  ImageContents noise = noise_contents(200, 90, 9);
  for (size_t i = 0; i < noise.pixels.size(); ++i)
    if ((i / 200) % 40 < 20) noise.pixels[i] = Vec4(0.5f, 0.5f, 0.5f, 1.0f);  // bands of solid blocks
  trace.images[size_t(image)].contents.push_back(noise);
  const int32_t mesh = add_triangle(trace, 200, 90, {{30, 5}, {190, 60}, {10, 85}});
  for (int f = 0; f < 2; ++f)
    trace.frames.push_back(frame_of(render_pass(
        "pass", {attachment(image, LoadOp::load, StoreOp::store, f ? Layout::color_attachment : Layout::undefined)},
        {0}, {flat_draw(mesh, {0.3f, 0.3f, 0.9f, 1.0f})})));
  std::vector<SaverFigures> figures;
  for (const char* tile : {"16x16", "32x32", "24x40"}) {
    models::Configuration config = models::Configuration::from_preset("reference");
    config.apply("compression=afbc");
    config.apply("write_elim=te");
    config.set_tile(tile);
    const models::ModelSet models = models::build_models(config);
    figures.push_back(saver_figures(simulate(trace, models, SimOptions{}, nullptr)));
  }
  EXPECT_TRUE(figures[0] == figures[1]);
  EXPECT_TRUE(figures[0] == figures[2]);
}

// ---- empty-tile elimination -----------------------------------------------------------------------

// LOAD + STORE of a 256x256 RGBA8 image holding noise, one small triangle with pixel corners
// (20,20), (44,20), (20,28): its bounding box x 20..44, y 20..28 lists it in tiles (1,1) and
// (2,1) of the 16x16 grid and in tiles (0,0) and (1,0) of the 32x32 grid. Only those tiles load
// and store: 2 x 16 x 16 x 4 = 2048 B each way (16x16), 2 x 32 x 32 x 4 = 8192 B (32x32). The
// nominal ledger keeps 262,144 B each way; the image equals the empty_tile=off one.
TEST(SaversEmptyTile, OnlyListedTilesLoadAndStore) {
  Trace trace;
  const int32_t image = add_image(trace, "color", Format::RGBA8, 256, 256);
  trace.images[size_t(image)].contents.push_back(noise_contents(256, 256, 3));
  const int32_t mesh = add_triangle(trace, 256, 256, {{20, 20}, {44, 20}, {20, 28}});
  trace.frames.push_back(frame_of(render_pass("load_store", {attachment(image, LoadOp::load, StoreOp::store)}, {0},
                                              {flat_draw(mesh, {1.0f, 1.0f, 0.0f, 1.0f})})));
  const Result off = run(trace);
  for (auto [tile, touched] : {std::pair{16u, 2u}, std::pair{32u, 2u}}) {
    SCOPED_TRACE(tile);
    const std::string t = std::to_string(tile);
    const Result r = run(trace, {"empty_tile=on", "tiling.width=" + t, "tiling.height=" + t});
    const uint64_t tiles = (256 / tile) * (256 / tile), bytes = uint64_t(touched) * tile * tile * 4;
    EXPECT_EQ(r.pass().counters.tiles, tiles);
    EXPECT_EQ(r.pass().counters.empty_tiles, tiles - touched);
    EXPECT_EQ(r.pass().dram[DramCategory::attachment_load].read_bytes, bytes);
    EXPECT_EQ(r.pass().dram[DramCategory::attachment_store].write_bytes, bytes);
    EXPECT_EQ(r.pass().dram_nominal[DramCategory::attachment_load].read_bytes, kImage256);
    EXPECT_EQ(r.pass().dram_nominal[DramCategory::attachment_store].write_bytes, kImage256);
    EXPECT_EQ(r.attachment(0, 0, 0).empty_tile_bytes_saved, 2 * (kImage256 - bytes));
    EXPECT_TRUE(
        same_pixels(r.stored.images.at("f0/load_store/att0/color"), off.stored.images.at("f0/load_store/att0/color")));
  }
  // Off: every tile loads and stores.
  EXPECT_EQ(off.pass().dram[DramCategory::attachment_load].read_bytes, kImage256);
  EXPECT_EQ(off.pass().dram[DramCategory::attachment_store].write_bytes, kImage256);
  EXPECT_EQ(off.attachment(0, 0, 0).empty_tile_bytes_saved, 0u);
  // CLEAR + STORE: an empty tile still stores the clear color (the content changes): no saving.
  Trace cleared = trace;
  cleared.frames[0].passes[0].attachments[0].load = LoadOp::clear;
  const Result c = run(cleared, {"empty_tile=on"});
  EXPECT_EQ(c.pass().dram[DramCategory::attachment_store].write_bytes, kImage256);
  EXPECT_EQ(c.attachment(0, 0, 0).empty_tile_bytes_saved, 0u);
  // Not applied in a pass with a mid-pass clear (models/README.md empty_tile), even one inside the
  // listed tiles: every tile loads and stores, and the pixels equal empty_tile=off's.
  Trace mid_clear = trace;
  MidPassClear clear;
  clear.color = {0};
  clear.value.color = Vec4(0.0f, 1.0f, 0.0f, 1.0f);
  clear.rects = {Rect{20, 20, 4, 4}};
  mid_clear.frames[0].passes[0].subpasses[0].clears = {clear};
  const Result m = run(mid_clear, {"empty_tile=on"}), m_off = run(mid_clear);
  EXPECT_EQ(m.pass().dram[DramCategory::attachment_load].read_bytes, kImage256);
  EXPECT_EQ(m.pass().dram[DramCategory::attachment_store].write_bytes, kImage256);
  EXPECT_EQ(m.attachment(0, 0, 0).empty_tile_bytes_saved, 0u);
  EXPECT_TRUE(
      same_pixels(m.stored.images.at("f0/load_store/att0/color"), m_off.stored.images.at("f0/load_store/att0/color")));
}

// ---- eligibility ------------------------------------------------------------------------------------

// One 64x64 pass per group: the reasons as attachments[] reports them (compression=afbc,
// write_elim=te). models/README.md "Sources: bandwidth savers": an MSAA resolve target can be compressed, its
// multisampled source cannot; storage, transient, alias, mutable_format, linear, formats over
// 32 bit/px and unsupported formats are ineligible. TE: 1 sample, 1 mip, color_attachment, not
// transient.
TEST(SaversEligibility, ReasonsAsReported) {
  Trace trace;
  const uint32_t ca = kUsageColorAttachment;
  const int32_t msaa = add_image(trace, "msaa", Format::RGBA8, 64, 64, ca);
  trace.images[size_t(msaa)].samples = 4;
  const int32_t resolved = add_image(trace, "resolved", Format::RGBA8, 64, 64, ca | kUsageSampled);
  const int32_t transient = add_image(trace, "transient", Format::RGBA8, 64, 64, ca);
  trace.images[size_t(transient)].transient = true;
  const int32_t storage = add_image(trace, "storage", Format::RGBA8, 64, 64, ca | kUsageStorage);
  const int32_t linear = add_image(trace, "linear", Format::RGBA8, 64, 64, ca);
  trace.images[size_t(linear)].tiling = ImageTiling::linear;
  const int32_t hdr = add_image(trace, "hdr", Format::RGBA16F, 64, 64, ca);
  const int32_t alias = add_image(trace, "alias", Format::RGBA8, 64, 64, ca);
  trace.images[size_t(alias)].alias = true;
  const int32_t mutable_format = add_image(trace, "mutable", Format::RGBA8, 64, 64, ca);
  trace.images[size_t(mutable_format)].mutable_format = true;
  const int32_t mipped = add_image(trace, "mipped", Format::RGBA8, 64, 64, ca);
  trace.images[size_t(mipped)].mip_levels = 2;
  const int32_t r32f = add_image(trace, "r32f", Format::R32F, 64, 64, ca);
  const int32_t depth = add_image(trace, "depth", Format::D32F, 64, 64, kUsageDepthStencilAttachment);
  const int32_t mesh = add_triangle(trace, 64, 64, {{0, 0}, {128, 0}, {0, 128}});

  Pass resolve = render_pass(
      "msaa",
      {attachment(msaa, LoadOp::clear, StoreOp::store), attachment(resolved, LoadOp::dont_care, StoreOp::store)}, {0},
      {flat_draw(mesh, {0.5f, 0.5f, 0.5f, 1.0f})});
  resolve.subpasses[0].resolve = {1};
  std::vector<Attachment> many;
  for (int32_t i : {transient, storage, linear, hdr, alias, mutable_format, mipped, r32f})
    many.push_back(attachment(i, LoadOp::clear, i == transient ? StoreOp::dont_care : StoreOp::store));
  many.push_back(attachment(depth, LoadOp::clear, StoreOp::store));
  Pass others = render_pass("others", many, {0, 1, 2, 3, 4, 5, 6, 7}, {flat_draw(mesh, {0.5f, 0.5f, 0.5f, 1.0f})});
  others.subpasses[0].depth = 8;
  Frame frame;
  frame.passes = {resolve, others};
  trace.frames.push_back(frame);

  const Result r = run(trace, {"compression=afbc", "write_elim=te"});
  const std::vector<std::pair<std::string, std::string>> expected_msaa = {
      {"multisampled (4 samples)", "multisampled (4 samples)"}, {"compressed", "checked"}};
  const std::vector<std::pair<std::string, std::string>> expected_others = {
      {"transient", "transient"},
      {"storage usage", "checked"},
      {"linear image tiling", "checked"},
      {"format RGBA16F wider than 32 bit/px", "checked"},
      {"alias flag", "checked"},
      {"mutable_format flag", "checked"},
      {"compressed", "more than one mip level"},
      {"format R32F not supported", "checked"},
      {"format D32F not supported", "no color_attachment usage"}};
  for (auto [pass_index, expected] : {std::pair{size_t(0), &expected_msaa}, std::pair{size_t(1), &expected_others}}) {
    const PassStats& p = r.pass(0, pass_index);
    ASSERT_EQ(p.attachments.size(), expected->size());
    for (size_t a = 0; a < expected->size(); ++a) {
      SCOPED_TRACE(p.name + " attachment " + std::to_string(a) + " " + p.attachments[a].image);
      EXPECT_EQ(p.attachments[a].compression, (*expected)[a].first);
      EXPECT_EQ(p.attachments[a].write_elim, (*expected)[a].second);
      // The flags sim/ branches on agree with the report text.
      EXPECT_EQ(p.attachments[a].compressed, (*expected)[a].first == "compressed");
      EXPECT_EQ(p.attachments[a].te_checked, (*expected)[a].second == "checked");
    }
  }
  // The resolve target is stored compressed (a solid clear... the triangle covers it: one color,
  // 4 x 4 superblocks of headers alone); the multisampled source at its raw 64 x 64 x 4 x 4 B.
  const PassStats& p = r.pass(0, 0);
  EXPECT_EQ(p.attachments[0].store_bytes, 64u * 64 * 4 * 4);
  EXPECT_EQ(p.attachments[1].store_raw_bytes, 64u * 64 * 4);
  EXPECT_EQ(p.attachments[1].store_bytes, 16u * 16);
  EXPECT_EQ(p.dram[DramCategory::resolve].write_bytes, 16u * 16);
  // Transient: never stored, nothing reported.
  EXPECT_EQ(r.pass(0, 1).attachments[0].store_raw_bytes, 0u);
}

// The CLI's JSON report carries the same per-attachment figures.
TEST(SaversReport, AttachmentsInJson) {
  const fs::path scratch = fs::path(TBDR_BINARY_DIR) / "test-scratch/savers";
  fs::create_directories(scratch);
  const fs::path json = scratch / "afbc_textured.json";
  const std::string cmd = "'" + std::string(TBDR_BINARY_DIR) + "/tbdrsim' run '" + TBDR_SOURCE_DIR +
                          "/traces/savers/afbc_textured.json' --preset mali-g710 --quiet --json '" + json.string() +
                          "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(json);
  const nlohmann::json report = nlohmann::json::parse(in);
  const nlohmann::json& scene = report["frames"][0]["passes"][0];
  ASSERT_EQ(scene["name"], "scene");
  ASSERT_EQ(scene["attachments"].size(), 2u);
  EXPECT_EQ(scene["attachments"][0]["image"], "scene");
  EXPECT_EQ(scene["attachments"][0]["compression"], "compressed");
  EXPECT_EQ(scene["attachments"][0]["store_raw_bytes"], 960u * 540 * 4);
  EXPECT_LT(scene["attachments"][0]["store_bytes"].get<uint64_t>(), 960u * 540 * 4);
  EXPECT_EQ(scene["attachments"][1]["compression"], "transient");
  // The model run directly agrees with the report.
  const Result r = run(saver_trace("afbc_textured"), {}, "mali-g710");
  EXPECT_EQ(scene["attachments"][0]["store_bytes"].get<uint64_t>(), r.attachment(0, 0, 0).store_bytes);
}

// ---- bit-identical images -----------------------------------------------------------------------------

// Every model changes bytes and cycles, never pixels (models/README.md "Sources: correctness"): each bundled trace
// (default, features, savers) gives the same stored images, frame by frame, under the reference
// preset, the savers alone on top of it, every other preset (mali-g76 / mali-g710 turn the savers
// on; imr and adreno-a740 render directly or in GMEM bins; powervr defers HSR), and odd bins.
TEST(SaversImages, BitIdenticalWithAndWithoutSavers) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> configs = {
      {"reference", {"compression=afbc"}},
      {"reference", {"write_elim=te"}},
      {"reference", {"empty_tile=on"}},
      {"reference", {"compression=afbc", "write_elim=te", "empty_tile=on"}},
      {"mali-g76", {}},
      {"mali-g710", {}},
      {"imr", {}},
      {"adreno-a740", {}},
      {"powervr", {}},
      {"reference", {"tiling=gmem_bins", "tiling.gmem_bytes=65536"}}};
  size_t traces = 0;
  for (const char* folder : {"default", "features", "savers"}) {
    for (const auto& e : fs::directory_iterator(fs::path(TBDR_SOURCE_DIR) / "traces" / folder)) {
      if (e.path().extension() != ".json") continue;
      SCOPED_TRACE(e.path().string());
      const Trace trace = read_trace(e.path());
      const Result reference = run(trace);
      ASSERT_FALSE(reference.stored.images.empty());
      ++traces;
      for (const auto& [preset, assignments] : configs) {
        std::string label = preset;
        for (const std::string& a : assignments) label += " " + a;
        SCOPED_TRACE(label);
        const Result r = run(trace, assignments, preset);
        ASSERT_EQ(r.stored.images.size(), reference.stored.images.size());
        for (const auto& [key, surface] : reference.stored.images) {
          const auto it = r.stored.images.find(key);
          ASSERT_NE(it, r.stored.images.end()) << key;
          EXPECT_TRUE(same_pixels(it->second, surface)) << key;
        }
      }
    }
  }
  EXPECT_GE(traces, 20u);
}

// ---- the bundled traces -----------------------------------------------------------------------------

// The 16x16 blocks of `now` whose pixels all equal `before`'s (partial blocks at the edges
// included): the blocks transaction elimination must kill when `before` is what the image held.
uint64_t unchanged_blocks(const Surface& now, const Surface& before) {
  uint64_t unchanged = 0;
  for (uint32_t by = 0; by < now.height; by += 16)
    for (uint32_t bx = 0; bx < now.width; bx += 16) {
      bool same = true;
      for (uint32_t y = by; y < std::min(by + 16, now.height) && same; ++y)
        for (uint32_t x = bx; x < std::min(bx + 16, now.width) && same; ++x)
          same = now.color[now.index(x, y, 0)] == before.color[before.index(x, y, 0)];
      unchanged += same;
    }
  return unchanged;
}

// hud_swapchain: 8 frames into a 3-image swapchain; the spinner moves every frame, the HUD, floor,
// props and sky do not. Frames 1-3 write every block; from frame 4 on, every block outside the
// spinner's footprint in this frame and three frames earlier is killed: exactly the blocks whose
// pixels equal the same swapchain image's three frames earlier, counted from the images.
// hud_undefined: the same frames into an ordinary image acquired from `undefined`: nothing is ever
// killed.
TEST(SaversTraces, HudKillsStaticBlocksOnlyOnTheSwapchain) {
  const Result swapchain = run(saver_trace("hud_swapchain"), {"write_elim=te"});
  const Result undefined = run(saver_trace("hud_undefined"), {"write_elim=te"});
  ASSERT_EQ(swapchain.stats.frames.size(), 8u);
  ASSERT_EQ(undefined.stats.frames.size(), 8u);
  const uint64_t blocks = 40 * 23;  // 640x360: 40 x 22.5 blocks
  const uint64_t raw = 640 * 360 * 4;
  for (size_t f = 0; f < 8; ++f) {
    SCOPED_TRACE(f);
    const AttachmentStats& s = swapchain.attachment(f, 0, 0);
    const AttachmentStats& u = undefined.attachment(f, 0, 0);
    EXPECT_EQ(s.te_blocks, blocks);
    EXPECT_EQ(u.te_blocks, blocks);
    EXPECT_EQ(u.te_blocks_killed, 0u);
    EXPECT_EQ(u.store_bytes, raw);
    if (f < 3) {
      EXPECT_EQ(s.te_blocks_killed, 0u);
      EXPECT_EQ(s.store_bytes, raw);
    } else {
      const auto image = [&](size_t frame) -> const Surface& {
        return swapchain.stored.images.at("f" + std::to_string(frame) + "/frame/att0/swapchain");
      };
      EXPECT_EQ(s.te_blocks_killed, unchanged_blocks(image(f), image(f - 3)));
      EXPECT_GT(s.te_blocks_killed, blocks / 2);  // most of the frame is static
      EXPECT_LT(s.te_blocks_killed, blocks);      // the spinner's blocks are written
      EXPECT_EQ(s.store_bytes + s.te_bytes_saved, raw);
    }
  }
  // Same pixels in both, frame by frame.
  for (size_t f = 0; f < 8; ++f) {
    const std::string k = "f" + std::to_string(f) + "/frame/att0/";
    EXPECT_TRUE(same_pixels(swapchain.stored.images.at(k + "swapchain"), undefined.stored.images.at(k + "target")));
  }
}

// The AFBC size rule (models/README.md compression) written out plainly for one superblock: per
// 4x4 subblock holding any pixel inside the image and per channel, the channel's bits plus, per
// pixel, the bits of (code - the subblock's minimum), capped at the subblock's uncompressed bytes;
// plus the 16 B header (a solid superblock: the header alone).
uint64_t afbc_rule(const models::SuperblockPixels& b) {
  constexpr uint32_t n = models::kSuperblockSize;
  std::set<std::vector<uint32_t>> colors;
  for (uint32_t i = 0; i < n * n; ++i)
    if (b.present[i]) colors.insert(std::vector<uint32_t>(b.codes[i], b.codes[i] + b.channels));
  if (colors.empty()) return 0;
  if (colors.size() == 1) return 16;
  uint64_t bytes = 16;
  for (uint32_t sy = 0; sy < n; sy += 4)
    for (uint32_t sx = 0; sx < n; sx += 4) {
      std::vector<uint32_t> inside;
      for (uint32_t y = sy; y < sy + 4; ++y)
        for (uint32_t x = sx; x < sx + 4; ++x)
          if (b.present[y * n + x]) inside.push_back(y * n + x);
      if (inside.empty()) continue;
      uint64_t bits = 0;
      for (uint32_t c = 0; c < b.channels; ++c) {
        uint32_t lo = UINT32_MAX, hi = 0;
        for (uint32_t i : inside) lo = std::min(lo, b.codes[i][c]), hi = std::max(hi, b.codes[i][c]);
        uint32_t width = 0;
        while (width < 32 && (uint64_t(1) << width) <= hi - lo) ++width;
        bits += b.channel_bits[c] + inside.size() * width;
      }
      bytes += std::min<uint64_t>((bits + 7) / 8, inside.size() * b.bytes_per_pixel);
    }
  return bytes;
}

// The AFBC model against the rule on random superblocks: RGBA8, R8 and RGB10A2 codes in narrow
// and wide per-subblock ranges, the superblock whole or cut by the image's right or bottom edge at
// every offset (so whole, partial and empty subblocks all occur).
TEST(SaversAfbc, SuperblockSizesFollowTheRule) {
  const models::ModelSet models = configured_models("reference", {"compression=afbc"});
  std::mt19937 rng(3);
  struct Shape {
    uint32_t channels, bits[4], bytes_per_pixel;
  };
  const Shape shapes[] = {{4, {8, 8, 8, 8}, 4}, {1, {8, 8, 8, 8}, 1}, {4, {10, 10, 10, 2}, 4}};
  uint64_t compressed = 0, uncompressed = 0;
  for (const Shape& shape : shapes)
    for (uint32_t cut = 1; cut <= 16; ++cut)
      for (int trial = 0; trial < 20; ++trial) {
        models::SuperblockPixels b;
        b.channels = shape.channels;
        std::copy(shape.bits, shape.bits + 4, b.channel_bits);
        b.bytes_per_pixel = shape.bytes_per_pixel;
        const bool cut_width = trial % 2 == 0;
        const uint32_t spread = std::array<uint32_t, 4>{0, 3, 40, 1023}[trial % 4];
        for (uint32_t y = 0; y < 16; ++y)
          for (uint32_t x = 0; x < 16; ++x) {
            const uint32_t i = y * 16 + x;
            b.present[i] = (cut_width ? x : y) < cut;
            for (uint32_t c = 0; c < 4; ++c) {
              const uint32_t max_code = (1u << b.channel_bits[c]) - 1;
              b.codes[i][c] = std::min(max_code, 17 * c + std::uniform_int_distribution<uint32_t>(0, spread)(rng));
            }
          }
        const uint64_t expected = afbc_rule(b);
        EXPECT_EQ(models.compression->superblock_bytes(b).value, expected)
            << "channels " << shape.channels << " cut " << cut << " trial " << trial;
        (expected < 16 + uint64_t(cut) * 16 * shape.bytes_per_pixel ? compressed : uncompressed) += 1;
      }
  // Both outcomes occur: some superblocks compress, some fall back to uncompressed subblocks.
  EXPECT_GT(compressed, 100u);
  EXPECT_GT(uncompressed, 10u);
}

// TE signs a block's stored bytes (sim/savers.h block_bytes): each present pixel's four codes in
// ceil(bits / 8) little-endian bytes, so a whole RGBA8 block is 1 KiB (4 B a pixel), an RGB10A2
// one 7 B a pixel, a 32-bit one 16; a change of one code by one changes the bytes, whichever
// path (the SSE2 packing of whole 8-bit blocks, or the byte loop) wrote them.
TEST(SaversTe, BlockBytesAreEachCodeInItsBytes) {
  struct Shape {
    uint32_t bits[4];
    size_t bytes_per_pixel;
  };
  const Shape shapes[] = {{{8, 8, 8, 8}, 4}, {{10, 10, 10, 2}, 7}, {{32, 32, 32, 32}, 16}};
  std::mt19937 rng(5);
  for (const Shape& shape : shapes)
    for (const uint32_t present_rows : {16u, 5u}) {
      SCOPED_TRACE(std::to_string(shape.bits[0]) + " bits, rows " + std::to_string(present_rows));
      models::SuperblockPixels b;
      std::copy(shape.bits, shape.bits + 4, b.channel_bits);
      for (uint32_t i = 0; i < 256; ++i) {
        b.present[i] = i / 16 < present_rows;
        for (uint32_t c = 0; c < 4; ++c)
          b.codes[i][c] = uint32_t((uint64_t(rng()) << 8 | rng()) & ((uint64_t(1) << shape.bits[c]) - 1));
      }
      std::vector<uint8_t> scratch(kBlockBytesMax);
      const std::span<const uint8_t> bytes = block_bytes(b, scratch.data());
      ASSERT_EQ(bytes.size(), size_t(present_rows) * 16 * shape.bytes_per_pixel);
      size_t at = 0;
      for (uint32_t i = 0; i < 16 * present_rows; ++i)
        for (uint32_t c = 0; c < 4; ++c) {
          uint64_t code = 0;
          for (uint32_t k = 0; k < (shape.bits[c] + 7) / 8; ++k) code |= uint64_t(bytes[at++]) << (8 * k);
          ASSERT_EQ(code, b.codes[i][c]) << "pixel " << i << " channel " << c;
        }
      const std::vector<uint8_t> before(bytes.begin(), bytes.end());
      b.codes[37][2] ^= 1;
      const std::span<const uint8_t> after = block_bytes(b, scratch.data());
      EXPECT_FALSE(std::equal(before.begin(), before.end(), after.begin(), after.end()));
    }
}

// afbc_textured: the textured scene compresses (its sky is solid blocks, its textures are not),
// the post pass samples the compressed scene image at its compressed size.
TEST(SaversTraces, AfbcTexturedCompressesRealImages) {
  const Result r = run(saver_trace("afbc_textured"), {"compression=afbc"});
  const uint64_t raw = 960 * 540 * 4;
  const AttachmentStats& scene = r.attachment(0, 0, 0);
  const AttachmentStats& final_image = r.attachment(0, 1, 0);
  EXPECT_EQ(scene.store_raw_bytes, raw);
  EXPECT_EQ(final_image.store_raw_bytes, raw);
  EXPECT_LT(scene.store_bytes, raw);
  EXPECT_GT(scene.store_bytes, raw / 10);
  EXPECT_EQ(final_image.store_bytes, scene.store_bytes);  // a same-size copy: the same pixels
  // Sampled reads: the post pass reads every texel of `scene`, i.e. every superblock once.
  EXPECT_EQ(r.pass(0, 1).dram_nominal[DramCategory::image_sample].read_bytes, raw);
  EXPECT_EQ(r.pass(0, 1).dram[DramCategory::image_sample].read_bytes, scene.store_bytes);
}

}  // namespace
}  // namespace tbdr
