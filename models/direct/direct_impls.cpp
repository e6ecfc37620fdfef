// direct=never, always and turnip_autotune: render a pass in tiles (GMEM, tile buffer) or directly
// to its DRAM-backed attachments through a framebuffer cache (sysmem / immediate mode;
// models/README.md "Sources: the two-phase machine", "Sources: merging subpasses", "Sources: preset numbers").
//
// turnip_autotune is Mesa turnip's bandwidth heuristic (src/freedreno/vulkan/tu_autotune.c(c),
// tu_autotune_use_bypass; models/README.md "Sources: preset numbers"):
//   sysmem_bw = sysmem_bytes_per_pixel x pixels + draw_bytes
//   gmem_bw   = (gmem_bytes_per_pixel x pixels x 11 + draw_bytes) / 10
//   direct (sysmem) when sysmem_bw <= gmem_bw.
// ("The magic numbers of 11 and 10 are randomly chosen": drawcalls still touch GMEM and the state
// changes between tiles cost something.) Turnip computes in 64-bit integers; the model keeps the
// fractions. Without render-pass history (history=false: turnip's first sight of a pass, or autotune
// disabled) it falls back to fallback_use_bypass: direct only with at most 5 draws and no MSAA.
#include <charconv>
#include <memory>
#include <string>

#include "models/direct/direct.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

std::string number(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

// The framebuffer cache of direct rendering, declared by the implementations that may render directly.
struct FbCache {
  uint64_t bytes;
  uint32_t line;
  FbCache(Params& p, int64_t default_bytes, const std::string& source)
      : bytes(uint64_t(p.integer("fb_cache_bytes", default_bytes, "B",
                                 "framebuffer cache direct rendering goes through (" + source + ")", 0,
                                 int64_t(1) << 40))),
        // guess: 64-byte lines, the common cache line of mobile SoCs.
        line(uint32_t(p.integer("line_bytes", 64, "B", "framebuffer cache line size (guess)", 1, 4096))) {}
};

class NeverDirect final : public DirectModel {
 public:
  DirectDecision decide(const DirectInput&) const override {
    DirectDecision d;
    d.direct = false;
    d.reason = "tiled: direct=never";
    return d;
  }
};

class AlwaysDirect final : public DirectModel {
 public:
  // guess: 256 KiB, a desktop GPU's L2 share for render targets.
  explicit AlwaysDirect(Params& p) : m_cache(p, 256 * 1024, "guess: a desktop GPU's L2 share") {}
  DirectDecision decide(const DirectInput&) const override {
    DirectDecision d;
    d.direct = true;
    d.reason = "direct: direct=always";
    d.fb_cache_bytes = m_cache.bytes;
    d.line_bytes = m_cache.line;
    return d;
  }

 private:
  FbCache m_cache;
};

class TurnipAutotune final : public DirectModel {
 public:
  explicit TurnipAutotune(Params& p)
      // 1966080 B = 6 CCUs x (64 KiB color + 256 KiB depth) sysmem caches of Adreno A7xx (Mesa
      // src/freedreno/common/a7xx_gpu.py: sysmem_per_ccu_color_cache_size, ..._depth_..., FD740 num_ccu = 6).
      : m_cache(p, 6 * (64 + 256) * 1024, "A740: 6 CCUs x (64 KiB color + 256 KiB depth), Mesa a7xx_gpu.py"),
        // true: steady state, turnip has seen the render pass in an earlier frame.
        m_history(p.flag("history", true,
                         "compare bandwidths as turnip does once it has history; false: its fallback "
                         "(direct with <= 5 draws and no MSAA)")) {}

  DirectDecision decide(const DirectInput& in) const override {
    DirectDecision d;
    d.fb_cache_bytes = m_cache.bytes;
    d.line_bytes = m_cache.line;
    if (!m_history) {
      d.direct = in.draws <= 5 && in.samples <= 1;
      d.reason = std::string(d.direct ? "direct" : "tiled") + ": no history, " + std::to_string(in.draws) +
                 " draws, " + std::to_string(in.samples) + " samples (direct needs <= 5 draws and 1 sample)";
      return d;
    }
    const double pixels = double(in.pixels);
    d.sysmem_bandwidth = in.sysmem_bytes_per_pixel * pixels + in.draw_bytes;
    d.gmem_bandwidth = (in.gmem_bytes_per_pixel * pixels * 11 + in.draw_bytes) / 10;
    d.direct = d.sysmem_bandwidth <= d.gmem_bandwidth;
    d.reason = std::string(d.direct ? "direct: sysmem_bw " : "tiled: sysmem_bw ") + number(d.sysmem_bandwidth) +
               (d.direct ? " <= " : " > ") + "gmem_bw " + number(d.gmem_bandwidth);
    return d;
  }

 private:
  FbCache m_cache;
  bool m_history;
};

const Registrar<DirectModel> never_registrar("direct", "never", "always render in tiles",
                                             [](Params&) { return std::make_unique<NeverDirect>(); });
const Registrar<DirectModel> always_registrar(
    "direct", "always", "always render directly to DRAM through a framebuffer cache (immediate mode)",
    [](Params& p) { return std::make_unique<AlwaysDirect>(p); });
const Registrar<DirectModel> turnip_autotune_registrar(
    "direct", "turnip_autotune",
    "Mesa turnip's choice: direct when sysmem_bw <= (11 x gmem_bw + draw_bw) / 10 (Mesa tu_autotune)",
    [](Params& p) { return std::make_unique<TurnipAutotune>(p); });

}  // namespace
}  // namespace tbdr::models
