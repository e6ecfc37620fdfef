// empty_tile=off and empty_tile=on (models/README.md "Sources: bandwidth savers": "tiles with no geometry skip work,
// including the LOAD read-back").
#include <memory>

#include "models/empty_tile/empty_tile.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

class EmptyTile final : public EmptyTileModel {
 public:
  explicit EmptyTile(bool enabled) : m_enabled(enabled) {}
  bool enabled() const override { return m_enabled; }

 private:
  bool m_enabled;
};

const Registrar<EmptyTileModel> off_registrar("empty_tile", "off", "every tile is loaded and stored",
                                              [](Params&) { return std::make_unique<EmptyTile>(false); });
const Registrar<EmptyTileModel> on_registrar(
    "empty_tile", "on", "tiles with no primitives skip the load and store of attachments they leave unchanged",
    [](Params&) { return std::make_unique<EmptyTile>(true); });

}  // namespace
}  // namespace tbdr::models
