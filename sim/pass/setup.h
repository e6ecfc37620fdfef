// Stage 0 of a render pass: its attachments, draws and render area resolved once from the trace
// (PassSetup), and the per-attachment records the report starts from.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/registry.h"
#include "sim/frame.h"
#include "sim/geometry.h"
#include "sim/stats.h"
#include "sim/surface.h"

namespace tbdr {

Rect intersect(const Rect& a, const Rect& b);
inline uint64_t pixels(const Rect& r) { return uint64_t(r.width) * r.height; }

// One attachment of a render pass, resolved once.
struct PassAttachment {
  const Attachment* desc = nullptr;
  const ImageDesc* image = nullptr;
  Surface* surface = nullptr;   // the image's DRAM contents
  bool color = false;
  bool resolve_target = false;  // written by an inline resolve: its store counts as `resolve`
  bool loads = false;           // some aspect has loadOp LOAD
  bool stores = false;          // some aspect has storeOp STORE
  uint64_t bytes_per_pixel = 0; // bytes x samples
};

// Everything the stages of a render pass read about it, fixed before any of them runs.
struct PassSetup {
  const Trace* trace = nullptr;
  const Pass* pass = nullptr;
  std::string where;  // FILE: /frames/F/passes/P, for errors
  std::vector<PassAttachment> attachments;
  Rect area;          // the render area
  uint32_t framebuffer_width = 0, framebuffer_height = 0;
  uint32_t samples = 1;  // the largest sample count of a subpass's color and depth attachments
  std::vector<PassDraw> draws;  // every draw of the pass, in subpass order
  // Per draw: its scissor within the render area (binning) and one primitive's parameter-buffer
  // record (traces/README.md: 3 vertices x (16 B screen position + 4 B per varying component)).
  std::vector<Rect> draw_clip;
  std::vector<uint64_t> draw_record_bytes;
};

// Resolves the pass's attachments (one size for all, the render area inside them) and draws;
// throws InputError naming `where` for what the trace reader could not check.
PassSetup prepare_pass(const Trace& trace, const Pass& pass, const std::string& where, ImageStore& store);

// Attachment numbers a subpass references (color, input, resolve, depth, depth resolve).
std::vector<uint32_t> subpass_references(const Subpass& sp);
// The sample count of a subpass's color (else depth) attachments.
uint32_t subpass_samples(const PassSetup& setup, const Subpass& sp);
// An attachment as the tiling and merge models see it.
models::AttachmentWork attachment_work(const PassAttachment& a);

// The report's per-attachment records before any tile runs: image, format, pixel source, and
// whether the compression and write-elimination models may apply to it.
std::vector<AttachmentStats> describe_attachments(const PassSetup& setup, const models::ModelSet& models);

}  // namespace tbdr
