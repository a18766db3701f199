// A lesson's flags as one declarative table: each row names a flag once, and the table both
// registers it with CLI11 (validated: ranges, sizes with units, choices) and prints it into the
// report's params. A lesson's params.hpp holds its Params struct and its table:
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
#include <vector>

#include <CLI/CLI.hpp>

#include "common/bench/options.hpp"
#include "common/report/report.hpp"
#include "common/report/text_format.hpp"

namespace cudalab {

template <class P>
class FlagTable {
 public:
  struct Row {
    std::string name;  // without dashes, as in the report and in a preset file
    std::function<CLI::Option*(CLI::App&, P&)> add;
    std::function<Param(const P&)> param;
  };

  // --name N, a whole number in [min, max].
  FlagTable&& integer(std::string name, int P::*field, int min, int max, std::string description) && {
    rows_.push_back({name,
                     [=](CLI::App& app, P& p) { return add_int_option(app, "--" + name, p.*field, min, max, description); },
                     [=](const P& p) { return Param{name, std::to_string(p.*field), true}; }});
    return std::move(*this);
  }

  // --name N where leaving it out lets the run choose (from the device, or by calibration): the
  // report shows what the run resolved, marked device-dependent unless the user gave it.
  FlagTable&& optional_integer(std::string name, std::optional<int> P::*field, int min, int max,
                               std::string default_text, std::string description) && {
    rows_.push_back({name,
                     [=](CLI::App& app, P& p) {
                       auto* opt = app.add_option_function<int>(
                           "--" + name, [&p, field](int v) { p.*field = v; }, description);
                       opt->check(integer_in_range(min, max));
                       opt->default_str(default_text);
                       return opt;
                     },
                     [=](const P& p) {
                       return (p.*field) ? Param{name, std::to_string(*(p.*field)), true}
                                         : Param{name, default_text, false};
                     }});
    return std::move(*this);
  }

  // --name SIZE with units, in [min, max] bytes.
  FlagTable&& size(std::string name, std::uint64_t P::*field, std::uint64_t min, std::uint64_t max,
                   std::string description) && {
    rows_.push_back({name,
                     [=](CLI::App& app, P& p) { return add_size_option(app, "--" + name, p.*field, min, max, description); },
                     [=](const P& p) { return Param{name, format_bytes(p.*field), true}; }});
    return std::move(*this);
  }

  // --name WORD, one of `choices`.
  FlagTable&& choice(std::string name, std::string P::*field, std::vector<std::string> choices,
                     std::string description) && {
    rows_.push_back({name,
                     [=](CLI::App& app, P& p) { return add_choice_option(app, "--" + name, p.*field, choices, description); },
                     [=](const P& p) { return Param{name, p.*field, true}; }});
    return std::move(*this);
  }

  // --name, a switch; shown in the report as on/off.
  FlagTable&& flag(std::string name, bool P::*field, std::string description) && {
    rows_.push_back({name, [=](CLI::App& app, P& p) { return app.add_flag("--" + name, p.*field, description); },
                     [=](const P& p) { return Param{name, p.*field ? "on" : "off", true}; }});
    return std::move(*this);
  }

  // --name FILE the run writes; not a param of the experiment, so not in the report.
  FlagTable&& output_file(std::string name, std::string P::*field, std::string description) && {
    rows_.push_back({name,
                     [=](CLI::App& app, P& p) {
                       return add_output_file_option(app, "--" + name, p.*field, description, /*allow_stdout=*/false);
                     },
                     nullptr});
    return std::move(*this);
  }

  void add_to(CLI::App& app, P& p) const {
    for (const auto& row : rows_) row.add(app, p);
  }

  std::vector<Param> params(const P& p) const {
    std::vector<Param> out;
    for (const auto& row : rows_) {
      if (row.param) out.push_back(row.param(p));
    }
    return out;
  }

  const std::vector<Row>& rows() const { return rows_; }

 private:
  std::vector<Row> rows_;
};

}  // namespace cudalab
