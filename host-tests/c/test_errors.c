/* Errors: every failure returns NULL or a status, records a clear message, and never crashes. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The call returns `expected` and records CR_ERR_INVALID_ARGUMENT (cleared first). */
#define CHECK_INVALID(call, expected)              \
    do {                                           \
        cr_clear_error();                          \
        CHECK((call) == (expected));               \
        CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT); \
        CHECK(cr_last_error_message()[0] != '\0'); \
    } while (0)

static cr_registry *example_registry(host_stats *s1, host_stats *s2) {
    stats_init(s1);
    stats_init(s2);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(register_example_classes(reg, s1, s2), CR_OK);
    CHECK_STATUS(cr_load_file(reg, fixture_path("example.yaml"), CR_FORMAT_AUTO), CR_OK);
    return reg;
}

static void unknown_name(void) {
    host_stats s1, s2;
    cr_registry *reg = example_registry(&s1, &s2);
    cr_clear_error();
    CHECK(cr_registry_create(reg, "NoSuchScreen", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    CHECK_CONTAINS(cr_last_error_message(), "NoSuchScreen");
    CHECK(cr_registry_create(reg, "Tset1", NULL) == NULL);
    CHECK_CONTAINS(cr_last_error_message(), "did you mean 'Test1'");
    CHECK(cr_registry_create(reg, "", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    /* A successful call leaves the last error as it was; cr_clear_error resets it. */
    Test1ViewController *t = cr_registry_create(reg, "Test1", NULL);
    CHECK(t != NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    cr_clear_error();
    CHECK_LAST_ERROR(CR_OK);
    CHECK_STR(cr_last_error_message(), "");
    if (t) test1_destroy(t, NULL);
    CHECK_INT(stats_get(&s1, &s1.creates), 1);
    cr_registry_free(reg);
}

static void class_not_registered(void) {
    host_stats s1;
    stats_init(&s1);
    cr_registry *reg = cr_registry_new();
    /* Test2ViewController is not registered: loading works, creating names class and entry. */
    CHECK_STATUS(cr_register_class(reg, "Test1ViewController", &test1_class, &s1), CR_OK);
    CHECK_STATUS(cr_load_file(reg, fixture_path("example.yaml"), CR_FORMAT_AUTO), CR_OK);
    CHECK(cr_registry_create(reg, "Test2", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CLASS_NOT_REGISTERED);
    CHECK_CONTAINS(cr_last_error_message(), "Test2ViewController");
    CHECK_CONTAINS(cr_last_error_message(), "'Test2' (defined at ");
    CHECK_CONTAINS(cr_last_error_message(), "register it before creating 'Test2', or correct the entry's ClassName");
    CHECK(cr_registry_create(reg, "Test1", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CLASS_NOT_REGISTERED);
    CHECK_CONTAINS(cr_last_error_message(), "Test2ViewController");
    CHECK_CONTAINS(cr_last_error_message(), "Test1 -> Test2");
    CHECK_INT(stats_get(&s1, &s1.creates), 0);
    /* Registering it later makes the same entries work. */
    host_stats s2;
    stats_init(&s2);
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &test2_class, &s2), CR_OK);
    Test1ViewController *t = cr_registry_create(reg, "Test1", NULL);
    CHECK_EXAMPLE_OBJECT(t, 0);
    if (t) test1_destroy(t, NULL);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s2, &s2.releases), 1);
}

/* create returning NULL: CR_ERR_CREATE_FAILED, and every object built for the call destroyed. */
static void create_failed(void) {
    host_stats nodes, failing, silent;
    stats_init(&nodes);
    stats_init(&failing);
    stats_init(&silent);
    failing.fail = 1;
    failing.fail_message = "disk on fire";
    silent.fail = 1;
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &nodes), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Failing", &node_class, &failing), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Silent", &node_class, &silent), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "B: Node\n"
                           "C: Failing\n"
                           "Quiet: Silent\n"
                           "A:\n  ClassName: Node\n  Dependencies: {b: B, c: C}\n"
                           "Top:\n  ClassName: Failing\n  Dependencies: {b1: B, b2: B}\n"
                           "Deep:\n  ClassName: Node\n  Dependencies:\n"
                           "    first: [B, {x: B, y: [B]}]\n"
                           "    a: A\n"
                           "    never: B\n"
                           "Q:\n  ClassName: Node\n  Dependencies: {b: B, q: Quiet}\n"),
                 CR_OK);

    /* Mid-graph: A depends on B and C; C fails after B was built -> B destroyed. */
    cr_clear_error();
    CHECK(cr_registry_create(reg, "A", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_CONTAINS(cr_last_error_message(), "disk on fire");
    CHECK_CONTAINS(cr_last_error_message(), "A -> C");
    CHECK_INT(stats_get(&nodes, &nodes.creates), 1);
    CHECK_INT(stats_get(&nodes, &nodes.destroys), 1);
    CHECK_INT(stats_get(&failing, &failing.failures), 1);

    /* The top-level create fails after its dependencies were built -> both destroyed. */
    CHECK(cr_registry_create(reg, "Top", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_CONTAINS(cr_last_error_message(), "disk on fire");
    CHECK_INT(stats_get(&nodes, &nodes.creates), 3);
    CHECK_INT(stats_get(&nodes, &nodes.destroys), 3);

    /* Deeper: three Bs in nested containers, then A's own B, then C fails. */
    CHECK(cr_registry_create(reg, "Deep", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_CONTAINS(cr_last_error_message(), "Deep -> A -> C");
    CHECK_INT(stats_get(&nodes, &nodes.creates), 3 + 4);
    CHECK_INT(stats_get(&nodes, &nodes.destroys), 3 + 4);

    /* Without cr_report_error the message still says what returned NULL. */
    CHECK(cr_registry_create(reg, "Q", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_CONTAINS(cr_last_error_message(), "Silent");
    CHECK_CONTAINS(cr_last_error_message(), "NULL");
    CHECK(strstr(cr_last_error_message(), "disk on fire") == NULL);
    CHECK_INT(stats_get(&nodes, &nodes.creates), 8);
    CHECK_INT(stats_get(&nodes, &nodes.destroys), 8);

    /* A message reported outside a failing callback is not attached to a later failure. */
    cr_report_error("stray message");
    CHECK(cr_registry_create(reg, "Q", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK(strstr(cr_last_error_message(), "stray message") == NULL);
    CHECK_INT(stats_get(&nodes, &nodes.creates), 9);
    CHECK_INT(stats_get(&nodes, &nodes.destroys), 9);

    /* A reported message does not leak into a later, unrelated failure. */
    failing.fail = 0;
    Node *a = cr_registry_create(reg, "A", NULL);
    CHECK(a != NULL);
    if (a) node_destroy(a, &nodes);
    CHECK_INT(stats_get(&nodes, &nodes.creates), 11);
    CHECK_INT(stats_get(&nodes, &nodes.destroys), 11); /* A, and B through A */
    CHECK_INT(stats_get(&failing, &failing.destroys), 1);

    /* The leaf itself asked for (built with no resolver): the same error, naming entry and class;
     * a message its callback reported is attached as for any other callback. */
    CHECK(cr_registry_create(reg, "Quiet", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_CONTAINS(cr_last_error_message(), "cannot create 'Quiet'");
    /* The entry's place in its config is named too: which definition to look at. */
    CHECK_CONTAINS(cr_last_error_message(), "create of class 'Silent' for entry 'Quiet' (defined at <string>:3:1) returned NULL");
    silent.fail_message = "no quiet today";
    CHECK(cr_registry_create(reg, "Quiet", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_CONTAINS(cr_last_error_message(), "for entry 'Quiet' (defined at <string>:3:1): no quiet today");
    silent.fail = 0;
    Node *quiet = cr_registry_create(reg, "Quiet", NULL);
    CHECK(quiet != NULL);
    if (quiet) node_destroy(quiet, &silent);
    cr_registry_free(reg);
}

static int noop_release_count;
static void noop_release(void *user_data) {
    (void)user_data;
    noop_release_count++;
}

static void class_exists(void) {
    host_stats s1, s2, other;
    cr_registry *reg = example_registry(&s1, &s2);
    stats_init(&other);
    other.version = 2;
    cr_class again = test2_class;
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &again, &other), CR_ERR_CLASS_EXISTS);
    CHECK_CONTAINS(cr_last_error_message(), "Test2ViewController");
    CHECK_INT(stats_get(&other, &other.releases), 1); /* on failure the new user_data is released */
    /* Nothing changed: Test2 still comes from the first class. */
    Test2ViewController *t = cr_registry_create(reg, "Test2", NULL);
    CHECK(t && t->version == 0);
    if (t) test2_destroy(t, NULL);
    /* cr_replace_class replaces on purpose; the old class's release runs. */
    CHECK_STATUS(cr_replace_class(reg, "Test2ViewController", &again, &other), CR_OK);
    t = cr_registry_create(reg, "Test2", NULL);
    CHECK(t && t->version == 2);
    if (t) test2_destroy(t, NULL);
    CHECK_INT(stats_get(&s2, &s2.releases), 1);
    CHECK_INT(stats_get(&other, &other.releases), 1);
    Test1ViewController *t1 = cr_registry_create(reg, "Test1", NULL);
    CHECK(t1 && t1->test2ViewController && t1->test2ViewController->version == 2);
    if (t1) test1_destroy(t1, NULL);
    /* Replacing a class that was never registered just registers it. */
    cr_class plain = {.create = node_class.create, .destroy = node_class.destroy, .release = noop_release};
    CHECK_STATUS(cr_replace_class(reg, "Fresh", &plain, &s1), CR_OK);
    /* Bad class names. */
    CHECK_STATUS(cr_register_class(reg, "", &plain, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(noop_release_count, 1); /* released on failure */
    cr_registry_free(reg);
    CHECK_INT(stats_get(&other, &other.releases), 2);
    CHECK_INT(noop_release_count, 2);
}

static void missing_reference(void) {
    host_stats s1, s2;
    cr_registry *reg = example_registry(&s1, &s2);
    CHECK_STATUS(load_yaml(reg, "Test3:\n  ClassName: Test1ViewController\n  Dependencies:\n    test2ViewController: Tst2\n"),
                 CR_ERR_MISSING_REFERENCE);
    CHECK_CONTAINS(cr_last_error_message(), "Tst2");
    CHECK_CONTAINS(cr_last_error_message(), "did you mean 'Test2'");
    CHECK_CONTAINS(cr_last_error_message(), "<string>:4:");
    cr_clear_error();
    CHECK(cr_registry_create(reg, "Test3", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    cr_registry_free(reg);
}

static void cycles(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "A:\n  ClassName: Node\n  Dependencies: {b: B}\n"
                           "B:\n  ClassName: Node\n  Dependencies: {c: C}\n"
                           "C:\n  ClassName: Node\n  Dependencies: {a: A}\n"),
                 CR_ERR_CYCLE);
    CHECK_CONTAINS(cr_last_error_message(), "A -> B -> C -> A");
    CHECK_STATUS(load_yaml(reg, "Self:\n  ClassName: Node\n  Dependencies:\n    inner: {list: [Self]}\n"), CR_ERR_CYCLE);
    CHECK_CONTAINS(cr_last_error_message(), "Self -> Self");
    CHECK_STATUS(load_text(reg,
                           "{\"X\": {\"ClassName\": \"Node\", \"Dependencies\": {\"y\": \"Y\"}},"
                           " \"Y\": {\"ClassName\": \"Node\", \"Dependencies\": {\"x\": [\"X\"]}}}",
                           CR_FORMAT_JSON),
                 CR_ERR_CYCLE);
    CHECK_CONTAINS(cr_last_error_message(), "X -> Y -> X");
    cr_clear_error();
    CHECK(cr_registry_create(reg, "A", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    CHECK_INT(stats_get(&s, &s.creates), 0);
    cr_registry_free(reg);
}

static void schema_errors(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "Good: Node\n"
                           "Bad:\n"
                           "  ClassName: Node\n"
                           "  Dependecies:\n"
                           "    x: 1\n"),
                 CR_ERR_SCHEMA);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:4:3:");
    CHECK_CONTAINS(cr_last_error_message(), "Dependecies");
    CHECK_CONTAINS(cr_last_error_message(), "Dependencies");
    CHECK_INT(count_lines(cr_last_error_message()), 1);

    /* In a file, the location names the file. */
    char path[] = "/tmp/controllerreg-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        static const char text[] = "Bad:\n  ClassName: Node\n  Dependecies: {}\n";
        CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
        close(fd);
        CHECK_STATUS(cr_load_file(reg, path, CR_FORMAT_YAML), CR_ERR_SCHEMA);
        char where[128];
        snprintf(where, sizeof where, "%s:3:3:", path);
        CHECK_CONTAINS(cr_last_error_message(), where);
        unlink(path);
    }

    /* Several problems in one load: all reported, one per line, each with its location. */
    CHECK_STATUS(load_yaml(reg,
                           "One:\n  ClassName: 5\n"
                           "Two:\n  ClassName: Node\n  Tag: {a: 1}\n"
                           "Three:\n  ClassName: Node\n  Colour: red\n"
                           "Four: [Node]\n"),
                 CR_ERR_SCHEMA);
    const char *m = cr_last_error_message();
    CHECK_INT(count_lines(m), 5); /* "4 problems:" and one line each */
    CHECK(strncmp(m, "4 problems", 10) == 0);
    CHECK_CONTAINS(m, "<string>:2:14:");
    CHECK_CONTAINS(m, "<string>:5:8:");
    CHECK_CONTAINS(m, "<string>:8:3:");
    CHECK_CONTAINS(m, "<string>:9:7:");
    /* Top level not a map; entry not a string or map. */
    CHECK_STATUS(load_yaml(reg, "- a\n- b\n"), CR_ERR_SCHEMA);
    CHECK_STATUS(load_text(reg, "{\"A\": 5}", CR_FORMAT_JSON), CR_ERR_SCHEMA);
    /* Same key twice (an error in YAML and JSON). */
    CHECK_STATUS(load_yaml(reg, "A: Node\nA: Node\n"), CR_ERR_DUPLICATE);
    CHECK_STATUS(load_text(reg, "{\"A\": \"Node\", \"A\": \"Node\"}", CR_FORMAT_JSON), CR_ERR_DUPLICATE);
    cr_clear_error();
    CHECK(cr_registry_create(reg, "Good", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    cr_registry_free(reg);
}

/* A failed load changes nothing: old entries still work, new names are absent. */
static void failed_load_leaves_registry_unchanged(void) {
    host_stats s1, s2;
    cr_registry *reg = example_registry(&s1, &s2);
    CHECK_STATUS(load_yaml(reg,
                           "NewOne: Test2ViewController\n"
                           "NewTwo:\n  ClassName: Test1ViewController\n  Dependencies: {test2ViewController: Nowhere}\n"),
                 CR_ERR_MISSING_REFERENCE);
    CHECK_STATUS(load_yaml(reg, "NewOne: Test2ViewController\nTest1: Test2ViewController\n"), CR_ERR_DUPLICATE);
    CHECK_STATUS(load_yaml(reg, "NewOne: Test2ViewController\nbroken: [\n"), CR_ERR_SYNTAX);
    cr_clear_error();
    CHECK(cr_registry_create(reg, "NewOne", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    CHECK(cr_registry_create(reg, "NewTwo", NULL) == NULL);
    Test1ViewController *t = cr_registry_create(reg, "Test1", NULL);
    CHECK_EXAMPLE_OBJECT(t, 0);
    if (t) test1_destroy(t, NULL);
    /* And a good load afterwards works, referring to the earlier entries. */
    CHECK_STATUS(load_yaml(reg, "NewOne:\n  ClassName: Test1ViewController\n  Dependencies: {test2ViewController: Test2}\n"),
                 CR_OK);
    t = cr_registry_create(reg, "NewOne", NULL);
    CHECK(t && t->test2ViewController && t->test2ViewController->magic == TEST2_MAGIC);
    if (t) test1_destroy(t, NULL);
    cr_registry_free(reg);
}

static void io_and_syntax(void) {
    host_stats s1, s2;
    cr_registry *reg = example_registry(&s1, &s2);
    CHECK_STATUS(cr_load_file(reg, "/nonexistent/controllerreg/screens.yaml", CR_FORMAT_AUTO), CR_ERR_IO);
    CHECK_CONTAINS(cr_last_error_message(), "/nonexistent/controllerreg/screens.yaml");
    CHECK_STATUS(cr_load_file(reg, "/tmp", CR_FORMAT_AUTO), CR_ERR_IO);
    CHECK_CONTAINS(cr_last_error_message(), "/tmp");
    CHECK_STATUS(cr_load_file(reg, "", CR_FORMAT_AUTO), CR_ERR_IO);

    /* Invalid UTF-8, in each text format. */
    static const char bad_yaml[] = "A: \"\xff\xfe\"\n";
    static const char bad_json[] = "{\"A\": \"\xc3\x28\"}";
    CHECK_STATUS(cr_load_string(reg, bad_yaml, sizeof bad_yaml - 1, CR_FORMAT_YAML), CR_ERR_SYNTAX);
    CHECK_STATUS(cr_load_string(reg, bad_json, sizeof bad_json - 1, CR_FORMAT_JSON), CR_ERR_SYNTAX);
    CHECK_STATUS(cr_load_string(reg, bad_json, sizeof bad_json - 1, CR_FORMAT_AUTO), CR_ERR_SYNTAX);
    /* Malformed text. */
    CHECK_STATUS(load_text(reg, "{\"A\": \"Node\",}", CR_FORMAT_JSON), CR_ERR_SYNTAX);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:1:");
    CHECK_STATUS(load_yaml(reg, "A: [unclosed\n"), CR_ERR_SYNTAX);
    /* Text need not be NUL-terminated: only `length` bytes are read. */
    static const char prefix[] = "Extra: Test2ViewControllerGARBAGE";
    CHECK_STATUS(cr_load_string(reg, prefix, 26, CR_FORMAT_YAML), CR_OK);
    Test2ViewController *x = cr_registry_create(reg, "Extra", NULL);
    CHECK(x && x->magic == TEST2_MAGIC);
    if (x) test2_destroy(x, NULL);

    /* Empty input: reported, not loaded, no crash. */
    CHECK(cr_load_string(reg, "", 0, CR_FORMAT_AUTO) != CR_OK);
    CHECK(cr_last_error_message()[0] != '\0');
    CHECK(cr_load_string(reg, NULL, 0, CR_FORMAT_YAML) != CR_OK);
    CHECK(cr_load_string(reg, "   \n# only a comment\n", 21, CR_FORMAT_YAML) != CR_OK);
    CHECK(cr_load_string(reg, "", 0, CR_FORMAT_JSON) == CR_ERR_SYNTAX);
    /* Embedded NUL bytes. */
    CHECK(cr_load_string(reg, "A: Node\0B: Node\n", 16, CR_FORMAT_YAML) != CR_OK);
    Test1ViewController *t = cr_registry_create(reg, "Test1", NULL);
    CHECK_EXAMPLE_OBJECT(t, 0);
    if (t) test1_destroy(t, NULL);
    cr_registry_free(reg);
}

static void *numbers_create(const cr_value *args, void *user_data) {
    int64_t *out = user_data;
    out[0] = cr_value_int(cr_map_get(args, "max"));
    out[1] = cr_value_int(cr_map_get(args, "min"));
    out[2] = cr_value_kind(cr_map_get(args, "max"));
    out[3] = cr_value_kind(cr_map_get(args, "min"));
    return malloc(1);
}

static void huge_integers(void) {
    int64_t seen[4] = {0, 0, 0, 0};
    cr_class numbers = {.create = numbers_create};
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Numbers", &numbers, seen), CR_OK);
    CHECK_STATUS(
        load_yaml(reg,
                  "N:\n  ClassName: Numbers\n  Dependencies:\n    max: 9223372036854775807\n    min: -9223372036854775808\n"),
        CR_OK);
    void *o = cr_registry_create(reg, "N", NULL);
    CHECK(o != NULL);
    free(o);
    CHECK(seen[0] == INT64_MAX);
    CHECK(seen[1] == INT64_MIN);
    CHECK_INT(seen[2], CR_INT);
    CHECK_INT(seen[3], CR_INT);
    CHECK_STATUS(load_text(reg,
                           "{\"J\": {\"ClassName\": \"Numbers\", \"Dependencies\": {\"max\": 9223372036854775807, \"min\": "
                           "-9223372036854775808}}}",
                           CR_FORMAT_JSON),
                 CR_OK);
    memset(seen, 0, sizeof seen);
    o = cr_registry_create(reg, "J", NULL);
    free(o);
    CHECK(seen[0] == INT64_MAX && seen[1] == INT64_MIN);
    /* Integers beyond 64 bits are reported, not wrapped or crashed on. */
    int rc = load_yaml(reg, "Y:\n  ClassName: Numbers\n  Dependencies:\n    max: 99999999999999999999999999\n");
    CHECK(rc != CR_OK);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:4:");
    rc =
        load_text(reg, "{\"Z\": {\"ClassName\": \"Numbers\", \"Dependencies\": {\"max\": 9223372036854775808}}}", CR_FORMAT_JSON);
    CHECK(rc != CR_OK);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:1:");
    rc = load_text(reg, "{\"W\": {\"ClassName\": \"Numbers\", \"Dependencies\": {\"max\": -99999999999999999999999}}}",
                   CR_FORMAT_JSON);
    CHECK(rc != CR_OK);
    cr_registry_free(reg);
}

static void deep_reference_chain(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    size_t cap = 400 * 64, len = 0;
    char *text = malloc(cap);
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(text + len, cap - len, "E%d:\n  ClassName: Node\n  Dependencies: {next: E%d}\n", i, i + 1);
    len += (size_t)snprintf(text + len, cap - len, "E300: Node\n");
    CHECK_STATUS(cr_load_string(reg, text, len, CR_FORMAT_YAML), CR_OK);
    free(text);
    cr_clear_error();
    CHECK(cr_registry_create(reg, "E0", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_LIMIT);
    CHECK_INT(stats_get(&s, &s.creates), stats_get(&s, &s.destroys)); /* nothing leaked */
    Node *n = cr_registry_create(reg, "E100", NULL);                  /* 200 deep: within the limit */
    CHECK(n != NULL);
    if (n) node_destroy(n, &s);
    CHECK_INT(stats_get(&s, &s.creates), stats_get(&s, &s.destroys));
    cr_registry_free(reg);
}

/* Inside a create: freeing or modifying borrowed args is reported, accessors check kinds. */
typedef struct args_probe {
    int ran;
} args_probe;

static void *args_probe_create(const cr_value *args, void *user_data) {
    args_probe *p = user_data;
    p->ran = 1;
    cr_clear_error();
    cr_value_free((cr_value *)args);
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_free");
    cr_value_free((cr_value *)cr_map_get(args, "list"));
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_int((cr_value *)args, "k", 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_int((cr_value *)cr_map_get(args, "list"), 1), CR_ERR_INVALID_ARGUMENT);
    /* args are intact */
    CHECK_INT(cr_value_count(args), 4);
    CHECK_INT(cr_value_count(cr_map_get(args, "list")), 2);
    CHECK_STR(cr_value_string(cr_map_get(args, "s")), "text");

    /* wrong-kind accessors: CR_ERR_TYPE and 0 / NULL */
    const cr_value *s = cr_map_get(args, "s");
    const cr_value *i = cr_map_get(args, "i");
    cr_clear_error();
    CHECK_INT(cr_value_int(s), 0);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    cr_clear_error();
    CHECK_INT(cr_value_bool(s), 0);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    cr_clear_error();
    CHECK(cr_value_string(i) == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    CHECK_CONTAINS(cr_last_error_message(), "cr_value_string");
    cr_clear_error();
    CHECK(cr_value_object(i) == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    cr_clear_error();
    CHECK(cr_value_double(s) == 0.0);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    cr_clear_error();
    CHECK(cr_value_double(i) == 42.0); /* an integer reads as a double */
    CHECK_LAST_ERROR(CR_OK);
    CHECK(cr_list_at(s, 0) == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    cr_clear_error();
    CHECK(cr_map_get(i, "x") == NULL);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    cr_clear_error();
    CHECK_INT(cr_value_string_length(i), 0);
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    CHECK_INT(cr_value_owner(i), CR_OWNER_NONE);
    CHECK_INT(cr_value_count(i), 0);
    CHECK(cr_list_at(cr_map_get(args, "list"), 2) == NULL); /* out of range: NULL */
    CHECK(cr_map_key_at(args, 4) == NULL);
    CHECK(cr_map_value_at(args, 99) == NULL);
    return malloc(1);
}

static void borrowed_args_and_kinds(void) {
    args_probe p = {0};
    cr_class cls = {.create = args_probe_create};
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Probe", &cls, &p), CR_OK);
    CHECK_STATUS(load_yaml(reg, "P:\n  ClassName: Probe\n  Dependencies: {s: \"@text\", i: 42, list: [1, 2], m: {a: 1}}\n"),
                 CR_OK);
    void *o = cr_registry_create(reg, "P", NULL);
    CHECK(o != NULL && p.ran);
    free(o);
    /* Accessors on props we built. */
    cr_value *props = cr_map_new();
    cr_value *list = cr_list_new();
    CHECK_STATUS(cr_list_push_string(list, "x"), CR_OK);
    CHECK_STATUS(cr_list_push_double(list, 1.5), CR_OK);
    CHECK_STATUS(cr_list_push_bool(list, 1), CR_OK);
    CHECK_STATUS(cr_list_push_null(list), CR_OK);
    CHECK_STATUS(cr_list_push_int(list, 7), CR_OK);
    CHECK_STATUS(cr_list_push_object(list, props), CR_OK);
    cr_value *inner = cr_map_new();
    CHECK_STATUS(cr_map_set_double(inner, "d", 0.25), CR_OK);
    CHECK_STATUS(cr_list_push_value(list, inner), CR_OK);
    CHECK_STATUS(cr_map_set_value(props, "list", list), CR_OK);
    CHECK_STATUS(cr_map_set_bool(props, "b", 1), CR_OK);
    CHECK_STATUS(cr_map_set_int(props, "b", 5), CR_OK); /* replaced */
    CHECK_INT(cr_value_count(props), 2);
    CHECK_INT(cr_value_kind(cr_map_get(props, "b")), CR_INT);
    const cr_value *l = cr_map_get(props, "list");
    CHECK_INT(cr_value_count(l), 7);
    CHECK_STR(cr_value_string(cr_list_at(l, 0)), "x");
    CHECK(cr_value_double(cr_list_at(l, 1)) == 1.5);
    CHECK_INT(cr_value_bool(cr_list_at(l, 2)), 1);
    CHECK_INT(cr_value_kind(cr_list_at(l, 3)), CR_NULL);
    CHECK_INT(cr_value_int(cr_list_at(l, 4)), 7);
    CHECK(cr_value_object(cr_list_at(l, 5)) == props);
    CHECK_INT(cr_value_owner(cr_list_at(l, 5)), CR_OWNER_CALLER);
    CHECK(cr_value_double(cr_map_get(cr_list_at(l, 6), "d")) == 0.25);
    /* A map cannot be put into itself; a borrowed (inner) value cannot be handed over. */
    CHECK_STATUS(cr_map_set_value(props, "self", props), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "the map was taken as the value and is now freed");
    props = cr_map_new(); /* the failed call took (and freed) the old one, as documented */
    cr_value *self_list = cr_list_new();
    CHECK_STATUS(cr_list_push_value(self_list, self_list), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "the list was taken as the value and is now freed");
    CHECK_STATUS(cr_map_set_value(props, "null", NULL), CR_ERR_INVALID_ARGUMENT);
    cr_value_free(props);
    cr_registry_free(reg);
}

static void null_arguments(void) {
    cr_registry *reg = cr_registry_new();
    cr_class cls = node_class;
    cr_class no_create = {.create = NULL};
    host_stats s;
    stats_init(&s);
    cr_value *map = cr_map_new();
    cr_value *list = cr_list_new();

    cr_clear_error();
    cr_registry_free(NULL); /* ignored */
    CHECK_LAST_ERROR(CR_OK);
    CHECK_INVALID(cr_register_class(NULL, "X", &cls, &s), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_register_class(reg, NULL, &cls, &s), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_register_class(reg, "X", NULL, &s), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_register_class(reg, "X", &no_create, &s), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_replace_class(NULL, "X", &cls, &s), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_replace_class(reg, NULL, &cls, &s), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_replace_class(reg, "X", NULL, &s), CR_ERR_INVALID_ARGUMENT);
    CHECK_INT(stats_get(&s, &s.releases), 4); /* every failed registration with a class released user_data */
    CHECK_INVALID(cr_load_file(NULL, fixture_path("example.yaml"), CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_load_file(reg, NULL, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_load_file(reg, fixture_path("example.yaml"), (cr_format)99), CR_ERR_INVALID_ARGUMENT);
    const char *paths[2] = {fixture_path("example.yaml"), NULL};
    CHECK_INVALID(cr_load_files(NULL, paths, 1, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_load_files(reg, NULL, 1, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_load_files(reg, paths, 2, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_load_string(NULL, "A: B\n", 5, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_load_string(reg, NULL, 5, CR_FORMAT_AUTO), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_load_string(reg, "A: B\n", 5, (cr_format)-1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_registry_create(NULL, "Test1", NULL), NULL);
    CHECK_INVALID(cr_registry_create(reg, NULL, NULL), NULL);
    CHECK_INVALID(cr_create(NULL, NULL), NULL);

    CHECK_INVALID(cr_map_set_null(NULL, "k"), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_null(map, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_bool(NULL, "k", 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_bool(map, NULL, 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_int(NULL, "k", 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_int(map, NULL, 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_double(NULL, "k", 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_double(map, NULL, 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_string(NULL, "k", "v"), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_string(map, NULL, "v"), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_string(map, "k", NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_object(NULL, "k", map), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_object(map, NULL, map), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_value(NULL, "k", cr_map_new()), CR_ERR_INVALID_ARGUMENT);  /* value freed */
    CHECK_INVALID(cr_map_set_value(map, NULL, cr_list_new()), CR_ERR_INVALID_ARGUMENT); /* value freed */
    CHECK_INVALID(cr_map_set_value(map, "k", NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_map_set_int(list, "k", 1), CR_ERR_INVALID_ARGUMENT); /* not a map */
    CHECK_INVALID(cr_list_push_null(NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_bool(NULL, 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_int(NULL, 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_double(NULL, 1), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_string(NULL, "v"), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_string(list, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_object(NULL, map), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_value(NULL, cr_list_new()), CR_ERR_INVALID_ARGUMENT); /* value freed */
    CHECK_INVALID(cr_list_push_value(list, NULL), CR_ERR_INVALID_ARGUMENT);
    CHECK_INVALID(cr_list_push_int(map, 1), CR_ERR_INVALID_ARGUMENT); /* not a list */

    CHECK_INVALID(cr_value_bool(NULL), 0);
    CHECK_INVALID(cr_value_int(NULL), 0);
    CHECK_INVALID(cr_value_double(NULL), 0.0);
    CHECK_INVALID(cr_value_string(NULL), NULL);
    CHECK_INVALID(cr_value_string_length(NULL), 0);
    CHECK_INVALID(cr_value_object(NULL), NULL);
    CHECK_INVALID(cr_value_count(NULL), 0);
    CHECK_INVALID(cr_map_get(NULL, "k"), NULL);
    CHECK_INVALID(cr_map_get(map, NULL), NULL);
    CHECK_INVALID(cr_map_key_at(NULL, 0), NULL);
    CHECK_INVALID(cr_map_value_at(NULL, 0), NULL);
    CHECK_INVALID(cr_list_at(NULL, 0), NULL);
    /* The two questions answer NULL without recording an error. */
    cr_clear_error();
    CHECK_INT(cr_value_kind(NULL), CR_NULL);
    CHECK_INT(cr_value_owner(NULL), CR_OWNER_NONE);
    CHECK_LAST_ERROR(CR_OK);
    cr_value_free(NULL);   /* ignored */
    cr_report_error(NULL); /* ignored */
    CHECK_LAST_ERROR(CR_OK);
    CHECK_STR(cr_status_name(CR_OK) ? "ok" : NULL, "ok");
    CHECK(cr_status_name(-1) != NULL && cr_status_name(12345) != NULL);
    CHECK(strcmp(cr_status_name(CR_ERR_CYCLE), cr_status_name(CR_ERR_SYNTAX)) != 0);
    CHECK_STR(cr_version(), CR_VERSION_STRING);
    /* cr_report_error outside a callback is ignored (does not affect the next failure). */
    cr_report_error("stray");
    cr_value_free(map);
    cr_value_free(list);
    cr_registry_free(reg);
}

/* The shared registry: usable, cr_create works on it, it cannot be freed. */
static host_stats shared_s1, shared_s2;

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void
shared_registry(void) {
    cr_registry *shared = cr_shared();
    CHECK(shared != NULL);
    CHECK(cr_shared() == shared);
    stats_init(&shared_s1);
    stats_init(&shared_s2);
    CHECK_STATUS(cr_register_class(shared, "SharedTest1ViewController", &test1_class, &shared_s1), CR_OK);
    CHECK_STATUS(cr_register_class(shared, "SharedTest2ViewController", &test2_class, &shared_s2), CR_OK);
    CHECK_STATUS(load_yaml(shared,
                           "SharedTest1:\n"
                           "  ClassName: SharedTest1ViewController\n"
                           "  Dependencies:\n"
                           "    dependentString: \"@Yes, you can inject a string using the config file\"\n"
                           "    dependentInt: 1000\n"
                           "    dependentBool: true\n"
                           "    test2ViewController: SharedTest2\n"
                           "SharedTest2: SharedTest2ViewController\n"),
                 CR_OK);
    cr_value *props = cr_map_new();
    cr_map_set_string(props, "color", "red");
    cr_map_set_int(props, "number", 1);
    Test1ViewController *t = cr_create("SharedTest1", props);
    CHECK_EXAMPLE_OBJECT(t, 1);
    if (t) test1_destroy(t, NULL);
    cr_value_free(props);
    cr_clear_error();
    cr_registry_free(shared); /* refused */
    CHECK_LAST_ERROR(CR_ERR_INVALID_ARGUMENT);
    t = cr_registry_create(shared, "SharedTest1", NULL);
    CHECK_EXAMPLE_OBJECT(t, 0);
    if (t) test1_destroy(t, NULL);
    CHECK_INT(stats_get(&shared_s1, &shared_s1.releases), 0);
    cr_clear_error();
    CHECK(cr_create("NotInShared", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
}

/* Every problem at once: a broken file in cr_load_files does not hide the others' problems, and the
 * code is the lowest-numbered one whatever the order of the files. */
static void load_files_reports_every_file(void) {
    char good[64], bad[64];
    snprintf(good, sizeof good, "/tmp/cr-every-good-%ld.yaml", (long)getpid());
    snprintf(bad, sizeof bad, "/tmp/cr-every-bad-%ld.yaml", (long)getpid());
    FILE *f = fopen(good, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("A: {ClassName: C, Dependencies: {x: A}}\nB: {ClassName: C, Bogus: 1}\n", f);
    fclose(f);
    f = fopen(bad, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("X: [unclosed\n", f);
    fclose(f);
    const char *orders[2][2] = {{good, bad}, {bad, good}};
    for (int i = 0; i < 2; i++) {
        cr_registry *reg = cr_registry_new();
        CHECK_STATUS(cr_load_files(reg, orders[i], 2, CR_FORMAT_AUTO), CR_ERR_SYNTAX);
        CHECK_CONTAINS(cr_last_error_message(), "dependency cycle: A -> A");
        CHECK_CONTAINS(cr_last_error_message(), "unknown key 'Bogus'");
        CHECK_CONTAINS(cr_last_error_message(), "cr-every-bad-");
        cr_registry_free(reg);
    }
    remove(good);
    remove(bad);
}

/* A wrong-kind read names both kinds in words ("expected an integer, got a string"). */
static void kind_messages_read_well(void) {
    cr_value *m = cr_map_new();
    cr_map_set_string(m, "s", "x");
    cr_clear_error();
    (void)cr_value_int(cr_map_get(m, "s"));
    CHECK_LAST_ERROR(CR_ERR_TYPE);
    CHECK_CONTAINS(cr_last_error_message(), "expected an integer, got a string");
    cr_value_free(m);
}

/* One rule, every door (issue 13): cr_add_entry and a config file give the same code and message
 * for the same entry (the Swift suite's EveryDoorTests runs the same table through Registry.add). */
static cr_value *door_value(int which) {
    cr_value *v;
    switch (which) {
    case 0: return NULL; /* d: "" is set directly */
    case 1:
        v = cr_map_new();
        cr_map_set_string(v, "Provider", "@x");
        return v;
    case 2:
        v = cr_map_new();
        cr_map_set_string(v, "Provider", "");
        return v;
    case 3:
        v = cr_map_new();
        cr_map_set_int(v, "Provider", 5);
        return v;
    case 4:
        v = cr_map_new();
        cr_map_set_string(v, "Provider", "X");
        cr_map_set_int(v, "Other", 1);
        return v;
    case 5:
        v = cr_map_new();
        cr_map_set_string(v, "provider", "X");
        return v;
    case 6:
        v = cr_list_new();
        cr_list_push_string(v, "@ok");
        cr_list_push_string(v, "");
        return v;
    /* 7-9: d is a string. 10-19: the forms of issue 16 ({Tagged: t}, {Optional: Name}). */
    case 10:
        v = cr_map_new();
        cr_value *tags = cr_list_new();
        cr_list_push_string(tags, "a");
        cr_list_push_string(tags, "b");
        cr_map_set_value(v, "Tagged", tags);
        return v;
    case 11:
        v = cr_map_new();
        cr_map_set_bool(v, "Tagged", 1);
        return v;
    case 12:
        v = cr_map_new();
        cr_map_set_string(v, "Tagged", "");
        return v;
    case 13:
        v = cr_map_new();
        cr_map_set_string(v, "Tagged", "x");
        cr_map_set_int(v, "Other", 1);
        return v;
    case 14:
        v = cr_map_new();
        cr_map_set_string(v, "tagged", "x");
        return v;
    case 15:
        v = cr_map_new();
        cr_map_set_string(v, "Optional", "@x");
        return v;
    case 16:
        v = cr_map_new();
        cr_map_set_string(v, "Optional", "");
        return v;
    case 17:
        v = cr_map_new();
        cr_map_set_int(v, "Optional", 5);
        return v;
    case 18:
        v = cr_map_new();
        cr_map_set_string(v, "Optional", "X");
        cr_map_set_int(v, "Other", 1);
        return v;
    case 19:
        v = cr_map_new();
        cr_map_set_string(v, "optional", "X");
        return v;
    default: return NULL;
    }
}

/* A config cut short (a partial copy or write) fails in every format with its place (line and
 * column; a binary plist's byte offset) and the same fix: write the file whole again. */
static void truncated_configs_name_the_fix(void) {
    static const char yaml[] = "E:\n  ClassName: C\n  Dependencies: {a: [1, 2";
    static const char json[] = "{\"E\": {\"ClassName\": \"C\", \"Dependencies\": {\"a\": [1, 2";
    static const char xml[] = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\">\n<dict>\n<key>E</key>\n<string>C</str";
    /* {"E": "C"} as a binary plist, without its last 5 bytes (its trailer is cut). */
    static const unsigned char bplist[] = {'b',  'p',  'l',  'i',  's',  't',  '0',  '0',  0xD1, 0x01, 0x02, 0x51,
                                           0x45, 0x51, 0x43, 0x08, 0x0B, 0x0D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                           0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00,
                                           0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
    static const struct {
        const char *text;
        size_t length;
        cr_format format;
        unsigned line, column;
        const char *thing;
    } cases[] = {
        {yaml, sizeof yaml - 1, CR_FORMAT_YAML, 4, 1, "did not find expected ',' or ']'"},
        {json, sizeof json - 1, CR_FORMAT_JSON, 1, 53, "unexpected end of input: expected ',' or ']'"},
        {xml, sizeof xml - 1, CR_FORMAT_PLIST, 5, 10, "unterminated end tag </str"},
        {(const char *)bplist, sizeof bplist, CR_FORMAT_PLIST, 0, 19, "binary plist trailer:"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_registry *reg = cr_registry_new();
        CHECK_STATUS(cr_load_string(reg, cases[i].text, cases[i].length, cases[i].format), CR_ERR_SYNTAX);
        const cr_problem *p = cr_last_error_problem(0);
        CHECK(p != NULL);
        if (p) {
            CHECK_STR(p->file, "<string>");
            CHECK_INT((int)p->line, (int)cases[i].line);
            CHECK_INT((int)p->column, (int)cases[i].column);
            CHECK_CONTAINS(p->message, cases[i].thing);
            CHECK_CONTAINS(p->message, "cut short");
            CHECK_CONTAINS(p->message, "write it whole again");
        }
        cr_registry_free(reg);
    }
}

static void every_door_agrees(void) {
    static const struct {
        const char *name, *class_name, *yaml, *string; /* string: d's value when it is a string */
        int code;
        const char *message;
    } cases[] = {
        {"E", "C", "''", "", CR_ERR_SCHEMA,
         "entry 'E', key 'd': an empty string is not an entry name; write \"@\" for an empty literal string"},
        {"E", "C", "{Provider: '@x'}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Provider must name an entry, not a literal ('@x')"},
        {"E", "C", "{Provider: ''}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Provider must name an entry (a non-empty string), found an empty string"},
        {"E", "C", "{Provider: 5}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Provider must name an entry (a non-empty string), found an integer"},
        {"E", "C", "{Provider: X, Other: 1}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': a provider is written {Provider: EntryName} with no other keys"},
        {"E", "C", "{provider: X}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': 'provider' is not a dependency form: forms are case-sensitive; write {Provider: EntryName}"},
        {"E", "C", "['@ok', '']", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': an empty string is not an entry name; write \"@\" for an empty literal string"},
        {"E", "C", "Hello world", "Hello world", CR_ERR_MISSING_REFERENCE,
         "entry 'E', key 'd': no entry named 'Hello world'; if this is text, write \"@Hello world\""},
        {"", "C", "'@x'", "@x", CR_ERR_SCHEMA, "an entry name must not be empty; give the entry a name"},
        {"E", "", "'@x'", "@x", CR_ERR_SCHEMA, "the class name of entry 'E' must not be empty; name the class that builds it"},
        {"E", "C", "{Tagged: [a, b]}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Tagged must name one tag (a non-empty string or an integer), found a list; write one "
         "{Tagged: tag} per tag"},
        {"E", "C", "{Tagged: true}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Tagged must name one tag (a non-empty string or an integer), found a boolean"},
        {"E", "C", "{Tagged: ''}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Tagged must name one tag (a non-empty string or an integer), found an empty string"},
        {"E", "C", "{Tagged: x, Other: 1}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': a tagged list is written {Tagged: tag} with no other keys"},
        {"E", "C", "{tagged: x}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': 'tagged' is not a dependency form: forms are case-sensitive; write {Tagged: tag}"},
        {"E", "C", "{Optional: '@x'}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Optional must name an entry, not a literal ('@x')"},
        {"E", "C", "{Optional: ''}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Optional must name an entry (a non-empty string), found an empty string"},
        {"E", "C", "{Optional: 5}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': Optional must name an entry (a non-empty string), found an integer"},
        {"E", "C", "{Optional: X, Other: 1}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': an optional reference is written {Optional: EntryName} with no other keys"},
        {"E", "C", "{optional: X}", NULL, CR_ERR_SCHEMA,
         "entry 'E', key 'd': 'optional' is not a dependency form: forms are case-sensitive; write {Optional: EntryName}"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cr_registry *reg = cr_registry_new();
        char yaml[512];
        snprintf(yaml, sizeof yaml, "'%s':\n  ClassName: '%s'\n  Dependencies:\n    d: %s\n", cases[i].name, cases[i].class_name,
                 cases[i].yaml);
        CHECK_STATUS(load_yaml(reg, yaml), cases[i].code);
        const char *config = cr_last_error_message();
        size_t nc = strlen(config), nm = strlen(cases[i].message);
        CHECK(nc >= nm && strcmp(config + nc - nm, cases[i].message) == 0 && strncmp(config, "<string>:", 9) == 0);
        cr_value *deps = cr_map_new();
        if (cases[i].string) {
            cr_map_set_string(deps, "d", cases[i].string);
        } else {
            cr_map_set_value(deps, "d", door_value((int)i));
        }
        CHECK_STATUS(cr_add_entry(reg, cases[i].name, cases[i].class_name, CR_LIFESTYLE_TRANSIENT, deps), cases[i].code);
        /* Where the config's problem starts with its place, the call's starts with the function. */
        char named[512];
        snprintf(named, sizeof named, "cr_add_entry: %s", cases[i].message);
        CHECK_STR(cr_last_error_message(), named);
        CHECK_STR(cr_last_error_problem(0)->message, named);
        CHECK_STR(cr_last_error_problem(0)->file, "");
        cr_value_free(deps);
        cr_registry_free(reg);
    }
}

/* The message (and its one record) of an argument the core refuses starts with the C function the
 * host called, so a C caller knows which call it was. The C++ and Python bindings give the same
 * text without it (their callers never called a cr_ function): bindings/cpp/tests/test_bindings.cpp
 * and bindings/python/tests/test_misuse.py run the same cases. */
static void refused_arguments_name_the_c_function(void) {
    static const char singleton_text[] =
        "cannot create 'Logger': 'Logger' is a singleton, built once from its config: it takes no props"
        " (create it without props, or give the entry another Lifestyle to build one per create)";
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg, "Logger: {ClassName: Node, Lifestyle: singleton}\n"), CR_OK);
    cr_value *props = cr_map_new();
    cr_map_set_string(props, "level", "trace");
    char expected[512];
    for (int with = 0; with < 2; with++) {
        cr_create_options o = CR_CREATE_OPTIONS_INIT;
        o.props = props;
        const char *function = with ? "cr_registry_create_with" : "cr_registry_create";
        CHECK_INVALID(with ? cr_registry_create_with(reg, "Logger", &o) : cr_registry_create(reg, "Logger", props), NULL);
        snprintf(expected, sizeof expected, "%s: %s", function, singleton_text);
        CHECK_STR(cr_last_error_message(), expected);
        CHECK_INT((int)cr_last_error_count(), 1);
        const cr_problem *p = cr_last_error_problem(0);
        CHECK(p != NULL);
        if (p) {
            CHECK_STR(p->message, expected);
            CHECK(p->file == NULL || p->file[0] == '\0');
        }
    }
    cr_value_free(props);
    CHECK_STATUS(cr_add_name_template(reg, "{name}{name}"), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "cr_add_name_template: the name template \"{name}{name}\" holds {name} 2 times");
    /* A refusal of another code without a place is named the same way (the C++ and Python tests
     * run this case too and read it without the name). */
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_ERR_CLASS_EXISTS);
    CHECK_STR(cr_last_error_message(),
              "cr_register_class: class 'Node' is already registered: to replace it on purpose, use the replace call"
              " (cr_replace_class; replaceClass in Swift; replace_class in C++; replace=True in Python)");
    cr_clear_error();
    cr_registry_free(reg);
}

/* A singleton reaching a graph entry through object references: CR_ERR_LIFETIME at the singleton's
 * place, every such singleton at once, from a file and from cr_add_entry alike; nothing changes. */
static void lifetime_rule(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "Ctx: {ClassName: Node, Lifestyle: graph}\n"
                           "Pricing: {ClassName: Node, Dependencies: {ctx: Ctx}}\n"
                           "Cart:\n  ClassName: Node\n  Lifestyle: singleton\n  Dependencies: {pricing: Pricing}\n"
                           "Fine: {ClassName: Node, Lifestyle: singleton, Dependencies: {ctx: {Provider: Ctx}}}\n"
                           "Late: {ClassName: Node, Lifestyle: singleton, Dependencies: {c: Ctx}}\n"),
                 CR_ERR_LIFETIME);
    CHECK_INT((int)cr_last_error_count(), 2);
    const cr_problem *p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->code, CR_ERR_LIFETIME);
        CHECK_STR(p->file, "<string>");
        CHECK_INT((int)p->line, 3);
        CHECK_INT((int)p->column, 1);
        CHECK_CONTAINS(p->message, "singleton 'Cart' would keep graph object 'Ctx': Cart -> Pricing -> Ctx");
        CHECK_CONTAINS(p->message, "make it {Provider: Ctx}");
    }
    p = cr_last_error_problem(1);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT((int)p->line, 8);
        CHECK_INT((int)p->column, 1);
        CHECK_CONTAINS(p->message, "singleton 'Late' would keep graph object 'Ctx': Late -> Ctx");
    }
    cr_clear_error();
    CHECK(cr_registry_create(reg, "Ctx", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);

    /* The same rule for entries added from code. */
    CHECK_STATUS(load_yaml(reg, "Ctx: {ClassName: Node, Lifestyle: graph}\n"), CR_OK);
    cr_value *deps = cr_map_new();
    cr_map_set_string(deps, "ctx", "Ctx");
    CHECK_STATUS(cr_add_entry(reg, "Session", "Node", CR_LIFESTYLE_SINGLETON, deps), CR_ERR_LIFETIME);
    CHECK_CONTAINS(cr_last_error_message(), "singleton 'Session' would keep graph object 'Ctx': Session -> Ctx");
    CHECK_STATUS(cr_add_entry(reg, "Session", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_OK);
    cr_value_free(deps);
    cr_clear_error();
    void *session = cr_registry_create(reg, "Session", NULL);
    CHECK(session != NULL);
    CHECK_STR(cr_status_name(CR_ERR_LIFETIME), "lifetime");
    /* A tagged list is an object edge: a graph member of the tag breaks the rule. */
    CHECK_STATUS(load_yaml(reg,
                           "Req: {ClassName: Node, Tag: req, Lifestyle: graph}\n"
                           "Hub: {ClassName: Node, Lifestyle: singleton, Dependencies: {all: {Tagged: req}}}\n"),
                 CR_ERR_LIFETIME);
    CHECK_INT((int)cr_last_error_count(), 1);
    p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT((int)p->line, 2);
        CHECK_CONTAINS(p->message, "singleton 'Hub' would keep graph object 'Req': Hub -> Req (key 'all' of 'Hub')");
        CHECK_CONTAINS(p->message, "take 'Req' out of tag 'req'");
    }
    if (session) node_destroy(session, &s);
    cr_registry_free(reg);
}

/* Forms of one key and flawed entry names inside lists: each problem's record has the place of the
 * value itself, the entry and key, and the fix (a misspelt form's suggestion is the form). */
static void flawed_uses_in_lists_and_misspelt_forms_are_placed(void) {
    cr_registry *reg = cr_registry_new();
    const char *text = "D: {ClassName: C, Dependencies: {bad: {PROVIDER: B}}}\n"
                       "E: {ClassName: C, Dependencies: {list: [B, {Provider: \"@lit\"}], opt: {Optional: \"\"}}}\n"
                       "B: C\n";
    CHECK_STATUS(cr_load_string(reg, text, strlen(text), CR_FORMAT_YAML), CR_ERR_SCHEMA);
    CHECK_INT((int)cr_last_error_count(), 3);
    if (cr_last_error_count() == 3) {
        const cr_problem *p = cr_last_error_problem(0);
        CHECK_INT((int)p->line, 1);
        CHECK_INT((int)p->column, 40);
        CHECK_STR(p->message,
                  "entry 'D', key 'bad': 'PROVIDER' is not a dependency form: forms are case-sensitive; write "
                  "{Provider: EntryName}");
        CHECK_STR(p->suggestion, "Provider");
        p = cr_last_error_problem(1);
        CHECK_INT((int)p->line, 2);
        CHECK_INT((int)p->column, 55);
        CHECK_STR(p->message, "entry 'E', key 'list': Provider must name an entry, not a literal ('@lit')");
        CHECK(p->suggestion == NULL);
        p = cr_last_error_problem(2);
        CHECK_INT((int)p->column, 81);
        CHECK_STR(p->message, "entry 'E', key 'opt': Optional must name an entry (a non-empty string), found an empty string");
    }
    cr_registry_free(reg);
}

/* The text of cr_last_error_message() written back from the problem records: "N problems:" then
 * "  file:line:column: message" per problem (`file:byte N` for a binary plist's offsets): every
 * problem when there are at most 101, else the first 100 and a line counting the rest. */
static char *joined_problems(void) {
    size_t n = cr_last_error_count(), cap = 256, listed = n <= 101 ? n : 100;
    for (size_t i = 0; i < n; i++) cap += strlen(cr_last_error_problem(i)->file) + strlen(cr_last_error_problem(i)->message) + 64;
    char *out = malloc(cap);
    if (!out) return NULL;
    size_t used = (size_t)snprintf(out, cap, "%zu problems:", n);
    for (size_t i = 0; i < listed; i++) {
        const cr_problem *p = cr_last_error_problem(i);
        used += (size_t)(p->file[0] ? p->line ? snprintf(out + used, cap - used, "\n  %s:%u:%u: %s", p->file, (unsigned)p->line,
                                                         (unsigned)p->column, p->message)
                                              : snprintf(out + used, cap - used, "\n  %s:byte %u: %s", p->file,
                                                         (unsigned)p->column, p->message)
                                    : snprintf(out + used, cap - used, "\n  %s", p->message));
    }
    if (listed < n)
        snprintf(out + used, cap - used,
                 "\n  %zu more problems not listed (the first 100 are; the error's list of problems holds every one)",
                 n - listed);
    return out;
}

/* A load with many problems (Tests/Fixtures/many-problems.yaml, the case every door runs): the
 * message lists the first 100 in the records' order and words and counts the rest; every problem
 * is a record, those past the hundredth written as they are read; each record's strings are its
 * own (files of two loaded files alternate correctly). */
static void many_problems_message_and_records_agree(void) {
    enum { N = 300 };
    size_t cap = N * 160, used = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text) return;
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0)
            used += (size_t)snprintf(text + used, cap - used, "E%d: {ClassName: C, Dependencies: {ref: Nowhere%d}}\n", i, i);
        else if (i % 3 == 1)
            used += (size_t)snprintf(text + used, cap - used, "E%d: {ClassName: C, Descripton: x}\n", i);
        else
            used +=
                (size_t)snprintf(text + used, cap - used, "E%d: {ClassName: C, Dependencies: {p: {Provider: \"@E%d\"}}}\n", i, i);
    }
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_load_string(reg, text, used, CR_FORMAT_YAML), CR_ERR_SCHEMA);
    CHECK_INT(cr_last_error_count(), N);
    char *expected = joined_problems();
    CHECK(expected != NULL);
    if (expected) CHECK_STR(cr_last_error_message(), expected);
    free(expected);
    CHECK_STR(cr_last_error_problem(0)->message,
              "entry 'E0', key 'ref': no entry named 'Nowhere0'; if this is text, write \"@Nowhere0\"");
    CHECK_STR(cr_last_error_problem(1)->message,
              "unknown key 'Descripton' in entry 'E1' (did you mean 'Description'?); allowed keys are ClassName, "
              "Description, Tag, Dependencies, Lifestyle, Eager");
    CHECK_STR(cr_last_error_problem(1)->suggestion, "Description");
    CHECK_STR(cr_last_error_problem(2)->message, "entry 'E2', key 'p': Provider must name an entry, not a literal ('@E2')");
    CHECK_STR(cr_last_error_problem(N - 1)->file, "<string>");
    CHECK_INT(cr_last_error_problem(N - 1)->line, N);
    CHECK_STR(cr_last_error_problem(N - 1)->message,
              "entry 'E299', key 'p': Provider must name an entry, not a literal ('@E299')");
    CHECK_STR(cr_last_error_problem(N - 3)->message,
              "entry 'E297', key 'ref': no entry named 'Nowhere297'; if this is text, write \"@Nowhere297\"");
    CHECK_INT(count_lines(cr_last_error_message()), 102);

    /* The same text from the fixture every door loads: the same listing and records. */
    CHECK_STATUS(cr_load_file(reg, fixture_path("many-problems.yaml"), CR_FORMAT_AUTO), CR_ERR_SCHEMA);
    CHECK_INT(cr_last_error_count(), N);
    const char *last_line = strrchr(cr_last_error_message(), '\n');
    CHECK_STR(last_line, "\n  200 more problems not listed (the first 100 are; the error's list of problems holds every one)");
    CHECK_STR(cr_last_error_problem(N - 1)->message,
              "entry 'E299', key 'p': Provider must name an entry, not a literal ('@E299')");
    CHECK_INT(cr_last_error_problem(N - 1)->line, N);

    /* Two files, problems in both: each record names its own file. */
    char a[64], b[64];
    snprintf(a, sizeof a, "/tmp/cr-many-a-%ld.yaml", (long)getpid());
    snprintf(b, sizeof b, "/tmp/cr-many-b-%ld.yaml", (long)getpid());
    FILE *fa = fopen(a, "w"), *fb = fopen(b, "w");
    CHECK(fa && fb);
    if (fa && fb) {
        fputs("A1: {ClassName: C, Dependencies: {x: Gone1}}\nA2: {ClassName: C, Bogus: 1}\n", fa);
        fputs("B1: {ClassName: C, Dependencies: {x: Gone2}}\nB2: {ClassName: C, Bogus: 1}\n", fb);
    }
    if (fa) fclose(fa);
    if (fb) fclose(fb);
    const char *paths[2] = {a, b};
    CHECK_STATUS(cr_load_files(reg, paths, 2, CR_FORMAT_AUTO), CR_ERR_SCHEMA);
    CHECK_INT(cr_last_error_count(), 4);
    expected = joined_problems();
    CHECK(expected != NULL);
    if (expected) CHECK_STR(cr_last_error_message(), expected);
    free(expected);
    if (cr_last_error_count() == 4) {
        CHECK_STR(cr_last_error_problem(0)->file, a);
        CHECK_STR(cr_last_error_problem(1)->file, a);
        CHECK_STR(cr_last_error_problem(2)->file, b);
        CHECK_STR(cr_last_error_problem(3)->file, b);
    }
    remove(a);
    remove(b);
    cr_registry_free(reg);
    free(text);
}

/* `count` YAML entries E0, E1, ... (one line each): every 50th has an unknown key, the others
 * refer to a missing entry; then `tail`. Returns the malloc'ed text. */
static char *many_entries(int count, const char *tail) {
    size_t cap = (size_t)count * 80 + strlen(tail) + 1, n = 0;
    char *text = malloc(cap);
    if (!text) return NULL;
    for (int i = 0; i < count; i++)
        n += (size_t)snprintf(
            text + n, cap - n,
            i % 50 == 7 ? "E%d: {ClassName: C, Bogus: 1}\n" : "E%d: {ClassName: C, Dependencies: {x: Gone%d}}\n", i, i);
    snprintf(text + n, cap - n, "%s", tail);
    return text;
}

static void write_text_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Entries are decoded while their file is read: a syntax error after hundreds of entries still
 * fails the whole file with that error alone (the entries before it, and their problems, are not
 * reported), in a string, among several files, and in a reload. */
static void late_syntax_error_reports_it_alone(void) {
    char *text = many_entries(400, "broken: [\n");
    CHECK(text != NULL);
    if (!text) return;
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(load_yaml(reg, text), CR_ERR_SYNTAX);
    CHECK_INT((long long)cr_last_error_count(), 1);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:402:1: did not find expected node content");
    cr_clear_error();
    CHECK(cr_registry_create(reg, "E0", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);

    /* A good file and a broken one: only the broken file's syntax error. */
    char good[64], bad[64];
    snprintf(good, sizeof good, "/tmp/cr-late-good-%ld.yaml", (long)getpid());
    snprintf(bad, sizeof bad, "/tmp/cr-late-bad-%ld.yaml", (long)getpid());
    write_text_file(good, "G: C\nE3: C\n");
    write_text_file(bad, text);
    const char *orders[2][2] = {{good, bad}, {bad, good}};
    for (int i = 0; i < 2; i++) {
        cr_registry *r = cr_registry_new();
        CHECK_STATUS(cr_load_files(r, orders[i], 2, CR_FORMAT_AUTO), CR_ERR_SYNTAX);
        CHECK_INT((long long)cr_last_error_count(), 1);
        const cr_problem *p = cr_last_error_problem(0);
        CHECK(p != NULL && p->code == CR_ERR_SYNTAX && p->line == 402);
        cr_registry_free(r);
    }

    /* A reload of a file that broke late keeps the registry as it was. */
    write_text_file(good, "G: C\n");
    CHECK_STATUS(cr_load_file(reg, good, CR_FORMAT_AUTO), CR_OK);
    write_text_file(good, text);
    CHECK_STATUS(cr_registry_reload(reg), CR_ERR_SYNTAX);
    CHECK_INT((long long)cr_last_error_count(), 1);
    cr_value *entries = cr_registry_entries(reg);
    CHECK(entries != NULL && cr_value_count(entries) == 1);
    cr_value_free(entries);
    free(text);

    /* Without the error the same entries report every problem. */
    text = many_entries(400, "");
    CHECK(text != NULL);
    if (text) {
        CHECK(load_yaml(reg, text) != CR_OK);
        CHECK_INT((long long)cr_last_error_count(), 400);
        free(text);
    }
    cr_registry_free(reg);
    remove(good);
    remove(bad);
}

/* A repeated entry name is found however far apart the two are (each entry is decoded as it is
 * read), and reported at the repeat, naming the first place. */
static void repeated_name_far_apart(void) {
    char *text = many_entries(300, "E7: C\n");
    CHECK(text != NULL);
    if (!text) return;
    cr_registry *reg = cr_registry_new();
    CHECK(load_yaml(reg, text) != CR_OK);
    /* The last of 301 problems by place: past the message's first 100, in the records. */
    size_t n = cr_last_error_count();
    CHECK_INT((long long)n, 301);
    const cr_problem *last = n ? cr_last_error_problem(n - 1) : NULL;
    CHECK(last != NULL);
    if (last) {
        CHECK_INT(last->line, 301);
        CHECK_INT(last->column, 1);
        CHECK_STR(last->message, "duplicate key 'E7' (first defined at line 8, column 1); remove one of them");
    }
    cr_registry_free(reg);
    free(text);
}

/* The same in JSON with entries far smaller than the load sizes its room of names for (one per
 * 128 bytes of text): thousands of one-line entries, the name repeated after all of them. */
static void repeated_name_among_many_small_entries(void) {
    size_t cap = 3000 * 16 + 32, n = 0;
    char *text = malloc(cap);
    CHECK(text != NULL);
    if (!text) return;
    n += (size_t)snprintf(text + n, cap - n, "{\n");
    for (int i = 0; i < 3000; i++) n += (size_t)snprintf(text + n, cap - n, "\"E%d\": \"C\",\n", i);
    snprintf(text + n, cap - n, "\"E7\": \"C\"\n}\n");
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_load_string(reg, text, strlen(text), CR_FORMAT_JSON), CR_ERR_DUPLICATE);
    CHECK_INT((long long)cr_last_error_count(), 1);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:3002:1: duplicate key 'E7' (first defined at line 9, column 1)");
    cr_registry_free(reg);
    free(text);
}

/* A NUL byte in a name (JSON "\u0000", YAML "\0") is written \0 in messages: C reads each message
 * whole, and the problems after it are still in cr_last_error_message. */
static void nul_in_a_name_keeps_the_message_whole(void) {
    static const char json[] = "{\"A\": \"C\", \"k\\u0000\": \"C\", \"A\": \"C\"}";
    cr_registry *reg = cr_registry_new();
    CHECK_INT(cr_load_string(reg, json, sizeof json - 1, CR_FORMAT_JSON), CR_ERR_SCHEMA);
    CHECK_CONTAINS(cr_last_error_message(), "<string>:1:12: entry name 'k\\0' contains a NUL byte\n");
    CHECK_CONTAINS(cr_last_error_message(), "<string>:1:28: duplicate key 'A' (first defined at line 1, column 2)");
    CHECK_INT((long long)cr_last_error_count(), 2);
    const cr_problem *p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p) CHECK_STR(p->message, "entry name 'k\\0' contains a NUL byte");
    static const char yaml[] = "A: {ClassName: C, Dependencies: {\"k\\0ey\": [Missing]}}\n";
    /* (A NUL in a dependency key is refused: no host could read it by cr_map_get.) */
    CHECK_INT(cr_load_string(reg, yaml, sizeof yaml - 1, CR_FORMAT_YAML), CR_ERR_SCHEMA);
    CHECK_CONTAINS(cr_last_error_message(), "entry 'A', key 'k\\0ey': a dependency key must not contain a NUL byte");
    cr_registry_free(reg);
}

/* A failure's problem records are written when the first is asked for: the message read before
 * stays where it was, records read last-first agree with it, a failure whose records were never
 * read is replaced (or cleared) whole, and cr_clear_error leaves no record to read. */
static void problem_records_read_late_agree_with_the_message(void) {
    static const char yaml[] = "A: {ClassName: C, Dependencies: {r: Nowhere}}\n"
                               "B: {ClassName: C, Descripton: x}\n"
                               "C: {ClassName: C, Dependencies: {p: {Provider: \"@A\"}}}\n";
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_load_string(reg, yaml, sizeof yaml - 1, CR_FORMAT_YAML), CR_ERR_SCHEMA);
    const char *message = cr_last_error_message();
    CHECK_INT((int)cr_last_error_count(), 3);
    CHECK(cr_last_error_problem(3) == NULL);
    const cr_problem *last = cr_last_error_problem(2);
    CHECK(last != NULL);
    if (last) {
        CHECK_INT((int)last->line, 3);
        CHECK_STR(last->message, "entry 'C', key 'p': Provider must name an entry, not a literal ('@A')");
    }
    CHECK(cr_last_error_message() == message);
    CHECK(cr_last_error_problem(2) == last);
    const cr_problem *first = cr_last_error_problem(0);
    CHECK(first != NULL);
    if (first) {
        CHECK_STR(first->file, "<string>");
        CHECK_STR(first->message, "entry 'A', key 'r': no entry named 'Nowhere'; if this is text, write \"@Nowhere\"");
        CHECK(first->suggestion == NULL);
    }
    char *expected = joined_problems();
    CHECK(expected != NULL);
    if (expected) CHECK_STR(message, expected);
    free(expected);
    /* Two failures in a row, the first one's records never read, then one cleared unread. */
    CHECK_STATUS(cr_load_string(reg, yaml, sizeof yaml - 1, CR_FORMAT_YAML), CR_ERR_SCHEMA);
    CHECK_STATUS(cr_load_string(reg, yaml, 46, CR_FORMAT_YAML), CR_ERR_MISSING_REFERENCE);
    CHECK_INT((int)cr_last_error_count(), 1);
    CHECK_STATUS(cr_load_string(reg, yaml, sizeof yaml - 1, CR_FORMAT_YAML), CR_ERR_SCHEMA);
    cr_clear_error();
    CHECK_INT((int)cr_last_error_count(), 0);
    CHECK(cr_last_error_problem(0) == NULL);
    CHECK_STR(cr_last_error_message(), "");
    cr_registry_free(reg);
}

/* Whether two records hold the same parts (code, file, line, column, message, suggestion). */
static int same_problem(const cr_problem *a, const cr_problem *b) {
    if (!a || !b) return 0;
    int same_suggestion = (a->suggestion == NULL) == (b->suggestion == NULL) &&
        (a->suggestion == NULL || strcmp(a->suggestion, b->suggestion) == 0);
    return a->code == b->code && strcmp(a->file, b->file) == 0 && a->line == b->line && a->column == b->column &&
        strcmp(a->message, b->message) == 0 && same_suggestion;
}

/* How many of `kept`'s records differ from the thread's last error's (the same failure loaded again). */
static size_t records_differing_from_last_error(const cr_error *kept) {
    size_t differing = 0, n = cr_error_count(kept);
    if (n != cr_last_error_count()) return n + 1;
    for (size_t i = 0; i < n; i++)
        if (!same_problem(cr_error_problem(kept, i), cr_last_error_problem(i))) differing++;
    return differing;
}

typedef struct {
    const cr_error *kept;
    const cr_problem *first, *last; /* what the thread read */
    size_t read;                    /* how many records it got */
} kept_reader;

static void *read_every_kept_record(void *arg) {
    kept_reader *r = arg;
    size_t n = cr_error_count(r->kept);
    for (size_t i = 0; i < n; i++)
        if (cr_error_problem(r->kept, i)) r->read++;
    r->first = cr_error_problem(r->kept, 0);
    r->last = cr_error_problem(r->kept, n - 1);
    return NULL;
}

/* A failure kept with cr_last_error_keep (what the C++ and Python bindings' exceptions hold; the
 * case every door runs, Tests/Fixtures/many-problems.yaml): its code, message and count are the
 * thread's; every record stays readable, the same as the thread's, after the registry is freed,
 * the thread's error cleared and another call failed, from two threads reading at once (the first
 * read writes them), and one kept failure's records are shared with a second keep of it. */
static void kept_errors_outlive_the_thread_record(void) {
    enum { N = 300 };
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_load_file(reg, fixture_path("many-problems.yaml"), CR_FORMAT_AUTO), CR_ERR_SCHEMA);
    cr_error *kept = cr_last_error_keep(), *again = cr_last_error_keep();
    CHECK(kept != NULL && again != NULL);
    if (!kept || !again) {
        cr_error_free(kept);
        cr_error_free(again);
        cr_registry_free(reg);
        return;
    }
    CHECK_INT(cr_error_code(kept), CR_ERR_SCHEMA);
    CHECK_STR(cr_error_message(kept), cr_last_error_message());
    CHECK(cr_error_message(kept) != cr_last_error_message()); /* a copy of its own */
    CHECK_INT(cr_error_count(kept), N);
    CHECK_INT(cr_last_error_count(), N); /* the thread's record is left as it was */

    /* Everything that could take the failure away: the registry, the thread's record, a later failure. */
    cr_registry_free(reg);
    cr_clear_error();
    CHECK(cr_last_error_keep() == NULL);
    CHECK(cr_registry_create(cr_shared(), "NoSuchEntryHere", NULL) == NULL);
    cr_error *later = cr_last_error_keep();
    CHECK(later != NULL);
    CHECK_INT(cr_error_count(later), 1);
    CHECK_INT(cr_error_code(later), CR_ERR_NOT_FOUND);
    CHECK_STR(cr_error_message(later), cr_last_error_message());
    CHECK(later && same_problem(cr_error_problem(later, 0), cr_last_error_problem(0)));
    cr_clear_error();
    CHECK(later && cr_error_problem(later, 0) && strstr(cr_error_problem(later, 0)->message, "NoSuchEntryHere"));
    cr_error_free(later);

    /* Two threads read every record at once, the first read writing them. */
    kept_reader readers[2] = {{kept, NULL, NULL, 0}, {kept, NULL, NULL, 0}};
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) CHECK_INT(pthread_create(&threads[t], NULL, read_every_kept_record, &readers[t]), 0);
    for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
    for (int t = 0; t < 2; t++) {
        CHECK_INT(readers[t].read, N);
        CHECK(readers[t].first == cr_error_problem(kept, 0)); /* written once, for both */
        CHECK(readers[t].last == cr_error_problem(kept, N - 1));
    }
    CHECK(cr_error_problem(again, 0) == cr_error_problem(kept, 0)); /* one writer for every keep */
    CHECK(cr_error_problem(kept, N) == NULL);
    CHECK(cr_error_problem(kept, (size_t)-1) == NULL);
    CHECK_STR(cr_error_problem(kept, 1)->suggestion, "Description");
    CHECK_STR(cr_error_problem(kept, N - 1)->message,
              "entry 'E299', key 'p': Provider must name an entry, not a literal ('@E299')");
    CHECK_INT(cr_error_problem(kept, N - 1)->line, N);
    cr_error_free(kept);

    /* The second keep outlives the first, and agrees record by record with the same load again. */
    reg = cr_registry_new();
    CHECK_STATUS(cr_load_file(reg, fixture_path("many-problems.yaml"), CR_FORMAT_AUTO), CR_ERR_SCHEMA);
    CHECK_INT(records_differing_from_last_error(again), 0);
    CHECK_STR(cr_error_message(again), cr_last_error_message());
    cr_error_free(again);
    cr_registry_free(reg);

    /* No error and NULL: nothing kept, nothing read. */
    cr_clear_error();
    CHECK(cr_last_error_keep() == NULL);
    CHECK_INT(cr_error_code(NULL), CR_OK);
    CHECK_STR(cr_error_message(NULL), "");
    CHECK_INT(cr_error_count(NULL), 0);
    CHECK(cr_error_problem(NULL, 0) == NULL);
    cr_error_free(NULL);
}

void test_errors(void) {
    unknown_name();
    class_not_registered();
    create_failed();
    class_exists();
    missing_reference();
    cycles();
    lifetime_rule();
    schema_errors();
    failed_load_leaves_registry_unchanged();
    io_and_syntax();
    huge_integers();
    deep_reference_chain();
    borrowed_args_and_kinds();
    null_arguments();
    shared_registry();
    every_door_agrees();
    truncated_configs_name_the_fix();
    refused_arguments_name_the_c_function();
    load_files_reports_every_file();
    late_syntax_error_reports_it_alone();
    repeated_name_far_apart();
    repeated_name_among_many_small_entries();
    kind_messages_read_well();
    many_problems_message_and_records_agree();
    flawed_uses_in_lists_and_misspelt_forms_are_placed();
    nul_in_a_name_keeps_the_message_whole();
    problem_records_read_late_agree_with_the_message();
    kept_errors_outlive_the_thread_record();
}
