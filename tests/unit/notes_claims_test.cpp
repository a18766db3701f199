// Claims in the notes (common/report/notes_claims.hpp): the form printed is the one true for the
// run shown; a run that cannot decide prints the unknown form; a malformed block is an error.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <limits>

#include "test_source_dir.hpp"

#include "common/report/builder.hpp"
#include "common/report/notes_claims.hpp"
#include "common/report/report_json.hpp"

using namespace cudalab;

namespace {

Report claims_run(double download_us, double copy_ms) {
  Report r;
  r.lesson_number = 2;
  r.lesson_slug = "pinned-vs-pageable";
  Section s;
  s.key = "async";
  s.metrics.push_back(measured("download", "download call", "us", {download_us}));
  s.metrics.push_back(measured("copy", "copy", "ms", {copy_ms}));
  s.metrics.push_back(measured("bw", "bandwidth", "GB/s", {10.0}));
  s.metrics.push_back(derived("speedup", "speed-up", "x", 2.0));
  s.facts.push_back({"records", "records", msg("{n}", arg("n", std::string("1,509"))), "", true});
  s.facts.push_back({"words", "words", msg("one kernel"), "", true});
  r.sections.push_back(s);
  Check passed;
  passed.kind = CheckKind::expect;
  passed.key = "overlap_wins";
  passed.passed = true;
  Check failed = passed;
  failed.key = "prefetch_wins";
  failed.passed = false;
  r.checks = {passed, failed};
  return r;
}

Truth truth(const Report& run, const std::string& condition) {
  std::string why, error;
  const Truth t = evaluate_condition(condition, {&run, nullptr, nullptr}, why, error);
  EXPECT_TRUE(error.empty()) << condition << ": " << error;
  return t;
}

std::string malformed(const std::string& condition) {
  static const Report run = claims_run(1000, 2);
  std::string why, error;
  EXPECT_EQ(evaluate_condition(condition, {&run, nullptr, nullptr}, why, error), Truth::unknown) << condition;
  return error;
}

std::string chosen(const Report& run, const std::string& text, Lang lang = Lang::en) {
  const auto out = choose_claims(text, {&run, nullptr, nullptr, lang});
  EXPECT_TRUE(out.errors.empty()) << text << ": " << (out.errors.empty() ? "" : out.errors.front());
  return out.text;
}

}  // namespace

TEST(NotesClaims, ComparisonsConvertTimeUnitsAndScaleByAFactor) {
  const Report run = claims_run(1500, 2.0);  // 1.5 ms against 2 ms
  EXPECT_EQ(truth(run, "download < copy"), Truth::yes);
  EXPECT_EQ(truth(run, "download >= copy"), Truth::no);
  EXPECT_EQ(truth(run, "download > 0.5 * copy"), Truth::yes);
  EXPECT_EQ(truth(run, "download > 0.8 * copy"), Truth::no);
  EXPECT_EQ(truth(run, "download <= 1500"), Truth::yes);  // a plain number is in the figure's unit
  EXPECT_EQ(truth(run, "speedup > 1.5 and speedup < 2.5"), Truth::yes);
  EXPECT_EQ(truth(run, "speedup == 2"), Truth::yes);
  EXPECT_EQ(truth(run, "speedup != 2"), Truth::no);
  EXPECT_EQ(truth(run, "download < ratio(16MiB, bw)"), Truth::yes);  // 1.5 ms against 1.68 ms
  EXPECT_EQ(truth(run, "fact:records > 1000"), Truth::yes);           // a fact that is a number
}

TEST(NotesClaims, ChecksFollowTheirVerdict) {
  const Report run = claims_run(1500, 2.0);
  EXPECT_EQ(truth(run, "check:overlap_wins"), Truth::yes);
  EXPECT_EQ(truth(run, "check:prefetch_wins"), Truth::no);
  EXPECT_EQ(truth(run, "not check:prefetch_wins"), Truth::yes);
  EXPECT_EQ(truth(run, "check:none"), Truth::unknown);
  EXPECT_EQ(truth(run, "not check:none"), Truth::unknown);
}

TEST(NotesClaims, AMissingFigureIsUnknownAndAndOrFollowThreeValuedLogic) {
  const Report run = claims_run(1500, 2.0);
  std::string why, error;
  EXPECT_EQ(evaluate_condition("absent < copy", {&run, nullptr, nullptr}, why, error), Truth::unknown);
  EXPECT_TRUE(error.empty()) << error;
  EXPECT_NE(why.find("absent"), std::string::npos) << why;
  EXPECT_EQ(truth(run, "absent < copy and download > copy"), Truth::no);
  EXPECT_EQ(truth(run, "absent < copy and download < copy"), Truth::unknown);
  EXPECT_EQ(truth(run, "absent < copy or download < copy"), Truth::yes);
  EXPECT_EQ(truth(run, "absent < copy or download > copy"), Truth::unknown);
  EXPECT_EQ(truth(run, "fact:words > 1"), Truth::unknown);  // a fact in words is no number
  std::string none_why, none_error;
  EXPECT_EQ(evaluate_condition("download < copy", {nullptr, nullptr, nullptr}, none_why, none_error), Truth::unknown);
}

// A run read from a file is untrusted: a NaN or an infinity decides nothing.
TEST(NotesClaims, NonFiniteValuesAreUnknown) {
  const Report nan_run = claims_run(std::numeric_limits<double>::quiet_NaN(), 2.0);
  EXPECT_EQ(truth(nan_run, "download < copy"), Truth::unknown);
  EXPECT_EQ(truth(nan_run, "download >= copy"), Truth::unknown);
  const Report inf_run = claims_run(std::numeric_limits<double>::infinity(), 2.0);
  EXPECT_EQ(truth(inf_run, "download > copy"), Truth::unknown);
}

TEST(NotesClaims, AMalformedConditionIsAnError) {
  for (const std::string& bad : std::vector<std::string>{"", "download", "download = copy", "download < copy < bw", "download < ", "< copy", "x * download < copy",
        "2 * 3 * download < copy", "download < copy|.2", "download < bw", "not download < copy", "check:",
        "check:a b", "download ! copy", std::string(kMaxCondition + 1, 'a') + " < copy"}) {
    EXPECT_FALSE(malformed(bad).empty()) << "'" << bad << "'";
  }
}

TEST(NotesClaims, TheFormTrueForTheRunIsPrinted) {
  const std::string text =
      "The call took {{download}}, {{if download >= copy}}as long as the copy{{elif download > 0.5 * copy}}most of "
      "the copy{{else}}less than half the copy{{unknown}}we cannot say{{end}}.";
  EXPECT_EQ(chosen(claims_run(2500, 2.0), text), "The call took {{download}}, as long as the copy.");
  EXPECT_EQ(chosen(claims_run(1500, 2.0), text), "The call took {{download}}, most of the copy.");
  EXPECT_EQ(chosen(claims_run(500, 2.0), text), "The call took {{download}}, less than half the copy.");
  EXPECT_EQ(chosen(claims_run(std::numeric_limits<double>::quiet_NaN(), 2.0), text),
            "The call took {{download}}, we cannot say.");
  // Without an {{unknown}} form, a run that cannot tell says so, in the notes' language.
  const Report nan_run = claims_run(std::numeric_limits<double>::quiet_NaN(), 2.0);
  EXPECT_EQ(chosen(nan_run, "a {{if download > copy}}b{{end}} c"), "a (this run cannot tell) c");
  EXPECT_EQ(chosen(nan_run, "a {{if download > copy}}b{{end}} c", Lang::zh), "a （这次运行无法判断） c");
  // No form true and no else: nothing is printed.
  EXPECT_EQ(chosen(claims_run(500, 2.0), "a{{if download > copy}} b{{end}}."), "a.");
}

TEST(NotesClaims, TheOutcomeOfEachBlockIsRecorded) {
  const Report run = claims_run(1500, 2.0);
  const auto out = choose_claims("{{if download > copy}}x{{elif download > 0.5 * copy}}y{{end}}"
                                 "{{if absent > copy}}z{{end}}",
                                 {&run, nullptr, nullptr});
  ASSERT_EQ(out.claims.size(), 2u);
  EXPECT_EQ(out.claims[0].branch, 1);
  ASSERT_EQ(out.claims[0].conditions.size(), 2u);
  EXPECT_EQ(out.claims[0].conditions[0].truth, Truth::no);
  EXPECT_EQ(out.claims[0].conditions[1].truth, Truth::yes);
  EXPECT_FALSE(out.claims[0].cannot_tell);
  EXPECT_TRUE(out.claims[1].cannot_tell);
  EXPECT_EQ(out.claims[1].branch, -1);
}

TEST(NotesClaims, BlocksNestAndFormsNotPrintedAreNotEvaluated) {
  const Report run = claims_run(1500, 2.0);
  const std::string text =
      "{{if download < copy}}shorter{{if speedup > 1}}, and faster{{else}}, not faster{{end}}"
      "{{else}}longer{{if absent > 1}}never{{end}}{{end}}";
  const auto out = choose_claims(text, {&run, nullptr, nullptr});
  EXPECT_TRUE(out.errors.empty());
  EXPECT_EQ(out.text, "shorter, and faster");
  EXPECT_EQ(out.claims.size(), 2u);  // the block inside the else was never read as a claim
  // Figures inside a form not printed are not looked up: a missing one there is no error.
  const auto rendered = render_notes_text("{{if download < copy}}{{download}}{{else}}{{absent}}{{end}}",
                                          {&run, nullptr, nullptr});
  EXPECT_TRUE(rendered.errors.empty()) << rendered.errors.front();
  EXPECT_EQ(rendered.text.find("[missing"), std::string::npos) << rendered.text;
  EXPECT_EQ(rendered.text.substr(0, 4), "1500") << rendered.text;
}

TEST(NotesClaims, AMalformedBlockIsAnErrorAndAVisibleMarker) {
  const Report run = claims_run(1500, 2.0);
  for (const std::string& bad : std::vector<std::string>{"{{if download < copy}}a", "a{{end}}", "{{else}}", "{{elif download < copy}}", "{{if}}a{{end}}",
        "{{if download < copy}}a{{else}}b{{else}}c{{end}}", "{{if download < copy}}a{{else}}b{{elif speedup > 1}}c{{end}}",
        "{{if download < copy}}a{{unknown}}b{{unknown}}c{{end}}", "{{if download = copy}}a{{end}}",
        "{{if speedup<3}}{{if speedup<3}}{{if speedup<3}}{{if speedup<3}}{{if speedup<3}}x{{end}}{{end}}{{end}}{{end}}{{end}}"}) {
    const auto out = choose_claims(bad, {&run, nullptr, nullptr});
    EXPECT_FALSE(out.errors.empty()) << bad;
    EXPECT_NE(out.text.find("[malformed claim"), std::string::npos) << bad << " -> " << out.text;
  }
}

// Deep or long hostile text is read in one pass: nothing recurses with the text's size.
TEST(NotesClaims, HostileTextIsReadInBoundedSpace) {
  const Report run = claims_run(1500, 2.0);
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "{{if download < copy}}";
  const auto out = choose_claims(deep, {&run, nullptr, nullptr});
  EXPECT_FALSE(out.errors.empty());
  EXPECT_LE(out.claims.size(), static_cast<std::size_t>(kMaxClaimDepth));
  std::string wide;
  for (int i = 0; i < 10000; ++i) wide += "{{if download < copy}}a{{end}}";
  EXPECT_EQ(choose_claims(wide, {&run, nullptr, nullptr}).text, std::string(10000, 'a'));
}

// A sentence citing a run says which device it ran on and when (issue 45 item 2).
TEST(NotesClaims, ARunIsCitedByItsDeviceAndDay) {
  Report run = claims_run(1500, 2.0);
  run.recorded_at = "2026-12-02T05:01:56Z";
  DeviceSummary d;
  d.name = "NVIDIA H200";
  d.sm_count = 132;
  d.copy_engines = 3;
  run.devices = {d};
  const auto text = [&](const std::string& t) { return expand_figures(t, {&run, nullptr, nullptr}); };
  EXPECT_EQ(text("{{run:this}}").text, "NVIDIA H200, 2026-12-02");
  EXPECT_EQ(text("{{device:name}}: {{device:sms}} SMs, {{device:copy_engines}} engines").text,
            "NVIDIA H200: 132 SMs, 3 engines");
  run.devices.push_back(d);
  EXPECT_EQ(text("{{run:this}}").text, "2 × NVIDIA H200, 2026-12-02");
  EXPECT_FALSE(text("{{device:memory}}").errors.empty());
  EXPECT_FALSE(text("{{run:03-stream-overlap}}").errors.empty());  // no other runs in this source
  run.devices.clear();
  EXPECT_FALSE(text("{{run:this}}").errors.empty());
  EXPECT_FALSE(text("{{device:sms}}").errors.empty());
}

// Lesson 11's "unified memory needs prefetching to come near them" (issue 45): its run said the
// prefetched pipeline took 3.9x the copies. The notes, en and zh, now print the form true for the
// run at each edge of the claim.
TEST(NotesClaims, LessonElevensPrefetchClaimFollowsItsRun) {
  const auto run_of = [](double on_demand, double prefetched) {
    Report r;
    r.lesson_number = 11;
    Section s;
    s.key = "ratio";
    s.metrics.push_back(measured("ratio.on_demand", "on demand", "x", {on_demand}));
    s.metrics.push_back(measured("ratio.prefetched", "prefetched", "x", {prefetched}));
    r.sections.push_back(s);
    return r;
  };
  for (const Lang lang : {Lang::en, Lang::zh}) {
    std::ifstream in(std::string(CUDALAB_SOURCE_DIR) + (lang == Lang::en ? "/course-notes/en" : "/course-notes/zh") +
                     "/11-unified-memory.md");
    const std::string notes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_NE(notes.find("{{if ratio.prefetched <= 1.25}}"), std::string::npos);
    const std::string near = chosen(run_of(10.3, 1.2), notes, lang);
    const std::string nearer = chosen(run_of(10.3, 3.9), notes, lang);
    const std::string not_nearer = chosen(run_of(2.0, 2.5), notes, lang);
    const std::string unknown = chosen(run_of(10.3, std::numeric_limits<double>::quiet_NaN()), notes, lang);
    if (lang == Lang::en) {
      EXPECT_NE(near.find("Unified memory needs\n  prefetching to come near them"), std::string::npos);
      EXPECT_NE(nearer.find("Prefetching\n  brings unified memory nearer them, but not near"), std::string::npos);
      EXPECT_NE(not_nearer.find("Prefetching did not bring unified memory"), std::string::npos);
      EXPECT_NE(unknown.find("this run cannot tell"), std::string::npos);
      EXPECT_EQ(nearer.find("needs\n  prefetching to come near"), std::string::npos) << "3.9x is not near";
    } else {
      EXPECT_NE(near.find("统一内存要靠预取才能接近它们"), std::string::npos);
      EXPECT_NE(nearer.find("预取让统一内存离它们近了一些，但仍不接近"), std::string::npos);
      EXPECT_NE(not_nearer.find("预取没有让统一内存更接近它们"), std::string::npos);
      EXPECT_NE(unknown.find("这次运行无法判断"), std::string::npos);
    }
  }
}

// Lesson 03's "within one process it does not [vary]" (issue 45): the H100 run's five cold runs
// spread 22% inside one process. Against each shipped run of lesson 03 the notes print the form
// that run makes true.
TEST(NotesClaims, LessonThreesColdStartClaimFollowsEachShippedRun) {
  const auto read_text = [](const std::string& path) {
    std::ifstream in(std::string(CUDALAB_SOURCE_DIR) + path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string notes = read_text("/course-notes/en/03-stream-overlap.md");
  const std::string notes_zh = read_text("/course-notes/zh/03-stream-overlap.md");
  const Report h200 = report_from_json(nlohmann::json::parse(read_text("/course-notes/runs/03-stream-overlap.json")));
  const Report h100 =
      report_from_json(nlohmann::json::parse(read_text("/course-notes/runs/other-machines/03-stream-overlap-h100.json")));
  const Metric* spread = h100.find_metric("lecture.untouched");
  ASSERT_NE(spread, nullptr);
  ASSERT_GT(spread->summary().max, 1.1 * spread->summary().min) << "the H100 run is the one that spread";
  EXPECT_NE(chosen(h200, notes).find("Within one process it\n  does not"), std::string::npos);
  EXPECT_NE(chosen(h100, notes).find("Within\n  one process it varies too"), std::string::npos);
  EXPECT_EQ(chosen(h100, notes).find("it\n  does not:"), std::string::npos);
  EXPECT_NE(chosen(h200, notes_zh, Lang::zh).find("在一个进程之内它并不变化"), std::string::npos);
  EXPECT_NE(chosen(h100, notes_zh, Lang::zh).find("在一个进程之内它也会变化"), std::string::npos);
}
