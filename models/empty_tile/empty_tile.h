// The `empty_tile` kind: empty-tile elimination (models/README.md "Sources: bandwidth savers"): a tile with no
// primitives skips its fragment work, and the load and store of attachments it would leave unchanged.
#pragma once

#include "models/model.h"

namespace tbdr::models {

// Contract: whether empty tiles are eliminated (once per pass). No state.
class EmptyTileModel : public ModelBase {
 public:
  static constexpr const char* k_kind = "empty_tile";
  static constexpr const char* k_description = "empty-tile elimination: skip loads and stores of tiles with no primitives";

  virtual bool enabled() const = 0;
};

}  // namespace tbdr::models
