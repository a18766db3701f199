// Lesson 02's report: pure, from params, measurements and predictions; the expect thresholds
// live here, so every ✓/✗ decision is unit-tested without a GPU.
#pragma once

#include "common/report/report.hpp"
#include "measure.hpp"
#include "model.hpp"
#include "params.hpp"

namespace cudalab::pinned {

// Pinned bandwidth must beat pageable by this factor at the probe size.
inline constexpr double kPinnedMinAdvantage = 1.2;
// cudaMemcpyAsync from pageable memory "blocks the host": the call lasts at least this share of
// the copy, and at least kBlockingOverPinned times the pinned call.
inline constexpr double kBlockingMinShareOfCopy = 0.5;
inline constexpr double kBlockingOverPinned = 10.0;

Report build_report(const Params& p, const Measurements& m, const Prediction& predicted);

}  // namespace cudalab::pinned
