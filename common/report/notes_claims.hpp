// Claims in the course notes: a sentence whose truth depends on the run is written with its
// condition, and the renderer prints the form that is true for the run the notes are shown with.
//
//   The download call returned after {{async_call.pageable.d2h}},
//   {{if async_call.pageable.d2h >= ratio(16MiB, bw.pageable.d2h.16MiB)}}as long as the copy itself:
//   there the claim holds.{{elif async_call.pageable.d2h > 0.5 * ratio(16MiB, bw.pageable.d2h.16MiB)}}
//   most of the copy.{{else}}well before the copy ended.{{unknown}}(no pageable download here).{{end}}
//
// A condition is comparisons joined by "and" / "or" ("and" binds tighter; no parentheses around
// comparisons), each side a figure as the {{...}} references write it (notes_figures.hpp, without
// "|" options), optionally times a plain number in front ("0.5 * copy"): `a < b`, `<=`, `>`, `>=`,
// `==`, `!=`. `check:KEY` is true when the run's check KEY passed, `not check:KEY` when it failed.
// A figure the run lacks makes its comparison unknown, and "and"/"or" follow three-valued logic
// (false and unknown is false). When the form to print cannot be decided, the {{unknown}} form is
// printed, or, without one, "(this run cannot tell)" in the notes' language.
//
// Blocks nest at most kMaxClaimDepth deep and are read in one pass with a fixed stack, so no text
// can make the parser recurse; the values compared come from a run that may have been read from a
// file: NaN, infinities and missing figures are unknown, never a verdict.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/report/notes_figures.hpp"

namespace cudalab {

inline constexpr int kMaxClaimDepth = 4;
inline constexpr std::size_t kMaxCondition = 400;

enum class Truth { no, yes, unknown };

// One condition as it was evaluated against a run.
struct ConditionOutcome {
  std::string condition;
  Truth truth = Truth::unknown;
  std::string why;  // for unknown: which figure the run lacks
};

// One {{if}} block whose conditions were evaluated (blocks inside a form not printed are not).
struct ClaimOutcome {
  std::vector<ConditionOutcome> conditions;  // in order, up to the one that decided
  bool cannot_tell = false;                  // the unknown form (or the default) was printed
  int branch = -1;                           // 0 the if, 1.. the elifs, -2 the else, -1 none
};

struct ClaimedText {
  std::string text;                 // the forms chosen, their {{figures}} not yet expanded
  std::vector<std::string> errors;  // malformed blocks and conditions, one line each
  std::vector<ClaimOutcome> claims;
};

// The truth of one condition over `source.run`. A malformed condition is unknown with `error` set.
Truth evaluate_condition(std::string_view condition, const FigureSource& source, std::string& why,
                         std::string& error);

// `text` with each {{if}} block replaced by its form that is true for `source.run`.
ClaimedText choose_claims(std::string_view text, const FigureSource& source);

// The notes as printed: the claims chosen, then the figures expanded.
struct NotesText {
  std::string text;
  std::vector<std::string> errors;  // the claims' errors, then the figures'
  std::vector<ClaimOutcome> claims;
};
NotesText render_notes_text(std::string_view text, const FigureSource& source);

}  // namespace cudalab
