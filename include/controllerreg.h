/*
 * controllerreg.h — the C interface of libcontrollerreg.
 *
 * controllerreg is a config-driven object registry (a dependency-injection container addressed
 * by name). A host registers classes (a name plus constructor callbacks), loads entries from
 * YAML, JSON or plist configs, and calls cr_create("Test1", props) to get a fully wired object:
 * every entry Test1 refers to is built first, literals are converted, props are merged in, and
 * the class's create callback receives it all in one argument map.
 *
 * C99. Every function and type is documented here. All names start with cr_ / CR_.
 *
 * ERRORS
 *   Functions returning int return CR_OK (0) on success and a cr_status code on failure.
 *   Functions returning a pointer return NULL on failure. Every failing call records its code and
 *   a message on the calling thread: cr_last_error_code() and cr_last_error_message(). A call that
 *   succeeds leaves the record as it was (as in libgit2); cr_clear_error() resets it. Config errors
 *   carry "file:line:column: " before each problem, one problem per line. A load reports every
 *   problem it can see at once (syntax and duplicate keys in one file, schema problems, missing
 *   references and cycles among the entries that are well-formed, in every file given); its code is
 *   then the lowest-numbered code among the problems (CR_ERR_IO before CR_ERR_SYNTAX before
 *   CR_ERR_SCHEMA before CR_ERR_DUPLICATE before CR_ERR_MISSING_REFERENCE before CR_ERR_CYCLE ...),
 *   so it never depends on the order of lines or files. The message lists the first 100 problems
 *   and counts the rest in its last line (as a compiler's error limit does: a load with 10,000
 *   problems gives a message of about 12 KB, not 1.3 MB); every problem stays a record, with its
 *   parts (code, file, line, column, message, suggested name) there without parsing text:
 *   cr_last_error_count() and cr_last_error_problem(), each record's message written when the
 *   records are first asked for. Cycles and singletons that would keep `graph` objects are each
 *   reported with their path for the first 100 of their kind, the rest of that kind counted in one
 *   more problem (each further path would cost what the load saves by failing). A problem's
 *   message longer than 4096 bytes keeps its first and last parts. No input, however malformed,
 *   makes the library crash, abort or print; NULL arguments are reported as
 *   CR_ERR_INVALID_ARGUMENT. A CR_ERR_INVALID_ARGUMENT message starts with the function and names
 *   the parameter and the fix ("cr_registry_create: reg is NULL; pass a registry from
 *   cr_registry_new, cr_registry_new_child or cr_shared()"). Every other problem without a place
 *   starts with the function too, where a config's starts with its place ("cr_add_entry: an entry
 *   name must not be empty; give the entry a name", "cr_registry_start: eager singleton 'S'
 *   failed: ..."), except a create's (cr_registry_create, cr_create, cr_provider_create,
 *   cr_inject), which names the entry and the chain to it instead ("cannot create 'A' (A -> B):
 *   ..."). Names given to functions (entry, class and template names) must be valid UTF-8
 *   (CR_ERR_INVALID_ARGUMENT otherwise: never repaired) no longer than CR_LIMIT_STRING_BYTES
 *   (CR_ERR_LIMIT). So must all other text a host hands over: paths, a source_name, and the keys
 *   and strings it puts into values (props, dependencies, environment maps, tags); bytes that are
 *   not UTF-8 are CR_ERR_INVALID_ARGUMENT naming the first bad byte, and nothing is stored, opened
 *   or loaded. Every string a host reads back is therefore UTF-8.
 *
 * OWNERSHIP
 *   The caller owns what a create returns (cr_registry_create_with tells how to destroy it),
 *   except a singleton, which the registry owns. In a create or set callback, `args` and every
 *   value in it are borrowed until the callback returns. Reading a CR_OWNER_RECEIVER object with
 *   cr_value_object, or a provider with cr_value_provider, makes it the callback's for good, even
 *   if the callback then fails (free a provider with cr_provider_free). What the callback did not
 *   read, the library destroys when it returns, success or failure (a graph object: when the
 *   whole create ends). CR_OWNER_SHARED, CR_OWNER_REGISTRY and CR_OWNER_CALLER objects never
 *   become the callback's. Each element of a list (a {Tagged: t} list, say) follows that rule on
 *   its own: read it to take it, leave it to have it destroyed. Props, and values from cr_map_new /
 *   cr_list_new, are the caller's until freed or handed to cr_map_set_value / cr_list_push_value;
 *   so are values cr_registry_entries returns. A class's release callback gets its user_data
 *   once, when the registry is done with it.
 *
 * THREADS
 *   A registry may be used from any number of threads at once: creates never block and see either
 *   the old or the new configuration of a concurrent load or registration, never half of one.
 *   Loads and registrations on one registry are serialised. A create callback may itself call
 *   cr_create / cr_registry_create (re-entrancy), load configs or register classes.
 *   cr_registry_free may be called from any callback (see cr_registry_free: when the calling
 *   thread is inside a create, the teardown waits until that create returns); it must not race
 *   with calls other threads start on the same registry after it.
 *   Values (cr_value) are not synchronised: do not modify one from two threads at once.
 *
 * FORK
 *   A child of fork() may use the library as its parent does (the registries it inherited, new
 *   ones, cr_shared()) when no other thread was inside a call of the library at the fork: fork
 *   before starting the threads that use it, or while they are idle (threads that used it and
 *   are parked or gone are fine). If another thread was inside a call (a create, a load, a
 *   registration, a free) when the process forked, the child inherits the locks that thread held
 *   but not the thread, and its first call may wait for them forever, as POSIX warns for any
 *   library with locks: in such a child call only async-signal-safe functions until it execs, or
 *   start the process with posix_spawn (Python: the multiprocessing start methods "spawn" or
 *   "forkserver"). The parent is never affected. Objects and singletons in a child are copies:
 *   destroying one in either process does not touch the other's.
 *
 * CALLBACKS MUST RETURN
 *   Every callback (create, destroy, set, release) must return to the library. A C++ exception,
 *   a longjmp or any other unwinding out of a callback skips the library's frames without their
 *   clean-up: what was built for that create leaks, and the thread stays marked as inside a
 *   create for good, so objects the library defers until no create can reach them (singletons
 *   replaced by a load, reload or cr_remove_entry, and those of a registry freed later on that
 *   thread) are never destroyed, and retired configs are never freed. Each escape also leaves
 *   one level of create nesting counted on that thread: after CR_LIMIT_CREATE_DEPTH of them (256
 *   by default) every create on that thread, in any registry, fails with CR_ERR_LIMIT ("creates
 *   nested deeper than the create depth limit"). Catch inside the callback,
 *   call cr_report_error with why, and return NULL (create) or non-zero (set). The C++ binding's
 *   register_class does exactly this for every callable it wraps.
 *
 * LOADING WITH dlopen
 *   The library may be opened with dlopen (it uses ~100 bytes of the static TLS space glibc keeps
 *   for such libraries). dlclose never unloads it (it is linked -z nodelete): threads that used it
 *   release their per-thread records when they exit, whenever that is. A later dlopen gets the same
 *   library, with its state (cr_shared() included).
 */
#ifndef CONTROLLERREG_H
#define CONTROLLERREG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Library version, as numbers, as "MAJOR.MINOR.PATCH" and as one number
 *  (MAJOR * 1000000 + MINOR * 1000 + PATCH, as SQLITE_VERSION_NUMBER). The one source is CMake's
 *  `project(controllerreg VERSION ...)`; a test fails when these disagree with it. The major version
 *  is the SONAME's (libcontrollerreg.so.1): it changes only when a declaration here changes
 *  incompatibly. */
#define CR_VERSION_MAJOR 1
#define CR_VERSION_MINOR 0
#define CR_VERSION_PATCH 0
#define CR_VERSION_STRING "1.0.0"
#define CR_VERSION_NUMBER 1000000

/** The library's version string at run time (e.g. "1.0.0"); static storage. Compare it with
 *  CR_VERSION_STRING to tell the library a program runs with from the header it was built with. */
const char *cr_version(void);

/** The library's version at run time as CR_VERSION_NUMBER (e.g. 1000000 for 1.0.0). */
int cr_version_number(void);

/* ------------------------------------------------------------------------------------------ */
/* Status codes                                                                                */

/** Status codes returned by functions and by cr_last_error_code(). Values never change. */
typedef enum {
    CR_OK = 0,                       /**< success */
    CR_ERR_INVALID_ARGUMENT = 1,     /**< NULL pointer, unknown enum value, value of the wrong shape */
    CR_ERR_IO = 2,                   /**< a file could not be read (missing, directory, FIFO, permission) */
    CR_ERR_SYNTAX = 3,               /**< malformed YAML/JSON/plist, invalid UTF-8 */
    CR_ERR_SCHEMA = 4,               /**< well-formed but not a valid config (unknown key, wrong type, ...) */
    CR_ERR_DUPLICATE = 5,            /**< same key twice in a map, or an entry name defined twice */
    CR_ERR_MISSING_REFERENCE = 6,    /**< a dependency names an entry that does not exist */
    CR_ERR_CYCLE = 7,                /**< references form a cycle; the message names the whole path */
    CR_ERR_NOT_FOUND = 8,            /**< cr_create of a name that is not an entry */
    CR_ERR_CLASS_NOT_REGISTERED = 9, /**< an entry's class has not been registered */
    CR_ERR_CLASS_EXISTS = 10,        /**< cr_register_class with a name already registered */
    CR_ERR_CREATE_FAILED = 11,       /**< a create callback returned NULL */
    CR_ERR_TYPE = 12,                /**< a value accessor used on a value of another kind */
    CR_ERR_LIMIT = 13,               /**< a limit (size, depth, count) was exceeded */
    CR_ERR_NO_MEMORY = 14,           /**< memory could not be allocated */
    CR_ERR_ENVIRONMENT = 15,         /**< an environment variable a config uses (${NAME}, {Env: NAME}) is
                                          not set and has no default, or does not convert to its Type */
    CR_ERR_LIFETIME = 16             /**< a singleton reaches a graph entry through object references */
} cr_status;

/** Code of the last failing call on this thread, or CR_OK if none since cr_clear_error(). For a
 *  failure with several problems (see cr_last_error_problem), the lowest-numbered of their codes,
 *  so it does not depend on the order of lines in a config. */
int cr_last_error_code(void);

/** Message of the last failing call on this thread; "" if none. Never NULL. Valid until the next
 *  failing call or cr_clear_error() on this thread. The call's problems flattened to text:
 *  "file:line:column: message" (or the message alone when it has no place), one per line, after a
 *  "N problems:" line when there are several; past 101 problems, the first 100 and a last line
 *  "  K more problems not listed (the first 100 are; the error's list of problems holds every
 *  one)". To read every problem and its parts, use cr_last_error_problem. */
const char *cr_last_error_message(void);

/** One problem of the last failing call (a failed load may have many; other calls have one). All
 *  strings are NUL-terminated UTF-8 owned by the library, valid until the next failing call or
 *  cr_clear_error() on the same thread. */
typedef struct cr_problem {
    int code;               /**< the cr_status of this problem */
    const char *file;       /**< the config file (or a cr_load_string's source_name); "" when the
                                 problem has no place (e.g. a create failure). Never NULL. */
    uint32_t line;          /**< 1-based line; 0 when unknown (and for binary plists) */
    uint32_t column;        /**< 1-based column; 0 when unknown; a binary plist's byte offset */
    const char *message;    /**< the problem alone, without "file:line:column: ". Never NULL. */
    const char *suggestion; /**< the name probably meant (the "did you mean"), or NULL */
} cr_problem;

/** The number of problems of this thread's last failing call: at least 1 after a failure, 0 if no
 *  call failed since cr_clear_error(). Thread-safe (per-thread state). */
size_t cr_last_error_count(void);

/** Problem `index` (0 .. cr_last_error_count() - 1) of this thread's last failing call, in the order
 *  of cr_last_error_message (by place; problems without one last), or NULL when `index` is out of
 *  range (not an error: the record is left as it is). Every problem of the call, those the message
 *  does not list too; the records (and their messages) are written at the first call for any of
 *  them. The pointer and its strings are the library's, valid until the next failing call or
 *  cr_clear_error() on this thread. */
const cr_problem *cr_last_error_problem(size_t index);

/** Resets this thread's error record to CR_OK, "" and no problems. */
void cr_clear_error(void);

/** A failure kept apart from the thread's last error (what a binding's exception holds): its code,
 *  message and every problem, the caller's until cr_error_free. Nothing changes it: not a later
 *  failing call or cr_clear_error() on any thread, not freeing the registry that failed. It may be
 *  read from any thread, at once too. Its problem records are the same the thread's last error
 *  gives (one writer for both), written at the first cr_error_problem or cr_last_error_problem
 *  for any of them; taking a cr_error writes none. */
typedef struct cr_error cr_error;

/** This thread's last error as a cr_error of its own (free it with cr_error_free), or NULL when
 *  the thread has none (cr_last_error_code() is CR_OK) or memory ran out. The thread's record is
 *  left as it is: cr_last_error_message and cr_last_error_problem read the same failure until the
 *  next failing call. Costs a copy of the message; no problem record is written. */
cr_error *cr_last_error_keep(void);

/** The failure's code, as cr_last_error_code() gave it; CR_OK for a NULL error. */
int cr_error_code(const cr_error *error);

/** The failure's message, as cr_last_error_message() gave it (the first 100 problems, the rest
 *  counted); "" for a NULL error. Never NULL; valid until cr_error_free(error). */
const char *cr_error_message(const cr_error *error);

/** The number of the failure's problems, as cr_last_error_count() gave it; 0 for a NULL error. */
size_t cr_error_count(const cr_error *error);

/** Problem `index` (0 .. cr_error_count(error) - 1) of the failure, the record
 *  cr_last_error_problem(index) gives for it, or NULL when `index` is out of range or `error` is
 *  NULL. The record and its strings are valid until cr_error_free(error). Thread-safe: the first
 *  call writes every record once (under the error's lock); later calls only read them. */
const cr_problem *cr_error_problem(const cr_error *error, size_t index);

/** Frees a cr_error (NULL is ignored). Its records and strings are gone with it. */
void cr_error_free(cr_error *error);

/** A short fixed name for a status code ("cycle", "syntax error", ...); static storage. */
const char *cr_status_name(int status);

/** From inside a create or set callback that is about to fail: attach `message` (copied) to the
 *  error of the call that invoked the callback. Ignored outside callbacks' failures; NULL and ""
 *  are ignored (the error then says the callback returned NULL, or keeps an earlier report).
 *  `message` is read as UTF-8: a byte that is not part of valid UTF-8 shows as U+FFFD. */
void cr_report_error(const char *message);

/* ------------------------------------------------------------------------------------------ */
/* Handles and enums                                                                           */

/** A registry of classes and entries. Opaque. */
typedef struct cr_registry cr_registry;

/** A value: props you build, or arguments you read. Opaque. */
typedef struct cr_value cr_value;

/** Config formats. CR_FORMAT_AUTO picks by file extension (.json, .yaml/.yml, .plist), else by
 *  content: "bplist" or '<' is a plist, '{' or '[' is JSON, anything else is YAML. */
typedef enum { CR_FORMAT_AUTO, CR_FORMAT_JSON, CR_FORMAT_YAML, CR_FORMAT_PLIST } cr_format;

/** Value kinds. CR_PROVIDER (a factory for an entry, see cr_value_provider) follows the contract's eight. */
typedef enum { CR_NULL, CR_BOOL, CR_INT, CR_DOUBLE, CR_STRING, CR_LIST, CR_MAP, CR_OBJECT, CR_PROVIDER } cr_kind;

/** Entry lifestyles (`Lifestyle:` in configs). */
typedef enum {
    CR_LIFESTYLE_TRANSIENT = 0, /**< a new object per create, owned by whoever receives it (default) */
    CR_LIFESTYLE_SINGLETON = 1, /**< one object per registry, built once on first use, owned by the registry */
    CR_LIFESTYLE_GRAPH = 2      /**< one object shared within a single create call */
} cr_lifestyle;

/** A factory for one entry, injected instead of an object (`{Provider: Name}` in configs). Opaque. */
typedef struct cr_provider cr_provider;

/** Who owns an object found in a value (see OWNERSHIP above). */
typedef enum {
    CR_OWNER_NONE = 0,     /**< not an object */
    CR_OWNER_RECEIVER = 1, /**< built for this call: the callback's once read, else destroyed after it */
    CR_OWNER_REGISTRY = 2, /**< the registry keeps it (e.g. a singleton): never destroy it */
    CR_OWNER_CALLER = 3,   /**< came from the caller's props: the caller keeps it */
    CR_OWNER_SHARED = 4    /**< a graph object another receiver of this create got first: do not destroy */
} cr_owner;

/** A host class: the callbacks the registry uses to build, destroy and configure objects.
 *  Initialise with designated initialisers. Fields are only ever appended, and each later field is
 *  read only when `version` says the struct has it (as sqlite3_io_methods.iVersion), so a host built
 *  against this header keeps working with later libraries. */
typedef struct cr_class {
    /** Required. Builds an object from `args` (never NULL: a CR_MAP of resolved dependencies merged
     *  with props, props winning on the same key). Return NULL to fail (cr_report_error explains). */
    void *(*create)(const cr_value *args, void *user_data);
    /** Optional. Destroys an object this class created (used to roll back failed creates and by the
     *  registry for objects it owns). Without it, such objects are not freed by the library. */
    void (*destroy)(void *object, void *user_data);
    /** Optional. Sets one key on an existing object (injection into objects made elsewhere).
     *  Return 0 on success, non-zero to fail. */
    int (*set)(void *object, const char *key, const cr_value *value, void *user_data);
    /** Optional. Called once when the registry no longer needs `user_data` (registry freed or class
     *  replaced), so the host can free it. */
    void (*release)(void *user_data);
    /** The layout of this struct: 0 or CR_CLASS_VERSION (1) mean the fields above (0 is what
     *  designated initialisers leave, so hosts need not set it). A larger version, from a header
     *  newer than the library, is refused with CR_ERR_INVALID_ARGUMENT (the message names the
     *  version the library knows); the class is then not registered and its release is called. */
    unsigned int version;
} cr_class;

/** The cr_class layout this header describes. */
#define CR_CLASS_VERSION 1

/* ------------------------------------------------------------------------------------------ */
/* Registries and classes                                                                      */

/** A new empty registry, or NULL (CR_ERR_NO_MEMORY). Free with cr_registry_free. */
cr_registry *cr_registry_new(void);

/** Frees a registry: destroys its singletons (in reverse order of creation), releases its classes
 *  (calling their release callbacks) and entries. Objects already created and returned to callers
 *  are not touched. NULL is ignored; the shared registry is never freed (the call is ignored and
 *  reports CR_ERR_INVALID_ARGUMENT).
 *
 *  From a callback (as sqlite3_close_v2 with statements still open): the registry is emptied at
 *  once (later creates and loads on it fail), but when the calling thread is inside a create, of
 *  this registry or any other (a create or destroy callback), the singletons are destroyed, the
 *  classes released and the memory freed only when that thread's outermost create returns, so the
 *  creates still running never touch freed memory; the handle must not be used after the call.
 *  Freed again while its own teardown runs (from one of its destroy or release callbacks): the
 *  second call is ignored with CR_ERR_INVALID_ARGUMENT. If a create on another thread is still
 *  inside the registry (a race the caller should not make), the registry's memory is kept until
 *  that create returns, but its singletons are destroyed at once.
 *
 *  Memory: the registry's largest block (its entry arena, when 256 KiB or more) is not returned to
 *  the system at once but kept, resident, for the next load's arena, so a host that loads again
 *  does not fault the same pages in again; the end of the next load (successful or not, on any
 *  registry) gives back whatever that load did not take. At most one such block is kept per
 *  process, never larger than the largest registry freed; a forked child does not use its
 *  parent's. Valgrind lists it as still reachable until then. */
void cr_registry_free(cr_registry *reg);

/** The process-wide default registry, created on first use and never freed (cr_registry_free
 *  refuses it, and closing it from Swift does nothing: every part of the process shares it). Never
 *  NULL. */
cr_registry *cr_shared(void);

/** A new child of `parent`: names, classes and name templates fall back to the parent, and what
 *  the child defines (entries, classes) overrides the parent's for creates made through the child
 *  (the test-override pattern). A singleton lives in the registry whose entry defines it. A change
 *  to the parent that would break a child (e.g. removing an entry the child refers to) fails. A
 *  child's own singleton stays one object across every change of its parent (load, override,
 *  removal, class registered, reload) that does not reach it; one that reaches a changed entry is
 *  built again.
 *  Freeing the child never disturbs the parent; free children before their parent. A child still
 *  open when its parent is freed is closed with it, before the parent's singletons are destroyed
 *  (its own singletons, which may hold the parent's, are destroyed first; grandchildren too): every
 *  later call on it fails with CR_ERR_INVALID_ARGUMENT ("its parent registry was freed first"),
 *  and its handle must still be freed with cr_registry_free. NULL on error. */
cr_registry *cr_registry_new_child(cr_registry *parent);

/** Limits a registry enforces; each exceeded limit is reported as CR_ERR_LIMIT naming it. */
typedef enum {
    CR_LIMIT_INPUT_BYTES = 0,     /**< largest config accepted, in bytes (default 256 MiB) */
    CR_LIMIT_DEPTH = 1,           /**< deepest nesting of lists and maps in a config (default 128) */
    CR_LIMIT_NODES = 2,           /**< most values in one config, aliases expanded (default 16 Mi) */
    CR_LIMIT_STRING_BYTES = 3,    /**< longest string or key in a config, and longest name given to a
                                       function, in bytes (default 16 MiB) */
    CR_LIMIT_ALIAS_EXPANSION = 4, /**< most values YAML aliases, or the copies of a binary plist's shared
                                       containers (objects referenced more than once), may add
                                       (default 100,000) */
    CR_LIMIT_ENTRIES = 5,         /**< most entries in the registry (default 10,000,000); only a change
                                       that adds names is refused by it, so a registry over a lowered
                                       limit can still remove and replace entries */
    CR_LIMIT_CREATE_DEPTH = 6     /**< deepest chain of references one create builds (default 256) */
} cr_limit;

/** Sets a limit (value >= 1) for later loads and creates on `reg`. A child starts with its parent's.
 *  A `limit` that is not a cr_limit is CR_ERR_INVALID_ARGUMENT, the message showing it as a signed
 *  number and naming the range (CR_LIMIT_INPUT_BYTES to CR_LIMIT_CREATE_DEPTH). */
int cr_registry_set_limit(cr_registry *reg, cr_limit limit, int64_t value);

/** The current value of a limit, or -1 (with an error) for a bad argument or a closed registry. */
int64_t cr_registry_get_limit(cr_registry *reg, cr_limit limit);

/** Builds every eager singleton (`Eager: true`), each after its dependencies, in definition order.
 *  Stops at the first failure, whose message names the entry ("cr_registry_start: eager singleton
 *  'S' failed: cannot create 'S': ..."). Singletons are destroyed in reverse order of creation by
 *  cr_registry_free. */
int cr_registry_start(cr_registry *reg);

/** Registers `cls` (copied; `create` required) under `class_name` with `user_data` passed to every
 *  callback. Registering a name that is already registered fails with CR_ERR_CLASS_EXISTS and
 *  changes nothing; use cr_replace_class to replace on purpose. On failure the class's release
 *  callback (if any) is called for `user_data`. */
int cr_register_class(cr_registry *reg, const char *class_name, const cr_class *cls, void *user_data);

/** Like cr_register_class, but replaces a class already registered under `class_name` (the old
 *  class's release callback runs once no create can still be using it). */
int cr_replace_class(cr_registry *reg, const char *class_name, const cr_class *cls, void *user_data);

/** Adds a class-name template containing "{name}", such as "{name}ViewController". A name that is
 *  neither an entry nor a registered class is tried against each template in the order added: the
 *  template's text, byte for byte, with the name in place of "{name}". A template holds "{name}"
 *  exactly once, with other text around it, and no other '{' or '}' (braces are kept for
 *  placeholders: "{Name}", "{kind}", "{name" or "{name}}" would be typos); "", a template without
 *  "{name}", "{name}" alone (the class of the name itself, already tried before any template) and
 *  "{name}{name}" are CR_ERR_INVALID_ARGUMENT too, the message saying which and the fix, and add
 *  nothing.
 *  Precedence: entry, then a class of exactly that name, then the templates in order. Objects made
 *  this way get the props (or an empty map) as their args. A template added again (to this
 *  registry, or already its parent's) keeps its first place: it is tried, and named in "not
 *  found" messages, once. */
int cr_add_name_template(cr_registry *reg, const char *name_template);

/* ------------------------------------------------------------------------------------------ */
/* Loading configs                                                                             */

/** Load flag: names that already exist are replaced instead of being an error. With it, an entry
 *  whose name exists replaces it, and references to the name reach the new definition; the whole
 *  graph is validated again (cycles, missing references). A replaced entry does not count again
 *  toward CR_LIMIT_ENTRIES. The object of a replaced singleton (as of one cr_remove_entry removes)
 *  is destroyed (its class's destroy) once no create that began before the change is still
 *  running: at the end of the load when none is, else at the next change or when the registry is
 *  freed; a pointer to it must not be used after the load. One that another singleton already
 *  built reaches through object references is kept until the registry is freed (that object may
 *  hold it; cr_registry_reload rebuilds both). */
#define CR_LOAD_OVERRIDE 1u

/** The cr_load_options layout this header describes (2: `environment` appended; version-1 structs,
 *  which end at `source_name`, are still accepted and use the process environment). */
#define CR_LOAD_OPTIONS_VERSION 2

/** Options of cr_load_file_with, cr_load_files_with and cr_load_string_with. Initialise with
 *  CR_LOAD_OPTIONS_INIT, then set fields; fields are only ever appended, read according to
 *  `version` (as libgit2's options structs). The library does not keep the struct or its strings
 *  past the call. */
typedef struct cr_load_options {
    /** CR_LOAD_OPTIONS_VERSION. 0, or a version newer than the library knows, is
     *  CR_ERR_INVALID_ARGUMENT (the message names the version the library supports). */
    unsigned int version;
    /** The config format; CR_FORMAT_AUTO (the default) decides by extension, then by content. */
    cr_format format;
    /** 0 (the default) or CR_LOAD_OVERRIDE; other bits are CR_ERR_INVALID_ARGUMENT. */
    unsigned int flags;
    /** cr_load_string_with only: the file name used in every location of its problems
     *  ("<string>" when NULL, the default, or ""). Ignored by the file loaders (they use the path).
     *  Messages show it as written, on one line (name:line:column), so every loader refuses one that
     *  is not valid UTF-8 or holds a control character (U+0000-U+001F, U+007F-U+009F) or U+2028 /
     *  U+2029 (it could forge message lines) with CR_ERR_INVALID_ARGUMENT naming the character's
     *  byte; it is never shown escaped. */
    const char *source_name;
    /** (version 2) The environment `${NAME}`, `${NAME:-default}` and `{Env: NAME, Type: T,
     *  Default: D}` in the config are resolved against: a CR_MAP of CR_STRING (variable name to
     *  value), used instead of the process environment (which is then not consulted at all). NULL
     *  (the default) = the process environment, read during the call. Anything but a map of strings
     *  is CR_ERR_INVALID_ARGUMENT (nothing is read then), and so is a name a config could never
     *  reference: one that is not a variable name as `${NAME}` and {Env: NAME} read it
     *  ([A-Za-z_][A-Za-z0-9_]*: not "", "1BAD", "A=B"); the message names it and the rule. Borrowed for the call; the caller frees it.
     *  A variable that is unset without a default, whose value does not convert to its Type, or (in
     *  the process environment) whose value is not valid UTF-8, is CR_ERR_ENVIRONMENT with the place
     *  of its use (see README "Environment values"). */
    const cr_value *environment;
} cr_load_options;

/** The default load options: CR_FORMAT_AUTO, no flags, source "<string>", process environment. */
#define CR_LOAD_OPTIONS_INIT \
    { CR_LOAD_OPTIONS_VERSION, CR_FORMAT_AUTO, 0u, NULL, NULL }

/** Reads and loads the config file at `path` (UTF-8: a path that is not is CR_ERR_INVALID_ARGUMENT
 *  and nothing is opened, since repairing it would name another file). All problems in the file are reported at once (one
 *  per line of the message); if any is found nothing is loaded and the registry is unchanged.
 *  Messages and places show the path as given, except that a control character in it (C0, DEL,
 *  C1, U+2028/U+2029: a newline could forge message lines) is shown as "\u{A}" (its code point in
 *  hex); the file itself is opened, and reloaded, by its real path.
 *  A dependency key (or a key of a map inside a dependency) holding a NUL byte (JSON "\u0000",
 *  YAML "\0") is CR_ERR_SCHEMA at its place: cr_map_get could never find it.
 *  Entries may refer to entries loaded before; defining a name that already exists is
 *  CR_ERR_DUPLICATE. Directories, FIFOs, devices and unreadable files are CR_ERR_IO.
 *  Memory: a load of 256 KiB of text or more keeps its temporaries (about as much again as the
 *  registry keeps) in an anonymous mapping of their own, in transparent huge pages on Linux, and
 *  unmaps it before returning; nothing of it stays. A registry's compiled plans (when its entries'
 *  records hold 4 MiB or more) and rows (2 MiB of them or more) are in mappings of their own too,
 *  in huge pages, trimmed to what they hold: RSS counts them, malloc's statistics do not. */
int cr_load_file(cr_registry *reg, const char *path, cr_format format);

/** Loads several files as one transaction: they may refer to each other, and either all apply or
 *  none does. `format` applies to each (CR_FORMAT_AUTO decides per file). */
int cr_load_files(cr_registry *reg, const char *const *paths, size_t count, cr_format format);

/** Loads config text of `length` bytes (need not be NUL-terminated). Same rules as cr_load_file;
 *  locations name the file "<string>". CR_FORMAT_AUTO sniffs the content. A length above
 *  CR_LIMIT_INPUT_BYTES (any length, up to SIZE_MAX) is CR_ERR_LIMIT, without reading the text. */
int cr_load_string(cr_registry *reg, const char *text, size_t length, cr_format format);

/** cr_load_file with options (NULL = CR_LOAD_OPTIONS_INIT). Same results and errors, plus
 *  CR_ERR_INVALID_ARGUMENT for a bad options version, format or flags (nothing is read then). */
int cr_load_file_with(cr_registry *reg, const char *path, const cr_load_options *options);

/** cr_load_files with options (NULL = CR_LOAD_OPTIONS_INIT): `count` files as one transaction. */
int cr_load_files_with(cr_registry *reg, const char *const *paths, size_t count, const cr_load_options *options);

/** cr_load_string with options (NULL = CR_LOAD_OPTIONS_INIT); `options->source_name` names the text
 *  in every location of its problems (cr_last_error_message and cr_problem.file). */
int cr_load_string_with(cr_registry *reg, const char *text, size_t length, const cr_load_options *options);

/* ------------------------------------------------------------------------------------------ */
/* Reloading                                                                                   */

/** Reads again every file loaded into `reg` and rebuilds the registry from what it was given, in
 *  order, validated whole, in one atomic swap. Returns CR_OK, or a status with nothing changed.
 *
 *  What is replayed: every successful load and code change, over an empty table, as the same calls
 *  would build it today. Files are read again with the same paths (a relative path is resolved
 *  against the directory that was current when it was loaded, so a host that changes directory
 *  reloads the same file), formats and flags; files loaded together (cr_load_files) stay
 *  one transaction. Config text (cr_load_string) and entries added or removed from code
 *  (cr_add_entry, cr_remove_entry) are applied again as they were: the registry keeps what they
 *  gave. Environment values are resolved again: a load given an options->environment map gets the
 *  same map again; one that used the process environment reads it again now (a variable that
 *  changed makes its entries changed; one now missing is CR_ERR_ENVIRONMENT). References may reach
 *  entries any replayed call defines, later ones included: the whole result is what is validated.
 *  Class registrations and name templates are not touched. A registry with nothing loaded reloads
 *  to itself.
 *
 *  Errors: every problem of the whole result is reported at once, as for a load (a file that can
 *  no longer be read is CR_ERR_IO, naming it; then syntax, schema, duplicate names, missing
 *  references, cycles, ...); the status is the lowest-numbered code among them. On any problem
 *  nothing changes: entries, singletons and children stay exactly as they were.
 *
 *  Singletons: an entry is changed when its definition differs in anything but source locations,
 *  or when an environment value it uses resolves differently;
 *  a singleton whose definition is the same but whose object reaches, through object references
 *  (not providers), an added, removed or changed entry counts as changed too (it holds objects
 *  built from the old config). Singletons of changed and removed entries are destroyed (their
 *  class's destroy callback, in reverse order of creation among them, never under a registry
 *  lock) once no create that began before the swap is still running: at the end of the reload
 *  when none is, else at the next change to the registry, or when it is freed. A pointer to such
 *  a singleton must not be used after the reload. Unchanged singletons keep their objects. Eager
 *  singletons of new entries are built by the next cr_registry_start.
 *
 *  Children: a parent's reload is a change of the parent: each child is revalidated (a reload
 *  that would break a child is refused, changing nothing) and recompiled over the new parent,
 *  keeping its own unchanged singletons by the same rule. The singletons it drops are destroyed
 *  deepest registry first (a grandchild's, which may hold its parent's, before the child's; the
 *  reloaded registry's last), as when the parent is freed. A child's reload reads the child's own
 *  files again, not its parent's.
 *
 *  Thread-safety: may be called while other threads create from `reg` or its children; each
 *  create sees the registry before or after the reload, never a mix. Reloads and loads of one
 *  registry are serialised. May be called from a create callback (the singletons that create can
 *  reach are destroyed after it ends). */
int cr_registry_reload(cr_registry *reg);

/** cr_registry_reload, reporting what changed: on success `*changes` receives a new CR_MAP with
 *  keys "added", "removed" and "changed", each a CR_LIST of entry names (CR_STRING) sorted
 *  byte-wise; the caller frees it with cr_value_free. A child lists its whole view (its parent's
 *  entries and its own). On failure `*changes` is set to NULL and nothing changed. `changes` NULL
 *  is CR_ERR_INVALID_ARGUMENT (nothing is reloaded). */
int cr_registry_reload_with(cr_registry *reg, cr_value **changes);

/* ------------------------------------------------------------------------------------------ */
/* Entries from code                                                                           */

/** The deepest a dependency value may nest below its entry's dependencies map (lists and maps in
 *  lists and maps), in a config or from cr_add_entry: a fixed bound, not a cr_limit (the walks over
 *  entries recurse once per level); deeper is CR_ERR_LIMIT. Props a host builds may nest deeper;
 *  the Python binding, which converts values recursively, holds props to it too. */
#define CR_VALUE_NESTING_MAX 256

/** Adds one entry: `name`, built from `class_name`, with `lifestyle` and `dependencies` (a CR_MAP
 *  or NULL, read with the config's rules: "@text" is a literal, any other string a reference, a map
 *  {"Provider": "Name"} a provider, {"Tagged": "tag"} (or an integer tag) a CR_LIST of the objects
 *  of every entry tagged so, ordered by entry name, {"Optional": "Name"} the object of Name or
 *  CR_NULL when there is no such entry, {"Env": "NAME", "Type": "int", "Default": 1} an environment
 *  value; objects are not allowed; at most CR_VALUE_NESTING_MAX levels deep). "${NAME}" in
 *  literals and Env values are resolved against the process environment, read during the call
 *  (CR_ERR_ENVIRONMENT as for a load, without a place). Validated like a file (missing
 *  references, cycles, duplicate names, CR_ERR_LIFETIME for a singleton reaching a graph entry);
 *  on failure nothing changes. Adding or removing an entry makes the tagged lists and optional
 *  references of the others follow.
 *  Cost: adding an entry costs about the size of that entry, whatever the size of the registry
 *  (amortized; 8,000 calls one at a time: ~0.15 s, where they took ~11 s when each call rebuilt the
 *  registry): it is validated against the entries it refers to, and its row is written past the
 *  rows creates on other threads are reading. The same holds with child registries: a parent's
 *  add extends each child's view by the entry (validated there too), and an add to a child that
 *  defines a name new to it costs that entry. A singleton added walks only what it reaches (the
 *  lifetime rule). Removals cost about the same (see cr_remove_entry). What still costs the
 *  registry's size: an add that replaces an entry (a child's override of its parent's, or a load
 *  with CR_LOAD_OVERRIDE), and an add or a removal that changes the {"Tagged": t} lists or
 *  {"Optional": X} targets of existing entries (they are compiled again) rebuild the registry's
 *  table, and then compile each child registry again whole; so do a class registered on a parent
 *  and a reload. The entries with {"Tagged": t} or {"Optional": X} values that an add or a
 *  removal changes are found through an index of those values by tag and name (built at the
 *  first change that asks, in time in the number of such entries, and again after a change that
 *  rebuilds the table), not by reading each; an added entry with an environment value or such a
 *  value copies the registry's list of those entries, and an added singleton each child's list
 *  of the singletons it takes from its parent.
 *  Loading many entries as one config (cr_load_string) is still cheaper per entry: one change for
 *  all. */
int cr_add_entry(cr_registry *reg, const char *name, const char *class_name, cr_lifestyle lifestyle,
                 const cr_value *dependencies);

/** The cr_entry_options layout this header describes. */
#define CR_ENTRY_OPTIONS_VERSION 1

/** Options of cr_add_entry_with: what a config's entry may say besides its class. Initialise with
 *  CR_ENTRY_OPTIONS_INIT, then set fields; fields are only ever appended, read according to
 *  `version`. Borrowed for the call. */
typedef struct cr_entry_options {
    /** CR_ENTRY_OPTIONS_VERSION. 0, or a version newer than the library knows, is
     *  CR_ERR_INVALID_ARGUMENT (the message names the version the library supports). */
    unsigned int version;
    /** The lifestyle (`Lifestyle:`); CR_LIFESTYLE_TRANSIENT by default. */
    cr_lifestyle lifestyle;
    /** The dependencies, as cr_add_entry's `dependencies` (a CR_MAP or NULL). */
    const cr_value *dependencies;
    /** Free text for people and tools (`Description:`), or NULL. */
    const char *description;
    /** The tags (`Tag:`): NULL for none, a CR_STRING or CR_INT for one, or a CR_LIST of them.
     *  Anything else is CR_ERR_INVALID_ARGUMENT; an empty string (or one holding a NUL byte), which
     *  no {Tagged: t} could name, is CR_ERR_SCHEMA as in a config. */
    const cr_value *tags;
    /** Non-zero: an eager singleton, built by cr_registry_start (`Eager: true`); only with
     *  CR_LIFESTYLE_SINGLETON (else CR_ERR_INVALID_ARGUMENT). */
    int eager;
} cr_entry_options;

/** The default entry options: transient, no dependencies, description or tags, not eager. */
#define CR_ENTRY_OPTIONS_INIT \
    { CR_ENTRY_OPTIONS_VERSION, CR_LIFESTYLE_TRANSIENT, NULL, NULL, NULL, 0 }

/** cr_add_entry with options (NULL = CR_ENTRY_OPTIONS_INIT): the same rules and errors, plus
 *  the entry's description, tags and Eager flag, so an entry added from code can say everything a
 *  config's can (its tags join {Tagged: t} lists as a loaded entry's do). */
int cr_add_entry_with(cr_registry *reg, const char *name, const char *class_name, const cr_entry_options *options);

/** Removes an entry. Fails, changing nothing, if another entry refers to it (the message names it)
 *  or it does not exist. A child cannot remove what its parent defines. A removed singleton's
 *  object is destroyed as a replaced one is (see CR_LOAD_OVERRIDE).
 *  Cost: removing an entry costs about that entry, whatever the size of the registry (amortized;
 *  4,000 removals one at a time from a registry with a child: ~0.14 s, where they took ~19 s
 *  when each rebuilt the registry and compiled the child again): the entries that refer to it
 *  are found through an index of references (built at the first removal, in time in the
 *  registry's size, and again after a change that rebuilds the table), and its row is hidden, not
 *  copied away: creates that already found it finish with it, and one that reaches it later
 *  through an {"Optional": X} value or a {"Tagged": t} list (on any thread, or in the create's
 *  own callbacks; through a child too) gets null or one member fewer, never an error. A parent's removal removes the entry
 *  from each child's view the same way (refused if the child's own entries refer to it); a
 *  child's removal of its own entry goes through the child's own definitions once. The rows of
 *  removed entries are kept (their names found no more) until a change copies the table. What
 *  still costs the registry's size is as for cr_add_entry: a removal that changes other
 *  entries' {"Tagged": t} lists or {"Optional": X} targets (they are compiled again, and each
 *  child whole), or that brings back a parent's entry a child had overridden. */
int cr_remove_entry(cr_registry *reg, const char *name);

/** Every entry, for tools: a new CR_LIST (the caller frees it with cr_value_free) of CR_MAPs with
 *  keys "name", "class", "lifestyle" (strings), and "description" and "tag" when set ("tag" is the
 *  first tag; "tags" is a CR_LIST of every tag, a CR_STRING or CR_INT each, when it has any). A
 *  child lists its parent's entries too, with its own overrides. NULL on error: CR_ERR_INVALID_ARGUMENT
 *  for NULL and for a closed registry (freed, from a callback that still holds the handle, or
 *  closed with its parent), which has no entries to list. */
cr_value *cr_registry_entries(cr_registry *reg);

/* ------------------------------------------------------------------------------------------ */
/* Creating objects                                                                            */

/** Builds the entry `name` on `reg`: dependencies first (depth-first), then the class's create with
 *  the dependencies merged with `props` (a CR_MAP or NULL; borrowed; props win on the same key).
 *  Props are a map the caller built with cr_map_new (or a map inside one): a callback's `args`, or
 *  a map inside them, handed on as props is CR_ERR_INVALID_ARGUMENT (its objects are that
 *  callback's receiver's, and a second receiver would own them too): copy the values to pass on
 *  into a new map.
 *  Returns the new object, owned by the caller, or NULL: CR_ERR_NOT_FOUND (unknown name),
 *  CR_ERR_CLASS_NOT_REGISTERED (message names class and entry), CR_ERR_CREATE_FAILED (a create
 *  returned NULL: "cannot create 'A' (A -> B): create of class 'C' for entry 'B' (defined at
 *  app.yaml:3:1): <what its callback reported with cr_report_error>"; the place only for an entry
 *  loaded from a config, in the message, not in cr_problem's file, line and column), CR_ERR_LIMIT
 *  (nesting too deep), CR_ERR_INVALID_ARGUMENT. On failure every object already built for the call
 *  has been destroyed. */
void *cr_registry_create(cr_registry *reg, const char *name, const cr_value *props);

/** cr_registry_create on the shared registry (cr_shared()). */
void *cr_create(const char *name, const cr_value *props);

/** How to destroy an object without knowing its class: call destroy(object, user_data) when destroy
 *  is not NULL (it is the class's destroy callback and user_data). Valid while the class stays
 *  registered: not after cr_replace_class of that name, nor after the registry is freed. */
typedef struct cr_destroyer {
    void (*destroy)(void *object, void *user_data);
    void *user_data;
} cr_destroyer;

/** The cr_create_options layout this header describes. */
#define CR_CREATE_OPTIONS_VERSION 1

/** Options of cr_registry_create_with and cr_provider_create_with. Initialise with
 *  CR_CREATE_OPTIONS_INIT, then set fields; fields are only ever appended, read according to
 *  `version`. The out-pointers are written on success and on failure alike (but not when the
 *  options themselves are refused: an unknown version). */
typedef struct cr_create_options {
    /** CR_CREATE_OPTIONS_VERSION. 0, or a version newer than the library knows, is
     *  CR_ERR_INVALID_ARGUMENT (the message names the version the library supports). */
    unsigned int version;
    /** Props (a CR_MAP from cr_map_new, as cr_registry_create's; borrowed for the call), or NULL
     *  for none. A singleton takes no props:
     *  non-empty props for one are CR_ERR_INVALID_ARGUMENT. */
    const cr_value *props;
    /** Out, optional: CR_OWNER_REGISTRY for a singleton (never destroy it), CR_OWNER_RECEIVER for an
     *  object that is now the caller's; CR_OWNER_NONE on failure. */
    cr_owner *owner;
    /** Out, optional: how to destroy the result (its class's destroy and user_data); {NULL, NULL}
     *  for a singleton, a class without destroy, or on failure. Not after the registry was freed
     *  during the call (from a callback): its classes are released when the call returns, so this
     *  destroy and user_data must not be used (destroy the object by other means). */
    cr_destroyer *destroyer;
} cr_create_options;

/** The default create options: no props, no out-pointers. */
#define CR_CREATE_OPTIONS_INIT \
    { CR_CREATE_OPTIONS_VERSION, NULL, NULL, NULL }

/** cr_registry_create with options (NULL = CR_CREATE_OPTIONS_INIT): same results and errors, and
 *  the result's owner and destroyer when asked for. Thread-safe like cr_registry_create. */
void *cr_registry_create_with(cr_registry *reg, const char *name, const cr_create_options *options);

/** Injects entry `name`'s dependencies into `object`, which the host made itself (e.g. a screen
 *  built by a storyboard), calling its class's set callback once per key in written order. Objects
 *  set reads are taken as in create (see OWNERSHIP); the rest are destroyed. A class without set is
 *  CR_ERR_INVALID_ARGUMENT; a set that fails stops the injection with CR_ERR_CREATE_FAILED naming
 *  the key, the class, the entry and where its config defines it ("set of key 'k' of class 'C' for
 *  entry 'E' (defined at app.yaml:3:1) failed: <what set reported>"), and what was built for the
 *  keys not yet set is destroyed. */
int cr_inject(cr_registry *reg, const char *name, void *object);

/** Creates the provider's entry now (any time, also after the create that injected it), with
 *  `props` merged over its dependencies. Same results and errors as cr_registry_create; after its
 *  registry has been freed it fails with CR_ERR_INVALID_ARGUMENT. */
void *cr_provider_create(cr_provider *provider, const cr_value *props);

/** cr_provider_create with options (NULL = CR_CREATE_OPTIONS_INIT), as cr_registry_create_with. */
void *cr_provider_create_with(cr_provider *provider, const cr_create_options *options);

/** The name of the entry a provider creates; valid as long as the provider. */
const char *cr_provider_name(const cr_provider *provider);

/** Frees a provider the host received in args (NULL is ignored). */
void cr_provider_free(cr_provider *provider);

/* ------------------------------------------------------------------------------------------ */
/* Building values (props)                                                                     */

/** A new empty map owned by the caller, or NULL (CR_ERR_NO_MEMORY). */
cr_value *cr_map_new(void);

/** A new empty list owned by the caller, or NULL (CR_ERR_NO_MEMORY). */
cr_value *cr_list_new(void);

/** Set `key` in a map you own to a value (strings are copied; an existing key is replaced).
 *  CR_ERR_INVALID_ARGUMENT for NULL arguments (the message names which: "map is NULL", "key is
 *  NULL", ...; the list functions below say "list is NULL"), a key or string that is not valid UTF-8 (nothing is
 *  set), or a value that is not a map you own (arguments are read-only). */
int cr_map_set_null(cr_value *map, const char *key);
int cr_map_set_bool(cr_value *map, const char *key, int value);
int cr_map_set_int(cr_value *map, const char *key, int64_t value);
int cr_map_set_double(cr_value *map, const char *key, double value);
int cr_map_set_string(cr_value *map, const char *key, const char *value);
/** Sets an object pointer; the object is not owned by the map (CR_OWNER_CALLER in args). An object
 *  value always holds an object: a NULL `object` is CR_ERR_INVALID_ARGUMENT (nothing is set; use
 *  cr_map_set_null for no object), as a NULL string is for cr_map_set_string. So cr_value_object's
 *  NULL only ever means "not an object". */
int cr_map_set_object(cr_value *map, const char *key, void *object);
/** Sets `key` to `value`, a map or list from cr_map_new / cr_list_new, taking ownership of it
 *  (even on failure: do not use or free `value` afterwards; so `value` == `map`, refused, frees the
 *  map). */
int cr_map_set_value(cr_value *map, const char *key, cr_value *value);

/** Append to a list you own; same rules as the cr_map_set_* functions (a NULL string or object is
 *  CR_ERR_INVALID_ARGUMENT: use cr_list_push_null). */
int cr_list_push_null(cr_value *list);
int cr_list_push_bool(cr_value *list, int value);
int cr_list_push_int(cr_value *list, int64_t value);
int cr_list_push_double(cr_value *list, double value);
int cr_list_push_string(cr_value *list, const char *value);
int cr_list_push_object(cr_value *list, void *object);
int cr_list_push_value(cr_value *list, cr_value *value);

/** Frees a map or list made by cr_map_new / cr_list_new and everything in it (objects are not
 *  touched). NULL is ignored. Passing a value you do not own (from args) is reported as
 *  CR_ERR_INVALID_ARGUMENT and ignored. */
void cr_value_free(cr_value *value);

/* ------------------------------------------------------------------------------------------ */
/* Reading values (args)                                                                       */
/* Accessors never allocate. Used on NULL they report CR_ERR_INVALID_ARGUMENT, on the wrong kind
 * CR_ERR_TYPE, and return 0 / NULL. */

/** The kind of a value; CR_NULL for NULL. */
cr_kind cr_value_kind(const cr_value *value);

/** The value under `key` in a map, or NULL if absent (not an error) or not a map. The pointer is
 *  valid as long as the map is not modified or freed. Cost: a map from cr_map_new past 32 keys
 *  keeps a hash index, a callback's args that merged such props use it, and args of 64 or more
 *  keys (an entry with many dependencies) get one of their own, so reading every key of an N-key
 *  map costs O(N) in any order (20,000 keys: about a millisecond); a callback reading its
 *  arguments in declared order compares one key per read. */
const cr_value *cr_map_get(const cr_value *map, const char *key);

/** The key at `index` of a map (in order), or NULL. Valid as long as the map. */
const char *cr_map_key_at(const cr_value *map, size_t index);

/** The value at `index` of a map (in order), or NULL. */
const cr_value *cr_map_value_at(const cr_value *map, size_t index);

/** 1 or 0 for CR_BOOL. */
int cr_value_bool(const cr_value *value);

/** The integer of a CR_INT. */
int64_t cr_value_int(const cr_value *value);

/** The number of a CR_DOUBLE, or of a CR_INT converted to double. */
double cr_value_double(const cr_value *value);

/** The NUL-terminated UTF-8 text of a CR_STRING, valid as long as the value. A string may contain
 *  NUL bytes; cr_value_string_length gives the full length. */
const char *cr_value_string(const cr_value *value);

/** The length in bytes of a CR_STRING. */
size_t cr_value_string_length(const cr_value *value);

/** cr_value_string and cr_value_string_length in one call: the text of a CR_STRING, its length in
 *  bytes written to `*length` (0 with NULL for any other value; `length` may be NULL). */
const char *cr_value_string_with_length(const cr_value *value, size_t *length);

/** The object pointer of a CR_OBJECT. Reading a CR_OWNER_RECEIVER object takes it (see OWNERSHIP). */
void *cr_value_object(const cr_value *value);

/** cr_value_object, once: a CR_OWNER_RECEIVER object taken already (by cr_value_object or
 *  cr_value_take_object) gives NULL and CR_ERR_INVALID_ARGUMENT ("taken already"), so a wrapper that
 *  owns what it takes (the C++ binding's Args::take) never owns one object twice. Objects of other
 *  owners are never taken: as cr_value_object. CR_ERR_TYPE for a value that is not an object. */
void *cr_value_take_object(const cr_value *value);

/** Who owns the object of a CR_OBJECT or the provider of a CR_PROVIDER: CR_OWNER_NONE for other
 *  kinds and, like cr_value_kind, for NULL (a question, not a read: no error is recorded). */
cr_owner cr_value_owner(const cr_value *value);

/** cr_value_take_object and cr_value_owner in one call, for a wrapper that owns the objects built
 *  for its receiver and borrows the others (the C++ binding's Args::take): the object, taken if
 *  it is CR_OWNER_RECEIVER, with its owner written to `*owner` (`owner` may be NULL). A second
 *  take of a receiver's object gives NULL, CR_ERR_INVALID_ARGUMENT and `*owner` CR_OWNER_RECEIVER;
 *  a value that is not an object gives NULL, CR_ERR_TYPE (CR_ERR_INVALID_ARGUMENT for NULL) and
 *  CR_OWNER_NONE. */
void *cr_value_take_object_with_owner(const cr_value *value, cr_owner *owner);

/** The provider of a CR_PROVIDER, taken by the reader (see OWNERSHIP): free it with cr_provider_free.
 *  Once: a second read of the same argument gives NULL and CR_ERR_INVALID_ARGUMENT ("taken
 *  already"), so two owners never free one provider (keep the first pointer). */
cr_provider *cr_value_provider(const cr_value *value);

/** Element count of a list or map (string length for strings, 0 otherwise). */
size_t cr_value_count(const cr_value *value);

/** The element at `index` of a list, or NULL if out of range or not a list. */
const cr_value *cr_list_at(const cr_value *list, size_t index);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* CONTROLLERREG_H */
