// param_buffer=unbounded (the reference: never flushes) and param_buffer=fixed (a capacity in bytes;
// PowerVR and llvmpipe flush, i.e. render incrementally, when it fills: models/README.md "Sources: preset numbers").
#include <memory>

#include "models/param_buffer/param_buffer.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class Unbounded final : public ParamBufferModel {
 public:
  uint64_t capacity() const override { return 0; }
};

class Fixed final : public ParamBufferModel {
 public:
  // Any positive size works (a tiny one flushes after every primitive: tests of the mechanism);
  // upper bound 2^40 B, far above any driver's heap.
  explicit Fixed(Params& params)
      : m_capacity(uint64_t(params.integer("capacity", 33554432, "B",
                                           "parameter buffer size: tile-list records and entries of one render",
                                           1, int64_t(1) << 40))) {}
  uint64_t capacity() const override { return m_capacity; }

 private:
  uint64_t m_capacity;
};

const Registrar<ParamBufferModel> unbounded_registrar(
    "param_buffer", "unbounded", "no capacity: every hardware pass is binned whole before its tiles run",
    [](Params&) { return std::make_unique<Unbounded>(); });
const Registrar<ParamBufferModel> fixed_registrar(
    "param_buffer", "fixed", "a fixed capacity; a full buffer flushes (renders and stores) what is binned so far",
    [](Params& p) { return std::make_unique<Fixed>(p); });

}  // namespace
}  // namespace tbdr::models
