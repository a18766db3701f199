#include "model.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/core/repetitions.hpp"
#include "common/core/stats.hpp"

namespace cudalab::events_sync {

double expected_cpu_share(const std::string& row_key) {
  if (row_key == rows::kBlockingSync || row_key == rows::kBlockingEvent) return 0.0;
  return 1.0;
}

const WaitRow& find_row(const std::vector<WaitRow>& rows, const std::string& key) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const WaitRow& r) { return r.key == key; });
  if (it == rows.end()) throw std::out_of_range("no wait row " + key);
  return *it;
}

double predict_host_chain_gap_us(double wake_us, double launch_us) { return std::max(0.0, wake_us) + launch_us; }

namespace {
std::vector<RowPrediction> predict_rows(const std::vector<WaitRow>& rows) {
  std::vector<RowPrediction> out;
  for (const auto& r : rows) {
    if (r.samples.empty()) continue;
    out.push_back({r.key, expected_cpu_share(r.key) * median_of(column(r.samples, &WaitSample::wall_us))});
  }
  return out;
}
}  // namespace

Prediction predict(const Params&, const Measurements& m) {
  Prediction out;
  if (!m.timing.empty()) out.event_us = median_of(column(m.timing, &TimingSample::gpu_stamp_us));
  out.waits = predict_rows(m.waits);
  out.scheduling = predict_rows(m.scheduling);
  const auto sync = std::find_if(m.waits.begin(), m.waits.end(), [](const WaitRow& r) { return r.key == rows::kStreamSync; });
  if (sync != m.waits.end() && !sync->samples.empty() && !m.timing.empty()) {
    out.host_chain_gap_us = predict_host_chain_gap_us(median_of(column(sync->samples, &WaitSample::wake_us)),
                                                      median_of(column(m.timing, &TimingSample::host_launch_us)));
  }
  return out;
}

double predicted_cpu_us(const std::vector<RowPrediction>& rows, const std::string& key) {
  for (const auto& r : rows) {
    if (r.key == key) return r.cpu_us;
  }
  return 0.0;
}

}  // namespace cudalab::events_sync
