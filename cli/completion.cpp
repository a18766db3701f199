#include "completion.hpp"

#include <fmt/format.h>

#include "cli/course.hpp"
#include "common/core/errors.hpp"
#include "cli/options.hpp"

namespace cudalab {

namespace {

struct Command {
  std::vector<std::string> names;  // slug, 03, 3
  std::vector<std::string> flags;  // --streams, ...
};

const std::vector<std::string> kCommands = {"list", "all", "show", "live", "help", "completion", "compare", "grade"};

std::vector<Command> lesson_commands() {
  std::vector<Command> out;
  for (const auto& entry : course()) {
    if (entry.make == nullptr) continue;
    CLI::App app("probe");
    CommonOptions o;
    add_common_options(app, o);
    auto lesson = entry.make();
    add_lesson_options(app, *lesson);
    Command c{{entry.slug, fmt::format("{:02d}", entry.number), std::to_string(entry.number)}, {"--help"}};
    for (const CLI::Option* opt : app.get_options()) {
      if (!opt->get_lnames().empty() && opt->get_lnames().front() != "help") c.flags.push_back("--" + opt->get_lnames().front());
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

std::string bash_script() {
  std::vector<std::string> first = kCommands;
  std::string cases;
  for (const auto& c : lesson_commands()) {
    first.insert(first.end(), c.names.begin(), c.names.end());
    std::string pattern;
    for (const auto& n : c.names) pattern += (pattern.empty() ? "" : "|") + n;
    cases += fmt::format("    {}) words=\"{}\" ;;\n", pattern, join(c.flags));
  }
  return fmt::format(
      "# cudalab completion for bash: source <(cudalab completion bash)\n"
      "_cudalab() {{\n"
      "  local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" words\n"
      "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
      "    COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n"
      "    return\n"
      "  fi\n"
      "  local command=\"${{COMP_WORDS[1]}}\"\n"
      "  [ \"$command\" = live ] || [ \"$command\" = help ] && command=\"${{COMP_WORDS[2]}}\"\n"
      "  case \"$command\" in\n{}"
      "    show) words=\"--format --stable --color --lang --trace --table --svg\" ;;\n"
      "    completion) words=\"bash zsh fish\" ;;\n"
      "    *) words=\"\" ;;\n"
      "  esac\n"
      "  COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "}}\n"
      "complete -o default -F _cudalab cudalab\n",
      join(first), cases);
}

std::string fish_script() {
  std::string out = "# cudalab completion for fish: cudalab completion fish | source\n";
  out += fmt::format("complete -c cudalab -f -n __fish_use_subcommand -a \"{}\"\n", join(kCommands));
  for (const auto& c : lesson_commands()) {
    out += fmt::format("complete -c cudalab -f -n __fish_use_subcommand -a \"{}\"\n", join(c.names));
    for (const auto& flag : c.flags) {
      out += fmt::format("complete -c cudalab -n \"__fish_seen_subcommand_from {}\" -l {}\n", join(c.names), flag.substr(2));
    }
  }
  return out;
}

}  // namespace

std::string completion_script(const std::string& shell) {
  if (shell == "bash") return bash_script();
  // zsh runs bash completion functions through bashcompinit.
  if (shell == "zsh") return "# cudalab completion for zsh: source <(cudalab completion zsh)\nautoload -U +X bashcompinit && bashcompinit\n" + bash_script();
  if (shell == "fish") return fish_script();
  throw UsageError(fmt::format("completion: '{}' is not a shell it knows; allowed bash, zsh, fish", shell));
}

}  // namespace cudalab
