#include "cli/options.hpp"

#include <cctype>
#include <cstdlib>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "common/core/files.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

// Integers only: CLI11 would accept "1e3" or " 4" for an int; a student's typo should not pass.
CLI::Validator integer_in_range(int min, int max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        std::size_t i = (text.size() > 1 && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
        if (i == text.size()) return fmt::format("'{}' is not a whole number; allowed {} to {}", text, min, max);
        for (std::size_t k = i; k < text.size(); ++k) {
          if (!std::isdigit(static_cast<unsigned char>(text[k]))) {
            return fmt::format("'{}' is not a whole number; allowed {} to {}", text, min, max);
          }
        }
        errno = 0;
        const long long v = std::strtoll(text.c_str(), nullptr, 10);
        if (errno == ERANGE || v < min || v > max) {
          return fmt::format("{} is out of range; allowed {} to {}", text, min, max);
        }
        return {};
      },
      fmt::format("[{} - {}]", min, max));
}

CLI::Option* add_size_option(CLI::App& app, const std::string& name, std::uint64_t& bytes,
                             std::uint64_t min_bytes, std::uint64_t max_bytes,
                             const std::string& description) {
  const std::string allowed = fmt::format("allowed {} to {}", format_bytes(min_bytes), format_bytes(max_bytes));
  auto* opt = app.add_option_function<std::string>(
      name,
      // The validator below has already accepted the text, so parsing cannot fail here.
      [&bytes](const std::string& text) { bytes = *parse_size(text); },
      fmt::format("{} (units B, KiB, MiB, GiB; {}) [default: {}]", description, allowed, format_bytes(bytes)));
  opt->check(CLI::Validator(
      [min_bytes, max_bytes, allowed](std::string& text) -> std::string {
        const auto parsed = parse_size(text);
        const std::string shown = text.size() > 32 ? text.substr(0, 32) + "…" : text;
        if (!parsed) return fmt::format("'{}' is not a size; write e.g. 4096, 64KiB, 64MiB or 1GiB ({})", shown, allowed);
        if (*parsed < min_bytes || *parsed > max_bytes) return fmt::format("{} is out of range; {}", shown, allowed);
        return {};
      },
      "SIZE"));
  opt->type_name("SIZE");
  return opt;
}

CLI::Option* add_int_option(CLI::App& app, const std::string& name, int& value, int min, int max,
                            const std::string& description) {
  auto* opt = app.add_option(name, value, description);
  opt->check(integer_in_range(min, max));
  opt->capture_default_str();
  return opt;
}

CLI::Option* add_output_file_option(CLI::App& app, const std::string& name, std::string& path,
                                    const std::string& description, bool allow_stdout) {
  auto* opt = app.add_option(name, path, description);
  opt->type_name("FILE");
  opt->check(CLI::Validator(
      [allow_stdout](std::string& text) -> std::string { return check_output_path(text, allow_stdout); }, "FILE"));
  return opt;
}

CLI::Option* add_choice_option(CLI::App& app, const std::string& name, std::string& value,
                               const std::vector<std::string>& choices,
                               const std::string& description) {
  auto* opt = app.add_option(name, value, description);
  opt->check(CLI::Validator(
      [choices](std::string& text) -> std::string {
        for (const auto& c : choices) {
          if (c == text) return {};
        }
        return fmt::format("'{}' is not allowed; use one of {}", text, join_words(choices, ", "));
      },
      join_words(choices, "|")));
  opt->capture_default_str();
  return opt;
}

CLI::Option* add_portable_flag(CLI::App& app, CommonOptions& o) {
  return app.add_flag("--portable", o.portable,
                      "with --stable: only the lesson, its params and the verify results, identical on every "
                      "correct GPU");
}

void add_common_options(CLI::App& app, CommonOptions& o) {
  const char* group = "Common options";
  add_int_option(app, "--device", o.device, 0, 63, "CUDA device index (default: device 0)")
      ->default_str("")
      ->group(group);
  add_choice_option(app, "--format", o.format, {"text", "json"}, "output form")->group(group);
  add_output_file_option(app, "--json", o.json_path, "also write the run as JSON to FILE ('-' for stdout)",
                         /*allow_stdout=*/true)
      ->group(group);
  app.add_flag("--stable", o.stable, "print only what graders may diff (no timings)")->group(group);
  add_portable_flag(app, o)->group(group);
  add_choice_option(app, "--color", o.color, {"auto", "always", "never"},
                    "colour (auto: only on a terminal and without NO_COLOR)")
      ->group(group);
  add_choice_option(app, "--lang", o.lang, {"zh", "en"}, "language of the notes (default from LC_ALL/LANG)")
      ->group(group);
  // 0 and -1 are "the lesson's default", not values a user should see as defaults.
  add_int_option(app, "--repeat", o.repeat, 1, 100000, "timed repetitions (default: the lesson's)")
      ->default_str("")
      ->group(group);
  add_int_option(app, "--warmup", o.warmup, 0, 10000, "untimed warm-up runs (default: the lesson's)")
      ->default_str("")
      ->group(group);
  add_picture_options(app, o);
  app.add_flag("--predict", o.predict, "predict first: answer the lesson's questions before it measures")->group(group);
  app.add_option("--answers", o.answers_path, "with --predict: read the answers from FILE (key = value lines)")
      ->type_name("FILE")
      ->check(CLI::ExistingFile)
      ->group(group);
  add_int_option(app, "--wait-idle", o.wait_idle_s, 0, 3600,
                 "wait up to SECONDS for other processes to leave the GPU before measuring")
      ->group(group);
  app.add_flag("--pause", o.pause, "wait for Enter between sections (on a terminal)")->group(group);
  app.add_flag("--strict", o.strict, "a failed expect check fails the exit code too")->group(group);
  app.add_flag("--print-config", o.print_config,
               "print the effective flags (default, preset or flag) instead of running")
      ->group(group);
  app.add_flag("--timeline", o.timeline,
               "trace one extra, untimed run with CUPTI and draw it: one lane per stream")
      ->group(group);
  add_output_file_option(app, "--trace", o.trace_path,
                         "write that traced run as Chrome trace events to FILE.json (open in ui.perfetto.dev)",
                         /*allow_stdout=*/false)
      ->group(group);
}

void add_picture_options(CLI::App& app, CommonOptions& o) {
  const std::string group = "Output";
  app.add_flag("--table", o.tables, "list the numbers behind each plot too")->group(group);
  app.add_option("--svg", o.svg_dir, "write each plot and timeline as an SVG file into DIR")
      ->type_name("DIR")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string { return check_output_dir(text); }, "DIR"))
      ->group(group);
}

void add_flag_options(CLI::App& app, const std::vector<FlagSpec>& flags, const FlagSetter& set_flag) {
  for (const FlagSpec& spec : flags) {
    const std::string name = spec.name;
    auto set = [set_flag, name](const std::string& text) {
      const std::string error = set_flag(name, text);
      if (!error.empty()) throw CLI::ValidationError("--" + name, error);
    };
    if (spec.kind == FlagKind::on_off) {
      app.add_flag_callback("--" + name, [set] { set("on"); }, spec.description);
      continue;
    }
    CLI::Option* opt = app.add_option_function<std::string>("--" + name, set, spec.description);
    if (!spec.default_text.empty()) opt->default_str(spec.default_text);
    if (spec.kind == FlagKind::size) opt->type_name("SIZE");
    if (spec.kind == FlagKind::integer) opt->type_name("INT");
    if (spec.kind == FlagKind::choice) opt->type_name(join_words(spec.choices, "|"));
    if (spec.kind == FlagKind::output_file) {
      opt->type_name("FILE");
      opt->check(CLI::Validator(
          [](std::string& text) -> std::string { return check_output_path(text, /*allow_stdout=*/false); }, ""));
    }
  }
}

void add_lesson_options(CLI::App& app, Lesson& lesson) {
  add_flag_options(app, lesson.flags(),
                   [&lesson](const std::string& name, const std::string& text) { return lesson.set_flag(name, text); });
}

}  // namespace cudalab
