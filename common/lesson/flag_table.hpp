// A lesson's flags as one declarative table: each row names a flag once, with its rule (a range,
// a size with units, a list of words), and the table both sets a lesson's Params from typed text
// and prints them into the report's params. The command line, class presets and live mode all
// set flags through it (cli/ turns the rows into CLI11 options), so every value meets one rule.
// A lesson's params.hpp holds its Params struct and its table:
//
//   struct Params { int waves = 20; std::optional<int> priority; };
//   inline const FlagTable<Params>& flags() {
//     static const FlagTable<Params> table = FlagTable<Params>()
//         .integer("waves", &Params::waves, 1, 100, "background length in waves")
//         .optional_integer("priority", &Params::priority, -1000, 1000, "highest", "urgent stream's priority");
//     return table;
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/core/files.hpp"
#include "common/core/text_format.hpp"
#include "common/core/units.hpp"
#include "common/report/report.hpp"

namespace cudalab {

enum class FlagKind {
  integer,      // a whole number in a range
  size,         // bytes, with units
  choice,       // one word of a list
  on_off,       // a switch: given or not
  output_file,  // a file the run writes; not a param of the experiment
  text,         // any other value with a rule of its own (a path to read, N or "auto")
};

// What the command line, presets, live mode, help and completion know of one flag.
struct FlagSpec {
  std::string name;         // without dashes, as in the report and in a preset file
  FlagKind kind = FlagKind::integer;
  Message description;      // for --help
  std::string default_text; // the default as a person reads it ("64MiB", "calibrated")
  std::vector<std::string> choices;  // FlagKind::choice
  std::string group;        // the --help heading it is listed under ("" = the lesson's own)
  std::string value_name;   // what --help shows after the flag: N, SIZE, FILE, DIR, SECONDS, ...
};

template <class P>
class FlagTable {
 public:
  struct Row {
    FlagSpec spec;
    // Sets the flag from typed text: empty when it is accepted, else why not (one printable line).
    std::function<Message(P&, const std::string&)> set;
    std::function<std::string(const P&)> value;    // the current value, as it would be typed
    std::function<std::optional<Param>(const P&)> param;  // nullopt: not a param of the experiment
  };

  // --name N, a whole number in [min, max].
  FlagTable&& integer(std::string name, int P::*field, int min, int max, std::string description) && {
    const P defaults{};
    add({name, FlagKind::integer, Message(description), std::to_string(defaults.*field), {}, {}, "N"},
        [=](P& p, const std::string& text) {
          Message error = whole_number_problem(text, min, max);
          if (error.empty()) p.*field = static_cast<int>(*parse_whole_number(text));
          return error;
        },
        [=](const P& p) { return std::to_string(p.*field); },
        [=](const P& p) { return Param{name, std::to_string(p.*field), true}; });
    return std::move(*this);
  }

  // --name N where leaving it out lets the run choose (from the device, or by calibration): the
  // report shows what the run resolved, marked device-dependent unless the user gave it.
  FlagTable&& optional_integer(std::string name, std::optional<int> P::*field, int min, int max,
                               std::string default_text, std::string description) && {
    add({name, FlagKind::integer, Message(description), default_text, {}, {}, "N"},
        [=](P& p, const std::string& text) {
          Message error = whole_number_problem(text, min, max);
          if (error.empty()) p.*field = static_cast<int>(*parse_whole_number(text));
          return error;
        },
        [=](const P& p) { return (p.*field) ? std::to_string(*(p.*field)) : default_text; },
        [=](const P& p) {
          return (p.*field) ? Param{name, std::to_string(*(p.*field)), true} : Param{name, default_text, false};
        });
    return std::move(*this);
  }

  // --name SIZE with units, in [min, max] bytes.
  FlagTable&& size(std::string name, std::uint64_t P::*field, std::uint64_t min, std::uint64_t max,
                   std::string description) && {
    const P defaults{};
    add({name, FlagKind::size,
         msg("{description} (units B, KiB, MiB, GiB; allowed {min} to {max})", arg("description", Message(description)),
             arg("min", format_bytes(min)), arg("max", format_bytes(max))),
         format_bytes(defaults.*field), {}, {}, "SIZE"},
        [=](P& p, const std::string& text) {
          Message error = size_problem(text, min, max);
          if (error.empty()) p.*field = *parse_size(text);
          return error;
        },
        [=](const P& p) { return format_bytes(p.*field); },
        [=](const P& p) { return Param{name, format_bytes(p.*field), true}; });
    return std::move(*this);
  }

  // --name WORD, one of `choices`.
  FlagTable&& choice(std::string name, std::string P::*field, std::vector<std::string> choices,
                     std::string description) && {
    const P defaults{};
    add({name, FlagKind::choice, Message(description), defaults.*field, choices, {}, join_words(choices, "|")},
        [=](P& p, const std::string& text) {
          Message error = choice_problem(text, choices);
          if (error.empty()) p.*field = text;
          return error;
        },
        [=](const P& p) { return p.*field; }, [=](const P& p) { return Param{name, p.*field, true}; });
    return std::move(*this);
  }

  // --name, a switch; shown in the report as on/off.
  FlagTable&& flag(std::string name, bool P::*field, std::string description) && {
    add({name, FlagKind::on_off, Message(description), "off", {}, {}, {}},
        [=](P& p, const std::string& text) {
          const auto on = parse_switch(text);
          if (!on) return msg("'{value}' is not a switch value; use on or off", arg("value", printable_value(text)));
          p.*field = *on;
          return Message();
        },
        [=](const P& p) { return std::string(p.*field ? "on" : "off"); },
        [=](const P& p) { return Param{name, p.*field ? "on" : "off", true}; });
    return std::move(*this);
  }

  // --name FILE the run writes; not a param of the experiment, so not in the report. The path is
  // checked when the flag is set, so a lesson never runs and then loses its output.
  FlagTable&& output_file(std::string name, std::string P::*field, std::string description) && {
    add({name, FlagKind::output_file, Message(description), "", {}, {}, "FILE"},
        [=](P& p, const std::string& text) {
          Message error = output_path_problem(text, /*allow_stdout=*/false);
          if (error.empty()) p.*field = text;
          return error;
        },
        [=](const P& p) { return p.*field; }, [](const P&) { return std::optional<Param>(); });
    return std::move(*this);
  }

  // --name VALUE with a rule of its own: `check(text)` returns nothing or why not. Not a param of
  // the experiment (the command line's own flags: --json FILE, --device N|auto, ...).
  FlagTable&& text(std::string name, std::string P::*field, std::string value_name,
                   std::function<Message(const std::string&)> check, std::string description,
                   std::string default_text = {}) && {
    add({name, FlagKind::text, Message(description), default_text, {}, {}, value_name},
        [=](P& p, const std::string& text) {
          Message error = check(text);
          if (error.empty()) p.*field = text;
          return error;
        },
        [=](const P& p) { return p.*field; }, [](const P&) { return std::optional<Param>(); });
    return std::move(*this);
  }

  // The last row's value, as --help names it ("SECONDS" instead of "N").
  FlagTable&& named(std::string value_name) && {
    rows_.back().spec.value_name = std::move(value_name);
    return std::move(*this);
  }

  // Rows added after this are listed under `heading` in --help.
  FlagTable&& in_group(std::string heading) && {
    group_ = std::move(heading);
    return std::move(*this);
  }

  std::vector<Param> params(const P& p) const {
    std::vector<Param> out;
    for (const auto& row : rows_) {
      if (auto param = row.param(p)) out.push_back(std::move(*param));
    }
    return out;
  }

  const Row* find(const std::string& name) const {
    for (const auto& row : rows_) {
      if (row.spec.name == name) return &row;
    }
    return nullptr;
  }

  std::vector<FlagSpec> specs() const {
    std::vector<FlagSpec> out;
    for (const auto& row : rows_) out.push_back(row.spec);
    return out;
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  void add(FlagSpec spec, std::function<Message(P&, const std::string&)> set,
           std::function<std::string(const P&)> value, std::function<std::optional<Param>(const P&)> param) {
    spec.group = group_;
    rows_.push_back({std::move(spec), std::move(set), std::move(value), std::move(param)});
  }
  std::vector<Row> rows_;
  std::string group_;
};

}  // namespace cudalab
