#include "rig.hpp"

#include <algorithm>

#include "common/gpu/event_time.hpp"
#include "kernels.hpp"

namespace cudalab::unified_memory {

Rig::Rig(const Params& p, int device_index, std::size_t page_bytes)
    : words(p.size / sizeof(Word)),
      page_words(std::max<std::size_t>(1, page_bytes / sizeof(Word))),
      device(device_index),
      chunks(split_words(words, chunk_count(p), kSizeGranule / sizeof(Word))),
      host_in(words),
      host_out(words),
      device_in(words),
      device_out(words),
      managed_in(words),
      managed_out(words),
      sparse_read_count(sparse_reads(words, p.sparse)),
      device_sparse(sparse_read_count * kLineWords),
      host_sparse(sparse_read_count * kLineWords),
      expected(words),
      workers(p.streams) {
  for (std::size_t i = 0; i < words; ++i) host_in[i] = input_word(i);
  for (std::size_t i = 0; i < words; ++i) managed_in[i] = input_word(i);  // the host touches it first
  reference_reuse(host_in.data(), words, 1, expected.data());
  // Every device word defined before anything reads it: the stages time copies of these.
  CUDALAB_CUDA_CHECK(cudaMemcpy(device_in.data(), host_in.data(), bytes(), cudaMemcpyHostToDevice));
  CUDALAB_CUDA_CHECK(cudaMemset(device_out.data(), 0xFF, bytes()));
}

const WordRange& Rig::largest_chunk() const {
  return *std::max_element(chunks.begin(), chunks.end(),
                           [](const WordRange& a, const WordRange& b) { return a.count() < b.count(); });
}

cudaStream_t Rig::stream_of(std::size_t chunk) const {
  return workers.worker(static_cast<int>(chunk % static_cast<std::size_t>(workers.count()))).get();
}

void enqueue_explicit(Rig& r, cudaStream_t s) {
  r.workers.fork(s);
  for (std::size_t c = 0; c < r.chunks.size(); ++c) {
    const WordRange& range = r.chunks[c];
    const cudaStream_t w = r.stream_of(c);
    const std::size_t bytes = range.count() * sizeof(Word);
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.device_in.data() + range.begin, r.host_in.data() + range.begin, bytes,
                                       cudaMemcpyHostToDevice, w));
    launch_reuse(r.device_in.data(), r.device_out.data(), r.words, range.begin, range.end, 1, w);
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.host_out.data() + range.begin, r.device_out.data() + range.begin, bytes,
                                       cudaMemcpyDeviceToHost, w));
  }
  r.workers.join(s);
}

void enqueue_prefetched(Rig& r, cudaStream_t s) {
  r.workers.fork(s);
  for (std::size_t c = 0; c < r.chunks.size(); ++c) {
    const WordRange& range = r.chunks[c];
    const cudaStream_t w = r.stream_of(c);
    const std::size_t bytes = range.count() * sizeof(Word);
    prefetch_to_device(r.managed_in.data() + range.begin, bytes, r.device, w);
    launch_reuse(r.managed_in.data(), r.managed_out.data(), r.words, range.begin, range.end, 1, w);
    prefetch_to_host(r.managed_out.data() + range.begin, bytes, w);
  }
  r.workers.join(s);
}

void place_for_on_demand(Rig& r, std::size_t words) {
  const std::size_t bytes = words * sizeof(Word);
  prefetch_to_host(r.managed_in.data(), bytes, r.origin);
  prefetch_to_device(r.managed_out.data(), bytes, r.device, r.origin);
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(r.managed_out.data(), 0xFF, bytes, r.origin));
  r.origin.synchronize();
}

OnDemandSample run_on_demand(Rig& r, std::size_t words) {
  Event start, kernel_done, host_done;
  start.record(r.origin);
  launch_reuse(r.managed_in.data(), r.managed_out.data(), words, 0, words, 1, r.origin);
  kernel_done.record(r.origin);
  kernel_done.synchronize();
  // One read per page is enough to bring each page back; the stream is idle, so the event below
  // is stamped the moment the host has read the last one.
  const volatile Word* out = r.managed_out.data();
  Word sink = 0;
  for (std::size_t i = 0; i < words; i += r.page_words) sink ^= out[i];
  (void)sink;
  host_done.record(r.origin);
  host_done.synchronize();
  return OnDemandSample{elapsed_us(start, kernel_done) / 1000.0, elapsed_us(kernel_done, host_done) / 1000.0};
}

void poison_host(Word* out, const std::vector<Word>& expected) {
  for (std::size_t i = 0; i < expected.size(); ++i) out[i] = ~expected[i];
}

Tally count_matches(const Word* got, const std::vector<Word>& expected) {
  std::size_t correct = 0;
  for (std::size_t i = 0; i < expected.size(); ++i) correct += got[i] == expected[i] ? 1 : 0;
  Tally t;
  t.add(correct, expected.size());
  return t;
}

}  // namespace cudalab::unified_memory
