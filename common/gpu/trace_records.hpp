// CUPTI's activity records as a timeline's operations: which work each record is (a kernel, a
// copy, a memset, a host wait, a page fault or migration), on which lane, and the Timeline a
// session's records make. Pure: it calls neither CUPTI nor CUDA (only CUPTI's record layouts,
// cupti_records.hpp), so the unit tests feed it records they fill in themselves. The session
// that collects the records from CUPTI's buffers is trace_session.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/core/timeline.hpp"
#include "common/gpu/cupti_records.hpp"

namespace cudalab::trace {

inline constexpr std::uint32_t kHostLaneId = 0xFFFFFFFFu;  // synchronize calls: the host waiting
// Unified memory's records name no stream (CUPTI: "the value of this field is invalid"): a lane each.
inline constexpr std::uint32_t kFaultLaneId = 0xFFFFFFFEu;
inline constexpr std::uint32_t kMigrationLaneId = 0xFFFFFFFDu;

// One recorded operation, in CUPTI's clock (ns) and with CUPTI's stream id.
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

// The operation one record stands for; nullopt for a record the timeline does not draw (another
// kind, or a unified-memory counter other than migrations and faults).
std::optional<RawOp> op_of_record(const CUpti_Activity& record);

// "void cudalab::lesson::(anonymous namespace)::scale<float>(float*, int)" -> "scale<float>".
std::string short_kernel_name(const char* mangled);

// The key of a stream's lane. CUPTI's stream ids are unique within a context only: when a session
// keeps every device's work, the device tells them apart.
std::uint32_t lane_key(bool all_devices, std::uint32_t device, std::uint32_t stream);

// What the session knew when it finished, besides its records.
struct TraceFrame {
  bool all_devices = false;            // TraceScope::all_devices: keep every device's work
  int device = 0;                      // the device the session traces (all_devices: the current one)
  std::uint64_t finish_called_ns = 0;  // host waits from then on are finish()'s own
  std::size_t dropped = 0;             // records CUPTI dropped
  std::vector<std::pair<std::uint32_t, Message>> lane_names;  // by lane key, in naming order
};

// The Timeline of `raw`: other devices' work (unless all_devices) and finish()'s own waits left
// out; each stream's op on its lane key (host callbacks carry theirs already); host waits before
// the first work clipped to it; times from the first op. Lanes: the named ones in naming order,
// then unnamed streams and unified memory's lanes in order of first use, the host lane last.
Timeline timeline_of(std::vector<RawOp> raw, const Message& title, const std::string& notes_key,
                     const TraceFrame& frame);

}  // namespace cudalab::trace
