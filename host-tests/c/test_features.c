/* C tests of lifestyles, eager start, providers, injection, conventions, dynamic entries, child
 * registries, several files and limits, through the real libcontrollerreg.so. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An object that records the order in which objects of its class are destroyed. */
typedef struct {
    int magic;
    char name[32];
} Named;

static char destroy_order[256];
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;

static void *named_create(const cr_value *args, void *user_data) {
    (void)args;
    Named *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->magic = 0x4e4d;
    snprintf(n->name, sizeof n->name, "%s", (const char *)user_data);
    return n;
}

static void named_destroy(void *object, void *user_data) {
    (void)user_data;
    Named *n = object;
    pthread_mutex_lock(&order_lock);
    strncat(destroy_order, n->name, sizeof destroy_order - strlen(destroy_order) - 2);
    strcat(destroy_order, " ");
    pthread_mutex_unlock(&order_lock);
    free(n);
}

static void test_singletons(void) {
    host_stats nodes, svc;
    stats_init(&nodes);
    stats_init(&svc);
    cr_registry *reg = cr_registry_new();
    CHECK_INT(cr_register_class(reg, "Node", &node_class, &nodes), CR_OK);
    CHECK_INT(cr_register_class(reg, "Svc", &node_class, &svc), CR_OK);
    CHECK_INT(load_yaml(reg,
                        "Service: {ClassName: Svc, Lifestyle: singleton}\n"
                        "A: {ClassName: Node, Dependencies: {s: Service}}\n"),
              CR_OK);
    Node *a1 = cr_registry_create(reg, "A", NULL);
    Node *a2 = cr_registry_create(reg, "A", NULL);
    CHECK(a1 && a2);
    CHECK_INT(stats_get(&svc, &svc.creates), 1);
    CHECK_INT(a1->ownedCount, 0); /* the singleton was CR_OWNER_REGISTRY, so the node did not keep it */
    cr_owner owner = CR_OWNER_NONE;
    cr_create_options co = CR_CREATE_OPTIONS_INIT;
    co.owner = &owner;
    void *s1 = cr_registry_create_with(reg, "Service", &co);
    void *s2 = cr_registry_create(reg, "Service", NULL);
    CHECK(s1 != NULL && s1 == s2);
    CHECK_INT(owner, CR_OWNER_REGISTRY);
    cr_value *props = cr_map_new();
    cr_map_set_int(props, "x", 1);
    CHECK(cr_registry_create(reg, "Service", props) == NULL);
    CHECK_INT(cr_last_error_code(), CR_ERR_INVALID_ARGUMENT);
    cr_value_free(props);
    node_destroy(a1, &nodes);
    node_destroy(a2, &nodes);
    CHECK_INT(stats_get(&svc, &svc.destroys), 0);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&svc, &svc.destroys), 1);
    CHECK_INT(stats_get(&svc, &svc.releases), 1);

    /* Destroyed in reverse order of creation. */
    destroy_order[0] = 0;
    reg = cr_registry_new();
    cr_class named = {.create = named_create, .destroy = named_destroy};
    CHECK_INT(cr_register_class(reg, "First", &named, "first"), CR_OK);
    CHECK_INT(cr_register_class(reg, "Second", &named, "second"), CR_OK);
    CHECK_INT(cr_register_class(reg, "Third", &named, "third"), CR_OK);
    CHECK_INT(load_yaml(reg,
                        "One: {ClassName: First, Lifestyle: singleton}\n"
                        "Two: {ClassName: Second, Lifestyle: singleton, Dependencies: {one: One}}\n"
                        "Three: {ClassName: Third, Lifestyle: singleton}\n"),
              CR_OK);
    CHECK(cr_registry_create(reg, "Two", NULL) != NULL);
    CHECK(cr_registry_create(reg, "Three", NULL) != NULL);
    cr_registry_free(reg);
    CHECK_STR(destroy_order, "third second first ");
}

typedef struct {
    cr_registry *reg;
    void *result;
} race_arg;

static void *race_create(void *p) {
    race_arg *a = p;
    a->result = cr_registry_create(a->reg, "Slow", NULL);
    return NULL;
}

static void test_singleton_race(void) {
    int rounds = quick_mode() ? 3 : 30;
    for (int round = 0; round < rounds; round++) {
        host_stats s;
        stats_init(&s);
        cr_registry *reg = cr_registry_new();
        cr_register_class(reg, "SlowClass", &node_class, &s);
        load_yaml(reg, "Slow: {ClassName: SlowClass, Lifestyle: singleton}\n");
        pthread_t threads[8];
        race_arg args[8];
        for (int i = 0; i < 8; i++) {
            args[i].reg = reg;
            args[i].result = NULL;
            pthread_create(&threads[i], NULL, race_create, &args[i]);
        }
        for (int i = 0; i < 8; i++) pthread_join(threads[i], NULL);
        int same = 1;
        for (int i = 1; i < 8; i++) same &= args[i].result == args[0].result && args[i].result != NULL;
        CHECK(same);
        CHECK_INT(stats_get(&s, &s.creates), 1);
        cr_registry_free(reg);
        CHECK_INT(stats_get(&s, &s.destroys), 1);
    }
}

static void test_graph_lifestyle(void) {
    host_stats nodes, ctx;
    stats_init(&nodes);
    stats_init(&ctx);
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Node", &node_class, &nodes);
    cr_register_class(reg, "Ctx", &node_class, &ctx);
    CHECK_INT(load_yaml(reg,
                        "Top: {ClassName: Node, Dependencies: {left: Left, right: Right}}\n"
                        "Left: {ClassName: Node, Dependencies: {ctx: Context}}\n"
                        "Right: {ClassName: Node, Dependencies: {ctx: Context}}\n"
                        "Context: {ClassName: Ctx, Lifestyle: graph}\n"),
              CR_OK);
    Node *top = cr_registry_create(reg, "Top", NULL);
    CHECK(top != NULL && top->ownedCount == 2);
    CHECK_INT(stats_get(&ctx, &ctx.creates), 1);
    if (top && top->ownedCount == 2) {
        Node *left = top->owned[0], *right = top->owned[1];
        /* The first receiver owns the shared context; the second saw CR_OWNER_SHARED. */
        CHECK_INT(left->ownedCount + right->ownedCount, 1);
        node_destroy(top, &nodes);
    }
    CHECK_INT(stats_get(&ctx, &ctx.destroys), 1);
    cr_registry_free(reg);
}

static void test_eager_start(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Node", &node_class, &s);
    CHECK_INT(load_yaml(reg,
                        "Late: {ClassName: Node, Lifestyle: singleton, Eager: true, Dependencies: {db: Database}}\n"
                        "Database: {ClassName: Node, Lifestyle: singleton, Eager: true}\n"
                        "Lazy: {ClassName: Node, Lifestyle: singleton}\n"),
              CR_OK);
    CHECK_INT(cr_registry_start(reg), CR_OK);
    CHECK_INT(stats_get(&s, &s.creates), 2);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s, &s.destroys), 2);

    reg = cr_registry_new();
    CHECK_INT(load_yaml(reg, "Broken: {ClassName: Missing, Lifestyle: singleton, Eager: true}\n"), CR_OK);
    CHECK_INT(cr_registry_start(reg), CR_ERR_CLASS_NOT_REGISTERED);
    CHECK(strstr(cr_last_error_message(), "eager singleton 'Broken'") != NULL);
    CHECK_INT(load_yaml(reg, "T: {ClassName: Node, Eager: true}\n"), CR_ERR_SCHEMA);
    cr_registry_free(reg);
}

/* A screen that keeps the provider it receives. */
typedef struct {
    int magic;
    cr_provider *detail;
    int64_t id;
} Screen;

static void *screen_create(const cr_value *args, void *user_data) {
    (void)user_data;
    Screen *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->magic = 0x5c;
    const cr_value *p = cr_map_get(args, "detail");
    if (p && cr_value_kind(p) == CR_PROVIDER && cr_value_owner(p) == CR_OWNER_RECEIVER) s->detail = cr_value_provider(p);
    const cr_value *back = cr_map_get(args, "back");
    if (back && cr_value_kind(back) == CR_PROVIDER) cr_provider_free(cr_value_provider(back));
    const cr_value *id = cr_map_get(args, "id");
    s->id = id ? cr_value_int(id) : -1;
    return s;
}

static void screen_destroy(void *object, void *user_data) {
    (void)user_data;
    Screen *s = object;
    cr_provider_free(s->detail);
    free(s);
}

static const cr_class screen_class = {.create = screen_create, .destroy = screen_destroy};

static void test_providers(void) {
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "List", &screen_class, NULL);
    cr_register_class(reg, "Detail", &screen_class, NULL);
    CHECK_INT(load_yaml(reg,
                        "ListScreen: {ClassName: List, Dependencies: {detail: {Provider: DetailScreen}}}\n"
                        "DetailScreen: {ClassName: Detail, Dependencies: {back: {Provider: ListScreen}}}\n"),
              CR_OK);
    Screen *list = cr_registry_create(reg, "ListScreen", NULL);
    CHECK(list != NULL && list->detail != NULL);
    if (list && list->detail) {
        CHECK_STR(cr_provider_name(list->detail), "DetailScreen");
        cr_value *props = cr_map_new();
        cr_map_set_int(props, "id", 42);
        Screen *detail = cr_provider_create(list->detail, props); /* after the list's create returned */
        cr_value_free(props);
        CHECK(detail != NULL && detail->id == 42);
        if (detail) screen_destroy(detail, NULL);
    }
    if (list) screen_destroy(list, NULL);
    /* A provider of a singleton hands out the registry's object, and says so. */
    CHECK_INT(load_yaml(reg,
                        "Single: {ClassName: Detail, Lifestyle: singleton}\n"
                        "Holder: {ClassName: List, Dependencies: {detail: {Provider: Single}}}\n"),
              CR_OK);
    Screen *holder = cr_registry_create(reg, "Holder", NULL);
    CHECK(holder != NULL && holder->detail != NULL);
    if (holder && holder->detail) {
        cr_owner owner = CR_OWNER_NONE;
        cr_create_options co = CR_CREATE_OPTIONS_INIT;
        co.owner = &owner;
        void *single = cr_provider_create_with(holder->detail, &co);
        CHECK_INT(owner, CR_OWNER_REGISTRY);
        CHECK(single != NULL && single == cr_registry_create(reg, "Single", NULL));
    }
    if (holder) screen_destroy(holder, NULL);
    /* A direct cycle is still one. */
    CHECK_INT(load_yaml(reg, "Loop: {ClassName: List, Dependencies: {self: Loop}}\n"), CR_ERR_CYCLE);
    CHECK_INT(load_yaml(reg, "P: {ClassName: List, Dependencies: {p: {Provider: Nowhere}}}\n"), CR_ERR_MISSING_REFERENCE);
    /* A provider outliving its registry fails cleanly. */
    Screen *kept = cr_registry_create(reg, "ListScreen", NULL);
    cr_registry_free(reg);
    CHECK(kept != NULL);
    if (kept) {
        CHECK(cr_provider_create(kept->detail, NULL) == NULL);
        CHECK_INT(cr_last_error_code(), CR_ERR_INVALID_ARGUMENT);
        screen_destroy(kept, NULL);
    }
}

/* A storyboard-made view: it receives keys through set. */
typedef struct {
    char title[32];
    int64_t count;
    void *service;
    int sets;
} View;

static int view_set(void *object, const char *key, const cr_value *value, void *user_data) {
    (void)user_data;
    View *v = object;
    v->sets++;
    if (strcmp(key, "title") == 0)
        snprintf(v->title, sizeof v->title, "%s", cr_value_string(value));
    else if (strcmp(key, "count") == 0)
        v->count = cr_value_int(value);
    else if (strcmp(key, "service") == 0)
        v->service = cr_value_object(value);
    else {
        cr_report_error("unknown property");
        return 1;
    }
    return 0;
}

static void test_inject(void) {
    host_stats svc;
    stats_init(&svc);
    cr_registry *reg = cr_registry_new();
    cr_class view = {.create = named_create, .destroy = named_destroy, .set = view_set};
    cr_register_class(reg, "ViewClass", &view, "view");
    cr_register_class(reg, "Plain", &node_class, &svc);
    cr_register_class(reg, "Service", &node_class, &svc);
    CHECK_INT(load_yaml(reg,
                        "Home: {ClassName: ViewClass, Dependencies: {title: \"@Home\", count: 3, service: Svc}}\n"
                        "Broken: {ClassName: ViewClass, Dependencies: {title: \"@x\", bogus: 1, later: Svc}}\n"
                        "NoSet: {ClassName: Plain, Dependencies: {a: 1}}\n"
                        "Svc: Service\n"),
              CR_OK);
    View v = {{0}, 0, NULL, 0};
    CHECK_INT(cr_inject(reg, "Home", &v), CR_OK);
    CHECK_STR(v.title, "Home");
    CHECK_INT(v.count, 3);
    CHECK(v.service != NULL);
    if (v.service) node_destroy(v.service, &svc); /* the view owns what it received */
    View b = {{0}, 0, NULL, 0};
    CHECK_INT(cr_inject(reg, "Broken", &b), CR_ERR_CREATE_FAILED);
    /* The key, the class, the entry and where its config defines it, then the set's own reason. */
    CHECK_CONTAINS(cr_last_error_message(),
                   "cannot inject 'Broken': set of key 'bogus' of class 'ViewClass' for entry "
                   "'Broken' (defined at <string>:2:1) failed: ");
    CHECK(strstr(cr_last_error_message(), "unknown property") != NULL);
    CHECK_INT(b.sets, 2);
    CHECK_INT(stats_get(&svc, &svc.creates), 2);
    CHECK_INT(stats_get(&svc, &svc.destroys), 2); /* the Svc built for 'later' was destroyed */
    View n = {{0}, 0, NULL, 0};
    CHECK_INT(cr_inject(reg, "NoSet", &n), CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(cr_inject(reg, "Nope", &n), CR_ERR_NOT_FOUND);
    CHECK_INT(cr_inject(reg, "Home", NULL), CR_ERR_INVALID_ARGUMENT);
    cr_registry_free(reg);
}

static void test_conventions(void) {
    host_stats a, b, c;
    stats_init(&a);
    stats_init(&b);
    stats_init(&c);
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Car", &node_class, &a);
    cr_register_class(reg, "BikeViewController", &node_class, &b);
    cr_register_class(reg, "BikeController", &node_class, &c);
    CHECK_INT(cr_add_name_template(reg, "{name}ViewController"), CR_OK);
    CHECK_INT(cr_add_name_template(reg, "{name}Controller"), CR_OK);
    CHECK_INT(cr_add_name_template(reg, "NoPlaceholder"), CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(load_yaml(reg, "Car: BikeController\n"), CR_OK);
    Node *n = cr_registry_create(reg, "Car", NULL); /* the entry wins over the class of the same name */
    CHECK_INT(stats_get(&c, &c.creates), 1);
    if (n) node_destroy(n, &c);
    n = cr_registry_create(reg, "Bike", NULL); /* first template that names a class */
    CHECK_INT(stats_get(&b, &b.creates), 1);
    if (n) node_destroy(n, &b);
    cr_value *props = cr_map_new();
    cr_map_set_int(props, "k", 1);
    n = cr_registry_create(reg, "BikeController", props); /* exact class name, props as args */
    CHECK(n != NULL && n->argCount == 1);
    if (n) node_destroy(n, &c);
    cr_value_free(props);
    CHECK(cr_registry_create(reg, "Plane", NULL) == NULL);
    CHECK_INT(cr_last_error_code(), CR_ERR_NOT_FOUND);

    /* A template added again, here or in a child, keeps its first place and is named once. */
    CHECK_INT(cr_add_name_template(reg, "{name}ViewController"), CR_OK);
    cr_registry *child = cr_registry_new_child(reg);
    CHECK_INT(cr_add_name_template(child, "{name}Controller"), CR_OK);
    CHECK_INT(cr_add_name_template(child, "{name}Manager"), CR_OK);
    for (int i = 0; i < 2; i++) {
        CHECK((i ? cr_registry_create(child, "Plane", NULL) : cr_registry_create(reg, "Plane", NULL)) == NULL);
        CHECK_INT(cr_last_error_code(), CR_ERR_NOT_FOUND);
        const char *message = cr_last_error_message();
        const char *first = strstr(message, "'{name}ViewController'");
        CHECK(first != NULL && strstr(first + 1, "'{name}ViewController'") == NULL);
        first = strstr(message, "'{name}Controller'");
        CHECK(first != NULL && strstr(first + 1, "'{name}Controller'") == NULL);
        CHECK((strstr(message, "'{name}Manager'") != NULL) == (i == 1));
    }
    n = cr_registry_create(child, "Bike", NULL); /* still the parent's first template */
    CHECK_INT(stats_get(&b, &b.creates), 2);
    if (n) node_destroy(n, &b);
    cr_registry_free(child);
    cr_registry_free(reg);
}

static void test_dynamic_entries(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Node", &node_class, &s);
    CHECK_INT(cr_add_entry(reg, "B", "Node", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);
    cr_value *deps = cr_map_new();
    cr_map_set_string(deps, "b", "B");
    cr_map_set_string(deps, "text", "@literal");
    cr_value *list = cr_list_new();
    cr_list_push_string(list, "B");
    cr_list_push_int(list, 5);
    cr_map_set_value(deps, "items", list);
    CHECK_INT(cr_add_entry(reg, "A", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_OK);
    cr_value_free(deps);
    Node *a = cr_registry_create(reg, "A", NULL);
    CHECK(a != NULL && a->argCount == 3 && a->ownedCount == 2);
    if (a) node_destroy(a, &s);
    deps = cr_map_new();
    cr_map_set_string(deps, "x", "Nope");
    CHECK_INT(cr_add_entry(reg, "C", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_MISSING_REFERENCE);
    cr_map_set_object(deps, "x", &s);
    CHECK_INT(cr_add_entry(reg, "C", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_INVALID_ARGUMENT);
    cr_value_free(deps);
    CHECK_INT(cr_add_entry(reg, "A", "Node", CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_DUPLICATE);
    CHECK_INT(cr_remove_entry(reg, "B"), CR_ERR_MISSING_REFERENCE);
    CHECK(strstr(cr_last_error_message(), "entry 'A' refers to it") != NULL);

    cr_value *entries = cr_registry_entries(reg);
    CHECK(entries && cr_value_kind(entries) == CR_LIST && cr_value_count(entries) == 2);
    if (entries && cr_value_count(entries) == 2) {
        CHECK_STR(cr_value_string(cr_map_get(cr_list_at(entries, 0), "name")), "B");
        CHECK_STR(cr_value_string(cr_map_get(cr_list_at(entries, 1), "class")), "Node");
        CHECK_STR(cr_value_string(cr_map_get(cr_list_at(entries, 1), "lifestyle")), "transient");
    }
    cr_value_free(entries);
    CHECK_INT(cr_remove_entry(reg, "A"), CR_OK);
    CHECK_INT(cr_remove_entry(reg, "B"), CR_OK);
    CHECK_INT(cr_remove_entry(reg, "B"), CR_ERR_NOT_FOUND);
    entries = cr_registry_entries(reg);
    CHECK(entries && cr_value_count(entries) == 0);
    cr_value_free(entries);
    cr_registry_free(reg);
}

/* Entries added one cr_add_entry at a time (each its own validated change): a few thousand, each
 * referring to an earlier one, some singletons; every kind of failed add in the middle (missing
 * reference, duplicate, a cycle through the new entry, also one closed through an existing
 * entry's {Optional: X} or {Tagged: t}, a singleton keeping a graph object) changes nothing; then
 * every entry creates. Sized so that a registry rebuilt per add (quadratic) would take minutes
 * (no timing is asserted: see Benchmarks, c.cr.add_entry). */
static int entry_count(cr_registry *reg) {
    cr_value *entries = cr_registry_entries(reg);
    int n = entries ? (int)cr_value_count(entries) : -1;
    cr_value_free(entries);
    return n;
}

static void test_entries_added_one_by_one(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Node", &node_class, &s);
    const int total = quick_mode() ? 1500 : 6000;
    char name[32], parent[32], label[32];
    for (int i = 0; i < total; i++) {
        snprintf(name, sizeof name, "E%d", i);
        cr_value *deps = NULL;
        if (i > 0) {
            /* A parent at half the index: chains stay short (log2 of the count). */
            deps = cr_map_new();
            snprintf(parent, sizeof parent, "E%d", i / 2);
            snprintf(label, sizeof label, "@%d", i);
            cr_map_set_string(deps, "parent", parent);
            cr_map_set_string(deps, "label", label);
        }
        cr_lifestyle lifestyle = i % 10 == 0 ? CR_LIFESTYLE_SINGLETON : CR_LIFESTYLE_TRANSIENT;
        int status = cr_add_entry(reg, name, "Node", lifestyle, deps);
        cr_value_free(deps);
        if (status != CR_OK) {
            CHECK_INT(status, CR_OK);
            break;
        }
        if (i != total / 2) continue;

        /* Failed adds in the middle: each is refused with its code, and nothing changes. */
        const int before = entry_count(reg);
        CHECK_INT(before, i + 1);
        deps = cr_map_new();
        cr_map_set_string(deps, "x", "Nowhere");
        CHECK_STATUS(cr_add_entry(reg, "Bad", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_MISSING_REFERENCE);
        CHECK_CONTAINS(cr_last_error_message(), "'Nowhere'");
        cr_value_free(deps);
        CHECK_STATUS(cr_add_entry(reg, "E3", "Node", CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_DUPLICATE);
        CHECK_CONTAINS(cr_last_error_message(), "'E3' is already defined");
        deps = cr_map_new();
        cr_map_set_string(deps, "me", "Self");
        CHECK_STATUS(cr_add_entry(reg, "Self", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_CYCLE);
        CHECK_CONTAINS(cr_last_error_message(), "Self -> Self");
        cr_value_free(deps);
        /* A graph entry (added), then a singleton that would keep it. */
        deps = cr_map_new();
        cr_map_set_string(deps, "parent", "E1");
        CHECK_STATUS(cr_add_entry(reg, "Ctx", "Node", CR_LIFESTYLE_GRAPH, deps), CR_OK);
        cr_value_free(deps);
        deps = cr_map_new();
        cr_map_set_string(deps, "ctx", "Ctx");
        CHECK_STATUS(cr_add_entry(reg, "Holder", "Node", CR_LIFESTYLE_SINGLETON, deps), CR_ERR_LIFETIME);
        CHECK_CONTAINS(cr_last_error_message(), "singleton 'Holder' would keep graph object 'Ctx'");
        cr_value_free(deps);
        /* An existing entry's {Optional: Q} and {Tagged: t} reach a new entry: cycles through
         * them are found too. */
        deps = cr_map_new();
        cr_value *optional = cr_map_new();
        cr_map_set_string(optional, "Optional", "Q");
        cr_map_set_value(deps, "q", optional);
        cr_value *tagged = cr_map_new();
        cr_map_set_string(tagged, "Tagged", "t");
        cr_map_set_value(deps, "all", tagged);
        CHECK_STATUS(cr_add_entry(reg, "P", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_OK);
        cr_value_free(deps);
        deps = cr_map_new();
        cr_map_set_string(deps, "p", "P");
        CHECK_STATUS(cr_add_entry(reg, "Q", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_CYCLE);
        CHECK_CONTAINS(cr_last_error_message(), "P -> Q -> P");
        cr_entry_options o = CR_ENTRY_OPTIONS_INIT;
        o.dependencies = deps;
        cr_value *t = cr_list_new();
        cr_list_push_string(t, "t");
        o.tags = t;
        CHECK_STATUS(cr_add_entry_with(reg, "Member", "Node", &o), CR_ERR_CYCLE);
        CHECK_CONTAINS(cr_last_error_message(), "P -> Member -> P");
        cr_value_free(t);
        cr_value_free(deps);
        CHECK_INT(entry_count(reg), before + 2);
        const char *refused[] = {"Bad", "Self", "Holder", "Q", "Member"};
        for (size_t k = 0; k < sizeof refused / sizeof *refused; k++) {
            CHECK(cr_registry_create(reg, refused[k], NULL) == NULL);
            CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
        }
        /* E3 kept its definition (a parent and a label), not the refused one. */
        Node *e3 = cr_registry_create(reg, "E3", NULL);
        CHECK(e3 != NULL && e3->argCount == 2);
        if (e3) node_destroy(e3, &s);
        /* P's optional is still null and its tagged list empty: Q and Member do not exist. */
        Node *p = cr_registry_create(reg, "P", NULL);
        CHECK(p != NULL && p->ownedCount == 0);
        if (p) node_destroy(p, &s);
    }
    CHECK_INT(entry_count(reg), total + 2);
    for (int i = 0; i < total; i++) {
        snprintf(name, sizeof name, "E%d", i);
        Node *n = cr_registry_create(reg, name, NULL);
        if (!n || n->argCount != (i > 0 ? 2u : 0u)) {
            CHECK(n != NULL && n->argCount == (i > 0 ? 2u : 0u));
            break;
        }
        if (i % 10 != 0) node_destroy(n, &s);
    }
    cr_registry_free(reg);
}

static void test_child_registries(void) {
    host_stats screens, real, mock, cache;
    stats_init(&screens);
    stats_init(&real);
    stats_init(&mock);
    stats_init(&cache);
    cr_registry *app = cr_registry_new();
    cr_register_class(app, "Screen", &node_class, &screens);
    cr_register_class(app, "RealNet", &node_class, &real);
    cr_register_class(app, "Cache", &node_class, &cache);
    CHECK_INT(load_yaml(app,
                        "Home: {ClassName: Screen, Dependencies: {net: Network, cache: Shared}}\n"
                        "Network: RealNet\n"
                        "Shared: {ClassName: Cache, Lifestyle: singleton}\n"),
              CR_OK);
    cr_registry *test = cr_registry_new_child(app);
    CHECK(test != NULL);
    cr_register_class(test, "MockNet", &node_class, &mock);
    CHECK_INT(load_yaml(test, "Network: MockNet\n"), CR_OK);
    Node *h = cr_registry_create(test, "Home", NULL);
    CHECK_INT(stats_get(&mock, &mock.creates), 1);
    CHECK_INT(stats_get(&real, &real.creates), 0);
    if (h) node_destroy(h, &screens);
    h = cr_registry_create(app, "Home", NULL);
    CHECK_INT(stats_get(&real, &real.creates), 1);
    if (h) node_destroy(h, &screens);
    CHECK_INT(stats_get(&cache, &cache.creates), 1); /* one singleton, living in app */
    CHECK_INT(cr_remove_entry(test, "Home"), CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(cr_remove_entry(app, "Network"), CR_ERR_MISSING_REFERENCE);
    cr_registry_free(test);
    CHECK_INT(stats_get(&cache, &cache.destroys), 0); /* freeing the child leaves app's singleton */
    CHECK_INT(stats_get(&mock, &mock.releases), 1);
    h = cr_registry_create(app, "Home", NULL);
    CHECK(h != NULL);
    if (h) node_destroy(h, &screens);
    cr_registry_free(app);
    CHECK_INT(stats_get(&cache, &cache.destroys), 1);

    /* A child's own singleton is one object across every change of its parent that leaves it as it
     * was: an override of an entry it does not reach and a class registered on the parent compile
     * the child again, and must not build it a second time. One that reaches the overridden entry
     * is built again (it holds the old entry's object). */
    host_stats own;
    stats_init(&own);
    app = cr_registry_new();
    cr_register_class(app, "Screen", &node_class, &screens);
    cr_register_class(app, "Own", &node_class, &own);
    CHECK_INT(load_yaml(app, "Other: Screen\nUsed: Screen\n"), CR_OK);
    test = cr_registry_new_child(app);
    CHECK_INT(load_yaml(test,
                        "Mine: {ClassName: Own, Lifestyle: singleton}\n"
                        "Reaching: {ClassName: Own, Lifestyle: singleton, Dependencies: {used: Used}}\n"),
              CR_OK);
    void *mine = cr_registry_create(test, "Mine", NULL), *reaching = cr_registry_create(test, "Reaching", NULL);
    CHECK(mine != NULL && reaching != NULL);
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.format = CR_FORMAT_YAML;
    o.flags = CR_LOAD_OVERRIDE;
    CHECK_STATUS(cr_load_string_with(app, "Other: Own\n", 11, &o), CR_OK);
    CHECK(cr_registry_create(test, "Mine", NULL) == mine);
    CHECK(cr_registry_create(test, "Reaching", NULL) == reaching);
    CHECK_STATUS(cr_register_class(app, "Late", &node_class, &screens), CR_OK);
    CHECK(cr_registry_create(test, "Mine", NULL) == mine);
    CHECK_STATUS(cr_load_string_with(app, "Used: Own\n", 10, &o), CR_OK);
    CHECK(cr_registry_create(test, "Mine", NULL) == mine);
    CHECK(cr_registry_create(test, "Reaching", NULL) != reaching);
    CHECK_INT(stats_get(&own, &own.creates), 4); /* Mine, Reaching twice, Used's override inside it */
    cr_registry_free(test);
    cr_registry_free(app);
    CHECK_INT(stats_get(&own, &own.destroys), 4); /* each once: the kept old Reaching too */
}

static void test_several_files(void) {
    char dir[] = "/tmp/controllerreg-files-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.json", dir);
    FILE *f = fopen(a, "w");
    fputs("A: {ClassName: Node, Dependencies: {b: B}}\n", f);
    fclose(f);
    f = fopen(b, "w");
    fputs("{\"B\": {\"ClassName\": \"Node\", \"Dependencies\": {\"a2\": \"A2\"}}, \"A2\": \"Node\"}", f);
    fclose(f);
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Node", &node_class, &s);
    CHECK_INT(cr_load_file(reg, a, CR_FORMAT_AUTO), CR_ERR_MISSING_REFERENCE);
    const char *paths[] = {a, b};
    CHECK_INT(cr_load_files(reg, paths, 2, CR_FORMAT_AUTO), CR_OK);
    Node *n = cr_registry_create(reg, "A", NULL);
    CHECK(n != NULL && n->ownedCount == 1);
    if (n) node_destroy(n, &s);
    CHECK_INT(load_yaml(reg, "A2: Other\n"), CR_ERR_DUPLICATE);
    CHECK(strstr(cr_last_error_message(), "already defined at") != NULL);
    const char *override = "A2: {ClassName: Node, Tag: 2}\n";
    cr_load_options lo = CR_LOAD_OPTIONS_INIT;
    lo.format = CR_FORMAT_YAML;
    lo.flags = CR_LOAD_OVERRIDE;
    CHECK_INT(cr_load_string_with(reg, override, strlen(override), &lo), CR_OK);
    lo.flags = 99;
    CHECK_INT(cr_load_string_with(reg, override, strlen(override), &lo), CR_ERR_INVALID_ARGUMENT);
    cr_registry_free(reg);
    unlink(a);
    unlink(b);
    rmdir(dir);
}

static void test_limits(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_INT(cr_registry_get_limit(reg, CR_LIMIT_DEPTH), 128);
    CHECK_INT(cr_registry_set_limit(reg, CR_LIMIT_DEPTH, 3), CR_OK);
    CHECK_INT(load_yaml(reg, "A: {ClassName: N, Dependencies: {a: [[[1]]]}}\n"), CR_ERR_LIMIT);
    CHECK_INT(cr_registry_set_limit(reg, CR_LIMIT_ENTRIES, 1), CR_OK);
    CHECK_INT(load_yaml(reg, "A: N\nB: N\n"), CR_ERR_LIMIT);
    CHECK_INT(cr_registry_set_limit(reg, CR_LIMIT_CREATE_DEPTH, 0), CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(cr_registry_set_limit(reg, (cr_limit)99, 5), CR_ERR_INVALID_ARGUMENT);
    /* An unknown limit is shown as the host wrote it (-1, not 4294967295) with the ones known. */
    CHECK_INT(cr_registry_set_limit(reg, (cr_limit)-1, 5), CR_ERR_INVALID_ARGUMENT);
    CHECK(strstr(cr_last_error_message(),
                 "cr_registry_set_limit: unknown limit -1; use a cr_limit, CR_LIMIT_INPUT_BYTES (0) to "
                 "CR_LIMIT_CREATE_DEPTH (6)") != NULL);
    CHECK_INT(cr_registry_get_limit(reg, (cr_limit)7), -1);
    CHECK(strstr(cr_last_error_message(), "cr_registry_get_limit: unknown limit 7; use a cr_limit") != NULL);
    CHECK_INT(cr_registry_get_limit(NULL, CR_LIMIT_DEPTH), -1);
    cr_registry_free(reg);
}

/* What a Lit object saw: each string argument s0..s5 (copied with its length), n, d, t, the list
 * under l and the kind of the reference under ref. */
#define LIT_STRINGS 6
typedef struct {
    char *s[LIT_STRINGS];
    size_t len[LIT_STRINGS];
    int64_t n;
    double d;
    int t;
    size_t listCount;
    char *listFirst;
    int refKind;
} Lit;

static void lit_destroy(void *object, void *user_data) {
    (void)user_data;
    Lit *l = object;
    for (int i = 0; i < LIT_STRINGS; i++) free(l->s[i]);
    free(l->listFirst);
    free(l);
}

static char *lit_copy(const cr_value *v, size_t *length) {
    size_t n = cr_value_string_length(v);
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, cr_value_string(v), n);
        c[n] = 0;
    }
    if (length) *length = n;
    return c;
}

static void *lit_create(const cr_value *args, void *user_data) {
    (void)user_data;
    Lit *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    for (int i = 0; i < LIT_STRINGS; i++) {
        char key[4] = {'s', (char)('0' + i), 0, 0};
        const cr_value *v = cr_map_get(args, key);
        if (v && cr_value_kind(v) == CR_STRING) l->s[i] = lit_copy(v, &l->len[i]);
    }
    l->n = cr_value_int(cr_map_get(args, "n"));
    l->d = cr_value_double(cr_map_get(args, "d"));
    l->t = cr_value_bool(cr_map_get(args, "t"));
    const cr_value *list = cr_map_get(args, "l");
    l->listCount = cr_value_count(list);
    if (l->listCount > 0) l->listFirst = lit_copy(cr_list_at(list, 0), NULL);
    const cr_value *ref = cr_map_get(args, "ref");
    l->refKind = ref ? (int)cr_value_kind(ref) : -1;
    return l;
}

/* Compiled plans keep a string under 64 bytes in the slot itself and anything longer or nested
 * out of line: every literal reaches the class exactly, around that boundary too, from a file. */
static void test_literal_shapes(void) {
    static const size_t lengths[LIT_STRINGS] = {0, 1, 62, 63, 64, 200};
    char *strings[LIT_STRINGS];
    size_t room = 512;
    for (int i = 0; i < LIT_STRINGS; i++) {
        strings[i] = malloc(lengths[i] + 1);
        memset(strings[i], 'a' + i, lengths[i]);
        strings[i][lengths[i]] = 0;
        room += lengths[i] + 16;
    }
    char *yaml = malloc(room);
    int at = snprintf(yaml, room, "Leaf: Named\nL:\n  ClassName: Lit\n  Dependencies:\n");
    for (int i = 0; i < LIT_STRINGS; i++) at += snprintf(yaml + at, room - (size_t)at, "    s%d: \"@%s\"\n", i, strings[i]);
    snprintf(yaml + at, room - (size_t)at,
             "    n: -9223372036854775807\n    d: -0.125\n    t: true\n    l: [\"@in a list\", 2]\n    ref: Leaf\n");
    cr_registry *reg = cr_registry_new();
    cr_class lit = {.create = lit_create, .destroy = lit_destroy};
    cr_class named = {.create = named_create, .destroy = named_destroy};
    CHECK_STATUS(cr_register_class(reg, "Lit", &lit, NULL), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Named", &named, "leaf"), CR_OK);
    CHECK_STATUS(cr_load_string(reg, yaml, strlen(yaml), CR_FORMAT_YAML), CR_OK);
    for (int round = 0; round < 2; round++) {
        Lit *l = cr_registry_create(reg, "L", NULL);
        CHECK(l != NULL);
        if (!l) break;
        for (int i = 0; i < LIT_STRINGS; i++) {
            CHECK_INT((long long)l->len[i], (long long)lengths[i]);
            CHECK(l->s[i] != NULL && strcmp(l->s[i], strings[i]) == 0);
        }
        CHECK(l->n == -9223372036854775807LL);
        CHECK(l->d == -0.125);
        CHECK_INT(l->t, 1);
        CHECK_INT((long long)l->listCount, 2);
        CHECK(l->listFirst != NULL && strcmp(l->listFirst, "in a list") == 0);
        CHECK_INT(l->refKind, CR_OBJECT);
        lit_destroy(l, NULL);
    }
    cr_registry_free(reg);
    for (int i = 0; i < LIT_STRINGS; i++) free(strings[i]);
    free(yaml);
}

/* Entries removed one cr_remove_entry at a time (each its own validated change) from a registry
 * loaded as one config, with a child registry: every removal takes the entry from both views and
 * destroys its singleton; removing an entry the child refers to, or one others refer to, is
 * refused and changes nothing; a removed name can be added again; an entry with {Optional: X}
 * follows X's removal; a reload rebuilds what is left. Sized so that a registry rebuilt per
 * removal (quadratic) would take minutes (no timing is asserted: see Benchmarks,
 * c.cr.remove_entry). */
static void test_entries_removed_one_by_one(void) {
    host_stats s, single;
    stats_init(&s);
    stats_init(&single);
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Node", &node_class, &s);
    cr_register_class(reg, "Single", &node_class, &single);
    const int total = quick_mode() ? 600 : 4000;
    size_t cap = (size_t)total * 64 + 256, len = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text) return;
    len += (size_t)snprintf(text + len, cap - len, "Base: Node\nOpt: {ClassName: Node, Dependencies: {o: {Optional: E1}}}\n");
    int singletons = 0;
    for (int i = 0; i < total; i++) {
        if (i % 10 == 0) {
            len += (size_t)snprintf(text + len, cap - len, "E%d: {ClassName: Single, Lifestyle: singleton}\n", i);
            singletons++;
        } else {
            len += (size_t)snprintf(text + len, cap - len, "E%d: {ClassName: Node, Dependencies: {base: Base}}\n", i);
        }
    }
    CHECK_STATUS(load_text(reg, text, CR_FORMAT_YAML), CR_OK);
    free(text);
    cr_registry *child = cr_registry_new_child(reg);
    CHECK(child != NULL);
    char name[32], own[96];
    snprintf(own, sizeof own, "Own: {ClassName: Node, Dependencies: {e: E%d}}\n", total - 1);
    CHECK_STATUS(load_yaml(child, own), CR_OK);
    /* Every singleton built before its entry is removed. */
    for (int i = 0; i < total; i += 10) {
        snprintf(name, sizeof name, "E%d", i);
        CHECK(cr_registry_create(reg, name, NULL) != NULL);
    }
    CHECK_INT(stats_get(&single, &single.creates), singletons);

    int bad = 0;
    for (int i = 0; i < total - 1; i++) {
        snprintf(name, sizeof name, "E%d", i);
        int status = cr_remove_entry(reg, name);
        if (status != CR_OK && bad++ < 5) CHECK_STATUS(status, CR_OK);
        if (i % 50 != 1) continue;
        /* Gone from both views; the next one still whole in both. */
        for (int view = 0; view < 2; view++) {
            cr_registry *r = view == 0 ? reg : child;
            if (cr_registry_create(r, name, NULL) != NULL || cr_last_error_code() != CR_ERR_NOT_FOUND) {
                if (bad++ < 5) CHECK_INT(cr_last_error_code(), CR_ERR_NOT_FOUND);
            }
            char next[32];
            snprintf(next, sizeof next, "E%d", i + 1);
            Node *e = cr_registry_create(r, next, NULL);
            int whole = e && e->magic == NODE_MAGIC && ((i + 1) % 10 == 0 || (e->argCount == 1 && e->ownedCount == 1));
            if (!whole && bad++ < 5) CHECK(whole);
            if (e && (i + 1) % 10 != 0) node_destroy(e, &s);
        }
        /* {Optional: E1} follows E1's removal (the first time round). */
        Node *opt = cr_registry_create(child, "Opt", NULL);
        CHECK(opt != NULL && opt->argCount == 1 && opt->ownedCount == 0);
        if (opt) node_destroy(opt, &s);
        /* A removed name can be defined again, and removed again. */
        CHECK_STATUS(cr_add_entry(reg, name, "Node", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);
        Node *again = cr_registry_create(child, name, NULL);
        CHECK(again != NULL && again->argCount == 0);
        if (again) node_destroy(again, &s);
        CHECK_STATUS(cr_remove_entry(reg, name), CR_OK);
    }
    CHECK_INT(bad, 0);
    /* Refused removals change nothing. */
    snprintf(name, sizeof name, "E%d", total - 1);
    CHECK_STATUS(cr_remove_entry(reg, name), CR_ERR_MISSING_REFERENCE);
    CHECK_CONTAINS(cr_last_error_message(), "child registry");
    CHECK_CONTAINS(cr_last_error_message(), "entry 'Own' refers to it");
    CHECK_STATUS(cr_remove_entry(reg, "Base"), CR_ERR_MISSING_REFERENCE);
    CHECK_CONTAINS(cr_last_error_message(), "refers to it");
    CHECK_STATUS(cr_remove_entry(reg, "E0"), CR_ERR_NOT_FOUND);
    /* Every removed singleton was destroyed (the last entry is not a singleton). */
    CHECK_INT(stats_get(&single, &single.destroys), singletons);
    CHECK_INT(entry_count(reg), 3);
    CHECK_INT(entry_count(child), 4);
    Node *o = cr_registry_create(child, "Own", NULL);
    CHECK(o != NULL && o->ownedCount == 1);
    if (o) node_destroy(o, &s);
    /* A reload gives what is left again. */
    CHECK_STATUS(cr_registry_reload(reg), CR_OK);
    CHECK_INT(entry_count(reg), 3);
    CHECK_INT(entry_count(child), 4);
    CHECK(cr_registry_create(reg, "E5", NULL) == NULL && cr_last_error_code() == CR_ERR_NOT_FOUND);
    o = cr_registry_create(child, "Own", NULL);
    CHECK(o != NULL && o->ownedCount == 1);
    if (o) node_destroy(o, &s);
    cr_registry_free(child);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&single, &single.destroys), singletons);
}

void test_features(void) {
    test_singletons();
    test_singleton_race();
    test_graph_lifestyle();
    test_eager_start();
    test_providers();
    test_inject();
    test_conventions();
    test_dynamic_entries();
    test_entries_added_one_by_one();
    test_entries_removed_one_by_one();
    test_child_registries();
    test_several_files();
    test_limits();
    test_literal_shapes();
}
