// The savers' packed route for whole superblocks of 8-bit unorm images (sim/savers.h
// packed_superblock, CompressionModel::packed_superblock_bytes) against the general one: the same
// codes as superblock_pixels, the same stored bytes as block_bytes, the same compressed bytes from
// every compression model, on random pixels including out-of-range, NaN and halfway values.
#include "sim/savers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "sim/surface.h"
#include "tests/configured_models.h"

namespace tbdr {
namespace {

// A channel value of the kinds a surface may hold: codes exactly (k / 255), halfway between two
// codes (the rounding's ties), outside [0, 1], NaN, infinities and -0.
float awkward_value(std::mt19937& rng) {
  const uint32_t k = std::uniform_int_distribution<uint32_t>(0, 255)(rng);
  switch (std::uniform_int_distribution<int>(0, 9)(rng)) {
    case 0: return (float(k) + 0.5f) / 255.0f;
    case 1: return std::uniform_real_distribution<float>(-2.0f, 3.0f)(rng);
    case 2: return std::numeric_limits<float>::quiet_NaN();
    case 3: return k % 2 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
    case 4: return -0.0f;
    case 5: return std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    default: return float(k) / 255.0f;
  }
}

// A surface whose 16x16 blocks draw their pixels from a few colors (solid blocks, narrow and wide
// ranges occur) or from awkward values.
Surface random_surface(Format format, uint32_t width, uint32_t height, std::mt19937& rng) {
  Surface s(format, width, height, 1);
  std::vector<Vec4> palette;
  for (int i = 0; i < 6; ++i) palette.emplace_back(awkward_value(rng), awkward_value(rng), awkward_value(rng), awkward_value(rng));
  for (uint32_t y = 0; y < height; ++y)
    for (uint32_t x = 0; x < width; ++x) {
      const uint32_t kind = (x / 16 + 3 * (y / 16)) % 4;  // per block: solid, two colors, six, awkward
      const uint32_t colors = std::array<uint32_t, 4>{1, 2, 6, 0}[kind];
      s.color[s.index(x, y, 0)] = colors ? palette[std::uniform_int_distribution<uint32_t>(0, colors - 1)(rng)]
                                         : Vec4(awkward_value(rng), awkward_value(rng), awkward_value(rng), awkward_value(rng));
    }
  return s;
}

const Format kEightBitFormats[] = {Format::RGBA8, Format::BGRA8, Format::RGB8, Format::RG8, Format::R8};

TEST(SaversPacked, CodesAndStoredBytesEqualTheGeneralRoute) {
  std::mt19937 rng(11);
  for (Format format : kEightBitFormats) {
    SCOPED_TRACE(format_info(format).name);
    const Surface s = random_surface(format, 70, 37, rng);  // 5 x 3 blocks, the last column and row cut
    const BlockGrid grid(s);
    uint32_t packed_blocks = 0;
    for (uint32_t b = 0; b < grid.count(); ++b) {
      models::PackedSuperblock packed;
      const bool whole = (b % grid.cols + 1) * 16 <= s.width && (b / grid.cols + 1) * 16 <= s.height;
      ASSERT_EQ(packed_superblock(s, b, packed), whole) << "block " << b;
      if (!whole) continue;
      ++packed_blocks;
      models::SuperblockPixels pixels;
      superblock_pixels(s, b, pixels);
      const models::SuperblockPixels expanded = models::unpacked(packed);
      auto fields = [](const models::SuperblockPixels& p) {
        return std::tie(p.channels, p.bytes_per_pixel, p.origin_x, p.origin_y, p.image_width, p.image_height);
      };
      EXPECT_EQ(fields(expanded), fields(pixels));
      EXPECT_TRUE(std::equal(expanded.channel_bits, expanded.channel_bits + 4, pixels.channel_bits));
      for (uint32_t i = 0; i < 256; ++i)
        for (uint32_t c = 0; c < 4; ++c) ASSERT_EQ(expanded.codes[i][c], pixels.codes[i][c]) << "pixel " << i << " channel " << c;
      std::vector<uint8_t> scratch(kBlockBytesMax);
      const std::span<const uint8_t> stored = block_bytes(pixels, scratch.data());
      ASSERT_EQ(stored.size(), sizeof packed.codes);
      EXPECT_TRUE(std::equal(stored.begin(), stored.end(), packed.codes));
    }
    EXPECT_EQ(packed_blocks, 8u);
  }
}

TEST(SaversPacked, OtherSurfacesTakeTheGeneralRoute) {
  models::PackedSuperblock packed;
  EXPECT_FALSE(packed_superblock(Surface(Format::RGBA8, 32, 32, 4), 0, packed));  // multisampled
  EXPECT_FALSE(packed_superblock(Surface(Format::RGB10A2, 32, 32, 1), 0, packed));
  EXPECT_FALSE(packed_superblock(Surface(Format::RGBA16F, 32, 32, 1), 0, packed));
  EXPECT_FALSE(packed_superblock(Surface(Format::D32F, 32, 32, 1), 0, packed));
  EXPECT_FALSE(packed_superblock(Surface(Format::RGBA8, 20, 15, 1), 0, packed));  // cut by the bottom edge
  EXPECT_TRUE(packed_superblock(Surface(Format::RGBA8, 20, 16, 1), 0, packed));
}

// A packed superblock's codes: per 4x4 subblock a base and a spread (0: solid subblocks; 255: any
// code), channels past `channels` random (they count in no model).
models::PackedSuperblock random_packed(uint32_t channels, uint32_t bytes_per_pixel, uint32_t spread, std::mt19937& rng) {
  models::PackedSuperblock p;
  p.channels = channels;
  p.bytes_per_pixel = bytes_per_pixel;
  p.image_width = 1920;
  p.image_height = 1080;
  p.origin_x = 16 * std::uniform_int_distribution<uint32_t>(0, 119)(rng);
  p.origin_y = 16 * std::uniform_int_distribution<uint32_t>(0, 66)(rng);
  std::uniform_int_distribution<uint32_t> byte(0, 255);
  uint32_t base[16][4];
  for (auto& subblock : base)
    for (uint32_t& b : subblock) b = byte(rng);
  for (uint32_t i = 0; i < 256; ++i)
    for (uint32_t c = 0; c < 4; ++c) {
      const uint32_t subblock = (i / 16 / 4) * 4 + (i % 16) / 4;
      p.codes[4 * i + c] = uint8_t(c >= channels ? byte(rng) : std::min(255u, base[subblock][c] + byte(rng) % (spread + 1)));
    }
  return p;
}

TEST(SaversPacked, EveryCompressionModelSizesPackedSuperblocksAsUnpacked) {
  std::mt19937 rng(13);
  for (const char* model : {"afbc", "ubwc", "afrc", "none"}) {
    const models::ModelSet models = configured_models("reference", {std::string("compression=") + model});
    SCOPED_TRACE(model);
    for (uint32_t channels = 1; channels <= 4; ++channels)
      for (uint32_t spread : {0u, 1u, 3u, 17u, 100u, 255u})
        for (int trial = 0; trial < 12; ++trial) {
          models::PackedSuperblock p = random_packed(channels, channels == 3 && trial % 2 ? 4 : channels, spread, rng);
          if (trial == 0) {  // solid in the counted channels: the others still differ
            for (uint32_t i = 1; i < 256; ++i) std::copy(p.codes, p.codes + channels, p.codes + 4 * i);
          }
          ASSERT_EQ(models.compression->packed_superblock_bytes(p).value, models.compression->superblock_bytes(unpacked(p)).value)
              << "channels " << channels << " spread " << spread << " trial " << trial;
        }
  }
}

// block_bytes of 8-bit codes with pixels missing anywhere (not just rows cut by the image's edge):
// the present pixels' four codes, in order.
TEST(SaversPacked, BlockBytesSkipEachMissingPixel) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    models::SuperblockPixels b;
    std::vector<uint8_t> expected;
    for (uint32_t i = 0; i < 256; ++i) {
      b.present[i] = trial == 0 || rng() % 3 != 0;
      for (uint32_t c = 0; c < 4; ++c) {
        b.codes[i][c] = rng() % 256;
        if (b.present[i]) expected.push_back(uint8_t(b.codes[i][c]));
      }
    }
    std::vector<uint8_t> scratch(kBlockBytesMax);
    const std::span<const uint8_t> bytes = block_bytes(b, scratch.data());
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), expected) << "trial " << trial;
  }
}

}  // namespace
}  // namespace tbdr
