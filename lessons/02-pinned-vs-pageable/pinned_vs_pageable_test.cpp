// Lesson 02 without a GPU: its flags, the transfer model, the break-even of pinning, and every
// check of its report decided from made-up measurements.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"
#include "transfer_model.hpp"

using namespace cudalab;
using namespace cudalab::pinned;

namespace {

using testing_support::check_of;
using Parsed = testing_support::ParsedOptions<Params>;
Parsed parse(std::vector<std::string> args) { return testing_support::parse_params(flags(), std::move(args)); }

std::vector<double> same(double value, int n = 5) { return std::vector<double>(static_cast<std::size_t>(n), value); }

// 64 MiB only, both directions, pageable and pinned: pinned 50 GB/s, pageable 10 GB/s.
Measurements healthy() {
  Measurements m;
  m.sizes = {64ull << 20};
  m.probe = 64ull << 20;
  m.kinds = {MemoryKind::pageable, MemoryKind::pinned};
  m.directions = {Direction::h2d, Direction::d2h};
  const double n = static_cast<double>(m.probe);
  for (Direction d : m.directions) {
    m.copy_ms[{MemoryKind::pinned, d}] = {same(n / 50e9 * 1e3)};
    m.copy_ms[{MemoryKind::pageable, d}] = {same(n / 10e9 * 1e3)};
    m.bytes[{MemoryKind::pinned, d}].add(m.probe, m.probe);
    m.bytes[{MemoryKind::pageable, d}].add(m.probe, m.probe);
    m.async_call_us[{MemoryKind::pinned, d}] = same(5);
    m.async_call_us[{MemoryKind::pageable, d}] = same(n / 10e9 * 1e6 * 0.9);
  }
  m.bidirectional_ms = same(2 * n / 90e9 * 1e3);
  m.bidirectional_bytes.add(2 * m.probe, 2 * m.probe);
  m.allocation = AllocationCosts{same(35.7), same(28.5), same(6.0)};
  return m;
}

Report report_of(const Measurements& m, const Params& p = Params{}) { return build_report(p, m, predict(p, m)); }

}  // namespace

TEST(PinnedVsPageableFlags, GoodValuesParse) {
  EXPECT_EQ(parse({}).error, "");
  EXPECT_EQ(parse({"--size", "64MiB", "--direction", "h2d", "--memory", "pinned"}).error, "");
  EXPECT_EQ(parse({"--size", "4KiB", "--direction", "both", "--memory", "registered"}).error, "");
  EXPECT_EQ(parse({"--size", "1000003", "--direction", "d2h", "--memory", "all"}).error, "");
  EXPECT_EQ(parse({"--size", "0"}).error, "") << "0 asks for the sweep";
}

TEST(PinnedVsPageableFlags, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"--size", {"-1", "abc", "64XB", "17GiB", "1e9", "1.3B"}},
      {"--direction", {"up", "", "H2D", "3"}},
      {"--memory", {"managed", "pinned,pageable", "0"}}};
  for (const auto& [flag, values] : cases) {
    for (const auto& v : values) {
      const Parsed p = parse({flag, v});
      EXPECT_NE(p.error.find(flag), std::string::npos) << flag << " " << v << ": " << p.error;
    }
  }
}

TEST(PinnedVsPageableModel, SweepAndProbeSizes) {
  // The default sweep ends at the probe, 16 MiB; --full adds the 64 MiB and 256 MiB steps, and the
  // probe (the headline's size) stays 16 MiB either way.
  const auto sweep = sweep_sizes(0, false);
  EXPECT_EQ(sweep.front(), 4096u);
  EXPECT_EQ(sweep.back(), 16ull << 20);
  EXPECT_EQ(sweep.size(), 7u);
  EXPECT_EQ(probe_size(sweep), 16ull << 20);
  auto full = sweep_sizes(0, true);
  EXPECT_EQ(full.back(), 256ull << 20);
  EXPECT_EQ(probe_size(full), 16ull << 20);
  full.resize(sweep.size());
  EXPECT_EQ(full, sweep) << "--full only adds steps after the probe";
  EXPECT_EQ(sweep_sizes(1000003, false), std::vector<std::uint64_t>{1000003});
  EXPECT_EQ(sweep_sizes(1000003, true), std::vector<std::uint64_t>{1000003}) << "--size wins over --full";
  EXPECT_EQ(probe_size({4096, 16384}), 16384u);
  EXPECT_FALSE(Params{}.full);
  const Parsed parsed = parse({"--full"});
  ASSERT_EQ(parsed.error, "");
  EXPECT_TRUE(parsed.options.full);
}

TEST(PinnedVsPageableModel, BreakEvenIsNeverNegative) {
  // The reference run: cudaMallocHost 28.5 ms, malloc + first touch 35.7 ms. Pinning costs
  // nothing extra there, so it pays from the first copy; registering 6 ms repays in a few.
  const Measurements m = healthy();
  const Prediction pr = predict(Params{}, m);
  ASSERT_TRUE(pr.break_even.has_value());
  EXPECT_LT(pr.break_even->alloc_extra_ms, 0);
  EXPECT_DOUBLE_EQ(pr.break_even->alloc_copies, 0);
  const double saving = (64.0 * 1024 * 1024) / 10e9 * 1e3 - (64.0 * 1024 * 1024) / 50e9 * 1e3;
  EXPECT_NEAR(pr.break_even->saving_ms, saving, 1e-9);
  EXPECT_DOUBLE_EQ(pr.break_even->register_copies, std::ceil(6.0 / saving));
  const Report r = report_of(m);
  const Metric* be = r.find_metric("alloc.break_even");
  ASSERT_NE(be, nullptr);
  EXPECT_GE(be->samples.at(0), 0);
  EXPECT_EQ(be->note.en().find("-"), std::string::npos) << be->note;
  EXPECT_NE(be->note.en().find("pays from the first copy"), std::string::npos) << be->note;

  Measurements dear = healthy();
  dear.allocation->pinned_ms = same(60);
  const Report r2 = report_of(dear);
  EXPECT_NE(r2.find_metric("alloc.break_even")->note.en().find("more than malloc"), std::string::npos);
  EXPECT_DOUBLE_EQ(r2.find_metric("alloc.break_even")->samples.at(0), std::ceil((60 - 35.7) / saving));
}

TEST(PinnedVsPageableReport, AHealthyRunPassesEveryCheck) {
  Params one_size;
  one_size.size = 64ull << 20;
  const Report r = report_of(healthy(), one_size);
  for (const auto& c : r.checks) EXPECT_TRUE(c.passed) << c.key << ": " << c.summary;
  EXPECT_EQ(r.params.at(0).value, "64MiB");
  EXPECT_NE(r.find_metric("lecture.pinned_speedup"), nullptr);
  EXPECT_NEAR(r.find_metric("lecture.pinned_speedup")->samples.at(0), 5.0, 1e-9);
  Params sweep;
  EXPECT_EQ(build_report(sweep, healthy(), predict(sweep, healthy())).params.at(0).value, "sweep");
}

TEST(PinnedVsPageableReport, EachVerifyFailsOnItsOwnBytes) {
  for (MemoryKind k : {MemoryKind::pageable, MemoryKind::pinned}) {
    for (Direction d : {Direction::h2d, Direction::d2h}) {
      Measurements m = healthy();
      m.bytes[{k, d}] = Tally{};
      m.bytes[{k, d}].add(9, 10);
      const std::string key = std::string(name_of(k)) + "." + name_of(d);
      EXPECT_FALSE(check_of(report_of(m), key).passed) << key;
    }
  }
  Measurements m = healthy();
  m.bidirectional_bytes = Tally{};
  m.bidirectional_bytes.add(1, 2);
  EXPECT_FALSE(check_of(report_of(m), "bidirectional").passed);
}

TEST(PinnedVsPageableReport, PinnedMustBeatPageableByTwentyPercent) {
  Measurements m = healthy();
  const double n = static_cast<double>(m.probe);
  m.copy_ms[{MemoryKind::pinned, Direction::h2d}] = {same(n / 11.9e9 * 1e3)};
  EXPECT_FALSE(check_of(report_of(m), "pinned_beats_pageable.h2d").passed);
  EXPECT_TRUE(check_of(report_of(m), "pinned_beats_pageable.d2h").passed);
  m.copy_ms[{MemoryKind::pinned, Direction::h2d}] = {same(n / 12.1e9 * 1e3)};
  EXPECT_TRUE(check_of(report_of(m), "pinned_beats_pageable.h2d").passed);
}

TEST(PinnedVsPageableReport, AsyncOnPageableBlocksTheHost) {
  Measurements m = healthy();
  const double copy_us = static_cast<double>(m.probe) / 10e9 * 1e6;
  m.async_call_us[{MemoryKind::pageable, Direction::h2d}] = same(copy_us * 0.4);  // returned early
  EXPECT_FALSE(check_of(report_of(m), "async_on_pageable_blocks_host").passed);
  m.async_call_us[{MemoryKind::pageable, Direction::h2d}] = same(copy_us * 0.6);
  m.async_call_us[{MemoryKind::pinned, Direction::h2d}] = same(copy_us * 0.1);  // pinned slow too
  EXPECT_FALSE(check_of(report_of(m), "async_on_pageable_blocks_host").passed);
}

TEST(PinnedVsPageableReport, OneKindHasNoComparisonChecks) {
  Measurements m = healthy();
  m.kinds = {MemoryKind::pinned};
  m.copy_ms.erase({MemoryKind::pageable, Direction::h2d});
  m.copy_ms.erase({MemoryKind::pageable, Direction::d2h});
  m.bytes.erase({MemoryKind::pageable, Direction::h2d});
  m.bytes.erase({MemoryKind::pageable, Direction::d2h});
  const Report r = report_of(m);
  for (const auto& c : r.checks) EXPECT_EQ(c.kind, CheckKind::verify) << c.key;
  EXPECT_EQ(r.find_metric("alloc.break_even"), nullptr);
  EXPECT_NE(r.headline.en().find("pinned H2D 64MiB"), std::string::npos) << r.headline;
}

TEST(TransferFit, RecoversLatencyAndBandwidthFromExactData) {
  const double latency = 8e-6, bandwidth = 53.5e9;
  std::vector<double> sizes, times;
  for (double n = 4096; n <= 256.0 * 1024 * 1024; n *= 4) {
    sizes.push_back(n);
    times.push_back(latency + n / bandwidth);
  }
  const TransferFit fit = fit_transfer_time(sizes, times);
  EXPECT_NEAR(fit.latency_s, latency, 1e-12);
  EXPECT_NEAR(fit.bandwidth_Bps / bandwidth, 1.0, 1e-9);
  EXPECT_NEAR(fit.half_bandwidth_bytes(), latency * bandwidth, 1e-3);
  EXPECT_NEAR(fit.predicted_seconds(1e6), latency + 1e6 / bandwidth, 1e-15);
}

TEST(TransferFit, WeightsSmallCopiesSoLatencySurvivesNoise) {
  // 2% noise on the largest copies would swamp a microsecond latency in an unweighted fit.
  const double latency = 10e-6, bandwidth = 50e9;
  std::vector<double> sizes, times;
  int i = 0;
  for (double n = 4096; n <= 256.0 * 1024 * 1024; n *= 4, ++i) {
    sizes.push_back(n);
    times.push_back((latency + n / bandwidth) * (i % 2 == 0 ? 1.02 : 0.98));
  }
  const TransferFit fit = fit_transfer_time(sizes, times);
  EXPECT_NEAR(fit.latency_s, latency, 0.1 * latency);
  EXPECT_NEAR(fit.bandwidth_Bps / bandwidth, 1.0, 0.05);
}

TEST(TransferFit, RejectsDataItCannotFit) {
  EXPECT_THROW(fit_transfer_time({4096}, {1e-5}), std::invalid_argument);
  EXPECT_THROW(fit_transfer_time({4096, 4096}, {1e-5, 2e-5}), std::invalid_argument);
  EXPECT_THROW(fit_transfer_time({4096, 8192}, {1e-5, 0}), std::invalid_argument);
  EXPECT_THROW(fit_transfer_time({4096, 8192}, {2e-5, 1e-5}), std::invalid_argument);
}

TEST(TransferFit, PinningBreakEven) {
  // Pinning costs 30 ms more than malloc; each transfer saves 4 ms: the 8th transfer repays it.
  EXPECT_DOUBLE_EQ(break_even_transfers(0.030, 0.005, 0.001), 8.0);
  EXPECT_DOUBLE_EQ(break_even_transfers(0.0, 0.005, 0.001), 0.0);
  EXPECT_TRUE(std::isinf(break_even_transfers(0.030, 0.001, 0.001)));
}
