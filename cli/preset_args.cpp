#include "preset_args.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cli/suggest.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

bool typed_by_user(const std::vector<std::string>& user_args, const std::string& name) {
  const std::string flag = "--" + name;
  return std::any_of(user_args.begin(), user_args.end(),
                     [&](const std::string& a) { return a == flag || a.rfind(flag + "=", 0) == 0; });
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    if (!opt->get_lnames().empty() && opt->get_lnames().front() != "help") names.push_back(opt->get_lnames().front());
  }
  return names;
}

}  // namespace

PresetArgs preset_args(const PresetFile& file, const std::string& section_name, const CLI::App& app,
                       const std::vector<std::string>& user_args, bool skip_unknown) {
  PresetArgs out;
  const PresetSection* section = file.find(section_name);
  if (section == nullptr) return out;
  for (const auto& v : section->values) {
    const std::string where = "--config " + preset_origin(file, *section, v);
    const CLI::Option* opt = app.get_option_no_throw("--" + v.key);
    if (opt == nullptr || v.key == "help" || v.key == "config") {
      if (skip_unknown) continue;
      const std::string guess = closest_word(v.key, option_names(app));
      throw UsageError(fmt::format("{}: {} is not a flag of {}{}", where, v.key, section_name,
                                   guess.empty() ? "" : fmt::format(" (did you mean {}?)", guess)));
    }
    if (typed_by_user(user_args, v.key)) continue;
    const bool is_switch = opt->get_expected_min() == 0;
    if (is_switch) {
      if (v.type != PresetValue::Type::boolean) {
        throw UsageError(fmt::format("{}: {} is a switch: write {} = true or {} = false", where, v.key, v.key, v.key));
      }
      if (v.text == "true") out.args.push_back("--" + v.key);
    } else {
      if (v.type == PresetValue::Type::boolean) {
        throw UsageError(fmt::format("{}: {} takes a value, not {}", where, v.key, v.text));
      }
      out.args.push_back("--" + v.key);
      out.args.push_back(v.text);
    }
    out.origin[v.key] = preset_origin(file, *section, v);
  }
  return out;
}

void parse_with_origins(CLI::App& app, std::vector<std::string> args, const PresetArgs& preset) {
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector from the back
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    const std::string message = e.what();
    for (const auto& [name, where] : preset.origin) {
      if (message.find("--" + name) != std::string::npos) throw UsageError(fmt::format("--config {}: {}", where, message));
    }
    throw;
  }
}

std::string effective_config(const CLI::App& app, const PresetArgs& preset) {
  std::string out = fmt::format("# effective flags of {}: value, then where it came from\n", app.get_name());
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_lnames().empty()) continue;
    const std::string name = opt->get_lnames().front();
    if (name == "help" || name == "print-config") continue;
    std::string value, origin;
    if (opt->count() > 0) {
      for (const auto& r : opt->results()) value += (value.empty() ? "" : " ") + r;
      if (opt->get_expected_min() == 0) value = "true";
      const auto it = preset.origin.find(name);
      origin = it != preset.origin.end() ? "preset " + it->second : "flag";
    } else {
      value = opt->get_default_str().empty() ? (opt->get_expected_min() == 0 ? "false" : "(the lesson's choice)")
                                            : opt->get_default_str();
      origin = "default";
    }
    out += fmt::format("{} = {}  # {}\n", pad_right(name, 16), pad_right(value, 10), origin);
  }
  return out;
}

}  // namespace cudalab
