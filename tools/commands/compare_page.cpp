// The comparison page (`compare --html`, `run --vs ... --vs-html`): the comparison JSON embedded and
// drawn as a frame summary, DRAM by category and a sortable per-pass table; B's changes coloured
// green where B takes fewer cycles, bytes or joules, red where it takes more.
#include "tools/commands/compare.h"
#include "tools/commands/html_page.h"

namespace tbdr {
namespace {

const char* const kCompareScript = R"JS(
const comparison = JSON.parse(document.getElementById('comparison-json').textContent);
// B - A with its percent of A, coloured: lower is better for every figure compared here.
function deltaCell(d, format) {
  const pct = d.a ? ' (' + signed((100 * d.delta / d.a).toFixed(1), d.delta) + ' %)' : '';
  return {node: el('span', {class: d.delta < 0 ? 'better' : d.delta > 0 ? 'worse' : ''}, signed(format(d.delta), d.delta) + pct), value: d.delta};
}
function figureCells(d, format) { return [{text: format(d.a), value: d.a}, {text: format(d.b), value: d.b}, deltaCell(d, format)]; }
const mj = v => (v * 1e3).toFixed(3) + ' mJ', ms = v => v.toFixed(3) + ' ms';
function frameSection(f) {
  const s = el('section', {class: 'frame', id: 'frame-' + f.index}, el('h2', {}, 'frame ' + f.index));
  s.append(sortableTable(['figure', 'A', 'B', 'B - A'].map(label => ({label})), [
    {cells: ['frame time', ...figureCells(f.frame_ms, ms)]}, {cells: ['cycles', ...figureCells(f.frame_cycles, group)]},
    {cells: ['DRAM physical', ...figureCells(f.dram, bytes)]}, {cells: ['DRAM nominal', ...figureCells(f.dram_nominal, bytes)]},
    {cells: ['energy', ...figureCells(f.energy_joules, mj)]}], {id: 'frame-table-' + f.index}));
  s.append(el('h3', {}, 'DRAM by category (physical bytes)'));
  s.append(sortableTable(['category', 'A', 'B', 'B - A'].map(label => ({label})),
    Object.entries(f.by_category).map(([c, d]) => ({cells: [c, ...figureCells(d, bytes)]}))));
  s.append(el('h3', {}, 'passes'), el('p', {class: 'unit'}, 'cycles on the pass\'s longer queue; click a column to sort'));
  const longer = (p, side) => Math.max(p.cycles.geometry[side], p.cycles.fragment[side]);
  s.append(sortableTable(['#', 'pass', 'cycles A', 'cycles B', 'B - A', 'DRAM A', 'DRAM B', 'B - A', 'energy B - A', 'tile A -> B', 'merge A -> B',
                          'stored (after savers) B - A', 'TE saved B - A'].map(label => ({label})),
    f.passes.map(p => p.only_in ? {cells: [{text: String(p.index), value: p.index}, p.name, 'only in ' + p.only_in]} : {attrs: {'data-pass': p.index}, cells: [
      {text: String(p.index), value: p.index}, p.name + (p.name_b ? ' / ' + p.name_b : ''),
      ...figureCells({a: longer(p, 'a'), b: longer(p, 'b'), delta: longer(p, 'b') - longer(p, 'a')}, group),
      ...figureCells(p.dram, bytes), deltaCell(p.energy_joules, mj),
      p.tile_size.a === p.tile_size.b ? p.tile_size.a : p.tile_size.a + ' -> ' + p.tile_size.b,
      p.merge.a === null ? '-' : p.merge.a === p.merge.b ? p.merge.a : p.merge.a + ' -> ' + p.merge.b,
      deltaCell(p.savers.store_bytes, bytes), {text: signed(bytes(p.savers.te_bytes_saved.delta), p.savers.te_bytes_saved.delta), value: p.savers.te_bytes_saved.delta}]}), {id: 'passes-table-' + f.index}));
  return s;
}
function render() {
  const main = document.getElementById('main');
  main.append(el('h1', {}, 'tbdrsim comparison: ' + comparison.a.label + ' vs ' + comparison.b.label));
  main.append(el('p', {}, 'A: ', el('b', {}, comparison.a.label), ' (' + comparison.a.trace + ', preset ' + comparison.a.preset + ')'),
              el('p', {}, 'B: ', el('b', {}, comparison.b.label), ' (' + comparison.b.trace + ', preset ' + comparison.b.preset + ')'),
              el('p', {class: 'unit'}, 'B - A in green where B takes less (cycles, bytes, joules), red where it takes more'));
  comparison.frames.forEach(f => main.append(frameSection(f)));
  document.body.dataset.rendered = 'ok';
}
render();
)JS";

}  // namespace

std::string comparison_html(const nlohmann::json& comparison) {
  return html::page("tbdrsim comparison: " + comparison["a"]["label"].get<std::string>() + " vs " +
                        comparison["b"]["label"].get<std::string>(),
                    {{"comparison-json", comparison}}, kCompareScript);
}

}  // namespace tbdr
