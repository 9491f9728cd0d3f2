/*
 * bench.c — controllerreg's C benchmark: creates through the C ABI against hand-wired C and a
 * C name-lookup baseline; config loads against libyaml's raw event scan and libplist's parse;
 * thread scaling; a soak of creates with RSS sampled.
 *
 * Every measurement prints one line:
 *   RESULT {"name": "...", "unit": "ns/op"|"ms"|"bytes"|..., "samples": [...], ...}
 * which Benchmarks/scripts/driver.py collects into the table and results.json. Run with no
 * arguments for the list of modes. Prints only; asserts nothing about speed.
 */
#define _GNU_SOURCE
#include "controllerreg.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>
#ifdef HAVE_LIBPLIST
#include <plist/plist.h>
#endif

/* ---------------------------------------------------------------------------------------- */
/* helpers                                                                                   */

/* Single-threaded cases are timed in this thread's CPU time, so that time the scheduler gives
 * to other processes on a shared machine is not counted (BENCH_CLOCK=wall for wall time).
 * Thread scaling and the soak use wall time. */
static clockid_t case_clock = CLOCK_THREAD_CPUTIME_ID;

static double clock_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}
static double now_ns(void) { return clock_ns(case_clock); }
static double wall_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

static long rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static void emit(const char *name, const char *unit, const double *samples, int n, const char *extra) {
    printf("RESULT {\"name\": \"%s\", \"unit\": \"%s\", \"samples\": [", name, unit);
    for (int i = 0; i < n; i++) printf("%s%.4f", i ? ", " : "", samples[i]);
    printf("]%s%s}\n", extra ? ", " : "", extra ? extra : "");
    fflush(stdout);
}

static void die(const char *what) {
    fprintf(stderr, "bench: %s: %s (code %d)\n", what, cr_last_error_message(), cr_last_error_code());
    exit(1);
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) { perror(path); exit(1); }
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Keeps results alive so the compiler cannot drop the work. */
static volatile uintptr_t sink;

/* ---------------------------------------------------------------------------------------- */
/* host classes (the same objects the hand-wired code builds)                                */

typedef struct { int64_t id; } leaf_t;
typedef struct {
    leaf_t *a, *b;
    char title[24];
    int64_t count;
    double ratio;
} node_t;
typedef struct link { struct link *next; } link_t;
typedef struct { void *shared; int owns; } holder_t;
typedef struct { holder_t *left, *right; } pair_t;

static void *leaf_create(const cr_value *args, void *ud) {
    (void)args; (void)ud;
    leaf_t *l = malloc(sizeof *l);
    l->id = 1;
    return l;
}
static void plain_destroy(void *o, void *ud) { (void)ud; free(o); }

static void copy_title(char *dst, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n > 23) n = 23;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static void *node_create(const cr_value *args, void *ud) {
    (void)ud;
    node_t *n = malloc(sizeof *n);
    n->a = cr_value_object(cr_map_get(args, "a"));
    n->b = cr_value_object(cr_map_get(args, "b"));
    copy_title(n->title, cr_value_string(cr_map_get(args, "title")));
    n->count = cr_value_int(cr_map_get(args, "count"));
    n->ratio = cr_value_double(cr_map_get(args, "ratio"));
    return n;
}
static void node_destroy(void *o, void *ud) {
    (void)ud;
    node_t *n = o;
    free(n->a);
    free(n->b);
    free(n);
}

static void *link_create(const cr_value *args, void *ud) {
    (void)ud;
    link_t *l = malloc(sizeof *l);
    const cr_value *next = cr_map_get(args, "next");
    l->next = next ? cr_value_object(next) : NULL;
    return l;
}
static void link_destroy(void *o, void *ud) {
    (void)ud;
    link_t *l = o;
    while (l) { link_t *n = l->next; free(l); l = n; }
}

static void *holder_create(const cr_value *args, void *ud) {
    (void)ud;
    holder_t *h = malloc(sizeof *h);
    const cr_value *s = cr_map_get(args, "shared");
    h->shared = cr_value_object(s);
    h->owns = cr_value_owner(s) == CR_OWNER_RECEIVER;
    return h;
}
static void holder_destroy(void *o, void *ud) {
    (void)ud;
    holder_t *h = o;
    if (h->owns) free(h->shared);
    free(h);
}
static void *pair_create(const cr_value *args, void *ud) {
    (void)ud;
    pair_t *p = malloc(sizeof *p);
    p->left = cr_value_object(cr_map_get(args, "left"));
    p->right = cr_value_object(cr_map_get(args, "right"));
    return p;
}
static void pair_destroy(void *o, void *ud) {
    (void)ud;
    pair_t *p = o;
    holder_destroy(p->left, NULL);
    holder_destroy(p->right, NULL);
    free(p);
}

static const char *create_config =
    "Leaf: Leaf\n"
    "LeafB: Leaf\n"
    "Node:\n"
    "  ClassName: Node\n"
    "  Dependencies: {a: Leaf, b: LeafB, title: \"@Home screen\", count: 3, ratio: 0.5}\n"
    "Single: {ClassName: Leaf, Lifestyle: singleton}\n"
    "Shared: {ClassName: Leaf, Lifestyle: graph}\n"
    "Left: {ClassName: Holder, Dependencies: {shared: Shared}}\n"
    "Right: {ClassName: Holder, Dependencies: {shared: Shared}}\n"
    "Diamond: {ClassName: Pair, Dependencies: {left: Left, right: Right}}\n"
    "Chain0: Link\n"
    "Chain1: {ClassName: Link, Dependencies: {next: Chain0}}\n"
    "Chain2: {ClassName: Link, Dependencies: {next: Chain1}}\n"
    "Chain3: {ClassName: Link, Dependencies: {next: Chain2}}\n"
    "Chain4: {ClassName: Link, Dependencies: {next: Chain3}}\n"
    "Chain5: {ClassName: Link, Dependencies: {next: Chain4}}\n"
    "Chain6: {ClassName: Link, Dependencies: {next: Chain5}}\n"
    "Chain7: {ClassName: Link, Dependencies: {next: Chain6}}\n"
    "Chain8: {ClassName: Link, Dependencies: {next: Chain7}}\n"
    "Chain9: {ClassName: Link, Dependencies: {next: Chain8}}\n";

static cr_registry *make_registry(void) {
    cr_registry *reg = cr_registry_new();
    cr_class leaf = {.create = leaf_create, .destroy = plain_destroy};
    cr_class node = {.create = node_create, .destroy = node_destroy};
    cr_class link = {.create = link_create, .destroy = link_destroy};
    cr_class holder = {.create = holder_create, .destroy = holder_destroy};
    cr_class pair = {.create = pair_create, .destroy = pair_destroy};
    if (cr_register_class(reg, "Leaf", &leaf, NULL) || cr_register_class(reg, "Node", &node, NULL) ||
        cr_register_class(reg, "Link", &link, NULL) || cr_register_class(reg, "Holder", &holder, NULL) ||
        cr_register_class(reg, "Pair", &pair, NULL))
        die("register");
    if (cr_load_string(reg, create_config, strlen(create_config), CR_FORMAT_YAML)) die("load");
    return reg;
}

/* ---------------------------------------------------------------------------------------- */
/* the C baseline: FNV-1a lookup of a short name in a table + a call through a function pointer */

typedef void *(*create_fn)(const cr_value *, void *);
typedef struct { const char *name; uint64_t hash; create_fn fn; } fn_slot;
#define FN_TABLE 64
static fn_slot fn_table[FN_TABLE];

static uint64_t fnv1a(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    while (*s) { h ^= (unsigned char)*s++; h *= 0x100000001b3ull; }
    return h;
}
static void fn_table_add(const char *name, create_fn fn) {
    uint64_t h = fnv1a(name);
    size_t i = h & (FN_TABLE - 1);
    while (fn_table[i].name) i = (i + 1) & (FN_TABLE - 1);
    fn_table[i] = (fn_slot){name, h, fn};
}
static __attribute__((noinline)) void *fn_table_create(const char *name) {
    uint64_t h = fnv1a(name);
    size_t i = h & (FN_TABLE - 1);
    while (fn_table[i].name) {
        if (fn_table[i].hash == h && strcmp(fn_table[i].name, name) == 0) return fn_table[i].fn(NULL, NULL);
        i = (i + 1) & (FN_TABLE - 1);
    }
    return NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* create cases                                                                              */

static int reps = 9;
static long iters = 200000;

typedef void (*op_fn)(void *ctx);

static void run_case(const char *name, op_fn op, void *ctx, long n) {
    double samples[64];
    for (long i = 0; i < n / 10; i++) op(ctx); /* warm up */
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        for (long i = 0; i < n; i++) op(ctx);
        samples[r] = (now_ns() - t0) / (double)n;
    }
    emit(name, "ns/op", samples, reps, NULL);
}

typedef struct { cr_registry *reg; const char *name; cr_value *props; } create_ctx;

static void op_cr_leaf(void *c) { create_ctx *x = c; void *o = cr_registry_create(x->reg, x->name, NULL); free(o); }
static void op_cr_node(void *c) { create_ctx *x = c; node_destroy(cr_registry_create(x->reg, x->name, x->props), NULL); }
static void op_cr_chain(void *c) { create_ctx *x = c; link_destroy(cr_registry_create(x->reg, x->name, NULL), NULL); }
static void op_cr_single(void *c) { create_ctx *x = c; sink = (uintptr_t)cr_registry_create(x->reg, x->name, NULL); }
static void op_cr_diamond(void *c) { create_ctx *x = c; pair_destroy(cr_registry_create(x->reg, x->name, NULL), NULL); }

static const char *volatile leaf_name = "Leaf";
static void op_lookup_call_v(void *c) { (void)c; void *o = fn_table_create(leaf_name); free(o); }

static __attribute__((noinline)) leaf_t *hand_leaf(void) { leaf_t *l = malloc(sizeof *l); l->id = 1; return l; }
static void op_hand_leaf(void *c) { (void)c; leaf_t *l = hand_leaf(); sink = (uintptr_t)l; free(l); }
static __attribute__((noinline)) node_t *hand_node(const char *title, int64_t count, double ratio) {
    node_t *n = malloc(sizeof *n);
    n->a = hand_leaf();
    n->b = hand_leaf();
    copy_title(n->title, title);
    n->count = count;
    n->ratio = ratio;
    return n;
}
static void op_hand_node(void *c) { (void)c; node_destroy(hand_node("Home screen", 3, 0.5), NULL); }
static void op_hand_chain(void *c) {
    (void)c;
    link_t *l = NULL;
    for (int i = 0; i < 10; i++) { link_t *n = malloc(sizeof *n); n->next = l; l = n; sink = (uintptr_t)l; }
    link_destroy(l, NULL);
}
static leaf_t *hand_single_obj;
static void op_hand_single(void *c) { (void)c; if (!hand_single_obj) hand_single_obj = hand_leaf(); sink = (uintptr_t)hand_single_obj; }
static void op_hand_diamond(void *c) {
    (void)c;
    leaf_t *s = hand_leaf();
    holder_t *l = malloc(sizeof *l), *r = malloc(sizeof *r);
    l->shared = s; l->owns = 1;
    r->shared = s; r->owns = 0;
    pair_t *p = malloc(sizeof *p);
    p->left = l; p->right = r;
    sink = (uintptr_t)p;
    pair_destroy(p, NULL);
}
static void op_hand_props(void *c) { (void)c; node_destroy(hand_node("Overridden", 42, 0.5), NULL); }

static void mode_create(void) {
    cr_registry *reg = make_registry();
    fn_table_add("Leaf", leaf_create);
    fn_table_add("Node", node_create);
    fn_table_add("Link", link_create);
    fn_table_add("Holder", holder_create);
    fn_table_add("Pair", pair_create);
    fn_table_add("Single", leaf_create);
    cr_value *props = cr_map_new();
    cr_map_set_string(props, "title", "Overridden");
    cr_map_set_int(props, "count", 42);

    create_ctx leaf = {reg, "Leaf", NULL}, node = {reg, "Node", NULL}, chain = {reg, "Chain9", NULL},
               single = {reg, "Single", NULL}, diamond = {reg, "Diamond", NULL}, merged = {reg, "Node", props};
    /* sanity: the objects are what the hand-wired code builds */
    node_t *n = cr_registry_create(reg, "Node", props);
    if (!n || n->count != 42 || strcmp(n->title, "Overridden") != 0 || n->ratio != 0.5 || !n->a || !n->b) die("props check");
    node_destroy(n, NULL);

    run_case("c.baseline.lookup_call", op_lookup_call_v, NULL, iters * 5);
    run_case("c.cr.leaf", op_cr_leaf, &leaf, iters * 5);
    run_case("c.hand.leaf", op_hand_leaf, NULL, iters * 5);
    run_case("c.cr.node5", op_cr_node, &node, iters);
    run_case("c.hand.node5", op_hand_node, NULL, iters * 5);
    run_case("c.cr.chain10", op_cr_chain, &chain, iters / 2);
    run_case("c.hand.chain10", op_hand_chain, NULL, iters * 2);
    run_case("c.cr.singleton", op_cr_single, &single, iters * 5);
    run_case("c.hand.singleton", op_hand_single, NULL, iters * 10);
    run_case("c.cr.diamond", op_cr_diamond, &diamond, iters / 2);
    run_case("c.hand.diamond", op_hand_diamond, NULL, iters * 2);
    run_case("c.cr.props_merged", op_cr_node, &merged, iters);
    run_case("c.hand.props_merged", op_hand_props, NULL, iters * 5);
    cr_value_free(props);
    cr_registry_free(reg);
}

/* One case n times, untimed: for profiles (valgrind --tool=callgrind bench one node 100000). */
static void mode_one(const char *which, long n) {
    cr_registry *reg = make_registry();
    fn_table_add("Leaf", leaf_create);
    cr_value *props = cr_map_new();
    cr_map_set_string(props, "title", "Overridden");
    cr_map_set_int(props, "count", 42);
    create_ctx leaf = {reg, "Leaf", NULL}, node = {reg, "Node", NULL}, chain = {reg, "Chain9", NULL},
               single = {reg, "Single", NULL}, diamond = {reg, "Diamond", NULL}, merged = {reg, "Node", props};
    struct { const char *name; op_fn op; void *ctx; } cases[] = {
        {"leaf", op_cr_leaf, &leaf}, {"node", op_cr_node, &node}, {"chain", op_cr_chain, &chain},
        {"singleton", op_cr_single, &single}, {"diamond", op_cr_diamond, &diamond},
        {"props", op_cr_node, &merged}, {"lookup", op_lookup_call_v, NULL}, {"handnode", op_hand_node, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(cases[i].name, which))
            for (long k = 0; k < n; k++) cases[i].op(cases[i].ctx);
    cr_value_free(props);
    cr_registry_free(reg);
}

/* ---------------------------------------------------------------------------------------- */
/* threads and soak                                                                          */

typedef struct { cr_registry *reg; long n; double cpu_ns; } thread_arg;
static void *thread_body(void *p) {
    thread_arg *a = p;
    double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < a->n; i++) node_destroy(cr_registry_create(a->reg, "Node", NULL), NULL);
    a->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    return NULL;
}

/* Creates per second of the 5-dependency entry with T threads, each doing n creates:
 * c.threads.T by wall time (needs T idle cores), c.threads_cpu.T as the sum of each thread's
 * n / its own CPU time (what contention inside the library costs, whatever else runs). */
static void mode_threads(void) {
    cr_registry *reg = make_registry();
    long n = iters * 2;
    for (int t = 1; t <= 2; t++) {
        double samples[64], cpu[64];
        thread_arg warm = {reg, n / 10, 0};
        thread_body(&warm);
        for (int r = 0; r < reps; r++) {
            pthread_t th[2];
            thread_arg a[2] = {{reg, n, 0}, {reg, n, 0}};
            double t0 = wall_ns();
            for (int i = 0; i < t; i++) pthread_create(&th[i], NULL, thread_body, &a[i]);
            for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
            samples[r] = (double)(n * t) / ((wall_ns() - t0) / 1e9) / 1e6;
            cpu[r] = 0;
            for (int i = 0; i < t; i++) cpu[r] += (double)n / (a[i].cpu_ns / 1e9) / 1e6;
        }
        char name[64];
        snprintf(name, sizeof name, "c.threads.%d", t);
        emit(name, "Mops/s", samples, reps, NULL);
        snprintf(name, sizeof name, "c.threads_cpu.%d", t);
        emit(name, "Mops/s", cpu, reps, NULL);
    }
    cr_registry_free(reg);
}

/* n creates of the 5-dependency entry (3 objects each), RSS sampled every n/10. */
static void mode_soak(long n) {
    cr_registry *reg = make_registry();
    for (long i = 0; i < 100000; i++) node_destroy(cr_registry_create(reg, "Node", NULL), NULL);
    double samples[11];
    int k = 0;
    samples[k++] = (double)rss_bytes();
    double t0 = wall_ns();
    for (long i = 1; i <= n; i++) {
        node_destroy(cr_registry_create(reg, "Node", NULL), NULL);
        if (i % (n / 10) == 0) samples[k++] = (double)rss_bytes();
    }
    double secs = (wall_ns() - t0) / 1e9;
    char extra[160];
    snprintf(extra, sizeof extra, "\"creates\": %ld, \"seconds\": %.3f, \"growth_bytes\": %.0f", n, secs, samples[k - 1] - samples[0]);
    emit("c.soak.rss", "bytes", samples, k, extra);
    cr_registry_free(reg);
}

/* ---------------------------------------------------------------------------------------- */
/* loads                                                                                     */

static cr_format parse_format(const char *s) {
    if (!strcmp(s, "yaml")) return CR_FORMAT_YAML;
    if (!strcmp(s, "json")) return CR_FORMAT_JSON;
    if (!strcmp(s, "plist")) return CR_FORMAT_PLIST;
    return CR_FORMAT_AUTO;
}

/* Load + full validation from memory into a fresh registry, per rep (freeing is not timed). */
static void mode_load(const char *name, const char *path, const char *fmt) {
    size_t len;
    char *text = read_file(path, &len);
    double samples[64];
    for (int r = 0; r < reps; r++) {
        cr_registry *reg = cr_registry_new();
        double t0 = now_ns();
        if (cr_load_string(reg, text, len, parse_format(fmt))) die(path);
        samples[r] = (now_ns() - t0) / 1e6;
        cr_registry_free(reg);
    }
    char extra[64];
    snprintf(extra, sizeof extra, "\"bytes\": %zu", len);
    emit(name, "ms", samples, reps, extra);
    free(text);
}

/* RSS growth of one load in a fresh process, per entry. */
static void mode_loadmem(const char *name, const char *path, const char *fmt, long entries) {
    size_t len;
    char *text = read_file(path, &len);
    cr_registry *warm = cr_registry_new();
    cr_load_string(warm, "W: Leaf", 7, CR_FORMAT_YAML);
    cr_registry_free(warm);
    long before = rss_bytes();
    cr_registry *reg = cr_registry_new();
    if (cr_load_string(reg, text, len, parse_format(fmt))) die(path);
    long after = rss_bytes();
    double per = (double)(after - before) / (double)entries;
    char extra[96];
    snprintf(extra, sizeof extra, "\"entries\": %ld, \"growth_bytes\": %ld", entries, after - before);
    emit(name, "B/entry", &per, 1, extra);
    cr_registry_free(reg);
    free(text);
}

/* libyaml: the raw event scan of the same bytes (no tree, no types). */
static void mode_libyaml(const char *name, const char *path) {
    size_t len;
    char *text = read_file(path, &len);
    double samples[64];
    long events = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ns();
        yaml_parser_t parser;
        yaml_event_t event;
        yaml_parser_initialize(&parser);
        yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
        events = 0;
        for (;;) {
            if (!yaml_parser_parse(&parser, &event)) { fprintf(stderr, "libyaml error\n"); exit(1); }
            int done = event.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&event);
            events++;
            if (done) break;
        }
        yaml_parser_delete(&parser);
        samples[r] = (now_ns() - t0) / 1e6;
    }
    char extra[96];
    snprintf(extra, sizeof extra, "\"bytes\": %zu, \"events\": %ld", len, events);
    emit(name, "ms", samples, reps, extra);
    free(text);
}

/* libplist: plist_from_xml / plist_from_bin of the same bytes (freeing the tree is not timed). */
static void mode_libplist(const char *name, const char *path) {
#ifdef HAVE_LIBPLIST
    size_t len;
    char *text = read_file(path, &len);
    double samples[64];
    int binary = len > 6 && memcmp(text, "bplist", 6) == 0;
    for (int r = 0; r < reps; r++) {
        plist_t root = NULL;
        double t0 = now_ns();
        if (binary) plist_from_bin(text, (uint32_t)len, &root);
        else plist_from_xml(text, (uint32_t)len, &root);
        samples[r] = (now_ns() - t0) / 1e6;
        if (!root) { fprintf(stderr, "libplist could not parse %s\n", path); exit(1); }
        plist_free(root);
    }
    char extra[64];
    snprintf(extra, sizeof extra, "\"bytes\": %zu", len);
    emit(name, "ms", samples, reps, extra);
    free(text);
#else
    (void)path;
    printf("SKIP %s: built without libplist\n", name);
#endif
}

int main(int argc, char **argv) {
    const char *r = getenv("BENCH_REPS"), *it = getenv("BENCH_ITERS");
    if (r) reps = atoi(r) > 0 && atoi(r) <= 64 ? atoi(r) : reps;
    if (it) iters = atol(it) > 0 ? atol(it) : iters;
    const char *clk = getenv("BENCH_CLOCK");
    if (clk && !strcmp(clk, "wall")) case_clock = CLOCK_MONOTONIC;
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "create")) mode_create();
    else if (!strcmp(mode, "threads")) mode_threads();
    else if (!strcmp(mode, "one") && argc > 3) mode_one(argv[2], atol(argv[3]));
    else if (!strcmp(mode, "soak") && argc > 2) mode_soak(atol(argv[2]));
    else if (!strcmp(mode, "load") && argc > 4) mode_load(argv[2], argv[3], argv[4]);
    else if (!strcmp(mode, "loadmem") && argc > 5) mode_loadmem(argv[2], argv[3], argv[4], atol(argv[5]));
    else if (!strcmp(mode, "libyaml") && argc > 3) mode_libyaml(argv[2], argv[3]);
    else if (!strcmp(mode, "libplist") && argc > 3) mode_libplist(argv[2], argv[3]);
    else {
        fprintf(stderr,
                "usage: bench create | threads | soak N | one leaf|node|chain|singleton|diamond|props|lookup|handnode N | load NAME FILE yaml|json|plist |\n"
                "             loadmem NAME FILE FORMAT ENTRIES | libyaml NAME FILE | libplist NAME FILE\n"
                "  env BENCH_REPS (runs per case, default 9), BENCH_ITERS (base iterations, default 200000)\n");
        return 2;
    }
    return 0;
}
