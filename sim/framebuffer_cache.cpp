// LRU framebuffer cache bookkeeping (see framebuffer_cache.h for the policy).
#include "sim/framebuffer_cache.h"

#include <algorithm>

namespace tbdr {

FramebufferCache::FramebufferCache(uint64_t capacity_bytes, uint32_t line_bytes)
    : m_capacity_lines(std::max<uint64_t>(1, capacity_bytes / std::max(1u, line_bytes))),
      m_line_bytes(std::max(1u, line_bytes)) {}

FramebufferCache::Line& FramebufferCache::touch(uint32_t surface, uint64_t offset, DramCategory category, bool fetch) {
  const uint64_t key = (uint64_t(surface) << 48) | (offset / m_line_bytes);
  auto it = m_lines.find(key);
  if (it != m_lines.end()) {
    m_lru.splice(m_lru.begin(), m_lru, it->second);
    return *it->second;
  }
  if (m_lines.size() >= m_capacity_lines) {
    const Line& victim = m_lru.back();
    if (victim.dirty) m_ledger[victim.category].write_bytes += m_line_bytes;
    m_lines.erase(victim.key);
    m_lru.pop_back();
  }
  if (fetch) m_ledger[category].read_bytes += m_line_bytes;
  m_lru.push_front(Line{key, false, category});
  m_lines[key] = m_lru.begin();
  return m_lru.front();
}

void FramebufferCache::read(uint32_t surface, uint64_t offset, DramCategory category) {
  touch(surface, offset, category, true);
}

void FramebufferCache::write(uint32_t surface, uint64_t offset, DramCategory category) {
  touch(surface, offset, category, false).dirty = true;
}

void FramebufferCache::flush() {
  for (const Line& line : m_lru)
    if (line.dirty) m_ledger[line.category].write_bytes += m_line_bytes;
  m_lru.clear();
  m_lines.clear();
}

}  // namespace tbdr
