// What every lesson is to the command line, and the one shape every lesson has.
//
// A lesson folder holds four parts, in files named after them:
//   params   one FlagTable of its flags (lesson/flag_table.hpp): set from typed text, printed as
//            the report's params
//   measure  the only CUDA: kernels and the experiment, returning plain Measurements
//   model    pure predictions from the Measurements (primitives measured in the same run)
//   report   a pure function (Params, Measurements, Prediction) -> Report, thresholds included,
//            unit-tested with made-up measurements
// and a lesson.cpp that describes the lesson (number, name, titles, summary, GPUs, usual turn) and
// registers it with its factory, make_lesson<>() of the four parts (common/lesson/registry.hpp).
// Nothing here knows CUDA or CLI11: a Lesson is a value the CLI configures.
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/core/run_context.hpp"
#include "common/lesson/flag_table.hpp"
#include "common/report/report.hpp"

namespace cudalab {

class Lesson {
 public:
  virtual ~Lesson() = default;
  // The lesson's own flags, in the order --help lists them.
  virtual std::vector<FlagSpec> flags() const = 0;
  // Sets one of them from typed text: "" when accepted, else why not (one printable line that
  // names what is allowed). An unknown name is a programming error and throws.
  virtual Message set_flag(const std::string& name, const std::string& text) = 0;
  // A flag's current value, as it would be typed.
  virtual std::string flag_value(const std::string& name) const = 0;
  // The params as the report prints them.
  virtual std::vector<Param> params() const = 0;
  virtual Repetitions default_repetitions() const { return {}; }
  // A copy with the same settings (live mode keeps the last good settings while it tries new ones).
  virtual std::unique_ptr<Lesson> clone() const = 0;
  // Runs the experiment on ctx.device. Throws WaivedError / RuntimeError / UsageError.
  virtual Report run(const RunContext& ctx) = 0;
  // How many GPUs the run measures on, for the queue: 1 (ctx.device), N (the first N), or
  // nullopt (every visible GPU).
  virtual std::optional<int> gpus_measured() const { return 1; }
  // True when a run on another GPU that shares this GPU's PCIe path moves the lesson's headline:
  // the run then takes the turns of those GPUs too (README, "Several GPUs").
  virtual bool shares_host_path() const { return false; }
  // One process per GPU, as training runs (lesson 10): whether a launcher's RANK/WORLD_SIZE (or
  // srun's SLURM_PROCID/SLURM_NTASKS) make this process one rank of a run, measuring only its
  // own GPU (RunContext::rank); how many such processes `--ranks N` asks the CLI to start on
  // this host (0: none); and what their environment holds beyond this process's.
  virtual bool runs_as_ranks() const { return false; }
  virtual int ranks_to_start() const { return 0; }
  virtual std::vector<std::pair<std::string, std::string>> environment_of_ranks() const { return {}; }
};

// A lesson's GPU count, from its params: one unless its params say otherwise with an overload
// of gpus_of in the lesson's namespace (found by argument-dependent lookup).
template <class P>
std::optional<int> gpus_of(const P&) {
  return 1;
}

// Whether the lesson's headline moves when another GPU on its PCIe path measures at the same
// time: no, unless the lesson's namespace says otherwise with an overload of shares_host_path_of.
template <class P>
bool shares_host_path_of(const P&) {
  return false;
}

// A lesson's multi-process hooks, from its params, found by argument-dependent lookup like
// gpus_of: a lesson that runs as ranks overloads them in its namespace.
template <class P>
bool accepts_ranks(const P&) {
  return false;
}
template <class P>
int ranks_of(const P&) {
  return 0;
}
template <class P>
std::vector<std::pair<std::string, std::string>> rank_environment_of(const P&) {
  return {};
}

// What every lesson made of a flag table shares: its flags and params are the table's over one
// P, and the queue's and the ranks' questions are answered from those params. `Base` is the
// interface it implements (Lesson, or an exercise's, which is one: common/exercise/).
template <class P, class Base = Lesson>
class TableLesson : public Base {
 public:
  using Flags = const FlagTable<P>& (*)();

  TableLesson(Flags table, Repetitions reps) : flags_(table), reps_(reps) {}

  std::vector<FlagSpec> flags() const override { return flags_().specs(); }
  Message set_flag(const std::string& name, const std::string& text) override {
    return row(name).set(params_, text);
  }
  std::string flag_value(const std::string& name) const override { return row(name).value(params_); }
  std::vector<Param> params() const override { return flags_().params(params_); }
  Repetitions default_repetitions() const override { return reps_; }
  std::optional<int> gpus_measured() const override { return gpus_of(params_); }
  bool shares_host_path() const override { return shares_host_path_of(params_); }
  bool runs_as_ranks() const override { return accepts_ranks(params_); }
  int ranks_to_start() const override { return ranks_of(params_); }
  std::vector<std::pair<std::string, std::string>> environment_of_ranks() const override {
    return rank_environment_of(params_);
  }

 protected:
  const P& params_of() const { return params_; }

 private:
  const typename FlagTable<P>::Row& row(const std::string& name) const {
    const auto* found = flags_().find(name);
    if (found == nullptr) throw std::logic_error("no flag --" + name);
    return *found;
  }

  Flags flags_;
  Repetitions reps_;
  P params_;
};

// The thin adapter that runs a lesson's four parts in order: measure on the GPU, predict from
// what was measured, build the report. A lesson's factory is one line that names its parts:
//   return make_lesson(priority::flags, Repetitions{2, 15}, priority::measure, priority::predict,
//                      priority::build_report);
template <class P, class M, class Pr>
class FourPartLesson final : public TableLesson<P> {
 public:
  using Measure = M (*)(const P&, const RunContext&);
  using Predict = Pr (*)(const P&, const M&);
  using Build = Report (*)(const P&, const M&, const Pr&);

  FourPartLesson(typename TableLesson<P>::Flags table, Repetitions reps, Measure measure, Predict predict, Build build)
      : TableLesson<P>(table, reps), measure_(measure), predict_(predict), build_(build) {}

  std::unique_ptr<Lesson> clone() const override { return std::make_unique<FourPartLesson>(*this); }
  Report run(const RunContext& ctx) override {
    const P& p = this->params_of();
    const M measurements = measure_(p, ctx);
    const Pr prediction = predict_(p, measurements);
    return build_(p, measurements, prediction);
  }

 private:
  Measure measure_;
  Predict predict_;
  Build build_;
};

template <class P, class M, class Pr>
std::unique_ptr<Lesson> make_lesson(const FlagTable<P>& (*flags)(), Repetitions reps,
                                    M (*measure)(const P&, const RunContext&), Pr (*predict)(const P&, const M&),
                                    Report (*build)(const P&, const M&, const Pr&)) {
  return std::make_unique<FourPartLesson<P, M, Pr>>(flags, reps, measure, predict, build);
}

}  // namespace cudalab
