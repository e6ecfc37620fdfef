// The list of HSR policies: each alternative is a policy class (models/hsr/policy.h) and, by its
// k_name, a registered `hsr` implementation (hsr_impls.cpp registers every one).
#pragma once

#include <variant>

#include "models/hsr/deferred.h"
#include "models/hsr/early_z.h"
#include "models/hsr/fpk.h"
#include "models/hsr/none.h"

namespace tbdr::models {

// A new policy: its header here and its class in this list.
using HsrPolicy = std::variant<NoHsr, EarlyZ, Fpk, Deferred>;

}  // namespace tbdr::models
