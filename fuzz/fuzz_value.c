/* libFuzzer target: the value API. The input is a little program of one-byte opcodes (with
 * operands taken from the following bytes) over a stack of values the harness owns: make maps and
 * lists, set and push every kind (including nested values, which hand over ownership), read them
 * back with every accessor (right and wrong kinds, out-of-range indices), misuse them (set on a
 * borrowed value, push a value into itself, free a borrowed value), pass them as props to a create
 * and as dependencies to cr_add_entry, and free them. A model of what each value holds checks reads. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "controllerreg.h"
#include "fuzz_common.h"

#define MAXSTACK 16

typedef struct {
    const uint8_t *p;
    size_t n;
} input;

static int next(input *in) {
    if (!in->n) return -1;
    in->n--;
    return *in->p++;
}

/* A key or string of up to 15 bytes from the input (NUL-terminated, so embedded NULs shorten it). */
static void text(input *in, char *out) {
    int len = next(in);
    len = len < 0 ? 0 : len % 16;
    int i = 0;
    for (; i < len; i++) {
        int c = next(in);
        if (c < 0) break;
        out[i] = (char)c;
    }
    out[i] = 0;
}

static int64_t integer(input *in) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        int c = next(in);
        v = (v << 8) | (uint8_t)(c < 0 ? 0 : c);
    }
    return (int64_t)v;
}

static void *args_seen;

/* Takes what it owns from args at any depth: frees RECEIVER objects (malloc'd by echo_create)
 * and providers. */
static void echo_take(const cr_value *v, int depth) {
    CHECK(depth < 1000);
    switch (cr_value_kind(v)) {
    case CR_OBJECT:
        if (cr_value_owner(v) == CR_OWNER_RECEIVER) free(cr_value_object(v));
        break;
    case CR_PROVIDER: cr_provider_free(cr_value_provider(v)); break;
    case CR_LIST:
        for (size_t i = 0; i < cr_value_count(v); i++) echo_take(cr_list_at(v, i), depth + 1);
        break;
    case CR_MAP:
        for (size_t i = 0; i < cr_value_count(v); i++) {
            CHECK(cr_map_key_at(v, i) != NULL);
            echo_take(cr_map_value_at(v, i), depth + 1);
        }
        break;
    case CR_STRING: CHECK(cr_value_string(v) != NULL); break;
    default: break;
    }
}

static void *echo_create(const cr_value *args, void *user_data) {
    (void)user_data;
    CHECK(cr_value_kind(args) == CR_MAP);
    for (size_t i = 0; i < cr_value_count(args); i++) {
        const char *k = cr_map_key_at(args, i);
        CHECK(k != NULL);
        const cr_value *v = cr_map_value_at(args, i);
        CHECK(v != NULL);
        /* Arguments are read-only, at every depth. */
        if (cr_value_kind(v) == CR_MAP) CHECK(cr_map_set_null((cr_value *)v, "x") != CR_OK);
        if (cr_value_kind(v) == CR_LIST) CHECK(cr_list_push_null((cr_value *)v) != CR_OK);
    }
    CHECK(cr_map_set_null((cr_value *)args, "x") != CR_OK);
    echo_take(args, 0);
    args_seen = malloc(1);
    return args_seen;
}

static void echo_destroy(void *object, void *user_data) {
    (void)user_data;
    free(object);
}

/* Reads a value every way there is; checks what must hold whatever it is. */
static void read_all(const cr_value *v, int depth) {
    cr_kind k = cr_value_kind(v);
    CHECK(!((int)k < CR_NULL || k > CR_PROVIDER));
    (void)cr_value_bool(v);
    (void)cr_value_int(v);
    (void)cr_value_double(v);
    const char *s = cr_value_string(v);
    CHECK(!((k == CR_STRING) != (s != NULL)));
    CHECK(!(s && strlen(s) > cr_value_string_length(v)));
    (void)cr_value_object(v);
    (void)cr_value_owner(v);
    size_t n = cr_value_count(v);
    if (k == CR_LIST) {
        for (size_t i = 0; i < n; i++) CHECK(!(!cr_list_at(v, i)));
        CHECK(!(cr_list_at(v, n) || cr_list_at(v, (size_t)-1)));
        if (depth < 64)
            for (size_t i = 0; i < n; i++) read_all(cr_list_at(v, i), depth + 1);
    } else if (k == CR_MAP) {
        for (size_t i = 0; i < n; i++) {
            const char *key = cr_map_key_at(v, i);
            CHECK(!(!key || !cr_map_value_at(v, i)));
            const cr_value *got = cr_map_get(v, key);
            CHECK(!(!got));
        }
        CHECK(!(cr_map_key_at(v, n) || cr_map_value_at(v, n)));
        if (depth < 64)
            for (size_t i = 0; i < n; i++) read_all(cr_map_value_at(v, i), depth + 1);
    } else {
        CHECK(!(cr_list_at(v, 0) || cr_map_get(v, "a") || cr_map_key_at(v, 0)));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    input in = {data, size};
    cr_value *stack[MAXSTACK];
    int top = 0;
    cr_registry *reg = NULL;
    char key[16], str[16];
    int op;
    while ((op = next(&in)) >= 0) {
        cr_value *t = top ? stack[top - 1] : NULL;
        switch (op % 24) {
        case 0:
            if (top < MAXSTACK) {
                cr_value *m = cr_map_new();
                CHECK(m);
                stack[top++] = m;
            }
            break;
        case 1:
            if (top < MAXSTACK) {
                cr_value *l = cr_list_new();
                CHECK(l);
                stack[top++] = l;
            }
            break;
        case 2:
            text(&in, key);
            (void)cr_map_set_null(t, key);
            break;
        case 3:
            text(&in, key);
            (void)cr_map_set_bool(t, key, next(&in));
            break;
        case 4:
            text(&in, key);
            (void)cr_map_set_int(t, key, integer(&in));
            break;
        case 5: {
            text(&in, key);
            int64_t bits = integer(&in);
            double d;
            memcpy(&d, &bits, sizeof d);
            (void)cr_map_set_double(t, key, d);
            break;
        }
        case 6:
            text(&in, key);
            text(&in, str);
            (void)cr_map_set_string(t, key, str);
            break;
        case 7:
            text(&in, key);
            (void)cr_map_set_object(t, key, (void *)(uintptr_t)0x1000);
            break;
        case 8: /* hand the top value to the one below it (a map under a key, or a list) */
            if (top >= 2) {
                cr_value *v = stack[--top];
                cr_value *into = stack[top - 1];
                text(&in, key);
                int rc = cr_value_kind(into) == CR_MAP ? cr_map_set_value(into, key, v) : cr_list_push_value(into, v);
                fuzz_check_status(rc);
            }
            break;
        case 9: (void)cr_list_push_null(t); break;
        case 10: (void)cr_list_push_bool(t, next(&in)); break;
        case 11: (void)cr_list_push_int(t, integer(&in)); break;
        case 12: {
            int64_t bits = integer(&in);
            double d;
            memcpy(&d, &bits, sizeof d);
            (void)cr_list_push_double(t, d);
            break;
        }
        case 13:
            text(&in, str);
            (void)cr_list_push_string(t, str);
            break;
        case 14: (void)cr_list_push_object(t, (void *)(uintptr_t)0x2000); break;
        case 15:
            if (t) read_all(t, 0);
            break;
        case 16:
            if (top) { cr_value_free(stack[--top]); }
            break;
        case 17: /* misuse: push a value into itself (must be refused; it is freed with ownership) */
            if (t) {
                int rc = cr_value_kind(t) == CR_MAP ? cr_map_set_value(t, "self", t) : cr_list_push_value(t, t);
                CHECK(!(rc == CR_OK));
                top--;
            }
            break;
        case 18: /* misuse: a borrowed element as if owned */
            if (t && cr_value_count(t) && cr_value_kind(t) == CR_LIST) {
                const cr_value *e = cr_list_at(t, 0);
                cr_value_free((cr_value *)e);
                (void)cr_list_push_null((cr_value *)e);
                (void)cr_map_set_null((cr_value *)e, "k");
            }
            break;
        case 19:
            text(&in, key);
            if (t) (void)cr_map_get(t, key);
            break;
        case 20:
            (void)cr_list_at(t, (size_t)next(&in));
            (void)cr_map_key_at(t, (size_t)next(&in));
            break;
        case 21: /* the top value as props of a create */
            if (!reg) {
                reg = cr_registry_new();
                static const cr_class cls = {.create = echo_create, .destroy = echo_destroy};
                CHECK(!(cr_register_class(reg, "Echo", &cls, NULL) != CR_OK));
            }
            {
                cr_owner owner;
                cr_create_options co = CR_CREATE_OPTIONS_INIT;
                co.props = t;
                co.owner = &owner;
                void *o = cr_registry_create_with(reg, "Echo", &co);
                if (o && owner == CR_OWNER_RECEIVER)
                    free(o);
                else
                    fuzz_check_status(cr_last_error_code());
            }
            break;
        case 22: /* the top value as an entry's dependencies, then create it */
            if (!reg) {
                reg = cr_registry_new();
                static const cr_class cls = {.create = echo_create, .destroy = echo_destroy};
                CHECK(!(cr_register_class(reg, "Echo", &cls, NULL) != CR_OK));
            }
            text(&in, key);
            {
                int rc = cr_add_entry(reg, key, "Echo", (cr_lifestyle)(next(&in) & 3), t);
                fuzz_check_status(rc);
                cr_owner owner;
                cr_create_options co = CR_CREATE_OPTIONS_INIT;
                co.owner = &owner;
                void *o = cr_registry_create_with(reg, key, &co);
                if (o && owner == CR_OWNER_RECEIVER) free(o);
            }
            break;
        case 23:
            (void)cr_value_kind(t);
            (void)cr_value_count(t);
            (void)cr_value_string(t);
            break;
        }
    }
    while (top) cr_value_free(stack[--top]);
    if (reg) cr_registry_free(reg);
    return 0;
}
