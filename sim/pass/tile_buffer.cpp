// The tile-buffer stage: loads, stores, mid-pass clears and inline resolves of one tile, each
// attachment's source and destination taken from the plan's AttachmentAccess (traces/README.md,
// "DRAM ledger", for the bytes each moves).
#include "sim/pass/tile_buffer.h"

#include <algorithm>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "sim/format.h"
#include "sim/savers.h"

namespace tbdr {
namespace {

// Sets n colors to `color`, four a step: std::fill over Eigen's Vec4 took 5 instructions a pixel
// (callgrind, the default trace's clears), a third of a tile's load.
void fill_colors(Vec4* out, size_t n, const Vec4& color) {
#if defined(__SSE2__)
  const __m128 v = _mm_loadu_ps(color.data());
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    _mm_storeu_ps(out[i].data(), v);
    _mm_storeu_ps(out[i + 1].data(), v);
    _mm_storeu_ps(out[i + 2].data(), v);
    _mm_storeu_ps(out[i + 3].data(), v);
  }
  for (; i < n; ++i) _mm_storeu_ps(out[i].data(), v);
#else
  std::fill_n(out, n, color);
#endif
}

// Sets every sample of the color and depth aspects (unless `main` is false) and of the stencil
// aspect (unless `stencil` is) to the given values.
void fill_surface(Surface& s, const Vec4& color, float depth, uint8_t stencil_value, bool main = true,
                  bool stencil = true) {
  if (main) {
    fill_colors(s.color.data(), s.color.size(), color);
    std::fill(s.depth.begin(), s.depth.end(), depth);
  }
  if (stencil) std::fill(s.stencil.begin(), s.stencil.end(), stencil_value);
}

// An attachment-sized surface of `pool`, allocated on first use.
Surface& driver_surface(std::vector<Surface>& pool, const PassSetup& setup, size_t attachment) {
  if (pool.size() < setup.attachments.size()) pool.resize(setup.attachments.size());
  Surface& s = pool[attachment];
  if (s.width == 0) {
    const Surface& image = *setup.attachments[attachment].surface;
    s = Surface(image.format, image.width, image.height, image.samples);
  }
  return s;
}

// Pixels of `rect` per 16x16 block of the attachment's image (the savers' grid).
void count_blocks(std::vector<uint32_t>& counts, const Surface& surface, const Rect& rect) {
  const BlockGrid grid(surface);
  if (counts.empty()) counts.assign(grid.count(), 0);
  const uint32_t n = models::kSuperblockSize;
  for (uint32_t by = uint32_t(rect.y) / n; by <= (uint32_t(rect.y) + rect.height - 1) / n; ++by)
    for (uint32_t bx = uint32_t(rect.x) / n; bx <= (uint32_t(rect.x) + rect.width - 1) / n; ++bx) {
      const uint32_t x0 = std::max(bx * n, uint32_t(rect.x)), x1 = std::min((bx + 1) * n, uint32_t(rect.x) + rect.width);
      const uint32_t y0 = std::max(by * n, uint32_t(rect.y)), y1 = std::min((by + 1) * n, uint32_t(rect.y) + rect.height);
      counts[by * grid.cols + bx] += (x1 - x0) * (y1 - y0);
    }
}

// The load of an attachment by its loadOp (or a spill's reload, as LOAD): LOAD copies the
// image's rows, CLEAR fills the clear value; DONT_CARE and NONE leave the tile undefined: zero
// here, the same in both paths. Returns whether some aspect is cleared.
bool load_by_op(const PassAttachment& a, const Surface& src, const Rect& rect, bool as_load, Surface& tb) {
  const Attachment& d = *a.desc;
  const LoadOp main_op = as_load ? LoadOp::load : d.load, stencil_op = as_load ? LoadOp::load : d.stencil_load;
  const Vec4 clear_color = quantize_color(a.image->format, d.clear.color);
  const float clear_depth = quantize_depth(a.image->format, d.clear.depth);
  const bool main_clear = main_op == LoadOp::clear, stencil_clear = stencil_op == LoadOp::clear;
  copy_region(src, rect, tb, 0, 0, main_op == LoadOp::load, stencil_op == LoadOp::load);
  fill_surface(tb, main_clear ? clear_color : Vec4(Vec4::Zero()), main_clear ? clear_depth : 0.0f,
               stencil_clear ? uint8_t(d.clear.stencil) : uint8_t(0), main_op != LoadOp::load,
               stencil_op != LoadOp::load);
  return main_clear || (tb.has_stencil() && stencil_clear);
}

// The store of an attachment by its storeOp (or a spill, every aspect): the API's store of an
// attachment with given (captured) contents writes those pixels, the program's own, in place of
// the stand-in programs' (every sample gets the pixel's value).
void store_by_op(const PassAttachment& a, const Surface& tb, const Rect& rect, bool spill, Surface& dst) {
  const Attachment& d = *a.desc;
  const bool store_main = spill || d.store == StoreOp::store;
  const bool store_stencil = spill || d.stencil_store == StoreOp::store;
  const ImageContents* given = spill ? nullptr : (d.contents ? &*d.contents : nullptr);
  const FormatInfo& info = format_info(a.image->format);
  if (!given) copy_region(tb, Rect{0, 0, rect.width, rect.height}, dst, rect.x, rect.y, store_main, store_stencil);
  if (given && tb.samples == 1 && dst.samples == 1 && store_main && tb.has_color() && !tb.has_depth() &&
      !tb.has_stencil()) {
    // A single-sample color attachment: its given rows quantized a row at a time (quantize_colors:
    // per-pixel quantize_color calls were half of a captured frame's run).
    for (uint32_t y = 0; y < rect.height; ++y) {
      const uint32_t gy = uint32_t(rect.y) + y;
      const size_t row = size_t(gy) * dst.width + uint32_t(rect.x);
      quantize_colors(a.image->format, &given->pixels[row], &dst.color[dst.index(uint32_t(rect.x), gy, 0)], rect.width);
    }
    return;
  }
  for (uint32_t y = 0; given && y < rect.height; ++y)
    for (uint32_t x = 0; x < rect.width; ++x) {
      const uint32_t gx = uint32_t(rect.x) + x, gy = uint32_t(rect.y) + y;
      const Vec4& g = given->pixels[size_t(gy) * dst.width + gx];
      for (uint32_t s = 0; s < tb.samples; ++s) {
        const size_t ti = tb.index(x, y, s), di = dst.index(gx, gy, s);
        if (store_main && tb.has_color()) dst.color[di] = quantize_color(a.image->format, g);
        if (store_main && tb.has_depth()) dst.depth[di] = quantize_depth(a.image->format, g.x());
        if (store_stencil && tb.has_stencil())
          dst.stencil[di] = info.has_stencil ? uint8_t(std::clamp(g.y(), 0.0f, 255.0f)) : tb.stencil[ti];
      }
    }
}


// A pixel's depth samples resolved by `mode` (VkResolveModeFlagBits: SAMPLE_ZERO, AVERAGE, MIN, MAX).
float resolved_depth(const Surface& src, uint32_t x, uint32_t y, ResolveMode mode) {
  float v = src.depth[src.index(x, y, 0)];
  double sum = 0;
  for (uint32_t s = 0; s < src.samples; ++s) {
    const float z = src.depth[src.index(x, y, s)];
    sum += z;
    if (mode == ResolveMode::min) v = std::min(v, z);
    if (mode == ResolveMode::max) v = std::max(v, z);
  }
  if (mode == ResolveMode::average) v = float(sum / src.samples);
  return v;
}

// A pixel's stencil samples resolved by `mode` (SAMPLE_ZERO, MIN, MAX; Vulkan has no stencil average).
uint8_t resolved_stencil(const Surface& src, uint32_t x, uint32_t y, ResolveMode mode) {
  uint8_t v = src.stencil[src.index(x, y, 0)];
  for (uint32_t s = 0; s < src.samples; ++s) {
    const uint8_t st = src.stencil[src.index(x, y, s)];
    if (mode == ResolveMode::min) v = std::min(v, st);
    if (mode == ResolveMode::max) v = std::max(v, st);
  }
  return v;
}

// Destinations this large (an image, not a tile buffer) are written past the caches: each tile's
// rows land in lines nothing reads again soon, and an ordinary store first reads the line in.
constexpr size_t kStreamedSurfaceBytes = size_t(4) << 20;

// Copies n pixels with non-temporal stores (SSE2 MOVNTPS: no read for ownership; Intel 64 and
// IA-32 Architectures Optimization Reference Manual, "Non-temporal stores"); the caller's tile
// ends with a fence (copy_region).
void stream_pixels(const Vec4* src, size_t n, Vec4* dst) {
#if defined(__SSE2__)
  // Four pixels (a 64-byte line) a step: one at a time took 7 instructions a pixel (callgrind).
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 a = _mm_loadu_ps(src[i].data()), b = _mm_loadu_ps(src[i + 1].data());
    const __m128 c = _mm_loadu_ps(src[i + 2].data()), d = _mm_loadu_ps(src[i + 3].data());
    _mm_stream_ps(dst[i].data(), a);
    _mm_stream_ps(dst[i + 1].data(), b);
    _mm_stream_ps(dst[i + 2].data(), c);
    _mm_stream_ps(dst[i + 3].data(), d);
  }
  for (; i < n; ++i) _mm_stream_ps(dst[i].data(), _mm_loadu_ps(src[i].data()));
#else
  std::copy_n(src, n, dst);
#endif
}

}  // namespace

void copy_region(const Surface& src, const Rect& r, Surface& dst, int32_t dx, int32_t dy, bool main, bool stencil) {
  const size_t row = size_t(r.width) * src.samples;
  const bool color = main && src.has_color();
  const bool stream = color && dst.color.size() * sizeof(Vec4) >= kStreamedSurfaceBytes;
  // No aspect to copy (a load_by_op that clears every aspect): its rows' index arithmetic alone was
  // 7.4 M instructions of the default trace under the reference preset (callgrind).
  if (!color && !(main && src.has_depth()) && !(stencil && src.has_stencil())) return;
  for (uint32_t y = 0; y < r.height; ++y) {
    const size_t si = src.index(uint32_t(r.x), uint32_t(r.y) + y, 0), di = dst.index(uint32_t(dx), uint32_t(dy) + y, 0);
    if (stream) stream_pixels(src.color.data() + si, row, dst.color.data() + di);
    else if (color) std::copy_n(src.color.begin() + si, row, dst.color.begin() + di);
    if (main && src.has_depth()) std::copy_n(src.depth.begin() + si, row, dst.depth.begin() + di);
    if (stencil && src.has_stencil()) std::copy_n(src.stencil.begin() + si, row, dst.stencil.begin() + di);
  }
#if defined(__SSE2__)
  // Non-temporal stores are weakly ordered: another thread (the savers, the next pass) reads them.
  if (stream) _mm_sfence();
#endif
}

void DriverMemory::prepare(const PassSetup& setup, const std::vector<AttachmentAccess>& access) {
  for (size_t a = 0; a < access.size(); ++a) {
    if (access[a].load == LoadSource::merge_spill || access[a].store == StoreTarget::merge_spill)
      driver_surface(spill, setup, a);
    if (access[a].load == LoadSource::flush_reload || access[a].store == StoreTarget::flush_store)
      driver_surface(flush, setup, a);
  }
}

void AttachmentBlocks::reset(size_t attachments) {
  stored.assign(attachments, {});
  loaded.assign(attachments, {});
  empty_saved_load.assign(attachments, 0);
  empty_saved_store.assign(attachments, 0);
}

void AttachmentBlocks::add(const AttachmentBlocks& other) {
  auto add_counts = [](std::vector<uint32_t>& into, const std::vector<uint32_t>& from) {
    if (from.empty()) return;
    if (into.empty()) into.assign(from.size(), 0);
    for (size_t i = 0; i < from.size(); ++i) into[i] += from[i];
  };
  for (size_t a = 0; a < stored.size(); ++a) {
    add_counts(stored[a], other.stored[a]);
    add_counts(loaded[a], other.loaded[a]);
    empty_saved_load[a] += other.empty_saved_load[a];
    empty_saved_store[a] += other.empty_saved_store[a];
  }
}

void TileBuffer::load(const TileBufferInput& in, const Rect& rect, bool empty, PassCounters& counters) {
  const PassSetup& setup = *in.setup;
  surfaces.resize(setup.attachments.size());
  for (size_t i = 0; i < setup.attachments.size(); ++i) {
    const AttachmentAccess& access = (*in.access)[i];
    if (access.load == LoadSource::skip) continue;
    const PassAttachment& a = setup.attachments[i];
    Surface& tb = surfaces[i];
    // Every sample is written below, so the worker's tile buffer keeps its storage from tile to tile.
    tb.reshape(a.image->format, rect.width, rect.height, a.image->samples);
    const uint64_t bytes = pixels(rect) * a.bytes_per_pixel;
    switch (access.load) {
      case LoadSource::skip: break;
      case LoadSource::flush_reload:
        // Every attachment comes back from driver memory, even when transient (the flush backed it).
        copy_region(in.memory->flush[i], rect, tb);
        dram[DramCategory::attachment_load].read_bytes += bytes;
        counters.param_buffer_flush_load_bytes += bytes;
        break;
      case LoadSource::merge_spill:
        load_by_op(a, in.memory->spill[i], rect, true, tb);
        dram[DramCategory::attachment_load].read_bytes += bytes;
        break;
      case LoadSource::direct_cache:
        // A clear writes the render area to memory; a load reads nothing up front (misses read
        // what is touched). A direct render has no tile buffer to keep a transient attachment in.
        if (load_by_op(a, *a.surface, rect, false, tb))
          dram[a.color ? DramCategory::framebuffer_color : DramCategory::framebuffer_depth].write_bytes += bytes;
        break;
      case LoadSource::api:
        if (empty && access.empty_tile_eligible) {
          fill_surface(tb, Vec4::Zero(), 0.0f, 0);  // neither loaded nor stored: the image keeps its contents
          blocks.empty_saved_load[i] += bytes;
          break;
        }
        load_by_op(a, *a.surface, rect, false, tb);
        if (a.loads && !a.image->transient) {  // a transient image is never backed by DRAM
          dram[DramCategory::attachment_load].read_bytes += bytes;
          count_blocks(blocks.loaded[i], *a.surface, rect);
        }
        break;
    }
  }
}

void TileBuffer::store(const TileBufferInput& in, const Rect& rect, bool empty, PassCounters& counters) {
  const PassSetup& setup = *in.setup;
  for (size_t i = 0; i < setup.attachments.size(); ++i) {
    const AttachmentAccess& access = (*in.access)[i];
    const PassAttachment& a = setup.attachments[i];
    const uint64_t bytes = pixels(rect) * a.bytes_per_pixel;
    switch (access.store) {
      case StoreTarget::skip: break;
      case StoreTarget::flush_store:
        // Every attachment, depth and stencil, DONT_CARE and transient ones included (Imagination:
        // on a parameter-buffer overflow "color and depth/stencil of every tile are stored and
        // later read back"), for the next render to reload.
        copy_region(surfaces[i], Rect{0, 0, rect.width, rect.height}, in.memory->flush[i], rect.x, rect.y);
        dram[DramCategory::attachment_store].write_bytes += bytes;
        counters.param_buffer_flush_store_bytes += bytes;
        break;
      case StoreTarget::merge_spill:
        store_by_op(a, surfaces[i], rect, true, in.memory->spill[i]);
        dram[DramCategory::attachment_store].write_bytes += bytes;
        break;
      case StoreTarget::direct_cache:
        if (a.stores) store_by_op(a, surfaces[i], rect, false, *a.surface);  // its bytes went through the cache
        break;
      case StoreTarget::api:
        if (!a.stores) break;
        if (empty && access.empty_tile_eligible) {
          blocks.empty_saved_store[i] += bytes;
          break;
        }
        store_by_op(a, surfaces[i], rect, false, *a.surface);
        if (a.image->transient) break;  // lazily allocated: never backed by DRAM
        dram[a.resolve_target ? DramCategory::resolve : DramCategory::attachment_store].write_bytes += bytes;
        count_blocks(blocks.stored[i], *a.surface, rect);
        break;
    }
  }
}

void TileBuffer::clear(const PassSetup& setup, const Subpass& sp, const MidPassClear& clear, const Rect& tile,
                       PassCounters& counters) {
  std::vector<Rect> rects = clear.rects;
  if (rects.empty()) rects.push_back(setup.area);
  for (const Rect& r : rects) {
    const Rect area = intersect(intersect(r, setup.area), tile);
    counters.clear_pixels += pixels(area);
    auto fill = [&](int32_t attachment, bool color, bool depth, bool stencil) {
      Surface& s = surfaces[size_t(attachment)];
      const Vec4 c = quantize_color(s.format, clear.value.color);
      const float z = quantize_depth(s.format, clear.value.depth);
      cleared_samples += pixels(area) * s.samples;
      for (uint32_t y = 0; y < area.height; ++y)
        for (uint32_t x = 0; x < area.width; ++x)
          for (uint32_t smp = 0; smp < s.samples; ++smp) {
            const size_t i = s.index(uint32_t(area.x - tile.x) + x, uint32_t(area.y - tile.y) + y, smp);
            if (color && s.has_color()) s.color[i] = c;
            if (depth && s.has_depth()) s.depth[i] = z;
            if (stencil && s.has_stencil()) s.stencil[i] = uint8_t(clear.value.stencil);
          }
    };
    for (int32_t slot : clear.color)
      if (size_t(slot) < sp.color.size() && sp.color[size_t(slot)] != kUnused) fill(sp.color[size_t(slot)], true, false, false);
    if ((clear.depth || clear.stencil) && sp.depth != kUnused) fill(sp.depth, false, clear.depth, clear.stencil);
  }
}

void TileBuffer::resolve(const Subpass& sp, const Rect& tile) {
  for (size_t c = 0; c < sp.resolve.size() && c < sp.color.size(); ++c) {
    if (sp.resolve[c] == kUnused || sp.color[c] == kUnused) continue;
    resolve_pixels += pixels(tile);
    const Surface& src = surfaces[size_t(sp.color[c])];
    Surface& dst = surfaces[size_t(sp.resolve[c])];
    for (uint32_t y = 0; y < tile.height; ++y)
      for (uint32_t x = 0; x < tile.width; ++x) dst.color[dst.index(x, y, 0)] = quantize_color(dst.format, src.resolved_color(x, y));
  }
  if (sp.depth_resolve == kUnused || sp.depth == kUnused) return;
  resolve_pixels += pixels(tile);
  const Surface& src = surfaces[size_t(sp.depth)];
  Surface& dst = surfaces[size_t(sp.depth_resolve)];
  for (uint32_t y = 0; y < tile.height; ++y)
    for (uint32_t x = 0; x < tile.width; ++x) {
      const size_t di = dst.index(x, y, 0);
      if (src.has_depth() && dst.has_depth() && sp.depth_resolve_mode != ResolveMode::none)
        dst.depth[di] = quantize_depth(dst.format, resolved_depth(src, x, y, sp.depth_resolve_mode));
      if (src.has_stencil() && dst.has_stencil() && sp.stencil_resolve_mode != ResolveMode::none)
        dst.stencil[di] = resolved_stencil(src, x, y, sp.stencil_resolve_mode);
    }
}

}  // namespace tbdr
