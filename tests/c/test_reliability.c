/* Reliability tests: regressions for what fuzzing found, hostile paths, and ownership under
 * failure (failed creates mid-graph, providers), so the valgrind run covers them. */
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <errno.h>
#include <pthread.h>
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


/* ---- Deep input with every limit raised: CR_ERR_LIMIT, never a stack overflow ----------------- */

/* Owns what it receives: a token frees the objects in its args at once (it keeps none). */
static void *token_create(const cr_value *args, void *user_data) {
    (void)user_data;
    for (size_t i = 0; i < cr_value_count(args); i++) {
        const cr_value *v = cr_map_value_at(args, i);
        if (cr_value_kind(v) == CR_OBJECT && cr_value_owner(v) == CR_OWNER_RECEIVER) free(cr_value_object(v));
    }
    return malloc(1);
}

/* "[[[...]]]" (depth levels) as the value of a dependency, in `fmt`. */
static char *deep_config(const char *fmt, int depth, size_t *length) {
    char *buf = malloc((size_t)depth * 64 + 256);
    size_t n = 0;
    if (strcmp(fmt, "json") == 0) {
        n += (size_t)sprintf(buf + n, "{\"A\":{\"ClassName\":\"Token\",\"Dependencies\":{\"x\":");
        for (int i = 0; i < depth; i++) buf[n++] = '[';
        for (int i = 0; i < depth; i++) buf[n++] = ']';
        n += (size_t)sprintf(buf + n, "}}}");
    } else if (strcmp(fmt, "yaml") == 0) {
        n += (size_t)sprintf(buf + n, "A: {ClassName: Token, Dependencies: {x: ");
        for (int i = 0; i < depth; i++) buf[n++] = '[';
        for (int i = 0; i < depth; i++) buf[n++] = ']';
        n += (size_t)sprintf(buf + n, "}}\n");
    } else if (strcmp(fmt, "plist") == 0) {
        n += (size_t)sprintf(buf + n, "<plist><dict><key>A</key><dict><key>ClassName</key><string>Token</string>"
                                      "<key>Dependencies</key><dict><key>x</key>");
        for (int i = 0; i < depth; i++) n += (size_t)sprintf(buf + n, "<array>");
        for (int i = 0; i < depth; i++) n += (size_t)sprintf(buf + n, "</array>");
        n += (size_t)sprintf(buf + n, "</dict></dict></dict></plist>");
    } else { /* "chain": E0 -> E1 -> ... -> E<depth> */
        for (int i = 0; i < depth; i++) n += (size_t)sprintf(buf + n, "E%d: {ClassName: Token, Dependencies: {n: E%d}}\n", i, i + 1);
        n += (size_t)sprintf(buf + n, "E%d: Token\n", depth);
    }
    *length = n;
    return buf;
}

static void deep_case(const char *fmt, int depth, int small_stack) {
    cr_registry *reg = cr_registry_new();
    static const cr_class cls = {.create = token_create, .destroy = plain_free};
    CHECK_STATUS(cr_register_class(reg, "Token", &cls, NULL), CR_OK);
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_DEPTH, INT64_MAX), CR_OK);
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_CREATE_DEPTH, INT64_MAX), CR_OK);
    size_t n;
    char *text = deep_config(fmt, depth, &n);
    cr_format f = strcmp(fmt, "json") == 0 ? CR_FORMAT_JSON : strcmp(fmt, "plist") == 0 ? CR_FORMAT_PLIST : CR_FORMAT_YAML;
    if (strcmp(fmt, "chain") == 0) {
        CHECK_STATUS(cr_load_string(reg, text, n, f), CR_OK);
        /* 10,000 levels fit an 8 MiB stack, not a 256 KiB one: there it must be CR_ERR_LIMIT. */
        cr_clear_error();
        void *o = cr_registry_create(reg, "E0", NULL);
        if (small_stack || !o) {
            CHECK(o == NULL);
            CHECK_LAST_ERROR(CR_ERR_LIMIT);
            CHECK_CONTAINS(cr_last_error_message(), "stack");
        }
        free(o);
        /* A shorter chain still works afterwards. */
        o = cr_registry_create(reg, "E9990", NULL);
        CHECK(o != NULL);
        free(o);
    } else {
        CHECK_STATUS(cr_load_string(reg, text, n, f), CR_ERR_LIMIT);
        cr_value *entries = cr_registry_entries(reg);
        CHECK_INT(cr_value_count(entries), 0);
        cr_value_free(entries);
    }
    free(text);
    cr_registry_free(reg);
}

static void *deep_inputs_thread(void *small_stack) {
    static const char *const formats[] = {"json", "yaml", "plist", "chain"};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) deep_case(formats[i], 10000, small_stack != NULL);
    return NULL;
}

static void deep_inputs(void) {
    /* On this thread (8 MiB main stack) and on a thread with a 256 KiB stack. */
    deep_inputs_thread(NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t t;
    static int small = 1;
    CHECK(pthread_create(&t, &attr, deep_inputs_thread, &small) == 0);
    pthread_join(t, NULL);
    pthread_attr_destroy(&attr);
}

static void deep_values(void) {
    /* A host-built value 1,000,000 levels deep is freed without recursion. */
    cr_value *v = cr_list_new();
    int refused = 0;
    for (int i = 0; i < (quick_mode() ? 100000 : 1000000); i++) {
        cr_value *outer = cr_list_new();
        if (cr_list_push_value(outer, v) != CR_OK) refused++;
        v = outer;
    }
    CHECK_INT(refused, 0);
    cr_value_free(v);

    /* cr_add_entry refuses dependencies nested deeper than configs may be (256 levels). */
    cr_registry *reg = cr_registry_new();
    cr_value *deps = cr_map_new();
    cr_value *x = cr_list_new();
    for (int i = 0; i < 10000; i++) {
        cr_value *outer = cr_list_new();
        cr_list_push_value(outer, x);
        x = outer;
    }
    cr_map_set_value(deps, "x", x);
    CHECK_STATUS(cr_add_entry(reg, "Deep", "Token", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_LIMIT);
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 0);
    cr_value_free(entries);
    cr_value_free(deps);
    cr_registry_free(reg);
}

void test_reliability(void) {
    args_are_read_only();
    deep_inputs();
    deep_values();
}
