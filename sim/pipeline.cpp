// Frame execution: render passes through geometry -> binning -> per-tile work (TBDR) or through
// one whole-area "tile" with every primitive (IMR reference), plus copy/blit/resolve/compute
// passes; fills the DRAM ledger by the rules of traces/README.md.
#include "sim/pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

#include "models/errors.h"
#include "sim/binning.h"
#include "sim/framebuffer_cache.h"
#include "sim/geometry.h"
#include "sim/parallel.h"
#include "sim/programs.h"
#include "sim/raster.h"
#include "sim/savers.h"
#include "sim/tile_work.h"

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

// Copies every sample of `src`'s pixels in `r` to `dst` at (dx, dy), of the color and depth
// aspects unless `main` is false and of the stencil aspect unless `stencil` is: rows are contiguous.
void copy_region(const Surface& src, const Rect& r, Surface& dst, int32_t dx = 0, int32_t dy = 0, bool main = true,
                 bool stencil = true) {
  const size_t row = size_t(r.width) * src.samples;
  for (uint32_t y = 0; y < r.height; ++y) {
    const size_t si = src.index(uint32_t(r.x), uint32_t(r.y) + y, 0), di = dst.index(uint32_t(dx), uint32_t(dy) + y, 0);
    if (main && src.has_color()) std::copy_n(src.color.begin() + si, row, dst.color.begin() + di);
    if (main && src.has_depth()) std::copy_n(src.depth.begin() + si, row, dst.depth.begin() + di);
    if (stencil && src.has_stencil()) std::copy_n(src.stencil.begin() + si, row, dst.stencil.begin() + di);
  }
}

// Sets every sample of the color and depth aspects (unless `main` is false) and of the stencil
// aspect (unless `stencil` is) to the given values.
void fill_surface(Surface& s, const Vec4& color, float depth, uint8_t stencil_value, bool main = true,
                  bool stencil = true) {
  if (main) {
    std::fill(s.color.begin(), s.color.end(), color);
    std::fill(s.depth.begin(), s.depth.end(), depth);
  }
  if (stencil) std::fill(s.stencil.begin(), s.stencil.end(), stencil_value);
}

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
  // Everything one thread mutates while it runs tiles: its tile buffer, HSR/work tracker,
  // footprints and programs (programs point into the footprints), ledgers and counters. Tiles of
  // a hardware pass run on several workers; their integer sums merge in any order and their
  // per-tile results are reduced in tile order, so outputs do not depend on the thread count.
  struct TileWorker {
    std::vector<Surface> tile;
    TileWorkTracker tracker;
    Footprints footprints;
    TextureRecorder textures;  // material-texture fetches (and line streams under texture=cache)
    std::vector<CompiledProgram> programs;
    DeferredColors deferred;  // the tile's waiting colors (raster.h)
    PassStats ledger;  // dram only
    PassCounters counters;
    std::vector<std::vector<uint32_t>> block_stored, block_loaded;
    std::vector<uint64_t> empty_saved_load, empty_saved_store;
    uint64_t resolve_pixels = 0;
    uint64_t cleared_samples = 0;  // of this tile's mid-pass clears (TileWork::cleared_samples)
    bool tile_empty = false;
  };

  // One tile's timing, reduced in tile order after all tiles ran.
  struct TileResult {
    models::ShaderCycles shader;
    models::RasterCycles raster;
    double stall = 0, cycles = 0;
    uint64_t tile_buffer_bytes = 0, dram_bytes = 0;
  };

 public:
  RenderPassRunner(const Trace& trace, const Pass& pass, const std::string& where, ImageStore& store,
                   const models::ModelSet& models, const SimOptions& options, SaverState& savers, uint32_t frame)
      : m_trace(trace), m_pass(pass), m_where(where), m_store(store), m_models(models), m_path(options.path),
        m_overdraw(options.overdraw), m_savers(savers), m_frame(frame), m_threads(std::max(1u, options.threads)),
        m_phase_times(options.phase_times) {}

  void run(PassStats& stats) {
    prepare_attachments();
    // Layout transitions at the pass start: from undefined, general or transfer_dst the TE
    // signatures no longer describe memory, except for swapchain images, whose driver keeps them
    // across their per-frame undefined (domain.md section 6).
    for (const PassAttachment& a : m_attachments) {
      const Layout old = a.desc->old_layout;
      if ((old == Layout::undefined || old == Layout::general || old == Layout::transfer_dst) && a.image->swapchain == 0)
        m_savers.invalidate_signatures(a.desc->image);
    }
    m_attachment_stats.assign(m_attachments.size(), AttachmentStats{});
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      AttachmentStats& as = m_attachment_stats[i];
      as.attachment = uint32_t(i);
      as.image = m_attachments[i].image->name;
      as.format = format_info(m_attachments[i].image->format).name;
      const models::ImageTraits traits = image_traits(*m_attachments[i].image);
      const std::string afbc = m_models.compression->ineligible_reason(traits);
      const std::string te = m_models.write_elim->ineligible_reason(traits);
      as.compression = afbc.empty() ? "compressed" : afbc;
      as.write_elim = te.empty() ? "checked" : te;
      if (const auto& contents = m_attachments[i].desc->contents) as.pixels = contents->captured ? "captured" : "given";
    }
    collect_draws();
    size_records();
    for (const PassDraw& d : m_draws) {
      const ProgramInfo* program = find_program(d.draw->program.name);
      const HsrBreakers breakers = hsr_breakers(*d.draw, program ? program->input_attachments : 0);
      stats.hsr_disabled_blending += breakers.blending ? 1 : 0;
      stats.hsr_disabled_discard += breakers.discard ? 1 : 0;
      stats.hsr_disabled_shader_depth_write += breakers.shader_depth_write ? 1 : 0;
      stats.hsr_disabled_tile_read += breakers.tile_read ? 1 : 0;
    }
    if (m_overdraw) {
      stats.overdraw_width = m_framebuffer_width;
      stats.overdraw_height = m_framebuffer_height;
      stats.overdraw.assign(size_t(m_framebuffer_width) * m_framebuffer_height, 0);
      m_overdraw_counts = &stats.overdraw;
    }
    if (m_path == RenderPath::tbdr) {
      const models::DirectDecision direct = m_models.direct->decide(direct_input());
      if (direct.direct) {
        run_direct(stats, direct);
        return;
      }
    }
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
    stats.attachments = m_attachment_stats;
  }

  const Rect& area() const { return m_area; }
  const std::vector<PassAttachment>& attachments() const { return m_attachments; }

 private:
  // What the direct model compares (domain.md section 10, turnip autotune): per pixel, direct
  // rendering reads and writes every attachment once; tiles move what the load/store ops ask;
  // the draws' own traffic is their indices plus every vertex of their meshes.
  models::DirectInput direct_input() const {
    models::DirectInput in;
    in.pixels = pixels(m_area);
    in.draws = uint32_t(m_draws.size());
    in.samples = m_pass_samples;
    for (const PassAttachment& a : m_attachments) {
      in.sysmem_bytes_per_pixel += 2.0 * double(a.bytes_per_pixel);
      in.gmem_bytes_per_pixel += double(a.bytes_per_pixel) * ((a.loads ? 1 : 0) + (a.stores ? 1 : 0));
    }
    for (const PassDraw& d : m_draws) {
      const Mesh& mesh = m_trace.meshes[size_t(d.draw->mesh)];
      in.draw_bytes += double(d.draw->index_count) * (mesh.indices.empty() ? 0 : mesh.index_bits / 8) +
                       double(mesh.positions.size()) * mesh.position_components * 4;
    }
    return in;
  }

  // Direct rendering (FlexRender sysmem / IMR): the whole render pass at once over the render
  // area, every depth/stencil/color access through the framebuffer cache, no binning. CLEAR
  // writes the render area; LOAD costs nothing up front (misses read what is touched); the
  // cache's dirty lines are written back at the end whatever the store op.
  void run_direct(PassStats& stats, const models::DirectDecision& decision) {
    m_direct = true;
    FramebufferCache cache(decision.fb_cache_bytes, decision.line_bytes);
    m_cache = &cache;
    HardwarePassStats hw;
    hw.first_subpass = 0;
    hw.last_subpass = uint32_t(std::max<size_t>(m_pass.subpasses.size(), 1) - 1);
    hw.direct = true;
    hw.direct_reason = decision.reason;
    run_hardware_pass(hw, stats.counters);
    cache.flush();
    hw.dram += cache.ledger();
    hw.dram_nominal = hw.dram;
    hw.dram_nominal[DramCategory::texture].read_bytes = m_texture_nominal_bytes;  // footprint, whatever the model
    // The cache's bytes are fragment-phase traffic: redo the fragment DRAM bound with them.
    const uint64_t geometry_bytes = hw.dram[DramCategory::vertex].read_bytes;
    const Traffic total = hw.dram.total();
    hw.cycles.breakdown.fragment_dram = m_models.dram->transfer_cycles(total.read_bytes + total.write_bytes - geometry_bytes);
    hw.cycles.fragment = std::max(hw.cycles.fragment, hw.cycles.breakdown.fragment_dram);
    m_cache = nullptr;
    stats.merge.merged = true;
    stats.dram += hw.dram;
    stats.dram_nominal += hw.dram_nominal;
    stats.tile_width = hw.tile_width;
    stats.tile_height = hw.tile_height;
    stats.tile_reason = hw.tile_reason;
    stats.hardware_passes.push_back(std::move(hw));
    stats.attachments = m_attachment_stats;
  }

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
  // An attachment no subpass references is neither loaded nor stored: Vulkan, VkAttachmentDescription:
  // "If an attachment is not used by any subpass, loadOp, storeOp, stencilStoreOp, and stencilLoadOp
  // will be ignored for that attachment, and no load or store ops will be performed."
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
      bool in_group = false;
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
    build_events(hw);
    m_prims.clear();
    // Keep only the varyings this hardware pass's programs read (a vertex-color pass: 4 of 9
    // floats per vertex, 113 B per primitive instead of 173 B).
    m_prims.varying_stride = 4;
    for (size_t d = draw_begin; d < draw_end; ++d)
      m_prims.varying_stride =
          std::max(m_prims.varying_stride, varyings_read(program_kind(m_draws[d].draw->program.name)));
    Traffic vertex_traffic;
    const PassCounters before = counters;
    double vertex_alu_cycles = 0;
    m_draw_clip.clear();
    for (const PassDraw& d : m_draws) m_draw_clip.push_back(d.scissor);
    bool empty_tile_enabled = m_path == RenderPath::tbdr && !m_direct && m_models.empty_tile->enabled();
    for (const Subpass& sp : m_pass.subpasses) {
      if (!sp.clears.empty() || sp.depth_resolve != kUnused) empty_tile_enabled = false;
      for (int32_t r : sp.resolve) empty_tile_enabled = empty_tile_enabled && r == kUnused;
    }
    // AFBC sizes of the superblocks LOAD attachments read, from the pixels before this hardware
    // pass overwrites them (apply_savers sizes the loads after the tiles ran).
    for (size_t a = 0; a < count; ++a)
      if (!m_direct && m_group_loads[a] == AccessMode::api && m_attachments[a].loads &&
          !m_attachments[a].image->transient && m_attachment_stats[a].compression == "compressed")
        for (uint32_t b = 0; b < BlockGrid(*m_attachments[a].surface).count(); ++b) afbc_bytes(a, b);

    uint64_t working_set_bytes_per_pixel = 0;
    models::TilingInput tiling_input;
    tiling_input.render_width = m_area.width;
    tiling_input.render_height = m_area.height;
    std::vector<bool> in_tile_memory(count, false);  // color, depth or input of the group
    for (int32_t sp = first; sp <= last; ++sp) {
      const Subpass& subpass = m_pass.subpasses[size_t(sp)];
      for (const std::vector<int32_t>* list : {&subpass.color, &subpass.input})
        for (int32_t a : *list)
          if (a != kUnused) in_tile_memory[size_t(a)] = true;
      if (subpass.depth != kUnused) in_tile_memory[size_t(subpass.depth)] = true;
    }
    for (size_t a = 0; a < count; ++a) {
      if (m_group_loads[a] == AccessMode::skip) continue;
      tiling_input.attachments.push_back(attachment_work(m_attachments[a]));
      // An inline resolve target is written at write-back, never held per sample in the tile
      // buffer (domain.md section 5), so the working set leaves it out.
      if (!m_attachments[a].resolve_target || in_tile_memory[a])
        working_set_bytes_per_pixel += m_attachments[a].bytes_per_pixel;
    }
    PassStats scratch;  // the workers' ledgers land here, then move into the hardware pass
    // A refused merge's spill memory is allocated before tiles run on several threads.
    for (size_t a = 0; a < count; ++a)
      if (m_group_loads[a] == AccessMode::forced || m_group_stores[a] == AccessMode::forced) spill(a);
    // The workers' merged results, accumulated over the renders (chunks) of the hardware pass.
    m_footprints.reset(m_trace);
    m_texture_repeats = 0;
    m_block_stored.assign(count, {});
    m_block_loaded.assign(count, {});
    m_empty_saved_load.assign(count, 0);
    m_empty_saved_store.assign(count, 0);
    TileTiming timing;
    if (m_path == RenderPath::tbdr && !m_direct) {
      const models::TileSize tile = m_models.tiling->choose_tile_size(tiling_input);
      hw.tile_width = tile.width;
      hw.tile_height = tile.height;
      hw.tile_reason = tile.reason;
      const TileGrid grid(m_area, tile.width, tile.height);
      hw.tiles = grid.tile_count();
      hw.grid_cols = grid.cols;
      hw.grid_rows = grid.rows;
      hw.grid_first_col = grid.first_col;
      hw.grid_first_row = grid.first_row;
      hw.tile_cycles.assign(grid.tile_count(), 0.0);
      hw.tile_dram_bytes.assign(grid.tile_count(), 0);
      counters.tiles += grid.tile_count();
      TileLists lists;
      std::vector<TileResult> results(grid.tile_count());
      std::vector<uint8_t> listed(grid.tile_count(), 0);
      // One render of what is binned: the whole hardware pass, or (param_buffer) one of its
      // incremental renders. A render that is not the last stores every attachment of every tile
      // to driver memory and the next one reloads them (domain.md section 10: PowerVR "color and
      // depth/stencil of every tile are stored and later read back"). Empty-tile elimination
      // applies only to a hardware pass rendered at once (a flush stores every tile).
      uint32_t renders = 0;
      // Renders primitives [first, last) of m_prims.
      auto render = [&](size_t first, size_t last, bool last_render) {
        m_reload_from_flush = renders > 0;
        m_store_to_flush = !last_render;
        m_empty_tile_allowed = empty_tile_enabled && renders == 0 && last_render;
        if (m_store_to_flush)
          for (size_t a = 0; a < count; ++a)
            if (m_group_loads[a] != AccessMode::skip) flush_surface(a);
        timed_phase(&PhaseTimes::binning,
                    [&] { bin_triangles(m_prims, first, last, m_draw_clip, grid, lists, uint32_t(m_threads)); });
        counters.tile_list_entries += lists.entries();
        count_tile_list_bytes(first, last, lists, scratch);
        // Empty: no primitive in any render of the hardware pass.
        for (uint32_t t = 0; t < grid.tile_count(); ++t) listed[t] |= lists.offsets[t] != lists.offsets[t + 1];
        if (last_render)
          for (uint8_t l : listed) counters.empty_tiles += l ? 0 : 1;
        timed_phase(&PhaseTimes::tiles, [&] {
          run_tiles(grid.tile_count(), hw, [&](TileWorker& w, uint32_t t) {
            const uint32_t begin = lists.offsets[t], end = lists.offsets[t + 1];
            results[t] = timed_tile(w, grid.tile_rect(t), lists.prims.data() + begin, lists.prims.data() + end, end - begin);
          });
        });
        merge_workers(scratch, counters);
        reduce_tiles(results, timing, hw);
        ++renders;
      };
      // The parameter buffer fills with each binned primitive's record and its tile-list
      // entries (traces/README.md); the primitive that would overflow it starts the next render.
      // A primitive larger than the capacity on its own is rendered alone.
      const uint64_t capacity = m_models.param_buffer->capacity();
      uint64_t binned_bytes = 0;
      EmittedFn on_primitives;
      std::vector<uint64_t> batch_bytes;  // what each primitive of the batch fills
      if (capacity > 0)
        on_primitives = [&](ScreenPrims& prims, size_t first) {
          // The bytes depend on the primitive alone, so a large batch (geometry's rounds on
          // several threads) sizes them on the threads too; the running sum stays in order.
          const size_t n = prims.size() - first;
          batch_bytes.resize(n);
          // Tile-list entries first, then each primitive's record on top; a large batch in as
          // many contiguous ranges as threads (at least kParallelSizing / 4 primitives each).
          auto size_range = [&](size_t begin, size_t end) {
            tiles_touched(prims, begin, end, m_draw_clip, grid, batch_bytes.data() + (begin - first));
            for (size_t p = begin; p < end; ++p) batch_bytes[p - first] = record_bytes(prims, p) + 4 * batch_bytes[p - first];
          };
          const uint32_t ranges =
              n >= kParallelSizing ? uint32_t(std::min<size_t>(m_threads, n / (kParallelSizing / 4))) : 1;
          for_blocks(ranges, [&](uint32_t r) { size_range(first + n * r / ranges, first + n * (r + 1) / ranges); });
          // Primitives before render_first are rendered; they are dropped from `prims` at the
          // end of the batch (one move of the rest, however many flushes the batch holds).
          size_t render_first = 0;
          for (size_t i = 0, p = first; i < n; ++i, ++p) {
            const uint64_t bytes = batch_bytes[i];
            if (p > render_first && binned_bytes + bytes > capacity) {
              // Primitive p starts the next render: the ones before it are rendered now. Its
              // draw is split, so its event ends this render and begins the next.
              m_event_end = m_draw_event[prims.draw[p]] + 1;
              render(render_first, p, false);
              ++counters.param_buffer_flushes;
              m_event_begin = m_draw_event[prims.draw[p]];
              render_first = p;
              binned_bytes = 0;
            }
            binned_bytes += bytes;
          }
          prims.erase_front(render_first);
        };
      m_event_begin = 0;
      timed_geometry([&] {
        transform_draws(m_trace, m_draws, draw_begin, draw_end, m_prims, counters, vertex_traffic, &vertex_alu_cycles,
                        on_primitives, uint32_t(m_threads));
      });
      m_event_end = uint32_t(m_events.size());
      render(0, m_prims.size(), true);
    } else {
      timed_geometry([&] {
        transform_draws(m_trace, m_draws, draw_begin, draw_end, m_prims, counters, vertex_traffic, &vertex_alu_cycles,
                        {}, uint32_t(m_threads));
      });
      // IMR reference: the same raster/depth/blend code over the whole render area, every
      // primitive in submission order, no binning.
      m_empty_tile_allowed = false;
      m_reload_from_flush = m_store_to_flush = false;
      m_event_begin = 0;
      m_event_end = uint32_t(m_events.size());
      std::vector<uint32_t> all(m_prims.size());
      for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
      hw.tile_width = m_area.width;
      hw.tile_height = m_area.height;
      hw.tile_reason = m_direct ? hw.direct_reason : "immediate mode: whole render area";
      hw.tiles = 1;
      hw.grid_cols = hw.grid_rows = 1;
      counters.tiles += 1;
      hw.tile_cycles.assign(1, 0.0);
      hw.tile_dram_bytes.assign(1, 0);
      std::vector<TileResult> results(1);
      timed_phase(&PhaseTimes::tiles, [&] {
        run_tiles(1, hw, [&](TileWorker& w, uint32_t) {
          results[0] = timed_tile(w, m_area, all.data(), all.data() + all.size(), uint32_t(all.size()));
        });
      });
      merge_workers(scratch, counters);
      reduce_tiles(results, timing, hw);
    }
    hw.dram[DramCategory::vertex] += vertex_traffic;
    hw.working_set_bytes_per_tile = uint64_t(hw.tile_width) * hw.tile_height * working_set_bytes_per_pixel;
    m_texture_nominal_bytes = m_footprints.texture_bytes(m_trace);
    scratch.dram[DramCategory::texture].read_bytes += m_texture_nominal_bytes;
    scratch.dram[DramCategory::image_sample].read_bytes += m_footprints.image_bytes(m_trace);
    hw.dram += scratch.dram;
    // Nominal (domain.md section 7): every load and store at full size, empty tiles included,
    // textures as footprints; physical: after empty-tile elimination, AFBC and transaction
    // elimination, and textures through the texture cache when the model has one.
    hw.dram_nominal = hw.dram;
    if (m_texture_config.simulate) {
      const models::TextureCacheStats replay = replay_texture_caches(hw.tile_cycles);
      counters.texture_cache_hits += replay.hits + m_texture_repeats;
      counters.texture_cache_misses += replay.misses;
      counters.texture_l2_hits += replay.l2_hits;
      counters.texture_l2_misses += replay.l2_misses;
      hw.dram[DramCategory::texture].read_bytes += replay.dram_bytes;
      hw.dram[DramCategory::texture].read_bytes -= m_texture_nominal_bytes;
    }
    for (size_t a = 0; a < count; ++a) {
      hw.dram_nominal[DramCategory::attachment_load].read_bytes += m_empty_saved_load[a];
      hw.dram_nominal[m_attachments[a].resolve_target ? DramCategory::resolve : DramCategory::attachment_store]
          .write_bytes += m_empty_saved_store[a];
    }
    if (!m_direct) timed_phase(&PhaseTimes::savers, [&] { apply_savers(hw.dram); });

    // Geometry phase: vertex shading, set-up and binning, bound by its own DRAM bytes (vertex
    // reads, tile-list writes); fragment phase: the slowest core, bound by the rest.
    models::GeometryWork geometry;
    geometry.vertices = counters.vertices - before.vertices;
    geometry.vertex_alu_cycles = vertex_alu_cycles;
    geometry.primitives_in = counters.primitives_in - before.primitives_in;
    geometry.primitives = counters.primitives - before.primitives;
    geometry.tile_list_entries = counters.tile_list_entries - before.tile_list_entries;
    if (m_direct) geometry.primitives = 0;  // nothing is binned
    const models::GeometryCycles g = m_models.geometry->cycles(geometry);
    CycleBreakdown& b = hw.cycles.breakdown;
    b = timing.breakdown;
    b.vertex = g.vertex;
    b.primitive_setup = g.setup;
    b.binning = g.binning;
    const uint64_t geometry_bytes = hw.dram[DramCategory::vertex].read_bytes + hw.dram[DramCategory::tile_list].write_bytes;
    const uint64_t total_bytes = hw.dram.total().read_bytes + hw.dram.total().write_bytes;
    b.geometry_dram = m_models.dram->transfer_cycles(geometry_bytes);
    b.fragment_dram = m_models.dram->transfer_cycles(total_bytes - geometry_bytes);
    hw.cycles.geometry = std::max(g.total, b.geometry_dram);
    hw.cycles.fragment = std::max(m_models.cores->fragment_cycles(hw.tile_cycles), b.fragment_dram);
    hw.tile_buffer_bytes = timing.tile_buffer_bytes;
  }

  // The texture caches of a hardware pass: after every tile ran, the tiles' line streams are
  // replayed in tile order, each through the cache of the core the cores model gives it: the
  // outcome depends on the configuration only, never on which host thread ran a tile.
  models::TextureCacheStats replay_texture_caches(const std::vector<double>& tile_cycles) {
    const std::vector<uint32_t> core = m_models.cores->assign_tiles(tile_cycles);
    // One stream per tile and render (param_buffer flushes), render after render: stream i is tile
    // i % tiles of its render, so a core sees its tiles of each render in order, render after render.
    std::vector<const std::vector<uint64_t>*> tiles;
    std::vector<uint32_t> core_of_stream;
    for (size_t i = 0; !core.empty() && i < m_tile_texture_lines.size(); ++i) {
      tiles.push_back(&m_tile_texture_lines[i]);
      core_of_stream.push_back(core[i % core.size()]);
    }
    const models::TextureCacheStats stats =
        m_models.texture->replay(tiles, core_of_stream, m_models.cores->core_count());
    m_tile_texture_lines.clear();
    m_tile_texture_lines.shrink_to_fit();
    return stats;
  }

  // Per-tile unit cycles summed over the hardware pass's tiles.
  struct TileTiming {
    CycleBreakdown breakdown;
    uint64_t tile_buffer_bytes = 0;
  };

  // The hardware pass's per-tile work in order: mid-pass clears, draws, inline resolves at each
  // subpass end. A render (param_buffer) runs events [m_event_begin, m_event_end): a draw split
  // between two renders appears in both, each rasterizing the primitives binned in it; every
  // other event runs exactly once, so the pixels are those of a single render.
  void build_events(const HardwarePassStats& hw) {
    m_events.clear();
    m_draw_event.assign(m_draws.size(), 0);
    uint32_t global_draw = 0;
    for (uint32_t s = 0; s < hw.first_subpass; ++s) global_draw += uint32_t(m_pass.subpasses[s].draws.size());
    for (uint32_t s = hw.first_subpass; s <= hw.last_subpass && s < m_pass.subpasses.size(); ++s) {
      const Subpass& sp = m_pass.subpasses[s];
      for (uint32_t d = 0; d <= sp.draws.size(); ++d) {
        for (uint32_t c = 0; c < sp.clears.size(); ++c)
          if (sp.clears[c].before_draw == d || (d == sp.draws.size() && sp.clears[c].before_draw > d))
            m_events.push_back({TileEvent::clear, s, c});
        if (d == sp.draws.size()) break;
        m_draw_event[global_draw] = uint32_t(m_events.size());
        m_events.push_back({TileEvent::draw, s, global_draw++});
      }
      m_events.push_back({TileEvent::resolve, s, 0});
    }
  }

  // Merges the workers of the last run_tiles into the hardware pass's sums (integer sums and
  // bitset ORs: the order does not matter).
  void merge_workers(PassStats& scratch, PassCounters& counters) {
    for (TileWorker& w : m_workers) {
      scratch.dram += w.ledger.dram;
      counters += w.counters;
      counters.texel_fetches += w.textures.fetches;
      m_texture_repeats += w.textures.repeats;
      m_footprints.merge(w.footprints);
      for (size_t a = 0; a < m_attachments.size(); ++a) {
        add_counts(m_block_stored[a], w.block_stored[a]);
        add_counts(m_block_loaded[a], w.block_loaded[a]);
        m_empty_saved_load[a] += w.empty_saved_load[a];
        m_empty_saved_store[a] += w.empty_saved_store[a];
      }
    }
  }

  // Adds one render's tiles, in tile order, to the hardware pass's timing and per-tile figures.
  static void reduce_tiles(const std::vector<TileResult>& results, TileTiming& timing, HardwarePassStats& hw) {
    for (size_t t = 0; t < results.size(); ++t) {
      const TileResult& r = results[t];
      CycleBreakdown& b = timing.breakdown;
      b.load += r.shader.load;
      b.triangle_setup += r.raster.setup;
      b.raster += r.raster.raster;
      b.alu += r.shader.alu;
      b.texture += r.shader.texture;
      b.tile_read += r.shader.tile_read;
      b.varying += r.shader.varying;
      b.dependency_stall += r.stall;
      b.pixel += r.shader.pixel;
      b.blend += r.shader.blend;
      b.resolve += r.shader.resolve;
      b.store += r.shader.store;
      timing.tile_buffer_bytes += r.tile_buffer_bytes;
      hw.tile_cycles[t] += r.cycles;
      hw.tile_dram_bytes[t] += r.dram_bytes;
    }
  }


  // One tile with its timing: the tile's work goes through the raster, shader and deps models;
  // its time is load + max(raster, shading + stalls) + resolve + store (the rasterizer feeds
  // the shader while both run; loads and write-backs of one tile do not overlap its shading).
  TileResult timed_tile(TileWorker& w, const Rect& rect, const uint32_t* list, const uint32_t* list_end,
                        uint32_t entries) {
    PassStats& ledger = w.ledger;
    const Traffic before = ledger.dram.total();
    const uint64_t load_before = ledger.dram[DramCategory::attachment_load].read_bytes;
    const uint64_t clears_before = w.counters.clear_pixels;
    w.resolve_pixels = 0;
    w.cleared_samples = 0;
    w.tile_empty = entries == 0 && m_empty_tile_allowed;
    w.tracker.begin_tile(rect, m_pass_samples);
    run_tile(w, rect, list, list_end);
    models::TileWork work = w.tracker.end_tile();
    const Traffic after = ledger.dram.total();
    work.primitives = entries;
    work.clear_pixels = w.counters.clear_pixels - clears_before;
    work.load_bytes = ledger.dram[DramCategory::attachment_load].read_bytes - load_before;
    work.store_bytes = after.write_bytes - before.write_bytes;
    work.resolve_pixels = w.resolve_pixels;
    work.cleared_samples = w.cleared_samples;
    if (m_direct) work.load_bytes = work.store_bytes = 0;  // no tile buffer: accesses go to memory
    // On-chip traffic (energy): fills and write-backs, a depth read per rasterized sample and a
    // 4-byte color write per written sample and a 4-byte read per blended one (blended samples
    // are among the written ones): a guess, models/README.md.
    work.tile_buffer_bytes = work.load_bytes + work.store_bytes + 4 * work.fragments_rasterized * work.samples +
                             4 * work.written_samples + 4 * work.blended_samples;
    w.counters.fragments_shaded += work.fragments_shaded;
    TileResult r;
    r.shader = m_models.shader->tile_cycles(work);
    r.raster = m_models.raster->tile_cycles(work);
    r.stall = m_models.deps->stall_cycles(work);
    r.tile_buffer_bytes = work.tile_buffer_bytes;
    r.cycles = r.shader.load + std::max(r.raster.total, r.shader.shading + r.stall) + r.shader.resolve + r.shader.store;
    r.dram_bytes = after.read_bytes - before.read_bytes + after.write_bytes - before.write_bytes;
    return r;
  }

  // Runs `work` and, when the caller asked for phase times, adds its wall time to `phase`.
  template <class Work>
  void timed_phase(double PhaseTimes::*phase, Work&& work) {
    if (!m_phase_times) return work();
    const auto start = std::chrono::steady_clock::now();
    work();
    m_phase_times->*phase += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  // timed_phase() for geometry, less the renders that parameter-buffer flushes start inside it
  // (their binning, tiles and savers count as theirs).
  template <class Work>
  void timed_geometry(Work&& work) {
    if (!m_phase_times) return work();
    PhaseTimes& t = *m_phase_times;
    const double others = t.binning + t.tiles + t.savers;
    timed_phase(&PhaseTimes::geometry, work);
    t.geometry -= t.binning + t.tiles + t.savers - others;
  }

  // Sets up the workers and runs `tile_count` tiles through `body`, on up to m_threads threads.
  // Tiles are taken in order from a shared counter; results are indexed by tile.
  template <class Body>
  void run_tiles(uint32_t tile_count, const HardwarePassStats& hw, Body body) {
    (void)hw;
    const size_t workers = std::max<size_t>(1, std::min<size_t>(m_threads, tile_count));
    m_workers.clear();
    m_workers.resize(workers);
    std::vector<const Draw*> draws;
    for (const PassDraw& d : m_draws) draws.push_back(d.draw);
    m_texture_config = m_models.texture->config();
    // Texture line streams of every render of the hardware pass, render after render, each in
    // tile order (replay_texture_caches runs them after the hardware pass).
    const size_t stream_base = m_tile_texture_lines.size();
    if (m_texture_config.simulate) m_tile_texture_lines.resize(stream_base + tile_count);
    for (TileWorker& w : m_workers) {
      w.footprints.reset(m_trace);
      w.textures.configure(m_trace, m_texture_config);
      for (const PassDraw& d : m_draws)
        w.programs.push_back(compile_program(m_trace, *d.draw, m_store, w.footprints, m_framebuffer_width,
                                             m_framebuffer_height, &w.textures));
      w.tracker.begin_pass(m_models.hsr->policy(), draws);
      if (m_overdraw_counts) w.tracker.set_overdraw(m_overdraw_counts, m_framebuffer_width);
      w.block_stored.assign(m_attachments.size(), {});
      w.block_loaded.assign(m_attachments.size(), {});
      w.empty_saved_load.assign(m_attachments.size(), 0);
      w.empty_saved_store.assign(m_attachments.size(), 0);
    }
    // Each tile's texture line stream is kept apart (indexed by tile) for the replay.
    auto run_one = [&](TileWorker& w, uint32_t t) {
      w.textures.begin_tile();
      body(w, t);
      if (w.textures.record_lines) m_tile_texture_lines[stream_base + t].swap(w.textures.lines);
    };
    if (workers == 1) {
      for (uint32_t t = 0; t < tile_count; ++t) run_one(m_workers[0], t);
      return;
    }
    std::atomic<uint32_t> next{0};
    std::vector<std::exception_ptr> errors(workers);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < workers; ++i)
      threads.emplace_back([&, i] {
        try {
          for (uint32_t t = next++; t < tile_count; t = next++) run_one(m_workers[i], t);
        } catch (...) {
          errors[i] = std::current_exception();
        }
      });
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }

  // Runs body(b) for b in [0, count) on up to m_threads threads; each b touches only its own data.
  template <class Body>
  void parallel_blocks(uint32_t count, Body body) {
    const size_t workers = std::max<size_t>(1, std::min<size_t>(m_threads, count / 64));
    if (workers <= 1) {
      for (uint32_t b = 0; b < count; ++b) body(b);
      return;
    }
    std::atomic<uint32_t> next{0};
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w)
      threads.emplace_back([&] {
        for (uint32_t start = next.fetch_add(64); start < count; start = next.fetch_add(64))
          for (uint32_t b = start; b < std::min(count, start + 64); ++b) body(b);
      });
    for (std::thread& t : threads) t.join();
  }

  static void add_counts(std::vector<uint32_t>& into, const std::vector<uint32_t>& from) {
    if (from.empty()) return;
    if (into.empty()) into.assign(from.size(), 0);
    for (size_t i = 0; i < from.size(); ++i) into[i] += from[i];
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
      m_pass_samples = std::max(m_pass_samples, samples);
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

  // One primitive's record in the parameter buffer (traces/README.md): 3 vertices x (16 B
  // screen position + 4 B per varying component of its mesh).
  uint64_t record_bytes(const ScreenPrims& prims, size_t prim) const { return m_draw_record_bytes[prims.draw[prim]]; }
  // The record size of every primitive of each draw (a per-primitive lookup through its mesh
  // would repeat it for each of a million primitives and their list entries).
  void size_records() {
    m_draw_record_bytes.clear();
    for (const PassDraw& d : m_draws) {
      const Mesh& mesh = m_trace.meshes[size_t(d.draw->mesh)];
      const uint64_t varyings = (mesh.colors.empty() ? 0 : 4) + (mesh.uvs.empty() ? 0 : 2) + (mesh.normals.empty() ? 0 : 3);
      m_draw_record_bytes.push_back(3 * (16 + 4 * varyings));
    }
  }

  // Parameter buffer traffic (traces/README.md): binning writes one record per primitive and
  // 4 B per list entry; each tile reads its entries and the records they point to.
  void count_tile_list_bytes(size_t first, size_t last, const TileLists& lists, PassStats& stats) {
    Traffic t;
    for (size_t p = first; p < last; ++p) t.write_bytes += record_bytes(m_prims, p);
    t.write_bytes += 4 * lists.entries();
    for (uint32_t prim : lists.prims) t.read_bytes += 4 + record_bytes(m_prims, prim);
    stats.dram[DramCategory::tile_list] += t;
  }

  // The tile buffer: one surface per attachment of the hardware pass covering the tile's pixels.
  void load_tile(TileWorker& w, const Rect& rect, PassStats& ledger) {
    w.tile.resize(m_attachments.size());
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      if (m_group_loads[i] == AccessMode::skip) continue;
      const PassAttachment& a = m_attachments[i];
      Surface& tb = w.tile[i];
      // Every sample is written below (or zeroed, as a new surface reads), so the worker's tile
      // buffer keeps its storage from tile to tile.
      tb.reshape(a.image->format, rect.width, rect.height, a.image->samples);
      if (m_reload_from_flush) {
        // After a parameter-buffer flush: every attachment comes back from driver memory, in
        // driver-owned memory even when transient (the flush had to back it).
        copy_region(m_flush[i], rect, tb);
        const uint64_t bytes = pixels(rect) * a.bytes_per_pixel;
        ledger.dram[DramCategory::attachment_load].read_bytes += bytes;
        w.counters.param_buffer_flush_load_bytes += bytes;
        continue;
      }
      const bool forced = m_group_loads[i] == AccessMode::forced;
      const Surface& src = forced ? spill(i) : *a.surface;
      const Attachment& d = *a.desc;
      if (unchanged_in_empty_tile(w, i)) {
        // Empty-tile elimination: neither loaded nor stored, the image keeps its contents.
        fill_surface(tb, Vec4::Zero(), 0.0f, 0);
        w.empty_saved_load[i] += pixels(rect) * a.bytes_per_pixel;
        continue;
      }
      const LoadOp main_op = forced ? LoadOp::load : d.load, stencil_op = forced ? LoadOp::load : d.stencil_load;
      const Vec4 clear_color = quantize_color(a.image->format, d.clear.color);
      const float clear_depth = quantize_depth(a.image->format, d.clear.depth);
      // LOAD copies the image's rows, CLEAR fills the clear value; DONT_CARE and NONE leave the
      // tile undefined: zero here, the same in both paths.
      const bool main_clear = main_op == LoadOp::clear, stencil_clear = stencil_op == LoadOp::clear;
      copy_region(src, rect, tb, 0, 0, main_op == LoadOp::load, stencil_op == LoadOp::load);
      fill_surface(tb, main_clear ? clear_color : Vec4(Vec4::Zero()), main_clear ? clear_depth : 0.0f,
                   stencil_clear ? uint8_t(d.clear.stencil) : uint8_t(0), main_op != LoadOp::load,
                   stencil_op != LoadOp::load);
      if (m_direct) {
        // Direct: a clear writes the render area to memory; a load reads nothing up front.
        const bool clears = main_op == LoadOp::clear || (tb.has_stencil() && stencil_op == LoadOp::clear);
        // (A direct render has no tile buffer to keep a transient attachment in: it is memory too.)
        if (clears)
          ledger.dram[a.color ? DramCategory::framebuffer_color : DramCategory::framebuffer_depth].write_bytes +=
              pixels(rect) * a.bytes_per_pixel;
        continue;
      }
      // A forced reload always reads DRAM; the API's LOAD does unless the image is transient.
      if (forced || (a.loads && !a.image->transient)) {
        ledger.dram[DramCategory::attachment_load].read_bytes += pixels(rect) * a.bytes_per_pixel;
        if (!forced) count_blocks(w.block_loaded, i, rect);
      }
    }
  }

  void store_tile(TileWorker& w, const Rect& rect, PassStats& ledger) {
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      if (m_group_stores[i] == AccessMode::skip) continue;
      const PassAttachment& a = m_attachments[i];
      if (m_store_to_flush) {
        // A parameter-buffer flush stores every attachment of the tile, depth and stencil, DONT_CARE
        // and transient ones included (domain.md section 10), for the next render to reload.
        copy_region(w.tile[i], Rect{0, 0, rect.width, rect.height}, m_flush[i], rect.x, rect.y);
        const uint64_t bytes = pixels(rect) * a.bytes_per_pixel;
        ledger.dram[DramCategory::attachment_store].write_bytes += bytes;
        w.counters.param_buffer_flush_store_bytes += bytes;
        continue;
      }
      const bool forced = m_group_stores[i] == AccessMode::forced;
      if (!forced && !a.stores) continue;
      if (unchanged_in_empty_tile(w, i)) {
        w.empty_saved_store[i] += pixels(rect) * a.bytes_per_pixel;
        continue;
      }
      const Surface& tb = w.tile[i];
      Surface& dst = forced ? spill(i) : *a.surface;
      const Attachment& d = *a.desc;
      const bool store_main = forced || d.store == StoreOp::store;
      const bool store_stencil = forced || d.stencil_store == StoreOp::store;
      // The API's store of an attachment with given (captured) contents writes those pixels, the
      // program's own, in place of the stand-in programs' (every sample gets the pixel's value).
      const ImageContents* given = forced ? nullptr : (d.contents ? &*d.contents : nullptr);
      const FormatInfo& info = format_info(a.image->format);
      if (!given) copy_region(tb, Rect{0, 0, rect.width, rect.height}, dst, rect.x, rect.y, store_main, store_stencil);
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
      if (m_direct) continue;  // written through the framebuffer cache already
      if (!forced && a.image->transient) continue;  // lazily allocated: never backed by DRAM
      const DramCategory category =
          a.resolve_target && !forced ? DramCategory::resolve : DramCategory::attachment_store;
      ledger.dram[category].write_bytes += pixels(rect) * a.bytes_per_pixel;
      if (!forced) count_blocks(w.block_stored, i, rect);
    }
  }

  // An attachment this empty tile leaves as it is: loaded and stored by the API's ops (LOAD and
  // STORE), in a tile with no primitives, in a pass with no mid-pass clears or inline resolves.
  bool unchanged_in_empty_tile(const TileWorker& w, size_t i) const {
    if (!w.tile_empty) return false;
    if (m_group_loads[i] != AccessMode::api || m_group_stores[i] != AccessMode::api) return false;
    const Attachment& d = *m_attachments[i].desc;
    const FormatInfo& info = format_info(m_attachments[i].image->format);
    const bool main = info.channels > 0 || info.has_depth;
    if (main && (d.load != LoadOp::load || d.store != StoreOp::store)) return false;
    if (info.has_stencil && (d.stencil_load != LoadOp::load || d.stencil_store != StoreOp::store)) return false;
    return true;
  }

  // Pixels of `rect` per 16x16 block of the attachment's image (the savers' grid).
  void count_blocks(std::vector<std::vector<uint32_t>>& blocks, size_t i, const Rect& rect) {
    const Surface& surface = *m_attachments[i].surface;
    const BlockGrid grid(surface);
    std::vector<uint32_t>& counts = blocks[i];
    if (counts.empty()) counts.assign(grid.count(), 0);
    const uint32_t n = models::kSuperblockSize;
    for (uint32_t by = uint32_t(rect.y) / n; by <= (uint32_t(rect.y) + rect.height - 1) / n; ++by)
      for (uint32_t bx = uint32_t(rect.x) / n; bx <= (uint32_t(rect.x) + rect.width - 1) / n; ++bx) {
        const uint32_t x0 = std::max(bx * n, uint32_t(rect.x)), x1 = std::min((bx + 1) * n, uint32_t(rect.x) + rect.width);
        const uint32_t y0 = std::max(by * n, uint32_t(rect.y)), y1 = std::min((by + 1) * n, uint32_t(rect.y) + rect.height);
        counts[by * grid.cols + bx] += (x1 - x0) * (y1 - y0);
      }
  }

  // The compressed size of a superblock as the image holds it now (recomputed when unknown).
  uint64_t afbc_bytes(size_t i, uint32_t block) {
    ImageSaverState& state = m_savers.image(m_attachments[i].desc->image);
    const Surface& surface = *m_attachments[i].surface;
    if (state.afbc_bytes.empty()) state.afbc_bytes.assign(BlockGrid(surface).count(), UINT64_MAX);
    if (state.afbc_bytes[block] == UINT64_MAX) {
      models::SuperblockPixels pixels;
      superblock_pixels(surface, block, pixels);
      state.afbc_bytes[block] = m_models.compression->superblock_bytes(pixels);
    }
    return state.afbc_bytes[block];
  }

  // After a hardware pass's tiles: the physical bytes of eligible attachments' loads and stores
  // (and sampled reads of compressed images) replace the raw ones. Stores are sized on the
  // image's own 16x16 blocks once the pass has stored them, whatever the tile size: AFBC from
  // the pixels, TE against the image's signatures (per swapchain image in rotation).
  void apply_savers(DramLedger& physical) {
    for (size_t i = 0; i < m_attachments.size(); ++i) {
      const PassAttachment& a = m_attachments[i];
      AttachmentStats& as = m_attachment_stats[i];
      as.empty_tile_bytes_saved += m_empty_saved_load[i] + m_empty_saved_store[i];
      const bool afbc = as.compression == "compressed", te = as.write_elim == "checked";
      const Surface& surface = *a.surface;
      const uint64_t bpp = a.bytes_per_pixel;
      // Loads first: their sizes are the pre-pass ones, which the stores below replace.
      if (!m_block_loaded[i].empty()) {
        uint64_t raw = 0, bytes = 0;
        for (uint32_t b = 0; b < m_block_loaded[i].size(); ++b) {
          if (!m_block_loaded[i][b]) continue;
          raw += uint64_t(m_block_loaded[i][b]) * bpp;
          bytes += afbc ? afbc_bytes(i, b) : uint64_t(m_block_loaded[i][b]) * bpp;
        }
        physical[DramCategory::attachment_load].read_bytes -= raw;
        physical[DramCategory::attachment_load].read_bytes += bytes;
        as.load_raw_bytes += raw;
        as.load_bytes += bytes;
      }
      if (!m_block_stored[i].empty()) {
        uint64_t raw = 0, bytes = 0;
        ImageSaverState& state = m_savers.image(a.desc->image);
        std::vector<uint64_t>& signatures = state.signatures[m_frame % state.signatures.size()];
        if (te && signatures.empty()) signatures.assign(BlockGrid(surface).count(), 0);
        if (afbc) state.afbc_bytes.assign(BlockGrid(surface).count(), UINT64_MAX);  // rewritten: resize
        // The per-block pixel work (AFBC sizes, TE signatures) of distinct blocks is independent:
        // computed on the pass's threads, then folded in block order below. Both read the
        // block's pixel codes, extracted once.
        const std::vector<uint32_t>& stored = m_block_stored[i];
        std::vector<uint64_t> block_signature(te ? stored.size() : 0, 0);
        if (afbc || te)
          parallel_blocks(uint32_t(stored.size()), [&](uint32_t b) {
            if (!stored[b]) return;
            models::SuperblockPixels pixels;
            superblock_pixels(surface, b, pixels);
            if (afbc) state.afbc_bytes[b] = m_models.compression->superblock_bytes(pixels);
            if (te) {
              uint8_t scratch[kBlockBytesMax];
              const std::span<const uint8_t> content = block_bytes(pixels, scratch);
              block_signature[b] = (uint64_t(1) << 32) | m_models.write_elim->signature(content.data(), content.size());
            }
          });
        if (m_overdraw && as.block_ratio.empty()) {
          const BlockGrid grid(surface);
          as.block_cols = grid.cols;
          as.block_rows = grid.rows;
          as.block_ratio.assign(grid.count(), -1.0f);
          as.block_kills.assign(grid.count(), 0);
        }
        for (uint32_t b = 0; b < m_block_stored[i].size(); ++b) {
          if (!m_block_stored[i][b]) continue;
          const uint64_t block_raw = uint64_t(m_block_stored[i][b]) * bpp;
          uint64_t block_bytes_physical = afbc ? afbc_bytes(i, b) : block_raw;
          if (m_overdraw) as.block_ratio[b] = float(double(block_bytes_physical) / double(block_raw));
          if (te) {
            const uint64_t signature = block_signature[b];
            ++as.te_blocks;
            if (signatures[b] == signature) {
              ++as.te_blocks_killed;
              if (m_overdraw) ++as.block_kills[b];
              as.te_bytes_saved += block_bytes_physical;
              block_bytes_physical = 0;
            }
            signatures[b] = signature;
          }
          raw += block_raw;
          bytes += block_bytes_physical;
        }
        const DramCategory category = a.resolve_target ? DramCategory::resolve : DramCategory::attachment_store;
        physical[category].write_bytes -= raw;
        physical[category].write_bytes += bytes;
        as.store_raw_bytes += raw;
        as.store_bytes += bytes;
      }
    }
    // Sampled reads of compressed images fetch whole superblocks at their compressed size.
    for (const Footprints::ImageLevel& level : m_footprints.image_levels()) {
      const ImageDesc& image = m_trace.images[size_t(level.image)];
      if (image.transient || level.mip != 0 || level.layer != 0) continue;
      if (!m_models.compression->ineligible_reason(image_traits(image)).empty()) continue;
      const Surface& surface = m_store.surface(level.image, 0, 0);
      const BlockGrid grid(surface);
      std::vector<bool> touched(grid.count(), false);
      uint64_t texels = 0;
      for (size_t t = 0; t < size_t(surface.width) * surface.height; ++t) {
        if (!((level.bits[t >> 6] >> (t & 63)) & 1)) continue;
        ++texels;
        touched[(uint32_t(t / surface.width) / models::kSuperblockSize) * grid.cols +
                uint32_t(t % surface.width) / models::kSuperblockSize] = true;
      }
      ImageSaverState& state = m_savers.image(level.image);
      if (state.afbc_bytes.empty()) state.afbc_bytes.assign(grid.count(), UINT64_MAX);
      uint64_t bytes = 0;
      for (uint32_t b = 0; b < grid.count(); ++b) {
        if (!touched[b]) continue;
        if (state.afbc_bytes[b] == UINT64_MAX) {
          models::SuperblockPixels pixels;
          superblock_pixels(surface, b, pixels);
          state.afbc_bytes[b] = m_models.compression->superblock_bytes(pixels);
        }
        bytes += state.afbc_bytes[b];
      }
      physical[DramCategory::image_sample].read_bytes -= texels * format_info(image.format).bytes_per_pixel;
      physical[DramCategory::image_sample].read_bytes += bytes;
    }
  }

  // Driver-owned memory for a refused merge's round trip: the intermediate contents live there
  // between hardware passes, so the image itself changes only by the API's store op.
  Surface& spill(size_t attachment) { return driver_surface(m_spill, attachment); }

  // Driver-owned memory a parameter-buffer flush stores an attachment to (allocated before tiles
  // run on several threads). Separate from the image: a DONT_CARE store must leave it unchanged.
  Surface& flush_surface(size_t attachment) { return driver_surface(m_flush, attachment); }

  // An attachment-sized surface of `pool`, allocated on first use.
  Surface& driver_surface(std::vector<Surface>& pool, size_t attachment) {
    if (pool.size() < m_attachments.size()) pool.resize(m_attachments.size());
    Surface& s = pool[attachment];
    if (s.width == 0) {
      const Surface& image = *m_attachments[attachment].surface;
      s = Surface(image.format, image.width, image.height, image.samples);
    }
    return s;
  }

  TargetSet targets_for(TileWorker& w, const Subpass& sp, const Rect& rect) {
    TargetSet t;
    t.area = rect;
    t.samples = 1;
    t.color_count = uint32_t(std::min<size_t>(sp.color.size(), kMaxColorAttachments));
    for (uint32_t c = 0; c < t.color_count; ++c) {
      if (sp.color[c] == kUnused) continue;
      Surface& s = w.tile[size_t(sp.color[c])];
      t.color[c] = s.color.data();
      t.color_format[c] = s.format;
      t.samples = s.samples;
    }
    if (sp.depth != kUnused) {
      Surface& s = w.tile[size_t(sp.depth)];
      t.depth = s.has_depth() ? s.depth.data() : nullptr;
      t.stencil = s.has_stencil() ? s.stencil.data() : nullptr;
      t.depth_format = s.format;
      t.samples = s.samples;
    }
    if (m_direct && m_cache) {
      t.framebuffer = m_cache;
      t.framebuffer_width = m_framebuffer_width;
      for (uint32_t c = 0; c < t.color_count; ++c)
        if (sp.color[c] != kUnused) {
          t.color_surface[c] = uint32_t(sp.color[c]);
          t.color_bpp[c] = format_info(m_attachments[size_t(sp.color[c])].image->format).bytes_per_pixel;
        }
      if (sp.depth != kUnused) {
        t.depth_surface = uint32_t(sp.depth);
        t.depth_bpp = format_info(m_attachments[size_t(sp.depth)].image->format).bytes_per_pixel;
      }
    }
    t.input_count = uint32_t(std::min<size_t>(sp.input.size(), kMaxInputAttachments));
    for (uint32_t k = 0; k < t.input_count; ++k) {
      if (sp.input[k] == kUnused) continue;
      const Surface& s = w.tile[size_t(sp.input[k])];
      t.input_color[k] = s.has_color() ? s.color.data() : nullptr;
      t.input_depth[k] = s.has_depth() ? s.depth.data() : nullptr;
      t.input_samples[k] = s.samples;
    }
    return t;
  }

  void apply_clear(TileWorker& w, const Subpass& sp, const MidPassClear& clear, const Rect& tile,
                   PassCounters& counters) {
    std::vector<Rect> rects = clear.rects;
    if (rects.empty()) rects.push_back(m_area);
    for (const Rect& r : rects) {
      const Rect area = intersect(intersect(r, m_area), tile);
      counters.clear_pixels += pixels(area);
      auto fill = [&](int32_t attachment, bool color, bool depth, bool stencil) {
        Surface& s = w.tile[size_t(attachment)];
        const Vec4 c = quantize_color(s.format, clear.value.color);
        const float z = quantize_depth(s.format, clear.value.depth);
        w.cleared_samples += pixels(area) * s.samples;
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
  void resolve_subpass(TileWorker& w, const Subpass& sp, const Rect& tile) {
    for (size_t c = 0; c < sp.resolve.size() && c < sp.color.size(); ++c)
      if (sp.resolve[c] != kUnused && sp.color[c] != kUnused) w.resolve_pixels += pixels(tile);
    if (sp.depth_resolve != kUnused && sp.depth != kUnused) w.resolve_pixels += pixels(tile);
    for (size_t c = 0; c < sp.resolve.size() && c < sp.color.size(); ++c) {
      if (sp.resolve[c] == kUnused || sp.color[c] == kUnused) continue;
      const Surface& src = w.tile[size_t(sp.color[c])];
      Surface& dst = w.tile[size_t(sp.resolve[c])];
      for (uint32_t y = 0; y < tile.height; ++y)
        for (uint32_t x = 0; x < tile.width; ++x) dst.color[dst.index(x, y, 0)] = quantize_color(dst.format, src.resolved_color(x, y));
    }
    if (sp.depth_resolve != kUnused && sp.depth != kUnused) {
      const Surface& src = w.tile[size_t(sp.depth)];
      Surface& dst = w.tile[size_t(sp.depth_resolve)];
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

  // One tile of a hardware pass (or of one of its renders): load, then its events in order
  // (mid-pass clears, draws rasterizing only the tile's listed primitives, inline resolves at
  // each subpass end), then store.
  void run_tile(TileWorker& w, const Rect& rect, const uint32_t* list, const uint32_t* list_end) {
    PassCounters& counters = w.counters;
    load_tile(w, rect, w.ledger);
    uint32_t subpass = UINT32_MAX;
    TargetSet targets;
    // Colors of opaque vertex_color draws wait in w.deferred (raster.h DeferredColors) in tiles;
    // the immediate-mode reference path and direct rendering store every color at once. Waiting
    // colors are stored before anything else touches the colors.
    const bool defer =
        m_path == RenderPath::tbdr && !m_direct && size_t(rect.width) * rect.height <= kMaxDeferredPixels;
    if (defer) w.deferred.reset(size_t(rect.width) * rect.height);
    for (uint32_t e = m_event_begin; e < m_event_end; ++e) {
      const TileEvent& event = m_events[e];
      const Subpass& sp = m_pass.subpasses[event.subpass];
      if (event.subpass != subpass) {
        flush_deferred_colors(targets);
        targets = targets_for(w, sp, rect);
        if (defer) targets.deferred = &w.deferred;
        subpass = event.subpass;
      }
      // A draw's facts (raster.h), worked out once for all its primitives in the tile.
      const DrawFacts facts = event.kind == TileEvent::draw
                                  ? draw_facts(*m_draws[event.index].draw, w.programs[event.index], targets)
                                  : DrawFacts{};
      if (!facts.defer) flush_deferred_colors(targets);
      switch (event.kind) {
        case TileEvent::clear: apply_clear(w, sp, sp.clears[event.index], rect, counters); break;
        case TileEvent::resolve: resolve_subpass(w, sp, rect); break;
        case TileEvent::draw: {
          const PassDraw& pd = m_draws[event.index];
          const Rect clip = intersect(rect, pd.scissor);
          while (list != list_end && m_prims.draw[*list] == event.index) {
            raster_triangle(m_prims, *list, clip, *pd.draw, w.programs[event.index], targets, counters, &w.tracker,
                            &facts);
            ++list;
          }
          break;
        }
      }
    }
    flush_deferred_colors(targets);
    store_tile(w, rect, w.ledger);
  }

  // Parameter-buffer batches of at least this many primitives are sized on the pass's threads.
  static constexpr size_t kParallelSizing = 65536;
  // Tiles up to this size defer colors (the deferred store takes 32 B a pixel).
  static constexpr size_t kMaxDeferredPixels = size_t(1) << 16;

  enum class AccessMode { skip, api, forced };

  const Trace& m_trace;
  const Pass& m_pass;
  std::string m_where;
  ImageStore& m_store;
  const models::ModelSet& m_models;
  RenderPath m_path;
  bool m_overdraw;
  std::vector<PassAttachment> m_attachments;
  Rect m_area;
  std::vector<PassDraw> m_draws;
  ScreenPrims m_prims;
  Footprints m_footprints;
  models::TextureCacheConfig m_texture_config;
  std::vector<std::vector<uint64_t>> m_tile_texture_lines;  // per tile of each render of the hardware pass
  uint64_t m_texture_repeats = 0;  // folded repeat fetches of the current hardware pass (cache hits)
  uint64_t m_texture_nominal_bytes = 0;                     // the current hardware pass's footprint
  std::vector<TileWorker> m_workers;
  std::vector<uint16_t>* m_overdraw_counts = nullptr;
  std::vector<Surface> m_spill;  // per attachment, allocated on a refused merge's first store
  SaverState& m_savers;
  uint32_t m_frame;
  size_t m_threads = 1;
  PhaseTimes* m_phase_times = nullptr;
  std::vector<AttachmentStats> m_attachment_stats;
  // Per attachment, for the current hardware pass: pixels stored and loaded per 16x16 block of
  // the image (the savers' grid), and bytes empty-tile elimination skipped.
  std::vector<std::vector<uint32_t>> m_block_stored, m_block_loaded;
  std::vector<uint64_t> m_empty_saved_load, m_empty_saved_store;
  bool m_empty_tile_allowed = false;  // empty_tile=on, and no mid-pass clears or inline resolves
  bool m_direct = false;                 // this pass renders directly (run_direct)
  FramebufferCache* m_cache = nullptr;   // its framebuffer cache
  uint32_t m_pass_samples = 1;
  uint32_t m_framebuffer_width = 0, m_framebuffer_height = 0;
  std::vector<AccessMode> m_group_loads, m_group_stores;  // per attachment, for the current hardware pass
  std::vector<Rect> m_draw_clip;  // per draw: its scissor within the render area (binning)
  std::vector<uint64_t> m_draw_record_bytes;  // per draw: one primitive's parameter-buffer record
  // The current hardware pass's events (build_events), each draw's event, and the range the
  // current render runs.
  struct TileEvent {
    enum Kind : uint8_t { clear, draw, resolve } kind;
    uint32_t subpass;
    uint32_t index;  // clear: index in the subpass's clears; draw: index in m_draws
  };
  std::vector<TileEvent> m_events;
  std::vector<uint32_t> m_draw_event;
  uint32_t m_event_begin = 0, m_event_end = 0;
  // Parameter-buffer flushes (param_buffer): this render reloads every attachment from m_flush /
  // stores every attachment to it instead of the API's (or a merge round trip's) ops.
  bool m_reload_from_flush = false, m_store_to_flush = false;
  std::vector<Surface> m_flush;
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

// A dependency whose destination includes a stage before fragment shading makes the next
// pass's geometry wait for the previous pass's fragment work (domain.md section 1: a too-wide
// barrier removes the overlap; seed 003 measures ~13% frame time).
bool blocks_geometry(uint32_t dst_stages) {
  return (dst_stages & (kStageTopOfPipe | kStageDrawIndirect | kStageVertexInput | kStageVertexShader |
                        kStageAllGraphics | kStageAllCommands)) != 0;
}

class FrameRunner {
 public:
  FrameRunner(const Trace& trace, ImageStore& store, const models::ModelSet& models, const SimOptions& options,
              ImageSink* sink)
      : m_trace(trace), m_store(store), m_models(models), m_options(options), m_sink(sink), m_savers(trace) {}

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
        case PassType::barrier:
          // Layouts: a transition from undefined/general/transfer_dst drops TE signatures
          // (swapchain images keep theirs); stages: acted on by the scheduler.
          for (const ImageRef& b : pass.barriers) {
            const bool invalidating = b.old_layout == Layout::undefined || b.old_layout == Layout::general ||
                                      b.old_layout == Layout::transfer_dst;
            if (invalidating && m_trace.images[size_t(b.image)].swapchain == 0) m_savers.invalidate_signatures(b.image);
          }
          break;
      }
      // Transfers and compute: no saver applies here (models/README.md), so the physical ledger
      // equals the nominal one.
      if (pass.type != PassType::render) {
        stats.dram_nominal = stats.dram;
        // A copy, blit, resolve or compute write into an image: its signatures are stale
        // (vkCmdBlitImage always invalidates, domain.md section 6) and its compressed sizes are
        // recomputed from the pixels when next needed.
        for (const ImageRef& w : pass.writes) {
          m_savers.invalidate_signatures(w.image);
          m_savers.forget_compression(w.image);
        }
      }
      frame.passes.push_back(std::move(stats));
    }
    schedule_frame(f, frame);
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
    RenderPassRunner runner(m_trace, pass, where, m_store, m_models, m_options, m_savers, frame);
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

  // The frame's period when it repeats back to back, as an application does at a steady frame
  // rate: frame N+1's geometry runs on the vertex/compute queue while frame N's fragments run
  // (seed 003 section 17.1: "the vertex/compute slot can run frame N+1's vertices while the
  // fragment slot runs frame N's fragments"), unless a barrier with a vertex-stage destination
  // holds the queue. The frame is scheduled three times in a row; the period is the third
  // copy's last fragment end minus the second's (the first absorbs the start-up). A barrier
  // after the frame's last pass (`wait_at_end`) holds the next copy's first geometry.
  double steady_period(const std::vector<models::PassTiming>& timings, bool wait_at_end) const {
    if (timings.empty()) return 0;
    std::vector<models::PassTiming> repeated;
    for (int copy = 0; copy < 3; ++copy)
      for (size_t i = 0; i < timings.size(); ++i) {
        models::PassTiming t = timings[i];
        if (copy > 0 && i == 0) t.geometry_waits_for_previous_fragment = t.geometry_waits_for_previous_fragment || wait_at_end;
        repeated.push_back(t);
      }
    const std::vector<models::ScheduleSlot> slots = m_models.scheduler->schedule(repeated);
    return slots[3 * timings.size() - 1].fragment_end - slots[2 * timings.size() - 1].fragment_end;
  }

  // Places every hardware pass of the frame on the two queues, then folds the slots into the
  // API passes (geometry of the first to fragment end of the last) and the frame.
  void schedule_frame(const Frame& f, FrameStats& frame) {
    std::vector<models::PassTiming> timings;
    std::vector<std::pair<size_t, int64_t>> owners;  // (API pass, hardware pass or -1)
    bool wait_next = false;
    for (size_t p = 0; p < frame.passes.size(); ++p) {
      const Pass& pass = f.passes[p];
      PassStats& stats = frame.passes[p];
      if (pass.type == PassType::barrier) {
        wait_next = wait_next || blocks_geometry(pass.dst_stages);
        for (const ImageRef& b : pass.barriers) wait_next = wait_next || blocks_geometry(b.dst_stages);
        continue;
      }
      if (pass.type == PassType::render) {
        for (const SubpassDependency& d : pass.dependencies)
          if (d.src_subpass == kSubpassExternal && blocks_geometry(d.dst_stages)) wait_next = true;
        for (size_t h = 0; h < stats.hardware_passes.size(); ++h) {
          const HardwarePassStats& hw = stats.hardware_passes[h];
          timings.push_back({hw.cycles.geometry, hw.cycles.fragment, wait_next});
          owners.emplace_back(p, int64_t(h));
          wait_next = false;
        }
      } else {
        // Transfers and compute: their DRAM time on the fragment queue, after the work they read.
        const Traffic t = stats.dram.total();
        stats.cycles.fragment = m_models.dram->transfer_cycles(t.read_bytes + t.write_bytes);
        stats.cycles.breakdown.fragment_dram = stats.cycles.fragment;
        timings.push_back({0.0, stats.cycles.fragment, wait_next});
        owners.emplace_back(p, -1);
        wait_next = false;
      }
    }
    const std::vector<models::ScheduleSlot> slots = m_models.scheduler->schedule(timings);
    frame.steady_frame_cycles = steady_period(timings, wait_next);
    std::vector<bool> seen(frame.passes.size(), false);
    for (size_t i = 0; i < slots.size(); ++i) {
      PassStats& stats = frame.passes[owners[i].first];
      const models::ScheduleSlot& slot = slots[i];
      if (owners[i].second >= 0) {
        HardwarePassStats& hw = stats.hardware_passes[size_t(owners[i].second)];
        hw.schedule = {slot.geometry_start, slot.geometry_end, slot.fragment_start, slot.fragment_end};
        hw.cycles.total = slot.fragment_end - slot.geometry_start;
        stats.cycles.geometry += hw.cycles.geometry;
        stats.cycles.fragment += hw.cycles.fragment;
        stats.cycles.breakdown += hw.cycles.breakdown;
      }
      if (!seen[owners[i].first]) {
        stats.schedule.geometry_start = slot.geometry_start;
        stats.schedule.fragment_start = slot.fragment_start;
        seen[owners[i].first] = true;
      }
      stats.schedule.geometry_end = slot.geometry_end;
      stats.schedule.fragment_end = slot.fragment_end;
      stats.cycles.total = stats.schedule.fragment_end - stats.schedule.geometry_start;
      frame.frame_cycles = std::max(frame.frame_cycles, slot.fragment_end);
    }
    frame.clock_mhz = m_models.cores->clock_mhz();
    for (PassStats& stats : frame.passes) {
      uint64_t tile_buffer_bytes = 0;
      for (const HardwarePassStats& hw : stats.hardware_passes) tile_buffer_bytes += hw.tile_buffer_bytes;
      const Traffic t = stats.dram.total();
      const models::EnergyJoules e = m_models.energy->energy(t.read_bytes + t.write_bytes, tile_buffer_bytes);
      stats.energy = {e.dram, e.tile_buffer, e.total};
      frame.energy.dram_joules += e.dram;
      frame.energy.tile_buffer_joules += e.tile_buffer;
      frame.energy.total_joules += e.total;
    }
  }

  const Trace& m_trace;
  ImageStore& m_store;
  const models::ModelSet& m_models;
  const SimOptions& m_options;
  ImageSink* m_sink;
  SaverState m_savers;  // signatures and compressed sizes, carried from frame to frame
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
