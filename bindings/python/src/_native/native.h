/* controllerreg._native: the CPython extension over libcontrollerreg's C ABI.
 *
 * How Python objects cross the C boundary: an object a Python factory returns is handed to the
 * library as its PyObject pointer with the low bit set (a "tagged" pointer; the reference the
 * factory's call returned goes with it). A pointer without the tag is an object of a class
 * registered in another language and reaches Python as a controllerreg.ForeignObject.
 * The library gives the reference back through the class's destroy callback (Py_DECREF) or to the
 * receiver that takes the object with cr_value_object (ABI 1.0: taken for good). */
#ifndef CONTROLLERREG_PY_NATIVE_H
#define CONTROLLERREG_PY_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#include "controllerreg.h"

#if PY_VERSION_HEX < 0x03090000
#define PyObject_CallOneArg(callable, arg) PyObject_CallFunctionObjArgs((callable), (arg), NULL)
/* Public from 3.9 on; 3.8 has it under its private name (the subinterpreter checks use it). */
#define PyInterpreterState_Get() _PyInterpreterState_Get()
#endif

#if !defined(CR_VERSION_NUMBER) || CR_VERSION_NUMBER < 1000000
#error "the extension needs the controllerreg 1.0 header (create/load options, cr_problem)"
#endif

/* -- tagged object pointers ------------------------------------------------------------------ */

/** The pointer the library stores for a Python object. */
static inline void *crpy_tag(PyObject *object) { return (void *)((uintptr_t)object | 1u); }
/** The Python object behind a tagged pointer, or NULL for a foreign (untagged) pointer. */
static inline PyObject *crpy_untag(void *pointer) {
    return ((uintptr_t)pointer & 1u) ? (PyObject *)((uintptr_t)pointer & ~(uintptr_t)1u) : NULL;
}

/* -- one create (or inject, or start) call in progress on this thread ------------------------ */

/** Frames nest when a factory calls back into a registry; each thread has its own stack. */
typedef struct crpy_frame {
    struct crpy_frame *outer;
    PyObject *error;      /* the first exception a callback raised (new reference) or NULL */
    PyObject *keep;       /* list of objects taken from args, kept alive until the call ends (graph
                             objects may be shared with later receivers of the same call) */
    PyObject *setter;     /* inject(): the setter callable for this call, borrowed, or NULL */
    int private_registry; /* the call runs on a registry only Python reaches (not cr_shared()) */
    int holding_gil;      /* the library runs with the GIL held (see crpy_run_create) */
    PyThreadState *saved; /* the thread state saved when the GIL was released, else NULL */
} crpy_frame;

void crpy_frame_push(crpy_frame *frame, int private_registry);
/** Pops the frame and drops what it kept (call with the GIL). */
void crpy_frame_pop(crpy_frame *frame);
crpy_frame *crpy_frame_current(void);
/** True when this thread's state is the only one of the interpreter (call with the GIL). */
int crpy_alone(void);
/** At a callback's end, on the thread that holds the GIL for a library call: releases it for the
 *  rest of the call if other Python threads appeared meanwhile (they could need it). */
void crpy_frame_recheck_gil(crpy_frame *frame);

/* -- errors (errors.c) ----------------------------------------------------------------------- */

int crpy_errors_init(PyObject *module);
/** Raises the controllerreg.Error subclass for the thread's last library error (`fallback` when
 *  none is recorded), chained to the frame's exception if any. Returns NULL. */
PyObject *crpy_raise_last(int fallback, crpy_frame *frame);
/** Raises for a call that returned a non-zero status. Returns NULL. */
PyObject *crpy_raise_status(int status);
/** controllerreg._native._error_problems(kept): every problem of a kept failure (the capsule
 *  raise passes to _from_native) as (code, file, line, column, message, suggestion) tuples. */
PyObject *crpy_error_problems(PyObject *module, PyObject *capsule);
/** Raises the controllerreg.Error subclass for `code` with `message` (a binding's own refusal:
 *  no library record). Returns NULL. */
PyObject *crpy_raise_code(int code, const char *message);
/** Raises controllerreg.InvalidArgumentError (a closed registry, ...) with `message`. */
PyObject *crpy_raise_invalid(const char *message);
/** Hands the current Python exception to the library (cr_report_error) and to the frame. */
void crpy_report_exception(crpy_frame *frame, const char *context);

/* -- values (values.c) ----------------------------------------------------------------------- */

/** The Python value of a cr_value (args: objects are taken as the 1.0 rule says, receiver-owned
 *  ones kept alive in `frame`). New reference or NULL with an exception. */
PyObject *crpy_value_to_python(const cr_value *value, crpy_frame *frame);
/** A new CR_MAP for props: `props` (a mapping, None or NULL) updated by the keyword arguments of
 *  a vectorcall (`kwvalues`, `kwnames`, may be NULL). *out is NULL when there are none.
 *  Objects are borrowed: keep the Python objects alive while the map is used. */
int crpy_props_build(PyObject *props, PyObject *const *kwvalues, PyObject *kwnames, const char *method, cr_value **out);
/** A new CR_MAP from a mapping (dependencies of add_entry), named `what` in messages. */
cr_value *crpy_map_from_python(PyObject *mapping, const char *what, const char *method);
/* Both refuse a value that contains itself, or nests deeper than CR_VALUE_NESTING_MAX levels
 * below the map, with controllerreg.LimitError (CR_ERR_LIMIT) naming `method`, the path to the
 * problem (props['a'][0]...) and the fix. */
/** UTF-8 of a str without NUL characters, or NULL with ValueError/TypeError naming `what`, or a
 *  UnicodeEncodeError (see crpy_explain_not_utf8) for a str holding a lone surrogate. */
const char *crpy_utf8(PyObject *text, const char *what);
/** The one rule for text with no UTF-8 form: when the exception being raised is the codec's
 *  UnicodeEncodeError for `text`, replaces it with a UnicodeEncodeError (the same type, encoding,
 *  object, start and end) whose reason names `what` (the place; followed by `key` in quotes
 *  unless it is NULL) and the fix; the codec's error becomes its __cause__. Any other exception is left as it is. */
void crpy_explain_not_utf8(PyObject *text, const char *what, const char *key);

int crpy_values_init(PyObject *module);

/* -- class callbacks (callbacks.c) ----------------------------------------------------------- */

/** A link in a Registry's list of the Python classes its cr_registry holds (the garbage collector
 *  must see what they reference: a factory that refers to its own registry forms a cycle). The
 *  list head is a link too; an empty list, or a link in none, points to itself. Changed and read
 *  only with the GIL held. */
typedef struct crpy_class_link {
    struct crpy_class_link *prev, *next;
} crpy_class_link;

/** Registers (or replaces) a Python class on `reg`, its record linked into `classes` (the
 *  Registry's list) until the library releases it; `keywords`: its factory is called with the args
 *  as keyword arguments. Returns the cr status, -1 with an exception. */
int crpy_register_class(cr_registry *reg, crpy_class_link *classes, const char *name, PyObject *factory, PyObject *on_destroy,
                        PyObject *setter, int replace, int keywords);
/** Visits the callables of every class record linked into `classes` (a Registry's tp_traverse). */
int crpy_classes_traverse(crpy_class_link *classes, visitproc visit, void *arg);
/** Unlinks every record from `classes` (the Registry is closed or gone: records the library still
 *  holds are no longer its to report). */
void crpy_classes_detach(crpy_class_link *classes);

/* -- types ----------------------------------------------------------------------------------- */

extern PyTypeObject crpy_RegistryType;
extern PyTypeObject crpy_ProviderType;
/** A new Provider wrapping `provider` (taken: freed with the wrapper); `private_registry` as in
 *  crpy_frame (its creates may then keep the GIL). */
PyObject *crpy_provider_new(cr_provider *provider, int private_registry);
/** Runs one create (of `name` on `reg`, or of `provider`) with `props` and returns the object as
 *  Python; `*owner` tells who owns it (CR_OWNER_REGISTRY for a singleton). `private_registry` as
 *  in crpy_frame. */
PyObject *crpy_run_create(int private_registry, cr_registry *reg, const char *name, cr_provider *provider, const cr_value *props,
                          int *owner);
/** controllerreg.ForeignObject(address, owner). */
PyObject *crpy_foreign(void *object, int owner);

#endif
