// Lesson 11's access patterns: zero-copy reads cross the bus every time, copying first pays the
// bus once and then reads device memory. Each word read 1, 2, 4, ... times, then one line in
// --sparse of the buffer read once. Every run is verified against the CPU.
#include <functional>

#include "common/gpu/timing.hpp"
#include "kernels.hpp"
#include "rig.hpp"

namespace cudalab::unified_memory {

namespace {

// Copy first: the whole input in, the kernel on device memory, the whole output out; one stream.
void enqueue_copy_first(Rig& r, int reuse, cudaStream_t s) {
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.device_in.data(), r.host_in.data(), r.bytes(), cudaMemcpyHostToDevice, s));
  launch_reuse(r.device_in.data(), r.device_out.data(), r.words, 0, r.words, reuse, s);
  CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.host_out.data(), r.device_out.data(), r.bytes(), cudaMemcpyDeviceToHost, s));
}

void enqueue_zero_copy(Rig& r, int reuse, cudaStream_t s) {
  launch_reuse(r.host_in.device_data(), r.host_out.device_data(), r.words, 0, r.words, reuse, s);
}

// One run of `enqueue` on poisoned outputs (the host's and the device's), checked word by word.
Tally run_verified(Rig& r, const std::vector<Word>& expected, Word* host_out, Word* device_out,
                   std::size_t device_words, const std::function<void(cudaStream_t)>& enqueue) {
  poison_host(host_out, expected);
  CUDALAB_CUDA_CHECK(cudaMemsetAsync(device_out, 0xFF, device_words * sizeof(Word), r.origin));
  enqueue(r.origin);
  r.origin.synchronize();
  return count_matches(host_out, expected);
}

}  // namespace

void measure_reuse(Rig& r, const Params& p, Measurements& m, const RunContext& ctx) {
  std::vector<Word> expected(r.words);
  for (const int reuse : reuse_sweep(p.reuse)) {
    ReuseCase c;
    c.reuse = reuse;
    c.kernel_ms = time_on_stream(r.origin, ctx.reps, [&](cudaStream_t s) {
      launch_reuse(r.device_in.data(), r.device_out.data(), r.words, 0, r.words, reuse, s);
    });
    const auto copy_first = [&](cudaStream_t s) { enqueue_copy_first(r, reuse, s); };
    const auto zero_copy = [&](cudaStream_t s) { enqueue_zero_copy(r, reuse, s); };
    c.copy_first_ms = time_on_stream(r.origin, ctx.reps, copy_first);
    c.zero_copy_ms = time_on_stream(r.origin, ctx.reps, zero_copy);
    if (reuse == 1) {
      expected = r.expected;
    } else {
      reference_reuse(r.host_in.data(), r.words, reuse, expected.data());
    }
    m.copy_first_words.add(run_verified(r, expected, r.host_out.data(), r.device_out.data(), r.words, copy_first));
    m.zero_copy_words.add(run_verified(r, expected, r.host_out.data(), r.device_out.data(), r.words, zero_copy));
    m.reuse.push_back(std::move(c));
  }
}

void measure_sparse(Rig& r, const Params& p, Measurements& m, const RunContext& ctx) {
  m.sparse_reads = r.sparse_read_count;
  const std::size_t out_words = r.sparse_read_count * kLineWords;
  const std::vector<Word> expected = reference_sparse(r.host_in.data(), r.words, p.sparse);
  m.sparse_kernel_ms = time_on_stream(r.origin, ctx.reps, [&](cudaStream_t s) {
    launch_sparse(r.device_in.data(), r.device_sparse.data(), r.sparse_read_count, p.sparse, s);
  });
  // Copying first cannot know which lines the lookup needs: it copies the whole input.
  const auto copy_first = [&](cudaStream_t s) {
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.device_in.data(), r.host_in.data(), r.bytes(), cudaMemcpyHostToDevice, s));
    launch_sparse(r.device_in.data(), r.device_sparse.data(), r.sparse_read_count, p.sparse, s);
    CUDALAB_CUDA_CHECK(cudaMemcpyAsync(r.host_sparse.data(), r.device_sparse.data(), out_words * sizeof(Word),
                                       cudaMemcpyDeviceToHost, s));
  };
  const auto zero_copy = [&](cudaStream_t s) {
    launch_sparse(r.host_in.device_data(), r.host_sparse.device_data(), r.sparse_read_count, p.sparse, s);
  };
  m.sparse_copy_first_ms = time_on_stream(r.origin, ctx.reps, copy_first);
  m.sparse_zero_copy_ms = time_on_stream(r.origin, ctx.reps, zero_copy);
  m.copy_first_words.add(
      run_verified(r, expected, r.host_sparse.data(), r.device_sparse.data(), out_words, copy_first));
  m.zero_copy_words.add(run_verified(r, expected, r.host_sparse.data(), r.device_sparse.data(), out_words, zero_copy));
}

}  // namespace cudalab::unified_memory
