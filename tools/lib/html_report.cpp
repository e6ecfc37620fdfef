// The self-contained HTML report: the report JSON and the heatmaps (base64 PNG) embedded in the
// page, drawn by the inline script below into tables and SVG; no network at view time.
#include "tools/lib/html_report.h"

#include <set>

namespace tbdr {
namespace {

const char* const kStyle = R"CSS(
body { font: 14px/1.4 sans-serif; margin: 16px 24px; color: #1a1a1a; background: #fafafa; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 15px; margin: 18px 0 6px; }
section.pass { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 4px 16px 12px; margin: 14px 0; }
table { border-collapse: collapse; margin: 6px 0; } td, th { border: 1px solid #ddd; padding: 2px 8px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; } th { background: #f0f0f0; text-align: left; }
.figure { font-weight: bold; } .muted { color: #666; } .bound { background: #fff4d6; padding: 2px 6px; }
.maps figure { display: inline-block; width: 48%; margin: 4px 8px 4px 0; vertical-align: top; }
.maps img { width: 100%; image-rendering: pixelated; } .maps figcaption { font-size: 12px; color: #444; }
.legend span { display: inline-block; margin-right: 12px; } .legend i { display: inline-block; width: 11px; height: 11px; margin-right: 4px; }
)CSS";

// Draws the page from the two JSON blocks; marks <body data-rendered="ok"> only when it finished,
// and "error" with the message on any exception (the browser test reads both).
const char* const kScript = R"JS(
'use strict';
window.addEventListener('error', e => { document.body.dataset.rendered = 'error'; document.body.append('render error: ' + e.message); });
const report = JSON.parse(document.getElementById('report-json').textContent);
const heatmaps = JSON.parse(document.getElementById('heatmaps-json').textContent);
const schema = JSON.parse(document.getElementById('schema-json').textContent);
const advice = JSON.parse(document.getElementById('advice-json').textContent);
const CATEGORY_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f'];
const SVG = 'http://www.w3.org/2000/svg';

function group(n) { const s = String(Math.round(Math.abs(n))); return (n < 0 ? '-' : '') + s.replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
function bytes(n) { return group(n) + ' B'; }
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}
function table(header, rows) {
  const t = el('table', {}, el('tr', {}, ...header.map(h => el('th', {}, h))));
  for (const r of rows) t.append(el('tr', {}, ...r.map(c => typeof c === 'number' ? el('td', {class: 'n'}, group(c)) : el('td', {}, c))));
  return t;
}
function ledgerTotal(l) { return l.read_bytes + l.write_bytes; }

// Stacked horizontal bars, one per ledger (physical, nominal), one segment per DRAM category.
function dramBars(pass, scale) {
  const categories = schema.dram_categories;
  const width = 760, rowHeight = 22, label = 90;
  const s = svg('svg', {width: width + label + 170, height: 2 * rowHeight + 8, class: 'dram-bars'});
  [['physical', pass.dram], ['nominal', pass.dram_nominal]].forEach(([name, ledger], row) => {
    const y = 4 + row * rowHeight;
    s.append(svg('text', {x: 0, y: y + 15}, name));
    let x = label;
    categories.forEach((c, i) => {
      const t = ledger.by_category[c], w = (t.read_bytes + t.write_bytes) * scale;
      if (w <= 0) return;
      s.append(svg('rect', {x: x, y: y, width: Math.max(w, 0.5), height: rowHeight - 4, fill: CATEGORY_COLORS[i % 9]},
                   svg('title', {}, c + ': ' + bytes(t.read_bytes) + ' read, ' + bytes(t.write_bytes) + ' written')));
      x += w;
    });
    s.append(svg('text', {x: x + 6, y: y + 15}, bytes(ledgerTotal(ledger))));
  });
  return s;
}
function categoryLegend(categories) {
  return el('div', {class: 'legend'}, ...categories.map((c, i) => el('span', {}, el('i', {style: 'background:' + CATEGORY_COLORS[i % 9]}), c)));
}

// The phase that sets the pass's time and what bounds it: DRAM when the phase's DRAM time equals
// its duration (each phase is max(compute, DRAM time): models/README.md "Sources: time").
function boundBy(c) {
  const b = c.breakdown;
  if (c.fragment >= c.geometry) {
    if (c.fragment > 0 && b.fragment_dram >= c.fragment) return 'fragment phase, bound by DRAM';
    const items = ['load', 'triangle_setup', 'raster', 'alu', 'texture', 'tile_read', 'varying', 'dependency_stall', 'pixel', 'resolve', 'store', 'render_vertex'];
    const top = items.reduce((a, k) => (b[k] > b[a] ? k : a), items[0]);
    return 'fragment phase, bound by the cores (largest busy item: ' + top + ')';
  }
  if (b.geometry_dram >= c.geometry) return 'geometry phase, bound by DRAM';
  const items = ['vertex', 'primitive_setup', 'binning'];
  return 'geometry phase, bound by geometry work (largest: ' + items.reduce((a, k) => (b[k] > b[a] ? k : a), items[0]) + ')';
}
function cycleBars(c) {
  const entries = schema.cycle_breakdown.map(([k]) => [k, c.breakdown[k]]).filter(([, v]) => v > 0);
  const about = Object.fromEntries(schema.cycle_breakdown);
  const max = Math.max(1, ...entries.map(([, v]) => v)), width = 520, rowHeight = 16;
  const s = svg('svg', {width: width + 320, height: entries.length * rowHeight + 4, class: 'cycle-bars'});
  entries.forEach(([k, v], i) => {
    const y = 2 + i * rowHeight;
    s.append(svg('text', {x: 0, y: y + 12}, k, svg('title', {}, about[k])));
    s.append(svg('rect', {x: 130, y: y + 2, width: Math.max(0.5, v / max * width), height: rowHeight - 4, fill: '#4e79a7'}));
    s.append(svg('text', {x: 136 + v / max * width, y: y + 12}, group(v)));
  });
  return s;
}

// The frame's two queues (geometry, fragment) with every hardware pass placed by the scheduler.
function timeline(frame) {
  const width = 900, left = 80, rowHeight = 26;
  const end = Math.max(1, frame.frame_cycles, ...frame.passes.map(p => p.schedule.fragment_end));
  const s = svg('svg', {width: left + width + 20, height: 2 * rowHeight + 30, class: 'timeline'});
  ['geometry', 'fragment'].forEach((q, row) => s.append(svg('text', {x: 0, y: 18 + row * rowHeight}, q)));
  frame.passes.forEach((p, i) => {
    const spans = (p.hardware_passes && p.hardware_passes.length) ? p.hardware_passes.map(h => h.schedule) : [p.schedule];
    spans.forEach(sc => [['geometry', 0], ['fragment', 1]].forEach(([q, row]) => {
      const a = sc[q + '_start'], b = sc[q + '_end'];
      if (b <= a) return;
      s.append(svg('rect', {x: left + a / end * width, y: 4 + row * rowHeight, width: Math.max(1, (b - a) / end * width),
                            height: rowHeight - 6, fill: CATEGORY_COLORS[i % 9], stroke: '#fff'},
                   svg('title', {}, 'pass ' + i + ' ' + p.name + ', ' + q + ': cycles ' + group(a) + ' to ' + group(b))));
    }));
  });
  s.append(svg('text', {x: left, y: 2 * rowHeight + 22}, '0'));
  s.append(svg('text', {x: left + width - 120, y: 2 * rowHeight + 22}, group(end) + ' cycles'));
  return s;
}

function hardwarePassTable(p) {
  return table(['hardware pass', 'subpasses', 'tile', 'why this tile size', 'tiles', 'working set / tile', 'DRAM physical', 'DRAM nominal', 'direct'],
    p.hardware_passes.map((h, i) => [String(i), h.subpasses.join('-'), h.tile_size.join('x'), h.tile_reason, h.tiles,
                                     h.working_set_bytes_per_tile, ledgerTotal(h.dram), ledgerTotal(h.dram_nominal),
                                     h.direct ? 'yes: ' + h.direct_reason : 'no']));
}
function attachmentTable(p) {
  return table(['#', 'image', 'format', 'stored (physical)', 'stored (raw)', 'AFBC', 'TE kills', 'TE saved', 'loaded (physical)', 'loaded (raw)', 'empty tiles saved', 'pixels'],
    p.attachments.map(a => [String(a.attachment), a.image, a.format, a.store_bytes, a.store_raw_bytes,
                            a.compression === 'compressed' ? 'ratio ' + a.compression_ratio.toFixed(3) : a.compression,
                            a.te === 'checked' ? group(a.te_blocks_killed) + ' / ' + group(a.te_blocks) : a.te,
                            a.te_bytes_saved, a.load_bytes, a.load_raw_bytes, a.empty_tile_bytes_saved, a.pixels]));
}
function mapsOf(f, index) {
  const d = el('div', {class: 'maps'});
  for (const m of heatmaps.filter(m => m.frame === f && m.pass === index))
    d.append(el('figure', {}, el('img', {src: 'data:image/png;base64,' + m.png, alt: m.title, title: m.stem}),
                el('figcaption', {}, m.title + ' (' + m.stem + '.csv)')));
  return d;
}

function passSection(frame, f, p, index, scale) {
  const s = el('section', {class: 'pass', id: 'f' + f + '-p' + index});
  s.append(el('h3', {}, 'pass ' + index + ' "' + p.name + '" (' + p.type + ')' + (p.tile_size[0] ? ', tile ' + p.tile_size.join('x') : '')));
  s.append(el('p', {}, 'DRAM ', el('span', {class: 'figure'}, bytes(ledgerTotal(p.dram))), ' physical, ', bytes(ledgerTotal(p.dram_nominal)),
              ' nominal; span on the schedule ', group(p.cycles.total), ' cycles (geometry ', group(p.cycles.geometry), ', fragment ', group(p.cycles.fragment), ')'));
  s.append(el('p', {}, 'bound by: ', el('span', {class: 'bound'}, boundBy(p.cycles))));
  s.append(dramBars(p, scale));
  s.append(el('h3', {}, 'cycle breakdown (busy cycles, all cores)'), cycleBars(p.cycles));
  if (p.type === 'render') {
    s.append(el('h3', {}, 'merge: ' + (p.merge.merged ? 'merged' : 'not merged') + ' into ' + p.merge.hardware_passes + ' hardware pass' + (p.merge.hardware_passes === 1 ? '' : 'es')));
    if (p.merge.reasons.length) s.append(el('ul', {}, ...p.merge.reasons.map(r => el('li', {}, 'refused: ' + r))));
    s.append(hardwarePassTable(p));
    if (p.attachments.length) s.append(el('h3', {}, 'attachments'), attachmentTable(p));
  }
  s.append(mapsOf(f, index));
  return s;
}

function frameSection(frame, f) {
  const s = el('section', {class: 'frame', id: 'frame-' + f});
  const t = frame.totals;
  s.append(el('h2', {}, 'frame ' + f));
  s.append(el('p', {}, group(frame.frame_cycles) + ' cycles (' + frame.frame_ms.toFixed(3) + ' ms); DRAM ',
              el('span', {class: 'figure', id: 'frame-' + f + '-dram'}, bytes(ledgerTotal(t.dram))), ' physical (',
              bytes(t.dram.read_bytes), ' read, ', bytes(t.dram.write_bytes), ' written), ', bytes(ledgerTotal(t.dram_nominal)), ' nominal'));
  s.append(el('h3', {}, 'schedule'), timeline(frame));
  const scale = 760 / Math.max(1, ...frame.passes.map(p => Math.max(ledgerTotal(p.dram), ledgerTotal(p.dram_nominal))));
  s.append(categoryLegend(schema.dram_categories));
  frame.passes.forEach((p, i) => s.append(passSection(frame, f, p, i, scale)));
  return s;
}

// The present timeline (models/README.md "display"): per frame its GPU time (submit to ready) on
// one row, the vertical blanks as ticks and each shown frame's present as a mark on the display row.
function presentTimeline(present, frames) {
  const width = 900, left = 80, rowHeight = 26, period = 1000 / present.refresh_hz;
  const end = Math.max(period, present.span_ms);
  const x = ms => left + ms / end * width;
  const s = svg('svg', {width: left + width + 20, height: 2 * rowHeight + 30, class: 'present-timeline'});
  ['GPU', 'display'].forEach((q, row) => s.append(svg('text', {x: 0, y: 18 + row * rowHeight}, q)));
  for (let k = 0; k * period <= end; ++k)
    s.append(svg('line', {x1: x(k * period), x2: x(k * period), y1: rowHeight, y2: 2 * rowHeight, stroke: '#999'}));
  frames.forEach((fr, i) => {
    const t = fr.present;
    s.append(svg('rect', {x: x(t.submit_ms), y: 4, width: Math.max(1, x(t.ready_ms) - x(t.submit_ms)), height: rowHeight - 6,
                          fill: CATEGORY_COLORS[i % 9], stroke: '#fff'},
                 svg('title', {}, 'frame ' + i + ': submit ' + t.submit_ms.toFixed(3) + ' ms, ready ' + t.ready_ms.toFixed(3) + ' ms')));
    if (!t.shown) return;
    s.append(svg('rect', {x: x(t.present_ms) - 2, y: 4 + rowHeight, width: 4, height: rowHeight - 6, fill: CATEGORY_COLORS[i % 9]},
                 svg('title', {}, 'frame ' + i + ' on screen at ' + t.present_ms.toFixed(3) + ' ms, latency ' + t.latency_ms.toFixed(3) + ' ms')));
  });
  s.append(svg('text', {x: left, y: 2 * rowHeight + 22}, '0'));
  s.append(svg('text', {x: left + width - 120, y: 2 * rowHeight + 22}, end.toFixed(3) + ' ms'));
  return s;
}

function presentSection() {
  const p = report.totals.present, w = report.totals.power, ms = v => v === null ? 'never shown' : v.toFixed(3);
  const s = el('section', {class: 'present', id: 'present'});
  s.append(el('h2', {}, 'present: ' + p.mode + ' at ' + p.refresh_hz + ' Hz, ' + p.swapchain_images + ' swapchain images (' + p.images_from + ')'));
  s.append(presentTimeline(p, report.frames));
  s.append(table(['frame', 'GPU ms', 'submit ms', 'ready ms', 'on screen ms', 'latency ms'],
    report.frames.map((fr, i) => [String(i), fr.present.gpu_ms.toFixed(3), fr.present.submit_ms.toFixed(3), fr.present.ready_ms.toFixed(3),
                                  ms(fr.present.present_ms), ms(fr.present.latency_ms)])));
  s.append(el('p', {}, p.shown + ' shown, ' + p.dropped + ' dropped; latency mean ' + p.mean_latency_ms.toFixed(3) + ' ms, max ' +
              p.max_latency_ms.toFixed(3) + ' ms; present interval mean ' + p.mean_interval_ms.toFixed(3) + ' ms, jitter ',
              el('span', {class: 'figure', id: 'present-jitter'}, p.jitter_ms.toFixed(3) + ' ms'), ' (standard deviation), max ' + p.max_interval_ms.toFixed(3) + ' ms'));
  s.append(el('p', {}, 'power: ' + (w.energy_per_frame_joules * 1e3).toFixed(3) + ' mJ/frame x ' + w.frames_per_second.toFixed(1) + ' frames/s = ',
              el('span', {class: 'figure', id: 'power-watts'}, w.watts.toFixed(3) + ' W'), ', ' + (w.within_budget ? 'within' : 'over') +
              ' the sustained budget of ' + w.sustained_watts.toFixed(3) + ' W, which allows ' + w.budget_frames_per_second.toFixed(1) + ' frames/s'));
  return s;
}

// `tbdrsim advise`'s findings that save, largest first, each priced by simulating the fixed trace:
// its net change (after - before, minus: fewer), as the text report prints it.
function adviceSection() {
  const s = el('section', {class: 'advice', id: 'advice'});
  s.append(el('h2', {}, 'advisor findings (' + advice.findings.length + '), the last frame under ' + advice.preset));
  const plus = v => v > 0 ? '+' : '';
  s.append(table(['finding', 'problem', 'fix', 'verdict', 'net DRAM (physical)', '% of the frame', 'net cycles', 'note'],
    advice.findings.map(f => [f.id, f.problem, f.fix, f.verdict, f.net ? plus(f.net.dram.bytes) + f.net.dram.bytes.toLocaleString('en-US') + ' B' : '',
                              f.net ? plus(f.net.dram_fraction) + (100 * f.net.dram_fraction).toFixed(2) + ' %' : '',
                              f.net ? plus(f.net.cycles) + f.net.cycles.toLocaleString('en-US') : '', f.note || ''])));
  const left = advice.not_worth_it_counts;
  s.append(el('p', {}, (left.costs + left.no_change) + ' not worth it (' + left.costs + ' cost, ' + left.no_change +
                       ' change nothing): tbdrsim advise --all lists them'));
  return s;
}

function render() {
  const main = document.getElementById('main');
  main.append(el('h1', {}, 'tbdrsim report: ' + report.trace));
  main.append(el('p', {}, 'preset ', el('b', {}, report.preset), ', ' + report.frames.length + ' frame(s); run total DRAM ',
                  el('span', {class: 'figure', id: 'run-dram'}, bytes(ledgerTotal(report.totals.dram))), ' physical, ',
                  bytes(ledgerTotal(report.totals.dram_nominal)), ' nominal'));
  if (report.warnings.length) main.append(el('ul', {}, ...report.warnings.map(w => el('li', {}, 'warning: ' + w))));
  if (advice) main.append(adviceSection());
  main.append(presentSection());
  report.frames.forEach((frame, f) => main.append(frameSection(frame, f)));
  document.body.dataset.rendered = 'ok';
}
render();
)JS";

std::string base64(const std::vector<uint8_t>& data) {
  static const char* const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((data.size() + 2) / 3 * 4);
  for (size_t i = 0; i < data.size(); i += 3) {
    const uint32_t n = uint32_t(data[i]) << 16 | (i + 1 < data.size() ? uint32_t(data[i + 1]) << 8 : 0) |
                       (i + 2 < data.size() ? data[i + 2] : 0);
    out += alphabet[n >> 18 & 63];
    out += alphabet[n >> 12 & 63];
    out += i + 1 < data.size() ? alphabet[n >> 6 & 63] : '=';
    out += i + 2 < data.size() ? alphabet[n & 63] : '=';
  }
  return out;
}

// JSON inside <script>: every '<' escaped so no "</script>" or "<!--" can end the block early.
std::string script_json(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

nlohmann::json heatmaps_json(const std::vector<NamedHeatmap>& heatmaps) {
  nlohmann::json list = nlohmann::json::array();
  for (const NamedHeatmap& m : heatmaps)
    list.push_back({{"stem", m.stem},
                    {"frame", m.frame},
                    {"pass", m.pass},
                    {"title", m.grid.title},
                    {"png", base64(encode_png(heatmap_png(m.grid)))}});
  return list;
}

// The orders and meanings of sim/stats.h's lists (the report's JSON objects sort their keys).
nlohmann::json page_schema() {
  nlohmann::json breakdown = nlohmann::json::array();
#define TBDR_ITEM(name, description) breakdown.push_back(std::vector<nlohmann::json>{#name, description});
  TBDR_CYCLE_BREAKDOWN(TBDR_ITEM)
#undef TBDR_ITEM
  nlohmann::json categories = nlohmann::json::array();
  for (size_t c = 0; c < kDramCategoryCount; ++c) categories.push_back(dram_category_name(DramCategory(c)));
  return {{"cycle_breakdown", breakdown}, {"dram_categories", categories}};
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

// A sweep cell: whole numbers grouped, other numbers as JSON writes them, strings escaped.
std::string sweep_cell(const nlohmann::ordered_json& row, const std::string& column) {
  const auto it = row.find(column);
  if (it == row.end() || it->is_null()) return "";
  if (it->is_string()) return html_escape(it->get<std::string>());
  if (it->is_number_unsigned()) return grouped_digits(it->get<uint64_t>());
  return html_escape(it->dump());
}

uint64_t column_sum(const nlohmann::ordered_json& row, const char* a, const char* b) {
  const auto get = [&](const char* key) { return row.contains(key) && row[key].is_number_unsigned() ? row[key].get<uint64_t>() : 0; };
  return get(a) + get(b);
}

// The set.* columns whose value differs between configurations (the rest is the same everywhere).
std::vector<std::string> varied_columns(const std::vector<std::string>& set_columns,
                                        const std::vector<nlohmann::ordered_json>& rows) {
  std::vector<std::string> varied;
  for (const std::string& c : set_columns) {
    std::set<std::string> values;
    for (const nlohmann::ordered_json& row : rows)
      if (row.value("row", std::string()) == "total") values.insert(sweep_cell(row, c));
    if (values.size() > 1) varied.push_back(c);
  }
  return varied;
}

}  // namespace

std::string sweep_html(const std::vector<std::string>& all_set_columns, const std::vector<nlohmann::ordered_json>& rows) {
  const std::vector<std::string> set_columns = varied_columns(all_set_columns, rows);
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tbdrsim sweep</title>\n<style>";
  page += std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>tbdrsim sweep</h1>\n<table>\n<tr><th>trace</th><th>configuration</th>";
  for (const std::string& c : set_columns) page += "<th>" + html_escape(c) + "</th>";
  page += "<th>frame cycles</th><th>frame ms</th><th>DRAM bytes (physical)</th><th>DRAM bytes (nominal)</th><th>error</th></tr>\n";
  for (const nlohmann::ordered_json& row : rows) {
    if (row.value("row", std::string()) != "total") continue;
    page += "<tr><td>" + sweep_cell(row, "trace") + "</td><td class=\"n\">" + sweep_cell(row, "config_index") + "</td>";
    for (const std::string& c : set_columns) page += "<td>" + sweep_cell(row, c) + "</td>";
    page += "<td class=\"n\">" + sweep_cell(row, "frame_cycles") + "</td><td class=\"n\">" + sweep_cell(row, "frame_ms") + "</td>";
    const bool failed = !sweep_cell(row, "error").empty();
    for (const char* ledger : {"dram", "dram_nominal"}) {
      const std::string key = ledger;
      const uint64_t bytes = column_sum(row, (key + ".read_bytes").c_str(), (key + ".write_bytes").c_str());
      page += "<td class=\"n\">" + (failed ? std::string() : grouped_digits(bytes)) + "</td>";
    }
    page += "<td>" + sweep_cell(row, "error") + "</td></tr>\n";
  }
  return page + "</table>\n</body>\n</html>\n";
}

std::string html_bytes_text(uint64_t bytes) { return grouped_digits(bytes) + " B"; }

std::string html_report(const nlohmann::json& report, const std::vector<NamedHeatmap>& heatmaps,
                        const nlohmann::json& advice) {
  std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>tbdrsim report: ";
  page += html_escape(report.value("trace", std::string())) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n";
  page += "<div id=\"main\"></div>\n<script type=\"application/json\" id=\"report-json\">" + script_json(report) + "</script>\n";
  page += "<script type=\"application/json\" id=\"heatmaps-json\">" + script_json(heatmaps_json(heatmaps)) + "</script>\n";
  page += "<script type=\"application/json\" id=\"schema-json\">" + script_json(page_schema()) + "</script>\n";
  page += "<script type=\"application/json\" id=\"advice-json\">" + script_json(advice) + "</script>\n";
  page += "<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace tbdr
