// What differs between two sweeps' sweep.json, in the words of the command line (the preset, a trace,
// the values a --vary, --set, --tile or grid column takes): the message of a refused resume or merge.
#include "tools/commands/sweep_internal.h"

namespace tbdr::sweep {
namespace {

// KEY -> its values in order of first appearance over every configuration's assignments ("KEY=VALUE").
std::vector<std::pair<std::string, std::vector<std::string>>> values_by_key(const ojson& configurations) {
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  if (!configurations.is_array()) return out;
  for (const ojson& c : configurations) {
    if (!c.is_object() || !c.contains("assignments") || !c["assignments"].is_array()) continue;
    for (const ojson& a : c["assignments"]) {
      if (!a.is_string()) continue;
      const std::string text = a.get<std::string>();
      const size_t eq = text.find('=');
      const std::string key = text.substr(0, eq), value = eq == std::string::npos ? "" : text.substr(eq + 1);
      auto it = std::find_if(out.begin(), out.end(), [&](const auto& kv) { return kv.first == key; });
      if (it == out.end()) it = out.insert(out.end(), {key, {}});
      if (std::find(it->second.begin(), it->second.end(), value) == it->second.end()) it->second.push_back(value);
    }
  }
  return out;
}

// The values of `a` missing from `b`, joined by ','.
std::string missing_from(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& v : a)
    if (std::find(b.begin(), b.end(), v) == b.end()) out.push_back(v);
  return join(out, ",");
}

// "tile: 16x16,32x32 in the folder's sweep, 16x16,64x64 in this one (64x64 new, 32x32 gone)" per key that differs.
std::string configuration_changes(const ojson& folder, const ojson& given, const SweepNames& n) {
  const auto before = values_by_key(folder), after = values_by_key(given);
  std::vector<std::string> changes;
  for (const auto& [after_key, values] : after) {
    const std::string& key = after_key;  // clang 14 captures no structured binding
    const auto old = std::find_if(before.begin(), before.end(), [&](const auto& kv) { return kv.first == key; });
    if (old == before.end()) {
      changes.push_back(key + "=" + join(values, ",") + " in " + n.b + " (" + n.a + " does not set " + key + ")");
    } else if (old->second != values) {
      const std::string added = missing_from(values, old->second), gone = missing_from(old->second, values);
      std::string detail = added.empty() && gone.empty() ? "in another order"
                                                         : (added.empty() ? "" : added + " new") +
                                                               (!added.empty() && !gone.empty() ? ", " : "") +
                                                               (gone.empty() ? "" : gone + " gone");
      changes.push_back(key + ": " + join(old->second, ",") + " in " + n.a + ", " + join(values, ",") +
                        " in " + n.b + " (" + detail + ")");
    }
  }
  for (const auto& [before_key, values] : before)
    if (const std::string& key = before_key; std::none_of(after.begin(), after.end(), [&](const auto& kv) { return kv.first == key; }))
      changes.push_back(key + "=" + join(values, ",") + " in " + n.a + ", not set in " + n.b);
  if (changes.empty() && folder.size() != given.size())
    changes.push_back(std::to_string(folder.size()) + " configurations in " + n.a + ", " +
                      std::to_string(given.size()) + " in " + n.b);
  if (changes.empty()) changes.push_back("the configurations' order or grouping (the same values, combined otherwise)");
  return join(changes, "; ");
}

std::string trace_changes(const ojson& folder, const ojson& given, const SweepNames& n) {
  auto paths = [](const ojson& traces) {
    std::vector<std::string> out;
    for (const ojson& t : traces) out.push_back(t.is_object() ? t.value("path", "?") : "?");
    return out;
  };
  const std::vector<std::string> before = paths(folder), after = paths(given);
  if (before != after)
    return "the traces: " + join(before, ", ") + " in " + n.a + ", " + join(after, ", ") + " in " + n.b;
  for (size_t t = 0; t < folder.size(); ++t)
    if (folder[t] != given[t]) return "the trace " + before[t] + " changed (another fnv1a64 in " + n.b + " than in " + n.a + ")";
  return "the traces";
}

}  // namespace

static std::string first_change(const ojson& folder, const ojson& given, const SweepNames& n);

std::string sweep_difference(const std::string& folder_text, const std::string& given_text, const SweepNames& n) {
  ojson folder, given;
  try {
    folder = ojson::parse(folder_text);
    given = ojson::parse(given_text);
  } catch (const std::exception&) {
    return "a sweep.json is not valid JSON";
  }
  if (!folder.is_object() || !given.is_object()) return "a sweep.json is not a JSON object";
  try {
    return first_change(folder, given, n);
  } catch (const nlohmann::json::exception&) {  // a field of another JSON type than a sweep writes
    return "sweep.json's fields are not those of a sweep";
  }
}

// The first field that differs, in the order a user changes them (format, preset, traces, --vary).
static std::string first_change(const ojson& folder, const ojson& given, const SweepNames& n) {
  auto differs = [&](const char* key) { return folder.value(key, ojson()) != given.value(key, ojson()); };
  if (differs("format") || differs("version"))
    return n.a + " is of format " + folder.value("format", ojson()).dump() + " version " +
           folder.value("version", ojson()).dump() + ", " + n.b + " of " + given.value("format", ojson()).dump() +
           " version " + given.value("version", ojson()).dump();
  if (differs("preset"))
    return "the preset: " + folder.value("preset", ojson()).dump() + " in " + n.a + ", " +
           given.value("preset", ojson()).dump() + " in " + n.b;
  if (differs("traces")) return trace_changes(folder.value("traces", ojson::array()), given.value("traces", ojson::array()), n);
  if (differs("configurations"))
    return configuration_changes(folder.value("configurations", ojson::array()), given.value("configurations", ojson::array()), n);
  if (differs("models_fnv1a64"))
    return "the resolved parameters, with the same assignments (the preset file's contents or this tbdrsim's defaults "
           "changed)";
  if (differs("shard")) return "the shard: " + folder.value("shard", ojson()).dump() + " in " + n.a + ", " +
                               given.value("shard", ojson()).dump() + " in " + n.b;
  return "sweep.json";
}

}  // namespace tbdr::sweep
