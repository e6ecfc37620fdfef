// The rules of `tbdrsim advise` on overdraw: a depth pre-pass for opaque draws shaded many times a
// pixel, and blended full-screen layers merged into one draw. Sources: models/README.md "Sources: advise rules".
#include <algorithm>
#include <array>

#include "tools/commands/advise.h"
#include "tools/commands/advise_trace_json.h"

namespace tbdr::advise {
namespace {

using namespace trace_json;

// The fragments the simulated run shaded for subpass `s` of pass `r` (its draws' shares), 0 where
// the run has none.
uint64_t shaded_in_subpass(const RuleInput& in, PassRef r, int s) {
  if (size_t(r.frame) >= in.stats.frames.size() || size_t(r.pass) >= in.stats.frames[r.frame].passes.size()) return 0;
  uint64_t n = 0;
  for (const DrawStats& d : in.stats.frames[r.frame].passes[r.pass].draw_stats)
    if (int(d.subpass) == s) n += d.counters.fragments_shaded;
  return n;
}

// The pixels of the pass's area: its render area, else its first attachment's size.
uint64_t pass_pixels(const json& trace, const json& pass) {
  if (pass.contains("render_area")) return uint64_t(pass["render_area"].value("width", 0)) * pass["render_area"].value("height", 0);
  const json& atts = pass.value("attachments", json::array());
  const json* image = atts.empty() ? nullptr : find_image(trace, str(atts[0], "image", ""));
  if (!image) return 0;
  const int mip = atts[0].value("mip", 0);
  return uint64_t(std::max(1, image->value("width", 0) >> mip)) * std::max(1, image->value("height", 0) >> mip);
}

// The preset's hsr implementation, "" where the rule input carries no models.
std::string hsr_impl(const RuleInput& in) {
  if (!in.models || !in.models->resolved.contains("hsr")) return "";
  return str(in.models->resolved["hsr"], "impl", "");
}

// ---- depth-prepass -------------------------------------------------------------------------------

// A draw the pre-pass can stand for: it tests depth with less / less_or_equal and writes it, and
// its fragments are opaque and keep their rasterized depth (no blending, discard, alpha cutoff,
// shader depth write, stencil, tile reads; not a per-tile draw).
bool opaque_depth_writer(const json& draw) {
  const json state = draw.value("state", json::object());
  const std::string cmp = str(state, "depth_compare", "less");
  const json program = draw.value("program", json::object());
  const json cost = draw.value("cost", json::object());
  return state.value("depth_test", false) && state.value("depth_write", false) && (cmp == "less" || cmp == "less_or_equal") &&
         !blends(state) && !state.value("discard", false) && !state.value("shader_depth_write", false) &&
         !state.value("stencil_test", false) && !program.value("params", json::object()).contains("alpha_cutoff") &&
         cost.value("tile_reads", 0.0) == 0 && !draw.value("per_tile", false) &&
         str(program, "name", "flat") != "deferred_light";
}

// Whether a frame overrides the program parameters of draws named `name`: the reader checks them
// against each draw's program, so a depth-only `flat` copy could not take another program's.
bool params_overridden(const json& trace, const json& draw) {
  if (!draw.contains("name")) return false;
  for (const json& frame : trace["frames"])
    if (frame.contains("overrides") && frame["overrides"].contains(str(draw, "name", "")) &&
        frame["overrides"][str(draw, "name", "")].contains("params"))
      return true;
  return false;
}

// The depth-only copy of a draw: the same geometry and depth state, the built-in `flat` program with
// no fragment cost (the vertex shader's `vertex_alu` kept) and every color slot's writes masked off.
json depth_only(const json& draw, size_t color_slots) {
  json d = draw;
  d["program"] = {{"name", "flat"}};
  d.erase("cost");
  if (draw.contains("cost") && draw["cost"].contains("vertex_alu")) d["cost"] = {{"vertex_alu", draw["cost"]["vertex_alu"]}};
  json blend = json::array();
  for (size_t c = 0; c < color_slots; ++c) blend.push_back({{"write_mask", ""}});
  d["state"]["blend"] = blend;
  return d;
}

// The subpass's draws with the pre-pass in front: the opaque draws depth-only, in their order, then
// every draw as it was, the opaque ones testing depth EQUAL without writing it (the pre-pass left
// each pixel the nearest depth, so only the fragment that was visible passes).
json with_prepass(const json& draws, size_t color_slots) {
  json out = json::array();
  for (const json& d : draws)
    if (opaque_depth_writer(d)) out.push_back(depth_only(d, color_slots));
  for (json d : draws) {
    if (opaque_depth_writer(d)) {
      d["state"]["depth_compare"] = "equal";
      d["state"]["depth_write"] = false;
    }
    out.push_back(d);
  }
  return out;
}

// The finding adding a depth pre-pass to subpass `s` of pass `r`, `shaded` fragments over `pixels`.
Finding prepass_finding(const RuleInput& in, PassRef r, int s, uint64_t shaded, uint64_t pixels, long opaque) {
  const json& sub = pass_at(in.trace, r)["subpasses"][s];
  Finding f = at_attachment("depth-prepass", in.trace, r, sub["depth"].get<int>());
  f.where.subpass = s;
  f.id += ".s" + std::to_string(s);
  f.problem = std::to_string(shaded) + " fragments shaded over " + std::to_string(pixels) + " pixels in subpass " +
              std::to_string(s) + " (" + std::to_string(opaque) + " opaque depth-tested draws)";
  f.fix = "a depth pre-pass: the " + std::to_string(opaque) +
          " opaque draws first with color writes off (write_mask \"\") and no fragment cost, then as they were with "
          "depth_compare equal, depth_write false";
  f.edit.push_back(replace_op(pointer(r) + "/subpasses/" + std::to_string(s) + "/draws",
                              with_prepass(sub["draws"], sub.value("color", json::array()).size())));
  f.note = "the pre-pass leaves each pixel its nearest depth; only the fragment that was visible passes EQUAL: the same pixels";
  return f;
}

}  // namespace

// Opaque depth-tested draws of a subpass shaded at least twice a pixel on average, under an HSR that
// tests depth before shading in draw order (early_z, fpk: not `none`, which shades every fragment,
// nor `deferred`, which already shades only the visible one). Arm, *Arm Guide for Unity Developers*,
// "Use depth pre-pass" (render the geometry without color writes first, so that early Z shades only
// the visible fragments; the vertex shader runs twice); Qualcomm, *Adreno OpenGL ES Developer Guide*,
// depth pre-pass / LRZ. What it costs (the geometry again, its tile lists) against what it saves
// (fragments, their texture reads) is the simulation's.
std::vector<Finding> depth_prepass(const RuleInput& in) {
  constexpr uint64_t kOverdraw = 2;  // fragments shaded per pixel from which the rule looks
  std::vector<Finding> out;
  const std::string hsr = hsr_impl(in);
  if (hsr == "none" || hsr == "deferred") return out;
  const auto writes_depth = [](const json& d) { return d.value("state", json::object()).value("depth_write", false); };
  for_each_render_subpass(in.trace, [&](PassRef r, const json& pass, int s, const json& sub) {
    const json& draws = sub.value("draws", json::array());
    const uint64_t pixels = pass_pixels(in.trace, pass);
    if (!sub.contains("depth") || !sub["depth"].is_number_integer() || sub.contains("clears") || !pixels) return;
    const long opaque = std::count_if(draws.begin(), draws.end(), [](const json& d) { return opaque_depth_writer(d); });
    const bool all_opaque = std::all_of(draws.begin(), draws.end(), [&](const json& d) {
      return (!writes_depth(d) || opaque_depth_writer(d)) && !(opaque_depth_writer(d) && params_overridden(in.trace, d));
    });
    const uint64_t shaded = shaded_in_subpass(in, r, s);
    if (opaque >= 2 && all_opaque && shaded >= kOverdraw * pixels) out.push_back(prepass_finding(in, r, s, shaded, pixels, opaque));
  });
  return out;
}

}  // namespace tbdr::advise

// ---- merge-layers --------------------------------------------------------------------------------

namespace tbdr::advise {
namespace {

using namespace trace_json;

// A layer's contribution as premultiplied color and alpha, from a `flat` draw blended "over" on every
// color slot (straight: src_alpha, one_minus_src_alpha; premultiplied: one, one_minus_src_alpha; alpha
// one, one_minus_src_alpha; all add, every channel written): dst' = P + (1 - a) dst, per channel.
bool over_layer(const json& draw, size_t color_slots, std::array<double, 4>& layer) {
  const json state = draw.value("state", json::object());
  const json program = draw.value("program", json::object());
  const json params = program.value("params", json::object());
  const json color = params.value("color", json::array({1, 1, 1, 1}));
  if (str(program, "name", "flat") != "flat" || params.size() != params.count("color") || !color.is_array() ||
      color.size() != 4 || draw.value("instance_count", 1) != 1 || draw.value("per_tile", false))
    return false;
  for (const char* k : {"depth_test", "stencil_test", "discard", "shader_depth_write"})
    if (state.value(k, false)) return false;
  const json& blend = state.value("blend", json::array());
  if (color_slots == 0 || blend.size() != color_slots) return false;
  std::string src;
  for (const json& b : blend) {
    const std::string s = str(b, "src_color", "one");
    if (!b.value("enable", false) || (s != "src_alpha" && s != "one") || (!src.empty() && s != src) ||
        str(b, "dst_color", "zero") != "one_minus_src_alpha" || str(b, "src_alpha", "one") != "one" ||
        str(b, "dst_alpha", "zero") != "one_minus_src_alpha" || str(b, "color_op", "add") != "add" ||
        str(b, "alpha_op", "add") != "add" || str(b, "write_mask", "rgba") != "rgba")
      return false;
    src = s;
  }
  for (int c = 0; c < 4; ++c) {
    if (!color[c].is_number() || color[c].get<double>() < 0 || color[c].get<double>() > 1) return false;
    layer[c] = color[c].get<double>();
  }
  if (src == "src_alpha")
    for (int c = 0; c < 3; ++c) layer[c] *= layer[3];
  return true;
}

// Whether a frame overrides anything of draws named like `draw` (their color or their coverage).
bool overridden(const json& trace, const json& draw) {
  if (!draw.contains("name")) return false;
  for (const json& frame : trace["frames"])
    if (frame.contains("overrides") && frame["overrides"].contains(str(draw, "name", ""))) return true;
  return false;
}

// The layers [first, last] of a subpass as one draw: the last one's geometry, the composed color
// P = P_k + (1 - a_k) P, A = a_k + (1 - a_k) A in order, blended premultiplied "over", every
// cost field the sum of the layers' (the merged shader does each layer's work).
json merged_layers(const json& draws, int first, int last, const std::vector<std::array<double, 4>>& layers) {
  std::array<double, 4> sum = {0, 0, 0, 0};
  json cost = json::object();
  for (int d = first; d <= last; ++d) {
    const std::array<double, 4>& l = layers[d - first];
    for (int c = 0; c < 4; ++c) sum[c] = l[c] + (1 - l[3]) * sum[c];
    const json layer_cost = draws[d].value("cost", json::object());  // items() of a temporary would dangle
    for (const auto& [k, v] : layer_cost.items())
      cost[k] = cost.value(k, 0.0) + v.get<double>();
  }
  json merged = draws[last];
  merged["program"] = {{"name", "flat"}, {"params", {{"color", {sum[0], sum[1], sum[2], sum[3]}}}}};
  for (json& b : merged["state"]["blend"]) b["src_color"] = "one";
  if (cost.empty()) merged.erase("cost"); else merged["cost"] = cost;
  return merged;
}

// The finding merging draws [first, last] of subpass `s`: the last replaced by the merged draw, the others removed.
Finding layer_finding(const RuleInput& in, PassRef r, int s, int first, int last, const std::vector<std::array<double, 4>>& layers) {
  const json& draws = pass_at(in.trace, r)["subpasses"][s]["draws"];
  Finding f = at_attachment("merge-layers", in.trace, r, -1);
  f.where.subpass = s;
  f.where.draw = first;
  f.id += ".s" + std::to_string(s) + ".d" + std::to_string(first);
  const std::string n = std::to_string(last - first + 1), range = std::to_string(first) + ".." + std::to_string(last);
  f.problem = n + " full-screen layers blended over each other (draws " + range + " of subpass " + std::to_string(s) +
              "): each pixel shaded and blended " + n + " times";
  const std::string base = pointer(r) + "/subpasses/" + std::to_string(s) + "/draws/";
  const json merged = merged_layers(draws, first, last, layers);
  f.fix = "one draw composing them: flat color " + merged["program"]["params"]["color"].dump() +
          " blended premultiplied over (one, one_minus_src_alpha), the layers' costs summed";
  f.edit.push_back(replace_op(base + std::to_string(last), merged));
  for (int d = first; d < last; ++d) f.edit.push_back(json{{"op", "remove"}, {"path", base + std::to_string(d)}});
  f.changes_images = true;
  f.note = "one rounding to the target's format instead of one per layer: a unorm channel may differ by one code";
  return f;
}

}  // namespace

// Runs of consecutive full-screen `flat` layers blended "over" in one subpass: every pixel shaded and
// blended once per layer. One draw composing them shades and blends once. Arm, *Mali GPU Best
// Practices*, "Overdraw" (blended layers cannot be removed by hidden-surface removal; minimize
// transparent overdraw); Imagination, *PowerVR Performance Recommendations*, "Avoid overdraw" /
// blending (full-screen blended layers multiply the fragment work).
std::vector<Finding> merge_layers(const RuleInput& in) {
  std::vector<Finding> out;
  for_each_render_subpass(in.trace, [&](PassRef r, const json& pass, int s, const json& sub) {
    const json& draws = sub.value("draws", json::array());
    const size_t slots = sub.value("color", json::array()).size();
    std::vector<std::array<double, 4>> run;
    for (int d = 0; d <= int(draws.size()) && !sub.contains("clears"); ++d) {
      std::array<double, 4> layer;
      const bool is_layer = d < int(draws.size()) && !overridden(in.trace, draws[d]) && over_layer(draws[d], slots, layer) &&
                            covers_screen(in, pass, draws[d]);
      if (is_layer) run.push_back(layer);
      if (is_layer || run.empty()) continue;
      if (run.size() >= 2) out.push_back(layer_finding(in, r, s, d - int(run.size()), d - 1, run));
      run.clear();
    }
  });
  return out;
}

}  // namespace tbdr::advise
