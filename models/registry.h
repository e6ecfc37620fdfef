// The model registry and the configuration that picks one implementation per kind (tools/doc/design.md "Design rules").
// Implementations register by name; presets and --set/--tile choose them; build_models instantiates them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "models/errors.h"
#include "models/model.h"
#include "models/binning/binning.h"
#include "models/cores/cores.h"
#include "models/deps/deps.h"
#include "models/direct/direct.h"
#include "models/display/display.h"
#include "models/dram/dram.h"
#include "models/energy/energy.h"
#include "models/geometry/geometry.h"
#include "models/hsr/hsr.h"
#include "models/compression/compression.h"
#include "models/empty_tile/empty_tile.h"
#include "models/merge/merge.h"
#include "models/param_buffer/param_buffer.h"
#include "models/power/power.h"
#include "models/write_elim/write_elim.h"
#include "models/raster/raster.h"
#include "models/scheduler/scheduler.h"
#include "models/shader/shader.h"
#include "models/texture/texture.h"
#include "models/tiling/tiling.h"

namespace tbdr::models {

// The project's kind names, in the order `tbdrsim models` and reports list them (models/README.md "Kinds").
// Never a second name for one kind; a new kind is added here and in ModelSet.
const std::vector<std::string>& project_kinds();

namespace detail {
using Factory = std::function<std::unique_ptr<ModelBase>(Params&)>;
// Aborts (a programming error, at static-initialization time) on an unknown kind, a kind that does not
// match its interface's k_kind, or a duplicate name.
void register_implementation(const std::string& kind, const std::string& interface_kind,
                             const std::string& kind_description, const std::string& impl,
                             const std::string& description, Factory factory);
}  // namespace detail

// Registers one implementation of Interface by name. One static instance per implementation .cpp:
//   const Registrar<TilingModel> fixed_registrar("tiling", "fixed", "description",
//                                                [](Params& p) { return std::make_unique<FixedTiling>(p); });
// models/ is an OBJECT library, so these registrars are linked into every binary.
template <class Interface>
class Registrar {
 public:
  Registrar(const std::string& kind, const std::string& impl, const std::string& description,
            std::function<std::unique_ptr<Interface>(Params&)> factory) {
    static_assert(std::is_base_of_v<ModelBase, Interface>, "a kind's interface derives from ModelBase");
    // The kind name is spelled twice (here and in the interface) so a registrar cannot land in the wrong kind.
    detail::register_implementation(
        kind, Interface::k_kind, Interface::k_description, impl, description,
        [factory = std::move(factory)](Params& p) -> std::unique_ptr<ModelBase> { return factory(p); });
  }
};

// One kind's choice: the implementation and the parameters set for it, in the order they were set.
struct KindConfig {
  std::string impl;
  std::vector<std::pair<std::string, std::string>> params;  // params in the order set (a re-set moves to the end)
  // Where each value came from, for error messages: impl_where for impl, param_where[name] per parameter.
  std::string impl_where;
  std::map<std::string, std::string> param_where;
  // JSON type of each parameter a preset file set ("string", "number", "boolean"); a --set erases it.
  std::map<std::string, std::string> param_json_type;
};

// A preset plus --set / --tile assignments applied left to right.
class Configuration {
 public:
  // A preset name from models/presets/*.json (embedded in the binary) or a JSON file path; throws InputError.
  // Kinds a preset does not name take the reference preset's choice, so user presets survive new kinds.
  static Configuration from_preset(const std::string& name_or_file);
  static Configuration reference();  // the default preset, "reference"

  // "KIND=IMPL" or "KIND.PARAM=VALUE". Unknown kind/impl -> InputError listing the valid names.
  // Changing a kind's IMPL drops the params set earlier for that kind (they belonged to the old one);
  // re-selecting the same IMPL keeps them. Parameter names and values are checked by build_models,
  // once the final implementation is known.
  void apply(const std::string& assignment);
  void set_tile(const std::string& wxh);  // --tile WxH == tiling.width=W, tiling.height=H

  const std::string& preset_name() const { return m_preset_name; }
  const std::map<std::string, KindConfig>& kinds() const { return m_kinds; }

 private:
  void set_param(const std::string& kind, const std::string& param, const std::string& value, const std::string& where);

  std::string m_preset_name;
  std::map<std::string, KindConfig> m_kinds;
};

// One instance of every kind, as configured.
struct ModelSet {
  std::unique_ptr<TilingModel> tiling;  // one member per kind (models/README.md "Adding an implementation or a kind")
  std::unique_ptr<MergeModel> merge;
  std::unique_ptr<ShaderModel> shader;
  std::unique_ptr<DepsModel> deps;
  std::unique_ptr<HsrModel> hsr;
  std::unique_ptr<RasterModel> raster;
  std::unique_ptr<GeometryModel> geometry;
  std::unique_ptr<DramModel> dram;
  std::unique_ptr<SchedulerModel> scheduler;
  std::unique_ptr<DirectModel> direct;
  std::unique_ptr<CoresModel> cores;
  std::unique_ptr<EnergyModel> energy;
  std::unique_ptr<CompressionModel> compression;
  std::unique_ptr<WriteElimModel> write_elim;
  std::unique_ptr<EmptyTileModel> empty_tile;
  std::unique_ptr<TextureModel> texture;
  std::unique_ptr<ParamBufferModel> param_buffer;
  std::unique_ptr<DisplayModel> display;
  std::unique_ptr<PowerModel> power;
  std::unique_ptr<BinningModel> binning;
  // {"tiling": {"impl": "fixed", "params": {"height": 16, "width": 16}}}: every parameter the chosen
  // implementations read, with its final value (defaults included); keys sorted, so output is deterministic.
  nlohmann::json resolved;
  std::string preset;  // the preset the configuration started from
};

// Instantiates every kind. A parameter set but not read by the chosen implementation -> InputError naming it
// and listing the implementation's parameters; a malformed or out-of-range value -> InputError naming
// KIND.PARAM and the accepted range.
ModelSet build_models(const Configuration& config);

// The part of a resolved configuration (ModelSet::resolved) that can change the functional result
// (models/model.h ParamClass): every kind but the cost-only ones, with its implementation and its
// functional parameters. Configurations with equal functional parts simulate to the same functional
// record (sim/pipeline.h), so one simulation can be re-costed for all of them.
nlohmann::json functional_part(const nlohmann::json& resolved);

// Text for `tbdrsim models`: every kind, its implementations, their parameters (type, unit, default, range).
std::string describe_models();
// The same as JSON (`tbdrsim models --json`): {"kinds": [{kind, class, description, implementations:
// [{name, reference, description, parameters: [{name, type, class, default, range, description, unit?,
// choices?}]}]}], "presets": [every bundled preset file as it is]}.
nlohmann::json models_json();

// Kinds with at least one registered implementation, in project_kinds() order.
std::vector<std::string> registered_kinds();
// Implementations of `kind`, sorted by name; empty for an unknown kind.
std::vector<std::string> registered_implementations(const std::string& kind);
// The parameters `impl` of `kind` declares (describe mode), kept for the process; throws InputError for an unknown kind/impl.
const std::vector<ParamInfo>& implementation_parameters(const std::string& kind, const std::string& impl);
// Names of the presets embedded from models/presets/*.json, sorted.
std::vector<std::string> preset_names();

}  // namespace tbdr::models
