// Flags of lessons 02 and 03: good values parse, bad ones give one error naming the flag.
#include <gtest/gtest.h>

#include <algorithm>

#include "common/bench/lesson.hpp"

namespace cudalab {
std::unique_ptr<Lesson> make_pinned_vs_pageable();
std::unique_ptr<Lesson> make_stream_overlap();
}  // namespace cudalab

using namespace cudalab;

namespace {

// Parses `args` into the lesson's own options; returns CLI11's error text, or "" on success.
std::string parse_error(Lesson& lesson, std::vector<std::string> args) {
  CLI::App app("test");
  lesson.add_options(app);
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

void expect_rejected(Lesson& lesson, const std::string& flag, const std::vector<std::string>& values) {
  for (const auto& v : values) {
    const std::string error = parse_error(lesson, {flag, v});
    EXPECT_NE(error, "") << flag << " " << v;
    EXPECT_NE(error.find(flag), std::string::npos) << flag << " " << v << ": " << error;
  }
}

}  // namespace

TEST(PinnedVsPageableFlags, GoodValuesParse) {
  auto lesson = make_pinned_vs_pageable();
  EXPECT_EQ(parse_error(*lesson, {}), "");
  EXPECT_EQ(parse_error(*lesson, {"--size", "64MiB", "--direction", "h2d", "--memory", "pinned"}), "");
  EXPECT_EQ(parse_error(*lesson, {"--size", "4KiB", "--direction", "both", "--memory", "registered"}), "");
  EXPECT_EQ(parse_error(*lesson, {"--size", "1000003", "--direction", "d2h", "--memory", "all"}), "");
  EXPECT_EQ(parse_error(*lesson, {"--size", "0"}), "") << "0 asks for the sweep";
}

TEST(PinnedVsPageableFlags, BadValuesNameTheFlag) {
  auto lesson = make_pinned_vs_pageable();
  expect_rejected(*lesson, "--size", {"-1", "abc", "64XB", "17GiB", "1e9", "1.3B"});
  expect_rejected(*lesson, "--direction", {"up", "", "H2D", "3"});
  expect_rejected(*lesson, "--memory", {"managed", "pinned,pageable", "0"});
}

TEST(StreamOverlapFlags, GoodValuesParse) {
  auto lesson = make_stream_overlap();
  EXPECT_EQ(parse_error(*lesson, {}), "");
  EXPECT_EQ(parse_error(*lesson, {"--streams", "3", "--size", "1000003"}), "");
  EXPECT_EQ(parse_error(*lesson, {"--streams", "1"}), "");
  EXPECT_EQ(parse_error(*lesson, {"--streams", "64", "--chunks", "1024", "--size", "1GiB"}), "");
  EXPECT_EQ(parse_error(*lesson, {"--kernel-iters", "400", "--chunks", "0"}), "");
  EXPECT_EQ(parse_error(*lesson, {"--size", "64GiB"}), "") << "too large for the device: refused at run time, with free memory";
}

TEST(StreamOverlapFlags, BadValuesNameTheFlag) {
  auto lesson = make_stream_overlap();
  expect_rejected(*lesson, "--streams", {"0", "-1", "65", "99999999999", "four", "4.5"});
  expect_rejected(*lesson, "--chunks", {"-1", "1025", "many"});
  expect_rejected(*lesson, "--kernel-iters", {"-5", "1000001", "lots"});
  expect_rejected(*lesson, "--size", {"0", "4095", "2TiB", "-64MiB", "64MB/s", "x"});
}
