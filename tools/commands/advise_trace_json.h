// Reading and editing a trace's JSON for the rules of `tbdrsim advise` (advise_rules*.cpp): its
// passes in frame order, what each does with an image, RFC 6902 edits.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "tools/commands/advise.h"

namespace tbdr::advise {

// The rules of advise_rules_draws.cpp, listed by rules() (advise_rules.cpp).
std::vector<Finding> load_overwritten(const RuleInput& in);
std::vector<Finding> composite_layer(const RuleInput& in);
std::vector<Finding> copy_pass(const RuleInput& in);
std::vector<Finding> param_buffer_flushes(const RuleInput& in);
std::vector<Finding> narrow_gbuffer(const RuleInput& in);
std::vector<Finding> draw_order(const RuleInput& in);
std::vector<Finding> opaque_blend(const RuleInput& in);
std::vector<Finding> merge_fix(const RuleInput& in);
// Whether a clip-space draw of `pass` covers every pixel centre of the pass's area (advise_rules_draws.cpp).
bool covers_screen(const RuleInput& in, const nlohmann::json& pass, const nlohmann::json& draw);
// The rules of advise_rules_overdraw.cpp (overdraw: depth pre-pass, blended layers).
std::vector<Finding> depth_prepass(const RuleInput& in);
std::vector<Finding> merge_layers(const RuleInput& in);
// The rule of advise_rules_formats.cpp (render-target formats).
std::vector<Finding> narrow_target(const RuleInput& in);
// The rules of advise_rules_resources.cpp (material textures).
std::vector<Finding> compress_textures(const RuleInput& in);
std::vector<Finding> add_mipmaps(const RuleInput& in);
// The rule of advise_rules_vertices.cpp (vertex layouts).
std::vector<Finding> split_positions(const RuleInput& in);

namespace trace_json {

using nlohmann::json;

// The string member `key` of `o`, else `def`.
std::string str(const json& o, const char* key, const std::string& def);
std::string type_of(const json& pass);  // render, compute, copy, blit, resolve, barrier

const json* find_image(const json& trace, const std::string& name);  // null if none
int image_index(const json& trace, const std::string& name);         // -1 if none
bool is_swapchain(const json& trace, const std::string& image);
bool is_transient(const json& trace, const std::string& image);
bool has_usage(const json& image, const std::string& usage);

// The attachment indices some subpass references (Vulkan ignores the ops of the others).
std::set<int> used_attachments(const json& pass);
// The images the draws of a render pass sample.
std::set<std::string> sampled_images(const json& pass);

// Every (frame, pass) of the frames that list passes, in order: the frame sequence the rules see.
struct PassRef {
  int frame, pass;
};
std::vector<PassRef> pass_sequence(const json& trace);
const json& pass_at(const json& trace, PassRef r);

// What a pass does first with an image's contents: reads them, replaces them, or neither.
enum class Access { none, read, overwrite };
bool ref_names(const json& v, const std::string& image);  // an image reference naming `image`
bool whole_ref(const json& v);                             // the whole image, no region
Access access(const json& trace, const json& pass, const std::string& image);
// The first access to `image` after pass `from`, wrapping around (the frames repeat).
Access next_access(const json& trace, const std::vector<PassRef>& seq, size_t from, const std::string& image);
// Images that leave the frame (swapchain, moved to `present`, else the last stored image).
std::set<std::string> frame_outputs(const json& trace, const std::vector<PassRef>& seq);

// Every subpass of every render pass of the frame sequence, in order.
void for_each_render_subpass(const json& trace, const std::function<void(PassRef r, const json& pass, int s, const json& sub)>& visit);
// Whether a draw state blends on some color slot.
bool blends(const json& state);

// RFC 6902 operations and JSON pointers.
std::string pointer(PassRef r);
json replace_op(const std::string& path, const json& value);
json add_op(const std::string& path, const json& value);
json set_op(const std::string& path, const std::string& key, const json& value);  // add or replace a member
json to_barrier(PassRef r, const json& pass);  // the pass as an empty barrier: indices stay

// The capture's event id of the pass's first draw ("event_<EID>"), "" if none.
std::string first_event(const json& pass);
// A finding of `rule` about pass `r` (and its attachment `a`, -1: none), its id and subject set.
Finding at_attachment(const std::string& rule, const json& trace, PassRef r, int a);

// Whether a pass other than `pass_name` (and `skip`) names the image.
bool referenced_elsewhere(const json& trace, const std::vector<PassRef>& seq, const std::string& pass_name,
                          const std::string& image, const std::string& skip = "");
// The render pass before `k` in its frame storing `image` as a color attachment (-1: none).
int storing_pass(const json& trace, const std::vector<PassRef>& seq, size_t k, const std::string& image, int& attachment);
// The last subpass of a pass writing attachment `a` as color, and its slot.
bool color_slot(const json& pass, int a, int& subpass, int& slot);
// The layout an image was left in before pass `k` (wrapping around), "" if none is known.
std::string last_layout(const json& trace, const std::vector<PassRef>& seq, size_t k, const std::string& image);
// The first subpass of a pass referencing attachment `a` (-1: none).
int first_use(const json& pass, int a);

}  // namespace trace_json
}  // namespace tbdr::advise
