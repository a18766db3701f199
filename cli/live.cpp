#include "live.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "cli/output.hpp"
#include "cli/suggest.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/report/render.hpp"
#include "common/report/report_json.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

struct OptionInfo {
  std::string name;  // without dashes
  bool is_switch;    // takes no value
};

// Every flag the lesson accepts (its own and the common ones), probed from a throwaway app.
std::vector<OptionInfo> option_infos(const CourseEntry& entry) {
  auto lesson = entry.make();
  CLI::App app("probe");
  CommonOptions o;
  add_common_options(app, o);
  add_lesson_options(app, *lesson);
  std::vector<OptionInfo> out;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty() || opt->get_lnames().front() == "help") continue;
    out.push_back({opt->get_lnames().front(), opt->get_expected_min() == 0});
  }
  return out;
}

// The sitting's flags in order: name -> value ("" for a switch that is on).
using Settings = std::vector<std::pair<std::string, std::string>>;

Settings settings_from_args(const std::vector<std::string>& args, const std::vector<OptionInfo>& options) {
  Settings s;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string name = args[i].rfind("--", 0) == 0 ? args[i].substr(2) : args[i];
    std::string value;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      const auto it = std::find_if(options.begin(), options.end(), [&](const OptionInfo& o) { return o.name == name; });
      if ((it == options.end() || !it->is_switch) && i + 1 < args.size()) value = args[++i];
    }
    s.emplace_back(name, value);
  }
  return s;
}

std::vector<std::string> args_from_settings(const Settings& s) {
  std::vector<std::string> args;
  for (const auto& [name, value] : s) {
    args.push_back("--" + name);
    if (!value.empty()) args.push_back(value);
  }
  return args;
}

// `name value` replaces or adds a setting; a switch set to off is removed.
Settings with_setting(Settings s, const std::string& name, const std::string& value, bool is_switch) {
  s.erase(std::remove_if(s.begin(), s.end(), [&](const auto& kv) { return kv.first == name; }), s.end());
  if (!is_switch) {
    s.emplace_back(name, value);
  } else if (value != "off" && value != "false" && value != "0") {
    s.emplace_back(name, "");
  }
  return s;
}

struct Run {
  Report report;
  std::string text;  // the full lesson output, one keystroke away
};

class Sitting {
 public:
  Sitting(const LiveSession& session, std::ostream& out)
      : session_(session), out_(out), options_(option_infos(*session.entry)),
        initial_(settings_from_args(session.args, options_)), settings_(initial_) {}

  int run(LineReader& reader) {
    if (auto first = attempt(settings_)) {
      out_ << first->text;
      runs_.push_back(std::move(*first));
    }
    for (;;) {
      print_params();
      exit_on_interrupt(true);  // at the prompt, Ctrl-C leaves
      const auto line = reader.read(fmt::format("live {:02d}> ", session_.entry->number));
      exit_on_interrupt(false);
      if (!line) break;
      if (!command(*line)) break;
    }
    out_ << '\n';
    return to_int(ExitCode::success);
  }

 private:
  // One command line; false to end the sitting.
  bool command(const std::string& line) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty()) return rerun(settings_), true;
    const std::string cmd = w[0].rfind("--", 0) == 0 ? w[0].substr(2) : w[0];
    if (cmd == "quit" || cmd == "exit" || cmd == "q") return false;
    if (cmd == "help" || cmd == "?") return help(), true;
    if (cmd == "full" || cmd == "f") {
      if (!runs_.empty()) out_ << runs_.back().text;
      return true;
    }
    if (cmd == "reset") return rerun(initial_), true;
    if (cmd == "save") return save(w.size() > 1 ? w[1] : ""), true;
    const auto it = std::find_if(options_.begin(), options_.end(), [&](const OptionInfo& o) { return o.name == cmd; });
    if (it == options_.end()) {
      std::vector<std::string> names{"quit", "help", "full", "reset", "save"};
      for (const auto& o : options_) names.push_back(o.name);
      const std::string guess = closest_word(cmd, names);
      out_ << fmt::format("cudalab: error: no parameter or command '{}'{}; type help\n", cmd,
                          guess.empty() ? "" : fmt::format(" (did you mean '{}'?)", guess));
      return true;
    }
    if (!it->is_switch && w.size() < 2) {
      out_ << fmt::format("cudalab: error: {} needs a value: {} VALUE\n", cmd, cmd);
      return true;
    }
    rerun(with_setting(settings_, cmd, w.size() > 1 ? w[1] : "on", it->is_switch));
    return true;
  }

  void rerun(const Settings& candidate) {
    auto run = attempt(candidate);
    if (!run) return;  // the old settings stay
    settings_ = candidate;
    runs_.push_back(std::move(*run));
    if (runs_.size() == 1) {
      out_ << runs_.back().text;
      return;
    }
    out_ << '\n';
    for (const auto& l : compare_runs(runs_.back().report, runs_[runs_.size() - 2].report, runs_.front().report,
                                      terminal_width())) {
      out_ << l << '\n';
    }
    out_ << "  (f: the full output · help · quit)\n";
  }

  std::optional<Run> attempt(const Settings& settings) {
    try {
      auto lesson = session_.entry->make();
      CLI::App app("live");
      CommonOptions o;
      add_common_options(app, o);
      add_lesson_options(app, *lesson);
      auto args = args_from_settings(settings);
      std::reverse(args.begin(), args.end());  // CLI11 parses a vector from the back
      app.parse(args);
      const RunContext ctx = make_context(o, *lesson);
      Report report = session_.runner(LessonRun{session_.entry, lesson.get(), {}}, ctx, o);
      report.lesson_number = session_.entry->number;
      report.lesson_slug = session_.entry->slug;
      report.lesson_title = session_.entry->title;
      TextStyle style = text_style(o);
      style.width = terminal_width();
      return Run{report, render_text(report, style)};
    } catch (const CLI::ParseError& e) {
      out_ << "cudalab: error: " << e.what() << '\n';
    } catch (const InterruptedError&) {
      clear_interrupted();
      out_ << "\nstopped; back at the prompt (the settings of the last finished run are kept)\n";
    } catch (const UsageError& e) {
      out_ << "cudalab: error: " << e.what() << '\n';
    } catch (const WaivedError& e) {
      out_ << "cudalab: waived: " << e.what() << '\n';
    } catch (const RuntimeError& e) {
      out_ << "cudalab: CUDA error: " << e.what() << '\n';
    }
    return std::nullopt;
  }

  void print_params() {
    std::string line;
    const auto& params = runs_.empty() ? std::vector<Param>{} : runs_.back().report.params;
    for (const auto& p : params) line += fmt::format("{}{}={}", line.empty() ? "" : " ", p.name, p.value);
    for (const auto& [name, value] : settings_) {
      const bool lesson_param = std::any_of(params.begin(), params.end(), [&](const Param& p) { return p.name == name; });
      if (!lesson_param) line += fmt::format(" {}{}{}", name, value.empty() ? "" : "=", value);
    }
    const auto wrapped = wrap_text(line.empty() ? "(defaults)" : line, terminal_width() > 12 ? terminal_width() - 10 : 40);
    for (std::size_t i = 0; i < wrapped.size(); ++i) out_ << (i == 0 ? "\nparams    " : "          ") << wrapped[i] << '\n';
    out_ << std::flush;
  }

  void help() {
    out_ << "  NAME VALUE   change a parameter and run again, e.g. streams 8, size 16MiB\n"
            "  NAME on|off  a switch, e.g. timeline on\n"
            "  (Enter)      run again with the same parameters\n"
            "  reset        back to the parameters the sitting started with\n"
            "  full         the full output of the last run\n"
            "  save FILE    every run of this sitting as a JSON array\n"
            "  quit         leave (Ctrl-D too; Ctrl-C at the prompt)\n"
            "  parameters:";
    std::size_t col = 13;
    for (const auto& o : options_) {
      if (col + o.name.size() + 1 > 78) {
        out_ << "\n             ";
        col = 13;
      }
      out_ << ' ' << o.name;
      col += o.name.size() + 1;
    }
    out_ << '\n';
  }

  void save(const std::string& path) {
    if (path.empty()) {
      out_ << "cudalab: error: save needs a file name: save FILE\n";
      return;
    }
    nlohmann::json all = nlohmann::json::array();
    for (const auto& r : runs_) all.push_back(report_to_json(r.report));
    std::ofstream file(path, std::ios::trunc);
    file << all.dump(2) << '\n';
    out_ << (file ? fmt::format("saved {} run{} to {}\n", runs_.size(), runs_.size() == 1 ? "" : "s", path)
                  : fmt::format("cudalab: error: save: cannot write '{}'\n", path));
  }

  const LiveSession& session_;
  std::ostream& out_;
  std::vector<OptionInfo> options_;
  Settings initial_, settings_;
  std::vector<Run> runs_;
};

std::string value_text(const Metric* m) {
  return m == nullptr || m->samples.empty() ? "—" : format_number(m->summary().median) + " " + m->unit;
}

std::string ratio_text(const Metric* now, const Metric* then) {
  if (now == nullptr || then == nullptr || now->samples.empty() || then->samples.empty()) return "";
  const double base = then->summary().median;
  return base == 0 ? "" : fmt::format("×{:.2f}", now->summary().median / base);
}

}  // namespace

std::vector<const Metric*> headline_metrics(const Report& report) {
  std::vector<const Metric*> picked, fallback;
  for (const auto& s : report.sections) {
    for (const auto& m : s.metrics) {
      if (m.samples.empty()) continue;
      if (m.predicted || m.unit == "x" || m.unit == "×") picked.push_back(&m);
      if (fallback.size() < 5) fallback.push_back(&m);
    }
  }
  if (picked.empty()) picked = fallback;
  if (picked.size() > 8) picked.resize(8);
  return picked;
}

std::vector<std::string> compare_runs(const Report& now, const Report& previous, const Report& first,
                                      std::size_t width) {
  std::vector<std::string> lines;
  const std::size_t label_w = width >= 80 ? 26 : 18;
  lines.push_back(fmt::format("  {}  {:>12}  {:>19}  {:>19}", pad_right("", label_w), "this run", "previous", "first"));
  for (const Metric* m : headline_metrics(now)) {
    const Metric* p = previous.find_metric(m->key);
    const Metric* f = first.find_metric(m->key);
    std::string label = m->label;
    if (display_width(label) > label_w) label = wrap_text(label, label_w - 1).front() + "…";
    lines.push_back(fmt::format("  {}  {:>12}  {:>12} {:>6}  {:>12} {:>6}", pad_right(label, label_w), value_text(m),
                                value_text(p), ratio_text(m, p), value_text(f), ratio_text(m, f)));
  }
  for (const auto& c : now.checks) {
    for (const auto& old : previous.checks) {
      if (old.key == c.key && old.passed != c.passed) {
        lines.push_back(fmt::format("  {} {} {}: {}", old.passed ? "✓→✗" : "✗→✓",
                                    c.kind == CheckKind::verify ? "verify" : "expect", c.key, c.summary));
      }
    }
  }
  if (!now.headline.empty()) lines.push_back("  " + now.headline);
  return lines;
}

int run_live(const LiveSession& session, LineReader& reader, std::ostream& out) {
  return Sitting(session, out).run(reader);
}

int run_live(const CourseEntry& entry, std::vector<std::string> args) {
  LiveSession session{&entry, std::move(args),
                      [](const LessonRun& run, const RunContext& ctx, const CommonOptions& o) {
                        return run_lesson(run, ctx, o.wait_idle_s);
                      }};
  std::vector<std::string> words{"quit", "help", "full", "reset", "save"};
  for (const auto& o : option_infos(entry)) words.push_back(o.name);
  const auto reader = make_line_reader(words);
  return run_live(session, *reader, std::cout);
}

}  // namespace cudalab
