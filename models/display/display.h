// The `display` kind: the present and display timeline of a multi-frame trace (VK_KHR_swapchain's
// present modes, VK_EXT_present_timing's "when was it on screen"): models/README.md "display".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/model.h"

namespace tbdr::models {

// One frame on the timeline, in milliseconds from the first frame's submission.
struct FramePresent {
  double submit_ms = 0;   // the GPU starts the frame (previous frame done and a swapchain image acquired)
  double ready_ms = 0;    // the GPU finished it: vkQueuePresentKHR's request
  bool shown = false;     // false: a later present replaced it before a vertical blank (MAILBOX)
  double present_ms = 0;  // first on screen (shown frames only)
};

// Contract: given each frame's GPU time (ms, > 0) in submission order and the swapchain's image
// count (>= 2), the timeline under the implementation's present mode; frames run back to back on
// the GPU, each waiting for a free swapchain image. Deterministic; no state between calls.
class DisplayModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "display";
  static constexpr const char* k_description =
      "display: present mode (VkPresentModeKHR) and refresh rate; present times, latency, pacing jitter";

  virtual std::vector<FramePresent> present(const std::vector<double>& gpu_ms, uint32_t swapchain_images) const = 0;
  virtual std::string mode() const = 0;        // fifo | mailbox | immediate
  virtual double refresh_hz() const = 0;
  // Images of the swapchain when the trace names no swapchain image (traces/README.md `swapchain`).
  virtual uint32_t default_images() const = 0;
};

}  // namespace tbdr::models
