// The tenant rule (common/core/device_facts.hpp, Tenant): another process on the GPU disturbs a
// run only when it worked while the run measured. The samples below are what NVML reported on the
// lab H100 (driver 580.159.04) beside real tenants from tests/tenant/tenant.cu, sampled every
// 100 ms by `cudalab_tenant watch` (2026-11-26): pid 503 an idle context, 517 a kernel tenant,
// 527 a tenant that only copies 64 MiB each way (its samples came under the watcher's pid, 534),
// and 510/534 the watchers themselves.
#include <gtest/gtest.h>

#include "common/core/device_facts.hpp"
#include "common/gpu/preflight.hpp"

namespace cudalab {
namespace {

std::vector<ProcessWork> samples(long pid, unsigned sm, unsigned memory, int count) {
  std::vector<ProcessWork> out;
  for (int i = 0; i < count; ++i) out.push_back({pid, 1000u + static_cast<unsigned long long>(i), sm, memory, 0});
  return out;
}

Tenant only(const std::vector<Tenant>& tenants) {
  EXPECT_EQ(tenants.size(), 1u);
  return tenants.empty() ? Tenant{} : tenants.front();
}

TEST(TenantRule, AnIdleContextDidNoWork) {
  // The idle tenant never appeared in a sample; a context's own first second reads SM 1%.
  std::vector<Tenant> tenants{{503, 0, 0, 0, 0.0}};
  add_samples(tenants, samples(510, 1, 0, 1), /*self=*/510, {});
  EXPECT_FALSE(only(tenants).worked());
  std::vector<Tenant> starting;
  add_samples(starting, samples(510, 1, 0, 1), /*self=*/0, {});
  add_samples(starting, samples(510, 0, 0, 6), 0, {});
  EXPECT_FALSE(only(starting).worked());
}

TEST(TenantRule, AKernelTenantWorked) {
  std::vector<Tenant> tenants;
  add_samples(tenants, samples(517, 99, 0, 6), /*self=*/524, {});
  EXPECT_TRUE(only(tenants).worked());
  EXPECT_EQ(only(tenants).sm_percent, 99u);
}

TEST(TenantRule, ACopyTenantIsSeenByItsSamplesOrByTheCpuItBurns) {
  // Its copies read SM 98-99% and memory 2%, under the watcher's pid when the watcher was newer.
  std::vector<Tenant> seen;
  add_samples(seen, samples(534, 99, 2, 6), /*self=*/0, {});
  EXPECT_TRUE(only(seen).worked());
  // Under our own pid NVML shows nothing of it: the CPU it spends waiting for its copies does.
  std::vector<Tenant> hidden{{527, 0, 0, 0, 0.97}};
  add_samples(hidden, samples(534, 99, 2, 6), /*self=*/534, {});
  EXPECT_TRUE(only(hidden).worked());
  hidden.front().cpu_share = 0.01;  // a notebook's heartbeat
  EXPECT_FALSE(hidden.front().worked());
}

TEST(TenantRule, OurOwnAndIdleCudalabSamplesAreNoTenants) {
  std::vector<Tenant> tenants;
  add_samples(tenants, samples(549, 85, 0, 3), /*self=*/549, {});
  add_samples(tenants, samples(600, 40, 0, 3), /*self=*/549, /*idle=*/{600});
  EXPECT_TRUE(tenants.empty());
}

TEST(TenantRule, AnIdleContextLeavesTheRunCleanAndIsNamed) {
  ClassroomSnapshot s;
  for (GpuActivity* a : {&s.before, &s.busiest_during, &s.after}) {
    a->compute_processes = 2;
    a->tenants = std::vector<Tenant>{{503, 0, 0, 0, 0.0}};
  }
  const auto items = classroom_items(DeviceInfo{}, s);
  EXPECT_TRUE(items[0].ok) << items[0].summary;
  EXPECT_NE(items[0].summary.en().find("another process held a context on the GPU and did no work"),
            std::string::npos)
      << items[0].summary;
  EXPECT_NE(items[0].summary.en().find("pid 503"), std::string::npos) << items[0].summary;
}

TEST(TenantRule, AWorkingTenantDisturbsTheRunWithItsFigures) {
  ClassroomSnapshot s;
  for (GpuActivity* a : {&s.before, &s.busiest_during, &s.after}) {
    a->compute_processes = 2;
    a->tenants = std::vector<Tenant>{{517, 99, 0, 0, 1.0}};
  }
  const auto items = classroom_items(DeviceInfo{}, s);
  EXPECT_FALSE(items[0].ok);
  EXPECT_NE(items[0].summary.en().find("1 other process worked on the GPU"), std::string::npos) << items[0].summary;
  EXPECT_NE(items[0].summary.en().find("pid 517: SM 99%"), std::string::npos) << items[0].summary;
}

TEST(TenantRule, WhereNvmlCannotTellEveryContextCounts) {
  ClassroomSnapshot s;
  s.busiest_during.compute_processes = 2;  // no tenants: NVML's pids are not ours, or no samples
  const auto items = classroom_items(DeviceInfo{}, s);
  EXPECT_FALSE(items[0].ok);
  EXPECT_NE(items[0].summary.en().find("NVML cannot tell"), std::string::npos) << items[0].summary;
}

TEST(TenantRule, ARunPassedOverInTheQueueIsDisturbed) {
  ClassroomSnapshot s;
  s.turn_shared = true;
  EXPECT_FALSE(classroom_items(DeviceInfo{}, s)[0].ok);
}

}  // namespace
}  // namespace cudalab
