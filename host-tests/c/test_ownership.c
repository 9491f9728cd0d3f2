/* Ownership: who owns objects in args, release callbacks, user_data. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdlib.h>
#include <string.h>

static void owners_in_args(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg, "Leaf: Node\nRoot:\n  ClassName: Node\n  Dependencies: {a: Leaf, list: [Leaf, {x: Leaf}]}\n"),
                 CR_OK);
    int mine1 = 1, mine2 = 2;
    cr_value *props = cr_map_new();
    cr_value *extra = cr_list_new();
    CHECK_STATUS(cr_list_push_object(extra, &mine2), CR_OK);
    CHECK_STATUS(cr_map_set_object(props, "mine", &mine1), CR_OK);
    CHECK_STATUS(cr_map_set_value(props, "more", extra), CR_OK);
    Node *root = cr_registry_create(reg, "Root", props);
    CHECK(root != NULL);
    if (root) {
        CHECK_INT(root->ownedCount, 3);    /* the three Leafs: CR_OWNER_RECEIVER */
        CHECK_INT(root->callerObjects, 2); /* &mine1 and &mine2 from props: CR_OWNER_CALLER */
        CHECK_INT(root->argCount, 4);
        node_destroy(root, &s); /* destroys the three Leafs it owns, not the caller's objects */
    }
    CHECK_INT(stats_get(&s, &s.creates), 4);
    CHECK_INT(stats_get(&s, &s.destroys), 4);
    CHECK_INT(mine1 + mine2, 3);
    cr_value_free(props);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s, &s.releases), 1);
}

static int plain_destroys;
static void *plain_create(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return malloc(8);
}
static void plain_destroy(void *object, void *user_data) {
    (void)user_data;
    plain_destroys++;
    free(object);
}

/* Release: exactly once, at cr_registry_free, with the class's user_data; none without a release. */
static void release_once(void) {
    host_stats a, b;
    stats_init(&a);
    stats_init(&b);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "A", &node_class, &a), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "A2", &node_class, &a), CR_OK); /* same user_data, two classes */
    CHECK_STATUS(cr_register_class(reg, "B", &node_class, &b), CR_OK);
    cr_class plain = {.create = plain_create, .destroy = plain_destroy};
    CHECK_STATUS(cr_register_class(reg, "Plain", &plain, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, "X: A\nY: B\nP: Plain\n"), CR_OK);
    Node *x = cr_registry_create(reg, "X", NULL);
    CHECK(x != NULL);
    CHECK(a.last_user_data == &a);
    void *p = cr_registry_create(reg, "P", NULL);
    CHECK(p != NULL);
    CHECK_INT(stats_get(&a, &a.releases), 0);
    CHECK_INT(stats_get(&b, &b.releases), 0);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&a, &a.releases), 2); /* once per class registered with it */
    CHECK_INT(stats_get(&b, &b.releases), 1);
    CHECK(b.last_user_data == &b);
    /* Objects returned to the caller outlive the registry and were not destroyed by it. */
    CHECK_INT(stats_get(&a, &a.destroys), 0);
    CHECK_INT(plain_destroys, 0);
    if (x) node_destroy(x, &a);
    plain_destroy(p, NULL);
    CHECK_INT(plain_destroys, 1);
}

/* Rollback destroys receive the class's own user_data. */
static void rollback_user_data(void) {
    host_stats leaf, fail;
    stats_init(&leaf);
    stats_init(&fail);
    fail.fail = 1;
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Leaf", &node_class, &leaf), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Fail", &node_class, &fail), CR_OK);
    CHECK_STATUS(load_yaml(reg, "L: Leaf\nF:\n  ClassName: Fail\n  Dependencies: {l: L}\n"), CR_OK);
    leaf.last_user_data = NULL;
    CHECK(cr_registry_create(reg, "F", NULL) == NULL);
    CHECK_INT(stats_get(&leaf, &leaf.destroys), 1);
    CHECK(leaf.last_user_data == &leaf);
    CHECK(fail.last_user_data == &fail);
    cr_registry_free(reg);
}

/* Without a destroy callback, rolled-back objects are not freed by the library (documented);
 * the host gets them nowhere, so here they are tracked and freed by the test itself. */
static void *tracked[8];
static int tracked_count;
static void *tracked_create(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    void *p = malloc(4);
    if (tracked_count < 8) tracked[tracked_count++] = p;
    return p;
}
static void *null_create(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return NULL;
}

static void rollback_without_destroy(void) {
    cr_class no_destroy = {.create = tracked_create};
    cr_class failing = {.create = null_create};
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "T", &no_destroy, NULL), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "N", &failing, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, "T1: T\nBad:\n  ClassName: N\n  Dependencies: {t: T1}\n"), CR_OK);
    CHECK(cr_registry_create(reg, "Bad", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_INT(tracked_count, 1);
    for (int i = 0; i < tracked_count; i++) free(tracked[i]);
    cr_registry_free(reg);
}

/* --- The 1.0 rule: what a callback reads (cr_value_object / cr_value_provider) is its own for good;
 * what it did not read, the library destroys when the callback returns, success or failure. ------ */

typedef struct {
    int created, destroyed;
} leaf_stats;

static void *leaf_create(const cr_value *args, void *user_data) {
    (void)args;
    ((leaf_stats *)user_data)->created++;
    return malloc(sizeof(int));
}

static void leaf_destroy(void *object, void *user_data) {
    ((leaf_stats *)user_data)->destroyed++;
    free(object);
}

static const cr_class leaf_class = {.create = leaf_create, .destroy = leaf_destroy};

/* A receiver that reads the keys in `take` (objects and providers), then fails or succeeds. */
typedef struct {
    const char *take[4];  /* NULL-terminated */
    const char *fail_key; /* set: fail at this key (after reading it); create: fail if non-NULL */
    void *got[4];         /* objects read, in `take` order */
    cr_owner owners[4];
    cr_provider *provider;
} taker;

static int taker_read(taker *t, const char *key, const cr_value *v) {
    for (int i = 0; i < 4 && t->take[i]; i++) {
        if (strcmp(t->take[i], key) != 0) continue;
        t->owners[i] = cr_value_owner(v);
        if (cr_value_kind(v) == CR_PROVIDER)
            t->provider = cr_value_provider(v);
        else
            t->got[i] = cr_value_object(v);
    }
    return t->fail_key && strcmp(t->fail_key, key) == 0;
}

static void *taker_create(const cr_value *args, void *user_data) {
    taker *t = user_data;
    for (int i = 0; i < 4 && t->take[i]; i++) {
        const cr_value *v = cr_map_get(args, t->take[i]);
        if (v) taker_read(t, t->take[i], v);
    }
    if (t->fail_key) return NULL;
    return malloc(1);
}

static int taker_set(void *object, const char *key, const cr_value *value, void *user_data) {
    (void)object;
    return taker_read(user_data, key, value);
}

static void taker_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static const cr_class taker_class = {.create = taker_create, .destroy = taker_destroy, .set = taker_set};

static cr_registry *taker_registry(leaf_stats *leaves, taker *t, const char *config) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Leaf", &leaf_class, leaves), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Taker", &taker_class, t), CR_OK);
    CHECK_STATUS(load_yaml(reg, config), CR_OK);
    return reg;
}

static const char *two_leaves = "L: Leaf\nT: {ClassName: Taker, Dependencies: {a: L, b: L, list: [L]}}\n";

/* Took `a`, then failed: `a` is the callback's (here the test frees it); `b` and the list's leaf,
 * never read, are destroyed by the library. */
static void taken_then_failed(void) {
    leaf_stats leaves = {0, 0};
    taker t = {.take = {"a"}, .fail_key = "yes"};
    cr_registry *reg = taker_registry(&leaves, &t, two_leaves);
    CHECK(cr_registry_create(reg, "T", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_INT(leaves.created, 3);
    CHECK_INT(leaves.destroyed, 2);
    CHECK_INT(t.owners[0], CR_OWNER_RECEIVER);
    CHECK(t.got[0] != NULL);
    if (t.got[0]) leaf_destroy(t.got[0], &leaves); /* the callback's own */
    CHECK_INT(leaves.destroyed, 3);
    cr_registry_free(reg);
}

/* Read nothing, then failed: everything is destroyed by the library. */
static void not_taken_then_failed(void) {
    leaf_stats leaves = {0, 0};
    taker t = {.take = {NULL}, .fail_key = "yes"};
    cr_registry *reg = taker_registry(&leaves, &t, two_leaves);
    CHECK(cr_registry_create(reg, "T", NULL) == NULL);
    CHECK_INT(leaves.created, 3);
    CHECK_INT(leaves.destroyed, 3);
    cr_registry_free(reg);
}

/* Read `a` (twice), then succeeded: `a` is the new object's; `b` and the list's leaf, never read,
 * are destroyed at once (a callback that keeps nothing leaks nothing). */
static void not_taken_then_succeeded(void) {
    leaf_stats leaves = {0, 0};
    taker t = {.take = {"a", "a"}};
    cr_registry *reg = taker_registry(&leaves, &t, two_leaves);
    void *made = cr_registry_create(reg, "T", NULL);
    CHECK(made != NULL);
    CHECK_INT(leaves.created, 3);
    CHECK_INT(leaves.destroyed, 2);
    CHECK(t.got[0] != NULL && t.got[0] == t.got[1]); /* read again: the same pointer, still taken */
    if (made) taker_destroy(made, NULL);
    if (t.got[0]) leaf_destroy(t.got[0], &leaves);
    CHECK_INT(leaves.destroyed, 3);
    cr_registry_free(reg);
}

/* A graph object goes to its first receiver (CR_OWNER_RECEIVER) only if that one reads it; later
 * receivers see CR_OWNER_SHARED and never take it; unread, it is destroyed when the create ends. */
static void graph_objects(void) {
    for (int first_takes = 0; first_takes < 2; first_takes++) {
        leaf_stats leaves = {0, 0};
        taker first = {.take = {first_takes ? "g" : NULL}};
        taker later = {.take = {"g", "x"}};
        cr_registry *reg = cr_registry_new();
        CHECK_STATUS(cr_register_class(reg, "Leaf", &leaf_class, &leaves), CR_OK);
        CHECK_STATUS(cr_register_class(reg, "First", &taker_class, &first), CR_OK);
        CHECK_STATUS(cr_register_class(reg, "Later", &taker_class, &later), CR_OK);
        CHECK_STATUS(load_yaml(reg,
                               "G: {ClassName: Leaf, Lifestyle: graph}\nX: {ClassName: First, Dependencies: {g: G}}\n"
                               "Root: {ClassName: Later, Dependencies: {x: X, g: G}}\n"),
                     CR_OK);
        void *root = cr_registry_create(reg, "Root", NULL);
        CHECK(root != NULL);
        CHECK_INT(leaves.created, 1);
        CHECK_INT(later.owners[0], CR_OWNER_SHARED);
        CHECK_INT(later.owners[1], CR_OWNER_RECEIVER);
        if (first_takes) {
            CHECK_INT(first.owners[0], CR_OWNER_RECEIVER);
            CHECK_INT(leaves.destroyed, 0); /* X owns it */
            if (first.got[0]) leaf_destroy(first.got[0], &leaves);
        }
        CHECK_INT(leaves.destroyed, 1);
        if (later.got[1]) taker_destroy(later.got[1], NULL); /* Root owns X */
        if (root) taker_destroy(root, NULL);
        cr_registry_free(reg);
    }
}

/* A provider read is the callback's (usable after the create, success or failure; freed with
 * cr_provider_free); one not read is freed by the library (valgrind checks nothing leaks). */
static void providers(void) {
    for (int fail = 0; fail < 2; fail++) {
        leaf_stats leaves = {0, 0};
        taker t = {.take = {"p"}, .fail_key = fail ? "yes" : NULL};
        cr_registry *reg =
            taker_registry(&leaves, &t, "L: Leaf\nT: {ClassName: Taker, Dependencies: {p: {Provider: L}, q: {Provider: L}}}\n");
        void *made = cr_registry_create(reg, "T", NULL);
        CHECK(fail ? made == NULL : made != NULL);
        CHECK(t.provider != NULL);
        if (t.provider) {
            void *leaf = cr_provider_create(t.provider, NULL);
            CHECK(leaf != NULL);
            if (leaf) leaf_destroy(leaf, &leaves);
            cr_provider_free(t.provider);
        }
        if (made) taker_destroy(made, NULL);
        CHECK_INT(leaves.created, 1);
        cr_registry_free(reg);
    }
}

/* cr_inject: per key, what set reads is the object's; a failing set keeps what earlier keys took and
 * what it read itself, and everything else built for the injection is destroyed. */
static void inject_takes_per_key(void) {
    for (int fail = 0; fail < 2; fail++) {
        leaf_stats leaves = {0, 0};
        taker t = {.take = {"a", "b"}, .fail_key = fail ? "b" : NULL};
        cr_registry *reg =
            taker_registry(&leaves, &t, "L: Leaf\nT: {ClassName: Taker, Dependencies: {a: L, b: L, c: L, d: L}}\n");
        int target = 0;
        CHECK_STATUS(cr_inject(reg, "T", &target), fail ? CR_ERR_CREATE_FAILED : CR_OK);
        /* a and b were read; c (and d) were not (on failure, never even offered). */
        CHECK_INT(leaves.created, 4);
        CHECK_INT(leaves.destroyed, 2);
        for (int i = 0; i < 2; i++)
            if (t.got[i]) leaf_destroy(t.got[i], &leaves);
        CHECK_INT(leaves.destroyed, 4);
        cr_registry_free(reg);
    }
}

/* A factory that hands its own arguments on as props of a nested create (to this registry or
 * another): the objects in them are its receiver's, so a second receiver would take them too and
 * both would own one object (a double free). Such props are refused, naming the fix; a map the
 * caller built (and a map inside it) is accepted, its objects the caller's. */
typedef struct {
    cr_registry *other;
    int refused_args, refused_inner_map, accepted_own_map;
    char message[512];
} forwarder;
static void *forward_create(const cr_value *args, void *user_data) {
    forwarder *f = user_data;
    void *o = cr_registry_create(f->other, "Leaf", args);
    if (o == NULL && cr_last_error_code() == CR_ERR_INVALID_ARGUMENT) f->refused_args++;
    snprintf(f->message, sizeof f->message, "%s", cr_last_error_message());
    if (o) free(o);
    cr_create_options options = CR_CREATE_OPTIONS_INIT;
    options.props = cr_map_get(args, "m"); /* a map inside the arguments */
    o = cr_registry_create_with(f->other, "Leaf", &options);
    if (o == NULL && cr_last_error_code() == CR_ERR_INVALID_ARGUMENT) f->refused_inner_map++;
    if (o) free(o);
    cr_value *own = cr_map_new();
    cr_value *inner = cr_map_new();
    cr_map_set_object(inner, "x", f);
    cr_map_set_value(own, "inner", inner);
    o = cr_registry_create(f->other, "Leaf", cr_map_get(own, "inner")); /* ours: accepted */
    if (o) {
        f->accepted_own_map++;
        free(o);
    }
    cr_value_free(own);
    return malloc(8);
}
static void *args_owner_create(const cr_value *args, void *user_data) {
    /* Takes what a receiver may take: it must never be offered an object of another receiver. */
    for (size_t i = 0; i < cr_value_count(args); i++) {
        const cr_value *v = cr_map_value_at(args, i);
        if (cr_value_kind(v) == CR_OBJECT && cr_value_owner(v) == CR_OWNER_RECEIVER) ++*(int *)user_data;
    }
    return malloc(8);
}
static void props_are_never_a_callbacks_arguments(void) {
    leaf_stats leaves = {0, 0};
    int foreign_taken = 0;
    forwarder f = {0};
    cr_registry *other = cr_registry_new();
    CHECK_STATUS(
        cr_register_class(other, "LeafClass", &(cr_class){.create = args_owner_create, .destroy = plain_destroy}, &foreign_taken),
        CR_OK);
    CHECK_STATUS(load_yaml(other, "Leaf: LeafClass\n"), CR_OK);
    f.other = other;
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Leaf", &(cr_class){.create = leaf_create, .destroy = leaf_destroy}, &leaves), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Fwd", &(cr_class){.create = forward_create, .destroy = plain_destroy}, &f), CR_OK);
    CHECK_STATUS(load_yaml(reg, "L: Leaf\nF: {ClassName: Fwd, Dependencies: {a: L, m: {b: L}}}\n"), CR_OK);
    void *made = cr_registry_create(reg, "F", NULL);
    CHECK(made != NULL);
    CHECK_INT(f.refused_args, 1);
    CHECK_INT(f.refused_inner_map, 1);
    CHECK_INT(f.accepted_own_map, 1);
    CHECK_INT(foreign_taken, 0);
    CHECK_CONTAINS(f.message, "props must be a map built with cr_map_new, not a callback's arguments");
    CHECK_CONTAINS(f.message, "copy the values to pass on into a new map");
    /* The factory took neither leaf: the library destroyed both, once each. */
    CHECK_INT(leaves.created, 2);
    CHECK_INT(leaves.destroyed, 2);
    free(made);
    cr_registry_free(reg);
    cr_registry_free(other);
}

void test_ownership(void) {
    owners_in_args();
    release_once();
    rollback_user_data();
    rollback_without_destroy();
    taken_then_failed();
    not_taken_then_failed();
    not_taken_then_succeeded();
    graph_objects();
    providers();
    inject_takes_per_key();
    props_are_never_a_callbacks_arguments();
}
