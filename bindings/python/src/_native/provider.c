/* controllerreg._native.Provider: a lazy factory of one entry ({Provider: Name} in args). The
 * wrapper owns its cr_provider (taken with cr_value_provider) and frees it when closed or
 * collected; the library's provider holds its registry weakly, so using it after the registry is
 * freed is an error, not a crash. */
#include "native.h"

#include <structmember.h>

#ifndef Py_TPFLAGS_HAVE_VECTORCALL
#define Py_TPFLAGS_HAVE_VECTORCALL _Py_TPFLAGS_HAVE_VECTORCALL /* Python 3.8 */
#endif

typedef struct {
    PyObject_HEAD cr_provider *provider; /* NULL once closed */
    PyObject *name;
    int private_registry;      /* from a registry only Python reaches (see crpy_run_create) */
    vectorcallfunc vectorcall; /* calling the provider is create() */
} ProviderObject;

static PyObject *Provider_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

PyObject *crpy_provider_new(cr_provider *provider, int private_registry) {
    if (provider == NULL) return crpy_raise_last(CR_ERR_INVALID_ARGUMENT, NULL);
    ProviderObject *self = PyObject_New(ProviderObject, &crpy_ProviderType);
    if (self == NULL) {
        cr_provider_free(provider);
        return NULL;
    }
    self->provider = provider;
    self->private_registry = private_registry;
    self->vectorcall = Provider_vectorcall;
    const char *name = cr_provider_name(provider);
    self->name = PyUnicode_DecodeUTF8(name ? name : "", (Py_ssize_t)(name ? strlen(name) : 0), "surrogateescape");
    if (self->name == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* create(props=None, /, **kwargs) and __call__ */
static PyObject *Provider_create(ProviderObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError, "Provider.create() takes an optional props mapping (%zd given)", nargs);
        return NULL;
    }
    if (self->provider == NULL) return crpy_raise_invalid("the provider is closed");
    cr_value *props = NULL;
    if (crpy_props_build(nargs == 1 ? args[0] : NULL, args + nargs, kwnames, "Provider.create()", &props) < 0) return NULL;
    int owner;
    PyObject *result = crpy_run_create(self->private_registry, NULL, NULL, self->provider, props, &owner);
    if (props) cr_value_free(props);
    return result;
}

static PyObject *Provider_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    return Provider_create((ProviderObject *)self, args, PyVectorcall_NARGS(nargsf), kwnames);
}

static PyObject *Provider_close(ProviderObject *self, PyObject *unused) {
    cr_provider *p = self->provider;
    self->provider = NULL;
    if (p) cr_provider_free(p);
    Py_RETURN_NONE;
}

/* __reduce__ (pickle, copy.copy, copy.deepcopy): refused with what to do instead. A provider belongs
 * to its registry in this process. */
static PyObject *Provider_reduce(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyErr_SetString(PyExc_TypeError,
                    "a controllerreg Provider cannot be pickled or copied: it belongs to its registry in this "
                    "process; pass its entry's name (provider.name) instead and create from a registry where it is "
                    "needed, or share the provider itself within this process");
    return NULL;
}

static PyObject *Provider_get_closed(ProviderObject *self, void *unused) { return PyBool_FromLong(self->provider == NULL); }

static void Provider_dealloc(ProviderObject *self) {
    if (self->provider) cr_provider_free(self->provider);
    Py_XDECREF(self->name);
    PyObject_Free(self);
}

static PyObject *Provider_repr(ProviderObject *self) {
    return PyUnicode_FromFormat("<controllerreg.Provider %R%s>", self->name, self->provider ? "" : " closed");
}

static PyMethodDef Provider_methods[] = {
    {"create", (PyCFunction)(void (*)(void))Provider_create, METH_FASTCALL | METH_KEYWORDS,
     "create(props=None, /, **kwargs): creates the provider's entry now."},
    {"close", (PyCFunction)Provider_close, METH_NOARGS, "close(): frees the provider (idempotent)."},
    {"__reduce__", (PyCFunction)Provider_reduce, METH_NOARGS, "Refused: a provider cannot be pickled or copied."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef Provider_members[] = {
    {"name", T_OBJECT_EX, offsetof(ProviderObject, name), READONLY, "The name of the entry this provider creates."},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef Provider_getset[] = {
    {"closed", (getter)Provider_get_closed, NULL, "True once close() has freed the provider.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject crpy_ProviderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "controllerreg.Provider",
    .tp_basicsize = sizeof(ProviderObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(ProviderObject, vectorcall),
    .tp_doc = "A lazy factory for one entry, received in a factory's args ({Provider: Name}).",
    .tp_dealloc = (destructor)Provider_dealloc,
    .tp_repr = (reprfunc)Provider_repr,
    .tp_call = PyVectorcall_Call,
    .tp_methods = Provider_methods,
    .tp_members = Provider_members,
    .tp_getset = Provider_getset,
};
