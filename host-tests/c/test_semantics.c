/* What create passes to the host: props over dependencies, never-NULL args, nesting, literals. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <math.h>
#include <stdlib.h>

/* Props win over a dependency with the same key, and the overridden reference is not built. */
static void props_win(void) {
    host_stats s1, s2;
    stats_init(&s1);
    stats_init(&s2);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);
    CHECK_STATUS(cr_load_file(reg, fixture_path("example.yaml"), CR_FORMAT_AUTO), CR_OK);

    Test2ViewController mine = {TEST2_MAGIC, 42, NULL};
    cr_value *props = cr_map_new();
    CHECK_STATUS(cr_map_set_object(props, "test2ViewController", &mine), CR_OK);
    CHECK_STATUS(cr_map_set_string(props, "dependentString", "from props"), CR_OK);
    CHECK_STATUS(cr_map_set_int(props, "dependentInt", -7), CR_OK);
    Test1ViewController *t = cr_registry_create(reg, "Test1", props);
    CHECK(t != NULL);
    if (t) {
        CHECK(t->test2ViewController == &mine);
        CHECK_INT(t->test2Owner, CR_OWNER_CALLER);
        CHECK_STR(t->dependentString, "from props");
        CHECK_INT(t->dependentInt, -7);
        CHECK_INT(t->dependentBool, 1); /* not overridden */
        CHECK_INT(t->argCount, 4);      /* same keys, not duplicated */
        test1_destroy(t, NULL);         /* does not touch `mine` (caller-owned) */
    }
    CHECK_INT(stats_get(&s2, &s2.creates), 0); /* the overridden Test2 reference was never built */
    CHECK_INT(stats_get(&s2, &s2.destroys), 0);
    CHECK_INT(mine.magic, TEST2_MAGIC);

    /* A prop of another kind on a reference's key still wins (null here). */
    cr_value_free(props);
    props = cr_map_new();
    CHECK_STATUS(cr_map_set_null(props, "test2ViewController"), CR_OK);
    t = cr_registry_create(reg, "Test1", props);
    CHECK(t && t->test2Kind == CR_NULL && t->test2ViewController == NULL);
    if (t) test1_destroy(t, NULL);
    CHECK_INT(stats_get(&s2, &s2.creates), 0);
    cr_value_free(props);

    /* Props that are not a map are rejected. */
    cr_value *list = cr_list_new();
    CHECK(cr_registry_create(reg, "Test1", list) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    cr_value_free(list);
    CHECK_INT(stats_get(&s1, &s1.creates), 2);
    cr_registry_free(reg);
}

/* args is a CR_MAP even with no dependencies and NULL (or empty) props. */
static void args_never_null(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "Bare: Node\n"
                           "NoDeps:\n  ClassName: Node\n"
                           "EmptyDeps:\n  ClassName: Node\n  Dependencies: {}\n"),
                 CR_OK);
    const char *names[] = {"Bare", "NoDeps", "EmptyDeps"};
    for (int i = 0; i < 3; i++) {
        Node *n = cr_registry_create(reg, names[i], NULL);
        CHECK(n != NULL);
        if (!n) continue;
        CHECK_INT(n->argsKind, CR_MAP);
        CHECK_INT(n->argCount, 0);
        node_destroy(n, NULL);
        cr_value *empty = cr_map_new();
        n = cr_registry_create(reg, names[i], empty);
        CHECK(n && n->argsKind == CR_MAP && n->argCount == 0);
        if (n) node_destroy(n, NULL);
        cr_value_free(empty);
    }
    cr_registry_free(reg);
}

/* Records the args of one create for inspection after it returns (args are borrowed). */
typedef struct nested_probe {
    int ok;
    host_stats *stats;
} nested_probe;

static void *nested_create(const cr_value *args, void *user_data) {
    nested_probe *p = user_data;
    int before = check_failed();
    CHECK_INT(cr_value_kind(args), CR_MAP);

    /* a list of names is a list of objects */
    const cr_value *names = cr_map_get(args, "screens");
    CHECK_INT(cr_value_kind(names), CR_LIST);
    CHECK_INT(cr_value_count(names), 3);
    for (size_t i = 0; i < 3; i++) {
        const cr_value *e = cr_list_at(names, i);
        CHECK_INT(cr_value_kind(e), CR_OBJECT);
        CHECK_INT(cr_value_owner(e), CR_OWNER_RECEIVER);
        Node *n = cr_value_object(e);
        CHECK(n && n->magic == NODE_MAGIC);
    }
    CHECK(cr_value_object(cr_list_at(names, 0)) != cr_value_object(cr_list_at(names, 1))); /* one object per mention */
    CHECK(cr_list_at(names, 3) == NULL);

    /* a list of literals */
    const cr_value *lits = cr_map_get(args, "literals");
    CHECK_INT(cr_value_count(lits), 7);
    CHECK_INT(cr_value_kind(cr_list_at(lits, 0)), CR_INT);
    CHECK_INT(cr_value_int(cr_list_at(lits, 0)), 1);
    CHECK_INT(cr_value_kind(cr_list_at(lits, 1)), CR_STRING);
    CHECK_STR(cr_value_string(cr_list_at(lits, 1)), "two");
    CHECK_INT(cr_value_kind(cr_list_at(lits, 2)), CR_BOOL);
    CHECK_INT(cr_value_bool(cr_list_at(lits, 2)), 0);
    CHECK_INT(cr_value_kind(cr_list_at(lits, 3)), CR_DOUBLE);
    CHECK(fabs(cr_value_double(cr_list_at(lits, 3)) - 2.5) < 1e-12);
    CHECK_INT(cr_value_kind(cr_list_at(lits, 4)), CR_NULL);
    CHECK_INT(cr_value_kind(cr_list_at(lits, 5)), CR_STRING);
    CHECK_STR(cr_value_string(cr_list_at(lits, 5)), "");    /* "@" alone is the empty string */
    CHECK_STR(cr_value_string(cr_list_at(lits, 6)), "@at"); /* "@@at" keeps the second @ */

    /* maps nest, with references and literals at any depth */
    const cr_value *m = cr_map_get(args, "config");
    CHECK_INT(cr_value_kind(m), CR_MAP);
    CHECK_INT(cr_value_count(m), 3);
    CHECK_STR(cr_map_key_at(m, 0), "main");
    CHECK_STR(cr_map_key_at(m, 1), "title");
    CHECK_STR(cr_map_key_at(m, 2), "deep");
    CHECK(cr_map_key_at(m, 3) == NULL);
    CHECK_INT(cr_value_kind(cr_map_get(m, "main")), CR_OBJECT);
    CHECK_STR(cr_value_string(cr_map_get(m, "title")), "Hello");
    const cr_value *deep = cr_map_get(m, "deep");
    const cr_value *inner = cr_map_get(deep, "list");
    CHECK_INT(cr_value_kind(inner), CR_LIST);
    CHECK_INT(cr_value_count(inner), 2);
    const cr_value *pair = cr_list_at(inner, 0);
    CHECK_INT(cr_value_kind(pair), CR_LIST);
    CHECK_INT(cr_value_kind(cr_list_at(pair, 0)), CR_OBJECT);
    CHECK_INT(cr_value_int(cr_list_at(pair, 1)), 3);
    CHECK_INT(cr_value_kind(cr_list_at(inner, 1)), CR_MAP);
    CHECK_INT(cr_value_kind(cr_map_get(cr_list_at(inner, 1), "leaf")), CR_OBJECT);
    CHECK(cr_map_value_at(m, 1) == cr_map_get(m, "title"));
    CHECK(cr_map_get(m, "absent") == NULL);

    /* the string length accessor, and count on a string */
    CHECK_INT(cr_value_string_length(cr_map_get(m, "title")), 5);
    CHECK_INT(cr_value_count(cr_map_get(m, "title")), 5);

    p->ok = check_failed() == before;
    /* The objects received are ours now: a Node keeps (and later destroys) them all. */
    return node_class.create(args, p->stats);
}

static void nested_lists_and_maps(void) {
    host_stats s;
    stats_init(&s);
    nested_probe probe = {0, &s};
    cr_class nested = {.create = nested_create};
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Nested", &nested, &probe), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "Leaf: Node\n"
                           "Holder:\n"
                           "  ClassName: Node\n"
                           "  Dependencies:\n"
                           "    item: Leaf\n"
                           "Top:\n"
                           "  ClassName: Nested\n"
                           "  Dependencies:\n"
                           "    screens: [Leaf, Leaf, Holder]\n"
                           "    literals: [1, \"@two\", false, 2.5, null, \"@\", \"@@at\"]\n"
                           "    config:\n"
                           "      main: Holder\n"
                           "      title: \"@Hello\"\n"
                           "      deep:\n"
                           "        list:\n"
                           "          - [Leaf, 3]\n"
                           "          - {leaf: Leaf}\n"),
                 CR_OK);
    Node *top = cr_registry_create(reg, "Top", NULL);
    CHECK(top != NULL);
    CHECK(probe.ok);
    /* Leaf x6 (screens 2 + 1 in Holder, main's Holder 1, deep 2), Holder x2, and Top's Node. */
    CHECK_INT(stats_get(&s, &s.creates), 9);
    if (top) {
        CHECK_INT(top->ownedCount, 6); /* the directly received objects: 3 screens, main, 2 deep */
        node_destroy(top, &s);
    }
    CHECK_INT(stats_get(&s, &s.destroys), 9);
    cr_registry_free(reg);
}

/* A literal whose text is a key or an entry name, a key that is an earlier literal's text and a
 * literal repeated by the next entry each keep their own meaning (strings written once are shared
 * where they repeat; what is a name and what is text is decided by how it was written). */
static void *text_probe_create(const cr_value *args, void *user_data) {
    nested_probe *p = user_data;
    int before = check_failed();
    const cr_value *name = cr_map_get(args, "name");
    if (name) { /* B */
        CHECK_STR(cr_value_string(cr_map_get(args, "@x")), "title");
        CHECK_STR(cr_value_string(cr_map_get(args, "title")), "A");
        CHECK_INT(cr_value_kind(name), CR_OBJECT);
        CHECK_STR(cr_map_key_at(args, 0), "@x");
    } else { /* A */
        CHECK_STR(cr_value_string(cr_map_get(args, "title")), "title");
        CHECK_STR(cr_value_string(cr_map_get(args, "again")), "title");
        CHECK_INT(cr_value_kind(cr_map_get(args, "other")), CR_OBJECT);
    }
    p->ok += check_failed() == before;
    return node_class.create(args, p->stats);
}

static void literals_equal_to_keys_and_names(void) {
    host_stats s;
    stats_init(&s);
    nested_probe probe = {0, &s};
    cr_class text = {.create = text_probe_create};
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Text", &text, &probe), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "title: Node\n"
                           "A: {ClassName: Text, Dependencies: {title: '@title', other: title, again: '@title'}}\n"
                           "B: {ClassName: Text, Dependencies: {'@x': '@title', title: '@A', name: A}}\n"),
                 CR_OK);
    Node *b = cr_registry_create(reg, "B", NULL);
    CHECK(b != NULL);
    CHECK_INT(probe.ok, 2); /* B, then the A it refers to */
    if (b) node_destroy(b, &s);
    cr_registry_free(reg);
}

/* The name table finds every name by its exact bytes: names of 1 to 40 bytes (every way the
 * table hashes a name: up to 3 bytes, 4 to 7, one word, several words) that differ only in their
 * first, middle or last byte or in their length each create their own entry, and a near miss (a
 * prefix, an extension, one byte changed) is CR_ERR_NOT_FOUND. */
static void *numbered_create(const cr_value *args, void *user_data) {
    (void)user_data;
    int64_t *n = malloc(sizeof *n);
    if (n) *n = cr_value_int(cr_map_get(args, "n"));
    return n;
}

static void numbered_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static void names_of_every_length(void) {
    cr_registry *reg = cr_registry_new();
    cr_class numbered = {.create = numbered_create, .destroy = numbered_destroy};
    CHECK_STATUS(cr_register_class(reg, "Numbered", &numbered, NULL), CR_OK);
    enum { LONGEST = 40, VARIANTS = 4 };
    char names[LONGEST * VARIANTS][LONGEST + 1];
    size_t count = 0;
    for (int len = 1; len <= LONGEST; len++) {
        for (int v = 0; v < VARIANTS; v++) {
            char *name = names[count];
            for (int i = 0; i < len; i++) name[i] = (char)('a' + i % 26);
            name[len] = 0;
            if (v == 1) name[0] = 'Z';       /* differs in the first byte */
            if (v == 2) name[len / 2] = 'Y'; /* in the middle one */
            if (v == 3) name[len - 1] = 'X'; /* in the last one */
            int duplicate = 0;               /* short names can coincide */
            for (size_t j = 0; j < count; j++) duplicate |= strcmp(names[j], name) == 0;
            if (!duplicate) count++;
        }
    }
    size_t size = count * (2 * LONGEST + 64) + 1, used = 0;
    char *yaml = malloc(size);
    CHECK(yaml != NULL);
    if (!yaml) return;
    for (size_t i = 0; i < count; i++)
        used += (size_t)snprintf(yaml + used, size - used, "%s: {ClassName: Numbered, Dependencies: {n: %zu}}\n", names[i], i);
    CHECK_STATUS(cr_load_string(reg, yaml, used, CR_FORMAT_YAML), CR_OK);
    free(yaml);
    for (size_t i = 0; i < count; i++) {
        int64_t *n = cr_registry_create(reg, names[i], NULL);
        if (!CHECK(n != NULL && *n == (int64_t)i)) check_note("create of '%s'", names[i]);
        free(n);
    }
    /* Near misses: "abc" + "d" is an entry name's extension only when no entry has that name. */
    const char *misses[] = {"abcdefghijklmnopqrstuvwxyzabcdefghijklmnQ",
                            "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq",
                            "Q",
                            "aQ",
                            "abcQ",
                            "abcdefgQ",
                            "abcdefghQ",
                            "abcdefghijklmnopQ",
                            "abcdefghijklmnopqQ",
                            "ZZ",
                            "abcdefghijklmnopqrstuvwxyzabcdefghijklmW"};
    for (size_t i = 0; i < sizeof misses / sizeof *misses; i++) {
        CHECK(cr_registry_create(reg, misses[i], NULL) == NULL);
        CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    }
    cr_registry_free(reg);
}

/* Leaf arguments (transient entries without dependencies) fail as any argument: one level past
 * CR_LIMIT_CREATE_DEPTH is CR_ERR_LIMIT naming the chain, with no callback called; within the
 * limit the whole chain is built. */
static void leaf_arguments_at_the_depth_limit(void) {
    cr_registry *reg = cr_registry_new();
    cr_class numbered = {.create = numbered_create, .destroy = numbered_destroy};
    CHECK_STATUS(cr_register_class(reg, "Numbered", &numbered, NULL), CR_OK);
    const char *yaml = "A: Numbered\n"
                       "E: {ClassName: Numbered, Dependencies: {a: A}}\n"
                       "D: {ClassName: Numbered, Dependencies: {n: E}}\n";
    CHECK_STATUS(cr_load_string(reg, yaml, strlen(yaml), CR_FORMAT_YAML), CR_OK);
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_CREATE_DEPTH, 2), CR_OK);
    CHECK(cr_registry_create(reg, "D", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "cannot create 'D' (D -> E -> A)");
    CHECK_CONTAINS(cr_last_error_message(),
                   "(CR_LIMIT_CREATE_DEPTH: raise it with cr_registry_set_limit if the config is trusted)");
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_CREATE_DEPTH, 3), CR_OK);
    int64_t *d = cr_registry_create(reg, "D", NULL);
    CHECK(d != NULL && *d == 0); /* no "n" int: the value is an object, read as 0 */
    free(d);
    cr_registry_free(reg);
}

/* cr_map_get finds each key's own value whatever order a callback reads them in: declared order,
 * reversed, the same key twice, a key that is a prefix or an extension of the one the previous
 * lookup was followed by, a key that is absent, and keys of a nested map, with props merged over
 * the dependencies and for a class created by convention (props only). Lookups remember where
 * the last one found its key; that must never change what a key finds. */
typedef struct {
    const char *key;
    int64_t value; /* -1: absent */
} key_read;

static int read_keys(const cr_value *map, const key_read *reads, size_t n) {
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        const cr_value *v = cr_map_get(map, reads[i].key);
        int64_t got = v ? cr_value_int(v) : -1;
        if (!CHECK(got == reads[i].value)) {
            check_note("read %zu: key '%s' gave %lld, expected %lld", i, reads[i].key, (long long)got, (long long)reads[i].value);
            ok = 0;
        }
    }
    return ok;
}

static void *order_probe_create(const cr_value *args, void *user_data) {
    int *ok = user_data;
    static const key_read reads[] = {
        {"title", 1}, {"titles", 2}, {"t", 3},    {"ti", 4},     {"zz", 7},       {"t2", 8},    /* declared, then props */
        {"t2", 8},    {"zz", 7},     {"ti", 4},   {"t", 3},      {"titles", 2},   {"title", 1}, /* reversed */
        {"title", 1}, {"title", 1},  {"tit", -1}, {"titles", 2}, {"titlesx", -1}, {"t", 3},     /* repeats, near misses */
        {"", -1},     {"ti", 4},     {"zz", 7},   {"title", 1},  {"z", -1},       {"t2", 8},
    };
    *ok += read_keys(args, reads, sizeof reads / sizeof *reads);
    const cr_value *nested = cr_map_get(args, "m");
    static const key_read inner[] = {{"ab", 6}, {"a", 5}, {"ab", 6}, {"b", -1}, {"a", 5}, {"a", 5}};
    if (CHECK(nested != NULL)) *ok += read_keys(nested, inner, sizeof inner / sizeof *inner);
    return malloc(1);
}

static void *props_order_create(const cr_value *args, void *user_data) {
    int *ok = user_data;
    static const key_read reads[] = {{"t2", 8}, {"zz", 7}, {"zz", 7}, {"t", -1}, {"t2", 8}, {"z", -1}, {"zz", 7}};
    *ok += read_keys(args, reads, sizeof reads / sizeof *reads);
    return malloc(1);
}

static void free_object(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static void args_read_in_any_order(void) {
    int ok = 0, props_ok = 0;
    cr_class probe = {.create = order_probe_create, .destroy = free_object};
    cr_class by_convention = {.create = props_order_create, .destroy = free_object};
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Probe", &probe, &ok), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Loose", &by_convention, &props_ok), CR_OK);
    CHECK_STATUS(load_yaml(reg, "P: {ClassName: Probe, Dependencies: {title: 1, titles: 2, t: 3, ti: 4, m: {a: 5, ab: 6}}}\n"),
                 CR_OK);
    cr_value *props = cr_map_new();
    CHECK_STATUS(cr_map_set_int(props, "zz", 7), CR_OK);
    CHECK_STATUS(cr_map_set_int(props, "t2", 8), CR_OK);
    for (int i = 0; i < 3; i++) free(cr_registry_create(reg, "P", props));
    CHECK_INT(ok, 6); /* 3 creates, each the top-level reads and the nested ones */
    for (int i = 0; i < 2; i++) free(cr_registry_create(reg, "Loose", props));
    CHECK_INT(props_ok, 2);
    /* The caller's props map is read the same way (it is never the map a callback writes to). */
    static const key_read own[] = {{"t2", 8}, {"zz", 7}, {"t2", 8}, {"x", -1}};
    CHECK(read_keys(props, own, sizeof own / sizeof *own));
    cr_value_free(props);
    cr_registry_free(reg);
}

void test_semantics(void) {
    props_win();
    args_never_null();
    nested_lists_and_maps();
    literals_equal_to_keys_and_names();
    names_of_every_length();
    leaf_arguments_at_the_depth_limit();
    args_read_in_any_order();
}
