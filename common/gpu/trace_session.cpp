// The tracing session: CUPTI's activity recording switched on and off around one traced run,
// its buffers collected, streams named into lanes (trace_session.hpp). What the records mean, and
// the Timeline they make, is trace_records.cpp's.
#include "common/gpu/trace_session.hpp"

#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "common/gpu/cuda_check.hpp"
#include "common/gpu/cupti_loader.hpp"
#include "common/gpu/cupti_records.hpp"
#include "common/gpu/trace_records.hpp"
#include "common/core/errors.hpp"

namespace cudalab {

namespace {

// ---- the records, collected by CUPTI's buffer callbacks ------------------------------------

using trace::RawOp;

constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kRecordAlignment = 8;  // CUPTI requires 8-byte aligned buffers

struct Collector {
  std::mutex mutex;
  std::vector<RawOp> ops;
};
Collector& collector() {
  static Collector c;
  return c;
}
std::atomic<bool> g_session_exists{false};

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kRecordAlignment, kBufferBytes));
  *size = *buffer == nullptr ? 0 : kBufferBytes;  // no memory: CUPTI counts the records as dropped
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  std::vector<RawOp> ops;
  CUpti_Activity* record = nullptr;
  while (cupti_library().next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    if (auto op = trace::op_of_record(*record)) ops.push_back(std::move(*op));
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(collector().mutex);
  for (auto& op : ops) collector().ops.push_back(std::move(op));
}

}  // namespace

// ---- TraceSession --------------------------------------------------------------------------

TraceSession::TraceSession(TraceScope scope) : scope_(scope) {
  if (g_session_exists.exchange(true)) throw std::logic_error("only one TraceSession may exist at a time");
  const CuptiLibrary& lib = cupti_library();
  try {
    if (!lib.load_error.empty()) throw CuptiError(lib.load_error, CUPTI_ERROR_UNKNOWN);
    uint32_t version = 0;
    CUDALAB_CUPTI_CHECK(lib.get_version(&version));
    if (version < CUPTI_API_VERSION) {
      throw CuptiError(msg("libcupti is API version {version}, older than the {needed} cudalab was built with",
                           arg("version", version), arg("needed", CUPTI_API_VERSION)),
                       CUPTI_ERROR_NOT_COMPATIBLE);
    }
    CUDALAB_CUDA_CHECK(cudaGetDevice(&device_));
    // Earlier (timed) work must not leak into the picture.
    synchronize_traced_devices();
    {
      std::lock_guard<std::mutex> lock(collector().mutex);
      collector().ops.clear();
    }
    static const CUptiResult registered = lib.register_callbacks(buffer_requested, buffer_completed);
    CUDALAB_CUPTI_CHECK(registered);
    size_t stale_drops = 0;  // reset the count, so finish() reports only this run's losses
    CUDALAB_CUPTI_CHECK(lib.dropped_records(nullptr, 0, &stale_drops));
    // CONCURRENT_KERNEL, never KERNEL: the latter serializes every kernel in the process.
    for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                    CUPTI_ACTIVITY_KIND_MEMSET}) {
      CUDALAB_CUPTI_CHECK(lib.enable(kind));
      enabled_kinds_.push_back(kind);
    }
    // Host waits are a bonus: the picture stands without them.
    if (lib.enable(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION) == CUPTI_SUCCESS) {
      enabled_kinds_.push_back(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
    }
    active_ = true;
  } catch (const CuptiError& e) {
    stop();
    const std::string reason = e.what() + refusal_hint(e.result);
    std::fprintf(stderr, "cudalab: no timeline: %s; the lesson runs on without it\n", reason.c_str());
  }
}

TraceSession::~TraceSession() {
  stop();
  g_session_exists = false;
}

void TraceSession::synchronize_traced_devices() const {
  if (scope_ == TraceScope::current_device) {
    CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
    return;
  }
  int count = 0;
  CUDALAB_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (int d = 0; d < count; ++d) {
    CUDALAB_CUDA_CHECK(cudaSetDevice(d));
    CUDALAB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  CUDALAB_CUDA_CHECK(cudaSetDevice(device_));
}

void TraceSession::stop() noexcept {
  for (int kind : enabled_kinds_) CUDALAB_CUPTI_CHECK_NOEXCEPT(cupti_library().disable(static_cast<CUpti_ActivityKind>(kind)));
  if (!enabled_kinds_.empty()) CUDALAB_CUPTI_CHECK_NOEXCEPT(cupti_library().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  enabled_kinds_.clear();
  active_ = false;
}

std::uint32_t TraceSession::lane_key(std::uint32_t device, std::uint32_t stream) const {
  return trace::lane_key(scope_ == TraceScope::all_devices, device, stream);
}

namespace {

// The calling thread's current context, through the runtime's driver entry point (the binary
// does not link libcuda itself); nullptr when it cannot be had.
CUcontext current_context() {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &fn, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess || fn == nullptr) {
    return nullptr;
  }
  CUcontext ctx = nullptr;
  return reinterpret_cast<GetCurrent>(fn)(&ctx) == CUDA_SUCCESS ? ctx : nullptr;
}

}  // namespace

std::uint32_t TraceSession::stream_id(cudaStream_t stream) const {
  uint32_t id = 0;
  // The default streams are not handles CUPTI can look up: it resolves a null stream within a
  // given context, to the per-thread default stream of the calling thread when asked to.
  const bool per_thread = stream == cudaStreamPerThread;
  if (stream == nullptr || stream == cudaStreamLegacy || per_thread) {
    CUDALAB_CUPTI_CHECK(cupti_library().stream_id(current_context(), nullptr, per_thread ? 1 : 0, &id));
    return lane_key(static_cast<std::uint32_t>(device_), id);
  }
  CUDALAB_CUPTI_CHECK(cupti_library().stream_id(nullptr, static_cast<CUstream>(stream), 0, &id));
  int device = device_;
  if (scope_ == TraceScope::all_devices && stream != nullptr) CUDALAB_CUDA_CHECK(cudaStreamGetDevice(stream, &device));
  return lane_key(static_cast<std::uint32_t>(device), id);
}

void TraceSession::name_stream(cudaStream_t stream, const Message& name) {
  if (!active_) return;
  std::uint32_t id = 0;
  try {
    id = stream_id(stream);
  } catch (const CuptiError& e) {  // the lane keeps its "stream N" name; the picture stands
    std::fprintf(stderr, "cudalab: warning: cannot name lane '%s': %s\n", name.en().c_str(), e.what());
    return;
  }
  for (auto& [known, lane_name] : lane_names_) {
    if (known == id) {
      lane_name = name;
      return;
    }
  }
  lane_names_.emplace_back(id, name);
}

std::uint64_t TraceSession::now_ns() {
  uint64_t t = 0;
  if (cupti_library().timestamp == nullptr || cupti_library().timestamp(&t) != CUPTI_SUCCESS) return 0;
  return t;
}

void TraceSession::add_host_op(cudaStream_t stream, const std::string& name, std::uint64_t start_ns,
                               std::uint64_t end_ns) {
  if (!active_) return;
  std::uint32_t id = 0;
  try {
    id = stream_id(stream);
  } catch (const CuptiError& e) {
    std::fprintf(stderr, "cudalab: warning: host callback '%s' left out of the timeline: %s\n", name.c_str(), e.what());
    return;
  }
  RawOp op{ActivityKind::host_callback, static_cast<std::uint32_t>(device_), id, start_ns, end_ns, 0, name, {}, {}};
  std::lock_guard<std::mutex> lock(collector().mutex);
  collector().ops.push_back(std::move(op));
}

namespace {

// Turns on CUPTI's unified-memory counters for `device`: migrations both ways, GPU faults and,
// where the platform counts them, CPU faults (a platform that cannot is retried without them).
void configure_unified_memory_counters(int device) {
  const CuptiLibrary& lib = cupti_library();
  if (lib.configure_unified_memory == nullptr) {
    const std::string symbol = "cuptiActivityConfigureUnifiedMemoryCounter";
    throw CuptiError(msg("libcupti has no {symbol}", arg("symbol", symbol)), CUPTI_ERROR_NOT_SUPPORTED);
  }
  const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT};
  CUpti_ActivityUnifiedMemoryCounterConfig config[std::size(kinds)] = {};
  for (std::size_t i = 0; i < std::size(kinds); ++i) {
    config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    config[i].kind = kinds[i];
    config[i].deviceId = static_cast<uint32_t>(device);
    config[i].enable = 1;
  }
  const auto all = static_cast<uint32_t>(std::size(kinds));
  if (lib.configure_unified_memory(config, all) == CUPTI_SUCCESS) return;
  CUDALAB_CUPTI_CHECK(lib.configure_unified_memory(config, all - 1));  // without CPU faults
}

}  // namespace

bool TraceSession::record_unified_memory() {
  if (!active_) return false;
  try {
    configure_unified_memory_counters(device_);
    CUDALAB_CUPTI_CHECK(cupti_library().enable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    enabled_kinds_.push_back(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    return true;
  } catch (const CuptiError& e) {
    std::fprintf(stderr, "cudalab: no page faults in the timeline: %s; it shows copies and kernels only\n", e.what());
    return false;
  }
}

void TraceSession::discard_recorded() {
  if (!active_) return;
  synchronize_traced_devices();
  try {
    CUDALAB_CUPTI_CHECK(cupti_library().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  } catch (const CuptiError& e) {
    stop();
    std::fprintf(stderr, "cudalab: no timeline: %s; the lesson runs on without it\n", e.what());
    return;
  }
  std::lock_guard<std::mutex> lock(collector().mutex);
  collector().ops.clear();
}

std::optional<Timeline> TraceSession::finish(const Message& title, const std::string& notes_key) {
  if (!active_) return std::nullopt;
  const std::uint64_t finish_called = now_ns();
  synchronize_traced_devices();
  size_t dropped = 0;
  try {
    CUDALAB_CUPTI_CHECK(cupti_library().flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    CUDALAB_CUPTI_CHECK(cupti_library().dropped_records(nullptr, 0, &dropped));
  } catch (const CuptiError& e) {
    stop();
    std::fprintf(stderr, "cudalab: no timeline: %s; the lesson runs on without it\n", e.what());
    return std::nullopt;
  }
  stop();

  std::vector<RawOp> raw;
  {
    std::lock_guard<std::mutex> lock(collector().mutex);
    raw.swap(collector().ops);
  }
  trace::TraceFrame frame;
  frame.all_devices = scope_ == TraceScope::all_devices;
  frame.device = device_;
  frame.finish_called_ns = finish_called;
  frame.dropped = dropped;
  frame.lane_names = lane_names_;
  Timeline t = trace::timeline_of(std::move(raw), title, notes_key, frame);
  if (dropped > 0) {
    std::fprintf(stderr, "cudalab: warning: CUPTI dropped %zu activity records; the timeline '%s' is incomplete\n",
                 dropped, title.en().c_str());
  }
  return t;
}

}  // namespace cudalab
