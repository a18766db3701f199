#include "app.hpp"
#include "common/core/interrupt.hpp"

int main(int argc, char** argv) {
  cudalab::install_interrupt_handler();
  const int code = cudalab::run_cli(argc, argv);
  // A signal can end a wait with an error of its own (a read that returned EINTR looks like the
  // end of its input): the exit code still says the run was stopped, not that it went wrong.
  return cudalab::interrupted() ? cudalab::interrupt_exit_code() : code;
}
