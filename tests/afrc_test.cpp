// compression=afrc (Arm fixed-rate compression): coding units by component count, their fixed sizes,
// the paging-tile allocation and the formats it takes, each figure worked out by hand from Linux
// drm_fourcc.h (AFRC coding units: 16, 24 or 32 B) and Mesa panfrost pan_afrc.h (unit shapes, 8x8
// units a paging tile, 8-bit color formats only).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>

#include "models/compression/compression.h"
#include "models/errors.h"
#include "test_paths.h"
#include "tests/configured_models.h"
#include "tools/commands/validation.h"

namespace fs = std::filesystem;

namespace tbdr {
namespace {

models::ModelSet afrc(const std::string& unit_bytes) {
  return configured_models("reference", {"compression=afrc", "compression.unit_bytes=" + unit_bytes});
}

// A superblock of `channels` 8-bit channels whose pixels x < width, y < height are present, with
// random codes (`noise`) or one color.
models::SuperblockPixels superblock(uint32_t channels, uint32_t width, uint32_t height, bool noise) {
  models::SuperblockPixels b;
  b.channels = channels;
  b.bytes_per_pixel = channels;
  std::mt19937 rng(7);
  for (uint32_t y = 0; y < 16; ++y)
    for (uint32_t x = 0; x < 16; ++x) {
      b.present[y * 16 + x] = x < width && y < height;
      for (uint32_t c = 0; c < 4; ++c) b.codes[y * 16 + x][c] = noise ? rng() % 256 : 40 * c;
    }
  return b;
}

models::ImageTraits traits(const std::string& format, uint32_t channels, uint32_t bytes_per_pixel, uint32_t width,
                           uint32_t height) {
  models::ImageTraits t;
  t.format = format;
  t.channels = channels;
  t.bytes_per_pixel = bytes_per_pixel;
  t.width = width;
  t.height = height;
  t.color_attachment = true;
  return t;
}

}  // namespace

// A whole 16x16 superblock: 3 or 4 components in 4x4 units (16 of them), 2 components in 8x4 units
// (2 x 4 = 8), 1 component in 8x8 units (2 x 2 = 4); each unit at its fixed size, whatever the pixels.
// RGBA8 at 24 B: 16 x 24 = 384; RGB8 at 16 B: 16 x 16 = 256; RG8 at 32 B: 8 x 32 = 256; R8 at 16 B:
// 4 x 16 = 64. A superblock cut to x < 5: RGBA8 units in columns 0-3 and 4-7, 2 x 4 = 8 units x 24 =
// 192 (the partial unit costs a whole one); no pixel present: 0.
TEST(Afrc, EveryCodingUnitWithAPixelCostsItsFixedSize) {
  const models::ModelSet at16 = afrc("16"), at24 = afrc("24"), at32 = afrc("32");
  for (bool noise : {false, true}) {
    EXPECT_EQ(at24.compression->superblock_bytes(superblock(4, 16, 16, noise)).value, 384u);
    EXPECT_EQ(at16.compression->superblock_bytes(superblock(3, 16, 16, noise)).value, 256u);
    EXPECT_EQ(at32.compression->superblock_bytes(superblock(2, 16, 16, noise)).value, 256u);
    EXPECT_EQ(at16.compression->superblock_bytes(superblock(1, 16, 16, noise)).value, 64u);
  }
  EXPECT_EQ(at24.compression->superblock_bytes(superblock(4, 5, 16, true)).value, 192u);
  EXPECT_EQ(at24.compression->superblock_bytes(superblock(4, 0, 0, true)).value, 0u);
  // The default is Mesa panfrost's default rate, 24 B.
  EXPECT_EQ(configured_models("reference", {"compression=afrc"}).compression->superblock_bytes(superblock(4, 16, 16, true)).value,
            384u);
}

// Allocation: whole paging tiles of 8x8 units. RGB8 2400x1080 (4x4 units, 32x32-px tiles): 75 x
// ceil(33.75) = 34 tiles = 2550 x 64 units = 163,200 units: x 16 = 2,611,200 B, x 24 = 3,916,800 B,
// x 32 = 5,222,400 B (raw 7,776,000). R8 (8x8 units, 64x64-px tiles): ceil(37.5) = 38 x ceil(16.875)
// = 17 = 646 tiles x 64 x 16 = 661,504. RG8 (8x4 units, 64x32-px tiles): 38 x 34 = 1292 x 64 x 16 =
// 1,323,008.
TEST(Afrc, AllocationIsWholePagingTilesOfUnits) {
  const models::ImageTraits rgb8 = traits("RGB8", 3, 3, 2400, 1080);
  EXPECT_EQ(afrc("16").compression->allocation_bytes(rgb8).value, 2611200u);
  EXPECT_EQ(afrc("24").compression->allocation_bytes(rgb8).value, 3916800u);
  EXPECT_EQ(afrc("32").compression->allocation_bytes(rgb8).value, 5222400u);
  EXPECT_EQ(models::CompressionModel::raw_image_bytes(rgb8).value, 7776000u);
  EXPECT_EQ(afrc("16").compression->allocation_bytes(traits("R8", 1, 1, 2400, 1080)).value, 661504u);
  EXPECT_EQ(afrc("16").compression->allocation_bytes(traits("RG8", 2, 2, 2400, 1080)).value, 1323008u);
}

// Mesa pan_afrc_get_format_info: color formats whose components all have one size (8 bits here):
// RGB10A2 (10/10/10/2) and float formats are refused, as are depth, storage images and multisampling.
TEST(Afrc, TakesEightBitColorFormatsOnly) {
  const models::ModelSet m = afrc("16");
  for (auto [format, channels, bpp] : {std::tuple{"RGBA8", 4u, 4u}, {"BGRA8", 4u, 4u}, {"RGB8", 3u, 3u}, {"R8", 1u, 1u}, {"RG8", 2u, 2u}})
    EXPECT_TRUE(m.compression->eligibility(traits(format, channels, bpp, 64, 64)).eligible) << format;
  for (auto [format, channels, bpp] : {std::tuple{"RGB10A2", 4u, 4u}, {"RGBA16F", 4u, 8u}, {"D32F", 0u, 4u}})
    EXPECT_FALSE(m.compression->eligibility(traits(format, channels, bpp, 64, 64)).eligible) << format;
  models::ImageTraits storage = traits("RGBA8", 4, 4, 64, 64);
  storage.storage = true;
  EXPECT_EQ(m.compression->eligibility(storage).reason, "storage usage");
  models::ImageTraits msaa = traits("RGBA8", 4, 4, 64, 64);
  msaa.samples = 4;
  EXPECT_FALSE(m.compression->eligibility(msaa).eligible);
}

// drm_fourcc.h defines three coding-unit sizes; any other is refused naming the parameter.
TEST(Afrc, UnitSizeIsOneOfTheThreeDefined) {
  EXPECT_THROW(afrc("20"), InputError);
}

// End to end: the image_compression_control color attachment (RGB8 2400x1080, cleared and stored)
// stores 600 x 270 = 162,000 units x 16 B = 2,592,000 B and occupies 2,611,200 B (above); raw, it
// occupies 7,776,000 B. The validation's footprint figure is this allocation.
TEST(Afrc, ColorAttachmentStoresAndOccupiesWholeUnits) {
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / "traces/validation/image_compression_control_color.json");
  const validation::FrameFigures f =
      validation::simulate_figures(trace, configured_models("mali-g76", {"compression=afrc", "compression.unit_bytes=16"}), 1);
  EXPECT_EQ(f.write_bytes, 2592000u);
  EXPECT_EQ(f.footprint_bytes, 2611200u);
  EXPECT_EQ(validation::simulate_figures(trace, configured_models("mali-g76", {"compression=none"}), 1).footprint_bytes,
            7776000u);
}

}  // namespace tbdr
