// controllerreg.hpp — header-only C++17 bindings for libcontrollerreg.
//
// A thin, zero-magic layer over include/controllerreg.h:
//
//   controllerreg::Registry reg;                                   // RAII, move-only
//   reg.register_class("Test2ViewController", [](controllerreg::Args) { return new Test2(); });
//   reg.register_class("Test1ViewController", [](controllerreg::Args a) {
//       return std::make_unique<Test1>(a.get<std::string>("dependentString"),
//                                      a.get<int64_t>("dependentInt"),
//                                      a.object<Test2>("test2ViewController"));
//   });
//   reg.load_file("example.yaml");
//   auto t1 = reg.create<Test1>("Test1", {{"color", "red"}, {"number", 1}});
//
// ERRORS
//   Every failing C call becomes a controllerreg::Error (a std::runtime_error) carrying the
//   cr_status code() and the library's message. Reading an argument of the wrong kind throws
//   Error with code() == CR_ERR_TYPE; reading a missing key throws CR_ERR_NOT_FOUND.
//   An exception thrown by a factory never crosses the C boundary: the trampoline catches it,
//   passes e.what() to cr_report_error and returns NULL, so the create fails with
//   CR_ERR_CREATE_FAILED and the exception's text in the message.
//
// OWNERSHIP (see the OWNERSHIP section of controllerreg.h)
//   - Registry owns its cr_registry (freed in the destructor); Registry::shared() is a
//     non-owning view of cr_shared(), which is never freed.
//   - A factory registered with register_class is moved to the heap and freed by the registry
//     (the cr_class release callback) when the registry is freed or the class replaced.
//   - Objects made by a class registered from C++ are destroyed with `delete` on the exact type
//     the factory returned (the class's destroy callback does this for rollbacks).
//   - create<T>() returns Ptr<T> = std::unique_ptr<T, Deleter>; the Deleter deletes the object as
//     the type its factory returned, so create<Base>() of a Derived is fine without a virtual
//     destructor. create<T>() checks that the factory's type converts to T* (else CR_ERR_TYPE).
//   - Inside a factory, objects in args are borrowed views: Args::object<T>() returns a raw T*.
//     If owner() of the key is Owner::Receiver (the registry built it for this call) and the
//     factory succeeds, the new object owns it (keep it, e.g. in a std::unique_ptr member, or
//     delete it). If the factory throws or returns null, the registry destroys it instead — so
//     take ownership only at the point where nothing can throw any more (e.g. adopt it in the
//     returned object's noexcept constructor). Owner::Caller objects came from props and stay
//     the caller's; Owner::Registry objects (singletons) are never to be deleted.
//
// THREADS
//   Registry is as thread-safe as the C registry (creates from many threads at once; loads and
//   registrations serialised). Factories may be called on any thread that calls create; they
//   may call create themselves. Props and Value are not synchronised.
#ifndef CONTROLLERREG_HPP
#define CONTROLLERREG_HPP

#include <controllerreg.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace controllerreg {

// ---------------------------------------------------------------------------------------------
// Errors

/// A failed library call: code() is a cr_status (CR_ERR_*), what() the library's message.
class Error : public std::runtime_error {
public:
    Error(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
    /// The cr_status code (never CR_OK).
    int code() const noexcept { return code_; }
    /// A short fixed name for code() ("cycle", "not found", ...).
    const char *status_name() const noexcept { return cr_status_name(code_); }

private:
    int code_;
};

namespace detail {
/// Throws the calling thread's last library error (code falls back to `fallback` if unset).
[[noreturn]] inline void throw_last_error(int fallback = CR_ERR_INVALID_ARGUMENT, const char *context = nullptr) {
    int code = cr_last_error_code();
    std::string message = cr_last_error_message();
    if (code == CR_OK) code = fallback;
    if (message.empty() && context) message = context;
    throw Error(code, message);
}

inline void check(int status, const char *context = nullptr) {
    if (status == CR_OK) return;
    std::string message = cr_last_error_message();
    if (cr_last_error_code() != status || message.empty()) message = context ? context : cr_status_name(status);
    throw Error(status, message);
}
} // namespace detail

/// The library's run-time version string, e.g. "1.0.0".
inline const char *version() noexcept { return cr_version(); }

// ---------------------------------------------------------------------------------------------
// Enums

/// Config formats (cr_format).
enum class Format { Auto = CR_FORMAT_AUTO, Json = CR_FORMAT_JSON, Yaml = CR_FORMAT_YAML, Plist = CR_FORMAT_PLIST };

/// Value kinds (cr_kind).
enum class Kind { Null = CR_NULL, Bool = CR_BOOL, Int = CR_INT, Double = CR_DOUBLE, String = CR_STRING,
                  List = CR_LIST, Map = CR_MAP, Object = CR_OBJECT, Provider = CR_PROVIDER };

/// Who owns an object found in args (cr_owner).
enum class Owner { None = CR_OWNER_NONE, Receiver = CR_OWNER_RECEIVER, Registry = CR_OWNER_REGISTRY,
                   Caller = CR_OWNER_CALLER, Shared = CR_OWNER_SHARED };

/// Entry lifestyles (cr_lifestyle).
enum class Lifestyle { Transient = CR_LIFESTYLE_TRANSIENT, Singleton = CR_LIFESTYLE_SINGLETON, Graph = CR_LIFESTYLE_GRAPH };

/// A readable name for a kind ("int", "map", ...).
inline const char *kind_name(Kind k) noexcept {
    switch (k) {
    case Kind::Null: return "null";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Double: return "double";
    case Kind::String: return "string";
    case Kind::List: return "list";
    case Kind::Map: return "map";
    case Kind::Object: return "object";
    case Kind::Provider: return "provider";
    }
    return "unknown";
}

// ---------------------------------------------------------------------------------------------
// Reading values (args)

class Value;
class Provider;

namespace detail {
template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct always_false : std::false_type {};
} // namespace detail

/// A borrowed, read-only view of a cr_value (an argument, or an element of one). Valid only as
/// long as the value it views (inside a factory: until the factory returns). Cheap to copy.
class Value {
public:
    Value() noexcept = default;
    explicit Value(const cr_value *v, std::string path = std::string()) noexcept : v_(v), path_(std::move(path)) {}

    /// The underlying C value (may be NULL for an absent value, which reads as Kind::Null).
    const cr_value *get() const noexcept { return v_; }
    Kind kind() const noexcept { return v_ ? static_cast<Kind>(cr_value_kind(v_)) : Kind::Null; }
    bool is_null() const noexcept { return kind() == Kind::Null; }
    bool is_map() const noexcept { return kind() == Kind::Map; }
    bool is_list() const noexcept { return kind() == Kind::List; }

    /// Element count of a list or map, byte length of a string, 0 otherwise.
    std::size_t size() const noexcept { return v_ ? cr_value_count(v_) : 0; }

    /// The element at `index` of a list. Throws Error (CR_ERR_TYPE if not a list, CR_ERR_LIMIT if out of range).
    Value operator[](std::size_t index) const {
        expect(Kind::List);
        if (index >= size())
            throw Error(CR_ERR_LIMIT, where() + "index " + std::to_string(index) + " out of range (size " + std::to_string(size()) + ")");
        return Value(cr_list_at(v_, index), path_ + "[" + std::to_string(index) + "]");
    }
    /// Any integer index (so that list[0] is not taken for a NULL key).
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
    Value operator[](I index) const {
        if constexpr (std::is_signed_v<I>)
            if (index < 0) throw Error(CR_ERR_LIMIT, where() + "negative index");
        return (*this)[static_cast<std::size_t>(index)];
    }
    /// The value under `key` of a map. Throws Error (CR_ERR_TYPE if not a map, CR_ERR_NOT_FOUND if absent).
    Value operator[](const std::string &key) const {
        auto found = find_value(key);
        if (!found) throw Error(CR_ERR_NOT_FOUND, where() + "missing key '" + key + "'");
        return *found;
    }
    Value operator[](const char *key) const { return (*this)[std::string(key)]; }

    /// True if this is a map that has `key`.
    bool has(const std::string &key) const noexcept { return kind() == Kind::Map && cr_map_get(v_, key.c_str()) != nullptr; }

    /// The value under `key` of a map, or nullopt if absent. Throws CR_ERR_TYPE if not a map.
    std::optional<Value> find_value(const std::string &key) const {
        expect(Kind::Map);
        const cr_value *e = cr_map_get(v_, key.c_str());
        if (!e) return std::nullopt;
        return Value(e, child_path(key));
    }

    /// The key at `index` of a map (in order). Throws CR_ERR_TYPE if not a map.
    std::string_view key_at(std::size_t index) const {
        expect(Kind::Map);
        const char *k = cr_map_key_at(v_, index);
        if (!k) throw Error(CR_ERR_LIMIT, where() + "index " + std::to_string(index) + " out of range");
        return k;
    }
    /// The value at `index` of a map (in order). Throws CR_ERR_TYPE if not a map.
    Value value_at(std::size_t index) const {
        expect(Kind::Map);
        const cr_value *e = cr_map_value_at(v_, index);
        if (!e) throw Error(CR_ERR_LIMIT, where() + "index " + std::to_string(index) + " out of range");
        return Value(e, child_path(std::string(key_at(index))));
    }
    /// All keys of a map, in order.
    std::vector<std::string> keys() const {
        std::vector<std::string> out;
        for (std::size_t i = 0, n = size(); i < kind_count(Kind::Map, n); ++i) out.emplace_back(key_at(i));
        return out;
    }

    /// Who owns the object of a Kind::Object value (Owner::None for other kinds).
    Owner owner() const noexcept { return v_ ? static_cast<Owner>(cr_value_owner(v_)) : Owner::None; }

    /// The value converted to T. Supported: bool; any integer type (from Kind::Int, range-checked);
    /// double/float (from Kind::Double or Kind::Int); std::string and std::string_view (the view
    /// lives as long as the value); U* (from Kind::Object, or nullptr from Kind::Null; not
    /// type-checked: U must be the type the producing factory returned); Value;
    /// std::optional<U> (nullopt for Kind::Null); std::vector<U> (from Kind::List).
    /// Throws Error with CR_ERR_TYPE when the kind does not fit.
    template <class T> T as() const {
        using U = std::remove_cv_t<T>;
        if constexpr (std::is_same_v<U, Value>) {
            return *this;
        } else if constexpr (std::is_same_v<U, bool>) {
            expect(Kind::Bool);
            return cr_value_bool(v_) != 0;
        } else if constexpr (std::is_integral_v<U>) {
            expect(Kind::Int);
            int64_t n = cr_value_int(v_);
            if constexpr (std::is_unsigned_v<U>) {
                if (n < 0 || static_cast<uint64_t>(n) > static_cast<uint64_t>(std::numeric_limits<U>::max()))
                    throw Error(CR_ERR_TYPE, where() + std::to_string(n) + " does not fit the requested integer type");
            } else {
                if (n < static_cast<int64_t>(std::numeric_limits<U>::min()) || n > static_cast<int64_t>(std::numeric_limits<U>::max()))
                    throw Error(CR_ERR_TYPE, where() + std::to_string(n) + " does not fit the requested integer type");
            }
            return static_cast<U>(n);
        } else if constexpr (std::is_floating_point_v<U>) {
            Kind k = kind();
            if (k != Kind::Double && k != Kind::Int) throw kind_error("a number");
            return static_cast<U>(cr_value_double(v_));
        } else if constexpr (std::is_same_v<U, std::string>) {
            expect(Kind::String);
            return std::string(cr_value_string(v_), cr_value_string_length(v_));
        } else if constexpr (std::is_same_v<U, std::string_view>) {
            expect(Kind::String);
            return std::string_view(cr_value_string(v_), cr_value_string_length(v_));
        } else if constexpr (std::is_pointer_v<U>) {
            if (kind() == Kind::Null) return nullptr;
            expect(Kind::Object);
            return static_cast<U>(cr_value_object(v_));
        } else if constexpr (detail::is_optional<U>::value) {
            if (kind() == Kind::Null) return std::nullopt;
            return as<typename U::value_type>();
        } else if constexpr (detail::is_vector<U>::value) {
            expect(Kind::List);
            U out;
            out.reserve(size());
            for (std::size_t i = 0, n = size(); i < n; ++i) out.push_back((*this)[i].template as<typename U::value_type>());
            return out;
        } else {
            static_assert(detail::always_false<T>::value, "controllerreg::Value::as<T>: unsupported type");
        }
    }

    /// Shorthands on maps: the value under `key` converted to T (throws if absent or of the wrong kind).
    template <class T> T get(const std::string &key) const { return (*this)[key].template as<T>(); }
    /// The value under `key` converted to T, or nullopt if absent (throws if present with the wrong kind).
    template <class T> std::optional<T> find(const std::string &key) const {
        auto v = find_value(key);
        if (!v) return std::nullopt;
        return v->template as<T>();
    }
    /// The value under `key` converted to T, or `fallback` if absent.
    template <class T> T get_or(const std::string &key, T fallback) const {
        auto v = find<T>(key);
        return v ? std::move(*v) : std::move(fallback);
    }
    /// The object under `key` as T* (Kind::Object; nullptr for Kind::Null). Not type-checked.
    template <class T> T *object(const std::string &key) const { return get<T *>(key); }
    /// Takes the provider under `key` (Kind::Provider; `{Provider: Name}` in the config). The
    /// returned Provider owns it; see Provider for the rules. Throws CR_ERR_TYPE / CR_ERR_NOT_FOUND.
    Provider provider(const std::string &key) const;
    /// Takes the provider this value holds (Kind::Provider).
    Provider as_provider() const;

    /// Who owns the object under `key` (Owner::None if absent or not an object).
    Owner owner(const std::string &key) const {
        auto v = find_value(key);
        return v ? v->owner() : Owner::None;
    }

private:
    std::string where() const { return path_.empty() ? std::string() : "'" + path_ + "': "; }
    std::string child_path(const std::string &key) const { return path_.empty() ? key : path_ + "." + key; }
    std::size_t kind_count(Kind k, std::size_t n) const { return kind() == k ? n : 0; }
    Error kind_error(const char *expected) const {
        return Error(CR_ERR_TYPE, where() + "expected " + expected + ", got " + kind_name(kind()));
    }
    void expect(Kind k) const {
        if (kind() != k) throw kind_error(kind_name(k));
    }

    const cr_value *v_ = nullptr;
    std::string path_;
};

/// The argument map a factory receives: resolved dependencies merged with props (props win).
/// A borrowed view, valid until the factory returns. All Value accessors apply
/// (args.get<int64_t>("number"), args.find<std::string>("color"), args.object<Test2>("t2"), ...).
class Args : public Value {
public:
    explicit Args(const cr_value *v) noexcept : Value(v) {}
};

// ---------------------------------------------------------------------------------------------
// Building values (props)

/// One props value: null, bool, integer, double, string, object pointer, list or map.
/// Implicitly constructible, so Props{{"color", "red"}, {"number", 1}, {"view", ptr}} works;
/// nest with PropValue::list({...}) and PropValue::map({{...}}).
class PropValue {
public:
    enum class Type { Null, Bool, Int, Double, String, Object, List, Map };

    PropValue() noexcept = default;
    PropValue(std::nullptr_t) noexcept {}
    PropValue(bool b) noexcept : type_(Type::Bool), i_(b ? 1 : 0) {}
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> &&
                                            !std::is_same_v<I, char>, int> = 0>
    PropValue(I n) : type_(Type::Int), i_(static_cast<int64_t>(n)) {
        if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(int64_t))
            if (n > static_cast<I>(std::numeric_limits<int64_t>::max()))
                throw Error(CR_ERR_INVALID_ARGUMENT, "integer prop out of the int64_t range");
    }
    PropValue(double d) noexcept : type_(Type::Double), d_(d) {}
    PropValue(float d) noexcept : type_(Type::Double), d_(d) {}
    PropValue(const char *s) : type_(s ? Type::String : Type::Null), s_(s ? s : "") {}
    PropValue(std::string s) noexcept : type_(Type::String), s_(std::move(s)) {}
    PropValue(std::string_view s) : type_(Type::String), s_(s) {}
    /// An object pointer (not owned by the props; the caller keeps it: Owner::Caller in args).
    template <class T, std::enable_if_t<!std::is_same_v<std::remove_cv_t<T>, char>, int> = 0>
    PropValue(T *object) noexcept : type_(object ? Type::Object : Type::Null), o_(const_cast<void *>(static_cast<const void *>(object))) {}

    /// A nested list.
    static PropValue list(std::vector<PropValue> items) {
        PropValue v;
        v.type_ = Type::List;
        v.items_ = std::make_shared<std::vector<PropValue>>(std::move(items));
        return v;
    }
    /// A nested map.
    static PropValue map(std::vector<std::pair<std::string, PropValue>> entries) {
        PropValue v;
        v.type_ = Type::Map;
        v.entries_ = std::make_shared<std::vector<std::pair<std::string, PropValue>>>(std::move(entries));
        return v;
    }

    Type type() const noexcept { return type_; }

    /// Stores this value under `key` in a map you own (C++ side of cr_map_set_*). Throws Error.
    void set_in(cr_value *map, const char *key) const {
        int rc = CR_OK;
        switch (type_) {
        case Type::Null: rc = cr_map_set_null(map, key); break;
        case Type::Bool: rc = cr_map_set_bool(map, key, static_cast<int>(i_)); break;
        case Type::Int: rc = cr_map_set_int(map, key, i_); break;
        case Type::Double: rc = cr_map_set_double(map, key, d_); break;
        case Type::String: check_string(); rc = cr_map_set_string(map, key, s_.c_str()); break;
        case Type::Object: rc = cr_map_set_object(map, key, o_); break;
        case Type::List:
        case Type::Map: rc = cr_map_set_value(map, key, build_container()); break;
        }
        detail::check(rc, "setting a prop failed");
    }
    /// Appends this value to a list you own (cr_list_push_*). Throws Error.
    void push_to(cr_value *list) const {
        int rc = CR_OK;
        switch (type_) {
        case Type::Null: rc = cr_list_push_null(list); break;
        case Type::Bool: rc = cr_list_push_bool(list, static_cast<int>(i_)); break;
        case Type::Int: rc = cr_list_push_int(list, i_); break;
        case Type::Double: rc = cr_list_push_double(list, d_); break;
        case Type::String: check_string(); rc = cr_list_push_string(list, s_.c_str()); break;
        case Type::Object: rc = cr_list_push_object(list, o_); break;
        case Type::List:
        case Type::Map: rc = cr_list_push_value(list, build_container()); break;
        }
        detail::check(rc, "appending a prop failed");
    }

private:
    void check_string() const {
        if (s_.find('\0') != std::string::npos)
            throw Error(CR_ERR_INVALID_ARGUMENT, "prop strings cannot contain NUL bytes");
    }
    // A new cr_value for a nested list/map (ownership passes to cr_*_set_value / push_value).
    cr_value *build_container() const {
        cr_value *c = type_ == Type::List ? cr_list_new() : cr_map_new();
        if (!c) detail::throw_last_error(CR_ERR_NO_MEMORY);
        try {
            if (type_ == Type::List) {
                for (const auto &item : *items_) item.push_to(c);
            } else {
                for (const auto &entry : *entries_) entry.second.set_in(c, entry.first.c_str());
            }
        } catch (...) {
            cr_value_free(c);
            throw;
        }
        return c;
    }

    Type type_ = Type::Null;
    int64_t i_ = 0;
    double d_ = 0;
    std::string s_;
    void *o_ = nullptr;
    std::shared_ptr<std::vector<PropValue>> items_;
    std::shared_ptr<std::vector<std::pair<std::string, PropValue>>> entries_;
};

/// Caller props for create(): an owned cr_value map (cr_map_new / cr_value_free). Move-only.
///   Props{{"color", "red"}, {"number", 1}}      or      Props().set("color", "red").set("number", 1)
class Props {
public:
    Props() : map_(cr_map_new()) {
        if (!map_) detail::throw_last_error(CR_ERR_NO_MEMORY);
    }
    Props(std::initializer_list<std::pair<std::string, PropValue>> entries) : Props() {
        for (const auto &e : entries) set(e.first, e.second);
    }
    Props(const Props &) = delete;
    Props &operator=(const Props &) = delete;
    Props(Props &&other) noexcept : map_(std::exchange(other.map_, nullptr)) {}
    Props &operator=(Props &&other) noexcept {
        if (this != &other) {
            cr_value_free(map_);
            map_ = std::exchange(other.map_, nullptr);
        }
        return *this;
    }
    ~Props() { cr_value_free(map_); }

    /// Sets `key` (replacing an existing one). Returns *this for chaining. Throws Error.
    Props &set(const std::string &key, const PropValue &value) & {
        if (!map_) throw Error(CR_ERR_INVALID_ARGUMENT, "Props used after move");
        value.set_in(map_, key.c_str());
        return *this;
    }
    Props &&set(const std::string &key, const PropValue &value) && { return std::move(set(key, value)); }

    /// Number of keys.
    std::size_t size() const noexcept { return map_ ? cr_value_count(map_) : 0; }
    /// A read-only view of the map.
    Value view() const noexcept { return Value(map_); }
    /// The underlying map (still owned by this Props).
    const cr_value *get() const noexcept { return map_; }
    cr_value *get() noexcept { return map_; }
    /// Gives up ownership of the map (free it with cr_value_free).
    cr_value *release() noexcept { return std::exchange(map_, nullptr); }

private:
    cr_value *map_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Objects and deleters

/// Deletes an object created through create<T>(): calls the destroy function recorded for the
/// class that made it (for classes registered from C++: `delete` on the factory's exact type).
/// A default-constructed Deleter does nothing (used for objects the registry keeps).
struct Deleter {
    void (*destroy)(void *object, void *context) = nullptr;
    void *context = nullptr;
    /// (char *)T* - (char *)factory's pointer: undoes a base-class adjustment before destroy.
    std::ptrdiff_t offset = 0;

    /// False for an object the registry keeps (a singleton): deleting the Ptr then does nothing.
    bool owns() const noexcept { return destroy != nullptr; }

    template <class T> void operator()(T *object) const noexcept {
        if (!destroy || !object) return;
        auto *bytes = reinterpret_cast<char *>(const_cast<std::remove_cv_t<T> *>(object));
        destroy(static_cast<void *>(bytes - offset), context);
    }
};

/// An owned object returned by Registry::create<T>().
template <class T> using Ptr = std::unique_ptr<T, Deleter>;

namespace detail {
/// What the last C++ trampoline on this thread produced, so create<T>() can find the destroy
/// function and the real type of the object cr_registry_create returned.
struct Produced {
    void *object = nullptr;
    void (*destroy)(void *, void *) = nullptr;
    void (*rethrow_typed)(void *) = nullptr; // throws the object as a pointer to its real type
};
inline Produced &last_produced() {
    thread_local Produced p;
    return p;
}

template <class U> void delete_as(void *object, void *) noexcept { delete static_cast<U *>(object); }
template <class U> void throw_as(void *object) { throw static_cast<U *>(object); }

/// Converts `object` (of the real type recorded in `p`) to T*, honouring base-class offsets.
template <class T> T *convert(void *object, const Produced &p) {
    if (!p.rethrow_typed) return static_cast<T *>(object); // not made from C++: trust the caller
    try {
        p.rethrow_typed(object);
    } catch (T *t) {
        return t;
    } catch (...) {
    }
    return nullptr;
}

/// The factory calls running on this thread (innermost last), so a Provider taken from args can
/// tell that it is being destroyed by an exception leaving its factory (the registry then frees
/// the provider itself).
inline std::vector<uint64_t> &factory_calls() {
    thread_local std::vector<uint64_t> calls;
    return calls;
}
struct FactoryCall {
    FactoryCall() {
        static std::atomic<uint64_t> next{1};
        factory_calls().push_back(next.fetch_add(1));
    }
    ~FactoryCall() { factory_calls().pop_back(); }
    FactoryCall(const FactoryCall &) = delete;
    FactoryCall &operator=(const FactoryCall &) = delete;
};
inline uint64_t current_factory_call() { return factory_calls().empty() ? 0 : factory_calls().back(); }
inline bool factory_call_active(uint64_t id) {
    for (uint64_t c : factory_calls())
        if (c == id) return true;
    return false;
}

/// Turns what a create returned into Ptr<T> (see Registry::create).
template <class T> std::unique_ptr<T, Deleter> finish_create(void *object, const Produced &produced, bool registry_owned,
                                                             const std::string &name);

template <class R> struct factory_result {
    static constexpr bool valid = false;
};
template <class U> struct factory_result<U *> {
    static constexpr bool valid = true;
    using type = U;
    static U *release(U *p) noexcept { return p; }
};
template <class U> struct factory_result<std::unique_ptr<U>> {
    static constexpr bool valid = true;
    using type = U;
    static U *release(std::unique_ptr<U> &&p) noexcept { return p.release(); }
};

/// The heap-allocated state behind a class registered from C++ (the cr_class user_data).
template <class F> struct ClassBox {
    F factory;
    using Result = std::decay_t<std::invoke_result_t<F &, Args>>;
    using Traits = factory_result<Result>;
    using Object = typename Traits::type;

    explicit ClassBox(F f) : factory(std::move(f)) {}

    static void *create(const cr_value *args, void *user_data) noexcept {
        auto *box = static_cast<ClassBox *>(user_data);
        FactoryCall call;
        try {
            Object *object = Traits::release(box->factory(Args(args)));
            if (!object) {
                cr_report_error("the factory returned null");
                return nullptr;
            }
            void *raw = const_cast<void *>(static_cast<const void *>(object));
            Produced &p = last_produced();
            p.object = raw;
            p.destroy = &delete_as<Object>;
            p.rethrow_typed = &throw_as<Object>;
            return raw;
        } catch (const std::exception &e) {
            cr_report_error(e.what());
        } catch (...) {
            cr_report_error("unknown C++ exception");
        }
        return nullptr;
    }
    static void destroy(void *object, void *) noexcept { delete static_cast<Object *>(object); }
    static void release(void *user_data) noexcept { delete static_cast<ClassBox *>(user_data); }
};
} // namespace detail

// ---------------------------------------------------------------------------------------------
// Registry

/// A registry of classes and entries. Owns its cr_registry (move-only), except the view returned
/// by Registry::shared(), which never frees the process-wide registry.
class Registry {
public:
    /// A new empty registry. Throws Error (CR_ERR_NO_MEMORY).
    Registry() : reg_(cr_registry_new()), owned_(true) {
        if (!reg_) detail::throw_last_error(CR_ERR_NO_MEMORY);
    }
    /// A non-owning view of the process-wide registry (cr_shared()).
    static Registry shared() noexcept { return Registry(cr_shared(), false); }
    /// Wraps an existing handle; if `take_ownership`, frees it in the destructor.
    static Registry adopt(cr_registry *reg, bool take_ownership) noexcept { return Registry(reg, take_ownership); }

    Registry(const Registry &) = delete;
    Registry &operator=(const Registry &) = delete;
    Registry(Registry &&other) noexcept : reg_(std::exchange(other.reg_, nullptr)), owned_(other.owned_) {}
    Registry &operator=(Registry &&other) noexcept {
        if (this != &other) {
            reset();
            reg_ = std::exchange(other.reg_, nullptr);
            owned_ = other.owned_;
        }
        return *this;
    }
    ~Registry() { reset(); }

    /// The C handle (NULL after a move).
    cr_registry *get() const noexcept { return reg_; }
    /// True if this object frees the registry when destroyed.
    bool owns() const noexcept { return owned_ && reg_; }

    /// Registers a class whose objects a callable builds. `factory` is called as factory(Args)
    /// and returns U* (allocated with new) or std::unique_ptr<U>; captures are fine (it is
    /// moved to the heap and freed with the registry). Throws Error (CR_ERR_CLASS_EXISTS, ...).
    template <class F> void register_class(const std::string &class_name, F &&factory) {
        register_impl(class_name, std::forward<F>(factory), false);
    }
    /// Like register_class, but replaces a class already registered under the name.
    template <class F> void replace_class(const std::string &class_name, F &&factory) {
        register_impl(class_name, std::forward<F>(factory), true);
    }
    /// Registers a raw C class (callbacks and user_data as in cr_register_class).
    void register_class(const std::string &class_name, const cr_class &cls, void *user_data) {
        detail::check(cr_register_class(handle(), class_name.c_str(), &cls, user_data));
    }

    /// Load option: entries whose names exist are replaced instead of being CR_ERR_DUPLICATE.
    enum class Load : unsigned { Normal = 0, Override = CR_LOAD_OVERRIDE };

    /// Loads a config file (all-or-nothing). Throws Error (CR_ERR_IO, CR_ERR_SYNTAX, CR_ERR_CYCLE, ...).
    void load_file(const std::string &path, Format format = Format::Auto, Load load = Load::Normal) {
        detail::check(cr_load_file_ex(handle(), path.c_str(), static_cast<cr_format>(format), static_cast<unsigned>(load)));
    }
    /// Loads several config files as one transaction.
    void load_files(const std::vector<std::string> &paths, Format format = Format::Auto, Load load = Load::Normal) {
        std::vector<const char *> cpaths;
        cpaths.reserve(paths.size());
        for (const auto &p : paths) cpaths.push_back(p.c_str());
        detail::check(cr_load_files_ex(handle(), cpaths.data(), cpaths.size(), static_cast<cr_format>(format),
                                       static_cast<unsigned>(load)));
    }
    /// Loads config text (need not be NUL-terminated; locations name "<string>").
    void load_string(std::string_view text, Format format = Format::Auto, Load load = Load::Normal) {
        detail::check(cr_load_string_ex(handle(), text.data(), text.size(), static_cast<cr_format>(format),
                                        static_cast<unsigned>(load)));
    }

    /// A child registry: names and classes fall back to this one, the child's own definitions
    /// override them for creates through the child. Destroy children before their parent.
    Registry new_child() {
        cr_registry *child = cr_registry_new_child(handle());
        if (!child) detail::throw_last_error();
        return Registry(child, true);
    }
    /// Builds every eager singleton now (cr_registry_start).
    void start() { detail::check(cr_registry_start(handle())); }
    /// Adds a class-name template such as "{name}ViewController" (convention over configuration).
    void add_name_template(const std::string &name_template) {
        detail::check(cr_add_name_template(handle(), name_template.c_str()));
    }

    /// Builds the entry `name` and returns it owned by the caller, deleted with its class's
    /// destroy — except a singleton, which the registry keeps: its Ptr has a no-op deleter
    /// (get_deleter().owns() is false) and the object lives until the registry is freed.
    /// T must be the factory's type or a base of it (checked for C++ classes: CR_ERR_TYPE).
    /// Throws Error (CR_ERR_NOT_FOUND, CR_ERR_CLASS_NOT_REGISTERED, CR_ERR_CREATE_FAILED, ...).
    template <class T> Ptr<T> create(const std::string &name, const Props &props) {
        return create_impl<T>(name, props.get());
    }
    template <class T> Ptr<T> create(const std::string &name) { return create_impl<T>(name, nullptr); }
    template <class T> Ptr<T> create(const std::string &name, std::initializer_list<std::pair<std::string, PropValue>> props) {
        Props p(props);
        return create_impl<T>(name, p.get());
    }

    /// Builds the entry `name` and returns the raw pointer (cr_registry_create); the caller owns
    /// it and must free it as its class requires. `props` may be NULL.
    void *create_raw(const std::string &name, const cr_value *props = nullptr) {
        void *object = cr_registry_create(handle(), name.c_str(), props);
        if (!object) detail::throw_last_error(CR_ERR_CREATE_FAILED);
        return object;
    }

private:
    Registry(cr_registry *reg, bool owned) noexcept : reg_(reg), owned_(owned) {}

    void reset() noexcept {
        if (reg_ && owned_) cr_registry_free(reg_);
        reg_ = nullptr;
    }
    cr_registry *handle() const {
        if (!reg_) throw Error(CR_ERR_INVALID_ARGUMENT, "controllerreg::Registry used after move");
        return reg_;
    }

    template <class F> void register_impl(const std::string &class_name, F &&factory, bool replace) {
        using Box = detail::ClassBox<std::decay_t<F>>;
        static_assert(std::is_invocable_v<std::decay_t<F> &, Args>, "the factory must be callable as factory(controllerreg::Args)");
        static_assert(detail::factory_result<typename Box::Result>::valid,
                      "the factory must return T* or std::unique_ptr<T>");
        cr_class cls{};
        cls.create = &Box::create;
        cls.destroy = &Box::destroy;
        cls.set = nullptr;
        cls.release = &Box::release;
        auto *box = new Box(std::forward<F>(factory));
        cr_registry *reg;
        try {
            reg = handle();
        } catch (...) {
            delete box;
            throw;
        }
        // On failure the library calls cls.release(box) itself, so the box is never leaked.
        int rc = replace ? cr_replace_class(reg, class_name.c_str(), &cls, box)
                         : cr_register_class(reg, class_name.c_str(), &cls, box);
        detail::check(rc);
    }

    template <class T> Ptr<T> create_impl(const std::string &name, const cr_value *props) {
        detail::Produced saved = detail::last_produced();
        detail::last_produced() = detail::Produced{};
        cr_owner owner = CR_OWNER_RECEIVER;
        void *object = cr_registry_create_ex(handle(), name.c_str(), props, &owner);
        detail::Produced made = detail::last_produced();
        detail::last_produced() = saved;
        if (!object) detail::throw_last_error(CR_ERR_CREATE_FAILED);
        return detail::finish_create<T>(object, made, owner == CR_OWNER_REGISTRY, name);
    }

    cr_registry *reg_ = nullptr;
    bool owned_ = false;
};

namespace detail {
template <class T> std::unique_ptr<T, Deleter> finish_create(void *object, const Produced &produced, bool registry_owned,
                                                             const std::string &name) {
    Produced made = produced.object == object ? produced : Produced{}; // else: not made by a C++ class
    T *typed = convert<T>(object, made);
    if (!typed) {
        if (!registry_owned) made.destroy(object, nullptr);
        throw Error(CR_ERR_TYPE, "create<T>(\"" + name + "\"): the object's type does not convert to the requested T");
    }
    Deleter deleter;
    if (!registry_owned) {
        deleter.destroy = made.destroy ? made.destroy : &delete_as<std::remove_cv_t<T>>;
        deleter.offset = reinterpret_cast<const char *>(typed) - static_cast<const char *>(object);
    }
    return std::unique_ptr<T, Deleter>(typed, deleter);
}
} // namespace detail

/// A lazy factory for one entry, received in args (`{Provider: Name}` in a config) instead of an
/// object: call create<T>() whenever an object is needed, also long after the create that injected
/// it. Move-only; frees the cr_provider (cr_provider_free) when destroyed. After its registry has
/// been freed, create() throws Error(CR_ERR_INVALID_ARGUMENT).
///
/// Taking a provider from args inside a factory is exception-safe: if the factory then throws,
/// the registry releases the provider and this object does not free it again.
class Provider {
public:
    Provider() noexcept = default;
    /// Takes ownership of `p` (from cr_value_provider).
    explicit Provider(cr_provider *p) noexcept
        : p_(p), call_(detail::current_factory_call()), exceptions_(std::uncaught_exceptions()) {}
    Provider(const Provider &) = delete;
    Provider &operator=(const Provider &) = delete;
    Provider(Provider &&o) noexcept : p_(std::exchange(o.p_, nullptr)), call_(std::exchange(o.call_, 0)), exceptions_(o.exceptions_) {}
    Provider &operator=(Provider &&o) noexcept {
        if (this != &o) {
            reset();
            p_ = std::exchange(o.p_, nullptr);
            call_ = std::exchange(o.call_, 0);
            exceptions_ = o.exceptions_;
        }
        return *this;
    }
    ~Provider() { reset(); }

    explicit operator bool() const noexcept { return p_ != nullptr; }
    cr_provider *get() const noexcept { return p_; }
    /// The name of the entry this provider creates.
    std::string name() const { return p_ ? cr_provider_name(p_) : ""; }

    /// Creates the provider's entry now (props merged over its dependencies). Ownership as for
    /// Registry::create: a singleton comes back with a no-op deleter.
    template <class T> Ptr<T> create(const Props &props) { return create_impl<T>(props.get()); }
    template <class T> Ptr<T> create() { return create_impl<T>(nullptr); }
    template <class T> Ptr<T> create(std::initializer_list<std::pair<std::string, PropValue>> props) {
        Props p(props);
        return create_impl<T>(p.get());
    }

    /// Frees the provider now.
    void reset() noexcept {
        cr_provider *p = std::exchange(p_, nullptr);
        if (!p) return;
        // Destroyed by an exception leaving the factory that took it: the registry frees it.
        if (call_ && std::uncaught_exceptions() > exceptions_ && detail::factory_call_active(call_)) return;
        cr_provider_free(p);
    }
    /// Gives up ownership (free it with cr_provider_free).
    cr_provider *release() noexcept { return std::exchange(p_, nullptr); }

private:
    template <class T> Ptr<T> create_impl(const cr_value *props) {
        if (!p_) throw Error(CR_ERR_INVALID_ARGUMENT, "controllerreg::Provider is empty");
        detail::Produced saved = detail::last_produced();
        detail::last_produced() = detail::Produced{};
        cr_owner owner = CR_OWNER_RECEIVER;
        void *object = cr_provider_create_ex(p_, props, &owner);
        detail::Produced made = detail::last_produced();
        detail::last_produced() = saved;
        if (!object) detail::throw_last_error(CR_ERR_CREATE_FAILED);
        return detail::finish_create<T>(object, made, owner == CR_OWNER_REGISTRY, name());
    }

    cr_provider *p_ = nullptr;
    uint64_t call_ = 0;
    int exceptions_ = 0;
};

inline Provider Value::as_provider() const {
    expect(Kind::Provider);
    return Provider(cr_value_provider(v_));
}
inline Provider Value::provider(const std::string &key) const { return (*this)[key].as_provider(); }

} // namespace controllerreg

#endif // CONTROLLERREG_HPP
