#include "exercise_bench.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "chunking.hpp"
#include "common/core/host_pattern.hpp"
#include "common/exercise/student_library.hpp"
#include "common/exercise/student_run.hpp"
#include "common/gpu/api_calls.hpp"
#include "common/gpu/cuda_raii.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/gpu_turns.hpp"
#include "common/gpu/phase.hpp"
#include "common/gpu/streams.hpp"
#include "common/gpu/timing.hpp"
#include "common/gpu/traced_run.hpp"
#include "exercise/stream_overlap_pipeline_v1.h"
#include "exercise_report.hpp"
#include "kernels.hpp"
#include "measure.hpp"

namespace cudalab::stream_overlap {

namespace {

constexpr std::uint32_t kInputSeed = 3;  // the lesson's own (measure.cpp): the same bytes

// The chunk whose bytes start at device pointer `p`: the kernel launcher's tag for the trace.
struct ChildRig;
ChildRig* g_rig = nullptr;

struct ChildRig {
  PipelineRequest request;
  std::vector<Chunk> chunks;
  std::vector<cudalab_exercise::Chunk> lab_chunks;
  PinnedBuffer<std::uint8_t> in, out;
  DeviceBuffer<std::uint8_t> device;
  ForkJoin streams;  // blocking streams: work on the legacy stream waits for them, and they for it
  std::vector<cudaStream_t> handles;
  std::vector<std::uint8_t> expected;
  cudalab_exercise::PipelineLab lab{};

  explicit ChildRig(const PipelineRequest& q)
      : request(q), chunks(split_into_chunks(q.size, q.chunks)), in(q.size), out(q.size), device(q.size),
        streams(q.streams, cudaStreamDefault), handles(streams.handles()), expected(q.size) {
    fill_pattern(in.data(), q.size, kInputSeed);
    std::uint8_t table[256];
    affine_steps_table(q.iters, table);
    for (std::size_t b = 0; b < q.size; ++b) expected[b] = table[in[b]];
    for (const Chunk& c : chunks) lab_chunks.push_back({c.offset, c.count});
    lab = {in.data(), out.data(), device.data(), q.size, lab_chunks.data(), static_cast<int>(lab_chunks.size()),
           handles.data(), static_cast<int>(handles.size()), &launch_for_student, &note_student_failure};
  }

  int chunk_at(std::uintptr_t address, std::uintptr_t base) const {
    if (address < base || address >= base + request.size) return -1;
    const std::size_t offset = address - base;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
      if (offset >= chunks[c].offset && offset < chunks[c].offset + chunks[c].count) return static_cast<int>(c);
    }
    return -1;
  }
  int chunk_of(std::uintptr_t a) const {
    for (std::uintptr_t base : {reinterpret_cast<std::uintptr_t>(device.data()), reinterpret_cast<std::uintptr_t>(in.data()),
                                reinterpret_cast<std::uintptr_t>(out.data())}) {
      if (const int c = chunk_at(a, base); c >= 0) return c;
    }
    return -1;
  }

  static void launch_for_student(std::uint8_t* data, std::size_t bytes, cudaStream_t stream) {
    ApiCallLog::set_launch_tag(g_rig != nullptr ? g_rig->chunk_of(reinterpret_cast<std::uintptr_t>(data)) : -1);
    launch_affine_steps(data, bytes, g_rig != nullptr ? g_rig->request.iters : 1, stream);
    ApiCallLog::set_launch_tag(-1);
  }

  // One run as the bench times it: the student's streams start after `origin`'s clock, and the
  // clock waits for every one of them.
  void enqueue(cudaStream_t origin, const cudalab_exercise::PipelineHooks& hooks) {
    streams.fork(origin);
    hooks.pipeline(lab);
    if (const auto failed = student_failure()) {
      throw StudentCudaError(
          student_failure_words(*failed, "pipeline()", cudaGetErrorName(static_cast<cudaError_t>(failed->error))), false);
    }
    streams.join(origin);
  }
};

bool is_sticky(cudaError_t e) {
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout: return true;
    default: return false;
  }
}

// A CUDA error the bench met while the student's work ran: the device's own error when it is
// sticky (the context is gone), else what failed.
[[noreturn]] void blame_student(const std::exception& e) {
  const cudaError_t state = cudaDeviceSynchronize();
  if (is_sticky(state)) {
    throw StudentCudaError(msg("your pipeline() left the GPU's context unusable with {error}, a sticky error (a kernel "
                               "touched memory it does not own?): nothing more could run",
                               arg("error", std::string(cudaGetErrorName(state)))),
                           true);
  }
  throw StudentCudaError(msg("your pipeline()'s work failed: {why}", arg("why", words_of(e))), false);
}

// Bytes wrong per chunk of the last run.
std::vector<std::uint64_t> wrong_by_chunk(const ChildRig& rig) {
  std::vector<std::uint64_t> wrong;
  for (const Chunk& c : rig.chunks) {
    wrong.push_back(c.count - count_matches(rig.out.data() + c.offset, rig.expected.data() + c.offset, c.count));
  }
  return wrong;
}

// One checked run under CUPTI: poisoned buffers, the student's pipeline, every byte checked, and
// each copy and kernel of the timeline tied to its chunk through the call that made it.
void traced_checked_run(ChildRig& rig, const cudalab_exercise::PipelineHooks& hooks, const Stream& origin,
                        PipelineResult& result) {
  // No host wait of the bench's own inside the traced pass: every wait in its picture is the
  // student's (the pass before it ended with the device idle: traced_run's discard waits).
  const auto poison = [&] {
    poison_against(rig.out.data(), rig.expected.data(), rig.request.size);
    CUDALAB_CUDA_CHECK(cudaMemsetAsync(rig.device.data(), 0xFF, rig.request.size, origin));
  };
  std::vector<NamedLane> lanes;
  for (int s = 0; s < rig.streams.count(); ++s) lanes.push_back({rig.streams.worker(s), msg("stream {id}", arg("id", s))});
  lanes.push_back({nullptr, kLegacyLane});
  lanes.push_back({origin, "the bench (its clock and poison)"});
  result.bench_lanes = rig.streams.count();
  std::optional<ApiCallLog> calls;
  std::vector<Timeline> timelines;
  const auto traced = traced_run(timelines, "your pipeline", lanes, [&](TraceSession&) {
    poison();
    calls.reset();
    try {
      calls.emplace();
    } catch (const std::exception&) {  // no chunk tags then: the findings say less, nothing else changes
    }
    rig.enqueue(origin, hooks);
  }, "exercise_timeline");
  result.wrong_by_chunk = wrong_by_chunk(rig);
  if (!traced) {
    result.no_timeline = "CUPTI could not be used in this process";
    return;
  }
  result.timeline = *traced;
  for (const auto& op : traced->ops) {
    int chunk = -1;
    if (calls) {
      for (const auto& c : calls->copies()) {
        if (c.correlation == op.correlation && op.correlation != 0) chunk = std::max(rig.chunk_of(c.dst), rig.chunk_of(c.src));
      }
      for (const auto& l : calls->launches()) {
        if (l.correlation == op.correlation && op.correlation != 0) chunk = l.tag;
      }
    }
    result.chunk_of_op.push_back(chunk);
  }
}

}  // namespace

Report run_pipeline_exercise(const Params& p, const RunContext& ctx, const StudentBuild& build) {
  const Measurements lab = measure_yardstick(p, ctx);
  Repetitions reps = ctx.reps;
  reps.adaptive = false;
  const PipelineRequest request{p.size, lab.chunk_count, p.streams, lab.iters, reps};
  const StudentRun student = in_phase("your pipeline", [&] {
    return run_student(build, request_to_json(request).dump(), queue_name_of_device(ctx.device), "pipeline()");
  });
  return build_exercise_report(p, lab, student, build);
}

std::string serve_pipeline(const std::string& request_text, const StudentLibrary& library) {
  const PipelineRequest request = request_from_json(request_text);
  const auto& hooks = library.hooks<cudalab_exercise::PipelineHooks>();
  if (hooks.pipeline == nullptr) throw StudentLoadError("your CUDALAB_EXERCISE_ENTRY names no function");
  use_device(0);  // the one GPU the lab let this process see
  ChildRig rig(request);
  g_rig = &rig;
  const Stream origin;
  PipelineResult result;
  for (const Chunk& c : rig.chunks) result.chunk_bytes.push_back(c.count);
  try {
    result.ms = time_on_stream(origin, request.reps, [&](cudaStream_t s) { rig.enqueue(s, hooks); });
    traced_checked_run(rig, hooks, origin, result);
  } catch (const StudentCudaError&) {
    throw;
  } catch (const std::exception& e) {
    blame_student(e);
  }
  g_rig = nullptr;
  return result_to_json(result).dump();
}

}  // namespace cudalab::stream_overlap
