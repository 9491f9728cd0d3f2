/* A minimal C host for the "runs without Swift" test: loads the example and creates Test1. */
#include <controllerreg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *make(const cr_value *args, void *user_data) {
    (void)user_data;
    const cr_value *s = cr_map_get(args, "dependentString");
    const cr_value *t2 = cr_map_get(args, "test2ViewController");
    if (s && strcmp(cr_value_string(s), "Yes, you can inject a string using the config file") != 0) return NULL;
    if (t2) free(cr_value_object(t2));
    return malloc(16);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    cr_registry *reg = cr_registry_new();
    cr_class cls = {.create = make};
    if (cr_register_class(reg, "Test1ViewController", &cls, NULL) || cr_register_class(reg, "Test2ViewController", &cls, NULL) ||
        cr_load_file(reg, argv[1], CR_FORMAT_AUTO)) {
        fprintf(stderr, "setup failed: %s\n", cr_last_error_message());
        return 1;
    }
    void *t = cr_registry_create(reg, "Test1", NULL);
    if (!t) {
        fprintf(stderr, "create failed: %s\n", cr_last_error_message());
        return 1;
    }
    free(t);
    cr_registry_free(reg);
    printf("controllerreg %s works without Swift\n", cr_version());
    return 0;
}
