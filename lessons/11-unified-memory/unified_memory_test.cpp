// Lesson 11 without a GPU: its flags, the workload's CPU reference, the model (bandwidths, the
// fault fit, the crossover), and every check of its report decided from made-up measurements.
#include <gtest/gtest.h>

#include <stdexcept>

#include "common/report/translate.hpp"
#include "model.hpp"
#include "params.hpp"
#include "report.hpp"
#include "tests/unit/test_support.hpp"
#include "workload.hpp"

using namespace cudalab::unified_memory;

using cudalab::testing_support::check_of;

namespace {
using Parsed = cudalab::testing_support::ParsedOptions<Params>;
Parsed parse(std::vector<std::string> args) { return cudalab::testing_support::parse_params(flags(), std::move(args)); }
constexpr std::uint64_t kMiB = 1ull << 20;
}  // namespace

TEST(UnifiedMemoryFlags, DefaultsAndGoodValues) {
  const Parsed d = parse({});
  ASSERT_EQ(d.error, "");
  EXPECT_EQ(d.options.size, 32 * kMiB);
  EXPECT_EQ(d.options.streams, 4);
  EXPECT_EQ(d.options.reuse, 8);
  EXPECT_EQ(d.options.sparse, 64);
  EXPECT_EQ(chunk_count(d.options), 8);
  const Parsed p = parse({"--size", "1GiB", "--streams", "8", "--reuse", "64", "--sparse", "4096"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.options.size, 1024 * kMiB);
  EXPECT_EQ(p.options.streams, 8);
  EXPECT_EQ(p.options.reuse, 64);
  EXPECT_EQ(p.options.sparse, 4096);
}

TEST(UnifiedMemoryFlags, BadValuesNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--size", "512KiB"}, "--size"}, {{"--size", "2GiB"}, "--size"},     {{"--size", "lots"}, "--size"},
      {{"--size", "-1MiB"}, "--size"},  {{"--streams", "0"}, "--streams"},  {{"--streams", "9"}, "--streams"},
      {{"--reuse", "0"}, "--reuse"},    {{"--reuse", "65"}, "--reuse"},     {{"--reuse", "1.5"}, "--reuse"},
      {{"--sparse", "1"}, "--sparse"},  {{"--sparse", "4097"}, "--sparse"}, {{"--sparse", "half"}, "--sparse"},
  };
  for (const auto& [args, flag] : cases) {
    const Parsed p = parse(args);
    EXPECT_NE(p.error.find(flag), std::string::npos) << args[0] << " " << args[1] << " -> " << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << p.error;
  }
}

TEST(UnifiedMemoryWorkload, ChunksCoverTheBufferOnGranules) {
  const auto chunks = split_words(1000, 3, 16);  // 62 granules of 16 words and 8 words over
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].begin, 0u);
  for (std::size_t c = 1; c < chunks.size(); ++c) {
    EXPECT_EQ(chunks[c].begin, chunks[c - 1].end);
    EXPECT_EQ(chunks[c].begin % 16, 0u) << "no chunk starts inside a granule";
  }
  EXPECT_EQ(chunks.back().end, 1000u);
  EXPECT_EQ(chunks[0].count(), 320u);  // 20 granules
  EXPECT_EQ(split_words(64, 4, 16).back().count(), 16u);
  EXPECT_THROW(split_words(48, 4, 16), std::invalid_argument);  // three granules for four chunks
  EXPECT_THROW(split_words(64, 0, 16), std::invalid_argument);
}

TEST(UnifiedMemoryWorkload, ReuseSweepDoublesUpToTheLargest) {
  EXPECT_EQ(reuse_sweep(1), (std::vector<int>{1}));
  EXPECT_EQ(reuse_sweep(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(reuse_sweep(5), (std::vector<int>{1, 2, 4, 5}));
  EXPECT_EQ(reuse_sweep(64).size(), 7u);
}

TEST(UnifiedMemoryWorkload, ReferenceMatchesTheKernelsDefinition) {
  const std::size_t n = 1000;
  std::vector<Word> in(n);
  for (std::size_t i = 0; i < n; ++i) in[i] = input_word(i);
  for (int reuse : {1, 2, 3, 7}) {
    std::vector<Word> out(n);
    reference_reuse(in.data(), n, reuse, out.data());
    const std::size_t step = reuse_step(n, reuse);
    for (std::size_t i = 0; i < n; ++i) {
      Word sum = 0;
      for (int k = 0; k < reuse; ++k) sum += in[(i + static_cast<std::size_t>(k) * step) % n];
      ASSERT_EQ(out[i], finish(sum)) << "reuse " << reuse << " word " << i;
    }
  }
  EXPECT_NE(input_word(0), input_word(1));
  EXPECT_NE(input_word(5), input_word(5ull << 32)) << "the high half of the index counts too";
}

TEST(UnifiedMemoryWorkload, SparseReadTakesOneLineInEachGroup) {
  const std::size_t words = 64 * kLineWords * 10;  // 640 lines
  EXPECT_EQ(sparse_reads(words, 64), 10u);
  EXPECT_EQ(sparse_reads(words, 4096), 0u);
  std::vector<Word> in(words);
  for (std::size_t i = 0; i < words; ++i) in[i] = input_word(i);
  const auto out = reference_sparse(in.data(), words, 64);
  ASSERT_EQ(out.size(), 10 * kLineWords);
  for (std::size_t r = 0; r < 10; ++r) {
    const std::size_t line = sparse_line(r, 64);
    EXPECT_EQ(line / 64, r) << "line " << line << " lies in group " << r;
    EXPECT_EQ(out[r * kLineWords + 3], finish(in[line * kLineWords + 3]));
  }
}

TEST(UnifiedMemoryModel, BandwidthAndTransferTimeAreInverse) {
  EXPECT_DOUBLE_EQ(gigabytes_per_second(50e6, 1.0), 50.0);  // 50 MB in a millisecond
  EXPECT_DOUBLE_EQ(transfer_ms(100e6, 50.0), 2.0);
  EXPECT_DOUBLE_EQ(gigabytes_per_second(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(transfer_ms(1, 0), 0.0);
  EXPECT_DOUBLE_EQ(predict_copy_first_ms(100e6, 50e6, 50, 25, 0.5), 2.0 + 0.5 + 2.0);
  // Reads and writes cross the bus in opposite directions at once: the longer one sets the time.
  EXPECT_DOUBLE_EQ(predict_zero_copy_ms(400e6, 100e6, 50, 50), 8.0);
  EXPECT_DOUBLE_EQ(predict_zero_copy_ms(100e6, 400e6, 50, 50), 8.0);
}

namespace {

FaultProbe probe(std::uint64_t pages, double kernel_ms, double host_ms) {
  FaultProbe p;
  p.pages = pages;
  p.bytes = pages * 4096;
  p.samples = {{kernel_ms, host_ms}, {kernel_ms * 1.1, host_ms * 1.1}, {kernel_ms * 0.9, host_ms * 0.9}};
  return p;
}

}  // namespace

TEST(UnifiedMemoryModel, FaultFitRecoversTheCostPerPage) {
  // Per 4 KiB page: 0.1 us at 40.96 GB/s, plus 0.05 us of kernel, plus a 0.35 us GPU fault; the
  // host pays 0.1 us for the bytes and a 1.9 us CPU fault; 0.2 and 0.3 ms fixed.
  const FaultFit f = fit_faults({probe(4096, 0.2 + 4096 * 0.5e-3, 0.3 + 4096 * 2e-3),
                                 probe(8192, 0.2 + 8192 * 0.5e-3, 0.3 + 8192 * 2e-3)},
                                4096, 40.96, 40.96, 0.05e-3);
  EXPECT_NEAR(f.kernel_fixed_ms, 0.2, 1e-9);
  EXPECT_NEAR(f.kernel_ms_per_page, 0.5e-3, 1e-12);
  EXPECT_NEAR(f.host_fixed_ms, 0.3, 1e-9);
  EXPECT_NEAR(f.gpu_fault_us, 0.35, 1e-6);
  EXPECT_NEAR(f.host_fault_us, 1.9, 1e-6);
  EXPECT_THROW(fit_faults({probe(4096, 1, 1), probe(4096, 2, 2)}, 4096, 40, 40, 0), std::invalid_argument);
  EXPECT_THROW(fit_faults({probe(4096, 1, 1)}, 4096, 40, 40, 0), std::invalid_argument);
}

TEST(UnifiedMemoryModel, CrossoverIsWhereZeroCopyStaysSlower) {
  const std::vector<int> reuses = {1, 2, 4, 8};
  EXPECT_EQ(crossover_reuse(reuses, {2.6, 2.6, 2.7, 2.8}, {1.3, 2.7, 5.2, 10.4}), 2);
  EXPECT_EQ(crossover_reuse(reuses, {2.6, 2.6, 2.7, 2.8}, {1.3, 2.5, 5.2, 10.4}), 4);
  EXPECT_EQ(crossover_reuse(reuses, {2.6, 2.6, 2.7, 2.8}, {1.3, 1.4, 1.5, 1.6}), std::nullopt);
  // Slower at 2, faster again at 4: it loses for good only from 8.
  EXPECT_EQ(crossover_reuse(reuses, {2.6, 2.6, 2.7, 2.8}, {1.3, 2.7, 2.6, 10.4}), 8);
  EXPECT_EQ(crossover_reuse(reuses, {1.0, 1.0, 1.0, 1.0}, {2.0, 2.0, 2.0, 2.0}), 1) << "slower everywhere";
  EXPECT_EQ(crossover_reuse({}, {}, {}), std::nullopt);
}

TEST(UnifiedMemoryModel, TallyCountsFaultsAndMigrations) {
  cudalab::Timeline t;
  auto add = [&](cudalab::ActivityKind kind, std::uint64_t bytes, const char* name) {
    cudalab::TimelineOp op;
    op.kind = kind;
    op.bytes = bytes;
    op.name = name;
    t.ops.push_back(op);
  };
  add(cudalab::ActivityKind::page_fault, 0, "GPU page fault");
  add(cudalab::ActivityKind::page_fault, 0, "GPU page fault");
  add(cudalab::ActivityKind::page_fault, 0, "CPU page fault");
  add(cudalab::ActivityKind::migration_h2d, 2 * kMiB, "page migration: on a fault");
  add(cudalab::ActivityKind::migration_h2d, 1 * kMiB, "page migration: on a fault");
  add(cudalab::ActivityKind::migration_d2h, 4096, "page migration: on a fault");
  add(cudalab::ActivityKind::kernel, 0, "reuse_kernel");
  const MigrationTally tally = tally_migrations(t);
  EXPECT_EQ(tally.gpu_faults, 2u);
  EXPECT_EQ(tally.cpu_faults, 1u);
  EXPECT_EQ(tally.h2d_migrations, 2u);
  EXPECT_EQ(tally.h2d_bytes, 3 * kMiB);
  EXPECT_EQ(tally.d2h_migrations, 1u);
  EXPECT_EQ(tally.d2h_bytes, 4096u);
}

namespace {

std::vector<EnqueuedSample> runs(double ms) { return {{ms, 0.05}, {ms * 1.01, 0.05}, {ms * 0.99, 0.05}}; }
std::vector<double> times(double ms) { return {ms, ms * 1.01, ms * 0.99}; }

// A made-up run on a 64 MiB buffer and a GPU with two copy engines at ~52 GB/s each way:
// explicit copies 1.5 ms, prefetched `prefetched_ms`, on demand 26 ms (a quarter the kernel), zero-copy doubling
// with each reuse from 1.4 ms while copying first stays near 2.6 ms, and a sparse read.
Measurements made_up_run(double prefetched_ms = 1.6, double on_demand_ms = 26) {
  Measurements m;
  m.bytes = 64 * kMiB;
  m.chunk_bytes = 8 * kMiB;
  m.chunk_count = 8;
  m.page_bytes = 4096;
  m.copy_engines = 2;
  m.h2d_chunk_ms = times(0.16);
  m.d2h_chunk_ms = times(0.16);
  m.kernel_chunk_ms = times(0.01);
  m.explicit_runs = runs(1.5);
  m.prefetched = runs(prefetched_ms);
  m.on_demand = {{on_demand_ms / 4, on_demand_ms * 3 / 4}};  // the kernel and the host's read back
  m.probes = {probe(4096, 1.6, 5.1), probe(8192, 3.1, 10.1)};
  const double zero_copy[] = {1.4, 2.6, 5.2, 10.4};
  const double copy_first[] = {2.6, 2.65, 2.7, 2.8};
  for (std::size_t i = 0; i < 4; ++i) {
    ReuseCase c;
    c.reuse = 1 << i;
    c.kernel_ms = times(0.05 * c.reuse);
    c.copy_first_ms = times(copy_first[i]);
    c.zero_copy_ms = times(zero_copy[i]);
    m.reuse.push_back(c);
  }
  m.sparse_reads = 64 * kMiB / 128 / 64;
  m.sparse_kernel_ms = times(0.01);
  m.sparse_copy_first_ms = times(1.25);
  m.sparse_zero_copy_ms = times(0.05);
  for (cudalab::Tally* t : {&m.explicit_words, &m.on_demand_words, &m.prefetched_words, &m.copy_first_words,
                            &m.zero_copy_words}) {
    t->add(100, 100);
  }
  return m;
}

cudalab::Report report_of(const Measurements& m, Params p = {}) { return build_report(p, m, predict(p, m)); }
bool passes(const Measurements& m, const std::string& key, Params p = {}) {
  return check_of(report_of(m, p), key).passed;
}

}  // namespace

TEST(UnifiedMemoryModel, PredictsEachWayFromTheRunsOwnFigures) {
  const Params p;
  const Measurements m = made_up_run();
  const Prediction pr = predict(p, m);
  EXPECT_NEAR(pr.h2d_gb_per_s, 8 * kMiB / 0.16 / 1e6, 1e-9);
  // Eight chunks on two copy engines: at least the uploads in a row, at most every stage in turn.
  EXPECT_GE(pr.explicit_ms, 8 * 0.16);
  EXPECT_LT(pr.explicit_ms, 8 * (0.16 + 0.01 + 0.16));
  EXPECT_DOUBLE_EQ(pr.prefetched_ms, pr.explicit_ms);
  // The fitted lines, extrapolated from 8192 to 16384 pages.
  EXPECT_NEAR(pr.on_demand_kernel_ms, 3.1 + 2 * 1.5, 1e-9);
  EXPECT_NEAR(pr.on_demand_host_ms, 10.1 + 2 * 5.0, 1e-9);
  ASSERT_EQ(pr.zero_copy_ms.size(), 4u);
  EXPECT_NEAR(pr.zero_copy_ms[2], 4 * transfer_ms(64.0 * kMiB, pr.h2d_gb_per_s), 1e-9);
  EXPECT_NEAR(pr.copy_first_ms[0], 2 * transfer_ms(64.0 * kMiB, pr.h2d_gb_per_s) + 0.05, 1e-9);
  EXPECT_EQ(pr.crossover, 4) << "at reuse 2 zero-copy's two transfers still beat copying first and its kernel";
  EXPECT_LT(pr.sparse_zero_copy_ms, pr.sparse_copy_first_ms);
}

TEST(UnifiedMemoryReport, EveryCheckPassesOnAGoodRun) {
  const cudalab::Report r = report_of(made_up_run());
  EXPECT_TRUE(r.verify_passed());
  for (const char* key : {"prefetch_beats_on_demand", "on_demand_is_slower", "zero_copy_crossover",
                          "sparse_favours_zero_copy"}) {
    EXPECT_TRUE(check_of(r, key).passed) << key << ": " << check_of(r, key).summary;
  }
  EXPECT_EQ(r.headline.en(), "managed memory: on demand 17.33× explicit copies, prefetched 1.07×; zero-copy 0.93×");
  EXPECT_EQ(r.headline_metric_keys(), std::vector<std::string>{"ratio.zero_copy"});
  EXPECT_EQ(r.headline_checks,
            (std::vector<std::string>{"prefetch_beats_on_demand", "on_demand_is_slower", "zero_copy_crossover"}));
  EXPECT_NE(check_of(r, "zero_copy_crossover").summary.en().find("loses from reuse 4 on (model: reuse 4)"),
            std::string::npos)
      << check_of(r, "zero_copy_crossover").summary;
  EXPECT_DOUBLE_EQ(*r.find_metric("way.explicit")->predicted, predict(Params{}, made_up_run()).explicit_ms);
  EXPECT_DOUBLE_EQ(r.find_metric("ratio.prefetched")->samples.at(0), 1.6 / 1.5);
}

TEST(UnifiedMemoryReport, PrefetchedMustTakeAtMostThreeQuartersOfTheOnDemandTime) {
  EXPECT_TRUE(passes(made_up_run(19.5, 26), "prefetch_beats_on_demand"));
  EXPECT_FALSE(passes(made_up_run(19.6, 26), "prefetch_beats_on_demand"));
  EXPECT_TRUE(passes(made_up_run(8.5, 24.2), "prefetch_beats_on_demand")) << "the lab H100's figures";
}

TEST(UnifiedMemoryReport, OnDemandMustBeAtLeastHalfAgainAsSlow) {
  EXPECT_TRUE(passes(made_up_run(1.6, 1.5 * 1.5), "on_demand_is_slower"));
  EXPECT_FALSE(passes(made_up_run(1.6, 1.5 * 1.49), "on_demand_is_slower"));
}

TEST(UnifiedMemoryReport, ZeroCopyMustWinOnceAndLoseForGood) {
  Measurements m = made_up_run();
  m.reuse[0].zero_copy_ms = times(2.7);  // slower than copying first even at reuse 1
  EXPECT_FALSE(passes(m, "zero_copy_crossover"));
  m = made_up_run();
  m.reuse[3].zero_copy_ms = times(2.0);  // never loses
  EXPECT_FALSE(passes(m, "zero_copy_crossover"));
  EXPECT_NE(check_of(report_of(m), "zero_copy_crossover").summary.en().find("never, up to reuse 8"), std::string::npos);
  // With --reuse 1 there is no crossover to find: the check is only that zero-copy wins once.
  Params one;
  one.reuse = 1;
  m = made_up_run();
  m.reuse.resize(1);
  EXPECT_TRUE(passes(m, "zero_copy_wins_once", one));
  m.reuse[0].zero_copy_ms = times(2.7);
  EXPECT_FALSE(passes(m, "zero_copy_wins_once", one));
}

TEST(UnifiedMemoryReport, SparseZeroCopyMustTakeAtMostHalf) {
  Measurements m = made_up_run();
  m.sparse_zero_copy_ms = times(0.625);
  EXPECT_TRUE(passes(m, "sparse_favours_zero_copy"));
  m.sparse_zero_copy_ms = times(0.63);
  EXPECT_FALSE(passes(m, "sparse_favours_zero_copy"));
}

TEST(UnifiedMemoryReport, AWrongWordFailsItsWaysVerify) {
  Measurements m = made_up_run();
  m.on_demand_words.add(99, 100);
  const cudalab::Report r = report_of(m);
  EXPECT_FALSE(check_of(r, "on_demand_results").passed);
  EXPECT_TRUE(check_of(r, "prefetched_results").passed);
  EXPECT_FALSE(r.verify_passed());
  m = made_up_run();
  m.zero_copy_words = cudalab::Tally{};  // nothing checked is not a pass
  EXPECT_FALSE(check_of(report_of(m), "zero_copy_results").passed);
}

TEST(UnifiedMemoryReport, TracedFaultsBecomeFactsOnlyWhenRecorded) {
  Measurements m = made_up_run();
  auto has_fact = [](const cudalab::Report& r, const std::string& key) {
    for (const auto& s : r.sections) {
      for (const auto& f : s.facts) {
        if (f.key == key) return true;
      }
    }
    return false;
  };
  EXPECT_FALSE(has_fact(report_of(m), "traced"));
  m.timelines.resize(2);
  m.on_demand_timeline = 0;
  m.prefetched_timeline = 1;
  EXPECT_TRUE(has_fact(report_of(m), "traced")) << "traced, but CUPTI counted no unified memory";
  m.faults_traced = true;
  const cudalab::Report r = report_of(m);
  EXPECT_FALSE(has_fact(r, "traced"));
  EXPECT_TRUE(has_fact(r, "traced_on_demand"));
  EXPECT_TRUE(has_fact(r, "traced_prefetched"));
}

TEST(UnifiedMemoryReport, TheLectureTableReadsThisRunsFigures) {
  const cudalab::Report r = report_of(made_up_run());
  for (const auto& s : r.sections) {
    if (s.key != "lecture") continue;
    ASSERT_EQ(s.tables.size(), 1u);
    for (const auto& row : s.tables[0].rows) {
      ASSERT_EQ(row.size(), 3u);
      EXPECT_NE(r.find_metric(row[2].metric), nullptr) << row[0].text << " names no metric of the run";
    }
    return;
  }
  ADD_FAILURE() << "no lecture section";
}

// Every template the report shows a student, its arguments' included, has a Chinese entry in the
// lesson's catalogue or the shared one (numbers, keys and units of measure are not templates).
TEST(UnifiedMemoryReport, EveryLabelHasAChineseEntry) {
  Measurements m = made_up_run();
  m.timelines.resize(2);
  m.on_demand_timeline = 0;
  m.prefetched_timeline = 1;
  for (const bool traced : {false, true}) {
    m.faults_traced = traced;
    cudalab::Report r = report_of(m);
    const cudalab::TranslationAudit audit;
    cudalab::for_each_message(r, [](const cudalab::Message& text) {
      (void)cudalab::tr(cudalab::Lang::zh, text, "11-unified-memory");
    });
    EXPECT_GT(audit.looked_up(), 0u);
    EXPECT_EQ(audit.missing(), std::vector<std::string>{}) << (traced ? "traced" : "not traced");
  }
}
