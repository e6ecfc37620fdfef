// Reading and editing a trace's JSON for the rules of `tbdrsim advise` (advise_rules*.cpp): its
// passes in frame order, what each does with an image, RFC 6902 edits.
#include "tools/commands/advise_trace_json.h"

namespace tbdr::advise::trace_json {


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

void for_each_render_subpass(const json& trace, const std::function<void(PassRef r, const json& pass, int s, const json& sub)>& visit) {
  for (PassRef r : pass_sequence(trace)) {
    const json& pass = pass_at(trace, r);
    if (type_of(pass) != "render") continue;
    for (int s = 0; s < int(pass.value("subpasses", json::array()).size()); ++s) visit(r, pass, s, pass["subpasses"][s]);
  }
}

bool blends(const json& state) {
  for (const json& b : state.value("blend", json::array()))
    if (b.value("enable", false)) return true;
  return false;
}

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

// Every pass that names the image, outside pass `skip` (a name is enough: any reference counts).
bool referenced_elsewhere(const json& trace, const std::vector<PassRef>& seq, const std::string& pass_name,
                          const std::string& image, const std::string& skip) {
  for (PassRef r : seq) {
    const json& pass = pass_at(trace, r);
    const std::string name = str(pass, "name", "");
    if (name == pass_name || (!skip.empty() && name == skip)) continue;
    if (pass.dump().find("\"" + image + "\"") != std::string::npos) return true;
  }
  return false;
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

}  // namespace tbdr::advise::trace_json
