/* Host classes shared by the C tests: the EMControllerManager example's two view controllers, and
 * a generic Node class that keeps (and later destroys) every object it receives, so tests can
 * count constructor and destructor calls and still free everything. */
#ifndef CR_TEST_HOSTS_H
#define CR_TEST_HOSTS_H

#include <controllerreg.h>
#include <pthread.h>

/* Counters passed as a class's user_data. Updated under a lock (tests use threads). */
typedef struct host_stats {
    pthread_mutex_t lock;
    int creates;  /* successful create calls */
    int failures; /* create calls that returned NULL on purpose */
    int destroys; /* destroy calls */
    int releases; /* release callback calls */
    int fail;     /* when non-zero, create reports `fail_message` and returns NULL */
    const char *fail_message;
    int version;          /* stamped into the objects made with these stats */
    void *last_user_data; /* the user_data the last callback received */
} host_stats;

void stats_init(host_stats *s);
int stats_get(host_stats *s, const int *field);

#define TEST2_MAGIC 0x7e572
#define TEST1_MAGIC 0x7e571
#define NODE_MAGIC 0x40de

typedef struct Test2ViewController {
    int magic;
    int version;
    char *title; /* NULL unless configured */
} Test2ViewController;

typedef struct Test1ViewController {
    int magic;
    int version;
    char *dependentString;
    int dependentStringKind;
    int64_t dependentInt;
    int dependentIntKind;
    int dependentBool;
    int dependentBoolKind;
    Test2ViewController *test2ViewController;
    int test2Kind;
    cr_owner test2Owner;
    char *color;
    int colorKind;
    int64_t number;
    int numberKind;
    size_t argCount;
} Test1ViewController;

/* Class definitions; user_data must be a host_stats*. */
extern const cr_class test1_class;
extern const cr_class test2_class;
void test1_destroy(void *object, void *user_data);
void test2_destroy(void *object, void *user_data);

/* A Node keeps every CR_OWNER_RECEIVER object it finds in its args (any depth), and destroys them
 * when destroyed itself; it records its args' shape for assertions. */
typedef struct Node {
    int magic;
    host_stats *stats;
    size_t argCount;
    int argsKind;
    void **owned; /* objects received (CR_OWNER_RECEIVER) */
    const cr_class **ownedClasses;
    void **ownedUserData;
    size_t ownedCount;
    size_t callerObjects; /* objects found with CR_OWNER_CALLER */
} Node;

extern const cr_class node_class;
void node_destroy(void *object, void *user_data);

/* Destroys an object of any of the classes above (by its magic number). */
void destroy_any(void *object);

/* Registers Test1ViewController and Test2ViewController on `reg`; 0 on success. */
int register_example_classes(cr_registry *reg, host_stats *s1, host_stats *s2);

/* Checks the fully wired Test1 of the example, with props color/number when `with_props`. */
void check_example_object(const char *file, int line, Test1ViewController *t, int with_props);
#define CHECK_EXAMPLE_OBJECT(t, with_props) check_example_object(__FILE__, __LINE__, (t), (with_props))

/* Path of a fixture (Tests/Fixtures/<name>) in a static buffer per call site's thread. */
const char *fixture_path(const char *name);
/* 1 if the file exists. */
int file_exists(const char *path);
/* Loads a config string (NUL-terminated) into reg as YAML (or the given format). */
int load_yaml(cr_registry *reg, const char *text);
int load_text(cr_registry *reg, const char *text, cr_format format);
/* Lines in a message (1 + number of '\n'), 0 for "". */
int count_lines(const char *s);
/* Non-zero when the tests should run shorter loops (CR_TEST_QUICK set, e.g. under valgrind). */
int quick_mode(void);
/* The process's resident size in KiB (-1 if unknown). */
long resident_kib(void);

#endif
