// The pure half of tracing (common/gpu/trace_records.hpp): CUPTI's records, filled in here as
// CUPTI fills them, become a timeline's operations, and a session's operations its Timeline.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>

#include "common/gpu/trace_records.hpp"

using namespace cudalab;
using namespace cudalab::trace;

namespace {

template <typename Record>
const CUpti_Activity& as_activity(const Record& record) {
  return reinterpret_cast<const CUpti_Activity&>(record);
}

// What every record sets: the kind of work, its lane (CUPTI's stream id, or a lane of its own),
// the bytes it moved and its name.
void expect_op(const std::optional<RawOp>& got, ActivityKind kind, std::uint32_t stream, std::uint64_t bytes,
               const std::string& name) {
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->kind, kind);
  EXPECT_EQ(got->stream, stream);
  EXPECT_EQ(got->bytes, bytes);
  EXPECT_EQ(got->name, name);
}

RawOp op(ActivityKind kind, std::uint32_t device, std::uint32_t stream, std::uint64_t start, std::uint64_t end) {
  return RawOp{kind, device, stream, start, end, 0, "", {}, {}};
}

}  // namespace

TEST(TraceRecords, KernelRecordBecomesAKernelOpWithItsShortName) {
  cupti::KernelRecord k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.deviceId = 1;
  k.streamId = 13;
  k.start = 1000;
  k.end = 2500;
  k.correlationId = 77;
  k.name = "_ZN7cudalab5scaleIfEEvPfi";  // void cudalab::scale<float>(float*, int)
  const auto got = op_of_record(as_activity(k));
  expect_op(got, ActivityKind::kernel, 13, 0, "scale<float>");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->device, 1u);
  EXPECT_EQ(got->start, 1000u);
  EXPECT_EQ(got->end, 2500u);
  EXPECT_EQ(got->correlation, 77u);
}

TEST(TraceRecords, CopyRecordKeepsDirectionBytesAndMemoryKinds) {
  cupti::MemcpyRecord m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 4096;
  m.streamId = 3;
  const auto got = op_of_record(as_activity(m));
  expect_op(got, ActivityKind::h2d, 3, 4096, "");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->src_memory, "pinned");
  EXPECT_EQ(got->dst_memory, "device");
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;  // peer to peer: device to device
  EXPECT_EQ(op_of_record(as_activity(m))->kind, ActivityKind::d2d);
}

TEST(TraceRecords, HostWaitsAndPageFaultsHaveLanesOfTheirOwn) {
  cupti::SyncRecord s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.streamId = 5;
  expect_op(op_of_record(as_activity(s)), ActivityKind::sync, kHostLaneId, 0, "cudaStreamSynchronize");

  cupti::UnifiedMemoryRecord u{};
  u.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
  expect_op(op_of_record(as_activity(u)), ActivityKind::page_fault, kFaultLaneId, 0, "GPU page fault");
  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
  u.value = 65536;
  u.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER;
  expect_op(op_of_record(as_activity(u)), ActivityKind::migration_h2d, kMigrationLaneId, 65536,
            "page migration: cudaMemPrefetchAsync");
}

TEST(TraceRecords, RecordsTheTimelineDoesNotDrawAreLeftOut) {
  cupti::UnifiedMemoryRecord u{};
  u.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
  u.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING;
  EXPECT_FALSE(op_of_record(as_activity(u)).has_value());
  CUpti_Activity other{};
  other.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  EXPECT_FALSE(op_of_record(other).has_value());
}

TEST(TraceRecords, ShortKernelNameDropsScopesAndParameters) {
  EXPECT_EQ(short_kernel_name(nullptr), "kernel");
  EXPECT_EQ(short_kernel_name("_Z4spinPim"), "spin");                        // spin(int*, long)
  EXPECT_EQ(short_kernel_name("_ZN7cudalab5scaleIfEEvPfi"), "scale<float>");  // void cudalab::scale<float>(float*, int)
  EXPECT_EQ(short_kernel_name("not_mangled"), "not_mangled");
}

TEST(TraceRecords, LaneKeysTellDevicesApartOnlyAcrossDevices) {
  EXPECT_EQ(lane_key(false, 3, 13), 13u);
  EXPECT_EQ(lane_key(true, 0, 13), 13u);
  EXPECT_NE(lane_key(true, 1, 13), lane_key(true, 0, 13));
}

TEST(TraceRecords, TimelineKeepsTheDevicesWorkOnNamedLanesFromTheFirstWork) {
  TraceFrame frame;
  frame.device = 0;
  frame.finish_called_ns = 10'000;
  frame.dropped = 2;
  frame.lane_names = {{7, Message("chunk 0")}};
  std::vector<RawOp> raw{
      op(ActivityKind::sync, 0, kHostLaneId, 100, 900),      // the host waiting before any work: clipped
      op(ActivityKind::kernel, 0, 9, 1500, 1800),           // an unnamed stream: "stream 9", after chunk 0
      op(ActivityKind::h2d, 0, 7, 1000, 1400),              // the first work: time 0
      op(ActivityKind::kernel, 1, 7, 1100, 1200),           // another device's: left out
      op(ActivityKind::sync, 0, kHostLaneId, 950, 1600),    // a wait that overlaps the work: kept, clipped
      op(ActivityKind::sync, 0, kHostLaneId, 10'500, 11'000)};  // finish()'s own wait: left out
  const Timeline t = timeline_of(raw, Message("Overlapped (4 streams)"), "overlap", frame);
  EXPECT_EQ(t.key, "overlapped-4-streams");
  EXPECT_EQ(t.notes_key, "overlap");
  EXPECT_EQ(t.dropped_records, 2u);
  ASSERT_EQ(t.lanes.size(), 3u);
  EXPECT_EQ(t.lanes[0].name.en(), "chunk 0");
  EXPECT_EQ(t.lanes[1].name.en(), "stream 9");
  EXPECT_EQ(t.lanes[2].name.en(), "host waits");
  ASSERT_EQ(t.ops.size(), 3u);  // the copy, the clipped wait, the kernel: in order of start
  const auto find = [&](ActivityKind kind) {
    const auto it = std::find_if(t.ops.begin(), t.ops.end(), [&](const TimelineOp& o) { return o.kind == kind; });
    EXPECT_NE(it, t.ops.end());
    return it != t.ops.end() ? *it : TimelineOp{};
  };
  const TimelineOp copy = find(ActivityKind::h2d), wait = find(ActivityKind::sync), kernel = find(ActivityKind::kernel);
  EXPECT_EQ(copy.start_ns, 0);
  EXPECT_EQ(copy.end_ns, 400);
  EXPECT_EQ(copy.lane, 0u);
  EXPECT_EQ(wait.start_ns, 0);  // 950 clipped to the first work at 1000
  EXPECT_EQ(wait.end_ns, 600);
  EXPECT_EQ(wait.lane, 2u);
  EXPECT_EQ(kernel.start_ns, 500);
  EXPECT_EQ(kernel.lane, 1u);
  EXPECT_EQ(t.ops.back().kind, ActivityKind::kernel);
}

TEST(TraceRecords, AllDevicesKeepsEachDevicesStreamOnItsOwnLane) {
  TraceFrame frame;
  frame.all_devices = true;
  const Timeline t = timeline_of({op(ActivityKind::kernel, 0, 7, 0, 10), op(ActivityKind::kernel, 1, 7, 5, 15)},
                                 Message("two GPUs"), "", frame);
  ASSERT_EQ(t.lanes.size(), 2u);
  EXPECT_EQ(t.lanes[0].stream_id, lane_key(true, 0, 7));
  EXPECT_EQ(t.lanes[1].stream_id, lane_key(true, 1, 7));
  EXPECT_NE(t.ops[0].lane, t.ops[1].lane);
}
