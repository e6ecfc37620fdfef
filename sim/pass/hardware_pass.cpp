// One hardware pass: the stages of the pipeline diagram in order (tools/doc/design.md "The
// pipeline: the stages a frame flows through"), each handing a struct to the next.
#include "sim/pass/hardware_pass.h"

#include <algorithm>
#include <set>
#include <utility>
#include <string>

#include "models/errors.h"
#include "sim/binning.h"
#include "sim/geometry.h"
#include "sim/pass/param_buffer.h"
#include "sim/pass/pass_savers.h"
#include "sim/pass/phase_clock.h"
#include "sim/pass/tiles.h"
#include "sim/pass/transfer.h"

namespace tbdr {
namespace {

// What the geometry stage adds besides the screen primitives.
struct GeometryOutput {
  Traffic vertex;                    // vertex and index reads
  VertexShadingWork shading;         // vertex shader invocations x cost.vertex_alu; position and index bytes
  uint64_t per_tile_primitives = 0;  // primitives of per-tile draws: issued in each tile, never binned
  std::vector<DrawCounters> draws;   // per draw of the pass: its share of the counts and vertex bytes
  bool flat_lists = false;           // binned into flat per-tile lists (not direct, IMR or hierarchical)
};

// Everything the renders of one hardware pass write: the tiles' functional output, and each
// render's TileResults for costing.
struct RenderSinks {
  TilesOutput tiles;
  std::vector<std::vector<TileResult>> renders;
  std::vector<uint64_t> tile_list_reads;  // per tile, every render together (heatmaps)
};

TileStageOptions tile_options(const PassContext& ctx, const RenderPassState& state) {
  PhaseTimes* times = ctx.options->phase_times;
  return TileStageOptions{std::max(1u, ctx.options->threads), state.overdraw, times ? &times->tile_workers : nullptr};
}

// The renders of a tiled hardware pass: each bins primitives [first, last) of the pass's screen
// primitives, runs the plan's events [event_begin, event_end) over every tile, and costs the
// keeps their results. A render that is not the last stores every attachment to driver memory and the next
// reloads them (render_access).
class BinnedRenders {
 public:
  BinnedRenders(const PassContext& ctx, const PassSetup& setup, const HardwarePassPlan& plan, RenderPassState& state,
                RenderSinks& sinks, PassCounters& counters)
      : m_ctx(ctx), m_setup(setup), m_plan(plan), m_state(state), m_sinks(sinks), m_counters(counters),
        m_grid(setup.area, plan.tile_width, plan.tile_height), m_rule(ctx.models->binning->rule()),
        m_listed(m_grid.tile_count(), 0),
        m_any_per_tile(std::any_of(setup.draws.begin(), setup.draws.end(),
                                   [](const PassDraw& d) { return d.draw->per_tile; })) {}

  const TileGrid& grid() const { return m_grid; }
  uint32_t renders() const { return m_renders; }
  const models::BinningRule& rule() const { return m_rule; }
  // binning=hierarchical: each level's entries, every render together (the report's by-level figures).
  const std::vector<uint64_t>& level_entries() const { return m_level_entries; }
  uint64_t per_tile_primitives() const { return m_per_tile_total; }
  bool hierarchical() const { return m_lists.hierarchical; }

  void render(const ScreenPrims& prims, size_t first, size_t last, bool last_render, uint32_t event_begin,
              uint32_t event_end) {
    PhaseTimes* times = m_ctx.options->phase_times;
    const std::vector<AttachmentAccess> access = render_access(m_plan, m_renders == 0, last_render);
    m_state.memory.prepare(m_setup, access);
    timed_phase(times, &PhaseTimes::binning, [&] {
      bin_primitives(prims, first, last, m_setup.draw_clip, m_grid, m_rule, m_lists,
                     std::max(1u, m_ctx.options->threads));
      m_counters.tile_list_entries += m_lists.written_entries();
      if (m_lists.hierarchical) add_level_entries();
      m_sinks.tiles.dram[DramCategory::tile_list] += tile_list_traffic(
          m_setup, prims, first, last, m_grid, m_lists, m_sinks.tile_list_reads, std::max(1u, m_ctx.options->threads));
      // Empty: no primitive in any render of the hardware pass.
      for (uint32_t t = 0; t < m_grid.tile_count(); ++t) m_listed[t] |= m_lists.offsets[t] != m_lists.offsets[t + 1];
    });
    const uint32_t per_tile = find_per_tile_prims(prims, first, last);
    if (per_tile) std::fill(m_listed.begin(), m_listed.end(), uint8_t(1));  // every tile runs per-tile draws
    if (last_render)
      for (uint8_t l : m_listed) m_counters.empty_tiles += l ? 0 : 1;
    TileRender render{&m_setup, &m_plan, {&m_setup, &access, &m_state.memory}, false, event_begin, event_end, &prims,
                      nullptr};
    render.empty_tiles_eliminated = m_renders == 0 && last_render;
    render.per_tile_prims = &m_per_tile_prims;
    render.per_tile_primitives = per_tile;
    auto tile = [&](uint32_t t) {
      const uint32_t* base = m_lists.prims.data();
      return TileInput{m_grid.tile_rect(t), base + m_lists.offsets[t], base + m_lists.offsets[t + 1]};
    };
    timed_phase(times, &PhaseTimes::tiles, [&] {
      m_sinks.renders.push_back(run_tiles(render, m_grid.tile_count(), tile, *m_ctx.store, *m_ctx.models,
                                          tile_options(m_ctx, m_state), m_sinks.tiles));
    });
    ++m_renders;
  }

 private:
  const PassContext& m_ctx;
  const PassSetup& m_setup;
  const HardwarePassPlan& m_plan;
  RenderPassState& m_state;
  RenderSinks& m_sinks;
  PassCounters& m_counters;
  // The per-tile draws' primitives among [first, last) (in submission order, each draw's in one run),
  // as ranges per draw into m_per_tile_prims; returns how many they are.
  uint32_t find_per_tile_prims(const ScreenPrims& prims, size_t first, size_t last) {
    m_per_tile_prims.assign(m_setup.draws.size(), {0, 0});
    uint32_t count = 0;
    if (!m_any_per_tile) return 0;
    for (size_t p = first; p < last; ++p) {
      const uint32_t d = prims.draw[p];
      if (!m_setup.draws[d].draw->per_tile) continue;
      auto& range = m_per_tile_prims[d];
      if (range.first == range.second) range.first = uint32_t(p);
      range.second = uint32_t(p + 1);
      ++count;
    }
    m_per_tile_total += count;
    return count;
  }

  void add_level_entries() {
    const HierarchyLists& h = m_lists.hierarchy;
    m_level_entries.resize(std::max<size_t>(m_level_entries.size(), h.levels()), 0);
    for (uint32_t level = 0; level < h.levels(); ++level) m_level_entries[level] += h.level_entries(level);
  }

  TileGrid m_grid;
  models::BinningRule m_rule;
  TileLists m_lists;
  std::vector<uint64_t> m_level_entries;
  std::vector<uint8_t> m_listed;  // per tile: listed in some render
  std::vector<std::pair<uint32_t, uint32_t>> m_per_tile_prims;  // this render's, per draw
  bool m_any_per_tile = false;    // the pass has a per-tile draw
  uint64_t m_per_tile_total = 0;  // per-tile draws' primitives, every render together
  uint32_t m_renders = 0;
};

// Renders x tiles of one hardware pass at most: every render runs, stores and reloads each tile and
// keeps each tile's result for costing, so a tiny capacity (1 B flushes after every primitive) made
// the default scene run for minutes. Past this bound the run is refused (traces/README.md "Parameter
// buffer"): the default scene (8160 tiles) reaches it after 127 flushes, 9 s and 390 MiB (2 cores).
constexpr uint64_t kMaxTileRenders = uint64_t(1) << 20;

void check_flush_count(const BinnedRenders& renders, uint64_t capacity) {
  const uint64_t tiles = renders.grid().tile_count();
  if (uint64_t(renders.renders() + 2) * tiles <= kMaxTileRenders) return;  // + this render and the last
  throw InputError("param_buffer.capacity",
                   std::to_string(capacity) + " B flushes a hardware pass of " + std::to_string(tiles) +
                       " tiles more than " + std::to_string(kMaxTileRenders / tiles - 1) + " times (renders x tiles over " +
                       std::to_string(kMaxTileRenders) + ", traces/README.md \"Parameter buffer\"); raise the capacity");
}

// A per-tile draw runs in each of the hardware pass's T tiles (VK_QCOM_tile_shading: "exactly once for
// each covered tile", the tiles of the render area), so its vertex fetch, vertex shading and
// triangle assembly happen T times; the geometry stage counted them once.
void repeat_per_tile_geometry(const PassSetup& setup, const HardwarePassPlan& plan, uint32_t tiles,
                              GeometryOutput& geometry, PassCounters& counters) {
  for (size_t d = plan.draw_begin; d < plan.draw_end; ++d) {
    if (!setup.draws[d].draw->per_tile) continue;
    const DrawVertexWork once = draw_vertex_work(*setup.trace, *setup.draws[d].draw);
    const uint64_t repeats = tiles - 1;
    counters.vertices += repeats * once.vertices;
    counters.primitives_in += repeats * once.primitives_in;
    geometry.draws[d].vertices += repeats * once.vertices;
    geometry.draws[d].primitives_in += repeats * once.primitives_in;
    geometry.draws[d].vertex_read_bytes += repeats * once.fetch_bytes;
    geometry.shading.alu_cycles += double(repeats) * once.vertex_alu_cycles;
    geometry.vertex.read_bytes += repeats * once.fetch_bytes;
  }
}

// Geometry, then binning and tiles for each render: one at the end, and one whenever the
// parameter buffer fills (param_buffer), the primitive that overflows it starting the next. Its
// draw is split, so its event ends one render and begins the next.
void run_binned(const PassContext& ctx, const PassSetup& setup, const HardwarePassPlan& plan, RenderPassState& state,
                HardwarePassStats& hw, RenderSinks& sinks, GeometryOutput& geometry, PassCounters& counters) {
  BinnedRenders renders(ctx, setup, plan, state, sinks, counters);
  const TileGrid& grid = renders.grid();
  hw.tiles = grid.tile_count();
  hw.grid_cols = grid.cols;
  hw.grid_rows = grid.rows;
  hw.grid_first_col = grid.first_col;
  hw.grid_first_row = grid.first_row;
  hw.tile_cycles.assign(grid.tile_count(), 0.0);
  hw.tile_dram_bytes.assign(grid.tile_count(), 0);
  hw.tile_dram_nominal_bytes.assign(grid.tile_count(), 0);
  sinks.tile_list_reads.assign(grid.tile_count(), 0);
  counters.tiles += grid.tile_count();
  const uint32_t threads = std::max(1u, ctx.options->threads);
  ParamBufferFill fill(ctx.models->param_buffer->capacity(), setup, grid, renders.rule(), threads);
  uint32_t event_begin = 0;
  EmittedFn on_primitives;
  if (ctx.models->param_buffer->capacity() > 0)
    on_primitives = [&](ScreenPrims& prims, size_t first) {
      size_t render_first = 0;
      for (size_t p : fill.flush_points(prims, first)) {
        check_flush_count(renders, ctx.models->param_buffer->capacity());
        const uint32_t split_event = plan.draw_event[prims.draw[p]];
        renders.render(prims, render_first, p, false, event_begin, split_event + 1);
        ++counters.param_buffer_flushes;
        event_begin = split_event;
        render_first = p;
      }
      prims.erase_front(render_first);  // one move of the rest, however many flushes the batch holds
    };
  ScreenPrims prims;
  prims.varying_stride = plan.varying_stride;
  timed_geometry(ctx.options->phase_times, [&] {
    transform_draws(*setup.trace, setup.draws, plan.draw_begin, plan.draw_end, prims, counters, geometry.vertex,
                    &geometry.shading, on_primitives, threads, &geometry.draws);
  });
  renders.render(prims, 0, prims.size(), true, event_begin, uint32_t(plan.events.size()));
  geometry.flat_lists = !renders.hierarchical();
  hw.tile_list_level_entries = renders.level_entries();
  geometry.per_tile_primitives = renders.per_tile_primitives();
  repeat_per_tile_geometry(setup, plan, grid.tile_count(), geometry, counters);
}

// The IMR reference and direct rendering: the same raster/depth/blend code over the whole render
// area, every primitive in submission order, no binning.
void run_whole_area(const PassContext& ctx, const PassSetup& setup, const HardwarePassPlan& plan, RenderPassState& state,
                    HardwarePassStats& hw, RenderSinks& sinks, GeometryOutput& geometry, PassCounters& counters,
                    FramebufferCache* cache) {
  ScreenPrims prims;
  prims.varying_stride = plan.varying_stride;
  const uint32_t threads = std::max(1u, ctx.options->threads);
  timed_geometry(ctx.options->phase_times, [&] {
    transform_draws(*setup.trace, setup.draws, plan.draw_begin, plan.draw_end, prims, counters, geometry.vertex,
                    &geometry.shading, {}, threads, &geometry.draws);
  });
  std::vector<uint32_t> all(prims.size());
  for (uint32_t i = 0; i < all.size(); ++i) all[i] = i;
  hw.tiles = 1;
  hw.grid_cols = hw.grid_rows = 1;
  counters.tiles += 1;
  hw.tile_cycles.assign(1, 0.0);
  hw.tile_dram_bytes.assign(1, 0);
  hw.tile_dram_nominal_bytes.assign(1, 0);
  sinks.tile_list_reads.assign(1, 0);
  state.memory.prepare(setup, plan.access);
  const TileRender render{&setup, &plan, {&setup, &plan.access, &state.memory}, false, 0, uint32_t(plan.events.size()),
                          &prims, cache};
  timed_phase(ctx.options->phase_times, &PhaseTimes::tiles, [&] {
    sinks.renders.push_back(run_tiles(
        render, 1, [&](uint32_t) { return TileInput{setup.area, all.data(), all.data() + all.size()}; }, *ctx.store,
        *ctx.models, tile_options(ctx, state), sinks.tiles));
  });
}

// The buffers the hardware pass's tile dispatches read and write, each once per pass at its size
// (every tile's dispatch reads the one copy through the caches; buffer_traffic).
Traffic tile_dispatch_buffer_traffic(const PassSetup& setup, const HardwarePassPlan& plan) {
  const Pass& pass = *setup.pass;
  std::set<int32_t> read, written;
  for (uint32_t s = plan.first_subpass; s <= plan.last_subpass && s < pass.subpasses.size(); ++s)
    for (const TileDispatch& d : pass.subpasses[s].tile_dispatches) {
      read.insert(d.reads.begin(), d.reads.end());
      written.insert(d.writes.begin(), d.writes.end());
    }
  return buffer_traffic(*setup.trace, read, written);
}

// The hardware pass's DRAM ledgers from what its stages moved. Nominal (traces/README.md
// "DRAM ledger"): every load and store at full size, empty tiles included, textures as
// footprints; physical: after the savers, and the texture caches when costing prices them.
// Returns the material textures' footprint bytes.
uint64_t settle_ledgers(const PassSetup& setup, const HardwarePassPlan& plan, TilesOutput& tiles,
                        const GeometryOutput& geometry, HardwarePassStats& hw, PassCounters& counters) {
  const Trace& trace = *setup.trace;
  counters += tiles.counters;
  hw.dram[DramCategory::vertex] += geometry.vertex;
  const uint64_t texture_nominal_bytes = tiles.footprints.texture_bytes(trace);
  tiles.dram[DramCategory::texture].read_bytes += texture_nominal_bytes;
  tiles.dram[DramCategory::image_sample].read_bytes += tiles.footprints.image_bytes(trace);
  tiles.dram[DramCategory::buffer] += tile_dispatch_buffer_traffic(setup, plan);
  hw.dram += tiles.dram;
  hw.dram_nominal = hw.dram;
  for (size_t a = 0; a < setup.attachments.size(); ++a) {
    hw.dram_nominal[DramCategory::attachment_load].read_bytes += tiles.blocks.empty_saved_load[a];
    hw.dram_nominal[setup.attachments[a].resolve_target ? DramCategory::resolve : DramCategory::attachment_store]
        .write_bytes += tiles.blocks.empty_saved_store[a];
  }
  return texture_nominal_bytes;
}

// The saver deltas of one 16x16 block (physical minus raw bytes) shared among the tiles it
// overlaps by pixel count, the remainder to the first, so the tiles sum to the ledger exactly.
void spread_block_delta(const TileGrid& grid, const Rect& block, int64_t delta, std::vector<int64_t>& tiles) {
  const Rect& area = grid.render_area;
  const int32_t x0 = std::max(block.x, area.x), y0 = std::max(block.y, area.y);
  const int32_t x1 = std::min(block.x + int32_t(block.width), area.x + int32_t(area.width));
  const int32_t y1 = std::min(block.y + int32_t(block.height), area.y + int32_t(area.height));
  if (x1 <= x0 || y1 <= y0) {  // outside the render area (never stored there): the nearest tile
    tiles[0] += delta;
    return;
  }
  const int64_t pixels = int64_t(x1 - x0) * (y1 - y0);
  int64_t given = 0;
  int32_t first_tile = -1;
  for (int32_t ty = y0 / int32_t(grid.tile_height); ty * int32_t(grid.tile_height) < y1; ++ty)
    for (int32_t tx = x0 / int32_t(grid.tile_width); tx * int32_t(grid.tile_width) < x1; ++tx) {
      const int32_t ox0 = std::max(x0, tx * int32_t(grid.tile_width)), ox1 = std::min(x1, (tx + 1) * int32_t(grid.tile_width));
      const int32_t oy0 = std::max(y0, ty * int32_t(grid.tile_height)), oy1 = std::min(y1, (ty + 1) * int32_t(grid.tile_height));
      const int32_t t = (ty - grid.first_row) * int32_t(grid.cols) + (tx - grid.first_col);
      if (first_tile < 0) first_tile = t;
      const int64_t share = delta * int64_t(ox1 - ox0) * (oy1 - oy0) / pixels;
      tiles[size_t(t)] += share;
      given += share;
    }
  tiles[size_t(first_tile)] += delta - given;
}

// Per tile: the tile-list reads (both maps) and the savers' deltas (physical map), which costing
// adds on top of what the tile's loads and stores moved (its sums). A whole-area pass is one tile.
PerTileTraffic per_tile_traffic(const PassSetup& setup, const HardwarePassStats& hw, bool tiled,
                                const std::vector<uint64_t>& tile_list_reads,
                                const std::vector<std::vector<int64_t>>& block_deltas) {
  PerTileTraffic out;
  out.physical.assign(tile_list_reads.size(), 0);
  out.nominal = tile_list_reads;
  const TileGrid grid = tiled ? TileGrid(setup.area, hw.tile_width, hw.tile_height) : TileGrid();
  for (size_t a = 0; a < block_deltas.size(); ++a) {
    if (block_deltas[a].empty()) continue;
    const BlockGrid blocks(*setup.attachments[a].surface);
    for (uint32_t b = 0; b < block_deltas[a].size(); ++b) {
      if (!block_deltas[a][b]) continue;
      const int32_t size = int32_t(models::kSuperblockSize);
      const Rect rect{int32_t(b % blocks.cols) * size, int32_t(b / blocks.cols) * size, uint32_t(size), uint32_t(size)};
      if (tiled) spread_block_delta(grid, rect, block_deltas[a][b], out.physical);
      else out.physical[0] += block_deltas[a][b];
    }
  }
  for (size_t t = 0; t < out.physical.size(); ++t) out.physical[t] += int64_t(tile_list_reads[t]);
  return out;
}

// What costing reads of the hardware pass (its texture streams move into it).
HardwarePassRecord functional_record(const HardwarePassPlan& plan, RenderSinks& sinks, uint64_t texture_nominal_bytes,
                                     const GeometryOutput& geometry, const PassCounters& counters,
                                     const PassCounters& before) {
  HardwarePassRecord record;
  record.renders = std::move(sinks.renders);
  record.texture_lines = std::move(sinks.tiles.texture_lines);
  record.texture_runs = std::move(sinks.tiles.texture_runs);
  record.texture_repeats = sinks.tiles.texture_repeats;
  record.texture_nominal_bytes = texture_nominal_bytes;
  models::GeometryWork& work = record.geometry;
  work.vertices = counters.vertices - before.vertices;
  work.vertex_alu_cycles = geometry.shading.alu_cycles;
  work.vertex_read_bytes = geometry.vertex.read_bytes;
  work.position_read_bytes = geometry.shading.position_read_bytes;
  work.binned = plan.tiled;
  work.primitives_in = counters.primitives_in - before.primitives_in;
  // Direct: nothing is binned; per-tile draws never are.
  work.primitives = plan.direct ? 0 : counters.primitives - before.primitives - geometry.per_tile_primitives;
  work.tile_list_entries = counters.tile_list_entries - before.tile_list_entries;
  return record;
}

// Each draw's share of the hardware pass: its geometry counts and vertex bytes, what the tiles did
// with it, its tile-list bytes (flat lists, the rule of tile_list_traffic: a record a triangle and
// 4 B an entry written, 4 B plus the record an entry read) and the shader work of its shaded quads.
std::vector<DrawStats> draw_stats(const PassSetup& setup, const GeometryOutput& geometry,
                                 const std::vector<DrawCounters>& tiles) {
  std::vector<DrawStats> out(setup.draws.size());
  for (size_t d = 0; d < out.size(); ++d) {
    const Draw& draw = *setup.draws[d].draw;
    DrawStats& c = out[d];
    c.subpass = setup.draws[d].subpass;
    c.index = setup.draws[d].index_in_subpass;
    c.name = draw.name;
    if (draw.name.rfind("event_", 0) == 0) c.event = draw.name.substr(6);
    c.counters = geometry.draws[d];
    if (d < tiles.size()) c.counters += tiles[d];
    DrawCounters& n = c.counters;
    n.triangle_setups += n.tile_list_entries;
    if (!geometry.flat_lists) n.tile_list_entries = 0;
    const uint64_t record = setup.draw_record_bytes[d];
    n.tile_list_write_bytes = geometry.flat_lists ? record * n.primitives + 4 * n.tile_list_entries : 0;
    n.tile_list_read_bytes = n.tile_list_entries * (4 + record);
    const double lanes = 4.0 * double(n.quads_shaded);
    c.alu_work = lanes * draw.cost.alu;
    c.texture_work = lanes * draw.cost.texture_samples;
    c.tile_read_work = lanes * draw.cost.tile_reads;
    c.varying_work = lanes * draw.cost.varyings;
    c.vertex_alu_work = double(n.vertices) * draw.cost.vertex_alu;
  }
  return out;
}

}  // namespace

HardwarePassRecord run_hardware_pass(const PassContext& ctx, const PassSetup& setup, const HardwarePassPlan& plan,
                                     RenderPassState& state, PassCounters& counters, FramebufferCache* cache) {
  HardwarePassStats hw;
  hw.first_subpass = plan.first_subpass;
  hw.last_subpass = plan.last_subpass;
  hw.direct = plan.direct;
  hw.binned = plan.tiled;
  hw.direct_reason = plan.direct_reason;
  hw.tile_width = plan.tile_width;
  hw.tile_height = plan.tile_height;
  hw.tile_reason = plan.tile_reason;
  const SaverContext savers{&setup, ctx.models, ctx.savers, ctx.store, ctx.frame, ctx.options->overdraw,
                            std::max(1u, ctx.options->threads)};
  if (!plan.direct)
    timed_phase(ctx.options->phase_times, &PhaseTimes::savers,
                [&] { size_compressed_loads(savers, plan, state.attachments); });
  RenderSinks sinks;
  sinks.tiles.reset(*setup.trace, setup.attachments.size());
  GeometryOutput geometry;
  geometry.draws.assign(setup.draws.size(), DrawCounters{});
  const PassCounters before = counters;
  if (plan.tiled) run_binned(ctx, setup, plan, state, hw, sinks, geometry, counters);
  else run_whole_area(ctx, setup, plan, state, hw, sinks, geometry, counters, cache);
  hw.working_set_bytes_per_tile = uint64_t(hw.tile_width) * hw.tile_height * plan.working_set_bytes_per_pixel;
  uint64_t texture_nominal_bytes = 0;
  timed_phase(ctx.options->phase_times, &PhaseTimes::costing,
              [&] { texture_nominal_bytes = settle_ledgers(setup, plan, sinks.tiles, geometry, hw, counters); });
  std::vector<std::vector<int64_t>> block_deltas;
  if (!plan.direct)
    timed_phase(ctx.options->phase_times, &PhaseTimes::savers, [&] {
      apply_savers(savers, sinks.tiles.blocks, sinks.tiles.footprints, state.attachments, hw.dram, block_deltas);
    });
  HardwarePassRecord record;
  timed_phase(ctx.options->phase_times, &PhaseTimes::costing, [&] {
    record = functional_record(plan, sinks, texture_nominal_bytes, geometry, counters, before);
    record.draws = draw_stats(setup, geometry, sinks.tiles.draws);
    record.tile_traffic = per_tile_traffic(setup, hw, plan.tiled, sinks.tile_list_reads, block_deltas);
  });
  record.functional = std::move(hw);
  record.direct = plan.direct;
  return record;
}

}  // namespace tbdr
