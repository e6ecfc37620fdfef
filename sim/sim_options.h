// How simulate() runs a trace: the path (tiles or the immediate-mode reference), threads, the
// optional per-pixel overdraw record and the wall-time phase breakdown.
#pragma once

#include <cstdint>

namespace tbdr {

enum class RenderPath {
  tbdr,  // tiles: the modeled GPU
  imr,   // immediate mode reference: one "tile" covering the render area, no binning
};

// The tile stage's workers' wall seconds, summed over workers and renders (tbdrsim run --time).
struct TileWorkerTimes {
  uint32_t workers = 0;   // the most workers a render used
  double span = 0;        // sum over workers of the render's tile stage wall time (workers x wall)
  double busy = 0;        // running tiles (its worker's set-up excluded)
  double start_wait = 0;  // from the stage's start until the worker took its first tiles (set-up included)
  double end_wait = 0;    // from the worker's last tile until the stage's last worker finished
};

// Wall seconds simulate() spent per phase, summed over hardware passes (tbdrsim run --time). Not
// part of the report: timings differ from run to run, the report may not.
struct PhaseTimes {
  double geometry = 0;  // vertex transform, clipping, screen primitives, parameter-buffer accounting
  double binning = 0;   // bin_triangles
  double tiles = 0;     // the tiles: load, rasterize, shade, store, per-tile timing models
  double savers = 0;    // AFBC sizes and transaction-elimination signatures of loaded and stored blocks
  double setup = 0;     // the images' surfaces (allocated per run) and each render pass's attachments
  double transfers = 0; // copy, blit, resolve and compute passes
  double costing = 0;   // ledgers settled, pricing (texture-cache replay included), the frame's schedule
  double images = 0;    // the stored images handed to the caller's sink (tbdrsim: PNG encoding, staged files)
  // The tiles phase seen from its workers, summed over workers and renders: how far a parallel run's
  // tiles are from their one-thread time, and whether the loss is idle workers (a late start, an
  // uneven end) or slower tiles (busy time above the one-thread run's tiles phase).
  TileWorkerTimes tile_workers;
};

struct SimOptions {
  RenderPath path = RenderPath::tbdr;
  bool overdraw = false;  // keep per-pixel fragment counts per render pass (PassStats::overdraw)
  // Threads for the tiles of a hardware pass; outputs are byte-identical whatever the count.
  uint32_t threads = 1;
  PhaseTimes* phase_times = nullptr;  // when set, simulate() adds its phases' wall times here
};

}  // namespace tbdr
