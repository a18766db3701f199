#include "common/model/engine_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
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

namespace {

// The state of one simulation: which ops have run, when each engine slot and stream frees up,
// and how far the host has issued.
class Simulation {
 public:
  Simulation(const std::vector<Op>& ops, const EngineConfig& config)
      : ops_(ops), config_(config), hardware_queues_(static_cast<std::size_t>(std::max(1, config.hardware_queues))),
        queues_(hardware_queues_ * kEngines) {
    std::map<int, std::size_t> last_of_stream;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      for (std::size_t dep : ops[i].waits_on) {
        if (dep >= i) throw std::invalid_argument("an op may only wait on ops issued before it");
      }
      queues_[fifo_of(ops[i])].push_back(i);
      const auto last = last_of_stream.find(ops[i].stream);
      prev_in_stream_.push_back(last == last_of_stream.end() ? kNone : last->second);
      last_of_stream[ops[i].stream] = i;
    }
    issue_.resize(ops.size());
    done_.assign(ops.size(), false);
    schedule_.start.resize(ops.size());
    schedule_.end.resize(ops.size());
  }

  Schedule run() && {
    for (std::size_t scheduled = 0; scheduled < ops_.size(); ++scheduled) {
      extend_issue();
      const Choice choice = pick();
      if (choice.queue == kNone) throw std::logic_error("engine model: no op can run (a dependency cycle)");
      place(choice);
    }
    return std::move(schedule_);
  }

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  struct Choice {
    std::size_t queue = kNone;
    double start = 0;
  };
  struct EngineState {
    std::vector<double> slot_free;  // when each slot becomes free
    std::size_t last_queue = kNone;  // the queue it served last
  };

  // Each hardware queue keeps its work for each engine in issue order: one FIFO per (queue, engine).
  static constexpr std::size_t kEngines = 3;
  std::size_t fifo_of(const Op& op) const {
    const auto queue = static_cast<std::size_t>(op.stream) % hardware_queues_;
    return queue * kEngines + static_cast<std::size_t>(engine_of(op.kind, config_));
  }

  EngineState& engine(OpKind kind) {
    const int id = engine_of(kind, config_);
    EngineState& e = engines_[id];
    if (e.slot_free.empty()) e.slot_free.assign(id == 0 ? std::max(1, config_.concurrent_kernels) : 1, 0.0);
    return e;
  }

  // The host issues op i after op i-1, paying the launch overhead; after a host-synchronous op
  // it waits for that op to end, so later issue times are known only once it has been placed.
  void extend_issue() {
    while (issued_ < ops_.size()) {
      if (issued_ > 0 && ops_[issued_ - 1].host_synchronous) {
        if (!done_[issued_ - 1]) return;
        host_clock_ = std::max(host_clock_, schedule_.end[issued_ - 1]);
      }
      host_clock_ += config_.launch_overhead;
      issue_[issued_++] = host_clock_;
    }
  }

  // The earliest an op at the head of its queue can start, or a negative value if something it
  // depends on has not been placed yet.
  double earliest_start(std::size_t i, std::size_t queue) {
    if (i >= issued_) return -1;
    const Op& op = ops_[i];
    double start = std::max(issue_[i], queue_last_start_[queue]);
    const std::size_t before = prev_in_stream_[i];
    if (before != kNone) {
      if (!done_[before]) return -1;
      start = std::max(start, schedule_.end[before]);
    }
    for (std::size_t dep : op.waits_on) {
      if (!done_[dep]) return -1;
      start = std::max(start, schedule_.end[dep]);
    }
    const auto& slots = engine(op.kind).slot_free;
    return std::max(start, *std::min_element(slots.begin(), slots.end()));
  }

  Choice pick() {
    Choice best;
    std::size_t best_op = 0;
    bool best_kept = false;
    for (std::size_t q = 0; q < queues_.size(); ++q) {
      if (queues_[q].empty()) continue;
      const std::size_t i = queues_[q].front();
      const double start = earliest_start(i, q);
      if (start < 0) continue;
      const bool kept = engine(ops_[i].kind).last_queue == q;
      const double eps = 1e-9 * std::max(1.0, std::fabs(start));
      const bool better = best.queue == kNone || start < best.start - eps ||
                          (start <= best.start + eps && ((kept && !best_kept) || (kept == best_kept && i < best_op)));
      if (better) {
        best = Choice{q, start};
        best_op = i;
        best_kept = kept;
      }
    }
    return best;
  }

  void place(const Choice& choice) {
    const std::size_t i = queues_[choice.queue].front();
    queues_[choice.queue].pop_front();
    const Op& op = ops_[i];
    EngineState& e = engine(op.kind);
    // The latest slot already free at the start, so earlier-free slots stay for others.
    auto slot = e.slot_free.end();
    for (auto it = e.slot_free.begin(); it != e.slot_free.end(); ++it) {
      if (*it <= choice.start && (slot == e.slot_free.end() || *it > *slot)) slot = it;
    }
    if (slot == e.slot_free.end()) slot = std::min_element(e.slot_free.begin(), e.slot_free.end());
    const double end = choice.start + op.duration;
    *slot = end;
    e.last_queue = choice.queue;
    schedule_.start[i] = choice.start;
    schedule_.end[i] = end;
    schedule_.makespan = std::max(schedule_.makespan, end);
    queue_last_start_[choice.queue] = choice.start;
    done_[i] = true;
  }

  const std::vector<Op>& ops_;
  const EngineConfig& config_;
  std::size_t hardware_queues_;
  std::vector<std::deque<std::size_t>> queues_;  // op indices per (hardware queue, engine), issue order
  std::map<int, EngineState> engines_;
  std::map<std::size_t, double> queue_last_start_;
  std::vector<std::size_t> prev_in_stream_;  // the op issued before it on its stream, or kNone
  std::vector<double> issue_;
  std::vector<bool> done_;
  std::size_t issued_ = 0;
  double host_clock_ = 0;
  Schedule schedule_;
};

}  // namespace

Schedule simulate(const std::vector<Op>& ops, const EngineConfig& config) {
  return Simulation(ops, config).run();
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
