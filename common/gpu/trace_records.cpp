// Records to operations, operations to a Timeline (trace_records.hpp).
#include "common/gpu/trace_records.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "common/core/message.hpp"

namespace cudalab::trace {

namespace {

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

// Sorts `raw` by start. The picture starts with the first device operation (or host callback).
// The host often waits before it (CUPTI's start-up inside the session costs a millisecond or
// more); those waits are clipped to that moment so the time axis shows the work, not the recorder
// starting.
void clip_to_first_work(std::vector<RawOp>& raw) {
  const auto by_start = [](const RawOp& a, const RawOp& b) { return a.start < b.start; };
  std::sort(raw.begin(), raw.end(), by_start);
  const auto first_work = std::find_if(raw.begin(), raw.end(), [](const RawOp& op) { return op.kind != ActivityKind::sync; });
  if (first_work == raw.end()) return;
  const std::uint64_t work_start = first_work->start;
  raw.erase(std::remove_if(raw.begin(), raw.end(), [&](const RawOp& op) { return op.end <= work_start; }), raw.end());
  for (auto& op : raw) op.start = std::max(op.start, work_start);
  std::sort(raw.begin(), raw.end(), by_start);
}

}  // namespace

std::optional<RawOp> op_of_record(const CUpti_Activity& record) {
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const cupti::KernelRecord*>(&record);
      return RawOp{ActivityKind::kernel, k->deviceId, k->streamId, k->start, k->end, 0, short_kernel_name(k->name),
                   {}, {}, k->correlationId};
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const cupti::MemcpyRecord*>(&record);
      return RawOp{copy_kind(m->copyKind), m->deviceId, m->streamId, m->start, m->end, m->bytes, {},
                   memory_kind_name(m->srcKind), memory_kind_name(m->dstKind), m->correlationId};
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const cupti::MemsetRecord*>(&record);
      return RawOp{ActivityKind::memset, m->deviceId, m->streamId, m->start, m->end, m->bytes, {}, {},
                   memory_kind_name(m->memoryKind), m->correlationId};
    }
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER: {
      return unified_memory_op(*reinterpret_cast<const cupti::UnifiedMemoryRecord*>(&record));
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
      const auto* s = reinterpret_cast<const cupti::SyncRecord*>(&record);
      return RawOp{ActivityKind::sync, 0, kHostLaneId, s->start, s->end, 0, sync_name(s->type), {}, {}};
    }
    default:
      return std::nullopt;
  }
}

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

std::uint32_t lane_key(bool all_devices, std::uint32_t device, std::uint32_t stream) {
  return all_devices ? (device << 24) | (stream & 0xFFFFFFu) : stream;
}

Timeline timeline_of(std::vector<RawOp> raw, const Message& title, const std::string& notes_key,
                     const TraceFrame& frame) {
  // Other devices' work and finish()'s own synchronize are not part of the lesson's run.
  raw.erase(std::remove_if(raw.begin(), raw.end(),
                           [&](const RawOp& op) {
                             const bool other_device = !frame.all_devices &&
                                                       op.device != static_cast<std::uint32_t>(frame.device);
                             return (!process_wide(op.kind) && other_device) ||
                                    (op.kind == ActivityKind::sync && op.start >= frame.finish_called_ns);
                           }),
            raw.end());
  for (auto& op : raw) {
    // Host callbacks got their lane key from stream_id() already; host waits and unified memory
    // have lanes of their own.
    if (!process_wide(op.kind) && op.kind != ActivityKind::host_callback) {
      op.stream = lane_key(frame.all_devices, op.device, op.stream);
    }
  }
  clip_to_first_work(raw);

  Timeline t;
  t.key = key_from_title(title.en());  // English in every language: a key never changes
  t.title = title;
  t.notes_key = notes_key;
  t.device = frame.device;
  t.dropped_records = frame.dropped;
  for (const auto& [id, name] : frame.lane_names) t.lanes.push_back(TimelineLane{id, name});
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
  return t;
}

}  // namespace cudalab::trace
