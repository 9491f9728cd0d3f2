/* Library errors as controllerreg.Error subclasses (built by controllerreg._errors._from_native),
 * and Python exceptions raised inside callbacks handed to the library. */
#include "native.h"

static PyObject *from_native;      /* controllerreg._errors._from_native(code, message, problems) */
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

/* Every problem of the thread's last failing call: a tuple of
 * (code, file, line, column, message, suggestion) tuples. */
static PyObject *problems(void) {
    size_t count = cr_last_error_count();
    PyObject *out = PyTuple_New((Py_ssize_t)count);
    if (out == NULL) return NULL;
    for (size_t i = 0; i < count; i++) {
        const cr_problem *p = cr_last_error_problem(i);
        PyObject *item = p ? Py_BuildValue("(iNIINN)", p->code, text(p->file), (unsigned)p->line, (unsigned)p->column,
                                           text(p->message), text(p->suggestion))
                           : Py_BuildValue("(isIIsO)", 0, "", 0u, 0u, "", Py_None);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, (Py_ssize_t)i, item);
    }
    return out;
}

static PyObject *raise_error(int code, const char *message, crpy_frame *frame) {
    PyObject *cause = frame ? frame->error : NULL;
    if (cause != NULL && !PyErr_GivenExceptionMatches(cause, PyExc_Exception)) {
        /* KeyboardInterrupt, SystemExit, ...: not ours to wrap. */
        PyErr_SetObject((PyObject *)Py_TYPE(cause), cause);
        return NULL;
    }
    PyObject *list = problems();
    if (list == NULL) return NULL;
    PyObject *err = PyObject_CallFunction(from_native, "iNN", code, text(message), list);
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
    return raise_error(code, cr_last_error_message(), frame);
}

PyObject *crpy_raise_status(int status) {
    if (cr_last_error_code() != status) return raise_error(status, cr_status_name(status), NULL);
    return raise_error(status, cr_last_error_message(), NULL);
}

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
