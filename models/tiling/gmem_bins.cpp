// tiling=gmem_bins: Adreno bins sized from GMEM capacity, as Mesa turnip does
// (models/README.md "Sources: preset numbers").
//
// 1. Bytes per pixel: cpp = sum over the pass's attachments (color and depth/stencil) of
//    bytes_per_pixel x samples; the bin may hold gmem_pixels = floor(gmem_bytes / cpp) pixels
//    (turnip tu_render_pass_gmem_config splits GMEM among attachments in proportion to cpp, in
//    gmem_align blocks; the block rounding is not modeled). No attachment: gmem_pixels = 1024 x 1024,
//    turnip's "any non-zero value".
// 2. Bin layout (turnip tu_tiling_config_update_tile_layout, src/freedreno/vulkan/tu_util.cc): start
//    from one bin of the render area aligned up (w = align(W, align_width), h = align(H, align_height));
//    add columns while w > max_width, rows while h > max_height; then while w x h > gmem_pixels, add a
//    column if w > max(align_width, h), else a row; after each step w = align(ceil(W / columns),
//    align_width) and h = align(ceil(H / rows), align_height). The usual summary says "halve the
//    longer side"; turnip adds one bin at a time along the longer side, which this follows.
// 3. A pass whose bytes per pixel exceed even one aligned bin (turnip: gmem_pixels = 0, forced sysmem)
//    gets the smallest aligned bin and a reason saying it does not fit.
#include <algorithm>
#include <memory>
#include <string>

#include "models/registry.h"
#include "models/tiling/tiling.h"

namespace tbdr::models {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
uint64_t div_up(uint64_t v, uint64_t d) { return (v + d - 1) / d; }

class GmemBins final : public TilingModel {
 public:
  explicit GmemBins(Params& p)
      // 3 MB: Adreno A740 GMEM (Linux msm driver; models/README.md "Sources: preset numbers").
      : m_gmem(uint64_t(p.integer("gmem_bytes", 3 * 1024 * 1024, "B", "GMEM capacity", 1, int64_t(1) << 32))),
        // 96 x 32: A740 tile_align_w / tile_align_h (Mesa src/freedreno/common/a7xx_gpu.py).
        m_align_w(uint32_t(p.integer("align_width", 96, "px", "bin width alignment", 1, 4096))),
        m_align_h(uint32_t(p.integer("align_height", 32, "px", "bin height alignment", 1, 4096))),
        // 1024 x 1008: A6xx maximum bin (Mesa tile_max_w / tile_max_h).
        m_max_w(uint32_t(p.integer("max_width", 1024, "px", "largest bin width", 1, 4096))),
        m_max_h(uint32_t(p.integer("max_height", 1008, "px", "largest bin height", 1, 4096))) {}

  TileSize choose_tile_size(const TilingInput& in) const override {
    uint64_t cpp = 0;
    for (const AttachmentWork& a : in.attachments) cpp += uint64_t(a.bytes_per_pixel) * a.samples;
    const uint64_t W = std::max<uint32_t>(in.render_width, 1), H = std::max<uint32_t>(in.render_height, 1);
    const uint64_t gmem_pixels = cpp ? m_gmem / cpp : 1024 * 1024;
    uint64_t cols = 1, rows = 1;
    uint64_t w = align_up(W, m_align_w), h = align_up(H, m_align_h);
    auto add_col = [&] { w = align_up(div_up(W, ++cols), m_align_w); };
    auto add_row = [&] { h = align_up(div_up(H, ++rows), m_align_h); };
    // cols < W / rows < H: once one pixel per bin is reached, the aligned size cannot shrink further.
    while (w > m_max_w && cols < W) add_col();
    while (h > m_max_h && rows < H) add_row();
    bool fits = true;
    while (w * h > gmem_pixels) {
      if (w > std::max<uint64_t>(m_align_w, h) && cols < W) {
        add_col();
      } else if (h > m_align_h && rows < H) {
        add_row();
      } else if (cols < W && w > m_align_w) {
        add_col();
      } else {
        fits = false;  // even the smallest aligned bin exceeds GMEM (turnip would force sysmem)
        break;
      }
    }
    const std::string size = std::to_string(w) + "x" + std::to_string(h);
    std::string reason = "bin " + size + " (" + std::to_string(cols) + "x" + std::to_string(rows) + " bins): " +
                         std::to_string(cpp) + " B/px, GMEM " + std::to_string(m_gmem) + " B holds " +
                         std::to_string(gmem_pixels) + " px";
    if (!fits) reason += "; does not fit: " + std::to_string(w * h) + " px exceeds it";
    return TileSize{uint32_t(w), uint32_t(h), reason};
  }

 private:
  uint64_t m_gmem;
  uint32_t m_align_w, m_align_h, m_max_w, m_max_h;
};

const Registrar<TilingModel> gmem_bins_registrar(
    "tiling", "gmem_bins",
    "Adreno/turnip bins: GMEM split by bytes per pixel, one more bin along the longer side until it fits, aligned",
    [](Params& p) { return std::make_unique<GmemBins>(p); });

}  // namespace
}  // namespace tbdr::models
