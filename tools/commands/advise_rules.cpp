// The rules of `tbdrsim advise` on attachments and passes: load and store ops, layouts, usage,
// transient images, resolves and render pass merges; the list of every rule. Sources: models/README.md
// "Sources: advise rules" (Arm Mali best practices, Khronos Vulkan-Samples performance samples).
#include <algorithm>
#include <set>

#include "sim/savers.h"
#include "tools/commands/advise.h"
#include "tools/commands/advise_trace_json.h"

namespace tbdr::advise {
namespace {

using namespace trace_json;

// ---- rules ---------------------------------------------------------------------------------------

// LOAD of contents Vulkan leaves undefined: old_layout undefined (a swapchain image is acquired so).
std::vector<Finding> load_undefined(const RuleInput& in) {
  std::vector<Finding> out;
  for (PassRef r : pass_sequence(in.trace)) {
    const json& pass = pass_at(in.trace, r);
    if (type_of(pass) != "render") continue;
    const std::set<int> used = used_attachments(pass);
    for (int a = 0; a < int(pass.value("attachments", json::array()).size()); ++a) {
      const json& att = pass["attachments"][a];
      if (!used.count(a) || str(att, "load", "dont_care") != "load") continue;
      const bool explicit_undefined = att.contains("old_layout") && att["old_layout"] == "undefined";
      const bool swapchain = is_swapchain(in.trace, str(att, "image", "")) && str(att, "old_layout", "undefined") == "undefined";
      if (!explicit_undefined && !swapchain) continue;
      Finding f = at_attachment("load-clear", in.trace, r, a);
      f.problem = "LOAD of " + f.where.image + " whose old_layout is undefined: its contents are undefined";
      f.fix = "load: clear";
      f.edit.push_back(replace_op(pointer(r) + "/attachments/" + std::to_string(a) + "/load", "clear"));
      f.changes_images = true;
      f.note = "pixels no draw covers become the clear value instead of undefined contents";
      out.push_back(std::move(f));
    }
  }
  return out;
}

// The event id of the call that ended the pass, where an OpenGL ES / OpenGL capture's `inferred`
// store (tools/rdc2trace) says the attachment was written back for want of an invalidate:
// "event N <call> ends the pass; the attachment is written back". -1 otherwise.
long gl_store_event(const json& att) {
  if (!att.contains("inferred") || !att["inferred"].is_object()) return -1;
  for (const char* key : {"store", "stencil_store"}) {
    const std::string why = str(att["inferred"], key, "");
    if (why.rfind("event ", 0) != 0 || why.find("ends the pass; the attachment is written back") == std::string::npos) continue;
    const size_t end = why.find(' ', 6);
    const std::string id = why.substr(6, end - 6);
    if (!id.empty() && std::all_of(id.begin(), id.end(), ::isdigit)) return std::stol(id);
  }
  return -1;
}

// STORE of an attachment nothing later reads (later passes, the next frame).
std::vector<Finding> store_unread(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  const std::set<std::string> outputs = frame_outputs(in.trace, seq);
  for (size_t k = 0; k < seq.size(); ++k) {
    const json& pass = pass_at(in.trace, seq[k]);
    if (type_of(pass) != "render") continue;
    const std::set<int> used = used_attachments(pass);
    for (int a = 0; a < int(pass.value("attachments", json::array()).size()); ++a) {
      const json& att = pass["attachments"][a];
      const std::string image = str(att, "image", "");
      const bool color_store = str(att, "store", "store") == "store";
      const bool stencil_store = str(att, "stencil_store", "dont_care") == "store";
      if (!used.count(a) || !(color_store || stencil_store) || outputs.count(image) || is_transient(in.trace, image) ||
          gl_store_event(att) >= 0)  // an OpenGL ES capture's: gl-invalidate names the call to add
        continue;
      if (next_access(in.trace, seq, k, image) == Access::read) continue;
      Finding f = at_attachment("store-dont-care", in.trace, seq[k], a);
      f.problem = "STORE of " + image + ", which no later pass (nor the next frame) reads";
      f.fix = "store: dont_care";
      const std::string base = pointer(seq[k]) + "/attachments/" + std::to_string(a);
      if (color_store) f.edit.push_back(set_op(base, "store", "dont_care"));
      if (stencil_store) f.edit.push_back(set_op(base, "stencil_store", "dont_care"));
      out.push_back(std::move(f));
    }
  }
  return out;
}

// Usage flags a transient (lazily allocated) image may keep.
json attachment_usages(const json& image) {
  json u = json::array();
  for (const char* k : {"color_attachment", "depth_stencil_attachment", "input_attachment"})
    if (has_usage(image, k)) u.push_back(k);
  return u;
}


uint64_t bytes_per_pixel(const std::string& format) {
  if (format == "RGBA16F" || format == "D32FS8") return 8;
  if (format == "RGBA32F") return 16;
  if (format == "D16" || format == "RG8") return 2;
  if (format == "R8" || format == "S8") return 1;
  return 4;
}
uint64_t image_bytes(const json& image) {
  return uint64_t(image.value("width", 0)) * image.value("height", 0) * image.value("samples", 1) *
         image.value("array_layers", 1) * bytes_per_pixel(str(image, "format", ""));
}

// Attachments used inside one render pass only, neither loaded nor stored, but backed by memory.
// Whether a render pass gives the image's pixels as captured `contents` (a transient image
// cannot have stored contents: the trace reader refuses it).
bool has_attachment_contents(const json& trace, const std::vector<PassRef>& seq, const std::string& image) {
  for (PassRef r : seq)
    for (const json& att : pass_at(trace, r).value("attachments", json::array()))
      if (str(att, "image", "") == image && att.contains("contents")) return true;
  return false;
}

std::vector<Finding> transient_candidates(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  std::set<std::string> seen;
  for (PassRef r : seq) {
    const json& pass = pass_at(in.trace, r);
    if (type_of(pass) != "render") continue;
    for (int a = 0; a < int(pass.value("attachments", json::array()).size()); ++a) {
      const json& att = pass["attachments"][a];
      const std::string image = str(att, "image", "");
      const json* desc = find_image(in.trace, image);
      if (!desc || desc->value("transient", false) || desc->contains("swapchain") || desc->contains("contents") ||
          has_attachment_contents(in.trace, seq, image) || seen.count(image))
        continue;
      bool moves = false;
      for (const json& other : pass["attachments"])
        if (str(other, "image", "") == image)
          moves |= str(other, "load", "dont_care") == "load" || str(other, "store", "store") == "store" ||
                   str(other, "stencil_load", "dont_care") == "load" || str(other, "stencil_store", "dont_care") == "store";
      if (moves || referenced_elsewhere(in.trace, seq, str(pass, "name", ""), image)) continue;
      seen.insert(image);
      Finding f = at_attachment("transient", in.trace, r, a);
      f.problem = image + " lives inside this render pass only but is backed by memory";
      f.fix = "image transient: true (usage: attachment usages only)";
      const std::string path = "/images/" + std::to_string(image_index(in.trace, image));
      f.edit.push_back(set_op(path, "transient", true));
      f.edit.push_back(set_op(path, "usage", attachment_usages(*desc)));
      f.memory_bytes = image_bytes(*desc);
      out.push_back(std::move(f));
    }
  }
  return out;
}



// A multisampled image stored, then resolved by a separate `resolve` pass.
std::vector<Finding> separate_resolve(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  for (size_t k = 0; k < seq.size(); ++k) {
    const json& rp = pass_at(in.trace, seq[k]);
    if (type_of(rp) != "resolve" || !whole_ref(rp["src"]) || !whole_ref(rp["dst"])) continue;
    const std::string src = str(rp["src"], "image", ""), dst = str(rp["dst"], "image", "");
    int a = -1, s = -1, slot = -1;
    const int j = storing_pass(in.trace, seq, k, src, a);
    if (j < 0 || !color_slot(pass_at(in.trace, seq[j]), a, s, slot)) continue;
    if (next_access(in.trace, seq, k, src) == Access::read) continue;
    const json& pass = pass_at(in.trace, seq[j]);
    Finding f = at_attachment("inline-resolve", in.trace, seq[j], a);
    f.where.subpass = s;
    f.problem = "multisampled " + src + " is stored, then resolved into " + dst + " by pass " + str(rp, "name", "");
    f.fix = "resolve into " + dst + " at the end of subpass " + std::to_string(s) + "; " + src +
            " store: dont_care, transient; pass " + str(rp, "name", "") + " becomes an empty barrier";
    const std::string base = pointer(seq[j]);
    const int n = int(pass["attachments"].size());
    f.edit.push_back(add_op(base + "/attachments/-",
                            json{{"image", dst}, {"load", "dont_care"}, {"store", "store"},
                                 {"new_layout", is_swapchain(in.trace, dst) ? "present" : "shader_read_only"}}));
    json resolve = pass["subpasses"][s].value("resolve", json::array());
    while (int(resolve.size()) < int(pass["subpasses"][s]["color"].size())) resolve.push_back(nullptr);
    resolve[slot] = n;
    f.edit.push_back(set_op(base + "/subpasses/" + std::to_string(s), "resolve", resolve));
    f.edit.push_back(set_op(base + "/attachments/" + std::to_string(a), "store", "dont_care"));
    f.edit.push_back(to_barrier(seq[k], rp));
    const json* desc = find_image(in.trace, src);
    if (desc && !desc->contains("contents") && !has_attachment_contents(in.trace, seq, src) &&
        !referenced_elsewhere(in.trace, seq, str(pass, "name", ""), src, str(rp, "name", ""))) {
      const std::string path = "/images/" + std::to_string(image_index(in.trace, src));
      f.edit.push_back(set_op(path, "transient", true));
      f.edit.push_back(set_op(path, "usage", attachment_usages(*desc)));
      f.memory_bytes = image_bytes(*desc);
    }
    out.push_back(std::move(f));
  }
  return out;
}


// The image as the simulator reads it, its savers' eligibility under the preset's models (the same
// call sim/pass/setup.cpp reports per attachment). Unknown (no models or no trace as read): eligible,
// the fix is then priced and its verdict decides.
// `without_storage`: as if its STORAGE usage were dropped.
models::Eligibility saver_eligibility(const RuleInput& in, const std::string& image, bool compression, bool without_storage) {
  if (!in.models || !in.parsed) return {true, ""};
  for (const ImageDesc& desc : in.parsed->images) {
    if (desc.name != image) continue;
    models::ImageTraits traits = image_traits(desc);
    if (without_storage) traits.storage = false;
    return compression ? in.models->compression->eligibility(traits) : in.models->write_elim->eligibility(traits);
  }
  return {true, ""};
}
// Whether transaction elimination ever checks the image's stores: the only thing its layouts change.
bool te_checks(const RuleInput& in, const std::string& image) { return saver_eligibility(in, image, false, false).eligible; }

bool stored_by_a_render_pass(const json& trace, const std::vector<PassRef>& seq, const std::string& image) {
  for (PassRef r : seq) {
    const json& pass = pass_at(trace, r);
    for (const json& a : pass.value("attachments", json::array()))
      if (str(a, "image", "") == image && str(a, "store", "store") == "store") return true;
  }
  return false;
}

// old_layout undefined on an image whose contents could be kept: transaction elimination loses its
// signatures. Attachments of render passes that store the image, and barriers.
std::vector<Finding> undefined_layout(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  for (size_t k = 0; k < seq.size(); ++k) {
    const json& pass = pass_at(in.trace, seq[k]);
    const bool render = type_of(pass) == "render";
    const char* list = render ? "attachments" : "images";
    if (!render && type_of(pass) != "barrier") continue;
    for (int a = 0; a < int(pass.value(list, json::array()).size()); ++a) {
      const json& item = pass[list][a];
      const std::string image = str(item, "image", "");
      if (str(item, "old_layout", "undefined") != "undefined" || is_swapchain(in.trace, image) ||
          is_transient(in.trace, image) || !stored_by_a_render_pass(in.trace, seq, image) || !te_checks(in, image))
        continue;
      if (render && str(item, "store", "store") != "store") continue;
      const std::string layout = last_layout(in.trace, seq, k, image);
      if (layout.empty() || layout == "undefined") continue;
      Finding f = at_attachment("keep-layout", in.trace, seq[k], render ? a : -1);
      f.where.image = image;
      if (!render) f.id += "." + image;
      f.problem = "old_layout undefined on " + image + ": transaction elimination drops its signatures";
      f.fix = "old_layout: " + layout + " (the layout it was left in)";
      f.edit.push_back(set_op(pointer(seq[k]) + "/" + list + "/" + std::to_string(a), "old_layout", layout));
      out.push_back(std::move(f));
    }
  }
  return out;
}

// A usage flag that makes a stored render target ineligible for AFBC and UBWC: STORAGE no compute pass needs.
std::vector<Finding> storage_usage(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  for (size_t i = 0; i < in.trace["images"].size(); ++i) {
    const json& image = in.trace["images"][i];
    const std::string name = str(image, "name", "");
    // Without STORAGE, framebuffer compression must then apply: a 4x image or a format it skips stays uncompressed.
    if (!has_usage(image, "storage") || !stored_by_a_render_pass(in.trace, seq, name) ||
        !saver_eligibility(in, name, true, true).eligible)
      continue;
    bool compute = false;
    for (PassRef r : seq)
      compute |= type_of(pass_at(in.trace, r)) == "compute" && pass_at(in.trace, r).dump().find("\"" + name + "\"") != std::string::npos;
    if (compute) continue;
    Finding f;
    f.rule = "no-storage";
    f.where.image = name;
    f.id = "no-storage:" + name;
    f.problem = name + " has STORAGE usage that no compute pass uses: framebuffer compression (AFBC, UBWC) is off for it";
    f.fix = "usage without storage";
    json usage = json::array();
    for (const json& u : image["usage"])
      if (u != "storage") usage.push_back(u);
    f.edit.push_back(replace_op("/images/" + std::to_string(i) + "/usage", usage));
    out.push_back(std::move(f));
  }
  return out;
}


// A full-area clear (vkCmdClearAttachments) before the first draw of an attachment's first subpass.
std::vector<Finding> midpass_clear(const RuleInput& in) {
  std::vector<Finding> out;
  for (PassRef r : pass_sequence(in.trace)) {
    const json& pass = pass_at(in.trace, r);
    if (type_of(pass) != "render" || pass.contains("render_area")) continue;
    for (int s = 0; s < int(pass["subpasses"].size()); ++s) {
      const json& sub = pass["subpasses"][s];
      for (int e = 0; e < int(sub.value("clears", json::array()).size()); ++e) {
        const json& c = sub["clears"][e];
        if (c.value("before_draw", 0) != 0 || c.contains("rects")) continue;
        std::vector<int> targets;
        for (const json& slot : c.value("color", json::array()))
          if (slot.is_number_integer() && slot.get<int>() < int(sub["color"].size()) && sub["color"][slot.get<int>()].is_number_integer())
            targets.push_back(sub["color"][slot.get<int>()].get<int>());
        const bool ds = c.value("depth", false) || c.value("stencil", false);
        if (ds && sub.contains("depth") && sub["depth"].is_number_integer()) targets.push_back(sub["depth"].get<int>());
        if (targets.empty() || std::any_of(targets.begin(), targets.end(), [&](int a) { return first_use(pass, a) != s; }))
          continue;
        Finding f = at_attachment("clear-on-load", in.trace, r, targets.front());
        f.where.subpass = s;
        f.id += ".s" + std::to_string(s) + ".c" + std::to_string(e);
        f.problem = "a full-area clear before the first draw of subpass " + std::to_string(s);
        f.fix = "load: clear with its value, the clear removed";
        for (int a : targets) {
          const std::string base = pointer(r) + "/attachments/" + std::to_string(a);
          const bool depth_target = ds && sub.contains("depth") && sub["depth"] == a;
          f.edit.push_back(set_op(base, depth_target && !c.value("depth", false) ? "stencil_load" : "load", "clear"));
          if (depth_target && c.value("depth", false) && c.value("stencil", false)) f.edit.push_back(set_op(base, "stencil_load", "clear"));
          if (c.contains("value")) f.edit.push_back(set_op(base, "clear", c["value"]));
        }
        f.edit.push_back(json{{"op", "remove"}, {"path", pointer(r) + "/subpasses/" + std::to_string(s) + "/clears/" + std::to_string(e)}});
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

json remap(const json& v, const std::vector<int>& map) {
  if (v.is_number_integer()) return map[v.get<int>()];
  if (!v.is_array()) return v;
  json out = json::array();
  for (const json& x : v) out.push_back(x.is_number_integer() ? json(map[x.get<int>()]) : x);
  return out;
}

// Pass j appended to pass i as subpasses: shared images keep i's attachment with j's store op.
json merged_pass(const json& pi, const json& pj) {
  json m = pi;
  const std::set<int> used = used_attachments(pi);
  std::vector<int> map;
  for (const json& att : pj["attachments"]) {
    int found = -1;
    for (int a = 0; a < int(m["attachments"].size()); ++a)
      if (m["attachments"][a]["image"] == att["image"]) found = a;
    if (found < 0) {
      m["attachments"].push_back(att);
      found = int(m["attachments"].size()) - 1;
    } else if (!used.count(found)) {
      m["attachments"][found] = att;  // Vulkan ignored its ops in pass i
    } else {
      for (const char* k : {"store", "stencil_store", "new_layout"})
        if (att.contains(k)) m["attachments"][found][k] = att[k]; else m["attachments"][found].erase(k);
    }
    map.push_back(found);
  }
  const int offset = int(pi["subpasses"].size());
  for (json s : pj["subpasses"]) {
    for (const char* k : {"color", "input", "resolve", "preserve", "depth", "depth_resolve"})
      if (s.contains(k)) s[k] = remap(s[k], map);
    m["subpasses"].push_back(s);
  }
  if (!m.contains("dependencies")) m["dependencies"] = json::array();
  for (json d : pj.value("dependencies", json::array())) {
    for (const char* k : {"src_subpass", "dst_subpass"})
      if (d[k].is_number_integer()) d[k] = d[k].get<int>() + offset;
    m["dependencies"].push_back(d);
  }
  m["dependencies"].push_back(json{{"src_subpass", offset - 1}, {"dst_subpass", offset},
                                   {"src_stages", {"color_attachment_output", "late_fragment_tests"}},
                                   {"dst_stages", {"fragment_shader", "early_fragment_tests"}},
                                   {"src_access", {"color_attachment_write", "depth_stencil_attachment_write"}},
                                   {"dst_access", {"input_attachment_read", "depth_stencil_attachment_read"}},
                                   {"by_region", true}});
  return m;
}

// Consecutive render passes (barriers between) where the second loads what the first stored.
std::vector<Finding> merge_passes(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  for (size_t i = 0; i < seq.size(); ++i) {
    const json& pi = pass_at(in.trace, seq[i]);
    if (type_of(pi) != "render" || pi.contains("render_area")) continue;
    size_t j = i + 1;
    while (j < seq.size() && seq[j].frame == seq[i].frame && type_of(pass_at(in.trace, seq[j])) == "barrier") ++j;
    if (j >= seq.size() || seq[j].frame != seq[i].frame || type_of(pass_at(in.trace, seq[j])) != "render") continue;
    const json& pj = pass_at(in.trace, seq[j]);
    if (pj.contains("render_area")) continue;
    bool carries = false, blocked = false;
    std::set<std::string> stored;
    const std::set<int> used = used_attachments(pi);  // Vulkan ignores the ops of the others
    for (int b = 0; b < int(pi["attachments"].size()); ++b)
      if (used.count(b) && str(pi["attachments"][b], "store", "store") == "store") stored.insert(str(pi["attachments"][b], "image", ""));
    for (const json& a : pj["attachments"]) {
      const std::string image = str(a, "image", "");
      for (int b = 0; b < int(pi["attachments"].size()); ++b)
        if (used.count(b) && str(pi["attachments"][b], "image", "") == image) {
          if (str(a, "load", "dont_care") == "load") carries |= stored.count(image) > 0; else blocked = true;
        }
    }
    for (const std::string& s : sampled_images(pj)) blocked |= stored.count(s) > 0;
    if (!carries || blocked) continue;
    Finding f = at_attachment("merge-passes", in.trace, seq[i], -1);
    f.id += "+" + str(pj, "name", "");
    f.problem = "render pass " + str(pj, "name", "") + " loads what " + f.where.pass_name + " stored";
    f.fix = "one render pass: " + str(pj, "name", "") + "'s subpasses appended to " + f.where.pass_name +
            " (by-region dependency); " + str(pj, "name", "") + " becomes an empty barrier";
    f.edit.push_back(replace_op(pointer(seq[i]), merged_pass(pi, pj)));
    f.edit.push_back(to_barrier(seq[j], pj));
    out.push_back(std::move(f));
  }
  return out;
}

// The images a pass names anywhere (attachments, bindings, copies, barriers).
std::set<std::string> images_named(const json& v) {
  std::set<std::string> out;
  if (v.is_object()) {
    for (const auto& [key, child] : v.items()) {
      if (key == "image" && child.is_string()) out.insert(child.get<std::string>());
      for (const std::string& i : images_named(child)) out.insert(i);
    }
  } else if (v.is_array()) {
    for (const json& child : v)
      for (const std::string& i : images_named(child)) out.insert(i);
  }
  return out;
}

// Whether render pass `c` continues `a` as OpenGL ES draws on a rebound framebuffer do: one subpass
// each with the same attachment references, the same images in the same order, every attachment of
// `c` loading what `a` stored, no mid-pass clears in `c`, no render area.
bool continues(const json& a, const json& c) {
  if (a.contains("render_area") || c.contains("render_area") || a["subpasses"].size() != 1 || c["subpasses"].size() != 1 ||
      a["attachments"].size() != c["attachments"].size() || c["subpasses"][0].contains("clears"))
    return false;
  json sa = a["subpasses"][0], sc = c["subpasses"][0];
  sa.erase("draws");
  sc.erase("draws");
  if (sa != sc) return false;
  for (size_t k = 0; k < a["attachments"].size(); ++k) {
    const json &x = a["attachments"][k], &y = c["attachments"][k];
    if (x["image"] != y["image"] || x.value("mip", 0) != y.value("mip", 0) || x.value("layer", 0) != y.value("layer", 0) ||
        str(y, "load", "dont_care") != "load" || str(x, "store", "store") != "store")
      return false;
  }
  return true;
}

// `a` with `c`'s draws appended and `c`'s store ops, final layouts and inferred stores.
json continued(const json& a, const json& c) {
  json m = a;
  for (const json& d : c["subpasses"][0].value("draws", json::array())) m["subpasses"][0]["draws"].push_back(d);
  for (size_t k = 0; k < m["attachments"].size(); ++k) {
    json& x = m["attachments"][k];
    const json& y = c["attachments"][k];
    for (const char* key : {"store", "stencil_store", "new_layout"})
      if (y.contains(key)) x[key] = y[key]; else x.erase(key);
    if (y.contains("inferred") && y["inferred"].contains("store")) x["inferred"]["store"] = y["inferred"]["store"];
    else if (x.contains("inferred")) x["inferred"].erase("store");
  }
  return m;
}

// Three consecutive render passes A, B, C where C continues A (OpenGL ES: a framebuffer bound, another,
// then the first again) and B names none of A's images: B first, then A and C as one render pass.
std::vector<Finding> reorder_passes(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  for (size_t i = 0; i + 2 < seq.size(); ++i) {
    if (seq[i + 2].frame != seq[i].frame) continue;
    const json &a = pass_at(in.trace, seq[i]), &b = pass_at(in.trace, seq[i + 1]), &c = pass_at(in.trace, seq[i + 2]);
    if (type_of(a) != "render" || type_of(b) != "render" || type_of(c) != "render" || !continues(a, c)) continue;
    const std::set<std::string> ia = images_named(a), ib = images_named(b);
    if (std::any_of(ib.begin(), ib.end(), [&](const std::string& x) { return ia.count(x) > 0; })) continue;
    Finding f = at_attachment("reorder-passes", in.trace, seq[i], -1);
    f.id += "+" + str(c, "name", "");
    f.problem = "render pass " + str(c, "name", "") + " loads what " + f.where.pass_name + " stored, and " + str(b, "name", "") +
                " between them names none of its images (a framebuffer bound again)";
    f.fix = str(b, "name", "") + " first, then " + f.where.pass_name + " and " + str(c, "name", "") + " as one render pass (" +
            str(c, "name", "") + "'s draws appended; it becomes an empty barrier)";
    f.edit.push_back(replace_op(pointer(seq[i]), continued(a, c)));
    f.edit.push_back(to_barrier(seq[i + 2], c));
    f.edit.push_back(json{{"op", "move"}, {"from", pointer(seq[i + 1])}, {"path", pointer(seq[i])}});
    out.push_back(std::move(f));
  }
  return out;
}

// OpenGL ES: an attachment written back at a swap or framebuffer switch because no
// glInvalidateFramebuffer covered it (the capture's `inferred` store), which nothing later reads.
std::vector<Finding> gl_invalidate(const RuleInput& in) {
  std::vector<Finding> out;
  const std::vector<PassRef> seq = pass_sequence(in.trace);
  const std::set<std::string> outputs = frame_outputs(in.trace, seq);
  for (size_t k = 0; k < seq.size(); ++k) {
    const json& pass = pass_at(in.trace, seq[k]);
    if (type_of(pass) != "render") continue;
    const std::set<int> used = used_attachments(pass);
    bool default_fb = false;  // the window surface's framebuffer: GL_COLOR / GL_DEPTH / GL_STENCIL
    for (const json& att : pass["attachments"]) default_fb |= is_swapchain(in.trace, str(att, "image", ""));
    Finding f = at_attachment("gl-invalidate", in.trace, seq[k], -1);
    std::vector<std::string> enums;
    std::string images;
    long event = -1;
    for (int a = 0; a < int(pass.value("attachments", json::array()).size()); ++a) {
      const json& att = pass["attachments"][a];
      const std::string image = str(att, "image", "");
      const long e = gl_store_event(att);
      if (e < 0 || !used.count(a) || outputs.count(image) || is_transient(in.trace, image) ||
          next_access(in.trace, seq, k, image) == Access::read)
        continue;
      const json* desc = find_image(in.trace, image);
      const std::string format = desc ? str(*desc, "format", "") : "";
      const bool color_store = str(att, "store", "store") == "store";
      const bool stencil_store = str(att, "stencil_store", "dont_care") == "store";
      const bool stencil = !format.empty() && format.find('S') != std::string::npos && (format[0] == 'D' || format[0] == 'S');
      const std::string base = pointer(seq[k]) + "/attachments/" + std::to_string(a);
      int slot = -1, s = -1;
      if (color_slot(pass, a, s, slot)) {
        if (!color_store) continue;
        enums.push_back(default_fb ? "GL_COLOR" : "GL_COLOR_ATTACHMENT" + std::to_string(slot));
      } else if (!format.empty() && format[0] == 'S') {
        enums.push_back(default_fb ? "GL_STENCIL" : "GL_STENCIL_ATTACHMENT");
      } else if (default_fb) {
        if (color_store) enums.push_back("GL_DEPTH");
        if (stencil && stencil_store) enums.push_back("GL_STENCIL");
      } else {
        enums.push_back(stencil && stencil_store && color_store ? "GL_DEPTH_STENCIL_ATTACHMENT"
                        : color_store                          ? "GL_DEPTH_ATTACHMENT"
                                                               : "GL_STENCIL_ATTACHMENT");
      }
      if (color_store) f.edit.push_back(set_op(base, "store", "dont_care"));
      if (stencil_store) f.edit.push_back(set_op(base, "stencil_store", "dont_care"));
      images += (images.empty() ? "" : ", ") + image;
      event = e;
      if (f.where.attachment < 0) f.where.attachment = a;
    }
    if (enums.empty()) continue;
    std::string list;
    for (const std::string& e : enums) list += (list.empty() ? "" : ", ") + e;
    f.where.event = std::to_string(event);
    f.where.image = images;
    f.problem = images + " written back at event " + f.where.event + " (no glInvalidateFramebuffer), and nothing later reads it";
    f.fix = "before event " + f.where.event + ": glInvalidateFramebuffer(GL_FRAMEBUFFER, " + std::to_string(enums.size()) +
            ", {" + list + "})";
    out.push_back(std::move(f));
  }
  return out;
}
}  // namespace

std::set<std::string> presented_images(const json& trace) { return frame_outputs(trace, pass_sequence(trace)); }

const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> all = {
      {"load-clear", "LOAD of undefined contents -> CLEAR", load_undefined},
      {"load-dont-care", "LOAD of an attachment the first draw overwrites -> DONT_CARE", load_overwritten},
      {"store-dont-care", "STORE nothing later reads -> DONT_CARE", store_unread},
      {"transient", "attachment living inside one pass -> transient", transient_candidates},
      {"inline-resolve", "stored multisampled image resolved by a separate pass -> inline resolve", separate_resolve},
      {"keep-layout", "old_layout UNDEFINED on kept contents -> the last layout", undefined_layout},
      {"no-storage", "STORAGE usage without compute -> no STORAGE (AFBC, UBWC)", storage_usage},
      {"clear-on-load", "full-area clear before the first draw -> load: clear", midpass_clear},
      {"merge-passes", "next render pass loads what this one stored -> one render pass", merge_passes},
      {"reorder-passes", "framebuffer bound, another, then the first again -> the other first, one render pass", reorder_passes},
      {"composite-layer", "layer cleared, blended and composited over a base -> blend into the base", composite_layer},
      {"copy-pass", "full-screen copy pass -> render into the copy's target", copy_pass},
      {"narrow-gbuffer", "G-buffer over the tile budget -> narrower formats", narrow_gbuffer},
      {"narrow-target", "RGBA16F color target whose alpha nothing reads -> B10G11R11_UFLOAT", narrow_target},
      {"param-buffer-flush", "parameter-buffer flushes (reported, no edit)", param_buffer_flushes},
      {"front-to-back", "opaque draws back to front -> nearest first (HSR in draw order)", draw_order},
      {"depth-prepass", "opaque depth-tested draws shaded twice a pixel or more -> a depth pre-pass, then depth EQUAL", depth_prepass},
      {"opaque-blend", "blending on opaque fragments -> blending off", opaque_blend},
      {"merge-layers", "consecutive full-screen layers blended over -> one draw composing them", merge_layers},
      {"merge-fix", "subpasses refused merging (depth attachment differs) -> share the depth", merge_fix},
      {"gl-invalidate", "OpenGL ES store nothing reads -> glInvalidateFramebuffer before the call that ends the pass", gl_invalidate},
      {"compress-textures", "material texture sampled uncompressed (RGBA8, RGB8) -> ASTC 4x4 / ETC2 RGB8", compress_textures},
      {"add-mipmaps", "material texture minified without a mip chain -> mip: generate", add_mipmaps},
      {"split-positions", "vertex buffer interleaving positions with other attributes -> a position stream of its own", split_positions},
  };
  return all;
}

}  // namespace tbdr::advise
