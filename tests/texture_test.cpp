// The texture model (models/README.md "texture"): texture=footprint (the nominal rule) against texture=cache
// (a per-core LRU texture cache over Arm's u-interleaved layout): exact DRAM bytes for a 1:1 scan,
// more for a random permutation of the same texels, ASTC 8x8 = a quarter of ASTC 4x4, byte-identical
// results whatever the thread count, and pixels that never depend on the model.
//
// The pass: a W x W RGBA8 target covered by one quad per pixel (two triangles), each quad's four
// vertices carrying the same uv, the centre of texel perm[pixel] of a W x W texture; `textured`,
// nearest. So pixel p fetches exactly texel perm[p] once (texel_fetches = W x W), and the order of
// fetches is the raster order: tiles in row-major order, pixels in row-major order inside a tile.
#include <gtest/gtest.h>
#include "test_paths.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "frontend/trace_reader.h"
#include "models/errors.h"
#include "models/registry.h"
#include "models/texture/texture.h"
#include "sim/pipeline.h"
#include "sim/programs.h"
#include "sim/stats.h"
#include "sim/surface.h"
#include "tests/configured_models.h"

namespace fs = std::filesystem;

namespace tbdr {
namespace {

constexpr uint32_t kSide = 256;  // target and texture: 256 x 256

// Every stored image of a run, keyed by frame, pass, slot and image.
struct Stored : ImageSink {
  std::map<std::string, std::vector<Vec4>> images;  // a copy of each surface's pixels
  void stored(const StoredImage& image) override {
    images["f" + std::to_string(image.frame) + "/" + image.pass_name + "/" + image.slot + "/" + image.image_name] =
        std::vector<Vec4>(image.surface->color.begin(), image.surface->color.end());
  }
};

struct Result {
  RunStats stats;
  Stored stored;
  const PassStats& pass() const { return stats.frames.at(0).passes.at(0); }
  uint64_t texture_bytes() const { return pass().dram[DramCategory::texture].read_bytes; }
  uint64_t texture_nominal() const { return pass().dram_nominal[DramCategory::texture].read_bytes; }
};

Result run(const Trace& trace, const std::vector<std::string>& assignments, uint32_t threads = 1,
           const std::string& preset = "reference") {
  const models::ModelSet models = configured_models(preset, assignments);
  SimOptions options;
  options.threads = threads;
  Result r;
  r.stats = simulate(trace, models, options, &r.stored);
  return r;
}

// The pass described at the top; `perm[p]` is the texel pixel p samples (p = y * kSide + x).
Trace permutation_trace(const std::vector<uint32_t>& perm, TextureFormat format) {
  Trace trace;
  ImageDesc color;
  color.name = "color";
  color.format = Format::RGBA8;
  color.width = color.height = kSide;
  color.usage = kUsageColorAttachment;
  trace.images.push_back(color);

  Texture tex;
  tex.name = "tex";
  tex.source = "generated";
  tex.format = format;
  tex.width = tex.height = kSide;
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> byte(0, 255);
  tex.texels.resize(size_t(kSide) * kSide);
  for (Vec4& t : tex.texels) t = Vec4(float(byte(rng)) / 255, float(byte(rng)) / 255, float(byte(rng)) / 255, 1);
  trace.textures.push_back(tex);

  Mesh m;
  m.name = "pixels";
  m.position_components = 4;
  auto clip = [](uint32_t px) { return float(2.0 * px / kSide - 1.0); };
  for (uint32_t p = 0; p < kSide * kSide; ++p) {
    const uint32_t x = p % kSide, y = p / kSide, tx = perm[p] % kSide, ty = perm[p] / kSide;
    const Vec2 uv((float(tx) + 0.5f) / kSide, (float(ty) + 0.5f) / kSide);
    const Vec4 corners[4] = {Vec4(clip(x), clip(y), 0.5f, 1), Vec4(clip(x + 1), clip(y), 0.5f, 1),
                             Vec4(clip(x + 1), clip(y + 1), 0.5f, 1), Vec4(clip(x), clip(y + 1), 0.5f, 1)};
    for (int v : {0, 1, 2, 0, 2, 3}) {
      m.positions.push_back(corners[v]);
      m.uvs.push_back(uv);
    }
  }
  trace.meshes.push_back(m);

  Draw d;
  d.mesh = 0;
  d.index_count = uint32_t(m.positions.size());
  d.transform.clip_space = true;
  d.program.name = "textured";
  Binding b;
  b.slot = "texture";
  b.resource = "tex";
  b.resource_index = 0;
  b.filter = Filter::nearest;
  d.program.bindings.push_back(b);

  Pass pass;
  pass.name = "sample";
  Attachment a;
  a.image = 0;
  a.load = LoadOp::clear;
  a.store = StoreOp::store;
  pass.attachments.push_back(a);
  Subpass s;
  s.color = {0};
  s.draws.push_back(d);
  pass.subpasses.push_back(s);
  Frame f;
  f.passes.push_back(pass);
  trace.frames.push_back(f);
  return trace;
}

std::vector<uint32_t> identity() {
  std::vector<uint32_t> perm(size_t(kSide) * kSide);
  std::iota(perm.begin(), perm.end(), 0u);
  return perm;
}

std::vector<uint32_t> shuffled() {
  std::vector<uint32_t> perm = identity();
  std::mt19937 rng(2026);
  std::shuffle(perm.begin(), perm.end(), rng);
  return perm;
}

constexpr uint64_t kRgba8Bytes = uint64_t(kSide) * kSide * 4;  // 262,144 B

// ---- layout -------------------------------------------------------------------------------------

TEST(TextureLayout, TiledOrderIsArmUInterleaved) {
  // The first two rows of Mesa panfrost's u-interleaved space-filling table (pan_tiling.c before it
  // was replaced by bit operations; the bit order is in docs/drivers/panfrost/tiling.rst).
  const uint32_t row0[16] = {0, 1, 4, 5, 16, 17, 20, 21, 64, 65, 68, 69, 80, 81, 84, 85};
  const uint32_t row1[16] = {3, 2, 7, 6, 19, 18, 23, 22, 67, 66, 71, 70, 83, 82, 87, 86};
  models::TextureLevelShape rgba8{64, 64, 4, false};
  for (uint32_t x = 0; x < 16; ++x) {
    EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::tiled, x, 0), row0[x] * 4u) << x;
    EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::tiled, x, 1), row1[x] * 4u) << x;
  }
  // Rows past the table's first two, from the bit order: (15, 15) is 10101010, (0, 15) all ones, (6, 9) 11010111.
  EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::tiled, 15, 15), 170u * 4);
  EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::tiled, 0, 15), 255u * 4);
  EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::tiled, 6, 9), 0b11'01'01'11u * 4);
  // A tile's 256 texels take its 256 places once each, and a block format's 4x4 blocks its 16.
  std::vector<int> texel_at(256, 0), block_at(16, 0);
  models::TextureLevelShape blocks{4, 4, 16, true};
  for (uint32_t y = 0; y < 16; ++y)
    for (uint32_t x = 0; x < 16; ++x) {
      ++texel_at.at(models::texture_element_offset(rgba8, models::TextureLayout::tiled, x, y) / 4);
      if (x >= 4 || y >= 4) continue;
      ++block_at.at(models::texture_element_offset(blocks, models::TextureLayout::tiled, x, y) / 16);
    }
  EXPECT_EQ(texel_at, std::vector<int>(256, 1));
  EXPECT_EQ(block_at, std::vector<int>(16, 1));
  // Tiles in row-major order, 1 KiB each: texel (16, 0) starts tile 1, (0, 16) tile 4 (64 / 16 = 4 per row).
  EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::tiled, 16, 0), 1024u);
  EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::tiled, 0, 16), 4u * 1024);
  EXPECT_EQ(models::texture_element_offset(rgba8, models::TextureLayout::linear, 3, 2), (2u * 64 + 3) * 4);
  // Block formats: 4x4 blocks per tile (16 B per ASTC block: 256 B per tile).
  models::TextureLevelShape astc{16, 16, 16, true};
  EXPECT_EQ(models::texture_element_offset(astc, models::TextureLayout::tiled, 4, 0), 256u);
  EXPECT_EQ(models::texture_element_offset(astc, models::TextureLayout::tiled, 1, 1), 2u * 16);
  // A 20 x 20 RGBA8 level pads to 2 x 2 tiles in the tiled layout.
  EXPECT_EQ(models::texture_level_bytes({20, 20, 4, false}, models::TextureLayout::tiled), 4u * 1024);
  EXPECT_EQ(models::texture_level_bytes({20, 20, 4, false}, models::TextureLayout::linear), 1600u);
}

// ---- three figures: a scan, a random permutation, ASTC 8x8 vs 4x4 -------------------------------

TEST(TextureCache, ScanOrderReadsEachLineOnce) {
  const Trace trace = permutation_trace(identity(), TextureFormat::RGBA8);
  for (const char* layout : {"tiled", "linear"}) {
    const Result r = run(trace, {"texture=cache", std::string("texture.layout=") + layout});
    const PassCounters& c = r.pass().counters;
    EXPECT_EQ(c.texel_fetches, uint64_t(kSide) * kSide);
    // 256 x 256 x 4 B = 262,144 B = 4096 lines of 64 B, each read exactly once.
    EXPECT_EQ(c.texture_cache_misses, kRgba8Bytes / 64) << layout;
    EXPECT_EQ(c.texture_cache_hits + c.texture_cache_misses, c.texel_fetches) << layout;
    EXPECT_EQ(r.texture_bytes(), kRgba8Bytes) << layout;
    EXPECT_EQ(r.texture_nominal(), kRgba8Bytes) << layout;
  }
  const Result footprint = run(trace, {});
  EXPECT_EQ(footprint.texture_bytes(), kRgba8Bytes);
  EXPECT_EQ(footprint.pass().counters.texture_cache_hits + footprint.pass().counters.texture_cache_misses, 0u);
}

TEST(TextureCache, RandomPermutationReadsMore) {
  const Trace scan = permutation_trace(identity(), TextureFormat::RGBA8);
  const Trace random = permutation_trace(shuffled(), TextureFormat::RGBA8);
  // The footprint rule cannot tell them apart: both touch every texel once.
  EXPECT_EQ(run(random, {}).texture_bytes(), kRgba8Bytes);
  for (const char* layout : {"tiled", "linear"}) {
    const std::vector<std::string> cache = {"texture=cache", std::string("texture.layout=") + layout};
    const Result r = run(random, cache);
    EXPECT_EQ(r.texture_nominal(), kRgba8Bytes);
    // A 16 KiB cache holds 256 of the texture's 4096 lines: a random texel's line is mostly gone.
    EXPECT_GT(r.texture_bytes(), 10 * kRgba8Bytes) << layout << ": " << r.texture_bytes();
    // The exact figures documented in models/README.md (texture=cache) and traces/README.md, for
    // this permutation (libstdc++'s std::shuffle over mt19937(2026), the toolchain both builds use).
    EXPECT_EQ(r.texture_bytes(), std::string(layout) == "tiled" ? 3'948'800u : 3'949'312u) << layout;
    EXPECT_EQ(r.texture_bytes(), r.pass().counters.texture_cache_misses * 64);
    std::cout << "[ figures  ] random permutation, " << layout << ": " << r.texture_bytes() << " B vs scan "
              << run(scan, cache).texture_bytes() << " B\n";
    // A cache holding the whole texture (256 KiB) reads every line once again, whatever the order.
    const Result big = run(random, {"texture=cache", std::string("texture.layout=") + layout,
                                    "texture.size_bytes=262144"});
    EXPECT_EQ(big.texture_bytes(), kRgba8Bytes) << layout;
  }
}

TEST(TextureCache, Astc8x8MovesAQuarterOfAstc4x4) {
  const Trace astc4 = permutation_trace(identity(), TextureFormat::ASTC_4x4);
  const Trace astc8 = permutation_trace(identity(), TextureFormat::ASTC_8x8);
  // 16 B per block: 4x4 -> 64 x 64 blocks = 65,536 B; 8x8 -> 32 x 32 blocks = 16,384 B.
  for (const std::vector<std::string>& config :
       {std::vector<std::string>{}, std::vector<std::string>{"texture=cache"},
        std::vector<std::string>{"texture=cache", "texture.layout=linear"}}) {
    const Result r4 = run(astc4, config), r8 = run(astc8, config);
    EXPECT_EQ(r4.texture_bytes(), 65536u);
    EXPECT_EQ(r8.texture_bytes(), 16384u);
    EXPECT_EQ(r4.texture_bytes(), 4 * r8.texture_bytes());
    EXPECT_EQ(r4.texture_nominal(), 65536u);
    EXPECT_EQ(r8.texture_nominal(), 16384u);
  }
}

// ---- mip chains ---------------------------------------------------------------------------------

TEST(TextureMips, ChainIsTheRoundedBoxOfEightBitCodes) {
  Texture t;
  t.width = 3;
  t.height = 2;
  // Red codes 0, 1, 2 / 3, 4, 255; the other channels 255.
  const int red[6] = {0, 1, 2, 3, 4, 255};
  for (int r : red) t.texels.push_back(Vec4(float(r) / 255, 1, 1, 1));
  generate_mip_chain(t);
  ASSERT_EQ(t.level_count(), 2u);  // 3x2 -> 1x1
  EXPECT_EQ(t.level_width(1), 1u);
  EXPECT_EQ(t.level_height(1), 1u);
  // Level 1 texel (0, 0) = the block (0..1, 0..1): (0 + 1 + 3 + 4 + 2) / 4 = 2; column 2 is dropped.
  EXPECT_EQ(t.mips[0].texels[0], Vec4(2.0f / 255, 1, 1, 1));
  Texture tall;
  tall.width = 1;
  tall.height = 5;
  tall.texels.assign(5, Vec4(1, 1, 1, 1));
  generate_mip_chain(tall);
  ASSERT_EQ(tall.level_count(), 3u);  // 1x5 -> 1x2 -> 1x1
  EXPECT_EQ(tall.level_height(1), 2u);
  EXPECT_EQ(tall.level_height(2), 1u);
}

// A kSide/2 x kSide/2 target covered by one full-screen quad, uv 0..1, sampling the kSide x kSide
// texture with nearest: 2:1 minification, rho = 2, so a mipmapped texture is read at level 1.
Trace minified_trace(bool mipmapped) {
  Trace trace = permutation_trace(identity(), TextureFormat::RGBA8);
  trace.images[0].width = trace.images[0].height = kSide / 2;
  if (mipmapped) {
    trace.textures[0].mip_mode = MipMode::generate;
    generate_mip_chain(trace.textures[0]);
  }
  Mesh& m = trace.meshes[0];
  m.positions = {Vec4(-1, -1, 0.5f, 1), Vec4(1, -1, 0.5f, 1), Vec4(1, 1, 0.5f, 1),
                 Vec4(-1, -1, 0.5f, 1), Vec4(1, 1, 0.5f, 1), Vec4(-1, 1, 0.5f, 1)};
  m.uvs = {Vec2(0, 0), Vec2(1, 0), Vec2(1, 1), Vec2(0, 0), Vec2(1, 1), Vec2(0, 1)};
  trace.frames[0].passes[0].subpasses[0].draws[0].index_count = 6;
  return trace;
}

TEST(TextureMips, MinifiedQuadReadsLevelOne) {
  constexpr uint64_t kLevel1Bytes = uint64_t(kSide / 2) * (kSide / 2) * 4;  // 65,536 B
  const Trace mipmapped = minified_trace(true);
  const Result r = run(mipmapped, {"texture=cache"});
  // The pixels are level 1's texels, one per pixel (nearest at the texel centres).
  const std::vector<Vec4>& image = r.stored.images.begin()->second;
  ASSERT_EQ(image.size(), size_t(kSide / 2) * (kSide / 2));
  EXPECT_EQ(image, mipmapped.textures[0].mips[0].texels);
  EXPECT_EQ(r.pass().counters.texel_fetches, uint64_t(kSide / 2) * (kSide / 2));
  // Level 1 is read 1:1 in scan order: each of its lines once; the footprint says the same.
  EXPECT_EQ(r.texture_bytes(), kLevel1Bytes);
  EXPECT_EQ(r.texture_nominal(), kLevel1Bytes);
  // Without the chain the same pass reads every other texel of level 0: the footprint is as small
  // (128 x 128 texels), but the cache reads every line of level 0 (each holds 4x4 texels).
  const Result flat = run(minified_trace(false), {"texture=cache"});
  EXPECT_EQ(flat.texture_nominal(), kLevel1Bytes);
  EXPECT_EQ(flat.texture_bytes(), kRgba8Bytes);
}

// ---- address modes ------------------------------------------------------------------------------

// The texel a nearest sample at column i's centre reads, by Vulkan's "Wrapping Operation" written
// with a floor division (the simulator takes a remainder, or the low bits of a power-of-two size).
int32_t expected_column(int32_t i, int32_t size, AddressMode mode) {
  const int32_t period = i >= 0 ? i / size : -((-i + size - 1) / size);  // floor(i / size)
  const int32_t r = i - period * size;
  switch (mode) {
    case AddressMode::clamp_to_edge: return std::clamp(i, 0, size - 1);
    case AddressMode::repeat: return r;
    case AddressMode::mirrored_repeat: return period % 2 == 0 ? r : size - 1 - r;
  }
  return -1;
}

TEST(TextureAddress, RepeatAndMirrorWrapEverySizeBothWays) {
  for (const uint32_t size : {4u, 5u, 16u, 12u}) {  // powers of two and not
    Texture texture;
    texture.width = texture.height = size;
    for (uint32_t y = 0; y < size; ++y)
      for (uint32_t x = 0; x < size; ++x) texture.texels.push_back(Vec4(float(x) / 64, float(y) / 64, 0, 1));
    for (const AddressMode mode : {AddressMode::repeat, AddressMode::mirrored_repeat, AddressMode::clamp_to_edge}) {
      CompiledProgram program;
      program.kind = CompiledProgram::Kind::textured;
      SamplerBinding& s = program.samplers[0];
      s.texture = &texture;
      s.texels = texture.texels.data();
      s.texel_width = s.texel_height = size;
      s.filter = Filter::nearest;
      s.address = mode;
      for (int32_t i = -3 * int32_t(size) - 1; i <= 3 * int32_t(size); ++i) {
        const int32_t j = 2 - i;  // v runs the other way
        const float u = (float(i) + 0.5f) / float(size), v = (float(j) + 0.5f) / float(size);
        const float varyings[kVaryingCount] = {1, 1, 1, 1, u, v, 0, 0, 1};
        FragmentInput in;
        in.varyings = varyings;
        Vec4 color;
        ASSERT_TRUE(shade_fragment(program, in, &color, 1));
        const std::string where = std::to_string(size) + " " + std::to_string(int(mode)) + " " + std::to_string(i);
        EXPECT_EQ(color[0] * 64, float(expected_column(i, int32_t(size), mode))) << where;
        EXPECT_EQ(color[1] * 64, float(expected_column(j, int32_t(size), mode))) << where;
      }
    }
  }
}

// A textured program sampling `texture` with `filter` and `mode`, recording into `footprint` and
// `recorder` as a tile worker's programs do (compile_program), the level's blocks `block` texels wide.
CompiledProgram recording_program(const Texture& texture, Filter filter, AddressMode mode, uint32_t block,
                                  std::vector<uint64_t>& footprint, TextureRecorder& recorder) {
  CompiledProgram program;
  program.kind = CompiledProgram::Kind::textured;
  SamplerBinding& s = program.samplers[0];
  s.texture = &texture;
  s.texels = texture.texels.data();
  s.texel_width = texture.width;
  s.texel_height = texture.height;
  s.block_width = s.block_height = block;
  s.filter = filter;
  s.address = mode;
  const uint32_t blocks = (texture.width + block - 1) / block;
  s.shape = {blocks, blocks, block == 1 ? 4u : 16u, block != 1};
  s.base = 4096;
  footprint.assign((size_t(blocks) * blocks + 63) / 64, 0);
  s.footprint = &footprint;
  s.recorder = &recorder;
  recorder.record_lines = true;
  return program;
}

Vec4 shade_at(const CompiledProgram& program, float u, float v) {
  const float varyings[kVaryingCount] = {1, 1, 1, 1, u, v, 0, 0, 1};
  FragmentInput in;
  in.varyings = varyings;
  Vec4 color;
  EXPECT_TRUE(shade_fragment(program, in, &color, 1));
  return color;
}

// A bilinear sample records what nearest fetches of its four texels, one by one in its order, would:
// the same footprint bits, fetch count, line stream and repeats, across the edges where columns
// and rows wrap, for texel and 4x4-block formats; and it blends those four texels.
TEST(TextureAddress, BilinearRecordsAsItsFourTexelsFetchedOneByOne) {
  for (const uint32_t size : {4u, 5u, 32u})
    for (const uint32_t block : {1u, 4u})
      for (const AddressMode mode : {AddressMode::repeat, AddressMode::mirrored_repeat, AddressMode::clamp_to_edge}) {
        Texture texture;
        texture.width = texture.height = size;
        for (uint32_t y = 0; y < size; ++y)
          for (uint32_t x = 0; x < size; ++x) texture.texels.push_back(Vec4(float(x) / 64, float(y) / 64, 0, 1));
        std::vector<uint64_t> bilinear_bits, nearest_bits;
        TextureRecorder bilinear_record, nearest_record;
        const CompiledProgram bilinear =
            recording_program(texture, Filter::bilinear, mode, block, bilinear_bits, bilinear_record);
        const CompiledProgram nearest =
            recording_program(texture, Filter::nearest, mode, block, nearest_bits, nearest_record);
        const float n = float(size);
        for (int32_t j = -int32_t(size) - 2; j <= 2 * int32_t(size); j += 3)
          for (int32_t i = -int32_t(size) - 2; i <= 2 * int32_t(size); ++i) {
            // (i + 1) / n: the footprint's corner texel is (i, j), each of the four weighted 1/2.
            const Vec4 blended = shade_at(bilinear, float(i + 1) / n, float(j + 1) / n);
            Vec4 corners[4];
            for (int k = 0; k < 4; ++k)
              corners[k] = shade_at(nearest, (float(i + (k & 1)) + 0.5f) / n, (float(j + (k >> 1)) + 0.5f) / n);
            const Vec4 expected = (corners[0] + corners[1] + corners[2] + corners[3]) / 4;
            for (int c = 0; c < 2; ++c) EXPECT_NEAR(blended[c], expected[c], 1e-5f) << size << " " << i << " " << j;
          }
        const std::string where = std::to_string(size) + " " + std::to_string(block) + " " + std::to_string(int(mode));
        EXPECT_EQ(bilinear_record.lines, nearest_record.lines) << where;
        EXPECT_EQ(bilinear_record.fetches, nearest_record.fetches) << where;
        EXPECT_EQ(bilinear_record.repeats, nearest_record.repeats) << where;
        EXPECT_EQ(bilinear_record.last_line, nearest_record.last_line) << where;
        EXPECT_EQ(bilinear_bits, nearest_bits) << where;
        EXPECT_GT(bilinear_record.repeats, 0u) << where;
        if (size == 32) EXPECT_GT(bilinear_record.lines.size(), 1u) << where;  // smaller levels fit one or two lines
      }
}

// ---- determinism, pixels, parameters ------------------------------------------------------------

TEST(TextureCache, SameResultsWhateverTheThreadCount) {
  const Trace random = permutation_trace(shuffled(), TextureFormat::ETC2_RGB8);
  for (const char* cores : {"cores=round_robin", "cores=least_loaded"}) {
    const std::vector<std::string> config = {"texture=cache", cores, "cores.count=4", "texture.size_bytes=4096",
                                             "texture.l2_bytes=16384"};
    const Result one = run(random, config, 1);
    for (uint32_t threads : {2u, 3u, 8u}) {
      const Result many = run(random, config, threads);
      EXPECT_EQ(many.pass().counters, one.pass().counters) << cores << " threads " << threads;
      EXPECT_EQ(many.pass().dram, one.pass().dram) << cores << " threads " << threads;
    }
  }
}

TEST(TextureCache, MoreCoresSplitTheLinesOfATile) {
  // Round robin over 16x16 tiles: a tile's lines are its own under either layout (16 RGBA8 texels
  // per 64 B line, aligned to the tile), so the scan reads every line once on any number of cores.
  const Trace scan = permutation_trace(identity(), TextureFormat::RGBA8);
  EXPECT_EQ(run(scan, {"texture=cache", "cores.count=10"}).texture_bytes(), kRgba8Bytes);
}

TEST(TextureCache, SharedL2ReadsALineOnceForEveryCore) {
  // The default scene samples one 16 KiB texture (256 lines). On one core its cache reads each line
  // once; on 10 cores (round robin) every core's cache misses each line once: 2560 misses, all from
  // DRAM without an L2, but a 64 KiB shared L2 holds the whole texture: DRAM reads it once.
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/default/scene.json");
  const Result one = run(trace, {"texture=cache"});
  EXPECT_EQ(one.pass().counters.texture_cache_misses, 256u);
  EXPECT_EQ(one.texture_bytes(), 16384u);
  const Result ten = run(trace, {"texture=cache", "cores.count=10"});
  EXPECT_EQ(ten.pass().counters.texture_cache_misses, 2560u);
  EXPECT_EQ(ten.texture_bytes(), 2560u * 64);
  EXPECT_EQ(ten.pass().counters.texture_l2_hits + ten.pass().counters.texture_l2_misses, 0u);
  const Result shared = run(trace, {"texture=cache", "cores.count=10", "texture.l2_bytes=65536"});
  EXPECT_EQ(shared.pass().counters.texture_cache_misses, 2560u);
  EXPECT_EQ(shared.pass().counters.texture_l2_misses, 256u);
  EXPECT_EQ(shared.pass().counters.texture_l2_hits, 2560u - 256u);
  EXPECT_EQ(shared.texture_bytes(), 16384u);
  // Determinism holds with the L2 too.
  EXPECT_EQ(run(trace, {"texture=cache", "cores.count=10", "texture.l2_bytes=65536"}, 3).pass().counters,
            shared.pass().counters);
}

TEST(TextureCache, PixelsDoNotDependOnTheModel) {
  bool cache_changed_bytes = false;
  for (const char* path : {"traces/features/textured.json", "traces/default/scene.json", "traces/savers/afbc_textured.json",
                           "traces/savers/textured_mipmaps.json"}) {
    const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / path);
    const Result footprint = run(trace, {});
    const Result cache = run(trace, {"texture=cache", "texture.size_bytes=1024", "texture.ways=1"});
    ASSERT_FALSE(footprint.stored.images.empty());
    EXPECT_EQ(footprint.stored.images, cache.stored.images) << path;
    // And the model changed the physical texture bytes only.
    const DramLedger& f = footprint.stats.dram;
    const DramLedger& c = cache.stats.dram;
    for (size_t k = 0; k < kDramCategoryCount; ++k) {
      if (DramCategory(k) != DramCategory::texture) {
        EXPECT_EQ(f.by_category[k], c.by_category[k]) << path << " " << k;
      }
    }
    EXPECT_EQ(footprint.stats.dram_nominal, cache.stats.dram_nominal) << path;
    cache_changed_bytes = cache_changed_bytes || !(f == c);
  }
  EXPECT_TRUE(cache_changed_bytes);  // the comparison is not vacuous: the 1 KiB cache reads more
}

TEST(TextureCache, BadParametersAreInputErrors) {
  const Trace scan = permutation_trace(identity(), TextureFormat::RGBA8);
  EXPECT_THROW(run(scan, {"texture=cache", "texture.line_bytes=48"}), InputError);
  EXPECT_THROW(run(scan, {"texture=cache", "texture.size_bytes=1000"}), InputError);
  EXPECT_THROW(run(scan, {"texture=cache", "texture.l2_bytes=1000"}), InputError);
  EXPECT_THROW(run(scan, {"texture.size_bytes=4096"}), InputError);  // footprint reads no parameter
}

}  // namespace
}  // namespace tbdr
