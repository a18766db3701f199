#include "measure.hpp"

#include "common/gpu/phase.hpp"
#include "common/gpu/cuda_check.hpp"
#include "common/gpu/device.hpp"
#include "common/gpu/preflight.hpp"
#include "common/gpu/smoke_kernel.hpp"
#include "common/gpu/nvtx.hpp"
#include "common/gpu/trace_session.hpp"

namespace cudalab::device_query {

namespace {

// The smallest timeline: memset, kernel and copy-back queued on one stream. The verified run
// already checked the results; this extra run exists for its picture.
std::optional<Timeline> trace_smoke_kernel(int device) {
  CUDALAB_CUDA_CHECK(cudaSetDevice(device));
  TraceSession trace;
  trace.name_stream(nullptr, "default stream");
  {
    const NvtxRange phase("smoke kernel (traced)");
    (void)run_smoke_kernel(kSmokeElements);
  }
  return trace.finish("smoke kernel: memset, kernel, copy back", "timeline");
}

}  // namespace

Measurements measure(const Params&, const RunContext& ctx) {
  Measurements m;
  m.device_given = ctx.device_given;
  m.device_count = device_count();
  m.driver = driver_version();
  m.runtime = runtime_version();
  if (m.device_count > 1) m.peer_access = peer_access_matrix(m.device_count);
  std::vector<int> shown;
  if (ctx.device_given) {
    use_device(ctx.device);
    shown.push_back(ctx.device);
  } else {
    for (int i = 0; i < m.device_count; ++i) shown.push_back(i);
  }
  for (int i : shown) m.devices.push_back(query_device(i));
  m.preflight = preflight(m.devices.front());

  for (const auto& d : m.devices) {
    CUDALAB_CUDA_CHECK(cudaSetDevice(d.index));
    const Phase phase("smoke kernel");
    m.smoke.push_back({d.index, run_smoke_kernel(kSmokeElements)});
  }
  if (ctx.tracing()) {
    if (auto t = trace_smoke_kernel(m.devices.front().index)) m.timelines.push_back(std::move(*t));
  }
  CUDALAB_CUDA_CHECK(cudaSetDevice(ctx.device));  // leave the run's device current, as we found it
  return m;
}

}  // namespace cudalab::device_query
