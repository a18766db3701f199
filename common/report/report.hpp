// The report model: everything a lesson run found, as data only. A lesson fills a Report; the
// renderers (render.hpp) turn it into text, JSON or the stable grader form. A Report read back
// from its JSON renders exactly like the live one, so a run can be shown without a GPU.
//
// Every word a person reads is a Message (core/message.hpp): a template with named arguments,
// kept as such in the JSON and translated before it is formatted. Keys, units of measure, params
// and numbers are data.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "common/core/device_facts.hpp"
#include "common/core/message.hpp"
#include "common/core/phases.hpp"
#include "common/core/stats.hpp"
#include "common/core/tally.hpp"
#include "common/core/timeline.hpp"

namespace cudalab {

// Bump when a field changes meaning or disappears; adding a field keeps the version.
// Schema 2: every word a template with its arguments. A run of schema 1 is still read; its words
// are the finished English it was recorded in, printed as they are in every language.
inline constexpr const char* kReportSchema = "cudalab-run/2";
inline constexpr const char* kLegacyReportSchema = "cudalab-run/1";

// How far one run's figure may stray from another's (|b/a - 1|) before `cudalab compare` calls
// it out of tolerance, when neither the metric nor its lesson says otherwise. Figures on the
// lab's shared H100 moved up to 12% between runs (DESIGN.md); 15% leaves room above that.
inline constexpr double kDefaultCompareTolerance = 0.15;

struct Param {
  std::string name;    // the flag without dashes: "streams"
  std::string value;   // as the user would type it: "64MiB"
  bool stable = true;  // false when the value depends on the GPU (e.g. an auto-calibrated default)
};

// A measured quantity: every sample, in one unit. The text shows median / min / max.
struct Metric {
  std::string key;    // unique within the report, stable across runs: "overlap.4streams"
  Message label;      // for people: "overlapped (4 streams)"
  std::string unit;   // "ms", "us", "GB/s", "x", "%"; a counted word ("copies") is translated as a word
  std::vector<double> samples;
  std::optional<double> predicted;  // what the model says, same unit
  Message note;                     // short annotation printed to the right
  // How much run-to-run spread (of the non-outlier samples, relative to the median) this figure
  // may have before it is printed as noisy; kDefaultSpreadTolerance when unset.
  std::optional<double> spread_tolerance;
  // How far another correct run's median may differ (|b/a - 1|) before `cudalab compare` calls
  // it out of tolerance; the report's compare_tolerance, else kDefaultCompareTolerance, when unset.
  std::optional<double> compare_tolerance;

  // A figure computed from others (a speed-up from two timings): their keys. It has one sample,
  // so it cannot show its own noise; it is as noisy as the noisiest figure it is computed from.
  std::vector<std::string> inputs;
  // The inputs that were noisy: derived from the samples by Report::resolve_noisy_inputs, when
  // the report is built and again when it is read back (never taken from a file).
  std::vector<std::string> noisy_inputs;

  // summarize(samples), worked out once per set of samples: a run read back may hold millions,
  // and the renderers ask for the summary of each figure several times.
  Summary summary() const;
  double tolerance() const { return spread_tolerance.value_or(kDefaultSpreadTolerance); }
  // Three or more samples whose bulk spreads wider than the tolerance, or more than a fifth of
  // which are outliers outside the tolerance (stats.hpp, too_many_outliers).
  bool noisy_samples() const { return !noise_reason().empty(); }
  // Why its own samples are noisy, for people: "its samples spread 47%, more than the 10% it
  // may" or "6 of its 15 samples are outliers far from the rest, more than one in five"; empty
  // when they are not.
  Message noise_reason() const;
  // Its own samples are noisy, or a figure it is computed from is.
  bool noisy() const { return noisy_samples() || !noisy_inputs.empty(); }

  // Chained after measured() / derived() (report/builder.hpp).
  Metric with_prediction(double value) && {
    predicted = value;
    return std::move(*this);
  }
  Metric with_note(Message text) && {
    note = std::move(text);
    return std::move(*this);
  }
  Metric with_spread_tolerance(double relative) && {
    spread_tolerance = relative;
    return std::move(*this);
  }
  Metric with_compare_tolerance(double relative) && {
    compare_tolerance = relative;
    return std::move(*this);
  }
  Metric from(std::vector<std::string> metric_keys) && {
    inputs = std::move(metric_keys);
    return std::move(*this);
  }

 private:
  // The last summary and the samples it was computed from (where they live, how many, their
  // sum): samples replaced or edited afterwards no longer match, and it is computed again.
  struct SummaryCache {
    const double* data = nullptr;
    std::size_t size = 0;
    double sum = 0;
    Summary summary;
  };
  mutable std::optional<SummaryCache> summary_cache_;
};

// One value that is not a timing: a device property, a count, a derived structural fact.
struct Fact {
  std::string key;
  Message label;
  Message value;       // data (verbatim) or words
  Message note;        // what it means / which lesson it matters for
  bool stable = true;  // printed in --stable output when it cannot change between runs
};

// A table cell is either literal text or the median of a metric (looked up by key), so the
// numbers live once, with all their samples, in Section::metrics.
struct Cell {
  Message text;
  std::string metric;
};

struct Table {
  std::string key;
  std::vector<Message> columns;
  std::vector<std::vector<Cell>> rows;
};

// A picture of some of a section's metrics: each point's y is a metric's median (by key) or, for
// a model curve, a value computed by the lesson. Drawn in the terminal (render_plot) and as SVG.
struct PlotPoint {
  double x = 0;
  std::string metric;  // the metric whose median is y; empty: `y` itself
  double y = 0;
};

struct PlotSeries {
  Message name;
  std::vector<PlotPoint> points;
  bool model = false;  // a line through the points (a fitted or predicted curve), else markers
};

struct Plot {
  std::string key;
  Message title;
  Message x_label;
  std::string x_unit;  // "B" prints ticks as sizes (4KiB, 1MiB, ...)
  Message y_label;
  std::string y_unit;
  bool log_x = false;
  bool log_y = false;
  std::vector<PlotSeries> series;
};

// One piece of a section's drawing: a plain line, or a box whose rows hold cells. The renderer
// draws the box for the widths of the words in the reader's language.
struct ArtPiece {
  bool boxed = false;
  Message line;                            // a plain line (boxed false)
  std::vector<std::vector<Message>> rows;  // a box: the cells of each row (boxed true)
};

struct Section {
  std::string key;
  Message title;
  std::string notes_key;        // course-notes section printed under the title ("" = none)
  std::vector<ArtPiece> art;    // a drawing, e.g. of the engines
  std::vector<Fact> facts;
  std::vector<Metric> metrics;
  std::vector<Table> tables;
  std::vector<Plot> plots;  // pictures of metrics above; the text then lists those only with --table
};

enum class CheckKind {
  verify,  // correctness of results: failure is an error exit
  expect,  // the behaviour the lesson teaches: printed, fails the exit code only with --strict
};

struct Check {
  CheckKind kind = CheckKind::verify;
  std::string key;
  bool passed = false;
  Message summary;  // "results match the CPU reference (16,777,216 of 16,777,216)"
  Message detail;   // why it failed, or why it can fail on other hardware
  std::vector<std::string> depends_on;  // metric keys the verdict is computed from
  // A verify check over elements (or bytes): how many matched the CPU reference of how many were
  // checked. Its verdict is recomputed from these alone (report/integrity.hpp); empty for a check
  // that counts nothing (a graph's shape) and in runs recorded before checks carried counts.
  std::optional<Tally> count;
};

// A student's answer in predict-first mode (--predict): what they expected a metric's median to
// be before it was measured. The text form sets it against the measurement and the model.
struct Guess {
  std::string metric;    // the metric's key
  std::string question;  // as it was asked, in the run's language
  double answer = 0;     // in the metric's unit
};

// What the run's turn on the GPU cost (common/queue/gpu_queue.hpp): for the class simulator, the
// waiting-time estimate (lessons' usual seconds, from their reference runs) and `list --times`.
struct TurnSummary {
  bool queued = true;   // false with --no-queue: held_s is then the time it measured
  double wait_s = 0;    // from asking for the turn to getting it
  double held_s = 0;    // from getting it to giving it back
  int position = 0;     // runs ahead on arrival, the holder included: 0 = the GPU was free
  std::vector<PhaseTime> phases;  // the lesson's top-level steps while it held the turn, in order
  double taken_at = 0;  // when the turn was taken, seconds since the epoch (0 in older runs)  // the lesson's top-level steps while it held the turn, in order
};

// The batch scheduler or launcher a run was started under, as it set its environment (Slurm's
// SLURM_*, torchrun's RANK/WORLD_SIZE/LOCAL_RANK): which job, array task, node and GPUs. Each
// field as the variable held it; empty when not set. None of it is needed to run cudalab.
struct SchedulerContext {
  std::string job_id;         // SLURM_JOB_ID
  std::string array_job_id;   // SLURM_ARRAY_JOB_ID
  std::string array_task_id;  // SLURM_ARRAY_TASK_ID
  std::string node;           // SLURMD_NODENAME
  std::string node_id;        // SLURM_NODEID: the node's index among the job's nodes
  std::string gpus;           // SLURM_STEP_GPUS, else SLURM_JOB_GPUS, else CUDA_VISIBLE_DEVICES: the GPUs allocated
  std::string rank;           // RANK, else SLURM_PROCID
  std::string world_size;     // WORLD_SIZE, else SLURM_NTASKS
  std::string local_rank;     // LOCAL_RANK, else SLURM_LOCALID
  bool empty() const {
    return job_id.empty() && array_job_id.empty() && array_task_id.empty() && node.empty() && node_id.empty() &&
           gpus.empty() && rank.empty() && world_size.empty() && local_rank.empty();
  }
};

// Who made a run and where (report/provenance.hpp stamps it; the digest covers it). The user and
// uid come from the kernel (the process's effective uid), not from the environment; the run id
// is 128 random bits, so two runs never share one unless one is a copy of the other.
struct Provenance {
  std::string user;  // login name of `uid`, or "uid N" when the password database has none
  long long uid = -1;
  std::string host;
  std::string run_id;                  // 32 hex digits
  std::vector<std::string> gpu_uuids;  // the GPUs whose turns it held: those it measured on ("GPU-8f0e...")
  SchedulerContext scheduler;
  // The node a run was made on: the scheduler's node name, else the host.
  const std::string& node() const { return scheduler.node.empty() ? host : scheduler.node; }
};

// The student's code an exercise run measured (common/exercise/): which exercise, the interface it
// spoke, the file as it was compiled and its digest. Inside the run's digest like every field, so
// a run's source cannot be swapped without breaking its seal.
struct ExerciseRecord {
  std::string id;               // "03-stream-overlap"
  std::string interface_name;   // "stream_overlap_pipeline"
  int interface_version = 0;
  std::string file;             // the file's name as the student has it: "03-stream-overlap.cu"
  std::string source;           // its text
  std::string source_digest;    // "sha256:<hex>" of source, recomputed when a run is read back
};

struct TryNext {
  std::string command;  // "cudalab NN --flag value"
  Message why;          // "where did the overlap go?"
};

struct Report {
  std::string schema = kReportSchema;
  std::string tool_version;
  std::string recorded_at;  // ISO-8601 UTC of the run
  int lesson_number = 0;
  std::string lesson_slug;
  Message lesson_title;

  std::vector<Param> params;
  std::vector<DeviceSummary> devices;  // the device(s) the run used
  std::vector<Message> warnings;       // environment problems that distort the lesson
  std::vector<EnvironmentItem> environment;  // the classroom preflight, one line per item
  std::optional<TurnSummary> turn;           // the GPU turn it measured in; none in older runs
  std::vector<Section> sections;
  std::vector<Check> checks;
  std::vector<TryNext> try_next;
  std::vector<Guess> guesses;  // --predict: the student's answers, asked before the run
  std::optional<ExerciseRecord> exercise;  // an exercise run: the student's code it measured
  Message headline;  // one short figure for the `cudalab all` summary table
  // What the GPU did in the traced run(s), when the lesson was asked to trace (--timeline,
  // --trace). Drawn by the text form with --timeline and by `cudalab show`; never in --stable.
  std::vector<Timeline> timelines;
  // The metric keys behind the headline: `cudalab compare` fails a run when one of them is out
  // of tolerance. Empty: the metrics the expect checks depend on.
  std::vector<std::string> headline_metrics;
  // The expect checks that are the lesson's point (lesson 03's overlap_beats_sequential): one
  // that passed in a baseline and fails in a run fails `cudalab compare`, as a headline metric
  // out of tolerance does. Other expect checks that differ are listed, and fail nothing.
  std::vector<std::string> headline_checks;
  // The lesson's default for Metric::compare_tolerance.
  std::optional<double> compare_tolerance;
  // Who made the run, where, under which job; none in runs recorded before runs carried it.
  std::optional<Provenance> provenance;
  // "sha256:<hex>" over the run's JSON form without this field (report/integrity.hpp); set when
  // the CLI finishes a run, empty in runs recorded before runs were sealed.
  std::string digest;
  // "hmac-sha256:<key id>:<hex>", the class seal (report/class_seal.hpp): set with the digest when
  // the process holds the class key, inside the digest; empty otherwise.
  std::string class_seal;

  // "NN-lesson-name": the name of the course-notes file this report prints from.
  std::string notes_file() const;
  const Metric* find_metric(const std::string& key) const;
  bool verify_passed() const;
  bool expect_passed() const;
  // headline_metrics, or else the metrics the expect checks depend on, each once, in order.
  std::vector<std::string> headline_metric_keys() const;
  // The tolerance `cudalab compare` applies to `metric`.
  double compare_tolerance_of(const Metric& metric) const;
  // The metric whose own samples make `metric` noisy: itself, or the first noisy figure down its
  // chain of noisy inputs. Null when `metric` is not noisy.
  const Metric* noise_source(const Metric& metric) const;
  // Why this run's figures cannot be trusted to judge it, one phrase each; empty: it is clean.
  // A run is disturbed when another process used the GPU while it measured (the classroom
  // preflight's "other_processes" item), or when a headline metric is noisy. Derived from the
  // run itself every time it is asked, so a file cannot claim to be clean.
  std::vector<Message> disturbance() const;
  bool disturbed() const { return !disturbance().empty(); }
  // Fills every metric's noisy_inputs from its inputs' noise, in reading order (a derived input
  // passes on its own inputs' noise). An input that names no metric counts as steady.
  void resolve_noisy_inputs();
};

// "2026-11-21T19:04:00Z"
std::string utc_timestamp_now();

// Calls f(Message&) on every word of the report, in reading order: translating a run, reading a
// run of schema 1 as the English it holds, making a file's words printable.
template <class F>
void for_each_message(Report& r, F&& f) {
  f(r.lesson_title);
  f(r.headline);
  for (auto& w : r.warnings) f(w);
  for (auto& e : r.environment) f(e.summary);
  for (auto& s : r.sections) {
    f(s.title);
    for (auto& piece : s.art) {
      f(piece.line);
      for (auto& row : piece.rows) {
        for (auto& cell : row) f(cell);
      }
    }
    for (auto& fact : s.facts) f(fact.label), f(fact.value), f(fact.note);
    for (auto& m : s.metrics) f(m.label), f(m.note);
    for (auto& table : s.tables) {
      for (auto& column : table.columns) f(column);
      for (auto& row : table.rows) {
        for (auto& cell : row) f(cell.text);
      }
    }
    for (auto& plot : s.plots) {
      f(plot.title), f(plot.x_label), f(plot.y_label);
      for (auto& series : plot.series) f(series.name);
    }
  }
  for (auto& c : r.checks) f(c.summary), f(c.detail);
  for (auto& t : r.try_next) f(t.why);
  for (auto& t : r.timelines) {
    f(t.title);
    for (auto& lane : t.lanes) f(lane.name);
  }
}

}  // namespace cudalab
