// The exercise's child process end to end without a GPU: this program is both the lab (it runs a
// student's library through run_student, as `cudalab exercise` does) and, started again by it as
// its own child, the child (`__exercise-child`). What a library does while it loads (crash, hang,
// exit) is judged through the real runner; tests/exercise_test.sh builds the libraries with nvcc.
//   exercise_child_driver LIBRARY LIMIT_S   prints: VERDICT<tab>SECONDS<tab>WORDS
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/exercise/student_run.hpp"

int main(int argc, char** argv) {
  using namespace cudalab;
  if (argc > 1 && std::strcmp(argv[1], kExerciseChildCommand) == 0) return exercise_child_main(argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s LIBRARY LIMIT_S\n", argv[0]);
    return 2;
  }
  StudentBuild build;
  build.exercise_id = "03-stream-overlap";
  build.library_path = argv[1];
  build.time_limit_s = std::atof(argv[2]);
  const StudentRun run = run_student(build, "{}", "", "pipeline()");
  static const char* const kNames[] = {"ran", "crashed", "timed_out", "cuda_error", "load_error", "exited_early", "waived"};
  std::printf("%s\t%.2f\t%s\n", kNames[static_cast<int>(run.verdict)], run.wall_s, run.words.en().c_str());
  return 0;
}
