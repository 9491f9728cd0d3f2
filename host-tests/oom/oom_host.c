/* oom-host: the allocation-failure campaign's host. For one scenario it runs, for N = 1, 2, ...,
 * a forked child that fails the Nth allocation made during the scenario (failalloc.so, preloaded)
 * and classifies how the child ended:
 *   ok      every call succeeded (the failed allocation was absorbed)
 *   nomem   the failing call returned CR_ERR_NO_MEMORY with a message
 *   other   the failing call returned another code (printed)
 *   crash   the child died from a signal (a Swift runtime trap on its own allocation, or worse)
 * It stops at the first N the scenario never reaches and prints one summary line:
 *   SCENARIO points=K ok=.. nomem=.. other=.. crash=..
 * usage: LD_PRELOAD=failalloc.so oom-host SCENARIO [--warm] [--verbose] [--only N]
 * scenarios: load-yaml load-json load-plist create props registry
 * --warm runs the scenario once unarmed first (type metadata, thread-local records and caches
 * exist, as in a process that has been running), instead of from a cold start. */
#define _GNU_SOURCE
#include "controllerreg.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void (*arm)(long);
static long (*disarm)(void);
static int (*injected)(void);

/* Objects come from a static pool: the host allocates nothing itself while armed. */
static int pool[64];
static int pool_next;
static void *create_object(const cr_value *args, void *user_data) {
    (void)args;
    (void)user_data;
    return &pool[pool_next++ % 64];
}
static void destroy_object(void *object, void *user_data) {
    (void)object;
    (void)user_data;
}
static const cr_class object_class = {.create = create_object, .destroy = destroy_object};

static const char yaml[] = "Leaf: LeafClass\n"
                           "Node:\n"
                           "  ClassName: NodeClass\n"
                           "  Description: a node\n"
                           "  Tag: 1\n"
                           "  Dependencies:\n"
                           "    title: \"@Hello, world\"\n"
                           "    count: 3\n"
                           "    ratio: 1.5\n"
                           "    enabled: true\n"
                           "    leaf: Leaf\n"
                           "    items: [Leaf, \"@x\", 2]\n"
                           "    options: {left: Leaf, right: \"@y\"}\n"
                           "    later: {Provider: Leaf}\n"
                           "Single:\n"
                           "  ClassName: LeafClass\n"
                           "  Lifestyle: singleton\n"
                           "  Dependencies: {node: Node}\n";
static const char json[] =
    "{\"Leaf\": \"LeafClass\", \"Node\": {\"ClassName\": \"NodeClass\", \"Description\": \"a node\", \"Tag\": 1,"
    " \"Dependencies\": {\"title\": \"@Hello, world\", \"count\": 3, \"ratio\": 1.5, \"enabled\": true, \"leaf\": \"Leaf\","
    " \"items\": [\"Leaf\", \"@x\", 2], \"options\": {\"left\": \"Leaf\", \"right\": \"@y\"}, \"later\": {\"Provider\": "
    "\"Leaf\"}}},"
    " \"Single\": {\"ClassName\": \"LeafClass\", \"Lifestyle\": \"singleton\", \"Dependencies\": {\"node\": \"Node\"}}}";
static const char plist[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict>"
    "<key>Leaf</key><string>LeafClass</string>"
    "<key>Node</key><dict><key>ClassName</key><string>NodeClass</string><key>Description</key><string>a node</string>"
    "<key>Tag</key><integer>1</integer>"
    "<key>Dependencies</key><dict><key>title</key><string>@Hello, world</string><key>count</key><integer>3</integer>"
    "<key>ratio</key><real>1.5</real><key>enabled</key><true/><key>leaf</key><string>Leaf</string>"
    "<key>items</key><array><string>Leaf</string><string>@x</string><integer>2</integer></array>"
    "<key>options</key><dict><key>left</key><string>Leaf</string><key>right</key><string>@y</string></dict>"
    "<key>later</key><dict><key>Provider</key><string>Leaf</string></dict></dict></dict>"
    "<key>Single</key><dict><key>ClassName</key><string>LeafClass</string><key>Lifestyle</key><string>singleton</string>"
    "<key>Dependencies</key><dict><key>node</key><string>Node</string></dict></dict>"
    "</dict></plist>\n";

/* The registry the scenarios use, set up before arming (classes registered; for `create`, loaded). */
static cr_registry *setup(int load) {
    cr_registry *reg = cr_registry_new();
    if (!reg || cr_register_class(reg, "LeafClass", &object_class, NULL) ||
        cr_register_class(reg, "NodeClass", &object_class, NULL)) {
        fprintf(stderr, "oom-host: setup failed: %s\n", cr_last_error_message());
        exit(2);
    }
    if (load && cr_load_string(reg, yaml, strlen(yaml), CR_FORMAT_YAML)) {
        fprintf(stderr, "oom-host: setup load failed: %s\n", cr_last_error_message());
        exit(2);
    }
    return reg;
}

/* The code of the first failing call, or CR_OK. */
static int first_error;
static void note(int failed) {
    if (failed && first_error == CR_OK) {
        first_error = cr_last_error_code();
        if (first_error == CR_OK) first_error = -1; /* failed without recording why */
    }
}

static void run_load(cr_registry *reg, const char *text, cr_format format) {
    note(cr_load_string(reg, text, strlen(text), format) != CR_OK);
}

static void run_create(cr_registry *reg) {
    cr_value *props = cr_map_new();
    note(props == NULL);
    if (props) {
        note(cr_map_set_string(props, "title", "from props") != CR_OK);
        note(cr_map_set_int(props, "count", 7) != CR_OK);
    }
    note(cr_registry_create(reg, "Node", props) == NULL);
    note(cr_registry_create(reg, "Single", NULL) == NULL);
    note(cr_registry_create(reg, "Nodee", NULL) == NULL && cr_last_error_code() != CR_ERR_NOT_FOUND);
    cr_value_free(props);
}

static void run_props(void) {
    cr_value *map = cr_map_new();
    note(map == NULL);
    cr_value *list = cr_list_new();
    note(list == NULL);
    if (map) {
        note(cr_map_set_null(map, "n") != CR_OK);
        note(cr_map_set_bool(map, "b", 1) != CR_OK);
        note(cr_map_set_int(map, "i", 42) != CR_OK);
        note(cr_map_set_double(map, "d", 2.5) != CR_OK);
        note(cr_map_set_string(map, "s", "a string longer than fifteen bytes") != CR_OK);
        note(cr_map_set_object(map, "o", &pool[0]) != CR_OK);
    }
    if (list) {
        for (int i = 0; i < 6; i++) note(cr_list_push_int(list, i) != CR_OK);
        note(cr_list_push_string(list, "x") != CR_OK);
    }
    if (map && list) {
        note(cr_map_set_value(map, "list", list) != CR_OK);
        list = NULL; /* handed over, even on failure */
    }
    cr_value_free(list);
    cr_value_free(map);
}

static void scenario(const char *name, cr_registry *reg) {
    if (!strcmp(name, "load-yaml"))
        run_load(reg, yaml, CR_FORMAT_YAML);
    else if (!strcmp(name, "load-json"))
        run_load(reg, json, CR_FORMAT_JSON);
    else if (!strcmp(name, "load-plist"))
        run_load(reg, plist, CR_FORMAT_PLIST);
    else if (!strcmp(name, "create"))
        run_create(reg);
    else if (!strcmp(name, "props"))
        run_props();
    else if (!strcmp(name, "registry")) {
        cr_registry *r = cr_registry_new();
        note(r == NULL);
        if (r) note(cr_register_class(r, "LeafClass", &object_class, NULL) != CR_OK);
        cr_registry_free(r);
    } else {
        fprintf(stderr, "oom-host: unknown scenario '%s'\n", name);
        exit(2);
    }
}

enum { EXIT_OK = 10, EXIT_NOMEM = 11, EXIT_OTHER = 12, EXIT_NOT_REACHED = 13 };

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr,
                "usage: LD_PRELOAD=failalloc.so oom-host load-yaml|load-json|load-plist|create|props|registry [--warm] "
                "[--verbose] [--only N]\n");
        return 2;
    }
    const char *name = argv[1];
    int warm = 0, verbose = 0;
    long only = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--warm")) warm = 1;
        if (!strcmp(argv[i], "--verbose")) verbose = 1;
        if (!strcmp(argv[i], "--only") && i + 1 < argc) only = atol(argv[++i]);
    }
    arm = (void (*)(long))dlsym(RTLD_DEFAULT, "failalloc_arm");
    disarm = (long (*)(void))dlsym(RTLD_DEFAULT, "failalloc_disarm");
    injected = (int (*)(void))dlsym(RTLD_DEFAULT, "failalloc_injected");
    if (!arm || !disarm || !injected) {
        fprintf(stderr, "oom-host: run with LD_PRELOAD=failalloc.so\n");
        return 2;
    }
    int needs_load = !strcmp(name, "create");
    if (warm) {
        cr_registry *reg = setup(needs_load);
        scenario(name, reg);
        cr_registry_free(reg);
    }
    long counts[4] = {0, 0, 0, 0}; /* ok, nomem, other, crash */
    long n;
    for (n = only ? only : 1;; n++) {
        fflush(stdout);
        pid_t pid = only ? 0 : fork(); /* --only N: that run alone, in this process (for a debugger) */
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0) {
            alarm(20); /* a hang counts as a crash */
            cr_registry *reg = setup(needs_load);
            first_error = CR_OK;
            arm(n);
            scenario(name, reg);
            disarm();
            int hit = injected();
            int code = first_error;
            const char *message = cr_last_error_message();
            cr_registry_free(reg);
            if (!hit) _exit(EXIT_NOT_REACHED);
            if (code == CR_OK) _exit(EXIT_OK);
            if (code == CR_ERR_NO_MEMORY && message && message[0]) _exit(EXIT_NOMEM);
            if (verbose) fprintf(stderr, "  N=%ld: code %d: %s\n", n, code, message ? message : "(null)");
            _exit(EXIT_OTHER);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_NOT_REACHED) break;
        if ((WIFEXITED(status) && WEXITSTATUS(status) == 2) || n > 1000000) {
            fprintf(stderr, "oom-host: %s: the scenario cannot run (see above)\n", name);
            return 2;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_OK)
            counts[0]++;
        else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_NOMEM)
            counts[1]++;
        else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_OTHER)
            counts[2]++;
        else {
            counts[3]++;
            if (verbose) {
                if (WIFSIGNALED(status))
                    fprintf(stderr, "  N=%ld: killed by signal %d\n", n, WTERMSIG(status));
                else
                    fprintf(stderr, "  N=%ld: exit status %d\n", n, WEXITSTATUS(status));
            }
        }
    }
    printf("%s%s points=%ld ok=%ld nomem=%ld other=%ld crash=%ld\n", name, warm ? " (warm)" : "", n - 1, counts[0], counts[1],
           counts[2], counts[3]);
    return 0;
}
