// One mapping from error to message and exit code (cli/failure.hpp), read by every command, by
// each lesson of `cudalab all` and by live mode's prompt.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/failure.hpp"
#include "cli/live.hpp"
#include "common/core/errors.hpp"
#include "common/queue/gpu_queue.hpp"
#include "fake_lesson.hpp"

using namespace cudalab;

TEST(Failures, EachKindHasItsLineAndCode) {
  const auto line = [](std::exception_ptr e) {
    const Failure f = failure_of(e);
    return std::to_string(f.exit_code) + " " + failure_line(f, Lang::en);
  };
  EXPECT_EQ(line(std::make_exception_ptr(UsageError("--streams: 0 is out of range"))),
            "2 cudalab: error: --streams: 0 is out of range");
  EXPECT_EQ(line(std::make_exception_ptr(WaivedError("no device"))), "77 cudalab: waived: no device");
  EXPECT_EQ(line(std::make_exception_ptr(RuntimeError("cudaMalloc failed"))), "3 cudalab: CUDA error: cudaMalloc failed");
  EXPECT_EQ(line(std::make_exception_ptr(QueueTimeoutError("waited 5 s for a turn on GPU-1 (--queue-timeout)"))),
            "3 cudalab: waited 5 s for a turn on GPU-1 (--queue-timeout)");
  EXPECT_EQ(line(std::make_exception_ptr(std::logic_error("bug"))), "3 cudalab: internal error: bug");
  EXPECT_TRUE(failure_of(std::make_exception_ptr(std::logic_error("bug"))).internal);
  const Failure f = failure_of(std::make_exception_ptr(WaivedError("x-y-z")));
  EXPECT_EQ(failure_line(f, Lang::en, "lesson 10 multi-gpu"), "cudalab: lesson 10 multi-gpu: waived: x-y-z");
  EXPECT_EQ(failure_line(f, Lang::zh), "cudalab：跳过：x-y-z");
}

// Live mode printed a --queue-timeout as "cudalab: CUDA error: …": it reads the same mapping now.
TEST(Failures, LiveModeSaysAQueueTimeoutAsTheCommandLineDoes) {
  class Lines final : public LineReader {
   public:
    std::optional<std::string> read(const std::string&) override {
      if (left_-- <= 0) return std::nullopt;
      return std::string("streams 8");
    }
    int left_ = 1;
  } reader;
  Invocation inv = testing_support::fake_live_invocation({});
  int runs = 0;
  const LiveRunner runner = [&](const LessonSetup& setup, const Invocation& i) {
    if (++runs == 2) throw QueueTimeoutError("waited 5 s for a turn on GPU-1 (--queue-timeout)");
    return testing_support::fake_runner()(setup, i);
  };
  std::ostringstream out;
  EXPECT_EQ(run_sitting(inv, runner, reader, out), 0);
  EXPECT_NE(out.str().find("\ncudalab: waited 5 s for a turn on GPU-1 (--queue-timeout)\n"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("CUDA error"), std::string::npos) << out.str();
}
