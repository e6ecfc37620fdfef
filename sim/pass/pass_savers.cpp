// The savers stage: AFBC (Arm Frame Buffer Compression) superblock sizes and transaction
// elimination signatures of a hardware pass's stored blocks, computed from the real pixels
// (models/README.md "compression", "write_elim", "empty_tile").
#include "sim/pass/pass_savers.h"

#include <algorithm>
#include <atomic>

#include "sim/parallel.h"

namespace tbdr {
namespace {

// Runs body(b) for b in [0, count) on up to `threads` threads, 64 blocks at a time; each b
// touches only its own data.
template <class Body>
void parallel_blocks(uint32_t threads, uint32_t count, Body body) {
  const size_t workers = std::max<size_t>(1, std::min<size_t>(threads, count / 64));
  if (workers <= 1) {
    for (uint32_t b = 0; b < count; ++b) body(b);
    return;
  }
  std::atomic<uint32_t> next{0};
  for_blocks(uint32_t(workers), [&](uint32_t) {
    for (uint32_t start = next.fetch_add(64); start < count; start = next.fetch_add(64))
      for (uint32_t b = start; b < std::min(count, start + 64); ++b) body(b);
  });
}

// A block's pixels as the savers read them: packed 8-bit codes where the block allows
// (packed_superblock), else 32-bit codes. One a thread, rewritten for each block: a new
// SuperblockPixels zeroed its 4 KiB of codes for every block (1 % of the default trace's
// instructions under mali-g710).
struct BlockCodes {
  bool is_packed = false;
  models::PackedSuperblock packed;
  models::SuperblockPixels pixels;

  static BlockCodes& of(const Surface& surface, uint32_t block) {
    thread_local BlockCodes codes;
    codes.is_packed = packed_superblock(surface, block, codes.packed);
    if (!codes.is_packed) superblock_pixels(surface, block, codes.pixels);
    return codes;
  }
  uint64_t compressed_bytes(const models::CompressionModel& model) const {
    return (is_packed ? model.packed_superblock_bytes(packed) : model.superblock_bytes(pixels)).value;
  }
  // The TE signature as ImageSaverState keeps it: (1 << 32) | the model's signature of the stored bytes.
  uint64_t signature(const models::WriteElimModel& model) const {
    if (is_packed) return (uint64_t(1) << 32) | model.signature(packed.codes, sizeof packed.codes);
    uint8_t scratch[kBlockBytesMax];
    const std::span<const uint8_t> content = block_bytes(pixels, scratch);
    return (uint64_t(1) << 32) | model.signature(content.data(), content.size());
  }
};

// The compressed size of a superblock of `surface` as the image holds it now (recomputed when unknown).
uint64_t afbc_bytes(const SaverContext& ctx, int32_t image, const Surface& surface, uint32_t block) {
  ImageSaverState& state = ctx.savers->image(image);
  if (state.afbc_bytes.empty()) state.afbc_bytes.assign(BlockGrid(surface).count(), UINT64_MAX);
  if (state.afbc_bytes[block] == UINT64_MAX)
    state.afbc_bytes[block] = BlockCodes::of(surface, block).compressed_bytes(*ctx.models->compression);
  return state.afbc_bytes[block];
}

// Loads: the pre-pass sizes (size_compressed_loads), which the stores replace.
void apply_to_loads(const SaverContext& ctx, size_t i, const std::vector<uint32_t>& loaded, AttachmentStats& as,
                    DramLedger& physical, std::vector<int64_t>& block_delta) {
  if (loaded.empty()) return;
  block_delta.resize(loaded.size(), 0);
  const PassAttachment& a = ctx.setup->attachments[i];
  const bool afbc = as.compressed;
  uint64_t raw = 0, bytes = 0;
  for (uint32_t b = 0; b < loaded.size(); ++b) {
    if (!loaded[b]) continue;
    const uint64_t block_raw = uint64_t(loaded[b]) * a.bytes_per_pixel;
    const uint64_t block_physical = afbc ? afbc_bytes(ctx, a.desc->image, *a.surface, b) : block_raw;
    block_delta[b] += int64_t(block_physical) - int64_t(block_raw);
    raw += block_raw;
    bytes += block_physical;
  }
  physical[DramCategory::attachment_load].read_bytes -= raw;
  physical[DramCategory::attachment_load].read_bytes += bytes;
  as.load_raw_bytes += raw;
  as.load_bytes += bytes;
}

// The per-block pixel work of the stored blocks (AFBC sizes into the image's state, TE
// signatures returned): distinct blocks are independent, so it runs on the pass's threads and is
// folded in block order by the caller. Both read the block's pixel codes, extracted once.
std::vector<uint64_t> size_and_sign_stored(const SaverContext& ctx, const Surface& surface,
                                           const std::vector<uint32_t>& stored, bool afbc, bool te,
                                           ImageSaverState& state) {
  std::vector<uint64_t> signature(te ? stored.size() : 0, 0);
  if (afbc) state.afbc_bytes.assign(BlockGrid(surface).count(), UINT64_MAX);  // rewritten: resized
  if (!afbc && !te) return signature;
  parallel_blocks(ctx.threads, uint32_t(stored.size()), [&](uint32_t b) {
    if (!stored[b]) return;
    const BlockCodes& codes = BlockCodes::of(surface, b);
    if (afbc) state.afbc_bytes[b] = codes.compressed_bytes(*ctx.models->compression);
    if (te) signature[b] = codes.signature(*ctx.models->write_elim);
  });
  return signature;
}

// Stores: AFBC sizes from the stored pixels, then a block whose signature equals the one its
// image last stored there is not written (transaction elimination).
void apply_to_stores(const SaverContext& ctx, size_t i, const std::vector<uint32_t>& stored, AttachmentStats& as,
                     DramLedger& physical, std::vector<int64_t>& block_delta) {
  if (stored.empty()) return;
  block_delta.resize(stored.size(), 0);
  const PassAttachment& a = ctx.setup->attachments[i];
  const bool afbc = as.compressed, te = as.te_checked;
  const Surface& surface = *a.surface;
  ImageSaverState& state = ctx.savers->image(a.desc->image);
  std::vector<uint64_t>& signatures = state.signatures[ctx.frame % state.signatures.size()];
  if (te && signatures.empty()) signatures.assign(BlockGrid(surface).count(), 0);
  const std::vector<uint64_t> block_signature = size_and_sign_stored(ctx, surface, stored, afbc, te, state);
  if (ctx.block_maps && as.block_ratio.empty()) {
    const BlockGrid grid(surface);
    as.block_cols = grid.cols;
    as.block_rows = grid.rows;
    as.block_ratio.assign(grid.count(), -1.0f);
    as.block_kills.assign(grid.count(), 0);
  }
  uint64_t raw = 0, bytes = 0;
  for (uint32_t b = 0; b < stored.size(); ++b) {
    if (!stored[b]) continue;
    const uint64_t block_raw = uint64_t(stored[b]) * a.bytes_per_pixel;
    uint64_t block_physical = afbc ? afbc_bytes(ctx, a.desc->image, surface, b) : block_raw;
    if (ctx.block_maps) as.block_ratio[b] = float(double(block_physical) / double(block_raw));
    if (te) {
      ++as.te_blocks;
      if (signatures[b] == block_signature[b]) {
        ++as.te_blocks_killed;
        if (ctx.block_maps) ++as.block_kills[b];
        as.te_bytes_saved += block_physical;
        block_physical = 0;
      }
      signatures[b] = block_signature[b];
    }
    block_delta[b] += int64_t(block_physical) - int64_t(block_raw);
    raw += block_raw;
    bytes += block_physical;
  }
  const DramCategory category = a.resolve_target ? DramCategory::resolve : DramCategory::attachment_store;
  physical[category].write_bytes -= raw;
  physical[category].write_bytes += bytes;
  as.store_raw_bytes += raw;
  as.store_bytes += bytes;
}

// Sampled reads of compressed images fetch whole superblocks at their compressed size.
void apply_to_sampled_reads(const SaverContext& ctx, const Footprints& footprints, DramLedger& physical) {
  const Trace& trace = *ctx.setup->trace;
  for (const Footprints::ImageLevel& level : footprints.image_levels()) {
    const ImageDesc& image = trace.images[size_t(level.image)];
    if (image.transient || level.mip != 0 || level.layer != 0) continue;
    if (!ctx.models->compression->eligibility(image_traits(image)).eligible) continue;
    const Surface& surface = ctx.store->surface(level.image, 0, 0);
    const BlockGrid grid(surface);
    std::vector<bool> touched(grid.count(), false);
    uint64_t texels = 0;
    for (size_t t = 0; t < size_t(surface.width) * surface.height; ++t) {
      if (!((level.bits[t >> 6] >> (t & 63)) & 1)) continue;
      ++texels;
      touched[(uint32_t(t / surface.width) / models::kSuperblockSize) * grid.cols +
              uint32_t(t % surface.width) / models::kSuperblockSize] = true;
    }
    uint64_t bytes = 0;
    for (uint32_t b = 0; b < grid.count(); ++b)
      if (touched[b]) bytes += afbc_bytes(ctx, level.image, surface, b);
    physical[DramCategory::image_sample].read_bytes -= texels * format_info(image.format).bytes_per_pixel;
    physical[DramCategory::image_sample].read_bytes += bytes;
  }
}

}  // namespace

void size_compressed_loads(const SaverContext& ctx, const HardwarePassPlan& plan,
                           const std::vector<AttachmentStats>& attachments) {
  for (size_t a = 0; a < plan.access.size(); ++a) {
    const PassAttachment& pa = ctx.setup->attachments[a];
    if (plan.access[a].load != LoadSource::api || !pa.loads || pa.image->transient) continue;
    if (!attachments[a].compressed) continue;
    for (uint32_t b = 0; b < BlockGrid(*pa.surface).count(); ++b) afbc_bytes(ctx, pa.desc->image, *pa.surface, b);
  }
}

void apply_savers(const SaverContext& ctx, const AttachmentBlocks& blocks, const Footprints& footprints,
                  std::vector<AttachmentStats>& attachments, DramLedger& physical,
                  std::vector<std::vector<int64_t>>& block_deltas) {
  block_deltas.assign(ctx.setup->attachments.size(), {});
  for (size_t i = 0; i < ctx.setup->attachments.size(); ++i) {
    AttachmentStats& as = attachments[i];
    as.empty_tile_bytes_saved += blocks.empty_saved_load[i] + blocks.empty_saved_store[i];
    apply_to_loads(ctx, i, blocks.loaded[i], as, physical, block_deltas[i]);
    apply_to_stores(ctx, i, blocks.stored[i], as, physical, block_deltas[i]);
  }
  apply_to_sampled_reads(ctx, footprints, physical);
}

}  // namespace tbdr
