// What every model implementation sees of the registry: its base class and the Params it declares and reads.
// Kind interfaces (models/<kind>/<kind>.h) include this; the registry and configuration are in models/registry.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tbdr::models {

// Every kind's interface derives from ModelBase, so the registry can hold any implementation.
// An interface also declares `static constexpr const char* k_kind` (its name in presets and --set)
// and `static constexpr const char* k_description` (one line for `tbdrsim models`).
class ModelBase {
 public:
  virtual ~ModelBase() = default;
};

// Whether a parameter (or a kind's implementation choice) can change the functional result of a
// simulation, i.e. anything sim/ records before costing: tiles, fragments, pixels, TileWork counts,
// texture line streams, any byte of the DRAM ledgers the functional stages fill (`functional`); or
// only its price, which the costing stage, the scheduler and the energy model compute from that
// recorded result (`cost`: cycles, milliseconds, energy, and the texture caches' bytes replayed from
// the recorded line streams). Sweeps simulate once per functional configuration and re-cost the
// configurations that differ only in cost parameters (sim/pipeline.h, tools/doc/sweeps.md).
enum class ParamClass { functional, cost };
const char* param_class_name(ParamClass c);
// The class of every parameter and of the implementation choice of `kind` (models/params.cpp lists
// the cost-only kinds and where sim/ reads them); any other kind, new ones included, is functional.
ParamClass kind_param_class(const std::string& kind);

// One declared parameter, as `tbdrsim models` prints it.
struct ParamInfo {
  std::string name;
  std::string type;  // integer | real | flag | choice
  std::string unit;  // "px", "bytes", "bits/px", ... ; empty for flags and choices
  std::string description;
  std::string default_value;
  std::vector<std::string> choices;  // choice only
  std::string range;                 // "[1, 4096]", "true|false", "a|b|c": the accepted values, in words
  ParamClass param_class = ParamClass::functional;  // its kind's class (kind_param_class)
};

// A parameter value as configured, with where it came from for error messages
// ("--set tiling.width=32", "--tile 24x40", "my.json#/models/tiling/width").
struct ParamSetting {
  std::string name, value, where;
  // The JSON type a preset file gave the value ("string", "number", "boolean"); empty for --set
  // text, which is typeless. A preset's "width": "32" is a type error, as in a trace.
  std::string json_type;
};

// Handed to an implementation's factory. Parameters are declared where they are read (tools/doc/design.md
// "Design rules"): each call declares one parameter with its unit, description, default and range, and
// returns the configured value or the default. Declare every parameter unconditionally, so that
// `tbdrsim models` lists it and a set-but-unread parameter is always an error.
// In describe mode (describing()) every call returns its default and only records the declaration.
// A malformed or out-of-range value throws tbdr::InputError naming KIND.PARAM and the accepted range.
class Params {
 public:
  Params(std::string kind, std::string impl, std::vector<ParamSetting> settings);
  static Params describing(std::string kind, std::string impl);

  int64_t integer(const std::string& name, int64_t def, const std::string& unit, const std::string& description,
                  int64_t min, int64_t max);
  double real(const std::string& name, double def, const std::string& unit, const std::string& description, double min,
              double max);
  bool flag(const std::string& name, bool def, const std::string& description);
  std::string choice(const std::string& name, const std::string& def, const std::vector<std::string>& options,
                     const std::string& description);

  const std::string& kind() const { return m_kind; }
  const std::string& impl() const { return m_impl; }
  bool describe_mode() const { return m_describe; }
  // Every parameter declared so far, in declaration order.
  const std::vector<ParamInfo>& declared() const { return m_declared; }
  // Final value of every declared parameter (defaults included), keyed by name.
  const nlohmann::json& values() const { return m_values; }
  // Settings whose name no call declared: the caller turns the first into an InputError.
  std::vector<ParamSetting> unread() const;

 private:
  // Records the declaration; returns the setting for `name` if one was configured.
  const ParamSetting* declare(ParamInfo info);
  std::string qualified(const std::string& name) const { return m_kind + "." + name; }

  std::string m_kind, m_impl;
  std::vector<ParamSetting> m_settings;
  bool m_describe = false;
  std::vector<ParamInfo> m_declared;
  nlohmann::json m_values = nlohmann::json::object();
};

}  // namespace tbdr::models
