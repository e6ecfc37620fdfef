// hsr=none, early_z, fpk, deferred, ...: registers every policy class of models/hsr/policies.h as an
// `hsr` implementation named by its k_name, whose policy() is that class with its parameters.
#include <memory>
#include <type_traits>

#include "models/hsr/hsr.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

template <class Policy>
class PolicyHsr final : public HsrModel {
 public:
  explicit PolicyHsr(Policy policy) : m_policy(policy) {}
  HsrPolicy policy() const override { return m_policy; }

 private:
  Policy m_policy;
};

template <class... Policies>
bool register_policies(std::type_identity<std::variant<Policies...>>) {
  (Registrar<HsrModel>("hsr", Policies::k_name, Policies::k_description,
                       [](Params& p) { return std::make_unique<PolicyHsr<Policies>>(Policies::from_params(p)); }),
   ...);
  return true;
}

[[maybe_unused]] const bool registered = register_policies(std::type_identity<HsrPolicy>{});

}  // namespace
}  // namespace tbdr::models
