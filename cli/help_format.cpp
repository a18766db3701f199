#include "cli/help_format.hpp"

#include <map>
#include <sstream>

#include <fmt/format.h>

#include "cli/course.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kColumn = 26;

std::size_t help_width() { return std::max<std::size_t>(40, terminal_width()); }

// "  left" in the first column, `text` wrapped in the second (on the next line when left is wide).
std::string two_columns(const std::string& left, const std::string& text) {
  const std::size_t width = help_width();
  const std::size_t column = width >= 70 ? kColumn : 8;
  std::string out = left;
  std::size_t used = display_width(left);
  const auto lines = wrap_text(text, width - column);
  if (lines.empty()) return out + '\n';
  if (used + 1 >= column) {
    out += '\n';
    used = 0;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += std::string(i == 0 ? column - used : column, ' ') + lines[i] + '\n';
  }
  return out;
}

// Where a line's text hangs when it wraps: "  1    a verify check…" hangs under "a", a plain
// paragraph at 0.
std::size_t hanging_indent(const std::string& line) {
  const std::size_t first = line.find_first_not_of(' ');
  if (first == std::string::npos || first == 0) return 0;
  const std::size_t gap = line.find("  ", first);
  if (gap == std::string::npos) return first;
  const std::size_t text = line.find_first_not_of(' ', gap);
  return text == std::string::npos || text > 20 ? first : text;
}

std::string wrap_paragraphs(const std::string& text) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    if (line.empty() || display_width(line) <= help_width()) {
      out += line + '\n';
      continue;
    }
    const std::size_t hang = hanging_indent(line);
    const auto lines = wrap_text(line.substr(hang), help_width() - hang);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      out += (i == 0 ? line.substr(0, hang) : std::string(hang, ' ')) + lines[i] + '\n';
    }
  }
  return out;
}

// "cudalab live stream-overlap": the command as it is typed.
std::string command_path(const CLI::App* app) {
  std::string path;
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent()) path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

}  // namespace

WrappingFormatter::WrappingFormatter(std::function<Lang()> lang) : lang_(std::move(lang)) { column_width(kColumn); }

// A text CLI11 holds for us (a description, a group's name, a footer line) is a template kept in a
// table: looked up as written.
std::string WrappingFormatter::tr_(const std::string& text) const { return tr(lang_(), Message(text)); }

// A lesson's command is described by the lesson itself, in both languages ("03 · overlapping
// copies and kernels — one stream vs many: …"); any other command through the catalogue.
std::string WrappingFormatter::tr_of_(const CLI::App* app, const std::string& text) const {
  const CourseEntry* lesson = find_course_entry(app->get_name());
  if (lesson == nullptr) return tr_(text);
  return fmt::format("{:02d} · {} — {}", lesson->number, lesson->title.in(lang_()), lesson->summary.in(lang_()));
}

std::string WrappingFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
  const std::string text = CLI::Formatter::make_help(app, std::move(name), mode);
  std::string out;  // one blank line between parts, never two
  for (char c : text) {
    if (c == '\n' && out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') continue;
    out += c;
  }
  return out;
}

std::string WrappingFormatter::make_usage(const CLI::App* app, std::string) const {
  std::string usage = command_path(app);
  if (!app->get_options([](const CLI::Option* o) { return o->nonpositional(); }).empty()) usage += " [OPTIONS]";
  for (const CLI::Option* p : app->get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    // A positional taking several values repeats its name as often as it needs them, then "...":
    // compare's baseline and at least one run read "RUNS RUNS...".
    std::string words = p->get_name();
    for (int i = 1; i < p->get_items_expected_min(); ++i) words += " " + p->get_name();
    if (p->get_items_expected_max() > std::max(1, p->get_items_expected_min())) words += "...";
    usage += " " + (p->get_required() ? words : "[" + words + "]");
  }
  if (!app->get_subcommands({}).empty()) usage += app->get_require_subcommand_min() == 0 ? " [COMMAND]" : " COMMAND";
  return wrap_paragraphs(tr(lang_(), msg("Usage: {usage}", arg("usage", usage))));
}

std::string WrappingFormatter::make_group(std::string group, bool is_positional,
                                          std::vector<const CLI::Option*> opts) const {
  std::string out = "\n" + tr(lang_(), msg("{group}:", arg("group", Message(group)))) + "\n";
  for (const CLI::Option* opt : opts) out += make_option(opt, is_positional);
  return out;
}

std::string WrappingFormatter::make_subcommands(const CLI::App* app, CLI::AppFormatMode) const {
  std::string out;
  const auto subs = app->get_subcommands({});
  if (subs.empty()) return out;
  out += "\n" + tr_("Commands:") + "\n";
  for (const CLI::App* sub : subs) out += make_subcommand(sub);
  return out;
}

std::string WrappingFormatter::option_names(const CLI::Option* opt, bool is_positional) const {
  std::string names = is_positional ? opt->get_name() : make_option_name(opt, false);
  if (!is_positional && opt->get_type_size() != 0 && !opt->get_type_name().empty()) names += " " + opt->get_type_name();
  // A positional shows its values only when they are a choice (SHELL bash|zsh|fish), never a
  // CLI11 type tag.
  if (is_positional && opt->get_type_name().find('|') != std::string::npos) names += " " + opt->get_type_name();
  return names;
}

namespace {

// The templates of the options' descriptions, by option. An option that gave none (CLI11's own,
// a positional) is looked up by its English, which is then its template.
std::map<const CLI::Option*, Message>& option_descriptions() {
  static std::map<const CLI::Option*, Message> descriptions;
  return descriptions;
}

}  // namespace

void describe_option(const CLI::Option* opt, const Message& words) { option_descriptions()[opt] = words; }

std::string WrappingFormatter::option_words(const CLI::Option* opt) const {
  const auto& known = option_descriptions();
  const auto found = known.find(opt);
  // The English is compared too: an option freed and another made at its address keeps no stale words.
  const bool described = found != known.end() && found->second.en() == opt->get_description();
  std::string text = described ? tr(lang_(), found->second) : tr_(opt->get_description());
  if (!opt->get_default_str().empty()) {
    // A default of several words ("the lesson's, adaptive") is words; one word ("64MiB") a value.
    const std::string& value = opt->get_default_str();
    const Message shown = value.find(' ') == std::string::npos ? Message::verbatim(value) : Message(value);
    text += " " + tr(lang_(), msg("[default: {value}]", arg("value", shown)));
  }
  return text;
}

std::string WrappingFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  return two_columns("  " + option_names(opt, is_positional), option_words(opt));
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  return two_columns("  " + sub->get_display_name(), tr_of_(sub, sub->get_description()));
}

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  const std::string d = app->get_description();
  return d.empty() ? std::string() : wrap_paragraphs(tr_of_(app, d)) + '\n';
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  const std::string f = app->get_footer();
  if (f.empty()) return {};
  std::istringstream in(f);
  std::string out, line;
  while (std::getline(in, line)) out += tr_(line) + '\n';
  return wrap_paragraphs(out);
}

std::string help_footer() {
  return std::string("\n") + exit_code_table() + "\nSee README.md for the course, and docs/output.md for the output forms and what graders may diff.";
}

}  // namespace cudalab
