#include "engine_model.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace cudalab {

namespace {

// Engine index: 0 compute, 1 H2D copy, 2 D2H copy (or 1 when the copy engine is shared).
int engine_of(OpKind kind, const EngineConfig& config) {
  switch (kind) {
    case OpKind::kernel:
      return 0;
    case OpKind::h2d:
      return 1;
    case OpKind::d2h:
      return config.copy_engines >= 2 ? 2 : 1;
  }
  return 0;
}

}  // namespace

Schedule simulate(const std::vector<Op>& ops, const EngineConfig& config) {
  Schedule schedule;
  schedule.start.resize(ops.size());
  schedule.end.resize(ops.size());

  struct EngineState {
    std::vector<double> slot_free;  // when each slot becomes free
    std::map<int, double> last_start;  // per hardware queue: in-order dispatch within a queue
  };
  std::map<int, EngineState> engines;
  std::map<int, double> stream_free;
  double host_clock = 0;

  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    const int engine_id = engine_of(op.kind, config);
    EngineState& engine = engines[engine_id];
    if (engine.slot_free.empty()) {
      const int slots = engine_id == 0 ? std::max(1, config.concurrent_kernels) : 1;
      engine.slot_free.assign(static_cast<std::size_t>(slots), 0.0);
    }

    const int queue = engine_id == 0 ? op.stream % std::max(1, config.kernel_queues) : 0;
    host_clock += config.launch_overhead;
    double start = std::max({host_clock, stream_free[op.stream], engine.last_start[queue]});
    for (std::size_t dep : op.waits_on) {
      if (dep >= i) throw std::invalid_argument("an op may only wait on ops issued before it");
      start = std::max(start, schedule.end[dep]);
    }
    // Take a slot that is already free when the op could start (the latest such, so earlier-free
    // slots stay for ops that are ready sooner); only if none is, wait for the earliest one.
    auto slot = engine.slot_free.end();
    for (auto it = engine.slot_free.begin(); it != engine.slot_free.end(); ++it) {
      if (*it <= start && (slot == engine.slot_free.end() || *it > *slot)) slot = it;
    }
    if (slot == engine.slot_free.end()) slot = std::min_element(engine.slot_free.begin(), engine.slot_free.end());
    start = std::max(start, *slot);

    const double end = start + op.duration;
    schedule.start[i] = start;
    schedule.end[i] = end;
    *slot = end;
    engine.last_start[queue] = start;
    stream_free[op.stream] = end;
    if (op.host_synchronous) host_clock = std::max(host_clock, end);
    schedule.makespan = std::max(schedule.makespan, end);
  }
  return schedule;
}

std::vector<Op> pipeline_ops(int chunks, int streams, const PipelineStages& per_chunk,
                             IssueOrder order, bool pageable) {
  if (chunks < 1 || streams < 1) throw std::invalid_argument("pipeline needs chunks and streams >= 1");
  auto make = [&](OpKind kind, int chunk) {
    Op op;
    op.kind = kind;
    op.stream = chunk % streams;
    op.duration = kind == OpKind::h2d ? per_chunk.h2d : kind == OpKind::d2h ? per_chunk.d2h : per_chunk.kernel;
    op.host_synchronous = pageable && kind != OpKind::kernel;
    const char* name = kind == OpKind::h2d ? "H2D" : kind == OpKind::d2h ? "D2H" : "kernel";
    op.label = std::string(name) + " " + std::to_string(chunk);
    return op;
  };
  std::vector<Op> ops;
  if (order == IssueOrder::depth_first) {
    for (int c = 0; c < chunks; ++c) {
      for (OpKind k : {OpKind::h2d, OpKind::kernel, OpKind::d2h}) ops.push_back(make(k, c));
    }
  } else {
    for (OpKind k : {OpKind::h2d, OpKind::kernel, OpKind::d2h}) {
      for (int c = 0; c < chunks; ++c) ops.push_back(make(k, c));
    }
  }
  return ops;
}

std::vector<Op> transfer_compute_ops(int chunks, const PipelineStages& per_chunk) {
  if (chunks < 1) throw std::invalid_argument("transfer_compute_ops needs chunks >= 1");
  constexpr int kTransferStream = 0;
  constexpr int kComputeStream = 1;
  std::vector<Op> ops;
  std::vector<std::size_t> upload_of(static_cast<std::size_t>(chunks));
  auto upload = [&](int c) {
    upload_of[static_cast<std::size_t>(c)] = ops.size();
    ops.push_back(Op{OpKind::h2d, kTransferStream, per_chunk.h2d, {}, false, "H2D " + std::to_string(c)});
  };
  upload(0);
  for (int c = 0; c < chunks; ++c) {
    const std::size_t kernel = ops.size();
    ops.push_back(Op{OpKind::kernel, kComputeStream, per_chunk.kernel, {upload_of[static_cast<std::size_t>(c)]},
                     false, "kernel " + std::to_string(c)});
    if (c + 1 < chunks) upload(c + 1);
    ops.push_back(Op{OpKind::d2h, kTransferStream, per_chunk.d2h, {kernel}, false, "D2H " + std::to_string(c)});
  }
  return ops;
}

std::vector<Op> batch_chain_ops(int batches, int streams, const std::vector<Stage>& stages,
                                bool host_waits_each_op) {
  if (batches < 1 || streams < 1) throw std::invalid_argument("batch chain needs batches and streams >= 1");
  std::vector<Op> ops;
  ops.reserve(static_cast<std::size_t>(batches) * stages.size());
  for (int b = 0; b < batches; ++b) {
    for (std::size_t s = 0; s < stages.size(); ++s) {
      Op op;
      op.kind = stages[s].kind;
      op.stream = b % streams;
      op.duration = stages[s].duration;
      op.host_synchronous = host_waits_each_op;
      op.label = "batch " + std::to_string(b) + " stage " + std::to_string(s);
      ops.push_back(std::move(op));
    }
  }
  return ops;
}

}  // namespace cudalab
