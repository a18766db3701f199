// What the engine model (common/model/engine_model) predicts for each of lesson 03's variants,
// from the per-chunk stage times measured in the same run. Pure C++, unit-tested.
#pragma once

#include <map>

#include "common/model/engine_model.hpp"
#include "measure.hpp"
#include "params.hpp"
#include "variants.hpp"

namespace cudalab::stream_overlap {

// The lecture program's pinned runs, from its own segment stages on the same engine model. Its
// kernels fill the GPU (lecture_replica.hpp: thousands of blocks each), so one runs at a time:
// its streams can overlap only the copies.
struct LecturePrediction {
  double pinned_ms = 0;   // one stream: every stage in turn
  double streams_ms = 0;  // a stream per segment
};
LecturePrediction predict_lecture(const LectureReplica& r, int copy_engines);

struct Prediction {
  std::map<Variant, double> ms;  // the variants the model covers, at the run's hardware queues
  // Breadth- and depth-first with a single hardware queue (CUDA_DEVICE_MAX_CONNECTIONS=1),
  // to show what the queues buy.
  double breadth_one_queue_ms = 0;
  double depth_one_queue_ms = 0;
  LecturePrediction lecture;  // zeros without the replay (--full)
};


// Whether a calibrated kernel missed one chunk's copy time by more than half again either way.
// A line drawn from stages timed while the copies ran slow lands several times off (on the lab
// H100, in a run just after another process left, one chunk's copy took 0.37 ms for about a
// second, 0.16 ms after); an ordinary line lands within about 15%.
bool calibration_missed(double kernel_ms, double copy_ms);

// 3N/(N+2), the pipeline's ceiling for N equal chunks with three equal stages.
double pipeline_ceiling(int chunks);

PipelineStages pinned_stages(const Measurements& m);
PipelineStages pageable_stages(const Measurements& m);

// The variant's makespan on `queues` hardware queues; 0 for a variant the model does not cover.
double predict_variant_ms(Variant v, const Params& p, const Measurements& m, int queues);

Prediction predict(const Params& p, const Measurements& m);

// One point of the stream sweep (--full): the engine model's depth-first makespan from the point's
// own stages, and the floor the host sets, which must enqueue every chunk before the last one can
// start (its enqueue time, then the last chunk's three stages). The pipeline takes the larger.
struct SweepPrediction {
  double engines_ms = 0;
  double host_floor_ms = 0;
  double ms() const { return engines_ms > host_floor_ms ? engines_ms : host_floor_ms; }
  bool host_bound() const { return host_floor_ms > engines_ms; }
};
SweepPrediction predict_sweep_point(const SweepPoint& point, int copy_engines, int queues);

}  // namespace cudalab::stream_overlap
