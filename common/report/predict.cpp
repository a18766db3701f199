#include "common/report/predict.hpp"

#include <cmath>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/files.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

std::optional<double> parse_number(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.erase(text.begin());
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used != text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string choices_text(const Question& q) {
  std::string out;
  for (std::size_t i = 0; i < q.choices.size(); ++i) {
    out += fmt::format("{}{}) {} {}", i == 0 ? "" : "   ", static_cast<char>('a' + i), format_number(q.choices[i]), q.unit);
  }
  return out;
}

// A typed answer: a number, or a choice's letter when the question has choices.
std::optional<double> answer_of(const Question& q, const std::string& text) {
  if (text.size() == 1 && !q.choices.empty()) {
    const auto index = static_cast<std::size_t>(std::tolower(static_cast<unsigned char>(text[0])) - 'a');
    if (index < q.choices.size()) return q.choices[index];
  }
  return parse_number(text);
}

// The metric a guess is about, when the run measured it (the median is what an answer meets).
const Metric* measured_metric(const Guess& guess, const Report& report) {
  const Metric* m = report.find_metric(guess.metric);
  return m != nullptr && !m->samples.empty() ? m : nullptr;
}

}  // namespace

// "- key (unit): question text [choice, choice, ...]", read left to right by hand: a line of a
// notes file is matched in one pass, with no regex to recurse on a long line.
std::optional<Question> parse_question(const std::string& line) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  const auto key_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
  };
  std::size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  if (i >= line.size() || line[i] != '-') return std::nullopt;
  const std::size_t after_dash = ++i;
  while (i < line.size() && is_space(line[i])) ++i;
  if (i == after_dash) return std::nullopt;  // "- " needs its space
  const std::size_t key_start = i;
  while (i < line.size() && key_char(line[i])) ++i;
  if (i == key_start) return std::nullopt;
  Question q;
  q.metric = line.substr(key_start, i - key_start);
  const std::size_t after_key = i;
  while (i < line.size() && is_space(line[i])) ++i;
  if (i == after_key || i >= line.size() || line[i] != '(') return std::nullopt;
  const std::size_t unit_end = line.find(')', i + 1);
  if (unit_end == std::string::npos) return std::nullopt;
  q.unit = line.substr(i + 1, unit_end - i - 1);
  i = unit_end + 1;
  if (i >= line.size() || line[i] != ':') return std::nullopt;
  const std::size_t after_colon = ++i;
  while (i < line.size() && is_space(line[i])) ++i;
  if (i == after_colon) return std::nullopt;
  std::size_t end = line.size();
  while (end > i && is_space(line[end - 1])) --end;
  // An optional "[choices]" at the end, after a space, with no ']' inside.
  if (end > i && line[end - 1] == ']') {
    const std::size_t open = line.rfind('[', end - 1);
    if (open != std::string::npos && open > i && is_space(line[open - 1]) &&
        line.find(']', open) == end - 1) {
      std::istringstream list(line.substr(open + 1, end - open - 2));
      std::string item;
      while (std::getline(list, item, ',')) {
        if (const auto v = parse_number(item)) q.choices.push_back(*v);
      }
      end = open;
      while (end > i && is_space(line[end - 1])) --end;
    }
  }
  q.text = line.substr(i, end - i);
  return q;
}

std::vector<Question> questions_for(Lang lang, const std::string& notes_file) {
  std::vector<Question> out;
  const auto section = notes_section(lang, notes_file, "predict");
  if (!section) return out;
  std::istringstream lines(*section);
  std::string line;
  while (std::getline(lines, line)) {
    if (auto q = parse_question(line)) out.push_back(std::move(*q));
  }
  return out;
}

std::vector<Guess> ask(const std::vector<Question>& questions, std::istream& in, std::ostream& out, Lang lang) {
  std::vector<Guess> guesses;
  for (const auto& q : questions) {
    for (;;) {
      out << "\n? " << q.text << '\n';
      if (!q.choices.empty()) out << "  " << choices_text(q) << '\n';
      out << "  " << tr(lang, msg("(an answer within {band}% of what this run measures counts in grade)",
                                  arg("band", std::lround(100 * kPredictionBand))))
          << '\n';
      out << "  " << tr(lang, msg("your answer ({unit}):", arg("unit", q.unit))) << ' ' << std::flush;
      std::string line;
      if (!std::getline(in, line)) {
        throw_if_interrupted();  // a signal ends the read too (EINTR): that is not "input ended"
        throw UsageError("--predict: no answer was given (input ended)");
      }
      if (const auto v = answer_of(q, line)) {
        guesses.push_back({q.metric, q.text, *v});
        break;
      }
      out << "  " << tr(lang, q.choices.empty() ? "a number, please" : "a number, please, or a letter") << '\n';
    }
  }
  return guesses;
}

std::vector<Guess> read_answers(const std::string& path_as_typed, const std::vector<Question>& questions) {
  std::string text;
  try {
    // A FIFO or /dev/zero would block or never end: regular files only, at most 1 MiB.
    text = read_regular_file(path_as_typed, kMaxAnswersFileBytes, "an answers file");
  } catch (const UsageError& e) {
    throw UsageError(msg("--answers: {problem}", arg("problem", words_of(e))));
  }
  const std::string path = printable_value(path_as_typed);
  std::istringstream file(text);
  std::vector<std::optional<double>> answers(questions.size());
  std::size_t next = 0, line_no = 0;
  std::string line;
  while (std::getline(file, line)) {
    ++line_no;
    line = line.substr(0, line.find('#'));
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const auto eq = line.find('=');
    std::size_t index = next;
    std::string value = line;
    if (eq != std::string::npos) {
      std::string key = line.substr(0, eq);
      key.erase(0, key.find_first_not_of(" \t"));
      key.erase(key.find_last_not_of(" \t") + 1);
      index = questions.size();
      for (std::size_t i = 0; i < questions.size(); ++i) index = questions[i].metric == key ? i : index;
      if (index == questions.size()) {
        std::string keys;
        for (const auto& q : questions) keys += (keys.empty() ? "" : ", ") + q.metric;
        throw UsageError(msg("--answers: {file} line {line}: this lesson asks nothing about '{key}'; it asks about {keys}",
                             arg("file", path), arg("line", line_no), arg("key", printable_value(key)), arg("keys", keys)));
      }
      value = line.substr(eq + 1);
    }
    if (index >= questions.size()) {
      throw UsageError(msg("--answers: {file} line {line}: more answers than questions", arg("file", path), arg("line", line_no)));
    }
    const auto v = answer_of(questions[index], value.erase(0, value.find_first_not_of(" \t")).substr(0, value.find_last_not_of(" \t\r") + 1));
    if (!v) {
      throw UsageError(msg("--answers: {file} line {line}: '{value}' is not a number", arg("file", path), arg("line", line_no),
                           arg("value", printable_value(value))));
    }
    answers[index] = v;
    next = index + 1;
  }
  std::vector<Guess> guesses;
  for (std::size_t i = 0; i < questions.size(); ++i) {
    if (!answers[i]) {
      throw UsageError(msg("--answers: {file} has no answer for {key}", arg("file", path), arg("key", questions[i].metric)));
    }
    guesses.push_back({questions[i].metric, questions[i].text, *answers[i]});
  }
  return guesses;
}

std::optional<bool> in_band(const Guess& guess, const Report& report) {
  const Metric* m = measured_metric(guess, report);
  if (m == nullptr) return std::nullopt;
  const double measured = m->summary().median;
  if (!std::isfinite(measured) || measured == 0 || !std::isfinite(guess.answer)) return std::nullopt;
  return std::fabs(guess.answer - measured) <= kPredictionBand * std::fabs(measured);
}

PredictionScore score_predictions(const Report& report) {
  PredictionScore score;
  for (const auto& g : report.guesses) {
    ++score.made;
    score.in_band += in_band(g, report).value_or(false) ? 1 : 0;  // not measured: not in the band
  }
  return score;
}

std::string feedback(const Guess& guess, const Report& report, Lang lang) {
  const Metric* m = measured_metric(guess, report);
  const std::string answer = fmt::format("{:g}", guess.answer);
  if (m == nullptr) {
    return tr(lang, msg("you said {answer}; this run did not measure it", arg("answer", answer)));
  }
  const double measured = m->summary().median;
  const Message said = msg("you said {answer} {unit}; measured {measured} {unit}", arg("answer", answer),
                           arg("unit", m->unit), arg("measured", format_number(measured)));
  const Message with_model =
      m->predicted ? msg("{said} (model {model} {unit})", arg("said", said), arg("model", format_number(*m->predicted)),
                         arg("unit", m->unit))
                   : said;
  if (measured == 0) return tr(lang, with_model, report.notes_file());
  const double off = (guess.answer - measured) / std::fabs(measured);
  // The band grade counts (kPredictionBand), so that what the student is told is what is scored.
  const MessageArg band = arg("band", std::lround(100 * kPredictionBand));
  if (in_band(guess, report).value_or(false)) {
    return tr(lang, msg("{said}: within the {band}% band, so it counts", arg("said", with_model), band));
  }
  const auto percent = std::lround(100 * std::fabs(off));
  return tr(lang, msg(off > 0 ? "{said}: {percent}% too high, outside the {band}% band"
                              : "{said}: {percent}% too low, outside the {band}% band",
                      arg("said", with_model), arg("percent", percent), band));
}

}  // namespace cudalab
