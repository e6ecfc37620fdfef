// The tiles stage: workers take runs of tiles in order from a shared counter; each tile is loaded, its
// events run through the rasterizer, stored, and its work counted (TileResult).
#include "sim/pass/tiles.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "sim/format.h"
#include "sim/parallel.h"
#include "sim/raster.h"
#include "sim/tile_work.h"

namespace tbdr {
namespace {

// Tiles up to this size defer colors (the deferred store takes 32 B a pixel).
constexpr size_t kMaxDeferredPixels = size_t(1) << 16;

// Everything one thread mutates while it runs tiles: its tile buffer, HSR/work tracker,
// footprints and programs (programs point into the footprints), counters. Their integer sums
// merge in any order and per-tile results are indexed by tile, so outputs do not depend on the
// thread count.
struct TileWorker {
  TileBuffer buffer;
  TileWorkTracker tracker;
  Footprints footprints;
  TextureRecorder textures;  // material-texture fetches (and line streams under texture=cache)
  TextureLineStreams::Writer line_writer;  // the tiles' line streams, copied out tile by tile
  std::vector<CompiledProgram> programs;
  DeferredColors deferred;   // the tile's waiting colors (raster.h)
  PassCounters counters;
  // Per draw of the pass, every tile this worker ran: what run_draw saw the draw do (the shading
  // its fragments were given, possibly later, is the tracker's draw_shading).
  std::vector<DrawCounters> draws;
  // The current tile's texture lines (texture=cache) in runs by draw: whose fetch each line was.
  std::vector<models::TextureLineRun> line_runs;
  // Per draw of the pass: its facts (raster.h) for the targets of key facts_keys[draw], once worked out.
  std::vector<DrawFacts> facts;
  std::vector<DrawFactsKey> facts_keys;
  std::vector<uint8_t> facts_known;
};

// Draw `draw`'s facts for targets of key `key`: worked out again only when the targets differ from
// the last ones it was given (another subpass's, or a tile too large to defer colors).
const DrawFacts& facts_of(TileWorker& w, const TileRender& render, uint32_t draw, const TargetSet& targets,
                          const DrawFactsKey& key) {
  if (!w.facts_known[draw] || !(w.facts_keys[draw] == key)) {
    w.facts[draw] = draw_facts(*render.setup->draws[draw].draw, w.programs[draw], targets);
    w.facts_keys[draw] = key;
    w.facts_known[draw] = 1;
  }
  return w.facts[draw];
}

// The running totals run_draw reads before and after a draw's primitives in a tile: what changed
// is the draw's. Fragments accepted for shading and their color samples include those a later
// fragment kills while they wait (TileWorkTracker::draw_shading takes those off).
struct DrawProgress {
  uint64_t fragments, texel_fetches, quads_rasterized, accepted, written, blended;
  explicit DrawProgress(TileWorker& w)
      : fragments(w.counters.fragments), texel_fetches(w.textures.fetches),
        quads_rasterized(w.tracker.work().quads_rasterized), accepted(w.tracker.accepted()),
        written(w.tracker.all_written()), blended(w.tracker.work().blended_samples) {}
  void add_since(const DrawProgress& before, DrawCounters& c) const {
    c.fragments += fragments - before.fragments;
    c.texel_fetches += texel_fetches - before.texel_fetches;
    c.quads_rasterized += quads_rasterized - before.quads_rasterized;
    c.fragments_shaded += accepted - before.accepted;
    c.written_samples += written - before.written;
    c.blended_samples += blended - before.blended;
  }
};

// The render targets of subpass `sp` in the worker's tile buffer (and, rendering directly, the
// framebuffer cache they go through).
TargetSet targets_for(TileWorker& w, const TileRender& render, const Subpass& sp, const Rect& rect) {
  const PassSetup& setup = *render.setup;
  std::vector<Surface>& tile = w.buffer.surfaces;
  TargetSet t;
  t.area = rect;
  t.samples = 1;
  t.color_count = uint32_t(std::min<size_t>(sp.color.size(), kMaxColorAttachments));
  for (uint32_t c = 0; c < t.color_count; ++c) {
    if (sp.color[c] == kUnused) continue;
    Surface& s = tile[size_t(sp.color[c])];
    t.color[c] = s.color.data();
    t.color_format[c] = s.format;
    t.samples = s.samples;
  }
  if (sp.depth != kUnused) {
    Surface& s = tile[size_t(sp.depth)];
    t.depth = s.has_depth() ? s.depth.data() : nullptr;
    t.stencil = s.has_stencil() ? s.stencil.data() : nullptr;
    t.depth_format = s.format;
    t.samples = s.samples;
  }
  if (render.cache) {
    t.framebuffer = render.cache;
    t.framebuffer_width = setup.framebuffer_width;
    for (uint32_t c = 0; c < t.color_count; ++c)
      if (sp.color[c] != kUnused) {
        t.color_surface[c] = uint32_t(sp.color[c]);
        t.color_bpp[c] = format_info(setup.attachments[size_t(sp.color[c])].image->format).bytes_per_pixel;
      }
    if (sp.depth != kUnused) {
      t.depth_surface = uint32_t(sp.depth);
      t.depth_bpp = format_info(setup.attachments[size_t(sp.depth)].image->format).bytes_per_pixel;
    }
  }
  t.input_count = uint32_t(std::min<size_t>(sp.input.size(), kMaxInputAttachments));
  for (uint32_t k = 0; k < t.input_count; ++k) {
    if (sp.input[k] == kUnused) continue;
    const Surface& s = tile[size_t(sp.input[k])];
    t.input_color[k] = s.has_color() ? s.color.data() : nullptr;
    t.input_depth[k] = s.has_depth() ? s.depth.data() : nullptr;
    t.input_samples[k] = s.samples;
  }
  return t;
}

// One draw over a tile: the tile's listed primitives of the draw (advancing `list` past them), or
// every primitive of a per-tile draw, which runs in each tile with the tile as its area
// (vkCmdBeginPerTileExecutionQCOM: "the recorded draw or dispatch is invoked exactly once for each
// covered tile"); rasterizing clipped to the tile, its fragments are the tile's only.
void run_draw(TileWorker& w, const TileRender& render, uint32_t draw, const TileInput& tile, const uint32_t*& list,
              TargetSet& targets, const DrawFacts& facts) {
  const PassDraw& pd = render.setup->draws[draw];
  const Rect clip = intersect(tile.rect, pd.scissor);
  const DrawProgress before(w);
  DrawCounters& counters = w.draws[draw];
  auto raster = [&](uint32_t prim) {
    raster_triangle(*render.prims, prim, clip, *pd.draw, w.programs[draw], targets, w.counters, &w.tracker, &facts);
  };
  if (render.per_tile_prims && pd.draw->per_tile) {
    const auto [first, last] = (*render.per_tile_prims)[draw];
    for (uint32_t p = first; p < last; ++p) raster(p);
    counters.triangle_setups += last - first;
  } else {
    const uint32_t* const first = list;
    for (; list != tile.list_end && render.prims->draw[*list] == draw; ++list) {}
    raster_triangles(*render.prims, first, list, clip, *pd.draw, w.programs[draw], targets, w.counters, &w.tracker,
                     &facts);
    counters.tile_list_entries += uint64_t(list - first);  // the hardware pass keeps them only when binned flat
  }
  DrawProgress(w).add_since(before, counters);
  const size_t lines = w.textures.lines.size();
  if (w.textures.record_lines && lines > (w.line_runs.empty() ? 0 : w.line_runs.back().end))
    w.line_runs.push_back({uint32_t(lines), draw});
}

// The render's events over one tile, between its load and its store: mid-pass clears, draws
// rasterizing only the tile's listed primitives, inline resolves at each subpass end.
void run_events(TileWorker& w, const TileRender& render, const TileInput& tile) {
  const PassSetup& setup = *render.setup;
  const HardwarePassPlan& plan = *render.plan;
  const Rect& rect = tile.rect;
  const uint32_t* list = tile.list;
  uint32_t subpass = UINT32_MAX;
  TargetSet targets;
  DrawFactsKey facts_key;  // of `targets`
  // Colors of opaque vertex_color draws wait in w.deferred (raster.h DeferredColors) in tiles;
  // the immediate-mode reference path and direct rendering store every color at once. Waiting
  // colors are stored before anything else touches the colors.
  const bool defer = plan.tiled && size_t(rect.width) * rect.height <= kMaxDeferredPixels;
  if (defer) w.deferred.reset(size_t(rect.width) * rect.height);
  for (uint32_t e = render.event_begin; e < render.event_end; ++e) {
    const TileEvent& event = plan.events[e];
    const Subpass& sp = setup.pass->subpasses[event.subpass];
    if (event.subpass != subpass) {
      flush_deferred_colors(targets);
      targets = targets_for(w, render, sp, rect);
      if (defer) targets.deferred = &w.deferred;
      subpass = event.subpass;
      facts_key = draw_facts_key(targets);
    }
    // A draw's facts (raster.h), the same for all its primitives in the tile.
    const DrawFacts facts =
        event.kind == TileEvent::draw ? facts_of(w, render, event.index, targets, facts_key) : DrawFacts{};
    if (!facts.defer) flush_deferred_colors(targets);
    switch (event.kind) {
      case TileEvent::clear: w.buffer.clear(setup, sp, sp.clears[event.index], rect, w.counters); break;
      case TileEvent::resolve: w.buffer.resolve(sp, rect); break;
      case TileEvent::dispatch: break;  // work only, added by add_tile_dispatches
      case TileEvent::draw: run_draw(w, render, event.index, tile, list, targets, facts); break;
    }
  }
  flush_deferred_colors(targets);
}

// vkCmdDispatchTileQCOM runs once in every covered tile (VK_QCOM_tile_shading), empty ones too: its
// invocations are shaded on the tile's core as fragments without pixel output, four lanes a quad, as
// a captured dispatch's are (sim/schedule.cpp dispatch_cycles), so the shader model prices them.
void add_tile_dispatches(const TileRender& render, models::TileWork& work) {
  for (uint32_t e = render.event_begin; e < render.event_end; ++e) {
    const TileEvent& event = render.plan->events[e];
    if (event.kind != TileEvent::dispatch) continue;
    const TileDispatch& d = render.setup->pass->subpasses[event.subpass].tile_dispatches[event.index];
    const uint64_t quads = (d.invocations + 3) / 4;
    work.quads_shaded += quads;
    work.alu_cycles += double(quads) * 4 * d.cost.alu;
    work.texture_samples += double(quads) * 4 * d.cost.texture_samples;
  }
}

// The loads and stores empty-tile elimination has skipped so far, every attachment together.
uint64_t empty_saved_bytes(const AttachmentBlocks& blocks) {
  uint64_t bytes = 0;
  for (size_t a = 0; a < blocks.empty_saved_load.size(); ++a) bytes += blocks.empty_saved_load[a] + blocks.empty_saved_store[a];
  return bytes;
}

// One tile: load, events, store, and the work they amount to.
TileResult run_tile(TileWorker& w, const TileRender& render, const TileInput& tile) {
  const Rect& rect = tile.rect;
  const uint32_t entries = uint32_t(tile.list_end - tile.list);
  const DramLedger& ledger = w.buffer.dram;
  const Traffic before = ledger.total();
  const uint64_t load_before = ledger[DramCategory::attachment_load].read_bytes;
  const uint64_t clears_before = w.counters.clear_pixels;
  const bool empty = entries == 0 && render.per_tile_primitives == 0 && render.empty_tiles_eliminated;
  const uint64_t empty_saved_before = empty ? empty_saved_bytes(w.buffer.blocks) : 0;
  w.buffer.resolve_pixels = 0;
  w.buffer.cleared_samples = 0;
  w.tracker.begin_tile(rect, render.setup->samples);
  w.buffer.load(render.buffer, rect, empty, w.counters);
  run_events(w, render, tile);
  w.buffer.store(render.buffer, rect, empty, w.counters);
  TileResult r;
  r.work = w.tracker.end_tile();
  models::TileWork& work = r.work;
  add_tile_dispatches(render, work);
  const Traffic after = ledger.total();
  work.primitives = entries + render.per_tile_primitives;  // a per-tile draw's are set up in every tile
  work.clear_pixels = w.counters.clear_pixels - clears_before;
  work.load_bytes = models::Bytes(ledger[DramCategory::attachment_load].read_bytes - load_before);
  work.store_bytes = models::Bytes(after.write_bytes - before.write_bytes);
  work.resolve_pixels = w.buffer.resolve_pixels;
  work.cleared_samples = w.buffer.cleared_samples;
  // Direct rendering has no tile buffer: its accesses go to memory.
  if (render.plan->direct) work.load_bytes = work.store_bytes = models::Bytes(0);
  // On-chip traffic (energy): fills and write-backs, a depth read per rasterized sample and a
  // 4-byte color write per written sample and a 4-byte read per blended one (blended samples
  // are among the written ones): a guess, models/README.md.
  work.tile_buffer_bytes =
      work.load_bytes + work.store_bytes +
      models::Bytes(4 * work.fragments_rasterized * work.samples + 4 * work.written_samples + 4 * work.blended_samples);
  w.counters.fragments_shaded += work.fragments_shaded;
  r.dram_bytes = after.read_bytes - before.read_bytes + after.write_bytes - before.write_bytes;
  if (empty) r.empty_saved_bytes = empty_saved_bytes(w.buffer.blocks) - empty_saved_before;
  return r;
}

void prepare_worker(TileWorker& w, const TileRender& render, ImageStore& store, const models::ModelSet& models,
                    const models::TextureCacheConfig& texture_config, const TileStageOptions& options) {
  const PassSetup& setup = *render.setup;
  const Trace& trace = *setup.trace;
  std::vector<const Draw*> draws;
  for (const PassDraw& d : setup.draws) draws.push_back(d.draw);
  w.footprints.reset(trace);
  w.textures.configure(trace, texture_config);
  for (const PassDraw& d : setup.draws)
    w.programs.push_back(compile_program(trace, *d.draw, store, w.footprints, setup.framebuffer_width,
                                         setup.framebuffer_height, &w.textures));
  w.tracker.begin_pass(models.hsr->policy(), draws);
  w.draws.assign(setup.draws.size(), DrawCounters{});
  w.facts.assign(setup.draws.size(), DrawFacts{});
  w.facts_keys.assign(setup.draws.size(), DrawFactsKey{});
  w.facts_known.assign(setup.draws.size(), 0);
  if (options.overdraw) w.tracker.set_overdraw(options.overdraw, setup.framebuffer_width);
  w.buffer.blocks.reset(setup.attachments.size());
}

// Hands out tiles in runs of consecutive indices ("guided" scheduling, OpenMP's schedule(guided)):
// each run an eighth of the remaining tiles per worker, at most kMaxTileRun and at least one. Taken
// one at a time, two workers were always on neighbouring tiles, whose primitives share cache lines,
// and two threads took 1.18x a tile's one-thread time (bench/README.md "Unequal CPUs, and the tiles
// in runs"); the runs shrink towards the end so that the workers still finish together.
class TileClaims {
 public:
  TileClaims(uint32_t count, uint32_t workers) : m_count(count), m_workers(workers) {}
  BlockRange next() {
    uint32_t first = m_next.load(std::memory_order_relaxed), run;
    do {
      if (first >= m_count) return {m_count, m_count};
      run = std::clamp<uint32_t>((m_count - first) / (8 * m_workers), 1, kMaxTileRun);
    } while (!m_next.compare_exchange_weak(first, first + run, std::memory_order_relaxed));
    return {first, std::min(first + run, m_count)};
  }

 private:
  static constexpr uint32_t kMaxTileRun = 64;
  const uint32_t m_count, m_workers;
  std::atomic<uint32_t> m_next{0};
};

// A worker's per-draw counts added to `draws` (sized on first use): what run_draw saw, less what
// the tracker saw killed, and the quads it shaded.
void add_draw_counters(const TileWorker& w, std::vector<DrawCounters>& draws) {
  draws.resize(std::max(draws.size(), w.draws.size()));
  const std::vector<TileWorkTracker::DrawShading>& shading = w.tracker.draw_shading();
  for (size_t d = 0; d < w.draws.size(); ++d) {
    draws[d] += w.draws[d];
    draws[d].fragments_shaded -= shading[d].killed;
    draws[d].quads_shaded += shading[d].quads;
    draws[d].written_samples -= shading[d].killed_written;
  }
}

// Merges the workers' sums into `out` (integer sums and bitset ORs: the order does not matter).
void merge_workers(std::vector<TileWorker>& workers, TilesOutput& out) {
  for (TileWorker& w : workers) {
    out.dram += w.buffer.dram;
    out.counters += w.counters;
    out.counters.texel_fetches += w.textures.fetches;
    out.texture_repeats += w.textures.repeats;
    out.footprints.merge(w.footprints);
    out.blocks.add(w.buffer.blocks);
    add_draw_counters(w, out.draws);
  }
}

// The workers' times of one run_tiles (TileStageOptions::times): each worker's start of its first
// tiles and end of its last, from the stage's start, added to the sums once every worker is done.
class WorkerClocks {
 public:
  using Clock = std::chrono::steady_clock;
  WorkerClocks(TileWorkerTimes* sums, size_t workers)
      : m_sums(sums), m_stage_start(sums ? Clock::now() : Clock::time_point{}), m_first(sums ? workers : 0),
        m_last(sums ? workers : 0) {}
  void started(size_t worker) {
    if (m_sums) m_first[worker] = since_start();
  }
  void finished(size_t worker) {
    if (m_sums) m_last[worker] = since_start();
  }
  void add_to_sums() const {
    if (!m_sums) return;
    const double wall = since_start();
    const double last_end = *std::max_element(m_last.begin(), m_last.end());
    m_sums->workers = std::max(m_sums->workers, uint32_t(m_first.size()));
    for (size_t i = 0; i < m_first.size(); ++i) {
      m_sums->span += wall;
      m_sums->busy += m_last[i] - m_first[i];
      m_sums->start_wait += m_first[i];
      m_sums->end_wait += last_end - m_last[i];
    }
  }

 private:
  double since_start() const { return std::chrono::duration<double>(Clock::now() - m_stage_start).count(); }
  TileWorkerTimes* const m_sums;
  const Clock::time_point m_stage_start;
  std::vector<double> m_first, m_last;
};

}  // namespace

void TilesOutput::reset(const Trace& trace, size_t attachments) {
  *this = TilesOutput{};
  footprints.reset(trace);
  blocks.reset(attachments);
}

std::vector<TileResult> run_tiles(const TileRender& render, uint32_t count, const std::function<TileInput(uint32_t)>& tile,
                                  ImageStore& store, const models::ModelSet& models, const TileStageOptions& options,
                                  TilesOutput& out) {
  const size_t worker_count = std::max<size_t>(1, std::min<size_t>(options.threads, count));
  std::vector<TileWorker> workers(worker_count);
  const models::TextureCacheConfig texture_config = models.texture->config();
  // Each tile's texture line stream is kept apart (indexed by tile) for the replay.
  const size_t stream_base = texture_config.simulate ? out.texture_lines.add_streams(count) : 0;
  if (texture_config.simulate) out.texture_runs.resize(stream_base + count);
  std::vector<TileResult> results(count);
  TileClaims claims(count, uint32_t(worker_count));
  WorkerClocks clocks(options.times, worker_count);
  // Each worker is prepared on its own thread (its programs and footprint bitsets: serial, they
  // showed at 16 threads), then takes runs of tiles from the shared counter.
  for_blocks(uint32_t(worker_count), [&](uint32_t i) {
    TileWorker& w = workers[i];
    prepare_worker(w, render, store, models, texture_config, options);
    clocks.started(i);
    for (BlockRange run = claims.next(); run.begin < run.end; run = claims.next())
      for (size_t t = run.begin; t < run.end; ++t) {
        w.textures.begin_tile();
        w.line_runs.clear();
        results[t] = run_tile(w, render, tile(uint32_t(t)));
        if (w.textures.record_lines) {
          out.texture_lines.set_local(stream_base + t, w.line_writer.append(w.textures.lines), i);
          out.texture_runs[stream_base + t] = w.line_runs;
        }
      }
    clocks.finished(i);
  });
  clocks.add_to_sums();
  if (texture_config.simulate) {
    std::vector<TextureLineStreams::Writer*> writers;
    for (TileWorker& w : workers) writers.push_back(&w.line_writer);
    out.texture_lines.adopt(writers);
  }
  merge_workers(workers, out);
  return results;
}

}  // namespace tbdr
