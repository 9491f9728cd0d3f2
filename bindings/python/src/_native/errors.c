/* Library errors as controllerreg.Error subclasses (built by controllerreg._errors._from_native),
 * and Python exceptions raised inside callbacks handed to the library. */
#include "native.h"

static PyObject *from_native;      /* controllerreg._errors._from_native(code, message, count, source) */
static PyObject *invalid_argument; /* controllerreg._errors.InvalidArgumentError */

int crpy_errors_init(PyObject *module) {
    PyObject *errors = PyImport_ImportModule("controllerreg._errors");
    if (errors == NULL) return -1;
    from_native = PyObject_GetAttrString(errors, "_from_native");
    invalid_argument = PyObject_GetAttrString(errors, "InvalidArgumentError");
    Py_DECREF(errors);
    return (from_native && invalid_argument) ? 0 : -1;
}

static PyObject *text(const char *s) {
    if (s == NULL) Py_RETURN_NONE;
    return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

/* One problem as the (code, file, line, column, message, suggestion) tuple Diagnostic is made from. */
static PyObject *problem_tuple(const cr_problem *p) {
    if (p == NULL) return Py_BuildValue("(isIIsO)", 0, "", 0u, 0u, "", Py_None);
    return Py_BuildValue("(iNIINN)", p->code, text(p->file), (unsigned)p->line, (unsigned)p->column, text(p->message),
                         text(p->suggestion));
}

/* Every problem of a failure as a tuple of problem tuples: `count` of them, each `read(source, i)`. */
static PyObject *problem_tuples(size_t count, const cr_problem *(*read)(const void *, size_t), const void *source) {
    PyObject *out = PyTuple_New((Py_ssize_t)count);
    if (out == NULL) return NULL;
    for (size_t i = 0; i < count; i++) {
        PyObject *item = problem_tuple(read(source, i));
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, (Py_ssize_t)i, item);
    }
    return out;
}

static const cr_problem *kept_problem(const void *kept, size_t i) { return cr_error_problem((const cr_error *)kept, i); }
static const cr_problem *last_problem(const void *unused, size_t i) {
    (void)unused;
    return cr_last_error_problem(i);
}

#define KEPT_CAPSULE "controllerreg._native.cr_error"

static void kept_free(PyObject *capsule) { cr_error_free((cr_error *)PyCapsule_GetPointer(capsule, KEPT_CAPSULE)); }

PyObject *crpy_error_problems(PyObject *module, PyObject *capsule) {
    (void)module;
    cr_error *kept = (cr_error *)PyCapsule_GetPointer(capsule, KEPT_CAPSULE);
    if (kept == NULL) return NULL;
    return problem_tuples(cr_error_count(kept), kept_problem, kept);
}

/* Raises the error: its message and problem count now; its problems kept (cr_last_error_keep) in a
 * capsule the Error reads them from when `diagnostics` is first read (`keep`: the thread's last
 * error is this call's). */
static PyObject *raise_error(int code, const char *message, crpy_frame *frame, int keep) {
    PyObject *cause = frame ? frame->error : NULL;
    if (cause != NULL && !PyErr_GivenExceptionMatches(cause, PyExc_Exception)) {
        /* KeyboardInterrupt, SystemExit, ...: not ours to wrap. */
        PyErr_SetObject((PyObject *)Py_TYPE(cause), cause);
        return NULL;
    }
    cr_error *kept = keep ? cr_last_error_keep() : NULL;
    PyObject *source;
    size_t count;
    if (kept != NULL) {
        count = cr_error_count(kept);
        source = PyCapsule_New(kept, KEPT_CAPSULE, kept_free);
        if (source == NULL) {
            cr_error_free(kept);
            return NULL;
        }
    } else if (keep && cr_last_error_count() > 0) {
        /* No failure could be kept (memory ran out): its problems read now. */
        count = cr_last_error_count();
        source = problem_tuples(count, last_problem, NULL);
        if (source == NULL) return NULL;
    } else {
        count = 0;
        Py_INCREF(Py_None);
        source = Py_None;
    }
    PyObject *err = PyObject_CallFunction(from_native, "iNnN", code, text(message), (Py_ssize_t)count, source);
    if (err == NULL) return NULL;
    if (cause != NULL) {
        Py_INCREF(cause);
        PyException_SetCause(err, cause);
        Py_INCREF(cause);
        PyException_SetContext(err, cause);
    }
    PyErr_SetObject((PyObject *)Py_TYPE(err), err);
    Py_DECREF(err);
    return NULL;
}

PyObject *crpy_raise_last(int fallback, crpy_frame *frame) {
    int code = cr_last_error_code();
    if (code == 0) code = fallback;
    return raise_error(code, cr_last_error_message(), frame, cr_last_error_code() != 0);
}

PyObject *crpy_raise_status(int status) {
    if (cr_last_error_code() != status) return raise_error(status, cr_status_name(status), NULL, 0);
    return raise_error(status, cr_last_error_message(), NULL, 1);
}

PyObject *crpy_raise_code(int code, const char *message) { return raise_error(code, message, NULL, 0); }

PyObject *crpy_raise_invalid(const char *message) {
    PyObject *err = PyObject_CallFunction(invalid_argument, "is", (int)CR_ERR_INVALID_ARGUMENT, message);
    if (err == NULL) return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(err), err);
    Py_DECREF(err);
    return NULL;
}

void crpy_report_exception(crpy_frame *frame, const char *context) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyErr_NormalizeException(&type, &value, &tb);
    if (value == NULL) {
        cr_report_error(context);
        Py_XDECREF(type);
        Py_XDECREF(tb);
        return;
    }
    if (tb != NULL) PyException_SetTraceback(value, tb);
    /* The exception's text as UTF-8 for the library: a str() holding lone surrogates (a path
     * decoded with surrogateescape, say) or NULs is escaped rather than lost, and one whose
     * str() itself fails still names the exception's type. */
    PyObject *line =
        PyUnicode_FromFormat("%s%s%s: %S", context ? context : "", context ? ": " : "", ((PyTypeObject *)type)->tp_name, value);
    if (line == NULL) {
        PyErr_Clear();
        line = PyUnicode_FromFormat("%s%s%s (its str() failed)", context ? context : "", context ? ": " : "",
                                    ((PyTypeObject *)type)->tp_name);
    }
    PyObject *nul = line ? PyUnicode_FromStringAndSize("\0", 1) : NULL;
    PyObject *escaped_nul = nul ? PyUnicode_FromString("\\0") : NULL;
    PyObject *clean = escaped_nul ? PyUnicode_Replace(line, nul, escaped_nul, -1) : NULL;
    PyObject *bytes = clean ? PyUnicode_AsEncodedString(clean, "utf-8", "backslashreplace") : NULL;
    const char *utf8 = bytes ? PyBytes_AsString(bytes) : NULL;
    if (utf8 == NULL) {
        PyErr_Clear();
        utf8 = "a Python factory raised an exception";
    }
    cr_report_error(utf8);
    Py_XDECREF(bytes);
    Py_XDECREF(clean);
    Py_XDECREF(escaped_nul);
    Py_XDECREF(nul);
    Py_XDECREF(line);
    if (frame != NULL && frame->error == NULL) {
        frame->error = value;
        value = NULL;
    }
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}
