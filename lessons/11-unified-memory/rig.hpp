// What lesson 11's ways run on: the input and output as pinned-and-mapped host memory, as device
// buffers and as managed memory, the streams, and each way's enqueue. Shared by measure.cpp (the
// four ways) and measure_access.cpp (reuse and the sparse read).
#pragma once

#include <cstddef>
#include <vector>

#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/managed_memory.hpp"
#include "common/gpu/mapped_memory.hpp"
#include "common/gpu/streams.hpp"
#include "measure.hpp"
#include "workload.hpp"

namespace cudalab::unified_memory {

struct Rig {
  std::size_t words;
  std::size_t page_words;  // words in one host page
  int device;
  std::vector<WordRange> chunks;
  // Pinned and mapped: the explicit copies' host ends, and zero-copy's data itself.
  MappedBuffer<Word> host_in, host_out;
  DeviceBuffer<Word> device_in, device_out;
  ManagedBuffer<Word> managed_in, managed_out;
  std::size_t sparse_read_count;  // lines the sparse read takes
  DeviceBuffer<Word> device_sparse;
  MappedBuffer<Word> host_sparse;
  std::vector<Word> expected;  // the output, from the CPU, at reuse 1
  ForkJoin workers;
  Stream origin;

  Rig(const Params& p, int device_index, std::size_t page_bytes);
  std::size_t bytes() const { return words * sizeof(Word); }
  const WordRange& largest_chunk() const;
  cudaStream_t stream_of(std::size_t chunk) const;
};

// Explicit copies: per chunk, H2D, the kernel and D2H on the chunk's stream, forked from `s`.
void enqueue_explicit(Rig& r, cudaStream_t s);
// The same pipeline on managed memory: a prefetch to the device, the kernel, a prefetch back.
void enqueue_prefetched(Rig& r, cudaStream_t s);

// Puts the first `words` of managed memory where the on-demand and prefetched runs start from:
// the input on the host (as the host left it when it wrote it), the output on the device,
// poisoned there. So each run moves the bytes the explicit way copies, no more.
void place_for_on_demand(Rig& r, std::size_t words);
// The kernel on managed memory, its input faulting in, then the host's first read of each
// output page, faulting it back; both timed with events on the origin stream.
OnDemandSample run_on_demand(Rig& r, std::size_t words);

// Every word of `out` made to differ from the expected one, so an unwritten word cannot pass.
void poison_host(Word* out, const std::vector<Word>& expected);
Tally count_matches(const Word* got, const std::vector<Word>& expected);

// measure_access.cpp: zero-copy against copying first, as each word is read 1, 2, 4, ... times,
// and the sparse read of one line in --sparse.
void measure_reuse(Rig& r, const Params& p, Measurements& m, const RunContext& ctx);
void measure_sparse(Rig& r, const Params& p, Measurements& m, const RunContext& ctx);

}  // namespace cudalab::unified_memory
