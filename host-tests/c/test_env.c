/* Environment values checked at load: ${NAME}, ${NAME:-default}, $${ and {Env: NAME, Type: T,
 * Default: D}, resolved against cr_load_options.environment (version 2) or the process
 * environment; CR_ERR_ENVIRONMENT with each problem's place; version-1 options still accepted. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdlib.h>
#include <string.h>

/* What a Svc object received. */
typedef struct Svc {
    char url[128];
    int64_t port;
    int debug;
    double ratio;
} Svc;

static void *svc_create(const cr_value *args, void *user_data) {
    (void)user_data;
    Svc *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    const cr_value *v = cr_map_get(args, "url");
    if (v && cr_value_kind(v) == CR_STRING) strncpy(s->url, cr_value_string(v), sizeof s->url - 1);
    v = cr_map_get(args, "port");
    s->port = v && cr_value_kind(v) == CR_INT ? cr_value_int(v) : -1;
    v = cr_map_get(args, "debug");
    s->debug = v && cr_value_kind(v) == CR_BOOL ? cr_value_bool(v) : -1;
    v = cr_map_get(args, "ratio");
    s->ratio = v && cr_value_kind(v) == CR_DOUBLE ? cr_value_double(v) : -1.0;
    return s;
}

static void svc_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static const cr_class svc_class = {.create = svc_create, .destroy = svc_destroy};

static const char *config = "Api:\n"
                            "  ClassName: Svc\n"
                            "  Dependencies:\n"
                            "    url: \"@http://${HOST}:${PORT:-80}/$${literal}\"\n"
                            "    port: {Env: PORT, Type: int, Default: 8080}\n"
                            "    debug: {Env: DEBUG, Type: bool, Default: false}\n"
                            "    ratio: {Env: RATIO, Type: double, Default: 0.5}\n";

static cr_registry *svc_registry(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Svc", &svc_class, NULL), CR_OK);
    return reg;
}

static int load_with(cr_registry *reg, const char *text, const cr_value *environment) {
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.format = CR_FORMAT_YAML;
    o.source_name = "app.yaml";
    o.environment = environment;
    return cr_load_string_with(reg, text, strlen(text), &o);
}

static void given_map(void) {
    CHECK_INT(CR_LOAD_OPTIONS_VERSION, 2);
    cr_value *env = cr_map_new();
    cr_map_set_string(env, "HOST", "db.local");
    cr_map_set_string(env, "PORT", "9000");
    cr_map_set_string(env, "DEBUG", "TRUE");
    cr_registry *reg = svc_registry();
    CHECK_STATUS(load_with(reg, config, env), CR_OK);
    cr_value_free(env);
    Svc *s = cr_registry_create(reg, "Api", NULL);
    CHECK(s != NULL);
    if (s) {
        CHECK_STR(s->url, "http://db.local:9000/${literal}");
        CHECK_INT(s->port, 9000);
        CHECK_INT(s->debug, 1);
        CHECK(s->ratio == 0.5);
        svc_destroy(s, NULL);
    }
    cr_registry_free(reg);
}

static void process_environment(void) {
    setenv("HOST", "proc.host", 1);
    unsetenv("PORT");
    setenv("DEBUG", "0", 1);
    setenv("RATIO", "2.5e1", 1);
    cr_registry *reg = svc_registry();
    /* NULL environment in version-2 options, and plain cr_load_string: the process environment. */
    CHECK_STATUS(load_with(reg, config, NULL), CR_OK);
    Svc *s = cr_registry_create(reg, "Api", NULL);
    CHECK(s != NULL);
    if (s) {
        CHECK_STR(s->url, "http://proc.host:80/${literal}");
        CHECK_INT(s->port, 8080);
        CHECK_INT(s->debug, 0);
        CHECK(s->ratio == 25.0);
        svc_destroy(s, NULL);
    }
    cr_registry_free(reg);
    unsetenv("HOST");
    unsetenv("DEBUG");
    unsetenv("RATIO");
}

/* The version-1 layout: no `environment` field. */
typedef struct load_options_v1 {
    unsigned int version;
    cr_format format;
    unsigned int flags;
    const char *source_name;
} load_options_v1;

static void options_version_1(void) {
    setenv("HOST", "v1.host", 1);
    setenv("PORT", "7000", 1);
    /* Exactly the size of a version-1 struct on the heap: reading past it is caught by valgrind. */
    load_options_v1 *o = malloc(sizeof *o);
    o->version = 1;
    o->format = CR_FORMAT_YAML;
    o->flags = 0;
    o->source_name = "v1.yaml";
    cr_registry *reg = svc_registry();
    CHECK_STATUS(cr_load_string_with(reg, config, strlen(config), (const cr_load_options *)o), CR_OK);
    Svc *s = cr_registry_create(reg, "Api", NULL);
    CHECK(s != NULL);
    if (s) {
        CHECK_STR(s->url, "http://v1.host:7000/${literal}");
        CHECK_INT(s->port, 7000);
        svc_destroy(s, NULL);
    }
    /* A version-1 struct's missing variable is still reported with its place. */
    unsetenv("HOST");
    cr_registry *other = svc_registry();
    CHECK_STATUS(cr_load_string_with(other, config, strlen(config), (const cr_load_options *)o), CR_ERR_ENVIRONMENT);
    CHECK_CONTAINS(cr_last_error_message(), "v1.yaml:4:10: entry 'Api', key 'url': environment variable HOST is not set");
    free(o);
    cr_registry_free(other);
    cr_registry_free(reg);
    unsetenv("PORT");
}

static void bad_environment_values(void) {
    cr_registry *reg = svc_registry();
    cr_value *list = cr_list_new();
    cr_clear_error();
    CHECK_STATUS(load_with(reg, config, list), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "options->environment must be a map of strings (CR_MAP of CR_STRING), not a list");
    cr_value_free(list);
    cr_value *env = cr_map_new();
    cr_map_set_string(env, "HOST", "h");
    cr_map_set_int(env, "PORT", 9000);
    CHECK_STATUS(load_with(reg, config, env), CR_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(cr_last_error_message(), "options->environment[\"PORT\"] must be a string (CR_STRING), not an integer");
    cr_value_free(env);
    /* Nothing was loaded. */
    CHECK(cr_registry_create(reg, "Api", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    cr_registry_free(reg);
}

static void every_problem_with_its_place(void) {
    cr_value *env = cr_map_new();
    cr_map_set_string(env, "PORT", "80a");
    cr_map_set_string(env, "DEBUG", "maybe");
    cr_registry *reg = svc_registry();
    CHECK_STATUS(load_with(reg,
                           "Api:\n"
                           "  ClassName: Svc\n"
                           "  Dependencies:\n"
                           "    url: \"@http://${HOST}/\"\n"
                           "    port: {Env: PORT, Type: int, Default: 8080}\n"
                           "    debug: {Env: DEBUG, Type: bool}\n"
                           "    peer: Nowhere\n",
                           env),
                 CR_ERR_MISSING_REFERENCE);
    cr_value_free(env);
    /* Four problems, in the order of their places. */
    CHECK_INT(cr_last_error_count(), 4);
    const cr_problem *p = cr_last_error_problem(0);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->code, CR_ERR_ENVIRONMENT);
        CHECK_STR(p->file, "app.yaml");
        CHECK_INT(p->line, 4);
        CHECK_INT(p->column, 10);
        CHECK_STR(p->message,
                  "entry 'Api', key 'url': environment variable HOST is not set (in '@http://${HOST}/'): set HOST or give a "
                  "default: ${HOST:-value}");
    }
    p = cr_last_error_problem(1);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->code, CR_ERR_ENVIRONMENT);
        CHECK_INT(p->line, 5);
        CHECK_INT(p->column, 17);
        CHECK_STR(p->message,
                  "entry 'Api', key 'port': environment variable PORT is '80a', not an integer: set PORT to an integer "
                  "(or unset it to use the default 8080)");
    }
    p = cr_last_error_problem(2);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->code, CR_ERR_ENVIRONMENT);
        CHECK_INT(p->line, 6);
        CHECK_CONTAINS(p->message, "DEBUG is 'maybe', not a boolean (true, false, 1 or 0)");
    }
    p = cr_last_error_problem(3);
    CHECK(p != NULL);
    if (p) CHECK_INT(p->code, CR_ERR_MISSING_REFERENCE);
    CHECK_STR(cr_status_name(CR_ERR_ENVIRONMENT), "environment error");
    cr_registry_free(reg);
}

static void schema_problems(void) {
    cr_value *env = cr_map_new();
    cr_registry *reg = svc_registry();
    CHECK_STATUS(load_with(reg,
                           "Api:\n"
                           "  ClassName: Svc\n"
                           "  Dependencies:\n"
                           "    url: \"@http://${HOST\"\n"
                           "Api2:\n"
                           "  ClassName: Svc\n"
                           "  Dependencies:\n"
                           "    port: {Env: PORT, Type: integer}\n",
                           env),
                 CR_ERR_SCHEMA);
    CHECK_INT(cr_last_error_count(), 2);
    CHECK_CONTAINS(cr_last_error_message(),
                   "app.yaml:4:10: entry 'Api', key 'url': in '@http://${HOST': '${HOST' at byte 8 is not closed");
    const cr_problem *p = cr_last_error_problem(1);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->line, 8);
        CHECK_CONTAINS(p->message, "unknown Type 'integer' of an Env value (did you mean 'int'?)");
        CHECK(p->suggestion != NULL);
        if (p->suggestion) CHECK_STR(p->suggestion, "int");
    }
    cr_value_free(env);
    cr_registry_free(reg);
}

static void add_entry_door(void) {
    setenv("CR_TEST_ENV_HOST", "added.host", 1);
    cr_registry *reg = svc_registry();
    cr_value *deps = cr_map_new();
    cr_map_set_string(deps, "url", "@https://${CR_TEST_ENV_HOST}");
    cr_value *port = cr_map_new();
    cr_map_set_string(port, "Env", "CR_TEST_ENV_PORT");
    cr_map_set_string(port, "Type", "int");
    cr_map_set_int(port, "Default", 443);
    cr_map_set_value(deps, "port", port);
    CHECK_STATUS(cr_add_entry(reg, "Api", "Svc", CR_LIFESTYLE_TRANSIENT, deps), CR_OK);
    Svc *s = cr_registry_create(reg, "Api", NULL);
    CHECK(s != NULL);
    if (s) {
        CHECK_STR(s->url, "https://added.host");
        CHECK_INT(s->port, 443);
        svc_destroy(s, NULL);
    }
    /* The same problem as from a config, the function where a config's has its place. */
    setenv("CR_TEST_ENV_PORT", "https", 1);
    CHECK_STATUS(cr_add_entry(reg, "Api2", "Svc", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_ENVIRONMENT);
    CHECK_STR(cr_last_error_message(),
              "cr_add_entry: entry 'Api2', key 'port': environment variable CR_TEST_ENV_PORT is 'https', not an integer: set "
              "CR_TEST_ENV_PORT to an integer (or unset it to use the default 443)");
    cr_value_free(deps);
    cr_registry_free(reg);
    unsetenv("CR_TEST_ENV_HOST");
    unsetenv("CR_TEST_ENV_PORT");
}

void test_env(void) {
    given_map();
    process_environment();
    options_version_1();
    bad_environment_values();
    every_problem_with_its_place();
    schema_problems();
    add_entry_door();
}
