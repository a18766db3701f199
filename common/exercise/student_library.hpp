// The student's compiled code, loaded in the child process (never in the lab's own process): the
// library nvcc made, its entry point checked against the bench's interface before anything of it
// runs beyond its static initialisers. Every exercise's interface header exports one entry:
//
//   extern "C" const cudalab_exercise_entry_t cudalab_exercise_entry = {"NAME", N, &hooks};
//
// whose hooks are the exercise's own struct of function pointers (the header defines it, and
// the C layout of the entry; student_library.cpp reads the entry through the same layout).
#pragma once

#include <string>

#include "common/core/errors.hpp"

namespace cudalab {

// The library could not be loaded or speaks another interface: a verdict about the student's
// code (an undefined symbol, a missing CUDALAB_EXERCISE_ENTRY), printed as it is.
struct StudentLoadError : Error {
  using Error::Error;
};

// A CUDA call failed in or because of the student's code: the call and the error's name, and
// whether the error is sticky (the context is gone: nothing more can run in this process).
struct StudentCudaError : Error {
  StudentCudaError(Message words, bool is_sticky) : Error(std::move(words)), sticky(is_sticky) {}
  bool sticky;
};

class StudentLibrary {
 public:
  // dlopen (every symbol resolved now), then the entry, checked against `interface` and
  // `version`. Throws StudentLoadError.
  StudentLibrary(const std::string& path, const std::string& interface, int version);
  // The library stays loaded until the process ends: its CUDA runtime tears itself down at exit.
  StudentLibrary(const StudentLibrary&) = delete;
  StudentLibrary& operator=(const StudentLibrary&) = delete;

  // The exercise's own struct of function pointers, as its interface header defines it (the
  // bench includes that header too, so both agree on its layout).
  template <class Hooks>
  const Hooks& hooks() const {
    return *static_cast<const Hooks*>(hooks_);
  }

 private:
  const void* hooks_ = nullptr;
};

// The child gives up what the student must not have before it loads anything of theirs: a
// setgid cudalab's group (issue 46's class key is readable by that group only) goes, for good.
void drop_to_the_students_rights();

}  // namespace cudalab
