#include "cli/completion.hpp"

#include <fmt/format.h>

#include "cli/course.hpp"
#include "common/core/errors.hpp"

namespace cudalab {

namespace {

// What completes after one flag: nothing (a switch), a file, one of some words, or any value.
struct FlagWords {
  std::string flag;                // --lang
  bool file = false;
  std::vector<std::string> words;  // zh en
};

struct CommandWords {
  std::vector<std::string> names;  // the words that name it: stream-overlap 03 3, or "live 03"
  std::vector<FlagWords> flags;
  std::string positional;          // what completes as its argument: lessons, files, shells
};

std::string join(const std::vector<std::string>& words, const char* sep = " ") {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : sep) + w;
  return out;
}

std::vector<std::string> split_choices(const std::string& type_name) {
  std::vector<std::string> words;
  std::size_t start = 0;
  for (std::size_t bar = type_name.find('|'); bar != std::string::npos; bar = type_name.find('|', start)) {
    words.push_back(type_name.substr(start, bar - start));
    start = bar + 1;
  }
  words.push_back(type_name.substr(start));
  return words;
}

std::vector<std::string> lesson_words() {
  std::vector<std::string> words;
  for (const auto& e : course()) {
    for (const auto& n : e.names()) words.push_back(n);
  }
  return words;
}

CommandWords describe(const CLI::App& sub, const std::string& prefix) {
  CommandWords c;
  for (const auto& name : std::vector<std::string>{sub.get_name()}) c.names.push_back(prefix + name);
  for (const auto& alias : sub.get_aliases()) c.names.push_back(prefix + alias);
  for (const CLI::Option* opt : sub.get_options()) {
    if (opt->get_positional()) {
      const std::string t = opt->get_type_name();
      c.positional = t == "RUN" ? "runs" : t == "DIR" ? "dirs" : t.find('|') != std::string::npos ? t : "lessons";
      continue;
    }
    if (opt->get_lnames().empty()) continue;
    FlagWords f{"--" + opt->get_lnames().front(), false, {}};
    const std::string t = opt->get_type_size() == 0 ? "" : opt->get_type_name();
    f.file = t.rfind("FILE", 0) == 0 || t == "DIR";
    if (t.find('|') != std::string::npos) f.words = split_choices(t);  // --color auto|always|never, --lang zh|en
    if (t == "N|auto") f.words = {"auto", "0", "1"};
    c.flags.push_back(f);
  }
  return c;
}

std::vector<CommandWords> every_command(const CLI::App& app) {
  std::vector<CommandWords> out;
  for (const CLI::App* sub : app.get_subcommands({})) {
    out.push_back(describe(*sub, ""));
    if (sub->get_name() == "help") out.back().positional = "topics";
    if (sub->get_name() == "live") {
      out.back().positional = "lessons";
      for (const CLI::App* lesson : sub->get_subcommands({})) out.push_back(describe(*lesson, "live "));
    }
  }
  return out;
}

std::string positional_words(const std::string& kind, const std::vector<std::string>& commands) {
  if (kind == "topics") return join(lesson_words()) + " " + join(commands);
  if (kind.find('|') != std::string::npos) return join(split_choices(kind));
  if (kind == "dirs") return "";
  return join(lesson_words());  // lessons; runs: a lesson's reference run, or a file (added below)
}

// What the shell adds to the words of a positional: files for a run, folders for grade's.
const char* positional_paths(const std::string& kind) {
  if (kind == "runs") return "f";
  if (kind == "dirs") return "d";
  return "";
}

std::vector<std::string> top_words(const CLI::App& app) {
  std::vector<std::string> words;
  for (const CLI::App* sub : app.get_subcommands({})) {
    words.push_back(sub->get_name());
    for (const auto& a : sub->get_aliases()) words.push_back(a);
  }
  return words;
}

// The bash function: find the command (skipping --config FILE and other flags), then complete
// the previous flag's value, or the command's flags and argument.
std::string bash_cases(const CLI::App& app) {
  std::vector<std::string> commands;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (find_course_entry(sub->get_name()) == nullptr) commands.push_back(sub->get_name());
  }
  std::string flag_cases, value_cases;
  for (const auto& c : every_command(app)) {
    std::vector<std::string> patterns, flags;
    for (const auto& n : c.names) patterns.push_back("\"" + n + "\"");
    for (const auto& f : c.flags) {
      flags.push_back(f.flag);
      for (const auto& n : c.names) {
        if (f.file) value_cases += fmt::format("    \"{} {}\") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", n, f.flag);
        if (!f.words.empty()) value_cases += fmt::format("    \"{} {}\") words=\"{}\" ;;\n", n, f.flag, join(f.words));
      }
    }
    flags.push_back("--help");
    const std::string args = c.positional.empty() ? "" : positional_words(c.positional, commands);
    flag_cases += fmt::format("    {}) words=\"{}\"; args=\"{}\"; paths=\"{}\" ;;\n", join(patterns, "|"), join(flags), args,
                              positional_paths(c.positional));
  }
  return fmt::format("  case \"$cmd $prev\" in\n{}  esac\n  if [ -n \"$words\" ]; then\n"
                     "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\")); return\n  fi\n"
                     "  case \"$cmd\" in\n{}  esac\n",
                     value_cases, flag_cases);
}

std::string bash_script(const CLI::App& app) {
  return fmt::format(
      "# cudalab completion for bash: source <(cudalab completion bash)\n"
      "_cudalab() {{\n"
      "  local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\" cmd=\"\" words=\"\" args=\"\" paths=\"\" i w\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    w=\"${{COMP_WORDS[i]}}\"\n"
      "    case \"$w\" in\n"
      "      --config) ((i++)) ;;\n"
      "      -*) ;;\n"
      "      *) if [ -z \"$cmd\" ]; then cmd=\"$w\"; elif [ \"$cmd\" = live ]; then cmd=\"live $w\"; fi ;;\n"
      "    esac\n"
      "  done\n"
      "  if [ \"$prev\" = --config ]; then COMPREPLY=($(compgen -f -- \"$cur\")); return; fi\n"
      "  if [ -z \"$cmd\" ]; then\n"
      "    COMPREPLY=($(compgen -W \"{} --config --help --version\" -- \"$cur\")); return\n"
      "  fi\n"
      "{}"
      "  case \"$cur\" in\n"
      "    -*) COMPREPLY=($(compgen -W \"$words --config\" -- \"$cur\")) ;;\n"
      "    *) COMPREPLY=($(compgen -W \"$args\" -- \"$cur\"))\n"
      "       if [ -n \"$paths\" ]; then COMPREPLY+=($(compgen -\"$paths\" -- \"$cur\")); fi ;;\n"
      "  esac\n"
      "}}\n"
      "complete -o default -F _cudalab cudalab\n",
      join(top_words(app)), bash_cases(app));
}

std::string fish_script(const CLI::App& app) {
  std::string out =
      "# cudalab completion for fish: cudalab completion fish | source\n"
      "function __cudalab_command\n"
      "  set -l words (commandline -opc); set -e words[1]; set -l skip 0; set -l cmd\n"
      "  for w in $words\n"
      "    if test $skip = 1; set skip 0; continue; end\n"
      "    if test \"$w\" = --config; set skip 1; continue; end\n"
      "    if string match -q -- '-*' $w; continue; end\n"
      "    if test -z \"$cmd\"; set cmd $w; else if test \"$cmd\" = live; set cmd \"live $w\"; end\n"
      "  end\n"
      "  echo $cmd\n"
      "end\n";
  out += fmt::format("complete -c cudalab -f -n 'test -z (__cudalab_command)' -a \"{}\"\n", join(top_words(app)));
  out += "complete -c cudalab -l config -r -F\n";
  for (const auto& c : every_command(app)) {
    std::vector<std::string> tests;
    for (const auto& n : c.names) tests.push_back(fmt::format("test (__cudalab_command) = '{}'", n));
    const std::string cond = join(tests, "; or ");
    if (c.positional == "runs") out += fmt::format("complete -c cudalab -n \"{}\" -F -a \"{}\"\n", cond, join(lesson_words()));
    if (c.positional == "dirs") {
      out += fmt::format("complete -c cudalab -n \"{}\" -x -a \"(__fish_complete_directories)\"\n", cond);
    }
    for (const auto& f : c.flags) {
      const std::string values = f.file ? " -r -F" : f.words.empty() ? "" : fmt::format(" -x -a \"{}\"", join(f.words));
      out += fmt::format("complete -c cudalab -n \"{}\" -l {}{}\n", cond, f.flag.substr(2), values);
    }
  }
  return out;
}

}  // namespace

std::string completion_script(const CLI::App& app, const std::string& shell) {
  if (shell == "bash") return bash_script(app);
  // zsh runs bash completion functions through bashcompinit.
  if (shell == "zsh") {
    return "# cudalab completion for zsh: source <(cudalab completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n" +
           bash_script(app);
  }
  if (shell == "fish") return fish_script(app);
  throw UsageError(msg("completion: '{shell}' is not a shell it knows; allowed bash, zsh, fish", arg("shell", shell)));
}

}  // namespace cudalab
