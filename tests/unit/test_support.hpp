// Shared by the unit tests: run the whole CLI in-process, and parse flags into a throwaway app.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/app.hpp"
#include "cli/course.hpp"
#include "common/core/errors.hpp"
#include "cli/flags.hpp"
#include "common/lesson/flag_table.hpp"
#include "common/report/report.hpp"

namespace cudalab::testing_support {

struct CliOutcome {
  int code;
  std::string out;
  std::string err;
};

// The class key every unit test holds (class_key_environment.cpp).
inline const std::string kTestClassKey = "cudalab unit tests: the class key of a class that does not exist";

// `cudalab args...` in this process, with stdout and stderr captured.
inline CliOutcome run_cudalab(std::vector<std::string> args) {
  args.insert(args.begin(), "cudalab");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = run_cli(static_cast<int>(argv.size()), argv.data());
  std::string out = ::testing::internal::GetCapturedStdout();
  return CliOutcome{code, std::move(out), ::testing::internal::GetCapturedStderr()};
}

// Checks for made-up reports (lessons build theirs with ReportBuilder).
inline Check verify_check(std::string key, bool passed, Message summary, Message detail = {}) {
  return Check{CheckKind::verify, std::move(key), passed, std::move(summary), std::move(detail), {}, {}};
}
inline Check expect_check(std::string key, bool passed, Message summary, Message detail = {}) {
  return Check{CheckKind::expect, std::move(key), passed, std::move(summary), std::move(detail), {}, {}};
}

// The name of lesson `number`, read from the course table: tests spell lesson names through this,
// so the table stays the only place outside a lesson's folder that names a lesson. Throws
// std::out_of_range for a number the course does not have, which fails the calling test.
inline std::string slug_of(int number) {
  for (const auto& e : course()) {
    if (e.number == number) return e.slug;
  }
  throw std::out_of_range("no lesson " + std::to_string(number));
}

// "NN-lesson-name" of lesson `number` in the course table: the name of its notes and reference run.
inline std::string reference_run_name(int number) {
  return (number < 10 ? "0" : "") + std::to_string(number) + "-" + slug_of(number);
}

// Exactly one line, as every error message must be.
inline bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

// No CUDA device for the rest of this process. CUDA reads the variable when it starts, so call
// this before anything touches CUDA; CTest runs every test in a process of its own.
inline void hide_gpus() { setenv("CUDA_VISIBLE_DEVICES", "", 1); }

// Parses `args` with the options `add(app)` registers; returns CLI11's message, "" on success.
template <typename AddOptions>
std::string parse_flags(std::vector<std::string> args, AddOptions&& add) {
  CLI::App app("test");
  add(app);
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector from the back
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  } catch (const UsageError& e) {  // a flag's own check refuses its value: "--size: ..."
    return e.what();
  }
  return {};
}

// A lesson's option struct after parsing `args` with its add_*_options function.
template <typename Options>
struct ParsedOptions {
  Options options;
  std::string error;  // "" when the flags were accepted
};
template <typename Options, typename AddOptions>
ParsedOptions<Options> parse_options(std::vector<std::string> args, AddOptions add) {
  ParsedOptions<Options> p;
  p.error = parse_flags(std::move(args), [&](CLI::App& app) { add(app, p.options); });
  return p;
}

// A lesson's Params after parsing `args` with its flag table.
template <typename P>
ParsedOptions<P> parse_params(const FlagTable<P>& table, std::vector<std::string> args) {
  ParsedOptions<P> p;
  p.error = parse_flags(std::move(args), [&](CLI::App& app) {
    add_flag_options(app, table.specs(), [&](const std::string& name, const std::string& text) {
      return table.find(name)->set(p.options, text);
    });
  });
  return p;
}

// Each {flag, value} must be refused with one line that names the flag.
template <class P>
void expect_refused(const FlagTable<P>& table, const std::vector<std::pair<std::string, std::string>>& flag_values) {
  for (const auto& [flag, value] : flag_values) {
    const std::string error = parse_params(table, {flag, value}).error;
    EXPECT_NE(error.find(flag), std::string::npos) << flag << " " << value << " -> " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  }
}

// A report's check or param by key; throws std::out_of_range naming a missing one.
inline const Check& check_of(const Report& r, const std::string& key) {
  for (const auto& c : r.checks) {
    if (c.key == key) return c;
  }
  throw std::out_of_range("no check " + key);
}
inline const Param& param_of(const Report& r, const std::string& name) {
  for (const auto& p : r.params) {
    if (p.name == name) return p;
  }
  throw std::out_of_range("no param " + name);
}

}  // namespace cudalab::testing_support
