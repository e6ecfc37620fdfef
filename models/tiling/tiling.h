// The `tiling` kind: chooses the tile size of a (hardware) pass before binning.
// sim/ bins and executes the pass with the size it returns; implementations live in models/tiling/*.cpp.
#pragma once

#include <cstdint>
#include <string>

#include "models/model.h"
#include "models/work.h"

namespace tbdr::models {

// The tile size of one pass, in pixels.
struct TileSize {
  uint32_t width = 16, height = 16;  // pixels, each >= 1
  std::string reason;                // why this size, for reports ("fixed 16x16")
};

// Contract:
// - Given: the pass's TilingInput (render area in pixels and its attachments' per-pixel storage).
// - Returns: TileSize with width >= 1 and height >= 1 in pixels. Any size is allowed, including
//   non-powers of two and sizes larger than the render area (sim/ clips the last row/column of tiles
//   to the render area); sim/ must not assume powers of two (tools/doc/design.md "Design rules").
// - `reason` says in a few words why the size was chosen; it is copied into reports verbatim.
// - Called once per pass, never per tile or pixel; must be deterministic (same input, same output)
//   and must not keep state between calls.
class TilingModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "tiling";
  static constexpr const char* k_description = "tile size of each pass (pixels)";

  virtual TileSize choose_tile_size(const TilingInput& input) const = 0;
};

}  // namespace tbdr::models
