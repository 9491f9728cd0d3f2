/* Large loads and memory: a freed registry's arena pages are kept for the next large load (one
 * buffer, returned by the end of the next load), so a registry must read its own entries whatever
 * pages it was given, also in a forked child; and loading again and again does not grow the
 * process. Under valgrind: a use after free or a leak fails. */
#define _GNU_SOURCE
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a `Screen` create read: its label and number. */
typedef struct {
    char label[32];
    long long n;
} screen;

static void *screen_create(const cr_value *args, void *user_data) {
    (void)user_data;
    screen *s = calloc(1, sizeof *s);
    const char *label = cr_value_string(cr_map_get(args, "label"));
    snprintf(s->label, sizeof s->label, "%s", label ? label : "");
    s->n = (long long)cr_value_int(cr_map_get(args, "n"));
    return s;
}

static void screen_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

static const cr_class screen_class = {.create = screen_create, .destroy = screen_destroy};

/* `count` JSON entries `<prefix>0`…: each a Screen labelled "<prefix>-i" with number i, every one
 * after the first referring to the first. The caller frees the text. */
static char *config(const char *prefix, int count, size_t *length) {
    size_t cap = (size_t)count * 160 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len,
                            "{\"%s0\": {\"ClassName\": \"Screen\", \"Dependencies\": "
                            "{\"label\": \"@%s-0\", \"n\": 0}}",
                            prefix, prefix);
    for (int i = 1; i < count; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                ",\n\"%s%d\": {\"ClassName\": \"Screen\", \"Description\": \"entry %d\", "
                                "\"Dependencies\": {\"label\": \"@%s-%d\", \"n\": %d, \"first\": \"%s0\"}}",
                                prefix, i, i, prefix, i, i, prefix);
    len += (size_t)snprintf(text + len, cap - len, "}\n");
    *length = len;
    return text;
}

/* A registry with the Screen class and the entries of `text`; NULL if the load failed. */
static cr_registry *loaded_text(const char *text, size_t length) {
    cr_registry *reg = cr_registry_new();
    cr_register_class(reg, "Screen", &screen_class, NULL);
    if (cr_load_string(reg, text, length, CR_FORMAT_JSON) != CR_OK) {
        fprintf(stderr, "  load failed: %s\n", cr_last_error_message());
        cr_registry_free(reg);
        return NULL;
    }
    return reg;
}

/* A registry with the Screen class and `count` entries named from `prefix`; NULL if the load failed. */
static cr_registry *loaded(const char *prefix, int count) {
    size_t length = 0;
    char *text = config(prefix, count, &length);
    cr_registry *reg = loaded_text(text, length);
    free(text);
    return reg;
}

/* Whether entry `<prefix>i` of `reg` creates a Screen labelled "<prefix>-i" with number i. */
static int reads(cr_registry *reg, const char *prefix, int i) {
    char name[32], label[32];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    snprintf(label, sizeof label, "%s-%d", prefix, i);
    screen *s = cr_registry_create(reg, name, NULL);
    int ok = s && strcmp(s->label, label) == 0 && s->n == i;
    free(s);
    return ok;
}

/* Whether `reg` reads entries 0, 1, its last and a few between, and has no entry `<other>1`. */
static int reads_own(cr_registry *reg, const char *prefix, int count, const char *other) {
    int ok = reads(reg, prefix, 0) && reads(reg, prefix, 1) && reads(reg, prefix, count - 1) && reads(reg, prefix, count / 2) &&
        reads(reg, prefix, count / 3);
    char name[32];
    snprintf(name, sizeof name, "%s1", other);
    void *o = cr_registry_create(reg, name, NULL);
    ok = ok && o == NULL && cr_last_error_code() == CR_ERR_NOT_FOUND;
    free(o);
    return ok;
}

static int entries(void) { return quick_mode() ? 2500 : 6000; }

/* A registry loaded after a large one was freed (and given its pages) reads its own entries; so
 * does one loaded while it is alive (its pages are its own). */
static void loads_after_freed_registries(void) {
    int n = entries();
    cr_registry *a = loaded("A", n);
    CHECK(a != NULL && reads_own(a, "A", n, "B"));
    cr_registry_free(a);
    cr_registry *b = loaded("B", n);
    CHECK(b != NULL && reads_own(b, "B", n, "A"));
    cr_registry *c = loaded("C", n / 2);
    CHECK(c != NULL && reads_own(c, "C", n / 2, "B"));
    CHECK(b != NULL && reads_own(b, "B", n, "C"));
    cr_registry_free(c);
    cr_registry_free(b);
}

/* A forked child reads the registries its parent holds (their pages are inherited as any are),
 * and loads on its own after its parent freed a large registry (the block kept for the parent's
 * next load is freed in the child, not written). */
static void forked_children(void) {
    int n = entries();
    cr_registry *a = loaded("A", n);
    cr_registry_free(a); /* its pages kept */
    cr_registry *b = loaded("B", n);
    cr_registry *c = loaded("C", n);
    cr_registry_free(c); /* kept again */
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        int ok = b != NULL && reads_own(b, "B", n, "C");
        cr_registry *d = loaded("D", n);
        ok = ok && d != NULL && reads_own(d, "D", n, "B") && reads_own(b, "B", n, "D");
        cr_registry_free(d);
        cr_registry_free(b); /* the child's copy (under valgrind: nothing lost at its exit) */
        _exit(ok ? 0 : 1);
    }
    int status = -1;
    if (pid > 0) waitpid(pid, &status, 0);
    CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* The parent's next load takes the kept pages as usual. */
    cr_registry *e = loaded("E", n);
    CHECK(e != NULL && reads_own(e, "E", n, "B"));
    CHECK(b != NULL && reads_own(b, "B", n, "E"));
    cr_registry_free(e);
    cr_registry_free(b);
}

/* Whether this program runs under AddressSanitizer (scripts/sanitize.sh address), whose allocator
 * keeps freed memory in quarantine. */
#if defined(__SANITIZE_ADDRESS__)
#define CR_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CR_UNDER_ASAN 1
#endif
#endif
#ifndef CR_UNDER_ASAN
#define CR_UNDER_ASAN 0
#endif

/* Loading, freeing and loading again does not grow the process, and pages kept for a next load
 * are gone once a load (even a small one) ends: the process then holds what its registries keep.
 * Skipped in quick mode (valgrind) and under ASan: their allocators keep freed memory. */
static void repeated_loads_hold_no_more(void) {
    if (quick_mode() || CR_UNDER_ASAN) return;
    int n = 40000;
    /* The texts are made first and kept: freeing one would leave its pages to the allocator. */
    size_t length[2];
    char *text[2] = {config("A", n, &length[0]), config("B", n, &length[1])};
    cr_registry *first = loaded_text(text[0], length[0]);
    long one = resident_kib();
    cr_registry_free(first);
    for (int round = 0; round < 6; round++) {
        cr_registry *r = loaded_text(text[round % 2], length[round % 2]);
        CHECK(r != NULL);
        cr_registry_free(r);
    }
    cr_registry *again = loaded_text(text[1], length[1]);
    long eight = resident_kib();
    CHECK(again != NULL && reads_own(again, "B", n, "A"));
    CHECK(one > 0 && eight > 0);
    if (eight - one >= 2048) fprintf(stderr, "  resident after one load %ld KiB, after eight %ld KiB\n", one, eight);
    CHECK(eight - one < 2048);
    /* Freed: its arena's pages (several MiB for 40,000 entries) are kept until the next load ends. */
    cr_registry_free(again);
    long freed = resident_kib();
    cr_registry *small = cr_registry_new();
    CHECK(load_text(small, "S: Screen\n", CR_FORMAT_YAML) == CR_OK);
    long after = resident_kib();
    if (freed - after < 1024) fprintf(stderr, "  resident after the free %ld KiB, after a small load %ld KiB\n", freed, after);
    CHECK(freed - after >= 1024);
    cr_registry_free(small);
    free(text[0]);
    free(text[1]);
}

void test_loadmemory(void) {
    loads_after_freed_registries();
    forked_children();
    repeated_loads_hold_no_more();
}
