// The rules of `tbdrsim advise` on overdraw: a depth pre-pass for opaque draws shaded many times a
// pixel. Sources: models/README.md "Sources: advise rules".
#include <algorithm>

#include "tools/lib/advise.h"
#include "tools/lib/advise_trace_json.h"

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

