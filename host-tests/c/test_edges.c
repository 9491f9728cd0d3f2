/* Misuse a hostile host may try, each detected or made safe: freeing a registry from its own
 * callbacks, a singleton replaced by an override load, dependency keys C cannot name, a source name
 * left empty, tags on entries added from code. Under valgrind: a use after free or a leak fails. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A class whose create (or destroy) frees the registry given in its state, once. */
typedef struct {
    cr_registry *reg;    /* the registry to free */
    const char *free_in; /* the entry whose create frees it, or NULL */
    int free_in_destroy; /* destroy frees it */
    int creates, destroys, releases;
    int second_free_code; /* last error after a second cr_registry_free, from a destroy */
} freeing_state;

typedef struct {
    int magic;
    char name[32];
} freeing_object;

static void *freeing_create(const cr_value *args, void *user_data) {
    freeing_state *s = user_data;
    const cr_value *n = cr_map_get(args, "name");
    freeing_object *o = calloc(1, sizeof *o);
    o->magic = 0xf4ee;
    if (n && cr_value_kind(n) == CR_STRING) snprintf(o->name, sizeof o->name, "%s", cr_value_string(n));
    s->creates++;
    if (s->free_in && strcmp(o->name, s->free_in) == 0 && s->reg) {
        cr_registry *reg = s->reg;
        s->reg = NULL;
        cr_registry_free(reg);
    }
    return o;
}

static void freeing_destroy(void *object, void *user_data) {
    freeing_state *s = user_data;
    freeing_object *o = object;
    CHECK_INT(o->magic, 0xf4ee);
    o->magic = 0;
    free(o);
    s->destroys++;
    if (s->free_in_destroy == 1 && s->reg) {
        /* The registry is being freed already (this destroy is its teardown's): refused. */
        cr_clear_error();
        cr_registry_free(s->reg);
        s->second_free_code = cr_last_error_code();
    } else if (s->free_in_destroy == 2 && s->reg) {
        /* A destroy run by a reload: the registry is not being freed; this frees it. */
        cr_registry *reg = s->reg;
        s->reg = NULL;
        cr_registry_free(reg);
    }
}

static void freeing_free(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static void freeing_release(void *user_data) { ((freeing_state *)user_data)->releases++; }

static const cr_class freeing_class = {.create = freeing_create, .destroy = freeing_destroy, .release = freeing_release};

static cr_registry *freeing_registry(freeing_state *s, const char *yaml) {
    memset(s, 0, sizeof *s);
    cr_registry *reg = cr_registry_new();
    s->reg = reg;
    CHECK_STATUS(cr_register_class(reg, "F", &freeing_class, s), CR_OK);
    CHECK_STATUS(cr_load_string(reg, yaml, strlen(yaml), CR_FORMAT_YAML), CR_OK);
    return reg;
}

static const char *free_config = "Shared: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@Shared'}}\n"
                                 "Inner: {ClassName: F, Dependencies: {name: '@Inner', shared: Shared}}\n"
                                 "Outer: {ClassName: F, Dependencies: {name: '@Outer', inner: Inner, shared: Shared}}\n";

/* cr_registry_free from a create callback of the same registry: the registry is emptied at once,
 * torn down (singletons destroyed, classes released) when the outermost create returns. */
static void free_from_own_create(void) {
    freeing_state s;
    cr_registry *reg = freeing_registry(&s, free_config);
    s.free_in = "Inner"; /* a dependency's create: Outer's create still follows */
    freeing_object *o = cr_registry_create(reg, "Outer", NULL);
    CHECK(o != NULL);
    CHECK_INT(s.creates, 3);
    /* Torn down now: the singleton destroyed, the class released; Inner (an argument Outer's create
     * did not take) destroyed when the create ended. Outer is the caller's. */
    CHECK_INT(s.destroys, 2);
    CHECK_INT(s.releases, 1);
    if (o) {
        CHECK_STR(o->name, "Outer");
        free(o);
    }
}

/* The registry freed by the outermost create's own callback: nothing is left to run after it. */
static void free_from_outermost_create(void) {
    freeing_state s;
    cr_registry *reg = freeing_registry(&s, free_config);
    s.free_in = "Outer";
    freeing_object *o = cr_registry_create(reg, "Outer", NULL);
    CHECK(o != NULL);
    CHECK_INT(s.releases, 1);
    free(o);
}

/* Freed from a nested create's callback (a create callback that creates again): later creates in
 * the outer callback fail cleanly, and the teardown waits for the outer create. */
typedef struct {
    cr_registry *reg;
    int after_code; /* the error of a create made after the free, inside the callback */
    int releases;
} nesting_state;

static void *nesting_create(const cr_value *args, void *user_data) {
    (void)args;
    nesting_state *s = user_data;
    cr_registry *reg = s->reg;
    cr_registry_free(reg);
    /* Still valid until this create returns: the registry is empty now. */
    void *again = cr_registry_create(reg, "Nesting", NULL);
    s->after_code = again ? 0 : cr_last_error_code();
    return malloc(1);
}

static void nesting_release(void *user_data) { ((nesting_state *)user_data)->releases++; }

static void free_then_create_in_callback(void) {
    nesting_state s = {0};
    s.reg = cr_registry_new();
    cr_class cls = {.create = nesting_create, .release = nesting_release};
    CHECK_STATUS(cr_register_class(s.reg, "Nesting", &cls, &s), CR_OK);
    void *o = cr_registry_create(s.reg, "Nesting", NULL);
    CHECK(o != NULL);
    free(o);
    CHECK(s.after_code == CR_ERR_INVALID_ARGUMENT || s.after_code == CR_ERR_NOT_FOUND);
    CHECK_INT(s.releases, 1);
}

/* A destroy callback run by cr_registry_free that frees the registry again: refused, typed. */
static void free_from_destroy_during_free(void) {
    freeing_state s;
    cr_registry *reg = freeing_registry(&s, free_config);
    void *shared = cr_registry_create(reg, "Shared", NULL);
    CHECK(shared != NULL);
    s.free_in_destroy = 1;
    cr_registry_free(reg);
    CHECK_INT(s.destroys, 1);
    CHECK_INT(s.second_free_code, CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(s.releases, 1);
}

/* Registry B freed from a create callback of registry A: B is torn down when A's create returns. */
typedef struct {
    cr_registry *other;
    freeing_state *other_state;
    int destroys_seen_inside;
} cross_state;

static void *cross_create(const cr_value *args, void *user_data) {
    (void)args;
    cross_state *c = user_data;
    cr_registry_free(c->other);
    c->destroys_seen_inside = c->other_state->destroys;
    return malloc(1);
}

static void free_other_registry_from_create(void) {
    freeing_state s;
    cr_registry *b = freeing_registry(&s, free_config);
    void *shared = cr_registry_create(b, "Shared", NULL);
    CHECK(shared != NULL);
    cross_state c = {b, &s, -1};
    cr_registry *a = cr_registry_new();
    cr_class cls = {.create = cross_create};
    CHECK_STATUS(cr_register_class(a, "Cross", &cls, &c), CR_OK);
    void *o = cr_registry_create(a, "Cross", NULL);
    CHECK(o != NULL);
    free(o);
    CHECK_INT(c.destroys_seen_inside, 0); /* B's singleton outlived the callback... */
    CHECK_INT(s.destroys, 1);             /* ...and was destroyed when A's create returned */
    CHECK_INT(s.releases, 1);
    cr_registry_free(a);
}

/* An eager singleton's create frees the registry during cr_registry_start. */
static void free_during_start(void) {
    freeing_state s;
    cr_registry *reg = freeing_registry(&s,
                                        "A: {ClassName: F, Lifestyle: singleton, Eager: true, Dependencies: {name: '@A'}}\n"
                                        "B: {ClassName: F, Lifestyle: singleton, Eager: true, Dependencies: {name: '@B'}}\n");
    s.free_in = "A";
    int rc = cr_registry_start(reg);
    (void)rc; /* B may fail to build (the registry is empty after the free): either is fine */
    /* A (and B if built) finished after the free: destroyed when the registry went, at start's end. */
    CHECK_INT(s.releases, 1);
    CHECK(s.creates >= 1);
    CHECK_INT(s.destroys, s.creates);
}

/* A destroy callback run by a reload (a retired singleton) frees the registry. */
static void free_from_destroy_during_reload(void) {
    freeing_state s;
    const char *path = "edges-reload.yaml";
    FILE *f = fopen(path, "w");
    fputs("S: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@one'}}\n", f);
    fclose(f);
    memset(&s, 0, sizeof s);
    cr_registry *reg = cr_registry_new();
    s.reg = reg;
    CHECK_STATUS(cr_register_class(reg, "F", &freeing_class, &s), CR_OK);
    CHECK_STATUS(cr_load_file(reg, path, CR_FORMAT_AUTO), CR_OK);
    CHECK(cr_registry_create(reg, "S", NULL) != NULL);
    f = fopen(path, "w");
    fputs("S: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@two'}}\n", f);
    fclose(f);
    /* The reload destroys the old S once it is swapped out; that destroy frees the registry, which
     * the reload call still holds until it returns. */
    s.free_in_destroy = 2;
    CHECK_STATUS(cr_registry_reload(reg), CR_OK);
    CHECK_INT(s.destroys, 1);
    CHECK(s.reg == NULL);
    CHECK_INT(s.releases, 1);
    remove(path);
}

/* cr_value_take_object: a receiver's object once; a second take is a typed error, not a second owner. */
typedef struct {
    host_stats *stats;
    int first_ok, second_code, singleton_again, object_again_same;
} take_state;

static void *taker_create(const cr_value *args, void *user_data) {
    take_state *t = user_data;
    const cr_value *a = cr_map_get(args, "a");
    void *first = cr_value_take_object(a);
    t->first_ok = first != NULL;
    cr_clear_error();
    t->second_code = cr_value_take_object(a) == NULL ? cr_last_error_code() : 0;
    /* cr_value_object still reads it (the pointer is the taker's). */
    t->object_again_same = cr_value_object(a) == first;
    const cr_value *s = cr_map_get(args, "s");
    void *s1 = cr_value_take_object(s), *s2 = cr_value_take_object(s);
    t->singleton_again = s1 != NULL && s1 == s2;
    if (first) test2_destroy(first, t->stats);
    return malloc(1);
}

static void take_object_once(void) {
    host_stats stats;
    stats_init(&stats);
    take_state t = {&stats, 0, 0, 0, 0};
    cr_registry *reg = cr_registry_new();
    cr_class taker = {.create = taker_create};
    CHECK_STATUS(cr_register_class(reg, "Taker", &taker, &t), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &stats), CR_OK);
    const char *yaml = "T2: Test2ViewController\n"
                       "S: {ClassName: Test2ViewController, Lifestyle: singleton}\n"
                       "Take: {ClassName: Taker, Dependencies: {a: T2, s: S}}\n";
    CHECK_STATUS(cr_load_string(reg, yaml, strlen(yaml), CR_FORMAT_YAML), CR_OK);
    void *o = cr_registry_create(reg, "Take", NULL);
    CHECK(o != NULL);
    free(o);
    CHECK(t.first_ok);
    CHECK_INT(t.second_code, CR_ERR_INVALID_ARGUMENT);
    CHECK(t.object_again_same);
    CHECK(t.singleton_again);
    CHECK_INT(stats_get(&stats, &stats.destroys), 1); /* the taken T2, destroyed once, by the taker */
    cr_clear_error();
    CHECK(cr_value_take_object(NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    cr_value *m = cr_map_new();
    cr_map_set_int(m, "i", 1);
    CHECK(cr_value_take_object(cr_map_get(m, "i")) == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    cr_value_free(m);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&stats, &stats.destroys), 2); /* and the singleton, by the registry */
}

/* cr_value_take_object_with_owner: one call takes a receiver's object (once) and reads any other,
 * writing its owner; cr_value_string_with_length: the text and its length in one call. */
typedef struct {
    host_stats *stats;
    cr_owner first_owner, second_owner, singleton_owner, int_owner, props_owner;
    int first_ok, second_code, singleton_again, int_code, props_same;
    const char *text;
    size_t text_length, int_length;
} owner_take_state;

static void *owner_taker_create(const cr_value *args, void *user_data) {
    owner_take_state *t = user_data;
    const cr_value *a = cr_map_get(args, "a");
    void *first = cr_value_take_object_with_owner(a, &t->first_owner);
    t->first_ok = first != NULL;
    cr_clear_error();
    t->second_code = cr_value_take_object_with_owner(a, &t->second_owner) == NULL ? cr_last_error_code() : 0;
    const cr_value *s = cr_map_get(args, "s");
    void *s1 = cr_value_take_object_with_owner(s, &t->singleton_owner), *s2 = cr_value_take_object_with_owner(s, NULL);
    t->singleton_again = s1 != NULL && s1 == s2;
    cr_clear_error();
    t->int_code = cr_value_take_object_with_owner(cr_map_get(args, "n"), &t->int_owner) == NULL ? cr_last_error_code() : 0;
    void *mine = cr_value_take_object_with_owner(cr_map_get(args, "mine"), &t->props_owner);
    t->props_same = mine == t->stats;
    t->text = cr_value_string_with_length(cr_map_get(args, "text"), &t->text_length);
    t->int_length = 99;
    if (cr_value_string_with_length(cr_map_get(args, "n"), &t->int_length) != NULL) t->int_length = 98;
    if (first) test2_destroy(first, t->stats);
    return malloc(1);
}

static void take_object_with_owner(void) {
    host_stats stats;
    stats_init(&stats);
    owner_take_state t;
    memset(&t, 0, sizeof t);
    t.stats = &stats;
    cr_registry *reg = cr_registry_new();
    cr_class taker = {.create = owner_taker_create};
    CHECK_STATUS(cr_register_class(reg, "Taker", &taker, &t), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &stats), CR_OK);
    const char *yaml = "T2: Test2ViewController\n"
                       "S: {ClassName: Test2ViewController, Lifestyle: singleton}\n"
                       "Take: {ClassName: Taker, Dependencies: {a: T2, s: S, n: 7, text: \"@two\\0parts\"}}\n";
    CHECK_STATUS(cr_load_string(reg, yaml, strlen(yaml), CR_FORMAT_YAML), CR_OK);
    cr_value *props = cr_map_new();
    cr_map_set_object(props, "mine", &stats);
    void *o = cr_registry_create(reg, "Take", props);
    CHECK(o != NULL);
    free(o);
    cr_value_free(props);
    CHECK(t.first_ok);
    CHECK_INT(t.first_owner, CR_OWNER_RECEIVER);
    CHECK_INT(t.second_code, CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(t.second_owner, CR_OWNER_RECEIVER);
    CHECK(t.singleton_again);
    CHECK_INT(t.singleton_owner, CR_OWNER_REGISTRY);
    CHECK_INT(t.int_code, CR_ERR_TYPE);
    CHECK_INT(t.int_owner, CR_OWNER_NONE);
    CHECK(t.props_same);
    CHECK_INT(t.props_owner, CR_OWNER_CALLER);
    CHECK_INT(t.text_length, 9);
    CHECK(t.text != NULL && memcmp(t.text, "two\0parts", 10) == 0);
    CHECK_INT(t.int_length, 0);
    CHECK_INT(stats_get(&stats, &stats.destroys), 1); /* the taken T2, destroyed once, by the taker */
    cr_clear_error();
    cr_owner owner = CR_OWNER_REGISTRY;
    CHECK(cr_value_take_object_with_owner(NULL, &owner) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(owner, CR_OWNER_NONE);
    size_t n = 5;
    CHECK(cr_value_string_with_length(NULL, &n) == NULL);
    CHECK_INT(n, 0);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&stats, &stats.destroys), 2); /* and the singleton, by the registry */
}

/* A load given an empty source name names its text "<string>", as one given none. */
static void empty_source_name(void) {
    cr_registry *reg = cr_registry_new();
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.source_name = "";
    const char *yaml = "A: X\nB: {ClassName: X, Dependencies: {a: Missing}}\n";
    CHECK_STATUS(cr_load_string_with(reg, yaml, strlen(yaml), &o), CR_ERR_MISSING_REFERENCE);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:2:");
    CHECK(strncmp(cr_last_error_message(), ":", 1) != 0);
    const cr_problem *p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p) CHECK_STR(p->file, "<string>");
    /* A syntax error too (the parser's own place). */
    CHECK_STATUS(cr_load_string_with(reg, "A: [", 4, &o), CR_ERR_SYNTAX);
    CHECK(strncmp(cr_last_error_message(), "<string>:", 9) == 0);
    cr_registry_free(reg);
}

/* A singleton replaced by an override load (or removed) is destroyed once no create can reach it;
 * one another built singleton may hold stays until the registry is freed. */
static void replaced_singletons_are_destroyed(void) {
    freeing_state s;
    cr_registry *reg = freeing_registry(&s, "S: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@old'}}\n");
    freeing_object *old = cr_registry_create(reg, "S", NULL);
    CHECK(old != NULL);
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.flags = CR_LOAD_OVERRIDE;
    const char *replaced = "S: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@new'}}\n";
    CHECK_STATUS(cr_load_string_with(reg, replaced, strlen(replaced), &o), CR_OK);
    CHECK_INT(s.destroys, 1); /* the old S */
    freeing_object *now = cr_registry_create(reg, "S", NULL);
    CHECK(now != NULL);
    if (now) CHECK_STR(now->name, "new");
    CHECK_STATUS(cr_remove_entry(reg, "S"), CR_OK);
    CHECK_INT(s.destroys, 2); /* the new S, removed */
    /* Held by another singleton: kept (its holder may use it) until the registry is freed. */
    const char *held = "Inner: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@inner'}}\n"
                       "Holder: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@holder', inner: Inner}}\n";
    CHECK_STATUS(cr_load_string(reg, held, strlen(held), CR_FORMAT_YAML), CR_OK);
    CHECK(cr_registry_create(reg, "Holder", NULL) != NULL);
    const char *inner2 = "Inner: {ClassName: F, Lifestyle: singleton, Dependencies: {name: '@inner2'}}\n";
    CHECK_STATUS(cr_load_string_with(reg, inner2, strlen(inner2), &o), CR_OK);
    CHECK_INT(s.destroys, 2);
    cr_registry_free(reg);
    CHECK_INT(s.destroys, 4); /* Holder and the old Inner */
    CHECK_INT(s.releases, 1);
}

/* cr_add_entry_with: tags, description and Eager from code, as a config gives them. */
static void entry_options(void) {
    host_stats stats;
    stats_init(&stats);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &stats), CR_OK);
    cr_value *tags = cr_list_new();
    cr_list_push_string(tags, "screen");
    cr_list_push_int(tags, 5);
    cr_entry_options o = CR_ENTRY_OPTIONS_INIT;
    o.tags = tags;
    o.description = "from code";
    CHECK_STATUS(cr_add_entry_with(reg, "B", "Node", &o), CR_OK);
    cr_value *single = cr_map_new(); /* a map is not a tag */
    o.tags = single;
    CHECK_STATUS(cr_add_entry_with(reg, "Bad", "Node", &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "options->tags must be a string or an integer");
    cr_value_free(single);
    cr_value *list = cr_list_new();
    cr_list_push_double(list, 1.5);
    o.tags = list;
    CHECK_STATUS(cr_add_entry_with(reg, "Bad", "Node", &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "options->tags[0]");
    cr_value_free(list);
    o.tags = NULL;
    o.eager = 1; /* transient: refused */
    CHECK_STATUS(cr_add_entry_with(reg, "Bad", "Node", &o), CR_ERR_INVALID_ARGUMENT);
    o.eager = 0;
    o.version = 99;
    CHECK_STATUS(cr_add_entry_with(reg, "Bad", "Node", &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(cr_add_entry_with(reg, "A", "Node", NULL), CR_OK);
    const char *yaml = "Screens: {ClassName: Node, Dependencies: {all: {Tagged: screen}, five: {Tagged: 5}}}\n";
    CHECK_STATUS(cr_load_string(reg, yaml, strlen(yaml), CR_FORMAT_YAML), CR_OK);
    Node *n = cr_registry_create(reg, "Screens", NULL);
    CHECK(n != NULL);
    if (n) {
        CHECK_INT((long long)n->ownedCount, 2); /* B, once per list */
        node_destroy(n, &stats);
    }
    cr_value *entries = cr_registry_entries(reg);
    int found = 0;
    for (size_t i = 0; entries && i < cr_value_count(entries); i++) {
        const cr_value *e = cr_list_at(entries, i);
        if (strcmp(cr_value_string(cr_map_get(e, "name")), "B") != 0) continue;
        found = 1;
        CHECK_STR(cr_value_string(cr_map_get(e, "description")), "from code");
        CHECK_INT((long long)cr_value_count(cr_map_get(e, "tags")), 2);
    }
    CHECK(found);
    cr_value_free(entries);
    cr_value_free(tags);
    cr_registry_free(reg);
}

/* A release callback run by cr_registry_free uses the registry being freed: every call on it is
 * refused with a typed error, none touches freed memory. */
typedef struct {
    cr_registry *reg;
    int free_code, create_code, load_code, register_code, child_null;
} using_freed;

static void *plain_create(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return malloc(1);
}

static void using_release(void *user_data) {
    using_freed *u = user_data;
    cr_clear_error();
    cr_registry_free(u->reg);
    u->free_code = cr_last_error_code();
    u->create_code = cr_registry_create(u->reg, "S", NULL) ? 0 : cr_last_error_code();
    u->load_code = cr_load_string(u->reg, "X: C", 4, CR_FORMAT_YAML);
    cr_class c = {.create = plain_create};
    u->register_code = cr_register_class(u->reg, "Z", &c, NULL);
    cr_registry *child = cr_registry_new_child(u->reg);
    u->child_null = child == NULL;
    cr_registry_free(child);
}

static void calls_on_a_registry_being_freed(void) {
    using_freed u = {0};
    u.reg = cr_registry_new();
    cr_class c = {.create = plain_create, .destroy = freeing_free, .release = using_release};
    CHECK_STATUS(cr_register_class(u.reg, "C", &c, &u), CR_OK);
    const char *yaml = "S: {ClassName: C, Lifestyle: singleton}";
    CHECK_STATUS(cr_load_string(u.reg, yaml, strlen(yaml), CR_FORMAT_YAML), CR_OK);
    CHECK(cr_registry_create(u.reg, "S", NULL) != NULL);
    cr_registry_free(u.reg);
    CHECK_INT(u.free_code, CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(u.create_code, CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(u.load_code, CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(u.register_code, CR_ERR_INVALID_ARGUMENT);
    CHECK(u.child_null);
}

/* An object value always holds an object: NULL is refused by every object setter, as a NULL string
 * is, with the fix named; nothing is set. */
static void null_objects_are_refused(void) {
    cr_value *map = cr_map_new();
    cr_value *list = cr_list_new();
    CHECK_STATUS(cr_map_set_object(map, "view", NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_object");
    CHECK_CONTAINS(cr_last_error_message(), "object is NULL");
    CHECK_CONTAINS(cr_last_error_message(), "use cr_map_set_null");
    CHECK_INT((long long)cr_value_count(map), 0);
    CHECK_STATUS(cr_list_push_object(list, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_list_push_object");
    CHECK_CONTAINS(cr_last_error_message(), "use cr_list_push_null");
    CHECK_INT((long long)cr_value_count(list), 0);
    int here = 0;
    CHECK_STATUS(cr_map_set_object(map, "view", &here), CR_OK);
    CHECK(cr_value_object(cr_map_get(map, "view")) == &here);
    CHECK_STATUS(cr_list_push_object(list, &here), CR_OK);
    CHECK_INT((long long)cr_value_count(list), 1);
    cr_value_free(map);
    cr_value_free(list);
}

/* A source name is shown in messages as name:line:column on one line: one holding a control
 * character (which could forge message lines) is refused, naming the byte and the fix. */
static void source_names_that_forge_lines(void) {
    cr_registry *reg = cr_registry_new();
    const char *yaml = "A: {ClassName: X, Dependencies: {a: Missing}}\n";
    const char *bad[] = {"a.yaml\nerror: forged", "tab\there", "bell\a", "del\x7f", "c1\xc2\x85", "ls\xe2\x80\xa8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_load_options o = CR_LOAD_OPTIONS_INIT;
        o.source_name = bad[i];
        CHECK_STATUS(cr_load_string_with(reg, yaml, strlen(yaml), &o), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "options->source_name");
        CHECK_CONTAINS(cr_last_error_message(), "control character U+");
        CHECK(strchr(cr_last_error_message(), '\n') == NULL);
    }
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.source_name = "a.yaml\nerror: forged";
    CHECK_STATUS(cr_load_string_with(reg, yaml, strlen(yaml), &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "U+000A at byte 6");
    /* Printable non-ASCII text is a name. */
    o.source_name = "écran.yaml";
    CHECK_STATUS(cr_load_string_with(reg, yaml, strlen(yaml), &o), CR_ERR_MISSING_REFERENCE);
    CHECK_CONTAINS(cr_last_error_message(), "écran.yaml:1:");
    cr_registry_free(reg);
}

/* A file's path may hold any byte but NUL, so one with a newline is loaded (and reloaded, by its
 * real path), but messages show such characters escaped (\u{A}): one line per problem. */
static void file_paths_that_would_forge_lines(void) {
    char dir[] = "/tmp/cr-edges-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/a.yaml\nerror: forged.yaml", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("A: {ClassName: X, Dependencies: {a: Missing}}\n", f);
    fclose(f);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_load_file(reg, path, CR_FORMAT_AUTO), CR_ERR_MISSING_REFERENCE);
    CHECK_CONTAINS(cr_last_error_message(), "a.yaml\\u{A}error: forged.yaml:1:");
    CHECK(strchr(cr_last_error_message(), '\n') == NULL);
    char missing[128];
    snprintf(missing, sizeof missing, "%s/no\nsuch.yaml", dir);
    CHECK_STATUS(cr_load_file(reg, missing, CR_FORMAT_AUTO), CR_ERR_IO);
    CHECK_CONTAINS(cr_last_error_message(), "no\\u{A}such.yaml");
    CHECK(strchr(cr_last_error_message(), '\n') == NULL);
    /* The file is read by its real path: fixed, it loads, and a reload reads it again. */
    f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("A: {ClassName: X}\n", f);
    fclose(f);
    CHECK_STATUS(cr_load_file(reg, path, CR_FORMAT_AUTO), CR_OK);
    CHECK_STATUS(cr_registry_reload(reg), CR_OK);
    remove(path);
    rmdir(dir);
    cr_registry_free(reg);
}

/* Names a config can never reference (${NAME}: [A-Za-z_][A-Za-z0-9_]*) are refused in a load's
 * environment map, naming the name and the rule; nothing is loaded. */
static void environment_names_that_cannot_be_referenced(void) {
    cr_registry *reg = cr_registry_new();
    const char *yaml = "A: {ClassName: X, Dependencies: {port: \"@${PORT}\"}}\n";
    const char *bad[] = {"1BAD", "", "A=B", "A-B", "A B", "é"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_value *env = cr_map_new();
        cr_map_set_string(env, "PORT", "80");
        cr_map_set_string(env, bad[i], "x");
        cr_load_options o = CR_LOAD_OPTIONS_INIT;
        o.environment = env;
        CHECK_STATUS(cr_load_string_with(reg, yaml, strlen(yaml), &o), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "environment: the variable name");
        CHECK_CONTAINS(cr_last_error_message(), "[A-Za-z_][A-Za-z0-9_]*");
        cr_value_free(env);
    }
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT((long long)cr_value_count(entries), 0); /* nothing was loaded */
    cr_value_free(entries);
    cr_value *env = cr_map_new();
    cr_map_set_string(env, "1BAD", "x");
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.environment = env;
    CHECK_STATUS(cr_load_string_with(reg, yaml, strlen(yaml), &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "\"1BAD\"");
    cr_value_free(env);
    env = cr_map_new();
    cr_map_set_string(env, "PORT", "80");
    cr_map_set_string(env, "_under9", "x");
    o.environment = env;
    CHECK_STATUS(cr_load_string_with(reg, yaml, strlen(yaml), &o), CR_OK);
    cr_value_free(env);
    cr_registry_free(reg);
}

/* XML 1.0: the XML declaration is the very first bytes; after whitespace (or a comment) it is
 * refused with its line:column. Binary plists: a bad version is placed at the version's bytes. */
static void plist_headers(void) {
    cr_registry *reg = cr_registry_new();
    const char *late = "\n  <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict/></plist>\n";
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.source_name = "late.plist";
    o.format = CR_FORMAT_PLIST;
    CHECK_STATUS(cr_load_string_with(reg, late, strlen(late), &o), CR_ERR_SYNTAX);
    CHECK_CONTAINS(cr_last_error_message(), "late.plist:2:3:");
    CHECK_CONTAINS(cr_last_error_message(), "very first bytes");
    const char *first = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict/></plist>\n";
    CHECK_STATUS(cr_load_string_with(reg, first, strlen(first), &o), CR_OK);
    /* A whole bplist (true, offset table, trailer) but for its version. */
    static const char version[] = "bplist01\x09\x08"
                                  "\x00\x00\x00\x00\x00\x00\x01\x01"
                                  "\x00\x00\x00\x00\x00\x00\x00\x01"
                                  "\x00\x00\x00\x00\x00\x00\x00\x00"
                                  "\x00\x00\x00\x00\x00\x00\x00\x09";
    o.source_name = "v.plist";
    CHECK_STATUS(cr_load_string_with(reg, version, sizeof version - 1, &o), CR_ERR_SYNTAX);
    CHECK_CONTAINS(cr_last_error_message(), "v.plist:byte 6:");
    const cr_problem *p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p) CHECK_INT(p->column, 6);
    cr_registry_free(reg);
}

void test_edges(void) {
    free_from_own_create();
    free_from_outermost_create();
    free_then_create_in_callback();
    free_from_destroy_during_free();
    free_other_registry_from_create();
    free_during_start();
    free_from_destroy_during_reload();
    take_object_once();
    take_object_with_owner();
    empty_source_name();
    replaced_singletons_are_destroyed();
    entry_options();
    calls_on_a_registry_being_freed();
    null_objects_are_refused();
    source_names_that_forge_lines();
    file_paths_that_would_forge_lines();
    environment_names_that_cannot_be_referenced();
    plist_headers();
}
