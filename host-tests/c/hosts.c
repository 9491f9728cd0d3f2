#define _POSIX_C_SOURCE 200809L
#include "hosts.h"

#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef CR_SOURCE_DIR
#error "CR_SOURCE_DIR must name the source tree"
#endif

void stats_init(host_stats *s) {
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
}

int stats_get(host_stats *s, const int *field) {
    pthread_mutex_lock(&s->lock);
    int v = *field;
    pthread_mutex_unlock(&s->lock);
    return v;
}

static void bump(host_stats *s, int *field, void *user_data) {
    pthread_mutex_lock(&s->lock);
    (*field)++;
    s->last_user_data = user_data;
    pthread_mutex_unlock(&s->lock);
}

static char *copy_string(const cr_value *v) {
    const char *s = cr_value_kind(v) == CR_STRING ? cr_value_string(v) : NULL;
    return s ? strdup(s) : NULL;
}

/* --- Test2ViewController ------------------------------------------------------------------- */

static void *test2_create(const cr_value *args, void *user_data) {
    host_stats *s = user_data;
    if (s->fail) {
        bump(s, &s->failures, user_data);
        if (s->fail_message) cr_report_error(s->fail_message);
        return NULL;
    }
    Test2ViewController *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->magic = TEST2_MAGIC;
    t->version = s->version;
    t->title = copy_string(cr_map_get(args, "title"));
    bump(s, &s->creates, user_data);
    return t;
}

void test2_destroy(void *object, void *user_data) {
    Test2ViewController *t = object;
    if (user_data) bump(user_data, &((host_stats *)user_data)->destroys, user_data);
    t->magic = 0;
    free(t->title);
    free(t);
}

static void stats_release(void *user_data) {
    host_stats *s = user_data;
    bump(s, &s->releases, user_data);
}

const cr_class test2_class = {.create = test2_create, .destroy = test2_destroy, .release = stats_release};

/* --- Test1ViewController ------------------------------------------------------------------- */

static void *test1_create(const cr_value *args, void *user_data) {
    host_stats *s = user_data;
    if (s->fail) {
        bump(s, &s->failures, user_data);
        if (s->fail_message) cr_report_error(s->fail_message);
        return NULL;
    }
    Test1ViewController *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->magic = TEST1_MAGIC;
    t->version = s->version;
    t->argCount = cr_value_count(args);
    const cr_value *v = cr_map_get(args, "dependentString");
    t->dependentStringKind = v ? (int)cr_value_kind(v) : -1;
    t->dependentString = copy_string(v);
    v = cr_map_get(args, "dependentInt");
    t->dependentIntKind = v ? (int)cr_value_kind(v) : -1;
    if (v && cr_value_kind(v) == CR_INT) t->dependentInt = cr_value_int(v);
    v = cr_map_get(args, "dependentBool");
    t->dependentBoolKind = v ? (int)cr_value_kind(v) : -1;
    if (v && cr_value_kind(v) == CR_BOOL) t->dependentBool = cr_value_bool(v);
    v = cr_map_get(args, "test2ViewController");
    t->test2Kind = v ? (int)cr_value_kind(v) : -1;
    if (v && cr_value_kind(v) == CR_OBJECT) {
        t->test2ViewController = cr_value_object(v);
        t->test2Owner = cr_value_owner(v);
    }
    v = cr_map_get(args, "color");
    t->colorKind = v ? (int)cr_value_kind(v) : -1;
    t->color = copy_string(v);
    v = cr_map_get(args, "number");
    t->numberKind = v ? (int)cr_value_kind(v) : -1;
    if (v && cr_value_kind(v) == CR_INT) t->number = cr_value_int(v);
    bump(s, &s->creates, user_data);
    return t;
}

void test1_destroy(void *object, void *user_data) {
    Test1ViewController *t = object;
    if (user_data) bump(user_data, &((host_stats *)user_data)->destroys, user_data);
    /* Test1 owns its Test2 only if the registry built it for this Test1. */
    if (t->test2ViewController && t->test2Owner == CR_OWNER_RECEIVER) test2_destroy(t->test2ViewController, NULL);
    t->magic = 0;
    free(t->dependentString);
    free(t->color);
    free(t);
}

const cr_class test1_class = {.create = test1_create, .destroy = test1_destroy, .release = stats_release};

int register_example_classes(cr_registry *reg, host_stats *s1, host_stats *s2) {
    int rc = cr_register_class(reg, "Test1ViewController", &test1_class, s1);
    if (rc) return rc;
    return cr_register_class(reg, "Test2ViewController", &test2_class, s2);
}

void check_example_object(const char *file, int line, Test1ViewController *t, int with_props) {
    char where[512];
    snprintf(where, sizeof where, "%s:%d", file, line);
    if (!check_record(t != NULL, file, line, check_format("example object is NULL: %s", cr_last_error_message()))) return;
    check_record(t->magic == TEST1_MAGIC, file, line, "example object is a Test1ViewController");
    check_record(t->dependentStringKind == CR_STRING && t->dependentString &&
                     strcmp(t->dependentString, "Yes, you can inject a string using the config file") == 0,
                 file, line,
                 check_format("dependentString is \"%s\" (kind %d)", t->dependentString ? t->dependentString : "(null)",
                              t->dependentStringKind));
    check_record(
        t->dependentIntKind == CR_INT && t->dependentInt == 1000, file, line,
        check_format("dependentInt is %" PRId64 " (kind %d), expected 1000 (CR_INT)", t->dependentInt, t->dependentIntKind));
    check_record(t->dependentBoolKind == CR_BOOL && t->dependentBool == 1, file, line,
                 check_format("dependentBool is %d (kind %d), expected 1 (CR_BOOL)", t->dependentBool, t->dependentBoolKind));
    check_record(t->test2Kind == CR_OBJECT && t->test2ViewController && t->test2ViewController->magic == TEST2_MAGIC, file, line,
                 check_format("test2ViewController is kind %d, expected a Test2ViewController object", t->test2Kind));
    check_record(t->test2Owner == CR_OWNER_RECEIVER, file, line,
                 check_format("test2ViewController owner is %d, expected CR_OWNER_RECEIVER", (int)t->test2Owner));
    if (with_props) {
        check_record(t->colorKind == CR_STRING && t->color && strcmp(t->color, "red") == 0, file, line,
                     check_format("color is \"%s\" (kind %d), expected \"red\"", t->color ? t->color : "(null)", t->colorKind));
        check_record(t->numberKind == CR_INT && t->number == 1, file, line,
                     check_format("number is %" PRId64 " (kind %d), expected 1", t->number, t->numberKind));
        check_record(t->argCount == 6, file, line, check_format("args has %zu keys, expected 6", t->argCount));
    } else {
        check_record(t->colorKind == -1 && t->numberKind == -1, file, line, "no color/number without props");
        check_record(t->argCount == 4, file, line, check_format("args has %zu keys, expected 4", t->argCount));
    }
}

/* --- Node ----------------------------------------------------------------------------------- */

static int node_keep(Node *n, void *object) {
    void **owned = realloc(n->owned, (n->ownedCount + 1) * sizeof *owned);
    if (!owned) return 0;
    n->owned = owned;
    n->owned[n->ownedCount++] = object;
    return 1;
}

static void node_collect(Node *n, const cr_value *v) {
    switch (cr_value_kind(v)) {
    case CR_OBJECT:
        if (cr_value_owner(v) == CR_OWNER_RECEIVER)
            node_keep(n, cr_value_object(v));
        else if (cr_value_owner(v) == CR_OWNER_CALLER)
            n->callerObjects++;
        break;
    case CR_LIST:
        for (size_t i = 0; i < cr_value_count(v); i++) node_collect(n, cr_list_at(v, i));
        break;
    case CR_MAP:
        for (size_t i = 0; i < cr_value_count(v); i++) node_collect(n, cr_map_value_at(v, i));
        break;
    default: break;
    }
}

static void *node_create(const cr_value *args, void *user_data) {
    host_stats *s = user_data;
    if (s->fail) {
        bump(s, &s->failures, user_data);
        if (s->fail_message) cr_report_error(s->fail_message);
        return NULL;
    }
    Node *n = calloc(1, sizeof *n);
    if (!n) return NULL;
    n->magic = NODE_MAGIC;
    n->stats = s;
    n->argsKind = args ? (int)cr_value_kind(args) : -1;
    n->argCount = cr_value_count(args);
    node_collect(n, args);
    bump(s, &s->creates, user_data);
    return n;
}

void node_destroy(void *object, void *user_data) {
    Node *n = object;
    if (user_data) bump(user_data, &((host_stats *)user_data)->destroys, user_data);
    for (size_t i = 0; i < n->ownedCount; i++) destroy_any(n->owned[i]);
    n->magic = 0;
    free(n->owned);
    free(n);
}

const cr_class node_class = {.create = node_create, .destroy = node_destroy, .release = stats_release};

void destroy_any(void *object) {
    int magic = *(int *)object;
    if (magic == NODE_MAGIC) {
        Node *n = object;
        node_destroy(n, n->stats);
    } else if (magic == TEST1_MAGIC) {
        test1_destroy(object, NULL);
    } else if (magic == TEST2_MAGIC) {
        test2_destroy(object, NULL);
    } else {
        fprintf(stderr, "destroy_any: unknown object %p (magic %d)\n", object, magic);
    }
}

/* --- helpers -------------------------------------------------------------------------------- */

const char *fixture_path(const char *name) {
    static char path[4096]; /* main thread only */
    snprintf(path, sizeof path, "%s/Tests/Fixtures/%s", CR_SOURCE_DIR, name);
    return path;
}

int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int load_text(cr_registry *reg, const char *text, cr_format format) { return cr_load_string(reg, text, strlen(text), format); }

int load_yaml(cr_registry *reg, const char *text) { return load_text(reg, text, CR_FORMAT_YAML); }

int count_lines(const char *s) {
    if (!s || !*s) return 0;
    int n = 1;
    for (; *s; s++)
        if (*s == '\n' && s[1]) n++;
    return n;
}

int quick_mode(void) {
    const char *q = getenv("CR_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

long resident_kib(void) {
    long size = 0, resident = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}
