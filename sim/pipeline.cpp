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
    const models::MergeDecision decision = decide_merge();
    stats.merge.merged = decision.merged();
    stats.merge.reasons = decision.reasons;
    for (const auto& group : decision.hardware_passes) {
      HardwarePassStats hw;
      hw.first_subpass = group.first;
      hw.last_subpass = group.last;
      run_hardware_pass(hw, stats.counters);
      stats.dram += hw.dram;
      stats.dram_nominal += hw.dram_nominal;
      stats.working_set_bytes_per_tile = std::max(stats.working_set_bytes_per_tile, hw.working_set_bytes_per_tile);
      if (stats.hardware_passes.empty()) {
        stats.tile_width = hw.tile_width;
        stats.tile_height = hw.tile_height;
        stats.tile_reason = hw.tile_reason;
      }
      stats.hardware_passes.push_back(std::move(hw));
    }
  }

  const Rect& area() const { return m_area; }
  const std::vector<PassAttachment>& attachments() const { return m_attachments; }

 private:
  // The merge model groups subpasses into hardware passes (TBDR only: the IMR path draws the
  // whole render pass at once, which gives the same pixels).
  models::MergeDecision decide_merge() const {
    if (m_path == RenderPath::imr || m_pass.subpasses.size() <= 1) {
      models::MergeDecision d;
      d.hardware_passes.push_back({0, uint32_t(std::max<size_t>(m_pass.subpasses.size(), 1) - 1)});
      return d;
    }
    models::MergeInput in;
    for (const PassAttachment& a : m_attachments) in.attachments.push_back(attachment_work(a));
    for (const Subpass& sp : m_pass.subpasses) {
      models::SubpassWork w;
      for (int32_t c : sp.color)
        if (c != kUnused) w.color.push_back(uint32_t(c));
      w.depth = sp.depth;
      for (int32_t i : sp.input)
        if (i != kUnused) w.input.push_back(uint32_t(i));
      for (int32_t r : sp.resolve)
        if (r != kUnused) w.resolve.push_back(uint32_t(r));
      if (sp.depth_resolve != kUnused) w.resolve.push_back(uint32_t(sp.depth_resolve));
      w.samples = subpass_samples(sp);
      in.subpasses.push_back(std::move(w));
    }
    return m_models.merge->decide(in);
  }

  models::AttachmentWork attachment_work(const PassAttachment& a) const {
    return {format_info(a.image->format).bytes_per_pixel, a.image->samples, a.color, !a.color, a.image->transient};
  }

  uint32_t subpass_samples(const Subpass& sp) const {
    for (int32_t c : sp.color)
      if (c != kUnused) return m_attachments[size_t(c)].image->samples;
    return sp.depth != kUnused ? m_attachments[size_t(sp.depth)].image->samples : 1;
  }

  // Attachment numbers a subpass references (color, depth, input, resolve).
  std::vector<uint32_t> references(const Subpass& sp) const {
    std::vector<uint32_t> refs;
    for (const std::vector<int32_t>* list : {&sp.color, &sp.input, &sp.resolve})
      for (int32_t a : *list)
        if (a != kUnused) refs.push_back(uint32_t(a));
    if (sp.depth != kUnused) refs.push_back(uint32_t(sp.depth));
    if (sp.depth_resolve != kUnused) refs.push_back(uint32_t(sp.depth_resolve));
    return refs;
  }

  // Runs subpasses [first, last] as one hardware pass: its own tile size, binning and tiles.
  // An attachment an earlier hardware pass used is loaded back from DRAM; one a later hardware
  // pass uses is stored (a refused merge's round trip, even for transient images, which the
  // driver must then back with memory). Otherwise the API's load and store ops apply.
  // Attachments no subpass references belong to the first hardware pass.
  void run_hardware_pass(HardwarePassStats& hw, PassCounters& counters) {
    const size_t count = m_attachments.size();
    std::vector<int32_t> first_use(count, -1), last_use(count, -1);
    for (uint32_t s = 0; s < m_pass.subpasses.size(); ++s)
      for (uint32_t a : references(m_pass.subpasses[s])) {
        if (first_use[a] < 0) first_use[a] = int32_t(s);
        last_use[a] = int32_t(s);
      }
    m_group_loads.assign(count, AccessMode::skip);
    m_group_stores.assign(count, AccessMode::skip);
    const int32_t first = int32_t(hw.first_subpass), last = int32_t(hw.last_subpass);
    for (size_t a = 0; a < count; ++a) {
      bool in_group = first_use[a] < 0 ? first == 0 : false;
      for (int32_t s = first; s <= last && !in_group; ++s)
        for (uint32_t r : references(m_pass.subpasses[size_t(s)])) in_group = in_group || r == a;
      if (!in_group) continue;
      m_group_loads[a] = first_use[a] >= 0 && first_use[a] < first ? AccessMode::forced : AccessMode::api;
      m_group_stores[a] = last_use[a] > last ? AccessMode::forced : AccessMode::api;
    }

    // Draws of this hardware pass: m_draws is in subpass order.
    size_t draw_begin = 0, draw_end = 0;
    for (size_t d = 0; d < m_draws.size(); ++d) {
      if (int32_t(m_draws[d].subpass) < first) draw_begin = d + 1;
      if (int32_t(m_draws[d].subpass) <= last) draw_end = d + 1;
    }
    m_prims.clear();
    m_footprints.reset(m_trace);
    Traffic vertex_traffic;
    transform_draws(m_trace, m_draws, draw_begin, draw_end, m_prims, counters, vertex_traffic);
    hw.dram[DramCategory::vertex] += vertex_traffic;
    std::vector<Rect> draw_clip;
    for (const PassDraw& d : m_draws) draw_clip.push_back(d.scissor);
    m_programs.clear();
    for (const PassDraw& d : m_draws)
      m_programs.push_back(compile_program(m_trace, *d.draw, m_store, m_footprints, m_framebuffer_width,
                                           m_framebuffer_height));

    uint64_t working_set_bytes_per_pixel = 0;
    models::TilingInput tiling_input;
    tiling_input.render_width = m_area.width;
    tiling_input.render_height = m_area.height;
    for (size_t a = 0; a < count; ++a) {
      if (m_group_loads[a] == AccessMode::skip) continue;
      tiling_input.attachments.push_back(attachment_work(m_attachments[a]));
      working_set_bytes_per_pixel += m_attachments[a].bytes_per_pixel;
    }
    PassStats scratch;  // per-tile ledgers land here, then move into the hardware pass
    if (m_path == RenderPath::tbdr) {
      const models::TileSize tile = m_models.tiling->choose_tile_size(tiling_input);
      hw.tile_width = tile.width;
      hw.tile_height = tile.height;
      hw.tile_reason = tile.reason;
      const TileGrid grid(m_area, tile.width, tile.height);
      TileLists lists;
      bin_triangles(m_prims, draw_clip, grid, lists);
      hw.tiles = grid.tile_count();
      counters.tiles += grid.tile_count();
      counters.tile_list_entries += lists.entries();
      count_tile_list_bytes(lists, scratch);
      for (uint32_t t = 0; t < grid.tile_count(); ++t) {
        const uint32_t begin = lists.offsets[t], end = lists.offsets[t + 1];
        if (begin == end) ++counters.empty_tiles;
        run_tile(grid.tile_rect(t), lists.prims.data() + begin, lists.prims.data() + end, hw, scratch, counters);
      }
    } else {
      // IMR reference: the same raster/depth/blend code over the whole render area, every
      // primitive in submission order, no binning.
      std::vector<uint32_t> all(m_prims.size());
      for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
      hw.tile_width = m_area.width;
      hw.tile_height = m_area.height;
      hw.tile_reason = "immediate mode: whole render area";
      hw.tiles = 1;
      counters.tiles += 1;
      run_tile(m_area, all.data(), all.data() + all.size(), hw, scratch, counters);
    }
    hw.working_set_bytes_per_tile = uint64_t(hw.tile_width) * hw.tile_height * working_set_bytes_per_pixel;
    scratch.dram[DramCategory::texture].read_bytes += m_footprints.texture_bytes(m_trace);
    scratch.dram[DramCategory::image_sample].read_bytes += m_footprints.image_bytes(m_trace);
    hw.dram += scratch.dram;
    // No saver, cache or compression yet: the physical ledger equals the nominal one
    // (domain.md section 7); the savers and the texture cache make them differ.
    hw.dram_nominal = hw.dram;
  }

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
    m_framebuffer_width = width;
    m_framebuffer_height = height;
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
      const uint64_t varyings = (mesh.colors.empty() ? 0 : 4) + (mesh.uvs.empty() ? 0 : 2) + (mesh.normals.empty() ? 0 : 3);
      return 3 * (16 + 4 * varyings);
    };
    Traffic t;
    for (uint32_t p = 0; p < m_prims.size(); ++p) t.write_bytes += record_bytes(p);
    t.write_bytes += 4 * lists.entries();
    for (uint32_t prim : lists.prims) t.read_bytes += 4 + record_bytes(prim);
    stats.dram[DramCategory::tile_list] += t;
  }

  // The tile buffer: one surface per attachment of the hardware pass covering the tile's pixels.
  void load_tile(const Rect& rect, PassStats& ledger) {
    m_tile.resize(m_attachments.size());
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      if (m_group_loads[i] == AccessMode::skip) continue;
      const PassAttachment& a = m_attachments[i];
      Surface& tb = m_tile[i];
      tb = Surface(a.image->format, rect.width, rect.height, a.image->samples);
      const Surface& src = *a.surface;
      const Attachment& d = *a.desc;
      const bool forced = m_group_loads[i] == AccessMode::forced;
      const LoadOp main_op = forced ? LoadOp::load : d.load, stencil_op = forced ? LoadOp::load : d.stencil_load;
      const Vec4 clear_color = quantize_color(a.image->format, d.clear.color);
      const float clear_depth = quantize_depth(a.image->format, d.clear.depth);
      for (uint32_t y = 0; y < rect.height; ++y)
        for (uint32_t x = 0; x < rect.width; ++x)
          for (uint32_t s = 0; s < tb.samples; ++s) {
            const size_t ti = tb.index(x, y, s), si = src.index(uint32_t(rect.x) + x, uint32_t(rect.y) + y, s);
            // DONT_CARE and NONE leave the tile undefined: zero here, the same in both paths.
            if (tb.has_color())
              tb.color[ti] = main_op == LoadOp::load ? src.color[si] : main_op == LoadOp::clear ? clear_color : Vec4::Zero();
            if (tb.has_depth())
              tb.depth[ti] = main_op == LoadOp::load ? src.depth[si] : main_op == LoadOp::clear ? clear_depth : 0.0f;
            if (tb.has_stencil())
              tb.stencil[ti] = stencil_op == LoadOp::load ? src.stencil[si]
                               : stencil_op == LoadOp::clear ? uint8_t(d.clear.stencil) : 0;
          }
      // A forced reload always reads DRAM; the API's LOAD does unless the image is transient.
      if (forced || (a.loads && !a.image->transient))
        ledger.dram[DramCategory::attachment_load].read_bytes += pixels(rect) * a.bytes_per_pixel;
    }
  }

  void store_tile(const Rect& rect, PassStats& ledger) {
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      if (m_group_stores[i] == AccessMode::skip) continue;
      const PassAttachment& a = m_attachments[i];
      const bool forced = m_group_stores[i] == AccessMode::forced;
      if (!forced && !a.stores) continue;
      const Surface& tb = m_tile[i];
      Surface& dst = *a.surface;
      const Attachment& d = *a.desc;
      const bool store_main = forced || d.store == StoreOp::store;
      const bool store_stencil = forced || d.stencil_store == StoreOp::store;
      for (uint32_t y = 0; y < rect.height; ++y)
        for (uint32_t x = 0; x < rect.width; ++x)
          for (uint32_t s = 0; s < tb.samples; ++s) {
            const size_t ti = tb.index(x, y, s), di = dst.index(uint32_t(rect.x) + x, uint32_t(rect.y) + y, s);
            if (store_main && tb.has_color()) dst.color[di] = tb.color[ti];
            if (store_main && tb.has_depth()) dst.depth[di] = tb.depth[ti];
            if (store_stencil && tb.has_stencil()) dst.stencil[di] = tb.stencil[ti];
          }
      if (!forced && a.image->transient) continue;  // lazily allocated: never backed by DRAM
      const DramCategory category =
          a.resolve_target && !forced ? DramCategory::resolve : DramCategory::attachment_store;
      ledger.dram[category].write_bytes += pixels(rect) * a.bytes_per_pixel;
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
    t.input_count = uint32_t(std::min<size_t>(sp.input.size(), kMaxInputAttachments));
    for (uint32_t k = 0; k < t.input_count; ++k) {
      if (sp.input[k] == kUnused) continue;
      const Surface& s = m_tile[size_t(sp.input[k])];
      t.input_color[k] = s.has_color() ? s.color.data() : nullptr;
      t.input_depth[k] = s.has_depth() ? s.depth.data() : nullptr;
      t.input_samples[k] = s.samples;
    }
    return t;
  }

  void apply_clear(const Subpass& sp, const MidPassClear& clear, const Rect& tile, PassCounters& counters) {
    std::vector<Rect> rects = clear.rects;
    if (rects.empty()) rects.push_back(m_area);
    for (const Rect& r : rects) {
      const Rect area = intersect(intersect(r, m_area), tile);
      counters.clear_pixels += pixels(area);
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

  // One tile of a hardware pass: load, then each of its subpasses' draws in order (with
  // mid-pass clears between them), rasterizing only the tile's listed primitives, inline
  // resolves at each subpass end, then store.
  void run_tile(const Rect& rect, const uint32_t* list, const uint32_t* list_end, const HardwarePassStats& hw,
                PassStats& ledger, PassCounters& counters) {
    load_tile(rect, ledger);
    uint32_t global_draw = 0;
    for (uint32_t s = 0; s < hw.first_subpass; ++s) global_draw += uint32_t(m_pass.subpasses[s].draws.size());
    for (uint32_t s = hw.first_subpass; s <= hw.last_subpass && s < m_pass.subpasses.size(); ++s) {
      const Subpass& sp = m_pass.subpasses[s];
      TargetSet targets = targets_for(sp, rect);
      for (uint32_t d = 0; d <= sp.draws.size(); ++d) {
        for (const MidPassClear& clear : sp.clears)
          if (clear.before_draw == d || (d == sp.draws.size() && clear.before_draw > d)) apply_clear(sp, clear, rect, counters);
        if (d == sp.draws.size()) break;
        const PassDraw& pd = m_draws[global_draw];
        const Rect clip = intersect(rect, pd.scissor);
        while (list != list_end && m_prims.draw[*list] == global_draw) {
          raster_triangle(m_prims, *list, clip, *pd.draw, m_programs[global_draw], targets, counters);
          ++list;
        }
        ++global_draw;
      }
      resolve_subpass(sp, rect);
    }
    store_tile(rect, ledger);
  }

  enum class AccessMode { skip, api, forced };

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
  uint32_t m_framebuffer_width = 0, m_framebuffer_height = 0;
  std::vector<AccessMode> m_group_loads, m_group_stores;  // per attachment, for the current hardware pass
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
      if (pass.type != PassType::render) stats.dram_nominal = stats.dram;
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
