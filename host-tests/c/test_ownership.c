/* Ownership: who owns objects in args, release callbacks, user_data. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdlib.h>

static void owners_in_args(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg, "Leaf: Node\nRoot:\n  ClassName: Node\n  Dependencies: {a: Leaf, list: [Leaf, {x: Leaf}]}\n"), CR_OK);
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

void test_ownership(void) {
    owners_in_args();
    release_once();
    rollback_user_data();
    rollback_without_destroy();
}
