// What a reader of a captured frame's figures must be told (tools/rdc2trace's traces): its images
// are the captured pixels, and which draws' texture reads are a stand-in. Report, HTML page, advise.
#pragma once

#include <string>
#include <vector>

#include "sim/frame.h"

namespace tbdr {

// Empty for a trace with no captured draw or captured pixels; otherwise a line on the images and,
// when some draw's sampling was not carried, a line naming every such draw.
std::vector<std::string> captured_frame_notes(const Trace& trace);

}  // namespace tbdr
