# Run by `cmake --install` when cudalab was configured with -DCUDALAB_CLASS_GROUP=GROUP (cli/
# CMakeLists.txt): the installed cudalab becomes setgid to GROUP, and the class key is made beside
# it (PREFIX/etc/cudalab/class.key, or the absolute CUDALAB_CLASS_KEY), 32 random bytes from the
# kernel written as hex, owned by root and GROUP, mode 0440, unless a key is there already: a key
# made again would leave every run sealed so far unsealed. docs/grade.md, "The class seal".
# Variables set before this script runs: CUDALAB_CLASS_GROUP, CUDALAB_CLASS_KEY.
set(binary "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/cudalab")
if(IS_ABSOLUTE "${CUDALAB_CLASS_KEY}")
  set(key "$ENV{DESTDIR}${CUDALAB_CLASS_KEY}")
else()
  get_filename_component(key "$ENV{DESTDIR}${CMAKE_INSTALL_PREFIX}/bin/${CUDALAB_CLASS_KEY}" ABSOLUTE)
endif()
get_filename_component(key_folder "${key}" DIRECTORY)

function(run_or_fail)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE failed)
  if(failed)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "class seal: `${command}` failed; the install cannot seal runs for the class")
  endif()
endfunction()

if(NOT EXISTS "${key}")
  file(MAKE_DIRECTORY "${key_folder}")
  execute_process(COMMAND od -An -tx1 -N32 /dev/urandom OUTPUT_VARIABLE bytes RESULT_VARIABLE failed)
  string(REGEX REPLACE "[ \n]" "" hex "${bytes}")
  string(LENGTH "${hex}" length)
  if(failed OR NOT length EQUAL 64)
    message(FATAL_ERROR "class seal: cannot read 32 random bytes from /dev/urandom")
  endif()
  # Made unreadable first, then written: no moment where others could read it.
  file(TOUCH "${key}")
  run_or_fail(chmod 0400 "${key}")
  file(WRITE "${key}" "${hex}\n")
  message(STATUS "class seal: a new class key in ${key}")
else()
  message(STATUS "class seal: the class key ${key} is kept")
endif()
run_or_fail(chown "root:${CUDALAB_CLASS_GROUP}" "${key}")
run_or_fail(chmod 0440 "${key}")
run_or_fail(chown "root:${CUDALAB_CLASS_GROUP}" "${binary}")
run_or_fail(chmod 2755 "${binary}")
message(STATUS "class seal: ${binary} is setgid ${CUDALAB_CLASS_GROUP}; check it as a student with `cudalab class check`")
