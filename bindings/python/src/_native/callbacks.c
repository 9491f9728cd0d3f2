/* The cr_class callbacks of every Python class: create calls the factory with the args as a dict
 * (or, for a class registered with keywords=True, as keyword arguments), destroy drops the
 * library's reference, set injects one key, release frees the class record. Callbacks may run on
 * any thread, with or without the GIL held: they take it themselves. */
#include "native.h"

/** One registered Python class: the cr_class user_data (freed by release). */
typedef struct {
    crpy_class_link link; /* in the Registry's list while the library holds the record */
    PyObject *name;       /* str */
    PyObject *factory;    /* callable(args: dict) -> object, or callable(**args) -> object */
    PyObject *on_destroy; /* callable(object) or NULL */
    PyObject *setter;     /* callable(object, key, value) or NULL: setattr */
} class_record;

/* A keywords factory refused its args (a TypeError): the exception set now is replaced by the one
 * controllerreg._keywords.explain makes, naming the key and the fix, when the args do not fit the
 * factory's signature; left as it is otherwise (a TypeError raised inside the factory). Only on
 * the failure path: a create that succeeds never calls it. */
static void explain_keywords(class_record *record, PyObject *dict) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (tb != NULL && value != NULL) PyException_SetTraceback(value, tb);
    PyObject *module = PyImport_ImportModule("controllerreg._keywords");
    PyObject *better = module
        ? PyObject_CallMethod(module, "explain", "OOOO", record->factory, record->name, dict, value ? value : Py_None)
        : NULL;
    Py_XDECREF(module);
    if (better == NULL || better == Py_None) {
        /* Not a signature mismatch (or the explanation itself failed): the factory's own error. */
        Py_XDECREF(better);
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
        return;
    }
    Py_XDECREF(type);
    Py_XDECREF(tb);
    if (value != NULL) PyException_SetCause(better, value); /* takes the reference */
    PyErr_SetObject((PyObject *)Py_TYPE(better), better);
    Py_DECREF(better);
}

/* The create callback's body: `keywords` is a constant in each caller below, so the dict call of
 * create_cb compiles exactly as it did before keyword factories existed. */
static inline void *create_object(const cr_value *args, class_record *record, int keywords) {
    PyGILState_STATE gil = PyGILState_Ensure();
    crpy_frame local, *frame = crpy_frame_current();
    int own_frame = frame == NULL; /* called from outside any Python call (e.g. a C host) */
    if (own_frame) {
        crpy_frame_push(&local, 0);
        frame = &local;
    }
    PyObject *result = NULL;
    PyObject *dict = crpy_value_to_python(args, frame);
    if (dict != NULL && !PyDict_Check(dict)) Py_SETREF(dict, PyDict_New());
    if (dict != NULL) {
        if (keywords) {
            PyObject *no_positional = PyTuple_New(0);
            result = no_positional ? PyObject_Call(record->factory, no_positional, dict) : NULL;
            Py_XDECREF(no_positional);
            if (result == NULL) explain_keywords(record, dict);
        } else {
            result = PyObject_CallOneArg(record->factory, dict);
        }
        Py_DECREF(dict);
    }
    if (result == Py_None) {
        Py_DECREF(result);
        result = NULL;
        PyErr_Format(PyExc_TypeError, "the factory of class '%U' returned None", record->name);
        crpy_report_exception(frame, NULL);
    } else if (result == NULL) {
        crpy_report_exception(frame, NULL);
    }
    if (own_frame) crpy_frame_pop(&local);
    PyGILState_Release(gil);
    if (!own_frame) crpy_frame_recheck_gil(frame);
    return result ? crpy_tag(result) : NULL;
}

static void *create_cb(const cr_value *args, void *user_data) { return create_object(args, user_data, 0); }

/* The create callback of a class registered with keywords=True: factory(**args). */
static void *create_keywords_cb(const cr_value *args, void *user_data) { return create_object(args, user_data, 1); }

static void destroy_cb(void *object, void *user_data) {
    class_record *record = user_data;
    PyObject *value = crpy_untag(object);
    if (value == NULL) return;
    PyGILState_STATE gil = PyGILState_Ensure();
    if (record->on_destroy != NULL) {
        PyObject *r = PyObject_CallOneArg(record->on_destroy, value);
        if (r == NULL) PyErr_WriteUnraisable(record->on_destroy);
        Py_XDECREF(r);
    }
    Py_DECREF(value);
    PyGILState_Release(gil);
}

static int set_cb(void *object, const char *key, const cr_value *value, void *user_data) {
    class_record *record = user_data;
    PyObject *target = crpy_untag(object);
    if (target == NULL) {
        cr_report_error("controllerreg (Python): inject target is not a Python object");
        return CR_ERR_INVALID_ARGUMENT;
    }
    PyGILState_STATE gil = PyGILState_Ensure();
    crpy_frame local, *frame = crpy_frame_current();
    int own_frame = frame == NULL;
    if (own_frame) {
        crpy_frame_push(&local, 0);
        frame = &local;
    }
    int status = 0;
    PyObject *pykey = PyUnicode_DecodeUTF8(key, (Py_ssize_t)strlen(key), "surrogateescape");
    PyObject *pyvalue = pykey ? crpy_value_to_python(value, frame) : NULL;
    if (pyvalue != NULL) {
        PyObject *setter = frame->setter ? frame->setter : record->setter;
        if (setter != NULL) {
            PyObject *r = PyObject_CallFunctionObjArgs(setter, target, pykey, pyvalue, NULL);
            if (r == NULL) status = CR_ERR_CREATE_FAILED;
            Py_XDECREF(r);
        } else if (PyObject_SetAttr(target, pykey, pyvalue) < 0) {
            status = CR_ERR_CREATE_FAILED;
        }
    } else {
        status = CR_ERR_CREATE_FAILED;
    }
    Py_XDECREF(pykey);
    Py_XDECREF(pyvalue);
    if (status != 0) { crpy_report_exception(frame, NULL); }
    if (own_frame) crpy_frame_pop(&local);
    PyGILState_Release(gil);
    if (!own_frame) crpy_frame_recheck_gil(frame);
    return status;
}

static void link_remove(crpy_class_link *link) {
    link->prev->next = link->next;
    link->next->prev = link->prev;
    link->prev = link->next = link;
}

static void release_cb(void *user_data) {
    class_record *record = user_data;
    PyGILState_STATE gil = PyGILState_Ensure();
    link_remove(&record->link);
    Py_XDECREF(record->name);
    Py_XDECREF(record->factory);
    Py_XDECREF(record->on_destroy);
    Py_XDECREF(record->setter);
    PyMem_RawFree(record);
    PyGILState_Release(gil);
}

int crpy_classes_traverse(crpy_class_link *classes, visitproc visit, void *arg) {
    for (crpy_class_link *link = classes->next; link != classes; link = link->next) {
        class_record *record = (class_record *)link;
        Py_VISIT(record->factory);
        Py_VISIT(record->on_destroy);
        Py_VISIT(record->setter);
    }
    return 0;
}

void crpy_classes_detach(crpy_class_link *classes) {
    while (classes->next != classes) link_remove(classes->next);
}

int crpy_register_class(cr_registry *reg, crpy_class_link *classes, const char *name, PyObject *factory, PyObject *on_destroy,
                        PyObject *setter, int replace, int keywords) {
    class_record *record = PyMem_RawCalloc(1, sizeof *record);
    if (record == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    record->link.prev = record->link.next = &record->link;
    record->name = PyUnicode_FromString(name);
    if (record->name == NULL) {
        PyMem_RawFree(record);
        return -1;
    }
    Py_INCREF(factory);
    record->factory = factory;
    record->on_destroy = (on_destroy && on_destroy != Py_None) ? (Py_INCREF(on_destroy), on_destroy) : NULL;
    record->setter = (setter && setter != Py_None) ? (Py_INCREF(setter), setter) : NULL;
    cr_class cls = {0};
    cls.create = keywords ? create_keywords_cb : create_cb;
    cls.destroy = destroy_cb;
    cls.set = set_cb;
    cls.release = release_cb;
    cls.version = CR_CLASS_VERSION;
    /* Linked first: the library calls release on failure too (it owns user_data from here on). */
    record->link.next = classes;
    record->link.prev = classes->prev;
    classes->prev->next = &record->link;
    classes->prev = &record->link;
    int status = replace ? cr_replace_class(reg, name, &cls, record) : cr_register_class(reg, name, &cls, record);
    return status;
}
