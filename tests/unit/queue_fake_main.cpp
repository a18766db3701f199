// A stand-in for `cudalab LESSON [--no-queue] --json FILE` on a machine without a GPU, for the
// class simulator's test (tests/class_sim_test.sh): it takes its turn in the real queue (for a
// made-up GPU, in $CUDALAB_QUEUE_DIR), holds it for CUDALAB_FAKE_HOLD seconds (default 0.2),
// and writes a run with the queue fields tools/class-sim.sh reads (no environment: it measures
// nothing). `compare LESSON FILE` says the run
// holds. Ctrl-C and SIGTERM while waiting exit 130, as cudalab does.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/queue/gpu_queue.hpp"
#include "common/core/interrupt.hpp"

namespace {

constexpr const char* kFakeGpu = "GPU-fa4e0000-0000-0000-0000-000000000000";

double hold_seconds() {
  const char* text = std::getenv("CUDALAB_FAKE_HOLD");
  const double hold = text != nullptr ? std::atof(text) : 0.2;
  return hold > 0 && hold < 60 ? hold : 0.2;
}

int run_lesson(const std::string& lesson, const std::string& json_path, bool queue) {
  const double hold = hold_seconds();
  cudalab::QueueOptions options;
  options.lesson = lesson;
  options.turn_times.by_lesson[lesson] = hold;
  cudalab::GpuTurn turn;
  if (queue) turn = cudalab::take_gpu_turn(kFakeGpu, options);
  ::usleep(static_cast<useconds_t>(hold * 1e6));
  turn.release();
  const cudalab::TurnRecord record = turn.record();
  std::ofstream out(json_path);
  out << fmt::format(
      R"({{"headline_metrics": ["fake.speedup"], "sections": [{{"key": "fake", "metrics": [{{"key": "fake.speedup", )"
      R"("median": 1.0, "unit": "x"}}]}}], "queue": {{"wait_s": {:.6f}, "held_s": {:.6f}, "position": {}}}}})",
      record.wait_s, queue ? record.held_s : hold, record.position);
  return out ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv) {
  cudalab::install_interrupt_handler();
  if (argc >= 2 && std::string_view(argv[1]) == "compare") {
    std::puts("B holds against A");
    return 0;
  }
  std::string json_path;
  bool queue = true;
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg(argv[i]);
    if (arg == "--no-queue") queue = false;
    if (arg == "--json" && i + 1 < argc) json_path = argv[++i];
  }
  if (argc < 2 || json_path.empty()) {
    std::fputs("usage: cudalab_queue_fake LESSON [--no-queue] --json FILE\n", stderr);
    return 2;
  }
  try {
    return run_lesson(argv[1], json_path, queue);
  } catch (const cudalab::InterruptedError&) {
    return 130;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cudalab_queue_fake: %s\n", e.what());
    return 3;
  }
}
