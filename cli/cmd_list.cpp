// The course itself: `cudalab list` (and no command at all), `help TOPIC` and
// `completion SHELL`. Help and completion print from the CLI11 app (cli/app.cpp runs them).
#include <algorithm>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/help_format.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/core/units.hpp"
#include "common/core/version.hpp"
#include "common/queue/queue_files.hpp"
#include "common/queue/turn_log.hpp"
#include "common/report/reference_runs.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// " (2+ GPUs)" after the summary of a lesson that needs more than one.
std::string gpus_note(const CourseEntry& lesson, Lang lang) {
  if (lesson.gpus_needed <= 1) return {};
  return " " + tr(lang, msg("({count}+ GPUs)", arg("count", lesson.gpus_needed)));
}

void print_course(Lang lang, std::size_t terminal) {
  std::cout << tr(lang, msg("cudalab {version} — GPU concurrency, one experiment per lesson", arg("version", kVersion)))
            << "\n\n";
  const std::size_t indent = 2 + 2 + 2 + 20 + 2;  // "  NN  slug                  "
  const std::size_t width = std::max<std::size_t>(indent + 24, terminal);
  for (const auto& e : course()) {
    const auto lines = wrap_text(e.summary.in(lang) + gpus_note(e, lang), width - indent);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::cout << (i == 0 ? fmt::format("  {:02d}  {}  ", e.number, pad_right(e.slug, 20)) : std::string(indent, ' '))
                << lines[i] << '\n';
    }
  }
  const CourseEntry& example = course().at(std::min<std::size_t>(2, course().size() - 1));
  std::cout << '\n';
  const Message how = msg("run a lesson by name or number: cudalab {slug}, cudalab {number}, cudalab {short_number}",
                          arg("slug", example.slug), arg("number", fmt::format("{:02d}", example.number)),
                          arg("short_number", example.number));
  for (const auto& line : wrap_text(tr(lang, how), terminal)) {
    std::cout << line << '\n';
  }
}

// One cell of `list --times`: a GPU's median of a lesson's learned turns, with how many it
// counted; "too few: 2" while that is less than the queue needs to trust it; "—" when none.
std::string learned_cell(const LearnedTurns& learned, const std::string& lesson, Lang lang) {
  const auto turn = learned.find(lesson);
  if (turn == learned.end()) return "—";
  if (!turn->second.enough()) return tr(lang, msg("too few: {count}", arg("count", turn->second.count)));
  return tr(lang, msg("{seconds} s ({count})", arg("seconds", fmt::format("{:.2f}", turn->second.median_s)),
                      arg("count", turn->second.count)));
}

// `list --times`: what a turn on the GPU costs, lesson by lesson, as the queue estimates it: the
// turns each GPU of this host learned (turn_log.hpp), beside the reference run's turn, which
// stands until a GPU has learned enough. As many GPUs as the terminal's width has room for.
void print_turn_times(Lang lang, std::size_t terminal) {
  const std::string folder = queue_files::queue_root_path();
  const auto by_gpu = learned_turns_by_gpu(folder);
  const TurnTimes stated = course_turn_times();
  constexpr std::size_t kLessonColumns = 2 + 2 + 2 + 20;  // "  NN  slug"
  constexpr std::size_t kCell = 16;                       // "  " and a cell of 14
  const std::size_t room = terminal > kLessonColumns + kCell ? (terminal - kLessonColumns - kCell) / kCell : 0;
  const std::size_t shown = std::min(by_gpu.size(), room);
  const Message intro =
      by_gpu.empty()
          ? msg("GPU time per turn, each lesson with its defaults: no GPU of this host has learned a turn yet "
                "(queue folder {folder}), so the queue estimates from the reference runs' turns:",
                arg("folder", printable_value(folder)))
          : msg("GPU time per turn, each lesson with its defaults: the median of the newest turns each GPU of "
                "this host learned (queue folder {folder}; turns counted in brackets; the queue trusts "
                "{needed} or more), beside the reference run's turn, which stands until then:",
                arg("folder", printable_value(folder)), arg("needed", kTurnsToLearn));
  std::cout << '\n';
  for (const auto& line : wrap_text(tr(lang, intro), terminal)) std::cout << line << '\n';
  std::string head = "  " + pad_right(tr(lang, "lesson"), kLessonColumns - 2);
  auto gpu = by_gpu.begin();
  for (std::size_t i = 0; i < shown; ++i, ++gpu) head += "  " + pad_right(printable_value(gpu->first.substr(0, 12)), kCell - 2);
  std::cout << head << "  " << tr(lang, "reference run") << '\n';
  for (const auto& e : course()) {
    std::string row = fmt::format("  {:02d}  {}", e.number, pad_right(e.slug, 20));
    gpu = by_gpu.begin();
    for (std::size_t i = 0; i < shown; ++i, ++gpu) row += "  " + pad_right(learned_cell(gpu->second, e.id(), lang), kCell - 2);
    const auto reference = stated.by_lesson.find(e.id());
    row += "  " + (reference == stated.by_lesson.end()
                       ? std::string("—")
                       : tr(lang, msg("{seconds} s", arg("seconds", fmt::format("{:.2f}", reference->second)))));
    std::cout << row << '\n';
  }
  if (by_gpu.size() > shown) {
    const Message more = msg("{count} more GPUs have learned turns: a wider terminal shows them",
                             arg("count", by_gpu.size() - shown));
    for (const auto& line : wrap_text(tr(lang, more), terminal)) std::cout << line << '\n';
  }
}

// `list --format json`: the course as data, so that scripts (tools/gpu-batch.sh, gpu-pairs.sh)
// read the lessons this build holds instead of keeping a list of their own.
void print_course_json(Lang lang) {
  nlohmann::json lessons = nlohmann::json::array();
  for (const auto& e : course()) {
    lessons.push_back({{"number", e.number},
                       {"id", e.id()},
                       {"slug", e.slug},
                       {"title", e.title.in(lang)},
                       {"summary", e.summary.in(lang)},
                       {"gpus_needed", e.gpus_needed},
                       {"reference_turn_s", reference_turn_s(e.id()).value_or(0)}});
  }
  const nlohmann::json out = {{"schema", "cudalab-course/1"}, {"version", kToolVersion}, {"lessons", lessons}};
  std::cout << out.dump(2) << '\n';
}

}  // namespace

void setup_list(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("list", "the lessons in course order");
  add_common_options(*sub, setup.inv.flags, {"lang", "format"});
  sub->add_flag("--times", setup.inv.list_times, "also the GPU time a turn of each lesson takes: learned from the turns on this host's GPUs, else the reference run's");
  sub->callback([setup, sub] {
    setup.inv.command = Command::list;
    setup.parsed = sub;
  });
}

void setup_help(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("help", "help for a lesson or command: cudalab help 03");
  sub->add_option("TOPIC", setup.inv.help_topic, "a lesson (number or name) or a command");
  sub->add_flag("--man", setup.inv.manual, "the whole manual as a man page (roff), as installed in man1/cudalab.1");
  add_common_options(*sub, setup.inv.flags, {"lang"});
  sub->callback([setup, sub] {
    setup.inv.command = Command::help;
    setup.parsed = sub;
  });
}

void setup_completion(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("completion", "print a shell completion script: cudalab completion bash");
  sub->add_option_function<std::string>(
         "SHELL",
         [setup](const std::string& text) {
           const Message error = choice_problem(text, {"bash", "zsh", "fish"});
           if (!error.empty()) throw UsageError(msg("SHELL: {problem}", arg("problem", error)));
           setup.inv.shell = text;
         },
         "the shell")
      ->required()
      ->type_name("bash|zsh|fish");
  sub->callback([setup, sub] {
    setup.inv.command = Command::completion;
    setup.parsed = sub;
  });
}

int run_list(const Invocation& inv) {
  if (inv.flags.format == "json") {  // every lesson's turn is in it: --times adds nothing
    print_course_json(inv.output.lang());
    return to_int(ExitCode::success);
  }
  print_course(inv.output.lang(), inv.output.style.width);
  if (inv.list_times) print_turn_times(inv.output.lang(), inv.output.style.width);
  return to_int(ExitCode::success);
}

int run_course(const Invocation& inv) {
  print_course(inv.output.lang(), inv.output.style.width);
  const std::string start = tr(inv.output.lang(), msg("start with  cudalab {number}        # or: cudalab {slug} --help",
                                                      arg("number", fmt::format("{:02d}", course().front().number)),
                                                      arg("slug", course().front().slug)));
  // Too wide for the terminal: the command on its line, the comment beneath it.
  const std::size_t comment = start.find("  #");
  std::cout << '\n';
  if (display_width(start) <= inv.output.style.width || comment == std::string::npos) {
    std::cout << start << '\n';
  } else {
    std::cout << start.substr(0, start.find_last_not_of(' ', comment) + 1) << '\n'
              << "  " << start.substr(start.find('#', comment)) << '\n';
  }
  return to_int(ExitCode::success);
}

}  // namespace cudalab
