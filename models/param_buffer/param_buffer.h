// The `param_buffer` kind: the parameter buffer's capacity (models/README.md "Sources: preset numbers": PowerVR flushes
// the render when it fills). sim/ renders what is binned so far (an incremental render) when full.
#pragma once

#include <cstdint>

#include "models/model.h"

namespace tbdr::models {

// Contract: capacity() is the parameter buffer's size in bytes, asked once per hardware pass;
// 0 means unbounded (every primitive of the pass is binned before any tile runs). The bytes a
// hardware pass puts in it are its tile_list write bytes (traces/README.md, ledger rules): one
// record per binned primitive plus 4 B per tile-list entry. No state.
class ParamBufferModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "param_buffer";
  static constexpr const char* k_description =
      "parameter buffer capacity: when binned geometry would exceed it, render what is binned so far";

  virtual uint64_t capacity() const = 0;
};

}  // namespace tbdr::models
