// The pure part of traced_run.hpp: how busy the device was on a named lane.
#include <gtest/gtest.h>

#include "common/gpu/traced_run.hpp"

using namespace cudalab;

namespace {

TimelineOp op_on(ActivityKind kind, std::size_t lane, std::int64_t start_ns, std::int64_t end_ns) {
  TimelineOp o;
  o.kind = kind;
  o.lane = lane;
  o.start_ns = start_ns;
  o.end_ns = end_ns;
  return o;
}

Timeline two_lanes() {
  Timeline t;
  t.lanes = {TimelineLane{7, "stream 0"}, TimelineLane{9, "stream 1"}};
  t.ops = {op_on(ActivityKind::h2d, 0, 0, 1'000'000),         // 1 ms
           op_on(ActivityKind::kernel, 0, 1'000'000, 3'000'000),  // 2 ms
           op_on(ActivityKind::d2h, 1, 500'000, 1'000'000),    // 0.5 ms
           op_on(ActivityKind::memset, 1, 2'000'000, 2'250'000)};  // 0.25 ms
  return t;
}

}  // namespace

TEST(TracedRun, DeviceBusySumsEveryDeviceOperationOnTheNamedLane) {
  const Timeline t = two_lanes();
  EXPECT_DOUBLE_EQ(device_busy_ms(t, "stream 0"), 3.0);
  EXPECT_DOUBLE_EQ(device_busy_ms(t, "stream 1"), 0.75);
}

TEST(TracedRun, DeviceBusyLeavesOutHostCallbacksAndHostWaits) {
  Timeline t = two_lanes();
  t.ops.push_back(op_on(ActivityKind::host_callback, 0, 3'000'000, 8'000'000));
  t.ops.push_back(op_on(ActivityKind::sync, 1, 0, 9'000'000));
  EXPECT_DOUBLE_EQ(device_busy_ms(t, "stream 0"), 3.0);
  EXPECT_DOUBLE_EQ(device_busy_ms(t, "stream 1"), 0.75);
}

TEST(TracedRun, DeviceBusyIsZeroForAnUnknownOrEmptyLane) {
  Timeline t = two_lanes();
  EXPECT_DOUBLE_EQ(device_busy_ms(t, "compute"), 0.0);
  t.lanes.push_back(TimelineLane{11, "idle"});
  EXPECT_DOUBLE_EQ(device_busy_ms(t, "idle"), 0.0);
}
