#include "cli/preset_merge.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cli/suggest.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// The flags one preset section may set: some common flags, and a lesson's own.
struct FlagScope {
  std::vector<std::string> common;
  LessonSetup* lesson = nullptr;  // null: no lesson flags (all, show)
  const CLI::App* typed_in = nullptr;  // the subcommand whose typed flags win over the preset
  bool skip_foreign = false;       // under `all`, a lesson section's common flags apply only when it runs alone
};

bool typed(const FlagScope& scope, const std::string& name) {
  if (scope.typed_in == nullptr) return false;
  const CLI::Option* opt = scope.typed_in->get_option_no_throw("--" + name);
  return opt != nullptr && opt->count() > 0;
}

const FlagSpec* lesson_spec(const FlagScope& scope, const std::vector<FlagSpec>& specs, const std::string& name) {
  if (scope.lesson == nullptr) return nullptr;
  const auto it = std::find_if(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.name == name; });
  return it == specs.end() ? nullptr : &*it;
}

std::vector<std::string> known_names(const FlagScope& scope, const std::vector<FlagSpec>& specs) {
  std::vector<std::string> names = scope.common;
  for (const auto& s : specs) names.push_back(s.name);
  return names;
}

// The value as the flag's row takes it: a switch wants true/false, a path a quoted string,
// anything else a value.
std::string flag_text(const FlagSpec& spec, const PresetValue& v) {
  const bool is_switch = spec.kind == FlagKind::on_off;
  if (is_switch != (v.type == PresetValue::Type::boolean)) {
    throw UsageError(is_switch ? fmt::format("{} is a switch: write {} = true or {} = false", v.key, v.key, v.key)
                               : fmt::format("{} takes a value, not {}", v.key, printable_value(v.text)));
  }
  const bool path = spec.value_name == "FILE" || spec.value_name == "DIR";
  if (path && v.type != PresetValue::Type::string) {
    throw UsageError(fmt::format("{} takes a path in quotes ({} = \"name\"), not {}", v.key, v.key, printable_value(v.text)));
  }
  return is_switch ? (v.text == "true" ? "on" : "off") : v.text;
}

// Sets one value; "" when it was applied or skipped, else the error (without the origin).
std::string apply_value(Invocation& inv, const FlagScope& scope, const std::string& section, const PresetValue& v,
                        const std::string& origin) {
  const auto specs = scope.lesson != nullptr ? scope.lesson->lesson->flags() : std::vector<FlagSpec>{};
  const FlagSpec* own = lesson_spec(scope, specs, v.key);
  const bool common = std::find(scope.common.begin(), scope.common.end(), v.key) != scope.common.end();
  if (own == nullptr && !common) {
    if (scope.skip_foreign && common_flags().find(v.key) != nullptr) return {};
    const std::string guess = closest_word(v.key, known_names(scope, specs));
    return fmt::format("{} is not a flag of {}{}", printable_value(v.key), printable_value(section),
                       guess.empty() ? "" : fmt::format(" (did you mean {}?)", guess));
  }
  try {
    const FlagSpec& spec = own != nullptr ? *own : common_flags().find(v.key)->spec;
    const std::string text = flag_text(spec, v);  // a wrong type is an error even where the command line wins
    if (typed(scope, v.key)) return {};           // the command line wins
    const std::string error = own != nullptr ? scope.lesson->lesson->set_flag(v.key, text)
                                             : common_flags().find(v.key)->set(inv.flags, text);
    if (!error.empty()) return "--" + v.key + ": " + error;
  } catch (const UsageError& e) {
    return e.what();
  }
  (own != nullptr ? scope.lesson->origins : inv.flag_origins)[v.key] = "preset " + origin;
  return {};
}

// Every value of `section_name`; throws on the first refused one.
void apply_section(Invocation& inv, const PresetFile& presets, const std::string& section_name, const FlagScope& scope) {
  const PresetSection* section = presets.find(section_name);
  if (section == nullptr) return;
  for (const auto& v : section->values) {
    const std::string origin = preset_origin(presets, *section, v);
    const std::string error = apply_value(inv, scope, section_name, v, origin);
    if (!error.empty()) throw UsageError("--config " + origin + ": " + error);
  }
}

}  // namespace

void mark_typed(Invocation& inv, const CLI::App* parsed) {
  if (parsed == nullptr) return;
  for (const CLI::Option* opt : parsed->get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    const std::string name = opt->get_lnames().front();
    const bool lesson_flag = !inv.lessons.empty() && inv.command != Command::all &&
                             [&] {
                               for (const auto& s : inv.lesson().lesson->flags()) {
                                 if (s.name == name) return true;
                               }
                               return false;
                             }();
    (lesson_flag ? inv.lesson().origins : inv.flag_origins)[name] = "flag";
  }
}

void apply_presets(Invocation& inv, const CLI::App* parsed, const PresetFile& presets) {
  switch (inv.command) {
    case Command::lesson:
    case Command::live:
      apply_section(inv, presets, inv.lesson().entry->slug, {lesson_flag_names(), &inv.lesson(), parsed, false});
      break;
    case Command::all:
      apply_section(inv, presets, "all", {all_flag_names(), nullptr, parsed, false});
      for (auto& setup : inv.lessons) {
        try {
          apply_section(inv, presets, setup.entry->slug, {{}, &setup, nullptr, true});
        } catch (const UsageError& e) {
          setup.preset_error = e.what();  // only this lesson stops
        }
      }
      break;
    case Command::show: apply_section(inv, presets, "show", {show_flag_names(), nullptr, parsed, false}); break;
    default: break;
  }
}

}  // namespace cudalab

namespace cudalab {

namespace {

std::string origin_of(const Origins& origins, const std::string& name) {
  const auto it = origins.find(name);
  return it == origins.end() ? "default" : it->second;
}

// What the run will actually use when the flag was left alone.
std::string resolved_value(const Invocation& inv, const LessonSetup* lesson, const std::string& name,
                           const std::string& value) {
  if (!value.empty()) return value;
  if (name == "lang") return std::string(lang_name(inv.output.lang())) + " (from LC_ALL/LANG)";
  if (name == "device") return "0 (device-query: every device)";
  if (lesson != nullptr && (name == "repeat" || name == "warmup")) {
    const Repetitions reps = lesson->lesson->default_repetitions();
    return fmt::format("{} (the lesson's, adaptive)", name == "repeat" ? reps.repeat : reps.warmup);
  }
  return "none";
}

// A value as it is typed ("both", "64MiB") stays as it is; the words that explain one ("0
// (device-query: every device)", "the lesson's") are in the student's language.
std::string spoken_value(Lang lang, const std::string& value) {
  const std::size_t open = value.find(" (");
  if (open != std::string::npos && value.back() == ')') {
    return value.substr(0, open + 2) + tr(lang, value.substr(open + 2, value.size() - open - 3)) + ")";
  }
  return value.find(' ') == std::string::npos ? value : tr(lang, value);
}

// A "# ..." line as it is, or folded to the terminal as several "# " lines, so that what the
// listing prints stays comments wherever it folds.
void comment_line(std::string& out, const std::string& comment, std::size_t width) {
  if (display_width(comment) <= width) {
    out += comment + '\n';
    return;
  }
  const std::size_t body = comment.rfind("# ", 0) == 0 ? 2 : 0;
  for (const auto& line : wrap_text(comment.substr(body), width > 12 ? width - 2 : 10)) out += "# " + line + '\n';
}

// Names and values as a preset writes them; the comment after '#' in the student's language.
// A row too wide for the terminal puts its comment on "#" lines of their own beneath it.
void print_rows(std::string& out, const std::vector<std::pair<std::string, std::string>>& rows, const Origins& origins,
                Lang lang, std::size_t width) {
  for (const auto& [name, value] : rows) {
    const std::string shown = spoken_value(lang, printable_value(value));
    const std::string setting = fmt::format("{} = {}", pad_right(name, 16), pad_right(shown, 10));
    const std::string origin = tr(lang, origin_of(origins, name));
    if (display_width(setting) + 4 + display_width(origin) <= width) {
      out += setting + "  # " + origin + '\n';
      continue;
    }
    const std::string bare = setting.substr(0, setting.find_last_not_of(' ') + 1);
    if (display_width(bare) <= width) {
      out += bare + '\n';
    } else {
      for (const auto& line : wrap_text(bare, width)) out += line + '\n';
    }
    for (const auto& line : wrap_text(origin, width > 12 ? width - 6 : 6)) out += "    # " + line + '\n';
  }
}

void print_common(std::string& out, const Invocation& inv, const std::vector<std::string>& names,
                  const LessonSetup* lesson) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& name : names) {
    if (name == "print-config" || name == "live") continue;
    const auto* row = common_flags().find(name);
    std::string value = resolved_value(inv, lesson, name, row->value(inv.flags));
    if (row->spec.kind == FlagKind::on_off) value = value == "on" ? "true" : "false";  // as a preset writes it
    rows.emplace_back(name, value);
  }
  print_rows(out, rows, inv.flag_origins, inv.output.lang(), inv.output.style.width);
}

void print_lesson(std::string& out, const LessonSetup& setup, Lang lang, std::size_t width) {
  std::vector<std::pair<std::string, std::string>> rows;
  for (const auto& spec : setup.lesson->flags()) {
    std::string value = setup.lesson->flag_value(spec.name);
    if (spec.kind == FlagKind::on_off) value = value == "on" ? "true" : "false";  // as a preset writes it
    rows.emplace_back(spec.name, value.empty() ? "none" : value);
  }
  print_rows(out, rows, setup.origins, lang, width);
}

}  // namespace

std::string effective_config(const Invocation& inv) {
  std::string out;
  const Lang lang = inv.output.lang();
  const std::size_t width = inv.output.style.width;
  switch (inv.command) {
    case Command::all:
      comment_line(out, tr(lang, "# effective flags of all: value, then where it came from"), width);
      print_common(out, inv, all_flag_names(), nullptr);
      for (const auto& setup : inv.lessons) {
        out += '\n';
        const std::string heading = fmt::format("# lesson {:02d} {}", setup.entry->number, setup.entry->slug);
        comment_line(out,
                     tr(lang, setup.preset_error.empty() ? heading : heading + " — refused: " + setup.preset_error),
                     width);
        print_lesson(out, setup, lang, width);
      }
      break;
    case Command::show:
      comment_line(out, tr(lang, "# effective flags of show: value, then where it came from"), width);
      print_common(out, inv, show_flag_names(), nullptr);
      break;
    default:
      comment_line(out,
                   tr(lang, fmt::format("# effective flags of {}: value, then where it came from", inv.lesson().entry->slug)),
                   width);
      print_lesson(out, inv.lesson(), lang, width);
      print_common(out, inv, lesson_flag_names(), &inv.lesson());
      break;
  }
  return out;
}

}  // namespace cudalab
