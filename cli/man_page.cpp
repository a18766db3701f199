#include "cli/man_page.hpp"

#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "cli/course.hpp"
#include "cli/help_format.hpp"
#include "common/core/errors.hpp"
#include "common/core/version.hpp"

namespace cudalab {

namespace {

// Text as roff reads it, in plain ASCII: a backslash is \e, a dash \- (a minus, so that options can
// be searched and pasted), any other character beyond ASCII its code point (\[u2014] for "—"),
// and a line that starts with a dot or a quote is not a request.
std::string roff(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      if (c == '\n' && i + 1 < text.size()) out += "\\&";
    } else {
      const int extra = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
      unsigned code = c & (0x3F >> extra);
      for (int k = 0; k < extra && i + 1 < text.size(); ++k) code = (code << 6) | (static_cast<unsigned char>(text[++i]) & 0x3F);
      out += fmt::format("\\[u{:04X}]", code);
    }
  }
  return out.empty() || (out[0] != '.' && out[0] != '\'') ? out : "\\&" + out;
}

bool is_common(const CLI::Option* opt) {
  return opt->get_group() == "Common options" || opt->get_group() == "Output";
}

// --help is said once, in the synopsis.
bool is_housekeeping(const CLI::Option* opt) { return opt->get_name() == "--help" || opt->get_name() == "-h,--help"; }

// ".TP" paragraphs, one per option `keep` lets through.
template <class Keep>
std::string option_paragraphs(const CLI::App& app, const WrappingFormatter& words, Keep keep) {
  std::string out;
  for (const CLI::Option* opt : app.get_options()) {
    if (is_housekeeping(opt) || !keep(opt)) continue;
    out += ".TP\n.B " + roff(words.option_names(opt, opt->get_positional())) + "\n" + roff(words.option_words(opt)) + "\n";
  }
  return out;
}

std::string lessons_section(const CLI::App& app, const WrappingFormatter& words) {
  std::string out = ".SH " + roff(words.words("LESSONS")) + "\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    const CourseEntry* lesson = find_course_entry(sub->get_name());
    if (lesson == nullptr) continue;
    out += fmt::format(".SS \"{} ({:02d})\"\n{}\n", roff(lesson->slug), lesson->number, roff(words.command_words(sub)));
    out += option_paragraphs(*sub, words, [](const CLI::Option* o) { return !is_common(o); });
  }
  return out;
}

std::string commands_section(const CLI::App& app, const WrappingFormatter& words) {
  std::string out = ".SH " + roff(words.words("COMMANDS")) + "\n";
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (find_course_entry(sub->get_name()) != nullptr) continue;
    out += ".SS " + roff(sub->get_name()) + "\n" + roff(words.command_words(sub)) + "\n";
    out += option_paragraphs(*sub, words, [](const CLI::Option* o) { return !is_common(o) || o->get_positional(); });
  }
  return out;
}

// The options every lesson takes, from the first lesson's command.
std::string common_section(const CLI::App& app, const WrappingFormatter& words) {
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (find_course_entry(sub->get_name()) == nullptr) continue;
    return ".SH " + roff(words.words("COMMON OPTIONS")) + "\n" + option_paragraphs(*sub, words, is_common);
  }
  return {};
}

std::string exit_section(const WrappingFormatter& words) {
  std::string out = ".SH " + roff(words.words("EXIT STATUS")) + "\n.nf\n";
  std::istringstream table(exit_code_table());
  std::string line;
  std::getline(table, line);  // its heading: the section's title says it
  while (std::getline(table, line)) out += roff(words.words(line)) + "\n";
  return out + ".fi\n";
}

// The variables cudalab reads, each with what it sets (docs/ tells the whole story of each).
std::string environment_section(const WrappingFormatter& words) {
  static const std::pair<const char*, const char*> variables[] = {
      {"CUDALAB_QUEUE_DIR", N_("the GPU queue's folder, the same for every student of a class (default /tmp/cudalab-queue)")},
      {"CUDALAB_CLASS_DIR", N_("the class's drop folder, for submit, --submit and grade, when --config names none")},
      {"CUDALAB_RENDEZVOUS", N_("a folder every node sees, where the processes of one run on several nodes meet")},
      {"CUDALAB_RANK_TIMEOUT", N_("seconds a process of a run on several GPUs waits for the others (default 120)")},
      {"CUDALAB_NVCC", N_("the nvcc that compiles exercises (else PATH, $CUDA_HOME/bin, /usr/local/cuda/bin)")},
      {"LC_ALL, LC_MESSAGES, LANG", N_("the language when --lang is not given: zh for zh_*, else en")},
      {"NO_COLOR", N_("no colour under --color auto")},
      {"COLUMNS", N_("the width the output fits, before the terminal's own (20 to 1000; with neither, 80 columns)")},
  };
  std::string out = ".SH " + roff(words.words("ENVIRONMENT")) + "\n";
  for (const auto& [name, what] : variables) out += ".TP\n.B " + roff(name) + "\n" + roff(words.words(what)) + "\n";
  return out;
}

}  // namespace

std::string man_page(const CLI::App& app, Lang lang) {
  const WrappingFormatter words([lang] { return lang; });
  std::string out = fmt::format(".TH CUDALAB 1 \"\" \"cudalab {}\" \"{}\"\n", roff(kVersion), roff(words.words("User Commands")));
  std::string what = words.command_words(&app);  // "cudalab — a hands-on lab ...": the name once
  if (what.rfind("cudalab — ", 0) == 0) what = what.substr(std::string("cudalab — ").size());
  out += ".SH " + roff(words.words("NAME")) + "\ncudalab \\- " + roff(what) + "\n";
  out += ".SH " + roff(words.words("SYNOPSIS")) + "\n.B cudalab\n.I lesson\n[\\fIoptions\\fR]\n.br\n.B cudalab\n"
         ".I command\n[\\fIarguments\\fR]\n.br\n.B cudalab\n[\\fIlesson\\fR|\\fIcommand\\fR]\n.B \\-\\-help\n";
  out += ".SH " + roff(words.words("DESCRIPTION")) + "\n" +
         roff(words.words("Each numbered lesson is a command that runs a real experiment on the GPU, measures it, "
                          "sets it against a model and explains it; `cudalab list` shows the course.")) +
         "\n";
  out += commands_section(app, words) + common_section(app, words) + lessons_section(app, words) + environment_section(words) +
         exit_section(words);
  out += ".SH " + roff(words.words("SEE ALSO")) + "\n" +
         roff(words.words("README.md: the course; docs/output.md: the output forms and what graders may diff; docs/: running a "
                          "course, grading and the GPU queue.")) + "\n";
  return out;
}

}  // namespace cudalab
