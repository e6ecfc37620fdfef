// A sweep row's report cells straight from the run's figures: the cells RowBuilder::flatten would take
// from report_json (tools/commands/report.cpp), in its order and of its JSON types, with no JSON tree built.
#include "tools/commands/sweep_internal.h"

#include <functional>

namespace tbdr::sweep {
namespace {

// The members of one JSON object of report_json, emitted in the order nlohmann::json iterates them:
// its objects are std::maps, so by key (bytes compared as std::string's operator< does), a key set
// twice holding the last value set. An object or array member is a function emitting its own members.
// Keys are string literals (the report's names and dram_category_name's).
class Members {
 public:
  using Nested = std::function<void(RowBuilder&)>;
  explicit Members(size_t expected = 16) { m_members.reserve(expected); }
  template <class T>
  Members& value(std::string_view key, const T& v) {
    m_members.push_back({key, ojson(v), nullptr});
    return *this;
  }
  Members& nested(std::string_view key, Nested emit) {
    m_members.push_back({key, ojson(), std::move(emit)});
    return *this;
  }
  void emit(RowBuilder& row) {
    for (const uint32_t i : emit_order()) {
      const size_t length = row.enter(m_members[i].key);
      if (m_members[i].emit) m_members[i].emit(row);
      else row.leaf(std::move(m_members[i].value));
      row.leave(length);
    }
  }

 private:
  // The members' indices in key order, a key set twice by its last setting. Every row sets the same
  // keys (string literals) in the same order at each place, so each list of keys is sorted once per
  // thread and found again by its keys' addresses (sorting a pass's 150 members for every row was a
  // tenth of the cells' cost).
  struct Order {
    std::vector<std::string_view> keys;  // in setting order
    std::vector<uint32_t> emitted;
  };
  const std::vector<uint32_t>& emit_order() const {
    thread_local std::vector<Order> known;
    const auto same = [this](const Order& o) {
      if (o.keys.size() != m_members.size()) return false;
      for (size_t i = 0; i < o.keys.size(); ++i)
        if (o.keys[i].data() != m_members[i].key.data() || o.keys[i].size() != m_members[i].key.size()) return false;
      return true;
    };
    for (const Order& o : known)
      if (same(o)) return o.emitted;
    thread_local Order unkept;  // keys past the few lists report_json has: sorted each time
    Order& o = known.size() < 64 ? known.emplace_back() : (unkept = Order{});
    std::vector<uint32_t> sorted(m_members.size());
    for (size_t i = 0; i < sorted.size(); ++i) sorted[i] = uint32_t(i), o.keys.push_back(m_members[i].key);
    std::sort(sorted.begin(), sorted.end(), [this](uint32_t a, uint32_t b) {
      return m_members[a].key != m_members[b].key ? m_members[a].key < m_members[b].key : a < b;
    });
    for (size_t i = 0; i < sorted.size(); ++i)
      if (i + 1 == sorted.size() || m_members[sorted[i + 1]].key != m_members[sorted[i]].key)  // else set again later
        o.emitted.push_back(sorted[i]);
    return o.emitted;
  }

  struct Member {
    std::string_view key;  // a string literal: its address identifies it (emit_order)
    ojson value;
    Nested emit;
  };
  std::vector<Member> m_members;
};

// An array's elements, each under its index.
template <class Each>
void elements(RowBuilder& row, size_t count, const Each& each) {
  for (size_t i = 0; i < count; ++i) {
    const size_t length = row.enter(std::to_string(i));
    each(i);
    row.leave(length);
  }
}

// A two-number array ({a, b} in report_json).
template <class T>
Members::Nested pair_of(T a, T b) {
  return [a, b](RowBuilder& row) {
    const T both[2] = {a, b};
    elements(row, 2, [&](size_t i) { row.leaf(ojson(both[i])); });
  };
}

Members::Nested ledger(const DramLedger& ledger) {
  return [&ledger](RowBuilder& row) {
    const Traffic total = ledger.total();
    Members m(3);
    m.value("read_bytes", total.read_bytes).value("write_bytes", total.write_bytes);
    m.nested("by_category", [&ledger](RowBuilder& r) {
      Members by(kDramCategoryCount);
      for (size_t c = 0; c < kDramCategoryCount; ++c)
        by.nested(dram_category_name(DramCategory(c)), [&ledger, c](RowBuilder& rc) {
          Members entry(2);
          entry.value("read_bytes", ledger.by_category[c].read_bytes).value("write_bytes", ledger.by_category[c].write_bytes);
          entry.emit(rc);
        });
      by.emit(r);
    });
    m.emit(row);
  };
}

void counters(const PassCounters& counters, Members& m) {
#define TBDR_CELL(name, description) m.value(#name, counters.name);
  TBDR_PASS_COUNTERS(TBDR_CELL)
#undef TBDR_CELL
}

Members::Nested cycles(const CycleStats& cycles) {
  return [&cycles](RowBuilder& row) {
    Members m(4);
    m.value("geometry", cycles.geometry).value("fragment", cycles.fragment).value("total", cycles.total);
    m.nested("breakdown", [&cycles](RowBuilder& r) {
      Members breakdown(32);
#define TBDR_CELL(name, description) breakdown.value(#name, cycles.breakdown.name);
      TBDR_CYCLE_BREAKDOWN(TBDR_CELL)
#undef TBDR_CELL
      breakdown.emit(r);
    });
    m.emit(row);
  };
}

Members::Nested schedule(const ScheduleStats& s) {
  return [&s](RowBuilder& row) {
    Members m(5);
    m.value("geometry_start", s.geometry_start).value("geometry_end", s.geometry_end);
    m.value("fragment_start", s.fragment_start).value("fragment_end", s.fragment_end);
    m.value("binning_overlap", s.binning_overlap).emit(row);
  };
}

Members::Nested energy(const EnergyStats& e) {
  return [&e](RowBuilder& row) {
    Members m(3);
    m.value("dram_joules", e.dram_joules).value("tile_buffer_joules", e.tile_buffer_joules);
    m.value("total_joules", e.total_joules).emit(row);
  };
}

Members::Nested tile_list_levels(const HardwarePassStats& hw) {
  return [&hw](RowBuilder& row) {
    elements(row, hw.tile_list_level_entries.size(), [&](size_t level) {
      Members m(4);
      m.value("level", level).nested("bin_size", pair_of<uint32_t>(hw.tile_width << level, hw.tile_height << level));
      m.value("entries", hw.tile_list_level_entries[level]).value("bytes", 4 * hw.tile_list_level_entries[level]);
      m.emit(row);
    });
  };
}

Members::Nested hardware_pass(const HardwarePassStats& hw) {
  return [&hw](RowBuilder& row) {
    Members h(12);
    h.nested("subpasses", pair_of(hw.first_subpass, hw.last_subpass)).nested("tile_size", pair_of(hw.tile_width, hw.tile_height));
    h.value("tile_reason", hw.tile_reason).value("tiles", hw.tiles).value("working_set_bytes_per_tile", hw.working_set_bytes_per_tile);
    h.nested("dram", ledger(hw.dram)).nested("dram_nominal", ledger(hw.dram_nominal));
    h.value("direct", hw.direct).value("direct_reason", hw.direct_reason);
    h.nested("cycles", cycles(hw.cycles)).nested("schedule", schedule(hw.schedule));
    if (!hw.tile_list_level_entries.empty()) h.nested("tile_list_levels", tile_list_levels(hw));
    h.emit(row);
  };
}

// draw_json's cells (tools/doc/reports.md "Per-draw costs").
Members::Nested draw(const DrawStats& d, const PassStats& pass) {
  return [&d, &pass](RowBuilder& row) {
    Members j(64);
    j.value("subpass", d.subpass).value("index", d.index).value("name", d.name).value("event", d.event);
#define TBDR_CELL(name, description) j.value(#name, d.counters.name);
    TBDR_DRAW_COUNTERS(TBDR_CELL)
#undef TBDR_CELL
    j.value("fragments_killed", d.counters.fragments - d.counters.fragments_shaded);
    j.value("fragment_share", pass.counters.fragments ? double(d.counters.fragments) / double(pass.counters.fragments) : 0.0);
    j.nested("work", [&d](RowBuilder& r) {
      Members work(5);
      work.value("alu", d.alu_work).value("texture", d.texture_work).value("tile_read", d.tile_read_work);
      work.value("varying", d.varying_work).value("vertex_alu", d.vertex_alu_work).emit(r);
    });
    j.nested("cycles", [&d](RowBuilder& r) {
      Members c(9);
      c.value("triangle_setup", d.cycles.triangle_setup).value("raster", d.cycles.raster).value("alu", d.cycles.alu);
      c.value("texture", d.cycles.texture).value("tile_read", d.cycles.tile_read).value("varying", d.cycles.varying);
      c.value("pixel", d.cycles.pixel).value("blend", d.cycles.blend).value("fragment", d.fragment_cycles()).emit(r);
    });
    j.value("dram_bytes", d.dram_bytes()).emit(row);
  };
}

// A render pass's own members beyond every pass's (report_json), its attachment records left out.
void render_members(const PassStats& pass, Members& p) {
  p.value("working_set_bytes_per_tile", pass.working_set_bytes_per_tile);
  p.nested("hsr_disabled", [&pass](RowBuilder& r) {
    Members m(4);
    m.value("blending", pass.hsr_disabled_blending).value("discard", pass.hsr_disabled_discard);
    m.value("shader_depth_write", pass.hsr_disabled_shader_depth_write).value("tile_read", pass.hsr_disabled_tile_read).emit(r);
  });
  p.nested("merge", [&pass](RowBuilder& r) {
    Members m(3);
    m.value("merged", pass.merge.merged).value("hardware_passes", pass.hardware_passes.size());
    m.nested("reasons", [&pass](RowBuilder& rr) {
      elements(rr, pass.merge.reasons.size(), [&](size_t i) { rr.leaf(ojson(pass.merge.reasons[i])); });
    });
    m.emit(r);
  });
  p.nested("hardware_passes", [&pass](RowBuilder& r) {
    elements(r, pass.hardware_passes.size(), [&](size_t i) { hardware_pass(pass.hardware_passes[i])(r); });
  });
  p.nested("draw_costs", [&pass](RowBuilder& r) {
    elements(r, pass.draw_stats.size(), [&](size_t i) { draw(pass.draw_stats[i], pass)(r); });
  });
}

}  // namespace

void pass_cells(const PassStats& pass, RowBuilder& row) {
  Members p(160);
  counters(pass.counters, p);
  p.value("name", pass.name).value("type", pass.type).nested("tile_size", pair_of(pass.tile_width, pass.tile_height));
  p.value("tile_reason", pass.tile_reason).nested("dram", ledger(pass.dram)).nested("dram_nominal", ledger(pass.dram_nominal));
  p.nested("cycles", cycles(pass.cycles)).nested("schedule", schedule(pass.schedule)).nested("energy", energy(pass.energy));
  if (pass.type == "render") render_members(pass, p);
  row.begin_path();
  p.emit(row);
}

void attachment_cells(const AttachmentStats& a, RowBuilder& row) {
  Members m(15);
  m.value("attachment", a.attachment).value("image", a.image).value("format", a.format);
  m.value("store_raw_bytes", a.store_raw_bytes).value("store_bytes", a.store_bytes);
  m.value("load_raw_bytes", a.load_raw_bytes).value("load_bytes", a.load_bytes).value("compression", a.compression);
  m.value("compression_ratio",
          a.store_raw_bytes ? double(a.store_bytes + a.te_bytes_saved) / double(a.store_raw_bytes) : 0.0);
  m.value("te", a.write_elim).value("te_blocks", a.te_blocks).value("te_blocks_killed", a.te_blocks_killed);
  m.value("te_bytes_saved", a.te_bytes_saved).value("empty_tile_bytes_saved", a.empty_tile_bytes_saved);
  m.value("pixels", a.pixels);
  row.begin_path();
  m.emit(row);
}

void totals_cells(const RunStats& stats, RowBuilder& row) {
  Members t(160);
  counters(stats.counters, t);
  t.nested("dram", ledger(stats.dram)).nested("dram_nominal", ledger(stats.dram_nominal));
  const PresentStats& p = stats.present;
  t.nested("present", [&p](RowBuilder& r) {
    Members m(12);
    m.value("mode", p.mode).value("refresh_hz", p.refresh_hz).value("swapchain_images", p.swapchain_images);
    m.value("images_from", p.images_from).value("shown", p.shown).value("dropped", p.dropped);
    m.value("mean_latency_ms", p.mean_latency_ms).value("max_latency_ms", p.max_latency_ms);
    m.value("mean_interval_ms", p.mean_interval_ms).value("jitter_ms", p.jitter_ms);
    m.value("max_interval_ms", p.max_interval_ms).value("span_ms", p.span_ms).emit(r);
  });
  const PowerStats& w = stats.power;
  t.nested("power", [&w](RowBuilder& r) {
    Members m(6);
    m.value("energy_per_frame_joules", w.energy_per_frame_joules).value("frames_per_second", w.frames_per_second);
    m.value("watts", w.watts).value("sustained_watts", w.sustained_watts).value("within_budget", w.within_budget);
    m.value("budget_frames_per_second", w.budget_frames_per_second).emit(r);
  });
  row.begin_path();
  t.emit(row);
}

}  // namespace tbdr::sweep
