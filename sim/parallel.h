// Fork-join over the pass's threads for work split into independent blocks (binning's blocks of
// primitives, geometry's ranges of vertices and triangles).
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

namespace tbdr {

// Runs body(b) for b in [0, blocks) on as many threads (the caller's thread takes block 0). The
// body must not throw.
template <class Body>
void for_blocks(uint32_t blocks, Body body) {
  std::vector<std::thread> threads;
  for (uint32_t b = 1; b < blocks; ++b) threads.emplace_back(body, b);
  body(0);
  for (std::thread& t : threads) t.join();
}

}  // namespace tbdr
