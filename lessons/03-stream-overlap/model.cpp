#include "model.hpp"

#include "common/core/stats.hpp"

namespace cudalab::stream_overlap {

namespace {

// Each chunk's kernel fills the GPU (kernels.cu: a block per 256 bytes, up to 65536 blocks), and
// so does each of the lecture's: one kernel at a time.
EngineConfig engines(int copy_engines, int queues) {
  EngineConfig config;
  config.copy_engines = copy_engines;
  config.concurrent_kernels = 1;
  config.hardware_queues = queues;
  return config;
}

}  // namespace

bool calibration_missed(double kernel_ms, double copy_ms) {
  constexpr double kMiss = 1.5;
  if (!(kernel_ms > 0) || !(copy_ms > 0)) return false;
  return kernel_ms > copy_ms * kMiss || kernel_ms * kMiss < copy_ms;
}

double pipeline_ceiling(int chunks) { return chunks < 1 ? 1.0 : 3.0 * chunks / (chunks + 2.0); }

PipelineStages pinned_stages(const Measurements& m) {
  return {median_of(m.h2d_pinned), median_of(m.kernel), median_of(m.d2h_pinned)};
}

PipelineStages pageable_stages(const Measurements& m) {
  return {median_of(m.h2d_pageable), median_of(m.kernel), median_of(m.d2h_pageable)};
}

double predict_variant_ms(Variant v, const Params& p, const Measurements& m, int queues) {
  const PipelineStages pinned = pinned_stages(m);
  const double n = m.chunk_count;
  auto makespan = [&](const std::vector<Op>& ops) { return simulate(ops, engines(m.copy_engines, queues)).makespan; };
  switch (v) {
    case Variant::sequential:
      return makespan(pipeline_ops(1, 1, {pinned.h2d * n, pinned.kernel * n, pinned.d2h * n}, IssueOrder::depth_first,
                                   false));
    case Variant::depth_first:
      return makespan(pipeline_ops(m.chunk_count, p.streams, pinned, IssueOrder::depth_first, false));
    case Variant::breadth_first:
      return makespan(pipeline_ops(m.chunk_count, p.streams, pinned, IssueOrder::breadth_first, false));
    case Variant::pageable:
      return makespan(pipeline_ops(m.chunk_count, p.streams, pageable_stages(m), IssueOrder::depth_first, true));
    case Variant::transfer_compute:
      return makespan(transfer_compute_ops(m.chunk_count, pinned));
    default:
      return 0;  // the missing-wait variant: verified, not modelled
  }
}

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out;
  for (Variant v : {Variant::sequential, Variant::depth_first, Variant::breadth_first, Variant::pageable,
                    Variant::transfer_compute}) {
    out.ms[v] = predict_variant_ms(v, p, m, m.hardware_queues);
  }
  out.breadth_one_queue_ms = predict_variant_ms(Variant::breadth_first, p, m, 1);
  out.depth_one_queue_ms = predict_variant_ms(Variant::depth_first, p, m, 1);
  if (m.lecture) out.lecture = predict_lecture(*m.lecture, m.copy_engines);
  return out;
}

SweepPrediction predict_sweep_point(const SweepPoint& point, int copy_engines, int queues) {
  SweepPrediction out;
  if (point.h2d.empty() || point.kernel.empty() || point.d2h.empty()) return out;
  const PipelineStages stages{median_of(point.h2d), median_of(point.kernel), median_of(point.d2h)};
  out.engines_ms = simulate(pipeline_ops(point.chunks, point.streams, stages, IssueOrder::depth_first, false),
                            engines(copy_engines, queues))
                       .makespan;
  if (!point.enqueue_ms.empty()) out.host_floor_ms = median_of(point.enqueue_ms) + stages.h2d + stages.kernel + stages.d2h;
  return out;
}

LecturePrediction predict_lecture(const LectureReplica& r, int copy_engines) {
  LecturePrediction out;
  if (r.h2d_ms.empty() || r.kernel_ms.empty() || r.d2h_ms.empty()) return out;
  const PipelineStages stages{median_of(r.h2d_ms), median_of(r.kernel_ms), median_of(r.d2h_ms)};
  auto makespan = [&](int streams) {
    return simulate(pipeline_ops(kLectureSegments, streams, stages, IssueOrder::depth_first, false),
                    engines(copy_engines, kDefaultHardwareQueues))
        .makespan;
  };
  out.pinned_ms = makespan(1);
  out.streams_ms = makespan(kLectureSegments);
  return out;
}

}  // namespace cudalab::stream_overlap
