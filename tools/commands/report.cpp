// Text and JSON reports of a run; every counter and category comes from the X-macro lists.
#include "tools/commands/report.h"
#include "tools/commands/version.h"

#include <cstdio>
#include <set>
#include <sstream>

namespace tbdr {
namespace {

// MB = 10^6 B throughout the text report and the documents (said once, in the report's legend).
std::string mb(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", double(bytes) / 1e6);
  return buf;
}

// 1234567 -> "1,234,567": figures of millions read at a glance.
std::string grouped(uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Cycles are doubles (fractional per-unit costs): rounded to whole cycles, then grouped.
std::string grouped_cycles(double cycles) { return grouped(cycles > 0 ? uint64_t(cycles + 0.5) : 0); }

std::string padded(const std::string& s, size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

void ledger_table(std::ostringstream& out, const char* title, const DramLedger& ledger) {
  out << "  " << padded(title, 20) << padded("read bytes", 16, true) << padded("MB", 10, true)
      << padded("write bytes", 16, true) << padded("MB", 10, true) << "\n";
  auto row = [&](const std::string& name, const Traffic& t) {
    out << "  " << padded(name, 20) << padded(grouped(t.read_bytes), 16, true) << padded(mb(t.read_bytes), 10, true)
        << padded(grouped(t.write_bytes), 16, true) << padded(mb(t.write_bytes), 10, true) << "\n";
  };
  for (size_t c = 0; c < kDramCategoryCount; ++c) {
    const Traffic& t = ledger.by_category[c];
    if (t.read_bytes || t.write_bytes) row(dram_category_name(DramCategory(c)), t);
  }
  row("total", ledger.total());
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// The busiest unit of one phase: its breakdown fields (busy cycles summed over cores) less DRAM time
// and `blend`, which is part of `pixel`.
std::string busiest_unit(const CycleBreakdown& b, bool fragment) {
  static const std::set<std::string> geometry_units = {"vertex", "primitive_setup", "binning"};
  static const std::set<std::string> not_units = {"geometry_dram", "fragment_dram", "blend"};
  double most = -1;
  std::string text;
#define TBDR_BUSIEST(name, description)                                                       \
  if (!not_units.count(#name) && geometry_units.count(#name) != fragment && b.name > most) { \
    most = b.name;                                                                           \
    text = std::string(description) + " (" #name " " + grouped_cycles(b.name) + " busy cycles)"; \
  }
  TBDR_CYCLE_BREAKDOWN(TBDR_BUSIEST)
#undef TBDR_BUSIEST
  return text;
}

// What limits a pass: its longer phase, and in it DRAM when the phase's transfer time reaches its
// compute time (each phase is max(compute, DRAM), models/README.md "Sources: time"), else its busiest unit.
std::string bound_by(const PassStats& pass) {
  const CycleStats& c = pass.cycles;
  if (c.geometry <= 0 && c.fragment <= 0) return "nothing (no cycles)";
  const bool fragment = c.fragment >= c.geometry;
  const double phase = fragment ? c.fragment : c.geometry;
  const double dram = fragment ? c.breakdown.fragment_dram : c.breakdown.geometry_dram;
  const std::string where = fragment ? "fragment phase" : "geometry phase";
  if (dram >= phase || pass.type != "render")
    return "DRAM bandwidth in the " + where + " (" + grouped_cycles(dram) + " cycles of transfers)";
  return "the " + where + "'s " + busiest_unit(c.breakdown, fragment) + "; DRAM " + grouped_cycles(dram) + " of " +
         grouped_cycles(phase) + " cycles";
}

void cycles_text(std::ostringstream& out, const PassStats& pass) {
  const CycleStats& c = pass.cycles;
  out << "  cycles: geometry " << grouped_cycles(c.geometry) << ", fragment " << grouped_cycles(c.fragment) << "; span "
      << grouped_cycles(c.total) << " (geometry start " << grouped_cycles(pass.schedule.geometry_start) << " to fragment end "
      << grouped_cycles(pass.schedule.fragment_end) << "; fragment " << grouped_cycles(pass.schedule.fragment_start) << "-"
      << grouped_cycles(pass.schedule.fragment_end) << ")";
  if (pass.schedule.binning_overlap > 0)
    out << ", binning overlapped with earlier rendering " << grouped_cycles(pass.schedule.binning_overlap);
  out << ", energy " << fixed(pass.energy.total_joules * 1e3, 3) << " mJ\n";
  out << "  bound by: " << bound_by(pass) << "\n";
  if (pass.type != "render") return;
  out << "  breakdown (busy cycles, all cores):";
  int column = 0;
#define TBDR_TEXT(name, description)                                 \
  if (c.breakdown.name != 0) {                                       \
    out << (column++ % 6 == 0 ? "\n    " : "  ") << #name << " " << grouped_cycles(c.breakdown.name); \
  }
  TBDR_CYCLE_BREAKDOWN(TBDR_TEXT)
#undef TBDR_TEXT
  out << "\n";
  for (const AttachmentStats& a : pass.attachments) {
    if (!a.store_raw_bytes && !a.load_raw_bytes && !a.empty_tile_bytes_saved) continue;
    out << "  attachment " << a.attachment << " " << a.image << " (" << a.format << "): stored " << grouped(a.store_bytes)
        << " of " << grouped(a.store_raw_bytes) << " B";
    if (a.compressed && a.store_raw_bytes)
      out << ", AFBC ratio " << fixed(double(a.store_bytes + a.te_bytes_saved) / double(a.store_raw_bytes), 3);
    else
      out << ", AFBC: " << a.compression;
    if (a.te_checked)
      out << ", TE killed " << grouped(a.te_blocks_killed) << "/" << grouped(a.te_blocks) << " blocks ("
          << grouped(a.te_bytes_saved) << " B)";
    if (a.load_raw_bytes) out << ", loaded " << grouped(a.load_bytes) << " of " << grouped(a.load_raw_bytes) << " B";
    if (a.empty_tile_bytes_saved) out << ", empty tiles saved " << grouped(a.empty_tile_bytes_saved) << " B";
    if (a.pixels != "simulated") out << ", " << a.pixels << " pixels";
    out << "\n";
  }
  if (pass.hsr_disabled_blending || pass.hsr_disabled_discard || pass.hsr_disabled_shader_depth_write ||
      pass.hsr_disabled_tile_read)
    out << "  HSR disabled in draws: blending " << pass.hsr_disabled_blending << ", discard " << pass.hsr_disabled_discard
        << ", shader depth write " << pass.hsr_disabled_shader_depth_write << ", tile read "
        << pass.hsr_disabled_tile_read << "\n";
}

}  // namespace

nlohmann::json ledger_json(const DramLedger& ledger) {
  nlohmann::json j = nlohmann::json::object();
  const Traffic total = ledger.total();
  j["read_bytes"] = total.read_bytes;
  j["write_bytes"] = total.write_bytes;
  // Built key by key: an initializer list makes a [key, value] array of each pair before the object
  // (a sweep's re-costing builds this report for every configuration).
  nlohmann::json& by = j["by_category"] = nlohmann::json::object();
  for (size_t c = 0; c < kDramCategoryCount; ++c) {
    nlohmann::json& entry = by[dram_category_name(DramCategory(c))];
    entry["read_bytes"] = ledger.by_category[c].read_bytes;
    entry["write_bytes"] = ledger.by_category[c].write_bytes;
  }
  return j;
}

nlohmann::json counters_json(const PassCounters& counters) {
  nlohmann::json j = nlohmann::json::object();
#define TBDR_JSON(name, description) j[#name] = counters.name;
  TBDR_PASS_COUNTERS(TBDR_JSON)
#undef TBDR_JSON
  return j;
}

nlohmann::json cycles_json(const CycleStats& cycles) {
  nlohmann::json breakdown = nlohmann::json::object();
#define TBDR_JSON(name, description) breakdown[#name] = cycles.breakdown.name;
  TBDR_CYCLE_BREAKDOWN(TBDR_JSON)
#undef TBDR_JSON
  nlohmann::json j = nlohmann::json::object();
  j["geometry"] = cycles.geometry;
  j["fragment"] = cycles.fragment;
  j["total"] = cycles.total;
  j["breakdown"] = std::move(breakdown);
  return j;
}

nlohmann::json schedule_json(const ScheduleStats& s) {
  nlohmann::json j = nlohmann::json::object();
  j["geometry_start"] = s.geometry_start;
  j["geometry_end"] = s.geometry_end;
  j["fragment_start"] = s.fragment_start;
  j["fragment_end"] = s.fragment_end;
  j["binning_overlap"] = s.binning_overlap;
  return j;
}

// binning=hierarchical: per level its bin size in pixels, entries and their bytes (4 B each,
// traces/README.md "Parameter buffer").
nlohmann::json tile_list_levels_json(const HardwarePassStats& hw) {
  nlohmann::json levels = nlohmann::json::array();
  for (size_t level = 0; level < hw.tile_list_level_entries.size(); ++level)
    levels.push_back({{"level", level},
                      {"bin_size", std::vector<uint32_t>{hw.tile_width << level, hw.tile_height << level}},
                      {"entries", hw.tile_list_level_entries[level]},
                      {"bytes", 4 * hw.tile_list_level_entries[level]}});
  return levels;
}

// One draw's costs (tools/doc/reports.md "Per-draw costs"): its counts, the shader work of its shaded quads,
// its units' cycles and its DRAM bytes; `fragment_share`: its part of the pass's fragments.
nlohmann::json draw_json(const DrawStats& d, const PassStats& pass) {
  nlohmann::json j = {{"subpass", d.subpass}, {"index", d.index}, {"name", d.name}, {"event", d.event}};
#define TBDR_JSON(name, description) j[#name] = d.counters.name;
  TBDR_DRAW_COUNTERS(TBDR_JSON)
#undef TBDR_JSON
  j["fragments_killed"] = d.counters.fragments - d.counters.fragments_shaded;
  j["fragment_share"] = pass.counters.fragments ? double(d.counters.fragments) / double(pass.counters.fragments) : 0.0;
  nlohmann::json& work = j["work"];
  work["alu"] = d.alu_work;
  work["texture"] = d.texture_work;
  work["tile_read"] = d.tile_read_work;
  work["varying"] = d.varying_work;
  work["vertex_alu"] = d.vertex_alu_work;
  nlohmann::json& cycles = j["cycles"];
  cycles["triangle_setup"] = d.cycles.triangle_setup;
  cycles["raster"] = d.cycles.raster;
  cycles["alu"] = d.cycles.alu;
  cycles["texture"] = d.cycles.texture;
  cycles["tile_read"] = d.cycles.tile_read;
  cycles["varying"] = d.cycles.varying;
  cycles["pixel"] = d.cycles.pixel;
  cycles["blend"] = d.cycles.blend;
  cycles["fragment"] = d.fragment_cycles();
  j["dram_bytes"] = d.dram_bytes();
  return j;
}

nlohmann::json energy_json(const EnergyStats& e) {
  nlohmann::json j = nlohmann::json::object();
  j["dram_joules"] = e.dram_joules;
  j["tile_buffer_joules"] = e.tile_buffer_joules;
  j["total_joules"] = e.total_joules;
  return j;
}

// The present timeline's summary and the sustained power (models/README.md "display", "power").
nlohmann::json present_json(const PresentStats& p) {
  return {{"mode", p.mode},
          {"refresh_hz", p.refresh_hz},
          {"swapchain_images", p.swapchain_images},
          {"images_from", p.images_from},
          {"shown", p.shown},
          {"dropped", p.dropped},
          {"mean_latency_ms", p.mean_latency_ms},
          {"max_latency_ms", p.max_latency_ms},
          {"mean_interval_ms", p.mean_interval_ms},
          {"jitter_ms", p.jitter_ms},
          {"max_interval_ms", p.max_interval_ms},
          {"span_ms", p.span_ms}};
}

nlohmann::json power_json(const PowerStats& p) {
  return {{"energy_per_frame_joules", p.energy_per_frame_joules},
          {"frames_per_second", p.frames_per_second},
          {"watts", p.watts},
          {"sustained_watts", p.sustained_watts},
          {"within_budget", p.within_budget},
          {"budget_frames_per_second", p.budget_frames_per_second}};
}

// One frame on the present timeline; present_ms and latency_ms are null for a frame never shown.
nlohmann::json frame_present_json(const FramePresentStats& f) {
  return {{"gpu_ms", f.gpu_ms},
          {"submit_ms", f.submit_ms},
          {"ready_ms", f.ready_ms},
          {"shown", f.shown},
          {"present_ms", f.shown ? nlohmann::json(f.present_ms) : nlohmann::json()},
          {"latency_ms", f.shown ? nlohmann::json(f.latency_ms) : nlohmann::json()}};
}

nlohmann::json report_json(const ReportContext& context, const RunStats& stats) {
  nlohmann::json report;
  report["format"] = "tbdrsim-report";
  report["version"] = 1;
  report["tbdrsim"] = version_json();  // the build that computed the figures
  report["trace"] = context.trace_path;
  report["preset"] = context.preset;
  report["config"] = context.config;
  report["warnings"] = context.warnings;
  if (!context.notes.empty()) report["notes"] = context.notes;
  nlohmann::json frames = nlohmann::json::array();
  for (size_t f = 0; f < stats.frames.size(); ++f) {
    const FrameStats& frame = stats.frames[f];
    nlohmann::json passes = nlohmann::json::array();
    for (const PassStats& pass : frame.passes) {
      nlohmann::json p = counters_json(pass.counters);
      p["name"] = pass.name;
      p["type"] = pass.type;
      p["tile_size"] = {pass.tile_width, pass.tile_height};
      p["tile_reason"] = pass.tile_reason;
      p["dram"] = ledger_json(pass.dram);
      p["dram_nominal"] = ledger_json(pass.dram_nominal);
      p["cycles"] = cycles_json(pass.cycles);
      p["schedule"] = schedule_json(pass.schedule);
      p["energy"] = energy_json(pass.energy);
      if (pass.type == "render") {
        p["working_set_bytes_per_tile"] = pass.working_set_bytes_per_tile;
        p["hsr_disabled"] = {{"blending", pass.hsr_disabled_blending},
                             {"discard", pass.hsr_disabled_discard},
                             {"shader_depth_write", pass.hsr_disabled_shader_depth_write},
                             {"tile_read", pass.hsr_disabled_tile_read}};
        nlohmann::json hardware = nlohmann::json::array();
        for (const HardwarePassStats& hw : pass.hardware_passes) {
          nlohmann::json& h = hardware.emplace_back(nlohmann::json::object());
          h["subpasses"] = {hw.first_subpass, hw.last_subpass};
          h["tile_size"] = {hw.tile_width, hw.tile_height};
          h["tile_reason"] = hw.tile_reason;
          h["tiles"] = hw.tiles;
          h["working_set_bytes_per_tile"] = hw.working_set_bytes_per_tile;
          h["dram"] = ledger_json(hw.dram);
          h["dram_nominal"] = ledger_json(hw.dram_nominal);
          h["direct"] = hw.direct;
          h["direct_reason"] = hw.direct_reason;
          h["cycles"] = cycles_json(hw.cycles);
          h["schedule"] = schedule_json(hw.schedule);
          if (!hw.tile_list_level_entries.empty()) h["tile_list_levels"] = tile_list_levels_json(hw);
        }
        nlohmann::json attachments = nlohmann::json::array();
        for (const AttachmentStats& a : pass.attachments)
          attachments.push_back(
              {{"attachment", a.attachment},
               {"image", a.image},
               {"format", a.format},
               {"store_raw_bytes", a.store_raw_bytes},
               {"store_bytes", a.store_bytes},
               {"load_raw_bytes", a.load_raw_bytes},
               {"load_bytes", a.load_bytes},
               {"compression", a.compression},
               {"compression_ratio", a.store_raw_bytes ? double(a.store_bytes + a.te_bytes_saved) / double(a.store_raw_bytes) : 0.0},
               {"te", a.write_elim},
               {"te_blocks", a.te_blocks},
               {"te_blocks_killed", a.te_blocks_killed},
               {"te_bytes_saved", a.te_bytes_saved},
               {"empty_tile_bytes_saved", a.empty_tile_bytes_saved},
               {"pixels", a.pixels}});
        p["attachments"] = std::move(attachments);
        p["merge"] = {{"merged", pass.merge.merged},
                      {"hardware_passes", pass.hardware_passes.size()},
                      {"reasons", pass.merge.reasons}};
        p["hardware_passes"] = std::move(hardware);
        nlohmann::json draws = nlohmann::json::array();
        for (const DrawStats& d : pass.draw_stats) draws.push_back(draw_json(d, pass));
        p["draw_costs"] = std::move(draws);
      }
      passes.push_back(std::move(p));
    }
    nlohmann::json totals = counters_json(frame.counters);
    totals["dram"] = ledger_json(frame.dram);
    totals["dram_nominal"] = ledger_json(frame.dram_nominal);
    totals["energy"] = energy_json(frame.energy);
    frames.push_back({{"index", f},
                      {"passes", std::move(passes)},
                      {"frame_cycles", frame.frame_cycles},
                      {"frame_ms", frame.clock_mhz > 0 ? frame.frame_cycles / (frame.clock_mhz * 1000.0) : 0.0},
                      {"steady_frame_cycles", frame.steady_frame_cycles},
                      {"present", f < stats.present.frames.size() ? frame_present_json(stats.present.frames[f])
                                                                  : nlohmann::json()},
                      {"totals", std::move(totals)}});
  }
  report["frames"] = std::move(frames);
  nlohmann::json totals = counters_json(stats.counters);
  totals["dram"] = ledger_json(stats.dram);
  totals["dram_nominal"] = ledger_json(stats.dram_nominal);
  totals["present"] = present_json(stats.present);
  totals["power"] = power_json(stats.power);
  report["totals"] = std::move(totals);
  return report;
}

namespace {

// The merge decision and, when the API pass ran as several hardware passes, each of them.
void merge_text(std::ostringstream& out, const PassStats& pass) {
  const size_t subpasses = pass.hardware_passes.back().last_subpass + 1;
  out << "\n  " << subpasses << (subpasses == 1 ? " subpass" : " subpasses") << ": "
      << (pass.merge.merged ? "merged" : "not merged") << " into " << pass.hardware_passes.size()
      << (pass.hardware_passes.size() == 1 ? " hardware pass" : " hardware passes") << ", working set "
      << grouped(pass.working_set_bytes_per_tile) << " B per tile";
  for (const std::string& reason : pass.merge.reasons) out << "\n  merge refused: " << reason;
  if (pass.hardware_passes.size() < 2) return;
  for (size_t h = 0; h < pass.hardware_passes.size(); ++h) {
    const HardwarePassStats& hw = pass.hardware_passes[h];
    out << "\n  hardware pass " << h << ": subpasses " << hw.first_subpass << "-" << hw.last_subpass << ", tile "
        << hw.tile_width << "x" << hw.tile_height << " (" << hw.tile_reason << "), " << grouped(hw.tiles) << " tiles, DRAM "
        << mb(hw.dram.total().read_bytes) << " MB read, " << mb(hw.dram.total().write_bytes) << " MB written";
  }
}

void counters_text(std::ostringstream& out, const PassStats& pass) {
  const PassCounters& c = pass.counters;
  out << "\n  " << grouped(c.tiles) << " tiles (" << grouped(c.empty_tiles) << " empty), " << grouped(c.draws) << " draws, "
      << grouped(c.primitives_in) << " triangles in, " << grouped(c.primitives) << " binned, " << grouped(c.tile_list_entries)
      << " tile-list entries, " << grouped(c.fragments) << " fragments, " << grouped(c.fragments_shaded) << " shaded\n";
  if (c.texel_fetches > 0) {
    out << "  textures: " << grouped(c.texel_fetches) << " texel fetches";
    if (c.texture_cache_hits + c.texture_cache_misses > 0)
      out << ", cache " << grouped(c.texture_cache_hits) << " hits / " << grouped(c.texture_cache_misses) << " misses";
    if (c.texture_l2_hits + c.texture_l2_misses > 0)
      out << ", L2 " << grouped(c.texture_l2_hits) << " hits / " << grouped(c.texture_l2_misses) << " misses";
    out << ", " << grouped(pass.dram[DramCategory::texture].read_bytes) << " B from DRAM ("
        << grouped(pass.dram_nominal[DramCategory::texture].read_bytes) << " B footprint)\n";
  }
  if (c.param_buffer_flushes)
    out << "  parameter buffer full: " << grouped(c.param_buffer_flushes) << " flushes, "
        << grouped(c.param_buffer_flush_store_bytes) << " B stored and " << grouped(c.param_buffer_flush_load_bytes)
        << " B reloaded\n";
}

// binning=hierarchical: "tile-list levels: 16x16 px 1,200 entries (4,800 B), 32x32 px ...".
void levels_text(std::ostringstream& out, const HardwarePassStats& hw) {
  if (hw.tile_list_level_entries.empty()) return;
  out << "  tile-list levels:";
  for (size_t level = 0; level < hw.tile_list_level_entries.size(); ++level)
    out << (level ? ", " : " ") << (hw.tile_width << level) << "x" << (hw.tile_height << level) << " px "
        << grouped(hw.tile_list_level_entries[level]) << " entries (" << grouped(4 * hw.tile_list_level_entries[level])
        << " B)";
  out << "\n";
}

void pass_text(std::ostringstream& out, size_t index, const PassStats& pass) {
  out << "\npass " << index << " \"" << pass.name << "\" (" << pass.type << ")";
  if (pass.tile_width) out << "  tile " << pass.tile_width << "x" << pass.tile_height << " (" << pass.tile_reason << ")";
  if (pass.type == "render" && !pass.hardware_passes.empty()) merge_text(out, pass);
  counters_text(out, pass);
  for (const HardwarePassStats& hw : pass.hardware_passes) levels_text(out, hw);
  ledger_table(out, "DRAM (physical)", pass.dram);
  if (!(pass.dram == pass.dram_nominal)) ledger_table(out, "DRAM (nominal)", pass.dram_nominal);
  cycles_text(out, pass);
}

// "top draws": the frame's draws ranked by a figure, the first kTopDraws with their place, share
// and what drove them (tools/doc/reports.md "Per-draw costs").
constexpr size_t kTopDraws = 5;
struct RankedDraw {
  size_t pass;
  const DrawStats* draw;
};

std::string draw_place(const FrameStats& frame, const RankedDraw& r) {
  std::string place = "pass " + std::to_string(r.pass) + " \"" + frame.passes[r.pass].name + "\" subpass " +
                      std::to_string(r.draw->subpass) + " draw " + std::to_string(r.draw->index);
  if (!r.draw->event.empty()) place += " (event " + r.draw->event + ")";
  else if (!r.draw->name.empty()) place += " \"" + r.draw->name + "\"";
  return place;
}

template <class Figure>
void top_draws_text(std::ostringstream& out, const FrameStats& frame, const char* title, Figure figure,
                    void (*detail)(std::ostringstream&, const DrawStats&)) {
  std::vector<RankedDraw> draws;
  double total = 0;
  for (size_t p = 0; p < frame.passes.size(); ++p)
    for (const DrawStats& d : frame.passes[p].draw_stats) {
      draws.push_back({p, &d});
      total += double(figure(d));
    }
  if (draws.empty() || total <= 0) return;
  // Stable: equal figures keep submission order, so the list is the same on every run.
  std::stable_sort(draws.begin(), draws.end(),
                   [&](const RankedDraw& a, const RankedDraw& b) { return figure(*a.draw) > figure(*b.draw); });
  out << "top draws by " << title << " (of " << draws.size() << " draws):\n";
  for (size_t i = 0; i < std::min(kTopDraws, draws.size()) && figure(*draws[i].draw) > 0; ++i) {
    out << "  " << i + 1 << ". " << draw_place(frame, draws[i]) << ": ";
    detail(out, *draws[i].draw);
    out << " (" << fixed(100.0 * double(figure(*draws[i].draw)) / total, 1) << " % of the draws')\n";
  }
}

void fragment_detail(std::ostringstream& out, const DrawStats& d) {
  out << grouped_cycles(d.fragment_cycles()) << " cycles; " << grouped(d.counters.fragments) << " fragments, "
      << grouped(d.counters.fragments - d.counters.fragments_shaded) << " killed, "
      << grouped(d.counters.fragments_shaded)
      << " shaded, " << grouped(d.counters.texel_fetches) << " texel fetches";
}

void dram_detail(std::ostringstream& out, const DrawStats& d) {
  out << grouped(d.dram_bytes()) << " B; vertex " << grouped(d.counters.vertex_read_bytes) << " B, tile lists "
      << grouped(d.counters.tile_list_write_bytes + d.counters.tile_list_read_bytes) << " B, texture "
      << grouped(d.counters.texture_read_bytes) << " B";
}

void top_draws(std::ostringstream& out, const FrameStats& frame) {
  top_draws_text(
      out, frame, "fragment cycles", [](const DrawStats& d) { return d.fragment_cycles(); }, fragment_detail);
  top_draws_text(out, frame, "DRAM bytes", [](const DrawStats& d) { return d.dram_bytes(); }, dram_detail);
}

// The header: what ran, each kind's implementation (parameters: `run --json`'s config), the legend.
void header_text(std::ostringstream& out, const ReportContext& context) {
  out << "trace " << context.trace_path << "  preset " << context.preset << "\nmodels:";
  for (const auto& [kind, entry] : context.config.items())
    out << " " << kind << "=" << (entry.contains("impl") ? entry["impl"].get<std::string>() : std::string("?"));
  out << "\n(every parameter: the config block of --json)\n"
      << "units: B = bytes, MB = 10^6 B; cycles of the GPU clock. A pass's span runs from its geometry start to its\n"
      << "fragment end on the frame's schedule; passes overlap, so spans do not add up: the frame total does.\n";
}

// The present timeline, one line per frame, its pacing, and the sustained power.
void present_text(std::ostringstream& out, const RunStats& stats) {
  const PresentStats& p = stats.present;
  out << "\npresent: " << p.mode << " at " << fixed(p.refresh_hz, 1) << " Hz, " << p.swapchain_images
      << " swapchain images (" << p.images_from << "); ms from the first submission\n";
  for (size_t f = 0; f < p.frames.size(); ++f) {
    const FramePresentStats& t = p.frames[f];
    out << "  frame " << f << ": GPU " << fixed(t.gpu_ms, 3) << ", submit " << fixed(t.submit_ms, 3) << ", ready "
        << fixed(t.ready_ms, 3);
    if (t.shown)
      out << ", on screen " << fixed(t.present_ms, 3) << ", latency " << fixed(t.latency_ms, 3) << "\n";
    else
      out << ", replaced before a vertical blank: never shown\n";
  }
  out << "  " << p.shown << " shown, " << p.dropped << " dropped; latency mean " << fixed(p.mean_latency_ms, 3)
      << " ms, max " << fixed(p.max_latency_ms, 3) << " ms; present interval mean " << fixed(p.mean_interval_ms, 3)
      << " ms, jitter (std. dev.) " << fixed(p.jitter_ms, 3) << " ms, max " << fixed(p.max_interval_ms, 3) << " ms\n";
  const PowerStats& w = stats.power;
  out << "power: " << fixed(w.energy_per_frame_joules * 1e3, 3) << " mJ/frame x " << fixed(w.frames_per_second, 1)
      << " frames/s = " << fixed(w.watts, 3) << " W, " << (w.within_budget ? "within" : "over")
      << " the sustained budget of " << fixed(w.sustained_watts, 3) << " W, which allows "
      << fixed(w.budget_frames_per_second, 1) << " frames/s\n";
}

}  // namespace

std::string draws_csv(const RunStats& stats) {
  std::ostringstream out;
  out << "frame,pass,pass_name,subpass,index,name,event";
#define TBDR_CSV_HEADER(name, description) out << "," #name;
  TBDR_DRAW_COUNTERS(TBDR_CSV_HEADER)
#undef TBDR_CSV_HEADER
  out << ",fragments_killed,dram_bytes,triangle_setup_cycles,raster_cycles,alu_cycles,texture_cycles,"
         "tile_read_cycles,varying_cycles,pixel_cycles,blend_cycles,fragment_cycles\n";
  // Names are quoted (RFC 4180: a field with a comma or quote in quotes, quotes doubled).
  auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  };
  out.precision(17);
  for (size_t f = 0; f < stats.frames.size(); ++f)
    for (size_t p = 0; p < stats.frames[f].passes.size(); ++p) {
      const PassStats& pass = stats.frames[f].passes[p];
      for (const DrawStats& d : pass.draw_stats) {
        out << f << "," << p << "," << quoted(pass.name) << "," << d.subpass << "," << d.index << "," << quoted(d.name)
            << "," << quoted(d.event);
#define TBDR_CSV_FIELD(name, description) out << "," << d.counters.name;
        TBDR_DRAW_COUNTERS(TBDR_CSV_FIELD)
#undef TBDR_CSV_FIELD
        const CycleBreakdown& c = d.cycles;
        out << "," << d.counters.fragments - d.counters.fragments_shaded << "," << d.dram_bytes();
        for (double v : {c.triangle_setup, c.raster, c.alu, c.texture, c.tile_read, c.varying, c.pixel, c.blend,
                         d.fragment_cycles()})
          out << "," << v;
        out << "\n";
      }
    }
  return out.str();
}

std::string report_text(const ReportContext& context, const RunStats& stats) {
  std::ostringstream out;
  header_text(out, context);  // the trace's warnings go to stderr (tools/doc/cli.md "Machine-readable output")
  for (const std::string& n : context.notes) out << "note: " << n << "\n";  // what the figures mean: part of the report
  for (size_t f = 0; f < stats.frames.size(); ++f) {
    const FrameStats& frame = stats.frames[f];
    out << "\nframe " << f << "\n";
    for (size_t p = 0; p < frame.passes.size(); ++p) pass_text(out, p, frame.passes[p]);
    out << "\nframe " << f << " total: " << grouped_cycles(frame.frame_cycles) << " cycles";
    if (frame.clock_mhz > 0)
      out << " = " << fixed(frame.frame_cycles / (frame.clock_mhz * 1000.0), 3) << " ms at " << fixed(frame.clock_mhz, 0) << " MHz";
    out << ", energy " << fixed(frame.energy.total_joules * 1e3, 3) << " mJ\n";
    ledger_table(out, "DRAM (physical)", frame.dram);
    if (!(frame.dram == frame.dram_nominal)) ledger_table(out, "DRAM (nominal)", frame.dram_nominal);
    top_draws(out, frame);
  }
  present_text(out, stats);
  return out.str();
}

}  // namespace tbdr
