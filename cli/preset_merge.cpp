#include "cli/preset_merge.hpp"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "cli/flag_lookup.hpp"
#include "cli/suggest.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// Switches that choose what the command does rather than how a lesson runs: typed, never preset.
bool command_line_only(const std::string& name) { return name == "print-config" || name == "live"; }

// The flags `cudalab all` decides once for the whole tour (where its output goes and in which
// form), and the ones it does not take at all (it asks no predictions).
bool alone_only_under_all(const std::string& name) {
  static const std::vector<std::string> names{"format", "json", "stable", "portable", "svg", "trace", "predict", "answers"};
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::vector<std::string> preset_names(std::vector<std::string> names) {
  names.erase(std::remove_if(names.begin(), names.end(), command_line_only), names.end());
  return names;
}

bool typed(const CLI::App* typed_in, const std::string& name) {
  if (typed_in == nullptr) return false;
  const CLI::Option* opt = typed_in->get_option_no_throw("--" + name);
  return opt != nullptr && opt->count() > 0;
}

std::string quoted_if_text(const PresetValue& v) {
  const std::string shown = printable_value(v.text);
  return v.type == PresetValue::Type::string ? "\"" + shown + "\"" : shown;
}

// Why a value of this TOML type cannot be this flag's, or an empty Message.
Message type_problem(const FlagSpec& spec, const PresetValue& v) {
  using Type = PresetValue::Type;
  const std::string& k = v.key;
  const std::string was = quoted_if_text(v);
  switch (spec.kind) {
    case FlagKind::on_off:
      if (v.type == Type::boolean) return {};
      return msg("{key} is a switch: write {key} = true or {key} = false, not {value}", arg("key", k), arg("value", was));
    case FlagKind::integer:
      if (v.type == Type::integer) return {};
      return msg("{key} takes a whole number without quotes ({key} = 8), not {value}", arg("key", k), arg("value", was));
    case FlagKind::size:
      if (v.type == Type::integer || v.type == Type::string) return {};
      return msg("{key} takes a size ({key} = \"64MiB\", or a number of bytes), not {value}", arg("key", k),
                 arg("value", was));
    case FlagKind::text:
      if (v.type == Type::string) return {};
      if (v.type == Type::integer && spec.value_name.rfind("N", 0) == 0) return {};  // device = 1
      break;
    case FlagKind::choice:
    case FlagKind::output_file:
      if (v.type == Type::string) return {};
      break;
  }
  const bool path = spec.value_name == "FILE" || spec.value_name == "DIR";
  if (path) return msg("{key} takes a path in quotes ({key} = \"name\"), not {value}", arg("key", k), arg("value", was));
  return msg("{key} takes text in quotes ({key} = \"{example}\"), not {value}", arg("key", k),
             arg("example", spec.choices.empty() ? std::string("...") : spec.choices.front()), arg("value", was));
}

// The value as the flag's row takes it: a switch as on/off, anything else as typed.
std::string flag_text(const FlagSpec& spec, const PresetValue& v) {
  const Message problem = type_problem(spec, v);
  if (!problem.empty()) throw UsageError(problem);
  return spec.kind == FlagKind::on_off ? (v.text == "true" ? "on" : "off") : v.text;
}

// Where a section's values go: the flags it may set, where their origins are kept, and which
// subcommand's typed flags win over it.
struct Target {
  FlagLookup lookup;
  Origins& lesson_origins;
  Origins& common_origins;
  const CLI::App* typed_in = nullptr;
  std::vector<AloneOnly>* alone_only = nullptr;  // under `all`, a lesson's section: set aside here
};

Message unknown_key(const Target& target, const std::string& section, const PresetValue& v) {
  if (command_line_only(v.key)) {
    return msg("{key} is not a preset key: type --{name} on the command line", arg("key", printable_value(v.key)),
               arg("name", v.key));
  }
  const std::string guess = target.lookup.closest(v.key);
  if (guess.empty()) {
    return msg("{key} is not a flag of {section}", arg("key", printable_value(v.key)),
               arg("section", printable_value(section)));
  }
  return msg("{key} is not a flag of {section} (did you mean {guess}?)", arg("key", printable_value(v.key)),
             arg("section", printable_value(section)), arg("guess", guess));
}

// Sets one value unless the command line set it; an empty Message when it was applied (or set
// aside), else why not.
Message apply_value(Target& target, const std::string& section, const PresetValue& v, const std::string& origin) {
  const FlagSpec* spec = target.lookup.find(v.key);
  if (spec == nullptr) return unknown_key(target, section, v);
  try {
    const std::string text = flag_text(*spec, v);  // a wrong type is an error even where the command line wins
    const bool own = target.lookup.is_lessons_own(v.key);
    if (target.alone_only != nullptr && !own && alone_only_under_all(v.key)) {
      CommonFlags scratch;  // checked by its rule all the same
      const auto error = common_flags().find(v.key)->set(scratch, text);
      if (!error.empty()) return msg("--{flag}: {problem}", arg("flag", v.key), arg("problem", error));
      target.alone_only->push_back({v.key, v.text, msg("preset {where}", arg("where", origin))});
      return {};
    }
    if (typed(target.typed_in, v.key)) return {};  // the command line wins
    const Message error = target.lookup.try_set(v.key, text);
    if (!error.empty()) return error;
    (own ? target.lesson_origins : target.common_origins)[v.key] = msg("preset {where}", arg("where", origin));
  } catch (const UsageError& e) {
    return words_of(e);
  }
  return {};
}

// Every value of `section_name` (of those `only` names, when given), if the file has that section;
// throws on the first refused one.
void apply_section(const PresetFile& presets, const std::string& section_name, Target target,
                   const std::vector<std::string>* only = nullptr) {
  const PresetSection* section = presets.find(section_name);
  if (section == nullptr) return;
  for (const auto& v : section->values) {
    if (only != nullptr && std::find(only->begin(), only->end(), v.key) == only->end()) continue;
    const std::string origin = preset_origin(presets, *section, v);
    const Message error = apply_value(target, section_name, v, origin);
    if (!error.empty()) throw UsageError(msg("--config {origin}: {problem}", arg("origin", origin), arg("problem", error)));
  }
}

// Every lesson's section is checked whenever a preset is read, whichever lesson runs (issue 50):
// a bad value in another lesson's section is one line naming the file, the line and the section
// now, not a surprise when that lesson runs or when grade reads the class's preset. The values
// go into flags of their own, which nothing reads.
// The keys a lesson's own section may set: its flags and the common ones a lesson run takes.
std::vector<std::string> own_section_keys(const CourseEntry& entry) {
  return preset_names(lesson_flag_names(asks_predictions(entry)));
}

void check_other_lesson_sections(const PresetFile& presets, const CourseEntry* running) {
  for (const auto& entry : course()) {
    if (&entry == running || entry.make == nullptr || presets.find(entry.slug) == nullptr) continue;
    const std::unique_ptr<Lesson> lesson = entry.make();
    CommonFlags scratch;
    Origins lesson_origins, common_origins;
    apply_section(presets, entry.slug,
                  {FlagLookup(lesson.get(), scratch, own_section_keys(entry)), lesson_origins, common_origins, nullptr, nullptr});
  }
}

// A section is [all], [show] or a lesson's name: anything else is a mistake the file's author
// must hear of, whichever command reads it.
void check_section_names(const PresetFile& presets) {
  std::vector<std::string> known{"all", "show"};
  for (const auto& lesson : course()) known.push_back(lesson.slug);
  for (const auto& s : presets.sections) {
    if (std::find(known.begin(), known.end(), s.name) != known.end()) continue;
    const CourseEntry* by_number = find_course_entry(s.name);
    const std::string guess = by_number != nullptr ? by_number->slug : closest_word(s.name, known);
    const std::string origin = fmt::format("{}:{}", printable_value(presets.path, 200), s.line);
    const Message problem =
        guess.empty() ? msg("[{section}] is not a section; a section is [all] (every lesson), [show], [grade] (the "
                            "class) or a lesson's name",
                            arg("section", printable_value(s.name)))
                      : msg("[{section}] is not a section; a section is [all] (every lesson), [show], [grade] (the "
                            "class) or a lesson's name (did you mean [{guess}]?)",
                            arg("section", printable_value(s.name)), arg("guess", guess));
    throw UsageError(msg("--config {origin}: {problem}", arg("origin", origin), arg("problem", problem)));
  }
}

Message origin_of(const Origins& origins, const std::string& name) {
  const auto it = origins.find(name);
  return it == origins.end() ? Message("default") : it->second;
}

// A value someone gave (a preset, the command line: `given`) is data, shown as typed, spaces and
// all ("both", "64MiB", a path with a space). A flag left alone shows the flag table's default:
// one of several words ("all (up to 8)") is words in the student's language, one word is data.
Message shown_value(const std::string& value, bool given) {
  return given || value.find(' ') == std::string::npos ? Message::verbatim(printable_value(value)) : Message(value);
}

// What the run will actually use; for a flag left alone, the words that explain its default
// ("0 (every device, ...)", "20 (the lesson's, adaptive)").
Message resolved_value(const Invocation& inv, const LessonSetup* lesson, const std::string& name,
                       const std::string& value, bool given) {
  if (!value.empty()) return shown_value(value, given);
  if (name == "lang") return msg("{lang} (from LC_ALL, LC_MESSAGES or LANG)", arg("lang", std::string(lang_name(inv.output.lang()))));
  if (name == "device") return Message("0 (every device, for a lesson that lists them)");
  if (lesson != nullptr && (name == "repeat" || name == "warmup")) {
    const Repetitions reps = lesson->lesson->default_repetitions();
    const int count = name == "repeat" ? reps.repeat : reps.warmup;
    return msg("{count} (the lesson's, adaptive)", arg("count", count));
  }
  return Message("none");
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
void print_rows(std::string& out, const std::vector<std::pair<std::string, Message>>& rows, const Origins& origins,
                Lang lang, std::size_t width) {
  for (const auto& [name, value] : rows) {
    const std::string shown = tr(lang, value);
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

// The common flags `names` as `flags` holds them, each with where it came from.
void print_common(std::string& out, const Invocation& inv, const CommonFlags& flags, const Origins& origins,
                  const std::vector<std::string>& names, const LessonSetup* lesson) {
  std::vector<std::pair<std::string, Message>> rows;
  for (const auto& name : names) {
    if (command_line_only(name)) continue;
    const auto* row = common_flags().find(name);
    std::string value = row->value(flags);
    if (row->spec.kind == FlagKind::on_off) value = value == "on" ? "true" : "false";  // as a preset writes it
    rows.emplace_back(name, resolved_value(inv, lesson, name, value, origins.count(name) > 0));
  }
  print_rows(out, rows, origins, inv.output.lang(), inv.output.style.width);
}

void print_lesson(std::string& out, const LessonSetup& setup, Lang lang, std::size_t width) {
  std::vector<std::pair<std::string, Message>> rows;
  for (const auto& spec : setup.lesson->flags()) {
    std::string value = setup.lesson->flag_value(spec.name);
    if (spec.kind == FlagKind::on_off) value = value == "on" ? "true" : "false";  // as a preset writes it
    rows.emplace_back(spec.name, value.empty() ? Message("none") : shown_value(value, setup.origins.count(spec.name) > 0));
  }
  print_rows(out, rows, setup.origins, lang, width);
}

// Under `all`, one lesson's block: its own flags, the common flags its section changed, and the
// values of its section that only a lone run of it uses.
void print_tour_lesson(std::string& out, const Invocation& inv, const LessonSetup& setup) {
  const Lang lang = inv.output.lang();
  const std::size_t width = inv.output.style.width;
  const auto number = fmt::format("{:02d}", setup.entry->number);
  const Message heading = setup.preset_error.empty()
                              ? msg("# lesson {number} {slug}", arg("number", number), arg("slug", setup.entry->slug))
                              : msg("# lesson {number} {slug} — refused: {error}", arg("number", number),
                                    arg("slug", setup.entry->slug), arg("error", setup.preset_error));
  comment_line(out, tr(lang, heading), width);
  print_lesson(out, setup, lang, width);
  std::vector<std::string> changed;
  for (const auto& name : all_flag_names()) {
    if (origin_of(setup.tour.origins, name) != origin_of(inv.flag_origins, name)) changed.push_back(name);
  }
  print_common(out, inv, setup.tour.flags, setup.tour.origins, changed, &setup);
  std::vector<std::pair<std::string, Message>> rows;
  Origins origins;
  for (const auto& a : setup.tour.alone_only) {
    rows.emplace_back(a.name, Message::verbatim(printable_value(a.value)));
    origins[a.name] = msg("{origin} (only when it runs alone)", arg("origin", a.origin));
  }
  print_rows(out, rows, origins, lang, width);
}

}  // namespace

void mark_typed(Invocation& inv, const CLI::App* parsed) {
  if (parsed == nullptr) return;
  for (const CLI::Option* opt : parsed->get_options()) {
    if (opt->count() == 0 || opt->get_lnames().empty()) continue;
    const std::string name = opt->get_lnames().front();
    const bool lesson_flag = !inv.lessons.empty() && inv.command != Command::all &&
                             FlagLookup(inv.lesson().lesson.get(), inv.flags, {}).is_lessons_own(name);
    (lesson_flag ? inv.lesson().origins : inv.flag_origins)[name] = Message("flag");
  }
}

// [all] first, for every lesson; then the lesson's own section; flags typed on the command line
// win over both. Under `all` each lesson gets its own copy of the tour's flags, and a bad section
// stops only its lesson.
void apply_presets(Invocation& inv, const CLI::App* parsed, const PresetFile& presets) {
  check_section_names(presets);
  const auto every_lesson = preset_names(all_flag_names());
  const auto own_section = [](const LessonSetup& s) { return own_section_keys(*s.entry); };
  switch (inv.command) {
    case Command::lesson:
    case Command::live: {
      LessonSetup& setup = inv.lesson();
      apply_section(presets, "all", {FlagLookup(nullptr, inv.flags, every_lesson), setup.origins, inv.flag_origins, parsed, nullptr});
      apply_section(presets, setup.entry->slug,
                    {FlagLookup(setup.lesson.get(), inv.flags, own_section(setup)), setup.origins, inv.flag_origins, parsed, nullptr});
      check_other_lesson_sections(presets, setup.entry);
      break;
    }
    case Command::all:
      apply_section(presets, "all", {FlagLookup(nullptr, inv.flags, every_lesson), inv.flag_origins, inv.flag_origins, parsed, nullptr});
      for (auto& setup : inv.lessons) {
        setup.tour = TourFlags{inv.flags, inv.flag_origins, {}};
        try {
          apply_section(presets, setup.entry->slug,
                        {FlagLookup(setup.lesson.get(), setup.tour.flags, own_section(setup)), setup.origins,
                         setup.tour.origins, parsed, &setup.tour.alone_only});
        } catch (const UsageError& e) {
          setup.preset_error = words_of(e);  // only this lesson stops
        }
      }
      break;
    case Command::show: {
      // [all] reaches show: its keys that are flags of show (lang, color, width, ...) apply, then
      // [show]'s win over them. The rest of [all] (repeat, strict, ...) is checked as a lesson takes
      // it, into flags that nothing reads.
      CommonFlags scratch;
      Origins scratch_origins;
      apply_section(presets, "all", {FlagLookup(nullptr, scratch, every_lesson), scratch_origins, scratch_origins, nullptr, nullptr});
      const auto show_keys = preset_names(show_flag_names());
      apply_section(presets, "all", {FlagLookup(nullptr, inv.flags, show_keys), inv.flag_origins, inv.flag_origins, parsed, nullptr},
                    &show_keys);
      apply_section(presets, "show", {FlagLookup(nullptr, inv.flags, show_keys), inv.flag_origins, inv.flag_origins, parsed, nullptr});
      check_other_lesson_sections(presets, nullptr);
      break;
    }
    default: break;
  }
}

std::string effective_config(const Invocation& inv) {
  std::string out;
  const Lang lang = inv.output.lang();
  const std::size_t width = inv.output.style.width;
  switch (inv.command) {
    case Command::all:
      comment_line(out, tr(lang, msg("# effective flags of {command}: value, then where it came from", arg("command", std::string("all")))), width);
      print_common(out, inv, inv.flags, inv.flag_origins, all_flag_names(), nullptr);
      for (const auto& setup : inv.lessons) {
        out += '\n';
        print_tour_lesson(out, inv, setup);
      }
      break;
    case Command::show:
      comment_line(out, tr(lang, msg("# effective flags of {command}: value, then where it came from", arg("command", std::string("show")))), width);
      print_common(out, inv, inv.flags, inv.flag_origins, show_flag_names(), nullptr);
      break;
    default:
      comment_line(out,
                   tr(lang, msg("# effective flags of {command}: value, then where it came from", arg("command", inv.lesson().entry->slug))),
                   width);
      print_lesson(out, inv.lesson(), lang, width);
      print_common(out, inv, inv.flags, inv.flag_origins, lesson_flag_names(asks_predictions(*inv.lesson().entry)),
                   &inv.lesson());
      break;
  }
  return out;
}

}  // namespace cudalab
