// A sweep's summary page (report.html beside results.csv): one table row per (trace, configuration)
// with the parameters that vary and the figures formatted, columns sortable, a plot of a chosen
// figure against each varied parameter, and frame time against energy with its Pareto front.
#include <algorithm>
#include <cmath>
#include <optional>
#include <cstdio>
#include <set>
#include <string_view>
#include <unordered_map>

#include "tools/commands/heatmaps.h"
#include "tools/commands/html_page.h"
#include "tools/commands/html_report.h"

namespace tbdr {
namespace {

const char* const kSweepScript = R"JS(
const sweep = JSON.parse(document.getElementById('sweep-json').textContent);
const FIGURES = [['frame_ms', 'frame time (ms)'], ['frame_cycles', 'frame cycles'], ['dram', 'DRAM physical (B)'],
                 ['dram_nominal', 'DRAM nominal (B)'], ['energy_mj', 'energy per frame (mJ)']];
// Sorting the server-written table: a cell's number (commas dropped) or its text.
function sortable(t) {
  const cellValue = (tr, k) => { const s = tr.cells[k].textContent.replace(/,/g, ''); return s !== '' && !isNaN(Number(s)) ? Number(s) : tr.cells[k].textContent; };
  [...t.rows[0].cells].forEach((th, k) => th.addEventListener('click', () => {
    const ascending = th.getAttribute('aria-sort') === 'descending';
    for (const h of t.rows[0].cells) h.removeAttribute('aria-sort');
    th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
    const rows = [...t.rows].slice(1);
    rows.sort((a, b) => { const x = cellValue(a, k), y = cellValue(b, k);
      const d = typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)); return ascending ? d : -d; });
    for (const r of rows) r.parentNode.append(r);
  }));
  t.classList.add('sortable');
}
// One scatter plot: x numeric when every value is a number, else one slot per distinct value in order.
function scatter(points, xLabel, yLabel, front) {
  const w = 460, h = 280, left = 70, bottom = 40, top = 34;
  const numeric = points.every(p => typeof p.x === 'number');
  const slotName = x => x === null || x === undefined ? 'not set' : String(x);
  const slots = numeric ? null : [...new Set(points.map(p => slotName(p.x)))];
  const xs = points.map(p => numeric ? p.x : slots.indexOf(slotName(p.x))), ys = points.map(p => p.y);
  const x0 = Math.min(...xs), x1 = Math.max(...xs), y1 = Math.max(...ys, 0) || 1;
  const X = v => left + (x1 > x0 ? (v - x0) / (x1 - x0) : 0.5) * (w - left - 20), Y = v => h - bottom - v / y1 * (h - bottom - top);
  const s = svg('svg', {width: w, height: h, class: 'sweep-plot'});
  s.append(svg('line', {x1: left, x2: w - 10, y1: h - bottom, y2: h - bottom, stroke: '#888'}), svg('line', {x1: left, x2: left, y1: top - 6, y2: h - bottom, stroke: '#888'}));
  s.append(svg('text', {x: left, y: h - 6, 'font-size': 12}, xLabel), svg('text', {x: 4, y: 14, 'font-size': 12}, yLabel));
  s.append(svg('text', {x: 4, y: h - bottom, 'font-size': 11}, '0'), svg('text', {x: 4, y: top + 4, 'font-size': 11}, decimal(y1)));
  (numeric ? [x0, x1] : slots.map((v, i) => i)).forEach(v => s.append(svg('text', {x: X(v) - 8, y: h - bottom + 14, 'font-size': 11}, numeric ? decimal(v) : slots[v])));
  if (front) s.append(svg('polyline', {points: front.map(p => X(p.x) + ',' + Y(p.y)).join(' '), fill: 'none', stroke: '#c0392b', class: 'pareto'}));
  points.forEach((p, i) => s.append(svg('circle', {cx: X(xs[i]), cy: Y(p.y), r: 4, fill: front && front.includes(p) ? '#c0392b' : '#4e79a7'},
                                        svg('title', {}, p.label + ': ' + xLabel + ' ' + p.x + ', ' + yLabel + ' ' + decimal(p.y)))));
  return s;
}
// Configurations no other beats on both frame time and energy, by increasing frame time.
function paretoFront(points) {
  const sorted = [...points].sort((a, b) => a.x - b.x || a.y - b.y), front = [];
  for (const p of sorted) if (!front.length || p.y < front[front.length - 1].y) front.push(p);
  return front;
}
function render() {
  const main = document.getElementById('main'), rows = sweep.rows.filter(r => !r.error);
  sortable(document.getElementById('sweep-table'));
  const plots = el('section', {id: 'plots'}, el('h2', {}, 'figures against each varied parameter'));
  const pick = el('select', {id: 'figure'}, ...FIGURES.map(([k, label]) => el('option', {value: k}, label)));
  const area = el('div', {});
  const draw = () => { area.replaceChildren(...sweep.varied.map(c => scatter(rows.map(r => ({x: r.set[c], y: r[pick.value], label: 'configuration ' + r.config})),
                                                                                c, pick.selectedOptions[0].textContent))); };
  pick.addEventListener('change', draw);
  plots.append(el('p', {}, 'figure: ', pick), area);
  main.append(plots);
  draw();
  if (rows.length && rows.every(r => r.energy_mj !== null)) {
    const points = rows.map(r => ({x: r.frame_ms, y: r.energy_mj, label: 'configuration ' + r.config + ' (' + r.trace + ')'}));
    const front = paretoFront(points);
    main.append(el('section', {id: 'pareto'}, el('h2', {}, 'frame time against energy'),
                   el('p', {class: 'unit'}, 'red: the Pareto front, configurations no other beats on both (' + front.length + ' of ' + points.length + ')'),
                   scatter(points, 'frame time (ms)', 'energy per frame (mJ)', front)));
  }
  document.body.dataset.rendered = 'ok';
}
render();
)JS";

// A sweep cell: whole numbers grouped, other numbers as JSON writes them, strings escaped.
std::string cell_text(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return html::escape(v.get<std::string>());
  if (v.is_number_unsigned()) return grouped_digits(v.get<uint64_t>());
  // A parameter value given as 16 reads 16, not the 16.0 that a JSON double dumps as.
  if (v.is_number_float() && std::abs(v.get<double>()) < 1e15 && v.get<double>() == std::trunc(v.get<double>()))
    return std::to_string(int64_t(v.get<double>()));
  return html::escape(v.dump());
}

std::string sweep_cell(const nlohmann::ordered_json& row, const std::string& column) {
  const auto it = row.find(column);
  return it == row.end() ? std::string() : cell_text(*it);
}

// The folder every trace of the sweep lies in: the table names each trace from there (the whole
// path is the cell's tooltip), so one long absolute path does not push the figures off the page.
size_t common_folder_length(const std::vector<nlohmann::ordered_json>& rows) {
  std::optional<std::string> common;
  for (const nlohmann::ordered_json& row : rows) {
    const std::string trace = row.value("trace", std::string());
    const size_t slash = trace.rfind('/');
    const std::string folder = slash == std::string::npos ? std::string() : trace.substr(0, slash + 1);
    if (!common) {
      common = folder;
      continue;
    }
    common->resize(size_t(std::mismatch(common->begin(), common->end(), folder.begin(), folder.end()).first - common->begin()));
    const size_t last = common->rfind('/');
    common->resize(last == std::string::npos ? 0 : last + 1);
  }
  return common ? common->size() : 0;
}

std::string trace_cell(const nlohmann::ordered_json& row, size_t folder_length) {
  const std::string trace = row.value("trace", std::string());
  return "<td title=\"" + html::escape(trace) + "\">" + html::escape(trace.substr(std::min(folder_length, trace.size()))) + "</td>";
}

double number(const nlohmann::ordered_json& row, const std::string& key) {
  const auto it = row.find(key);
  return it != row.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// The set.* columns whose value differs between configurations (the rest is the same everywhere).
// The set.* columns whose (total rows') cells are not all the same, a missing cell counting as empty.
// One pass over each row's cells: looking every column up in every row (ordered_json searches its keys
// in turn) cost a 1,000-configuration sweep a fifth of its report.html.
std::vector<std::string> varied_columns(const std::vector<std::string>& set_columns,
                                        const std::vector<nlohmann::ordered_json>& rows) {
  std::unordered_map<std::string_view, size_t> position;
  for (size_t c = 0; c < set_columns.size(); ++c) position.emplace(set_columns[c], c);
  std::vector<std::optional<std::string>> first(set_columns.size());
  std::vector<char> differs(set_columns.size(), 0), present;
  const auto see = [&](size_t c, std::string text) {
    if (!first[c]) first[c] = std::move(text);
    else if (*first[c] != text) differs[c] = 1;
  };
  for (const nlohmann::ordered_json& row : rows) {
    if (row.value("row", std::string()) != "total") continue;
    present.assign(set_columns.size(), 0);
    for (const auto& [key, value] : row.items()) {
      const auto it = position.find(key);
      if (it == position.end() || present[it->second]) continue;
      present[it->second] = 1;
      see(it->second, cell_text(value));
    }
    for (size_t c = 0; c < set_columns.size(); ++c)
      if (!present[c]) see(c, "");
  }
  std::vector<std::string> varied;
  for (size_t c = 0; c < set_columns.size(); ++c)
    if (differs[c]) varied.push_back(set_columns[c]);
  return varied;
}

nlohmann::json plot_row(const nlohmann::ordered_json& row, const std::vector<std::string>& set_columns) {
  nlohmann::json r = {{"trace", row.value("trace", "")}, {"config", row.value("config_index", nlohmann::ordered_json(0)).dump()}};
  if (row.contains("error")) r["error"] = row["error"].dump();
  for (const std::string& c : set_columns) r["set"][c] = row.contains(c) ? nlohmann::json::parse(row[c].dump()) : nlohmann::json();
  r["frame_ms"] = number(row, "frame_ms");
  r["frame_cycles"] = number(row, "frame_cycles");
  r["dram"] = number(row, "dram.read_bytes") + number(row, "dram.write_bytes");
  r["dram_nominal"] = number(row, "dram_nominal.read_bytes") + number(row, "dram_nominal.write_bytes");
  r["energy_mj"] = row.contains("power.energy_per_frame_joules") ? nlohmann::json(number(row, "power.energy_per_frame_joules") * 1e3)
                                                                 : nlohmann::json();
  return r;
}

std::string table_row(const nlohmann::ordered_json& row, const std::vector<std::string>& set_columns, size_t folder_length) {
  const bool failed = row.contains("error");
  const auto figure = [&](const std::string& text) { return "<td class=\"n\">" + (failed ? std::string() : text) + "</td>"; };
  std::string html = "<tr>" + trace_cell(row, folder_length) + "<td class=\"n\">" + sweep_cell(row, "config_index") + "</td>";
  for (const std::string& c : set_columns) html += "<td>" + sweep_cell(row, c) + "</td>";
  html += figure(grouped_digits(uint64_t(std::llround(number(row, "frame_cycles"))))) + figure(fixed(number(row, "frame_ms"), 3));
  for (const std::string ledger : {"dram", "dram_nominal"})
    html += figure(grouped_digits(uint64_t(number(row, ledger + ".read_bytes") + number(row, ledger + ".write_bytes"))));
  html += figure(row.contains("power.energy_per_frame_joules") ? fixed(number(row, "power.energy_per_frame_joules") * 1e3, 3) : "");
  return html + "<td>" + sweep_cell(row, "error") + "</td></tr>\n";
}

}  // namespace

bool sweep_html_reads(const std::string& column) {
  // Every column the functions above read; the sweep passes a total row's other columns over.
  static const std::set<std::string> k_read = {"trace", "row", "config_index", "error", "frame_ms", "frame_cycles",
                                               "dram.read_bytes", "dram.write_bytes", "dram_nominal.read_bytes",
                                               "dram_nominal.write_bytes", "power.energy_per_frame_joules"};
  return column.rfind("set.", 0) == 0 || k_read.count(column) > 0;
}

std::string sweep_html(const std::vector<std::string>& all_set_columns, const std::vector<nlohmann::ordered_json>& rows) {
  const std::vector<std::string> set_columns = varied_columns(all_set_columns, rows);
  nlohmann::json data = {{"varied", set_columns}, {"rows", nlohmann::json::array()}};
  std::string table = "<h1>tbdrsim sweep</h1>\n<p class=\"unit\">one row per trace and configuration; click a column to sort; "
                      "B: bytes, mJ: millijoules per frame</p>\n<section style=\"overflow-x: auto\"><table id=\"sweep-table\">\n<tr><th>trace</th><th>configuration</th>";
  for (const std::string& c : set_columns) table += "<th>" + html::escape(c) + "</th>";
  table += "<th>frame cycles</th><th>frame ms</th><th>DRAM bytes (physical)</th><th>DRAM bytes (nominal)</th><th>energy (mJ)</th><th>error</th></tr>\n";
  const size_t folder_length = common_folder_length(rows);
  for (const nlohmann::ordered_json& row : rows) {
    if (row.value("row", std::string()) != "total") continue;
    table += table_row(row, set_columns, folder_length);
    data["rows"].push_back(plot_row(row, set_columns));
  }
  table += "</table></section>\n";
  std::string page = html::page("tbdrsim sweep", {{"sweep-json", data}}, kSweepScript);
  // The table is written by the program (readable without the script); the script sorts and plots.
  const std::string anchor = "<div id=\"main\"></div>\n";
  return page.replace(page.find(anchor), anchor.size(), table + anchor);
}

}  // namespace tbdr
