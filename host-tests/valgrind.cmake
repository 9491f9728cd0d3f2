# Runs PROGRAM (the C test binary) under valgrind; fails on a definite leak or a memory error.
# Skips (printing "SKIPPED:") when valgrind is not installed.
if(NOT VALGRIND OR VALGRIND MATCHES "NOTFOUND")
  message("SKIPPED: valgrind is not installed (scripts/setup.sh installs it)")
  return()
endif()
set(ENV{CR_TEST_QUICK} 1)
execute_process(
  COMMAND ${VALGRIND} --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1
          --show-leak-kinds=definite --track-origins=yes --quiet
          --suppressions=${CMAKE_CURRENT_LIST_DIR}/valgrind.supp ${PROGRAM}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "valgrind reported errors or the tests failed (exit ${result})")
endif()
