// The texture caches' line streams of a hardware pass (texture=cache): one per tile of each render,
// written by the tiles stage's workers into chunks, replayed by costing (sim/pass/costing.cpp).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "sim/huge_pages.h"

namespace tbdr {

// Streams live in chunks that each worker fills tile after tile, rather than one vector per tile:
// a vector per tile cost a malloc and fresh 4 KiB pages per tile (the default scene under
// mali-g710: about 85 % of a run's page faults, bench/README.md "The line streams in chunks").
// Chunks of 1 MiB and more are huge pages kept across runs (sim/huge_pages.h).
class TextureLineStreams {
 public:
  using Chunk = std::vector<uint64_t, UninitializedHugePageAllocator<uint64_t>>;
  // Where a stream lies: `size` lines from `offset` in chunk `chunk`.
  struct Ref {
    uint32_t chunk = 0;
    uint32_t size = 0;
    uint64_t offset = 0;
  };

  // One worker's chunks: each tile's stream is copied whole into the current chunk, or into a new
  // one when it does not fit (a writer's first chunk holds 128 KiB, the others 2 MiB, or one
  // larger stream), so a stream is never split and a chunk's unused tail is under the next
  // stream's size.
  class Writer {
   public:
    Ref append(const std::vector<uint64_t>& lines);
    std::vector<Chunk>& chunks() { return m_chunks; }

   private:
    std::vector<Chunk> m_chunks;
    size_t m_used = 0;  // lines written in the last chunk
  };

  // Adds `count` empty streams (a render's tiles); returns the first one's index.
  size_t add_streams(size_t count);
  // Stream `stream` was written by `writer` (its Ref, whose chunk index is the writer's own).
  void set_local(size_t stream, Ref ref, uint32_t writer);
  // Takes the writers' chunks (after the render's tiles ran) and turns the streams it set since
  // the last call from writer-local chunk indices into this object's.
  void adopt(const std::vector<Writer*>& writers);

  size_t size() const { return m_refs.size(); }
  std::span<const uint64_t> operator[](size_t stream) const {
    const Ref& r = m_refs[stream];
    return r.size ? std::span<const uint64_t>(m_chunks[r.chunk].data() + r.offset, r.size)
                  : std::span<const uint64_t>();
  }
  uint64_t line_count() const;
  uint64_t memory_bytes() const;  // the chunks by capacity and the refs

 private:
  std::vector<Chunk> m_chunks;
  std::vector<Ref> m_refs;
  std::vector<uint32_t> m_writer_of;  // per stream not yet adopted: its writer
  size_t m_adopted = 0;               // streams before this one refer to m_chunks
};

}  // namespace tbdr
