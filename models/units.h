// Strong units that models return and sim/ accumulates into Stats: Bytes of memory traffic and Cycles of time.
// A distinct type per unit so a byte count can never be added to a cycle count by accident.
#pragma once

#include <compare>
#include <cstdint>

namespace tbdr::models {

// Bytes are exact and integral: every traffic figure is a whole number of bytes (a tile store,
// a tile-list write, a texel fetch line), and 64 bits hold a lifetime of frames.
// Subtraction is for Stats deltas (later minus earlier); the caller guarantees it does not wrap.
struct Bytes {
  uint64_t value = 0;

  constexpr Bytes() = default;
  constexpr explicit Bytes(uint64_t v) : value(v) {}

  constexpr Bytes& operator+=(Bytes other) {
    value += other.value;
    return *this;
  }
  constexpr Bytes& operator-=(Bytes other) {
    value -= other.value;
    return *this;
  }
  friend constexpr Bytes operator+(Bytes a, Bytes b) { return Bytes(a.value + b.value); }
  friend constexpr Bytes operator-(Bytes a, Bytes b) { return Bytes(a.value - b.value); }
  friend constexpr auto operator<=>(Bytes a, Bytes b) = default;
};

// Cycles are a double, not an integer: cost models are throughput rules (fragments / pixels per
// clock, texels / texels per clock, bytes / bytes per clock; Arm gives 2 px/clk,
// 2 texels/clk, ...), whose per-tile results are fractional. Rounding each tile up to a whole cycle
// would bias a frame's total by up to one cycle per tile per unit (thousands of tiles), and rounding
// down would make small tiles free. A double holds integers exactly up to 2^53 (about 100 days at
// 1 GHz), and sums stay deterministic because sim/ merges per-tile figures in a fixed order
// (tools/doc/design.md "Design rules": determinism) and the build forbids FMA contraction (-ffp-contract=off).
// Reports may round for display; the counters keep the fraction.
struct Cycles {
  double value = 0.0;

  constexpr Cycles() = default;
  constexpr explicit Cycles(double v) : value(v) {}

  constexpr Cycles& operator+=(Cycles other) {
    value += other.value;
    return *this;
  }
  constexpr Cycles& operator-=(Cycles other) {
    value -= other.value;
    return *this;
  }
  friend constexpr Cycles operator+(Cycles a, Cycles b) { return Cycles(a.value + b.value); }
  friend constexpr Cycles operator-(Cycles a, Cycles b) { return Cycles(a.value - b.value); }
  friend constexpr auto operator<=>(Cycles a, Cycles b) = default;
};

}  // namespace tbdr::models
