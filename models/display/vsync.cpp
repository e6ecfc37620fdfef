// display=fifo|mailbox|immediate: the three VkPresentModeKHR rules of the Vulkan specification
// (chapter "Window System Integration (WSI)", VkPresentModeKHR) on a display of fixed refresh rate.
#include <algorithm>
#include <cmath>
#include <memory>

#include "models/display/display.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

enum class PresentMode { fifo, mailbox, immediate };

class VsyncDisplay final : public DisplayModel {
 public:
  VsyncDisplay(Params& p, PresentMode mode)
      : m_mode(mode),
        // 60 Hz: the refresh rate every phone display supports (guess: higher rates are optional).
        m_refresh_hz(p.real("refresh_hz", 60, "Hz", "display refresh rate (vertical blanks per second)", 1, 1000)),
        // 3 images: triple buffering (guess: a common swapchain size for FIFO on phones).
        m_images(uint32_t(p.integer("images", 3, "images", "swapchain images when the trace names none", 2, 16))) {}

  std::vector<FramePresent> present(const std::vector<double>& gpu_ms, uint32_t images) const override {
    switch (m_mode) {
      case PresentMode::fifo: return fifo(gpu_ms, images);
      case PresentMode::mailbox: return mailbox(gpu_ms, images);
      case PresentMode::immediate: break;
    }
    return immediate(gpu_ms);
  }
  std::string mode() const override {
    return m_mode == PresentMode::fifo ? "fifo" : m_mode == PresentMode::mailbox ? "mailbox" : "immediate";
  }
  double refresh_hz() const override { return m_refresh_hz; }
  uint32_t default_images() const override { return m_images; }

 private:
  double period_ms() const { return 1000.0 / m_refresh_hz; }
  // The first vertical blank strictly after `ms` (blank 0 is at time 0, before any frame).
  int64_t next_blank(double ms) const { return int64_t(std::floor(ms / period_ms())) + 1; }

  // FIFO: "waits for the next vertical blanking period to update the current image ... New requests
  // are appended to the end of the queue, and one request is removed from the beginning of the queue
  // and processed during each vertical blanking period in which the queue is non-empty." Frame i
  // renders into the image frame i - K showed, free once frame i - K + 1 replaced it on screen.
  std::vector<FramePresent> fifo(const std::vector<double>& gpu_ms, uint32_t images) const {
    std::vector<FramePresent> out(gpu_ms.size());
    std::vector<int64_t> blank(gpu_ms.size());
    double gpu_free = 0;
    for (size_t i = 0; i < gpu_ms.size(); ++i) {
      const double image_free = i >= images ? double(blank[i - images + 1]) * period_ms() : 0;
      out[i].submit_ms = std::max(gpu_free, image_free);
      out[i].ready_ms = gpu_free = out[i].submit_ms + gpu_ms[i];
      blank[i] = std::max(next_blank(out[i].ready_ms), i > 0 ? blank[i - 1] + 1 : 0);
      out[i].shown = true;
      out[i].present_ms = double(blank[i]) * period_ms();
    }
    return out;
  }

  // MAILBOX: "waits for the next vertical blanking period ... An internal single-entry queue is used
  // to hold pending presentation requests. If the queue is full when a new presentation request is
  // received, the new request replaces the existing entry, and any images associated with the prior
  // entry become available for reuse." The engine holds the image on screen and the pending one, so
  // with two images the application waits for the pending one to reach the screen.
  std::vector<FramePresent> mailbox(const std::vector<double>& gpu_ms, uint32_t images) const {
    std::vector<FramePresent> out(gpu_ms.size());
    int64_t pending = -1, pending_blank = 0;
    bool on_screen = false;
    auto latch_until = [&](double ms) {  // the pending request reaches the screen at its blank
      if (pending < 0 || double(pending_blank) * period_ms() > ms) return;
      out[size_t(pending)].shown = true;
      out[size_t(pending)].present_ms = double(pending_blank) * period_ms();
      pending = -1;
      on_screen = true;
    };
    double gpu_free = 0;
    for (size_t i = 0; i < gpu_ms.size(); ++i) {
      latch_until(gpu_free);
      const uint32_t held = uint32_t(on_screen) + uint32_t(pending >= 0);
      const double submit = images - held >= 1 ? gpu_free : double(pending_blank) * period_ms();
      latch_until(submit);
      out[i].submit_ms = submit;
      out[i].ready_ms = gpu_free = submit + gpu_ms[i];
      latch_until(gpu_free);  // a pending request still waiting now is replaced: never shown
      pending = int64_t(i);
      pending_blank = next_blank(gpu_free);
    }
    latch_until(INFINITY);
    return out;
  }

  // IMMEDIATE: "does not wait for a vertical blanking period to update the current image, meaning
  // this mode may result in visible tearing": on screen (from the scan line then) when ready.
  static std::vector<FramePresent> immediate(const std::vector<double>& gpu_ms) {
    std::vector<FramePresent> out(gpu_ms.size());
    double gpu_free = 0;
    for (size_t i = 0; i < gpu_ms.size(); ++i) {
      out[i].submit_ms = gpu_free;
      out[i].ready_ms = gpu_free = gpu_free + gpu_ms[i];
      out[i].shown = true;
      out[i].present_ms = gpu_free;
    }
    return out;
  }

  PresentMode m_mode;
  double m_refresh_hz;
  uint32_t m_images;
};

const Registrar<DisplayModel> fifo_registrar(
    "display", "fifo", "VK_PRESENT_MODE_FIFO_KHR: one queued image per vertical blank, no tearing",
    [](Params& p) { return std::make_unique<VsyncDisplay>(p, PresentMode::fifo); });
const Registrar<DisplayModel> mailbox_registrar(
    "display", "mailbox", "VK_PRESENT_MODE_MAILBOX_KHR: the newest image at each vertical blank, older ones dropped",
    [](Params& p) { return std::make_unique<VsyncDisplay>(p, PresentMode::mailbox); });
const Registrar<DisplayModel> immediate_registrar(
    "display", "immediate", "VK_PRESENT_MODE_IMMEDIATE_KHR: on screen when ready, tearing",
    [](Params& p) { return std::make_unique<VsyncDisplay>(p, PresentMode::immediate); });

}  // namespace
}  // namespace tbdr::models
