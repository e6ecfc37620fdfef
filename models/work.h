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

// One subpass of a render pass, as the merge model sees it. Attachment numbers index
// MergeInput::attachments (the render pass's attachment list).
struct SubpassWork {
  std::vector<uint32_t> color;     // written as color attachments
  int32_t depth = -1;              // depth/stencil attachment, -1: none
  std::vector<uint32_t> input;     // read with subpassLoad (same pixel)
  std::vector<uint32_t> resolve;   // inline resolve targets
  uint32_t samples = 1;            // sample count of its color/depth attachments
};

// Everything a merge model may use to group a render pass's subpasses into hardware passes.
struct MergeInput {
  std::vector<AttachmentWork> attachments;
  std::vector<SubpassWork> subpasses;
};

}  // namespace tbdr::models
