#include "model.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/core/stats.hpp"
#include "common/model/engine_model.hpp"
#include "workload.hpp"

namespace cudalab::unified_memory {

double gigabytes_per_second(double bytes, double ms) { return ms > 0 ? bytes / ms / 1e6 : 0.0; }

double transfer_ms(double bytes, double gb_per_s) { return gb_per_s > 0 ? bytes / gb_per_s / 1e6 : 0.0; }

FaultFit fit_faults(const std::vector<FaultProbe>& probes, double page_bytes, double h2d_gb_per_s,
                    double d2h_gb_per_s, double kernel_ms_per_page) {
  std::vector<double> pages, kernel_ms, host_ms;
  for (const FaultProbe& probe : probes) {
    pages.push_back(static_cast<double>(probe.pages));
    kernel_ms.push_back(median_of(column(probe.samples, &OnDemandSample::kernel_ms)));
    host_ms.push_back(median_of(column(probe.samples, &OnDemandSample::host_ms)));
  }
  if (std::adjacent_find(pages.begin(), pages.end(), [](double a, double b) { return a != b; }) == pages.end()) {
    throw std::invalid_argument("fit_faults needs probes of at least two sizes");
  }
  const LinearFit kernel = fit_line(pages, kernel_ms);
  const LinearFit host = fit_line(pages, host_ms);
  FaultFit f;
  f.kernel_fixed_ms = kernel.intercept;
  f.kernel_ms_per_page = kernel.slope;
  f.host_fixed_ms = host.intercept;
  f.host_ms_per_page = host.slope;
  f.gpu_fault_us = 1000.0 * (kernel.slope - transfer_ms(page_bytes, h2d_gb_per_s) - kernel_ms_per_page);
  f.host_fault_us = 1000.0 * (host.slope - transfer_ms(page_bytes, d2h_gb_per_s));
  return f;
}

double predict_copy_first_ms(double in_bytes, double out_bytes, double h2d_gb_per_s, double d2h_gb_per_s,
                             double kernel_ms) {
  return transfer_ms(in_bytes, h2d_gb_per_s) + kernel_ms + transfer_ms(out_bytes, d2h_gb_per_s);
}

double predict_zero_copy_ms(double read_bytes, double written_bytes, double h2d_gb_per_s, double d2h_gb_per_s) {
  return std::max(transfer_ms(read_bytes, h2d_gb_per_s), transfer_ms(written_bytes, d2h_gb_per_s));
}

std::optional<int> crossover_reuse(const std::vector<int>& reuses, const std::vector<double>& copy_first_ms,
                                   const std::vector<double>& zero_copy_ms) {
  const std::size_t n = std::min({reuses.size(), copy_first_ms.size(), zero_copy_ms.size()});
  std::optional<int> from;
  for (std::size_t i = n; i-- > 0;) {  // from the largest reuse down, while zero-copy is slower
    if (zero_copy_ms[i] <= copy_first_ms[i]) break;
    from = reuses[i];
  }
  return from;
}

MigrationTally tally_migrations(const Timeline& t) {
  MigrationTally out;
  for (const TimelineOp& op : t.ops) {
    if (op.kind == ActivityKind::page_fault) {
      (op.name.rfind("CPU", 0) == 0 ? out.cpu_faults : out.gpu_faults) += 1;
    } else if (op.kind == ActivityKind::migration_h2d) {
      ++out.h2d_migrations;
      out.h2d_bytes += op.bytes;
    } else if (op.kind == ActivityKind::migration_d2h) {
      ++out.d2h_migrations;
      out.d2h_bytes += op.bytes;
    }
  }
  return out;
}

namespace {

// The explicit pipeline on the engine model: its chunks' copies and kernels on the device's copy
// engines, one kernel at a time.
double predict_pipeline_ms(const Params& p, const Measurements& m) {
  EngineConfig engines;
  engines.copy_engines = m.copy_engines;
  engines.concurrent_kernels = 1;
  const PipelineStages stages{median_of(m.h2d_chunk_ms), median_of(m.kernel_chunk_ms), median_of(m.d2h_chunk_ms)};
  return simulate(pipeline_ops(m.chunk_count, p.streams, stages, IssueOrder::depth_first, false), engines).makespan;
}

void predict_reuse(const Measurements& m, Prediction& out) {
  std::vector<int> reuses;
  const auto bytes = static_cast<double>(m.bytes);
  for (const ReuseCase& c : m.reuse) {
    reuses.push_back(c.reuse);
    out.copy_first_ms.push_back(
        predict_copy_first_ms(bytes, bytes, out.h2d_gb_per_s, out.d2h_gb_per_s, median_of(c.kernel_ms)));
    out.zero_copy_ms.push_back(predict_zero_copy_ms(c.reuse * bytes, bytes, out.h2d_gb_per_s, out.d2h_gb_per_s));
  }
  out.crossover = crossover_reuse(reuses, out.copy_first_ms, out.zero_copy_ms);
}

}  // namespace

Prediction predict(const Params& p, const Measurements& m) {
  Prediction out;
  const auto chunk = static_cast<double>(m.chunk_bytes);
  out.h2d_gb_per_s = gigabytes_per_second(chunk, median_of(m.h2d_chunk_ms));
  out.d2h_gb_per_s = gigabytes_per_second(chunk, median_of(m.d2h_chunk_ms));
  out.explicit_ms = predict_pipeline_ms(p, m);
  out.prefetched_ms = out.explicit_ms;
  const double page = static_cast<double>(m.page_bytes);
  const double pages = static_cast<double>(m.bytes) / page;
  const double kernel_ms_per_page = median_of(m.kernel_chunk_ms) / (chunk / page);
  out.faults = fit_faults(m.probes, page, out.h2d_gb_per_s, out.d2h_gb_per_s, kernel_ms_per_page);
  out.on_demand_kernel_ms = out.faults.kernel_fixed_ms + out.faults.kernel_ms_per_page * pages;
  out.on_demand_host_ms = out.faults.host_fixed_ms + out.faults.host_ms_per_page * pages;
  predict_reuse(m, out);
  const auto bytes = static_cast<double>(m.bytes);
  const auto sparse_out = static_cast<double>(m.sparse_reads * kLineWords * sizeof(Word));
  out.sparse_copy_first_ms = predict_copy_first_ms(bytes, sparse_out, out.h2d_gb_per_s, out.d2h_gb_per_s,
                                                   median_of(m.sparse_kernel_ms));
  out.sparse_zero_copy_ms = predict_zero_copy_ms(sparse_out, sparse_out, out.h2d_gb_per_s, out.d2h_gb_per_s);
  return out;
}

}  // namespace cudalab::unified_memory
