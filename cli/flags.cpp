#include "cli/flags.hpp"

#include <fmt/format.h>

#include "cli/help_format.hpp"
#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/units.hpp"
#include "common/core/version.hpp"

namespace cudalab {

namespace {

Message device_problem(const std::string& text) {
  if (text == "auto") return {};
  const Message error = whole_number_problem(text, 0, 63);
  return error.empty() ? error : msg("{problem} (or auto: the GPU with the shortest queue)", arg("problem", error));
}

// Checked before the run (no FIFO, device or folder can make it wait); read, size-limited, when
// the lesson asks its questions.
Message answers_problem(const std::string& text) { return input_file_problem(text); }

FlagTable<CommonFlags> make_common_flags() {
  return FlagTable<CommonFlags>()
      .in_group("Common options")
      .text("device", &CommonFlags::device, "N|auto", device_problem,
            "CUDA device index, or auto: the GPU with the shortest queue", "0")
      .optional_integer("repeat", &CommonFlags::repeat, 1, 100000, "the lesson's, adaptive",
                        "timed repetitions: exactly N when given")
      .optional_integer("warmup", &CommonFlags::warmup, 0, 10000, "the lesson's", "untimed warm-up runs")
      .flag("strict", &CommonFlags::strict, "a failed expect check fails the exit code too")
      .flag("timeline", &CommonFlags::timeline, "trace one extra, untimed run with CUPTI and draw it: one lane per stream")
      .text("trace", &CommonFlags::trace_path, "FILE",
            [](const std::string& t) { return output_path_problem(t, /*allow_stdout=*/false); },
            "write that traced run to FILE as Chrome trace events, a JSON file (open in ui.perfetto.dev)")
      .integer("wait-idle", &CommonFlags::wait_idle_s, 0, 3600,
               "wait up to SECONDS for processes other than cudalab to leave the GPU before measuring")
      .named("SECONDS")
      .flag("no-queue", &CommonFlags::no_queue, "measure without waiting for a turn on the GPU (the run may be disturbed)")
      .integer("queue-timeout", &CommonFlags::queue_timeout_s, 0, 86400,
               "give up after waiting SECONDS for a turn on the GPU (0: wait as long as it takes)")
      .named("SECONDS")
      .flag("predict", &CommonFlags::predict, "predict first: answer the lesson's questions before it measures")
      .text("answers", &CommonFlags::answers_path, "FILE", answers_problem,
            "with --predict: read the answers from FILE (key = value lines)")
      .flag("live", &CommonFlags::live, "live mode: run, then change flags at a prompt and run again")
      .flag("print-config", &CommonFlags::print_config,
            "print every flag's value and where it came from (default, preset or flag), run nothing")
      .in_group("Output")
      .choice("format", &CommonFlags::format, {"text", "json"}, "output form")
      .text("json", &CommonFlags::json_path, "FILE",
            [](const std::string& t) { return output_path_problem(t, /*allow_stdout=*/true); },
            "also write the run as JSON to FILE ('-' for stdout)")
      .flag("stable", &CommonFlags::stable, "print only what graders may diff (no timings)")
      .flag("portable", &CommonFlags::portable,
            "only the lesson, its params and the verify results, identical on every correct GPU")
      .choice("color", &CommonFlags::color, {"auto", "always", "never"}, "colour (auto: only on a terminal, without NO_COLOR)")
      .text("lang", &CommonFlags::lang, "zh|en", lang_problem, "language (default from LC_ALL, LC_MESSAGES or LANG)")
      .flag("table", &CommonFlags::tables, "list the numbers behind each plot too")
      .text("svg", &CommonFlags::svg_dir, "DIR", [](const std::string& t) { return output_dir_problem(t); },
            "write each plot and timeline as an SVG file into DIR")
      .flag("pause", &CommonFlags::pause, "wait for Enter between sections (on a terminal)")
      .flag("submit", &CommonFlags::submit,
            "hand the run in to the class's drop folder ($CUDALAB_CLASS_DIR, or [grade] drop in --config)");
}

std::vector<FlagSpec> specs_named(const std::vector<std::string>& names) {
  std::vector<FlagSpec> out;
  for (const auto& name : names) {
    const auto* row = common_flags().find(name);
    if (row == nullptr) throw std::logic_error("no common flag --" + name);
    out.push_back(row->spec);
  }
  return out;
}

}  // namespace

Message lang_problem(const std::string& text) { return choice_problem(text, {"zh", "en"}); }

const FlagTable<CommonFlags>& common_flags() {
  static const FlagTable<CommonFlags> table = make_common_flags();
  return table;
}

std::vector<std::string> lesson_flag_names(bool with_predict) {
  std::vector<std::string> names;
  for (const auto& row : common_flags().rows()) {
    const bool predicting = row.spec.name == "predict" || row.spec.name == "answers";
    if (with_predict || !predicting) names.push_back(row.spec.name);
  }
  return names;
}

std::vector<std::string> all_flag_names() {
  std::vector<std::string> names;
  for (const auto& name : lesson_flag_names()) {
    if (name != "live" && name != "predict" && name != "answers" && name != "submit") names.push_back(name);
  }
  return names;
}

std::vector<std::string> show_flag_names() {
  return {"format", "stable", "portable", "color",   "lang",   "table",
          "svg",    "pause",  "trace",    "predict", "answers", "print-config"};
}

void add_flag_options(CLI::App& app, const std::vector<FlagSpec>& flags, const FlagSetter& set_flag) {
  for (const FlagSpec& spec : flags) {
    const std::string name = spec.name;
    auto set = [set_flag, name](const std::string& text) {
      const Message error = set_flag(name, text);
      if (!error.empty()) throw UsageError(msg("--{flag}: {problem}", arg("flag", name), arg("problem", error)));
    };
    CLI::Option* opt = nullptr;
    if (spec.kind == FlagKind::on_off) {
      opt = app.add_flag_callback("--" + name, [set] { set("on"); }, spec.description.en());
    } else {
      opt = app.add_option_function<std::string>("--" + name, set, spec.description.en());
      opt->type_name(spec.value_name);
      if (!spec.default_text.empty()) opt->default_str(spec.default_text);
    }
    if (!spec.group.empty()) opt->group(spec.group);
    describe_option(opt, spec.description);
  }
}

void add_common_options(CLI::App& app, CommonFlags& flags, const std::vector<std::string>& names) {
  add_flag_options(app, specs_named(names), [&flags](const std::string& name, const std::string& text) {
    return common_flags().find(name)->set(flags, text);
  });
  // --version wherever a command takes the common flags: `cudalab 03 --version` as well.
  app.set_version_flag("--version", fmt::format("cudalab {}", kToolVersion))->group("Common options");
}

void add_config_option(CLI::App& app, std::string& path) {
  app.add_option_function<std::string>(
         "--config",
         [&path](const std::string& text) {
           if (text.empty()) throw UsageError("--config: needs a file: --config class.toml");
           path = text;
         },
         "TOML presets for a class: a [lesson-name] section per lesson")
      ->type_name("FILE")
      ->group("Common options");
}

void add_lesson_options(CLI::App& app, Lesson& lesson) {
  add_flag_options(app, lesson.flags(),
                   [&lesson](const std::string& name, const std::string& text) { return lesson.set_flag(name, text); });
}

}  // namespace cudalab
