// The framebuffer cache of direct (immediate-mode / sysmem) rendering: every depth, stencil and
// color access of a direct pass goes through it, and its misses and write-backs are the pass's
// `framebuffer_color` / `framebuffer_depth` DRAM traffic.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>

#include "sim/stats.h"

namespace tbdr {

// Fully associative, least recently used, write-back, write-allocate without fetch (a write
// makes its line valid and dirty without reading it: the model assumes render-target writes
// fill lines, as framebuffer caches with byte masks do). A read miss fetches the line.
class FramebufferCache {
 public:
  FramebufferCache(uint64_t capacity_bytes, uint32_t line_bytes);
  // `surface` tells attachments apart; `offset` is the byte offset inside it.
  void read(uint32_t surface, uint64_t offset, DramCategory category);
  void write(uint32_t surface, uint64_t offset, DramCategory category);
  // Writes every dirty line back (end of the pass) and empties the cache.
  void flush();
  const DramLedger& ledger() const { return m_ledger; }
  uint32_t line_bytes() const { return m_line_bytes; }

 private:
  struct Line {
    uint64_t key;
    bool dirty;
    DramCategory category;
  };
  Line& touch(uint32_t surface, uint64_t offset, DramCategory category, bool fetch);

  uint64_t m_capacity_lines;
  uint32_t m_line_bytes;
  std::list<Line> m_lru;  // front: most recent
  std::unordered_map<uint64_t, std::list<Line>::iterator> m_lines;
  DramLedger m_ledger;
};

}  // namespace tbdr
