// The grader form. It prints what a correct run on any GPU that behaves as the lesson teaches
// must reproduce byte for byte: the lesson, its stable params, stable facts, whether the run was
// disturbed (Report::disturbance) and the verdict of every check. No timings, no device names, no
// dates, no colour. The environment line sits just above the checks, so a diff that shows an
// expect check flipping shows beside it whether another process or a noisy headline was there.
#include <sstream>

#include <fmt/format.h>

#include "common/report/render.hpp"

namespace cudalab {

std::string render_stable(const Report& report) {
  std::ostringstream out;
  out << fmt::format("lesson {:02d} {}\n", report.lesson_number, report.lesson_slug);
  // An exercise run says so, and which interface the student's file spoke (its source is theirs:
  // the digest differs from student to student, so it is not for a diff).
  if (report.exercise) {
    out << fmt::format("exercise {} {} v{}\n", report.exercise->id, report.exercise->interface_name,
                       report.exercise->interface_version);
  }
  for (const auto& p : report.params) {
    out << fmt::format("param {}={}\n", p.name, p.stable ? p.value : "(device-dependent)");
  }
  for (const auto& section : report.sections) {
    for (const auto& f : section.facts) {
      if (f.stable) out << fmt::format("fact {}.{}={}\n", section.key, f.key, f.value.en());
    }
  }
  out << "environment " << (report.disturbed() ? "disturbed" : "clean") << '\n';
  for (const auto& c : report.checks) {
    out << fmt::format("{} {} {}\n", c.kind == CheckKind::verify ? "verify" : "expect", c.key,
                       c.passed ? "pass" : "FAIL");
  }
  return out.str();
}

std::string render_portable(const Report& report) {
  std::ostringstream out;
  out << fmt::format("lesson {:02d} {}\n", report.lesson_number, report.lesson_slug);
  for (const auto& p : report.params) {
    out << fmt::format("param {}={}\n", p.name, p.stable ? p.value : "(device-dependent)");
  }
  for (const auto& c : report.checks) {
    if (c.kind == CheckKind::verify) out << fmt::format("verify {} {}\n", c.key, c.passed ? "pass" : "FAIL");
  }
  return out.str();
}

}  // namespace cudalab
