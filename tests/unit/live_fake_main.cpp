// The fake lesson's live sitting on a real terminal, for the tmux test (tests/live_tmux.sh).
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "fake_lesson.hpp"

int main() {
  cudalab::install_interrupt_handler();
  using namespace cudalab::testing_support;
  cudalab::Invocation inv = fake_live_invocation({});
  inv.output.style.width = cudalab::terminal_width();
  const auto reader = cudalab::make_line_reader({"streams", "slow", "quit", "help", "reset", "full", "save"});
  return cudalab::run_sitting(inv, fake_runner(), *reader, std::cout);
}
