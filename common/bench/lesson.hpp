// What every lesson is to the command line, and the one shape every lesson has.
//
// A lesson folder holds four parts, in files named after them:
//   params   one FlagTable of its flags (bench/params.hpp): CLI11 options and report params
//   measure  the only CUDA: kernels and the experiment, returning plain Measurements
//   model    pure predictions from the Measurements (primitives measured in the same run)
//   report   a pure function (Params, Measurements, Prediction) -> Report, thresholds included,
//            unit-tested with made-up measurements
// and a lesson.cpp that hands them to make_lesson<>(). The course order, numbers and titles live
// in cli/course.cpp.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <CLI/CLI.hpp>

#include "common/bench/params.hpp"
#include "common/bench/timing.hpp"
#include "common/report/notes.hpp"
#include "common/report/report.hpp"

namespace cudalab {

struct RunContext {
  int device = 0;
  bool device_given = false;  // --device was passed (a lesson over all devices then shows only that one)
  Repetitions reps;
  Lang lang = Lang::en;
  bool timeline = false;   // --timeline
  std::string trace_path;  // --trace FILE (written by the CLI from Report::timelines)

  // True when the lesson should make one extra, untimed traced run (TraceSession) and put its
  // Timeline in the report. Timed runs never happen inside a TraceSession.
  bool tracing() const { return timeline || !trace_path.empty(); }
};

class Lesson {
 public:
  virtual ~Lesson() = default;
  // Lesson-specific flags, bound to the lesson's Params.
  virtual void add_options(CLI::App& app) = 0;
  virtual Repetitions default_repetitions() const { return {}; }
  // Runs the experiment on ctx.device. Throws WaivedError / RuntimeError / UsageError.
  virtual Report run(const RunContext& ctx) = 0;
};

// The thin adapter that runs a lesson's four parts in order: measure on the GPU, predict from
// what was measured, build the report. A lesson's factory is one line that names its parts:
//   return make_lesson(priority::flags, Repetitions{2, 15}, priority::measure, priority::predict,
//                      priority::build_report);
template <class P, class M, class Pr>
class FourPartLesson final : public Lesson {
 public:
  using Flags = const FlagTable<P>& (*)();
  using Measure = M (*)(const P&, const RunContext&);
  using Predict = Pr (*)(const P&, const M&);
  using Build = Report (*)(const P&, const M&, const Pr&);

  FourPartLesson(Flags flags, Repetitions reps, Measure measure, Predict predict, Build build)
      : flags_(flags), reps_(reps), measure_(measure), predict_(predict), build_(build) {}

  void add_options(CLI::App& app) override { flags_().add_to(app, params_); }
  Repetitions default_repetitions() const override { return reps_; }
  Report run(const RunContext& ctx) override {
    const M measurements = measure_(params_, ctx);
    const Pr prediction = predict_(params_, measurements);
    return build_(params_, measurements, prediction);
  }

 private:
  Flags flags_;
  Repetitions reps_;
  Measure measure_;
  Predict predict_;
  Build build_;
  P params_;
};

template <class P, class M, class Pr>
std::unique_ptr<Lesson> make_lesson(const FlagTable<P>& (*flags)(), Repetitions reps,
                                    M (*measure)(const P&, const RunContext&), Pr (*predict)(const P&, const M&),
                                    Report (*build)(const P&, const M&, const Pr&)) {
  return std::make_unique<FourPartLesson<P, M, Pr>>(flags, reps, measure, predict, build);
}

}  // namespace cudalab
