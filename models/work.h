// The vocabulary models are handed: small structs of work counts that sim/ fills and models/ reads.
// models/ never sees sim/'s types (imports point tools -> frontend -> sim -> models), only these.
#pragma once

#include <cstdint>
#include <vector>

namespace tbdr::models {

// One attachment of a render pass, as the tiling model sees it: what it costs per pixel in the tile buffer.
struct AttachmentWork {
  uint32_t bytes_per_pixel = 0;  // one sample of the attachment's format, in bytes
  uint32_t samples = 1;          // MSAA sample count (storage per pixel = bytes_per_pixel * samples)
  bool is_color = false;
  bool is_depth_stencil = false;
  bool transient = false;  // lazily allocated: lives only in the tile buffer (domain.md section 2)
};

// Everything a tiling model may use to choose a tile size for one (hardware) pass.
struct TilingInput {
  uint32_t render_width = 0, render_height = 0;  // render area in pixels
  std::vector<AttachmentWork> attachments;
};

}  // namespace tbdr::models
