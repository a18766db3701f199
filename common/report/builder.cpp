#include "common/report/builder.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab {

Metric measured(std::string key, Message label, std::string unit, std::vector<double> samples) {
  Metric m;
  m.key = std::move(key);
  m.label = std::move(label);
  m.unit = std::move(unit);
  m.samples = std::move(samples);
  return m;
}

Metric derived(std::string key, Message label, std::string unit, double value) {
  return measured(std::move(key), std::move(label), std::move(unit), {value});
}

Metric set_aside(std::string key, Message label, std::string unit, std::vector<double> samples,
                 int blocks_set_aside) {
  const char* note = blocks_set_aside == 1
                         ? "{count} block spread more than {limit}%: a passing slowdown of the machine, not of the lesson"
                         : "{count} blocks spread more than {limit}%: a passing slowdown of the machine, not of the lesson";
  return measured(std::move(key), std::move(label), std::move(unit), std::move(samples))
      .with_note(msg(note, arg("count", blocks_set_aside),
                     arg("limit", fmt::format("{:.0f}", 100.0 * kDefaultSpreadTolerance))));
}

SectionBuilder& SectionBuilder::fact(std::string key, Message label, Message value, Message note, bool stable) {
  get().facts.push_back(Fact{std::move(key), std::move(label), std::move(value), std::move(note), stable});
  return *this;
}

SectionBuilder& SectionBuilder::metric(Metric m) {
  get().metrics.push_back(std::move(m));
  return *this;
}

SectionBuilder& SectionBuilder::table(std::string key, std::vector<Message> columns,
                                      std::vector<std::vector<Cell>> rows) {
  get().tables.push_back(Table{std::move(key), std::move(columns), std::move(rows)});
  return *this;
}

SectionBuilder& SectionBuilder::art(std::vector<ArtPiece> pieces) {
  auto& a = get().art;
  a.insert(a.end(), pieces.begin(), pieces.end());
  return *this;
}

ReportBuilder::ReportBuilder(std::vector<Param> params) { report_.params = std::move(params); }

ReportBuilder& ReportBuilder::resolve_param(const std::string& name, std::string value, bool stable) {
  for (auto& p : report_.params) {
    if (p.name == name) {
      p.value = std::move(value);
      p.stable = stable;
      return *this;
    }
  }
  throw std::logic_error("resolve_param: no param named " + name);
}

SectionBuilder ReportBuilder::section(std::string key, Message title) {
  std::string notes_key = key;
  return section(std::move(key), std::move(title), std::move(notes_key));
}

SectionBuilder ReportBuilder::section(std::string key, Message title, std::string notes_key) {
  Section s;
  s.key = std::move(key);
  s.title = std::move(title);
  s.notes_key = std::move(notes_key);
  report_.sections.push_back(std::move(s));
  return SectionBuilder(&report_, report_.sections.size() - 1);
}

ReportBuilder& ReportBuilder::verify(std::string key, bool passed, Message summary, Message detail) {
  report_.checks.push_back(Check{CheckKind::verify, std::move(key), passed, std::move(summary), std::move(detail), {}, {}});
  return *this;
}

ReportBuilder& ReportBuilder::verify(std::string key, const Tally& tally, Message what, Message detail) {
  return verify(std::move(key), tally, Counted::elements, std::move(what), std::move(detail));
}

ReportBuilder& ReportBuilder::verify(std::string key, const Tally& tally, Counted unit, Message what,
                                     Message detail) {
  const char* summary = unit == Counted::bytes ? "{what}: {correct} of {checked} bytes match the CPU reference"
                                               : "{what}: {correct} of {checked} elements match the CPU reference";
  verify(std::move(key), tally.all_correct(),
         msg(summary, arg("what", std::move(what)), arg("correct", format_count(tally.correct)),
             arg("checked", format_count(tally.checked))),
         std::move(detail));
  report_.checks.back().count = tally;
  return *this;
}

ReportBuilder& ReportBuilder::verify(std::string key, std::size_t correct, std::size_t checked, Message what,
                                     Message detail) {
  Tally tally;
  tally.add(correct, checked);
  return verify(std::move(key), tally, std::move(what), std::move(detail));
}

ReportBuilder& ReportBuilder::expect(std::string key, bool passed, Message summary, Message detail) {
  report_.checks.push_back(Check{CheckKind::expect, std::move(key), passed, std::move(summary), std::move(detail), {}, {}});
  return *this;
}

ReportBuilder& ReportBuilder::depends_on(std::vector<std::string> metric_keys) {
  if (report_.checks.empty()) throw std::logic_error("depends_on: no check yet");
  report_.checks.back().depends_on = std::move(metric_keys);
  return *this;
}

ReportBuilder& ReportBuilder::try_next(std::string command, Message why) {
  report_.try_next.push_back(TryNext{std::move(command), std::move(why)});
  return *this;
}

ReportBuilder& ReportBuilder::headline(Message text) {
  report_.headline = std::move(text);
  return *this;
}

ReportBuilder& ReportBuilder::headline(Message text, std::vector<std::string> metric_keys) {
  report_.headline = std::move(text);
  report_.headline_metrics = std::move(metric_keys);
  return *this;
}

ReportBuilder& ReportBuilder::headline_check(std::string expect_key) {
  report_.headline_checks.push_back(std::move(expect_key));
  return *this;
}

ReportBuilder& ReportBuilder::compare_tolerance(double relative) {
  report_.compare_tolerance = relative;
  return *this;
}

ReportBuilder& ReportBuilder::timelines(std::vector<Timeline> timelines) {
  report_.timelines = std::move(timelines);
  return *this;
}

ReportBuilder& ReportBuilder::devices(std::vector<DeviceSummary> devices) {
  report_.devices = std::move(devices);
  return *this;
}

Report ReportBuilder::build() && {
  // A headline key that names no metric is a typo in the lesson: the lesson's unit tests build
  // their reports through here, so they catch it without a GPU.
  for (const auto& key : report_.headline_metrics) {
    if (report_.find_metric(key) == nullptr) throw std::logic_error("headline names no metric '" + key + "'");
  }
  // Likewise a headline check that names no expect check.
  for (const auto& key : report_.headline_checks) {
    const bool found = std::any_of(report_.checks.begin(), report_.checks.end(),
                                   [&](const Check& c) { return c.kind == CheckKind::expect && c.key == key; });
    if (!found) throw std::logic_error("headline check names no expect check '" + key + "'");
  }
  // Likewise a derived figure computed from a metric that does not exist.
  for (const auto& section : report_.sections) {
    for (const auto& m : section.metrics) {
      for (const auto& key : m.inputs) {
        if (report_.find_metric(key) == nullptr) {
          throw std::logic_error("metric '" + m.key + "' is computed from no metric '" + key + "'");
        }
      }
    }
  }
  report_.resolve_noisy_inputs();  // a derived figure is as noisy as what it is computed from
  return std::move(report_);
}

}  // namespace cudalab
