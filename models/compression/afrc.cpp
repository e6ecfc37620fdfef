// compression=afrc: Arm Fixed Rate Compression (VK_EXT_image_compression_control's fixed-rate flags on
// Mali): every coding unit of an image takes the same bytes whatever its pixels (models/README.md "compression").
// Coding units and sizes: Linux drm_fourcc.h (AFRC modifiers) and Mesa panfrost pan_afrc.h.
#include <memory>
#include <string>

#include "models/compression/compression.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

// A coding unit's pixel footprint by the number of components (drm_fourcc.h, "AFRC coding unit"; Mesa
// pan_afrc_clump_size, rotation-optimised layout): 1 component 8x8, 2 components 8x4, 3 or 4 components
// 4x4. So a unit always holds 64 components, except 3-component units (48).
struct UnitShape {
  uint32_t width, height;
};
UnitShape unit_shape(uint32_t components) {
  if (components == 1) return {8, 8};
  if (components == 2) return {8, 4};
  return {4, 4};
}

// Units are grouped into paging tiles of 8x8 units (Mesa AFRC_CLUMPS_PER_TILE = 64, pan_afrc_tile_size in
// the rotation layout): the allocation covers whole tiles.
constexpr uint32_t kUnitsPerTileSide = 8;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

class Afrc final : public CompressionModel {
 public:
  explicit Afrc(Params& params)
      // 24 B: Mesa panfrost's default rate (pan_afrc_get_modifiers: AFRC_FORMAT_MOD_CU_SIZE_24 for
      // PAN_AFRC_RATE_DEFAULT); 16, 24 and 32 are the three sizes drm_fourcc.h defines.
      : m_unit_bytes(uint32_t(std::stoul(params.choice("unit_bytes", "24", {"16", "24", "32"},
                                                       "bytes per coding unit (drm_fourcc.h AFRC_FORMAT_MOD_CU_SIZE_*)")))) {}

  Eligibility eligibility(const ImageTraits& image) const override {
    // Mesa pan_afrc_get_format_info: color formats whose components all have the same size, 8 bits here
    // (10-bit RGBA has no trace format); no depth/stencil. AFRC images are rendered to or sampled, never
    // storage images (pan_afrc.h), and the shared single-sample 2D optimal-tiling rules apply (Arm's learning path:
    // "AFRC supports a subset of the texture formats supported by AFBC").
    static const char* const kFormats[] = {"RGBA8", "BGRA8", "RGB8", "R8", "RG8"};
    if (std::string reason = shared_ineligibility(image, true); !reason.empty()) return {false, reason};
    if (std::none_of(std::begin(kFormats), std::end(kFormats), [&](const char* f) { return image.format == f; }))
      return {false, "format " + image.format + " not supported by AFRC"};
    return {true, ""};
  }

  // Every coding unit with a pixel present costs its fixed size: a partial store still writes whole units.
  Bytes superblock_bytes(const SuperblockPixels& b) const override {
    const UnitShape u = unit_shape(b.channels);
    uint64_t units = 0;
    for (uint32_t uy = 0; uy < kSuperblockSize; uy += u.height)
      for (uint32_t ux = 0; ux < kSuperblockSize; ux += u.width) units += unit_has_pixel(b, ux, uy, u) ? 1 : 0;
    return Bytes(units * m_unit_bytes);
  }

  // Whole paging tiles of 8x8 units, each unit at its fixed size (Mesa pan_afrc_row_stride).
  Bytes allocation_bytes(const ImageTraits& image) const override {
    const UnitShape u = unit_shape(image.channels);
    const uint64_t tiles_x = ceil_div(image.width, uint64_t(u.width) * kUnitsPerTileSide);
    const uint64_t tiles_y = ceil_div(image.height, uint64_t(u.height) * kUnitsPerTileSide);
    const uint64_t units = tiles_x * tiles_y * kUnitsPerTileSide * kUnitsPerTileSide;
    return Bytes(units * m_unit_bytes * image.samples * image.array_layers);
  }

 private:
  static bool unit_has_pixel(const SuperblockPixels& b, uint32_t x0, uint32_t y0, UnitShape u) {
    for (uint32_t y = y0; y < y0 + u.height; ++y)
      for (uint32_t x = x0; x < x0 + u.width; ++x)
        if (b.present[y * kSuperblockSize + x]) return true;
    return false;
  }

  uint32_t m_unit_bytes;
};

const Registrar<CompressionModel> afrc_registrar(
    "compression", "afrc",
    "Arm AFRC (fixed-rate): 16, 24 or 32 B per coding unit of 64 components (48 for RGB), whatever the pixels",
    [](Params& p) { return std::make_unique<Afrc>(p); });

}  // namespace
}  // namespace tbdr::models
