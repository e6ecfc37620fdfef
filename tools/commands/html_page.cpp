// The HTML pages' shared style sheet and script helpers, and the page frame that embeds JSON data.
#include "tools/commands/html_page.h"

namespace tbdr::html {

const char* const kPageStyle = R"CSS(
body { font: 14px/1.4 sans-serif; margin: 16px 24px; color: #1a1a1a; background: #fafafa; max-width: 1360px; }
h1 { font-size: 20px; } h2 { font-size: 17px; margin-top: 28px; } h3 { font-size: 15px; margin: 18px 0 6px; }
section { overflow-x: auto; }
details.pass { background: #fff; border: 1px solid #ddd; border-radius: 6px; padding: 4px 16px; margin: 8px 0; }
details.pass > summary { cursor: pointer; font-weight: bold; padding: 4px 0; }
details.pass[open] { padding-bottom: 12px; }
table { border-collapse: collapse; margin: 6px 0; } td, th { border: 1px solid #ddd; padding: 2px 8px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } th { background: #f0f0f0; text-align: left; }
table.sortable th { cursor: pointer; user-select: none; } table.sortable th[aria-sort]::after { content: ' \25BE'; }
table.sortable th[aria-sort="ascending"]::after { content: ' \25B4'; }
tr.link { cursor: pointer; } tr.link:hover { background: #eef4ff; }
.figure { font-weight: bold; } .muted { color: #666; } .bound { background: #fff4d6; padding: 2px 6px; }
.better { color: #1b7a30; } .worse { color: #b3261e; }
.unit { font-size: 12px; color: #444; margin: 2px 0 4px; }
.legend span { display: inline-block; margin-right: 12px; font-size: 12px; }
.legend i { display: inline-block; width: 11px; height: 11px; margin-right: 4px; vertical-align: -1px; border: 1px solid #0003; }
.maps figure { display: inline-block; margin: 6px 16px 6px 0; vertical-align: top; }
.maps canvas { image-rendering: pixelated; display: block; border: 1px solid #ccc; cursor: crosshair; }
.maps figcaption { font-size: 12px; color: #333; max-width: 520px; }
.ramp { display: flex; align-items: center; gap: 6px; font-size: 12px; margin-top: 3px; }
.ramp b { display: inline-block; width: 200px; height: 10px; }
output.readout { display: block; font-size: 12px; min-height: 1.4em; font-variant-numeric: tabular-nums; }
)CSS";

const char* const kPageHelpers = R"JS(
'use strict';
window.addEventListener('error', e => { document.body.dataset.rendered = 'error'; document.body.append('render error: ' + e.message); });
const SVG = 'http://www.w3.org/2000/svg';
// Tableau 10: one colour per DRAM category (ten categories, ten colours: none shared).
const CATEGORY_COLORS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
// Passes: light tints stepped by the golden angle, never one of the saturated category colours.
function passColor(i) { return 'hsl(' + Math.round(i * 137.508 % 360) + ', 38%, 80%)'; }

function group(n) { const s = String(Math.round(Math.abs(n))); return (n < 0 && Math.round(n) !== 0 ? '-' : '') + s.replace(/\B(?=(\d{3})+(?!\d))/g, ','); }
function bytes(n) { return group(n) + ' B'; }
function mb(n) { return (n / 1e6).toFixed(2) + ' MB'; }
function percent(part, whole) { return whole > 0 ? (100 * part / whole).toFixed(1) + ' %' : '-'; }
function signed(text, v) { return (v > 0 ? '+' : '') + text; }
// Figures that are not whole: up to three decimals, grouped.
function decimal(v) { return Number.isInteger(v) ? group(v) : v.toLocaleString('en-US', {maximumFractionDigits: 3}); }
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined) e.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}
function ledgerTotal(l) { return l.read_bytes + l.write_bytes; }
// A JSON report's figure shown on the page: `paths` ('frames/0/totals/dram/read_bytes', ...) name
// the fields it sums; the browser test checks data-value against the report's own numbers.
function figure(text, value, paths, tag) {
  return el(tag || 'span', {class: 'figure', 'data-json': paths.join('+'), 'data-value': String(value)}, text);
}
function ledgerPaths(prefix) { return [prefix + '/read_bytes', prefix + '/write_bytes']; }

// A table whose header sorts it: `columns` [{label, title}], `rows` [{cells: [cell...], attrs}] where
// a cell is a string, a number (grouped, right-aligned) or {text, value, json, node}; `value` sorts.
function sortableTable(columns, rows, attrs) {
  const head = el('tr', {}, ...columns.map(c => el('th', {title: c.title}, c.label)));
  const body = el('tbody');
  for (const r of rows) {
    const tr = el('tr', r.attrs || {});
    for (const c of r.cells) {
      if (typeof c === 'number') tr.append(el('td', {class: 'n', 'data-value': String(c)}, group(c)));
      else if (typeof c === 'string') tr.append(el('td', {'data-value': c}, c));
      else {
        const td = el('td', {class: typeof c.value === 'number' ? 'n' : undefined, 'data-value': String(c.value)}, c.node || c.text);
        if (c.json) { td.classList.add('figure-cell'); td.dataset.json = c.json.join('+'); }
        tr.append(td);
      }
    }
    body.append(tr);
  }
  const t = el('table', Object.assign({class: 'sortable'}, attrs || {}), el('thead', {}, head), body);
  head.querySelectorAll('th').forEach((th, k) => th.addEventListener('click', () => sortBy(t, k)));
  return t;
}
function sortBy(t, k) {
  const th = t.tHead.rows[0].cells[k];
  const ascending = th.getAttribute('aria-sort') === 'descending';
  for (const h of t.tHead.rows[0].cells) h.removeAttribute('aria-sort');
  th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
  const key = tr => tr.cells[k].dataset.value;
  const rows = [...t.tBodies[0].rows];
  const numeric = rows.every(tr => key(tr) !== '' && !isNaN(Number(key(tr))));
  rows.sort((a, b) => {
    const d = numeric ? Number(key(a)) - Number(key(b)) : key(a).localeCompare(key(b));
    return ascending ? d : -d;
  });
  for (const tr of rows) t.tBodies[0].append(tr);
}
function plainTable(header, rows) {
  const t = el('table', {}, el('tr', {}, ...header.map(h => el('th', {}, h))));
  for (const r of rows) t.append(el('tr', {}, ...r.map(c => typeof c === 'number' ? el('td', {class: 'n'}, group(c)) : el('td', {}, c))));
  return t;
}
function swatchLegend(items) {
  return el('div', {class: 'legend'}, ...items.map(([label, color]) => el('span', {}, el('i', {style: 'background:' + color}), label)));
}
)JS";

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
  return out;
}

std::string script_json(const nlohmann::json& value) {
  const std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) out += c == '<' ? std::string("\\u003c") : std::string(1, c);
  return out;
}

std::string page(const std::string& title, const std::vector<std::pair<std::string, nlohmann::json>>& data,
                 const std::string& script) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + escape(title) +
                    "</title>\n<style>" + kPageStyle + "</style>\n</head>\n<body>\n<div id=\"main\"></div>\n";
  for (const auto& [id, value] : data)
    out += "<script type=\"application/json\" id=\"" + id + "\">" + script_json(value) + "</script>\n";
  out += "<script>" + std::string(kPageHelpers) + script + "</script>\n</body>\n</html>\n";
  return out;
}

}  // namespace tbdr::html
