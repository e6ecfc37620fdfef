// deps=none, single and multi: stalls of fragments that read tile memory and must wait for older
// fragments (layers) at the same pixel (the three-costs article section 3.2;
// models/README.md "Sources: merging subpasses").
//
// Both tracker models start from the tile's per-pixel layer counts: a pixel with L tile-reading
// layers has (L-1)+ layers that wait for an older one (the oldest never waits), so
//   waiting_layers = sum over L of layer_histogram[L] x max(L - 1, 0)
// (the last histogram slot counts as L = kMaxTrackedLayers - 1, a lower bound). With R =
// tile_reads_per_fragment, A = access_latency and P = overlap (pixels whose waits overlap: the
// lanes of one warp wait together, so their stalls cost the core once):
//   single: stall = waiting_layers x R x A / P
//           one tracker per pixel (before Mali-G710): a layer touches tile memory only once the
//           older layer finished all R of its accesses, each A cycles, so it waits R x A.
//   multi:  stall = waiting_layers x min(R, 1) x A / (P x T),  T = trackers
//           several trackers per pixel (from G710): dependencies are released access by access,
//           so a layer waits at most one access of the older layer (min(R, 1): a fragment reading
//           less than once on average waits less), and T trackers keep T layers' accesses in flight.
// For equal A and P, multi <= single because min(R, 1) / T <= R for T >= 1, strictly when
// L >= 2 somewhere and R > 1 or T > 1; both are 0 when no pixel has two tile-reading layers.
#include <algorithm>
#include <memory>

#include "models/deps/deps.h"
#include "models/registry.h"

namespace tbdr::models {
namespace {

double waiting_layers(const TileWork& w) {
  double n = 0;
  for (size_t layers = 2; layers < kMaxTrackedLayers; ++layers) n += double(w.layer_histogram[layers]) * double(layers - 1);
  return n;
}

class NoDeps final : public DepsModel {
 public:
  Cycles stall_cycles(const TileWork&) const override { return Cycles(); }
};

// The parameters both tracker models share.
struct TrackerParams {
  double latency, overlap;
  explicit TrackerParams(Params& p)
      // guess: a tile-memory access takes about as long as a short ALU pipeline (no public figure).
      : latency(p.real("access_latency", 8, "clk", "cycles one tile-memory access takes (guess)", 0, 1e6)),
        // guess: one Valhall warp, 16 lanes = 16 pixels, stalls as one (Bifrost G76 warps are 8 wide).
        overlap(p.real("overlap", 16, "px", "pixels whose dependency stalls overlap (one warp's lanes; guess)", 1,
                       1e6)) {}
};

class SingleTracker final : public DepsModel {
 public:
  explicit SingleTracker(Params& p) : m_t(p) {}
  Cycles stall_cycles(const TileWork& w) const override {
    return Cycles(waiting_layers(w) * w.tile_reads_per_fragment * m_t.latency / m_t.overlap);
  }

 private:
  TrackerParams m_t;
};

class MultiTracker final : public DepsModel {
 public:
  // guess: Arm says "multiple" trackers per pixel from G710 without a number; 2 is the least that is several.
  explicit MultiTracker(Params& p)
      : m_t(p), m_trackers(double(p.integer("trackers", 2, "", "dependency trackers per pixel (guess)", 1, 64))) {}
  Cycles stall_cycles(const TileWork& w) const override {
    return Cycles(waiting_layers(w) * std::min(w.tile_reads_per_fragment, 1.0) * m_t.latency /
                  (m_t.overlap * m_trackers));
  }

 private:
  TrackerParams m_t;
  double m_trackers;
};

const Registrar<DepsModel> none_registrar("deps", "none", "no dependency stalls",
                                          [](Params&) { return std::make_unique<NoDeps>(); });
const Registrar<DepsModel> single_registrar(
    "deps", "single",
    "one tracker per pixel (before Mali-G710): a layer waits for all older tile accesses at its pixel",
    [](Params& p) { return std::make_unique<SingleTracker>(p); });
const Registrar<DepsModel> multi_registrar(
    "deps", "multi", "several trackers per pixel (Mali-G710 on): dependencies released access by access",
    [](Params& p) { return std::make_unique<MultiTracker>(p); });

}  // namespace
}  // namespace tbdr::models
