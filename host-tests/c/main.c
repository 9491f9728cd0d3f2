/* C host tests of libcontrollerreg. Usage: controllerreg-c-tests [group...]; no group runs all.
 * Groups: example semantics errors ownership threads features reliability abi reentry reload env forms edges outside loadmemory. Set CR_TEST_QUICK=1 for shorter loops. */
#include "check.h"
#include "tests.h"

#include <string.h>

static const struct {
    const char *name;
    void (*run)(void);
} groups[] = {
    {"example", test_example},
    {"semantics", test_semantics},
    {"errors", test_errors},
    {"ownership", test_ownership},
    {"threads", test_threads},
    {"features", test_features},
    {"reliability", test_reliability},
    {"abi", test_abi},
    {"reentry", test_reentry},
    {"reload", test_reload},
    {"env", test_env},
    {"forms", test_forms},
    {"edges", test_edges},
    {"outside", test_outside},
    {"loadmemory", test_loadmemory},
};

int main(int argc, char **argv) {
    size_t n = sizeof groups / sizeof groups[0];
    if (argc < 2) {
        for (size_t i = 0; i < n; i++) {
            printf("== %s\n", groups[i].name);
            groups[i].run();
        }
    } else {
        for (int a = 1; a < argc; a++) {
            size_t i = 0;
            while (i < n && strcmp(groups[i].name, argv[a]) != 0) i++;
            if (i == n) {
                fprintf(stderr, "unknown test group '%s'\n", argv[a]);
                return 2;
            }
            printf("== %s\n", groups[i].name);
            groups[i].run();
        }
    }
    return check_finish();
}
