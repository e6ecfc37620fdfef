// The texture line streams' chunks: the workers' writers and their adoption into a hardware pass's
// streams (sim/pass/texture_streams.h).
#include "sim/pass/texture_streams.h"

#include <algorithm>
#include <cstring>

namespace tbdr {
namespace {

// A writer's first chunk is small (a render with few texture fetches keeps little), the next ones
// one huge page each: regions of 1 MiB and more are kept across runs (sim/huge_pages.cpp), so a
// second run takes no page faults for them; sizes between the two came from the heap's fresh
// pages in every run.
constexpr size_t kFirstChunkLines = size_t(16) << 10;  // 128 KiB
constexpr size_t kChunkLines = size_t(256) << 10;      // 2 MiB

}  // namespace

TextureLineStreams::Ref TextureLineStreams::Writer::append(const std::vector<uint64_t>& lines) {
  if (lines.empty()) return {};
  if (m_chunks.empty() || m_used + lines.size() > m_chunks.back().size()) {
    const size_t next = m_chunks.empty() ? kFirstChunkLines : kChunkLines;
    m_chunks.emplace_back(std::max(next, lines.size()));  // uninitialized: written before it is read
    m_used = 0;
  }
  Chunk& chunk = m_chunks.back();
  std::memcpy(chunk.data() + m_used, lines.data(), lines.size() * sizeof(uint64_t));
  const Ref ref{uint32_t(m_chunks.size() - 1), uint32_t(lines.size()), m_used};
  m_used += lines.size();
  return ref;
}

size_t TextureLineStreams::add_streams(size_t count) {
  const size_t first = m_refs.size();
  m_refs.resize(first + count);
  m_writer_of.resize(first + count - m_adopted, 0);
  return first;
}

void TextureLineStreams::set_local(size_t stream, Ref ref, uint32_t writer) {
  m_refs[stream] = ref;
  m_writer_of[stream - m_adopted] = writer;
}

void TextureLineStreams::adopt(const std::vector<Writer*>& writers) {
  std::vector<uint32_t> base(writers.size());
  for (size_t w = 0; w < writers.size(); ++w) {
    base[w] = uint32_t(m_chunks.size());
    for (Chunk& c : writers[w]->chunks()) m_chunks.push_back(std::move(c));
    writers[w]->chunks().clear();
  }
  for (size_t s = m_adopted; s < m_refs.size(); ++s)
    if (m_refs[s].size) m_refs[s].chunk += base[m_writer_of[s - m_adopted]];
  m_adopted = m_refs.size();
  m_writer_of.clear();
}

uint64_t TextureLineStreams::line_count() const {
  uint64_t lines = 0;
  for (const Ref& r : m_refs) lines += r.size;
  return lines;
}

uint64_t TextureLineStreams::memory_bytes() const {
  uint64_t bytes =
      m_chunks.capacity() * sizeof(Chunk) + m_refs.capacity() * sizeof(Ref) + m_writer_of.capacity() * sizeof(uint32_t);
  for (const Chunk& c : m_chunks) bytes += c.capacity() * sizeof(uint64_t);
  return bytes;
}

}  // namespace tbdr
