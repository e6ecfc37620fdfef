// Frame execution: render passes through geometry -> binning -> per-tile work (TBDR) or through
// one whole-area "tile" with every primitive (IMR reference), plus copy/blit/resolve/compute
// passes; fills the DRAM ledger by the rules of traces/README.md.
#include "sim/pipeline.h"

#include <algorithm>
#include <cmath>

#include "models/errors.h"
#include "sim/binning.h"
#include "sim/geometry.h"
#include "sim/programs.h"
#include "sim/raster.h"

namespace tbdr {
namespace {

const char* pass_type_name(PassType t) {
  switch (t) {
    case PassType::render: return "render";
    case PassType::compute: return "compute";
    case PassType::copy: return "copy";
    case PassType::blit: return "blit";
    case PassType::resolve: return "resolve";
    case PassType::barrier: return "barrier";
  }
  return "render";
}

Rect intersect(const Rect& a, const Rect& b) {
  const int64_t x0 = std::max<int64_t>(a.x, b.x), y0 = std::max<int64_t>(a.y, b.y);
  const int64_t x1 = std::min<int64_t>(int64_t(a.x) + a.width, int64_t(b.x) + b.width);
  const int64_t y1 = std::min<int64_t>(int64_t(a.y) + a.height, int64_t(b.y) + b.height);
  if (x1 <= x0 || y1 <= y0) return Rect{int32_t(x0), int32_t(y0), 0, 0};
  return Rect{int32_t(x0), int32_t(y0), uint32_t(x1 - x0), uint32_t(y1 - y0)};
}

uint64_t pixels(const Rect& r) { return uint64_t(r.width) * r.height; }

// Per-attachment facts of one render pass, resolved once.
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

class RenderPassRunner {
 public:
  RenderPassRunner(const Trace& trace, const Pass& pass, const std::string& where, ImageStore& store,
                   const models::ModelSet& models, RenderPath path)
      : m_trace(trace), m_pass(pass), m_where(where), m_store(store), m_models(models), m_path(path) {}

  void run(PassStats& stats) {
    prepare_attachments();
    collect_draws();
    m_footprints.reset(m_trace);
    Traffic vertex_traffic;
    transform_draws(m_trace, m_draws, m_prims, stats.counters, vertex_traffic);
    stats.dram[DramCategory::vertex] += vertex_traffic;

    std::vector<Rect> draw_clip;
    for (const PassDraw& d : m_draws) draw_clip.push_back(d.scissor);
    m_programs.clear();
    for (const PassDraw& d : m_draws) m_programs.push_back(compile_program(m_trace, *d.draw, m_store, m_footprints));

    if (m_path == RenderPath::tbdr) {
      models::TilingInput tiling_input;
      tiling_input.render_width = m_area.width;
      tiling_input.render_height = m_area.height;
      for (const PassAttachment& a : m_attachments)
        tiling_input.attachments.push_back({format_info(a.image->format).bytes_per_pixel, a.image->samples, a.color,
                                            !a.color, a.image->transient});
      const models::TileSize tile = m_models.tiling->choose_tile_size(tiling_input);
      stats.tile_width = tile.width;
      stats.tile_height = tile.height;
      stats.tile_reason = tile.reason;
      const TileGrid grid(m_area, tile.width, tile.height);
      TileLists lists;
      bin_triangles(m_prims, draw_clip, grid, lists);
      stats.counters.tiles = grid.tile_count();
      stats.counters.tile_list_entries = lists.entries();
      count_tile_list_bytes(lists, stats);
      for (uint32_t t = 0; t < grid.tile_count(); ++t) {
        const uint32_t begin = lists.offsets[t], end = lists.offsets[t + 1];
        if (begin == end) ++stats.counters.empty_tiles;
        run_tile(grid.tile_rect(t), lists.prims.data() + begin, lists.prims.data() + end, stats);
      }
    } else {
      // IMR reference: the same raster/depth/blend code over the whole render area, every
      // primitive in submission order, no binning.
      std::vector<uint32_t> all(m_prims.size());
      for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
      stats.tile_width = m_area.width;
      stats.tile_height = m_area.height;
      stats.tile_reason = "immediate mode: whole render area";
      stats.counters.tiles = 1;
      run_tile(m_area, all.data(), all.data() + all.size(), stats);
    }
    stats.dram[DramCategory::texture].read_bytes += m_footprints.texture_bytes(m_trace);
    stats.dram[DramCategory::image_sample].read_bytes += m_footprints.image_bytes(m_trace);
  }

  const Rect& area() const { return m_area; }
  const std::vector<PassAttachment>& attachments() const { return m_attachments; }

 private:
  void prepare_attachments() {
    if (m_pass.attachments.empty()) throw InputError(m_where, "a render pass needs at least one attachment");
    uint32_t width = 0, height = 0;
    for (size_t i = 0; i < m_pass.attachments.size(); ++i) {
      const Attachment& a = m_pass.attachments[i];
      PassAttachment pa;
      pa.desc = &a;
      pa.image = &m_trace.images[size_t(a.image)];
      pa.surface = &m_store.surface(a.image, a.mip, a.layer);
      const FormatInfo& info = format_info(pa.image->format);
      pa.color = info.channels > 0;
      pa.loads = (info.channels > 0 || info.has_depth) ? a.load == LoadOp::load : false;
      pa.loads = pa.loads || (info.has_stencil && a.stencil_load == LoadOp::load);
      pa.stores = (info.channels > 0 || info.has_depth) ? a.store == StoreOp::store : false;
      pa.stores = pa.stores || (info.has_stencil && a.stencil_store == StoreOp::store);
      pa.bytes_per_pixel = uint64_t(info.bytes_per_pixel) * pa.image->samples;
      if (i == 0) {
        width = pa.surface->width;
        height = pa.surface->height;
      } else if (pa.surface->width != width || pa.surface->height != height) {
        throw InputError(m_where + "/attachments/" + std::to_string(i),
                         "attachment size differs from attachment 0 (" + std::to_string(width) + "x" +
                             std::to_string(height) + ")");
      }
      m_attachments.push_back(pa);
    }
    for (const Subpass& sp : m_pass.subpasses) {
      for (int32_t r : sp.resolve)
        if (r != kUnused) m_attachments[size_t(r)].resolve_target = true;
      if (sp.depth_resolve != kUnused) m_attachments[size_t(sp.depth_resolve)].resolve_target = true;
    }
    m_area = m_pass.render_area.value_or(Rect{0, 0, width, height});
    if (intersect(m_area, Rect{0, 0, width, height}).width != m_area.width ||
        intersect(m_area, Rect{0, 0, width, height}).height != m_area.height)
      throw InputError(m_where + "/render_area", "render area must lie inside the attachments");
  }

  void collect_draws() {
    for (uint32_t s = 0; s < m_pass.subpasses.size(); ++s) {
      const Subpass& sp = m_pass.subpasses[s];
      uint32_t samples = 0;
      auto check_samples = [&](int32_t ref) {
        if (ref == kUnused) return;
        const uint32_t n = m_attachments[size_t(ref)].image->samples;
        if (samples && n != samples)
          throw InputError(m_where + "/subpasses/" + std::to_string(s),
                           "color and depth attachments of a subpass must have one sample count");
        samples = n;
      };
      for (int32_t c : sp.color) check_samples(c);
      check_samples(sp.depth);
      for (uint32_t d = 0; d < sp.draws.size(); ++d) {
        const Draw& draw = sp.draws[d];
        PassDraw pd;
        pd.draw = &draw;
        pd.subpass = s;
        pd.index_in_subpass = d;
        pd.viewport = draw.viewport.value_or(Viewport{float(m_area.x), float(m_area.y), float(m_area.width),
                                                      float(m_area.height), 0.0f, 1.0f});
        pd.scissor = intersect(draw.scissor.value_or(m_area), m_area);
        m_draws.push_back(pd);
      }
    }
  }

  // Parameter buffer traffic (traces/README.md): binning writes one record per primitive and
  // 4 B per list entry; each tile reads its entries and the records they point to.
  void count_tile_list_bytes(const TileLists& lists, PassStats& stats) {
    auto record_bytes = [&](uint32_t prim) -> uint64_t {
      const Mesh& mesh = m_trace.meshes[size_t(m_draws[m_prims.draw[prim]].draw->mesh)];
      const uint64_t varyings = (mesh.colors.empty() ? 0 : 4) + (mesh.uvs.empty() ? 0 : 2);
      return 3 * (16 + 4 * varyings);
    };
    Traffic t;
    for (uint32_t p = 0; p < m_prims.size(); ++p) t.write_bytes += record_bytes(p);
    t.write_bytes += 4 * lists.entries();
    for (uint32_t prim : lists.prims) t.read_bytes += 4 + record_bytes(prim);
    stats.dram[DramCategory::tile_list] += t;
  }

  // The tile buffer: one surface per attachment covering the tile's pixels.
  void load_tile(const Rect& rect, PassStats& stats) {
    m_tile.resize(m_attachments.size());
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      const PassAttachment& a = m_attachments[i];
      Surface& tb = m_tile[i];
      tb = Surface(a.image->format, rect.width, rect.height, a.image->samples);
      const Surface& src = *a.surface;
      const Attachment& d = *a.desc;
      const bool load_main = d.load == LoadOp::load, load_stencil = d.stencil_load == LoadOp::load;
      const Vec4 clear_color = quantize_color(a.image->format, d.clear.color);
      const float clear_depth = quantize_depth(a.image->format, d.clear.depth);
      for (uint32_t y = 0; y < rect.height; ++y)
        for (uint32_t x = 0; x < rect.width; ++x)
          for (uint32_t s = 0; s < tb.samples; ++s) {
            const size_t ti = tb.index(x, y, s), si = src.index(uint32_t(rect.x) + x, uint32_t(rect.y) + y, s);
            // DONT_CARE and NONE leave the tile undefined: zero here, the same in both paths.
            if (tb.has_color()) tb.color[ti] = load_main ? src.color[si] : d.load == LoadOp::clear ? clear_color : Vec4::Zero();
            if (tb.has_depth()) tb.depth[ti] = load_main ? src.depth[si] : d.load == LoadOp::clear ? clear_depth : 0.0f;
            if (tb.has_stencil())
              tb.stencil[ti] = load_stencil ? src.stencil[si] : d.stencil_load == LoadOp::clear ? uint8_t(d.clear.stencil) : 0;
          }
      if (a.loads && !a.image->transient)
        stats.dram[DramCategory::attachment_load].read_bytes += pixels(rect) * a.bytes_per_pixel;
    }
  }

  void store_tile(const Rect& rect, PassStats& stats) {
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      const PassAttachment& a = m_attachments[i];
      const Surface& tb = m_tile[i];
      Surface& dst = *a.surface;
      const Attachment& d = *a.desc;
      const bool store_main = d.store == StoreOp::store, store_stencil = d.stencil_store == StoreOp::store;
      if (!a.stores) continue;
      for (uint32_t y = 0; y < rect.height; ++y)
        for (uint32_t x = 0; x < rect.width; ++x)
          for (uint32_t s = 0; s < tb.samples; ++s) {
            const size_t ti = tb.index(x, y, s), di = dst.index(uint32_t(rect.x) + x, uint32_t(rect.y) + y, s);
            if (store_main && tb.has_color()) dst.color[di] = tb.color[ti];
            if (store_main && tb.has_depth()) dst.depth[di] = tb.depth[ti];
            if (store_stencil && tb.has_stencil()) dst.stencil[di] = tb.stencil[ti];
          }
      if (a.image->transient) continue;  // lazily allocated: never backed by DRAM
      const DramCategory category = a.resolve_target ? DramCategory::resolve : DramCategory::attachment_store;
      stats.dram[category].write_bytes += pixels(rect) * a.bytes_per_pixel;
    }
  }

  TargetSet targets_for(const Subpass& sp, const Rect& rect) {
    TargetSet t;
    t.area = rect;
    t.samples = 1;
    t.color_count = uint32_t(std::min<size_t>(sp.color.size(), kMaxColorAttachments));
    for (uint32_t c = 0; c < t.color_count; ++c) {
      if (sp.color[c] == kUnused) continue;
      Surface& s = m_tile[size_t(sp.color[c])];
      t.color[c] = s.color.data();
      t.color_format[c] = s.format;
      t.samples = s.samples;
    }
    if (sp.depth != kUnused) {
      Surface& s = m_tile[size_t(sp.depth)];
      t.depth = s.has_depth() ? s.depth.data() : nullptr;
      t.stencil = s.has_stencil() ? s.stencil.data() : nullptr;
      t.depth_format = s.format;
      t.samples = s.samples;
    }
    return t;
  }

  void apply_clear(const Subpass& sp, const MidPassClear& clear, const Rect& tile, PassStats& stats) {
    std::vector<Rect> rects = clear.rects;
    if (rects.empty()) rects.push_back(m_area);
    for (const Rect& r : rects) {
      const Rect area = intersect(intersect(r, m_area), tile);
      stats.counters.clear_pixels += pixels(area);
      auto fill = [&](int32_t attachment, bool color, bool depth, bool stencil) {
        Surface& s = m_tile[size_t(attachment)];
        const Vec4 c = quantize_color(s.format, clear.value.color);
        const float z = quantize_depth(s.format, clear.value.depth);
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

  // Inline resolve at the end of a subpass (pResolveAttachments / depth-stencil resolve).
  void resolve_subpass(const Subpass& sp, const Rect& tile) {
    for (size_t c = 0; c < sp.resolve.size() && c < sp.color.size(); ++c) {
      if (sp.resolve[c] == kUnused || sp.color[c] == kUnused) continue;
      const Surface& src = m_tile[size_t(sp.color[c])];
      Surface& dst = m_tile[size_t(sp.resolve[c])];
      for (uint32_t y = 0; y < tile.height; ++y)
        for (uint32_t x = 0; x < tile.width; ++x) dst.color[dst.index(x, y, 0)] = quantize_color(dst.format, src.resolved_color(x, y));
    }
    if (sp.depth_resolve != kUnused && sp.depth != kUnused) {
      const Surface& src = m_tile[size_t(sp.depth)];
      Surface& dst = m_tile[size_t(sp.depth_resolve)];
      for (uint32_t y = 0; y < tile.height; ++y)
        for (uint32_t x = 0; x < tile.width; ++x) {
          const size_t di = dst.index(x, y, 0);
          if (src.has_depth() && dst.has_depth() && sp.depth_resolve_mode != ResolveMode::none) {
            float v = src.depth[src.index(x, y, 0)];
            double sum = 0;
            for (uint32_t s = 0; s < src.samples; ++s) {
              const float z = src.depth[src.index(x, y, s)];
              sum += z;
              if (sp.depth_resolve_mode == ResolveMode::min) v = std::min(v, z);
              if (sp.depth_resolve_mode == ResolveMode::max) v = std::max(v, z);
            }
            if (sp.depth_resolve_mode == ResolveMode::average) v = float(sum / src.samples);
            dst.depth[di] = quantize_depth(dst.format, v);
          }
          if (src.has_stencil() && dst.has_stencil() && sp.stencil_resolve_mode != ResolveMode::none) {
            uint8_t v = src.stencil[src.index(x, y, 0)];
            for (uint32_t s = 0; s < src.samples; ++s) {
              const uint8_t st = src.stencil[src.index(x, y, s)];
              if (sp.stencil_resolve_mode == ResolveMode::min) v = std::min(v, st);
              if (sp.stencil_resolve_mode == ResolveMode::max) v = std::max(v, st);
            }
            dst.stencil[di] = v;
          }
        }
    }
  }

  // One tile: load, then each subpass's draws in order (with mid-pass clears between them),
  // rasterizing only the tile's listed primitives, inline resolves, then store.
  void run_tile(const Rect& rect, const uint32_t* list, const uint32_t* list_end, PassStats& stats) {
    load_tile(rect, stats);
    uint32_t global_draw = 0;
    for (const Subpass& sp : m_pass.subpasses) {
      TargetSet targets = targets_for(sp, rect);
      for (uint32_t d = 0; d <= sp.draws.size(); ++d) {
        for (const MidPassClear& clear : sp.clears)
          if (clear.before_draw == d || (d == sp.draws.size() && clear.before_draw > d)) apply_clear(sp, clear, rect, stats);
        if (d == sp.draws.size()) break;
        const PassDraw& pd = m_draws[global_draw];
        const Rect clip = intersect(rect, pd.scissor);
        while (list != list_end && m_prims.draw[*list] == global_draw) {
          raster_triangle(m_prims, *list, clip, *pd.draw, m_programs[global_draw], targets, stats.counters);
          ++list;
        }
        ++global_draw;
      }
      resolve_subpass(sp, rect);
    }
    store_tile(rect, stats);
  }

  const Trace& m_trace;
  const Pass& m_pass;
  std::string m_where;
  ImageStore& m_store;
  const models::ModelSet& m_models;
  RenderPath m_path;
  std::vector<PassAttachment> m_attachments;
  Rect m_area;
  std::vector<PassDraw> m_draws;
  std::vector<CompiledProgram> m_programs;
  ScreenPrims m_prims;
  Footprints m_footprints;
  std::vector<Surface> m_tile;
};

Rect whole(const Surface& s) { return Rect{0, 0, s.width, s.height}; }

Vec4 texel(const Surface& s, int32_t x, int32_t y) {
  x = std::clamp<int32_t>(x, 0, int32_t(s.width) - 1);
  y = std::clamp<int32_t>(y, 0, int32_t(s.height) - 1);
  const size_t i = s.index(uint32_t(x), uint32_t(y), 0);
  if (s.has_color()) return s.color[i];
  return Vec4(s.has_depth() ? s.depth[i] : 0.0f, s.has_stencil() ? float(s.stencil[i]) : 0.0f, 0, 1);
}

void write_texel(Surface& s, uint32_t x, uint32_t y, uint32_t sample, const Vec4& v) {
  const size_t i = s.index(x, y, sample);
  if (s.has_color()) s.color[i] = quantize_color(s.format, v);
  if (s.has_depth()) s.depth[i] = quantize_depth(s.format, v[0]);
  if (s.has_stencil()) s.stencil[i] = uint8_t(std::clamp(v[1], 0.0f, 255.0f));
}

uint64_t image_bytes(const ImageDesc& image, uint64_t texel_count) {
  return image.transient ? 0 : texel_count * format_info(image.format).bytes_per_pixel * image.samples;
}

class FrameRunner {
 public:
  FrameRunner(const Trace& trace, ImageStore& store, const models::ModelSet& models, const SimOptions& options,
              ImageSink* sink)
      : m_trace(trace), m_store(store), m_models(models), m_options(options), m_sink(sink) {}

  FrameStats run(uint32_t frame_index) {
    FrameStats frame;
    const Frame& f = m_trace.frames[frame_index];
    for (uint32_t p = 0; p < f.passes.size(); ++p) {
      const Pass& pass = f.passes[p];
      const std::string where = m_trace.path + ": /frames/" + std::to_string(frame_index) + "/passes/" + std::to_string(p);
      PassStats stats;
      stats.name = pass.name;
      stats.type = pass_type_name(pass.type);
      switch (pass.type) {
        case PassType::render: run_render(frame_index, p, pass, where, stats); break;
        case PassType::copy:
        case PassType::blit:
        case PassType::resolve: run_transfer(frame_index, p, pass, stats); break;
        case PassType::compute: run_compute(frame_index, p, pass, where, stats); break;
        case PassType::barrier: break;  // layouts and stages: acted on by the scheduler and savers
      }
      // No cache, compression or elimination yet: the physical ledger equals the nominal one
      // (domain.md section 7); the savers make them differ.
      stats.dram_nominal = stats.dram;
      frame.passes.push_back(std::move(stats));
    }
    return frame;
  }

 private:
  void emit(uint32_t frame, uint32_t pass_index, const Pass& pass, const std::string& slot, const ImageRef& ref,
            const Rect& region) {
    if (!m_sink) return;
    StoredImage out;
    out.frame = frame;
    out.pass_index = pass_index;
    out.pass_name = pass.name;
    out.slot = slot;
    out.image = ref.image;
    out.image_name = m_trace.images[size_t(ref.image)].name;
    out.surface = &m_store.surface(ref.image, ref.mip, ref.layer);
    out.region = region;
    m_sink->stored(out);
  }

  void run_render(uint32_t frame, uint32_t pass_index, const Pass& pass, const std::string& where, PassStats& stats) {
    RenderPassRunner runner(m_trace, pass, where, m_store, m_models, m_options.path);
    runner.run(stats);
    for (size_t i = 0; i < runner.attachments().size(); ++i) {
      const auto& a = runner.attachments()[i];
      if (!a.stores || a.image->transient) continue;
      ImageRef ref;
      ref.image = a.desc->image;
      ref.mip = a.desc->mip;
      ref.layer = a.desc->layer;
      emit(frame, pass_index, pass, "att" + std::to_string(i), ref, runner.area());
    }
  }

  // copy (vkCmdCopyImage), blit (vkCmdBlitImage, scaled), resolve (vkCmdResolveImage).
  void run_transfer(uint32_t frame, uint32_t pass_index, const Pass& pass, PassStats& stats) {
    const ImageRef& src_ref = pass.reads.at(0);
    const ImageRef& dst_ref = pass.writes.at(0);
    const Surface& src = m_store.surface(src_ref.image, src_ref.mip, src_ref.layer);
    Surface& dst = m_store.surface(dst_ref.image, dst_ref.mip, dst_ref.layer);
    const ImageDesc& src_image = m_trace.images[size_t(src_ref.image)];
    const ImageDesc& dst_image = m_trace.images[size_t(dst_ref.image)];
    const Rect sr = src_ref.region.value_or(whole(src)), dr = dst_ref.region.value_or(whole(dst));
    const DramCategory read_cat = pass.type == PassType::resolve ? DramCategory::resolve : DramCategory::image_sample;
    const DramCategory write_cat = pass.type == PassType::resolve ? DramCategory::resolve : DramCategory::attachment_store;
    if (pass.type == PassType::copy) {
      const uint32_t samples = std::min(src.samples, dst.samples);
      for (uint32_t y = 0; y < std::min(sr.height, dr.height); ++y)
        for (uint32_t x = 0; x < std::min(sr.width, dr.width); ++x)
          for (uint32_t s = 0; s < samples; ++s) {
            const size_t si = src.index(uint32_t(sr.x) + x, uint32_t(sr.y) + y, s);
            const size_t di = dst.index(uint32_t(dr.x) + x, uint32_t(dr.y) + y, s);
            if (src.has_color() && dst.has_color()) dst.color[di] = quantize_color(dst.format, src.color[si]);
            if (src.has_depth() && dst.has_depth()) dst.depth[di] = quantize_depth(dst.format, src.depth[si]);
            if (src.has_stencil() && dst.has_stencil()) dst.stencil[di] = src.stencil[si];
          }
      stats.dram[read_cat].read_bytes += image_bytes(src_image, pixels(sr));
      stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(sr));
    } else if (pass.type == PassType::resolve) {
      for (uint32_t y = 0; y < std::min(sr.height, dr.height); ++y)
        for (uint32_t x = 0; x < std::min(sr.width, dr.width); ++x)
          write_texel(dst, uint32_t(dr.x) + x, uint32_t(dr.y) + y, 0,
                      src.has_color() ? src.resolved_color(uint32_t(sr.x) + x, uint32_t(sr.y) + y)
                                      : texel(src, sr.x + int32_t(x), sr.y + int32_t(y)));
      stats.dram[read_cat].read_bytes += image_bytes(src_image, pixels(sr));
      stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(sr));
    } else {
      // Blit: each destination pixel samples the source region at its centre (Vulkan
      // "Image Copies with Scaling"); the read counts the unique source texels touched.
      std::vector<uint8_t> touched(size_t(src.width) * src.height, 0);
      auto fetch = [&](int32_t x, int32_t y) {
        x = std::clamp<int32_t>(x, sr.x, sr.x + int32_t(sr.width) - 1);
        y = std::clamp<int32_t>(y, sr.y, sr.y + int32_t(sr.height) - 1);
        touched[size_t(y) * src.width + size_t(x)] = 1;
        return texel(src, x, y);
      };
      for (uint32_t y = 0; y < dr.height; ++y)
        for (uint32_t x = 0; x < dr.width; ++x) {
          const float u = sr.x + (x + 0.5f) * float(sr.width) / float(dr.width);
          const float v = sr.y + (y + 0.5f) * float(sr.height) / float(dr.height);
          Vec4 value;
          if (pass.blit_filter == Filter::nearest) {
            value = fetch(int32_t(std::floor(u)), int32_t(std::floor(v)));
          } else {
            const float su = u - 0.5f, sv = v - 0.5f;
            const int32_t i0 = int32_t(std::floor(su)), j0 = int32_t(std::floor(sv));
            const float a = su - float(i0), b = sv - float(j0);
            value = (fetch(i0, j0) * (1 - a) + fetch(i0 + 1, j0) * a) * (1 - b) +
                    (fetch(i0, j0 + 1) * (1 - a) + fetch(i0 + 1, j0 + 1) * a) * b;
          }
          for (uint32_t s = 0; s < dst.samples; ++s) write_texel(dst, uint32_t(dr.x) + x, uint32_t(dr.y) + y, s, value);
        }
      uint64_t unique = 0;
      for (uint8_t t : touched) unique += t;
      stats.dram[read_cat].read_bytes += image_bytes(src_image, unique) / src_image.samples;
      stats.dram[write_cat].write_bytes += image_bytes(dst_image, pixels(dr));
    }
    emit(frame, pass_index, pass, "dst", dst_ref, dr);
  }

  // Built-in compute programs: reads count as sampled footprints, writes as attachment stores.
  void run_compute(uint32_t frame, uint32_t pass_index, const Pass& pass, const std::string& where, PassStats& stats) {
    const std::string& program = pass.program.name;
    if (pass.reads.empty() || pass.writes.empty())
      throw InputError(where, "compute program " + program + " needs one read and one write image");
    const ImageRef& in_ref = pass.reads[0];
    const ImageRef& out_ref = pass.writes[0];
    const Surface& in = m_store.surface(in_ref.image, in_ref.mip, in_ref.layer);
    Surface& out = m_store.surface(out_ref.image, out_ref.mip, out_ref.layer);
    const ImageDesc& in_image = m_trace.images[size_t(in_ref.image)];
    const ImageDesc& out_image = m_trace.images[size_t(out_ref.image)];
    const Rect ir = in_ref.region.value_or(whole(in));
    uint64_t texels_read = 0;
    if (program == "downsample") {
      // 2x2 box filter into an image of half the size (rounded down, at least 1).
      for (uint32_t y = 0; y < out.height; ++y)
        for (uint32_t x = 0; x < out.width; ++x) {
          Vec4 sum = Vec4::Zero();
          for (int32_t dy = 0; dy < 2; ++dy)
            for (int32_t dx = 0; dx < 2; ++dx) sum += texel(in, ir.x + int32_t(2 * x) + dx, ir.y + int32_t(2 * y) + dy);
          write_texel(out, x, y, 0, sum * 0.25f);
        }
      texels_read = std::min<uint64_t>(pixels(ir), uint64_t(out.width) * out.height * 4);
    } else if (program == "histogram") {
      // Luminance histogram (Rec. 709 weights) of one texel per step block, normalized counts.
      std::vector<double> bins(out.width, 0.0);
      for (uint32_t y = 0; y < ir.height; y += in_ref.step_y)
        for (uint32_t x = 0; x < ir.width; x += in_ref.step_x) {
          const Vec4 c = texel(in, ir.x + int32_t(x), ir.y + int32_t(y));
          const float luma = std::clamp(0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2], 0.0f, 1.0f);
          bins[std::min<size_t>(size_t(luma * float(out.width - 1)), out.width - 1)] += 1.0;
          ++texels_read;
        }
      for (uint32_t x = 0; x < out.width; ++x)
        for (uint32_t y = 0; y < out.height; ++y)
          write_texel(out, x, y, 0, Vec4(float(bins[x] / double(std::max<uint64_t>(texels_read, 1))), 0, 0, 1));
    } else {
      throw InputError(where + "/program/name", "unknown compute program " + program);
    }
    stats.dram[DramCategory::image_sample].read_bytes += image_bytes(in_image, texels_read) / in_image.samples;
    stats.dram[DramCategory::attachment_store].write_bytes += image_bytes(out_image, uint64_t(out.width) * out.height);
    emit(frame, pass_index, pass, "out0", out_ref, whole(out));
  }

  const Trace& m_trace;
  ImageStore& m_store;
  const models::ModelSet& m_models;
  const SimOptions& m_options;
  ImageSink* m_sink;
};

}  // namespace

RunStats simulate(const Trace& trace, const models::ModelSet& models, const SimOptions& options, ImageSink* sink) {
  ImageStore store(trace.images);
  RunStats run;
  FrameRunner runner(trace, store, models, options, sink);
  for (uint32_t f = 0; f < trace.frames.size(); ++f) run.frames.push_back(runner.run(f));
  accumulate_totals(run);
  return run;
}

}  // namespace tbdr
