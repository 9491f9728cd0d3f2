/* controllerreg._native.Registry: one cr_registry, its classes, loads, creates and the singleton
 * cache (the Python object of each singleton entry already built, so a hit is one dict lookup). */
#include "native.h"

typedef struct {
    PyObject_HEAD cr_registry *reg; /* NULL once closed */
    int owned;                      /* 0 for the shared registry (never freed) */
    int active;                     /* calls in progress (close() is refused meanwhile) */
    PyObject *parent;               /* the parent Registry of a child (kept alive by the child) */
    int closed_with_parent;         /* closed because its parent was closed (said when it is used) */
    PyObject *children;             /* list of weakrefs to child Registries */
    PyObject *singletons;           /* dict name -> object, or NULL when not cached (the shared registry) */
    PyObject *weakrefs;
    crpy_class_link classes; /* the Python classes the cr_registry holds (visited by the collector) */
} RegistryObject;

static PyObject *shared_instance;

/* -- helpers --------------------------------------------------------------------------------- */

/* Registry.__init__ (or wrap) ran: a subclass whose __init__ does not call super().__init__()
 * leaves a registry that was never opened (no list of children), which is not the shared one. */
static int initialised(RegistryObject *self) { return self->children != NULL; }

static cr_registry *enter(RegistryObject *self) {
    if (self->reg == NULL && !initialised(self))
        return (cr_registry *)crpy_raise_invalid(
            "the registry was never opened: Registry.__init__ did not run (a subclass's __init__ must call "
            "super().__init__())");
    if (self->reg == NULL && self->closed_with_parent)
        return (cr_registry *)crpy_raise_invalid(
            "the registry is closed: its parent registry was closed, which closes its children (keep the parent "
            "open while a child is used)");
    if (self->reg == NULL)
        return (cr_registry *)crpy_raise_invalid(
            "the registry is closed (its close() ran, or its with block ended): make a new Registry to use one again");
    self->active++;
    return self->reg;
}

static void leave(RegistryObject *self) { self->active--; }

/* Drops the cached singletons of this registry and of its children (after any change). */
static void invalidate(RegistryObject *self) {
    if (self->singletons != NULL) PyDict_Clear(self->singletons);
    if (self->children == NULL) return;
    Py_ssize_t n = PyList_GET_SIZE(self->children);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *child = PyWeakref_GetObject(PyList_GET_ITEM(self->children, i));
        if (child != NULL && child != Py_None) invalidate((RegistryObject *)child);
    }
}

/* An int argument that is not a bool: True and False are ints to Python, but a bool given for a
 * number or an enum (set_limit(limit, True), lifestyle=True) is a mistake, never the 1 or 0 it
 * would silently become. The one check every int argument of Registry goes through. */
static int is_plain_int(PyObject *arg) { return PyLong_Check(arg) && !PyBool_Check(arg); }

/* 0 if `arg` is a plain int (is_plain_int); -1 with a TypeError naming the method, the argument and
 * the fix otherwise. */
static int require_int(PyObject *arg, const char *method, const char *argument) {
    if (is_plain_int(arg)) return 0;
    if (PyBool_Check(arg))
        PyErr_Format(PyExc_TypeError, "%s() %s must be an int, not bool (%R): pass the number itself, such as 1", method,
                     argument, arg);
    else
        PyErr_Format(PyExc_TypeError, "%s() %s must be an int, not %.100s", method, argument, Py_TYPE(arg)->tp_name);
    return -1;
}

static int parse_format(PyObject *format, cr_format *out) {
    if (format == NULL) {
        *out = CR_FORMAT_AUTO;
        return 0;
    }
    if (PyUnicode_Check(format)) {
        static const struct {
            const char *name;
            cr_format format;
        } names[] = {{"auto", CR_FORMAT_AUTO},
                     {"json", CR_FORMAT_JSON},
                     {"yaml", CR_FORMAT_YAML},
                     {"yml", CR_FORMAT_YAML},
                     {"plist", CR_FORMAT_PLIST}};
        PyObject *lower = PyObject_CallMethod(format, "lower", NULL);
        if (lower == NULL) return -1;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (PyUnicode_CompareWithASCIIString(lower, names[i].name) == 0) {
                Py_DECREF(lower);
                *out = names[i].format;
                return 0;
            }
        }
        Py_DECREF(lower);
    } else if (is_plain_int(format)) {
        long v = PyLong_AsLong(format);
        if (v >= CR_FORMAT_AUTO && v <= CR_FORMAT_PLIST) {
            *out = (cr_format)v;
            return 0;
        }
        PyErr_Clear();
    }
    PyErr_Format(PyExc_ValueError, "unknown format %R (auto, json, yaml or plist)", format);
    return -1;
}

static int parse_lifestyle(PyObject *lifestyle, cr_lifestyle *out) {
    if (lifestyle == NULL) {
        *out = CR_LIFESTYLE_TRANSIENT;
        return 0;
    }
    if (PyUnicode_Check(lifestyle)) {
        static const char *names[] = {"transient", "singleton", "graph"};
        for (int i = 0; i < 3; i++) {
            if (PyUnicode_CompareWithASCIIString(lifestyle, names[i]) == 0) {
                *out = (cr_lifestyle)i;
                return 0;
            }
        }
    } else if (is_plain_int(lifestyle)) {
        long v = PyLong_AsLong(lifestyle);
        if (v >= 0 && v <= 2) {
            *out = (cr_lifestyle)v;
            return 0;
        }
        PyErr_Clear();
    }
    PyErr_Format(PyExc_ValueError, "unknown lifestyle %R (transient, singleton or graph)", lifestyle);
    return -1;
}

/* -- creating -------------------------------------------------------------------------------- */

/* The GIL and the library's locks: a create waits inside the library only for a singleton another
 * thread is building, and that thread may be in a Python factory, needing the GIL. So a create
 * releases the GIL while the library works, and callbacks take it back, unless it runs on a
 * registry only Python reaches (not cr_shared()) and this is the interpreter's only thread: then no
 * other thread can hold such a lock, and the create keeps the GIL (saving two GIL hand-overs per
 * callback). If a factory starts a thread, the callback releases the GIL on its way back into the
 * library (crpy_frame_recheck_gil). */
PyObject *crpy_run_create(int private_registry, cr_registry *reg, const char *name, cr_provider *provider, const cr_value *props,
                          int *owner_out) {
    crpy_frame frame;
    crpy_frame_push(&frame, private_registry);
    void *object;
    cr_owner owner = CR_OWNER_RECEIVER;
    frame.holding_gil = private_registry && crpy_alone();
    if (!frame.holding_gil) frame.saved = PyEval_SaveThread();
    cr_create_options options = CR_CREATE_OPTIONS_INIT;
    options.props = props;
    options.owner = &owner;
    object = provider ? cr_provider_create_with(provider, &options) : cr_registry_create_with(reg, name, &options);
    if (frame.saved != NULL) PyEval_RestoreThread(frame.saved);
    PyObject *result;
    if (object == NULL) {
        result = crpy_raise_last(CR_ERR_CREATE_FAILED, &frame);
    } else {
        result = crpy_untag(object);
        if (result == NULL) {
            result = crpy_foreign(object, (int)owner);
        } else if (owner != CR_OWNER_RECEIVER) {
            Py_INCREF(result); /* a singleton: the registry keeps its reference */
        }                      /* else: the library's reference is the caller's now */
    }
    crpy_frame_pop(&frame);
    *owner_out = (int)owner;
    return result;
}

/* create(name, props=None, /, **kwargs) */
static PyObject *Registry_create(RegistryObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs < 1 || nargs > 2) {
        PyErr_Format(PyExc_TypeError, "create() takes a name and an optional props mapping (%zd given)", nargs);
        return NULL;
    }
    PyObject *name = args[0];
    int plain = nargs == 1 && (kwnames == NULL || PyTuple_GET_SIZE(kwnames) == 0);
    if (plain && self->singletons != NULL && PyUnicode_CheckExact(name)) {
        PyObject *hit = PyDict_GetItemWithError(self->singletons, name);
        if (hit != NULL) {
            Py_INCREF(hit);
            return hit;
        }
        if (PyErr_Occurred()) return NULL;
    }
    const char *cname = crpy_utf8(name, "an entry name");
    if (cname == NULL) return NULL;
    cr_value *props = NULL;
    if (!plain && crpy_props_build(nargs == 2 ? args[1] : NULL, args + nargs, kwnames, "Registry.create()", &props) < 0)
        return NULL;
    cr_registry *reg = enter(self);
    if (reg == NULL) {
        if (props) cr_value_free(props);
        return NULL;
    }
    int owner;
    PyObject *result = crpy_run_create(self->owned, reg, cname, NULL, props, &owner);
    leave(self);
    if (props) cr_value_free(props);
    if (result != NULL && owner == CR_OWNER_REGISTRY && props == NULL && self->singletons != NULL && PyUnicode_CheckExact(name) &&
        self->reg != NULL) {
        if (PyDict_SetItem(self->singletons, name, result) < 0) Py_CLEAR(result);
    }
    return result;
}

/* inject(name, object, setter=None) */
static PyObject *Registry_inject(RegistryObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"name", "object", "setter", NULL};
    PyObject *name, *object, *setter = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UO|O:inject", kwlist, &name, &object, &setter)) return NULL;
    if (setter != Py_None && !PyCallable_Check(setter)) {
        PyErr_SetString(PyExc_TypeError, "setter must be callable (object, key, value) or None");
        return NULL;
    }
    const char *cname = crpy_utf8(name, "an entry name");
    if (cname == NULL) return NULL;
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    crpy_frame frame;
    crpy_frame_push(&frame, self->owned);
    frame.setter = setter == Py_None ? NULL : setter;
    int status;
    void *target = crpy_tag(object);
    Py_BEGIN_ALLOW_THREADS status = cr_inject(reg, cname, target);
    Py_END_ALLOW_THREADS leave(self);
    PyObject *result = status == 0 ? (Py_INCREF(Py_None), Py_None) : crpy_raise_last(status, &frame);
    crpy_frame_pop(&frame);
    return result;
}

/* -- classes --------------------------------------------------------------------------------- */

static PyObject *register_impl(RegistryObject *self, PyObject *args, PyObject *kwds, int force_replace) {
    static char *kwlist[] = {"class_name", "factory", "replace", "on_destroy", "setter", "keywords", NULL};
    PyObject *name, *factory, *on_destroy = Py_None, *setter = Py_None;
    int replace = 0, keywords = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UO|$pOOp:register_class", kwlist, &name, &factory, &replace, &on_destroy,
                                     &setter, &keywords))
        return NULL;
    if (!PyCallable_Check(factory)) {
        PyErr_SetString(PyExc_TypeError,
                        keywords ? "factory must be callable (**args) -> object"
                                 : "factory must be callable (args: dict) -> object");
        return NULL;
    }
    if ((on_destroy != Py_None && !PyCallable_Check(on_destroy)) || (setter != Py_None && !PyCallable_Check(setter))) {
        PyErr_SetString(PyExc_TypeError, "on_destroy and setter must be callables or None");
        return NULL;
    }
    const char *cname = crpy_utf8(name, "a class name");
    if (cname == NULL) return NULL;
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    int status = crpy_register_class(reg, &self->classes, cname, factory, on_destroy, setter, replace || force_replace, keywords);
    leave(self);
    if (status < 0) return NULL;
    invalidate(self);
    if (status != 0) return crpy_raise_status(status);
    Py_RETURN_NONE;
}

static PyObject *Registry_register_class(RegistryObject *self, PyObject *args, PyObject *kwds) {
    return register_impl(self, args, kwds, 0);
}

static PyObject *Registry_replace_class(RegistryObject *self, PyObject *args, PyObject *kwds) {
    return register_impl(self, args, kwds, 1);
}

/* -- loading --------------------------------------------------------------------------------- */

static PyObject *load_done(RegistryObject *self, int status) {
    invalidate(self);
    if (status != 0) return crpy_raise_status(status);
    Py_RETURN_NONE;
}

/* The `environment=` keyword of the load methods: None (the process environment) or a mapping
 * of str to str (a dict, os.environ, a MappingProxyType ...), as a new CR_MAP of CR_STRING in
 * *out (NULL for None). Returns -1 with a TypeError (or MemoryError) set. */
static int parse_environment(PyObject *environment, cr_value **out) {
    *out = NULL;
    if (environment == NULL || environment == Py_None) return 0;
    if (!PyDict_Check(environment)) {
        /* Any other mapping is read through a dict copy (os.environ is a Mapping, not a dict). */
        PyObject *copy = NULL;
        if (!PyUnicode_Check(environment) && !PyBytes_Check(environment) && !PyList_Check(environment) &&
            PyMapping_Check(environment) && PyObject_HasAttrString(environment, "keys")) {
            copy = PyDict_New();
            if (copy != NULL && PyDict_Merge(copy, environment, 1) < 0) Py_CLEAR(copy);
            if (copy == NULL && !PyErr_ExceptionMatches(PyExc_MemoryError))
                PyErr_Clear();
            else if (copy == NULL)
                return -1;
        }
        if (copy == NULL) {
            PyErr_Format(PyExc_TypeError, "environment must be a mapping of str to str (a dict, os.environ) or None, not %.100s",
                         Py_TYPE(environment)->tp_name);
            return -1;
        }
        int status = parse_environment(copy, out);
        Py_DECREF(copy);
        return status;
    }
    cr_value *map = cr_map_new();
    if (map == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(environment, &pos, &key, &value)) {
        if (!PyUnicode_Check(key) || !PyUnicode_Check(value)) {
            PyErr_Format(PyExc_TypeError, "environment must be a mapping of str to str: found a %.100s to %.100s pair",
                         Py_TYPE(key)->tp_name, Py_TYPE(value)->tp_name);
            cr_value_free(map);
            return -1;
        }
        const char *k = crpy_utf8(key, "an environment variable name");
        const char *v = k ? crpy_utf8(value, "an environment value") : NULL;
        if (v == NULL) {
            cr_value_free(map);
            return -1;
        }
        if (cr_map_set_string(map, k, v) != CR_OK) {
            cr_value_free(map);
            crpy_raise_last(cr_last_error_code(), NULL);
            return -1;
        }
    }
    *out = map;
    return 0;
}

static PyObject *Registry_load_file(RegistryObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"path", "format", "override", "environment", NULL};
    PyObject *path = NULL, *format = NULL, *environment = Py_None;
    int override = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O&|O$pO:load_file", kwlist, PyUnicode_FSConverter, &path, &format, &override,
                                     &environment))
        return NULL;
    cr_format fmt;
    cr_value *env = NULL;
    if (parse_format(format, &fmt) < 0 || parse_environment(environment, &env) < 0) {
        Py_DECREF(path);
        return NULL;
    }
    cr_registry *reg = enter(self);
    if (reg == NULL) {
        cr_value_free(env);
        Py_DECREF(path);
        return NULL;
    }
    const char *p = PyBytes_AS_STRING(path);
    int status;
    Py_BEGIN_ALLOW_THREADS cr_load_options options = CR_LOAD_OPTIONS_INIT;
    options.format = fmt;
    options.flags = override ? CR_LOAD_OVERRIDE : 0u;
    options.environment = env;
    status = cr_load_file_with(reg, p, &options);
    Py_END_ALLOW_THREADS leave(self);
    cr_value_free(env);
    Py_DECREF(path);
    return load_done(self, status);
}

static PyObject *Registry_load_files(RegistryObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"paths", "format", "override", "environment", NULL};
    PyObject *paths, *format = NULL, *environment = Py_None;
    int override = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O$pO:load_files", kwlist, &paths, &format, &override, &environment))
        return NULL;
    cr_format fmt;
    if (parse_format(format, &fmt) < 0) return NULL;
    if (PyUnicode_Check(paths) || PyBytes_Check(paths)) {
        PyErr_SetString(PyExc_TypeError, "load_files() takes a sequence of paths (use load_file for one)");
        return NULL;
    }
    cr_value *env = NULL;
    if (parse_environment(environment, &env) < 0) return NULL;
    PyObject *list = PySequence_List(paths);
    if (list == NULL) {
        cr_value_free(env);
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(list);
    PyObject *encoded = PyList_New(n);
    const char **array = PyMem_Calloc((size_t)(n ? n : 1), sizeof *array);
    PyObject *result = NULL;
    if (encoded == NULL || array == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *bytes = NULL;
        if (!PyUnicode_FSConverter(PyList_GET_ITEM(list, i), &bytes)) goto done;
        PyList_SET_ITEM(encoded, i, bytes);
        array[i] = PyBytes_AS_STRING(bytes);
    }
    cr_registry *reg = enter(self);
    if (reg == NULL) goto done;
    int status;
    Py_BEGIN_ALLOW_THREADS cr_load_options options = CR_LOAD_OPTIONS_INIT;
    options.format = fmt;
    options.flags = override ? CR_LOAD_OVERRIDE : 0u;
    options.environment = env;
    status = cr_load_files_with(reg, array, (size_t)n, &options);
    Py_END_ALLOW_THREADS leave(self);
    result = load_done(self, status);
done:
    cr_value_free(env);
    PyMem_Free(array);
    Py_XDECREF(encoded);
    Py_DECREF(list);
    return result;
}

static PyObject *Registry_load_string(RegistryObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"text", "format", "override", "source_name", "environment", NULL};
    PyObject *text, *format = NULL, *source_name = Py_None, *environment = Py_None;
    int override = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O|O$pOO:load_string", kwlist, &text, &format, &override, &source_name,
                                     &environment))
        return NULL;
    cr_format fmt;
    if (parse_format(format, &fmt) < 0) return NULL;
    const char *data;
    Py_ssize_t length;
    PyObject *holder = NULL;
    if (PyUnicode_Check(text)) {
        data = PyUnicode_AsUTF8AndSize(text, &length);
        if (data == NULL) {
            crpy_explain_not_utf8(text, "the config text", NULL);
            return NULL;
        }
    } else {
        if (!PyObject_CheckBuffer(text)) {
            PyErr_Format(PyExc_TypeError,
                         "load_string: text must be a str or bytes (the config's text), not %.100s; to read a file, "
                         "use load_file",
                         Py_TYPE(text)->tp_name);
            return NULL;
        }
        holder = PyBytes_FromObject(text);
        if (holder == NULL) return NULL;
        data = PyBytes_AS_STRING(holder);
        length = PyBytes_GET_SIZE(holder);
    }
    const char *source = NULL;
    if (source_name != Py_None && (source = crpy_utf8(source_name, "source_name")) == NULL) {
        Py_XDECREF(holder);
        return NULL;
    }
    cr_value *env = NULL;
    if (parse_environment(environment, &env) < 0) {
        Py_XDECREF(holder);
        return NULL;
    }
    cr_registry *reg = enter(self);
    if (reg == NULL) {
        cr_value_free(env);
        Py_XDECREF(holder);
        return NULL;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS cr_load_options options = CR_LOAD_OPTIONS_INIT;
    options.format = fmt;
    options.flags = override ? CR_LOAD_OVERRIDE : 0u;
    options.source_name = source;
    options.environment = env;
    status = cr_load_string_with(reg, data, (size_t)length, &options);
    Py_END_ALLOW_THREADS leave(self);
    cr_value_free(env);
    Py_XDECREF(holder);
    return load_done(self, status);
}

/* -- entries from code, listing, limits, templates, eager start ------------------------------- */

/* Tags for cr_entry_options: None, a str or an int (one tag), or a list/tuple of them; a new CR_LIST
 * in *out (NULL for None). -1 with an exception set otherwise. */
static int tags_from_python(PyObject *tags, cr_value **out) {
    *out = NULL;
    if (tags == Py_None) return 0;
    cr_value *list = cr_list_new();
    if (list == NULL) return crpy_raise_last(CR_ERR_NO_MEMORY, NULL), -1;
    PyObject *items = (PyList_Check(tags) || PyTuple_Check(tags)) ? PySequence_Fast(tags, "tags") : PyTuple_Pack(1, tags);
    if (items == NULL) {
        cr_value_free(list);
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(items);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PySequence_Fast_GET_ITEM(items, i);
        int rc;
        if (PyUnicode_Check(t)) {
            const char *s = crpy_utf8(t, "a tag");
            if (s == NULL) goto fail;
            rc = cr_list_push_string(list, s);
        } else if (is_plain_int(t)) {
            long long v = PyLong_AsLongLong(t);
            if (v == -1 && PyErr_Occurred()) goto fail;
            rc = cr_list_push_int(list, (int64_t)v);
        } else {
            PyErr_Format(PyExc_TypeError, "a tag must be a str or an int (as Tag in a config), not %.100s", Py_TYPE(t)->tp_name);
            goto fail;
        }
        if (rc != CR_OK) {
            crpy_raise_last(rc, NULL);
            goto fail;
        }
    }
    Py_DECREF(items);
    *out = list;
    return 0;
fail:
    Py_DECREF(items);
    cr_value_free(list);
    return -1;
}

static PyObject *Registry_add_entry(RegistryObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"name", "class_name", "lifestyle", "dependencies", "description", "tags", "eager", NULL};
    PyObject *name, *class_name, *lifestyle = NULL, *dependencies = Py_None, *description = Py_None, *tags = Py_None;
    int eager = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "UU|OO$OOp:add_entry", kwlist, &name, &class_name, &lifestyle, &dependencies,
                                     &description, &tags, &eager))
        return NULL;
    cr_lifestyle life;
    if (parse_lifestyle(lifestyle, &life) < 0) return NULL;
    const char *cname = crpy_utf8(name, "an entry name"), *cclass = cname ? crpy_utf8(class_name, "a class name") : NULL;
    if (cclass == NULL) return NULL;
    const char *cdescription = NULL;
    if (description != Py_None) {
        if (!PyUnicode_Check(description)) {
            PyErr_Format(PyExc_TypeError, "description must be a str or None, not %.100s", Py_TYPE(description)->tp_name);
            return NULL;
        }
        if ((cdescription = crpy_utf8(description, "a description")) == NULL) return NULL;
    }
    cr_value *ctags = NULL;
    if (tags_from_python(tags, &ctags) < 0) return NULL;
    cr_value *deps = NULL;
    if (dependencies != Py_None && (deps = crpy_map_from_python(dependencies, "dependencies", "Registry.add_entry()")) == NULL) {
        cr_value_free(ctags);
        return NULL;
    }
    cr_entry_options options = CR_ENTRY_OPTIONS_INIT;
    options.lifestyle = life;
    options.dependencies = deps;
    options.description = cdescription;
    options.tags = ctags;
    options.eager = eager;
    cr_registry *reg = enter(self);
    int status = reg ? cr_add_entry_with(reg, cname, cclass, &options) : -1;
    if (reg) leave(self);
    cr_value_free(deps);
    cr_value_free(ctags);
    if (status < 0) return NULL;
    return load_done(self, status);
}

static PyObject *Registry_remove_entry(RegistryObject *self, PyObject *arg) {
    const char *cname = crpy_utf8(arg, "an entry name");
    if (cname == NULL) return NULL;
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    int status = cr_remove_entry(reg, cname);
    leave(self);
    return load_done(self, status);
}

static PyObject *Registry_entries(RegistryObject *self, PyObject *unused) {
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    cr_value *list = cr_registry_entries(reg);
    leave(self);
    if (list == NULL) return crpy_raise_last(CR_ERR_INVALID_ARGUMENT, NULL);
    PyObject *result = crpy_value_to_python(list, NULL);
    cr_value_free(list);
    return result;
}

/* A limit number as the library's enum: the int as given, checked to be one (-1 with
 * controllerreg.InvalidArgumentError otherwise: a negative or huge int is never wrapped round or cut
 * down to another limit's number). */
static int parse_limit(PyObject *arg, cr_limit *out) {
    int overflow = 0;
    long long n = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (n == -1 && PyErr_Occurred()) return -1;
    if (overflow != 0 || n < 0 || n > CR_LIMIT_CREATE_DEPTH) {
        PyObject *text =
            PyUnicode_FromFormat("unknown limit %R (the cr_limit numbers are 0 to %d)", arg, (int)CR_LIMIT_CREATE_DEPTH);
        if (text == NULL) return -1;
        crpy_raise_invalid(PyUnicode_AsUTF8(text));
        Py_DECREF(text);
        return -1;
    }
    *out = (cr_limit)n;
    return 0;
}

static PyObject *Registry_set_limit(RegistryObject *self, PyObject *args) {
    PyObject *limit_arg, *value_arg;
    if (!PyArg_ParseTuple(args, "OO:set_limit", &limit_arg, &value_arg)) return NULL;
    if (require_int(limit_arg, "set_limit", "limit") < 0 || require_int(value_arg, "set_limit", "value") < 0) return NULL;
    cr_limit limit;
    if (parse_limit(limit_arg, &limit) < 0) return NULL;
    /* The order of every method: the arguments' Python types and enums, then whether the registry
     * is open, then the values the library checks. A value past 64 bits is the library's "out of
     * range" error, as 0 or -1 are (never an OverflowError that names neither the limit nor the
     * range), so it is checked after the registry is known to be open, as they are. */
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(value_arg, &overflow);
    if (overflow != 0) {
        leave(self);
        PyObject *text =
            PyUnicode_FromFormat("a limit must be at least 1 and at most %lld, got %R", (long long)INT64_MAX, value_arg);
        if (text == NULL) return NULL;
        crpy_raise_invalid(PyUnicode_AsUTF8(text));
        Py_DECREF(text);
        return NULL;
    }
    int status = cr_registry_set_limit(reg, limit, (int64_t)value);
    leave(self);
    if (status != 0) return crpy_raise_status(status);
    Py_RETURN_NONE;
}

static PyObject *Registry_get_limit(RegistryObject *self, PyObject *arg) {
    if (require_int(arg, "get_limit", "limit") < 0) return NULL;
    cr_limit limit;
    if (parse_limit(arg, &limit) < 0) return NULL;
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    cr_clear_error();
    int64_t value = cr_registry_get_limit(reg, limit);
    leave(self);
    if (value < 0) return crpy_raise_last(CR_ERR_INVALID_ARGUMENT, NULL);
    return PyLong_FromLongLong((long long)value);
}

static PyObject *Registry_add_name_template(RegistryObject *self, PyObject *arg) {
    const char *t = crpy_utf8(arg, "a name template");
    if (t == NULL) return NULL;
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    int status = cr_add_name_template(reg, t);
    leave(self);
    return load_done(self, status);
}

static PyObject *Registry_start(RegistryObject *self, PyObject *unused) {
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    crpy_frame frame;
    crpy_frame_push(&frame, self->owned);
    int status;
    Py_BEGIN_ALLOW_THREADS status = cr_registry_start(reg);
    Py_END_ALLOW_THREADS leave(self);
    PyObject *result = status == 0 ? (Py_INCREF(Py_None), Py_None) : crpy_raise_last(status, &frame);
    crpy_frame_pop(&frame);
    return result;
}

/* -- reload ---------------------------------------------------------------------------------- */

/* _reload(): cr_registry_reload_with; the changes as {"added": [...], "removed": [...], "changed": [...]}. */
static PyObject *Registry_reload(RegistryObject *self, PyObject *unused) {
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    cr_value *changes = NULL;
    int status;
    Py_BEGIN_ALLOW_THREADS status = cr_registry_reload_with(reg, &changes);
    Py_END_ALLOW_THREADS leave(self);
    invalidate(self);
    if (status != 0) return crpy_raise_status(status);
    PyObject *result = crpy_value_to_python(changes, NULL);
    cr_value_free(changes);
    return result;
}

/* -- lifetime -------------------------------------------------------------------------------- */

static RegistryObject *wrap(PyTypeObject *type, cr_registry *reg, int owned, PyObject *parent) {
    RegistryObject *self = (RegistryObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        if (owned) cr_registry_free(reg);
        return NULL;
    }
    self->reg = reg;
    self->owned = owned;
    self->classes.prev = self->classes.next = &self->classes;
    self->children = PyList_New(0);
    self->singletons = owned ? PyDict_New() : NULL; /* the shared registry may change behind us */
    Py_XINCREF(parent);
    self->parent = parent;
    if (self->children == NULL || (owned && self->singletons == NULL)) {
        Py_DECREF(self);
        return NULL;
    }
    return self;
}

/* The callbacks take the GIL with PyGILState_Ensure, which knows only the main interpreter: a
 * registry made in a subinterpreter would wait for the GIL forever at its first factory call. (The
 * import check in module.c does not cover a subinterpreter importing the package after the main
 * one did: a single-phase module is then copied, not initialised again.) */
static int in_main_interpreter(void) {
    if (PyInterpreterState_Get() == PyInterpreterState_Main()) return 1;
    PyErr_SetString(PyExc_RuntimeError, "controllerreg cannot be used in a subinterpreter (use the main interpreter)");
    return 0;
}

static int Registry_init(RegistryObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, ":Registry", kwlist)) return -1;
    if (!in_main_interpreter()) return -1;
    if (self->reg != NULL || self->children != NULL) {
        PyErr_SetString(PyExc_RuntimeError, "Registry.__init__ called twice");
        return -1;
    }
    self->reg = cr_registry_new();
    if (self->reg == NULL) {
        crpy_raise_last(CR_ERR_NO_MEMORY, NULL);
        return -1;
    }
    self->owned = 1;
    self->classes.prev = self->classes.next = &self->classes;
    self->children = PyList_New(0);
    self->singletons = PyDict_New();
    return (self->children && self->singletons) ? 0 : -1;
}

static int close_impl(RegistryObject *self, int by_parent) {
    if (self->children != NULL) {
        Py_ssize_t n = PyList_GET_SIZE(self->children);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *child = PyWeakref_GetObject(PyList_GET_ITEM(self->children, i));
            if (child != NULL && child != Py_None && close_impl((RegistryObject *)child, 1) < 0) return -1;
        }
    }
    if (!self->owned || self->reg == NULL) return 0;
    if (self->active) {
        crpy_raise_invalid("Registry.close() while a call on it is in progress (a create, load or reload on this or "
                           "another thread, or the factory now running): close it once that call has returned");
        return -1;
    }
    cr_registry *reg = self->reg;
    self->reg = NULL;
    self->closed_with_parent = by_parent;
    if (self->singletons) PyDict_Clear(self->singletons);
    cr_registry_free(reg);               /* destroy and release callbacks run here (they take the GIL we hold) */
    crpy_classes_detach(&self->classes); /* released later, if a create on another thread still runs */
    return 0;
}

static PyObject *Registry_close(RegistryObject *self, PyObject *unused) {
    if (close_impl(self, 0) < 0) return NULL;
    Py_RETURN_NONE;
}

/* __reduce__ (pickle, copy.copy, copy.deepcopy): refused with what to do instead. A registry is the
 * library's native state plus this process's factories, which no pickle can carry. */
static PyObject *Registry_reduce(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyErr_SetString(PyExc_TypeError,
                    "a controllerreg Registry cannot be pickled or copied: it holds the library's native state and "
                    "this process's factories; where another registry is needed (another process, a copy), make a "
                    "Registry there, register the same classes and load the same config files or text");
    return NULL;
}

static PyObject *Registry_enter(RegistryObject *self, PyObject *unused) {
    Py_INCREF(self);
    return (PyObject *)self;
}

static PyObject *Registry_exit(RegistryObject *self, PyObject *args) {
    if (close_impl(self, 0) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *Registry_new_child(RegistryObject *self, PyObject *unused) {
    cr_registry *reg = enter(self);
    if (reg == NULL) return NULL;
    cr_registry *child_reg = cr_registry_new_child(reg);
    leave(self);
    if (child_reg == NULL) return crpy_raise_last(CR_ERR_INVALID_ARGUMENT, NULL);
    RegistryObject *child = wrap(Py_TYPE(self), child_reg, 1, (PyObject *)self);
    if (child == NULL) return NULL;
    PyObject *ref = PyWeakref_NewRef((PyObject *)child, NULL);
    if (ref == NULL || PyList_Append(self->children, ref) < 0) {
        Py_XDECREF(ref);
        Py_DECREF(child);
        return NULL;
    }
    Py_DECREF(ref);
    return (PyObject *)child;
}

static PyObject *Registry_shared(PyObject *type, PyObject *unused) {
    if (!in_main_interpreter()) return NULL;
    if (shared_instance == NULL) {
        cr_registry *reg = cr_shared();
        if (reg == NULL) return crpy_raise_last(CR_ERR_NO_MEMORY, NULL);
        shared_instance = (PyObject *)wrap((PyTypeObject *)type, reg, 0, NULL);
        if (shared_instance == NULL) return NULL;
    }
    Py_INCREF(shared_instance);
    return shared_instance;
}

static PyObject *Registry_get_closed(RegistryObject *self, void *unused) { return PyBool_FromLong(self->reg == NULL); }
static PyObject *Registry_get_is_shared(RegistryObject *self, void *unused) {
    return PyBool_FromLong(!self->owned && initialised(self));
}
static PyObject *Registry_get_parent(RegistryObject *self, void *unused) {
    PyObject *p = self->parent ? self->parent : Py_None;
    Py_INCREF(p);
    return p;
}

static void Registry_dealloc(RegistryObject *self) {
    PyObject_GC_UnTrack(self);
    if (self->weakrefs) PyObject_ClearWeakRefs((PyObject *)self);
    if (self->owned && self->reg != NULL && !self->active) {
        if (close_impl(self, 0) < 0) PyErr_WriteUnraisable((PyObject *)self);
    }
    if (self->classes.next != NULL) crpy_classes_detach(&self->classes);
    Py_CLEAR(self->singletons);
    Py_CLEAR(self->children);
    Py_CLEAR(self->parent);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The collector sees the callables of the registry's Python classes (the library holds them for
 * this registry), so a factory, on_destroy or setter that refers to its registry (a closure, a
 * bound method of an object that keeps the registry) is a cycle it can collect. */
static int Registry_traverse(RegistryObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->parent);
    Py_VISIT(self->children);
    Py_VISIT(self->singletons);
    Py_VISIT(Py_TYPE(self));
    if (self->classes.next != NULL) return crpy_classes_traverse(&self->classes, visit, arg);
    return 0;
}

/* A registry found unreachable (in a cycle) is closed before the collector clears anything, so
 * its singletons' on_destroy and its factories still see every object they refer to. */
static void Registry_finalize(RegistryObject *self) {
    if (!self->owned || self->reg == NULL || self->active) return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    if (close_impl(self, 0) < 0) PyErr_WriteUnraisable((PyObject *)self);
    PyErr_Restore(type, value, traceback);
}

static int Registry_clear(RegistryObject *self) {
    Py_CLEAR(self->singletons);
    Py_CLEAR(self->children);
    return 0;
}

static PyObject *Registry_repr(RegistryObject *self) {
    const char *state = !initialised(self) ? "never opened" : !self->owned ? "shared" : (self->reg == NULL ? "closed" : "open");
    return PyUnicode_FromFormat("<controllerreg.Registry %s at %p>", state, self);
}

static PyMethodDef Registry_methods[] = {
    {"create", (PyCFunction)(void (*)(void))Registry_create, METH_FASTCALL | METH_KEYWORDS,
     "create(name, props=None, /, **kwargs): builds entry `name` and returns the object its factory made."},
    {"inject", (PyCFunction)(void (*)(void))Registry_inject, METH_VARARGS | METH_KEYWORDS,
     "inject(name, object, setter=None): sets entry `name`'s dependencies on an existing object."},
    {"register_class", (PyCFunction)(void (*)(void))Registry_register_class, METH_VARARGS | METH_KEYWORDS,
     "register_class(class_name, factory, *, replace=False, on_destroy=None, setter=None, keywords=False): keywords=True "
     "calls factory(**args) instead of factory(args)."},
    {"replace_class", (PyCFunction)(void (*)(void))Registry_replace_class, METH_VARARGS | METH_KEYWORDS,
     "replace_class(class_name, factory, *, on_destroy=None, setter=None, keywords=False): registers or replaces."},
    {"load_file", (PyCFunction)(void (*)(void))Registry_load_file, METH_VARARGS | METH_KEYWORDS,
     "load_file(path, format='auto', *, override=False): loads a config file (all or nothing)."},
    {"load_files", (PyCFunction)(void (*)(void))Registry_load_files, METH_VARARGS | METH_KEYWORDS,
     "load_files(paths, format='auto', *, override=False): loads several files as one transaction."},
    {"load_string", (PyCFunction)(void (*)(void))Registry_load_string, METH_VARARGS | METH_KEYWORDS,
     "load_string(text, format='auto', *, override=False, source_name=None): loads config text."},
    {"add_entry", (PyCFunction)(void (*)(void))Registry_add_entry, METH_VARARGS | METH_KEYWORDS,
     "add_entry(name, class_name, lifestyle='transient', dependencies=None): adds one entry."},
    {"remove_entry", (PyCFunction)Registry_remove_entry, METH_O, "remove_entry(name): removes one entry."},
    {"entries", (PyCFunction)Registry_entries, METH_NOARGS, "entries(): every entry as a dict."},
    {"set_limit", (PyCFunction)Registry_set_limit, METH_VARARGS, "set_limit(limit, value)."},
    {"get_limit", (PyCFunction)Registry_get_limit, METH_O, "get_limit(limit) -> int."},
    {"add_name_template", (PyCFunction)Registry_add_name_template, METH_O,
     "add_name_template(template): e.g. '{name}ViewController'."},
    {"start", (PyCFunction)Registry_start, METH_NOARGS, "start(): builds every eager singleton now."},
    {"_reload", (PyCFunction)Registry_reload, METH_NOARGS, "_reload(): cr_registry_reload_with; the changes as a dict."},
    {"new_child", (PyCFunction)Registry_new_child, METH_NOARGS, "new_child(): a child registry."},
    {"close", (PyCFunction)Registry_close, METH_NOARGS, "close(): frees the registry (idempotent)."},
    {"shared", (PyCFunction)Registry_shared, METH_NOARGS | METH_CLASS, "shared(): the process-wide registry."},
    {"__reduce__", (PyCFunction)Registry_reduce, METH_NOARGS, "Refused: a registry cannot be pickled or copied."},
    {"__enter__", (PyCFunction)Registry_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)Registry_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Registry_getset[] = {
    {"closed", (getter)Registry_get_closed, NULL, "True once close() has freed the registry.", NULL},
    {"is_shared", (getter)Registry_get_is_shared, NULL, "True for the process-wide registry.", NULL},
    {"parent", (getter)Registry_get_parent, NULL, "The parent of a child registry, else None.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject crpy_RegistryType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "controllerreg._native.Registry",
    .tp_basicsize = sizeof(RegistryObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A controllerreg registry: classes (Python factories) plus config entries.",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Registry_init,
    .tp_dealloc = (destructor)Registry_dealloc,
    .tp_traverse = (traverseproc)Registry_traverse,
    .tp_clear = (inquiry)Registry_clear,
    .tp_finalize = (destructor)Registry_finalize,
    .tp_repr = (reprfunc)Registry_repr,
    .tp_methods = Registry_methods,
    .tp_getset = Registry_getset,
    .tp_weaklistoffset = offsetof(RegistryObject, weakrefs),
};
