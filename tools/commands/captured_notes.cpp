// Notes on captured frames (captured_notes.h): read from the trace's programs and attachments.
#include "tools/commands/captured_notes.h"

namespace tbdr {
namespace {

bool has_captured_pixels(const Pass& pass) {
  for (const Attachment& a : pass.attachments)
    if (a.contents && a.contents->captured) return true;
  return false;
}

}  // namespace

std::vector<std::string> captured_frame_notes(const Trace& trace) {
  bool captured = false;
  std::vector<std::string> stand_in;  // draws with a binding read at the pixel's screen position
  for (const Frame& frame : trace.frames)
    for (const Pass& pass : frame.passes) {
      captured = captured || has_captured_pixels(pass);
      for (const Subpass& subpass : pass.subpasses)
        for (const Draw& draw : subpass.draws) {
          if (draw.program.name != "captured") continue;
          captured = true;
          for (const Binding& b : draw.program.bindings)
            if (!b.at_uv) {
              stand_in.push_back(draw.name);
              break;
            }
        }
    }
  if (!captured) return {};
  std::vector<std::string> notes = {
      "a captured frame: its images are the captured pixels (the capture's own, stored at each pass's end), not "
      "shaded here; its draws run a stand-in program whose texture reads count the traffic"};
  if (!stand_in.empty()) {
    std::string names;
    for (const std::string& name : stand_in) names += (names.empty() ? "" : ", ") + name;
    notes.push_back(std::to_string(stand_in.size()) + (stand_in.size() == 1 ? " draw reads" : " draws read") +
                    " a texture at the pixel's screen position: a stand-in where the shader's sampling could not "
                    "be carried (the trace's warnings name those events), the shader's own read where it samples "
                    "at gl_FragCoord: " + names);
  }
  return notes;
}

}  // namespace tbdr
