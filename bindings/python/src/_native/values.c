/* cr_value <-> Python: a factory's args as a dict, props and dependencies as cr_value maps. */
#include "native.h"

static PyObject *foreign_type; /* controllerreg._types.ForeignObject */
static PyObject *mapping_abc;  /* collections.abc.Mapping */

int crpy_values_init(PyObject *module) {
    PyObject *types = PyImport_ImportModule("controllerreg._types");
    if (types == NULL) return -1;
    foreign_type = PyObject_GetAttrString(types, "ForeignObject");
    Py_DECREF(types);
    if (foreign_type == NULL) return -1;
    PyObject *abc = PyImport_ImportModule("collections.abc");
    if (abc == NULL) return -1;
    mapping_abc = PyObject_GetAttrString(abc, "Mapping");
    Py_DECREF(abc);
    return mapping_abc ? 0 : -1;
}

PyObject *crpy_foreign(void *object, int owner) {
    return PyObject_CallFunction(foreign_type, "Ki", (unsigned long long)(uintptr_t)object, owner);
}

void crpy_explain_not_utf8(PyObject *text, const char *what, const char *key) {
    if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) return;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    Py_ssize_t start = 0, end = 0;
    if (value == NULL || PyUnicodeEncodeError_GetStart(value, &start) < 0 || PyUnicodeEncodeError_GetEnd(value, &end) < 0) {
        PyErr_Clear();
        PyErr_Restore(type, value, traceback);
        return;
    }
    PyObject *reason =
        PyUnicode_FromFormat("%s%s%.200s%s holds a lone surrogate, which has no UTF-8 form (os.fsdecode and "
                             "errors='surrogateescape' leave one for each byte that is not UTF-8); decode the bytes in their "
                             "real encoding, or with errors='replace'",
                             what, key ? " '" : "", key ? key : "", key ? "'" : "");
    PyObject *explained =
        reason ? PyObject_CallFunction(PyExc_UnicodeEncodeError, "sOnnO", "utf-8", text, start, end, reason) : NULL;
    Py_XDECREF(reason);
    if (explained == NULL) {
        PyErr_Clear();
        PyErr_Restore(type, value, traceback);
        return;
    }
    Py_DECREF(type);
    Py_XDECREF(traceback);
    PyException_SetCause(explained, value); /* steals value: the codec's own error, for the record */
    PyErr_SetObject(PyExc_UnicodeEncodeError, explained);
    Py_DECREF(explained);
}

/* crpy_utf8 for the value of props key `key` (named in the errors; NULL for a list element). */
static const char *utf8_under(PyObject *text, const char *what, const char *key) {
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(text, &n);
    if (s == NULL) {
        crpy_explain_not_utf8(text, what, key);
        return NULL;
    }
    if ((size_t)n != strlen(s)) {
        if (key)
            PyErr_Format(PyExc_ValueError, "%s '%.200s' cannot contain NUL characters: %R", what, key, text);
        else
            PyErr_Format(PyExc_ValueError, "%s cannot contain NUL characters: %R", what, text);
        return NULL;
    }
    return s;
}

const char *crpy_utf8(PyObject *text, const char *what) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(text)->tp_name);
        return NULL;
    }
    return utf8_under(text, what, NULL);
}

/* -- args: cr_value -> Python ---------------------------------------------------------------- */

/* Keys of args maps repeat (the plans' dependency names, the props' keys): a small cache keyed by
 * the key's text turns them into the same interned str objects without decoding and interning
 * them again. GIL-protected. Only ASCII keys up to 64 bytes are cached. */
#define KEY_CACHE_SIZE 1024
static PyObject *key_cache[KEY_CACHE_SIZE];

/* The cache slot of a key of n bytes: a hash of its length and its first and last 8 bytes (every
 * byte when shorter), a constant cost per key instead of one step per byte. Keys that share all
 * three only share a slot; the text is compared on every hit. */
static uint64_t key_hash(const char *k, size_t n) {
    uint64_t h = n * 0x9E3779B97F4A7C15u;
    if (n >= 8) {
        uint64_t head, tail;
        memcpy(&head, k, 8);
        memcpy(&tail, k + n - 8, 8);
        h = (h ^ head) * 0xFF51AFD7ED558CCDu;
        h = (h ^ tail) * 0xC4CEB9FE1A85EC53u;
    } else {
        for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)k[i]) * 0x100000001B3u;
    }
    return h ^ (h >> 29);
}

static PyObject *key_object(const char *k) {
    if (k == NULL) return PyUnicode_FromStringAndSize("", 0);
    size_t n = strlen(k);
    if (n > 64) return PyUnicode_DecodeUTF8(k, (Py_ssize_t)n, "surrogateescape");
    PyObject **slot = &key_cache[key_hash(k, n) & (KEY_CACHE_SIZE - 1)];
    PyObject *cached = *slot;
    if (cached != NULL && PyUnicode_GET_LENGTH(cached) == (Py_ssize_t)n && memcmp(PyUnicode_DATA(cached), k, n) == 0) {
        Py_INCREF(cached);
        return cached;
    }
    PyObject *key = PyUnicode_DecodeUTF8(k, (Py_ssize_t)n, "surrogateescape");
    if (key == NULL || !PyUnicode_IS_COMPACT_ASCII(key)) return key;
    PyUnicode_InternInPlace(&key);
    Py_INCREF(key);
    Py_XSETREF(*slot, key);
    return key;
}

static PyObject *object_to_python(const cr_value *value, crpy_frame *frame) {
    int owner = (int)cr_value_owner(value);
    void *pointer = cr_value_object(value);
    PyObject *object = crpy_untag(pointer);
    if (object == NULL) return crpy_foreign(pointer, owner);
    if (owner == CR_OWNER_RECEIVER && frame != NULL) {
        /* The library's reference is ours now: the frame holds it until the whole call ends, so a
         * graph object reaching later receivers as CR_OWNER_SHARED stays valid. */
        if (frame->keep == NULL && (frame->keep = PyList_New(0)) == NULL) return NULL;
        if (PyList_Append(frame->keep, object) < 0) return NULL;
        Py_DECREF(object);
    }
    Py_INCREF(object);
    return object;
}

static PyObject *container_to_python(const cr_value *value, int kind, crpy_frame *frame);

PyObject *crpy_value_to_python(const cr_value *value, crpy_frame *frame) {
    if (value == NULL) Py_RETURN_NONE;
    int kind = (int)cr_value_kind(value);
    switch (kind) {
    case CR_NULL: Py_RETURN_NONE;
    case CR_BOOL: return PyBool_FromLong(cr_value_bool(value));
    case CR_INT: return PyLong_FromLongLong((long long)cr_value_int(value));
    case CR_DOUBLE: return PyFloat_FromDouble(cr_value_double(value));
    case CR_STRING: {
        size_t n = 0;
        const char *s = cr_value_string_with_length(value, &n);
        return PyUnicode_DecodeUTF8(s ? s : "", (Py_ssize_t)(s ? n : 0), "surrogateescape");
    }
    case CR_LIST:
    case CR_MAP: {
        /* Props a C host built may nest to any depth: each level counts against Python's
         * recursion limit (RecursionError) instead of overflowing the C stack. */
        if (Py_EnterRecursiveCall(" while converting nested args")) return NULL;
        PyObject *result = container_to_python(value, kind, frame);
        Py_LeaveRecursiveCall();
        return result;
    }
    case CR_OBJECT: return object_to_python(value, frame);
    case CR_PROVIDER: {
        PyObject *provider = crpy_provider_new(cr_value_provider(value), frame != NULL && frame->private_registry);
        if (provider != NULL && frame != NULL) {
            if (frame->keep == NULL && (frame->keep = PyList_New(0)) == NULL) goto provider_fail;
            if (PyList_Append(frame->keep, provider) < 0) goto provider_fail;
        }
        return provider;
    provider_fail:
        Py_DECREF(provider);
        return NULL;
    }
    default: Py_RETURN_NONE;
    }
}

/* A list or map of args as a new list or dict. */
static PyObject *container_to_python(const cr_value *value, int kind, crpy_frame *frame) {
    if (kind == CR_LIST) {
        size_t n = cr_value_count(value);
        PyObject *list = PyList_New((Py_ssize_t)n);
        if (list == NULL) return NULL;
        for (size_t i = 0; i < n; i++) {
            PyObject *item = crpy_value_to_python(cr_list_at(value, i), frame);
            if (item == NULL) {
                Py_DECREF(list);
                return NULL;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)i, item);
        }
        return list;
    }
    size_t n = cr_value_count(value);
#if PY_VERSION_HEX < 0x030D0000
    PyObject *dict = _PyDict_NewPresized((Py_ssize_t)n);
#else
    PyObject *dict = PyDict_New(); /* 3.13 hid _PyDict_NewPresized */
#endif
    if (dict == NULL) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *key = key_object(cr_map_key_at(value, i));
        if (key == NULL) goto map_fail;
        PyObject *item = crpy_value_to_python(cr_map_value_at(value, i), frame);
        if (item == NULL) {
            Py_DECREF(key);
            goto map_fail;
        }
        int rc = PyDict_SetItem(dict, key, item);
        Py_DECREF(key);
        Py_DECREF(item);
        if (rc < 0) goto map_fail;
    }
    return dict;
map_fail:
    Py_DECREF(dict);
    return NULL;
}

/* -- props: Python -> cr_value --------------------------------------------------------------- */

/* Where a conversion is: the root's name, and for each level below it the container met there and
 * the key (a str, borrowed from the container being read) or list index that leads down from it.
 * Level 0 is the root map (NULL when it is a call's keyword arguments); a container at level n
 * nests n levels deep. Containers are converted recursively, so the path also bounds the depth. */
typedef struct value_path {
    const char *method;   /* the call, for messages ("Registry.create()") */
    const char *root;     /* the root's name ("props", "dependencies") */
    int for_dependencies; /* the root is an entry's dependencies (objects are not allowed there) */
    Py_ssize_t depth;     /* the level being converted */
    PyObject *containers[CR_VALUE_NESTING_MAX + 2];
    PyObject *keys[CR_VALUE_NESTING_MAX + 2]; /* a str key, or NULL: then indexes[] holds the index */
    Py_ssize_t indexes[CR_VALUE_NESTING_MAX + 2];
} value_path;

/* The text of the path down to level `levels` (props['a'][0]...); past 8 levels, the first 8 and
 * how deep it goes. */
static PyObject *path_text(const value_path *path, Py_ssize_t levels) {
    PyObject *text = PyUnicode_FromString(path->root);
    for (Py_ssize_t i = 0; text != NULL && i < levels && i < 8; i++) {
        PyObject *part =
            path->keys[i] ? PyUnicode_FromFormat("[%R]", path->keys[i]) : PyUnicode_FromFormat("[%zd]", path->indexes[i]);
        PyObject *longer = part ? PyUnicode_Concat(text, part) : NULL;
        Py_XDECREF(part);
        Py_SETREF(text, longer);
    }
    if (text != NULL && levels > 8) {
        PyObject *longer = PyUnicode_FromFormat("%U...(%zd levels down)", text, levels);
        Py_SETREF(text, longer);
    }
    return text;
}

/* Raises controllerreg.LimitError for a container met past CR_VALUE_NESTING_MAX levels: naming
 * the loop when the value contains itself (a container met twice on the path), else the path
 * down to the level past the bound. */
static int too_deep(const value_path *path) {
    PyObject *text = NULL;
    const char *fix = path->for_dependencies
        ? "flatten the value, or pass the deep data in props when creating, inside an object of your own"
        : "flatten the value, or pass the deep data inside an object of your own (anything but a list, "
          "tuple or mapping arrives in args as itself)";
    for (Py_ssize_t j = 1; j <= path->depth && text == NULL; j++) {
        for (Py_ssize_t i = 0; i < j; i++) {
            if (path->containers[i] == NULL || path->containers[i] != path->containers[j]) continue;
            PyObject *inner = path_text(path, j), *outer = path_text(path, i);
            if (inner != NULL && outer != NULL)
                text = PyUnicode_FromFormat("%s: %U is %U itself: the value contains itself, so it never ends; %s", path->method,
                                            inner, outer, "pass a copy without the loop");
            Py_XDECREF(inner);
            Py_XDECREF(outer);
            if (text == NULL) return -1;
            break;
        }
    }
    if (text == NULL) {
        PyObject *where = path_text(path, path->depth);
        if (where == NULL) return -1;
        text = PyUnicode_FromFormat("%s: %U nests deeper than %d levels (CR_VALUE_NESTING_MAX, a fixed bound); %s", path->method,
                                    where, CR_VALUE_NESTING_MAX, fix);
        Py_DECREF(where);
        if (text == NULL) return -1;
    }
    const char *utf8 = PyUnicode_AsUTF8(text);
    if (utf8 != NULL) crpy_raise_code(CR_ERR_LIMIT, utf8);
    Py_DECREF(text);
    return -1;
}

static cr_value *container_from_python(PyObject *value, value_path *path);

static int check(int status) {
    if (status == 0) return 0;
    crpy_raise_status(status);
    return -1;
}

static int int64_of(PyObject *value, int64_t *out) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow) {
        PyErr_Format(PyExc_OverflowError, "integer %R does not fit in 64 bits", value);
        return -1;
    }
    if (v == -1 && PyErr_Occurred()) return -1;
    *out = (int64_t)v;
    return 0;
}

static void *object_pointer(PyObject *value) {
    if (PyObject_TypeCheck(value, (PyTypeObject *)foreign_type)) {
        PyObject *address = PyObject_GetAttrString(value, "address");
        if (address == NULL) return NULL;
        void *p = (void *)(uintptr_t)PyLong_AsUnsignedLongLong(address);
        Py_DECREF(address);
        return p;
    }
    return crpy_tag(value);
}

/* A list (list, tuple) or a map: a dict, or any other mapping, which the stub's Mapping[str, Any]
 * promises (os.environ, ChainMap, UserDict, a collections.abc.Mapping of the host's: Python
 * classes with __getitem__ also pass PySequence_Check, so the ABC decides for them). Only types
 * with a subscript are asked the ABC, so plain objects cost no isinstance. */
static int is_container(PyObject *value) {
    if (PyDict_Check(value) || PyList_Check(value) || PyTuple_Check(value)) return 1;
    if (PyUnicode_Check(value) || !PyMapping_Check(value)) return 0;
    if (!PySequence_Check(value) && PyObject_HasAttrString(value, "items")) return 1;
    int is_mapping = PyObject_IsInstance(value, mapping_abc);
    if (is_mapping < 0) PyErr_Clear();
    return is_mapping == 1;
}

static int map_set(cr_value *map, const char *key, PyObject *value, value_path *path) {
    if (value == Py_None) return check(cr_map_set_null(map, key));
    if (PyBool_Check(value)) return check(cr_map_set_bool(map, key, value == Py_True));
    if (PyLong_Check(value)) {
        int64_t v;
        if (int64_of(value, &v) < 0) return -1;
        return check(cr_map_set_int(map, key, v));
    }
    if (PyFloat_Check(value)) return check(cr_map_set_double(map, key, PyFloat_AS_DOUBLE(value)));
    if (PyUnicode_Check(value)) {
        const char *s = utf8_under(value, "the props string under key", key);
        return s ? check(cr_map_set_string(map, key, s)) : -1;
    }
    if (is_container(value)) {
        cr_value *c = container_from_python(value, path);
        return c ? check(cr_map_set_value(map, key, c)) : -1;
    }
    void *p = object_pointer(value);
    if (p == NULL && PyErr_Occurred()) return -1;
    return check(cr_map_set_object(map, key, p));
}

static int list_push(cr_value *list, PyObject *value, value_path *path) {
    if (value == Py_None) return check(cr_list_push_null(list));
    if (PyBool_Check(value)) return check(cr_list_push_bool(list, value == Py_True));
    if (PyLong_Check(value)) {
        int64_t v;
        if (int64_of(value, &v) < 0) return -1;
        return check(cr_list_push_int(list, v));
    }
    if (PyFloat_Check(value)) return check(cr_list_push_double(list, PyFloat_AS_DOUBLE(value)));
    if (PyUnicode_Check(value)) {
        const char *s = crpy_utf8(value, "a props list's string");
        return s ? check(cr_list_push_string(list, s)) : -1;
    }
    if (is_container(value)) {
        cr_value *c = container_from_python(value, path);
        return c ? check(cr_list_push_value(list, c)) : -1;
    }
    void *p = object_pointer(value);
    if (p == NULL && PyErr_Occurred()) return -1;
    return check(cr_list_push_object(list, p));
}

/* Sets every (key, value) of `mapping` (the container at the path's current level) into `map`. */
static int map_fill(cr_value *map, PyObject *mapping, value_path *path) {
    if (PyDict_Check(mapping)) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(mapping, &pos, &key, &value)) {
            if (!PyUnicode_Check(key)) {
                PyErr_Format(PyExc_TypeError, "props keys must be str, not %.100s (%R)", Py_TYPE(key)->tp_name, key);
                return -1;
            }
            const char *k = crpy_utf8(key, "a props key");
            if (k == NULL) return -1;
            Py_INCREF(value);
            path->keys[path->depth] = key;
            int rc = map_set(map, k, value, path);
            Py_DECREF(value);
            if (rc < 0) return -1;
        }
        return 0;
    }
    PyObject *items = PyMapping_Items(mapping);
    if (items == NULL) return -1;
    PyObject *dict = PyDict_New();
    int rc = -1;
    if (dict != NULL && PyDict_MergeFromSeq2(dict, items, 1) == 0) rc = map_fill(map, dict, path);
    Py_XDECREF(dict);
    Py_DECREF(items);
    return rc;
}

/* A nested list or map, one level below the path's current one. Each level also counts against
 * Python's recursion limit (a mapping's own Python code runs in between). */
static cr_value *container_from_python_nested(PyObject *value, value_path *path);

static cr_value *container_from_python(PyObject *value, value_path *path) {
    path->depth++;
    path->containers[path->depth] = value;
    path->keys[path->depth] = NULL;
    cr_value *result = NULL;
    if (path->depth > CR_VALUE_NESTING_MAX)
        too_deep(path);
    else if (!Py_EnterRecursiveCall(" while converting a nested list or mapping")) {
        result = container_from_python_nested(value, path);
        Py_LeaveRecursiveCall();
    }
    path->depth--;
    return result;
}

static cr_value *container_from_python_nested(PyObject *value, value_path *path) {
    if (PyList_Check(value) || PyTuple_Check(value)) {
        cr_value *list = cr_list_new();
        if (list == NULL) return (cr_value *)crpy_raise_last(CR_ERR_NO_MEMORY, NULL);
        PyObject *fast = PySequence_Fast(value, "a list");
        if (fast == NULL) goto fail_list;
        Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
        for (Py_ssize_t i = 0; i < n; i++) {
            path->indexes[path->depth] = i;
            if (list_push(list, PySequence_Fast_GET_ITEM(fast, i), path) < 0) {
                Py_DECREF(fast);
                goto fail_list;
            }
        }
        Py_DECREF(fast);
        return list;
    fail_list:
        cr_value_free(list);
        return NULL;
    }
    cr_value *map = cr_map_new();
    if (map == NULL) return (cr_value *)crpy_raise_last(CR_ERR_NO_MEMORY, NULL);
    if (map_fill(map, value, path) < 0) {
        cr_value_free(map);
        return NULL;
    }
    return map;
}

cr_value *crpy_map_from_python(PyObject *mapping, const char *what, const char *method) {
    if (!is_container(mapping) || PyList_Check(mapping) || PyTuple_Check(mapping)) {
        PyErr_Format(PyExc_TypeError, "%s must be a mapping, not %.100s", what, Py_TYPE(mapping)->tp_name);
        return NULL;
    }
    value_path path = {.method = method, .root = what, .for_dependencies = 1, .depth = -1};
    return container_from_python(mapping, &path);
}

int crpy_props_build(PyObject *props, PyObject *const *kwvalues, PyObject *kwnames, const char *method, cr_value **out) {
    *out = NULL;
    int has_props = 0;
    if (props != NULL && props != Py_None) {
        if (!is_container(props) || PyList_Check(props) || PyTuple_Check(props)) {
            PyErr_Format(PyExc_TypeError, "props must be a mapping, not %.100s", Py_TYPE(props)->tp_name);
            return -1;
        }
        Py_ssize_t n = PyObject_Length(props);
        if (n < 0) return -1;
        has_props = n > 0;
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (!has_props && nkw == 0) return 0;
    cr_value *map = cr_map_new();
    if (map == NULL) {
        crpy_raise_last(CR_ERR_NO_MEMORY, NULL);
        return -1;
    }
    value_path path = {.method = method, .root = "props", .depth = 0};
    path.containers[0] = has_props ? props : NULL;
    if (has_props && map_fill(map, props, &path) < 0) goto fail;
    path.containers[0] = NULL; /* keyword arguments: a tuple of names, no container of ours */
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        const char *k = crpy_utf8(key, "a props key");
        path.keys[0] = key;
        if (k == NULL || map_set(map, k, kwvalues[i], &path) < 0) goto fail;
    }
    *out = map;
    return 0;
fail:
    cr_value_free(map);
    return -1;
}
