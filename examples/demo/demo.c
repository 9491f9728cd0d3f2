/* controllerreg demo: a C host registers two classes, loads screens.yaml and asks for a fully
 * wired Test1 screen, passing props at create time.
 *
 *   controllerreg-demo [path/to/screens.yaml]
 */
#include <controllerreg.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Test2ViewController {
    char *title; /* optional */
} Test2ViewController;

typedef struct Test1ViewController {
    char *dependentString;
    int64_t dependentInt;
    int dependentBool;
    Test2ViewController *test2ViewController;
    Test2ViewController *tabs[4];
    size_t tabCount;
    char *font;
    char *color;    /* from props */
    int64_t number; /* from props */
} Test1ViewController;

static char *copy_string(const cr_value *v) {
    const char *s = v ? cr_value_string(v) : NULL;
    if (!s) return NULL;
    char *c = malloc(strlen(s) + 1);
    if (c) strcpy(c, s);
    return c;
}

static void *test2_create(const cr_value *args, void *user_data) {
    (void)user_data;
    Test2ViewController *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->title = copy_string(cr_map_get(args, "title"));
    return t;
}

static void test2_destroy(void *object, void *user_data) {
    (void)user_data;
    Test2ViewController *t = object;
    free(t->title);
    free(t);
}

static void *test1_create(const cr_value *args, void *user_data) {
    (void)user_data;
    Test1ViewController *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->dependentString = copy_string(cr_map_get(args, "dependentString"));
    t->dependentInt = cr_value_int(cr_map_get(args, "dependentInt"));
    t->dependentBool = cr_value_bool(cr_map_get(args, "dependentBool"));
    /* Objects the registry built for us belong to us now (CR_OWNER_RECEIVER). */
    t->test2ViewController = cr_value_object(cr_map_get(args, "test2ViewController"));
    const cr_value *tabs = cr_map_get(args, "tabs");
    for (size_t i = 0; i < cr_value_count(tabs) && i < 4; i++) t->tabs[t->tabCount++] = cr_value_object(cr_list_at(tabs, i));
    const cr_value *theme = cr_map_get(args, "theme");
    t->font = copy_string(cr_map_get(theme, "font"));
    t->color = copy_string(cr_map_get(args, "color"));
    t->number = cr_value_int(cr_map_get(args, "number"));
    return t;
}

static void test1_destroy(void *object, void *user_data) {
    (void)user_data;
    Test1ViewController *t = object;
    if (t->test2ViewController) test2_destroy(t->test2ViewController, NULL);
    for (size_t i = 0; i < t->tabCount; i++) test2_destroy(t->tabs[i], NULL);
    free(t->dependentString);
    free(t->font);
    free(t->color);
    free(t);
}

static int fail(const char *what) {
    fprintf(stderr, "%s failed: %s (%s)\n", what, cr_last_error_message(), cr_status_name(cr_last_error_code()));
    return 1;
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "examples/demo/screens.yaml";
    printf("controllerreg %s\n", cr_version());

    cr_registry *reg = cr_registry_new();
    if (!reg) return fail("cr_registry_new");
    cr_class test1 = {.create = test1_create, .destroy = test1_destroy};
    cr_class test2 = {.create = test2_create, .destroy = test2_destroy};
    if (cr_register_class(reg, "Test1ViewController", &test1, NULL) != CR_OK) return fail("cr_register_class");
    if (cr_register_class(reg, "Test2ViewController", &test2, NULL) != CR_OK) return fail("cr_register_class");
    if (cr_load_file(reg, path, CR_FORMAT_AUTO) != CR_OK) {
        fail("cr_load_file");
        cr_registry_free(reg);
        return 1;
    }
    printf("loaded %s\n\n", path);

    cr_value *props = cr_map_new();
    cr_map_set_string(props, "color", "red");
    cr_map_set_int(props, "number", 1);
    Test1ViewController *t = cr_registry_create(reg, "Test1", props);
    cr_value_free(props);
    if (!t) {
        fail("cr_registry_create(\"Test1\")");
        cr_registry_free(reg);
        return 1;
    }

    printf("Test1ViewController %p\n", (void *)t);
    printf("  dependentString     = \"%s\"\n", t->dependentString ? t->dependentString : "(null)");
    printf("  dependentInt        = %" PRId64 "\n", t->dependentInt);
    printf("  dependentBool       = %s\n", t->dependentBool ? "true" : "false");
    printf("  test2ViewController = Test2ViewController %p (title %s)\n", (void *)t->test2ViewController,
           t->test2ViewController && t->test2ViewController->title ? t->test2ViewController->title : "(none)");
    for (size_t i = 0; i < t->tabCount; i++)
        printf("  tabs[%zu]             = Test2ViewController %p (title %s)\n", i, (void *)t->tabs[i],
               t->tabs[i]->title ? t->tabs[i]->title : "(none)");
    printf("  theme.font          = \"%s\"\n", t->font ? t->font : "(null)");
    printf("  color (props)       = \"%s\"\n", t->color ? t->color : "(null)");
    printf("  number (props)      = %" PRId64 "\n", t->number);

    /* A name that is not configured: NULL and a clear error, never a crash. */
    void *missing = cr_registry_create(reg, "Test3", NULL);
    printf("\ncr_registry_create(\"Test3\") -> %p: %s\n", missing, cr_last_error_message());

    test1_destroy(t, NULL);
    cr_registry_free(reg);
    return 0;
}
