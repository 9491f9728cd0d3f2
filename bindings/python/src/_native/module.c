/* The module controllerreg._native: its functions, the per-thread call frames, initialisation. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "native.h"

#include <dlfcn.h>

/* -- frames ---------------------------------------------------------------------------------- */

static _Thread_local crpy_frame *current_frame;

void crpy_frame_push(crpy_frame *frame, int private_registry) {
    frame->outer = current_frame;
    frame->error = NULL;
    frame->keep = NULL;
    frame->setter = NULL;
    frame->private_registry = private_registry;
    frame->holding_gil = 0;
    frame->saved = NULL;
    current_frame = frame;
}

void crpy_frame_pop(crpy_frame *frame) {
    current_frame = frame->outer;
    Py_CLEAR(frame->error);
    Py_CLEAR(frame->keep);
}

crpy_frame *crpy_frame_current(void) { return current_frame; }

int crpy_alone(void) {
    PyThreadState *self = PyThreadState_Get();
#if PY_VERSION_HEX >= 0x03090000
    PyInterpreterState *interp = PyThreadState_GetInterpreter(self);
#else
    PyInterpreterState *interp = self->interp;
#endif
    PyThreadState *head = PyInterpreterState_ThreadHead(interp);
    return head == self && PyThreadState_Next(head) == NULL;
}

void crpy_frame_recheck_gil(crpy_frame *frame) {
    if (frame != NULL && frame->holding_gil && !crpy_alone()) {
        frame->holding_gil = 0;
        frame->saved = PyEval_SaveThread();
    }
}

/* -- module functions ------------------------------------------------------------------------ */

static PyObject *native_version(PyObject *self, PyObject *unused) { return PyUnicode_FromString(cr_version()); }

static PyObject *native_library_path(PyObject *self, PyObject *unused) {
    Dl_info info;
    if (dladdr((void *)&cr_version, &info) == 0 || info.dli_fname == NULL) Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(info.dli_fname);
}

static PyObject *native_header_version(PyObject *self, PyObject *unused) { return PyUnicode_FromString(CR_VERSION_STRING); }

static PyMethodDef native_methods[] = {
    {"version", native_version, METH_NOARGS, "The loaded library's version (cr_version())."},
    {"library_path", native_library_path, METH_NOARGS, "The file the library was loaded from (None if unknown)."},
    {"header_version", native_header_version, METH_NOARGS, "The version of controllerreg.h the extension was compiled against."},
    {"_error_problems", crpy_error_problems, METH_O,
     "Every problem of a kept failure, as tuples (controllerreg.Error reads them)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT,
    "controllerreg._native",
    "The CPython extension over libcontrollerreg (use the controllerreg package).",
    -1,
    native_methods,
};

__attribute__((visibility("default"))) PyMODINIT_FUNC PyInit__native(void) {
    /* The callbacks take the GIL with PyGILState_Ensure, which knows only the main interpreter:
     * in a subinterpreter the first factory call would wait for the GIL forever. */
    if (PyInterpreterState_Get() != PyInterpreterState_Main()) {
        PyErr_SetString(PyExc_ImportError, "controllerreg cannot be imported in a subinterpreter (use the main interpreter)");
        return NULL;
    }
    PyObject *module = PyModule_Create(&native_module);
    if (module == NULL) return NULL;
    if (PyType_Ready(&crpy_RegistryType) < 0 || PyType_Ready(&crpy_ProviderType) < 0) goto fail;
    Py_INCREF(&crpy_RegistryType);
    if (PyModule_AddObject(module, "Registry", (PyObject *)&crpy_RegistryType) < 0) goto fail;
    Py_INCREF(&crpy_ProviderType);
    if (PyModule_AddObject(module, "Provider", (PyObject *)&crpy_ProviderType) < 0) goto fail;
    if (crpy_errors_init(module) < 0 || crpy_values_init(module) < 0) goto fail;
    return module;
fail:
    Py_DECREF(module);
    return NULL;
}
