#include "cli/command_line.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "cli/drop_folder.hpp"
#include "cli/help_format.hpp"
#include "cli/preset_merge.hpp"
#include "cli/presets.hpp"
#include "cli/suggest.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/core/version.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// The one ordered registration list: the subcommands in the order --help lists them.
constexpr SetupFunction kRegistration[] = {setup_lessons, setup_all,  setup_live, setup_exercise, setup_show,
                                           setup_compare, setup_grade, setup_submit, setup_class, setup_list,
                                           setup_help,    setup_completion};

std::vector<std::string> command_words() {
  return {"list", "all", "show", "compare", "grade", "submit", "class", "live", "exercise", "help", "completion"};
}

// A lesson number or name the user typed that is not a subcommand.
Message unknown_command_message(const std::string& word) {
  std::vector<std::string> words = command_words();
  for (const auto& entry : course()) words.push_back(entry.slug);
  const std::string guess = closest_word(word, words);
  const std::string last = fmt::format("{:02d}", course().back().number);
  if (guess.empty()) {
    return msg("unknown lesson or command '{word}'; run `cudalab list` (lessons 01 to {last})",
               arg("word", printable_value(word)), arg("last", last));
  }
  return msg("unknown lesson or command '{word}' (did you mean {guess}?); run `cudalab list` (lessons 01 to {last})",
             arg("word", printable_value(word)), arg("guess", guess), arg("last", last));
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + printable_value(w);
  return out;
}

// "live 03" for a lesson under live, "03" for a lesson, the command's name otherwise: as typed
// most often, and a command that exists.
std::string command_path(const CLI::App* sub) {
  const CourseEntry* lesson = find_course_entry(sub->get_name());
  std::string path = lesson != nullptr ? fmt::format("{:02d}", lesson->number) : sub->get_name();
  for (const CLI::App* p = sub->get_parent(); p != nullptr && p->get_parent() != nullptr; p = p->get_parent()) {
    path = p->get_name() + " " + path;
  }
  return path;
}

std::vector<std::string> long_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->get_lnames().empty()) names.push_back("--" + opt->get_lnames().front());
  }
  return names;
}

// Every --lang takes effect as soon as CLI11 reads it, so an error later on the same command
// line is already in the language asked for.
void trigger_lang_on_parse(CLI::App& app) {
  if (CLI::Option* lang = app.get_option_no_throw("--lang")) lang->trigger_on_parse();
  for (CLI::App* sub : app.get_subcommands({})) trigger_lang_on_parse(*sub);
}

// The deepest subcommand CLI11 parsed ("live" → its lesson), from CLI11's own record: the final
// callbacks that set CommandSetup::parsed run only after a parse without errors.
const CLI::App* deepest_parsed(const CLI::App& app) {
  const CLI::App* found = nullptr;
  for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    found = sub;
  }
  return found;
}

// What a command lacks when CLI11 found a positional missing or short ("RUN is required", "RUNS:
// At least 2 required but received 1"), in our words: the command, the positional and what it
// takes, from its own help ("compare: 2 or more RUNS needed, 1 given; the baseline ..."). "" when
// no positional of `parsed` lacks a value.
Message missing_positional(const CLI::App* parsed) {
  if (parsed == nullptr) return {};
  for (const CLI::Option* opt : parsed->get_options()) {
    if (!opt->get_positional()) continue;
    const int least = std::max(opt->get_expected_min(), opt->get_required() ? 1 : 0);
    const auto got = static_cast<int>(opt->count());
    if (got >= least) continue;
    const std::string type = opt->get_type_name();
    const std::string name =
        opt->get_name() + (type.find('|') != std::string::npos ? " (" + type + ")" : std::string());
    const std::string path = command_path(parsed);
    // The description is a template CLI11 holds (help_format.cpp translates it the same way).
    const Message description(opt->get_description());
    if (least <= 1) {
      return msg("{command}: no {name} given; {description}", arg("command", path), arg("name", name),
                 arg("description", description));
    }
    return msg("{command}: {least} or more {name} needed, {got} given; {description}", arg("command", path),
               arg("least", least), arg("name", name), arg("got", got), arg("description", description));
  }
  return {};
}

// The command and the commands above it that CLI11 parsed, the deepest first: where a flag of
// the command line is looked up.
std::vector<const CLI::App*> parsed_chain(const CLI::App& app) {
  std::vector<const CLI::App*> chain{&app};
  for (const CLI::App* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    chain.push_back(sub);
  }
  return {chain.rbegin(), chain.rend()};
}

const CLI::Option* find_flag(const std::vector<const CLI::App*>& chain, const std::string& name) {
  for (const CLI::App* app : chain) {
    if (const CLI::Option* opt = app->get_option_no_throw(name)) return opt;
  }
  return nullptr;
}

Message needs_a_value(const std::string& name, const std::string& type) {
  return msg("{name} needs a value: {name} {value}", arg("name", name), arg("value", type));
}

// A word a value never is: "--" and a letter is a flag. CLI11 fills a flag's value from the next
// word whatever it is (`cudalab --config --lang zh` read "--lang" as the file).
bool looks_like_flag(const std::string& word) {
  return word.size() > 2 && word.compare(0, 2, "--") == 0 && std::isalpha(static_cast<unsigned char>(word[2])) != 0;
}

// Every flag that takes a value refuses one that is a flag, before its own rule reads it; so
// `03 --streams --lang zh` says --streams lacks its value rather than that "--lang" is no number.
// A value that must start with "--" is not one a flag of cudalab takes.
void refuse_flags_as_values(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    if (opt->get_positional() || opt->get_type_size() == 0 || opt->get_lnames().empty()) continue;
    const std::string name = "--" + opt->get_lnames().front(), type = opt->get_type_name();
    opt->check(CLI::Validator(
        [name, type](std::string& value) -> std::string {
          if (looks_like_flag(value)) throw UsageError(needs_a_value(name, type));
          return {};
        },
        "", "not a flag"));
  }
  for (CLI::App* sub : app.get_subcommands({})) refuse_flags_as_values(*sub);
}

// A flag typed without the value it takes, last or before another flag ("03 --streams"), in
// our words: "--streams needs a value: --streams N". Empty when there is none.
Message flag_without_value(const std::vector<const CLI::App*>& chain, const std::vector<std::string>& arguments) {
  for (std::size_t i = 1; i < arguments.size(); ++i) {
    const std::string& word = arguments[i];
    if (word.rfind("--", 0) != 0 || word.find('=') != std::string::npos) continue;
    const CLI::Option* opt = find_flag(chain, word);
    if (opt == nullptr || opt->get_type_size() == 0) continue;  // unknown, or a switch
    const bool next_is_value = i + 1 < arguments.size() && arguments[i + 1].rfind("--", 0) != 0;
    if (next_is_value) continue;
    return needs_a_value(word, opt->get_type_name());
  }
  return {};
}

// A flag that takes one value given more often ("--streams 4 --streams 5").
Message flag_given_twice(const std::vector<const CLI::App*>& chain) {
  for (const CLI::App* app : chain) {
    for (const CLI::Option* opt : app->get_options()) {
      if (opt->get_positional() || opt->get_lnames().empty() || opt->get_type_size() == 0) continue;
      if (static_cast<int>(opt->count()) <= std::max(1, opt->get_expected_max())) continue;
      const std::string name = "--" + opt->get_lnames().front();
      return msg("{name} is given {count} times; give it once: {name} {value}", arg("name", name),
                 arg("count", std::to_string(opt->count())), arg("value", opt->get_type_name()));
    }
  }
  return {};
}

// A switch typed with a value it cannot take ("01 --live=x"), for CLI11's ConversionError.
Message switch_with_value(const std::vector<const CLI::App*>& chain, const std::vector<std::string>& arguments) {
  for (const std::string& word : arguments) {
    const std::size_t eq = word.find('=');
    if (word.rfind("--", 0) != 0 || eq == std::string::npos) continue;
    const std::string name = word.substr(0, eq);
    // Only a switch's value is converted by CLI11 (every other flag takes its text as typed).
    if (find_flag(chain, name) == nullptr) continue;
    return msg("{name} is a switch: type it alone ({name}), or {name}=true or {name}=false, not {word}",
               arg("name", name), arg("word", printable_value(word)));
  }
  return {};
}

// Every error CLI11 can end a parse with, in our words: a positional or a flag's value missing,
// a flag given twice, a switch given a value, a value a CLI11 check refused. The last line is for
// an error none of these recognise: CLI11's text is quoted as data inside our own sentence.
Message parse_error_words(const CLI::ParseError& error, const CLI::App& app, const std::vector<std::string>& arguments) {
  const auto chain = parsed_chain(app);
  Message words;
  if (dynamic_cast<const CLI::RequiredError*>(&error) != nullptr ||
      dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    words = missing_positional(deepest_parsed(app));
    if (words.empty()) words = flag_without_value(chain, arguments);
    if (words.empty()) words = flag_given_twice(chain);
  }
  if (words.empty() && dynamic_cast<const CLI::ConversionError*>(&error) != nullptr) {
    words = switch_with_value(chain, arguments);
  }
  if (words.empty() && dynamic_cast<const CLI::ValidationError*>(&error) != nullptr) {
    // "--time-limit: Value 500 not in range [1 - 120]": the flag, then the rule as CLI11 checked it.
    const std::string what = error.what();
    const std::size_t colon = what.find(": ");
    const CLI::Option* opt = colon == std::string::npos ? nullptr : find_flag(chain, what.substr(0, colon));
    if (opt != nullptr) {
      words = msg("{name}: not a value it takes; it takes {value}", arg("name", what.substr(0, colon)),
                  arg("value", opt->get_type_name()));
    }
  }
  if (words.empty()) {
    words = msg("cannot read this command line ({detail}); `cudalab help` lists the commands and flags",
                arg("detail", Message::verbatim(printable_value(error.what()))));
  }
  return words;
}

}  // namespace

CommandLine::CommandLine()
    : app_("cudalab — a hands-on lab for GPU concurrency: streams, pinned memory, copy/compute overlap, "
           "priorities, host callbacks, CUDA Graphs, several GPUs and unified memory.",
           "cudalab") {
  app_.formatter(std::make_shared<WrappingFormatter>([this] { return error_lang(); }));
  app_.footer(help_footer());
  app_.set_version_flag("--version", fmt::format("cudalab {}", kToolVersion));
  add_config_option(app_, config_path_);
  app_.add_flag("--live", inv_.flags.live, "live mode, after a lesson: cudalab 03 --live");
  app_.require_subcommand(0, 1);
  // The setup is made of references to this command line's members; each callback keeps a copy
  // of it (a reference to `setup` itself would dangle once the constructor returns).
  CommandSetup setup{inv_, lesson_pool_, parsed_, config_path_};
  for (const SetupFunction add : kRegistration) add(app_, setup);
  trigger_lang_on_parse(app_);
  refuse_flags_as_values(app_);
}

Lang CommandLine::error_lang() const {
  if (lang_problem(inv_.flags.lang).empty()) return parse_lang(inv_.flags.lang);
  return typed_lang_.empty() ? lang_from_environment() : parse_lang(typed_lang_);
}

Message CommandLine::extras_message() const {
  const std::vector<std::string> before = app_.remaining(false);
  const CLI::App* parsed = deepest_parsed(app_);
  if (parsed == nullptr) {
    if (before.empty()) return Message("unexpected arguments");
    if (before.front().rfind("-", 0) == 0) {
      return msg("{words} needs a lesson first: cudalab 03 {words}", arg("words", joined(before)));
    }
    return unknown_command_message(before.front());
  }
  const std::string path = command_path(parsed);
  if (!before.empty()) {
    return msg("{words} must come after the lesson: cudalab {command} {words}", arg("words", joined(before)),
               arg("command", path));
  }
  const std::vector<std::string> extras = parsed->remaining(false);
  const std::string guess = extras.empty() ? "" : closest_word(extras.front(), long_names(*parsed));
  if (guess.empty() || guess == extras.front()) {
    return msg("{command} does not take: {words}", arg("command", path), arg("words", joined(extras)));
  }
  return msg("{command} does not take: {words} (did you mean {guess}?)", arg("command", path),
             arg("words", joined(extras)), arg("guess", guess));
}

Invocation& CommandLine::parse(int argc, const char* const* argv) {
  inv_.arguments.assign(argv, argv + argc);
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;  // what follows is a value, not a flag
    const std::string value = word == "--lang" && i + 1 < argc ? argv[i + 1] : word.rfind("--lang=", 0) == 0 ? word.substr(7) : "";
    if (!value.empty() && lang_problem(value).empty()) typed_lang_ = value;
  }
  try {
    app_.parse(argc, argv);
  } catch (const CLI::Success&) {
    throw;  // --help and --version: not errors
  } catch (const CLI::ExtrasError&) {
    throw UsageError(extras_message());
  } catch (const CLI::ParseError& e) {
    throw UsageError(parse_error_words(e, app_, inv_.arguments));
  }
  if (inv_.flags.live && parsed_ == nullptr) {
    throw UsageError("--live needs a lesson: cudalab live 03, or cudalab 03 --live");
  }
  if (inv_.command == Command::lesson && inv_.flags.live) inv_.command = Command::live;
  if (!inv_.flags.answers_path.empty() && !inv_.flags.predict) throw UsageError("--answers: only with --predict");
  mark_typed(inv_, parsed_);
  const PresetFile presets = config_path_.empty() ? PresetFile{} : read_presets(config_path_);
  apply_presets(inv_, parsed_, presets);
  inv_.presets = presets;
  inv_.output = plan_output(inv_.flags);  // the one place output is decided
  if (inv_.flags.submit) {  // refused before the run, not after it has measured
    inv_.output.submit_dir = drop_folder_path(inv_.class_settings());
    const Message unsafe = check_drop_folder(inv_.output.submit_dir);
    if (!unsafe.empty()) {
      // Set by a preset, the error names the file and line the setting came from, as others do.
      const auto origin = inv_.flag_origins.find("submit");
      const Message* where = origin != inv_.flag_origins.end() ? origin->second.find_arg("where") : nullptr;
      const Message problem = msg("--submit: {problem}", arg("problem", unsafe));
      if (where != nullptr) {  // "preset {where}"
        throw UsageError(msg("--config {origin}: {problem}", arg("origin", *where), arg("problem", problem)));
      }
      throw UsageError(problem);
    }
  }
  return inv_;
}

std::string CommandLine::help_of(const std::string& topic) {
  // Not app_.help(): CLI11 hands that to the parsed subcommand, which is `help` itself.
  if (topic.empty()) return app_.get_formatter()->make_help(&app_, app_.get_name(), CLI::AppFormatMode::Normal);
  const CourseEntry* entry = find_course_entry(topic);
  const std::string name = entry != nullptr ? entry->slug : topic;
  for (CLI::App* sub : app_.get_subcommands({})) {
    if (sub->get_name() == name) return sub->help();
  }
  throw UsageError(unknown_command_message(topic));
}

}  // namespace cudalab
