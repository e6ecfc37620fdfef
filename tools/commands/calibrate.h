// `tbdrsim calibrate`: fits chosen parameters of a preset, within their declared ranges, to a
// table of measured figures with a derivative-free optimizer (NLopt), and reports the held-out error.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tools/commands/validation.h"

namespace tbdr::calibrate {

// One fitted parameter: KIND.PARAM of the preset's chosen implementation, a real or integer within [lo, hi].
struct Parameter {
  std::string kind, name;
  bool integer = false;
  double lo = 0, hi = 0, start = 0;
  bool log_scale = false;  // optimized on log(value), or log(value + 1) from 0: ranges of more than a decade
};

struct Options {
  std::string preset = "mali-g76";
  std::vector<std::string> params;  // KIND.PARAM
  unsigned folds = 0;               // 0: leave-one-out; else K-fold (row i in fold i % K)
  unsigned max_evaluations = 200;   // per fit
  unsigned threads = 1;
  uint64_t max_memory = kDefaultMemoryBudget;  // --max-memory: each evaluation's configuration is checked
};

// A fit and its held-out check. Errors are in tolerance units (validation::tolerance_error): the RMS
// over rows, weighted; `relative` the RMS of (simulated - measured) / |measured|.
struct Result {
  std::vector<Parameter> parameters;
  std::vector<double> fitted;                     // one per parameter, the fit on every row
  std::vector<std::vector<double>> fold_fitted;   // per fold
  std::vector<validation::Comparison> rows;
  std::vector<double> uncalibrated, in_sample, held_out;  // each row's simulated figure
  double uncalibrated_error = 0, in_sample_error = 0, held_out_error = 0;
  double uncalibrated_relative = 0, in_sample_relative = 0, held_out_relative = 0;
  unsigned folds = 0, evaluations = 0;
};

// Resolves the parameters against the preset: throws InputError for an unknown one, a flag or choice.
std::vector<Parameter> resolve_parameters(const std::string& preset, const std::vector<std::string>& params);

// Fits on every row and on each fold's complement. Deterministic: the same inputs give the same result.
Result calibrate(const std::vector<validation::Comparison>& rows, const Options& options);

// The fitted preset: `"base"` names the preset it started from, `"models"` holds the full merged
// parameter set with the fitted values, so the file stands on its own.
nlohmann::ordered_json fitted_preset(const Result& result, const Options& options, const std::string& name);

// The report: parameters (start -> fitted, range), per-row figures, in-sample and held-out error.
std::string report_text(const Result& result);

}  // namespace tbdr::calibrate
