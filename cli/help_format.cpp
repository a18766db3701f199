#include "help_format.hpp"

#include <sstream>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

constexpr std::size_t kColumn = 26;

std::size_t help_width() { return std::max<std::size_t>(60, terminal_width()); }

// "  left" in the first column, `text` wrapped in the second (on the next line when left is wide).
std::string two_columns(const std::string& left, const std::string& text) {
  const std::size_t width = help_width();
  std::string out = left;
  std::size_t used = display_width(left);
  const auto lines = wrap_text(text, width - kColumn);
  if (lines.empty()) return out + '\n';
  if (used + 1 >= kColumn) {
    out += '\n';
    used = 0;
  }
  for (std::size_t i = 0; i < lines.size(); ++i) {
    out += std::string(i == 0 ? kColumn - used : kColumn, ' ') + lines[i] + '\n';
  }
  return out;
}

std::string wrap_paragraphs(const std::string& text, std::size_t indent) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) {
    // Keep preformatted lines (tables, leading spaces) as they are when they already fit.
    if (line.empty() || (line[0] == ' ' && display_width(line) <= help_width())) {
      out += line + '\n';
      continue;
    }
    for (const auto& l : wrap_text(line, help_width() - indent)) out += std::string(indent, ' ') + l + '\n';
  }
  return out;
}

}  // namespace

WrappingFormatter::WrappingFormatter() { column_width(kColumn); }

std::string WrappingFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  return two_columns("  " + make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt));
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  return two_columns("  " + sub->get_display_name(), sub->get_description());
}

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  const std::string d = app->get_description();
  return d.empty() ? std::string() : wrap_paragraphs(d, 0) + '\n';
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  const std::string f = app->get_footer();
  return f.empty() ? std::string() : wrap_paragraphs(f, 0);
}

}  // namespace cudalab
