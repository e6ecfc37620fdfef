// Params: how an implementation declares and reads its parameters (models/model.h), with the value checks
// that turn a bad --set or preset value into one InputError naming KIND.PARAM and the accepted range.
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include "models/errors.h"
#include "models/model.h"

namespace tbdr::models {
namespace {

std::string format_integer(int64_t v) { return std::to_string(v); }

// Shortest round-trip text, so `tbdrsim models` and reports print 0.1 as "0.1" on every platform.
std::string format_real(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

// "[lo, hi]", built by appending: GCC 12 gives a false -Wrestrict for "[" + std::string&& (GCC bug 105651).
std::string range_text(const std::string& lo, const std::string& hi) {
  std::string out = "[";
  out += lo;
  out += ", ";
  out += hi;
  out += "]";
  return out;
}

std::string with_unit(const std::string& unit) { return unit.empty() ? "" : " " + unit; }

// A preset file's value must have the parameter's JSON type (a number, true/false, a string); --set
// text has none and is parsed by the parameter's type alone.
void check_json_type(const ParamSetting& s, const std::string& qualified_name, const char* wanted,
                     const std::string& expected) {
  if (!s.json_type.empty() && s.json_type != wanted)
    throw InputError(s.where, qualified_name + ": expected " + expected + ", got the JSON " + s.json_type + " " +
                                  (s.json_type == "string" ? "\"" + s.value + "\"" : s.value));
}

}  // namespace

const char* param_class_name(ParamClass c) { return c == ParamClass::cost ? "cost" : "functional"; }

// The kinds whose models sim/ calls only from the costing stage (sim/pass/costing.cpp), the frame's
// scheduling and energy (sim/schedule.cpp), the present timeline and power (sim/present.cpp) and direct rendering's DRAM bound (the fragment phase's
// cycles, sim/pass/costing.cpp): none of them can change what is rasterized, shaded, stored or moved
// by the functional stages. Conservatively functional: every kind the functional stages read, even
// for one field (tiling, merge, hsr, direct, compression, write_elim, empty_tile, param_buffer, and
// texture, whose line size and layout shape the recorded line streams), and any kind not listed.
ParamClass kind_param_class(const std::string& kind) {
  static const char* const cost_kinds[] = {"shader", "deps",      "raster", "geometry",
                                           "dram",   "scheduler", "cores",  "energy",
                                           "display", "power"};
  for (const char* k : cost_kinds)
    if (kind == k) return ParamClass::cost;
  return ParamClass::functional;
}

Params::Params(std::string kind, std::string impl, std::vector<ParamSetting> settings)
    : m_kind(std::move(kind)), m_impl(std::move(impl)), m_settings(std::move(settings)) {}

Params Params::describing(std::string kind, std::string impl) {
  Params p(std::move(kind), std::move(impl), {});
  p.m_describe = true;
  return p;
}

const ParamSetting* Params::declare(ParamInfo info) {
  // Two declarations of one name would make the second silently shadow the first: a programming error.
  for (const ParamInfo& d : m_declared)
    if (d.name == info.name)
      throw std::logic_error(qualified(info.name) + " declared twice by " + m_kind + "=" + m_impl);
  info.param_class = kind_param_class(m_kind);
  m_declared.push_back(std::move(info));
  if (m_describe) return nullptr;
  const ParamSetting* found = nullptr;
  for (const ParamSetting& s : m_settings)
    if (s.name == m_declared.back().name) found = &s;  // the last one set wins
  return found;
}

int64_t Params::integer(const std::string& name, int64_t def, const std::string& unit, const std::string& description,
                        int64_t min, int64_t max) {
  if (min > max || def < min || def > max) throw std::logic_error(qualified(name) + ": default outside its range");
  const std::string range = range_text(format_integer(min), format_integer(max));
  const ParamSetting* s = declare({name, "integer", unit, description, format_integer(def), {}, range});
  int64_t value = def;
  if (s) {
    check_json_type(*s, qualified(name), "number", "an integer in " + range + with_unit(unit));
    const std::string& text = s->value;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max)
      throw InputError(
          s->where, qualified(name) + ": expected an integer in " + range + with_unit(unit) + ", got '" + text + "'");
  }
  m_values[name] = value;
  return value;
}

double Params::real(const std::string& name, double def, const std::string& unit, const std::string& description,
                    double min, double max) {
  if (!(min <= max) || !(def >= min && def <= max))
    throw std::logic_error(qualified(name) + ": default outside its range");
  const std::string range = range_text(format_real(min), format_real(max));
  const ParamSetting* s = declare({name, "real", unit, description, format_real(def), {}, range});
  double value = def;
  if (s) {
    check_json_type(*s, qualified(name), "number", "a real number in " + range + with_unit(unit));
    const std::string& text = s->value;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < min ||
        value > max)
      throw InputError(s->where, qualified(name) + ": expected a real number in " + range + with_unit(unit) +
                                     ", got '" + text + "'");
  }
  m_values[name] = value;
  return value;
}

bool Params::flag(const std::string& name, bool def, const std::string& description) {
  const ParamSetting* s = declare({name, "flag", "", description, def ? "true" : "false", {}, "true|false"});
  bool value = def;
  if (s) {
    check_json_type(*s, qualified(name), "boolean", "true or false");
    const std::string& t = s->value;
    if (t == "true" || t == "1" || t == "on" || t == "yes") {
      value = true;
    } else if (t == "false" || t == "0" || t == "off" || t == "no") {
      value = false;
    } else {
      throw InputError(s->where,
                       qualified(name) + ": expected a flag (true|false, 1|0, on|off, yes|no), got '" + t + "'");
    }
  }
  m_values[name] = value;
  return value;
}

std::string Params::choice(const std::string& name, const std::string& def, const std::vector<std::string>& options,
                           const std::string& description) {
  bool def_ok = false;
  for (const std::string& o : options) def_ok |= (o == def);
  if (!def_ok) throw std::logic_error(qualified(name) + ": default is not one of its options");
  const std::string range = join(options, "|");
  const ParamSetting* s = declare({name, "choice", "", description, def, options, range});
  std::string value = def;
  if (s) {
    check_json_type(*s, qualified(name), "string", "one of the strings " + range);
    bool ok = false;
    for (const std::string& o : options) ok |= (o == s->value);
    if (!ok) throw InputError(s->where, qualified(name) + ": expected one of " + range + ", got '" + s->value + "'");
    value = s->value;
  }
  m_values[name] = value;
  return value;
}

std::vector<ParamSetting> Params::unread() const {
  std::vector<ParamSetting> out;
  for (const ParamSetting& s : m_settings) {
    bool read = false;
    for (const ParamInfo& d : m_declared) read |= (d.name == s.name);
    if (!read) out.push_back(s);
  }
  return out;
}

}  // namespace tbdr::models
