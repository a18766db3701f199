#include "cli/live.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/failure.hpp"
#include "cli/flag_lookup.hpp"
#include "cli/help_format.hpp"
#include "cli/suggest.hpp"
#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "common/gpu/device.hpp"
#include "common/report/render.hpp"
#include "common/report/report_json.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// What a change at the prompt edits: a copy of the lesson and of the common flags and plan.
struct Settings {
  std::unique_ptr<Lesson> lesson;
  CommonFlags flags;
  OutputPlan output;

  Settings copy() const { return {lesson->clone(), flags, output}; }
};

struct Run {
  Report report;
  std::string text;  // the full lesson output, one keystroke away
};

std::string value_text(const Metric* m) {
  return m == nullptr || m->samples.empty() ? "—" : format_number(m->summary().median) + " " + m->unit;
}

std::string ratio_text(const Metric* now, const Metric* then) {
  if (now == nullptr || then == nullptr || now->samples.empty() || then->samples.empty()) return "";
  const double base = then->summary().median;
  return base == 0 ? "" : fmt::format("×{:.2f}", now->summary().median / base);
}

// The output follows a change of the flags that shape it (the plan was decided once, at start).
void follow(OutputPlan& plan, const CommonFlags& flags, const std::string& name) {
  if (name == "lang") plan.style.lang = flags.lang.empty() ? lang_from_environment() : parse_lang(flags.lang);
  if (name == "color") plan.style.color = color_wanted(flags.color);
  if (name == "table") plan.style.tables = flags.tables;
  if (name == "timeline") plan.style.timelines = flags.timeline;
}

// `text` indented by two, folded to the terminal; its later lines hang four in.
void add_wrapped(std::vector<std::string>& lines, const std::string& text, std::size_t width) {
  const auto folded = wrap_text(text, width > 24 ? width - 4 : 20);
  for (std::size_t i = 0; i < folded.size(); ++i) lines.push_back((i == 0 ? "  " : "    ") + folded[i]);
}

// What may be typed at the prompt: its commands, then the parameters a change may name.
std::vector<std::string> prompt_words(const Lesson& lesson) {
  std::vector<std::string> names{"quit", "help", "full", "reset", "save"};
  for (const auto& s : lesson.flags()) names.push_back(s.name);
  for (const auto& n : live_flag_names()) names.push_back(n);
  return names;
}

class Sitting {
 public:
  Sitting(Invocation& inv, const LiveRunner& runner, std::ostream& out)
      : inv_(inv), runner_(runner), out_(out),
        start_{inv.lesson().lesson->clone(), inv.flags, inv.output} {}

  int run(LineReader& reader) {
    attempt(start_.copy());
    for (;;) {
      print_params();
      exit_on_interrupt(true);  // at the prompt, Ctrl-C leaves
      const auto line = reader.read(fmt::format("live {:02d}> ", inv_.lesson().entry->number));
      exit_on_interrupt(false);
      if (!line || !command(*line)) break;
    }
    out_ << '\n';
    return to_int(ExitCode::success);
  }

  std::vector<std::string> words() const { return prompt_words(*inv_.lesson().lesson); }

 private:
  Lang lang() const { return inv_.output.lang(); }
  void error(Message words) {
    out_ << failure_line(usage_failure(std::move(words)), lang()) << '\n';
  }

  // One command line; false to end the sitting.
  bool command(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string word; in >> word;) w.push_back(word);
    if (w.empty()) return attempt(current()), true;
    const bool dashed = w[0].rfind("--", 0) == 0;
    const std::string cmd = dashed ? w[0].substr(2) : w[0];
    if (cmd == "quit" || cmd == "exit" || cmd == "q") return false;
    if (cmd == "help" || cmd == "?") return help(), true;
    // "full" alone shows the last run in full; "full on|off" or "--full" sets the lesson's own
    // --full switch, where it has one.
    const bool full_switch = cmd == "full" && (dashed || w.size() > 1) && declares(cmd);
    if ((cmd == "full" || cmd == "f") && !full_switch) {
      return (runs_.empty() ? void() : void(out_ << runs_.back().text)), true;
    }
    if (cmd == "reset") return attempt(start_.copy()), true;
    if (cmd == "save") return save(w.size() > 1 ? w[1] : ""), true;
    change(cmd, w.size() > 1 ? std::optional<std::string>(w[1]) : std::nullopt);
    return true;
  }

  Settings current() const { return {inv_.lesson().lesson->clone(), inv_.flags, inv_.output}; }

  bool declares(const std::string& name) const {
    const auto specs = inv_.lesson().lesson->flags();
    return std::any_of(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.name == name; });
  }

  // `name value`: set through the flag's own row on a copy, then run the copy.
  void change(const std::string& name, const std::optional<std::string>& value) {
    Settings next = current();
    FlagLookup lookup(next.lesson.get(), next.flags, live_flag_names());
    const FlagSpec* spec = lookup.find(name);
    if (spec == nullptr) return unknown(name);
    if (!value && spec->kind != FlagKind::on_off) {
      // As the command line says it (command_line.cpp), with the value --help names: "streams N".
      return error(msg("{name} needs a value: {name} {value}", arg("name", name),
                       arg("value", spec->value_name.empty() ? std::string("VALUE") : spec->value_name)));
    }
    Message problem = lookup.try_set(name, value.value_or("on"));
    if (!problem.empty()) return error(std::move(problem));
    follow(next.output, next.flags, name);
    attempt(std::move(next));
  }

  void unknown(const std::string& name) {
    const std::string guess = closest_word(name, words());
    const bool on_command_line = common_flags().find(name) != nullptr;
    const Message hint = on_command_line ? msg("; --{name} is given on the command line", arg("name", name)) : Message();
    if (guess.empty()) {
      error(msg("no parameter or command '{name}'{hint}; type help", arg("name", printable_value(name)), arg("hint", hint)));
    } else {
      error(msg("no parameter or command '{name}' (did you mean '{guess}'?){hint}; type help",
                arg("name", printable_value(name)), arg("guess", guess), arg("hint", hint)));
    }
  }

  // Runs with `next` in place; keeps it only when the run finished.
  void attempt(Settings next) {
    Settings before = current();
    install(std::move(next));
    try {
      Report report = runner_(inv_.lesson(), inv_);
      runs_.push_back({report, render_text(report, inv_.output.style)});
      print_latest();
      return;
    } catch (...) {
      const Failure failure = failure_of(std::current_exception());
      if (failure.internal) throw;  // a bug ends the sitting, as it ends any command
      if (failure.interrupted) {
        clear_interrupted();
        out_ << '\n' << tr(lang(), "stopped; back at the prompt (the settings of the last finished run are kept)") << '\n';
      } else {
        out_ << failure_line(failure, lang()) << '\n';
      }
    }
    install(std::move(before));
  }

  void install(Settings s) {
    inv_.lesson().lesson = std::move(s.lesson);
    inv_.flags = s.flags;
    inv_.output = s.output;
  }

  void print_latest() {
    if (runs_.size() == 1) {
      out_ << runs_.back().text;
      return;
    }
    out_ << '\n';
    for (const auto& l : compare_live_runs(runs_.back().report, runs_[runs_.size() - 2].report, runs_.front().report,
                                           inv_.output.style.width, lang())) {
      out_ << l << '\n';
    }
    out_ << "  " << tr(lang(), "(f: the full output · help · quit)") << '\n';
  }

  // The settings in force now (not the last run's: a change that could not run is not kept, so
  // these are the last run's, or the start's when nothing ran yet).
  void print_params() {
    std::string line;
    for (const auto& p : inv_.lesson().lesson->params()) line += fmt::format("{}{}={}", line.empty() ? "" : " ", p.name, p.value);
    const CommonFlags defaults;
    for (const auto& name : live_flag_names()) {
      const auto* row = common_flags().find(name);
      const std::string now = row->value(inv_.flags);
      if (now != row->value(defaults)) line += fmt::format("{}{}={}", line.empty() ? "" : " ", name, now);
    }
    const std::size_t width = inv_.output.style.width > 20 ? inv_.output.style.width - 10 : 40;
    const auto wrapped = wrap_text(line.empty() ? tr(lang(), "(defaults)") : line, width);
    const std::string label = pad_right(tr(lang(), "params"), 10);
    for (std::size_t i = 0; i < wrapped.size(); ++i) {
      out_ << (i == 0 ? "\n" + label : std::string(10, ' ')) << wrapped[i] << '\n';
    }
    out_ << std::flush;
  }

  void help() {
    static const char* kLines[] = {
        "NAME VALUE   change a parameter and run again, e.g. streams 8, size 16MiB",
        "NAME on|off  a switch, e.g. timeline on",
        "(Enter)      run again with the same parameters",
        "reset        back to the parameters the sitting started with",
        "full         the full output of the last run",
        "save FILE    every run of this sitting as a JSON array",
        "quit         leave (Ctrl-D too; Ctrl-C at the prompt)"};
    for (const char* l : kLines) out_ << "  " << tr(lang(), l) << '\n';
    std::string names;
    for (const auto& s : inv_.lesson().lesson->flags()) names += (names.empty() ? "" : " ") + s.name;
    for (const auto& n : live_flag_names()) names += (names.empty() ? "" : " ") + n;
    const auto lines = wrap_text(names, inv_.output.style.width > 30 ? inv_.output.style.width - 15 : 40);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out_ << (i == 0 ? "  " + pad_right(tr(lang(), "parameters:"), 13) : std::string(15, ' ')) << lines[i] << '\n';
    }
  }

  void save(const std::string& path) {
    if (path.empty()) return error("save needs a file name: save FILE");
    const Message problem = output_path_problem(path, /*allow_stdout=*/false);
    if (!problem.empty()) return error(msg("save: {problem}", arg("problem", problem)));
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : runs_) all.push_back(report_to_json(r.report));
    std::ofstream file(path, std::ios::trunc);
    file << all.dump(2) << '\n';
    if (!file) return error(msg("save: cannot write '{path}'", arg("path", printable_value(path))));
    const char* saved = runs_.size() == 1 ? "saved {count} run to {path}" : "saved {count} runs to {path}";
    out_ << tr(lang(), msg(saved, arg("count", runs_.size()), arg("path", printable_value(path)))) << '\n';
  }

  Invocation& inv_;
  const LiveRunner& runner_;
  std::ostream& out_;
  Settings start_;
  std::vector<Run> runs_;
};

}  // namespace

std::vector<std::string> live_flag_names() {
  return {"repeat", "warmup", "timeline", "strict", "device", "lang", "color", "table", "wait-idle", "no-queue",
          "queue-timeout"};
}

std::vector<std::string> compare_live_runs(const Report& now, const Report& previous, const Report& first,
                                           std::size_t width, Lang lang) {
  const auto said = [&](const Message& words) { return tr(lang, words, now.notes_file()); };
  std::vector<std::string> lines;
  // "  label  this run  previous ×r  first ×r": 58 columns besides the label; a terminal too narrow
  // for the first run's column leaves it out (37 besides the label).
  const bool with_first = width >= 58 + 12;
  const std::size_t label_w = std::clamp<std::size_t>(width - std::min(width, std::size_t(with_first ? 58 : 37)), 12, 26);
  lines.push_back("  " + pad_right("", label_w) + "  " + pad_left(said("this run"), 12) + "  " +
                  pad_left(said("previous"), 19) + (with_first ? "  " + pad_left(said("first"), 19) : ""));
  for (const auto& key : now.headline_metric_keys()) {
    const Metric* m = now.find_metric(key);
    if (m == nullptr) continue;
    const Metric* p = previous.find_metric(key);
    const Metric* f = first.find_metric(key);
    std::string label = said(m->label);
    if (display_width(label) > label_w) label = wrap_text(label, label_w - 1).front() + "…";
    lines.push_back(fmt::format("  {}  {:>12}  {:>12} {:>6}", pad_right(label, label_w), value_text(m), value_text(p),
                                ratio_text(m, p)) +
                    (with_first ? fmt::format("  {:>12} {:>6}", value_text(f), ratio_text(m, f)) : ""));
  }
  for (const auto& c : now.checks) {
    for (const auto& old : previous.checks) {
      if (old.key == c.key && old.passed != c.passed) {
        add_wrapped(lines,
                    fmt::format("{} {} {}: {}", old.passed ? "✓→✗" : "✗→✓",
                                said(c.kind == CheckKind::verify ? "verify" : "expect"), c.key, said(c.summary)),
                    width);
      }
    }
  }
  if (!now.headline.empty()) add_wrapped(lines, said(now.headline), width);
  return lines;
}

int run_sitting(Invocation& inv, const LiveRunner& runner, LineReader& reader, std::ostream& out) {
  return Sitting(inv, runner, out).run(reader);
}

void setup_live(CLI::App& app, CommandSetup& setup) {
  CLI::App* live = app.add_subcommand("live", "run a lesson, then change its flags at a prompt and re-run in place");
  live->footer(help_footer());
  for (const auto& entry : course()) add_lesson_subcommand(*live, entry, setup, Command::live);
  live->callback([setup] {
    if (setup.inv.command != Command::live) throw UsageError("live needs a lesson: cudalab live 03");
  });
}

int run_live(Invocation& inv) {
  if (inv.flags.print_config) return run_lesson_command(inv);  // prints the configuration, runs nothing
  const CourseEntry* entry = inv.lesson().entry;
  try {
    (void)device_count();
  } catch (const NoGpuError& e) {
    // Every change at a prompt would be waived: say so once, and where the lesson can be seen.
    const std::string number = fmt::format("{:02d}", entry->number);
    throw NoGpuError(msg("{problem}; live mode measures on a GPU: `cudalab show {number}` shows this lesson's recorded "
                         "run, and `cudalab live {number}` runs on a machine with a GPU",
                         arg("problem", words_of(e)), arg("number", number)));
  }
  const auto reader = make_line_reader(prompt_words(*inv.lesson().lesson));
  return run_sitting(inv, run_stamped_lesson, *reader, std::cout);
}

}  // namespace cudalab
