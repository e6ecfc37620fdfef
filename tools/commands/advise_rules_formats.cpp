// The rule of `tbdrsim advise` on render-target formats: an RGBA16F color target whose alpha nothing
// reads, stored as B10G11R11_UFLOAT. Sources: models/README.md "Sources: advise rules".
#include <set>

#include "tools/commands/advise.h"
#include "tools/commands/advise_trace_json.h"

namespace tbdr::advise {
namespace {

using namespace trace_json;

// Blend factors of the color equation that read the destination's alpha (Vulkan "Blend Factors":
// src_alpha_saturate is min(As, 1 - Ad)); the alpha equation's result is what nobody reads.
bool reads_dst_alpha(const std::string& factor) {
  return factor == "dst_alpha" || factor == "one_minus_dst_alpha" || factor == "src_alpha_saturate";
}

// Built-in programs that read a bound image's red, green and blue only (traces/README.md's program
// table): `tonemap` (alpha 1 out of hdr + bloom), `deferred_light_sampled` (albedo and normal rgb,
// alpha 1), `captured` (the value unused).
bool ignores_bound_alpha(const std::string& program) {
  return program == "tonemap" || program == "deferred_light_sampled" || program == "captured";
}

// Whether the draws of subpass `sub` blending into color slot `slot` read the destination's alpha.
bool blends_read_alpha(const json& sub, size_t slot) {
  for (const json& d : sub.value("draws", json::array())) {
    const json blend = d.value("state", json::object()).value("blend", json::array());
    if (slot >= blend.size() || !blend[slot].value("enable", false)) continue;
    if (reads_dst_alpha(str(blend[slot], "src_color", "one")) || reads_dst_alpha(str(blend[slot], "dst_color", "zero")))
      return true;
  }
  return false;
}

// Whether render pass `pass` uses `image` only in ways that never read its alpha: as a color
// attachment whose blends leave destination alpha out, sampled by programs that ignore alpha; never
// as an input or a resolve source (a resolve copies alpha on).
bool render_use_ignores_alpha(const json& pass, const std::string& image) {
  std::set<int> mine;
  for (int a = 0; a < int(pass.value("attachments", json::array()).size()); ++a)
    if (str(pass["attachments"][a], "image", "") == image) mine.insert(a);
  for (const json& sub : pass.value("subpasses", json::array())) {
    for (const json& i : sub.value("input", json::array()))
      if (i.is_number_integer() && mine.count(i.get<int>())) return false;
    const json& color = sub.value("color", json::array());
    for (size_t c = 0; c < color.size(); ++c) {
      if (!color[c].is_number_integer() || !mine.count(color[c].get<int>())) continue;
      if (blends_read_alpha(sub, c)) return false;
      if (sub.contains("resolve") && c < sub["resolve"].size() && sub["resolve"][c].is_number_integer()) return false;
    }
    for (const json& d : sub.value("draws", json::array())) {
      const json program = d.value("program", json::object());
      const json bindings = program.value("bindings", json::object());  // items() of a temporary would dangle
      for (const auto& [slot, b] : bindings.items())
        if (ref_names(b, image) && !ignores_bound_alpha(str(program, "name", "flat"))) return false;
    }
  }
  return true;
}

// Whether `image` is an RGBA16F color target the frames never read the alpha of: single-sampled,
// no STORAGE, no captured contents, not an output of the frame, used by render passes only (a copy,
// blit, resolve or compute pass would carry or read every channel), none of which reads its alpha.
bool alpha_unread(const json& trace, const std::vector<PassRef>& seq, const std::set<std::string>& outputs, const json& desc) {
  const std::string name = str(desc, "name", "");
  if (str(desc, "format", "") != "RGBA16F" || desc.value("samples", 1) != 1 || has_usage(desc, "storage") ||
      desc.contains("contents") || desc.contains("swapchain") || desc.value("alias", false) ||
      desc.value("mutable_format", false) || outputs.count(name))
    return false;
  bool written = false;
  for (PassRef r : seq) {
    const json& pass = pass_at(trace, r);
    const std::string type = type_of(pass);
    if (type == "barrier") continue;
    const bool names = pass.dump().find("\"" + name + "\"") != std::string::npos;
    if (!names) continue;
    if (type != "render" || !render_use_ignores_alpha(pass, name)) return false;
    for (const json& att : pass.value("attachments", json::array())) {
      if (str(att, "image", "") != name) continue;
      if (att.contains("contents")) return false;  // captured pixels, alpha included
      written = true;
    }
  }
  return written;
}

}  // namespace

// RGBA16F color targets (8 B a pixel) whose alpha nothing reads, as B10G11R11_UFLOAT (4 B): Arm,
// *Mali GPU Best Practices* (101897), "Fragment shading: HDR rendering" (use B10G11R11 for
// floating-point rendering, 32 bpp against 64; RGBA16F only where B10G11R11's quality does not
// suffice or alpha is required in the framebuffer). The bytes are the ledger's (traces/README.md).
std::vector<Finding> narrow_target(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  const std::set<std::string> outputs = frame_outputs(in.trace, seq);
  for (size_t i = 0; i < in.trace.value("images", json::array()).size(); ++i) {
    const json& desc = in.trace["images"][i];
    if (!alpha_unread(in.trace, seq, outputs, desc)) continue;
    const std::string name = str(desc, "name", "");
    Finding f;
    f.rule = "narrow-target";
    f.id = "narrow-target:" + name;
    f.where.image = name;
    f.problem = name + " is RGBA16F (8 B a pixel) and no pass reads its alpha: no blend reads destination alpha, "
                "its readers (tonemap, deferred_light_sampled, captured) use red, green and blue, it leaves the frame nowhere";
    f.fix = "format: B10G11R11_UFLOAT (4 B a pixel)";
    f.edit.push_back(replace_op("/images/" + std::to_string(i) + "/format", "B10G11R11_UFLOAT"));
    f.changes_images = true;
    f.note = "the alpha nothing reads is dropped; red and green keep 6 mantissa bits, blue 5 (a half has 10), "
             "negative values store 0";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace tbdr::advise
