// Runs of two GPUs compared as such (common/grading/compare.hpp): with the runs the repo ships,
// the lab H200's built-in references against the H100's in course-notes/runs/other-machines/.
// B is held to the figures that do not depend on the GPU; times, bandwidths and sizes are shown
// beside each other, marked "by GPU", and never fail the comparison.
#include <gtest/gtest.h>

#include "test_source_dir.hpp"
#include <filesystem>
#include <string>

#include "common/grading/compare.hpp"
#include "common/report/saved_run.hpp"
#include "test_support.hpp"

namespace cudalab {
namespace {

namespace fs = std::filesystem;

const fs::path kRuns = fs::path(CUDALAB_SOURCE_DIR) / "course-notes" / "runs";

SavedRun only_run(const fs::path& path) {
  auto runs = read_saved_runs(path.string());
  if (runs.size() != 1) throw std::runtime_error("expected one run in " + path.string());
  return std::move(runs.front());
}

// Every lesson with a run on the lab H200 (built in) and one on an H100 (other-machines/).
std::vector<std::pair<SavedRun, SavedRun>> h100_and_h200_pairs() {
  std::vector<std::pair<SavedRun, SavedRun>> pairs;
  for (const auto& entry : fs::directory_iterator(kRuns / "other-machines")) {
    const std::string name = entry.path().stem().string();
    const std::string suffix = "-h100";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) continue;
    const fs::path h200 = kRuns / (name.substr(0, name.size() - suffix.size()) + ".json");
    if (fs::exists(h200)) pairs.emplace_back(only_run(entry.path()), only_run(h200));
  }
  return pairs;
}

const MetricComparison& row(const Comparison& c, const std::string& key) {
  for (const auto& m : c.metrics) {
    if (m.key == key) return m;
  }
  throw std::runtime_error("no metric " + key);
}

// Text as one line: a sentence found whatever the width wrapped it at.
std::string flat(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    out += ' ';
  }
  return out;
}

// The line of the text table that holds a metric's numbers: its name's own line, or the one after
// it when the name was too wide and took a line of its own.
std::string numbers_line(const std::string& text, const std::string& name) {
  const std::size_t at = text.find(name);
  if (at == std::string::npos) return "no row " + name;
  const std::size_t end = text.find('\n', at);
  const std::string first = text.substr(at, end - at);
  if (first.size() > name.size() + 4) return first;
  return text.substr(end + 1, text.find('\n', end + 1) - end - 1);
}

TEST(CompareGpus, TheUnitSaysWhetherAFigureIsTheGpusOwn) {
  for (const char* unit : {"ms", "us", "µs", "ns", "s", "GB/s", "TB/s", "KiB", "MiB"}) EXPECT_TRUE(depends_on_gpu(unit)) << unit;
  for (const char* unit : {"x", "%", "copies", "runs", ""}) EXPECT_FALSE(depends_on_gpu(unit)) << unit;
}

TEST(CompareGpus, AnH200RunIsHeldToTheH100sRatiosOnly) {
  const auto pairs = h100_and_h200_pairs();
  ASSERT_GE(pairs.size(), 9u) << "01-09 and 11 ship an H100 run beside the H200 reference";
  for (const auto& [h100, h200] : pairs) {
    SCOPED_TRACE(h200.source);
    const Comparison c = compare_runs(h100, h200, std::nullopt);
    ASSERT_TRUE(c.other_gpus()) << c.gpus_a << " / " << c.gpus_b;
    EXPECT_NE(c.gpus_a.find("H100"), std::string::npos);
    EXPECT_NE(c.gpus_b.find("H200"), std::string::npos);
    for (const auto& m : c.metrics) EXPECT_EQ(m.other_gpu, depends_on_gpu(m.unit)) << m.key;
    for (const auto& failure : c.failures()) {
      for (const auto& m : c.metrics) {
        if (m.other_gpu) {
          EXPECT_EQ(failure.en().find("metric " + m.key + " is"), std::string::npos) << failure;
        }
      }
    }
    const std::string text = render_comparisons({c}, TableFormat::text, 100);
    EXPECT_NE(flat(text).find("A ran on " + c.gpus_a + " and B on " + c.gpus_b), std::string::npos) << text;
    for (const auto& m : c.metrics) {
      if (!m.other_gpu || !m.a || !m.b) continue;
      const std::string line = numbers_line(text, m.key + " (" + m.unit + ")");
      EXPECT_NE(line.find("by GPU"), std::string::npos) << line;
      EXPECT_EQ(line.find("OUT"), std::string::npos) << line;
    }
    const std::string md = render_comparisons({c}, TableFormat::md, 100);
    EXPECT_NE(flat(md).find("B is held only to the figures that do not depend on the GPU"), std::string::npos);
  }
}

// Lesson 03's point is a ratio: the depth-first speed-up is held across the two GPUs, and it holds.
TEST(CompareGpus, Lesson03HoldsItsSpeedupAcrossGpus) {
  const SavedRun h100 = only_run(kRuns / "other-machines" / "03-stream-overlap-h100.json");
  const SavedRun h200 = only_run(kRuns / "03-stream-overlap.json");
  const Comparison across = compare_runs(h100, h200, std::nullopt);
  const MetricComparison& speedup = row(across, "speedup.depth_first");
  EXPECT_TRUE(speedup.headline);
  EXPECT_FALSE(speedup.other_gpu);
  EXPECT_TRUE(speedup.within()) << speedup.b.value_or(0) << " against " << speedup.a.value_or(0);
  EXPECT_EQ(across.verdict(), CompareVerdict::holds) << render_comparisons({across}, TableFormat::text, 100);
}

// Lesson 07's graph launches take other times on the two GPUs: across GPUs they are "by GPU";
// told the two runs came from one GPU, the same figures are OUT.
TEST(CompareGpus, TimesHeldAsIfOfOneGpuAreOut) {
  const SavedRun h100 = only_run(kRuns / "other-machines" / "07-graph-forkjoin-h100.json");
  const SavedRun h200 = only_run(kRuns / "07-graph-forkjoin.json");
  const Comparison across = compare_runs(h100, h200, std::nullopt);
  std::size_t differ_by_gpu = 0;
  for (const auto& m : across.metrics) differ_by_gpu += m.other_gpu && m.a && m.b && !m.within() ? 1 : 0;
  EXPECT_GT(differ_by_gpu, 0u) << "the two GPUs' graph launches differ beyond the tolerance";
  for (const auto& failure : across.failures()) EXPECT_EQ(failure.en().find("launch."), std::string::npos) << failure;
  SavedRun renamed = h200;
  for (auto& d : renamed.report.devices) d.name = h100.report.devices.front().name;
  const Comparison same_gpu = compare_runs(h100, renamed, std::nullopt);
  EXPECT_FALSE(same_gpu.other_gpus());
  std::size_t times_out = 0;
  for (const auto& m : same_gpu.metrics) times_out += depends_on_gpu(m.unit) && m.a && m.b && !m.within() ? 1 : 0;
  EXPECT_GT(times_out, 0u) << "an H200 and an H100 measure different times; held to one GPU, they are OUT";
  EXPECT_NE(render_comparisons({same_gpu}, TableFormat::text, 100).find("OUT"), std::string::npos);
}

// Lesson 02's headline is a bandwidth: across GPUs it is shown, not held, and the verdict says so.
TEST(CompareGpus, ABandwidthHeadlineIsShownNotHeldAcrossGpus) {
  const SavedRun h100 = only_run(kRuns / "other-machines" / "02-pinned-vs-pageable-h100.json");
  const SavedRun h200 = only_run(kRuns / "02-pinned-vs-pageable.json");
  const Comparison c = compare_runs(h100, h200, std::nullopt);
  for (const auto& m : c.metrics) {
    if (m.headline) {
      EXPECT_TRUE(m.other_gpu) << m.key;
    }
  }
  const std::string text = render_comparisons({c}, TableFormat::text, 100);
  if (c.verdict() == CompareVerdict::holds) {
    EXPECT_NE(flat(text).find("its headline figures depend on the GPU and are shown, not held"), std::string::npos)
        << text;
  }
  EXPECT_EQ(text.find("headline metric bw."), std::string::npos) << "a bandwidth never fails across GPUs: " << text;
}

}  // namespace
}  // namespace cudalab
