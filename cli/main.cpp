#include <cstring>

#include "app.hpp"
#include "common/core/interrupt.hpp"
#include "common/exercise/student_run.hpp"

int main(int argc, char** argv) {
  // The child that runs a student's exercise code, before anything else reads an argument or a
  // file: it holds nothing but what the student has (common/exercise/student_run.hpp).
  if (argc > 1 && std::strcmp(argv[1], cudalab::kExerciseChildCommand) == 0) {
    return cudalab::exercise_child_main(argc, argv);
  }
  cudalab::install_interrupt_handler();
  const int code = cudalab::run_cli(argc, argv);
  // A signal can end a wait with an error of its own (a read that returned EINTR looks like the
  // end of its input): the exit code still says the run was stopped, not that it went wrong.
  return cudalab::interrupted() ? cudalab::interrupt_exit_code() : code;
}
