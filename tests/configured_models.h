// Test support: the models of a preset plus --set assignments (the CLI's configuration grammar,
// models/README.md "Configuration grammar"), shared by the tests that run simulate() under a few configurations.
#pragma once

#include <string>
#include <vector>

#include "models/registry.h"

namespace tbdr {

// `preset` then `assignments` applied left to right, e.g. {"compression=afbc", "merge.budget_bits_per_px=64"}.
inline models::ModelSet configured_models(const std::string& preset, const std::vector<std::string>& assignments) {
  models::Configuration config = models::Configuration::from_preset(preset);
  for (const std::string& a : assignments) config.apply(a);
  return models::build_models(config);
}

}  // namespace tbdr
