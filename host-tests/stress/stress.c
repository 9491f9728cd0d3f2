/* Concurrency stress for controllerreg, meant to run under ThreadSanitizer (scripts/sanitize.sh
 * thread) but useful on its own: for SECONDS (default 20) seconds, threads at once
 *   - create entries of every lifestyle (transient, singleton, graph, with providers) on the root,
 *   - load and remove configs, and override existing entries (CR_LOAD_OVERRIDE),
 *   - register new classes, replace a class in use, add and remove entries from code,
 *   - make child registries, load into them, create through them and free them,
 * and at the end every object made has been destroyed exactly once (live count 0), every class's
 * user_data released once. Exit status 0 when all checks held.
 *
 *   stress [SECONDS] */
#define _POSIX_C_SOURCE 200809L
#include <controllerreg.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAGIC 0x57E55u

static atomic_long live_objects, made_objects, failures, releases_due, releases_done;
static atomic_int stop;

/* An object owns the CR_OWNER_RECEIVER objects it was given and destroys them with itself. */
typedef struct object {
    unsigned magic;
    int version;
    size_t nkids;
    struct object *kids[16];
} object;

static void fail(const char *what, const char *detail) {
    if (atomic_fetch_add(&failures, 1) < 10) fprintf(stderr, "stress: %s: %s\n", what, detail ? detail : "");
}

static void object_destroy(void *o, void *user_data) {
    (void)user_data;
    object *ob = o;
    if (!ob || ob->magic != MAGIC) {
        fail("destroy of a bad object", NULL);
        return;
    }
    ob->magic = 0;
    for (size_t i = 0; i < ob->nkids; i++) object_destroy(ob->kids[i], NULL);
    free(ob);
    atomic_fetch_sub(&live_objects, 1);
}

/* Checks every object in args is alive; with `into`, adopts the RECEIVER ones and frees providers. */
static void walk(const cr_value *v, object *into) {
    switch (cr_value_kind(v)) {
    case CR_OBJECT: {
        cr_owner owner = cr_value_owner(v);
        if (owner == CR_OWNER_CALLER) break;
        object *o = cr_value_object(v);
        if (!o || o->magic != MAGIC) {
            fail("dead object in args", NULL);
            break;
        }
        if (into && owner == CR_OWNER_RECEIVER) {
            if (into->nkids < 16)
                into->kids[into->nkids++] = o;
            else
                fail("too many objects", NULL);
        }
        break;
    }
    case CR_PROVIDER:
        if (into) {
            cr_provider *p = cr_value_provider(v);
            /* Use it once (its entry may be gone by now: then it fails cleanly), then free it. */
            cr_owner owner = CR_OWNER_NONE;
            cr_create_options co = CR_CREATE_OPTIONS_INIT;
            co.owner = &owner;
            void *made = cr_provider_create_with(p, &co);
            if (made && owner == CR_OWNER_RECEIVER)
                object_destroy(made, NULL);
            else if (made && owner != CR_OWNER_REGISTRY)
                fail("provider owner", NULL);
            cr_provider_free(p);
        }
        break;
    case CR_LIST:
        for (size_t i = 0; i < cr_value_count(v); i++) walk(cr_list_at(v, i), into);
        break;
    case CR_MAP:
        for (size_t i = 0; i < cr_value_count(v); i++) walk(cr_map_value_at(v, i), into);
        break;
    default: break;
    }
}

static void *object_create(const cr_value *args, void *user_data) {
    if (cr_value_kind(args) != CR_MAP) fail("args not a map", NULL);
    walk(args, NULL);
    object *o = calloc(1, sizeof *o);
    o->magic = MAGIC;
    o->version = (int)(intptr_t)user_data;
    walk(args, o);
    atomic_fetch_add(&live_objects, 1);
    atomic_fetch_add(&made_objects, 1);
    return o;
}

static void counted_release(void *user_data) {
    (void)user_data;
    atomic_fetch_add(&releases_done, 1);
}

static const cr_class object_class = {.create = object_create, .destroy = object_destroy};
static const cr_class released_class = {.create = object_create, .destroy = object_destroy, .release = counted_release};

static cr_registry *root;

static const char base_config[] =
    "Single: {ClassName: Obj, Lifestyle: singleton}\n"
    "Shared: {ClassName: Obj, Lifestyle: graph}\n"
    "Leaf: Obj\n"
    "Mid: {ClassName: Obj, Dependencies: {leaf: Leaf, s: Single, g: Shared, g2: Shared, l: [Leaf, \"@x\", 3]}}\n"
    "Top: {ClassName: Swappable, Dependencies: {mid: Mid, p: {Provider: Leaf}, m: {a: Mid, b: Shared}}}\n";

static const char *const base_names[] = {"Single", "Shared", "Leaf", "Mid", "Top"};

static void create_and_drop(cr_registry *reg, const char *name, int may_fail) {
    cr_owner owner = CR_OWNER_NONE;
    cr_create_options co = CR_CREATE_OPTIONS_INIT;
    co.owner = &owner;
    void *o = cr_registry_create_with(reg, name, &co);
    if (!o) {
        if (!may_fail) fail(name, cr_last_error_message());
        return;
    }
    if (owner == CR_OWNER_RECEIVER)
        object_destroy(o, NULL);
    else if (owner != CR_OWNER_REGISTRY)
        fail("bad owner", name);
}

static void *creator(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    while (!atomic_load(&stop)) {
        create_and_drop(root, base_names[rand_r(&seed) % 5], 0);
        char name[32];
        snprintf(name, sizeof name, "Dyn%u", rand_r(&seed) % 8);
        create_and_drop(root, name, 1); /* loaded and removed by others: may be missing */
        snprintf(name, sizeof name, "Code%u", rand_r(&seed) % 8);
        create_and_drop(root, name, 1);
    }
    return NULL;
}

static void *loader(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    char text[256];
    while (!atomic_load(&stop)) {
        unsigned i = rand_r(&seed) % 8;
        snprintf(text, sizeof text, "Dyn%u: {ClassName: Obj, Dependencies: {top: Top, mid: Mid}}\n", i);
        int rc = cr_load_string(root, text, strlen(text), CR_FORMAT_YAML);
        if (rc != CR_OK && rc != CR_ERR_DUPLICATE) fail("load", cr_last_error_message());
        /* Override a base entry with an equivalent definition while others create it. */
        static const char over[] = "Leaf: {ClassName: Obj, Description: overridden}\n";
        cr_load_options lo = CR_LOAD_OPTIONS_INIT;
        lo.format = CR_FORMAT_YAML;
        lo.flags = CR_LOAD_OVERRIDE;
        if (cr_load_string_with(root, over, sizeof over - 1, &lo) != CR_OK) fail("override", cr_last_error_message());
        snprintf(text, sizeof text, "Dyn%u", rand_r(&seed) % 8);
        rc = cr_remove_entry(root, text);
        if (rc != CR_OK && rc != CR_ERR_NOT_FOUND) fail("remove", cr_last_error_message());
        /* A broken load changes nothing. */
        static const char bad[] = "Bad: {ClassName: Obj, Dependencies: {x: Nope}}\n";
        if (cr_load_string(root, bad, sizeof bad - 1, CR_FORMAT_YAML) != CR_ERR_MISSING_REFERENCE)
            fail("broken load", cr_last_error_message());
    }
    return NULL;
}

static void *registrar(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    int version = 1;
    unsigned k = 0;
    while (!atomic_load(&stop)) {
        /* Replace the class Top is built from while creates use it. */
        atomic_fetch_add(&releases_due, 1);
        if (cr_replace_class(root, "Swappable", &released_class, (void *)(intptr_t)(++version)) != CR_OK)
            fail("replace", cr_last_error_message());
        /* New classes, and entries from code that use them. */
        char cls[32], name[32];
        snprintf(cls, sizeof cls, "New%u", k++);
        atomic_fetch_add(&releases_due, 1);
        if (cr_register_class(root, cls, &released_class, NULL) != CR_OK) fail("register", cr_last_error_message());
        snprintf(name, sizeof name, "Code%u", rand_r(&seed) % 8);
        cr_value *deps = cr_map_new();
        cr_map_set_string(deps, "mid", "Mid");
        cr_map_set_string(deps, "lit", "@text");
        int rc = cr_add_entry(root, name, cls, CR_LIFESTYLE_TRANSIENT, deps);
        if (rc != CR_OK && rc != CR_ERR_DUPLICATE) fail("add entry", cr_last_error_message());
        cr_value_free(deps);
        snprintf(name, sizeof name, "Code%u", rand_r(&seed) % 8);
        rc = cr_remove_entry(root, name);
        if (rc != CR_OK && rc != CR_ERR_NOT_FOUND) fail("remove code entry", cr_last_error_message());
    }
    return NULL;
}

static void *childish(void *arg) {
    (void)arg;
    /* The child overrides Leaf as a singleton (so Top's provider of Leaf made through the child
     * gives a registry-owned object) and adds its own singleton. */
    static const char over[] = "Leaf: {ClassName: Obj, Lifestyle: singleton}\nOwnSingle: {ClassName: Obj, Lifestyle: singleton}\n"
                               "Own: {ClassName: Obj, Dependencies: {top: Top, s: OwnSingle, g: Shared}}\n";
    while (!atomic_load(&stop)) {
        cr_registry *child = cr_registry_new_child(root);
        if (!child) {
            fail("child", cr_last_error_message());
            continue;
        }
        if (cr_load_string(child, over, sizeof over - 1, CR_FORMAT_YAML) != CR_OK) fail("child load", cr_last_error_message());
        for (int i = 0; i < 20; i++) {
            create_and_drop(child, "Own", 0);
            create_and_drop(child, base_names[i % 5], 0);
        }
        cr_registry_free(child);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 20;
    root = cr_registry_new();
    if (cr_register_class(root, "Obj", &object_class, NULL) != CR_OK ||
        cr_register_class(root, "Swappable", &released_class, (void *)(intptr_t)1) != CR_OK ||
        cr_load_string(root, base_config, sizeof base_config - 1, CR_FORMAT_YAML) != CR_OK) {
        fprintf(stderr, "stress: setup failed: %s\n", cr_last_error_message());
        return 1;
    }
    atomic_fetch_add(&releases_due, 1); /* the first Swappable */
    void *(*roles[])(void *) = {creator, creator, creator, loader, registrar, childish, childish};
    enum { N = sizeof roles / sizeof roles[0] };
    pthread_t threads[N];
    for (int i = 0; i < N; i++) pthread_create(&threads[i], NULL, roles[i], (void *)(uintptr_t)(i + 1));
    struct timespec t = {.tv_sec = seconds, .tv_nsec = 0};
    nanosleep(&t, NULL);
    atomic_store(&stop, 1);
    for (int i = 0; i < N; i++) pthread_join(threads[i], NULL);
    cr_registry_free(root);
    long live = atomic_load(&live_objects);
    printf("stress: %ds, %ld objects made, %ld still alive, %ld/%ld class releases, %ld failures\n", seconds,
           atomic_load(&made_objects), live, atomic_load(&releases_done), atomic_load(&releases_due), atomic_load(&failures));
    return live == 0 && atomic_load(&failures) == 0 && atomic_load(&releases_done) == atomic_load(&releases_due) ? 0 : 1;
}
