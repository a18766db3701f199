#include "common/exercise/source_check.hpp"

#include "common/exercise/exercise.hpp"

namespace cudalab {

namespace {

// `line` without leading spaces and tabs.
std::string trimmed_front(const std::string& line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return line.substr(i);
}

// "NAME_vN.h" -> {NAME, N}; nullopt for anything else.
std::optional<InterfaceLine> parse_header_name(const std::string& file) {
  constexpr std::size_t kMaxDigits = 6;
  if (file.size() < 5 || file.compare(file.size() - 2, 2, ".h") != 0) return std::nullopt;
  const std::string stem = file.substr(0, file.size() - 2);
  const std::size_t v = stem.rfind("_v");
  if (v == std::string::npos || v == 0 || v + 2 >= stem.size() || stem.size() - v - 2 > kMaxDigits) return std::nullopt;
  int version = 0;
  for (std::size_t i = v + 2; i < stem.size(); ++i) {
    if (stem[i] < '0' || stem[i] > '9') return std::nullopt;
    version = version * 10 + (stem[i] - '0');
  }
  return InterfaceLine{stem.substr(0, v), version};
}

}  // namespace

std::optional<InterfaceLine> interface_of(const std::string& source) {
  constexpr std::string_view kPrefix = "#include";
  constexpr std::string_view kFolder = "cudalab/";
  std::size_t start = 0;
  while (start < source.size()) {
    std::size_t end = source.find('\n', start);
    if (end == std::string::npos) end = source.size();
    const std::string line = trimmed_front(source.substr(start, std::min<std::size_t>(end - start, 1024)));
    start = end + 1;
    if (line.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    const std::string rest = trimmed_front(line.substr(kPrefix.size()));
    if (rest.size() < 2 || (rest[0] != '<' && rest[0] != '"')) continue;
    const char close = rest[0] == '<' ? '>' : '"';
    const std::size_t stop = rest.find(close, 1);
    if (stop == std::string::npos) continue;
    const std::string path = rest.substr(1, stop - 1);
    if (path.compare(0, kFolder.size(), kFolder) != 0) continue;
    if (auto parsed = parse_header_name(path.substr(kFolder.size()))) return parsed;
  }
  return std::nullopt;
}

Message interface_problem(const std::string& source, const ExerciseDescription& exercise,
                          const std::string& file_name) {
  const auto found = interface_of(source);
  if (!found) {
    return msg("{file} does not include <{header}>: every exercise file starts from its starter (move the file aside "
               "and run `cudalab exercise {number}` for a fresh one)",
               arg("file", file_name), arg("header", exercise.header_path()), arg("number", exercise.lesson_number));
  }
  if (found->name != exercise.interface_name) {
    return msg("{file} is written for the exercise interface {found}, not {expected}: is it another lesson's file?",
               arg("file", file_name), arg("found", found->name), arg("expected", exercise.interface_name));
  }
  if (found->version != exercise.interface_version) {
    return msg("{file} is written for {interface} version {found}; this cudalab speaks version {expected}: move the "
               "file aside, run `cudalab exercise {number}` for the new starter, and carry your code over",
               arg("file", file_name), arg("interface", exercise.interface_name), arg("found", found->version),
               arg("expected", exercise.interface_version), arg("number", exercise.lesson_number));
  }
  return {};
}

}  // namespace cudalab
