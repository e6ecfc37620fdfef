// The rules of `tbdrsim advise`: each a pure function from the trace JSON (and its simulated
// report) to findings, each finding an edit of the trace. Sources: models/README.md
// "Sources: advise rules" (Arm Mali best practices, Khronos Vulkan-Samples performance samples).
#include <algorithm>
#include <array>
#include <functional>
#include <set>

#include "tools/lib/advise.h"

namespace tbdr::advise {
namespace {

using nlohmann::json;

std::string str(const json& o, const char* key, const std::string& def) {
  return o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : def;
}
std::string type_of(const json& pass) { return str(pass, "type", "render"); }

const json* find_image(const json& trace, const std::string& name) {
  if (!trace.contains("images")) return nullptr;
  for (const json& i : trace["images"])
    if (str(i, "name", "") == name) return &i;
  return nullptr;
}
int image_index(const json& trace, const std::string& name) {
  for (size_t i = 0; i < trace["images"].size(); ++i)
    if (str(trace["images"][i], "name", "") == name) return int(i);
  return -1;
}
bool is_swapchain(const json& trace, const std::string& image) {
  const json* i = find_image(trace, image);
  return i && i->contains("swapchain");
}
bool is_transient(const json& trace, const std::string& image) {
  const json* i = find_image(trace, image);
  return i && i->value("transient", false);
}
bool has_usage(const json& image, const std::string& usage) {
  if (!image.contains("usage")) return false;
  for (const json& u : image["usage"])
    if (u == usage) return true;
  return false;
}

// The attachment indices some subpass references (Vulkan ignores the ops of the others).
std::set<int> used_attachments(const json& pass) {
  std::set<int> used;
  auto add = [&](const json& v) { if (v.is_number_integer()) used.insert(v.get<int>()); };
  for (const json& s : pass.value("subpasses", json::array())) {
    for (const char* list : {"color", "input", "resolve"})
      if (s.contains(list))
        for (const json& v : s[list]) add(v);
    for (const char* one : {"depth", "depth_resolve"})
      if (s.contains(one)) add(s[one]);
  }
  return used;
}

// The images the draws of a render pass sample.
std::set<std::string> sampled_images(const json& pass) {
  std::set<std::string> out;
  for (const json& s : pass.value("subpasses", json::array()))
    for (const json& d : s.value("draws", json::array())) {
      if (!d.contains("program") || !d["program"].contains("bindings")) continue;
      for (const auto& [slot, b] : d["program"]["bindings"].items())
        if (b.is_object() && b.contains("image")) out.insert(b["image"].get<std::string>());
    }
  return out;
}

// Every (frame, pass) of the frames that list passes, in order: the frame sequence the rules see.
struct PassRef {
  int frame, pass;
};
std::vector<PassRef> pass_sequence(const json& trace) {
  std::vector<PassRef> seq;
  for (size_t f = 0; f < trace["frames"].size(); ++f) {
    const json& frame = trace["frames"][f];
    if (!frame.contains("passes")) continue;
    for (size_t p = 0; p < frame["passes"].size(); ++p) seq.push_back({int(f), int(p)});
  }
  return seq;
}
const json& pass_at(const json& trace, PassRef r) { return trace["frames"][r.frame]["passes"][r.pass]; }

enum class Access { none, read, overwrite };

bool ref_names(const json& v, const std::string& image) {
  return v.is_object() && str(v, "image", "") == image;
}
bool whole_ref(const json& v) { return !v.contains("region"); }

// What a pass does first with an image's contents: reads them, replaces them, or neither.
Access access(const json& trace, const json& pass, const std::string& image) {
  const std::string type = type_of(pass);
  if (type == "render") {
    if (sampled_images(pass).count(image)) return Access::read;
    const std::set<int> used = used_attachments(pass);
    const json& atts = pass.value("attachments", json::array());
    for (size_t a = 0; a < atts.size(); ++a) {
      if (str(atts[a], "image", "") != image || !used.count(int(a))) continue;
      if (str(atts[a], "load", "dont_care") == "load" || str(atts[a], "stencil_load", "dont_care") == "load")
        return Access::read;
      return pass.contains("render_area") ? Access::none : Access::overwrite;
    }
    return Access::none;
  }
  if (type == "compute") {
    for (const json& r : pass.value("reads", json::array()))
      if (ref_names(r, image)) return Access::read;
    for (const json& w : pass.value("writes", json::array()))
      if (ref_names(w, image) && whole_ref(w)) return Access::overwrite;
    return Access::none;
  }
  if (type == "copy" || type == "blit" || type == "resolve") {
    if (pass.contains("src") && ref_names(pass["src"], image)) return Access::read;
    const json* dst = find_image(trace, image);
    if (pass.contains("dst") && ref_names(pass["dst"], image) && whole_ref(pass["dst"]) && dst &&
        dst->value("mip_levels", 1) == 1 && dst->value("array_layers", 1) == 1)
      return Access::overwrite;
    return Access::none;
  }
  for (const json& b : pass.value("images", json::array()))  // barrier
    if (ref_names(b, image) && str(b, "old_layout", "undefined") == "undefined") return Access::overwrite;
  return Access::none;
}

// The first access to `image` after pass `from` of the sequence, wrapping around (the frames
// repeat), ending with pass `from` itself.
Access next_access(const json& trace, const std::vector<PassRef>& seq, size_t from, const std::string& image) {
  for (size_t k = 1; k <= seq.size(); ++k) {
    const Access a = access(trace, pass_at(trace, seq[(from + k) % seq.size()]), image);
    if (a != Access::none) return a;
  }
  return Access::none;
}

// Images that leave the frame: swapchain images, images a pass or barrier moves to `present`,
// else (a trace without either) the image the last frame's last storing pass writes.
std::set<std::string> frame_outputs(const json& trace, const std::vector<PassRef>& seq) {
  std::set<std::string> out;
  for (const json& i : trace["images"])
    if (i.contains("swapchain")) out.insert(str(i, "name", ""));
  for (PassRef r : seq) {
    const json& pass = pass_at(trace, r);
    for (const char* list : {"attachments", "images"})
      for (const json& a : pass.value(list, json::array()))
        if (str(a, "new_layout", "") == "present") out.insert(str(a, "image", ""));
  }
  if (!out.empty()) return out;
  for (size_t k = seq.size(); k-- > 0;) {
    const json& pass = pass_at(trace, seq[k]);
    if (pass.contains("dst")) return {str(pass["dst"], "image", "")};
    for (const json& w : pass.value("writes", json::array())) return {str(w, "image", "")};
    const std::set<int> used = used_attachments(pass);
    const json& atts = pass.value("attachments", json::array());
    for (size_t a = atts.size(); a-- > 0;)
      if (used.count(int(a)) && str(atts[a], "store", "store") == "store") return {str(atts[a], "image", "")};
  }
  return out;
}

std::string pointer(PassRef r) {
  return "/frames/" + std::to_string(r.frame) + "/passes/" + std::to_string(r.pass);
}
json replace_op(const std::string& path, const json& value) {
  return json{{"op", "replace"}, {"path", path}, {"value", value}};
}
json add_op(const std::string& path, const json& value) { return json{{"op", "add"}, {"path", path}, {"value", value}}; }

// The pass becomes an empty barrier: pass indices stay, so edits of several findings compose.
json to_barrier(PassRef r, const json& pass) {
  return replace_op(pointer(r), json{{"name", str(pass, "name", "")}, {"type", "barrier"}});
}

std::string first_event(const json& pass) {
  for (const json& s : pass.value("subpasses", json::array()))
    for (const json& d : s.value("draws", json::array())) {
      const std::string name = str(d, "name", "");
      return name.rfind("event_", 0) == 0 ? name.substr(6) : std::string();
    }
  return "";
}

Finding at_attachment(const std::string& rule, const json& trace, PassRef r, int a) {
  const json& pass = pass_at(trace, r);
  Finding f;
  f.rule = rule;
  f.where.frame = r.frame;
  f.where.pass = r.pass;
  f.where.pass_name = str(pass, "name", "");
  f.where.event = first_event(pass);
  f.id = rule + ":f" + std::to_string(r.frame) + "." + f.where.pass_name;
  if (a >= 0) {
    f.where.attachment = a;
    f.where.image = str(pass["attachments"][a], "image", "");
    f.id += ".a" + std::to_string(a);
  }
  return f;
}

// Sets `key` of a JSON object at `path` whether or not it is there ("add" replaces a member).
json set_op(const std::string& path, const std::string& key, const json& value) { return add_op(path + "/" + key, value); }

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

// Every pass that names the image, outside pass `skip` (a name is enough: any reference counts).
bool referenced_elsewhere(const json& trace, const std::vector<PassRef>& seq, const std::string& pass_name,
                          const std::string& image, const std::string& skip = "") {
  for (PassRef r : seq) {
    const json& pass = pass_at(trace, r);
    const std::string name = str(pass, "name", "");
    if (name == pass_name || (!skip.empty() && name == skip)) continue;
    if (pass.dump().find("\"" + image + "\"") != std::string::npos) return true;
  }
  return false;
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

// The render pass before `k` that stores `image` as a color attachment, and nothing in between names it.
int storing_pass(const json& trace, const std::vector<PassRef>& seq, size_t k, const std::string& image, int& attachment) {
  for (size_t j = k; j-- > 0;) {
    const json& pass = pass_at(trace, seq[j]);
    if (seq[j].frame != seq[k].frame) return -1;
    if (type_of(pass) == "render")
      for (int a = 0; a < int(pass.value("attachments", json::array()).size()); ++a)
        if (str(pass["attachments"][a], "image", "") == image && str(pass["attachments"][a], "store", "store") == "store") {
          attachment = a;
          return int(j);
        }
    if (pass.dump().find("\"" + image + "\"") != std::string::npos) return -1;
  }
  return -1;
}

// The last subpass of a pass writing attachment `a` as color, and its slot.
bool color_slot(const json& pass, int a, int& subpass, int& slot) {
  subpass = -1;
  const json& subs = pass["subpasses"];
  for (int s = 0; s < int(subs.size()); ++s)
    for (int c = 0; c < int(subs[s].value("color", json::array()).size()); ++c)
      if (subs[s]["color"][c] == a) subpass = s, slot = c;
  return subpass >= 0;
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

// The layout an image was left in before pass `k` (wrapping around), "" if none is known.
std::string last_layout(const json& trace, const std::vector<PassRef>& seq, size_t k, const std::string& image) {
  for (size_t d = 1; d <= seq.size(); ++d) {
    const json& pass = pass_at(trace, seq[(k + seq.size() - d) % seq.size()]);
    for (const char* list : {"attachments", "images"}) {
      const json& items = pass.value(list, json::array());
      for (size_t i = items.size(); i-- > 0;)
        if (str(items[i], "image", "") == image) return str(items[i], "new_layout", list[0] == 'a' ? "general" : "undefined");
    }
  }
  return "";
}

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
          is_transient(in.trace, image) || !stored_by_a_render_pass(in.trace, seq, image))
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
    if (!has_usage(image, "storage") || !stored_by_a_render_pass(in.trace, seq, name)) continue;
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

// The first subpass of a pass referencing attachment `a`.
int first_use(const json& pass, int a) {
  const json& subs = pass["subpasses"];
  for (int s = 0; s < int(subs.size()); ++s) {
    json one = json::object();
    one["subpasses"] = json::array({subs[s]});
    if (used_attachments(one).count(a)) return s;
  }
  return -1;
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

bool blends(const json& state) {
  for (const json& b : state.value("blend", json::array()))
    if (b.value("enable", false)) return true;
  return false;
}

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

// Whether a blend state, given source alpha 1, writes the source color unchanged: color
// src * (one | src_alpha) + dst * (zero | one_minus_src_alpha), alpha likewise, op add.
bool opaque_identity(const json& b) {
  auto src = [](const std::string& f) { return f == "one" || f == "src_alpha" || f == "src_alpha_saturate"; };
  auto dst = [](const std::string& f) { return f == "zero" || f == "one_minus_src_alpha"; };
  return src(str(b, "src_color", "one")) && dst(str(b, "dst_color", "zero")) && str(b, "color_op", "add") == "add" &&
         (str(b, "src_alpha", "one") == "one" || str(b, "src_alpha", "one") == "src_alpha") &&
         dst(str(b, "dst_alpha", "zero")) && str(b, "alpha_op", "add") == "add";
}

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
      {"composite-layer", "layer cleared, blended and composited over a base -> blend into the base", composite_layer},
      {"copy-pass", "full-screen copy pass -> render into the copy's target", copy_pass},
      {"narrow-gbuffer", "G-buffer over the tile budget -> narrower formats", narrow_gbuffer},
      {"param-buffer-flush", "parameter-buffer flushes (reported, no edit)", param_buffer_flushes},
      {"front-to-back", "opaque draws back to front -> nearest first (HSR in draw order)", draw_order},
      {"opaque-blend", "blending on opaque fragments -> blending off", opaque_blend},
      {"merge-fix", "subpasses refused merging (depth attachment differs) -> share the depth", merge_fix},
      {"gl-invalidate", "OpenGL ES store nothing reads -> glInvalidateFramebuffer before the call that ends the pass", gl_invalidate},
  };
  return all;
}

}  // namespace tbdr::advise
