# cmake -DSOURCE_DIR=<repo> -DVERSION=0.1.0 -DINPUT=version.hpp.in -DOUTPUT=version.hpp -P GitVersion.cmake
# Stamps the git commit the binary is built from into version.hpp, so every run file says which
# build made it. Runs at every build; configure_file rewrites the header only when the commit (or
# its dirty state) changed, so an unchanged tree recompiles nothing.
find_package(Git QUIET)
set(GIT_COMMIT unknown)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE _commit RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_rc EQUAL 0 AND NOT _commit STREQUAL "")
    set(GIT_COMMIT ${_commit})
    # Uncommitted changes to tracked files: the commit alone does not say what was built.
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE _changes RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0 AND NOT _changes STREQUAL "")
      string(APPEND GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
