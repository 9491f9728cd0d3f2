/* The EMControllerManager example end to end, from every fixture format. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdlib.h>

/* Loads one fixture into a fresh registry and checks the wired Test1, with and without props. */
static void example_from(const char *fixture, cr_format format) {
    const char *path = fixture_path(fixture);
    if (!file_exists(path)) {
        check_note("skipping %s: %s does not exist (yet)", fixture, path);
        return;
    }
    host_stats s1, s2;
    stats_init(&s1);
    stats_init(&s2);
    cr_registry *reg = cr_registry_new();
    CHECK(reg != NULL);
    CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);
    int rc = cr_load_file(reg, path, format);
    if (!check_record(
            rc == CR_OK, __FILE__, __LINE__,
            check_format("cr_load_file(%s, format %d) returned %d: %s", fixture, (int)format, rc, cr_last_error_message()))) {
        cr_registry_free(reg);
        return;
    }

    cr_value *props = cr_map_new();
    CHECK_STATUS(cr_map_set_string(props, "color", "red"), CR_OK);
    CHECK_STATUS(cr_map_set_int(props, "number", 1), CR_OK);
    Test1ViewController *t = cr_registry_create(reg, "Test1", props);
    CHECK_EXAMPLE_OBJECT(t, 1);
    CHECK_INT(stats_get(&s1, &s1.creates), 1);
    CHECK_INT(stats_get(&s2, &s2.creates), 1);
    CHECK(s1.last_user_data == &s1);
    CHECK(s2.last_user_data == &s2);
    /* props are borrowed: still ours, still intact after the call */
    CHECK_STR(cr_value_string(cr_map_get(props, "color")), "red");
    cr_value_free(props);

    /* Without props: the configured dependencies only. */
    Test1ViewController *u = cr_registry_create(reg, "Test1", NULL);
    CHECK_EXAMPLE_OBJECT(u, 0);
    if (t && u) CHECK(t->test2ViewController != u->test2ViewController); /* transient: a new Test2 per create */

    /* Test2 on its own: a bare class name entry, empty args. */
    Test2ViewController *t2 = cr_registry_create(reg, "Test2", NULL);
    CHECK(t2 && t2->magic == TEST2_MAGIC && t2->title == NULL);

    if (t) test1_destroy(t, NULL);
    if (u) test1_destroy(u, NULL);
    if (t2) test2_destroy(t2, NULL);
    CHECK_INT(stats_get(&s1, &s1.releases), 0);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s1, &s1.releases), 1);
    CHECK_INT(stats_get(&s2, &s2.releases), 1);
    CHECK_INT(stats_get(&s1, &s1.destroys), 0); /* the registry never destroys what it returned */
}

/* The same example loaded from text with format sniffing. */
static void example_from_string(void) {
    static const char yaml[] = "Test1:\n"
                               "  ClassName: Test1ViewController\n"
                               "  Dependencies:\n"
                               "    dependentString: \"@Yes, you can inject a string using the config file\"\n"
                               "    dependentInt: 1000\n"
                               "    dependentBool: true\n"
                               "    test2ViewController: Test2\n"
                               "Test2: Test2ViewController\n";
    static const char json[] = "{\"Test1\": {\"ClassName\": \"Test1ViewController\", \"Dependencies\": {"
                               "\"dependentString\": \"@Yes, you can inject a string using the config file\","
                               "\"dependentInt\": 1000, \"dependentBool\": true, \"test2ViewController\": \"Test2\"}},"
                               "\"Test2\": \"Test2ViewController\"}";
    const char *texts[] = {yaml, json};
    for (int i = 0; i < 2; i++) {
        host_stats s1, s2;
        stats_init(&s1);
        stats_init(&s2);
        cr_registry *reg = cr_registry_new();
        CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);
        CHECK_STATUS(load_text(reg, texts[i], CR_FORMAT_AUTO), CR_OK);
        Test1ViewController *t = cr_registry_create(reg, "Test1", NULL);
        CHECK_EXAMPLE_OBJECT(t, 0);
        if (t) test1_destroy(t, NULL);
        cr_registry_free(reg);
    }
}

/* Loading the same entries twice (YAML, then JSON) is a duplicate; the registry is unchanged. */
static void example_twice_is_duplicate(void) {
    host_stats s1, s2;
    stats_init(&s1);
    stats_init(&s2);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);
    CHECK_STATUS(cr_load_file(reg, fixture_path("example.yaml"), CR_FORMAT_AUTO), CR_OK);
    CHECK_STATUS(cr_load_file(reg, fixture_path("example.json"), CR_FORMAT_AUTO), CR_ERR_DUPLICATE);
    CHECK_CONTAINS(cr_last_error_message(), "Test1");
    Test1ViewController *t = cr_registry_create(reg, "Test1", NULL);
    CHECK_EXAMPLE_OBJECT(t, 0);
    if (t) test1_destroy(t, NULL);
    cr_registry_free(reg);
}

/* cr_load_files: several files as one transaction. */
static void example_load_files(void) {
    host_stats s1, s2;
    stats_init(&s1);
    stats_init(&s2);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(register_example_classes(reg, &s1, &s2), CR_OK);
    const char *paths[2];
    char a[4096], b[4096];
    snprintf(a, sizeof a, "%s", fixture_path("example.yaml"));
    snprintf(b, sizeof b, "%s", fixture_path("example.json"));
    paths[0] = a;
    paths[1] = b;
    /* both define Test1 and Test2: all-or-nothing */
    CHECK_STATUS(cr_load_files(reg, paths, 2, CR_FORMAT_AUTO), CR_ERR_DUPLICATE);
    CHECK(cr_registry_create(reg, "Test1", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    CHECK_STATUS(cr_load_files(reg, paths, 1, CR_FORMAT_AUTO), CR_OK);
    Test1ViewController *t = cr_registry_create(reg, "Test1", NULL);
    CHECK_EXAMPLE_OBJECT(t, 0);
    if (t) test1_destroy(t, NULL);
    CHECK_STATUS(cr_load_files(reg, NULL, 0, CR_FORMAT_AUTO), CR_OK); /* nothing to load */
    cr_registry_free(reg);
}

void test_example(void) {
    example_from("example.yaml", CR_FORMAT_AUTO);
    example_from("example.yaml", CR_FORMAT_YAML);
    example_from("example.json", CR_FORMAT_AUTO);
    example_from("example.json", CR_FORMAT_JSON);
    example_from("example.plist", CR_FORMAT_AUTO);
    example_from("example.plist", CR_FORMAT_PLIST);
    example_from("example-binary.plist", CR_FORMAT_AUTO);
    example_from("example-binary.plist", CR_FORMAT_PLIST);
    example_from_string();
    example_twice_is_duplicate();
    example_load_files();
}
