/*
 * bench.c — controllerreg's C benchmark: creates through the C ABI against hand-wired C and a
 * C name-lookup floor; config loads against libyaml's raw event scan, rapidjson's DOM parse and
 * libplist; thread scaling; memory per entry; a soak of creates with RSS sampled.
 *
 * Every comparison is an interleaved A/B pair (pairbench.h): it prints
 *   PAIR {"a": "...", "b": "...", "unit": "ns/op"|"ms"|"Mops/s", "a_samples": [...], "b_samples": [...]}
 * and single-sided measurements print RESULT lines; Benchmarks/scripts/driver.py collects both.
 * `bench cg SPEC N` runs one operation N times inside pb_measured_region for callgrind.
 * Run with no arguments for the list of modes. Prints only; asserts nothing about speed.
 */
#define _GNU_SOURCE
#include "controllerreg.h"
#include "pairbench.h"
#include "rapidjson_dom.h"

#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>
#ifdef HAVE_LIBPLIST
#include <plist/plist.h>
#endif

/* ---------------------------------------------------------------------------------------- */
/* helpers                                                                                   */

static long rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

/* Peak RSS of the process so far (VmHWM), in bytes. */
static long peak_rss_bytes(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb * 1024;
}

/* Bytes the allocator has handed out and not taken back (malloc arenas + mmapped blocks). */
static long heap_in_use(void) {
    struct mallinfo2 m = mallinfo2();
    return (long)(m.uordblks + m.hblkhd);
}

static void die(const char *what) {
    fprintf(stderr, "bench: %s: %s (code %d)\n", what, cr_last_error_message(), cr_last_error_code());
    exit(1);
}

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        perror(path);
        exit(1);
    }
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* Keeps results alive so the compiler cannot drop the work. */
static volatile uintptr_t sink;

/* ---------------------------------------------------------------------------------------- */
/* host classes (the same objects the hand-wired code builds)                                */

typedef struct {
    int64_t id;
} leaf_t;
typedef struct {
    leaf_t *a, *b;
    char title[24];
    int64_t count;
    double ratio;
} node_t;
typedef struct link {
    struct link *next;
} link_t;
typedef struct {
    void *shared;
    int owns;
} holder_t;
typedef struct {
    holder_t *left, *right;
} pair_t;

static void *leaf_create(const cr_value *args, void *ud) {
    (void)args;
    (void)ud;
    leaf_t *l = malloc(sizeof *l);
    l->id = 1;
    return l;
}
static void plain_destroy(void *o, void *ud) {
    (void)ud;
    free(o);
}

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
    while (l) {
        link_t *n = l->next;
        free(l);
        l = n;
    }
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

static const char *create_config = "Leaf: Leaf\n"
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

/* Providers (their own registry, so the other creates' name table stays as it was): `Maker`
 * receives a provider of Leaf; it keeps it only when `keep_provider` is set (setup). */
static cr_provider *the_provider;
static int keep_provider;
static void *maker_create(const cr_value *args, void *ud) {
    (void)ud;
    if (keep_provider) the_provider = cr_value_provider(cr_map_get(args, "make"));
    return malloc(sizeof(leaf_t));
}
static const char *provider_config = "Leaf: Leaf\n"
                                     "Maker: {ClassName: Maker, Dependencies: {make: {Provider: Leaf}}}\n";

static cr_registry *make_provider_registry(void) {
    cr_registry *reg = cr_registry_new();
    cr_class leaf = {.create = leaf_create, .destroy = plain_destroy};
    cr_class maker = {.create = maker_create, .destroy = plain_destroy};
    if (cr_register_class(reg, "Leaf", &leaf, NULL) || cr_register_class(reg, "Maker", &maker, NULL)) die("register");
    if (cr_load_string(reg, provider_config, strlen(provider_config), CR_FORMAT_YAML)) die("load");
    return reg;
}

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
/* the C floor: FNV-1a lookup of a short name in a table + a call through a function pointer  */
/* (what a minimal name-addressed registry written in C costs: one lookup per object built)  */

typedef void *(*make_fn)(void);
typedef struct {
    const char *name;
    uint64_t hash;
    make_fn fn;
    void *cached;
} fn_slot;
#define FN_TABLE 64
static fn_slot fn_table[FN_TABLE];

static uint64_t fnv1a(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull;
    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 0x100000001b3ull;
    }
    return h;
}
static void fn_table_add(const char *name, make_fn fn, void *cached) {
    uint64_t h = fnv1a(name);
    size_t i = h & (FN_TABLE - 1);
    while (fn_table[i].name) {
        if (!strcmp(fn_table[i].name, name)) return;
        i = (i + 1) & (FN_TABLE - 1);
    }
    fn_table[i] = (fn_slot){name, h, fn, cached};
}
static __attribute__((noinline)) fn_slot *fn_table_find(const char *name) {
    uint64_t h = fnv1a(name);
    size_t i = h & (FN_TABLE - 1);
    while (fn_table[i].name) {
        if (fn_table[i].hash == h && strcmp(fn_table[i].name, name) == 0) return &fn_table[i];
        i = (i + 1) & (FN_TABLE - 1);
    }
    return NULL;
}
/* Lookup + call: the object of `name`, built by its function. */
static void *fn_table_make(const char *name) {
    fn_slot *s = fn_table_find(name);
    return s ? s->fn() : NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* hand-wired C: the same objects, built directly                                            */

static __attribute__((noinline)) void *hand_leaf(void) {
    leaf_t *l = malloc(sizeof *l);
    l->id = 1;
    return l;
}
static __attribute__((noinline)) node_t *hand_node(const char *title, int64_t count, double ratio) {
    node_t *n = malloc(sizeof *n);
    n->a = hand_leaf();
    n->b = hand_leaf();
    copy_title(n->title, title);
    n->count = count;
    n->ratio = ratio;
    return n;
}
static void *hand_node_shell(void) {
    node_t *n = malloc(sizeof *n);
    copy_title(n->title, "Home screen");
    n->count = 3;
    n->ratio = 0.5;
    return n;
}
static leaf_t *hand_single_obj;

/* ---------------------------------------------------------------------------------------- */
/* create operations: every name the pairs and the callgrind mode use                        */

static cr_registry *the_reg, *the_preg;
static cr_value *the_props;
static const char *volatile name_leaf = "Leaf", *volatile name_leafb = "LeafB", *volatile name_node = "Node",
                            *volatile name_chain = "Chain9", *volatile name_single = "Single", *volatile name_diamond = "Diamond";

static void op_cr_leaf(void *c) {
    (void)c;
    free(cr_registry_create(the_reg, name_leaf, NULL));
}
static void op_cr_node(void *c) {
    (void)c;
    node_destroy(cr_registry_create(the_reg, name_node, NULL), NULL);
}
static void op_cr_props(void *c) {
    (void)c;
    node_destroy(cr_registry_create(the_reg, name_node, the_props), NULL);
}
static void op_cr_chain(void *c) {
    (void)c;
    link_destroy(cr_registry_create(the_reg, name_chain, NULL), NULL);
}
static void op_cr_single(void *c) {
    (void)c;
    sink = (uintptr_t)cr_registry_create(the_reg, name_single, NULL);
}
static void op_cr_diamond(void *c) {
    (void)c;
    pair_destroy(cr_registry_create(the_reg, name_diamond, NULL), NULL);
}

/* Leaf creates whose name alternates between two entries (Leaf, LeafB): a host that never asks
 * for the same name twice in a row, so the per-thread "last entry" shortcut never applies and
 * every create hashes its name. The floor alternates the same way. */
static unsigned alternate;
static void op_cr_leaf_alternating(void *c) {
    (void)c;
    free(cr_registry_create(the_reg, (alternate ^= 1u) ? name_leafb : name_leaf, NULL));
}
static void op_floor_leaf_alternating(void *c) {
    (void)c;
    free(fn_table_make((alternate ^= 1u) ? name_leafb : name_leaf));
}

/* A create whose one dependency is a provider (made, passed, not taken: released). */
static void op_cr_with_provider(void *c) {
    (void)c;
    free(cr_registry_create(the_preg, "Maker", NULL));
}
/* A create through a provider the host kept. */
static void op_cr_provider(void *c) {
    (void)c;
    free(cr_provider_create(the_provider, NULL));
}

static void op_floor_leaf(void *c) {
    (void)c;
    free(fn_table_make(name_leaf));
}
/* node5's floor: three lookups + calls (the node and its two leaves), the 3 literals set. */
static void op_floor_node(void *c) {
    (void)c;
    node_t *n = fn_table_make(name_node);
    n->a = fn_table_make(name_leaf);
    n->b = fn_table_make(name_leafb);
    node_destroy(n, NULL);
}
static void op_floor_single(void *c) {
    (void)c;
    fn_slot *s = fn_table_find(name_single);
    sink = (uintptr_t)(s ? s->cached : NULL);
}

static void op_hand_leaf(void *c) {
    (void)c;
    void *l = hand_leaf();
    sink = (uintptr_t)l;
    free(l);
}
static void op_hand_node(void *c) {
    (void)c;
    node_destroy(hand_node("Home screen", 3, 0.5), NULL);
}
static void op_hand_props(void *c) {
    (void)c;
    node_destroy(hand_node("Overridden", 42, 0.5), NULL);
}
static void op_hand_chain(void *c) {
    (void)c;
    link_t *l = NULL;
    for (int i = 0; i < 10; i++) {
        link_t *n = malloc(sizeof *n);
        n->next = l;
        l = n;
        sink = (uintptr_t)l;
    }
    link_destroy(l, NULL);
}
static void op_hand_single(void *c) {
    (void)c;
    if (!hand_single_obj) hand_single_obj = hand_leaf();
    sink = (uintptr_t)hand_single_obj;
}
static void op_hand_diamond(void *c) {
    (void)c;
    leaf_t *s = hand_leaf();
    holder_t *l = malloc(sizeof *l), *r = malloc(sizeof *r);
    l->shared = s;
    l->owns = 1;
    r->shared = s;
    r->owns = 0;
    pair_t *p = malloc(sizeof *p);
    p->left = l;
    p->right = r;
    sink = (uintptr_t)p;
    pair_destroy(p, NULL);
}

typedef struct {
    const char *name;
    pb_op op;
} named_op;
static const named_op create_ops[] = {
    {"c.cr.leaf", op_cr_leaf},
    {"c.floor.leaf", op_floor_leaf},
    {"c.cr.leaf_alternating", op_cr_leaf_alternating},
    {"c.floor.leaf_alternating", op_floor_leaf_alternating},
    {"c.hand.leaf", op_hand_leaf},
    {"c.cr.node5", op_cr_node},
    {"c.floor.node5", op_floor_node},
    {"c.hand.node5", op_hand_node},
    {"c.cr.singleton", op_cr_single},
    {"c.floor.singleton", op_floor_single},
    {"c.hand.singleton", op_hand_single},
    {"c.cr.chain10", op_cr_chain},
    {"c.hand.chain10", op_hand_chain},
    {"c.cr.diamond", op_cr_diamond},
    {"c.hand.diamond", op_hand_diamond},
    {"c.cr.props_merged", op_cr_props},
    {"c.hand.props_merged", op_hand_props},
    {"c.cr.with_provider", op_cr_with_provider},
    {"c.cr.provider", op_cr_provider},
};
#define N_CREATE_OPS (sizeof create_ops / sizeof create_ops[0])

/* The A/B pairs of `bench creates`, A over B. Add a row here (and its op above) to add a pair. */
static const char *const create_pairs[][2] = {
    {"c.cr.leaf", "c.floor.leaf"},
    {"c.cr.leaf", "c.hand.leaf"},
    {"c.cr.leaf_alternating", "c.floor.leaf_alternating"},
    {"c.cr.node5", "c.floor.node5"},
    {"c.cr.node5", "c.hand.node5"},
    {"c.cr.singleton", "c.floor.singleton"},
    {"c.cr.singleton", "c.hand.singleton"},
    {"c.cr.chain10", "c.hand.chain10"},
    {"c.cr.diamond", "c.hand.diamond"},
    {"c.cr.props_merged", "c.hand.props_merged"},
};

static pb_op find_create_op(const char *name) {
    for (size_t i = 0; i < N_CREATE_OPS; i++)
        if (!strcmp(create_ops[i].name, name)) return create_ops[i].op;
    return NULL;
}

static void setup_creates(void) {
    the_reg = make_registry();
    fn_table_add("Leaf", hand_leaf, NULL);
    fn_table_add("LeafB", hand_leaf, NULL);
    fn_table_add("Node", hand_node_shell, NULL);
    hand_single_obj = hand_leaf();
    fn_table_add("Single", hand_leaf, hand_single_obj);
    the_props = cr_map_new();
    cr_map_set_string(the_props, "title", "Overridden");
    cr_map_set_int(the_props, "count", 42);
    /* sanity: the objects are what the hand-wired code builds */
    node_t *n = cr_registry_create(the_reg, "Node", the_props);
    if (!n || n->count != 42 || strcmp(n->title, "Overridden") != 0 || n->ratio != 0.5 || !n->a || !n->b) die("props check");
    node_destroy(n, NULL);
    the_preg = make_provider_registry();
    keep_provider = 1;
    free(cr_registry_create(the_preg, "Maker", NULL));
    keep_provider = 0;
    if (!the_provider) die("provider");
}

static void teardown_creates(void) {
    cr_value_free(the_props);
    cr_provider_free(the_provider);
    cr_registry_free(the_preg);
    cr_registry_free(the_reg);
}

static void mode_creates(void) {
    setup_creates();
    for (size_t i = 0; i < sizeof create_pairs / sizeof create_pairs[0]; i++)
        pb_pair_ops(create_pairs[i][0], find_create_op(create_pairs[i][0]), NULL, create_pairs[i][1],
                    find_create_op(create_pairs[i][1]), NULL);
    teardown_creates();
}

/* ---------------------------------------------------------------------------------------- */
/* threads and soak                                                                          */

typedef struct {
    long n;
    double cpu_ns;
    int hand; /* 1: the hand-wired control (malloc + free of the same three objects) */
} thread_arg;
static void *thread_body(void *p) {
    thread_arg *a = p;
    double t0 = pb_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    if (a->hand)
        for (long i = 0; i < a->n; i++) node_destroy(hand_node("Home screen", 3, 0.5), NULL);
    else
        for (long i = 0; i < a->n; i++) node_destroy(cr_registry_create(the_reg, "Node", NULL), NULL);
    a->cpu_ns = pb_clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    return NULL;
}

/* One block of T threads doing n operations each: Mops/s by wall clock, and the sum over threads
 * of n / own CPU time (what contention inside the library costs, whatever else the machine runs). */
static void thread_block(int t, long n, int hand, double *wall_mops, double *cpu_mops) {
    pthread_t th[2];
    thread_arg a[2] = {{n, 0, hand}, {n, 0, hand}};
    double t0 = pb_clock_ns(CLOCK_MONOTONIC);
    for (int i = 0; i < t; i++) pthread_create(&th[i], NULL, thread_body, &a[i]);
    for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
    *wall_mops = (double)(n * t) / ((pb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9) / 1e6;
    *cpu_mops = 0;
    for (int i = 0; i < t; i++) *cpu_mops += (double)n / (a[i].cpu_ns / 1e9) / 1e6;
}

/* Pairs of (2 threads, 1 thread) blocks of the 5-dependency create, in alternating order, and
 * the same pairs of the hand-wired code (malloc + free, no library) right after each as a control:
 * what two threads of this machine give to code that shares nothing. */
static void mode_threads(long n) {
    setup_creates();
    static double w2[PB_MAX_PAIRS], w1[PB_MAX_PAIRS], c2[PB_MAX_PAIRS], c1[PB_MAX_PAIRS];
    static double hw2[PB_MAX_PAIRS], hw1[PB_MAX_PAIRS], hc2[PB_MAX_PAIRS], hc1[PB_MAX_PAIRS];
    thread_arg warm = {n / 10, 0, 0};
    thread_body(&warm);
    for (int r = 0; r < pb_cfg.pairs; r++) {
        for (int hand = 0; hand < 2; hand++) {
            double *pw2 = hand ? hw2 : w2, *pw1 = hand ? hw1 : w1;
            double *pc2 = hand ? hc2 : c2, *pc1 = hand ? hc1 : c1;
            if (r % 2 == 0) {
                thread_block(2, n, hand, &pw2[r], &pc2[r]);
                thread_block(1, n, hand, &pw1[r], &pc1[r]);
            } else {
                thread_block(1, n, hand, &pw1[r], &pc1[r]);
                thread_block(2, n, hand, &pw2[r], &pc2[r]);
            }
        }
    }
    pb_emit_pair("c.threads.2", "c.threads.1", "Mops/s", w2, w1, pb_cfg.pairs, NULL);
    pb_emit_pair("c.threads_cpu.2", "c.threads_cpu.1", "Mops/s", c2, c1, pb_cfg.pairs, NULL);
    pb_emit_pair("c.hand.threads.2", "c.hand.threads.1", "Mops/s", hw2, hw1, pb_cfg.pairs, NULL);
    pb_emit_pair("c.hand.threads_cpu.2", "c.hand.threads_cpu.1", "Mops/s", hc2, hc1, pb_cfg.pairs, NULL);
    teardown_creates();
}

/* n creates of the 5-dependency entry (3 objects each), RSS sampled every n/10. */
static void mode_soak(long n) {
    cr_registry *reg = make_registry();
    for (long i = 0; i < 100000; i++) node_destroy(cr_registry_create(reg, "Node", NULL), NULL);
    double samples[11];
    int k = 0;
    samples[k++] = (double)rss_bytes();
    double t0 = pb_clock_ns(CLOCK_MONOTONIC);
    for (long i = 1; i <= n; i++) {
        node_destroy(cr_registry_create(reg, "Node", NULL), NULL);
        if (i % (n / 10) == 0) samples[k++] = (double)rss_bytes();
    }
    double secs = (pb_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;
    char extra[160];
    snprintf(extra, sizeof extra, "\"creates\": %ld, \"seconds\": %.3f, \"growth_bytes\": %.0f", n, secs,
             samples[k - 1] - samples[0]);
    pb_emit_result("c.soak.rss", "bytes", samples, k, extra);
    cr_registry_free(reg);
}

/* ---------------------------------------------------------------------------------------- */
/* loads: a "load spec" names one parser over one file                                       */
/*   cr:FORMAT:FILE     cr_load_string into a fresh registry (FORMAT yaml|json|plist)          */
/*   crfail:FORMAT:FILE the same load of a config that must fail (a hostile one): the failure,  */
/*                      its problems and cr_last_error_message() are part of the operation     */
/*   crfailall:FORMAT:FILE  crfail, and every problem's record read too (cr_last_error_problem */
/*                      for each, its message's length: a host that asks for everything)     */
/*   libyaml:FILE       libyaml's raw event scan (events deleted as read, as our loader does)  */
/*   rapidjson:FILE     rapidjson's DOM parse (Document::Parse, strings copied)               */
/*   libplist:FILE      plist_from_xml / plist_from_bin                                       */
/* Freeing the registry, the DOM or the plist tree is never counted.                         */

typedef enum { L_CR, L_CR_FAIL, L_CR_FAIL_ALL, L_LIBYAML, L_RAPIDJSON, L_LIBPLIST } load_kind;
typedef struct {
    load_kind kind;
    cr_format format;
    char *text;
    size_t len;
    void *result; /* what the last operation built, freed outside the measured part */
} load_spec;

static cr_format parse_format(const char *s) {
    if (!strcmp(s, "yaml")) return CR_FORMAT_YAML;
    if (!strcmp(s, "json")) return CR_FORMAT_JSON;
    if (!strcmp(s, "plist")) return CR_FORMAT_PLIST;
    return CR_FORMAT_AUTO;
}

static void parse_spec(const char *spec, load_spec *out) {
    memset(out, 0, sizeof *out);
    const char *path = strchr(spec, ':');
    if (!path) {
        fprintf(stderr, "bench: bad load spec %s\n", spec);
        exit(2);
    }
    path++;
    if (!strncmp(spec, "cr:", 3) || !strncmp(spec, "crfail:", 7) || !strncmp(spec, "crfailall:", 10)) {
        out->kind = spec[2] == ':' ? L_CR : spec[6] == ':' ? L_CR_FAIL : L_CR_FAIL_ALL;
        const char *colon = strchr(path, ':');
        if (!colon) {
            fprintf(stderr, "bench: bad load spec %s (cr:FORMAT:FILE)\n", spec);
            exit(2);
        }
        char fmt[16] = {0};
        memcpy(fmt, path, (size_t)(colon - path) < 15 ? (size_t)(colon - path) : 15);
        out->format = parse_format(fmt);
        path = colon + 1;
    } else if (!strncmp(spec, "libyaml:", 8))
        out->kind = L_LIBYAML;
    else if (!strncmp(spec, "rapidjson:", 10))
        out->kind = L_RAPIDJSON;
    else if (!strncmp(spec, "libplist:", 9))
        out->kind = L_LIBPLIST;
    else {
        fprintf(stderr, "bench: unknown load spec %s\n", spec);
        exit(2);
    }
    out->text = read_file(path, &out->len);
}

static void free_result(load_spec *s) {
    if (!s->result) return;
    switch (s->kind) {
    case L_CR:
    case L_CR_FAIL:
    case L_CR_FAIL_ALL: cr_registry_free(s->result); break;
    case L_RAPIDJSON: rj_free(s->result); break;
#ifdef HAVE_LIBPLIST
    case L_LIBPLIST: plist_free(s->result); break;
#endif
    default: break;
    }
    s->result = NULL;
}

static void libyaml_scan(const char *text, size_t len) {
    yaml_parser_t parser;
    yaml_event_t event;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    for (;;) {
        if (!yaml_parser_parse(&parser, &event)) {
            fprintf(stderr, "libyaml error\n");
            exit(1);
        }
        int done = event.type == YAML_STREAM_END_EVENT;
        yaml_event_delete(&event);
        if (done) break;
    }
    yaml_parser_delete(&parser);
}

/* One load of the spec's bytes (the measured part only); the result stays in s->result. */
static void op_load(void *c) {
    load_spec *s = c;
    switch (s->kind) {
    case L_CR: {
        cr_registry *reg = cr_registry_new();
        if (cr_load_string(reg, s->text, s->len, s->format)) die("load");
        s->result = reg;
        break;
    }
    case L_CR_FAIL:
    case L_CR_FAIL_ALL: {
        cr_registry *reg = cr_registry_new();
        if (cr_load_string(reg, s->text, s->len, s->format) == CR_OK) {
            fprintf(stderr, "bench: a hostile config loaded\n");
            exit(1);
        }
        size_t count = cr_last_error_count();
        sink += strlen(cr_last_error_message()) + count;
        if (s->kind == L_CR_FAIL_ALL)
            for (size_t i = 0; i < count; i++) sink += strlen(cr_last_error_problem(i)->message);
        s->result = reg;
        break;
    }
    case L_LIBYAML: libyaml_scan(s->text, s->len); break;
    case L_RAPIDJSON:
        s->result = rj_parse(s->text, s->len);
        if (!s->result) {
            fprintf(stderr, "rapidjson could not parse\n");
            exit(1);
        }
        break;
    case L_LIBPLIST: {
#ifdef HAVE_LIBPLIST
        plist_t root = NULL;
        if (s->len > 6 && memcmp(s->text, "bplist", 6) == 0)
            plist_from_bin(s->text, (uint32_t)s->len, &root);
        else
            plist_from_xml(s->text, (uint32_t)s->len, &root);
        if (!root) {
            fprintf(stderr, "libplist could not parse\n");
            exit(1);
        }
        s->result = root;
#else
        fprintf(stderr, "bench: built without libplist\n");
        exit(3);
#endif
        break;
    }
    }
}

/* Which state a timed load starts from (BENCH_LOAD_STATE). */
enum { LOAD_AFTER_SELF, LOAD_FRESH_PROCESS, LOAD_AFTER_OTHER };
static int load_state = LOAD_AFTER_SELF;

/* One load timed alone (in ms), from the state BENCH_LOAD_STATE names; freeing the result and
 * the untimed priming load are not counted.
 *  after-self (default): an untimed load of the same side first, so the timed load meets the heap
 *      its own previous load left (what a host that loads again sees), not the other library's.
 *  fresh-process: the load runs in a forked child, its first load there (a host's start-up).
 *  after-other: no priming (the old harness): the heap is whatever the other side's block left. */
static double load_once(load_spec *s, int prime) {
    if (load_state == LOAD_FRESH_PROCESS) {
        int fd[2];
        malloc_trim(0); /* the child starts without free heap pages, as a new process does */
        if (pipe(fd)) die("pipe");
        pid_t pid = fork();
        if (pid < 0) die("fork");
        if (pid == 0) {
            close(fd[0]);
            double t0 = pb_now_ns();
            op_load(s);
            double ns = pb_now_ns() - t0;
            if (write(fd[1], &ns, sizeof ns) != (ssize_t)sizeof ns) _exit(1);
            _exit(0);
        }
        close(fd[1]);
        double ns = -1;
        if (read(fd[0], &ns, sizeof ns) != (ssize_t)sizeof ns) die("child load");
        close(fd[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("child load");
        return ns;
    }
    if (load_state == LOAD_AFTER_SELF && prime) {
        op_load(s);
        free_result(s);
    }
    double t0 = pb_now_ns();
    op_load(s);
    double ns = pb_now_ns() - t0;
    free_result(s);
    return ns;
}

/* n loads, each timed alone (in ms). After-self primes the first only: the others follow the
 * block's previous load, of the same side. */
static double load_block(void *c, long n) {
    load_spec *s = c;
    double total = 0;
    for (long i = 0; i < n; i++) total += load_once(s, i == 0);
    return total;
}

/* Loads of `len` bytes a block does so that it reads about as many bytes as one load of `other_len`
 * bytes: 1 for the smaller input or inputs of one size (a load against its peer on the same file),
 * the size ratio for the smaller side of a 100k / 10k pair. Each load is timed alone as before
 * (after an untimed load of its side: the block's previous one, or its priming); a block's sample
 * is their mean. Why: the host's speed changes in phases of tens of milliseconds to seconds (the
 * same 10k JSON load reads ~9 or ~16 ms from one phase to the next, every function of it slowed),
 * and a 100k load spans several phases while a single 10k load sits in one, so a pair of one load
 * each divided a mix of phases by one phase's sample: its ratio moved with the host, not the
 * library (pair ratios 6.5-14.4 for a median of ~10). Blocks of equal bytes take both sides'
 * samples over the same stretch of phases. */
static long loads_per_block(size_t len, size_t other_len) {
    if (len == 0 || other_len <= len) return 1;
    return (long)((other_len + len / 2) / len);
}

/* An A/B pair of two loads, each block the loads of about the same bytes (one load per block when
 * both read one file), in ms per load. */
static void mode_loadpair(const char *a, const char *aspec, const char *b, const char *bspec) {
    load_spec x, y;
    parse_spec(aspec, &x);
    parse_spec(bspec, &y);
#ifndef HAVE_LIBPLIST
    if (x.kind == L_LIBPLIST || y.kind == L_LIBPLIST) {
        printf("SKIP %s / %s: built without libplist\n", a, b);
        return;
    }
#endif
    const char *st = getenv("BENCH_LOAD_STATE");
    if (st && !strcmp(st, "fresh-process"))
        load_state = LOAD_FRESH_PROCESS;
    else if (st && !strcmp(st, "after-other"))
        load_state = LOAD_AFTER_OTHER;
    else if (st && strcmp(st, "after-self")) {
        fprintf(stderr, "bench: BENCH_LOAD_STATE is after-self, fresh-process or after-other\n");
        exit(2);
    }
    op_load(&x); /* warm-up: the library's first-use costs are not a load's */
    free_result(&x);
    op_load(&y);
    free_result(&y);
    long na = loads_per_block(x.len, y.len), nb = loads_per_block(y.len, x.len);
    char extra[128];
    snprintf(extra, sizeof extra, "\"a_bytes\": %zu, \"b_bytes\": %zu, \"a_loads\": %ld, \"b_loads\": %ld", x.len, y.len, na, nb);
    pb_pair_blocks(a, load_block, &x, na, b, load_block, &y, nb, "ms", 1e-6, extra);
    free(x.text);
    free(y.text);
}

/* What one load costs the system besides its instructions, per load (`loadfaults SPEC N`): minor
 * page faults of the process (getrusage), transparent huge pages the system faulted in meanwhile
 * (/proc/vmstat thp_fault_alloc: machine-wide, so read it on a quiet host), the allocator's bytes in
 * use after the load, and the thread's CPU time. Each of N loads is measured in both states of
 * `loadpair`: after-self (an untimed load of the same side first) and fresh-process (a forked
 * child's first load, its parent's heap trimmed). One LOADFAULTS line per state, the medians. */
typedef struct {
    double minflt, thp, heap, ms;
} load_cost;

static long thp_faults(void) {
    FILE *f = fopen("/proc/vmstat", "r");
    char line[128];
    long n = 0;
    if (!f) return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "thp_fault_alloc %ld", &n) == 1) break;
    fclose(f);
    return n;
}

static long minor_faults(void) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_minflt;
}

/* One load of s measured (the result freed afterwards, not measured). */
static load_cost measured_load(load_spec *s) {
    long f0 = minor_faults(), t0 = thp_faults();
    double c0 = pb_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    op_load(s);
    load_cost c = {(double)(minor_faults() - f0), (double)(thp_faults() - t0), 0,
                   (pb_clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e6};
    c.heap = (double)heap_in_use();
    free_result(s);
    return c;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void mode_loadfaults(const char *spec, int n) {
    load_spec s;
    parse_spec(spec, &s);
    if (n < 1 || n > 64) n = 5;
    op_load(&s); /* warm-up, as loadpair */
    free_result(&s);
    for (int fresh = 0; fresh < 2; fresh++) {
        double flt[64], thp[64], heap[64], ms[64];
        for (int i = 0; i < n; i++) {
            load_cost c;
            if (fresh) {
                int fd[2];
                malloc_trim(0);
                if (pipe(fd)) die("pipe");
                pid_t pid = fork();
                if (pid < 0) die("fork");
                if (pid == 0) {
                    close(fd[0]);
                    c = measured_load(&s);
                    if (write(fd[1], &c, sizeof c) != (ssize_t)sizeof c) _exit(1);
                    _exit(0);
                }
                close(fd[1]);
                if (read(fd[0], &c, sizeof c) != (ssize_t)sizeof c) die("child load");
                close(fd[0]);
                waitpid(pid, NULL, 0);
            } else {
                op_load(&s);
                free_result(&s);
                c = measured_load(&s);
            }
            flt[i] = c.minflt, thp[i] = c.thp, heap[i] = c.heap, ms[i] = c.ms;
        }
        printf("LOADFAULTS {\"spec\": \"%s\", \"state\": \"%s\", \"loads\": %d, \"minor_faults\": %.0f, "
               "\"thp_faults\": %.0f, \"heap_in_use\": %.0f, \"cpu_ms\": %.2f}\n",
               spec, fresh ? "fresh-process" : "after-self", n, median_of(flt, n), median_of(thp, n), median_of(heap, n),
               median_of(ms, n));
    }
    free(s.text);
}

/* Memory of one load in a fresh process, per entry: RSS growth, the allocator's bytes in use
 * (mallinfo2) and the peak RSS growth while loading (VmHWM). */
static void mode_loadmem(const char *name, const char *path, const char *fmt, long entries) {
    size_t len;
    char *text = read_file(path, &len);
    cr_registry *warm = cr_registry_new();
    cr_load_string(warm, "W: Leaf", 7, CR_FORMAT_YAML);
    cr_registry_free(warm);
    long rss0 = rss_bytes(), heap0 = heap_in_use(), peak0 = peak_rss_bytes();
    cr_registry *reg = cr_registry_new();
    if (cr_load_string(reg, text, len, parse_format(fmt))) die(path);
    long rss1 = rss_bytes(), heap1 = heap_in_use(), peak1 = peak_rss_bytes();
    double per = (double)(rss1 - rss0) / (double)entries;
    char extra[256];
    snprintf(extra, sizeof extra,
             "\"entries\": %ld, \"bytes\": %zu, \"rss_growth\": %ld, \"heap_growth\": %ld, \"heap_per_entry\": %.1f, "
             "\"peak_growth\": %ld, \"peak_per_entry\": %.1f",
             entries, len, rss1 - rss0, heap1 - heap0, (double)(heap1 - heap0) / (double)entries,
             peak1 > rss0 ? peak1 - rss0 : peak1 - peak0,
             (double)(peak1 > rss0 ? peak1 - rss0 : peak1 - peak0) / (double)entries);
    pb_emit_result(name, "B/entry", &per, 1, extra);
    cr_registry_free(reg);
    free(text);
}

/* ---------------------------------------------------------------------------------------- */
/* Entries added one at a time                                                               */

/* cr_add_entry into a registry of `existing` leaf entries (loaded as one config): what one add
 * costs at two registry sizes (`adds`: the pair c.cr.add_entry.8000 / c.cr.add_entry.1000; `cg
 * c.cr.add_entry.N K`: K adds, every copy of the rows they make included). Linear adds cost the
 * same at both sizes. With `with_child`, the registry has one child registry (made before the
 * adds), whose view each add extends too: c.cr.add_entry_child.N. */
typedef struct {
    int existing;
    int next;
    int with_child;
    cr_registry *reg;
    cr_registry *child;
} add_ctx;

/* The child of x->reg when x->with_child (else NULL). */
static void add_ctx_open_child(add_ctx *x) {
    x->child = NULL;
    if (x->with_child && !(x->child = cr_registry_new_child(x->reg))) die("cr_registry_new_child");
}

/* Frees x's child (if any), then its registry. */
static void add_ctx_free(add_ctx *x) {
    if (x->child) cr_registry_free(x->child);
    cr_registry_free(x->reg);
}

/* A registry of n leaf entries E0..E<n-1>, loaded as one config. */
static cr_registry *registry_with_leaves(int n) {
    size_t cap = (size_t)n * 24 + 1, len = 0;
    char *text = malloc(cap);
    if (!text) die("malloc");
    for (int i = 0; i < n; i++) len += (size_t)snprintf(text + len, cap - len, "E%d: Leaf\n", i);
    cr_registry *reg = cr_registry_new();
    if (cr_load_string(reg, text, len, CR_FORMAT_YAML)) die("load leaves");
    free(text);
    return reg;
}

/* One cr_add_entry of a new leaf entry. */
static void op_add_entry(void *c) {
    add_ctx *x = c;
    char name[32];
    snprintf(name, sizeof name, "Added%d", x->next++);
    if (cr_add_entry(x->reg, name, "Leaf", CR_LIFESTYLE_TRANSIENT, NULL)) die("cr_add_entry");
}

/* n adds to a registry of x->existing entries made for the block (not timed), in ns. */
static double add_block(void *c, long n) {
    add_ctx *x = c;
    x->reg = registry_with_leaves(x->existing);
    add_ctx_open_child(x);
    x->next = 0;
    double t0 = pb_now_ns();
    for (long i = 0; i < n; i++) op_add_entry(x);
    double ns = pb_now_ns() - t0;
    add_ctx_free(x);
    return ns;
}

/* `adds`: ns per cr_add_entry at 8,000 existing entries over the same at 1,000 (500 adds a block),
 * without and with a child registry. */
static void mode_adds(void) {
    add_ctx small = {1000, 0, 0, NULL, NULL}, large = {8000, 0, 0, NULL, NULL};
    pb_pair_blocks("c.cr.add_entry.8000", add_block, &large, 500, "c.cr.add_entry.1000", add_block, &small, 500, "ns/op", 1.0,
                   NULL);
    add_ctx small_child = {1000, 0, 1, NULL, NULL}, large_child = {8000, 0, 1, NULL, NULL};
    pb_pair_blocks("c.cr.add_entry_child.8000", add_block, &large_child, 500, "c.cr.add_entry_child.1000", add_block,
                   &small_child, 500, "ns/op", 1.0, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* Entries removed one at a time                                                             */

/* cr_remove_entry from a registry of `existing` leaf entries and the entries to remove (loaded as
 * one config): what one removal costs at two registry sizes (`removes`: the pair
 * c.cr.remove_entry.8000 / c.cr.remove_entry.1000; `cg c.cr.remove_entry.N K`: K removals from a
 * registry of N + K entries). With `with_child` (c.cr.remove_entry_child.N) the registry has one
 * child registry, whose view each removal changes too. Linear removals cost the same at both
 * sizes. The entries removed are the last loaded (E<existing>, E<existing+1>, ...). */

/* One cr_remove_entry of the next entry past x->existing. */
static void op_remove_entry(void *c) {
    add_ctx *x = c;
    char name[32];
    snprintf(name, sizeof name, "E%d", x->existing + x->next++);
    if (cr_remove_entry(x->reg, name)) die("cr_remove_entry");
}

/* n removals from a registry of x->existing + n entries made for the block (not timed), in ns. */
static double remove_block(void *c, long n) {
    add_ctx *x = c;
    x->reg = registry_with_leaves(x->existing + (int)n);
    add_ctx_open_child(x);
    x->next = 0;
    double t0 = pb_now_ns();
    for (long i = 0; i < n; i++) op_remove_entry(x);
    double ns = pb_now_ns() - t0;
    add_ctx_free(x);
    return ns;
}

/* `removes`: ns per cr_remove_entry at 8,000 remaining entries over the same at 1,000 (500
 * removals a block), without and with a child registry. */
static void mode_removes(void) {
    add_ctx small = {1000, 0, 0, NULL, NULL}, large = {8000, 0, 0, NULL, NULL};
    pb_pair_blocks("c.cr.remove_entry.8000", remove_block, &large, 500, "c.cr.remove_entry.1000", remove_block, &small, 500,
                   "ns/op", 1.0, NULL);
    add_ctx small_child = {1000, 0, 1, NULL, NULL}, large_child = {8000, 0, 1, NULL, NULL};
    pb_pair_blocks("c.cr.remove_entry_child.8000", remove_block, &large_child, 500, "c.cr.remove_entry_child.1000", remove_block,
                   &small_child, 500, "ns/op", 1.0, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* callgrind mode                                                                            */

/* `cg SPEC N`: SPEC is a load spec, or create op names separated by commas (c.cr.leaf,c.hand.leaf);
 * runs each N times inside its own call of pb_measured_region after a warm-up (loads: none), for
 * valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*pb_measured_region*'
 * (add --dump-after='*pb_measured_region*' for one dump per op, in the order given). */
static void mode_cg(const char *spec, long n) {
    if (!strncmp(spec, "c.cr.add_entry.", 15) || !strncmp(spec, "c.cr.add_entry_child.", 21)) {
        int with_child = spec[14] == '_';
        add_ctx x = {atoi(spec + (with_child ? 21 : 15)), 0, with_child, NULL, NULL};
        x.reg = registry_with_leaves(x.existing);
        add_ctx_open_child(&x);
        pb_count(op_add_entry, &x, 0, n);
        add_ctx_free(&x);
        return;
    }
    if (!strncmp(spec, "c.cr.remove_entry.", 18) || !strncmp(spec, "c.cr.remove_entry_child.", 24)) {
        int with_child = spec[17] == '_';
        add_ctx x = {atoi(spec + (with_child ? 24 : 18)), 0, with_child, NULL, NULL};
        x.reg = registry_with_leaves(x.existing + (int)n);
        add_ctx_open_child(&x);
        pb_count(op_remove_entry, &x, 0, n);
        add_ctx_free(&x);
        return;
    }
    char first[128] = {0};
    strncpy(first, spec, sizeof first - 1);
    first[strcspn(first, ",")] = 0;
    if (find_create_op(first)) {
        setup_creates();
        char *list = strdup(spec), *save = NULL;
        for (char *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
            pb_op op = find_create_op(name);
            if (!op) {
                fprintf(stderr, "bench: unknown op %s\n", name);
                exit(2);
            }
            pb_count(op, NULL, 1000, n);
        }
        free(list);
        teardown_creates();
        return;
    }
    load_spec s;
    parse_spec(spec, &s);
    for (long i = 0; i < n; i++) {
        pb_measured_region(op_load, &s, 1);
        free_result(&s);
    }
    free(s.text);
}

int main(int argc, char **argv) {
    pb_init_from_env();
    const char *it = getenv("BENCH_ITERS");
    long iters = it && atol(it) > 0 ? atol(it) : 200000;
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "creates"))
        mode_creates();
    else if (!strcmp(mode, "threads"))
        mode_threads(iters);
    else if (!strcmp(mode, "adds"))
        mode_adds();
    else if (!strcmp(mode, "removes"))
        mode_removes();
    else if (!strcmp(mode, "soak") && argc > 2)
        mode_soak(atol(argv[2]));
    else if (!strcmp(mode, "loadpair") && argc > 5)
        mode_loadpair(argv[2], argv[3], argv[4], argv[5]);
    else if (!strcmp(mode, "loadmem") && argc > 5)
        mode_loadmem(argv[2], argv[3], argv[4], atol(argv[5]));
    else if (!strcmp(mode, "loadfaults") && argc > 2)
        mode_loadfaults(argv[2], argc > 3 ? atoi(argv[3]) : 5);
    else if (!strcmp(mode, "cg") && argc > 3)
        mode_cg(argv[2], atol(argv[3]));
    else if (!strcmp(mode, "cg-list"))
        for (size_t i = 0; i < N_CREATE_OPS; i++) printf("%s\n", create_ops[i].name);
    else {
        fprintf(
            stderr,
            "usage: bench creates | threads | adds | removes | soak N | loadpair NAME_A SPEC_A NAME_B SPEC_B |\n"
            "             loadmem NAME FILE yaml|json|plist ENTRIES | loadfaults SPEC [N] | cg OP|SPEC N | cg-list\n"
            "  SPEC: cr:yaml|json|plist:FILE, crfail:FORMAT:FILE (a load that must fail; crfailall: and\n"
            "        every problem record read), libyaml:FILE,\n"
            "        rapidjson:FILE, libplist:FILE\n"
            "  OP:   c.cr.leaf c.floor.leaf c.hand.leaf c.cr.node5 ... (see create_ops in bench.c), or\n"
            "        c.cr.add_entry.N (N cr_add_entry calls into a registry of N leaf entries; alone),\n"
            "        c.cr.add_entry_child.N (the same into a registry with one child registry),\n"
            "        c.cr.remove_entry.N (cr_remove_entry calls from a registry of N leaf entries and those removed; alone),\n"
            "        c.cr.remove_entry_child.N (the same from a registry with one child registry)\n"
            "  env BENCH_PAIRS (A/B pairs, default 21), BENCH_BLOCK_MS (block length, default 4),\n"
            "      BENCH_ITERS (creates per thread per block in `threads`, default 200000), BENCH_CLOCK=wall\n");
        return 2;
    }
    return 0;
}
