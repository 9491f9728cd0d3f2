/* Re-entrant host callbacks: creates that wait on each other across threads, release callbacks that
 * call back into the registry, and creates nested inside create callbacks. Each case that used to
 * hang runs under a watchdog, so a regression fails the test instead of hanging it. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* --- Watchdog: a case that deadlocks fails the run after WATCHDOG_SECONDS instead of hanging. --- */

#ifndef WATCHDOG_SECONDS
#define WATCHDOG_SECONDS 120
#endif
static const char *watched_case = "";

static void watchdog_fired(int sig) {
    (void)sig;
    static const char prefix[] = "FAIL: deadlock (no progress within the watchdog) in ";
    ssize_t ignored = write(2, prefix, sizeof prefix - 1);
    ignored = write(2, watched_case, strlen(watched_case));
    ignored = write(2, "\n", 1);
    (void)ignored;
    _exit(1);
}

static void watchdog_start(const char *name) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = watchdog_fired;
    sigaction(SIGALRM, &sa, NULL);
    watched_case = name;
    alarm(WATCHDOG_SECONDS);
}

static void watchdog_stop(void) { alarm(0); }

/* --- 1. Singletons that ask for each other from two threads at once ----------------------------- */

/* A two-party rendezvous (no timing): both builders hold their singleton before either asks. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int arrived;
} rendezvous;

static void rendezvous_meet(rendezvous *r) {
    pthread_mutex_lock(&r->lock);
    r->arrived++;
    pthread_cond_broadcast(&r->cond);
    while (r->arrived < 2) pthread_cond_wait(&r->cond, &r->lock);
    pthread_mutex_unlock(&r->lock);
}

typedef struct {
    cr_registry *reg;
    rendezvous meet;
    pthread_mutex_t lock;
    int first_calls;  /* builders that have met already */
    int cycles;       /* nested creates that failed with CR_ERR_CYCLE */
    int other_errors; /* neither the cycle nor a create that failed because of it */
    char message[1024];
} pair_state;

typedef struct {
    pair_state *state;
    const char *other; /* the singleton this class's create asks for */
} pair_class;

static void *pair_create(const cr_value *args, void *user_data) {
    (void)args;
    pair_class *c = user_data;
    pair_state *s = c->state;
    pthread_mutex_lock(&s->lock);
    int meet = s->first_calls < 2;
    if (meet) s->first_calls++;
    pthread_mutex_unlock(&s->lock);
    if (meet) rendezvous_meet(&s->meet); /* both threads now build their own singleton */
    void *other = cr_registry_create(s->reg, c->other, NULL);
    if (other) return malloc(1);
    pthread_mutex_lock(&s->lock);
    if (cr_last_error_code() == CR_ERR_CYCLE) {
        if (s->cycles++ == 0) snprintf(s->message, sizeof s->message, "%s", cr_last_error_message());
    } else if (cr_last_error_code() != CR_ERR_CREATE_FAILED) { /* the other's callback failed in turn */
        s->other_errors++;
    }
    pthread_mutex_unlock(&s->lock);
    cr_report_error(cr_last_error_message());
    return NULL;
}

static void pair_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

typedef struct {
    cr_registry *reg;
    const char *name;
    void *result;
    int code;
} asker;

static void *ask(void *arg) {
    asker *a = arg;
    a->result = cr_registry_create(a->reg, a->name, NULL);
    a->code = a->result ? CR_OK : cr_last_error_code();
    return NULL;
}

static void singletons_waiting_on_each_other(void) {
    watchdog_start("singletons_waiting_on_each_other");
    pair_state s;
    memset(&s, 0, sizeof s);
    pthread_mutex_init(&s.lock, NULL);
    pthread_mutex_init(&s.meet.lock, NULL);
    pthread_cond_init(&s.meet.cond, NULL);
    s.reg = cr_registry_new();
    pair_class a = {&s, "B"}, b = {&s, "A"};
    cr_class cls = {.create = pair_create, .destroy = pair_destroy};
    CHECK_STATUS(cr_register_class(s.reg, "ClassA", &cls, &a), CR_OK);
    CHECK_STATUS(cr_register_class(s.reg, "ClassB", &cls, &b), CR_OK);
    CHECK_STATUS(load_yaml(s.reg, "A: {ClassName: ClassA, Lifestyle: singleton}\nB: {ClassName: ClassB, Lifestyle: singleton}\n"),
                 CR_OK);
    asker one = {s.reg, "A", NULL, -1}, two = {s.reg, "B", NULL, -1};
    pthread_t t1, t2;
    CHECK_INT(pthread_create(&t1, NULL, ask, &one), 0);
    CHECK_INT(pthread_create(&t2, NULL, ask, &two), 0);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    /* Neither can be built (each needs the other), and neither thread waited forever. */
    CHECK(one.result == NULL);
    CHECK(two.result == NULL);
    CHECK(one.code != CR_OK && two.code != CR_OK);
    CHECK(s.cycles >= 1);
    CHECK_INT(s.other_errors, 0);
    CHECK(strstr(s.message, "A -> B -> A") != NULL || strstr(s.message, "B -> A -> B") != NULL);
    CHECK_CONTAINS(s.message, "across threads");
    /* Afterwards a single thread still gets the plain cycle error, and the registry works. */
    CHECK(cr_registry_create(s.reg, "A", NULL) == NULL);
    CHECK_INT(s.other_errors, 0);
    cr_registry_free(s.reg);
    watchdog_stop();
}

/* --- 2. Release callbacks that call back into the registry ------------------------------------ */

typedef struct {
    cr_registry *reg;
    int releases;
    int register_status;
    int load_status;
    const char *class_name; /* registered by the release */
    const char *config;     /* loaded by the release */
} reentering_release;

static void *plain_create(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return malloc(1);
}

static void plain_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static const cr_class plain_class = {.create = plain_create, .destroy = plain_destroy};

static void release_reentering(void *user_data) {
    reentering_release *r = user_data;
    r->releases++;
    r->register_status = cr_register_class(r->reg, r->class_name, &plain_class, NULL);
    r->load_status = load_yaml(r->reg, r->config);
}

/* cr_replace_class drops the old class at once (no create in flight): its release runs after the
 * writer lock is dropped, so it can register and load. */
static void release_inside_replace(void) {
    watchdog_start("release_inside_replace");
    cr_registry *reg = cr_registry_new();
    reentering_release r = {reg, 0, -1, -1, "FromRelease", "Made: FromRelease\n"};
    cr_class old = {.create = plain_create, .destroy = plain_destroy, .release = release_reentering};
    CHECK_STATUS(cr_register_class(reg, "Swapped", &old, &r), CR_OK);
    CHECK_STATUS(cr_replace_class(reg, "Swapped", &plain_class, NULL), CR_OK);
    CHECK_INT(r.releases, 1);
    CHECK_INT(r.register_status, CR_OK);
    CHECK_INT(r.load_status, CR_OK);
    void *made = cr_registry_create(reg, "Made", NULL);
    CHECK(made != NULL);
    free(made);
    cr_registry_free(reg);
    CHECK_INT(r.releases, 1);
    watchdog_stop();
}

/* A class replaced while a create is in flight stays alive until no create can see it; its release
 * then runs inside a later, unrelated load, again after that load's lock is dropped. */
typedef struct {
    cr_registry *reg;
    int replace_status;
} replacing_state;

static void *replacing_create(const cr_value *args, void *user_data) {
    (void)args;
    replacing_state *s = user_data;
    s->replace_status = cr_replace_class(s->reg, "Replaced", &plain_class, NULL);
    return malloc(1);
}

static void release_inside_later_load(void) {
    watchdog_start("release_inside_later_load");
    cr_registry *reg = cr_registry_new();
    reentering_release r = {reg, 0, -1, -1, "Later", "FromLater: Later\n"};
    replacing_state s = {reg, -1};
    cr_class replaced = {.create = plain_create, .destroy = plain_destroy, .release = release_reentering};
    cr_class replacing = {.create = replacing_create, .destroy = plain_destroy};
    CHECK_STATUS(cr_register_class(reg, "Replaced", &replaced, &r), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Replacing", &replacing, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg, "Go: Replacing\n"), CR_OK);
    void *go = cr_registry_create(reg, "Go", NULL);
    CHECK(go != NULL);
    free(go);
    CHECK_INT(s.replace_status, CR_OK);
    CHECK_INT(r.releases, 0); /* the create that replaced it could still see it */
    CHECK_STATUS(load_yaml(reg, "Unrelated: Replacing\n"), CR_OK);
    CHECK_INT(r.releases, 1);
    CHECK_INT(r.register_status, CR_OK);
    CHECK_INT(r.load_status, CR_OK);
    void *later = cr_registry_create(reg, "FromLater", NULL);
    CHECK(later != NULL);
    free(later);
    cr_registry_free(reg);
    CHECK_INT(r.releases, 1);
    watchdog_stop();
}

/* cr_registry_free releases every class; a release may use another registry. */
static void release_inside_free(void) {
    watchdog_start("release_inside_free");
    cr_registry *other = cr_registry_new();
    cr_registry *reg = cr_registry_new();
    reentering_release r = {other, 0, -1, -1, "FromFree", "FromFree: FromFree\n"};
    cr_class cls = {.create = plain_create, .destroy = plain_destroy, .release = release_reentering};
    CHECK_STATUS(cr_register_class(reg, "Released", &cls, &r), CR_OK);
    cr_registry_free(reg);
    CHECK_INT(r.releases, 1);
    CHECK_INT(r.register_status, CR_OK);
    CHECK_INT(r.load_status, CR_OK);
    cr_registry_free(other);
    watchdog_stop();
}

/* --- 3. Creates nested inside create callbacks count toward the depth and stack bound ---------- */

typedef struct {
    cr_registry *reg;
    pthread_mutex_t lock;
    int calls; /* create callbacks entered */
    int limit_errors;
    int other_errors;
    int use_provider;
} nest_state;

static void record_nested_failure(nest_state *s) {
    pthread_mutex_lock(&s->lock);
    if (cr_last_error_code() == CR_ERR_LIMIT)
        s->limit_errors++;
    else if (cr_last_error_code() != CR_ERR_CREATE_FAILED)
        s->other_errors++;
    pthread_mutex_unlock(&s->lock);
}

/* Creates its own entry again, directly or through the provider of itself it received. */
static void *nest_create(const cr_value *args, void *user_data) {
    nest_state *s = user_data;
    pthread_mutex_lock(&s->lock);
    s->calls++;
    pthread_mutex_unlock(&s->lock);
    void *inner;
    if (s->use_provider) {
        cr_provider *self = cr_value_provider(cr_map_get(args, "self")); /* read: ours to free */
        inner = cr_provider_create(self, NULL);
        cr_provider_free(self);
    } else {
        inner = cr_registry_create(s->reg, "Nest", NULL);
    }
    if (!inner) record_nested_failure(s);
    return NULL; /* never succeeds: the nest only ends at a limit */
}

static void nest_init(nest_state *s, int use_provider, int64_t depth_limit) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    s->use_provider = use_provider;
    s->reg = cr_registry_new();
    cr_class cls = {.create = nest_create};
    CHECK_STATUS(cr_register_class(s->reg, "NestClass", &cls, s), CR_OK);
    CHECK_STATUS(
        load_yaml(s->reg,
                  use_provider ? "Nest: {ClassName: NestClass, Dependencies: {self: {Provider: Nest}}}\n" : "Nest: NestClass\n"),
        CR_OK);
    if (depth_limit > 0) CHECK_STATUS(cr_registry_set_limit(s->reg, CR_LIMIT_CREATE_DEPTH, depth_limit), CR_OK);
}

static void *nest_run(void *arg) {
    nest_state *s = arg;
    CHECK(cr_registry_create(s->reg, "Nest", NULL) == NULL);
    return NULL;
}

/* The default depth limit (256) stops the nest at exactly 256 creates, directly or via providers. */
static void nested_creates_hit_the_depth_limit(void) {
    for (int provider = 0; provider < 2; provider++) {
        nest_state s;
        nest_init(&s, provider, 0);
        nest_run(&s);
        CHECK_INT(s.calls, 256);
        CHECK_INT(s.limit_errors, 1);
        CHECK_INT(s.other_errors, 0);
        cr_registry_free(s.reg);
    }
}

/* With the depth limit out of the way, the stack guard stops the nest: on the main thread and on a
 * 256 KiB thread, CR_ERR_LIMIT, never a crash. */
static void nested_creates_hit_the_stack_guard(void) {
    for (int provider = 0; provider < 2; provider++) {
        nest_state s;
        nest_init(&s, provider, 100000000);
        nest_run(&s);
        CHECK(s.calls > 256);
        CHECK_INT(s.limit_errors, 1);
        CHECK_INT(s.other_errors, 0);
        cr_registry_free(s.reg);

        nest_init(&s, provider, 100000000);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        pthread_t t;
        CHECK_INT(pthread_create(&t, &attr, nest_run, &s), 0);
        pthread_join(t, NULL);
        pthread_attr_destroy(&attr);
        CHECK(s.calls > 1);
        CHECK_INT(s.limit_errors, 1);
        CHECK_INT(s.other_errors, 0);
        cr_registry_free(s.reg);
    }
}

static void *one_leaf_create(void *arg) {
    nest_state *s = arg;
    void *o = cr_registry_create(s->reg, "Leaf", NULL);
    CHECK(o != NULL);
    return NULL;
}

static void *leaf_create_plain(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return &leaf_create_plain; /* any non-NULL pointer; the class has no destroy */
}

/* Per-thread create records are reused once their thread has exited: a 256 KiB thread started
 * right after a default-stack thread that created (and exited) is stopped by its own stack's
 * guard, not judged against the old thread's stack. */
static void stack_guard_follows_the_thread(void) {
    nest_state s;
    nest_init(&s, 0, 100000000);
    cr_class leaf = {.create = leaf_create_plain};
    CHECK_STATUS(cr_register_class(s.reg, "LeafClass", &leaf, NULL), CR_OK);
    CHECK_STATUS(load_yaml(s.reg, "Leaf: LeafClass\n"), CR_OK);
    for (int round = 0; round < 3; round++) {
        pthread_t big;
        CHECK_INT(pthread_create(&big, NULL, one_leaf_create, &s), 0);
        pthread_join(big, NULL);
        s.calls = s.limit_errors = s.other_errors = 0;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 * 1024);
        pthread_t small;
        CHECK_INT(pthread_create(&small, &attr, nest_run, &s), 0);
        pthread_join(small, NULL);
        pthread_attr_destroy(&attr);
        CHECK(s.calls > 1);
        CHECK_INT(s.limit_errors, 1);
        CHECK_INT(s.other_errors, 0);
    }
    cr_registry_free(s.reg);
}

/* --- A parent's removal published while a create through its child is half-way --- */

/* A create through a child reads the child's view as it was when the create began. When the
 * parent removes an inherited singleton the create has not reached yet (here the create's first
 * argument removes it; another thread could do the same between the parent's swap and the
 * child's), the rest of the create treats it as that view's {Optional:} and {Tagged:} rules say
 * an absent entry is: null, or one member fewer. It used to fail with "no entry named 'S'". */
typedef struct {
    cr_registry *parent;
    int removals;
} removing_state;

static void *removing_create(const cr_value *args, void *user_data) {
    (void)args;
    removing_state *st = user_data;
    if (cr_remove_entry(st->parent, "S") == CR_OK) st->removals++;
    return malloc(1);
}

typedef struct {
    int optional_kind;    /* the kind of args["s"] */
    int64_t tagged_count; /* the count of args["all"] */
} seen_args;

static void *seeing_create(const cr_value *args, void *user_data) {
    seen_args *seen = user_data;
    const cr_value *s = cr_map_get(args, "s");
    seen->optional_kind = s ? (int)cr_value_kind(s) : -1;
    seen->tagged_count = cr_value_count(cr_map_get(args, "all"));
    return malloc(1);
}

static void removal_inside_a_childs_create(void) {
    removing_state st = {0};
    seen_args seen = {-2, -2};
    st.parent = cr_registry_new();
    cr_class remover = {.create = removing_create, .destroy = plain_destroy};
    cr_class user = {.create = seeing_create, .destroy = plain_destroy};
    CHECK_STATUS(cr_register_class(st.parent, "Remover", &remover, &st), CR_OK);
    CHECK_STATUS(cr_register_class(st.parent, "UserClass", &user, &seen), CR_OK);
    CHECK_STATUS(cr_register_class(st.parent, "Plain", &plain_class, NULL), CR_OK);
    CHECK_STATUS(load_yaml(st.parent,
                           "S: {ClassName: Plain, Lifestyle: singleton, Tag: t}\n"
                           "T: {ClassName: Plain, Lifestyle: singleton, Tag: t}\n"
                           "R: Remover\n"
                           "User: {ClassName: UserClass, Dependencies: {first: R, s: {Optional: S}, all: {Tagged: t}}}\n"
                           "Members: {ClassName: UserClass, Dependencies: {first: R, all: {Tagged: t}}}\n"),
                 CR_OK);
    cr_registry *child = cr_registry_new_child(st.parent);
    CHECK(child != NULL);
    /* S has never been built, so the child's view asks the parent for it by name. */
    void *u = cr_registry_create(child, "User", NULL);
    CHECK(u != NULL);
    if (!u) CHECK_STR(cr_last_error_message(), "");
    CHECK_INT(st.removals, 1);
    CHECK_INT(seen.optional_kind, CR_NULL);
    CHECK_INT(seen.tagged_count, 1); /* T only */
    free(u);
    /* The next create reads the new view: S is gone from it too, and R removes nothing more. */
    seen.optional_kind = -2;
    seen.tagged_count = -2;
    u = cr_registry_create(child, "User", NULL);
    CHECK(u != NULL);
    if (!u) CHECK_STR(cr_last_error_message(), "");
    CHECK_INT(seen.optional_kind, CR_NULL);
    CHECK_INT(seen.tagged_count, 1);
    free(u);
    /* The same for a tagged list alone: S back (never built), then removed half-way again. */
    CHECK_STATUS(load_yaml(st.parent, "S: {ClassName: Plain, Lifestyle: singleton, Tag: t}\n"), CR_OK);
    seen.tagged_count = -2;
    u = cr_registry_create(child, "Members", NULL);
    CHECK(u != NULL);
    if (!u) CHECK_STR(cr_last_error_message(), "");
    CHECK_INT(st.removals, 2);
    CHECK_INT(seen.tagged_count, 1);
    free(u);
    cr_registry_free(child);
    cr_registry_free(st.parent);
}

void test_reentry(void) {
    singletons_waiting_on_each_other();
    release_inside_replace();
    release_inside_later_load();
    release_inside_free();
    nested_creates_hit_the_depth_limit();
    nested_creates_hit_the_stack_guard();
    stack_guard_follows_the_thread();
    removal_inside_a_childs_create();
}
