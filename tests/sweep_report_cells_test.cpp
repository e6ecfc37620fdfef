// A sweep row's report cells built straight from a run's figures (tools/commands/sweep_report_cells.cpp)
// equal those flattened from report_json: the same columns in the same order, the same values and JSON types.
#include <gtest/gtest.h>
#include "test_paths.h"

#include <filesystem>

#include "frontend/trace_reader.h"
#include "models/registry.h"
#include "sim/pipeline.h"
#include "tools/commands/report.h"
#include "tools/commands/sweep_internal.h"

namespace fs = std::filesystem;
using namespace tbdr;
using namespace tbdr::sweep;

namespace {

// "name=value:type" per cell: a cell of another column, value or JSON type (unsigned against signed
// integer, say) differs.
std::vector<std::string> described(const FlatRow& row) {
  std::vector<std::string> out;
  for (const Cell& c : row) out.push_back(c.key->name + "=" + c.value.dump() + ":" + c.value.type_name() +
                                          (c.value.is_number_unsigned() ? "u" : ""));
  return out;
}

void expect_same_cells(const std::string& trace_path, const std::string& preset, const std::vector<std::string>& sets) {
  models::Configuration config = models::Configuration::from_preset(preset);
  for (const std::string& s : sets) config.apply(s);
  const models::ModelSet models = models::build_models(config);
  const Trace trace = read_trace(fs::path(TBDR_SOURCE_DIR) / trace_path);
  SimOptions options;
  options.threads = 1;
  const RunStats stats = simulate(trace, models, options, nullptr);
  const nlohmann::json report = report_json(ReportContext{}, stats);
  RowKeys keys;
  RowBuilder tree(keys), direct(keys);
  size_t passes = 0, records = 0;
  for (size_t f = 0; f < stats.frames.size(); ++f) {
    const nlohmann::json& frame = report.at("frames").at(f);
    for (size_t p = 0; p < stats.frames[f].passes.size(); ++p, ++passes) {
      const nlohmann::json& pass = frame.at("passes").at(p);
      tree.start({});
      tree.flatten(pass, "attachments");
      direct.start({});
      pass_cells(stats.frames[f].passes[p], direct);
      EXPECT_EQ(described(direct.take()), described(tree.take())) << trace_path << " frame " << f << " pass " << p;
      const auto& attachments = stats.frames[f].passes[p].attachments;
      ASSERT_EQ(pass.contains("attachments"), stats.frames[f].passes[p].type == "render");
      if (!pass.contains("attachments")) continue;
      ASSERT_EQ(pass.at("attachments").size(), attachments.size());
      for (size_t a = 0; a < attachments.size(); ++a, ++records) {
        tree.start({});
        tree.flatten(pass.at("attachments").at(a));
        direct.start({});
        attachment_cells(attachments[a], direct);
        EXPECT_EQ(described(direct.take()), described(tree.take())) << trace_path << " pass " << p << " attachment " << a;
      }
    }
  }
  tree.start({});
  tree.flatten(report.at("totals"));
  direct.start({});
  totals_cells(stats, direct);
  EXPECT_EQ(described(direct.take()), described(tree.take())) << trace_path << " totals";
  EXPECT_GT(passes, 0u);
  EXPECT_GT(records, 0u) << trace_path << ": no attachment record compared";
}

TEST(SweepReportCells, DefaultSceneReference) { expect_same_cells("traces/default/scene.json", "reference", {}); }

// The savers on (compression, transaction elimination, empty tiles), texture caches and several cores.
TEST(SweepReportCells, DefaultSceneMaliG710) { expect_same_cells("traces/default/scene.json", "mali-g710", {}); }

// Per-level tile lists (tile_list_levels), the savers of a Bifrost preset.
TEST(SweepReportCells, HierarchicalBinning) {
  expect_same_cells("traces/features/textured.json", "mali-g76", {"binning=hierarchical"});
}

// A merge refused (merge.reasons, several hardware passes), subpasses, frames and a copy pass.
TEST(SweepReportCells, MergesFramesAndCopies) {
  for (const char* trace : {"traces/features/merge_refused_depth_differs.json", "traces/features/merge_accepted_deferred.json",
                            "traces/features/multi_frame.json", "traces/features/copy_blit.json",
                            "traces/features/msaa_separate_resolve.json"})
    expect_same_cells(trace, "mali-g710", {});
}

}  // namespace
