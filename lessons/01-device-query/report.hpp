// Lesson 01's report: pure, from what was read and what the hardware promises.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::device_query {

Report build_report(const Params& p, const Measurements& m, const Prediction& promise);

}  // namespace cudalab::device_query
