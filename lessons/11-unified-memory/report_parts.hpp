// The parts of lesson 11's report (report.cpp puts them in order). Pure.
#pragma once

#include <vector>

#include "common/report/builder.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::unified_memory {

// Each on-demand run's kernel and host parts, added.
std::vector<double> totals(const std::vector<OnDemandSample>& samples);
double explicit_median(const Measurements& m);
// Each managed or mapped way's median over the explicit copies' median: the ratios the table, the
// checks and the headline all speak of.
struct WayRatios {
  double on_demand = 0.0;
  double prefetched = 0.0;
  double zero_copy = 0.0;
};
WayRatios way_ratios(const Measurements& m);

// access_report.cpp: the reuse sweep and the sparse read.
void add_access(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted);
// access_report.cpp: every verify and expect check.
void add_checks(ReportBuilder& b, const Params& p, const Measurements& m, const Prediction& predicted);
// lecture_report.cpp: lecture 002's claims beside this run's figures.
void add_lecture(ReportBuilder& b);

}  // namespace cudalab::unified_memory
