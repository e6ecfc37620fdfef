// The Trace Event Format writer: the scheduler's placement of every hardware pass (ScheduleStats),
// each core's share of the tiles, and the DRAM rate over time, in simulated microseconds.
#include "tools/commands/trace_events.h"

#include <algorithm>
#include <map>
#include <vector>

namespace tbdr {
namespace {

constexpr int kProcess = 1, kFramesTrack = 0, kGeometryTrack = 1, kFragmentTrack = 2, kFirstCoreTrack = 100;

// A phase's bytes over its span [start, end) in absolute cycles, for the DRAM counter.
struct Transfer {
  double start, end;
  const char* series;
  double bytes;
};

// Events of one run being built: `offset` is the current frame's start in cycles of the run.
struct TraceBuilder {
  nlohmann::json events = nlohmann::json::array();
  std::vector<Transfer> transfers;
  double clock_mhz = 1, offset = 0;
  uint32_t cores_used = 0;

  double micros(double cycles) const { return (offset + cycles) / clock_mhz; }
  void complete(int track, const std::string& name, const char* category, double start, double end, nlohmann::json args) {
    events.push_back({{"ph", "X"}, {"pid", kProcess}, {"tid", track}, {"name", name}, {"cat", category},
                      {"ts", micros(start)}, {"dur", (end - start) / clock_mhz}, {"args", std::move(args)}});
  }
};

nlohmann::json metadata(const char* what, int track, const nlohmann::json& args) {
  nlohmann::json e = {{"ph", "M"}, {"pid", kProcess}, {"name", what}, {"args", args}};
  if (track >= 0) e["tid"] = track;
  return e;
}

std::string event_name(size_t pass_index, const PassStats& pass, size_t hw_index) {
  std::string name = "pass " + std::to_string(pass_index) + " " + pass.name;
  if (pass.hardware_passes.size() > 1) name += " hw" + std::to_string(hw_index);
  return name;
}

// Each core's busy cycles over the hardware pass's tiles, as the cores model assigns them.
std::vector<double> core_loads(const HardwarePassStats& hw, const models::CoresModel& cores) {
  std::vector<models::Cycles> tiles;
  tiles.reserve(hw.tile_cycles.size());
  for (double c : hw.tile_cycles) tiles.emplace_back(c);
  std::vector<double> load(cores.core_count(), 0.0);
  const std::vector<uint32_t> core = cores.assign_tiles(tiles);
  for (size_t t = 0; t < tiles.size(); ++t) load[core[t]] += hw.tile_cycles[t];
  return load;
}

void add_hardware_pass(TraceBuilder& b, const models::CoresModel& cores, const nlohmann::json& where, const std::string& name,
                       const HardwarePassStats& hw) {
  const ScheduleStats& s = hw.schedule;
  const CycleBreakdown& c = hw.cycles.breakdown;
  const uint64_t total = hw.dram.total().read_bytes + hw.dram.total().write_bytes;
  const uint64_t geometry_bytes = std::min(total, hw.geometry_dram_bytes);
  if (s.geometry_end > s.geometry_start) {
    nlohmann::json args = where;
    args.update({{"cycles", hw.cycles.geometry}, {"vertex", c.vertex}, {"primitive_setup", c.primitive_setup},
                 {"binning", c.binning}, {"geometry_dram", c.geometry_dram}, {"dram_bytes", geometry_bytes}});
    b.complete(kGeometryTrack, name, "geometry", s.geometry_start, s.geometry_end, args);
    b.transfers.push_back({b.offset + s.geometry_start, b.offset + s.geometry_end, "geometry", double(geometry_bytes)});
  }
  if (s.fragment_end > s.fragment_start) {
    nlohmann::json args = where;
    args.update({{"cycles", hw.cycles.fragment}, {"fragment_dram", c.fragment_dram}, {"render_vertex", c.render_vertex},
                 {"tiles", hw.tiles}, {"dram_bytes", total - geometry_bytes}});
    b.complete(kFragmentTrack, name, "fragment", s.fragment_start, s.fragment_end, args);
    b.transfers.push_back({b.offset + s.fragment_start, b.offset + s.fragment_end, "fragment", double(total - geometry_bytes)});
  }
  const std::vector<double> load = core_loads(hw, cores);
  for (uint32_t k = 0; k < load.size(); ++k) {
    if (load[k] <= 0) continue;
    b.cores_used = std::max(b.cores_used, k + 1);
    nlohmann::json args = where;
    args["busy_cycles"] = load[k];
    b.complete(kFirstCoreTrack + int(k), name, "tiles", s.fragment_start, s.fragment_start + load[k], args);
  }
}

// Transfers and dispatches have no hardware pass: their time and bytes are on the fragment queue.
void add_pass(TraceBuilder& b, const models::CoresModel& cores, uint32_t frame, size_t index, const PassStats& pass) {
  for (size_t h = 0; h < pass.hardware_passes.size(); ++h)
    add_hardware_pass(b, cores, {{"frame", frame}, {"pass", index}, {"hardware_pass", h}, {"type", pass.type}},
                      event_name(index, pass, h), pass.hardware_passes[h]);
  if (!pass.hardware_passes.empty()) return;
  const ScheduleStats& s = pass.schedule;
  if (s.fragment_end <= s.fragment_start) return;
  const uint64_t bytes = pass.dram.total().read_bytes + pass.dram.total().write_bytes;
  b.complete(kFragmentTrack, event_name(index, pass, 0), "fragment", s.fragment_start, s.fragment_end,
             {{"frame", frame}, {"pass", index}, {"type", pass.type}, {"cycles", pass.cycles.fragment},
              {"fragment_dram", pass.cycles.breakdown.fragment_dram}, {"dram_bytes", bytes}});
  b.transfers.push_back({b.offset + s.fragment_start, b.offset + s.fragment_end, "fragment", double(bytes)});
}

// The counter: at every start or end of a transfer, each series' bytes per cycle until the next.
void add_dram_counter(TraceBuilder& b) {
  std::map<double, std::pair<double, double>> steps;  // time -> rate change (geometry, fragment)
  for (const Transfer& t : b.transfers) {
    if (t.end <= t.start) continue;
    const double rate = t.bytes / (t.end - t.start);
    const bool geometry = std::string(t.series) == "geometry";
    (geometry ? steps[t.start].first : steps[t.start].second) += rate;
    (geometry ? steps[t.end].first : steps[t.end].second) -= rate;
  }
  double geometry = 0, fragment = 0;
  for (const auto& [time, change] : steps) {
    geometry += change.first;
    fragment += change.second;
    // Sums of + and - rates leave rounding dust where nothing runs: shown as 0.
    const double g = std::abs(geometry) < 1e-9 ? 0.0 : geometry, f = std::abs(fragment) < 1e-9 ? 0.0 : fragment;
    b.events.push_back({{"ph", "C"}, {"pid", kProcess}, {"name", "DRAM bytes per cycle"}, {"ts", time / b.clock_mhz},
                        {"args", {{"geometry", g}, {"fragment", f}}}});
  }
}

}  // namespace

nlohmann::json trace_events_json(const RunStats& stats, const models::CoresModel& cores, const std::string& process_label) {
  TraceBuilder b;
  b.clock_mhz = cores.clock_mhz();
  for (uint32_t f = 0; f < stats.frames.size(); ++f) {
    const FrameStats& frame = stats.frames[f];
    if (frame.frame_cycles > 0)
      b.complete(kFramesTrack, "frame " + std::to_string(f), "frame", 0, frame.frame_cycles,
                 {{"frame", f}, {"cycles", frame.frame_cycles}});
    for (size_t p = 0; p < frame.passes.size(); ++p) add_pass(b, cores, f, p, frame.passes[p]);
    b.offset += frame.frame_cycles;
  }
  add_dram_counter(b);
  nlohmann::json events = nlohmann::json::array();
  events.push_back(metadata("process_name", -1, {{"name", process_label}}));
  const auto track = [&](int tid, const std::string& name) {
    events.push_back(metadata("thread_name", tid, {{"name", name}}));
    events.push_back(metadata("thread_sort_index", tid, {{"sort_index", tid}}));
  };
  track(kFramesTrack, "frames");
  track(kGeometryTrack, "geometry queue (vertex shading, primitive setup, binning)");
  track(kFragmentTrack, "fragment queue");
  for (uint32_t k = 0; k < b.cores_used; ++k) track(kFirstCoreTrack + int(k), "shader core " + std::to_string(k));
  for (nlohmann::json& e : b.events) events.push_back(std::move(e));
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData", {{"generator", "tbdrsim run --trace-events"}, {"clock_mhz", b.clock_mhz},
                         {"time_unit", "simulated microseconds at clock_mhz"}}}};
}

}  // namespace tbdr
