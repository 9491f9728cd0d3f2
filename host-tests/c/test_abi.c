/* ABI 1.0 tests: create options (owner and destroyer out), the versioned cr_class, load options
 * (source name), structured diagnostics, the version number, and the C API's edges (huge lengths,
 * names that are not UTF-8 or too long, the entries limit under override). Each failure path is
 * here so the valgrind run covers it. */
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- Version ----------------------------------------------------------------------------- */

static void version_number(void) {
    CHECK_INT(CR_VERSION_NUMBER, CR_VERSION_MAJOR * 1000000 + CR_VERSION_MINOR * 1000 + CR_VERSION_PATCH);
    CHECK_INT(cr_version_number(), CR_VERSION_NUMBER);
    CHECK_STR(cr_version(), CR_VERSION_STRING);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", CR_VERSION_MAJOR, CR_VERSION_MINOR, CR_VERSION_PATCH);
    CHECK_STR(CR_VERSION_STRING, expected);
}

/* ---- Create options ---------------------------------------------------------------------- */

static void noop_destroy(void *object, void *user_data) {
    (void)object;
    (void)user_data;
}

static void create_with_reports_owner_and_destroyer(void) {
    host_stats s1, s2;
    stats_init(&s1);
    stats_init(&s2);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "T: Test2ViewController\n"
                           "S: {ClassName: Test2ViewController, Lifestyle: singleton}\n"
                           "Missing: NoSuchClass\n"),
                 CR_OK);

    /* A transient: the caller's, destroyed through the destroyer without naming its class. */
    cr_owner owner = CR_OWNER_SHARED;
    cr_destroyer d = {noop_destroy, &owner};
    cr_create_options o = CR_CREATE_OPTIONS_INIT;
    o.owner = &owner;
    o.destroyer = &d;
    void *t = cr_registry_create_with(reg, "T", &o);
    CHECK(t != NULL);
    CHECK_INT(owner, CR_OWNER_RECEIVER);
    CHECK(d.destroy == test2_destroy);
    CHECK(d.user_data == &s2);
    if (t && d.destroy) d.destroy(t, d.user_data);
    CHECK_INT(stats_get(&s2, &s2.destroys), 1);

    /* By convention (a class name with no entry): same answer. */
    d.destroy = noop_destroy;
    void *c = cr_registry_create_with(reg, "Test2ViewController", &o);
    CHECK(c != NULL);
    CHECK_INT(owner, CR_OWNER_RECEIVER);
    CHECK(d.destroy == test2_destroy && d.user_data == &s2);
    if (c && d.destroy) d.destroy(c, d.user_data);
    CHECK_INT(stats_get(&s2, &s2.destroys), 2);

    /* A singleton: the registry's, nothing to destroy. */
    d.destroy = noop_destroy;
    void *s = cr_registry_create_with(reg, "S", &o);
    CHECK(s != NULL);
    CHECK_INT(owner, CR_OWNER_REGISTRY);
    CHECK(d.destroy == NULL && d.user_data == NULL);
    /* Asked again (the cached path), the same. */
    d.destroy = noop_destroy;
    CHECK(cr_registry_create_with(reg, "S", &o) == s);
    CHECK_INT(owner, CR_OWNER_REGISTRY);
    CHECK(d.destroy == NULL);

    /* Props through the options. */
    cr_value *props = cr_map_new();
    cr_map_set_string(props, "title", "from props");
    o.props = props;
    Test2ViewController *p = cr_registry_create_with(reg, "T", &o);
    CHECK(p != NULL);
    if (p) CHECK_STR(p->title, "from props");
    if (p && d.destroy) d.destroy(p, d.user_data);
    /* A singleton refuses props: a failure, owner NONE and no destroyer. */
    d.destroy = noop_destroy;
    owner = CR_OWNER_SHARED;
    CHECK(cr_registry_create_with(reg, "S", &o) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(owner, CR_OWNER_NONE);
    CHECK(d.destroy == NULL && d.user_data == NULL);
    o.props = NULL;
    cr_value_free(props);

    /* Failures of every kind set owner NONE and clear the destroyer. */
    const char *failing[] = {"Nope", "Missing"};
    int codes[] = {CR_ERR_NOT_FOUND, CR_ERR_CLASS_NOT_REGISTERED};
    for (int i = 0; i < 2; i++) {
        owner = CR_OWNER_SHARED;
        d.destroy = noop_destroy;
        d.user_data = &owner;
        CHECK(cr_registry_create_with(reg, failing[i], &o) == NULL);
        CHECK_LAST_ERROR(codes[i]);
        CHECK_INT(owner, CR_OWNER_NONE);
        CHECK(d.destroy == NULL && d.user_data == NULL);
    }
    s2.fail = 1;
    owner = CR_OWNER_SHARED;
    d.destroy = noop_destroy;
    CHECK(cr_registry_create_with(reg, "T", &o) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_INT(owner, CR_OWNER_NONE);
    CHECK(d.destroy == NULL);
    s2.fail = 0;
    /* NULL reg and NULL name: owner NONE too, and the message names the function. */
    owner = CR_OWNER_SHARED;
    CHECK(cr_registry_create_with(NULL, "T", &o) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_registry_create_with: reg is NULL");
    CHECK_INT(owner, CR_OWNER_NONE);
    owner = CR_OWNER_SHARED;
    CHECK(cr_registry_create_with(reg, NULL, &o) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_registry_create_with: name is NULL");
    CHECK_INT(owner, CR_OWNER_NONE);

    /* Options NULL are the defaults; only out-pointers asked for are written. */
    void *plain = cr_registry_create_with(reg, "T", NULL);
    CHECK(plain != NULL);
    test2_destroy(plain, &s2);
    cr_create_options only_owner = CR_CREATE_OPTIONS_INIT;
    only_owner.owner = &owner;
    plain = cr_registry_create_with(reg, "T", &only_owner);
    CHECK(plain != NULL);
    CHECK_INT(owner, CR_OWNER_RECEIVER);
    test2_destroy(plain, &s2);
    /* Only the destroyer asked for: written in place for a transient, cleared for a singleton. */
    cr_create_options only_destroyer = CR_CREATE_OPTIONS_INIT;
    only_destroyer.destroyer = &d;
    d.destroy = noop_destroy;
    d.user_data = &owner;
    plain = cr_registry_create_with(reg, "T", &only_destroyer);
    CHECK(plain != NULL);
    CHECK(d.destroy == test2_destroy && d.user_data == &s2);
    if (plain && d.destroy) d.destroy(plain, d.user_data);
    d.destroy = noop_destroy;
    d.user_data = &owner;
    CHECK(cr_registry_create_with(reg, "S", &only_destroyer) == s);
    CHECK(d.destroy == NULL && d.user_data == NULL);

    /* A version the library does not know: refused, nothing written, nothing created. */
    unsigned versions[] = {0, CR_CREATE_OPTIONS_VERSION + 1, 1000};
    for (int i = 0; i < 3; i++) {
        cr_create_options bad = CR_CREATE_OPTIONS_INIT;
        bad.version = versions[i];
        bad.owner = &owner;
        bad.destroyer = &d;
        owner = CR_OWNER_SHARED;
        d.destroy = noop_destroy;
        int before = stats_get(&s2, &s2.creates);
        CHECK(cr_registry_create_with(reg, "T", &bad) == NULL);
        CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cr_create_options version 1");
        CHECK_INT(owner, CR_OWNER_SHARED);
        CHECK(d.destroy == noop_destroy);
        CHECK_INT(stats_get(&s2, &s2.creates), before);
    }
    cr_registry_free(reg);
}

static void *plain_create(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return malloc(8);
}

static void class_without_destroy_has_no_destroyer(void) {
    cr_registry *reg = cr_registry_new();
    static const cr_class cls = {.create = plain_create};
    static int context;
    /* With user_data: the destroyer is still {NULL, NULL}, as the header says. */
    CHECK_STATUS(cr_register_class(reg, "Plain", &cls, &context), CR_OK);
    CHECK_STATUS(load_yaml(reg, "WithDependency: {ClassName: Plain, Dependencies: {n: 1, s: \"@text\"}}\n"), CR_OK);
    /* A class name (a leaf) and an entry with arguments take different paths. */
    const char *names[] = {"Plain", "WithDependency"};
    for (int i = 0; i < 2; i++) {
        cr_destroyer d = {noop_destroy, &d};
        cr_owner owner = CR_OWNER_NONE;
        cr_create_options o = CR_CREATE_OPTIONS_INIT;
        o.owner = &owner;
        o.destroyer = &d;
        void *p = cr_registry_create_with(reg, names[i], &o);
        CHECK(p != NULL);
        CHECK_INT(owner, CR_OWNER_RECEIVER);
        CHECK(d.destroy == NULL && d.user_data == NULL);
        free(p);
    }
    cr_registry_free(reg);
}

/* A provider kept by its receiver, then created through cr_provider_create_with. */
static cr_provider *kept_provider;

static void *keeper_create(const cr_value *args, void *user_data) {
    (void)user_data;
    const cr_value *p = cr_map_get(args, "p");
    kept_provider = p ? cr_value_provider(p) : NULL;
    return malloc(1);
}

static void provider_create_with(void) {
    host_stats s1, s2;
    stats_init(&s1);
    stats_init(&s2);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);
    static const cr_class keeper = {.create = keeper_create};
    CHECK_STATUS(cr_register_class(reg, "Keeper", &keeper, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "T: Test2ViewController\n"
                           "S: {ClassName: Test2ViewController, Lifestyle: singleton}\n"
                           "K1: {ClassName: Keeper, Dependencies: {p: {Provider: T}}}\n"
                           "K2: {ClassName: Keeper, Dependencies: {p: {Provider: S}}}\n"),
                 CR_OK);
    cr_owner owner = CR_OWNER_SHARED;
    cr_destroyer d = {noop_destroy, NULL};
    cr_create_options o = CR_CREATE_OPTIONS_INIT;
    o.owner = &owner;
    o.destroyer = &d;

    void *k1 = cr_registry_create(reg, "K1", NULL);
    CHECK(k1 != NULL && kept_provider != NULL);
    cr_provider *pt = kept_provider;
    void *t = cr_provider_create_with(pt, &o);
    CHECK(t != NULL);
    CHECK_INT(owner, CR_OWNER_RECEIVER);
    CHECK(d.destroy == test2_destroy && d.user_data == &s2);
    if (t && d.destroy) d.destroy(t, d.user_data);

    void *k2 = cr_registry_create(reg, "K2", NULL);
    cr_provider *ps = kept_provider;
    d.destroy = noop_destroy;
    CHECK(cr_provider_create_with(ps, &o) != NULL);
    CHECK_INT(owner, CR_OWNER_REGISTRY);
    CHECK(d.destroy == NULL);

    /* Failure: owner NONE, no destroyer. */
    s2.fail = 1;
    owner = CR_OWNER_SHARED;
    d.destroy = noop_destroy;
    CHECK(cr_provider_create_with(pt, &o) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_INT(owner, CR_OWNER_NONE);
    CHECK(d.destroy == NULL);
    s2.fail = 0;
    owner = CR_OWNER_SHARED;
    CHECK(cr_provider_create_with(NULL, &o) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_provider_create_with: provider is NULL");
    CHECK_INT(owner, CR_OWNER_NONE);
    /* Bad version. */
    cr_create_options bad = CR_CREATE_OPTIONS_INIT;
    bad.version = 0;
    CHECK(cr_provider_create_with(pt, &bad) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    /* After the registry is freed: a failure with owner NONE. */
    free(k1);
    free(k2);
    cr_registry_free(reg);
    owner = CR_OWNER_SHARED;
    CHECK(cr_provider_create_with(pt, &o) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(owner, CR_OWNER_NONE);
    cr_provider_free(pt);
    cr_provider_free(ps);
}

/* ---- Versioned cr_class -------------------------------------------------------------------- */

static int releases;
static void count_release(void *user_data) {
    (void)user_data;
    releases++;
}

static void class_version(void) {
    cr_registry *reg = cr_registry_new();
    cr_class v0 = {.create = plain_create, .release = count_release};
    CHECK_INT(v0.version, 0);
    CHECK_STATUS(cr_register_class(reg, "V0", &v0, NULL), CR_OK);
    cr_class v1 = {.create = plain_create, .release = count_release, .version = CR_CLASS_VERSION};
    CHECK_STATUS(cr_register_class(reg, "V1", &v1, NULL), CR_OK);
    void *o = cr_registry_create(reg, "V1", NULL);
    CHECK(o != NULL);
    free(o);
    /* A newer layout than the library knows: refused, release called once, nothing registered. */
    releases = 0;
    cr_class v2 = {.create = plain_create, .release = count_release, .version = CR_CLASS_VERSION + 1};
    CHECK_STATUS(cr_register_class(reg, "V2", &v2, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cls->version is 2");
    CHECK_INT(releases, 1);
    CHECK(cr_registry_create(reg, "V2", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    CHECK_STATUS(cr_replace_class(reg, "V0", &v2, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(releases, 2);
    o = cr_registry_create(reg, "V0", NULL); /* the old class stays */
    CHECK(o != NULL);
    free(o);
    releases = 0;
    cr_registry_free(reg);
    CHECK_INT(releases, 2);
}

/* ---- Load options ------------------------------------------------------------------------ */

static void load_options(void) {
    host_stats s1, s2;
    stats_init(&s1);
    stats_init(&s2);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);

    /* The source name is in every location of a cr_load_string_with error. */
    const char *bad = "A: {ClassName: Test2ViewController, Dependencies: {x: Nope}}\n"
                      "B: {ClassName: Test2ViewController, Dependencies: {y: Neither}}\n";
    cr_load_options lo = CR_LOAD_OPTIONS_INIT;
    lo.source_name = "screens/main.yaml";
    CHECK_STATUS(cr_load_string_with(reg, bad, strlen(bad), &lo), CR_ERR_MISSING_REFERENCE);
    const char *m = cr_last_error_message();
    CHECK_CONTAINS(m, "screens/main.yaml:1:");
    CHECK_CONTAINS(m, "screens/main.yaml:2:");
    CHECK(strstr(m, "<string>") == NULL);
    CHECK_INT(cr_last_error_count(), 2);
    for (size_t i = 0; i < cr_last_error_count(); i++) {
        const cr_problem *p = cr_last_error_problem(i);
        CHECK(p != NULL);
        if (!p) continue;
        CHECK_STR(p->file, "screens/main.yaml");
        CHECK_INT(p->line, (int)i + 1);
        CHECK(p->column > 0);
        CHECK_INT(p->code, CR_ERR_MISSING_REFERENCE);
        CHECK(strstr(p->message, "screens/main.yaml") == NULL); /* the message alone */
        CHECK_CONTAINS(p->message, i == 0 ? "Nope" : "Neither");
    }
    /* NULL source name: "<string>"; NULL options: the defaults. */
    lo.source_name = NULL;
    CHECK_STATUS(cr_load_string_with(reg, bad, strlen(bad), &lo), CR_ERR_MISSING_REFERENCE);
    CHECK_STR(cr_last_error_problem(0)->file, "<string>");
    CHECK_STATUS(cr_load_string_with(reg, bad, strlen(bad), NULL), CR_ERR_MISSING_REFERENCE);
    CHECK_STR(cr_last_error_problem(0)->file, "<string>");
    const char *good = "T: Test2ViewController\n";
    CHECK_STATUS(cr_load_string_with(reg, good, strlen(good), NULL), CR_OK);

    /* Format and flags. */
    const char *json = "{\"T\": {\"ClassName\": \"Test2ViewController\", \"Dependencies\": {\"title\": \"@j\"}}}";
    lo.format = CR_FORMAT_JSON;
    CHECK_STATUS(cr_load_string_with(reg, json, strlen(json), &lo), CR_ERR_DUPLICATE);
    lo.flags = CR_LOAD_OVERRIDE;
    CHECK_STATUS(cr_load_string_with(reg, json, strlen(json), &lo), CR_OK);
    Test2ViewController *t = cr_registry_create(reg, "T", NULL);
    CHECK(t != NULL);
    if (t) CHECK_STR(t->title, "j");
    test2_destroy(t, NULL);
    lo.format = CR_FORMAT_YAML;
    CHECK_STATUS(cr_load_string_with(reg, json, strlen(json), &lo), CR_OK); /* JSON is YAML */
    lo.format = (cr_format)42;
    CHECK_STATUS(cr_load_string_with(reg, good, strlen(good), &lo), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "unknown format 42");
    lo.format = CR_FORMAT_AUTO;
    lo.flags = 6;
    CHECK_STATUS(cr_load_string_with(reg, good, strlen(good), &lo), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "unknown flags 6");
    lo.flags = 0;

    /* Versions the library does not know. */
    cr_load_options v = CR_LOAD_OPTIONS_INIT;
    v.version = 0;
    CHECK_STATUS(cr_load_string_with(reg, good, strlen(good), &v), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_load_options version 2");
    v.version = CR_LOAD_OPTIONS_VERSION + 1;
    CHECK_STATUS(cr_load_file_with(reg, fixture_path("example.yaml"), &v), CR_ERR_INVALID_ARGUMENT);
    const char *paths[] = {fixture_path("example.yaml")};
    CHECK_STATUS(cr_load_files_with(reg, paths, 1, &v), CR_ERR_INVALID_ARGUMENT);

    /* The file loaders: the path names the file, the source name is ignored. */
    cr_registry *r2 = cr_registry_new();
    CHECK_STATUS(register_example_classes(r2, &s1, &s2), CR_OK);
    lo.source_name = "ignored";
    CHECK_STATUS(cr_load_file_with(r2, fixture_path("example.yaml"), &lo), CR_OK);
    CHECK_STATUS(cr_load_file_with(r2, fixture_path("example.yaml"), &lo), CR_ERR_DUPLICATE);
    CHECK_CONTAINS(cr_last_error_problem(0)->file, "example.yaml");
    lo.flags = CR_LOAD_OVERRIDE;
    CHECK_STATUS(cr_load_file_with(r2, fixture_path("example.yaml"), &lo), CR_OK);
    CHECK_STATUS(cr_load_files_with(r2, paths, 1, &lo), CR_OK);
    CHECK_STATUS(cr_load_files_with(r2, paths, 1, NULL), CR_ERR_DUPLICATE);
    CHECK_STATUS(cr_load_file_with(r2, NULL, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_load_file_with: path is NULL");
    CHECK_STATUS(cr_load_file_with(NULL, paths[0], NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_load_file_with: reg is NULL");
    CHECK_STATUS(cr_load_files_with(r2, NULL, 1, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(cr_load_files_with(r2, paths, SIZE_MAX, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(cr_load_string_with(r2, NULL, 3, NULL), CR_ERR_INVALID_ARGUMENT);
    cr_registry_free(r2);
    cr_registry_free(reg);
}

/* ---- Structured diagnostics ------------------------------------------------------------------ */

static void problems(void) {
    cr_clear_error();
    CHECK_INT(cr_last_error_count(), 0);
    CHECK(cr_last_error_problem(0) == NULL);

    /* A failure without a place: one problem, file "", line and column 0. */
    cr_registry *reg = cr_registry_new();
    CHECK(cr_registry_create(reg, "Nothing", NULL) == NULL);
    CHECK_INT(cr_last_error_count(), 1);
    const cr_problem *p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->code, CR_ERR_NOT_FOUND);
        CHECK_STR(p->file, "");
        CHECK_INT(p->line, 0);
        CHECK_INT(p->column, 0);
        CHECK_STR(p->message, cr_last_error_message());
    }
    CHECK(cr_last_error_problem(1) == NULL);
    CHECK(cr_last_error_problem(SIZE_MAX) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND); /* out of range is not an error */

    /* Several problems of several kinds, in the order of the flattened message. */
    const char *text = "A: {ClassName: X, Dependencies: {b: Gone}}\n"
                       "B: {ClassName: X, Dependencies: {a: Lost}}\n"
                       "C: {ClassName: X, Dependencies: {m: Missing}}\n"
                       "D: {ClassName: X, Bogus: 1}\n";
    CHECK(load_yaml(reg, text) != CR_OK);
    size_t n = cr_last_error_count();
    CHECK(n >= 3);
    const char *flat = cr_last_error_message();
    CHECK_INT(count_lines(flat), (int)n + 1); /* "N problems:" then one line each */
    const char *line = strchr(flat, '\n');
    for (size_t i = 0; i < n && line; i++) {
        const cr_problem *q = cr_last_error_problem(i);
        CHECK(q != NULL);
        if (!q) break;
        char expect[512];
        snprintf(expect, sizeof expect, "%s:%u:%u: %s", q->file, (unsigned)q->line, (unsigned)q->column, q->message);
        CHECK(strncmp(line + 3, expect, strlen(expect)) == 0); /* "\n  " before each */
        CHECK(q->code != CR_OK);
        CHECK(q->line >= 1 && q->line <= 4);
        line = strchr(line + 1, '\n');
    }
    /* The call's code is the lowest of its problems' codes. */
    int lowest = cr_last_error_problem(0)->code;
    for (size_t i = 1; i < n; i++)
        if (cr_last_error_problem(i)->code < lowest) lowest = cr_last_error_problem(i)->code;
    CHECK_INT(cr_last_error_code(), lowest);

    /* A suggestion, when the library has one, is a name; never required. */
    CHECK(load_yaml(reg, "Screen: X\nUser: {ClassName: X, Dependencies: {s: Screem}}\n") != CR_OK);
    p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p && p->suggestion) CHECK_STR(p->suggestion, "Screen");

    /* A later success leaves the record; cr_clear_error empties it. */
    CHECK_STATUS(load_yaml(reg, "Fine: X\n"), CR_OK);
    CHECK(cr_last_error_count() >= 1);
    cr_clear_error();
    CHECK_INT(cr_last_error_count(), 0);
    CHECK(cr_last_error_problem(0) == NULL);
    CHECK_STR(cr_last_error_message(), "");
    cr_registry_free(reg);
}

/* ---- Edges of the C API (issue 12) --------------------------------------------------------- */

static void huge_lengths(void) {
    cr_registry *reg = cr_registry_new();
    const char *text = "A: X\n";
    size_t lengths[] = {SIZE_MAX, (size_t)1 << 63, SIZE_MAX - 5};
    for (int i = 0; i < 3; i++) {
        CHECK_STATUS(cr_load_string(reg, text, lengths[i], CR_FORMAT_YAML), CR_ERR_LIMIT);
        CHECK_CONTAINS(cr_last_error_message(), "exceeds the limit");
        cr_load_options o = CR_LOAD_OPTIONS_INIT;
        CHECK_STATUS(cr_load_string_with(reg, text, lengths[i], &o), CR_ERR_LIMIT);
    }
    /* Nothing was loaded. */
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 0);
    cr_value_free(entries);
    cr_registry_free(reg);
}

static void names_must_be_utf8(void) {
    cr_registry *reg = cr_registry_new();
    static const cr_class cls = {.create = plain_create};
    CHECK_STATUS(cr_register_class(reg, "X", &cls, NULL), CR_OK);
    const char *bad1 = "E\xff", *bad2 = "E\xfe", *lone = "\xc3", *surrogate = "\xed\xa0\x80";
    const char *names[] = {bad1, bad2, lone, surrogate};
    for (int i = 0; i < 4; i++) {
        CHECK_STATUS(cr_add_entry(reg, names[i], "X", CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "not valid UTF-8");
        CHECK_STATUS(cr_add_entry(reg, "Ok", names[i], CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(cr_register_class(reg, names[i], &cls, NULL), CR_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(cr_replace_class(reg, names[i], &cls, NULL), CR_ERR_INVALID_ARGUMENT);
        CHECK(cr_registry_create(reg, names[i], NULL) == NULL);
        CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "not valid UTF-8");
        CHECK_STATUS(cr_remove_entry(reg, names[i]), CR_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(cr_inject(reg, names[i], (void *)&cls), CR_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(cr_add_name_template(reg, names[i]), CR_ERR_INVALID_ARGUMENT);
    }
    /* Nothing was added under a repaired name. */
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 0);
    cr_value_free(entries);
    /* Valid multi-byte names work. */
    CHECK_STATUS(cr_add_entry(reg, "\xc3\xa9t\xc3\xa9", "X", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);
    void *o = cr_registry_create(reg, "\xc3\xa9t\xc3\xa9", NULL);
    CHECK(o != NULL);
    free(o);
    cr_registry_free(reg);
}

static void string_limit_applies_to_names(void) {
    cr_registry *reg = cr_registry_new();
    static const cr_class cls = {.create = plain_create};
    CHECK_STATUS(cr_register_class(reg, "X", &cls, NULL), CR_OK);
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_STRING_BYTES, 1024), CR_OK);
    size_t n = 1 << 20;
    char *big = malloc(n + 1);
    memset(big, 'N', n);
    big[n] = '\0';
    CHECK_STATUS(cr_add_entry(reg, big, "X", CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "string limit of 1024 bytes");
    /* Every limit's message names its setting and how to raise it (the README's Limits). */
    CHECK_CONTAINS(cr_last_error_message(), "(CR_LIMIT_STRING_BYTES: raise it with cr_registry_set_limit");
    CHECK_STATUS(cr_add_entry(reg, "Ok", big, CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_LIMIT);
    CHECK_STATUS(cr_register_class(reg, big, &cls, NULL), CR_ERR_LIMIT);
    CHECK(cr_registry_create(reg, big, NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "(CR_LIMIT_STRING_BYTES: raise it with cr_registry_set_limit");
    CHECK_STATUS(cr_remove_entry(reg, big), CR_ERR_LIMIT);
    CHECK_STATUS(cr_inject(reg, big, (void *)&cls), CR_ERR_LIMIT);
    CHECK_STATUS(cr_add_name_template(reg, big), CR_ERR_LIMIT);
    /* One past the limit: refused; at the limit: accepted. */
    big[1025] = '\0';
    CHECK_STATUS(cr_add_entry(reg, big, "X", CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_LIMIT);
    CHECK(cr_registry_create(reg, big, NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_LIMIT);
    big[1024] = '\0';
    CHECK_STATUS(cr_add_entry(reg, big, "X", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);
    void *o = cr_registry_create(reg, big, NULL);
    CHECK(o != NULL);
    free(o);
    free(big);
    cr_registry_free(reg);
}

static void entries_limit_counts_overrides_once(void) {
    cr_registry *reg = cr_registry_new();
    static const cr_class cls = {.create = plain_create};
    CHECK_STATUS(cr_register_class(reg, "X", &cls, NULL), CR_OK);
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_ENTRIES, 5), CR_OK);
    const char *three = "A: X\nB: X\nC: X\n";
    CHECK_STATUS(load_yaml(reg, three), CR_OK);
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.flags = CR_LOAD_OVERRIDE;
    CHECK_STATUS(cr_load_string_with(reg, three, strlen(three), &o), CR_OK);
    CHECK_STATUS(cr_load_string_with(reg, three, strlen(three), &o), CR_OK);
    /* Two new ones fit (5), a third does not. */
    const char *more = "A: X\nD: X\nE: X\n";
    CHECK_STATUS(cr_load_string_with(reg, more, strlen(more), &o), CR_OK);
    const char *over = "A: X\nF: X\n";
    CHECK_STATUS(cr_load_string_with(reg, over, strlen(over), &o), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "limit of 5 entries");
    /* The limit lowered below the 5 entries held: what adds no name still works (an override of
     * names defined, a removal), so the registry can be cut down; an add is refused. */
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_ENTRIES, 2), CR_OK);
    CHECK_STATUS(cr_load_string_with(reg, three, strlen(three), &o), CR_OK);
    CHECK_STATUS(cr_remove_entry(reg, "E"), CR_OK);
    CHECK_STATUS(cr_add_entry(reg, "F", "X", CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "limit of 2 entries");
    CHECK_STATUS(cr_remove_entry(reg, "D"), CR_OK);
    CHECK_STATUS(cr_remove_entry(reg, "C"), CR_OK);
    CHECK_STATUS(cr_remove_entry(reg, "B"), CR_OK);
    CHECK_STATUS(cr_add_entry(reg, "F", "X", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);
    cr_registry_free(reg);
}

static void null_name_names_the_function(void) {
    cr_registry *reg = cr_registry_new();
    CHECK(cr_registry_create(reg, NULL, NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_registry_create: name is NULL");
    CHECK(cr_create(NULL, NULL) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_create: name is NULL");
    CHECK(cr_registry_create(NULL, "A", NULL) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_registry_create: reg is NULL");
    cr_registry_free(reg);
}

/* cr_map_get finds exactly the key asked for: not a key it is a prefix of, nor one that is its
 * prefix, in maps made with cr_map_new and in the args map of a create. */
static const char *const map_probes[] = {"title", "titles", "t", "", "ti", "titlesx", "tiXle", "x"};
static int64_t map_found[8];

static void read_probes(const cr_value *map) {
    for (size_t i = 0; i < sizeof map_probes / sizeof map_probes[0]; i++) {
        const cr_value *v = cr_map_get(map, map_probes[i]);
        map_found[i] = v ? cr_value_int(v) : -1;
    }
}

static void *probe_create(const cr_value *args, void *user_data) {
    (void)user_data;
    read_probes(args);
    return &map_found;
}

static void map_get_matches_whole_keys(void) {
    cr_value *m = cr_map_new();
    CHECK_STATUS(cr_map_set_int(m, "title", 1), CR_OK);
    CHECK_STATUS(cr_map_set_int(m, "titles", 2), CR_OK);
    CHECK_STATUS(cr_map_set_int(m, "t", 3), CR_OK);
    CHECK_STATUS(cr_map_set_int(m, "", 4), CR_OK);
    const int64_t expected[8] = {1, 2, 3, 4, -1, -1, -1, -1};
    read_probes(m);
    for (int i = 0; i < 8; i++) CHECK_INT(map_found[i], expected[i]);

    cr_registry *reg = cr_registry_new();
    cr_class cls = {.create = probe_create};
    CHECK_STATUS(cr_register_class(reg, "Probe", &cls, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, "P: {ClassName: Probe, Dependencies: {titles: 2, t: 3, title: 1}}\n"), CR_OK);
    cr_value *props = cr_map_new();
    CHECK_STATUS(cr_map_set_int(props, "", 4), CR_OK);
    memset(map_found, 0, sizeof map_found);
    CHECK(cr_registry_create(reg, "P", props) == &map_found);
    for (int i = 0; i < 8; i++) CHECK_INT(map_found[i], expected[i]);
    cr_value_free(props);
    cr_value_free(m);
    cr_registry_free(reg);
}

/* A callback's args map tries the slot after the last key found, then searches on from there
 * (wrapping around): whatever the order of reads (declared, reversed, skipping ahead and back,
 * repeated, near misses, absent keys), each finds its own value. */
static const char *const order_keys[] = {"a", "b", "title", "count", "ratio", "titles", "", "x", "c"};
static const int64_t order_values[] = {1, 2, 3, 4, 5, -1, -1, -1, -1};
static const int order_reads[] = {0, 1, 2, 3, 4, 4, 3, 2, 1, 0, 0, 3, 4, 2, 1, 5, 2, 6,
                                  3, 7, 0, 8, 4, 1, 2, 3, 4, 0, 1, 2, 3, 4, 8, 8, 2, 2};
static int order_bad;

static void *order_create(const cr_value *args, void *user_data) {
    (void)user_data;
    for (size_t i = 0; i < sizeof order_reads / sizeof order_reads[0]; i++) {
        int k = order_reads[i];
        const cr_value *v = cr_map_get(args, order_keys[k]);
        int64_t got = v ? cr_value_int(v) : -1;
        if (got != order_values[k]) order_bad++;
    }
    return &order_bad;
}

static void map_get_in_any_order(void) {
    cr_registry *reg = cr_registry_new();
    cr_class cls = {.create = order_create};
    CHECK_STATUS(cr_register_class(reg, "Order", &cls, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, "O: {ClassName: Order, Dependencies: {a: 1, b: 2, title: 3, count: 4}}\n"), CR_OK);
    cr_value *props = cr_map_new();
    CHECK_STATUS(cr_map_set_int(props, "ratio", 5), CR_OK);
    order_bad = 0;
    for (int i = 0; i < 3; i++) CHECK(cr_registry_create(reg, "O", props) == &order_bad);
    CHECK_INT(order_bad, 0);
    cr_value_free(props);
    cr_registry_free(reg);
}

/* A map the host builds keeps one value per key in first-set order at every size, through the
 * index it gets past 32 keys (a set costs the same in a map of 6,000 keys as in one of 10):
 * keys set again replace their value in place, keys alike but for one byte, or a prefix of
 * another, stay apart; the map is read whole as a create's props. */
static int big_props_bad;
static void *big_props_create(const cr_value *args, void *user_data) {
    (void)user_data;
    char key[32];
    for (int i = 0; i < 6000; i++) {
        snprintf(key, sizeof key, "k%d", i);
        if (cr_value_int(cr_map_get(args, key)) != -i) big_props_bad++;
    }
    return &big_props_bad;
}
static void big_maps_keep_one_value_per_key(void) {
    cr_value *m = cr_map_new();
    char key[32];
    for (int i = 0; i < 6000; i++) {
        snprintf(key, sizeof key, "k%d", i);
        CHECK_STATUS(cr_map_set_int(m, key, i), CR_OK);
    }
    CHECK_STATUS(cr_map_set_string(m, "", "empty"), CR_OK);
    CHECK_STATUS(cr_map_set_string(m, "k1x", "alike"), CR_OK);
    for (int i = 5999; i >= 0; i--) {
        snprintf(key, sizeof key, "k%d", i);
        CHECK_STATUS(cr_map_set_int(m, key, -i), CR_OK);
    }
    CHECK_INT(cr_value_count(m), 6002);
    int bad = 0;
    for (int i = 0; i < 6000; i++) {
        snprintf(key, sizeof key, "k%d", i);
        if (strcmp(cr_map_key_at(m, (size_t)i), key) != 0 || cr_value_int(cr_map_value_at(m, (size_t)i)) != -i) bad++;
    }
    CHECK_INT(bad, 0);
    CHECK(strcmp(cr_map_key_at(m, 6000), "") == 0);
    CHECK(strcmp(cr_value_string(cr_map_get(m, "k1x")), "alike") == 0);
    CHECK_INT(cr_value_int(cr_map_get(m, "k1")), -1);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Big", &(cr_class){.create = big_props_create}, NULL), CR_OK);
    big_props_bad = 0;
    CHECK(cr_registry_create(reg, "Big", m) == &big_props_bad);
    CHECK_INT(big_props_bad, 0);
    cr_registry_free(reg);
    cr_value_free(m);
}

/* A NULL map or list is named as the header names the parameter ("map is NULL", "list is
 * NULL"), not "value is NULL": a host reading that looks at its value argument, which is fine. */
static void null_container_named_as_its_parameter(void) {
    cr_value *m = cr_map_new();
    CHECK_STATUS(cr_map_set_string(NULL, "k", "v"), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_string: map is NULL");
    CHECK_STATUS(cr_map_set_null(NULL, "k"), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_null: map is NULL");
    CHECK_STATUS(cr_map_set_value(NULL, "k", cr_list_new()), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_value: map is NULL");
    CHECK_STATUS(cr_list_push_string(NULL, "v"), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_list_push_string: list is NULL");
    CHECK_STATUS(cr_list_push_value(NULL, cr_map_new()), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_list_push_value: list is NULL");
    CHECK(cr_map_key_at(NULL, 0) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_key_at: map is NULL");
    CHECK(cr_map_value_at(NULL, 0) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_value_at: map is NULL");
    CHECK(cr_list_at(NULL, 0) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_list_at: list is NULL");
    CHECK(cr_value_count(NULL) == 0);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_count: value is NULL");
    cr_value_free(m);
}

/* Every reader refuses NULL and a value of another kind with its own name in the message, the
 * codes the header gives, and 0 / NULL. */
static void readers_refuse_by_name(void) {
    cr_value *m = cr_map_new();
    CHECK_STATUS(cr_map_set_string(m, "s", "x"), CR_OK);
    const cr_value *s = cr_map_get(m, "s");
    CHECK(s != NULL);
    cr_clear_error();
    CHECK(cr_map_get(NULL, "s") == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_get: map is NULL");
    CHECK(cr_map_get(m, NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_get: key is NULL");
    CHECK(cr_map_get(s, "s") == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    CHECK_CONTAINS(cr_last_error_message(), "cr_map_get: expected a map, got a string");
    cr_clear_error();
    CHECK(cr_map_get(m, "absent") == NULL);
    CHECK_LAST_ERROR(CR_OK);

    CHECK(cr_value_bool(NULL) == 0);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_bool: value is NULL");
    CHECK(cr_value_bool(s) == 0);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_bool: expected a boolean, got a string");
    CHECK(cr_value_int(NULL) == 0);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_int: value is NULL");
    CHECK(cr_value_int(s) == 0);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_int: expected an integer, got a string");
    CHECK(cr_value_double(NULL) == 0);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_double: value is NULL");
    CHECK(cr_value_double(s) == 0);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_double: expected a number, got a string");
    CHECK(cr_value_object(NULL) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_object: value is NULL");
    CHECK(cr_value_object(s) == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_object: expected an object, got a string");
    CHECK(cr_value_string(NULL) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_string: value is NULL");
    CHECK(cr_value_string(m) == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_string: expected a string, got a map");
    cr_value_free(m);
}

void test_abi(void) {
    version_number();
    create_with_reports_owner_and_destroyer();
    class_without_destroy_has_no_destroyer();
    provider_create_with();
    class_version();
    load_options();
    problems();
    huge_lengths();
    names_must_be_utf8();
    string_limit_applies_to_names();
    entries_limit_counts_overrides_once();
    null_name_names_the_function();
    map_get_matches_whole_keys();
    map_get_in_any_order();
    readers_refuse_by_name();
    null_container_named_as_its_parameter();
    big_maps_keep_one_value_per_key();
}
