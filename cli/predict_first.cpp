#include "cli/predict_first.hpp"

#include <iostream>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/predict.hpp"

namespace cudalab {

std::vector<Guess> ask_predictions(const CourseEntry& lesson, const CommonFlags& flags, Lang lang) {
  if (!flags.predict) return {};
  const auto questions = questions_for(lang, lesson.id());
  if (questions.empty()) {
    std::string asking;
    for (const auto& other : course()) {
      if (asks_predictions(other)) asking += fmt::format("{}{:02d}", asking.empty() ? "" : ", ", other.number);
    }
    throw UsageError(msg("--predict: lesson {number} asks no questions; these do: {lessons}",
                         arg("number", fmt::format("{:02d}", lesson.number)),
                         arg("lessons", asking.empty() ? Message("none yet") : Message::verbatim(asking))));
  }
  if (!flags.answers_path.empty()) return read_answers(flags.answers_path, questions);
  if (!stdin_is_terminal()) throw UsageError("--predict: needs a terminal to ask on, or --answers FILE");
  return ask(questions, std::cin, std::cerr, lang);
}

}  // namespace cudalab
