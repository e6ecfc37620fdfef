// Tests of models/: the registry, presets, the --preset/--set/--tile grammar, build_models' checks and
// the tiling models, with exact expectations (tools/doc/design.md "Design rules": tests).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/registry.h"
#include "models/units.h"

namespace tbdr::models {
namespace {

// Every (kind, impl) the project expects to be linked in; grow it as implementations land.
const std::vector<std::pair<std::string, std::string>> k_expected_implementations = {
    {"tiling", "fixed"},         {"tiling", "mali_budget"},  {"tiling", "gmem_bins"},      {"merge", "arm"},
    {"merge", "arm_budget"},     {"shader", "basic"},        {"deps", "none"},             {"deps", "single"},
    {"deps", "multi"},           {"hsr", "none"},            {"hsr", "early_z"},           {"hsr", "fpk"},
    {"hsr", "deferred"},         {"raster", "basic"},        {"geometry", "basic"},        {"geometry", "binning_pass"},        {"dram", "basic"},
    {"scheduler", "two_queue"},  {"scheduler", "serial"},    {"scheduler", "bv_br"},    {"direct", "never"},          {"direct", "always"},
    {"direct", "turnip_autotune"}, {"cores", "round_robin"}, {"cores", "least_loaded"},    {"energy", "basic"},
    {"texture", "footprint"},    {"texture", "cache"},
    {"param_buffer", "unbounded"}, {"param_buffer", "fixed"},
    {"compression", "none"},     {"compression", "afbc"},     {"compression", "ubwc"},      {"write_elim", "none"},       {"write_elim", "te"},
    {"empty_tile", "off"},       {"empty_tile", "on"},
    {"display", "fifo"},         {"display", "mailbox"},      {"display", "immediate"},     {"power", "budget"},
    {"binning", "aabb"},         {"binning", "exact"},       {"binning", "hierarchical"},
};

// A second tiling implementation, linked only into the tests, to exercise switching implementations.
class SquareTestTiling final : public TilingModel {
 public:
  explicit SquareTestTiling(Params& p) : m_side(static_cast<uint32_t>(p.integer("side", 7, "px", "tile side", 1, 64))) {}
  TileSize choose_tile_size(const TilingInput&) const override { return {m_side, m_side, "square " + std::to_string(m_side)}; }

 private:
  uint32_t m_side;
};
const Registrar<TilingModel> square_test_registrar("tiling", "test_square", "test only: square tiles",
                                                 [](Params& p) { return std::make_unique<SquareTestTiling>(p); });

bool contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Runs `f`, expects an InputError, and returns it for inspection.
template <class F>
InputError expect_input_error(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "expected tbdr::InputError";
  return InputError("", "");
}

TileSize tile_of(const Configuration& config) {
  ModelSet set = build_models(config);
  return set.tiling->choose_tile_size(TilingInput{1920, 1080, {{4, 1, true, false, false}}});
}

// A temporary preset file, removed at the end of the test.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& name, const std::string& text)
      : path(std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()) + ".json")) {
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

TEST(ModelsRegistry, EveryExpectedImplementationIsRegistered) {
  for (const auto& [kind, impl] : k_expected_implementations) {
    EXPECT_TRUE(contains(registered_kinds(), kind)) << kind;
    EXPECT_TRUE(contains(registered_implementations(kind), impl)) << kind << "=" << impl;
  }
  for (const std::string& kind : registered_kinds()) EXPECT_TRUE(contains(project_kinds(), kind)) << kind;
  EXPECT_EQ(project_kinds().size(), 20u);
  EXPECT_TRUE(registered_implementations("no_such_kind").empty());
}

// apple-m1 (models/README.md "Presets"): Metal's valid tile sizes are 32x32, 32x16 and 16x16, the
// driver picking one that fits tile memory; the preset's budget is 256 bit/px at 32x32 (32 KiB a
// tile). Colors per pixel: one RGBA8 = 32 bit -> 32x32; four RGBA16F = 4 x 64 = 256 -> 32x32 (at
// the budget); four RGBA16F + one RGBA8 = 288 -> 32x16 (32 x 16 x 288 = 147,456 <= 32 x 32 x 256
// = 262,144); eight RGBA16F = 512 (A11 and later's most, Apple) -> 32x16 (262,144, exactly
// full); eight RGBA32F = 1024 -> 16x16 (beyond Metal's limit; the next valid size). Depth does not
// count, as for Mali's budget. Deferred HSR, 8 cores at 1278 MHz, no compression.
TEST(ModelsPresets, AppleM1TileShrinksOverItsTileMemoryBudget) {
  ModelSet set = build_models(Configuration::from_preset("apple-m1"));
  auto tile = [&](std::vector<AttachmentWork> colors) {
    colors.push_back({4, 1, false, true, false});  // D24S8 depth: not color storage
    const TileSize t = set.tiling->choose_tile_size(TilingInput{1920, 1080, colors});
    return std::to_string(t.width) + "x" + std::to_string(t.height);
  };
  const AttachmentWork rgba8{4, 1, true, false, false}, rgba16f{8, 1, true, false, false}, rgba32f{16, 1, true, false, false};
  EXPECT_EQ(tile({rgba8}), "32x32");
  EXPECT_EQ(tile(std::vector<AttachmentWork>(4, rgba16f)), "32x32");
  std::vector<AttachmentWork> over(4, rgba16f);
  over.push_back(rgba8);
  EXPECT_EQ(tile(over), "32x16");
  EXPECT_EQ(tile(std::vector<AttachmentWork>(8, rgba16f)), "32x16");
  EXPECT_EQ(tile(std::vector<AttachmentWork>(8, rgba32f)), "16x16");
  EXPECT_EQ(set.resolved["hsr"]["impl"], "deferred");
  EXPECT_EQ(set.resolved["compression"]["impl"], "none");
  EXPECT_EQ(set.resolved["cores"]["params"]["count"], 8);
  EXPECT_EQ(set.resolved["cores"]["params"]["clock_mhz"], 1278);
}

TEST(ModelsRegistry, ReferencePresetGivesFixed16x16AndNamesEveryKind) {
  const Configuration config = Configuration::reference();
  EXPECT_EQ(config.preset_name(), "reference");
  for (const std::string& kind : registered_kinds()) EXPECT_TRUE(config.kinds().count(kind)) << kind;
  ModelSet set = build_models(config);
  const TileSize tile = set.tiling->choose_tile_size(TilingInput{1920, 1080, {}});
  EXPECT_EQ(tile.width, 16u);
  EXPECT_EQ(tile.height, 16u);
  EXPECT_EQ(tile.reason, "fixed 16x16");
  EXPECT_EQ(set.resolved["tiling"].dump(), R"({"impl":"fixed","params":{"height":16,"width":16}})");
  EXPECT_EQ(set.resolved["merge"].dump(), R"({"impl":"arm","params":{}})");
  EXPECT_EQ(set.preset, "reference");
  EXPECT_TRUE(contains(preset_names(), "reference"));
}

TEST(ModelsRegistry, EmbeddedPresetsAreNamedAfterTheirFiles) {
  for (const std::string& name : preset_names()) {
    EXPECT_EQ(Configuration::from_preset(name).preset_name(), name);
    EXPECT_NO_THROW(build_models(Configuration::from_preset(name))) << name;
  }
}

TEST(ModelsRegistry, SetParameter) {
  Configuration config = Configuration::reference();
  config.apply("tiling.width=32");
  const TileSize tile = tile_of(config);
  EXPECT_EQ(tile.width, 32u);
  EXPECT_EQ(tile.height, 16u);
  EXPECT_EQ(tile.reason, "fixed 32x16");
  EXPECT_EQ(build_models(config).resolved["tiling"]["params"]["width"], 32);
}

TEST(ModelsRegistry, TileShorthandAllowsNonPowerOfTwo) {
  Configuration config = Configuration::reference();
  config.set_tile("24x40");
  const TileSize tile = tile_of(config);
  EXPECT_EQ(tile.width, 24u);
  EXPECT_EQ(tile.height, 40u);
  // Range boundaries: 1 and 4096 accepted, 0 and 4097 refused.
  config.set_tile("1x4096");
  EXPECT_EQ(tile_of(config).width, 1u);
  EXPECT_EQ(tile_of(config).height, 4096u);
  config.set_tile("0x16");
  InputError e = expect_input_error([&] { build_models(config); });
  EXPECT_EQ(e.where(), "--tile 0x16");
  config.set_tile("16x4097");
  e = expect_input_error([&] { build_models(config); });
  EXPECT_NE(e.expected().find("tiling.height"), std::string::npos) << e.what();
}

TEST(ModelsRegistry, MalformedTile) {
  Configuration config = Configuration::reference();
  for (const char* bad : {"24", "24x", "x24", "24x-3", "2.5x4", "24y40", ""}) {
    InputError e = expect_input_error([&] { config.set_tile(bad); });
    EXPECT_EQ(e.where(), std::string("--tile ") + bad);
    EXPECT_NE(e.expected().find("WxH"), std::string::npos);
  }
}

TEST(ModelsRegistry, AppliedLeftToRight) {
  Configuration config = Configuration::reference();
  config.apply("tiling.width=32");
  config.set_tile("8x8");
  config.apply("tiling.height=64");
  const TileSize tile = tile_of(config);
  EXPECT_EQ(tile.width, 8u);
  EXPECT_EQ(tile.height, 64u);
  // Parameters are kept in the order last set.
  const auto& params = config.kinds().at("tiling").params;
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0], (std::pair<std::string, std::string>{"width", "8"}));
  EXPECT_EQ(params[1], (std::pair<std::string, std::string>{"height", "64"}));
}

TEST(ModelsRegistry, ChangingImplementationDropsItsParameters) {
  Configuration config = Configuration::reference();
  config.apply("tiling.width=32");
  config.apply("tiling=fixed");  // the same implementation: parameters kept
  EXPECT_EQ(tile_of(config).width, 32u);
  EXPECT_EQ(config.kinds().at("tiling").params.size(), 2u);  // reference's height, then the re-set width

  // Switching to another implementation forgets width/height (test_square would refuse them)...
  config.apply("tiling=test_square");
  EXPECT_TRUE(config.kinds().at("tiling").params.empty());
  EXPECT_EQ(tile_of(config).width, 7u);
  config.apply("tiling.side=9");
  EXPECT_EQ(tile_of(config).height, 9u);
  // ...and switching back forgets test_square's `side`, so fixed takes its defaults, not the preset's values.
  config.apply("tiling=fixed");
  EXPECT_EQ(tile_of(config).width, 16u);
  config.apply("tiling.side=9");
  InputError e = expect_input_error([&] { build_models(config); });
  EXPECT_NE(e.expected().find("tiling.side is not a parameter of tiling=fixed"), std::string::npos) << e.what();
}

TEST(ModelsRegistry, UnknownKindListsRegisteredKinds) {
  Configuration config = Configuration::reference();
  InputError e = expect_input_error([&] { config.apply("tilling.width=32"); });
  EXPECT_EQ(e.where(), "--set tilling.width=32");
  EXPECT_NE(e.expected().find("unknown kind 'tilling'"), std::string::npos) << e.what();
  EXPECT_NE(e.expected().find("tiling"), std::string::npos) << e.what();
  e = expect_input_error([&] { config.apply("bogus=fixed"); });
  EXPECT_NE(e.expected().find("'bogus'"), std::string::npos) << e.what();
}

TEST(ModelsRegistry, UnknownImplementationListsImplementations) {
  Configuration config = Configuration::reference();
  InputError e = expect_input_error([&] { config.apply("tiling=budget_fantasy"); });
  EXPECT_EQ(e.where(), "--set tiling=budget_fantasy");
  EXPECT_NE(e.expected().find("'budget_fantasy'"), std::string::npos) << e.what();
  EXPECT_NE(e.expected().find("fixed"), std::string::npos) << e.what();
}

TEST(ModelsRegistry, UnreadParameterIsRefused) {
  Configuration config = Configuration::reference();
  config.apply("tiling.budget_bits_per_px=256");
  InputError e = expect_input_error([&] { build_models(config); });
  EXPECT_EQ(e.where(), "--set tiling.budget_bits_per_px=256");
  EXPECT_NE(e.expected().find("tiling.budget_bits_per_px"), std::string::npos) << e.what();
  EXPECT_NE(e.expected().find("width, height"), std::string::npos) << e.what();  // the valid parameters
}

TEST(ModelsRegistry, MalformedAndOutOfRangeValues) {
  for (const char* bad : {"abc", "16px", "1.5", "0", "4097", "-16", "99999999999999999999999"}) {
    Configuration config = Configuration::reference();
    config.apply(std::string("tiling.width=") + bad);
    InputError e = expect_input_error([&] { build_models(config); });
    EXPECT_EQ(e.where(), std::string("--set tiling.width=") + bad);
    EXPECT_NE(e.expected().find("tiling.width"), std::string::npos) << e.what();
    EXPECT_NE(e.expected().find("[1, 4096]"), std::string::npos) << e.what();
  }
}

TEST(ModelsRegistry, MalformedAssignments) {
  Configuration config = Configuration::reference();
  for (const char* bad : {"tiling", "=fixed", "tiling=", "tiling.=3", "tiling.a.b=3", "tiling.Width=3"}) {
    InputError e = expect_input_error([&] { config.apply(bad); });
    EXPECT_EQ(e.where(), std::string("--set ") + bad);
  }
}

TEST(ModelsRegistry, DescribeMentionsEveryParameter) {
  const std::string text = describe_models();
  for (const std::string& kind : registered_kinds()) {
    EXPECT_NE(text.find(kind + ":"), std::string::npos) << kind;
    for (const std::string& impl : registered_implementations(kind)) {
      EXPECT_NE(text.find(kind + "=" + impl), std::string::npos) << impl;
      for (const ParamInfo& p : implementation_parameters(kind, impl))
        EXPECT_NE(text.find(kind + "." + p.name), std::string::npos) << p.name;
    }
  }
  EXPECT_NE(text.find("tiling.width  integer, px, default 16, range [1, 4096]"), std::string::npos) << text;
  // Every preset with its description and the implementations and parameters its file sets.
  for (const std::string& preset : preset_names()) EXPECT_NE(text.find("\n  " + preset + ": "), std::string::npos) << preset;
  EXPECT_NE(text.find("  apple-m1: Apple M1 GPU (Apple7 family), 8 cores"), std::string::npos);
  EXPECT_NE(text.find("    tiling=mali_budget budget_bits_per_px=256 height=32 width=32\n"), std::string::npos);
  EXPECT_NE(text.find("    compression=ubwc\n"), std::string::npos);
  const std::vector<ParamInfo> fixed = implementation_parameters("tiling", "fixed");
  ASSERT_EQ(fixed.size(), 2u);
  EXPECT_EQ(fixed[0].name, "width");
  EXPECT_EQ(fixed[1].name, "height");
}

TEST(ModelsPresets, FromFilePath) {
  TempFile file("tbdr_models_test_preset",
                R"({"name": "mali_valhall", "description": "32x32 tiles",
                    "models": {"tiling": {"impl": "fixed", "width": 32, "height": 32}}})");
  Configuration config = Configuration::from_preset(file.path.string());
  EXPECT_EQ(config.preset_name(), "mali_valhall");
  EXPECT_EQ(tile_of(config).width, 32u);
  config.apply("tiling.height=8");  // --set applies after the preset
  EXPECT_EQ(tile_of(config).height, 8u);
}

TEST(ModelsPresets, OmittedKindsTakeTheReferenceChoice) {
  TempFile file("tbdr_models_test_empty", R"({"name": "empty", "description": "", "models": {}})");
  const TileSize tile = tile_of(Configuration::from_preset(file.path.string()));
  EXPECT_EQ(tile.width, 16u);
  EXPECT_EQ(tile.height, 16u);
}

TEST(ModelsPresets, StrictValidationNamesTheJsonPath) {
  struct Case {
    const char* json;
    const char* where_suffix;
    const char* what_part;
  };
  const std::vector<Case> cases = {
      {R"({"name": "x", "description": "", "models": {}, "extra": 1})", "#/extra", "unknown key"},
      {R"({"description": "", "models": {}})", "#/name", "expected a string"},
      {R"({"name": "x", "description": "", "models": {"tilling": {"impl": "fixed"}}})", "#/models/tilling", "tiling"},
      {R"({"name": "x", "description": "", "models": {"tiling": {"impl": "nope"}}})", "#/models/tiling/impl", "fixed"},
      {R"({"name": "x", "description": "", "models": {"tiling": {"width": 8}}})", "#/models/tiling", "impl"},
      {R"({"name": "x", "description": "", "models": {"tiling": {"impl": "fixed", "width": [8]}}})",
       "#/models/tiling/width", "number"},
      {R"({"name": "x", "description": "", "models": {)", "", "not valid JSON"},
  };
  for (const Case& c : cases) {
    TempFile file("tbdr_models_test_bad", c.json);
    InputError e = expect_input_error([&] { Configuration::from_preset(file.path.string()); });
    EXPECT_EQ(e.where(), file.path.string() + c.where_suffix) << c.json;
    EXPECT_NE(e.expected().find(c.what_part), std::string::npos) << e.what();
  }
  // Parameter names and values are checked when built, still naming the file and JSON path.
  TempFile file("tbdr_models_test_badparam",
                R"({"name": "x", "description": "", "models": {"tiling": {"impl": "fixed", "widht": 8}}})");
  InputError e = expect_input_error([&] { build_models(Configuration::from_preset(file.path.string())); });
  EXPECT_EQ(e.where(), file.path.string() + "#/models/tiling/widht");
  TempFile range("tbdr_models_test_badrange",
                 R"({"name": "x", "description": "", "models": {"tiling": {"impl": "fixed", "width": 0}}})");
  e = expect_input_error([&] { build_models(Configuration::from_preset(range.path.string())); });
  EXPECT_EQ(e.where(), range.path.string() + "#/models/tiling/width");
  EXPECT_NE(e.expected().find("[1, 4096]"), std::string::npos);
}

// A preset file's value has its parameter's JSON type, as a trace's fields do; --set text has none.
TEST(ModelsPresets, ValuesHaveTheirParametersJsonType) {
  const std::string head = R"({"name": "x", "description": "", "models": )";
  TempFile good("tbdr_models_test_types",
                head + R"({"texture": {"impl": "cache", "layout": "linear"},
                           "direct": {"impl": "turnip_autotune", "history": false},
                           "tiling": {"impl": "fixed", "width": 32}}})");
  const ModelSet built = build_models(Configuration::from_preset(good.path.string()));
  EXPECT_EQ(built.resolved["texture"]["params"]["layout"], "linear");
  EXPECT_EQ(built.resolved["direct"]["params"]["history"], false);
  EXPECT_EQ(built.resolved["tiling"]["params"]["width"], 32);
  struct Case {
    std::string models, where_suffix, what_part;
  };
  const std::vector<Case> cases = {
      {R"({"tiling": {"impl": "fixed", "width": "32"}})", "#/models/tiling/width", "got the JSON string \"32\""},
      {R"({"tiling": {"impl": "fixed", "width": true}})", "#/models/tiling/width", "expected an integer"},
      {R"({"direct": {"impl": "turnip_autotune", "history": "false"}})", "#/models/direct/history", "true or false"},
      {R"({"direct": {"impl": "turnip_autotune", "history": 0}})", "#/models/direct/history", "got the JSON number 0"},
      {R"({"texture": {"impl": "cache", "layout": 1}})", "#/models/texture/layout", "one of the strings"},
  };
  for (const Case& c : cases) {
    TempFile file("tbdr_models_test_type", head + c.models + "}");
    InputError e = expect_input_error([&] { build_models(Configuration::from_preset(file.path.string())); });
    EXPECT_EQ(e.where(), file.path.string() + c.where_suffix) << c.models;
    EXPECT_NE(e.expected().find(c.what_part), std::string::npos) << e.what();
  }
  // A --set after the preset replaces the value and its type: text is parsed by the parameter's type.
  TempFile quoted("tbdr_models_test_quoted", head + R"({"tiling": {"impl": "fixed", "width": "32"}}})");
  Configuration config = Configuration::from_preset(quoted.path.string());
  config.apply("tiling.width=8");
  EXPECT_EQ(tile_of(config).width, 8u);
}

// A preset may name a base (a preset name or a file next to it) and override it kind by kind
// (models/README.md "Preset format").
TEST(ModelsPresets, BaseIsOverriddenKindByKind) {
  TempFile file("tbdr_models_test_based",
                R"({"name": "g76_32", "description": "", "base": "mali-g76",
                    "models": {"tiling": {"width": 32, "height": 32}, "hsr": {"impl": "early_z"}}})");
  const Configuration based = Configuration::from_preset(file.path.string());
  EXPECT_EQ(based.preset_name(), "g76_32");
  Configuration expected = Configuration::from_preset("mali-g76");
  expected.set_tile("32x32");
  expected.apply("hsr=early_z");
  const nlohmann::json resolved = build_models(based).resolved;
  EXPECT_EQ(resolved, build_models(expected).resolved);
  EXPECT_EQ(resolved["tiling"]["impl"], "mali_budget");  // the base's implementation, its budget kept
  EXPECT_EQ(resolved["tiling"]["params"]["budget_bits_per_px"], 256);
  // A base of a base, named by a file path relative to the naming file's folder.
  TempFile second("tbdr_models_test_based2", R"({"name": "g76_32_fpk", "description": "", "base": ")" +
                                                 file.path.filename().string() + R"(", "models": {"hsr": {"impl": "fpk"}}})");
  expected.apply("hsr=fpk");
  EXPECT_EQ(build_models(Configuration::from_preset(second.path.string())).resolved, build_models(expected).resolved);
}

TEST(ModelsPresets, BaseCyclesAndBadBasesAreOneLineErrors) {
  const std::string pid = std::to_string(::getpid());
  const std::string a_name = "tbdr_models_test_cycle_a_" + pid + ".json", b_name = "tbdr_models_test_cycle_b_" + pid + ".json";
  TempFile a("tbdr_models_test_cycle_a", R"({"name": "a", "description": "", "base": ")" + b_name + R"(", "models": {}})");
  TempFile b("tbdr_models_test_cycle_b", R"({"name": "b", "description": "", "base": ")" + a_name + R"(", "models": {}})");
  InputError e = expect_input_error([&] { Configuration::from_preset(a.path.string()); });
  EXPECT_EQ(e.where(), b.path.string() + "#/base");
  EXPECT_NE(e.expected().find("a cycle of bases"), std::string::npos) << e.what();
  EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  struct Case {
    std::string json, where_suffix, what_part;
  };
  const std::vector<Case> cases = {
      {R"({"name": "x", "description": "", "base": "no_such_preset", "models": {}})", "#/base", "not a preset name"},
      {R"({"name": "x", "description": "", "base": 3, "models": {}})", "#/base", "expected a preset name"},
      {R"({"name": "x", "description": "", "base": "reference", "models": {"tiling": {"impl": "nope"}}})",
       "#/models/tiling/impl", "fixed"},
  };
  for (const Case& c : cases) {
    TempFile file("tbdr_models_test_badbase", c.json);
    InputError bad = expect_input_error([&] { Configuration::from_preset(file.path.string()); });
    EXPECT_EQ(bad.where(), file.path.string() + c.where_suffix) << c.json;
    EXPECT_NE(bad.expected().find(c.what_part), std::string::npos) << bad.what();
  }
}

// A report's config block (ModelSet::resolved) read back as a preset gives the same configuration.
TEST(ModelsPresets, ReportConfigBlockIsAPreset) {
  Configuration original = Configuration::from_preset("adreno-a740");
  original.apply("dram.bytes_per_cycle=12.5");
  original.apply("texture.layout=linear");
  const nlohmann::json resolved = build_models(original).resolved;
  TempFile block("tbdr_models_test_block", resolved.dump());
  const Configuration from_block = Configuration::from_preset(block.path.string());
  EXPECT_EQ(build_models(from_block).resolved, resolved);
  EXPECT_EQ(from_block.preset_name(), block.path.stem().string());  // a block has no name: the file's stem
  const nlohmann::json report = {{"format", "tbdrsim-report"}, {"version", 1}, {"preset", "adreno-a740"}, {"config", resolved}};
  TempFile whole("tbdr_models_test_report", report.dump());
  const Configuration from_report = Configuration::from_preset(whole.path.string());
  EXPECT_EQ(from_report.preset_name(), "adreno-a740");
  EXPECT_EQ(build_models(from_report).resolved, resolved);
  TempFile extra("tbdr_models_test_block_extra", R"({"tiling": {"impl": "fixed", "params": {}, "width": 8}})");
  InputError e = expect_input_error([&] { Configuration::from_preset(extra.path.string()); });
  EXPECT_EQ(e.where(), extra.path.string() + "#/tiling");
  TempFile value("tbdr_models_test_block_value", R"({"tiling": {"impl": "fixed", "params": {"width": "8"}}})");
  e = expect_input_error([&] { build_models(Configuration::from_preset(value.path.string())); });
  EXPECT_EQ(e.where(), value.path.string() + "#/tiling/params/width");
}

TEST(ModelsPresets, UnknownPresetListsNames) {
  InputError e = expect_input_error([] { Configuration::from_preset("no_such_preset_or_file"); });
  EXPECT_EQ(e.where(), "--preset no_such_preset_or_file");
  EXPECT_NE(e.expected().find("reference"), std::string::npos);
}

TEST(ModelsParams, TypesAndRanges) {
  Params params("tiling", "test", {{"r", "0.25", "--set tiling.r=0.25", ""}, {"f", "on", "w", ""}, {"c", "b", "w", ""}});
  EXPECT_EQ(params.integer("i", 7, "px", "an integer", 1, 8), 7);
  EXPECT_EQ(params.real("r", 1.0, "ratio", "a real", 0.0, 1.0), 0.25);
  EXPECT_TRUE(params.flag("f", false, "a flag"));
  EXPECT_EQ(params.choice("c", "a", {"a", "b"}, "a choice"), "b");
  EXPECT_EQ(params.values().dump(), R"({"c":"b","f":true,"i":7,"r":0.25})");
  EXPECT_TRUE(params.unread().empty());

  Params bad("tiling", "test", {{"r", "1.5", "w1", ""}, {"f", "maybe", "w2", ""}, {"c", "z", "w3", ""}, {"n", "nan", "w4", ""}});
  EXPECT_EQ(expect_input_error([&] { bad.real("r", 1.0, "", "", 0.0, 1.0); }).where(), "w1");
  EXPECT_EQ(expect_input_error([&] { bad.flag("f", false, ""); }).where(), "w2");
  InputError e = expect_input_error([&] { bad.choice("c", "a", {"a", "b"}, ""); });
  EXPECT_NE(e.expected().find("a|b"), std::string::npos);
  EXPECT_EQ(expect_input_error([&] { bad.real("n", 1.0, "", "", 0.0, 1.0); }).where(), "w4");

  Params describe = Params::describing("tiling", "test");
  EXPECT_EQ(describe.integer("i", 7, "px", "", 1, 8), 7);
  EXPECT_EQ(describe.declared().at(0).range, "[1, 8]");
}

TEST(ModelsUnits, ArithmeticAndComparison) {
  Bytes b(10);
  b += Bytes(5);
  EXPECT_EQ((b - Bytes(3)).value, 12u);
  EXPECT_EQ((b + Bytes(1)).value, 16u);
  EXPECT_LT(Bytes(1), Bytes(2));
  EXPECT_EQ(Bytes(4), Bytes(4));
  Cycles c(1.5);
  c += Cycles(0.25);
  EXPECT_EQ(c.value, 1.75);
  EXPECT_EQ((c - Cycles(0.75)).value, 1.0);
  EXPECT_GT(Cycles(2.0), Cycles(1.0));
  EXPECT_EQ(Cycles(), Cycles(0.0));
}

}  // namespace
}  // namespace tbdr::models
