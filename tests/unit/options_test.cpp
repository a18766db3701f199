#include <gtest/gtest.h>

#include "cli/flags.hpp"
#include "test_support.hpp"

using namespace cudalab;

TEST(Sizes, AcceptsBytesAndBinaryUnits) {
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("64KiB"), 64u * 1024);
  EXPECT_EQ(parse_size("64MiB"), 64ull << 20);
  EXPECT_EQ(parse_size("1GiB"), 1ull << 30);
  EXPECT_EQ(parse_size("16k"), 16u * 1024);
  EXPECT_EQ(parse_size("1.5MiB"), 3ull << 19);
  EXPECT_EQ(parse_size("1000003"), 1000003u);
  EXPECT_EQ(parse_size("2MB"), 2000000u);
  EXPECT_EQ(parse_size("12B"), 12u);
}

TEST(Sizes, RejectsWhatIsNotASize) {
  for (const char* bad : {"", "abc", "-1", "64XB", "MiB", "1.2.3", "1.3B", "1e9", " 64", "99999999999999999999GiB"}) {
    EXPECT_FALSE(parse_size(bad).has_value()) << bad;
  }
}

namespace {
// A lesson's params for the test: one size and one whole number, declared as lessons do.
struct SizeAndStreams {
  std::uint64_t size = 4096;
  int streams = 4;
};
const FlagTable<SizeAndStreams>& size_and_streams() {
  static const FlagTable<SizeAndStreams> table =
      FlagTable<SizeAndStreams>()
          .size("size", &SizeAndStreams::size, 4096, 1ull << 30, "bytes")
          .integer("streams", &SizeAndStreams::streams, 1, 64, "streams");
  return table;
}

// Parses `args` into a throwaway app carrying every common flag of a lesson and the two above,
// through the same adapter the command line uses (cli/flags.hpp).
struct Parsed {
  CommonFlags common;
  SizeAndStreams own;
  std::string error;
  std::uint64_t size() const { return own.size; }
};
Parsed parse(std::vector<std::string> args) {
  Parsed p;
  p.error = testing_support::parse_flags(std::move(args), [&](CLI::App& app) {
    add_common_options(app, p.common, lesson_flag_names());
    add_flag_options(app, size_and_streams().specs(), [&](const std::string& name, const std::string& text) {
      return size_and_streams().find(name)->set(p.own, text);
    });
  });
  return p;
}
}  // namespace

TEST(Flags, GoodValuesParse) {
  const Parsed p = parse({"--device", "1", "--format", "json", "--repeat", "20", "--warmup", "0", "--lang", "zh",
                          "--color", "never", "--size", "64MiB", "--streams", "64", "--stable", "--pause"});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.common.device, "1");
  EXPECT_EQ(p.common.format, "json");
  EXPECT_EQ(p.common.repeat, 20);
  EXPECT_EQ(p.common.warmup, 0);
  EXPECT_EQ(p.common.lang, "zh");
  EXPECT_EQ(p.size(), 64ull << 20);
  EXPECT_EQ(p.own.streams, 64);
  EXPECT_TRUE(p.common.stable);
  EXPECT_TRUE(p.common.pause);
  const Parsed traced = parse({"--timeline", "--trace", "t.json"});
  ASSERT_EQ(traced.error, "");
  EXPECT_TRUE(traced.common.timeline);
  EXPECT_EQ(traced.common.trace_path, "t.json");
}

TEST(Flags, DefaultsWhenAbsent) {
  const Parsed p = parse({});
  ASSERT_EQ(p.error, "");
  EXPECT_EQ(p.common.device, "");
  EXPECT_FALSE(p.common.repeat.has_value());
  EXPECT_FALSE(p.common.warmup.has_value());
  EXPECT_EQ(p.size(), 4096u);
  EXPECT_FALSE(p.common.timeline);
  EXPECT_EQ(p.common.trace_path, "");
}

struct BadFlag {
  std::vector<std::string> args;
  const char* names;  // the flag the message must name
};

TEST(Flags, BadValuesNameTheFlagAndTheAllowedRange) {
  const std::vector<BadFlag> cases = {
      {{"--device", "-1"}, "--device"},     {{"--device", "abc"}, "--device"},
      {{"--device", "64"}, "--device"},     {{"--repeat", "0"}, "--repeat"},
      {{"--repeat", "abc"}, "--repeat"},    {{"--repeat", "1e3"}, "--repeat"},
      {{"--repeat", "99999999999"}, "--repeat"}, {{"--warmup", "-1"}, "--warmup"},
      {{"--format", "xml"}, "--format"},    {{"--color", "sometimes"}, "--color"},
      {{"--lang", "xx"}, "--lang"},         {{"--size", "0"}, "--size"},
      {{"--size", "64XB"}, "--size"},       {{"--size", "-5"}, "--size"},
      {{"--size", "2GiB"}, "--size"},       {{"--streams", "0"}, "--streams"},
      {{"--streams", "65"}, "--streams"},   {{"--streams", "four"}, "--streams"},
      {{"--trace", "-"}, "--trace"},        {{"--trace", ""}, "--trace"},
  };
  for (const auto& c : cases) {
    const Parsed p = parse(c.args);
    EXPECT_NE(p.error.find(c.names), std::string::npos) << c.args[0] << " " << c.args[1] << " -> " << p.error;
    EXPECT_EQ(p.error.find('\n'), std::string::npos) << "one line: " << p.error;
  }
  EXPECT_NE(parse({"--repeat", "0"}).error.find("1 to 100000"), std::string::npos);
  EXPECT_NE(parse({"--size", "64XB"}).error.find("4KiB to 1GiB"), std::string::npos);
  EXPECT_NE(parse({"--format", "xml"}).error.find("text, json"), std::string::npos);
}
