// The rule of `tbdrsim advise` on vertex layouts: a mesh whose vertex buffer interleaves positions
// with the other attributes, split into a position stream. Sources: models/README.md "Sources: advise rules".
#include "tools/commands/advise.h"
#include "tools/commands/advise_trace_json.h"

namespace tbdr::advise {
namespace {

using namespace trace_json;

// Bytes a vertex of mesh `m` holds, per traces/README.md's `vertex` ledger rule: position 12 B (16 B
// with 4 components), color 16 B, uv 8 B, normal 12 B.
int vertex_bytes(const json& m) {
  return 4 * m.value("position_components", 3) + (m.contains("colors") ? 16 : 0) + (m.contains("uvs") ? 8 : 0) +
         (m.contains("normals") ? 12 : 0);
}

// The first draw of a render pass that draws mesh `name` (frame -1: none).
Subject first_draw_of(const json& trace, const std::string& name) {
  Subject where;
  for_each_render_subpass(trace, [&](PassRef r, const json& pass, int s, const json& sub) {
    if (where.frame >= 0) return;
    const json& draws = sub.value("draws", json::array());
    for (int d = 0; d < int(draws.size()); ++d) {
      if (str(draws[d], "mesh", "") != name) continue;
      where.frame = r.frame;
      where.pass = r.pass;
      where.pass_name = str(pass, "name", "");
      where.subpass = s;
      where.draw = d;
      const std::string draw_name = str(draws[d], "name", "");
      if (draw_name.rfind("event_", 0) == 0) where.event = draw_name.substr(6);
      return;
    }
  });
  return where;
}

}  // namespace

// Meshes drawn in a render pass whose one vertex buffer interleaves positions with colors, uvs or
// normals: a tiler's position-only pass fetches whole vertices. Adreno's binning pass runs the vertex
// shader stripped to positions (Qualcomm, "Adreno OpenGL ES Developer Guide" and the Snapdragon game
// developer guide: keep positions in a stream of their own so binning reads them alone); Arm, "Mali
// GPU Best Practices", index-driven vertex shading: "use a dedicated vertex buffer for position data".
// Priced by simulation: only `geometry=binning_pass` (adreno-a740) fetches positions alone, in binned
// passes, so other presets see no change and the advisor does not list it (models/README.md "geometry").
std::vector<Finding> split_positions(const RuleInput& in) {
  std::vector<Finding> out;
  const json& meshes = in.trace.value("meshes", json::array());
  for (size_t i = 0; i < meshes.size(); ++i) {
    const json& m = meshes[i];
    const int stride = vertex_bytes(m), positions = 4 * m.value("position_components", 3);
    if (!m.value("interleaved", false) || stride == positions) continue;  // positions alone: nothing to split
    const std::string name = str(m, "name", "");
    Finding f;
    f.where = first_draw_of(in.trace, name);
    if (f.where.frame < 0) continue;
    f.rule = "split-positions";
    f.id = "split-positions:" + name;
    f.problem = "mesh " + name + " interleaves its attributes in one vertex buffer (" + std::to_string(stride) +
                " B a vertex): a position-only binning pass fetches whole vertices where its positions are " +
                std::to_string(positions) + " B";
    f.fix = "interleaved: false (positions in a vertex buffer of their own, the other attributes in a second)";
    f.edit.push_back(replace_op("/meshes/" + std::to_string(i) + "/interleaved", false));
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tbdr::advise
