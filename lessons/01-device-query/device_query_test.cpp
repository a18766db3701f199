// Lesson 01 without a GPU: the factory drawing and the report, from made-up device properties.
#include <gtest/gtest.h>

#include "model.hpp"
#include "report.hpp"

using namespace cudalab;
using namespace cudalab::device_query;

namespace {

DeviceInfo h100_like(int index) {
  DeviceInfo d;
  d.index = index;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.sm_count = 132;
  d.async_engine_count = 3;
  d.concurrent_kernels = true;
  d.priority_greatest = -5;
  d.pcie = PcieLink{5, 16, 5, 16};
  return d;
}

Measurements made_up(int devices, bool smoke_ok) {
  Measurements m;
  m.device_count = devices;
  m.driver = "13.0";
  m.runtime = "13.0";
  for (int i = 0; i < devices; ++i) {
    m.devices.push_back(h100_like(i));
    m.smoke.push_back({i, smoke_ok ? kSmokeElements : kSmokeElements - 1});
  }
  if (devices > 1) m.peer_access.assign(devices, std::vector<bool>(devices, true));
  m.preflight = {{"launch_blocking", true, "CUDA_LAUNCH_BLOCKING is not set", "..."}};
  return m;
}

}  // namespace

// CUDA documents the copy engines' count, not a job for each: the drawing shows the count.
TEST(DeviceQueryModel, FactoryShowsTheCopyEngineCountAndTheSMs) {
  const auto art = factory_art(h100_like(0));
  std::string all;
  for (const auto& piece : art) {
    all += piece.line.en() + "\n";
    for (const auto& row : piece.rows) {
      for (const auto& cell : row) all += cell.en() + "  ";
      all += "\n";
    }
  }
  EXPECT_NE(all.find("copy engines x3"), std::string::npos);
  EXPECT_NE(all.find("132 SMs"), std::string::npos);
  EXPECT_EQ(all.find("device-to-device"), std::string::npos);
  EXPECT_EQ(all.find("its own queue"), std::string::npos);
  DeviceInfo one = h100_like(0);
  one.async_engine_count = 1;
  EXPECT_NE(factory_art(one).back().line.en().find("take turns"), std::string::npos);
}

TEST(DeviceQueryReport, ListsEveryDeviceShownAndVerifiesEachSmokeKernel) {
  const Params p;
  const Measurements m = made_up(2, true);
  const Report r = build_report(p, m, predict(p, m));
  ASSERT_EQ(r.devices.size(), 2u);
  EXPECT_EQ(r.params.front().value, "all");
  EXPECT_TRUE(r.verify_passed());
  EXPECT_EQ(r.headline.en(), "NVIDIA H100 80GB HBM3 · 3 copy engines · priorities 0…-5 · Gen5 x16");
  bool peer_table = false;
  for (const auto& s : r.sections) peer_table = peer_table || !s.tables.empty();
  EXPECT_TRUE(peer_table);
}

// The pageable-access note says what the attribute says: on HMM or a coherent system it is yes.
TEST(DeviceQueryReport, ThePageableAccessNoteFollowsItsValue) {
  const Params p;
  for (const bool access : {false, true}) {
    Measurements m = made_up(1, true);
    m.devices.front().pageable_memory_access = access;
    const Report r = build_report(p, m, predict(p, m));
    const Fact* fact = nullptr;
    for (const auto& s : r.sections) {
      for (const auto& f : s.facts) fact = f.key == "pageable_access" ? &f : fact;
    }
    ASSERT_NE(fact, nullptr);
    EXPECT_EQ(fact->value.en(), access ? "yes" : "no");
    EXPECT_EQ(fact->note.en().find("cannot") == std::string::npos, access) << fact->note;
  }
}

TEST(DeviceQueryReport, AWrongSmokeElementFailsVerify) {
  const Params p;
  const Measurements m = made_up(1, false);
  EXPECT_FALSE(build_report(p, m, predict(p, m)).verify_passed());
}
