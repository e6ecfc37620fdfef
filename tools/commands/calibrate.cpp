// `tbdrsim calibrate`: a bounded derivative-free fit (NLopt BOBYQA, Powell 2009) of a preset's
// parameters to measured figures, with K-fold or leave-one-out held-out error beside the in-sample error.
#include "tools/commands/calibrate.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <set>
#include <thread>
#include <nlopt.hpp>
#include <sstream>

#include "models/errors.h"
#include "models/registry.h"

namespace tbdr::calibrate {
namespace {

using validation::Comparison;

std::string shortest(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(v);
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// "[lo, hi]" as models/params.cpp writes a numeric range.
bool parse_range(const std::string& range, double& lo, double& hi) {
  const size_t comma = range.find(", ");
  if (range.size() < 5 || range.front() != '[' || range.back() != ']' || comma == std::string::npos) return false;
  const std::string a = range.substr(1, comma - 1), b = range.substr(comma + 2, range.size() - comma - 3);
  const auto ra = std::from_chars(a.data(), a.data() + a.size(), lo);
  const auto rb = std::from_chars(b.data(), b.data() + b.size(), hi);
  return ra.ec == std::errc() && rb.ec == std::errc();
}

// The optimizer works on u in [0, 1] per parameter: linear in the range, or in log(value + offset)
// (offset 1 for a range starting at 0, so [0, 1e6] is searched by decades too).
double log_offset(const Parameter& p) { return p.lo == 0 ? 1.0 : 0.0; }

double decode(const Parameter& p, double u) {
  const double o = log_offset(p);
  const double v = p.log_scale ? std::exp(std::log(p.lo + o) + u * (std::log(p.hi + o) - std::log(p.lo + o))) - o
                               : p.lo + u * (p.hi - p.lo);
  const double clamped = std::fmin(p.hi, std::fmax(p.lo, v));
  return p.integer ? std::round(clamped) : clamped;
}

double encode(const Parameter& p, double v) {
  const double o = log_offset(p);
  const double u = p.log_scale ? (std::log(v + o) - std::log(p.lo + o)) / (std::log(p.hi + o) - std::log(p.lo + o))
                               : (v - p.lo) / (p.hi - p.lo);
  return std::fmin(1.0, std::fmax(0.0, u));
}

std::string value_text(const Parameter& p, double v) {
  return p.integer ? std::to_string(std::llround(v)) : shortest(v);
}

// The preset with the parameters at `values`, then a row's settings (its device's configuration, which a
// fit does not override).
models::ModelSet models_at(const Options& options, const std::vector<Parameter>& params,
                           const std::vector<double>& values, const std::vector<std::string>& settings = {},
                           const std::string& settings_where = "") {
  models::Configuration config = models::Configuration::from_preset(options.preset);
  for (size_t i = 0; i < params.size(); ++i)
    config.apply(params[i].kind + "." + params[i].name + "=" + value_text(params[i], values[i]));
  return validation::models_with_settings(config, settings, settings_where);
}

// Weighted RMS of the rows' errors (in tolerance units, or relative to the measured value).
double rms(const std::vector<Comparison>& rows, const std::vector<double>& simulated, const std::vector<size_t>& which,
           bool relative) {
  double sum = 0, weights = 0;
  for (size_t i : which) {
    if (relative && rows[i].measured == 0) continue;  // no error relative to 0 (the tolerance is absolute)
    const double e = relative ? (simulated[i] - rows[i].measured) / std::fabs(rows[i].measured)
                              : validation::tolerance_error(rows[i], simulated[i]);
    // A figure the model cannot form (a ratio over 0) counts as a large miss, never as NaN.
    sum += rows[i].weight * (std::isfinite(e) ? e * e : 1e12);
    weights += rows[i].weight;
  }
  return weights > 0 ? std::sqrt(sum / weights) : 0;
}

// Figures already simulated, by trace (with its row's settings, validation::figure_key) and parameter values: every fit starts at the preset's values,
// and a fold's held-out rows are predicted at a point its fit has simulated.
using FigureCache = std::map<std::pair<std::string, std::vector<double>>, validation::FrameFigures>;

// What one fit sees: the rows it fits, their traces (read once), and the evaluations made.
struct Problem {
  const Options& options;
  const std::vector<Parameter>& params;
  FigureCache& cache;
  std::vector<Comparison> rows;
  std::map<std::string, Trace> traces;
  unsigned evaluations = 0;
};

// The traces one evaluation still has to simulate, each once.
struct Missing {
  std::string key, path, where;
  std::vector<std::string> settings;
};

// Simulates `missing` at `values`, up to options.threads traces at a time (one thread each, its own
// models): an evaluation is a few dozen independent simulations, which threads inside one pass speed
// up far less. Same figures whatever the thread count; the first failure in task order is rethrown.
void simulate_missing(const Problem& p, const std::vector<double>& values, const std::vector<Missing>& missing) {
  std::vector<validation::FrameFigures> figures(missing.size());
  std::vector<std::exception_ptr> errors(missing.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < missing.size();) try {
        const Missing& m = missing[i];
        const models::ModelSet models = models_at(p.options, p.params, values, m.settings, m.where);
        figures[i] = validation::simulate_figures(p.traces.at(m.path), models, 1, p.options.max_memory, m.path);
      } catch (...) {
        errors[i] = std::current_exception();
      }
  };
  const size_t workers = std::min<size_t>(std::max(1u, p.options.threads), missing.size());
  std::vector<std::thread> pool;
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (size_t i = 0; i < missing.size(); ++i) p.cache.emplace(std::make_pair(missing[i].key, values), figures[i]);
}

std::vector<double> simulate_at(const Problem& p, const std::vector<double>& values) {
  std::vector<Missing> missing;
  std::set<std::string> queued;
  for (const Comparison& c : p.rows)
    for (size_t i = 0; i < c.traces.size(); ++i) {
      const std::string key = validation::figure_key(c.traces[i], c.settings_of(i));
      if (!p.cache.count({key, values}) && queued.insert(key).second)
        missing.push_back({key, c.traces[i], c.settings_where, c.settings_of(i)});
    }
  simulate_missing(p, values, missing);
  std::vector<double> out;
  for (const Comparison& c : p.rows) {
    std::vector<validation::FrameFigures> figures;
    for (size_t i = 0; i < c.traces.size(); ++i)
      figures.push_back(p.cache.at({validation::figure_key(c.traces[i], c.settings_of(i)), values}));
    out.push_back(validation::combined_value(c, figures));
  }
  return out;
}

// The traces `rows` name, from those read once.
std::map<std::string, Trace> traces_of(const std::vector<Comparison>& rows, const std::map<std::string, Trace>& read) {
  std::map<std::string, Trace> out;
  for (const Comparison& c : rows)
    for (const std::string& path : c.traces) out.emplace(path, read.at(path));
  return out;
}

double objective(const std::vector<double>& u, std::vector<double>& gradient, void* data) {
  (void)gradient;  // derivative-free: NLopt passes none
  Problem& p = *static_cast<Problem*>(data);
  std::vector<double> values;
  for (size_t i = 0; i < u.size(); ++i) values.push_back(decode(p.params[i], u[i]));
  ++p.evaluations;
  std::vector<size_t> all(p.rows.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  const double e = rms(p.rows, simulate_at(p, values), all, false);
  return e * e;
}

// BOBYQA (bound-constrained quadratic models; NLopt's LN_BOBYQA) needs two or more parameters;
// one parameter is fitted by NLopt's bounded Nelder-Mead simplex.
std::vector<double> fit(Problem& problem) {
  const size_t n = problem.params.size();
  nlopt::opt opt(n >= 2 ? nlopt::LN_BOBYQA : nlopt::LN_NELDERMEAD, unsigned(n));
  opt.set_lower_bounds(std::vector<double>(n, 0.0));
  opt.set_upper_bounds(std::vector<double>(n, 1.0));
  opt.set_min_objective(objective, &problem);
  opt.set_maxeval(int(problem.options.max_evaluations));
  opt.set_xtol_abs(1e-4);
  opt.set_initial_step(0.1);
  std::vector<double> u;
  for (const Parameter& p : problem.params) u.push_back(encode(p, p.start));
  double best = 0;
  try {
    opt.optimize(u, best);
  } catch (const nlopt::roundoff_limited&) {
    // The best point so far is in u: a flat objective (an integer parameter's steps) ends this way.
  }
  std::vector<double> values;
  for (size_t i = 0; i < n; ++i) values.push_back(decode(problem.params[i], u[i]));
  return values;
}

// A fit is written only when every figure and error it reports is a number: a ratio or change over
// a simulated 0 (combined_value gives inf) counted as a large miss in the objective, but a preset
// fitted to it was written after a table that printed `inf`.
void check_finite(const Result& r) {
  for (size_t i = 0; i < r.rows.size(); ++i)
    for (const auto& [figures, which] : {std::pair{&r.in_sample, "fitted"}, {&r.held_out, "held-out"}})
      if (!std::isfinite((*figures)[i]))
        throw InputError(r.rows[i].where.empty() ? "measurements row " + std::to_string(i + 1) : r.rows[i].where,
                         std::string("the ") + which + " simulated figure is " + shortest((*figures)[i]) +
                             " (a ratio or change over a simulated 0): the fit is undefined; nothing written");
  for (const double e : {r.uncalibrated_error, r.in_sample_error, r.held_out_error, r.uncalibrated_relative,
                         r.in_sample_relative, r.held_out_relative})
    if (!std::isfinite(e)) throw InputError("measurements", "the fit's error is not finite; nothing written");
}

}  // namespace

std::vector<Parameter> resolve_parameters(const std::string& preset, const std::vector<std::string>& params) {
  if (params.empty()) throw InputError("--params", "name at least one KIND.PARAM to fit");
  const models::Configuration config = models::Configuration::from_preset(preset);
  const nlohmann::json resolved = models::build_models(config).resolved;
  std::vector<Parameter> out;
  for (const std::string& spec : params) {
    const std::string where = "--params " + spec;
    const size_t dot = spec.find('.');
    if (dot == std::string::npos) throw InputError(where, "expected KIND.PARAM");
    Parameter p{spec.substr(0, dot), spec.substr(dot + 1)};
    const auto kind = config.kinds().find(p.kind);
    if (kind == config.kinds().end()) throw InputError(where, "unknown kind " + p.kind);
    const std::string& impl = kind->second.impl;
    const models::ParamInfo* info = nullptr;
    const std::vector<models::ParamInfo> declared = models::implementation_parameters(p.kind, impl);
    for (const models::ParamInfo& d : declared)
      if (d.name == p.name) info = &d;
    if (!info) throw InputError(where, p.name + " is not a parameter of " + p.kind + "=" + impl);
    if (info->type != "real" && info->type != "integer")
      throw InputError(where, "only real and integer parameters can be fitted; this one is a " + info->type);
    if (!parse_range(info->range, p.lo, p.hi) || !(p.lo < p.hi))
      throw InputError(where, "no numeric range to fit within (" + info->range + ")");
    p.integer = info->type == "integer";
    p.log_scale = p.lo >= 0 && (p.hi + log_offset(p)) / (p.lo + log_offset(p)) > 10;
    p.start = resolved.at(p.kind).at("params").at(p.name).get<double>();
    out.push_back(p);
  }
  return out;
}

Result calibrate(const std::vector<Comparison>& rows, const Options& options) {
  if (rows.size() < 2) throw InputError("measurements", "need at least two rows (one to fit, one to hold out)");
  Result r;
  r.rows = rows;
  r.parameters = resolve_parameters(options.preset, options.params);
  r.folds = options.folds == 0 ? unsigned(rows.size()) : std::min<unsigned>(options.folds, unsigned(rows.size()));
  if (r.folds < 2) throw InputError("--folds", "expected 2 or more folds (0: leave-one-out)");
  const std::map<std::string, Trace> traces = validation::read_comparison_traces(rows);
  std::vector<double> start;
  for (const Parameter& p : r.parameters) start.push_back(p.start);
  FigureCache cache;
  Problem all{options, r.parameters, cache, rows, traces};
  r.uncalibrated = simulate_at(all, start);
  r.fitted = fit(all);
  r.in_sample = simulate_at(all, r.fitted);
  r.evaluations = all.evaluations;
  r.held_out.assign(rows.size(), 0.0);
  for (unsigned k = 0; k < r.folds; ++k) {
    Problem train{options, r.parameters, cache, {}, {}}, held{options, r.parameters, cache, {}, {}};
    std::vector<size_t> held_rows;
    for (size_t i = 0; i < rows.size(); ++i) {
      (i % r.folds == k ? held.rows : train.rows).push_back(rows[i]);
      if (i % r.folds == k) held_rows.push_back(i);
    }
    train.traces = traces_of(train.rows, traces);
    held.traces = traces_of(held.rows, traces);
    r.fold_fitted.push_back(fit(train));
    r.evaluations += train.evaluations;
    const std::vector<double> predicted = simulate_at(held, r.fold_fitted.back());
    for (size_t j = 0; j < held_rows.size(); ++j) r.held_out[held_rows[j]] = predicted[j];
  }
  std::vector<size_t> every(rows.size());
  for (size_t i = 0; i < every.size(); ++i) every[i] = i;
  r.uncalibrated_error = rms(rows, r.uncalibrated, every, false);
  r.in_sample_error = rms(rows, r.in_sample, every, false);
  r.held_out_error = rms(rows, r.held_out, every, false);
  r.uncalibrated_relative = rms(rows, r.uncalibrated, every, true);
  r.in_sample_relative = rms(rows, r.in_sample, every, true);
  r.held_out_relative = rms(rows, r.held_out, every, true);
  check_finite(r);
  return r;
}

nlohmann::ordered_json fitted_preset(const Result& result, const Options& options, const std::string& name) {
  const models::Configuration config = models::Configuration::from_preset(options.preset);
  const nlohmann::json resolved = models_at(options, result.parameters, result.fitted).resolved;
  std::ostringstream description;
  description << "Calibrated by tbdrsim calibrate from " << config.preset_name() << " on " << result.rows.size()
              << " measurements:";
  for (size_t i = 0; i < result.parameters.size(); ++i)
    description << " " << result.parameters[i].kind << "." << result.parameters[i].name << " "
                << value_text(result.parameters[i], result.parameters[i].start) << " -> "
                << value_text(result.parameters[i], result.fitted[i]) << ";";
  description << " RMS error in tolerance units: in-sample " << fixed(result.in_sample_error, 3) << ", held-out "
              << fixed(result.held_out_error, 3) << " (" << result.folds << " folds).";
  nlohmann::ordered_json preset = {{"name", name}, {"description", description.str()}, {"base", config.preset_name()}};
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  for (const auto& [kind, chosen] : resolved.items()) {
    nlohmann::ordered_json body = nlohmann::ordered_json::object();  // not {{...}}: one pair reads as an array under clang
    body["impl"] = chosen.at("impl");
    for (const auto& [param, value] : chosen.at("params").items()) body[param] = value;
    kinds[kind] = body;
  }
  preset["models"] = kinds;
  return preset;
}

std::string report_text(const Result& r) {
  std::ostringstream out;
  out << "calibrate: " << r.parameters.size() << " parameters, " << r.rows.size() << " measurements, " << r.folds
      << (r.folds == r.rows.size() ? " folds (leave-one-out)" : " folds") << ", " << r.evaluations
      << " objective evaluations\n";
  for (size_t i = 0; i < r.parameters.size(); ++i) {
    const Parameter& p = r.parameters[i];
    double lo = r.fitted[i], hi = r.fitted[i];
    for (const std::vector<double>& f : r.fold_fitted) lo = std::fmin(lo, f[i]), hi = std::fmax(hi, f[i]);
    out << "  " << p.kind << "." << p.name << ": " << value_text(p, p.start) << " -> " << value_text(p, r.fitted[i])
        << " (range [" << shortest(p.lo) << ", " << shortest(p.hi) << "]; folds " << value_text(p, lo) << " to "
        << value_text(p, hi) << ")\n";
  }
  out << "| case | figure | measured | uncalibrated | fitted | held out |\n|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const Comparison& c = r.rows[i];
    out << "| " << c.case_name << " | " << c.figure << " | " << (c.measured_text.empty() ? shortest(c.measured) : c.measured_text) << " | "
        << fixed(r.uncalibrated[i], c.decimals) << " | " << fixed(r.in_sample[i], c.decimals) << " | "
        << fixed(r.held_out[i], c.decimals) << " |\n";
  }
  out << "RMS error in tolerance units (relative): uncalibrated " << fixed(r.uncalibrated_error, 3) << " ("
      << fixed(r.uncalibrated_relative * 100, 1) << "%), in-sample " << fixed(r.in_sample_error, 3) << " ("
      << fixed(r.in_sample_relative * 100, 1) << "%), held-out " << fixed(r.held_out_error, 3) << " ("
      << fixed(r.held_out_relative * 100, 1) << "%)\n";
  return out.str();
}

}  // namespace tbdr::calibrate
