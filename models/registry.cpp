// The registry of model implementations, presets and the configuration grammar (--preset, --set, --tile),
// and build_models, which turns a Configuration into one instance per kind (models/README.md).
#include "models/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "models/embedded_presets.h"
#include "models/input_file.h"
#include "models/json_duplicates.h"

namespace tbdr::models {
namespace {

struct ImplEntry {
  std::string description;
  detail::Factory factory;
};

struct KindEntry {
  std::string description;
  std::map<std::string, ImplEntry> impls;  // sorted by name: deterministic listings
};

// A function-local static, so registrars in other translation units can run in any order.
std::map<std::string, KindEntry>& registry() {
  static std::map<std::string, KindEntry> entries;
  return entries;
}

std::string join(const std::vector<std::string>& items, const std::string& sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

bool is_project_kind(const std::string& kind) {
  for (const std::string& k : project_kinds())
    if (k == kind) return true;
  return false;
}

// Names in presets, --set and CSV columns (set.KIND.PARAM): lower case, digits and underscores.
bool is_plain_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

// Preset names may also use '-' ("mali-g710", architecture names); they never become CSV columns.
bool is_preset_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  return true;
}

[[noreturn]] void registration_failure(const std::string& message) {
  std::fprintf(stderr, "tbdrsim: model registration: %s\n", message.c_str());
  std::abort();
}

const ImplEntry* find_impl(const std::string& kind, const std::string& impl) {
  auto k = registry().find(kind);
  if (k == registry().end()) return nullptr;
  auto i = k->second.impls.find(impl);
  return i == k->second.impls.end() ? nullptr : &i->second;
}

void check_kind(const std::string& kind, const std::string& where) {
  if (registry().count(kind)) return;
  std::string what = "unknown kind '" + kind + "'";
  if (is_project_kind(kind)) what = "kind '" + kind + "' has no implementation yet";
  throw InputError(where, what + "; kinds with an implementation: " + join(registered_kinds()));
}

void check_impl(const std::string& kind, const std::string& impl, const std::string& where) {
  if (find_impl(kind, impl)) return;
  throw InputError(where, "unknown implementation '" + impl + "' of kind '" + kind +
                              "'; implementations: " + join(registered_implementations(kind)));
}

// ---- presets -----------------------------------------------------------------------------------

struct PresetText {
  std::string text, path;
};

const detail::EmbeddedPreset* find_embedded(const std::string& name) {
  for (std::size_t i = 0; i < detail::k_embedded_preset_count; ++i)
    if (name == detail::k_embedded_presets[i].name) return &detail::k_embedded_presets[i];
  return nullptr;
}

PresetText load_preset_text(const std::string& name_or_file) {
  if (const detail::EmbeddedPreset* p = find_embedded(name_or_file)) return {p->json, p->source_path};
  // Not opened here: opening a FIFO would block (read_input_file opens without blocking).
  std::error_code ec;
  if (!std::filesystem::exists(name_or_file, ec))
    throw InputError("--preset " + name_or_file,
                     "not a preset name (" + join(preset_names()) + ") nor a readable JSON file");
  return {read_input_file(name_or_file, InputLimits::kTextBytes, "--preset " + name_or_file), name_or_file};
}

// A preset's scalar value as the string a --set would carry; Params parses it by the parameter's type.
std::string scalar_text(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return v.dump();  // numbers: integers print without a fraction, reals in round-trip form
}

struct ParsedPreset {
  std::string name;
  std::map<std::string, KindConfig> kinds;
  std::string base, base_where;  // "base": a preset name or file this one overrides; empty: none
};

using PresetJson = nlohmann::ordered_json;  // ordered: parameters keep the file's order ("in the order set")

PresetJson parse_preset_json(const PresetText& source) {
  const std::string& path = source.path;
  DuplicateKeyChecker<PresetJson> checker(path, "#");
  try {
    return parse_checking_duplicates(source.text, checker);
  } catch (const InputError&) {
    throw;
  } catch (const PresetJson::out_of_range& e) {  // a number beyond double's range (1e400): nlohmann gives no position
    throw InputError(path + "#" + checker.reading_pointer(), "not valid JSON: " + without_json_exception_tags(e.what()));
  } catch (const PresetJson::exception& e) {  // parse errors name their line and column
    throw InputError(path, "not valid JSON: " + without_json_exception_tags(e.what()));
  }
}

// One parameter value of a preset or config block into `config`; a re-set moves to the end.
void add_preset_param(KindConfig& config, const std::string& param, const PresetJson& value, const std::string& where) {
  if (!(value.is_number() || value.is_boolean() || value.is_string()))
    throw InputError(where, "expected a number, true/false or a string");
  std::erase_if(config.params, [&](const auto& p) { return p.first == param; });
  config.params.emplace_back(param, scalar_text(value));
  config.param_where[param] = where;
  config.param_json_type[param] = value.is_string() ? "string" : value.is_boolean() ? "boolean" : "number";
}

// {"impl": IMPL, PARAM: VALUE...}; a preset with a base may leave out "impl" to keep the base's.
KindConfig parse_preset_kind(const std::string& kind, const PresetJson& body, const std::string& kind_where, bool has_base) {
  check_kind(kind, kind_where);
  const bool impl_ok = body.is_object() && (body.contains("impl") ? body["impl"].is_string() : has_base);
  if (!impl_ok) throw InputError(kind_where, "expected {\"impl\": IMPL, PARAM: VALUE...}");
  KindConfig config;
  if (body.contains("impl")) {
    config.impl = body["impl"].get<std::string>();
    config.impl_where = kind_where + "/impl";
    check_impl(kind, config.impl, config.impl_where);
  }
  for (const auto& [param, value] : body.items())
    if (param != "impl") add_preset_param(config, param, value, kind_where + "/" + param);
  return config;
}

// A report's `config` block ({KIND: {"impl": IMPL, "params": {PARAM: VALUE}}}, traces/README.md) read
// as a preset, so `run --json` output reproduces its configuration; the name is the file's stem.
ParsedPreset parse_config_block(const PresetJson& config, const std::string& path, const std::string& pointer) {
  ParsedPreset out;
  const std::string stem = std::filesystem::path(path).stem().string();
  out.name = is_preset_name(stem) ? stem : "config";
  for (const auto& [kind, body] : config.items()) {
    const std::string kind_where = path + "#" + pointer + "/" + kind;
    check_kind(kind, kind_where);
    if (!body.is_object() || !body.contains("impl") || !body["impl"].is_string() ||
        (body.contains("params") && !body["params"].is_object()) || body.size() != 1u + body.contains("params"))
      throw InputError(kind_where, "expected {\"impl\": IMPL, \"params\": {PARAM: VALUE...}} (a report's config block)");
    KindConfig kind_config;
    kind_config.impl = body["impl"].get<std::string>();
    kind_config.impl_where = kind_where + "/impl";
    check_impl(kind, kind_config.impl, kind_config.impl_where);
    if (body.contains("params"))
      for (const auto& [param, value] : body["params"].items())
        add_preset_param(kind_config, param, value, kind_where + "/params/" + param);
    out.kinds[kind] = std::move(kind_config);
  }
  return out;
}

// A document whose keys are all kinds is a config block; a report (format tbdrsim-report) gives its own.
bool is_config_block(const PresetJson& doc) {
  if (!doc.is_object() || doc.empty()) return false;
  for (const auto& [key, value] : doc.items())
    if (!is_project_kind(key)) return false;
  return true;
}

// Strict: unknown keys, wrong types, unknown kinds and implementations are errors naming FILE#/json/path.
ParsedPreset parse_preset(const PresetText& source) {
  const std::string& path = source.path;
  const PresetJson doc = parse_preset_json(source);
  if (is_config_block(doc)) return parse_config_block(doc, path, "");
  // value("format", "") would throw on a "format" of another type than string: compared as JSON instead.
  if (doc.is_object() && doc.value("format", PresetJson()) == "tbdrsim-report" && doc.contains("config") && doc["config"].is_object()) {
    ParsedPreset out = parse_config_block(doc["config"], path, "/config");
    if (doc.contains("preset") && doc["preset"].is_string() && is_preset_name(doc["preset"].get<std::string>()))
      out.name = doc["preset"].get<std::string>();
    return out;
  }
  const std::string shape =
      "expected {\"name\": STRING, \"description\": STRING, [\"base\": PRESET,] \"models\": {KIND: {\"impl\": IMPL, "
      "PARAM: VALUE...}}}";
  if (!doc.is_object()) throw InputError(path + "#", shape);
  for (const auto& [key, value] : doc.items())
    if (key != "name" && key != "description" && key != "models" && key != "base")
      throw InputError(path + "#/" + key, "unknown key; a preset has only name, description, base, models");
  for (const char* key : {"name", "description"})
    if (!doc.contains(key) || !doc[key].is_string())
      throw InputError(path + "#/" + key, std::string("expected a string (") + shape + ")");
  ParsedPreset out;
  out.name = doc["name"].get<std::string>();
  if (!is_preset_name(out.name)) throw InputError(path + "#/name", "expected a name of a-z, 0-9, _ and -");
  if (doc.contains("base")) {
    if (!doc["base"].is_string() || doc["base"].get<std::string>().empty())
      throw InputError(path + "#/base", "expected a preset name or a preset file (relative to this file's folder)");
    out.base = doc["base"].get<std::string>();
    out.base_where = path + "#/base";
  }
  if (!doc.contains("models") || !doc["models"].is_object())
    throw InputError(path + "#/models", "expected an object of KIND: {...}");
  for (const auto& [kind, body] : doc["models"].items())
    out.kinds[kind] = parse_preset_kind(kind, body, path + "#/models/" + kind, !out.base.empty());
  return out;
}

// A base's own kinds, overridden by the preset's: the same (or no) impl adds parameters over the
// base's; another impl replaces the kind (the base's parameters belonged to the old one), as --set does.
ParsedPreset override_base(ParsedPreset base, ParsedPreset preset) {
  for (auto& [kind, config] : preset.kinds) {
    auto it = base.kinds.find(kind);
    if (it == base.kinds.end() || (!config.impl.empty() && config.impl != it->second.impl)) {
      if (config.impl.empty())
        throw InputError(preset.base_where, "the base sets no implementation of kind '" + kind + "'; give its \"impl\"");
      base.kinds[kind] = std::move(config);
      continue;
    }
    KindConfig& merged = it->second;
    for (const auto& setting : config.params) {  // not a structured binding: clang 14 cannot capture one
      const std::string& param = setting.first;
      std::erase_if(merged.params, [&](const auto& p) { return p.first == param; });
      merged.params.push_back(setting);
      merged.param_where[param] = config.param_where[param];
      merged.param_json_type[param] = config.param_json_type[param];
    }
  }
  base.name = std::move(preset.name);
  base.base.clear();
  return base;
}

// At most this many presets in a chain of bases (models/README.md "Preset format"): each base is one level
// of recursion here, and a chain 10,000 files deep overflowed the stack. Real chains are 2 or 3 deep.
constexpr size_t kMaxBaseDepth = 64;

// A preset with its chain of bases applied. A file base is relative to the naming file's folder
// (embedded presets' bases are names); `chain` holds the presets being read, to refuse a cycle.
ParsedPreset load_preset(const std::string& name_or_file, std::vector<std::string>& chain) {
  const PresetText text = load_preset_text(name_or_file);
  ParsedPreset preset = parse_preset(text);
  if (preset.base.empty()) return preset;
  std::string base = preset.base;
  if (!find_embedded(base) && std::filesystem::path(base).is_relative() && !find_embedded(name_or_file))
    base = (std::filesystem::path(text.path).parent_path() / base).string();
  std::error_code exists_ec;  // not opened here: a FIFO would block (load_preset_text reads it checked)
  if (!find_embedded(base) && !std::filesystem::exists(base, exists_ec))
    throw InputError(preset.base_where, "'" + preset.base + "' is not a preset name (" + join(preset_names()) +
                                            ") nor a readable JSON file (" + base + ")");
  std::error_code ec;
  const std::string id = find_embedded(base) ? base : std::filesystem::weakly_canonical(base, ec).string();
  if (std::find(chain.begin(), chain.end(), id) != chain.end())
    throw InputError(preset.base_where, "a cycle of bases: " + join(chain, " -> ") + " -> " + id);
  if (chain.size() >= kMaxBaseDepth)
    throw InputError(preset.base_where, "a chain of more than " + std::to_string(kMaxBaseDepth) +
                                            " presets through \"base\" (models/README.md \"Preset format\")");
  chain.push_back(id);
  ParsedPreset base_preset = load_preset(base, chain);
  chain.pop_back();
  return override_base(std::move(base_preset), std::move(preset));
}

// ---- building ----------------------------------------------------------------------------------

std::string list_parameters(const std::string& kind, const std::string& impl) {
  std::vector<std::string> names;
  for (const ParamInfo& p : implementation_parameters(kind, impl)) names.push_back(p.name);
  return names.empty() ? kind + "=" + impl + " has no parameters"
                       : "parameters of " + kind + "=" + impl + ": " + join(names);
}

// Instantiates the configured implementation of Interface's kind and records what it read in `resolved`.
template <class Interface>
std::unique_ptr<Interface> instantiate(const Configuration& config, nlohmann::json& resolved) {
  const std::string kind = Interface::k_kind;
  auto it = config.kinds().find(kind);
  if (it == config.kinds().end() || it->second.impl.empty())
    throw InputError(
        "preset " + config.preset_name(),
        "no implementation chosen for kind '" + kind + "'; implementations: " + join(registered_implementations(kind)));
  const KindConfig& chosen = it->second;
  check_impl(kind, chosen.impl, chosen.impl_where);
  std::vector<ParamSetting> settings;
  for (const auto& [name, value] : chosen.params) {
    auto w = chosen.param_where.find(name);
    auto t = chosen.param_json_type.find(name);
    settings.push_back({name, value, w == chosen.param_where.end() ? kind + "." + name + "=" + value : w->second,
                        t == chosen.param_json_type.end() ? std::string() : t->second});
  }
  Params params(kind, chosen.impl, std::move(settings));
  std::unique_ptr<ModelBase> model = find_impl(kind, chosen.impl)->factory(params);
  const std::vector<ParamSetting> unread = params.unread();
  if (!unread.empty())
    throw InputError(unread.front().where, kind + "." + unread.front().name + " is not a parameter of " + kind + "=" +
                                               chosen.impl + "; " + list_parameters(kind, chosen.impl));
  resolved[kind] = {{"impl", chosen.impl}, {"params", params.values()}};
  // The registrar's wrapper only ever returns Interface objects (registered under Interface::k_kind).
  return std::unique_ptr<Interface>(static_cast<Interface*>(model.release()));
}

}  // namespace

const std::vector<std::string>& project_kinds() {
  static const std::vector<std::string> kinds = {
      "tiling", "merge", "deps",        "shader",     "hsr",        "raster",  "geometry",     "dram",  "scheduler",
      "direct", "cores", "compression", "write_elim", "empty_tile", "texture", "param_buffer", "energy",
      "display", "power", "binning"};
  return kinds;
}

namespace detail {
void register_implementation(const std::string& kind, const std::string& interface_kind,
                             const std::string& kind_description, const std::string& impl,
                             const std::string& description, Factory factory) {
  if (!is_project_kind(kind))
    registration_failure("'" + kind + "' is not one of the project's kinds (models/README.md \"Kinds\")");
  if (kind != interface_kind)
    registration_failure(kind + "=" + impl + " registered with the interface of kind '" + interface_kind + "'");
  if (!is_plain_name(impl)) registration_failure(kind + "=" + impl + ": names are a-z, 0-9 and _");
  KindEntry& entry = registry()[kind];
  entry.description = kind_description;
  if (!entry.impls.emplace(impl, ImplEntry{description, std::move(factory)}).second)
    registration_failure(kind + "=" + impl + " registered twice");
}
}  // namespace detail

std::vector<std::string> registered_kinds() {
  std::vector<std::string> out;
  for (const std::string& k : project_kinds())
    if (registry().count(k)) out.push_back(k);
  return out;
}

std::vector<std::string> registered_implementations(const std::string& kind) {
  std::vector<std::string> out;
  auto k = registry().find(kind);
  if (k != registry().end())
    for (const auto& [name, entry] : k->second.impls) out.push_back(name);
  return out;
}

const std::vector<ParamInfo>& implementation_parameters(const std::string& kind, const std::string& impl) {
  check_kind(kind, kind);
  check_impl(kind, impl, kind + "=" + impl);
  // Asked once per implementation: instantiating one to learn its parameters was half of
  // functional_part's time, which a sweep pays for every configuration; returned by reference (a map's
  // entries never move): copying the list was most of what was left.
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::vector<ParamInfo>> declared;
  std::lock_guard<std::mutex> lock(mutex);
  const auto it = declared.find({kind, impl});
  if (it != declared.end()) return it->second;
  Params params = Params::describing(kind, impl);
  find_impl(kind, impl)->factory(params);
  return declared.emplace(std::make_pair(kind, impl), params.declared()).first->second;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < detail::k_embedded_preset_count; ++i) out.push_back(detail::k_embedded_presets[i].name);
  std::sort(out.begin(), out.end());
  return out;
}

// ---- Configuration -----------------------------------------------------------------------------

Configuration Configuration::from_preset(const std::string& name_or_file) {
  std::error_code ec;
  std::vector<std::string> chain = {find_embedded(name_or_file) ? name_or_file
                                                                : std::filesystem::weakly_canonical(name_or_file, ec).string()};
  ParsedPreset preset = load_preset(name_or_file, chain);
  // Kinds the preset does not name take the reference preset's choice (models/README.md).
  const detail::EmbeddedPreset* ref = find_embedded("reference");
  if (!ref) throw std::logic_error("the reference preset is not embedded (models/presets/reference.json)");
  ParsedPreset base = parse_preset({ref->json, ref->source_path});
  for (auto& [kind, config] : base.kinds) preset.kinds.emplace(kind, std::move(config));  // keeps the preset's own
  Configuration out;
  out.m_preset_name = preset.name;
  out.m_kinds = std::move(preset.kinds);
  return out;
}

Configuration Configuration::reference() { return from_preset("reference"); }

void Configuration::apply(const std::string& assignment) {
  const std::string where = "--set " + assignment;
  const std::string grammar = "expected KIND=IMPL or KIND.PARAM=VALUE";
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size()) throw InputError(where, grammar);
  const std::string lhs = assignment.substr(0, eq), value = assignment.substr(eq + 1);
  const std::size_t dot = lhs.find('.');
  const std::string kind = lhs.substr(0, dot);
  check_kind(kind, where);
  if (dot == std::string::npos) {
    check_impl(kind, value, where);
    KindConfig& config = m_kinds[kind];
    if (config.impl != value) {  // the old implementation's parameters mean nothing to the new one
      config.params.clear();
      config.param_where.clear();
      config.param_json_type.clear();
    }
    config.impl = value;
    config.impl_where = where;
    return;
  }
  const std::string param = lhs.substr(dot + 1);
  if (!is_plain_name(param)) throw InputError(where, grammar + " (PARAM is a-z, 0-9 and _)");
  set_param(kind, param, value, where);
}

void Configuration::set_tile(const std::string& wxh) {
  const std::string where = "--tile " + wxh;
  const std::size_t x = wxh.find_first_of("xX");
  auto digits = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (x == std::string::npos || !digits(wxh.substr(0, x)) || !digits(wxh.substr(x + 1)))
    throw InputError(where, "expected WxH, the tile width and height in pixels, e.g. 32x32");
  check_kind("tiling", where);
  // Range checks happen in build_models, where the chosen tiling implementation declares them.
  set_param("tiling", "width", wxh.substr(0, x), where);
  set_param("tiling", "height", wxh.substr(x + 1), where);
}

void Configuration::set_param(const std::string& kind, const std::string& param, const std::string& value,
                              const std::string& where) {
  KindConfig& config = m_kinds[kind];
  std::erase_if(config.params, [&](const auto& p) { return p.first == param; });
  config.params.emplace_back(param, value);
  config.param_where[param] = where;
  config.param_json_type.erase(param);
}

// ---- build and describe ------------------------------------------------------------------------

ModelSet build_models(const Configuration& config) {
  ModelSet set;
  set.resolved = nlohmann::json::object();
  set.preset = config.preset_name();
  set.tiling = instantiate<TilingModel>(config, set.resolved);
  set.merge = instantiate<MergeModel>(config, set.resolved);
  set.shader = instantiate<ShaderModel>(config, set.resolved);
  set.deps = instantiate<DepsModel>(config, set.resolved);
  set.hsr = instantiate<HsrModel>(config, set.resolved);
  set.raster = instantiate<RasterModel>(config, set.resolved);
  set.geometry = instantiate<GeometryModel>(config, set.resolved);
  set.dram = instantiate<DramModel>(config, set.resolved);
  set.scheduler = instantiate<SchedulerModel>(config, set.resolved);
  set.direct = instantiate<DirectModel>(config, set.resolved);
  set.cores = instantiate<CoresModel>(config, set.resolved);
  set.energy = instantiate<EnergyModel>(config, set.resolved);
  set.display = instantiate<DisplayModel>(config, set.resolved);
  set.power = instantiate<PowerModel>(config, set.resolved);
  set.compression = instantiate<CompressionModel>(config, set.resolved);
  set.write_elim = instantiate<WriteElimModel>(config, set.resolved);
  set.empty_tile = instantiate<EmptyTileModel>(config, set.resolved);
  set.texture = instantiate<TextureModel>(config, set.resolved);
  set.param_buffer = instantiate<ParamBufferModel>(config, set.resolved);
  set.binning = instantiate<BinningModel>(config, set.resolved);
  // A kind registered but not built here would silently never run: catch it when a kind lands.
  for (const std::string& kind : registered_kinds())
    if (!set.resolved.contains(kind))
      throw std::logic_error("kind '" + kind + "' has implementations but build_models does not build it");
  return set;
}

nlohmann::json functional_part(const nlohmann::json& resolved) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [kind, entry] : resolved.items()) {
    if (kind_param_class(kind) == ParamClass::cost) continue;  // its implementation choice too
    const std::string impl = entry.at("impl").get<std::string>();
    nlohmann::json params = nlohmann::json::object();
    for (const ParamInfo& p : implementation_parameters(kind, impl))
      if (p.param_class == ParamClass::functional && entry.at("params").contains(p.name))
        params[p.name] = entry.at("params").at(p.name);
    out[kind] = {{"impl", impl}, {"params", std::move(params)}};
  }
  return out;
}

// Each embedded preset's description (which names its sources in models/README.md "Presets") and
// the implementations and parameters its file sets, for `tbdrsim models`.
std::string describe_presets() {
  std::ostringstream out;
  out << "\nPresets (every value's source: models/README.md \"Presets\"):\n";
  for (std::size_t i = 0; i < detail::k_embedded_preset_count; ++i) {
    const nlohmann::json doc = nlohmann::json::parse(detail::k_embedded_presets[i].json);
    out << "  " << detail::k_embedded_presets[i].name << ": " << doc.value("description", "") << "\n";
    const nlohmann::json models = doc.value("models", nlohmann::json::object());  // kept: items() refers to it
    for (const auto& [kind, body] : models.items()) {
      out << "    " << kind << "=" << body.value("impl", "");
      for (const auto& [param, value] : body.items())
        if (param != "impl") out << " " << param << "=" << value.dump();
      out << "\n";
    }
  }
  return out.str();
}

std::string describe_models() {
  std::map<std::string, std::string> reference_impl;
  const Configuration reference = Configuration::reference();
  for (const auto& [kind, config] : reference.kinds()) reference_impl[kind] = config.impl;
  std::ostringstream out;
  out << "Models: pick one implementation per kind with --set KIND=IMPL, set parameters with --set KIND.PARAM=VALUE\n"
      << "(applied left to right after --preset NAME|FILE; default preset: reference).\n"
      << "Presets: " << join(preset_names()) << "\n"
      << "Each parameter is functional (it can change tiles, fragments, pixels or bytes moved) or cost (it only\n"
      << "prices them: cycles, time, energy, texture-cache bytes); sweeps re-cost one simulation for every\n"
      << "configuration that differs only in cost parameters and cost-kind implementations.\n";
  for (const std::string& kind : registered_kinds()) {
    const KindEntry& entry = registry().at(kind);
    out << "\n" << kind << ": " << entry.description << " [" << param_class_name(kind_param_class(kind)) << "]\n";
    for (const auto& [impl, impl_entry] : entry.impls) {
      out << "  " << kind << "=" << impl << (reference_impl[kind] == impl ? " (reference)" : "") << ": "
          << impl_entry.description << "\n";
      const std::vector<ParamInfo> params = implementation_parameters(kind, impl);
      if (params.empty()) out << "    (no parameters)\n";
      for (const ParamInfo& p : params) {
        out << "    " << kind << "." << p.name << "  " << p.type;
        if (!p.unit.empty()) out << ", " << p.unit;
        out << ", default " << p.default_value << ", "
            << (p.type == "integer" || p.type == "real" ? "range " : "values ") << p.range << ", "
            << param_class_name(p.param_class) << ": " << p.description << "\n";
      }
    }
  }
  return out.str() + describe_presets();
}

namespace {

// A parameter's default as a JSON value of its type (integer, real, flag as numbers and booleans; a
// choice as its string), so a script reads it without parsing the text `tbdrsim models` prints.
nlohmann::json typed_default(const ParamInfo& p) {
  if (p.type == "integer" || p.type == "real" || p.type == "flag") {
    const nlohmann::json value = nlohmann::json::parse(p.default_value, nullptr, false);
    if (!value.is_discarded()) return value;
  }
  return p.default_value;
}

nlohmann::json parameter_json(const ParamInfo& p) {
  nlohmann::json out = {{"name", p.name}, {"type", p.type}, {"class", param_class_name(p.param_class)},
                        {"default", typed_default(p)}, {"range", p.range}, {"description", p.description}};
  if (!p.unit.empty()) out["unit"] = p.unit;
  if (!p.choices.empty()) out["choices"] = p.choices;
  return out;
}

}  // namespace

nlohmann::json models_json() {
  std::map<std::string, std::string> reference_impl;
  const Configuration reference = Configuration::reference();  // kept: kinds() refers into it
  for (const auto& [kind, config] : reference.kinds()) reference_impl[kind] = config.impl;
  nlohmann::json kinds = nlohmann::json::array();
  for (const std::string& kind : registered_kinds()) {
    const KindEntry& entry = registry().at(kind);
    nlohmann::json impls = nlohmann::json::array();
    for (const auto& [impl, impl_entry] : entry.impls) {
      nlohmann::json params = nlohmann::json::array();
      for (const ParamInfo& p : implementation_parameters(kind, impl)) params.push_back(parameter_json(p));
      impls.push_back({{"name", impl}, {"reference", reference_impl[kind] == impl}, {"description", impl_entry.description},
                       {"parameters", params}});
    }
    kinds.push_back({{"kind", kind}, {"class", param_class_name(kind_param_class(kind))}, {"description", entry.description},
                     {"implementations", impls}});
  }
  nlohmann::json presets = nlohmann::json::array();
  for (std::size_t i = 0; i < detail::k_embedded_preset_count; ++i)
    presets.push_back(nlohmann::json::parse(detail::k_embedded_presets[i].json));  // the bundled file as it is
  return {{"kinds", kinds}, {"presets", presets}};
}

}  // namespace tbdr::models
