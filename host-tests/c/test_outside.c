/* What a host writing against the installed library meets from outside: inputs the other groups
 * do not try, each refused with a typed error at its place. Under valgrind: a leak or an invalid
 * read fails. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static void *plain_create(const cr_value *args, void *user_data) {
    (void)args;
    int *counter = user_data;
    if (counter) ++*counter;
    return malloc(16);
}

static void plain_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static const cr_class plain_class = {.create = plain_create, .destroy = plain_destroy};

/* An empty tag could never be named by {Tagged: t} (which refuses an empty t): it is refused where
 * the entry is defined, in a config of every format and from code, and nothing is loaded. */
static void empty_tags_are_refused(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    static const struct {
        const char *text;
        cr_format format;
        const char *place;
    } configs[] = {
        {"A: {ClassName: C, Tag: ''}\n", CR_FORMAT_YAML, "<string>:1:1: "},
        {"B: C\nA: {ClassName: C, Tag: [x, '', 5]}\n", CR_FORMAT_YAML, "<string>:2:1: "},
        {"{\"A\": {\"ClassName\": \"C\", \"Tag\": \"\"}}", CR_FORMAT_JSON, "<string>:1:2: "},
        {"<plist version=\"1.0\"><dict><key>A</key><dict><key>ClassName</key><string>C</string>"
         "<key>Tag</key><array><string></string></array></dict></dict></plist>",
         CR_FORMAT_PLIST, "<string>:1:"},
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        cr_clear_error();
        CHECK_STATUS(load_text(reg, configs[i].text, configs[i].format), CR_ERR_SCHEMA);
        CHECK_INT(cr_last_error_count(), 1);
        CHECK_CONTAINS(cr_last_error_message(), configs[i].place);
        CHECK_CONTAINS(cr_last_error_message(), "entry 'A' has an empty tag");
        CHECK_CONTAINS(cr_last_error_message(), "remove it or give it a name");
    }
    /* A tag holding a NUL byte cannot be named either. */
    static const char nul_tag[] = "{\"A\": {\"ClassName\": \"C\", \"Tag\": \"a\\u0000b\"}}";
    CHECK_STATUS(load_text(reg, nul_tag, CR_FORMAT_JSON), CR_ERR_SCHEMA);
    CHECK_CONTAINS(cr_last_error_message(), "NUL byte");

    /* From code: one tag or a list holding one. */
    cr_entry_options o = CR_ENTRY_OPTIONS_INIT;
    cr_value *tags = cr_list_new();
    cr_list_push_string(tags, "screen");
    cr_list_push_string(tags, "");
    o.tags = tags;
    CHECK_STATUS(cr_add_entry_with(reg, "A", "C", &o), CR_ERR_SCHEMA);
    CHECK_CONTAINS(cr_last_error_message(), "entry 'A' has an empty tag");
    cr_value_free(tags);
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 0);
    cr_value_free(entries);

    /* Non-empty tags, integer tags and the tag "0" still load and match. */
    CHECK_STATUS(load_yaml(reg, "A: {ClassName: C, Tag: [x, 0]}\nB: {ClassName: C, Dependencies: {l: {Tagged: 0}}}\n"), CR_OK);
    /* An empty name is not a typo of anything: no "did you mean". */
    CHECK(cr_registry_create(reg, "", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    CHECK(cr_last_error_problem(0) && cr_last_error_problem(0)->suggestion == NULL);
    CHECK(strstr(cr_last_error_message(), "did you mean") == NULL);
    cr_registry_free(reg);
}

/* A class that logs its destroys by the "name" literal of each object. */
typedef struct {
    char log[128];
} destroy_log;

static void *named_create(const cr_value *args, void *user_data) {
    (void)user_data;
    const char *name = cr_value_string(cr_map_get(args, "name"));
    char *o = malloc(16);
    snprintf(o, 16, "%s", name ? name : "?");
    return o;
}

static void named_destroy(void *object, void *user_data) {
    destroy_log *log = user_data;
    size_t n = strlen(log->log);
    snprintf(log->log + n, sizeof log->log - n, "%s~%s", n ? " " : "", (const char *)object);
    free(object);
}

static const cr_class named_class = {.create = named_create, .destroy = named_destroy};

/* Every call on a closed registry's handle (closed with its parent, or freed from a callback while
 * the handle is still valid) fails saying why, with the call's name where it has none of its own:
 * none answers as if the registry were merely empty (an empty entry list, a limit). */
static void every_call_fails_on_a_closed_registry(cr_registry *reg, const char *why) {
    cr_clear_error();
    CHECK(cr_registry_entries(reg) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_registry_entries: ");
    CHECK_CONTAINS(cr_last_error_message(), why);
    cr_clear_error();
    CHECK_INT(cr_registry_get_limit(reg, CR_LIMIT_DEPTH), -1);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_registry_get_limit: ");
    CHECK_CONTAINS(cr_last_error_message(), why);
    CHECK_STATUS(cr_remove_entry(reg, "T"), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), why);
    CHECK_STATUS(cr_add_entry(reg, "Z", "N", CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), why);
    CHECK_STATUS(cr_add_name_template(reg, "{name}X"), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), why);
    CHECK_STATUS(cr_registry_reload(reg), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), why);
    cr_value *changes = cr_map_new();
    cr_value *given = changes;
    CHECK_STATUS(cr_registry_reload_with(reg, &changes), CR_ERR_INVALID_ARGUMENT);
    CHECK(changes == NULL);
    cr_value_free(given);
    CHECK_STATUS(cr_load_file(reg, fixture_path("example.yaml"), CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), why);
    cr_clear_error();
    CHECK(cr_registry_create_with(reg, "T", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK(cr_registry_new_child(reg) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "cr_registry_new_child: ");
    CHECK_CONTAINS(cr_last_error_message(), why);
}

/* A parent freed before its children (documented misuse) closes them with it, theirs first: a
 * child's singleton may hold the parent's. Every later call on a child says why it fails; freeing
 * the child's handle afterwards is still right and frees it. */
static void a_child_closes_with_its_parent(void) {
    destroy_log log = {{0}};
    cr_registry *parent = cr_registry_new();
    CHECK_STATUS(cr_register_class(parent, "N", &named_class, &log), CR_OK);
    CHECK_STATUS(load_yaml(parent,
                           "S: {ClassName: N, Lifestyle: singleton, Dependencies: {name: '@S'}}\n"
                           "T: {ClassName: N, Dependencies: {name: '@T'}}\n"),
                 CR_OK);
    cr_registry *child = cr_registry_new_child(parent);
    cr_registry *grandchild = cr_registry_new_child(child);
    CHECK(child && grandchild);
    CHECK_STATUS(load_yaml(child, "CS: {ClassName: N, Lifestyle: singleton, Dependencies: {name: '@CS', s: S}}\n"), CR_OK);
    CHECK(cr_registry_create(grandchild, "CS", NULL) != NULL);

    cr_registry_free(parent);
    CHECK_STR(log.log, "~CS ~S");

    static const char why[] = "its parent registry was freed first";
    cr_registry *closed[] = {child, grandchild};
    for (size_t i = 0; i < 2; i++) {
        cr_clear_error();
        CHECK(cr_registry_create(closed[i], "T", NULL) == NULL);
        CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cannot create 'T': ");
        CHECK_CONTAINS(cr_last_error_message(), why);
        CHECK(cr_registry_create(closed[i], "S", NULL) == NULL);
        CHECK_CONTAINS(cr_last_error_message(), why);
        CHECK_STATUS(load_yaml(closed[i], "U: N\n"), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), why);
        CHECK_STATUS(cr_register_class(closed[i], "M", &named_class, &log), CR_ERR_INVALID_ARGUMENT);
        CHECK(cr_registry_new_child(closed[i]) == NULL);
        CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
        /* Calls that used to succeed quietly or say "no entry" on a closed registry. */
        CHECK_STATUS(cr_registry_set_limit(closed[i], CR_LIMIT_DEPTH, 5), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), why);
        CHECK_STATUS(cr_registry_start(closed[i]), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), why);
        char object[8];
        CHECK_STATUS(cr_inject(closed[i], "T", object), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cannot inject 'T': ");
        CHECK_CONTAINS(cr_last_error_message(), why);
        every_call_fails_on_a_closed_registry(closed[i], why);
    }
    cr_registry_free(grandchild);
    cr_registry_free(child);
    CHECK_STR(log.log, "~CS ~S");
}

/* The parent freed from a create callback of its child: the child closes with it at once (a
 * nested create on it fails), its singletons and the parent's are destroyed (theirs first) when
 * that create returns, and the object being built is still returned. */
static cr_registry *parent_to_free;

static void *freeing_parent_create(const cr_value *args, void *user_data) {
    cr_registry *child = user_data;
    cr_registry *parent = parent_to_free;
    parent_to_free = NULL;
    if (parent) cr_registry_free(parent);
    CHECK(cr_registry_create(child, "T", NULL) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "its parent registry was freed first");
    CHECK(cr_value_kind(cr_map_get(args, "cs")) == CR_OBJECT);
    return malloc(16);
}

static void a_parent_freed_inside_its_childs_create(void) {
    destroy_log log = {{0}};
    cr_registry *parent = cr_registry_new();
    CHECK_STATUS(cr_register_class(parent, "N", &named_class, &log), CR_OK);
    CHECK_STATUS(load_yaml(parent,
                           "S: {ClassName: N, Lifestyle: singleton, Dependencies: {name: '@S'}}\n"
                           "T: {ClassName: N, Dependencies: {name: '@T'}}\n"),
                 CR_OK);
    cr_registry *child = cr_registry_new_child(parent);
    const cr_class freeing = {.create = freeing_parent_create, .destroy = plain_destroy};
    CHECK_STATUS(cr_register_class(child, "F", &freeing, child), CR_OK);
    CHECK_STATUS(load_yaml(child,
                           "CS: {ClassName: N, Lifestyle: singleton, Dependencies: {name: '@CS', s: S}}\n"
                           "Top: {ClassName: F, Dependencies: {cs: CS}}\n"),
                 CR_OK);
    parent_to_free = parent;
    void *top = cr_registry_create(child, "Top", NULL);
    CHECK(top != NULL);
    free(top);
    CHECK_STR(log.log, "~CS ~S");
    CHECK(cr_registry_create(child, "CS", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    cr_registry_free(child);
}

/* cr_registry_free runs the singletons' destroy callbacks, which may still hold the handle (the
 * header defines a second free from there): listing the entries or reading a limit from there
 * fails saying the registry has been freed, as does the same inside a create that freed it. */
static cr_registry *registry_being_freed;
static int closed_calls_checked;

static void listing_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
    if (!registry_being_freed) return;
    every_call_fails_on_a_closed_registry(registry_being_freed, "the registry has been freed");
    closed_calls_checked++;
}

static void *freeing_self_create(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    cr_registry *reg = registry_being_freed;
    registry_being_freed = NULL;
    cr_registry_free(reg);
    every_call_fails_on_a_closed_registry(reg, "the registry has been freed");
    closed_calls_checked++;
    return malloc(16);
}

static void a_freed_registry_answers_no_call(void) {
    const cr_class listing = {.create = plain_create, .destroy = listing_destroy};
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "L", &listing, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, "S: {ClassName: L, Lifestyle: singleton}\n"), CR_OK);
    CHECK(cr_registry_create(reg, "S", NULL) != NULL);
    closed_calls_checked = 0;
    registry_being_freed = reg;
    cr_registry_free(reg);
    registry_being_freed = NULL;
    CHECK_INT(closed_calls_checked, 1);

    reg = cr_registry_new();
    const cr_class freeing = {.create = freeing_self_create, .destroy = plain_destroy};
    CHECK_STATUS(cr_register_class(reg, "F", &freeing, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, "T: F\n"), CR_OK);
    closed_calls_checked = 0;
    registry_being_freed = reg;
    void *made = cr_registry_create(reg, "T", NULL);
    CHECK(made != NULL);
    free(made);
    CHECK_INT(closed_calls_checked, 1);
}

/* Text a host hands over is UTF-8, as names are, and never repaired: keys and strings put into
 * values (props, dependencies, an environment map, tags) and paths are refused with the function,
 * the thing and the first bad byte, and nothing is stored or opened. (A key or string used to be
 * kept as bytes, which Swift read repaired and Python as surrogates; a path was repaired into the
 * name of another file, which was then loaded instead.) */
static void text_in_values_and_paths_must_be_utf8(void) {
    static const char *bad[] = {"a\xff"
                                "b",
                                "\xc3", "\xed\xa0\x80", "\xc0\xaf"};
    cr_value *map = cr_map_new(), *list = cr_list_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_STATUS(cr_map_set_string(map, "k", bad[i]), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_string: value '");
        CHECK_CONTAINS(cr_last_error_message(), "' is not valid UTF-8 (byte ");
        CHECK_CONTAINS(cr_last_error_message(), "convert it to UTF-8 first");
        CHECK_STATUS(cr_map_set_string(map, bad[i], "v"), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_string: key '");
        CHECK_STATUS(cr_map_set_int(map, bad[i], 1), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_int: key '");
        CHECK_STATUS(cr_map_set_null(map, bad[i]), CR_ERR_INVALID_ARGUMENT);
        CHECK_STATUS(cr_map_set_object(map, bad[i], map), CR_ERR_INVALID_ARGUMENT);
        /* A refused value is taken even so (valgrind sees it freed). */
        CHECK_STATUS(cr_map_set_value(map, bad[i], cr_list_new()), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cr_map_set_value: key '");
        CHECK_STATUS(cr_list_push_string(list, bad[i]), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cr_list_push_string: value '");
    }
    CHECK_INT(cr_value_count(map), 0);
    CHECK_INT(cr_value_count(list), 0);
    CHECK_STATUS(cr_map_set_string(map, "k",
                                   "a\xff"
                                   "b"),
                 CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "(byte 1 is 0xff)");
    /* Valid multi-byte text is kept byte for byte. */
    CHECK_STATUS(cr_map_set_string(map, "\xc3\xa9t\xc3\xa9", "\xf0\x9f\x98\x80!"), CR_OK);
    CHECK_STR(cr_value_string(cr_map_get(map, "\xc3\xa9t\xc3\xa9")), "\xf0\x9f\x98\x80!");
    cr_value_free(map);
    cr_value_free(list);

    /* Paths: "app\xff.yaml" must not become "app\xef\xbf\xbd.yaml" (U+FFFD), another file. */
    char dir[64], badpath[96], repaired[96], good[96];
    snprintf(dir, sizeof dir, "/tmp/cr-outside-XXXXXX");
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    snprintf(badpath, sizeof badpath, "%s/app\xff.yaml", dir);
    snprintf(repaired, sizeof repaired, "%s/app\xef\xbf\xbd.yaml", dir);
    snprintf(good, sizeof good, "%s/good.yaml", dir);
    const char *files[][2] = {{badpath, "A: C\n"}, {repaired, "B: C\n"}, {good, "G: C\n"}};
    for (size_t i = 0; i < 3; i++) {
        FILE *f = fopen(files[i][0], "w");
        CHECK(f != NULL);
        if (!f) return;
        fputs(files[i][1], f);
        fclose(f);
    }
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    CHECK_STATUS(cr_load_file(reg, badpath, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_load_file: path '");
    CHECK_CONTAINS(cr_last_error_message(), "is not valid UTF-8");
    CHECK_CONTAINS(cr_last_error_message(), "rename the file, or reach it through a link whose path is UTF-8");
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    CHECK_STATUS(cr_load_file_with(reg, badpath, &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_load_file_with: path '");
    const char *paths[] = {good, badpath};
    CHECK_STATUS(cr_load_files(reg, paths, 2, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_load_files: paths[1] '");
    o.source_name = "src\xff";
    CHECK_STATUS(cr_load_string_with(reg, "X: C\n", 5, &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "options->source_name '");
    /* Nothing was loaded, from either file. */
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 0);
    cr_value_free(entries);
    CHECK_STATUS(cr_load_file(reg, good, CR_FORMAT_AUTO), CR_OK);
    cr_registry_free(reg);
    for (size_t i = 0; i < 3; i++) unlink(files[i][0]);
    rmdir(dir);
}

/* A name given to a create that is not UTF-8 is refused as every other door refuses one: the
 * first bad byte and the fix (it used to say only "the name is not valid UTF-8"), through every
 * create function, also when name templates are tried. */
static void a_created_name_must_be_utf8(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    CHECK_STATUS(cr_load_string(reg, "A: C\n", 5, CR_FORMAT_YAML), CR_OK);
    CHECK(cr_registry_create(reg,
                             "A\xff"
                             "b",
                             NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_STR(cr_last_error_message(),
              "cr_registry_create: cannot create: name 'A\xef\xbf\xbd"
              "b' is not valid UTF-8 (byte 1 is 0xff): text is never repaired; convert it to UTF-8 first");
    cr_create_options o = CR_CREATE_OPTIONS_INIT;
    CHECK(cr_registry_create_with(reg, "\xc3", &o) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "is not valid UTF-8 (byte 0 is 0xc3): text is never repaired; convert it");
    CHECK_STATUS(cr_add_name_template(reg, "{name}Controller"), CR_OK);
    CHECK(cr_registry_create(reg, "\xed\xa0\x80", NULL) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "(byte 0 is 0xed)");
    cr_registry_free(reg);
}

/* An unknown lifestyle and props that are not a map say what to give instead. */
static void wrong_enums_and_props_name_the_fix(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    CHECK_STATUS(cr_add_entry(reg, "A", "C", (cr_lifestyle)7, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_STR(cr_last_error_message(), "cr_add_entry: unknown lifestyle 7 (use CR_LIFESTYLE_TRANSIENT, _SINGLETON or _GRAPH)");
    cr_entry_options o = CR_ENTRY_OPTIONS_INIT;
    o.lifestyle = (cr_lifestyle)3;
    CHECK_STATUS(cr_add_entry_with(reg, "A", "C", &o), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "unknown lifestyle 3 (use CR_LIFESTYLE_TRANSIENT");
    /* A negative enum value reads as the host wrote it, as a limit's does. */
    CHECK_STATUS(cr_add_entry(reg, "A", "C", (cr_lifestyle)-1, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_add_entry: unknown lifestyle -1 (use");
    CHECK_STATUS(cr_load_string(reg, "A: C", 4, (cr_format)-2), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_load_string: unknown format -2 (use CR_FORMAT_AUTO");
    CHECK_STATUS(cr_add_entry(reg, "A", "C", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);
    cr_value *list = cr_list_new();
    CHECK(cr_registry_create(reg, "A", list) == NULL);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_STR(cr_last_error_message(), "cr_registry_create: props must be a map (cr_map_new), not a list");
    cr_value_free(list);
    cr_registry_free(reg);
}

/* A config saved in another encoding than UTF-8 is refused at its first bad byte with the fix, in
 * every format: Windows-1252 text ("caf\xe9"), and UTF-16 or UTF-32 (with or without a byte order
 * mark) named as such (they used to be "found byte 0xFF (non-ASCII text outside a string)" or
 * "control characters are not allowed" with no fix). YAML in UTF-16 with a byte order mark, which
 * libyaml reads, still loads. */
static void text_in_another_encoding_names_the_fix(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    static const char *const latin1[] = {
        "{\"A\": {\"ClassName\": \"C\", \"Dependencies\": {\"s\": \"@caf\xe9\"}}}",
        "A:\n  ClassName: C\n  Dependencies: {s: \"@caf\xe9\"}\n",
        "<plist><dict><key>A</key><string>caf\xe9</string></dict></plist>",
    };
    static const cr_format formats[] = {CR_FORMAT_JSON, CR_FORMAT_YAML, CR_FORMAT_PLIST};
    for (size_t i = 0; i < 3; i++) {
        CHECK_STATUS(cr_load_string(reg, latin1[i], strlen(latin1[i]), formats[i]), CR_ERR_SYNTAX);
        CHECK_CONTAINS(cr_last_error_message(), "<string>:");
        CHECK_CONTAINS(cr_last_error_message(), "byte 0xE9");
        CHECK_CONTAINS(cr_last_error_message(), "a config is read as UTF-8: save the file as UTF-8 (from Windows-1252");
    }
    /* "A: C" as UTF-16LE and BE with and without a byte order mark, and as UTF-32LE with one. */
    static const char u16le_bom[] = "\xff\xfe{\0}\0", u16be[] = "\0{\0}", u16le[] = "{\0}\0",
                      u32le_bom[] = "\xff\xfe\0\0{\0\0\0}\0\0\0";
    struct {
        const char *text;
        size_t length;
        const char *encoding;
    } wide[] = {{u16le_bom, 6, "UTF-16"}, {u16be, 4, "UTF-16"}, {u16le, 4, "UTF-16"}, {u32le_bom, 12, "UTF-32"}};
    char want[160];
    for (size_t i = 0; i < sizeof wide / sizeof wide[0]; i++) {
        CHECK_STATUS(cr_load_string(reg, wide[i].text, wide[i].length, CR_FORMAT_JSON), CR_ERR_SYNTAX);
        snprintf(want, sizeof want,
                 "<string>:1:1: the file is %s text; JSON configs are read as UTF-8: convert it (iconv -f %s -t UTF-8)",
                 wide[i].encoding, wide[i].encoding);
        CHECK_STR(cr_last_error_message(), want);
        CHECK_STATUS(cr_load_string(reg, wide[i].text, wide[i].length, CR_FORMAT_PLIST), CR_ERR_SYNTAX);
        CHECK_CONTAINS(cr_last_error_message(), "text; XML property list configs are read as UTF-8: convert it (iconv -f UTF-");
    }
    /* A NUL byte in UTF-8 text is not taken for UTF-16. */
    CHECK_STATUS(cr_load_string(reg, "[\0]", 3, CR_FORMAT_JSON), CR_ERR_SYNTAX);
    CHECK_STR(cr_last_error_message(), "<string>:1:2: expected a value, found control character 0x00");
    static const char y16le[] = "A\0:\0 \0C\0\n\0", y32be_bom[] = "\0\0\xfe\xff\0\0\0A\0\0\0:\0\0\0 \0\0\0C";
    CHECK_STATUS(cr_load_string(reg, y16le, 10, CR_FORMAT_YAML), CR_ERR_SYNTAX);
    CHECK_STR(cr_last_error_message(),
              "<string>:1:1: the file is UTF-16 text; YAML configs are read as UTF-8: convert it (iconv -f UTF-16 -t UTF-8)");
    CHECK_STATUS(cr_load_string(reg, y32be_bom, 20, CR_FORMAT_YAML), CR_ERR_SYNTAX);
    CHECK_CONTAINS(cr_last_error_message(), "the file is UTF-32 text; YAML configs are read as UTF-8");
    /* Nothing loaded so far; YAML in UTF-16 with its byte order mark loads. */
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 0);
    cr_value_free(entries);
    static const char y16le_bom[] = "\xff\xfe"
                                    "A\0:\0 \0C\0\n\0";
    CHECK_STATUS(cr_load_string(reg, y16le_bom, 12, CR_FORMAT_YAML), CR_OK);
    void *a = cr_registry_create(reg, "A", NULL);
    CHECK(a != NULL);
    free(a);
    cr_registry_free(reg);
}

/* A process environment variable whose value is not UTF-8 (a Latin-1 locale's, say) is a problem
 * at each use, CR_ERR_ENVIRONMENT naming the variable and its first bad byte, as text a host
 * hands over is (it used to be substituted repaired, "caf\xef\xbf\xbd"). */
static void environment_values_must_be_utf8(void) {
    setenv("CR_OUTSIDE_LATIN1", "caf\xe9", 1);
    setenv("CR_OUTSIDE_UTF8", "caf\xc3\xa9", 1);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "A: {ClassName: C, Dependencies: {\n"
                           "  t: '@${CR_OUTSIDE_LATIN1}',\n"
                           "  d: '@${CR_OUTSIDE_LATIN1:-x} ${CR_OUTSIDE_UNSET_X}',\n"
                           "  e: {Env: CR_OUTSIDE_LATIN1, Default: x}}}\n"),
                 CR_ERR_ENVIRONMENT);
    CHECK_INT(cr_last_error_count(), 4);
    CHECK_CONTAINS(cr_last_error_message(),
                   "<string>:2:6: entry 'A', key 't': environment variable CR_OUTSIDE_LATIN1 is not valid UTF-8 (byte 3 is "
                   "0xe9): set CR_OUTSIDE_LATIN1 to UTF-8 text");
    CHECK_CONTAINS(cr_last_error_message(), "key 'd': environment variable CR_OUTSIDE_LATIN1 is not valid UTF-8");
    CHECK_CONTAINS(cr_last_error_message(), "key 'd': environment variable CR_OUTSIDE_UNSET_X is not set");
    CHECK_CONTAINS(cr_last_error_message(), "key 'e': environment variable CR_OUTSIDE_LATIN1 is not valid UTF-8");
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 0);
    cr_value_free(entries);
    CHECK_STATUS(load_yaml(reg, "B: {ClassName: C, Dependencies: {t: '@${CR_OUTSIDE_UTF8}', e: {Env: CR_OUTSIDE_UTF8}}}\n"),
                 CR_OK);
    cr_registry_free(reg);
    unsetenv("CR_OUTSIDE_LATIN1");
    unsetenv("CR_OUTSIDE_UTF8");
}

/* A regular file whose size the file system does not report (procfs, sysfs: st_size 0) is read to
 * its end, not taken for an empty config. /proc/self/comm holds the thread's name, set here to a
 * config. */
static void files_of_unreported_size_are_read_whole(void) {
#ifdef __linux__
    char old_name[32] = {0};
    prctl(PR_GET_NAME, old_name, 0, 0, 0);
    prctl(PR_SET_NAME, "A: C", 0, 0, 0);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    CHECK_STATUS(cr_load_file(reg, "/proc/self/comm", CR_FORMAT_YAML), CR_OK);
    void *a = cr_registry_create(reg, "A", NULL);
    CHECK(a != NULL);
    free(a);
    /* The input limit still holds for them. */
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_INPUT_BYTES, 2), CR_OK);
    CHECK_STATUS(cr_load_file(reg, "/proc/self/comm", CR_FORMAT_YAML), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "cannot read '/proc/self/comm': more than the input limit of 2 bytes");
    cr_registry_free(reg);
    prctl(PR_SET_NAME, old_name, 0, 0, 0);
#endif
}

/* A provider of no entry has no text form: its message does not suggest "@Name" (a literal) as it
 * does for a plain reference, in a config and from code alike. */
static void a_missing_provider_target_is_not_called_text(void) {
    static const char want[] =
        "entry 'E', key 'd': no entry named 'Nowhere'; {Provider: Nowhere} needs an entry: define 'Nowhere' or name an "
        "existing one";
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(load_yaml(reg, "E: {ClassName: C, Dependencies: {d: {Provider: Nowhere}}}\n"), CR_ERR_MISSING_REFERENCE);
    CHECK_STR(cr_last_error_problem(0)->message, want);
    cr_value *deps = cr_map_new(), *form = cr_map_new();
    cr_map_set_string(form, "Provider", "Nowhere");
    cr_map_set_value(deps, "d", form);
    CHECK_STATUS(cr_add_entry(reg, "E", "C", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_MISSING_REFERENCE);
    CHECK(strncmp(cr_last_error_problem(0)->message, "cr_add_entry: ", 14) == 0);
    CHECK_STR(cr_last_error_problem(0)->message + 14, want);
    cr_value_free(deps);
    cr_registry_free(reg);
}

/* Each of these problems says what to do about it, not only what is wrong (the README's rule:
 * place, thing and fix). */
static void common_mistakes_name_their_fix(void) {
    static const struct {
        const char *text;
        int code;
        const char *fix;
    } cases[] = {
        {"A: C\nA: D\n", CR_ERR_DUPLICATE, "duplicate key 'A' (first defined at line 1, column 1); remove one of them"},
        {"A: C\n---\nB: C\n", CR_ERR_SCHEMA, "only one YAML document per file; put each in a file of its own"},
        {"A: !!binary aGVsbG8=\n", CR_ERR_SCHEMA, "unsupported tag '!!binary'; remove it"},
    };
    cr_registry *reg = cr_registry_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_STATUS(load_yaml(reg, cases[i].text), cases[i].code);
        CHECK_CONTAINS(cr_last_error_message(), cases[i].fix);
    }
    CHECK_STATUS(load_yaml(reg, "A: C\n"), CR_OK);
    CHECK_STATUS(load_yaml(reg, "A: D\n"), CR_ERR_DUPLICATE);
    CHECK_CONTAINS(cr_last_error_message(),
                   "entry 'A' is already defined at <string>:1:1; rename it, or load it as an override (CR_LOAD_OVERRIDE) to "
                   "replace that one");
    char dir[64], a[96], b[96], fifo[96];
    snprintf(dir, sizeof dir, "/tmp/cr-outside-XXXXXX");
    if (!mkdtemp(dir)) {
        CHECK(0);
        return;
    }
    snprintf(a, sizeof a, "%s/a.yaml", dir);
    snprintf(b, sizeof b, "%s/b.yaml", dir);
    snprintf(fifo, sizeof fifo, "%s/pipe.yaml", dir);
    const char *names[] = {a, b};
    for (size_t i = 0; i < 2; i++) {
        FILE *f = fopen(names[i], "w");
        CHECK(f != NULL);
        if (!f) return;
        fputs("Z: C\n", f);
        fclose(f);
    }
    CHECK_STATUS(cr_load_files(reg, names, 2, CR_FORMAT_AUTO), CR_ERR_DUPLICATE);
    CHECK_CONTAINS(cr_last_error_message(), "entry 'Z' is defined twice (first at ");
    CHECK_CONTAINS(cr_last_error_message(), "a.yaml:1:1); rename or remove one of them");
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK_STATUS(cr_load_file(reg, fifo, CR_FORMAT_AUTO), CR_ERR_IO);
    CHECK_CONTAINS(cr_last_error_message(), "not a regular file (a FIFO, socket or device); read it yourself and load the text");
    cr_registry_free(reg);
    unlink(a);
    unlink(b);
    unlink(fifo);
    rmdir(dir);
}

/* The same number means the same in every format: a decimal beyond the largest double is a syntax
 * error in YAML and XML plists as it was in JSON (they read it as infinity); infinity written as
 * such (YAML .inf, a plist's <real>inf</real>) still loads. */
static void numbers_too_large_for_a_double_are_refused_in_every_format(void) {
    static const struct {
        const char *text;
        cr_format format;
        const char *message;
    } cases[] = {
        {"A: {ClassName: C, Dependencies: {x: 1e400}}\n", CR_FORMAT_YAML,
         "<string>:1:37: number 1e400 is too large for a 64-bit floating-point value"},
        {"A: {ClassName: C, Dependencies: {x: -1.5e999}}\n", CR_FORMAT_YAML,
         "number -1.5e999 is too large for a 64-bit floating-point value"},
        {"{\"A\": {\"ClassName\": \"C\", \"Dependencies\": {\"x\": 1e400}}}", CR_FORMAT_JSON,
         "number 1e400 is too large for a 64-bit floating-point value"},
        {"<plist version=\"1.0\"><dict><key>A</key><dict><key>ClassName</key><string>C</string><key>Dependencies</key>"
         "<dict><key>x</key><real>1e400</real></dict></dict></dict></plist>",
         CR_FORMAT_PLIST, "number 1e400 is too large for a 64-bit floating-point value"},
    };
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_STATUS(load_text(reg, cases[i].text, cases[i].format), CR_ERR_SYNTAX);
        CHECK_CONTAINS(cr_last_error_message(), cases[i].message);
    }
    CHECK_STATUS(load_yaml(reg, "A: {ClassName: C, Dependencies: {x: .inf, y: -.inf, z: 1e308, u: 1e-400}}\n"), CR_OK);
    static const char plist_inf[] =
        "<plist version=\"1.0\"><dict><key>B</key><dict><key>ClassName</key><string>C</string><key>Dependencies</key>"
        "<dict><key>x</key><real>inf</real><key>y</key><real>-infinity</real></dict></dict></dict></plist>";
    CHECK_STATUS(load_text(reg, plist_inf, CR_FORMAT_PLIST), CR_OK);
    cr_registry_free(reg);
}

/* One cycle is one problem: an entry naming the same entry twice (two keys, a list, a tagged list
 * whose members it is among) closes one cycle, which used to be reported once per reference,
 * word for word. Different cycles are still each reported. */
static void a_cycle_is_reported_once(void) {
    static const struct {
        const char *text;
        size_t problems;
        const char *first;
    } cases[] = {
        {"H: {ClassName: C, Dependencies: {a: H, b: H}}\n", 1, "<string>:1:37: dependency cycle: H -> H (via key 'a' of 'H')"},
        {"H: {ClassName: C, Dependencies: {a: H, b: [H, H]}}\n", 1, "dependency cycle: H -> H"},
        {"A: {ClassName: C, Dependencies: {x: B, y: B}}\nB: {ClassName: C, Dependencies: {z: A, w: [A]}}\n", 1,
         "dependency cycle: A -> B -> A (via key 'x' of 'A')"},
        {"H: {ClassName: C, Tag: [s, 5], Dependencies: {l: {Tagged: s}, m: {Tagged: 5}, o: {Optional: H}}}\n", 1,
         "dependency cycle: H -> H"},
        {"A: {ClassName: C, Dependencies: {x: A, y: A}}\nB: {ClassName: C, Dependencies: {z: B, w: B}}\n", 2,
         "dependency cycle: A -> A"},
    };
    cr_registry *reg = cr_registry_new();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_STATUS(load_yaml(reg, cases[i].text), CR_ERR_CYCLE);
        CHECK_INT(cr_last_error_count(), cases[i].problems);
        CHECK_CONTAINS(cr_last_error_message(), cases[i].first);
    }
    CHECK_STR(cr_last_error_problem(1)->message, "dependency cycle: B -> B (via key 'z' of 'B')");
    cr_registry_free(reg);
}

/* Every exceeded limit of a config says which setting bounds it and how to raise it. */
static void limit_messages_name_their_setting(void) {
    static const struct {
        cr_limit limit;
        int64_t value;
        const char *text;
        const char *setting;
    } cases[] = {
        {CR_LIMIT_DEPTH, 2, "A: {ClassName: C, Dependencies: {l: [[[1]]]}}\n", "CR_LIMIT_DEPTH"},
        {CR_LIMIT_NODES, 3, "A: C\nB: C\nD: C\n", "CR_LIMIT_NODES"},
        {CR_LIMIT_STRING_BYTES, 4, "A: {ClassName: C, Dependencies: {s: '@hello'}}\n", "CR_LIMIT_STRING_BYTES"},
        {CR_LIMIT_ALIAS_EXPANSION, 1, "x: &a [1, 2]\nA: {ClassName: C, Dependencies: {l: *a, m: *a}}\n",
         "CR_LIMIT_ALIAS_EXPANSION"},
        {CR_LIMIT_ENTRIES, 1, "A: C\nB: C\n", "CR_LIMIT_ENTRIES"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_registry *reg = cr_registry_new();
        CHECK_STATUS(cr_registry_set_limit(reg, cases[i].limit, cases[i].value), CR_OK);
        CHECK_STATUS(load_yaml(reg, cases[i].text), CR_ERR_LIMIT);
        CHECK_CONTAINS(cr_last_error_message(), cases[i].setting);
        CHECK_CONTAINS(cr_last_error_message(), ": raise it with cr_registry_set_limit if the config is trusted)");
        cr_registry_free(reg);
    }
    /* A file larger than the input limit, refused before it is read. */
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_INPUT_BYTES, 8), CR_OK);
    CHECK_STATUS(cr_load_file(reg, fixture_path("example.yaml"), CR_FORMAT_AUTO), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "(CR_LIMIT_INPUT_BYTES: raise it");
    cr_registry_free(reg);
}

/* cr_report_error("") says nothing: the failure keeps its default wording ("returned NULL") or an
 * earlier report, instead of a message ending in ": ". */
static void *reports_empty(const cr_value *args, void *user_data) {
    (void)args;
    if (user_data) cr_report_error(user_data);
    cr_report_error("");
    cr_report_error(NULL);
    return NULL;
}

static void an_empty_report_keeps_the_reason(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Quiet", &(cr_class){.create = reports_empty}, NULL), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Said", &(cr_class){.create = reports_empty}, "disk full"), CR_OK);
    CHECK(cr_registry_create(reg, "Quiet", NULL) == NULL);
    CHECK_INT(cr_last_error_code(), CR_ERR_CREATE_FAILED);
    CHECK_STR(cr_last_error_message(), "cannot create 'Quiet': create of class 'Quiet' returned NULL");
    CHECK(cr_registry_create(reg, "Said", NULL) == NULL);
    CHECK_STR(cr_last_error_message(), "cannot create 'Said': create of class 'Said': disk full");
    cr_registry_free(reg);
}

/* A provider is its reader's once: a second cr_value_provider of the same argument would hand the
 * same reference to a second owner (two frees). It is refused, and the first stays usable. */
static cr_provider *twice_first, *twice_second;
static int twice_code;

static void *reads_provider_twice(const cr_value *args, void *user_data) {
    (void)user_data;
    const cr_value *p = cr_map_get(args, "next");
    twice_first = cr_value_provider(p);
    cr_clear_error();
    twice_second = cr_value_provider(p);
    twice_code = cr_last_error_code();
    CHECK_CONTAINS(cr_last_error_message(), "provider was taken already");
    CHECK_INT(cr_value_owner(p), CR_OWNER_RECEIVER);
    return malloc(16);
}

static void a_provider_is_read_once(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Twice", &(cr_class){.create = reads_provider_twice, .destroy = plain_destroy}, NULL),
                 CR_OK);
    CHECK_STATUS(load_text(reg, "L: C\nW: {ClassName: Twice, Dependencies: {next: {Provider: L}}}\n", CR_FORMAT_YAML), CR_OK);
    void *w = cr_registry_create(reg, "W", NULL);
    CHECK(w != NULL);
    CHECK(twice_first != NULL);
    CHECK(twice_second == NULL);
    CHECK_INT(twice_code, CR_ERR_INVALID_ARGUMENT);
    void *l = cr_provider_create(twice_first, NULL);
    CHECK(l != NULL);
    free(l);
    cr_provider_free(twice_first);
    cr_provider_free(twice_second); /* NULL: ignored */
    free(w);
    cr_registry_free(reg);
}

/* Dependencies from code or a config nested past the fixed bound of 256 levels are CR_ERR_LIMIT,
 * and the message says the bound is not a setting and what to do instead. */
static void too_deep_dependencies_say_the_bound_is_fixed(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "C", &plain_class, NULL), CR_OK);
    cr_value *v = cr_list_new();
    for (int i = 0; i < 300; i++) {
        cr_value *outer = cr_list_new();
        CHECK_STATUS(cr_list_push_value(outer, v), CR_OK);
        v = outer;
    }
    cr_value *deps = cr_map_new();
    CHECK_STATUS(cr_map_set_value(deps, "deep", v), CR_OK);
    CHECK_STATUS(cr_add_entry(reg, "A", "C", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "nest deeper than 256 levels (a fixed bound, not a cr_limit: flatten the value");
    cr_value_free(deps);
    /* A config's value past the bound, with CR_LIMIT_DEPTH raised above it: the same fix, at its place. */
    CHECK_STATUS(cr_registry_set_limit(reg, CR_LIMIT_DEPTH, 1000), CR_OK);
    char text[700];
    int n = snprintf(text, sizeof text, "A: {ClassName: C, Dependencies: {deep: ");
    for (int i = 0; i < 300; i++) text[n++] = '[';
    for (int i = 0; i < 300; i++) text[n++] = ']';
    n += snprintf(text + n, sizeof text - (size_t)n, "}}\n");
    CHECK_STATUS(cr_load_string(reg, text, (size_t)n, CR_FORMAT_YAML), CR_ERR_LIMIT);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:1:");
    CHECK_CONTAINS(cr_last_error_message(), "nests deeper than 256 levels (a fixed bound, not a cr_limit: flatten the value");
    cr_registry_free(reg);
}

/* Reading every key of a big props map, through a callback's args (merged with an entry's
 * dependencies, or given whole to a class created by its name) and in the host's own map, costs
 * one look-up per key through the map's index, not a search of every key: read in reverse order
 * (the order a slot-by-slot search is slowest in), this group took 1.8 s natively and 80 s under
 * valgrind with the search, 0.04 s and 3 s with the index. No time is asserted: a quadratic search
 * still passes, slowly enough to notice. What is asserted is what each read finds. */
enum { big_keys = 20000 };

typedef struct {
    int found, wrong, missing_found, dependency, overridden;
} big_reads;

static void *read_every_key(const cr_value *args, void *user_data) {
    big_reads *r = user_data;
    char key[32];
    for (int i = big_keys - 1; i >= 0; i--) {
        snprintf(key, sizeof key, "key%d", i);
        const cr_value *v = cr_map_get(args, key);
        if (v && cr_value_int(v) == i)
            r->found++;
        else
            r->wrong++;
    }
    if (cr_map_get(args, "key20000") || cr_map_get(args, "") || cr_map_get(args, "key")) r->missing_found++;
    const cr_value *dep = cr_map_get(args, "dep");
    if (dep && strcmp(cr_value_string(dep), "from the config") == 0) r->dependency++;
    const cr_value *over = cr_map_get(args, "key7");
    if (over && cr_value_kind(over) == CR_INT) r->overridden++;
    return malloc(1);
}

static void big_props_are_read_through_their_index(void) {
    cr_registry *reg = cr_registry_new();
    big_reads reads = {0};
    CHECK_STATUS(cr_register_class(reg, "Big", &(cr_class){.create = read_every_key, .destroy = plain_destroy}, &reads), CR_OK);
    static const char config[] = "Entry: {ClassName: Big, Dependencies: {dep: '@from the config', key7: '@overridden'}}\n";
    CHECK_STATUS(cr_load_string(reg, config, strlen(config), CR_FORMAT_YAML), CR_OK);
    cr_value *props = cr_map_new();
    char key[32];
    for (int i = 0; i < big_keys; i++) {
        snprintf(key, sizeof key, "key%d", i);
        CHECK_STATUS(cr_map_set_int(props, key, i), CR_OK);
    }
    /* The host's own map. */
    int own = 0;
    for (int i = big_keys - 1; i >= 0; i--) {
        snprintf(key, sizeof key, "key%d", i);
        const cr_value *v = cr_map_get(props, key);
        if (v && cr_value_int(v) == i) own++;
    }
    CHECK_INT(own, big_keys);
    CHECK(cr_map_get(props, "key20000") == NULL);
    /* An entry's args: its dependencies, the props merged over them (key7 overridden). */
    void *made = cr_registry_create(reg, "Entry", props);
    CHECK(made != NULL);
    free(made);
    CHECK_INT(reads.found, big_keys);
    CHECK_INT(reads.wrong, 0);
    CHECK_INT(reads.missing_found, 0);
    CHECK_INT(reads.dependency, 1);
    CHECK_INT(reads.overridden, 1);
    /* A class created by its name: the props are its args. */
    memset(&reads, 0, sizeof reads);
    made = cr_registry_create(reg, "Big", props);
    CHECK(made != NULL);
    free(made);
    CHECK_INT(reads.found, big_keys);
    CHECK_INT(reads.wrong, 0);
    CHECK_INT(reads.missing_found, 0);
    CHECK_INT(reads.dependency, 0);
    cr_value_free(props);
    cr_registry_free(reg);
}

/* The same for an entry's many declared dependencies (not props): its args map gets an index of
 * its own, so 20,000 read in reverse cost one look-up each (0.87 s natively with the search,
 * 0.001 s with the index). No time is asserted; each read must find its own value, with props
 * merged over one of them, and absent keys nothing. */
static void *read_every_dependency(const cr_value *args, void *user_data) {
    big_reads *r = user_data;
    char key[32];
    for (int i = big_keys - 1; i >= 0; i--) {
        snprintf(key, sizeof key, "key%d", i);
        const cr_value *v = cr_map_get(args, key);
        if (v && cr_value_int(v) == (i == 7 && cr_map_get(args, "extra") ? -7 : i))
            r->found++;
        else
            r->wrong++;
    }
    if (cr_map_get(args, "key20000") || cr_map_get(args, "") || cr_map_get(args, "key")) r->missing_found++;
    return malloc(1);
}

static void many_dependencies_are_read_through_an_index(void) {
    cr_registry *reg = cr_registry_new();
    big_reads reads = {0};
    CHECK_STATUS(cr_register_class(reg, "Deps", &(cr_class){.create = read_every_dependency, .destroy = plain_destroy}, &reads),
                 CR_OK);
    char *yaml = malloc((size_t)big_keys * 24 + 64), *at = yaml;
    at += sprintf(at, "Entry:\n  ClassName: Deps\n  Dependencies:\n");
    for (int i = 0; i < big_keys; i++) at += sprintf(at, "    key%d: %d\n", i, i);
    CHECK_STATUS(cr_load_string(reg, yaml, (size_t)(at - yaml), CR_FORMAT_YAML), CR_OK);
    free(yaml);
    void *made = cr_registry_create(reg, "Entry", NULL);
    CHECK(made != NULL);
    free(made);
    CHECK_INT(reads.found, big_keys);
    CHECK_INT(reads.wrong, 0);
    CHECK_INT(reads.missing_found, 0);
    cr_value *props = cr_map_new();
    cr_map_set_int(props, "key7", -7);
    cr_map_set_int(props, "extra", 1);
    memset(&reads, 0, sizeof reads);
    made = cr_registry_create(reg, "Entry", props);
    CHECK(made != NULL);
    free(made);
    CHECK_INT(reads.found, big_keys);
    CHECK_INT(reads.wrong, 0);
    CHECK_INT(reads.missing_found, 0);
    cr_value_free(props);
    cr_registry_free(reg);
}

/* A name template holds {name} exactly once, with other text around it, and no other brace: each
 * odd template is refused with what is wrong and the fix, naming the function, and adds nothing;
 * the text around {name} is compared byte for byte (a combining accent after the brace once made a
 * valid template read as having no {name}). */
static void odd_name_templates_are_refused(void) {
    static const struct {
        const char *template_text, *says;
    } odd[] = {
        {"", "cr_add_name_template: the name template \"\" is empty; a template is a class name with {name} where"},
        {"Controller", "the name template \"Controller\" has no {name}; a template is"},
        {"{name}", "is {name} alone, which names the class of the name itself (tried before any template)"},
        {"{name}{name}", "holds {name} 2 times; the name goes in one place"},
        {"{name}View{name}", "holds {name} 2 times"},
        {"{Name}Controller", "has no {name}"},
        {"{name}{kind}",
         "holds '{' at byte 6 outside {name}, the only placeholder (an unknown placeholder or an unbalanced brace): remove it"},
        {"{name", "has no {name}"},
        {"{name}}", "holds '}' at byte 6 outside {name}"},
        {"{{name}", "holds '{' at byte 0 outside {name}"},
    };
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "CarController", &plain_class, NULL), CR_OK);
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        CHECK_STATUS(cr_add_name_template(reg, odd[i].template_text), CR_ERR_INVALID_ARGUMENT);
        CHECK_CONTAINS(cr_last_error_message(), "cr_add_name_template: the name template \"");
        CHECK_CONTAINS(cr_last_error_message(), odd[i].says);
    }
    /* None was added: the not-found message names no template. */
    CHECK(cr_registry_create(reg, "Car", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    CHECK(strstr(cr_last_error_message(), "templates") == NULL);
    /* Text around {name}, non-ASCII and combining marks included, is kept byte for byte. */
    CHECK_STATUS(cr_register_class(reg, "Car\xcc\x81X", &plain_class, NULL), CR_OK);
    CHECK_STATUS(cr_add_name_template(reg, "{name}\xcc\x81X"), CR_OK);
    CHECK_STATUS(cr_add_name_template(reg, "{name}Controller"), CR_OK);
    void *made = cr_registry_create(reg, "Car", NULL);
    CHECK(made != NULL);
    free(made);
    cr_registry_free(reg);
}

/* Every NULL argument names the function, the parameter and the fix. */
static void null_arguments_name_the_fix(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(NULL, "C", &plain_class, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_STR(cr_last_error_message(),
              "cr_register_class: reg is NULL; pass a registry from cr_registry_new, cr_registry_new_child or cr_shared()");
    CHECK_STATUS(cr_register_class(reg, "", &plain_class, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_STR(cr_last_error_message(),
              "cr_register_class: the class name is empty: register the class under a non-empty "
              "name (the name entries give as ClassName)");
    CHECK_STATUS(cr_replace_class(reg, "", &plain_class, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_replace_class: the class name is empty");
    CHECK_STATUS(cr_add_entry(reg, "A", NULL, CR_LIFESTYLE_TRANSIENT, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_STR(cr_last_error_message(),
              "cr_add_entry: class_name is NULL; pass the class's name as a NUL-terminated UTF-8 string");
    CHECK(cr_value_int(cr_map_get(NULL, "k")) == 0);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_int: value is NULL; cr_map_get and cr_list_at return NULL for a key");
    CHECK_STATUS(cr_load_string(reg, NULL, 3, CR_FORMAT_YAML), CR_ERR_INVALID_ARGUMENT);
    CHECK_STR(cr_last_error_message(), "cr_load_string: text is NULL; pass the config text (NULL only with length 0)");
    CHECK_STATUS(cr_add_name_template(reg, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_add_name_template: name_template is NULL; pass a template such as");
    cr_registry_free(reg);
}

void test_outside(void) {
    empty_tags_are_refused();
    a_child_closes_with_its_parent();
    a_parent_freed_inside_its_childs_create();
    a_freed_registry_answers_no_call();
    text_in_values_and_paths_must_be_utf8();
    a_created_name_must_be_utf8();
    text_in_another_encoding_names_the_fix();
    wrong_enums_and_props_name_the_fix();
    a_cycle_is_reported_once();
    environment_values_must_be_utf8();
    files_of_unreported_size_are_read_whole();
    a_missing_provider_target_is_not_called_text();
    common_mistakes_name_their_fix();
    numbers_too_large_for_a_double_are_refused_in_every_format();
    limit_messages_name_their_setting();
    an_empty_report_keeps_the_reason();
    a_provider_is_read_once();
    too_deep_dependencies_say_the_bound_is_fixed();
    big_props_are_read_through_their_index();
    many_dependencies_are_read_through_an_index();
    odd_name_templates_are_refused();
    null_arguments_name_the_fix();
}
