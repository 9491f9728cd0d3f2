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
        n += (size_t)sprintf(buf + n,
                             "<plist><dict><key>A</key><dict><key>ClassName</key><string>Token</string>"
                             "<key>Dependencies</key><dict><key>x</key>");
        for (int i = 0; i < depth; i++) n += (size_t)sprintf(buf + n, "<array>");
        for (int i = 0; i < depth; i++) n += (size_t)sprintf(buf + n, "</array>");
        n += (size_t)sprintf(buf + n, "</dict></dict></dict></plist>");
    } else { /* "chain": E0 -> E1 -> ... -> E<depth> */
        for (int i = 0; i < depth; i++)
            n += (size_t)sprintf(buf + n, "E%d: {ClassName: Token, Dependencies: {n: E%d}}\n", i, i + 1);
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
            CHECK_CONTAINS(cr_last_error_message(), "for this thread's stack (at depth ");
            CHECK_CONTAINS(cr_last_error_message(),
                           "(the calling thread's stack is the bound, not a cr_limit: call from a "
                           "thread with a larger stack, or shorten the chain of references)");
        }
        free(o);
        /* A shorter chain still works afterwards. */
        o = cr_registry_create(reg, "E9990", NULL);
        CHECK(o != NULL);
        free(o);
    } else {
        CHECK_STATUS(cr_load_string(reg, text, n, f), CR_ERR_LIMIT);
        /* The fixed bound on dependency values, or this thread's stack: either way, says the fix. */
        CHECK_CONTAINS(cr_last_error_message(), "not a cr_limit: ");
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
    /* On this thread (8 MiB main stack) and on a thread with a 256 KiB stack. Quick mode (the
     * valgrind run) keeps only the small stack, where every case takes its failure path. */
    if (!quick_mode()) deep_inputs_thread(NULL);
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

/* ---- Failed creates mid-graph: everything built for the call is destroyed once, providers are
 *      released, singletons stay the registry's (valgrind checks nothing leaks) ----------------- */

static int made, destroyed, fail_after = -1, sets;

typedef struct counted {
    int magic;
    size_t n;
    void *kids[8];
    cr_provider *providers[8];
    size_t np;
} counted;

static void counted_destroy(void *o, void *user_data) {
    (void)user_data;
    counted *c = o;
    if (c->magic != 0xC0C0) {
        destroyed += 1000;
        return;
    } /* a double destroy shows in the count */
    c->magic = 0;
    for (size_t i = 0; i < c->n; i++) counted_destroy(c->kids[i], NULL);
    for (size_t i = 0; i < c->np; i++) cr_provider_free(c->providers[i]);
    free(c);
    destroyed++;
}

static void adopt(counted *c, const cr_value *v) {
    switch (cr_value_kind(v)) {
    case CR_OBJECT:
        if (cr_value_owner(v) == CR_OWNER_RECEIVER && c->n < 8) c->kids[c->n++] = cr_value_object(v);
        break;
    case CR_PROVIDER:
        if (c->np < 8) c->providers[c->np++] = cr_value_provider(v);
        break;
    case CR_LIST:
        for (size_t i = 0; i < cr_value_count(v); i++) adopt(c, cr_list_at(v, i));
        break;
    case CR_MAP:
        for (size_t i = 0; i < cr_value_count(v); i++) adopt(c, cr_map_value_at(v, i));
        break;
    default: break;
    }
}

static void *counted_create(const cr_value *args, void *user_data) {
    (void)user_data;
    if (fail_after >= 0 && made >= fail_after) {
        cr_report_error("refusing on purpose");
        return NULL;
    }
    counted *c = calloc(1, sizeof *c);
    c->magic = 0xC0C0;
    adopt(c, args);
    made++;
    return c;
}

static int counted_set(void *object, const char *key, const cr_value *value, void *user_data) {
    (void)user_data;
    (void)key;
    if (fail_after >= 0 && sets >= fail_after) return 1;
    sets++;
    adopt(object, value);
    return 0;
}

static void failed_creates_mid_graph(void) {
    static const char config[] = "S: {ClassName: K, Lifestyle: singleton}\n"
                                 "G: {ClassName: K, Lifestyle: graph}\n"
                                 "L: K\n"
                                 "M: {ClassName: K, Dependencies: {l: L, g: G, s: S}}\n"
                                 "Top: {ClassName: K, Dependencies: {a: M, p: {Provider: L}, list: [L, G, {deep: [M, L]}], s: S, "
                                 "b: M, q: {Provider: M}}}\n";
    static const cr_class cls = {.create = counted_create, .destroy = counted_destroy, .set = counted_set};
    /* A full create makes this many objects (the singleton once per registry). */
    int full;
    {
        cr_registry *reg = cr_registry_new();
        cr_register_class(reg, "K", &cls, NULL);
        CHECK_STATUS(load_yaml(reg, config), CR_OK);
        made = destroyed = 0;
        fail_after = -1;
        counted *top = cr_registry_create(reg, "Top", NULL);
        CHECK(top != NULL);
        full = made;
        counted_destroy(top, NULL);
        cr_registry_free(reg);
        CHECK_INT(destroyed, made); /* the singleton too, by the registry */
    }
    /* Fail at every point of the graph in turn. */
    for (int k = 0; k < full; k++) {
        cr_registry *reg = cr_registry_new();
        cr_register_class(reg, "K", &cls, NULL);
        CHECK_STATUS(load_yaml(reg, config), CR_OK);
        made = destroyed = 0;
        fail_after = k;
        CHECK(cr_registry_create(reg, "Top", NULL) == NULL);
        CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
        CHECK_CONTAINS(cr_last_error_message(), "refusing on purpose");
        /* The singleton, if built before the failure, stays the registry's until it is freed;
         * everything else built for the call is gone. */
        fail_after = -1;
        CHECK(cr_registry_create(reg, "S", NULL) != NULL);
        cr_registry_free(reg);
        CHECK_INT(destroyed, made);
    }
    /* Injection that fails at the second key: the first key's objects stay with the object, the
     * rest built for the call is destroyed. */
    {
        cr_registry *reg = cr_registry_new();
        cr_register_class(reg, "K", &cls, NULL);
        CHECK_STATUS(load_yaml(reg, config), CR_OK);
        counted *host = calloc(1, sizeof *host);
        host->magic = 0xC0C0;
        made = destroyed = sets = 0;
        fail_after = 1;
        CHECK_STATUS(cr_inject(reg, "Top", host), CR_ERR_CREATE_FAILED);
        fail_after = -1;
        counted_destroy(host, NULL);
        made++; /* the host object */
        cr_registry_free(reg);
        CHECK_INT(destroyed, made);
    }
}

/* A 200-byte binary plist whose 40 arrays each hold the next one twice would expand to 2^40
 * values: each copy of a shared container counts against CR_LIMIT_ALIAS_EXPANSION, as YAML aliases
 * do, so it is refused at once (it used to run to the 16 Mi node limit: seconds and ~0.5 GB). */
static void binary_plist_shared_containers(void) {
    unsigned char file[512];
    size_t n = 8, offsets[43];
    memcpy(file, "bplist00", 8);
    offsets[0] = n; /* object 0: {"A": object 1} */
    file[n++] = 0xD1;
    file[n++] = 42;
    file[n++] = 1;
    for (int i = 1; i <= 40; i++) { /* object i: [object i + 1, object i + 1] */
        offsets[i] = n;
        file[n++] = 0xA2;
        file[n++] = (unsigned char)(i + 1);
        file[n++] = (unsigned char)(i + 1);
    }
    offsets[41] = n;
    file[n++] = 0x09; /* true */
    offsets[42] = n;
    file[n++] = 0x51; /* "A" */
    file[n++] = 'A';
    size_t table = n;
    for (int i = 0; i < 43; i++) file[n++] = (unsigned char)offsets[i];
    unsigned char trailer[32] = {0, 0, 0, 0, 0, 0, 1, 1};
    trailer[15] = 43;                   /* object count */
    trailer[31] = (unsigned char)table; /* offset table offset; top object 0 */
    memcpy(file + n, trailer, sizeof trailer);
    n += sizeof trailer;
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_load_string(reg, (const char *)file, n, CR_FORMAT_PLIST), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(),
                   "shared containers (objects referenced more than once) expand to more than the limit of 100000 values");
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_ALIAS_EXPANSION, 10), CR_OK);
    CHECK_STATUS(cr_load_string(reg, (const char *)file, n, CR_FORMAT_PLIST), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "the limit of 10 values");
    cr_registry_free(reg);
}

void test_reliability(void) {
    args_are_read_only();
    deep_inputs();
    deep_values();
    failed_creates_mid_graph();
    binary_plist_shared_containers();
}
