/* Consumer of an installed controllerreg: registers the example classes, loads a config and
 * creates Test1. */
#include <controllerreg.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *make(const cr_value *args, void *user_data) {
    (void)user_data;
    const cr_value *t2 = cr_map_get(args, "test2ViewController");
    if (t2) free(cr_value_object(t2));
    return malloc(1);
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    if (strcmp(cr_version(), CR_VERSION_STRING) != 0) return 3;
    cr_registry *reg = cr_registry_new();
    cr_class cls = {.create = make};
    cr_register_class(reg, "Test1ViewController", &cls, NULL);
    cr_register_class(reg, "Test2ViewController", &cls, NULL);
    if (cr_load_file(reg, argv[1], CR_FORMAT_AUTO) != CR_OK) {
        fprintf(stderr, "%s\n", cr_last_error_message());
        return 1;
    }
    void *t = cr_registry_create(reg, "Test1", NULL);
    if (!t) {
        fprintf(stderr, "%s\n", cr_last_error_message());
        return 1;
    }
    free(t);
    cr_registry_free(reg);
    printf("consumer OK (controllerreg %s)\n", cr_version());
    return 0;
}
