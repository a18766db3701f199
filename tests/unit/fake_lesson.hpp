// A lesson that needs no GPU, compiled only into the tests: its "measurement" is computed from
// its flags, so live mode, the renderers and the CLI plumbing can be driven end to end here.
#pragma once

#include <memory>
#include <stdexcept>

#include "cli/course.hpp"
#include "cli/live.hpp"
#include "common/lesson/lesson.hpp"
#include "common/report/builder.hpp"

namespace cudalab::testing_support {

struct FakeParams {
  int streams = 4;
  bool slow = false;
};

inline const FlagTable<FakeParams>& fake_flags() {
  static const FlagTable<FakeParams> table = FlagTable<FakeParams>()
                                                 .integer("streams", &FakeParams::streams, 1, 64, "streams")
                                                 .flag("slow", &FakeParams::slow, "pretend to be slow");
  return table;
}

struct FakeMeasurements {
  double speedup = 0;
};
inline FakeMeasurements fake_measure(const FakeParams& p, const RunContext&) {
  // A pipeline of 3 stages over N streams: speed-up 3N / (N + 2).
  return {3.0 * p.streams / (p.streams + 2.0)};
}
inline double fake_predict(const FakeParams& p, const FakeMeasurements&) { return 3.0 * p.streams / (p.streams + 2.0); }
inline Report fake_report(const FakeParams& p, const FakeMeasurements& m, const double& predicted) {
  ReportBuilder b(fake_flags().params(p));
  b.section("speedup", "speed-up", "").metric(derived("speedup", "speed-up vs one stream", "x", m.speedup).with_prediction(predicted));
  // The "GPU" result held to the CPU's: the pipeline formula computed here again.
  b.verify("speedup_formula", m.speedup == 3.0 * p.streams / (p.streams + 2.0), "speed-up as the pipeline formula gives");
  b.expect("above_two", m.speedup > 2.0, "more than 2x");
  b.headline("fake headline", {"speedup"});
  return std::move(b).build();
}

inline std::unique_ptr<Lesson> make_fake_lesson() {
  return make_lesson(fake_flags, Repetitions{0, 1}, fake_measure, fake_predict, fake_report);
}

// The fake stands in for lesson 03 (a streams flag and a speed-up): its number and name come from
// the course (each lesson's own description), so the tests name no lesson.
inline const CourseEntry& fake_entry() {
  static const CourseEntry entry = [] {
    for (const auto& e : course()) {
      if (e.number == 3) {
        return LessonDescription(e.number, e.slug)
            .titled("a fake lesson", "假的一课")
            .summarized("no GPU needed", "不需要 GPU")
            .made_by(&make_fake_lesson);
      }
    }
    throw std::logic_error("the course has no lesson 03 for the fake lesson to stand in for");
  }();
  return entry;
}

// Runs the lesson itself: no device, no preflight.
inline LiveRunner fake_runner() {
  return [](const LessonSetup& setup, const Invocation&) {
    Report report = setup.lesson->run(RunContext{});
    report.lesson_number = setup.entry->number;
    report.lesson_slug = setup.entry->slug;
    report.lesson_title = Message(setup.entry->title.en);
    return report;
  };
}

// A live sitting's Invocation for the fake lesson, flags as typed after `cudalab live 03`.
inline Invocation fake_live_invocation(const std::vector<std::string>& args) {
  Invocation inv;
  inv.command = Command::live;
  inv.lessons.push_back(LessonSetup{&fake_entry(), fake_entry().make(), {}, {}, {}});
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string name = args[i].substr(2);
    const bool is_switch = name == "slow";
    const Message error = inv.lesson().lesson->set_flag(name, is_switch ? "on" : args.at(++i));
    if (!error.empty()) throw std::invalid_argument(error.en());
  }
  inv.output = plan_output(inv.flags);
  inv.output.style.width = 80;
  inv.output.style.color = false;
  return inv;
}

}  // namespace cudalab::testing_support
