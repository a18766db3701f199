#include "common/gpu/trace_session.hpp"

#include <cuda.h>
#include <cxxabi.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "common/gpu/cuda_check.hpp"
#include "common/gpu/cupti_loader.hpp"
#include "common/gpu/cupti_records.hpp"
#include "common/core/errors.hpp"

namespace cudalab {

namespace {

// ---- the records, collected by CUPTI's buffer callbacks ------------------------------------

constexpr std::uint32_t kHostLaneId = 0xFFFFFFFFu;  // synchronize calls: the host waiting
// Unified memory's records name no stream (CUPTI: "the value of this field is invalid"): a lane each.
constexpr std::uint32_t kFaultLaneId = 0xFFFFFFFEu;
constexpr std::uint32_t kMigrationLaneId = 0xFFFFFFFDu;
constexpr std::size_t kBufferBytes = 8u << 20;
constexpr std::size_t kRecordAlignment = 8;  // CUPTI requires 8-byte aligned buffers

struct RawOp {
  ActivityKind kind;
  std::uint32_t device;
  std::uint32_t stream;
  std::uint64_t start;
  std::uint64_t end;
  std::uint64_t bytes = 0;
  std::string name;
  std::string src_memory;
  std::string dst_memory;
  std::uint32_t correlation = 0;  // the API call that made it (kernels, copies, memsets)
};

struct Collector {
  std::mutex mutex;
  std::vector<RawOp> ops;
};
Collector& collector() {
  static Collector c;
  return c;
}
std::atomic<bool> g_session_exists{false};

std::string memory_kind_name(std::uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "device (static)";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "managed (static)";
    default: return "unknown";
  }
}

ActivityKind copy_kind(std::uint8_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return ActivityKind::h2d;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return ActivityKind::d2h;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return ActivityKind::h2h;
    default: return ActivityKind::d2d;  // DtoD, DtoA, AtoD, AtoA, peer
  }
}

const char* sync_name(std::uint32_t type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "cudaEventSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "cudaStreamWaitEvent";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "cudaStreamSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "cudaDeviceSynchronize";
    default: return "synchronize";
  }
}

// Why the driver moved pages, for the Chrome trace.
const char* migration_cause(std::uint32_t flags) {
  switch (flags) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER: return N_("page migration: cudaMemPrefetchAsync");
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE: return N_("page migration: on a fault");
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH: return N_("page migration: the driver's own prefetch");
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION: return N_("page migration: eviction");
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS: return N_("page migration: access counters");
    default: return N_("page migration");
  }
}

// A unified-memory record as a timeline operation: migrations carry their bytes, faults none. A
// CPU fault has a start only. Other counters (thrashing, throttling, remote maps) are not drawn.
std::optional<RawOp> unified_memory_op(const cupti::UnifiedMemoryRecord& u) {
  switch (u.counterKind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
      return RawOp{ActivityKind::migration_h2d, u.dstId, kMigrationLaneId, u.start, u.end, u.value,
                   migration_cause(u.flags), "managed", "managed"};
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
      return RawOp{ActivityKind::migration_d2h, u.srcId, kMigrationLaneId, u.start, u.end, u.value,
                   migration_cause(u.flags), "managed", "managed"};
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
      return RawOp{ActivityKind::page_fault, u.srcId, kFaultLaneId, u.start, u.end, 0, N_("GPU page fault"), {}, {}};
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
      return RawOp{ActivityKind::page_fault, 0, kFaultLaneId, u.start, u.start, 0, N_("CPU page fault"), {}, {}};
    default:
      return std::nullopt;
  }
}

// Kinds that belong to the process rather than to one device's stream: the host's waits and
// unified memory's faults and migrations. They keep their own lanes.
bool process_wide(ActivityKind kind) {
  return kind == ActivityKind::sync || kind == ActivityKind::migration_h2d || kind == ActivityKind::migration_d2h ||
         kind == ActivityKind::page_fault;
}

Message lane_name_of(std::uint32_t id) {
  switch (id) {
    case kHostLaneId: return Message("host waits");
    case kFaultLaneId: return Message("page faults");
    case kMigrationLaneId: return Message("page migrations");
    default: return msg("stream {id}", arg("id", id));
  }
}

// "void cudalab::lesson::(anonymous namespace)::scale<float>(float*, int)" -> "scale<float>".
std::string short_kernel_name(const char* mangled) {
  if (mangled == nullptr) return "kernel";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && demangled ? demangled.get() : mangled;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(') {
      if (c == '(' && depth == 0 && i > 0) return name.substr(begin, i - begin);
      ++depth;
    } else if ((c == '>' || c == ')') && depth > 0) {
      --depth;
    } else if (depth == 0 && (c == ' ' || (c == ':' && i + 1 < name.size() && name[i + 1] == ':'))) {
      begin = c == ' ' ? i + 1 : i + 2;
    }
  }
  return name.substr(begin);
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kRecordAlignment, kBufferBytes));
  *size = *buffer == nullptr ? 0 : kBufferBytes;  // no memory: CUPTI counts the records as dropped
  *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_bytes) {
  std::vector<RawOp> ops;
  CUpti_Activity* record = nullptr;
  while (cupti_library().next_record(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
    switch (record->kind) {
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const cupti::KernelRecord*>(record);
        ops.push_back(RawOp{ActivityKind::kernel, k->deviceId, k->streamId, k->start, k->end, 0, short_kernel_name(k->name), {}, {},
                            k->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const cupti::MemcpyRecord*>(record);
        ops.push_back(RawOp{copy_kind(m->copyKind), m->deviceId, m->streamId, m->start, m->end, m->bytes, {},
                            memory_kind_name(m->srcKind), memory_kind_name(m->dstKind), m->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const cupti::MemsetRecord*>(record);
        ops.push_back(RawOp{ActivityKind::memset, m->deviceId, m->streamId, m->start, m->end, m->bytes, {}, {},
                            memory_kind_name(m->memoryKind), m->correlationId});
        break;
      }
      case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: {
        if (auto op = unified_memory_op(*reinterpret_cast<const cupti::UnifiedMemoryRecord*>(record))) {
          ops.push_back(std::move(*op));
        }
        break;
      }
      case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const auto* s = reinterpret_cast<const cupti::SyncRecord*>(record);
        ops.push_back(RawOp{ActivityKind::sync, 0, kHostLaneId, s->start, s->end, 0, sync_name(s->type), {}, {}});
        break;
      }
      default:
        break;
    }
  }
  std::free(buffer);
  std::lock_guard<std::mutex> lock(collector().mutex);
  for (auto& op : ops) collector().ops.push_back(std::move(op));
}

std::string key_from_title(const std::string& title) {
  std::string key;
  for (const char c : title) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    } else if (!key.empty() && key.back() != '-') {
      key.push_back('-');
    }
  }
  while (!key.empty() && key.back() == '-') key.pop_back();
  return key.empty() ? "timeline" : key;
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
  // CUPTI's stream ids are unique within a context only: across devices the device tells apart.
  return scope_ == TraceScope::all_devices ? (device << 24) | (stream & 0xFFFFFFu) : stream;
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

// Sorts `raw` by start. The picture starts with the first device operation (or host callback).
// The host often waits before it (CUPTI's start-up inside the session costs a millisecond or
// more); those waits are clipped to that moment so the time axis shows the work, not the recorder
// starting.
static void clip_to_first_work(std::vector<RawOp>& raw) {
  const auto by_start = [](const RawOp& a, const RawOp& b) { return a.start < b.start; };
  std::sort(raw.begin(), raw.end(), by_start);
  const auto first_work = std::find_if(raw.begin(), raw.end(), [](const RawOp& op) { return op.kind != ActivityKind::sync; });
  if (first_work == raw.end()) return;
  const std::uint64_t work_start = first_work->start;
  raw.erase(std::remove_if(raw.begin(), raw.end(), [&](const RawOp& op) { return op.end <= work_start; }), raw.end());
  for (auto& op : raw) op.start = std::max(op.start, work_start);
  std::sort(raw.begin(), raw.end(), by_start);
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
  // Other devices' work and finish()'s own synchronize are not part of the lesson's run.
  raw.erase(std::remove_if(raw.begin(), raw.end(),
                           [&](const RawOp& op) {
                             const bool other_device = scope_ == TraceScope::current_device &&
                                                       op.device != static_cast<std::uint32_t>(device_);
                             return (!process_wide(op.kind) && other_device) ||
                                    (op.kind == ActivityKind::sync && op.start >= finish_called);
                           }),
            raw.end());
  for (auto& op : raw) {
    // Host callbacks got their lane key from stream_id() already; host waits and unified memory
    // have lanes of their own.
    if (!process_wide(op.kind) && op.kind != ActivityKind::host_callback) op.stream = lane_key(op.device, op.stream);
  }
  clip_to_first_work(raw);

  Timeline t;
  t.key = key_from_title(title.en());  // English in every language: a key never changes
  t.title = title;
  t.notes_key = notes_key;
  t.device = device_;
  t.dropped_records = dropped;
  for (const auto& [id, name] : lane_names_) t.lanes.push_back(TimelineLane{id, name});
  auto lane_of = [&](std::uint32_t id) {
    for (std::size_t l = 0; l < t.lanes.size(); ++l) {
      if (t.lanes[l].stream_id == id) return l;
    }
    t.lanes.push_back(TimelineLane{id, lane_name_of(id)});
    return t.lanes.size() - 1;
  };
  // Unnamed streams (and unified memory's lanes) in order of first use; the host lane last.
  for (const auto& op : raw) {
    if (op.stream != kHostLaneId) lane_of(op.stream);
  }
  const std::uint64_t origin = raw.empty() ? 0 : raw.front().start;
  for (auto& op : raw) {
    TimelineOp out;
    out.kind = op.kind;
    out.lane = lane_of(op.stream);
    out.start_ns = static_cast<std::int64_t>(op.start - origin);
    out.end_ns = static_cast<std::int64_t>(std::max(op.end, op.start) - origin);
    out.bytes = op.bytes;
    out.name = std::move(op.name);
    out.src_memory = std::move(op.src_memory);
    out.dst_memory = std::move(op.dst_memory);
    out.correlation = op.correlation;
    t.ops.push_back(std::move(out));
  }
  if (dropped > 0) {
    std::fprintf(stderr, "cudalab: warning: CUPTI dropped %zu activity records; the timeline '%s' is incomplete\n",
                 dropped, title.en().c_str());
  }
  return t;
}

}  // namespace cudalab
