// Messages as templates (common/core/message.hpp), translated before they are formatted
// (Catalogue::render): English from the template, Chinese from the catalogue entry keyed by the
// template, with the arguments put where the Chinese names them; data stays as it is.
#include <gtest/gtest.h>

#include "cli/failure.hpp"
#include "common/core/errors.hpp"
#include "common/core/message.hpp"
#include "common/report/translate.hpp"

using namespace cudalab;

namespace {

TEST(Message, EnglishFillsTheNamedPlaceholders) {
  const Message m = msg("{streams} streams are {speedup}× faster than one", arg("streams", 4), arg("speedup", "2.23"));
  EXPECT_EQ(m.en(), "4 streams are 2.23× faster than one");
  EXPECT_EQ(m.text(), "{streams} streams are {speedup}× faster than one");
  ASSERT_EQ(m.args().size(), 2u);
  EXPECT_TRUE(m.args()[0].value.is_verbatim());   // a number is data
  EXPECT_FALSE(m.args()[1].value.is_verbatim());  // a string literal is words
}

TEST(Message, OtherBracesAreText) {
  EXPECT_EQ(msg("cudaGraphExec_t{nullptr} and {} and {Upper} and {x", arg("x", "1")).en(),
            "cudaGraphExec_t{nullptr} and {} and {Upper} and {x");
  EXPECT_EQ(msg("{missing} stays", arg("other", "1")).en(), "{missing} stays");
}

TEST(Message, ArgumentsAreNotScannedAgain) {
  // A file name that looks like a placeholder is printed as it is, never filled in.
  EXPECT_EQ(msg("cannot open {path} ({why})", arg("path", std::string("{why}")), arg("why", std::string("gone"))).en(),
            "cannot open {why} (gone)");
}

TEST(Message, PlaceholderNames) {
  EXPECT_EQ(placeholders_of("{a} {b_2} {a} {Bad} {}"), (std::vector<std::string>{"a", "b_2"}));
  EXPECT_TRUE(is_placeholder_name("streams"));
  EXPECT_FALSE(is_placeholder_name("2x"));
  EXPECT_FALSE(is_placeholder_name(std::string(33, 'a')));
}

Catalogue test_catalogue() {
  Catalogue c;
  c.add("{streams} streams are {speedup}× faster than {baseline}", "比{baseline}快 {speedup}×，用 {streams} 个流");
  c.add("one stream", "单个流");
  c.add("yes", "是");
  return c;
}

TEST(Catalogue, RendersTheChineseTemplateWithItsArgumentsInItsOwnOrder) {
  const Catalogue c = test_catalogue();
  const Message m = msg("{streams} streams are {speedup}× faster than {baseline}", arg("streams", 4),
                        arg("speedup", "2.23"), arg("baseline", "one stream"));
  EXPECT_EQ(c.render(m), "比单个流快 2.23×，用 4 个流");
  EXPECT_EQ(m.en(), "4 streams are 2.23× faster than one stream");
}

TEST(Catalogue, DataIsNeverTranslated) {
  const Catalogue c = test_catalogue();
  EXPECT_EQ(c.render(Message::verbatim("yes")), "yes");
  EXPECT_EQ(c.render(msg("{a} {b}", arg("a", std::string("yes")), arg("b", "yes"))), "yes 是");
}

TEST(Catalogue, ATemplateWithoutChineseIsPrintedInEnglishAndTheAuditNamesIt) {
  const Catalogue c = test_catalogue();
  const TranslationAudit audit;
  EXPECT_EQ(c.render(msg("{n} widgets", arg("n", 3))), "3 widgets");
  EXPECT_EQ(c.render("yes"), "是");
  EXPECT_EQ(audit.looked_up(), 2u);
  EXPECT_EQ(audit.missing(), std::vector<std::string>{"{n} widgets"});
  // A template of placeholders and punctuation has no words to translate, and needs no entry:
  // in Chinese its separators are full-width.
  EXPECT_EQ(c.render(msg("{a}; {b}", arg("a", "yes"), arg("b", std::string("x")))), "是；x");
  EXPECT_EQ(c.render(msg("{a}: {b}, {c}", arg("a", "yes"), arg("b", std::string("x")), arg("c", std::string("y")))),
            "是：x，y");
  EXPECT_EQ(audit.looked_up(), 4u);
  EXPECT_EQ(audit.missing(), std::vector<std::string>{"{n} widgets"});
}

TEST(Catalogue, AFormattedEnglishLineIsNotATemplate) {
  // The catalogue knows "{streams} streams ...", not the English it makes: a finished line is
  // looked up as written and found by no pattern.
  const Catalogue c = test_catalogue();
  EXPECT_EQ(c.render(Message(std::string("4 streams are 2.23× faster than one stream"))),
            "4 streams are 2.23× faster than one stream");
}

TEST(Failure, AnErrorsTemplateIsTranslatedWithItsArguments) {
  const auto failure = failure_of(std::make_exception_ptr(
      UsageError(msg("--json: cannot write '{path}': {why}", arg("path", std::string("/x/y.json")),
                     arg("why", std::string("No such file or directory"))))));
  EXPECT_EQ(failure.exit_code, 2);
  EXPECT_EQ(failure_line(failure, Lang::en), "cudalab: error: --json: cannot write '/x/y.json': No such file or directory");
  EXPECT_EQ(failure_line(failure, Lang::zh), "cudalab：错误：--json：无法写入 '/x/y.json'：No such file or directory");
}

TEST(Failure, WhatAnErrorQuotesIsMadePrintable) {
  const auto failure = failure_of(std::make_exception_ptr(
      UsageError(msg("--json: cannot write '{path}': {why}", arg("path", std::string("a\x1b[31mb")),
                     arg("why", std::string("x"))))));
  EXPECT_EQ(failure_line(failure, Lang::en).find('\x1b'), std::string::npos);
}

}  // namespace
