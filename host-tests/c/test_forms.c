/* The dependency forms of issue 16 through the C ABI: {Tagged: t} (a CR_LIST of the objects of
 * every entry tagged t, ordered by entry name) and {Optional: Name} (the object, or CR_NULL).
 * Ownership of list elements follows the list-of-references rules; run under valgrind too. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "hosts.h"
#include "tests.h"

#include <stdlib.h>
#include <string.h>

/* What a Probe saw in its args: the list under "all" (owners and objects, read in order), the
 * kinds of "none", "opt" and "help". It takes the RECEIVER elements whose bit is set in
 * `probe_take` (and destroys them when destroyed itself). */
#define PROBE_MAX 8
typedef struct Probe {
    int allKind;
    size_t allCount;
    cr_owner owners[PROBE_MAX];
    void *objects[PROBE_MAX];
    int noneKind;
    size_t noneCount;
    int optKind;
    int helpKind;
    void *taken[PROBE_MAX];
    size_t takenCount;
} Probe;

static unsigned probe_take;
static int probe_destroys;

static void *probe_create(const cr_value *args, void *user_data) {
    (void)user_data;
    Probe *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    const cr_value *all = cr_map_get(args, "all");
    p->allKind = all ? (int)cr_value_kind(all) : -1;
    p->allCount = cr_value_count(all);
    for (size_t i = 0; i < p->allCount && i < PROBE_MAX; i++) {
        const cr_value *e = cr_list_at(all, i);
        p->owners[i] = cr_value_owner(e);
        /* Only a RECEIVER element read is taken; the others are read freely. */
        if (p->owners[i] != CR_OWNER_RECEIVER || (probe_take & (1u << i))) {
            p->objects[i] = cr_value_object(e);
            if (p->owners[i] == CR_OWNER_RECEIVER) p->taken[p->takenCount++] = p->objects[i];
        }
    }
    const cr_value *none = cr_map_get(args, "none");
    p->noneKind = none ? (int)cr_value_kind(none) : -1;
    p->noneCount = cr_value_count(none);
    const cr_value *opt = cr_map_get(args, "opt");
    p->optKind = opt ? (int)cr_value_kind(opt) : -1;
    const cr_value *help = cr_map_get(args, "help");
    p->helpKind = help ? (int)cr_value_kind(help) : -1;
    return p;
}

static void probe_destroy(void *object, void *user_data) {
    (void)user_data;
    Probe *p = object;
    for (size_t i = 0; i < p->takenCount; i++) destroy_any(p->taken[i]);
    probe_destroys++;
    free(p);
}

static const cr_class probe_class = {.create = probe_create, .destroy = probe_destroy};

static const char *members_yaml = "Cee: {ClassName: Node, Tag: [t, 5], Lifestyle: graph}\n"
                                  "Bee: {ClassName: Node, Tag: t, Lifestyle: singleton}\n"
                                  "Aye: {ClassName: Node, Tag: t}\n"
                                  "Probe:\n"
                                  "  ClassName: Probe\n"
                                  "  Dependencies: {all: {Tagged: t}, none: {Tagged: nothing}, opt: {Optional: Missing},\n"
                                  "                 help: {Optional: Aye}, cee: Cee}\n";

/* A tagged list: members ordered by name, each with its own owner; an empty list; a null optional. */
static void tagged_list_and_owners(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Probe", &probe_class, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, members_yaml), CR_OK);
    probe_take = 0;
    probe_destroys = 0;
    Probe *p = cr_registry_create(reg, "Probe", NULL);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->allKind, CR_LIST);
        CHECK_INT(p->allCount, 3);
        CHECK_INT(p->owners[0], CR_OWNER_RECEIVER); /* Aye, transient */
        CHECK_INT(p->owners[1], CR_OWNER_REGISTRY); /* Bee, singleton */
        CHECK_INT(p->owners[2], CR_OWNER_RECEIVER); /* Cee, graph: the list is its first receiver */
        CHECK_INT(p->noneKind, CR_LIST);
        CHECK_INT(p->noneCount, 0);
        CHECK_INT(p->optKind, CR_NULL);
        CHECK_INT(p->helpKind, CR_OBJECT);
        CHECK_INT(p->takenCount, 0);
        probe_destroy(p, NULL);
    }
    /* Aye twice (list and help), Bee once, Cee once: the untaken ones are destroyed by the library. */
    CHECK_INT(stats_get(&s, &s.creates), 4);
    CHECK_INT(stats_get(&s, &s.destroys), 3);
    /* The singleton is the same object in every list. */
    Probe *a = cr_registry_create(reg, "Probe", NULL);
    probe_take = 1u; /* take Aye only */
    Probe *b = cr_registry_create(reg, "Probe", NULL);
    CHECK(a && b);
    if (a && b) {
        CHECK(b->objects[1] == a->objects[1]);
        CHECK(b->objects[1] != NULL);
        CHECK_INT(b->takenCount, 1);
        CHECK(b->taken[0] == b->objects[0]);
    }
    CHECK_INT(stats_get(&s, &s.creates), 4 + 3 + 3);
    /* b keeps Aye: the library destroyed the other transients and graph objects of both creates. */
    CHECK_INT(stats_get(&s, &s.destroys), 3 + 3 + 2);
    if (a) probe_destroy(a, NULL);
    if (b) probe_destroy(b, NULL);
    CHECK_INT(stats_get(&s, &s.destroys), 3 + 3 + 3);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s, &s.destroys), 3 + 3 + 3 + 1); /* the singleton, with the registry */
    CHECK_INT(probe_destroys, 3);
}

/* A graph member taken from the list is the receiver's; the later use of it is CR_OWNER_SHARED. */
static void graph_member_taken_from_the_list(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Probe", &probe_class, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg, members_yaml), CR_OK);
    probe_take = 4u; /* Cee */
    Probe *p = cr_registry_create(reg, "Probe", NULL);
    CHECK(p != NULL);
    if (p) {
        CHECK_INT(p->takenCount, 1);
        CHECK(p->taken[0] == p->objects[2]);
        CHECK_INT(stats_get(&s, &s.destroys), 2); /* the two Aye, not Cee */
        probe_destroy(p, NULL);
    }
    CHECK_INT(stats_get(&s, &s.destroys), 3);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s, &s.destroys), 4);
}

/* A create that fails after building part of a tagged list destroys what it built, once. */
static void failure_mid_list_destroys_the_built_members(void) {
    host_stats s, bad;
    stats_init(&s);
    stats_init(&bad);
    bad.fail = 1;
    bad.fail_message = "no";
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Bad", &node_class, &bad), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Probe", &probe_class, NULL), CR_OK);
    CHECK_STATUS(load_yaml(reg,
                           "A: {ClassName: Node, Tag: t}\nB: {ClassName: Bad, Tag: t}\n"
                           "C: {ClassName: Node, Tag: t}\nProbe: {ClassName: Probe, Dependencies: {all: {Tagged: t}}}\n"),
                 CR_OK);
    CHECK(cr_registry_create(reg, "Probe", NULL) == NULL);
    CHECK_LAST_ERROR(CR_ERR_CREATE_FAILED);
    CHECK_CONTAINS(cr_last_error_message(), "Probe -> B");
    CHECK_INT(stats_get(&s, &s.creates), 1);
    CHECK_INT(stats_get(&s, &s.destroys), 1);
    cr_registry_free(reg);
}

/* Lists and optional references follow cr_add_entry, cr_remove_entry and later loads. */
static void membership_follows_changes(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Probe", &probe_class, NULL), CR_OK);
    cr_value *deps = cr_map_new();
    cr_value *tagged = cr_map_new();
    cr_map_set_string(tagged, "Tagged", "t");
    cr_map_set_value(deps, "all", tagged);
    cr_value *opt = cr_map_new();
    cr_map_set_string(opt, "Optional", "Later");
    cr_map_set_value(deps, "opt", opt);
    CHECK_STATUS(cr_add_entry(reg, "Probe", "Probe", CR_LIFESTYLE_TRANSIENT, deps), CR_OK);
    cr_value_free(deps);
    probe_take = 0;
    Probe *p = cr_registry_create(reg, "Probe", NULL);
    CHECK(p && p->allCount == 0 && p->allKind == CR_LIST && p->optKind == CR_NULL);
    if (p) probe_destroy(p, NULL);
    CHECK_STATUS(load_yaml(reg, "M1: {ClassName: Node, Tag: t}\nM2: {ClassName: Node, Tag: [x, t]}\n"), CR_OK);
    CHECK_STATUS(cr_add_entry(reg, "Later", "Node", CR_LIFESTYLE_SINGLETON, NULL), CR_OK);
    p = cr_registry_create(reg, "Probe", NULL);
    CHECK(p && p->allCount == 2 && p->optKind == CR_OBJECT);
    if (p) probe_destroy(p, NULL);
    /* Removing a member or an optional target is allowed; the list shrinks, the reference is null. */
    CHECK_STATUS(cr_remove_entry(reg, "M1"), CR_OK);
    CHECK_STATUS(cr_remove_entry(reg, "Later"), CR_OK);
    p = cr_registry_create(reg, "Probe", NULL);
    CHECK(p && p->allCount == 1 && p->optKind == CR_NULL);
    if (p) probe_destroy(p, NULL);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s, &s.creates), stats_get(&s, &s.destroys));
}

/* Many entries with their own {Tagged: t<i>} and {Optional: O<i>}, added one at a time: each later
 * add or removal of a member or target (found by tag and name, not by reading every such entry)
 * reaches exactly its entry's list or reference, and no other's. */
static void membership_of_many_follows_changes(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(cr_register_class(reg, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Probe", &probe_class, NULL), CR_OK);
    const int total = quick_mode() ? 150 : 900;
    char name[32], tag[32], target[32];
    for (int i = 0; i < total; i++) {
        snprintf(name, sizeof name, "P%d", i);
        snprintf(tag, sizeof tag, "t%d", i);
        snprintf(target, sizeof target, "O%d", i);
        cr_value *deps = cr_map_new();
        cr_value *tagged = cr_map_new();
        cr_map_set_string(tagged, "Tagged", tag);
        cr_map_set_value(deps, "all", tagged);
        cr_value *opt = cr_map_new();
        cr_map_set_string(opt, "Optional", target);
        cr_map_set_value(deps, "opt", opt);
        CHECK_STATUS(cr_add_entry(reg, name, "Probe", CR_LIFESTYLE_TRANSIENT, deps), CR_OK);
        cr_value_free(deps);
        if (i % 3 != 0 || i == 0) continue;
        /* A member of an earlier entry's tag, and an earlier entry's target. */
        int k = i / 3;
        snprintf(name, sizeof name, "M%d", k);
        snprintf(tag, sizeof tag, "t%d", k);
        cr_entry_options options = CR_ENTRY_OPTIONS_INIT;
        cr_value *tags = cr_list_new();
        cr_list_push_string(tags, tag);
        options.tags = tags;
        CHECK_STATUS(cr_add_entry_with(reg, name, "Node", &options), CR_OK);
        cr_value_free(tags);
        snprintf(target, sizeof target, "O%d", k);
        CHECK_STATUS(cr_add_entry(reg, target, "Node", CR_LIFESTYLE_TRANSIENT, NULL), CR_OK);
        if (k % 2 == 0) {
            CHECK_STATUS(cr_remove_entry(reg, name), CR_OK);
            CHECK_STATUS(cr_remove_entry(reg, target), CR_OK);
        }
    }
    int bad = 0;
    for (int i = 0; i < total; i++) {
        /* P<k> has a member and a target when M<k> and O<k> were added and kept. */
        int kept = i > 0 && i * 3 < total && i % 2 == 1;
        snprintf(name, sizeof name, "P%d", i);
        probe_take = 0;
        Probe *p = cr_registry_create(reg, name, NULL);
        int ok = p && p->allKind == CR_LIST && p->allCount == (kept ? 1u : 0u) && p->optKind == (kept ? CR_OBJECT : CR_NULL);
        if (!ok && bad++ < 5) check_record(0, __FILE__, __LINE__, check_format("%s: kept %d", name, kept));
        if (p) probe_destroy(p, NULL);
    }
    CHECK_INT(bad, 0);
    cr_registry_free(reg);
    CHECK_INT(stats_get(&s, &s.creates), stats_get(&s, &s.destroys));
}

/* Tagged and optional edges count for cycles, through every door; nothing changes on failure. */
static void cycles_through_forms(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(load_yaml(reg, "A: {ClassName: Node, Tag: t, Dependencies: {all: {Tagged: t}}}\n"), CR_ERR_CYCLE);
    CHECK_CONTAINS(cr_last_error_message(), "dependency cycle: A -> A (via key 'all' of 'A', {Tagged: t})");
    CHECK_CONTAINS(cr_last_error_message(), "<string>:1:");
    CHECK_STATUS(load_yaml(reg, "U: {ClassName: Node, Dependencies: {all: {Tagged: t}, o: {Optional: Y}}}\n"), CR_OK);
    CHECK_STATUS(load_yaml(reg, "X: {ClassName: Node, Tag: t, Dependencies: {u: U}}\n"), CR_ERR_CYCLE);
    CHECK_CONTAINS(cr_last_error_message(), "U -> X -> U");
    cr_value *deps = cr_map_new();
    cr_map_set_string(deps, "u", "U");
    CHECK_STATUS(cr_add_entry(reg, "Y", "Node", CR_LIFESTYLE_TRANSIENT, deps), CR_ERR_CYCLE);
    CHECK_CONTAINS(cr_last_error_message(), "U -> Y -> U");
    cr_value_free(deps);
    cr_value *entries = cr_registry_entries(reg);
    CHECK_INT(cr_value_count(entries), 1);
    cr_value_free(entries);
    cr_registry_free(reg);
}

/* A child sees its own and its parent's tagged entries, its overrides winning. */
static void child_union(void) {
    host_stats s;
    stats_init(&s);
    cr_registry *parent = cr_registry_new();
    CHECK_STATUS(cr_register_class(parent, "Node", &node_class, &s), CR_OK);
    CHECK_STATUS(cr_register_class(parent, "Probe", &probe_class, NULL), CR_OK);
    CHECK_STATUS(load_yaml(parent,
                           "A: {ClassName: Node, Tag: t}\nB: {ClassName: Node, Tag: t}\n"
                           "Probe: {ClassName: Probe, Dependencies: {all: {Tagged: t}, opt: {Optional: C}}}\n"),
                 CR_OK);
    cr_registry *child = cr_registry_new_child(parent);
    CHECK(child != NULL);
    cr_load_options o = CR_LOAD_OPTIONS_INIT;
    o.flags = CR_LOAD_OVERRIDE;
    static const char text[] = "B: {ClassName: Node}\nC: {ClassName: Node, Tag: t}\nD: {ClassName: Node, Tag: t}\n";
    CHECK_STATUS(cr_load_string_with(child, text, sizeof text - 1, &o), CR_OK);
    probe_take = 0;
    Probe *p = cr_registry_create(child, "Probe", NULL);
    CHECK(p && p->allCount == 3 && p->optKind == CR_OBJECT); /* A, C, D */
    if (p) probe_destroy(p, NULL);
    p = cr_registry_create(parent, "Probe", NULL);
    CHECK(p && p->allCount == 2 && p->optKind == CR_NULL); /* A, B */
    if (p) probe_destroy(p, NULL);
    cr_registry_free(child);
    cr_registry_free(parent);
    CHECK_INT(stats_get(&s, &s.creates), stats_get(&s, &s.destroys));
}

/* cr_registry_entries lists every tag. */
static void entries_list_tags(void) {
    cr_registry *reg = cr_registry_new();
    CHECK_STATUS(load_yaml(reg, "A: {ClassName: Node, Tag: [x, 5]}\n"), CR_OK);
    cr_value *entries = cr_registry_entries(reg);
    const cr_value *a = cr_list_at(entries, 0);
    CHECK_STR(cr_value_string(cr_map_get(a, "tag")), "x");
    const cr_value *tags = cr_map_get(a, "tags");
    CHECK_INT(cr_value_count(tags), 2);
    CHECK_INT(cr_value_int(cr_list_at(tags, 1)), 5);
    cr_value_free(entries);
    cr_registry_free(reg);
}

void test_forms(void) {
    tagged_list_and_owners();
    graph_member_taken_from_the_list();
    failure_mid_list_destroys_the_built_members();
    membership_follows_changes();
    membership_of_many_follows_changes();
    cycles_through_forms();
    child_union();
    entries_list_tags();
}
