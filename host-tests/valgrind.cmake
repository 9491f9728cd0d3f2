# Runs PROGRAM [ARGS] (a host test binary and, optionally, its test groups) under valgrind; fails
# on a definite leak or a memory error. Skips (printing "SKIPPED:") when valgrind is not installed.
# No --track-origins (it doubles the time): to see where an uninitialised value comes from, rerun
# the reported group by hand with it (CONTRIBUTING.md).
if(NOT VALGRIND OR VALGRIND MATCHES "NOTFOUND")
  message("SKIPPED: valgrind is not installed (scripts/setup.sh installs it)")
  return()
endif()
set(ENV{CR_TEST_QUICK} 1)
execute_process(
  COMMAND ${VALGRIND} --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1
          --show-leak-kinds=definite --quiet
          --suppressions=${CMAKE_CURRENT_LIST_DIR}/valgrind.supp ${PROGRAM} ${ARGS}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "valgrind reported errors or the tests failed (exit ${result})")
endif()
