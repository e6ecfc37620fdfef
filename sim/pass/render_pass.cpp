// An API render pass as the pipeline diagram runs it: setup -> plan (merge, direct) -> each
// hardware pass (geometry, binning, tiles, tile buffer, savers, costing) -> the pass's figures.
#include "sim/pass/render_pass.h"

#include <algorithm>

#include "sim/pass/phase_clock.h"
#include "sim/pass/plan.h"
#include "sim/programs.h"
#include "sim/tile_work.h"

namespace tbdr {
namespace {

// Layout transitions at the pass start: from undefined, general or transfer_dst the TE
// signatures no longer describe memory, except for swapchain images, whose driver keeps them
// across their per-frame undefined (Arm: transaction elimination and image layouts,
// models/README.md "write_elim").
void transition_layouts(const PassSetup& setup, SaverState& savers) {
  for (const PassAttachment& a : setup.attachments) {
    const Layout old = a.desc->old_layout;
    if ((old == Layout::undefined || old == Layout::general || old == Layout::transfer_dst) && a.image->swapchain == 0)
      savers.invalidate_signatures(a.desc->image);
  }
}

// Draws whose fragments cannot occlude, per cause (models/README.md "hsr").
void count_hsr_breakers(const PassSetup& setup, PassStats& stats) {
  for (const PassDraw& d : setup.draws) {
    const ProgramInfo* program = find_program(d.draw->program.name);
    const HsrBreakers breakers = hsr_breakers(*d.draw, program ? program->input_attachments : 0);
    stats.hsr_disabled_blending += breakers.blending ? 1 : 0;
    stats.hsr_disabled_discard += breakers.discard ? 1 : 0;
    stats.hsr_disabled_shader_depth_write += breakers.shader_depth_write ? 1 : 0;
    stats.hsr_disabled_tile_read += breakers.tile_read ? 1 : 0;
  }
}

// Direct rendering (Qualcomm FlexRender / Mesa turnip sysmem, or IMR): the whole render pass at
// once over the render area, every depth/stencil/color access through the framebuffer cache, no
// binning. The cache's dirty lines are written back at the end whatever the store op; costing adds
// its bytes to the fragment phase (sim/pass/costing.cpp).
void run_direct(const PassContext& ctx, const PassSetup& setup, const models::DirectDecision& decision,
                RenderPassState& state, PassStats& stats, std::vector<HardwarePassRecord>& records) {
  const uint32_t last = uint32_t(std::max<size_t>(setup.pass->subpasses.size(), 1) - 1);
  const HardwarePassPlan plan = plan_hardware_pass(setup, *ctx.models, ctx.options->path, 0, last, &decision);
  FramebufferCache cache(decision.fb_cache_bytes, decision.line_bytes);
  HardwarePassRecord record = run_hardware_pass(ctx, setup, plan, state, stats.counters, &cache);
  cache.flush();
  record.direct_cache = cache.ledger();
  stats.merge.merged = true;
  records.push_back(std::move(record));
}

}  // namespace

PassSetup run_render_pass(const PassContext& ctx, const Trace& trace, const Pass& pass, const std::string& where,
                          PassStats& stats, std::vector<HardwarePassRecord>& records) {
  const models::ModelSet& models = *ctx.models;
  PassSetup setup;
  RenderPassState state;
  timed_phase(ctx.options->phase_times, &PhaseTimes::setup, [&] {
    setup = prepare_pass(trace, pass, where, *ctx.store);
    transition_layouts(setup, *ctx.savers);
    state.attachments = describe_attachments(setup, models);
    count_hsr_breakers(setup, stats);
  });
  if (ctx.options->overdraw) {
    stats.overdraw_width = setup.framebuffer_width;
    stats.overdraw_height = setup.framebuffer_height;
    stats.overdraw.assign(size_t(setup.framebuffer_width) * setup.framebuffer_height, 0);
    state.overdraw = &stats.overdraw;
  }
  if (ctx.options->path == RenderPath::tbdr) {
    const models::DirectDecision direct = models.direct->decide(direct_input(setup));
    if (direct.direct) {
      run_direct(ctx, setup, direct, state, stats, records);
      stats.attachments = std::move(state.attachments);
      return setup;
    }
  }
  const models::MergeDecision decision = decide_merge(setup, models, ctx.options->path);
  stats.merge.merged = decision.merged();
  stats.merge.reasons = decision.reasons;
  for (const auto& group : decision.hardware_passes) {
    const HardwarePassPlan plan =
        plan_hardware_pass(setup, models, ctx.options->path, group.first, group.last, nullptr);
    records.push_back(run_hardware_pass(ctx, setup, plan, state, stats.counters, nullptr));
    stats.working_set_bytes_per_tile =
        std::max(stats.working_set_bytes_per_tile, records.back().functional.working_set_bytes_per_tile);
  }
  stats.attachments = std::move(state.attachments);
  return setup;
}

}  // namespace tbdr
