// Figures in the course notes, written as references instead of typed numbers, so that recording
// a reference run again (course-notes/runs/NN-slug.json, built in) updates the prose with it.
//
//   {{lecture.cold}}              the median of metric lecture.cold, with its unit: "23.04 ms"
//   {{lecture.cold@max}}          a statistic: @min @max @predicted @count, @spread (max - min over
//                                 the median, %) or @tolerance (the spread it may have, %)
//   {{fact:kernel_fills}}         a fact's value, as the run printed it
//   {{param:streams}}             a parameter's value
//   {{run:02-pinned-vs-pageable}} which device(s) a run is from and when: "NVIDIA H200, 2026-12-02"
//                                 (another lesson's reference run; run:this is the run shown)
//   {{device:sms}}                the run's first device: name, sms, copy_engines
//   {{const:lecture002.sequential}}  a figure no run of this lab measures (course-notes/figures/
//                                 constants.txt, where each names its source)
//   {{ratio(A, B)}}               A / B, as a factor (×); ratio(64MiB, a bandwidth) is a time
//   {{diff(A, B)}}                A - B, in A's unit (time units convert)
//   {{percent(A, B)}}             100 A / B, as %
//   {{times(A, N)}}               A × N
//   {{logshare(A, B)}}            ln A / ln B, as %: factor A's share of a product B of factors
//   {{07-graph-forkjoin/k1.graph}}  any of the above from another lesson's reference run
// An argument is a metric (with an optional @statistic), a const, a plain number, a size, or one of the
// forms above applied to those: one level of nesting, no more. After "|", comma-separated:
// ".2" for two decimals (".0" for none), "bare" for no unit, "us"/"ms"/"s" for a time unit.
//
// A reference that names nothing in the run, or that does not parse, expands to a visible marker,
// never to a number; expand_figures also returns the reason, so a test fails on it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/lang.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// A figure the notes quote that no run measures, with where it comes from.
struct NamedFigure {
  double low = 0;
  std::optional<double> high;  // a range the source gives as one figure: "5–20×"
  std::string written;         // the number or range as the source writes it: "2.52", "5-20"
  std::string unit;            // as a metric's: "ms", "us", "GB/s", "x", "%"
  std::string source;          // "lecture 002: ...", "CUDA documentation: ...", "lab 2026-11-26: ..."
};

// The named figures of a constants file: lines "name = value unit ; source" ("value" may be a
// range "5-20"), "#" comments. Throws std::invalid_argument naming the line on a malformed one.
std::map<std::string, NamedFigure> parse_named_figures(std::string_view text);

// Where references are looked up: the reference run of the notes' lesson (null when there is
// none), the named figures, another lesson's reference run by its name ("07-graph-forkjoin"), and
// the language of the notes: a fact's or a param's text is printed in it ("4,096 blocks of 256"
// reads "4,096 个线程块，每个 256 个线程" in zh), as the output prints it.
struct FigureSource {
  const Report* run = nullptr;
  const std::map<std::string, NamedFigure>* constants = nullptr;
  const Report* (*other_run)(std::string_view name) = nullptr;
  Lang lang = Lang::en;
};

struct ExpandedText {
  std::string text;
  std::vector<std::string> errors;  // one line per reference that failed: "{{x}}: no metric x"
};

// `text` with every {{...}} replaced by the figure it names.
ExpandedText expand_figures(std::string_view text, const FigureSource& source);

// A figure expression's value as a number in its unit, for a claim's condition (notes_claims.hpp):
// the same forms as inside {{...}}, without "|" options. A fact whose text is a plain number
// ("0", "1,509") counts as that number. nullopt with `why` when the run has no such figure, or
// when it is a text, a range or not a finite number (a run read from a file is untrusted).
struct FigureValue {
  double value = 0;
  std::string unit;
};
std::optional<FigureValue> figure_value(std::string_view expression, const FigureSource& source, std::string& why);
// `value` in `unit` when the units are the same or both times; nullopt for any other pair.
std::optional<double> figure_in_unit(const FigureValue& value, std::string_view unit);

// The figures of the built-in reference run `notes_file` ("03-stream-overlap") and the built-in
// named figures, parsed once per process, for notes in `lang`.
FigureSource builtin_figures(Lang lang, std::string_view notes_file);
// The figures of `run` itself, which must outlive the source, with the same named figures and
// other lessons' reference runs.
FigureSource run_figures(Lang lang, const Report& run);

}  // namespace cudalab
