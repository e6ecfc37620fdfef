// Fork-join over the pass's threads for work split into independent blocks (binning's blocks of
// primitives, geometry's ranges of vertices and triangles).
#pragma once

#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace tbdr {

// Runs body(b) for b in [0, blocks) on as many threads (the caller's thread takes block 0). An
// exception of a block (std::bad_alloc, say) is rethrown on the caller's thread once every block
// has finished, as are a thread's failure to start (after joining those that did).
template <class Body>
void for_blocks(uint32_t blocks, Body body) {
  std::vector<std::exception_ptr> errors(blocks);
  auto run = [&](uint32_t b) {
    try {
      body(b);
    } catch (...) {
      errors[b] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  try {
    for (uint32_t b = 1; b < blocks; ++b) threads.emplace_back(run, b);
  } catch (...) {
    for (std::thread& t : threads) t.join();
    throw;
  }
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace tbdr
