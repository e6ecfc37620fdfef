// The vocabulary models are handed: small structs of work counts that sim/ fills and models/ reads.
// models/ never sees sim/'s types (imports point tools -> frontend -> sim -> models), only these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/units.h"

namespace tbdr::models {

// One attachment of a render pass, as the tiling model sees it: what it costs per pixel in the tile buffer.
struct AttachmentWork {
  uint32_t bytes_per_pixel = 0;  // one sample of the attachment's format, in bytes
  uint32_t samples = 1;          // MSAA sample count (storage per pixel = bytes_per_pixel * samples)
  bool is_color = false;
  bool is_depth_stencil = false;
  bool transient = false;  // lazily allocated: lives only in the tile buffer (Vulkan LAZILY_ALLOCATED)
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

// ---- timing (cycle-approximate) ----------------------------------------------------------------

// Layer counts deeper than this are counted in the last histogram slot.
constexpr size_t kMaxTrackedLayers = 16;

// One tile of a hardware pass, as the per-tile timing models see it. sim/ counts it while it
// rasterizes the tile; the HSR policy has already decided which fragments are shaded.
struct TileWork {
  uint32_t pixels = 0;                 // pixels of the tile inside the render area
  uint32_t samples = 1;                // samples per pixel of the pass
  uint64_t primitives = 0;             // tile-list entries processed (triangle set-ups)
  uint64_t quads_rasterized = 0;       // 2x2 quads with at least one covered sample, per primitive
  uint64_t fragments_rasterized = 0;   // pixels with at least one covered sample, per primitive
  uint64_t quads_shaded = 0;           // 2x2 quads with at least one shaded fragment, per primitive
  uint64_t fragments_shaded = 0;
  // Shader work summed over shaded quads, 4 lanes each (helper lanes cost like real ones):
  // 4 x the draw's `cost` field per shaded quad.
  double alu_cycles = 0;               // ALU cycles (cost.alu, per lane)
  double texture_samples = 0;
  double tile_reads = 0;               // tile-memory reads (input attachments)
  double varyings = 0;
  uint64_t blended_samples = 0;        // color samples written with blending on
  uint64_t written_samples = 0;        // color samples written
  uint64_t clear_pixels = 0;           // mid-pass clears
  // Samples those clears write, over the attachments they clear: vkCmdClearAttachments runs as
  // fragment work, unlike loadOp CLEAR (models/README.md "Sources: render passes and load/store ops").
  uint64_t cleared_samples = 0;
  Bytes load_bytes;                    // tile buffer filled from DRAM
  Bytes store_bytes;                   // tile buffer written to DRAM (stores and resolves)
  uint64_t resolve_pixels = 0;         // inline resolves
  Bytes tile_buffer_bytes;             // on-chip tile-buffer traffic (reads + writes), for energy
  // Per-pixel layer counts of shaded fragments that read tile memory (cost.tile_reads > 0):
  // layer_histogram[L] = pixels with L such layers (L >= kMaxTrackedLayers - 1 in the last slot).
  uint64_t layer_histogram[kMaxTrackedLayers] = {};
  double tile_reads_per_fragment = 0;  // mean tile reads of those fragments
};

// The geometry phase of one hardware pass.
struct GeometryWork {
  uint64_t vertices = 0;               // vertex shader invocations
  double vertex_alu_cycles = 0;        // sum of cost.vertex_alu over them
  uint64_t primitives_in = 0;          // triangles assembled
  uint64_t primitives = 0;             // triangles binned
  uint64_t tile_list_entries = 0;
  uint64_t vertex_read_bytes = 0;      // the pass's vertex ledger: every attribute and index read
  uint64_t position_read_bytes = 0;    // its positions and indices alone (a position-only binning pass);
                                       // whole vertices of meshes that interleave them (MESH `interleaved`)
  bool binned = false;                 // tiled: a binning pass ran before the tiles (not direct, not IMR)
};

// ---- bandwidth savers (AFBC, transaction elimination, empty tiles) --------------------------------

// An image as the savers' eligibility rules see it (models/README.md "Sources: bandwidth savers").
struct ImageTraits {
  std::string format;            // trace format name, e.g. "RGBA8"
  uint32_t bytes_per_pixel = 4;
  uint32_t channels = 4;         // color channels (0 for depth/stencil formats)
  bool depth_stencil = false;    // a depth and/or stencil format
  uint32_t width = 0, height = 0;
  uint32_t samples = 1;
  uint32_t mip_levels = 1;
  uint32_t array_layers = 1;
  bool color_attachment = false; // `color_attachment` usage
  bool storage = false;          // `storage` usage
  bool transient = false;
  bool alias = false;
  bool mutable_format = false;
  bool linear = false;           // image_tiling linear
};

// Whether a bandwidth saver applies to an image: sim/ branches on `eligible`, the reports print
// `reason` (why not; empty when eligible), so no code compares report text.
struct Eligibility {
  bool eligible = false;
  std::string reason;
};

// The pixels of one 16x16 superblock of an image, as integer channel codes (unorm formats:
// round(c * (2^bits - 1))), row-major; pixels outside the image are marked absent.
constexpr uint32_t kSuperblockSize = 16;
struct SuperblockPixels {
  uint32_t channels = 4;
  uint32_t channel_bits[4] = {8, 8, 8, 8};
  uint32_t bytes_per_pixel = 4;
  // The image's size and this superblock's top-left pixel (0 when unknown): UBWC spreads its
  // per-image flag buffer over the superblocks.
  uint32_t image_width = 0, image_height = 0, origin_x = 0, origin_y = 0;
  bool present[kSuperblockSize * kSuperblockSize] = {};
  uint32_t codes[kSuperblockSize * kSuperblockSize][4] = {};
};

}  // namespace tbdr::models
