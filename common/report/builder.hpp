// One way to build a Report: a lesson's report function names its params, sections, metrics,
// predictions, checks and next steps in the order a reader meets them, and never fills a field
// of the report model by hand.
//
//   ReportBuilder b(flags().params(p));
//   b.section("latency", "urgent kernel: enqueue to completion")
//       .metric(measured("urgent.alone", "alone (idle GPU)", "us", m.alone_us).note("its own run time"));
//   b.verify("urgent_results", m.urgent, "urgent results over every run");
//   return std::move(b).build();
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "common/core/tally.hpp"
#include "common/report/report.hpp"

namespace cudalab {

// A metric with every sample of a measurement.
Metric measured(std::string key, Message label, std::string unit, std::vector<double> samples);
// A metric with one computed value: a ratio, a fitted constant, a count.
Metric derived(std::string key, Message label, std::string unit, double value);
// The samples of the blocks a headline set aside and measured again (core/repetitions.hpp,
// steady_block), as a metric of their own: shown beside the figure, never mixed into it.
Metric set_aside(std::string key, Message label, std::string unit, std::vector<double> samples,
                 int blocks_set_aside);

// Edits one section of the report under construction; cheap to copy, valid while its builder is.
class SectionBuilder {
 public:
  SectionBuilder(Report* report, std::size_t index) : report_(report), index_(index) {}
  // `value` is data (verbatim: a count, a size, a device's name) or words (msg(...)).
  SectionBuilder& fact(std::string key, Message label, Message value, Message note = {}, bool stable = true);
  SectionBuilder& metric(Metric m);
  SectionBuilder& table(std::string key, std::vector<Message> columns, std::vector<std::vector<Cell>> rows);
  SectionBuilder& art(std::vector<ArtPiece> pieces);
  Section& get() { return report_->sections[index_]; }

 private:
  Report* report_;
  std::size_t index_;
};

// A table cell: literal text, or the median of a metric by key.
inline Cell text_cell(Message text) { return Cell{std::move(text), {}}; }
// A cell of data: a count, a name, printed as it is in every language.
inline Cell data_cell(std::string text) { return Cell{Message::verbatim(std::move(text)), {}}; }
inline Cell metric_cell(std::string key) { return Cell{{}, std::move(key)}; }

// What a counted verify check counts, as its summary names it.
enum class Counted { elements, bytes };

class ReportBuilder {
 public:
  explicit ReportBuilder(std::vector<Param> params);

  // A param whose value was resolved during the run (a calibrated count, the device's own
  // priority range): replaces the declared value; stable only if the user chose it.
  ReportBuilder& resolve_param(const std::string& name, std::string value, bool stable);
  // A section; its course-notes key defaults to its own key ("" for none).
  SectionBuilder section(std::string key, Message title);
  SectionBuilder section(std::string key, Message title, std::string notes_key);
  // A verify check that counts nothing (a graph's shape, a kernel's status): its verdict as given.
  ReportBuilder& verify(std::string key, bool passed, Message summary, Message detail = {});
  // A verify check over counted results, the one way a lesson writes one: it passes exactly when
  // something was checked and all of it matched, carries both counts (integrity recomputes the
  // verdict from them) and reads "{what}: {correct} of {checked} elements match the CPU reference".
  ReportBuilder& verify(std::string key, const Tally& tally, Message what, Message detail = {});
  ReportBuilder& verify(std::string key, const Tally& tally, Counted unit, Message what, Message detail = {});
  ReportBuilder& verify(std::string key, std::size_t correct, std::size_t checked, Message what, Message detail = {});
  ReportBuilder& expect(std::string key, bool passed, Message summary, Message detail = {});
  // The metrics the last check's verdict is computed from: when one of them is noisy, the text
  // says the verdict may not hold.
  ReportBuilder& depends_on(std::vector<std::string> metric_keys);
  // Marks an expect check as the lesson's point (Report::headline_checks): `cudalab compare`
  // fails a run where it fails and the baseline's passed.
  ReportBuilder& headline_check(std::string expect_key);
  ReportBuilder& try_next(std::string command, Message why);
  ReportBuilder& headline(Message text);
  // The headline and the metrics it reports: `cudalab compare` holds a run to them.
  ReportBuilder& headline(Message text, std::vector<std::string> metric_keys);
  // The lesson's default for how far a figure may differ between two correct runs.
  ReportBuilder& compare_tolerance(double relative);
  ReportBuilder& timelines(std::vector<Timeline> timelines);
  ReportBuilder& devices(std::vector<DeviceSummary> devices);

  Report build() &&;

 private:
  Report report_;
};

}  // namespace cudalab
