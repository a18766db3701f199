#include "common/gpu/traced_run.hpp"

#include "common/gpu/nvtx.hpp"

namespace cudalab {

std::optional<Timeline> traced_run(std::vector<Timeline>& timelines, const Message& title,
                                   const std::vector<NamedLane>& lanes, const std::function<void(TraceSession&)>& run,
                                   const std::string& notes_key, TraceScope scope) {
  TraceSession trace(scope);
  for (const auto& lane : lanes) trace.name_stream(lane.stream, lane.name);
  // A rehearsal inside the session that nobody sees: the first launches after tracing starts
  // pay CUPTI's one-time costs (milliseconds on the lab H100), which would otherwise show up as
  // gaps in the picture.
  for (int pass = 1; pass < kTracedRunPasses; ++pass) run(trace);
  trace.discard_recorded();
  {
    const std::string phase_name = title.en() + " (traced)";
    const NvtxRange phase(phase_name.c_str());
    run(trace);
  }
  std::optional<Timeline> timeline = trace.finish(title, notes_key);
  if (timeline) timelines.push_back(*timeline);
  return timeline;
}

double device_busy_ms(const Timeline& timeline, const Message& lane_name) {
  const std::string wanted = lane_name.en();  // "stream 13" finds the lane msg("stream {id}") named
  double busy_ns = 0;
  for (const auto& op : timeline.ops) {
    if (op.kind == ActivityKind::host_callback || op.kind == ActivityKind::sync) continue;
    if (op.lane < timeline.lanes.size() && timeline.lanes[op.lane].name.en() == wanted) {
      busy_ns += static_cast<double>(op.duration_ns());
    }
  }
  return busy_ns * 1e-6;
}

}  // namespace cudalab
