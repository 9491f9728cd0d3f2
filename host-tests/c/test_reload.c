/* Reload: cr_registry_reload / cr_registry_reload_with through the real .so. Files edited between
 * the load and the reload; what changed; singletons kept and destroyed; failures that change
 * nothing and report every problem; children. Runs under valgrind (failure paths). */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

static const char *file_path(const char *name) {
    static char path[4][128];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, sizeof path[0], "%s/%s", dir, name);
    return p;
}

static void write_file(const char *name, const char *text) {
    FILE *f = fopen(file_path(name), "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* The names of list `key` of a changes map, joined with commas ("" when empty). */
static const char *names(const cr_value *changes, const char *key) {
    static char out[256];
    out[0] = 0;
    const cr_value *list = cr_map_get(changes, key);
    if (cr_value_kind(list) != CR_LIST) return "(not a list)";
    for (size_t i = 0; i < cr_value_count(list); i++) {
        if (i) strncat(out, ",", sizeof out - strlen(out) - 1);
        const cr_value *s = cr_list_at(list, i);
        strncat(out, cr_value_kind(s) == CR_STRING ? cr_value_string(s) : "?", sizeof out - strlen(out) - 1);
    }
    return out;
}

/* Whether a transient `name` can be created (the object is destroyed at once). */
static int transient_exists(cr_registry *reg, const char *name, host_stats *st) {
    void *o = cr_registry_create(reg, name, NULL);
    if (o) test2_destroy(o, st);
    return o != NULL;
}

static void edited_files_and_changes(void) {
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    write_file("app.yaml",
               "Keep: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {title: '@keep'}}\n"
               "Edit: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {title: '@v1'}}\n"
               "Gone: {ClassName: Test2ViewController, Lifestyle: singleton}\n"
               "Plain: {ClassName: Test2ViewController, Dependencies: {title: '@plain'}}\n");
    CHECK_STATUS(cr_load_file(reg, file_path("app.yaml"), CR_FORMAT_AUTO), CR_OK);
    Test2ViewController *keep = cr_registry_create(reg, "Keep", NULL);
    Test2ViewController *edit = cr_registry_create(reg, "Edit", NULL);
    CHECK(cr_registry_create(reg, "Gone", NULL) != NULL);
    CHECK_STR(edit->title, "v1");

    /* Nothing edited: nothing changes, nothing is destroyed. */
    cr_value *changes = (cr_value *)1;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK(changes != NULL && cr_value_kind(changes) == CR_MAP && cr_value_count(changes) == 3);
    CHECK_STR(names(changes, "added"), "");
    CHECK_STR(names(changes, "removed"), "");
    CHECK_STR(names(changes, "changed"), "");
    cr_value_free(changes);
    CHECK_INT(st.destroys, 0);

    write_file("app.yaml",
               "Keep: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {title: '@keep'}}\n"
               "Edit: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {title: '@v2'}}\n"
               "Plain: {ClassName: Test2ViewController, Dependencies: {title: '@plain'}}\n"
               "Zed: Test2ViewController\n"
               "New: Test2ViewController\n");
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "added"), "New,Zed");
    CHECK_STR(names(changes, "removed"), "Gone");
    CHECK_STR(names(changes, "changed"), "Edit");
    cr_value_free(changes);
    /* The singletons of Edit and Gone are destroyed (no create was running); Keep's is kept. */
    CHECK_INT(st.destroys, 2);
    CHECK(cr_registry_create(reg, "Keep", NULL) == keep);
    Test2ViewController *edited = cr_registry_create(reg, "Edit", NULL);
    CHECK(edited != NULL && edited->title && strcmp(edited->title, "v2") == 0);
    CHECK(cr_registry_create(reg, "Gone", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);

    /* cr_registry_reload: the same, without the report. */
    CHECK_STATUS(cr_registry_reload(reg), CR_OK);
    CHECK(cr_registry_create(reg, "Edit", NULL) == edited);
    cr_registry_free(reg);
    CHECK_INT(st.destroys, 4); /* Keep and the new Edit, at free */
    unlink(file_path("app.yaml"));
}

static void failures_change_nothing(void) {
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    write_file("a.yaml", "A: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {title: '@a'}}\n");
    write_file("b.yaml", "B: Test2ViewController\n");
    CHECK_STATUS(cr_load_file(reg, file_path("a.yaml"), CR_FORMAT_AUTO), CR_OK);
    CHECK_STATUS(cr_load_file(reg, file_path("b.yaml"), CR_FORMAT_AUTO), CR_OK);
    void *a = cr_registry_create(reg, "A", NULL);

    /* A missing reference in one file and a schema error in the other: both reported, the lower
     * code returned, nothing changed, *changes NULL. */
    write_file("a.yaml", "A: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {x: Missing}}\n");
    write_file("b.yaml", "B: {ClassName: 5}\n");
    cr_value *changes = (cr_value *)1;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_ERR_SCHEMA);
    CHECK(changes == NULL);
    CHECK_INT(cr_last_error_count(), 2);
    CHECK_CONTAINS(cr_last_error_message(), "'Missing'");
    CHECK_CONTAINS(cr_last_error_message(), file_path("b.yaml"));

    /* A syntax error: reported with its place (the file's names are then unknown, so references
     * to them are not reported, as for a load). */
    write_file("b.yaml", "B: [unclosed\n");
    CHECK_STATUS(cr_registry_reload(reg), CR_ERR_SYNTAX);
    CHECK_CONTAINS(cr_last_error_message(), file_path("b.yaml"));
    CHECK(cr_registry_create(reg, "A", NULL) == a);
    CHECK(transient_exists(reg, "B", &st));
    CHECK_INT(st.destroys, 1); /* that B, by the test */

    /* A cycle across the files. */
    write_file("a.yaml", "A: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {b: B}}\n");
    write_file("b.yaml", "B: {ClassName: Test2ViewController, Dependencies: {a: A}}\n");
    CHECK_STATUS(cr_registry_reload(reg), CR_ERR_CYCLE);
    CHECK_CONTAINS(cr_last_error_message(), "A -> B -> A");
    CHECK(cr_registry_create(reg, "A", NULL) == a);

    /* A file gone: CR_ERR_IO naming it. */
    write_file("a.yaml", "A: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {title: '@a'}}\n");
    unlink(file_path("b.yaml"));
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_ERR_IO);
    CHECK(changes == NULL);
    CHECK_CONTAINS(cr_last_error_message(), file_path("b.yaml"));
    CHECK(cr_registry_create(reg, "A", NULL) == a);
    CHECK(transient_exists(reg, "B", &st));
    CHECK_INT(st.destroys, 2); /* the two B objects, by the test: A's singleton was never destroyed */

    /* Bad arguments. */
    CHECK_STATUS(cr_registry_reload(NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(cr_registry_reload_with(NULL, &changes), CR_ERR_INVALID_ARGUMENT);
    CHECK(changes == NULL);
    CHECK_STATUS(cr_registry_reload_with(reg, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "changes is NULL");

    cr_registry_free(reg);
    unlink(file_path("a.yaml"));
}

static void text_code_and_children(void) {
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    /* A registry with nothing loaded reloads to itself. */
    cr_value *changes = NULL;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "added"), "");
    cr_value_free(changes);

    static const char text[] = "FromText: {ClassName: Test2ViewController, Dependencies: {title: '@text'}}\n";
    CHECK_STATUS(cr_load_string(reg, text, strlen(text), CR_FORMAT_YAML), CR_OK);
    write_file("p.yaml", "Service: {ClassName: Test2ViewController, Dependencies: {title: '@one'}}\n");
    CHECK_STATUS(cr_load_file(reg, file_path("p.yaml"), CR_FORMAT_AUTO), CR_OK);
    CHECK_STATUS(cr_add_entry(reg, "FromCode", "Test2ViewController", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);

    cr_registry *child = cr_registry_new_child(reg);
    write_file("c.yaml",
               "Screen: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {s: Service}}\n"
               "Solo: {ClassName: Test2ViewController, Lifestyle: singleton}\n");
    CHECK_STATUS(cr_load_file(child, file_path("c.yaml"), CR_FORMAT_AUTO), CR_OK);
    void *solo = cr_registry_create(child, "Solo", NULL);
    CHECK(cr_registry_create(child, "Screen", NULL) != NULL);
    int destroyed = stats_get(&st, &st.destroys); /* Screen's Service, which Test2 does not keep */

    /* The parent's file changes Service: text and code entries are kept; the child's singleton
     * wired to Service is destroyed, its other one kept. */
    write_file("p.yaml", "Service: {ClassName: Test2ViewController, Dependencies: {title: '@two'}}\n");
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "changed"), "Service");
    CHECK_STR(names(changes, "added"), "");
    CHECK_STR(names(changes, "removed"), "");
    cr_value_free(changes);
    CHECK_INT(stats_get(&st, &st.destroys), destroyed + 1);
    CHECK(cr_registry_create(child, "Solo", NULL) == solo);
    Test2ViewController *t = cr_registry_create(reg, "FromText", NULL);
    CHECK(t && t->title && strcmp(t->title, "text") == 0);
    if (t) test2_destroy(t, &st);
    t = cr_registry_create(reg, "FromCode", NULL);
    CHECK(t != NULL);
    if (t) test2_destroy(t, &st);

    /* A parent reload that would break the child is refused. */
    write_file("p.yaml", "Other: Test2ViewController\n");
    CHECK_STATUS(cr_registry_reload(reg), CR_ERR_MISSING_REFERENCE);
    CHECK_CONTAINS(cr_last_error_message(), "child registry");

    /* The child's reload reads the child's file again. */
    write_file("c.yaml", "Solo: {ClassName: Test2ViewController, Lifestyle: singleton}\n");
    CHECK_STATUS(cr_registry_reload_with(child, &changes), CR_OK);
    CHECK_STR(names(changes, "removed"), "Screen");
    cr_value_free(changes);

    cr_registry_free(child);
    cr_registry_free(reg);
    unlink(file_path("p.yaml"));
    unlink(file_path("c.yaml"));
}

/* Destroys record their label in order, so a test can compare which went first. */
typedef struct {
    char label[16];
} labelled;
static char destroy_order[128];
static int labelled_creates;

static void *labelled_create(const cr_value *args, void *user_data) {
    (void)user_data;
    labelled *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    labelled_creates++;
    const char *label = cr_value_string(cr_map_get(args, "label"));
    snprintf(o->label, sizeof o->label, "%s", label ? label : "?");
    return o;
}

static void labelled_destroy(void *object, void *user_data) {
    (void)user_data;
    labelled *o = object;
    if (destroy_order[0]) strncat(destroy_order, ",", sizeof destroy_order - strlen(destroy_order) - 1);
    strncat(destroy_order, o->label, sizeof destroy_order - strlen(destroy_order) - 1);
    free(o);
}

/* A parent's reload that changes what a child's and a grandchild's singletons are wired to
 * destroys them in reverse order of creation, as a reload of one registry does: the grandchild's
 * (which may hold the child's: its destroy may still use it) before the child's, the parent's
 * last. It destroyed the child's first. */
static void children_destroyed_before_what_they_hold(void) {
    destroy_order[0] = 0;
    cr_registry *reg = cr_registry_new();
    static const cr_class labelled_class = {.create = labelled_create, .destroy = labelled_destroy};
    CHECK_STATUS(cr_register_class(reg, "Labelled", &labelled_class, NULL), CR_OK);
    write_file("order.yaml", "A: {ClassName: Labelled, Lifestyle: singleton, Dependencies: {label: '@A', n: 1}}\n");
    CHECK_STATUS(cr_load_file(reg, file_path("order.yaml"), CR_FORMAT_AUTO), CR_OK);
    cr_registry *child = cr_registry_new_child(reg);
    static const char child_text[] = "S: {ClassName: Labelled, Lifestyle: singleton, Dependencies: {label: '@S', a: A}}\n";
    CHECK_STATUS(cr_load_string(child, child_text, strlen(child_text), CR_FORMAT_YAML), CR_OK);
    cr_registry *grandchild = cr_registry_new_child(child);
    static const char grandchild_text[] = "T: {ClassName: Labelled, Lifestyle: singleton, Dependencies: {label: '@T', s: S}}\n";
    CHECK_STATUS(cr_load_string(grandchild, grandchild_text, strlen(grandchild_text), CR_FORMAT_YAML), CR_OK);
    labelled_creates = 0;
    CHECK(cr_registry_create(grandchild, "T", NULL) != NULL);
    CHECK_INT(labelled_creates, 3);

    write_file("order.yaml", "A: {ClassName: Labelled, Lifestyle: singleton, Dependencies: {label: '@A', n: 2}}\n");
    CHECK_STATUS(cr_registry_reload(reg), CR_OK);
    CHECK_STR(destroy_order, "T,S,A");
    CHECK(cr_registry_create(grandchild, "T", NULL) != NULL);
    CHECK_INT(labelled_creates, 6); /* T, S and A built again */

    destroy_order[0] = 0;
    cr_registry_free(grandchild);
    cr_registry_free(child);
    cr_registry_free(reg);
    CHECK_STR(destroy_order, "T,S,A");
    unlink(file_path("order.yaml"));
}

static void environment_values(void) {
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    write_file("env.yaml", "FromMap: {ClassName: Test2ViewController, Dependencies: {title: '@${CR_RELOAD_T}'}}\n");
    write_file("proc.yaml",
               "FromProcess: {ClassName: Test2ViewController, Lifestyle: singleton,"
               " Dependencies: {title: '@${CR_RELOAD_TEST_PROC}'}}\n");
    /* A given map is given again by the reload. */
    cr_value *env = cr_map_new();
    CHECK_STATUS(cr_map_set_string(env, "CR_RELOAD_T", "given"), CR_OK);
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.environment = env;
    CHECK_STATUS(cr_load_file_with(reg, file_path("env.yaml"), &o), CR_OK);
    cr_value_free(env);
    /* The process environment is read again by each reload. */
    setenv("CR_RELOAD_TEST_PROC", "one", 1);
    CHECK_STATUS(cr_load_file(reg, file_path("proc.yaml"), CR_FORMAT_AUTO), CR_OK);
    Test2ViewController *p = cr_registry_create(reg, "FromProcess", NULL);
    CHECK(p && p->title && strcmp(p->title, "one") == 0);
    cr_value *changes = NULL;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "changed"), "");
    cr_value_free(changes);
    setenv("CR_RELOAD_TEST_PROC", "two", 1);
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "changed"), "FromProcess");
    cr_value_free(changes);
    Test2ViewController *t = cr_registry_create(reg, "FromMap", NULL);
    CHECK(t && t->title && strcmp(t->title, "given") == 0);
    if (t) test2_destroy(t, &st);
    p = cr_registry_create(reg, "FromProcess", NULL);
    CHECK(p && p->title && strcmp(p->title, "two") == 0);
    /* A variable now missing: CR_ERR_ENVIRONMENT naming it, nothing changed. */
    unsetenv("CR_RELOAD_TEST_PROC");
    CHECK_STATUS(cr_registry_reload(reg), CR_ERR_ENVIRONMENT);
    CHECK_CONTAINS(cr_last_error_message(), "CR_RELOAD_TEST_PROC");
    CHECK(cr_registry_create(reg, "FromProcess", NULL) == p);
    cr_registry_free(reg);
    unlink(file_path("env.yaml"));
    unlink(file_path("proc.yaml"));
}

static void tagged_and_optional_wiring(void) {
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    write_file("forms.yaml",
               "Menu: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {s: {Tagged: screen}}}\n"
               "Maybe: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {x: {Optional: X}}}\n"
               "Home: {ClassName: Test2ViewController, Tag: screen}\n");
    CHECK_STATUS(cr_load_file(reg, file_path("forms.yaml"), CR_FORMAT_AUTO), CR_OK);
    void *menu = cr_registry_create(reg, "Menu", NULL);
    CHECK(menu != NULL && cr_registry_create(reg, "Maybe", NULL) != NULL);
    int destroyed = stats_get(&st, &st.destroys);
    /* A new member of Menu's tag, and X for Maybe's optional reference: both singletons changed. */
    write_file("forms.yaml",
               "Menu: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {s: {Tagged: screen}}}\n"
               "Maybe: {ClassName: Test2ViewController, Lifestyle: singleton, Dependencies: {x: {Optional: X}}}\n"
               "Home: {ClassName: Test2ViewController, Tag: screen}\n"
               "More: {ClassName: Test2ViewController, Tag: [screen]}\n"
               "X: Test2ViewController\n");
    cr_value *changes = NULL;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "added"), "More,X");
    CHECK_STR(names(changes, "changed"), "Maybe,Menu");
    cr_value_free(changes);
    CHECK_INT(stats_get(&st, &st.destroys), destroyed + 2);
    CHECK(cr_registry_create(reg, "Menu", NULL) != NULL);
    cr_registry_free(reg);
    unlink(file_path("forms.yaml"));
}

/* Entries added from code that rewire entries of earlier steps (a new member of their {Tagged: t}
 * list, the target of their {Optional: X}) leave those entries to their own steps: the registry
 * reloads to itself, however many such adds were made. */
static void code_adds_that_rewire_others_reload(void) {
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    static const char text[] = "Menu: {ClassName: Test2ViewController, Dependencies: {s: {Tagged: screen}}}\n";
    CHECK_STATUS(cr_load_string(reg, text, strlen(text), CR_FORMAT_YAML), CR_OK);
    cr_value *deps = cr_map_new();
    cr_value *optional = cr_map_new();
    cr_map_set_string(optional, "Optional", "X");
    cr_map_set_value(deps, "x", optional);
    CHECK_STATUS(cr_add_entry(reg, "Maybe", "Test2ViewController", CR_LIFESTYLE_TRANSIENT, deps), CR_OK);
    cr_value_free(deps);
    cr_value *tags = cr_list_new();
    cr_list_push_string(tags, "screen");
    cr_entry_options options = CR_ENTRY_OPTIONS_INIT;
    options.tags = tags;
    CHECK_STATUS(cr_add_entry_with(reg, "Home", "Test2ViewController", &options), CR_OK);             /* Menu's list */
    CHECK_STATUS(cr_add_entry(reg, "X", "Test2ViewController", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK); /* Maybe's */
    CHECK_STATUS(cr_add_entry_with(reg, "More", "Test2ViewController", &options), CR_OK);
    cr_value_free(tags);
    for (int round = 0; round < 2; round++) {
        cr_value *changes = NULL;
        CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
        CHECK_STR(names(changes, "added"), "");
        CHECK_STR(names(changes, "changed"), "");
        CHECK_STR(names(changes, "removed"), "");
        cr_value_free(changes);
    }
    cr_value *list = cr_registry_entries(reg);
    CHECK_INT((int)cr_value_count(list), 5);
    cr_value_free(list);
    const char *all[] = {"Menu", "Maybe", "Home", "X", "More"};
    for (int i = 0; i < 5; i++) {
        Test2ViewController *t = cr_registry_create(reg, all[i], NULL);
        CHECK(t != NULL);
        if (t) test2_destroy(t, &st);
    }
    cr_registry_free(reg);
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CR_TEST_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define CR_TEST_ASAN 1
#endif

/* The process's peak resident memory in KiB since the last `reset_peak_resident` (-1 if unknown). */
static long peak_resident_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    long peak = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) peak = atol(line + 6);
    fclose(f);
    return peak;
}

/* Starts `peak_resident_kib` again from the current resident memory (Linux: "5" to clear_refs). */
static int reset_peak_resident(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return 0;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok;
}

/* A registry built by 5,000 cr_add_entry calls (a step each) reloads without holding more than a
 * few KiB per step at its peak: each step's definitions are held until all are applied, but not
 * the 12 KiB cache their encoding used (~70 MiB at this size). Skipped in quick mode and ASan. */
static void reload_after_many_adds_stays_small(void) {
#ifdef CR_TEST_ASAN
    return;
#endif
    if (quick_mode()) return;
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    enum { adds = 5000 };
    for (int i = 0; i < adds; i++) {
        char name[32], previous[32];
        snprintf(name, sizeof name, "Added%d", i);
        snprintf(previous, sizeof previous, "Added%d", i - 1);
        cr_value *deps = cr_map_new();
        cr_map_set_string(deps, "title", "@added from code");
        if (i > 0) cr_map_set_string(deps, "previous", previous);
        if (cr_add_entry(reg, name, "Test2ViewController", CR_LIFESTYLE_TRANSIENT, deps) != CR_OK) {
            CHECK_STATUS(CR_ERR_INVALID_ARGUMENT, CR_OK);
            cr_value_free(deps);
            break;
        }
        cr_value_free(deps);
    }
    long before = resident_kib();
    if (!reset_peak_resident()) {
        cr_registry_free(reg);
        return; /* no way to read the peak here */
    }
    cr_value *changes = NULL;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "changed"), "");
    CHECK_STR(names(changes, "added"), "");
    cr_value_free(changes);
    long peak = peak_resident_kib();
    CHECK(before > 0 && peak > 0);
    if (peak - before >= 24 * 1024) fprintf(stderr, "  resident before the reload %ld KiB, at its peak %ld KiB\n", before, peak);
    CHECK(peak - before < 24 * 1024);
    cr_value *list = cr_registry_entries(reg);
    CHECK_INT((int)cr_value_count(list), adds);
    cr_value_free(list);
    cr_registry_free(reg);
}

/* Reloads of a large file (20,000 entries) leave the process no bigger than the load did: what a
 * reload reads and compares is given back, as a load's is. Skipped under valgrind and ASan (their
 * allocators keep freed memory), i.e. in quick mode. */
static void large_reload_gives_memory_back(void) {
#ifdef CR_TEST_ASAN
    return;
#endif
    if (quick_mode()) return;
    FILE *f = fopen(file_path("large.json"), "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"E0\": \"Screen\"", f);
    for (int i = 1; i < 20000; i++)
        fprintf(f,
                ",\n\"E%d\": {\"ClassName\": \"Screen\", \"Lifestyle\": \"singleton\", "
                "\"Dependencies\": {\"title\": \"@entry %d\", \"n\": %d, \"first\": \"E0\"}}",
                i, i, i);
    fputs("}\n", f);
    fclose(f);
    cr_registry *reg = cr_registry_new();
    CHECK(cr_load_file(reg, file_path("large.json"), CR_FORMAT_AUTO) == CR_OK);
    long loaded = resident_kib();
    for (int round = 0; round < 3; round++) {
        cr_value *changes = NULL;
        CHECK(cr_registry_reload_with(reg, &changes) == CR_OK);
        CHECK(changes != NULL && strcmp(names(changes, "changed"), "") == 0 && strcmp(names(changes, "added"), "") == 0);
        cr_value_free(changes);
    }
    long reloaded = resident_kib();
    CHECK(loaded > 0 && reloaded > 0);
    if (reloaded - loaded >= 16 * 1024)
        fprintf(stderr, "  resident after the load %ld KiB, after three reloads %ld KiB\n", loaded, reloaded);
    CHECK(reloaded - loaded < 16 * 1024);
    cr_registry_free(reg);
    unlink(file_path("large.json"));
}

/* A file loaded by a relative path is reloaded from where it was loaded, even after the host
 * changed directory (a daemon's chdir("/")): not another file of the same name there, nor an I/O
 * error. Two loads, one file each and two together. */
static void relative_paths_reload_the_files_loaded(void) {
    char sub[96], cwd[512];
    snprintf(sub, sizeof sub, "%s/elsewhere", dir);
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    write_file("rel.yaml", "Here: Test2ViewController\n");
    write_file("rel2.yaml", "Two: Test2ViewController\n");
    write_file("elsewhere/rel.yaml", "Elsewhere: Test2ViewController\n");
    write_file("elsewhere/rel2.yaml", "Elsewhere2: Test2ViewController\n");
    host_stats st;
    stats_init(&st);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &st), CR_OK);
    CHECK(chdir(dir) == 0);
    CHECK_STATUS(cr_load_file(reg, "rel.yaml", CR_FORMAT_AUTO), CR_OK);
    const char *both[] = {"./rel2.yaml"};
    CHECK_STATUS(cr_load_files(reg, both, 1, CR_FORMAT_AUTO), CR_OK);
    CHECK(chdir(sub) == 0);
    cr_value *changes = NULL;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "added"), "");
    CHECK_STR(names(changes, "removed"), "");
    cr_value_free(changes);
    /* The file loaded is the one edited and read again. */
    write_file("rel.yaml", "Here: Test2ViewController\nMore: Test2ViewController\n");
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_OK);
    CHECK_STR(names(changes, "added"), "More");
    cr_value_free(changes);
    CHECK(chdir(cwd) == 0);
    cr_registry_free(reg);
    unlink(file_path("rel.yaml"));
    unlink(file_path("rel2.yaml"));
    unlink(file_path("elsewhere/rel.yaml"));
    unlink(file_path("elsewhere/rel2.yaml"));
    rmdir(sub);
}

void test_reload(void) {
    snprintf(dir, sizeof dir, "/tmp/cr-reload-XXXXXX");
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    edited_files_and_changes();
    failures_change_nothing();
    text_code_and_children();
    children_destroyed_before_what_they_hold();
    environment_values();
    tagged_and_optional_wiring();
    code_adds_that_rewire_others_reload();
    large_reload_gives_memory_back();
    reload_after_many_adds_stays_small();
    relative_paths_reload_the_files_loaded();
    rmdir(dir);
}
