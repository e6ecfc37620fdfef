// The rules of `tbdrsim advise` on draws: full-screen draws and copy passes, composited layers,
// draw order and blending under the preset's HSR, tile-budget and parameter-buffer figures, the depth
// that keeps subpasses apart. Sources: models/README.md "Sources: advise rules".
#include <algorithm>
#include <array>
#include <functional>
#include <set>

#include "tools/commands/advise.h"
#include "tools/commands/advise_trace_json.h"

namespace tbdr::advise {
namespace {

using namespace trace_json;

// ---- full-screen draws ---------------------------------------------------------------------------

// The clip-space triangles of a draw's mesh, as (x, y, z, w) corners in draw order: from the trace
// as read (sidecar data, any topology, indices) when the rule input has it, else from inline
// non-indexed triangle lists. Empty where unknown or not clip-space.
std::vector<std::array<Vec4, 3>> clip_triangles(const RuleInput& in, const json& draw) {
  std::vector<std::array<Vec4, 3>> out;
  if (!draw.contains("transform") || !draw["transform"].value("clip_space", false)) return out;
  const std::string name = str(draw, "mesh", "");
  if (in.parsed) {
    for (const Mesh& m : in.parsed->meshes) {
      if (m.name != name || m.position_components != 4) continue;
      const size_t n = m.indices.empty() ? m.positions.size() : m.indices.size();
      auto corner = [&](size_t i) { return m.positions[m.indices.empty() ? i : m.indices[i]]; };
      const bool strip = m.topology == Topology::triangle_strip;
      if (!strip && m.topology != Topology::triangle_list) return out;
      // Vulkan "Triangle Strips": triangle i has vertices i, i + (1 + i % 2), i + (2 - i % 2).
      for (size_t t = 0; t + 2 < n; t += strip ? 1 : 3) {
        const size_t odd = strip ? t % 2 : 0;
        out.push_back({corner(t), corner(t + 1 + odd), corner(t + 2 - odd)});
      }
      return out;
    }
    return out;
  }
  for (const json& m : in.trace.value("meshes", json::array())) {
    if (str(m, "name", "") != name || !m["positions"].is_array() || m.contains("indices") ||
        str(m, "topology", "triangle_list") != "triangle_list" || m.value("position_components", 3) != 4)
      continue;
    const json& p = m["positions"];
    for (size_t t = 0; t + 12 <= p.size(); t += 12) {
      std::array<Vec4, 3> tri;
      for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 4; ++c) tri[k][c] = p[t + 4 * k + c].get<float>();
      out.push_back(tri);
    }
  }
  return out;
}

// The pixels a pass touches: its render area, else the size of its first attachment's image.
bool pass_extent(const json& trace, const json& pass, double rect[4]) {
  if (pass.contains("render_area")) {
    const json& r = pass["render_area"];
    rect[0] = r.value("x", 0), rect[1] = r.value("y", 0);
    rect[2] = rect[0] + r.value("width", 0), rect[3] = rect[1] + r.value("height", 0);
    return true;
  }
  const json& atts = pass.value("attachments", json::array());
  const json* image = atts.empty() ? nullptr : find_image(trace, str(atts[0], "image", ""));
  if (!image) return false;
  rect[0] = rect[1] = 0, rect[2] = image->value("width", 0), rect[3] = image->value("height", 0);
  return true;
}

// Whether `inner` (x0, y0, x1, y1) lies inside the draw's viewport and scissor (absent: unbounded).
bool inside_viewport_and_scissor(const json& draw, const double inner[4]) {
  for (const char* key : {"viewport", "scissor"}) {
    if (!draw.contains(key)) continue;
    const json& v = draw[key];
    const double x = v.value("x", 0.0), y = v.value("y", 0.0);
    if (inner[0] < x || inner[1] < y || inner[2] > x + v.value("width", 0.0) || inner[3] > y + v.value("height", 0.0))
      return false;
  }
  return true;
}

}  // namespace

// Whether a clip-space draw covers every pixel centre of the pass's area with a triangle that
// survives culling. Framebuffer coordinates and facing as the Vulkan specification's "Coordinate
// Transformations" and "Basic Polygon Rasterization" define them (y down; a > 0 counter-clockwise).
// Sampled at every pixel centre, for draws of a few triangles (full-screen quads).
bool covers_screen(const RuleInput& in, const json& pass, const json& draw) {
  constexpr size_t kMaxTriangles = 16;
  double area[4];
  const std::vector<std::array<Vec4, 3>> tris = clip_triangles(in, draw);
  if (tris.empty() || tris.size() > kMaxTriangles || !pass_extent(in.trace, pass, area) || area[2] <= area[0] ||
      area[3] <= area[1] || !inside_viewport_and_scissor(draw, area))
    return false;
  double vp[4] = {area[0], area[1], area[2] - area[0], area[3] - area[1]};
  if (draw.contains("viewport"))
    for (int i = 0; const char* k : {"x", "y", "width", "height"}) vp[i++] = draw["viewport"].value(k, 0.0);
  const json state = draw.value("state", json::object());
  const std::string cull = str(state, "cull", "none");
  const bool ccw_front = str(state, "front_face", "counter_clockwise") == "counter_clockwise";
  std::vector<std::array<double, 6>> kept;  // framebuffer x, y of each surviving triangle
  for (const auto& t : tris) {
    std::array<double, 6> f;
    for (int k = 0; k < 3; ++k) {
      if (!(t[k][3] > 0)) return false;  // clipped geometry: not worth following
      f[2 * k] = vp[0] + (t[k][0] / t[k][3] + 1) * 0.5 * vp[2];
      f[2 * k + 1] = vp[1] + (t[k][1] / t[k][3] + 1) * 0.5 * vp[3];
    }
    double a = 0;
    for (int i = 0; i < 3; ++i) a -= f[2 * i] * f[2 * ((i + 1) % 3) + 1] - f[2 * ((i + 1) % 3)] * f[2 * i + 1];
    const bool front = (a > 0) == ccw_front;
    if (a == 0 || cull == "front_and_back" || (cull == "back" && !front) || (cull == "front" && front)) continue;
    kept.push_back(f);
  }
  auto inside = [&](const std::array<double, 6>& f, double x, double y) {
    auto edge = [&](int p, int q) {
      return (f[2 * q] - f[2 * p]) * (y - f[2 * p + 1]) - (f[2 * q + 1] - f[2 * p + 1]) * (x - f[2 * p]);
    };
    const double e0 = edge(0, 1), e1 = edge(1, 2), e2 = edge(2, 0);
    return (e0 >= 0 && e1 >= 0 && e2 >= 0) || (e0 <= 0 && e1 <= 0 && e2 <= 0);
  };
  for (double y = area[1] + 0.5; y < area[3]; ++y)
    for (double x = area[0] + 0.5; x < area[2]; ++x)
      if (std::none_of(kept.begin(), kept.end(), [&](const auto& f) { return inside(f, x, y); })) return false;
  return true;
}

namespace {

// Whether the first draw of subpass `s` writes every pixel of color attachment `a` unconditionally:
// full screen, no blending, full write mask, no depth, stencil or discard test, no clear or input before.
bool overwrites_first(const RuleInput& in, const json& pass, const json& sub, int a) {
  const json& color = sub.value("color", json::array());
  int slot = -1;
  for (int c = 0; c < int(color.size()); ++c)
    if (color[c] == a) slot = c;
  if (slot < 0 || sub.contains("clears") || sub.value("draws", json::array()).empty()) return false;
  for (const json& i : sub.value("input", json::array()))
    if (i == a) return false;
  const json& d = sub["draws"][0];
  const json state = d.value("state", json::object());
  if (state.value("depth_test", false) || state.value("stencil_test", false) || state.value("discard", false)) return false;
  if (state.contains("blend") && slot < int(state["blend"].size())) {
    const json& b = state["blend"][slot];
    if (b.value("enable", false) || str(b, "write_mask", "rgba") != "rgba") return false;
  }
  return covers_screen(in, pass, d);
}

}  // namespace

// LOAD of a color attachment whose first draw overwrites every pixel before anything reads it.
std::vector<Finding> load_overwritten(const RuleInput& in) {
  std::vector<Finding> out;
  for (PassRef r : pass_sequence(in.trace)) {
    const json& pass = pass_at(in.trace, r);
    if (type_of(pass) != "render") continue;
    for (int a = 0; a < int(pass.value("attachments", json::array()).size()); ++a) {
      const json& att = pass["attachments"][a];
      const int s = first_use(pass, a);
      if (s < 0 || str(att, "load", "dont_care") != "load" || !overwrites_first(in, pass, pass["subpasses"][s], a)) continue;
      Finding f = at_attachment("load-dont-care", in.trace, r, a);
      f.where.subpass = s;
      f.where.draw = 0;
      f.problem = "LOAD of " + f.where.image + ", which the first draw of subpass " + std::to_string(s) + " overwrites everywhere";
      f.fix = "load: dont_care";
      f.edit.push_back(replace_op(pointer(r) + "/attachments/" + std::to_string(a) + "/load", "dont_care"));
      out.push_back(std::move(f));
    }
  }
  return out;
}

namespace {

// A render pass of one subpass, one color attachment and one full-screen draw of `program`.
const json* fullscreen_program(const RuleInput& in, const json& pass, const std::string& program) {
  if (type_of(pass) != "render" || pass.contains("render_area") || pass["attachments"].size() != 1 ||
      pass["subpasses"].size() != 1)
    return nullptr;
  const json& sub = pass["subpasses"][0];
  if (sub.value("draws", json::array()).size() != 1 || sub.contains("clears") || sub.contains("input")) return nullptr;
  const json& d = sub["draws"][0];
  const bool plain = !d.contains("state") || d["state"].is_null() || !d["state"].contains("blend");
  if (!plain || !d.contains("program") || str(d["program"], "name", "") != program || !covers_screen(in, pass, d)) return nullptr;
  return &d;
}

// Every reference to image `from` in the passes after `k` in its frame renamed `to` (one op each).
void rename_after(Finding& f, const json& trace, const std::vector<PassRef>& seq, size_t k, const std::string& from,
                  const std::string& to) {
  std::function<void(const json&, const std::string&)> walk = [&](const json& v, const std::string& path) {
    if (v.is_object()) {
      for (const auto& [key, child] : v.items()) {
        if (key == "image" && child == from) f.edit.push_back(replace_op(path + "/image", to));
        else walk(child, path + "/" + key);
      }
    } else if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) walk(v[i], path + "/" + std::to_string(i));
    }
  };
  for (size_t j = k + 1; j < seq.size() && seq[j].frame == seq[k].frame; ++j) walk(pass_at(trace, seq[j]), pointer(seq[j]));
}

// The only render pass before `k` in the frame that stores `image` as its one color attachment.
int only_writer(const json& trace, const std::vector<PassRef>& seq, size_t k, const std::string& image) {
  int a = -1;
  const int j = storing_pass(trace, seq, k, image, a);
  if (j < 0) return -1;
  const json& pass = pass_at(trace, seq[j]);
  int s = -1, slot = -1;
  return color_slot(pass, a, s, slot) && pass["subpasses"].size() == 1 && pass["subpasses"][0]["color"].size() == 1 ? j : -1;
}

}  // namespace

// A layer cleared to transparent black, drawn with blending, then composited "over" a base by a
// full-screen pass: draw the layer's draws straight into the base (the bandwidth-bill article's #1).
std::vector<Finding> composite_layer(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  for (size_t k = 0; k < seq.size(); ++k) {
    const json& kp = pass_at(in.trace, seq[k]);
    const json* d = fullscreen_program(in, kp, "composite");
    if (!d || !d->contains("program") || !(*d)["program"].contains("bindings")) continue;
    const json& b = (*d)["program"]["bindings"];
    if (!b.contains("base") || !b.contains("over")) continue;
    const std::string base = str(b["base"], "image", ""), layer = str(b["over"], "image", "");
    const std::string target = str(kp["attachments"][0], "image", "");
    int a = -1;
    const int j = storing_pass(in.trace, seq, k, layer, a);
    if (j < 0 || base.empty() || layer.empty()) continue;
    const json& att = pass_at(in.trace, seq[j])["attachments"][a];
    if (str(att, "load", "dont_care") != "clear" || att.value("clear", json::array({0, 0, 0, 0})) != json::array({0, 0, 0, 0}) ||
        next_access(in.trace, seq, k, layer) == Access::read || referenced_elsewhere(in.trace, seq, str(kp, "name", ""), layer, str(pass_at(in.trace, seq[j]), "name", "")))
      continue;
    Finding f = at_attachment("composite-layer", in.trace, seq[j], a);
    f.id += "+" + str(kp, "name", "");
    f.problem = "layer " + layer + " is cleared, blended into and composited over " + base + " by pass " + str(kp, "name", "");
    f.fix = "blend the draws straight into " + base + " (load: load); pass " + str(kp, "name", "") +
            " becomes an empty barrier, later passes read " + base + " instead of " + target;
    const std::string path = pointer(seq[j]) + "/attachments/" + std::to_string(a);
    f.edit.push_back(set_op(path, "image", base));
    f.edit.push_back(set_op(path, "load", "load"));
    const std::string layout = last_layout(in.trace, seq, size_t(j), base);
    if (!layout.empty()) f.edit.push_back(set_op(path, "old_layout", layout));
    f.edit.push_back(to_barrier(seq[k], kp));
    rename_after(f, in.trace, seq, k, target, base);
    f.changes_images = true;
    f.note = "the layer's blend equations now apply to the base directly (straight instead of premultiplied over)";
    out.push_back(std::move(f));
  }
  return out;
}

// A full-screen 1:1 `copy` pass whose source only its producer writes: the producer renders into the
// copy's target instead (the bandwidth-bill article's #3, FXAA into the final target).
std::vector<Finding> copy_pass(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  for (size_t k = 0; k < seq.size(); ++k) {
    const json& kp = pass_at(in.trace, seq[k]);
    const json* d = fullscreen_program(in, kp, "copy");
    if (!d || !(*d)["program"].contains("bindings") || !(*d)["program"]["bindings"].contains("source") ||
        (*d)["program"].contains("params"))
      continue;
    const json& src_ref = (*d)["program"]["bindings"]["source"];
    const std::string src = str(src_ref, "image", ""), dst = str(kp["attachments"][0], "image", "");
    const json *si = find_image(in.trace, src), *di = find_image(in.trace, dst);
    const int j = only_writer(in.trace, seq, k, src);
    if (j < 0 || !si || !di || src_ref.value("mip", 0) != 0 || (*si)["width"] != (*di)["width"] ||
        (*si)["height"] != (*di)["height"] || si->value("samples", 1) != 1 || di->value("samples", 1) != 1 ||
        next_access(in.trace, seq, k, src) == Access::read ||
        referenced_elsewhere(in.trace, seq, str(kp, "name", ""), src, str(pass_at(in.trace, seq[j]), "name", "")))
      continue;
    Finding f = at_attachment("copy-pass", in.trace, seq[j], 0);
    f.id += "+" + str(kp, "name", "");
    f.problem = "pass " + str(kp, "name", "") + " only copies " + src + " into " + dst;
    f.fix = f.where.pass_name + " renders into " + dst + "; pass " + str(kp, "name", "") + " becomes an empty barrier";
    const std::string path = pointer(seq[j]) + "/attachments/0";
    json att = pass_at(in.trace, seq[j])["attachments"][0];
    att["image"] = dst;
    for (const char* key : {"store", "new_layout"})
      if (kp["attachments"][0].contains(key)) att[key] = kp["attachments"][0][key]; else att.erase(key);
    f.edit.push_back(replace_op(path, att));
    f.edit.push_back(to_barrier(seq[k], kp));
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// The simulated figures of pass `r`, null where the run has none (find_all without a run).
const PassStats* pass_stats(const RuleInput& in, PassRef r) {
  if (size_t(r.frame) >= in.stats.frames.size() || size_t(r.pass) >= in.stats.frames[r.frame].passes.size()) return nullptr;
  return &in.stats.frames[r.frame].passes[r.pass];
}

// The render passes of the trace with their simulated figures.
std::vector<std::pair<PassRef, const PassStats*>> simulated_render_passes(const RuleInput& in) {
  std::vector<std::pair<PassRef, const PassStats*>> out;
  for (PassRef r : pass_sequence(in.trace))
    if (const PassStats* ps = pass_stats(in, r); ps && type_of(pass_at(in.trace, r)) == "render") out.emplace_back(r, ps);
  return out;
}

}  // namespace

// Parameter-buffer flushes in the simulated report: the pass's geometry overflowed the preset's
// capacity. No edit keeps the image (fewer primitives: LOD, culling; or a larger buffer): reported
// with what the flushes cost, unpriced.
std::vector<Finding> param_buffer_flushes(const RuleInput& in) {
  std::vector<Finding> out;
  for (PassRef r : pass_sequence(in.trace)) {
    const PassStats* ps = pass_stats(in, r);
    if (!ps) continue;
    const PassCounters& c = ps->counters;
    if (!c.param_buffer_flushes) continue;
    Finding f = at_attachment("param-buffer-flush", in.trace, r, -1);
    f.problem = "the parameter buffer flushed " + std::to_string(c.param_buffer_flushes) + " times (geometry over the preset's capacity)";
    f.fix = "no automatic edit: fewer primitives in this pass (LOD, culling, splitting) or a larger parameter buffer";
    f.note = "the flushes store " + std::to_string(c.param_buffer_flush_store_bytes) + " B and reload " +
             std::to_string(c.param_buffer_flush_load_bytes) + " B in frame " + std::to_string(r.frame);
    out.push_back(std::move(f));
  }
  return out;
}

// A G-buffer over the tile budget (the tiling model shrank the tile: its reason says "exceeds budget"):
// transient RGBA16F color attachments -> RGB10A2 (32 bit/px), priced with the tiles it avoids.
std::vector<Finding> narrow_gbuffer(const RuleInput& in) {
  std::vector<Finding> out;
  for (const auto& [r, ps] : simulated_render_passes(in)) {
    const json& pass = pass_at(in.trace, r);
    bool over = false;
    for (const HardwarePassStats& h : ps->hardware_passes)
      over |= h.tile_reason.find("exceeds budget") != std::string::npos;
    if (!over) continue;
    Finding f = at_attachment("narrow-gbuffer", in.trace, r, -1);
    std::string images;
    for (const json& att : pass["attachments"]) {
      const std::string image = str(att, "image", "");
      const json* desc = find_image(in.trace, image);
      if (!desc || str(*desc, "format", "") != "RGBA16F" || !desc->value("transient", false) ||
          images.find(" " + image + ",") != std::string::npos)
        continue;
      images += " " + image + ",";
      f.edit.push_back(replace_op("/images/" + std::to_string(image_index(in.trace, image)) + "/format", "RGB10A2"));
    }
    if (f.edit.empty()) continue;
    f.problem = "the tile-buffer working set exceeds the budget: the tiling model shrinks the tiles";
    f.fix = "RGBA16F -> RGB10A2 for" + images.substr(0, images.size() - 1) + " (transient G-buffer)";
    f.changes_images = true;
    f.note = "10-bit color and 2-bit alpha instead of half floats: where the channels allow";
    out.push_back(std::move(f));
  }
  return out;
}

namespace {

// The depth range (z / w) of a draw of an inline clip-space mesh, false where it is not known.
bool depth_range(const json& trace, const json& draw, double& lo, double& hi) {
  if (!draw.contains("transform") || !draw["transform"].value("clip_space", false) || !trace.contains("meshes")) return false;
  for (const json& m : trace["meshes"]) {
    if (str(m, "name", "") != str(draw, "mesh", "") || !m.contains("positions") || !m["positions"].is_array() ||
        m.value("position_components", 3) != 4 || m["positions"].empty())
      continue;
    const json& p = m["positions"];
    lo = 1e300, hi = -1e300;
    for (size_t v = 0; v + 4 <= p.size(); v += 4) {
      const double w = p[v + 3].get<double>();
      if (!(w > 0)) return false;
      lo = std::min(lo, p[v + 2].get<double>() / w);
      hi = std::max(hi, p[v + 2].get<double>() / w);
    }
    return true;
  }
  return false;
}

}  // namespace

// Opaque draws in back-to-front order: depth-tested (less / less_or_equal) and depth-writing, no
// blending, discard or stencil, in one subpass without mid-pass clears; their depth ranges apart, so
// the nearest-first order keeps every pixel. Reordered nearest first; kept only where the preset's
// HSR shades fewer fragments for it (advise.cpp: early_z and fpk, not none nor deferred).
std::vector<Finding> draw_order(const RuleInput& in) {
  std::vector<Finding> out;
  for (PassRef r : pass_sequence(in.trace)) {
    const json& pass = pass_at(in.trace, r);
    if (type_of(pass) != "render") continue;
    for (int s = 0; s < int(pass["subpasses"].size()); ++s) {
      const json& sub = pass["subpasses"][s];
      const json& draws = sub.value("draws", json::array());
      if (sub.contains("clears") || draws.size() < 2 || !sub.contains("depth")) continue;
      struct Item { int index; double lo, hi; };
      std::vector<Item> items;
      bool ok = true;
      for (int d = 0; d < int(draws.size()) && ok; ++d) {
        const json state = draws[d].value("state", json::object());
        const std::string cmp = str(state, "depth_compare", "less");
        Item it{d, 0, 0};
        ok = state.value("depth_test", false) && state.value("depth_write", false) && (cmp == "less" || cmp == "less_or_equal") &&
             !state.value("stencil_test", false) && !state.value("discard", false) && !blends(state) &&
             !(draws[d].contains("program") && draws[d]["program"].contains("params") &&
               draws[d]["program"]["params"].contains("alpha_cutoff")) &&
             depth_range(in.trace, draws[d], it.lo, it.hi);
        items.push_back(it);
      }
      if (!ok) continue;
      std::vector<Item> sorted = items;
      std::stable_sort(sorted.begin(), sorted.end(), [](const Item& a, const Item& b) { return a.lo < b.lo; });
      bool apart = true, changed = false;
      for (size_t k = 0; k + 1 < sorted.size(); ++k) apart &= sorted[k].hi < sorted[k + 1].lo;
      for (size_t k = 0; k < sorted.size(); ++k) changed |= sorted[k].index != items[k].index;
      if (!apart || !changed) continue;
      Finding f = at_attachment("front-to-back", in.trace, r, -1);
      f.where.subpass = s;
      f.id += ".s" + std::to_string(s);
      f.problem = "opaque depth-tested draws of subpass " + std::to_string(s) + " are submitted back to front";
      json reordered = json::array();
      std::string order;
      for (const Item& it : sorted) {
        reordered.push_back(draws[it.index]);
        order += (order.empty() ? "" : ", ") + std::to_string(it.index);
      }
      f.fix = "draws nearest first (" + order + "), or a depth pre-pass";
      f.edit.push_back(replace_op(pointer(r) + "/subpasses/" + std::to_string(s) + "/draws", reordered));
      f.note = "opaque, depth-tested, depth ranges apart: the same pixels";
      out.push_back(std::move(f));
    }
  }
  return out;
}

namespace {

// Whether a blend state, given source alpha 1, writes the source color unchanged: color
// src * (one | src_alpha) + dst * (zero | one_minus_src_alpha), alpha likewise, op add.
bool opaque_identity(const json& b) {
  auto src = [](const std::string& f) { return f == "one" || f == "src_alpha" || f == "src_alpha_saturate"; };
  auto dst = [](const std::string& f) { return f == "zero" || f == "one_minus_src_alpha"; };
  return src(str(b, "src_color", "one")) && dst(str(b, "dst_color", "zero")) && str(b, "color_op", "add") == "add" &&
         (str(b, "src_alpha", "one") == "one" || str(b, "src_alpha", "one") == "src_alpha") &&
         dst(str(b, "dst_alpha", "zero")) && str(b, "alpha_op", "add") == "add";
}

}  // namespace

// Blending enabled on a draw whose fragments are opaque: the built-in `flat` program with alpha 1,
// blended by source alpha (a color factor src_alpha / one_minus_src_alpha / src_alpha_saturate; other
// equations, additive, min, max, constant, are effects the draw wants).
// Blending off keeps every pixel where the blend equation with source alpha 1 is the source itself
// (src_alpha / one_minus_src_alpha and the like); the draw then occludes (HSR) and skips the blend.
std::vector<Finding> opaque_blend(const RuleInput& in) {
  std::vector<Finding> out;
  for (PassRef r : pass_sequence(in.trace)) {
    const json& pass = pass_at(in.trace, r);
    if (type_of(pass) != "render") continue;
    for (int s = 0; s < int(pass["subpasses"].size()); ++s) {
      const json& draws = pass["subpasses"][s].value("draws", json::array());
      for (int d = 0; d < int(draws.size()); ++d) {
        const json& draw = draws[d];
        const json state = draw.value("state", json::object());
        if (!blends(state) || !draw.contains("program") || str(draw["program"], "name", "flat") != "flat") continue;
        const json params = draw["program"].value("params", json::object());
        const json color = params.value("color", json::array({1, 1, 1, 1}));
        if (!color.is_array() || color.size() != 4 || !color[3].is_number() || color[3].get<double>() != 1.0) continue;
        bool identity = true;
        const std::string base = pointer(r) + "/subpasses/" + std::to_string(s) + "/draws/" + std::to_string(d) + "/state/blend/";
        Finding f = at_attachment("opaque-blend", in.trace, r, -1);
        bool alpha_driven = false;  // a source-alpha color factor: blending for transparency, not an effect
        for (const json& b : state["blend"])
          for (const char* k : {"src_color", "dst_color"})
            alpha_driven |= b.value("enable", false) && str(b, k, "").find("src_alpha") != std::string::npos;
        if (!alpha_driven) continue;
        for (int b = 0; b < int(state["blend"].size()); ++b) {
          if (!state["blend"][b].value("enable", false)) continue;
          identity &= opaque_identity(state["blend"][b]);
          f.edit.push_back(replace_op(base + std::to_string(b) + "/enable", false));
        }
        f.where.subpass = s;
        f.where.draw = d;
        const std::string name = str(draw, "name", "");
        if (name.rfind("event_", 0) == 0) f.where.event = name.substr(6);
        f.id += ".s" + std::to_string(s) + ".d" + std::to_string(d);
        f.problem = "blending is enabled on draw " + std::to_string(d) + ", whose fragments are opaque (alpha 1)";
        f.fix = "blending off: the draw can occlude (HSR) and skips the blend";
        f.changes_images = !identity;
        f.note = identity ? "the blend equation with source alpha 1 writes the source: the same pixels"
                          : "the blend equation reads the destination even with alpha 1: pixels change";
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

// Subpasses the merge model refused for a reason the trace can fix (models/merge/arm.cpp): "depth
// attachment differs" where subpass B's own depth attachment is cleared, not stored, used by B only,
// and of the earlier depth's format, size and samples, and that earlier depth is not stored, not an
// input and used by no subpass after B. B then uses the earlier depth, cleared by a mid-pass clear
// before its first draw to the same value: the same depth test, the same pixels, one hardware pass.
std::vector<Finding> merge_fix(const RuleInput& in) {
  std::vector<Finding> out;
  for (const auto& [r, ps] : simulated_render_passes(in)) {
    const json& pass = pass_at(in.trace, r);
    for (const std::string& reason : ps->merge.reasons) {
      const std::string tag = "depth attachment differs between subpass ";
      if (reason.rfind(tag, 0) != 0) continue;
      const int b = std::stoi(reason.substr(reason.find(" and ") + 5));
      const json& subs = pass["subpasses"];
      int j = -1;  // the depth the refused group held: the last earlier subpass with one
      for (int s = 0; s < b; ++s)
        if (subs[s].contains("depth") && subs[s]["depth"].is_number_integer()) j = s;
      if (j < 0 || b >= int(subs.size()) || !subs[b].contains("depth")) continue;
      const int dj = subs[j]["depth"].get<int>(), dk = subs[b]["depth"].get<int>();
      const json &aj = pass["attachments"][dj], &ak = pass["attachments"][dk];
      const json *ij = find_image(in.trace, str(aj, "image", "")), *ik = find_image(in.trace, str(ak, "image", ""));
      bool ok = ij && ik && str(*ij, "format", "") == str(*ik, "format", "") && ij->value("width", 0) == ik->value("width", 0) &&
                ij->value("height", 0) == ik->value("height", 0) && ij->value("samples", 1) == ik->value("samples", 1) &&
                str(ak, "load", "dont_care") == "clear" && str(ak, "store", "store") != "store" &&
                str(ak, "stencil_store", "dont_care") != "store" && str(aj, "store", "store") != "store" &&
                str(aj, "stencil_store", "dont_care") != "store";
      for (int s = 0; s < int(subs.size()) && ok; ++s) {
        json one = json::object();
        one["subpasses"] = json::array({subs[s]});
        const std::set<int> u = used_attachments(one);
        if (s != b && u.count(dk)) ok = false;
        if (s > b && u.count(dj)) ok = false;
        for (const json& i : subs[s].value("input", json::array())) ok &= i != dj && i != dk;
      }
      if (!ok) continue;
      Finding f = at_attachment("merge-fix", in.trace, r, dk);
      f.where.subpass = b;
      f.id += ".s" + std::to_string(b);
      f.problem = "the merge model refuses: " + reason;
      f.fix = "subpass " + std::to_string(b) + " uses attachment " + std::to_string(dj) + " (" + str(aj, "image", "") +
              ") for depth, cleared before its first draw to " + ak.value("clear", json{{"depth", 1.0}, {"stencil", 0}}).dump();
      json clear = {{"before_draw", 0}, {"depth", true}, {"value", ak.value("clear", json{{"depth", 1.0}, {"stencil", 0}})}};
      if (str(ak, "stencil_load", "dont_care") == "clear") clear["stencil"] = true;
      const std::string sp = pointer(r) + "/subpasses/" + std::to_string(b);
      f.edit.push_back(replace_op(sp + "/depth", dj));
      if (subs[b].contains("clears")) f.edit.push_back(add_op(sp + "/clears/0", clear));
      else f.edit.push_back(set_op(sp, "clears", json::array({clear})));
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace tbdr::advise
