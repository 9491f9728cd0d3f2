/* libFuzzer target: load any config (CR_FORMAT_AUTO), register a permissive class for every class
 * name it uses, create every entry, call every provider handed over once, destroy everything.
 *
 * The permissive class's objects are small malloc'd tokens. Ownership follows controllerreg.h:
 * a create callback destroys the CR_OWNER_RECEIVER objects in its args (it "owns" them) and frees
 * the providers after the top-level create (or keeps them for one call). LeakSanitizer then checks
 * that the library itself leaks nothing, and ASan that it never touches a freed token. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "controllerreg.h"
#include "fuzz_common.h"

#define TOKEN_MAGIC 0x70CE3u
#define MAXKIDS 64

/* An object: it owns the CR_OWNER_RECEIVER objects it was given (destroyed with it). */
typedef struct token {
    unsigned magic;
    size_t nkids;
    struct token *kids[MAXKIDS];
} token;

static cr_provider *pending[64];
static size_t npending;

static void token_destroy(void *object, void *user_data) {
    (void)user_data;
    token *t = object;
    CHECK(!(!t || t->magic != TOKEN_MAGIC)); /* destroy of something that is not ours, or twice */
    t->magic = 0;
    for (size_t i = 0; i < t->nkids; i++) token_destroy(t->kids[i], NULL);
    free(t);
}

/* Checks every object in args is alive; with `adopt`, takes the RECEIVER ones into `into` (or
 * destroys them if there is no room) and keeps providers for one call after the create. */
static void walk_args(const cr_value *v, int depth, token *into) {
    CHECK(!(depth > 10000));
    switch (cr_value_kind(v)) {
    case CR_OBJECT: {
        token *t = cr_value_object(v);
        CHECK(!(!t || t->magic != TOKEN_MAGIC)); /* a dangling or foreign object in args */
        cr_owner o = cr_value_owner(v);
        CHECK(!(o != CR_OWNER_RECEIVER && o != CR_OWNER_SHARED && o != CR_OWNER_REGISTRY));
        if (into && o == CR_OWNER_RECEIVER) {
            if (into->nkids < MAXKIDS)
                into->kids[into->nkids++] = t;
            else
                token_destroy(t, NULL); /* allowed: the receiver may destroy what it owns */
        }
        break;
    }
    case CR_PROVIDER: {
        cr_provider *p = cr_value_provider(v);
        CHECK(!(!p || !cr_provider_name(p)));
        if (into) {
            if (npending < sizeof pending / sizeof pending[0])
                pending[npending++] = p;
            else
                cr_provider_free(p);
        }
        break;
    }
    case CR_LIST:
        for (size_t i = 0; i < cr_value_count(v); i++) walk_args(cr_list_at(v, i), depth + 1, into);
        break;
    case CR_MAP:
        for (size_t i = 0; i < cr_value_count(v); i++) {
            CHECK(!(!cr_map_key_at(v, i)));
            walk_args(cr_map_value_at(v, i), depth + 1, into);
        }
        break;
    case CR_STRING: CHECK(!(!cr_value_string(v))); break;
    default: (void)cr_value_double(v); break;
    }
}

static int fail_mode; /* from the input's first byte: which creates return NULL */
static unsigned ncreates;

static void *token_create(const cr_value *args, void *user_data) {
    (void)user_data;
    CHECK(!(!args || cr_value_kind(args) != CR_MAP));
    walk_args(args, 0, NULL);
    ncreates++;
    if (fail_mode && ncreates % (unsigned)fail_mode == 0) {
        /* Failing: the registry destroys what it built for this create and we did not read. The
         * objects and providers walk_args read above are ours even so (controllerreg.h,
         * OWNERSHIP: reading takes them, even if the callback then fails): gather them into a
         * token and destroy it (providers go to the pending list, freed after the create). */
        token *taken = calloc(1, sizeof *taken);
        CHECK(!(!taken));
        taken->magic = TOKEN_MAGIC;
        walk_args(args, 0, taken);
        token_destroy(taken, NULL);
        cr_report_error("fuzz: refusing");
        return NULL;
    }
    token *t = calloc(1, sizeof *t);
    CHECK(!(!t));
    t->magic = TOKEN_MAGIC;
    walk_args(args, 0, t);
    return t;
}

static void create_and_destroy(cr_registry *reg, const char *name) {
    cr_owner owner = CR_OWNER_NONE;
    cr_create_options co = CR_CREATE_OPTIONS_INIT;
    co.owner = &owner;
    void *obj = cr_registry_create_with(reg, name, &co);
    if (obj) {
        if (owner == CR_OWNER_RECEIVER)
            token_destroy(obj, NULL);
        else
            CHECK(!(owner != CR_OWNER_REGISTRY));
    } else {
        fuzz_check_status(cr_last_error_code());
        CHECK(!(cr_last_error_code() == CR_OK));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    fail_mode = data[0] % 8; /* 0: never fail; n: every n-th create fails */
    ncreates = 0;
    data++, size--;
    cr_registry *reg = cr_registry_new();
    CHECK(!(!reg));
    fuzz_tight_limits(reg);
    cr_registry_set_limit(reg, CR_LIMIT_CREATE_DEPTH, 64);
    int rc = cr_load_string(reg, (const char *)data, size, CR_FORMAT_AUTO);
    fuzz_check_status(rc);
    cr_value *entries = cr_registry_entries(reg);
    CHECK(!(!entries));
    size_t n = cr_value_count(entries);
    CHECK(!(rc != CR_OK && n != 0));
    static const cr_class cls = {.create = token_create, .destroy = token_destroy};
    for (size_t i = 0; i < n; i++) {
        const cr_value *e = cr_list_at(entries, i);
        const char *c = cr_value_string(cr_map_get(e, "class"));
        CHECK(!(!c));
        int r = cr_register_class(reg, c, &cls, NULL);
        CHECK(!(r != CR_OK && r != CR_ERR_CLASS_EXISTS));
    }
    for (size_t i = 0; i < n && i < 200; i++) {
        const char *name = cr_value_string(cr_map_get(cr_list_at(entries, i), "name"));
        CHECK(!(!name));
        create_and_destroy(reg, name);
        /* Each provider handed over is used once (with nested ones just freed) and then freed. */
        size_t count = npending;
        cr_provider *mine[64];
        memcpy(mine, pending, count * sizeof mine[0]);
        npending = 0;
        for (size_t k = 0; k < count; k++) {
            cr_owner owner = CR_OWNER_NONE;
            cr_create_options co = CR_CREATE_OPTIONS_INIT;
            co.owner = &owner;
            void *obj = cr_provider_create_with(mine[k], &co);
            if (obj) {
                CHECK(owner == CR_OWNER_RECEIVER || owner == CR_OWNER_REGISTRY);
                if (owner == CR_OWNER_RECEIVER) token_destroy(obj, NULL);
            }
            cr_provider_free(mine[k]);
        }
        for (size_t k = 0; k < npending; k++) cr_provider_free(pending[k]);
        npending = 0;
    }
    (void)cr_registry_start(reg);
    for (size_t k = 0; k < npending; k++) cr_provider_free(pending[k]);
    npending = 0;
    cr_value_free(entries);
    cr_registry_free(reg);
    return 0;
}
