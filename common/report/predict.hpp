// Predict-first mode: before the lesson measures, the student commits to a number for each of
// the lesson's headline metrics; afterwards the answer stands next to the measurement and the
// model. The questions live in the course notes (section `predict`, en and zh), one per line:
//   - speedup.depth_first (×): How much faster will 4 streams be than one? [1, 2, 3, 4]
// metric key, unit, question, and an optional short list of choices.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "common/report/notes.hpp"
#include "common/report/report.hpp"

namespace cudalab {

struct Question {
  std::string metric;
  std::string unit;
  std::string text;
  std::vector<double> choices;  // empty: any number
};

// The lesson's questions in `lang`; empty when its notes have no `predict` section.
std::vector<Question> questions_for(Lang lang, const std::string& notes_file);
// One line of a `predict` section; nullopt when the line is not a question.
std::optional<Question> parse_question(const std::string& line);

// Asks each question on `out` and reads a number (or a choice's number) from `in`, asking again
// after a bad answer; throws UsageError when `in` ends first. The prompts are in `lang`, as the
// questions (questions_for) are.
std::vector<Guess> ask(const std::vector<Question>& questions, std::istream& in, std::ostream& out,
                       Lang lang = Lang::en);

// Answers from a file (homework, tests): `metric.key = 2.5` lines, or bare numbers in question
// order; `#` starts a comment. Throws UsageError naming --answers for anything else, and for a
// question left unanswered.
// The file is untrusted: a regular file of at most kMaxAnswersFileBytes, read without blocking.
inline constexpr std::size_t kMaxAnswersFileBytes = std::size_t(1) << 20;
std::vector<Guess> read_answers(const std::string& path, const std::vector<Question>& questions);

// The band a prediction is scored against (grade): within this fraction of what the run itself
// measured (the metric's median). Each question states it when it is asked.
inline constexpr double kPredictionBand = 0.25;
// Whether `guess` fell in the band of `report`'s own measurement; nullopt when the run did not
// measure that metric (or measured 0, or a non-finite value, as a file may hold).
std::optional<bool> in_band(const Guess& guess, const Report& report);
// A run's predictions as grade counts them: how many fell in the band, of how many were made.
struct PredictionScore {
  std::size_t in_band = 0;
  std::size_t made = 0;
};
PredictionScore score_predictions(const Report& report);

// "you said 4 ×; measured 2.23 × (model 2.26 ×): 79% too high", in `lang`.
std::string feedback(const Guess& guess, const Report& report, Lang lang);

}  // namespace cudalab
