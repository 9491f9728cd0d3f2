/* A tiny assertion helper for the C and C++ host tests.
 *
 * Every CHECK* macro counts one check; a failing one prints "file:line: ..." with the expression
 * (and the values where useful) and the run goes on. check_finish() prints the final line
 * "N passed, M failed" and returns the process exit status (non-zero if anything failed).
 * Thread-safe: checks may run on any thread. */
#ifndef CR_TEST_CHECK_H
#define CR_TEST_CHECK_H

#include <controllerreg.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Records one check; prints `what` (already formatted) when it failed. Returns `ok`. */
int check_record(int ok, const char *file, int line, const char *what);
/* Formats a failure description into a thread-local buffer. */
const char *check_format(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Prints a note line (skips, context). */
void check_note(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
int check_passed(void);
int check_failed(void);
/* Prints "N passed, M failed" and returns 0 if nothing failed, 1 otherwise. */
int check_finish(void);

#ifdef __cplusplus
}
#endif

#define CHECK(expr) check_record((expr) ? 1 : 0, __FILE__, __LINE__, "CHECK(" #expr ")")

#define CHECK_INT(actual, expected)                                                                                       \
    do {                                                                                                                  \
        long long check_a_ = (long long)(actual), check_e_ = (long long)(expected);                                       \
        check_record(check_a_ == check_e_, __FILE__, __LINE__,                                                            \
                     check_format("CHECK_INT(%s, %s): got %lld, expected %lld", #actual, #expected, check_a_, check_e_)); \
    } while (0)

#define CHECK_STR(actual, expected)                                                                     \
    do {                                                                                                \
        const char *check_a_ = (actual), *check_e_ = (expected);                                        \
        check_record(check_a_ &&check_e_ &&strcmp(check_a_, check_e_) == 0, __FILE__, __LINE__,         \
                     check_format("CHECK_STR(%s, %s): got \"%s\", expected \"%s\"", #actual, #expected, \
                                  check_a_ ? check_a_ : "(null)", check_e_ ? check_e_ : "(null)"));     \
    } while (0)

#define CHECK_CONTAINS(haystack, needle)                                                                        \
    do {                                                                                                        \
        const char *check_h_ = (haystack), *check_n_ = (needle);                                                \
        check_record(check_h_ &&check_n_ &&strstr(check_h_, check_n_) != NULL, __FILE__, __LINE__,              \
                     check_format("CHECK_CONTAINS(%s, %s): \"%s\" does not contain \"%s\"", #haystack, #needle, \
                                  check_h_ ? check_h_ : "(null)", check_n_ ? check_n_ : "(null)"));             \
    } while (0)

/* The call returned `code` and left it (and a non-empty message) as the thread's last error. */
#define CHECK_STATUS(call, code)                                                                                       \
    do {                                                                                                               \
        int check_s_ = (int)(call);                                                                                    \
        int check_c_ = (int)(code);                                                                                    \
        check_record(check_s_ == check_c_ && (check_c_ == 0 || cr_last_error_code() == check_c_), __FILE__, __LINE__,  \
                     check_format("CHECK_STATUS(%s, %s): returned %d (%s), last error %d: %s", #call, #code, check_s_, \
                                  cr_status_name(check_s_), cr_last_error_code(), cr_last_error_message()));           \
    } while (0)

/* The last error on this thread is `code`. */
#define CHECK_LAST_ERROR(code)                                                                                    \
    do {                                                                                                          \
        int check_c_ = (int)(code);                                                                               \
        check_record(cr_last_error_code() == check_c_, __FILE__, __LINE__,                                        \
                     check_format("CHECK_LAST_ERROR(%s): last error is %d (%s): %s", #code, cr_last_error_code(), \
                                  cr_status_name(cr_last_error_code()), cr_last_error_message()));                \
    } while (0)

#endif /* CR_TEST_CHECK_H */
