#include <cstring>
#include <iostream>

#include "app.hpp"
#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/exercise/student_run.hpp"
#include "common/report/class_seal.hpp"
#include "common/report/translate.hpp"

int main(int argc, char** argv) {
  // The child that runs a student's exercise code holds nothing but what the student has
  // (common/exercise/student_run.hpp); every other command reads the class key first, while a
  // setgid install's group still lets it, and then gives the group up for good, before it reads
  // an argument or a file of the user's (common/report/class_seal.hpp).
  const bool exercise_child = argc > 1 && std::strcmp(argv[1], cudalab::kExerciseChildCommand) == 0;
  if (const cudalab::Message failed = cudalab::take_class_key_at_start(!exercise_child); !failed.empty()) {
    std::cerr << cudalab::tr(cudalab::lang_from_environment(), failed) << '\n';
    return cudalab::to_int(cudalab::ExitCode::runtime);
  }
  if (exercise_child) return cudalab::exercise_child_main(argc, argv);
  cudalab::install_interrupt_handler();
  const int code = cudalab::run_cli(argc, argv);
  // A signal can end a wait with an error of its own (a read that returned EINTR looks like the
  // end of its input): the exit code still says the run was stopped, not that it went wrong.
  return cudalab::interrupted() ? cudalab::interrupt_exit_code() : code;
}
