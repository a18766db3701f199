#include "app.hpp"
#include "common/core/interrupt.hpp"

int main(int argc, char** argv) {
  cudalab::install_interrupt_handler();
  return cudalab::run_cli(argc, argv);
}
