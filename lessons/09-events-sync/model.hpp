// Lesson 09's simple models. Pure C++, unit-tested; the inputs are measured in the same run.
#pragma once

#include <string>
#include <vector>

#include "measure.hpp"
#include "params.hpp"

namespace cudalab::events_sync {

// The rows of the two wait tables. Measure and report name rows by these keys, never by position.
namespace rows {
inline constexpr const char* kStreamSync = "stream_sync";
inline constexpr const char* kEventSync = "event_sync";
inline constexpr const char* kDeviceSync = "device_sync";
inline constexpr const char* kStreamQuery = "stream_query_loop";
inline constexpr const char* kEventQuery = "event_query_loop";
inline constexpr const char* kAuto = "sched_auto";
inline constexpr const char* kSpin = "sched_spin";
inline constexpr const char* kYield = "sched_yield";
inline constexpr const char* kBlockingSync = "sched_blocking_sync";
inline constexpr const char* kBlockingEvent = "event_blocking_sync";
}  // namespace rows

// Share of a wait's wall time the waiting thread spends on a CPU, as the documentation describes
// each way of waiting on an otherwise idle host with more cores than CUDA contexts: a spinning or
// polling thread (auto picks spin there; yield only gives the core away when another thread
// wants it) burns the whole wait, a thread blocked on a synchronization primitive almost none.
double expected_cpu_share(const std::string& row_key);

// The row with this key; throws std::out_of_range when there is none.
const WaitRow& find_row(const std::vector<WaitRow>& rows, const std::string& key);

// A host-side chain (wait on the host, then launch) costs at least one wake-up plus one launch
// call: a lower bound, since the call returns before the GPU starts the kernel.
double predict_host_chain_gap_us(double wake_us, double launch_us);

struct RowPrediction {
  std::string key;
  double cpu_us = 0;  // expected share x the measured wall time of the wait
};

// What the models say, from primitives measured in the same run.
struct Prediction {
  double event_us = 0;  // events around a kernel measure the kernel: its own globaltimer span
  std::vector<RowPrediction> waits;
  std::vector<RowPrediction> scheduling;
  double host_chain_gap_us = 0;
};
Prediction predict(const Params& p, const Measurements& m);

// The predicted CPU time of a row, 0 when the row is not predicted.
double predicted_cpu_us(const std::vector<RowPrediction>& rows, const std::string& key);

}  // namespace cudalab::events_sync
