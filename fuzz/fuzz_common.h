/* Shared helpers of the libFuzzer targets. */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "controllerreg.h"

/* abort() naming the failed condition (the input is then saved by libFuzzer as a crash). */
#define CHECK(c)                                                                    \
    do {                                                                            \
        if (!(c)) {                                                                 \
            fprintf(stderr, "CHECK failed: %s at %s:%d\n", #c, __FILE__, __LINE__); \
            abort();                                                                \
        }                                                                           \
    } while (0)

/* Limits small enough that no input of a few KB can make one run slow (an alias bomb, a deep
 * nest), but above anything the seeds need. The defaults are exercised by the test suite. */
static inline void fuzz_tight_limits(cr_registry *reg) {
    CHECK(!(cr_registry_set_limit(reg, CR_LIMIT_NODES, 200000) != CR_OK));
    CHECK(!(cr_registry_set_limit(reg, CR_LIMIT_ALIAS_EXPANSION, 20000) != CR_OK));
    CHECK(!(cr_registry_set_limit(reg, CR_LIMIT_STRING_BYTES, 1 << 20) != CR_OK));
}

/* A status must be one of the documented codes, and a failure must carry a message. */
static inline void fuzz_check_status(int rc) {
    CHECK(!(rc < CR_OK || rc > CR_ERR_LIFETIME));
    if (rc != CR_OK) {
        CHECK(!(cr_last_error_code() != rc));
        const char *m = cr_last_error_message();
        CHECK(!(!m || !m[0]));
    }
}
#endif
