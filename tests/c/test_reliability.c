/* Reliability tests: regressions for what fuzzing found, hostile paths, and ownership under
 * failure (failed creates mid-graph, providers), so the valgrind run covers them. */
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Fuzz finding (fuzz_value): arguments that are the caller's props were writable ---------- */

static int mutations_accepted;

static void *mutating_create(const cr_value *args, void *user_data) {
    (void)user_data;
    /* Every value reached from args is read-only: each of these must be refused. */
    if (cr_map_set_null((cr_value *)args, "added") == CR_OK) mutations_accepted++;
    const cr_value *nested = cr_map_get(args, "nested");
    if (nested && cr_map_set_int((cr_value *)nested, "x", 1) == CR_OK) mutations_accepted++;
    const cr_value *list = cr_map_get(args, "list");
    if (list && cr_list_push_int((cr_value *)list, 7) == CR_OK) mutations_accepted++;
    cr_value_free((cr_value *)args); /* must be ignored */
    if (cr_last_error_code() != CR_ERR_INVALID_ARGUMENT) mutations_accepted++;
    return malloc(1);
}

static void plain_free(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static void args_are_read_only(void) {
    cr_registry *reg = cr_registry_new();
    static const cr_class cls = {.create = mutating_create, .destroy = plain_free};
    CHECK_STATUS(cr_register_class(reg, "Mutator", &cls, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, "M: {ClassName: Mutator, Dependencies: {a: 1}}\n"), CR_OK);
    for (int by_convention = 0; by_convention < 2; by_convention++) {
        cr_value *props = cr_map_new();
        cr_value *nested = cr_map_new();
        cr_map_set_int(nested, "n", 1);
        cr_map_set_value(props, "nested", nested);
        cr_value *list = cr_list_new();
        cr_list_push_int(list, 1);
        cr_map_set_value(props, "list", list);
        mutations_accepted = 0;
        void *o = cr_registry_create(reg, by_convention ? "Mutator" : "M", props);
        CHECK(o != NULL);
        free(o);
        CHECK_INT(mutations_accepted, 0);
        /* The caller's props are exactly as built. */
        CHECK_INT(cr_value_count(props), 2);
        CHECK_INT(cr_value_count(cr_map_get(props, "nested")), 1);
        CHECK_INT(cr_value_count(cr_map_get(props, "list")), 1);
        cr_value_free(props);
    }
    /* A value handed over to a container is no longer the caller's to change. */
    cr_value *outer = cr_map_new();
    cr_value *inner = cr_map_new();
    CHECK_STATUS(cr_map_set_value(outer, "inner", inner), CR_OK);
    CHECK_STATUS(cr_map_set_null((cr_value *)cr_map_get(outer, "inner"), "x"), CR_ERR_INVALID_ARGUMENT);
    cr_value_free(outer);
    cr_registry_free(reg);
}

void test_reliability(void) {
    args_are_read_only();
}
