// The run report page's script: draws the summary, the pass ranking, the advisor's findings, the top
// draws, the schedule and each pass (collapsed) from the report JSON embedded in the page.
#include "tools/commands/html_page.h"

namespace tbdr::html {

const char* const kReportScript = R"JS(
const report = JSON.parse(document.getElementById('report-json').textContent);
const heatmaps = JSON.parse(document.getElementById('heatmaps-json').textContent);
const schema = JSON.parse(document.getElementById('schema-json').textContent);
const advice = JSON.parse(document.getElementById('advice-json').textContent);
const cores = report.config.cores.params.count;
const GEOMETRY_UNITS = ['vertex', 'primitive_setup', 'binning'];
const PER_CORE_UNITS = ['load', 'triangle_setup', 'raster', 'alu', 'texture', 'tile_read', 'varying', 'dependency_stall', 'pixel', 'blend', 'resolve', 'store'];

// What limits a pass, worded as the text report's "bound by:" line (tools/commands/report.cpp bound_by):
// its longer phase, DRAM when the phase's transfer time reaches it (each phase is max(compute, DRAM),
// models/README.md "Sources: time"), else the busiest unit of the phase.
function busiestUnit(b, fragment) {
  const about = Object.fromEntries(schema.cycle_breakdown);
  let most = -1, text = '';
  for (const [name] of schema.cycle_breakdown) {
    if (['geometry_dram', 'fragment_dram', 'blend'].includes(name) || GEOMETRY_UNITS.includes(name) === fragment) continue;
    if (b[name] > most) { most = b[name]; text = about[name] + ' (' + name + ' ' + group(b[name]) + ' busy cycles)'; }
  }
  return text;
}
function boundBy(p) {
  const c = p.cycles, b = c.breakdown;
  if (c.geometry <= 0 && c.fragment <= 0) return 'nothing (no cycles)';
  const fragment = c.fragment >= c.geometry;
  const phase = fragment ? c.fragment : c.geometry, dram = fragment ? b.fragment_dram : b.geometry_dram;
  const where = fragment ? 'fragment phase' : 'geometry phase';
  if (dram >= phase || p.type !== 'render') return 'DRAM bandwidth in the ' + where + ' (' + group(dram) + ' cycles of transfers)';
  return 'the ' + where + "'s " + busiestUnit(b, fragment) + '; DRAM ' + group(dram) + ' of ' + group(phase) + ' cycles';
}
// A pass's cost: its time on its longer queue (the scheduler runs geometry and fragment work on two queues).
function passCost(p) { return Math.max(p.cycles.geometry, p.cycles.fragment); }
function passLink(f, i, p) { return el('a', {href: '#f' + f + '-p' + i}, 'pass ' + i + ' "' + p.name + '"'); }

// The frame ends when its last fragment work does; what bounds it is read from its largest pass:
// that pass's longer phase and what bounds the phase, with how busy each queue was.
function frameBound(frame) {
  if (!frame.passes.length) return 'no passes';
  const busy = q => percent(frame.passes.reduce((s, p) => s + p.cycles[q], 0), frame.frame_cycles);
  const top = frame.passes.reduce((a, p, i) => passCost(p) > passCost(frame.passes[a]) ? i : a, 0), p = frame.passes[top];
  const phase = p.cycles.fragment >= p.cycles.geometry ? 'fragment' : 'geometry';
  return 'pass ' + top + ' "' + p.name + '", its ' + phase + ' phase ' + percent(passCost(p), frame.frame_cycles) + ' of the frame, bound by ' +
         boundBy(p) + ' (queues busy: geometry ' + busy('geometry') + ', fragment ' + busy('fragment') + ')';
}

function summarySection() {
  const power = report.totals.power, fps = power.frames_per_second;
  const s = el('section', {id: 'summary'}, el('h2', {}, 'summary'));
  s.append(sortableTable([{label: 'frame'}, {label: 'frame time (ms)'}, {label: 'cycles'}, {label: 'DRAM per frame (physical)'},
                          {label: 'MB/s at ' + fps.toFixed(1) + ' frames/s', title: 'physical bytes per frame x the frame rate of the present timeline'},
                          {label: 'energy per frame (mJ)'}, {label: 'what bounds the frame'}],
    report.frames.map((fr, f) => ({cells: [String(f),
      {node: figure(fr.frame_ms.toFixed(3), fr.frame_ms, ['frames/' + f + '/frame_ms']), value: fr.frame_ms},
      {node: figure(group(fr.frame_cycles), fr.frame_cycles, ['frames/' + f + '/frame_cycles']), value: fr.frame_cycles},
      {node: figure(bytes(ledgerTotal(fr.totals.dram)), ledgerTotal(fr.totals.dram), ledgerPaths('frames/' + f + '/totals/dram')), value: ledgerTotal(fr.totals.dram)},
      {text: (ledgerTotal(fr.totals.dram) * fps / 1e6).toFixed(1), value: ledgerTotal(fr.totals.dram) * fps},
      {node: figure((fr.totals.energy.total_joules * 1e3).toFixed(3), fr.totals.energy.total_joules, ['frames/' + f + '/totals/energy/total_joules']), value: fr.totals.energy.total_joules},
      {text: frameBound(fr), value: frameBound(fr), node: el('span', {class: 'bound frame-bound'}, frameBound(fr))}]})), {id: 'summary-table'}));
  s.append(el('p', {}, 'power: ' + (power.energy_per_frame_joules * 1e3).toFixed(3) + ' mJ/frame x ' + fps.toFixed(1) + ' frames/s = ',
              figure(power.watts.toFixed(3) + ' W', power.watts, ['totals/power/watts']), ', ' + (power.within_budget ? 'within' : 'over') +
              ' the sustained budget of ' + power.sustained_watts.toFixed(3) + ' W, which allows ' + power.budget_frames_per_second.toFixed(1) +
              ' frames/s. Run total DRAM ', figure(bytes(ledgerTotal(report.totals.dram)), ledgerTotal(report.totals.dram), ledgerPaths('totals/dram')),
              ' physical, ' + bytes(ledgerTotal(report.totals.dram_nominal)) + ' nominal (before compression and the savers). MB = 10^6 B.'));
  return s;
}

function openPass(id) {
  const d = document.getElementById(id);
  if (!d) return;
  d.open = true;
  d.scrollIntoView();
}

// Every pass of a frame ranked by its time on its longer queue; clicking a row opens the pass.
function rankingSection(frame, f) {
  const s = el('section', {class: 'ranking', id: 'ranking-' + f}, el('h2', {}, 'passes of frame ' + f + ' ranked by cost'));
  s.append(el('p', {class: 'unit'}, 'cost: cycles on the pass\'s longer queue (geometry or fragment); share: of the frame\'s ' +
              group(frame.frame_cycles) + ' cycles. Click a column to sort, a row to open the pass.'));
  const order = frame.passes.map((p, i) => i).sort((a, b) => passCost(frame.passes[b]) - passCost(frame.passes[a]));
  const at = i => 'frames/' + f + '/passes/' + i;
  const table = sortableTable(['#', 'pass', 'type', 'cost (cycles)', 'share of frame', 'geometry cycles', 'fragment cycles',
                               'DRAM physical', 'DRAM nominal', 'energy (mJ)', 'tile', 'bound by'].map(label => ({label})),
    order.map(i => { const p = frame.passes[i]; return {attrs: {class: 'link', 'data-pass': 'f' + f + '-p' + i}, cells: [
      {text: String(i), value: i}, p.name, p.type, {text: group(passCost(p)), value: passCost(p)},
      {text: percent(passCost(p), frame.frame_cycles), value: passCost(p) / Math.max(1, frame.frame_cycles)},
      {text: group(p.cycles.geometry), value: p.cycles.geometry, json: [at(i) + '/cycles/geometry']},
      {text: group(p.cycles.fragment), value: p.cycles.fragment, json: [at(i) + '/cycles/fragment']},
      {text: bytes(ledgerTotal(p.dram)), value: ledgerTotal(p.dram), json: ledgerPaths(at(i) + '/dram')},
      {text: bytes(ledgerTotal(p.dram_nominal)), value: ledgerTotal(p.dram_nominal), json: ledgerPaths(at(i) + '/dram_nominal')},
      {text: (p.energy.total_joules * 1e3).toFixed(3), value: p.energy.total_joules, json: [at(i) + '/energy/total_joules']},
      p.tile_size[0] ? p.tile_size.join('x') : '-', boundBy(p)]}; }), {id: 'ranking-table-' + f});
  table.addEventListener('click', e => { const tr = e.target.closest('tr.link'); if (tr) openPass(tr.dataset.pass); });
  s.append(table);
  return s;
}

// The frame's draws ranked by fragment cycles (tools/doc/reports.md "Per-draw costs"), the first kTopDraws.
function topDrawsSection(frame, f) {
  const draws = [];
  frame.passes.forEach((p, i) => (p.draw_costs || []).forEach((d, k) => draws.push({p, i, d, k})));
  const s = el('section', {class: 'top-draws', id: 'top-draws-' + f}, el('h2', {}, 'top draws of frame ' + f));
  if (!draws.length) return s.append(el('p', {class: 'muted'}, 'no per-draw costs in this report')), s;
  draws.sort((a, b) => b.d.cycles.fragment - a.d.cycles.fragment);
  s.append(el('p', {class: 'unit'}, 'the ' + Math.min(10, draws.length) + ' of ' + draws.length +
              ' draws with the most fragment cycles (busy cycles, all cores); DRAM: the bytes attributed to the draw'));
  s.append(sortableTable(['pass', 'subpass', 'draw', 'name', 'fragment cycles', 'share of the pass\'s fragments', 'fragments', 'shaded', 'killed', 'DRAM bytes']
                         .map(label => ({label})),
    draws.slice(0, 10).map(({p, i, d, k}) => { const at = 'frames/' + f + '/passes/' + i + '/draw_costs/' + k; return {cells: [
      {node: passLink(f, i, p), value: i}, {text: String(d.subpass), value: d.subpass}, {text: String(d.index), value: d.index},
      d.event ? 'event ' + d.event : d.name, {text: group(d.cycles.fragment), value: d.cycles.fragment, json: [at + '/cycles/fragment']},
      {text: (100 * d.fragment_share).toFixed(1) + ' %', value: d.fragment_share}, {text: group(d.fragments), value: d.fragments, json: [at + '/fragments']},
      d.fragments_shaded, d.fragments_killed, {text: bytes(d.dram_bytes), value: d.dram_bytes, json: [at + '/dram_bytes']}]}; }),
    {id: 'top-draws-table-' + f}));
  s.querySelectorAll('a').forEach(a => a.addEventListener('click', () => openPass(a.getAttribute('href').slice(1))));
  return s;
}

// `tbdrsim advise`'s findings that save, largest first, each priced by simulating the fixed trace:
// its net change (after - before, minus: fewer), as the text report prints it.
function adviceSection() {
  const s = el('section', {class: 'advice', id: 'advice'});
  s.append(el('h2', {}, 'advisor findings (' + advice.findings.length + '), the last frame under ' + advice.preset));
  s.append(plainTable(['finding', 'problem', 'fix', 'verdict', 'net DRAM (physical)', '% of the frame', 'net cycles', 'note'],
    advice.findings.map(f => [f.id, f.problem, f.fix, f.verdict, f.net ? signed(f.net.dram.bytes.toLocaleString('en-US') + ' B', f.net.dram.bytes) : '',
                              f.net ? signed((100 * f.net.dram_fraction).toFixed(2) + ' %', f.net.dram_fraction) : '',
                              f.net ? signed(f.net.cycles.toLocaleString('en-US'), f.net.cycles) : '', f.note || ''])));
  const left = advice.not_worth_it_counts;
  s.append(el('p', {}, (left.costs + left.no_change) + ' not worth it (' + left.costs + ' cost, ' + left.no_change +
                       ' change nothing): tbdrsim advise --all lists them'));
  return s;
}

function render() {
  const main = document.getElementById('main');
  main.append(el('h1', {}, 'tbdrsim report: ' + report.trace));
  main.append(el('p', {}, 'preset ', el('b', {}, report.preset), ', ' + report.frames.length + ' frame(s), ' + cores + ' shader core(s) at ' +
                  report.config.cores.params.clock_mhz + ' MHz'));
  if (report.warnings.length) main.append(el('ul', {}, ...report.warnings.map(w => el('li', {}, 'warning: ' + w))));
  if (report.notes) main.append(el('ul', {}, ...report.notes.map(n => el('li', {}, 'note: ' + n))));
  main.append(summarySection());
  report.frames.forEach((frame, f) => main.append(rankingSection(frame, f)));
  if (advice) main.append(adviceSection());
  report.frames.forEach((frame, f) => main.append(topDrawsSection(frame, f)));
  report.frames.forEach((frame, f) => main.append(frameSection(frame, f)));
  main.append(presentSection());
  window.addEventListener('hashchange', () => openPass(location.hash.slice(1)));
  if (location.hash) openPass(location.hash.slice(1));
  document.body.dataset.rendered = 'ok';
}
)JS";

}  // namespace tbdr::html
