/* What a host writing against the installed library meets from outside: inputs the other groups
 * do not try, each refused with a typed error at its place. Under valgrind: a leak or an invalid
 * read fails. */
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdlib.h>
#include <string.h>

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

void test_outside(void) {
    empty_tags_are_refused();
    a_child_closes_with_its_parent();
    a_parent_freed_inside_its_childs_create();
    limit_messages_name_their_setting();
}
