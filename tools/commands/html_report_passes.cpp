// The run report page's script, second half: the frame's schedule, each pass's details (DRAM bars,
// cycle bars as shares of the pass's phases, merge, attachments), heatmaps drawn from the per-tile
// grids, and the present timeline.
#include "tools/commands/html_page.h"

namespace tbdr::html {

const char* const kReportPassesScript = R"JS(
// Stacked horizontal bars, one per ledger (physical, nominal), one segment per DRAM category; one
// scale for every pass of the frame so bars compare across passes.
function dramBars(p, scale) {
  const width = 640, rowHeight = 22, label = 70;
  const s = svg('svg', {width: width + label + 170, height: 2 * rowHeight + 8, class: 'dram-bars'});
  [['physical', p.dram], ['nominal', p.dram_nominal]].forEach(([name, ledger], row) => {
    const y = 4 + row * rowHeight;
    s.append(svg('text', {x: 0, y: y + 15}, name));
    let x = label;
    schema.dram_categories.forEach((c, i) => {
      const t = ledger.by_category[c], w = (t.read_bytes + t.write_bytes) * scale;
      if (w <= 0) return;
      s.append(svg('rect', {x: x, y: y, width: Math.max(w, 0.5), height: rowHeight - 4, fill: CATEGORY_COLORS[i], 'data-category': c},
                   svg('title', {}, c + ': ' + bytes(t.read_bytes) + ' read, ' + bytes(t.write_bytes) + ' written')));
      x += w;
    });
    s.append(svg('text', {x: x + 6, y: y + 15}, bytes(ledgerTotal(ledger))));
  });
  return s;
}
function categoryLegend(ledgers) {
  const used = schema.dram_categories.map((c, i) => [c, CATEGORY_COLORS[i]])
    .filter(([c]) => ledgers.some(l => ledgerTotal(l.by_category[c]) > 0));
  return swatchLegend(used);
}

// Each unit's busy cycles as a share of its phase's span on the schedule: fragment units per core
// (their busy cycles sum over the cores), DRAM and the geometry units as they are. A phase lasts
// max(compute, DRAM time) (models/README.md "Sources: time"), so what bounds it reaches 100 %.
function cycleRows(c) {
  const b = c.breakdown, rows = [];
  if (c.geometry > 0) {
    for (const k of GEOMETRY_UNITS) rows.push(['geometry', k, b[k], c.geometry]);
    rows.push(['geometry', 'geometry_dram', b.geometry_dram, c.geometry]);
  }
  if (c.fragment > 0) {
    for (const k of PER_CORE_UNITS) rows.push(['fragment', k, b[k] / cores, c.fragment]);
    rows.push(['fragment', 'render_vertex', b.render_vertex, c.fragment]);
    rows.push(['fragment', 'fragment_dram', b.fragment_dram, c.fragment]);
  }
  return rows.filter(r => r[2] > 0);
}
function cycleBars(c) {
  const rows = cycleRows(c), about = Object.fromEntries(schema.cycle_breakdown);
  const width = 420, rowHeight = 16, label = 210;
  // The longest bar of each phase in red.
  const longest = new Set(['geometry', 'fragment'].map(q => rows.reduce((a, r, i) => r[0] === q && (a < 0 || r[2] / r[3] > rows[a][2] / rows[a][3]) ? i : a, -1)));
  const s = svg('svg', {width: label + width + 230, height: rows.length * rowHeight + 4, class: 'cycle-bars'});
  rows.forEach(([phase, k, v, span], i) => {
    const y = 2 + i * rowHeight, share = v / span;
    s.append(svg('text', {x: 0, y: y + 12}, phase + ': ' + k, svg('title', {}, about[k])));
    s.append(svg('rect', {x: label, y: y + 2, width: Math.max(0.5, share * width), height: rowHeight - 4,
                          fill: longest.has(i) ? '#c0392b' : '#7f8c9a', 'data-item': k, 'data-phase': phase, 'data-share': String(share)}));
    s.append(svg('text', {x: label + 6 + Math.min(1, share) * width, y: y + 12}, group(v) + ' cycles' +
                 (PER_CORE_UNITS.includes(k) && cores > 1 ? ' per core' : '') + ' (' + (100 * share).toFixed(1) + ' %)'));
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
      const x = left + a / end * width, w = Math.max(1, (b - a) / end * width);
      s.append(svg('rect', {x: x, y: 4 + row * rowHeight, width: w, height: rowHeight - 6, fill: passColor(i), stroke: '#555', 'stroke-width': 0.5},
                   svg('title', {}, 'pass ' + i + ' ' + p.name + ', ' + q + ': cycles ' + group(a) + ' to ' + group(b))));
      if (w > 14) s.append(svg('text', {x: x + 2, y: 17 + row * rowHeight, 'font-size': 10}, String(i)));
    }));
  });
  const ms = frame.frame_ms / Math.max(1, frame.frame_cycles) * end;
  s.append(svg('text', {x: left, y: 2 * rowHeight + 22}, '0'));
  s.append(svg('text', {x: left + width - 220, y: 2 * rowHeight + 22}, group(end) + ' cycles = ' + ms.toFixed(3) + ' ms'));
  return s;
}

function hardwarePassTable(p) {
  return plainTable(['hardware pass', 'subpasses', 'tile', 'why this tile size', 'tiles', 'working set / tile (B)', 'DRAM physical', 'DRAM nominal', 'direct'],
    p.hardware_passes.map((h, i) => [String(i), h.subpasses.join('-'), h.tile_size.join('x'), h.tile_reason, h.tiles,
                                     h.working_set_bytes_per_tile, bytes(ledgerTotal(h.dram)), bytes(ledgerTotal(h.dram_nominal)),
                                     h.direct ? 'yes: ' + h.direct_reason : 'no']));
}
function attachmentTable(p) {
  return plainTable(['#', 'image', 'format', 'stored (physical, B)', 'stored (raw, B)', 'AFBC', 'TE kills', 'TE saved (B)', 'loaded (physical, B)', 'loaded (raw, B)', 'empty tiles saved (B)', 'pixels'],
    p.attachments.map(a => [String(a.attachment), a.image, a.format, a.store_bytes, a.store_raw_bytes,
                            a.compression === 'compressed' ? 'ratio ' + a.compression_ratio.toFixed(3) : a.compression,
                            a.te === 'checked' ? group(a.te_blocks_killed) + ' / ' + group(a.te_blocks) : a.te,
                            a.te_bytes_saved, a.load_bytes, a.load_raw_bytes, a.empty_tile_bytes_saved, a.pixels]));
}

// A heatmap from its grid (run-length coded: value, count, value, count... row-major, top row first)
// on a canvas, one canvas pixel per cell, viridis from the minimum to the maximum; hovering a cell
// shows its coordinates and value. An all-zero map is one line.
function decodeRuns(m) {
  const values = new Float64Array(m.width * m.height);
  for (let i = 0, at = 0; i < m.runs.length; i += 2) { values.fill(m.runs[i], at, at + m.runs[i + 1]); at += m.runs[i + 1]; }
  return values;
}
function heatmapFigure(m) {
  if (m.min === 0 && m.max === 0)
    return el('p', {class: 'muted zero-map', 'data-stem': m.stem}, m.title + ': every ' + m.cell + ' is 0 ' + m.unit + ' (map not drawn; ' + m.stem + '.csv)');
  const values = decodeRuns(m);
  const scale = Math.max(1, Math.min(8, Math.floor(520 / Math.max(m.width, m.height))));
  const fit = Math.min(1, 520 / (m.width * scale), 520 / (m.height * scale));
  const canvas = el('canvas', {width: m.width, height: m.height, 'data-stem': m.stem,
                               style: 'width:' + Math.round(m.width * scale * fit) + 'px;height:' + Math.round(m.height * scale * fit) + 'px'});
  const image = canvas.getContext('2d').createImageData(m.width, m.height), span = m.max > m.min ? m.max - m.min : 1;
  values.forEach((v, i) => {
    const c = schema.viridis[Math.min(255, Math.max(0, Math.round((v - m.min) / span * 255)))];
    image.data.set([c[0], c[1], c[2], 255], 4 * i);
  });
  canvas.getContext('2d').putImageData(image, 0, 0);
  const readout = el('output', {class: 'readout'}, 'hover a ' + m.cell + ' for its value');
  canvas.addEventListener('mousemove', e => {
    const r = canvas.getBoundingClientRect();
    const x = Math.min(m.width - 1, Math.floor((e.clientX - r.left) / r.width * m.width));
    const y = Math.min(m.height - 1, Math.floor((e.clientY - r.top) / r.height * m.height));
    readout.textContent = m.cell + ' (' + x + ', ' + y + '): ' + decimal(values[y * m.width + x]) + ' ' + m.unit;
  });
  const ramp = 'linear-gradient(to right,' + [0, 64, 128, 192, 255].map(k => 'rgb(' + schema.viridis[k].join(',') + ')').join(',') + ')';
  return el('figure', {'data-stem': m.stem}, el('figcaption', {}, m.title + ' (' + m.width + ' x ' + m.height + ' ' + m.cell + 's; ' + m.stem + '.csv)'), canvas,
            el('div', {class: 'ramp'}, el('span', {}, decimal(m.min) + ' ' + m.unit), el('b', {style: 'background:' + ramp}),
               el('span', {}, decimal(m.max) + ' ' + m.unit)), readout);
}
function mapsOf(f, index) {
  const d = el('div', {class: 'maps'});
  for (const m of heatmaps.filter(m => m.frame === f && m.pass === index)) d.append(heatmapFigure(m));
  return d;
}

function passBody(frame, f, p, index, scale) {
  const at = 'frames/' + f + '/passes/' + index;
  const s = el('div', {});
  s.append(el('p', {}, 'DRAM ', figure(bytes(ledgerTotal(p.dram)), ledgerTotal(p.dram), ledgerPaths(at + '/dram')), ' physical, ', bytes(ledgerTotal(p.dram_nominal)),
              ' nominal; span on the schedule ', figure(group(p.cycles.total), p.cycles.total, [at + '/cycles/total']), ' cycles (geometry ',
              group(p.cycles.geometry), ', fragment ', group(p.cycles.fragment), '); energy ' + (p.energy.total_joules * 1e3).toFixed(3) + ' mJ'));
  s.append(el('p', {}, 'bound by: ', el('span', {class: 'bound pass-bound'}, boundBy(p))));
  s.append(el('h3', {}, 'DRAM by category'), el('p', {class: 'unit'}, 'bytes read + written; one scale for every pass of the frame; hover a segment for its figures'));
  s.append(dramBars(p, scale), categoryLegend([p.dram, p.dram_nominal]));
  s.append(el('h3', {}, 'where the time goes'), el('p', {class: 'unit'}, 'each unit\'s busy cycles as a share of its phase on the schedule (geometry ' +
              group(p.cycles.geometry) + ', fragment ' + group(p.cycles.fragment) + ' cycles); fragment units per core (' + cores +
              ' core(s)); blend is part of pixel; red: the longest of each phase; what bounds a phase reaches 100 %'), cycleBars(p.cycles));
  if (p.type === 'render') {
    s.append(el('h3', {}, 'merge: ' + (p.merge.merged ? 'merged' : 'not merged') + ' into ' + p.merge.hardware_passes + ' hardware pass' + (p.merge.hardware_passes === 1 ? '' : 'es')));
    if (p.merge.reasons.length) s.append(el('ul', {}, ...p.merge.reasons.map(r => el('li', {}, 'refused: ' + r))));
    s.append(hardwarePassTable(p));
    if (p.attachments.length) s.append(el('h3', {}, 'attachments'), attachmentTable(p));
  }
  s.append(mapsOf(f, index));
  return s;
}
// Collapsed by default; its body (heatmaps included) is built the first time it opens.
function passSection(frame, f, p, index, scale) {
  const d = el('details', {class: 'pass', id: 'f' + f + '-p' + index});
  d.append(el('summary', {}, el('i', {style: 'display:inline-block;width:11px;height:11px;margin-right:6px;background:' + passColor(index)}),
              'pass ' + index + ' "' + p.name + '" (' + p.type + ')' + (p.tile_size[0] ? ', tile ' + p.tile_size.join('x') : '') + ': ' +
              group(passCost(p)) + ' cycles, ' + bytes(ledgerTotal(p.dram))));
  d.addEventListener('toggle', () => { if (d.open && d.children.length === 1) d.append(passBody(frame, f, p, index, scale)); });
  return d;
}

function frameSection(frame, f) {
  const s = el('section', {class: 'frame', id: 'frame-' + f});
  const t = frame.totals;
  s.append(el('h2', {}, 'frame ' + f + ': schedule and passes'));
  s.append(el('p', {}, group(frame.frame_cycles) + ' cycles (' + frame.frame_ms.toFixed(3) + ' ms); DRAM ',
              el('span', {class: 'figure', id: 'frame-' + f + '-dram'}, bytes(ledgerTotal(t.dram))), ' physical (',
              bytes(t.dram.read_bytes), ' read, ', bytes(t.dram.write_bytes), ' written), ', bytes(ledgerTotal(t.dram_nominal)), ' nominal'));
  s.append(el('p', {class: 'unit'}, 'the scheduler\'s two queues in cycles; one colour per pass (numbered); hover a block for its cycles'));
  s.append(timeline(frame), swatchLegend(frame.passes.map((p, i) => [i + ' ' + p.name, passColor(i)])));
  const scale = 640 / Math.max(1, ...frame.passes.map(p => Math.max(ledgerTotal(p.dram), ledgerTotal(p.dram_nominal))));
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
                          fill: passColor(i), stroke: '#555', 'stroke-width': 0.5},
                 svg('title', {}, 'frame ' + i + ': submit ' + t.submit_ms.toFixed(3) + ' ms, ready ' + t.ready_ms.toFixed(3) + ' ms')));
    if (!t.shown) return;
    s.append(svg('rect', {x: x(t.present_ms) - 2, y: 4 + rowHeight, width: 4, height: rowHeight - 6, fill: '#333'},
                 svg('title', {}, 'frame ' + i + ' on screen at ' + t.present_ms.toFixed(3) + ' ms, latency ' + t.latency_ms.toFixed(3) + ' ms')));
  });
  s.append(svg('text', {x: left, y: 2 * rowHeight + 22}, '0'));
  s.append(svg('text', {x: left + width - 120, y: 2 * rowHeight + 22}, end.toFixed(3) + ' ms'));
  return s;
}

function presentSection() {
  const p = report.totals.present, ms = v => v === null ? 'never shown' : v.toFixed(3);
  const s = el('details', {class: 'present', id: 'present'});
  s.append(el('summary', {}, 'present: ' + p.mode + ' at ' + p.refresh_hz + ' Hz, ' + p.swapchain_images + ' swapchain images (' + p.images_from +
              '); latency mean ' + p.mean_latency_ms.toFixed(3) + ' ms, jitter ', el('span', {class: 'figure', id: 'present-jitter'}, p.jitter_ms.toFixed(3) + ' ms')));
  s.append(el('p', {class: 'unit'}, 'milliseconds from the first submission; ticks: vertical blanks; dark marks: a frame reaching the screen'));
  s.append(presentTimeline(p, report.frames));
  s.append(plainTable(['frame', 'GPU ms', 'submit ms', 'ready ms', 'on screen ms', 'latency ms'],
    report.frames.map((fr, i) => [String(i), fr.present.gpu_ms.toFixed(3), fr.present.submit_ms.toFixed(3), fr.present.ready_ms.toFixed(3),
                                  ms(fr.present.present_ms), ms(fr.present.latency_ms)])));
  s.append(el('p', {}, p.shown + ' shown, ' + p.dropped + ' dropped; latency max ' + p.max_latency_ms.toFixed(3) +
              ' ms; present interval mean ' + p.mean_interval_ms.toFixed(3) + ' ms (jitter: its standard deviation), max ' + p.max_interval_ms.toFixed(3) + ' ms'));
  return s;
}
)JS";

}  // namespace tbdr::html
