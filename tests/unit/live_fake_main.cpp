// The fake lesson's live sitting on a real terminal, for the tmux test (tests/live_tmux.sh).
#include "common/core/interrupt.hpp"
#include "fake_lesson.hpp"

int main() {
  cudalab::install_interrupt_handler();
  using namespace cudalab::testing_support;
  cudalab::LiveSession session{&fake_entry(), {}, fake_runner()};
  const auto reader = cudalab::make_line_reader({"streams", "slow", "quit", "help", "reset", "full", "save"});
  return cudalab::run_live(session, *reader, std::cout);
}
