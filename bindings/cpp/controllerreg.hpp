// controllerreg.hpp — header-only C++17 binding for libcontrollerreg (C ABI 1.0).
//
//   namespace cr = controllerreg;
//   cr::Registry reg;                                              // RAII, move-only
//   reg.register_class("Test2ViewController", [](cr::Args) { return std::make_unique<Test2>(); });
//   reg.register_class("Test1ViewController", [](cr::Args a) {
//       auto t = std::make_unique<Test1>();
//       t->text = a.get<std::string>("dependentString");
//       t->test2 = a.take<Test2>("test2ViewController");          // cr::Ptr<Test2>, owned at once
//       return t;
//   });
//   reg.load_file("example.yaml");
//   cr::Ptr<Test1> t1 = reg.create<Test1>("Test1", {{"color", "red"}, {"number", 1}});
//
// ERRORS
//   A failing library call throws a subclass of cr::Error (a std::runtime_error) chosen by its
//   status: cr::NotFound, cr::Cycle, cr::Syntax, ... Each carries code() and problems(): every
//   cr_problem of the call (code, file, line, column, message, suggestion).
//   Conditions the binding finds itself throw standard exceptions: std::out_of_range for a missing
//   key or index (or an integer that does not fit the requested type), cr::TypeError (a
//   std::invalid_argument) for a value read as the wrong type or create<T> with the wrong T.
//   An exception thrown by a factory or setter never crosses the C boundary: the trampoline hands
//   e.what() to cr_report_error, so the create throws cr::CreateFailed with that text (a thrown
//   `const char *` or std::string gives its text; any other type, which has no message, is named
//   with the fix: throw a std::exception). A destructor that throws ends the program with
//   std::terminate, as in std::unique_ptr or a std container: objects are destroyed from
//   noexcept callbacks, so catch inside the destructor.
//
// OWNERSHIP (the header's rules, made RAII)
//   - Registry owns its cr_registry; Registry::shared() is a non-owning view of cr_shared().
//   - A callable given to register_class is moved to the heap and freed by the registry (the
//     class's release callback). Objects of such a class are destroyed with `delete` on the exact
//     type the factory returned.
//   - create<T>() returns cr::Ptr<T>, a std::unique_ptr whose deleter is the destroyer the library
//     reports for the object's class (cr_registry_create_with), so objects of raw cr_class classes
//     go to their class's destroy (destroy them while that class is registered: the C contract).
//     Objects of C++ classes are deleted as T and may outlive their registry. A singleton stays
//     the registry's: its Ptr does not delete.
//   - In a factory, Args::take<T>(key) takes an object argument (cr_value_object) and wraps it at
//     once in a cr::Ptr<T>: it owns it if the object was built for this call, else it only views
//     it. Whatever the factory does not take, the library destroys when the factory returns, and
//     what it took, its Ptr frees: a factory that throws leaks nothing and frees nothing twice.
//
// THREADS
//   Registry is as thread-safe as the C registry. Factories run on the thread that calls create
//   and may call create themselves. Props and Value are not synchronised.
#ifndef CONTROLLERREG_HPP
#define CONTROLLERREG_HPP

#include <controllerreg.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>
#if defined(__GNUG__)
#include <cxxabi.h>
#endif

// Failure paths are out of line and marked cold, so the success path of a create or of a read
// sets up no frame for building a message (the library's own rule: errors cost no more than
// success, and success does not pay for them).
#if defined(__GNUC__) || defined(__clang__)
#define CONTROLLERREG_COLD __attribute__((noinline, cold))
#elif defined(_MSC_VER)
#define CONTROLLERREG_COLD __declspec(noinline)
#else
#define CONTROLLERREG_COLD
#endif
// Paths out of line that are not failures (a C class's destroyer): the caller's frame stays
// as small as without them.
#if defined(__clang__)
#define CONTROLLERREG_NOINLINE __attribute__((noinline))
#elif defined(__GNUC__) // noipa: not even what the function returns is assumed by its callers
#define CONTROLLERREG_NOINLINE __attribute__((noipa))
#elif defined(_MSC_VER)
#define CONTROLLERREG_NOINLINE __declspec(noinline)
#else
#define CONTROLLERREG_NOINLINE
#endif

namespace controllerreg {

// ---------------------------------------------------------------------------------------------
// Errors

/// One problem of a failed library call (a cr_problem, copied).
struct Problem {
    int code = CR_OK;                      ///< cr_status of this problem
    std::string file;                      ///< "" when the problem has no place
    uint32_t line = 0, column = 0;         ///< 1-based; 0 when unknown
    std::string message;                   ///< the problem alone, without "file:line:column: "
    std::optional<std::string> suggestion; ///< a suggested name ("did you mean"), if any
};

namespace detail {
/// `message` without the C function's name the C ABI starts a problem with when it has no place,
/// whatever its code ("cr_registry_create_with: cannot create 'Logger': ..." reads "cannot create
/// 'Logger': ...", "cr_register_class: class 'X' is already registered ..." reads "class 'X' is
/// already registered ..."): a C++ caller called a method of this binding, not that function, and
/// the message names the thing and the fix without it. A placed problem's message as it is.
inline const char *without_c_name(const char *file, const char *message) noexcept {
    if ((file && *file) || std::strncmp(message, "cr_", 3) != 0) return message;
    const char *p = message + 3;
    while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_') ++p;
    return (p[0] == ':' && p[1] == ' ') ? p + 2 : message;
}

/// A cr_problem copied into a Problem (the one conversion of every door of the binding).
inline Problem problem_from(const cr_problem &p) {
    Problem q;
    q.code = p.code;
    q.file = p.file ? p.file : "";
    q.line = p.line;
    q.column = p.column;
    q.message = p.message ? without_c_name(p.file, p.message) : "";
    if (p.suggestion) q.suggestion = std::string(p.suggestion);
    return q;
}

/// Frees a kept cr_error (cr_error_free).
struct KeptErrorFree {
    void operator()(cr_error *e) const noexcept { cr_error_free(e); }
};
/// A cr_error the binding owns.
using KeptError = std::unique_ptr<cr_error, KeptErrorFree>;
/// Selects Error's constructor from a KeptError (a tag, so `Error(code, message, {})` stays the list one).
struct FromKept {};

/// The problems of one Error, shared by its copies: a list given whole, or a failure kept from the
/// library (a cr_error, which no later failing call, cr_clear_error or freed registry changes),
/// whose records are read at the first problems() and the cr_error freed then. The count is known
/// at once either way; reading is once for every copy and thread (std::call_once).
class ProblemList {
public:
    explicit ProblemList(std::vector<Problem> problems) noexcept : count_(problems.size()), problems_(std::move(problems)) {}
    /// Takes `kept`; its records are read when first asked for.
    explicit ProblemList(KeptError kept) noexcept : kept_(std::move(kept)), count_(cr_error_count(kept_.get())) {}
    ProblemList(const ProblemList &) = delete;
    ProblemList &operator=(const ProblemList &) = delete;

    std::size_t count() const noexcept { return count_; }

    /// Every problem, read from the library the first time (by whichever thread asks first).
    const std::vector<Problem> &all() const {
        std::call_once(once_, [this] {
            if (!kept_) return;
            std::vector<Problem> out;
            out.reserve(count_);
            for (std::size_t i = 0; i < count_; ++i) {
                const cr_problem *p = cr_error_problem(kept_.get(), i);
                if (!p) break;
                out.push_back(problem_from(*p));
            }
            problems_ = std::move(out);
            kept_.reset(); // the records are copied: the library's are freed now
        });
        return problems_;
    }

private:
    mutable KeptError kept_;
    std::size_t count_;
    mutable std::vector<Problem> problems_;
    mutable std::once_flag once_;
};
} // namespace detail

/// A failed library call: code() is its cr_status, what() the library's message (the first 100
/// problems, the rest counted), problems() every problem with its place, read from the library at
/// its first call (a thrown Error costs the message and the count, not one record per problem).
/// Copies share the problems; they stay readable after the registry is freed, after later failing
/// calls, and from any thread. Thrown as one of the subclasses below, chosen by code().
class Error : public std::runtime_error {
public:
    Error(int code, const std::string &message, std::vector<Problem> problems = {})
        : std::runtime_error(message), code_(code), problems_(std::make_shared<const detail::ProblemList>(std::move(problems))) {}
    /// An error whose problems are `kept`'s (a failure kept from the library with
    /// cr_last_error_keep, freed once its records are read or the last copy is gone), read when
    /// problems() is first called.
    Error(detail::FromKept, int code, const std::string &message, detail::KeptError kept)
        : std::runtime_error(message), code_(code), problems_(std::make_shared<const detail::ProblemList>(std::move(kept))) {}
    /// The same with the message as the library's C string (copied once, into what(): a load's
    /// message lists 100 problems, and a std::string in between copied it twice).
    Error(detail::FromKept, int code, const char *message, detail::KeptError kept)
        : std::runtime_error(message), code_(code), problems_(std::make_shared<const detail::ProblemList>(std::move(kept))) {}
    /// The cr_status code (never CR_OK).
    int code() const noexcept { return code_; }
    /// A short fixed name for code() ("cycle", "not found", ...).
    const char *status_name() const noexcept { return cr_status_name(code_); }
    /// Every problem the library reported for the call (at least one), read from the library at
    /// the first call (the vector's memory then; running out of it ends the program: noexcept).
    const std::vector<Problem> &problems() const noexcept { return problems_->all(); }
    /// How many problems the call had: problems().size(), without reading them.
    std::size_t problem_count() const noexcept { return problems_->count(); }

private:
    int code_;
    std::shared_ptr<const detail::ProblemList> problems_;
};

// One subclass per status, so a caller can catch the failures it handles (catch (const cr::NotFound &)).
/// CR_ERR_INVALID_ARGUMENT: a bad argument or option.
class InvalidArgument : public Error {
public:
    using Error::Error;
};
/// CR_ERR_IO: a file could not be read.
class IoError : public Error {
public:
    using Error::Error;
};
/// CR_ERR_SYNTAX: malformed YAML / JSON / plist.
class Syntax : public Error {
public:
    using Error::Error;
};
/// CR_ERR_SCHEMA: well-formed but not a valid config.
class Schema : public Error {
public:
    using Error::Error;
};
/// CR_ERR_DUPLICATE: a key or entry name defined twice.
class Duplicate : public Error {
public:
    using Error::Error;
};
/// CR_ERR_MISSING_REFERENCE: a dependency names no entry.
class MissingReference : public Error {
public:
    using Error::Error;
};
/// CR_ERR_CYCLE: references form a cycle.
class Cycle : public Error {
public:
    using Error::Error;
};
/// CR_ERR_NOT_FOUND: no entry of that name.
class NotFound : public Error {
public:
    using Error::Error;
};
/// CR_ERR_CLASS_NOT_REGISTERED: an entry's class is unknown.
class ClassNotRegistered : public Error {
public:
    using Error::Error;
};
/// CR_ERR_CLASS_EXISTS: a class name registered twice.
class ClassExists : public Error {
public:
    using Error::Error;
};
/// CR_ERR_CREATE_FAILED: a factory failed or returned null.
class CreateFailed : public Error {
public:
    using Error::Error;
};
/// CR_ERR_TYPE: the library found a value of another kind.
class WrongKind : public Error {
public:
    using Error::Error;
};
/// CR_ERR_LIMIT: a limit was exceeded.
class Limit : public Error {
public:
    using Error::Error;
};
/// CR_ERR_NO_MEMORY: memory could not be allocated.
class NoMemory : public Error {
public:
    using Error::Error;
};
/// CR_ERR_ENVIRONMENT: an environment variable a config uses (${NAME}, {Env: NAME}) is not set and
/// has no default, or does not convert to its Type.
class Environment : public Error {
public:
    using Error::Error;
};
/// CR_ERR_LIFETIME: a singleton would keep a graph object (the message has the path).
class Lifetime : public Error {
public:
    using Error::Error;
};

/// A value read as a type it does not have, or create<T>() with a T that is not the object's type.
class TypeError : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

namespace detail {
/// Throws the Error subclass for `code` made from `args` (a std::vector<Problem>, or FromKept
/// and a KeptError around the code and message).
template <typename... Args> [[noreturn]] void raise_as(int code, Args &&...args) {
    switch (code) {
    case CR_ERR_INVALID_ARGUMENT: throw InvalidArgument(std::forward<Args>(args)...);
    case CR_ERR_IO: throw IoError(std::forward<Args>(args)...);
    case CR_ERR_SYNTAX: throw Syntax(std::forward<Args>(args)...);
    case CR_ERR_SCHEMA: throw Schema(std::forward<Args>(args)...);
    case CR_ERR_DUPLICATE: throw Duplicate(std::forward<Args>(args)...);
    case CR_ERR_MISSING_REFERENCE: throw MissingReference(std::forward<Args>(args)...);
    case CR_ERR_CYCLE: throw Cycle(std::forward<Args>(args)...);
    case CR_ERR_NOT_FOUND: throw NotFound(std::forward<Args>(args)...);
    case CR_ERR_CLASS_NOT_REGISTERED: throw ClassNotRegistered(std::forward<Args>(args)...);
    case CR_ERR_CLASS_EXISTS: throw ClassExists(std::forward<Args>(args)...);
    case CR_ERR_CREATE_FAILED: throw CreateFailed(std::forward<Args>(args)...);
    case CR_ERR_TYPE: throw WrongKind(std::forward<Args>(args)...);
    case CR_ERR_LIMIT: throw Limit(std::forward<Args>(args)...);
    case CR_ERR_NO_MEMORY: throw NoMemory(std::forward<Args>(args)...);
    case CR_ERR_ENVIRONMENT: throw Environment(std::forward<Args>(args)...);
    case CR_ERR_LIFETIME: throw Lifetime(std::forward<Args>(args)...);
    default: throw Error(std::forward<Args>(args)...);
    }
}

/// Throws the calling thread's last library error as its Error subclass: its message and the
/// count now, its problems kept (cr_last_error_keep) and read when problems() is first called.
[[noreturn]] CONTROLLERREG_COLD inline void throw_last_error() {
    int code = cr_last_error_code();
    if (code == CR_OK) code = CR_ERR_INVALID_ARGUMENT; // a call failed without a record: never expected
    if (KeptError kept{cr_last_error_keep()}) {
        // The kept error's own message (it lives as long as `kept`, which the Error takes after
        // copying it).
        const char *message = without_c_name(nullptr, cr_error_message(kept.get()));
        raise_as(code, FromKept{}, code, message, std::move(kept));
    }
    // No record could be kept (memory ran out): the problems read now, as they are.
    std::vector<Problem> problems;
    std::size_t n = cr_last_error_count();
    for (std::size_t i = 0; i < n; ++i) {
        const cr_problem *p = cr_last_error_problem(i);
        if (!p) break;
        problems.push_back(problem_from(*p));
    }
    raise_as(code, code, std::string(without_c_name(nullptr, cr_last_error_message())), std::move(problems));
}

/// Throws the last error if `status` is not CR_OK.
inline void check(int status) {
    if (status != CR_OK) throw_last_error();
}

[[noreturn]] CONTROLLERREG_COLD inline void nul_in(const char *what) {
    throw std::invalid_argument(std::string("controllerreg: ") + what + " cannot contain NUL bytes");
}

/// `s` for the C API, which reads a string up to its first NUL: a name, key or path holding one
/// would silently become another ("A\0x" the entry "A", "a.yaml\0.bak" the file "a.yaml").
/// Throws std::invalid_argument naming `what` instead, as prop strings do.
inline const char *c_text(const std::string &s, const char *what) {
    if (s.find('\0') != std::string::npos) nul_in(what);
    return s.c_str();
}
} // namespace detail

/// The library's run-time version string, e.g. "1.0.0".
inline const char *version() noexcept { return cr_version(); }

// ---------------------------------------------------------------------------------------------
// Enums

/// Config formats (cr_format).
enum class Format { Auto = CR_FORMAT_AUTO, Json = CR_FORMAT_JSON, Yaml = CR_FORMAT_YAML, Plist = CR_FORMAT_PLIST };

/// Value kinds (cr_kind).
enum class Kind {
    Null = CR_NULL,
    Bool = CR_BOOL,
    Int = CR_INT,
    Double = CR_DOUBLE,
    String = CR_STRING,
    List = CR_LIST,
    Map = CR_MAP,
    Object = CR_OBJECT,
    Provider = CR_PROVIDER
};

/// Who owns an object found in args (cr_owner).
enum class Owner {
    None = CR_OWNER_NONE,
    Receiver = CR_OWNER_RECEIVER,
    Registry = CR_OWNER_REGISTRY,
    Caller = CR_OWNER_CALLER,
    Shared = CR_OWNER_SHARED
};

/// Entry lifestyles (cr_lifestyle).
enum class Lifestyle { Transient = CR_LIFESTYLE_TRANSIENT, Singleton = CR_LIFESTYLE_SINGLETON, Graph = CR_LIFESTYLE_GRAPH };

/// Registry limits (cr_limit).
enum class LimitKind {
    InputBytes = CR_LIMIT_INPUT_BYTES,
    Depth = CR_LIMIT_DEPTH,
    Nodes = CR_LIMIT_NODES,
    StringBytes = CR_LIMIT_STRING_BYTES,
    AliasExpansion = CR_LIMIT_ALIAS_EXPANSION,
    Entries = CR_LIMIT_ENTRIES,
    CreateDepth = CR_LIMIT_CREATE_DEPTH
};

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

namespace detail {
/// The one text of every cr::TypeError for a value read as a kind it does not have: the place
/// (the argument's key, or which part of a value; "" for a value read by itself), the thing (the
/// kind expected and the kind found) and the fix. A factory that lets it escape fails its create,
/// and the library's message adds the class, the entry and where its config defines it ("cannot
/// create 'S': create of class 'Strict' for entry 'S' (defined at app.yaml:3:1): 's': expected
/// string, got int; ...").
inline std::string mismatch_text(const std::string &place, const char *expected, Kind got) {
    std::string text = place.empty() ? std::string() : place + ": ";
    text += std::string("expected ") + expected + ", got " + kind_name(got);
    text += std::string("; read it as the ") + kind_name(got) +
        " it is (check kind() first where it may vary), or change the value the config or props give "
        "there (in a config, \"@text\" is a string, any other string names an entry)";
    return text;
}
} // namespace detail

// ---------------------------------------------------------------------------------------------
// Owned objects

/// Destroys an object the caller owns with the function its class gave (a cr_destroyer). A
/// Deleter without one does nothing: the Ptr then only views an object someone else owns (a
/// singleton, a shared graph object, ...).
namespace detail {
template <class U> void delete_as(void *object, void *) noexcept;
/// True when `delete (U *)p` is what delete_as<U> does and compiles cleanly: a complete,
/// destructible object type whose destructor is virtual if it has virtual functions. False for
/// void, for a type only declared (a C host's opaque struct), and for a base reached by ptr_cast.
template <class U, class = void> struct deletable : std::false_type {};
template <class U>
struct deletable<U, std::void_t<decltype(sizeof(U))>>
    : std::bool_constant<std::is_object_v<U> && !std::is_array_v<U> && std::is_destructible_v<U> &&
                         (!std::is_polymorphic_v<U> || std::has_virtual_destructor_v<U>)> {};

/// How a Deleter destroys its object: `destroy(held address - offset, user_data)` (`offset` is
/// non-zero only for a base ptr_cast reached at another address than the object's). Immutable and
/// never freed, so a Ptr may outlive anything: a constant per C++ type (`delete_record`), else one
/// per distinct destroyer and offset for the process (`destroy_record`).
struct DestroyRecord {
    void (*destroy)(void *object, void *user_data);
    void *user_data;
    std::ptrdiff_t offset;
};
/// The record of `delete (U *)`: a constant, so a Ptr to a C++ class's object needs no look-up.
template <class U> inline constexpr DestroyRecord delete_record{&delete_as<U>, nullptr, 0};

/// The process's record of a destroyer (a C class's destroy, a taker's, a shifted one), made on
/// first use under a lock.
CONTROLLERREG_COLD inline const DestroyRecord *intern_destroy_record(const DestroyRecord &d) {
    struct Less {
        bool operator()(const DestroyRecord &a, const DestroyRecord &b) const noexcept {
            if (a.destroy != b.destroy) return std::less<void (*)(void *, void *)>()(a.destroy, b.destroy);
            if (a.user_data != b.user_data) return std::less<void *>()(a.user_data, b.user_data);
            return a.offset < b.offset;
        }
    };
    static std::mutex *lock = new std::mutex;                 // never destroyed: a Ptr may be
    static auto *records = new std::set<DestroyRecord, Less>; // destroyed after static destructors
    std::lock_guard<std::mutex> hold(*lock);
    return &*records->insert(d).first;
}
/// The record of a destroyer (null for none): from this thread's small cache of the records it
/// used (a host creating objects of a few C classes again and again takes no lock, from any
/// number of threads), else the process's, then cached. Out of line: a create of a C++ class's
/// object, which needs none, keeps a frame without it.
CONTROLLERREG_NOINLINE inline const DestroyRecord *destroy_record(void (*destroy)(void *, void *), void *user_data,
                                                                  std::ptrdiff_t offset) {
    if (!destroy) return nullptr;
    constexpr std::size_t slots = 16; // direct-mapped: a record's slot is a hash of what it holds
    static thread_local const DestroyRecord *cache[slots] = {};
    std::size_t mix = reinterpret_cast<std::uintptr_t>(destroy) ^ (reinterpret_cast<std::uintptr_t>(user_data) >> 3) ^
        static_cast<std::size_t>(offset);
    const DestroyRecord *&slot = cache[(mix ^ (mix >> 4) ^ (mix >> 9)) % slots];
    if (slot && slot->destroy == destroy && slot->user_data == user_data && slot->offset == offset) return slot;
    slot = intern_destroy_record(DestroyRecord{destroy, user_data, offset});
    return slot;
}
/// The record of `destroyer` for objects of type U: the constant of `delete (U *)` for the
/// taker's default destroyer, else the process's.
template <class U> const DestroyRecord *record_of(const cr_destroyer &destroyer) {
    if constexpr (deletable<U>::value) {
        if (destroyer.destroy == &delete_as<U> && !destroyer.user_data) return &delete_record<U>;
    }
    return destroy_record(destroyer.destroy, destroyer.user_data, 0);
}
} // namespace detail

/// One word (a Ptr is two): a pointer to how to destroy the object, or null for a view.
template <class T> struct Deleter {
    /// How to destroy the object (null: the Ptr only views it).
    const detail::DestroyRecord *record = nullptr;

    Deleter() noexcept = default;
    explicit Deleter(const detail::DestroyRecord *how) noexcept : record(how) {}

    /// True if deleting the Ptr destroys the object.
    bool owns() const noexcept { return record != nullptr; }
    void operator()(T *object) const noexcept {
        if (!object) return;
        using U = std::remove_cv_t<T>;
        // An object of a C++ class held as its own type (the usual create<T>()): a delete the
        // compiler sees, instead of a call through the record to the same delete.
        if constexpr (detail::deletable<U>::value) {
            if (record == &detail::delete_record<U>) {
                delete const_cast<U *>(object);
                return;
            }
        }
        if (!record) return;
        auto *bytes = static_cast<char *>(static_cast<void *>(const_cast<U *>(object)));
        record->destroy(static_cast<void *>(bytes - record->offset), record->user_data);
    }
};

/// An object from create<T>() or Args::take<T>(): owned (destroyed by its class's destroyer) or a
/// view of one someone else owns (get_deleter().owns() is false).
template <class T> using Ptr = std::unique_ptr<T, Deleter<T>>;

namespace detail {
/// `delete` of a D reached through its base B (a base at another address than D's: ptr_cast).
template <class D, class B> void delete_through_base(void *object, void *) noexcept {
    delete static_cast<D *>(static_cast<B *>(object));
}
/// Its record, a constant.
template <class D, class B> inline constexpr DestroyRecord through_base_record{&delete_through_base<D, B>, nullptr, 0};
/// True when a B * converts back to a D * with static_cast (B a non-virtual, unambiguous base).
template <class D, class B, class = void> struct downcastable : std::false_type {};
template <class D, class B>
struct downcastable<D, B, std::void_t<decltype(static_cast<D *>(std::declval<B *>()))>> : std::true_type {};
} // namespace detail

/// Converts Ptr<Derived> to Ptr<Base> keeping the right destroyer (a plain unique_ptr conversion
/// is not allowed: for a base at another address it would destroy the wrong address). A base at
/// the object's address keeps the destroyer as it is; one at another address gets a delete of
/// Derived through Base, or (a C class's destroyer, a virtual base, a second conversion) the
/// destroyer shifted back by the base's offset: one record per distinct destroyer and offset, made
/// once for the process (if that allocation fails, std::terminate, as in any noexcept code).
template <class Base, class Derived> Ptr<Base> ptr_cast(Ptr<Derived> &&p) noexcept {
    static_assert(std::is_convertible_v<Derived *, Base *>, "ptr_cast: Base must be a base of Derived");
    const detail::DestroyRecord *record = p.get_deleter().record;
    Derived *raw = p.release();
    Base *base = raw;
    auto *from = reinterpret_cast<const volatile char *>(raw);
    auto *to = reinterpret_cast<const volatile char *>(base);
    if (!raw || !record || from == to) return Ptr<Base>(base, Deleter<Base>(record));
    using D = std::remove_cv_t<Derived>;
    using B = std::remove_cv_t<Base>;
    if constexpr (detail::deletable<D>::value && detail::downcastable<D, B>::value) {
        if (record == &detail::delete_record<D>) return Ptr<Base>(base, Deleter<Base>(&detail::through_base_record<D, B>));
    }
    return Ptr<Base>(base,
                     Deleter<Base>(detail::destroy_record(record->destroy, record->user_data, record->offset + (to - from))));
}

namespace detail {
/// A per-type address: the type tag of objects made by C++ classes (no RTTI, no exceptions).
template <class T> struct TypeTag { static constexpr char id = 0; };
template <class T> constexpr const void *type_tag() noexcept { return &TypeTag<std::remove_cv_t<T>>::id; }

template <class U> void delete_as(void *object, void *) noexcept { delete static_cast<U *>(object); }

/// What every class registered from C++ keeps in its user_data, first: how to recognise and
/// destroy its objects (the destroyer's user_data is this box).
struct ClassBoxBase {
    const void *tag;       ///< type_tag<the factory's type>()
    const char *type_name; ///< typeid(the factory's type).name(), for messages
    void (*delete_object)(void *object) noexcept;
};
/// The destroy callback of every class registered from C++ (so a destroyer names its box).
inline void destroy_cpp_object(void *object, void *user_data) noexcept {
    static_cast<ClassBoxBase *>(user_data)->delete_object(object);
}

/// A type's name as a person writes it: `typeid(T).name()` demangled where the ABI has a
/// demangler (GCC, Clang), else as the compiler gives it.
CONTROLLERREG_COLD inline std::string readable_type_name(const char *name) {
#if defined(__GNUG__)
    int status = 0;
    char *text = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string out = status == 0 && text ? std::string(text) : std::string(name);
    std::free(text);
    return out;
#else
    return name;
#endif
}

/// create<T>() of an object whose class makes another type (the caller's: it has a destroyer):
/// destroys it, then throws TypeError naming both types.
[[noreturn]] CONTROLLERREG_COLD inline void wrong_create_type(void *object, const cr_destroyer &destroyer, const char *name,
                                                              const char *requested) {
    auto *box = static_cast<const ClassBoxBase *>(destroyer.user_data);
    destroyer.destroy(object, destroyer.user_data);
    throw TypeError(std::string("create<T>(\"") + name + "\"): the entry's class makes " + readable_type_name(box->type_name) +
                    ", not " + readable_type_name(requested) + " (create the factory's type; ptr_cast converts to a base)");
}

/// An object and the record of its destroyer, returned together in two registers.
struct Adopted {
    void *object;
    const DestroyRecord *record;
};
/// `adopt` of an object with a C class's destroyer: the look-up out of line, handing the object
/// back (kept across the call, it would take a saved register in every create's frame). If the
/// look-up cannot allocate its record, the object is destroyed before std::bad_alloc propagates.
CONTROLLERREG_NOINLINE inline Adopted adopt_with_record(void *object, const cr_destroyer &destroyer) {
    try {
        return Adopted{object, destroy_record(destroyer.destroy, destroyer.user_data, 0)};
    } catch (...) {
        destroyer.destroy(object, destroyer.user_data);
        throw;
    }
}

/// Wraps the result of a create (object and destroyer from the library) as Ptr<T>. The destroyer
/// alone says whether the caller owns the object: the library reports one only for an object that
/// is now the caller's ({NULL, NULL} for a singleton, which the registry keeps, and for a class
/// without destroy, which leaves nothing to call), so no owner needs asking for.
/// Objects of C++ classes are type-checked by tag; a mismatch destroys the object and throws.
template <class T> Ptr<T> adopt(void *object, const cr_destroyer &destroyer, const char *name) {
    if (destroyer.destroy == &destroy_cpp_object) {
        auto *box = static_cast<const ClassBoxBase *>(destroyer.user_data);
        if (box->tag != type_tag<T>()) wrong_create_type(object, destroyer, name, typeid(T).name());
        // T is the factory's type: delete it as T, so the Ptr may outlive the class and registry.
        return Ptr<T>(static_cast<T *>(object), Deleter<T>(&delete_record<std::remove_cv_t<T>>));
    }
    if (!destroyer.destroy) return Ptr<T>(static_cast<T *>(object)); // the registry's, or nothing to call
    Adopted adopted = adopt_with_record(object, destroyer);
    return Ptr<T>(static_cast<T *>(adopted.object), Deleter<T>(adopted.record));
}

template <class T> struct is_optional : std::false_type {};
template <class T> struct is_optional<std::optional<T>> : std::true_type {};
template <class T> struct is_vector : std::false_type {};
template <class T, class A> struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T> struct always_false : std::false_type {};
} // namespace detail

// ---------------------------------------------------------------------------------------------
// Reading values (args)

class Provider;

/// A borrowed view of a cr_value (an argument, or an element of one), valid as long as the value
/// it views (inside a factory: until the factory returns). Cheap to copy (one pointer).
class Value {
public:
    Value() noexcept = default;
    explicit Value(const cr_value *v) noexcept : v_(v) {}

    /// The underlying C value (NULL for an absent value, which reads as Kind::Null).
    const cr_value *get() const noexcept { return v_; }
    Kind kind() const noexcept { return v_ ? static_cast<Kind>(cr_value_kind(v_)) : Kind::Null; }
    bool is_null() const noexcept { return kind() == Kind::Null; }

    /// Element count of a list or map, byte length of a string, 0 otherwise.
    std::size_t size() const noexcept { return v_ ? cr_value_count(v_) : 0; }

    /// The element at `index` of a list. Throws TypeError (not a list), std::out_of_range.
    Value operator[](std::size_t index) const {
        expect(Kind::List, "list element");
        const cr_value *e = cr_list_at(v_, index);
        if (!e) throw std::out_of_range("index " + std::to_string(index) + " out of range (size " + std::to_string(size()) + ")");
        return Value(e);
    }
    /// Any integer index (so that list[0] is not taken for a NULL key).
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
    Value operator[](I index) const {
        if constexpr (std::is_signed_v<I>)
            if (index < 0) throw std::out_of_range("negative index " + std::to_string(index));
        return (*this)[static_cast<std::size_t>(index)];
    }
    /// The value under `key` of a map. Throws TypeError (not a map), std::out_of_range (absent).
    Value operator[](const char *key) const {
        const cr_value *e = require(key);
        return Value(e);
    }
    Value operator[](const std::string &key) const { return (*this)[detail::c_text(key, "a key")]; }

    /// True if this is a map that has `key`.
    bool has(const char *key) const noexcept { return v_ && cr_map_get(v_, key) != nullptr; }
    bool has(const std::string &key) const noexcept {
        return key.find('\0') == std::string::npos && has(key.c_str()); // no key holds a NUL
    }

    /// The value under `key` of a map, or nullopt if absent. Throws TypeError if not a map.
    std::optional<Value> find_value(const char *key) const {
        const cr_value *e = lookup(key);
        if (!e) return std::nullopt;
        return Value(e);
    }
    std::optional<Value> find_value(const std::string &key) const { return find_value(detail::c_text(key, "a key")); }

    /// The key at `index` of a map (in order). Throws TypeError, std::out_of_range.
    std::string_view key_at(std::size_t index) const {
        expect(Kind::Map, "map key");
        const char *k = cr_map_key_at(v_, index);
        if (!k) throw std::out_of_range("index " + std::to_string(index) + " out of range (size " + std::to_string(size()) + ")");
        return k;
    }
    /// The value at `index` of a map (in order). Throws TypeError, std::out_of_range.
    Value value_at(std::size_t index) const {
        expect(Kind::Map, "map value");
        const cr_value *e = cr_map_value_at(v_, index);
        if (!e) throw std::out_of_range("index " + std::to_string(index) + " out of range (size " + std::to_string(size()) + ")");
        return Value(e);
    }
    /// All keys of a map, in order (empty for other kinds).
    std::vector<std::string> keys() const {
        std::vector<std::string> out;
        if (kind() != Kind::Map) return out;
        for (std::size_t i = 0, n = size(); i < n; ++i) out.emplace_back(key_at(i));
        return out;
    }

    /// Who owns the object or provider of this value (Owner::None for other kinds).
    Owner owner() const noexcept { return v_ ? static_cast<Owner>(cr_value_owner(v_)) : Owner::None; }
    /// Who owns the object under `key` (Owner::None if absent or not an object). Does not take it.
    Owner owner(const char *key) const noexcept { return Value(v_ ? cr_map_get(v_, key) : nullptr).owner(); }

    /// The value converted to T. Supported: bool; integer types (range-checked: std::out_of_range);
    /// double/float (from Kind::Double or Kind::Int); std::string; std::string_view (lives as long
    /// as the value); U* (a borrowed object: Owner::Caller, Registry or Shared, or nullptr for
    /// null; an object built for this call must be taken with take<U>()); Value;
    /// std::optional<U> (nullopt for null); std::vector<U> (from a list). Throws TypeError.
    template <class T> T as() const { return convert<T>(nullptr); }

    /// The value under `key` converted to T. Throws std::out_of_range if absent, TypeError.
    template <class T> T get(const char *key) const {
        const cr_value *e = require(key);
        return Value(e).template convert<T>(key);
    }
    template <class T> T get(const std::string &key) const { return get<T>(detail::c_text(key, "a key")); }
    /// The value under `key` converted to T, or nullopt if absent (TypeError if of the wrong type).
    template <class T> std::optional<T> find(const char *key) const {
        const cr_value *e = lookup(key);
        if (!e) return std::nullopt;
        return Value(e).template convert<T>(key);
    }
    template <class T> std::optional<T> find(const std::string &key) const { return find<T>(detail::c_text(key, "a key")); }
    /// The value under `key` converted to T, or `fallback` if absent.
    template <class T> T get_or(const char *key, T fallback) const {
        const cr_value *e = lookup(key);
        if (!e) return fallback;
        return Value(e).template convert<T>(key);
    }
    template <class T> T get_or(const std::string &key, T fallback) const {
        return get_or<T>(detail::c_text(key, "a key"), std::move(fallback));
    }

    /// A borrowed object under `key` (see as<U*>()).
    template <class T> T *object(const char *key) const { return get<T *>(key); }
    template <class T> T *object(const std::string &key) const { return get<T *>(detail::c_text(key, "a key")); }

    /// Takes this object value: the Ptr owns it if it was built for this call (Owner::Receiver),
    /// else it views it (a singleton, a caller's prop, a graph object another receiver owns).
    /// Null gives an empty Ptr. T must be the type the producing factory returned (objects of C++
    /// classes are destroyed with `delete (T *)`; T is not checked: an argument carries no class);
    /// for an object of a raw cr_class pass its destroyer. Throws TypeError if this is not an object.
    template <class T> Ptr<T> take_as(cr_destroyer destroyer = {&detail::delete_as<std::remove_cv_t<T>>, nullptr}) const {
        return take_impl<T>(nullptr, destroyer);
    }
    /// take_as<T>() on the value under `key`. Throws std::out_of_range if absent, TypeError (also for
    /// a second take of an object built for this call: the first Ptr owns it).
    template <class T>
    Ptr<T> take(const char *key, cr_destroyer destroyer = {&detail::delete_as<std::remove_cv_t<T>>, nullptr}) const {
        const cr_value *e = require(key);
        return Value(e).template take_impl<T>(key, destroyer);
    }
    template <class T>
    Ptr<T> take(const std::string &key, cr_destroyer destroyer = {&detail::delete_as<std::remove_cv_t<T>>, nullptr}) const {
        return take<T>(detail::c_text(key, "a key"), destroyer);
    }

    /// Takes every object of the list under `key` (`{Tagged: tag}` in a config gives one), in list
    /// order: each Ptr owns its object if it was built for this call, else views it (a singleton,
    /// a graph object another receiver owns). Throws std::out_of_range if absent, TypeError if it
    /// is not a list of objects (what was taken before is freed by its Ptr).
    template <class T>
    std::vector<Ptr<T>> take_list(const char *key,
                                  cr_destroyer destroyer = {&detail::delete_as<std::remove_cv_t<T>>, nullptr}) const {
        const cr_value *e = require(key);
        Value list(e);
        list.expect(Kind::List, key);
        std::vector<Ptr<T>> out;
        out.reserve(list.size());
        for (std::size_t i = 0, n = list.size(); i < n; ++i)
            out.push_back(Value(cr_list_at(e, i)).template take_impl<T>(key, destroyer));
        return out;
    }
    template <class T>
    std::vector<Ptr<T>> take_list(const std::string &key,
                                  cr_destroyer destroyer = {&detail::delete_as<std::remove_cv_t<T>>, nullptr}) const {
        return take_list<T>(detail::c_text(key, "a key"), destroyer);
    }

    /// Takes the provider under `key` (`{Provider: Name}` in a config). Throws std::out_of_range, TypeError.
    Provider provider(const char *key) const;
    Provider provider(const std::string &key) const;
    /// Takes this provider value. Throws TypeError if it is not a provider, or was taken already
    /// (the first cr::Provider owns it).
    Provider as_provider() const;

private:
    Provider provider_impl(const char *key) const;
    // The value under `key`, or NULL if absent. The kind is only checked when cr_map_get finds
    // nothing (it also returns NULL for a value that is not a map): one library call per read.
    const cr_value *lookup(const char *key) const {
        const cr_value *e = v_ ? cr_map_get(v_, key) : nullptr;
        if (!e) expect(Kind::Map, key);
        return e;
    }
    // The value under `key`; TypeError if this is not a map, std::out_of_range if it is absent.
    const cr_value *require(const char *key) const {
        const cr_value *e = v_ ? cr_map_get(v_, key) : nullptr;
        if (!e) missing(key);
        return e;
    }
    [[noreturn]] CONTROLLERREG_COLD void missing(const char *key) const {
        expect(Kind::Map, key);
        if (!key) throw std::out_of_range("missing key: the key is a null pointer (pass the key's name)");
        throw std::out_of_range(std::string("missing key '") + key +
                                "' (read a key that may be absent with find<T> or get_or<T>)");
    }
    [[noreturn]] CONTROLLERREG_COLD void fail_type(const char *key, const char *expected) const {
        throw type_error(key, expected);
    }
    template <class T> Ptr<T> take_impl(const char *key, cr_destroyer destroyer) const {
        // One call takes a receiver-owned object (refusing a second take: the first Ptr owns it,
        // so that is a TypeError, never a second owner) and only reads any other, with its owner.
        // How the Ptr will destroy an object it owns, found before the take (a look-up that could
        // not allocate would otherwise leave the taken object to nobody); a constant for the default.
        const detail::DestroyRecord *how = detail::record_of<std::remove_cv_t<T>>(destroyer);
        cr_owner owner = CR_OWNER_NONE;
        void *object = v_ ? cr_value_take_object_with_owner(v_, &owner) : nullptr;
        if (!object) {
            if (kind() == Kind::Null) return Ptr<T>();
            if (owner == CR_OWNER_RECEIVER && kind() == Kind::Object) fail_taken(key);
            fail_type(key, "an object");
        }
        if (owner != CR_OWNER_RECEIVER) return Ptr<T>(static_cast<T *>(object));
        return Ptr<T>(static_cast<T *>(object), Deleter<T>(how));
    }
    TypeError type_error(const char *key, const char *expected) const {
        return TypeError(detail::mismatch_text(key ? std::string("'") + key + "'" : std::string(), expected, kind()));
    }
    void expect(Kind k, const char *what) const {
        if (kind() != k) fail_expect(k, what);
    }
    [[noreturn]] CONTROLLERREG_COLD void fail_expect(Kind k, const char *what) const {
        throw TypeError(detail::mismatch_text(what ? what : "value", kind_name(k), kind()));
    }

    [[noreturn]] CONTROLLERREG_COLD static void fail_range(const char *key, int64_t n) {
        throw std::out_of_range((key ? std::string("'") + key + "': " : std::string()) + std::to_string(n) +
                                " does not fit the requested integer type");
    }
    [[noreturn]] CONTROLLERREG_COLD static void fail_taken(const char *key) {
        throw TypeError((key ? std::string("'") + key + "': " : std::string()) +
                        "the object was taken already by an earlier take: the first Ptr owns it; take an object once");
    }
    [[noreturn]] CONTROLLERREG_COLD static void fail_borrow_owned(const char *key) {
        throw TypeError((key ? std::string("'") + key + "': " : std::string()) +
                        "the object was built for this call: take it with take<T>() (an owning cr::Ptr)");
    }

    // Reads the value as T. The common kinds are read with one call; the kind is only checked when
    // the accessor returned its failure value (0 / NULL), so a correct read costs what C's does.
    template <class T> T convert(const char *key) const {
        using U = std::remove_cv_t<T>;
        if constexpr (std::is_same_v<U, Value>) {
            return *this;
        } else if constexpr (std::is_same_v<U, bool>) {
            if (cr_value_bool(v_)) return true;
            if (kind() != Kind::Bool) fail_type(key, "bool");
            return false;
        } else if constexpr (std::is_integral_v<U>) {
            int64_t n = cr_value_int(v_);
            if (n == 0 && kind() != Kind::Int) fail_type(key, "int");
            if constexpr (!std::is_same_v<U, int64_t>) {
                bool fits;
                if constexpr (std::is_unsigned_v<U>)
                    fits = n >= 0 && static_cast<uint64_t>(n) <= static_cast<uint64_t>(std::numeric_limits<U>::max());
                else
                    fits = n >= static_cast<int64_t>(std::numeric_limits<U>::min()) &&
                        n <= static_cast<int64_t>(std::numeric_limits<U>::max());
                if (!fits) fail_range(key, n);
            }
            return static_cast<U>(n);
        } else if constexpr (std::is_floating_point_v<U>) {
            double d = cr_value_double(v_);
            if (d == 0) {
                Kind k = kind();
                if (k != Kind::Double && k != Kind::Int) fail_type(key, "a number");
            }
            return static_cast<U>(d);
        } else if constexpr (std::is_same_v<U, std::string> || std::is_same_v<U, std::string_view>) {
            size_t n = 0;
            const char *s = cr_value_string_with_length(v_, &n);
            if (!s) fail_type(key, "string");
            return U(s, n);
        } else if constexpr (std::is_pointer_v<U>) {
            Owner o = owner();
            if (o == Owner::None) {
                if (kind() == Kind::Null) return nullptr;
                fail_type(key, "an object");
            }
            if (o == Owner::Receiver) fail_borrow_owned(key);
            return static_cast<U>(cr_value_object(v_));
        } else if constexpr (detail::is_optional<U>::value) {
            if (kind() == Kind::Null) return std::nullopt;
            return convert<typename U::value_type>(key);
        } else if constexpr (detail::is_vector<U>::value) {
            expect(Kind::List, key);
            U out;
            std::size_t n = size();
            out.reserve(n);
            for (std::size_t i = 0; i < n; ++i)
                out.push_back(Value(cr_list_at(v_, i)).template convert<typename U::value_type>(key));
            return out;
        } else {
            static_assert(detail::always_false<T>::value, "controllerreg::Value::as<T>: unsupported type");
        }
    }

    const cr_value *v_ = nullptr;
};

/// The argument map a factory receives: resolved dependencies merged with props (props win).
/// A borrowed view, valid until the factory returns; every Value accessor applies.
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
    template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool> && !std::is_same_v<I, char>, int> = 0>
    PropValue(I n) : type_(Type::Int), i_(static_cast<int64_t>(n)) {
        if constexpr (std::is_unsigned_v<I> && sizeof(I) >= sizeof(int64_t))
            if (n > static_cast<I>(std::numeric_limits<int64_t>::max()))
                throw std::out_of_range("integer prop out of the int64_t range");
    }
    PropValue(double d) noexcept : type_(Type::Double), d_(d) {}
    PropValue(float d) noexcept : type_(Type::Double), d_(static_cast<double>(d)) {}
    PropValue(const char *s) : type_(s ? Type::String : Type::Null), s_(s ? s : "") {}
    PropValue(std::string s) noexcept : type_(Type::String), s_(std::move(s)) {}
    PropValue(std::string_view s) : type_(Type::String), s_(s) {}
    /// An object pointer (not owned by the props: Owner::Caller in args, the caller keeps it); a null
    /// pointer is a null value (an object value always holds an object: the C ABI refuses NULL).
    template <class T, std::enable_if_t<!std::is_same_v<std::remove_cv_t<T>, char>, int> = 0>
    PropValue(T *object) noexcept
        : type_(object ? Type::Object : Type::Null), o_(const_cast<void *>(static_cast<const void *>(object))) {}

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

    /// Stores this value under `key` in a map you own (cr_map_set_*). Throws Error: cr::Limit
    /// (CR_ERR_LIMIT) for a list or map nested deeper than CR_VALUE_NESTING_MAX levels below the
    /// map, naming the path to it (the conversion recurses once per level).
    void set_in(cr_value *map, const char *key) const {
        try {
            set_at(map, key, 1);
        } catch (TooDeep &deep) {
            deep.parts.insert(deep.parts.begin(), key_part(key));
            deep.raise();
        }
    }
    /// Appends this value to a list you own (cr_list_push_*). Throws Error, as set_in.
    void push_to(cr_value *list) const {
        std::size_t index = cr_value_count(list);
        try {
            push_at(list, 1);
        } catch (TooDeep &deep) {
            deep.parts.insert(deep.parts.begin(), "[" + std::to_string(index) + "]");
            deep.raise();
        }
    }

private:
    /// A list or map met past CR_VALUE_NESTING_MAX levels, on its way out: each level puts its
    /// key or index in front of `parts`, and set_in / push_to throw it as cr::Limit.
    struct TooDeep {
        std::vector<std::string> parts;
        [[noreturn]] void raise() const {
            std::string where;
            for (std::size_t i = 0; i < parts.size() && i < 8; ++i) where += parts[i];
            if (parts.size() > 8) where += "...(" + std::to_string(parts.size()) + " levels down)";
            std::string message = "cr::PropValue: the value at " + where + " nests deeper than " +
                std::to_string(CR_VALUE_NESTING_MAX) +
                " levels (CR_VALUE_NESTING_MAX, a fixed bound); flatten the value, or pass the deep data "
                "inside an object of your own (in props, an object pointer arrives in args as itself)";
            Problem problem;
            problem.code = CR_ERR_LIMIT;
            problem.message = message;
            throw Limit(CR_ERR_LIMIT, message, {std::move(problem)});
        }
    };
    static std::string key_part(const char *key) { return "[\"" + std::string(key) + "\"]"; }

    // set_in / push_to for a value `depth` levels below the map the conversion began with.
    void set_at(cr_value *map, const char *key, int depth) const {
        int rc = CR_OK;
        switch (type_) {
        case Type::Null: rc = cr_map_set_null(map, key); break;
        case Type::Bool: rc = cr_map_set_bool(map, key, static_cast<int>(i_)); break;
        case Type::Int: rc = cr_map_set_int(map, key, i_); break;
        case Type::Double: rc = cr_map_set_double(map, key, d_); break;
        case Type::String:
            check_string();
            rc = cr_map_set_string(map, key, s_.c_str());
            break;
        case Type::Object: rc = cr_map_set_object(map, key, o_); break;
        case Type::List:
        case Type::Map: rc = cr_map_set_value(map, key, build_container(depth)); break;
        }
        detail::check(rc);
    }
    void push_at(cr_value *list, int depth) const {
        int rc = CR_OK;
        switch (type_) {
        case Type::Null: rc = cr_list_push_null(list); break;
        case Type::Bool: rc = cr_list_push_bool(list, static_cast<int>(i_)); break;
        case Type::Int: rc = cr_list_push_int(list, i_); break;
        case Type::Double: rc = cr_list_push_double(list, d_); break;
        case Type::String:
            check_string();
            rc = cr_list_push_string(list, s_.c_str());
            break;
        case Type::Object: rc = cr_list_push_object(list, o_); break;
        case Type::List:
        case Type::Map: rc = cr_list_push_value(list, build_container(depth)); break;
        }
        detail::check(rc);
    }

    void check_string() const {
        if (s_.find('\0') != std::string::npos) throw std::invalid_argument("prop strings cannot contain NUL bytes");
    }
    // A new cr_value for a nested list/map `depth` levels down (ownership passes to
    // cr_*_set_value / push_value).
    cr_value *build_container(int depth) const {
        if (depth > CR_VALUE_NESTING_MAX) throw TooDeep{};
        cr_value *c = type_ == Type::List ? cr_list_new() : cr_map_new();
        if (!c) detail::throw_last_error();
        try {
            if (type_ == Type::List) {
                std::size_t i = 0;
                try {
                    for (const auto &item : *items_) {
                        item.push_at(c, depth + 1);
                        ++i;
                    }
                } catch (TooDeep &deep) {
                    deep.parts.insert(deep.parts.begin(), "[" + std::to_string(i) + "]");
                    throw;
                }
            } else {
                for (const auto &entry : *entries_) {
                    const char *key = detail::c_text(entry.first, "a prop key");
                    try {
                        entry.second.set_at(c, key, depth + 1);
                    } catch (TooDeep &deep) {
                        deep.parts.insert(deep.parts.begin(), key_part(key));
                        throw;
                    }
                }
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

/// An owned cr_value map (cr_map_new / cr_value_free): props for create, dependencies for
/// add_entry. Move-only.   Props{{"color", "red"}, {"number", 1}}   or   Props().set("color", "red")
class Props {
public:
    Props() : map_(cr_map_new()) {
        if (!map_) detail::throw_last_error();
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

    /// Sets `key` (replacing an existing one). Returns *this for chaining. Throws Error, and
    /// std::logic_error on a moved-from Props.
    Props &set(const std::string &key, const PropValue &value) & {
        value.set_in(live(), detail::c_text(key, "a prop key"));
        return *this;
    }
    Props &&set(const std::string &key, const PropValue &value) && { return std::move(set(key, value)); }

    /// Number of keys.
    std::size_t size() const noexcept { return map_ ? cr_value_count(map_) : 0; }
    /// A read-only view of the map.
    Value view() const noexcept { return Value(map_); }
    /// The underlying map (still owned by this Props); NULL after a move.
    const cr_value *get() const noexcept { return map_; }
    /// The map for a call that reads it (create, Provider::create, add_entry): throws
    /// std::logic_error on a moved-from Props, which holds no map, so such a call fails instead of
    /// running as if it had been given no props.
    const cr_value *checked() const { return live(); }
    /// Gives up ownership of the map (free it with cr_value_free).
    cr_value *release() noexcept { return std::exchange(map_, nullptr); }

private:
    cr_value *live() const {
        if (!map_) throw std::logic_error("controllerreg::Props used after move");
        return map_;
    }
    cr_value *map_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Classes registered from C++

namespace detail {
template <class R> struct factory_result { static constexpr bool valid = false; };
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

/// A class registered without a setter.
struct NoSetter {};

/// The type of the exception being handled as a person writes it ("int", "MyError"), or "" where
/// the ABI cannot tell (not GCC or Clang).
CONTROLLERREG_COLD inline std::string current_exception_type_name() {
#if defined(__GNUG__)
    if (const std::type_info *type = abi::__cxa_current_exception_type()) return readable_type_name(type->name());
#endif
    return "";
}

/// Reports the exception being handled to the library (inside a callback): a std::exception's
/// what(); a thrown `const char *` or std::string as that text; anything else by its type and the
/// fix, since it carries no message the library can read.
CONTROLLERREG_COLD inline void report_current_exception() noexcept {
    try {
        throw;
    } catch (const std::exception &e) { cr_report_error(e.what()); } catch (const char *text) {
        cr_report_error(text != nullptr ? text : "a C++ exception of type 'const char *' (a null pointer)");
    } catch (const std::string &text) { cr_report_error(text.c_str()); } catch (...) {
        try {
            std::string type = current_exception_type_name();
            std::string message = "a C++ exception of type '" + (type.empty() ? std::string("unknown") : type) +
                "', not a std::exception, so it has no message: throw a std::exception (such as "
                "std::runtime_error(\"why\")) to say why";
            cr_report_error(message.c_str());
        } catch (...) { cr_report_error("a C++ exception that is not a std::exception: throw a std::exception to say why"); }
    }
}

/// The heap-allocated state behind a class registered from C++ (the cr_class user_data).
template <class F, class S> struct ClassBox : ClassBoxBase {
    using Result = std::decay_t<std::invoke_result_t<F &, Args>>;
    using Object = typename factory_result<Result>::type;
    F factory;
    S setter;

    ClassBox(F f, S s)
        : ClassBoxBase{type_tag<Object>(), typeid(Object).name(), &delete_object_as}, factory(std::move(f)),
          setter(std::move(s)) {}

    static void delete_object_as(void *object) noexcept { delete static_cast<Object *>(object); }

    static void *create(const cr_value *args, void *user_data) noexcept {
        auto *box = static_cast<ClassBox *>(user_data);
        try {
            Object *object = factory_result<Result>::release(box->factory(Args(args)));
            if (!object) cr_report_error("the factory returned null");
            return const_cast<void *>(static_cast<const void *>(object));
        } catch (...) { report_current_exception(); }
        return nullptr;
    }
    static int set(void *object, const char *key, const cr_value *value, void *user_data) noexcept {
        auto *box = static_cast<ClassBox *>(user_data);
        try {
            box->setter(*static_cast<Object *>(object), std::string_view(key), Value(value));
            return 0;
        } catch (...) { report_current_exception(); }
        return 1;
    }
    static void release(void *user_data) noexcept { delete static_cast<ClassBox *>(user_data); }

    static cr_class make_class() noexcept {
        cr_class cls{};
        cls.create = &create;
        cls.destroy = &destroy_cpp_object;
        if constexpr (!std::is_same_v<S, NoSetter>) cls.set = &set;
        cls.release = &release;
        cls.version = CR_CLASS_VERSION;
        return cls;
    }
};
} // namespace detail

// ---------------------------------------------------------------------------------------------
// Loading

/// Options of load_file / load_files / load_string (cr_load_options).
struct LoadOptions {
    Format format = Format::Auto;
    /// Entries whose names exist are replaced instead of being a Duplicate error (CR_LOAD_OVERRIDE).
    bool override_existing = false;
    /// load_string only: the file name used in every location of its errors ("<string>" if empty).
    std::string source_name;
    /// The variables ${NAME} and {Env: NAME} resolve against, instead of the process environment
    /// (std::nullopt, the default: the process environment, read during the load).
    std::optional<std::map<std::string, std::string>> environment = std::nullopt;
};

/// One entry of Registry::entries().
struct EntryInfo {
    std::string name;
    std::string class_name;
    Lifestyle lifestyle = Lifestyle::Transient;
    std::optional<std::string> description;
    /// The entry's tags as text (an integer tag in decimal); empty when it has none.
    std::vector<std::string> tags;
};

/// What Registry::reload() changed: entry names, each list sorted byte-wise (cr_registry_reload_with).
struct ReloadChanges {
    std::vector<std::string> added;
    std::vector<std::string> removed;
    /// Definition changed, or a singleton wired to an added, removed or changed entry.
    std::vector<std::string> changed;
    /// True when the reload changed nothing.
    bool empty() const noexcept { return added.empty() && removed.empty() && changed.empty(); }
};

// ---------------------------------------------------------------------------------------------
// Registry

/// A registry of classes and entries. Owns its cr_registry (move-only), except the view returned
/// by Registry::shared(), which never frees the process-wide registry.
class Registry {
public:
    /// A new empty registry. Throws NoMemory.
    Registry() : reg_(cr_registry_new()), owned_(true) {
        if (!reg_) detail::throw_last_error();
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

    // -- classes --------------------------------------------------------------------------------

    /// Registers a class whose objects a callable builds: factory(cr::Args) returns U* (from new)
    /// or std::unique_ptr<U>; its objects are deleted as U. Captures are fine (the callable is
    /// moved to the heap and freed with the class). Throws ClassExists, InvalidArgument.
    template <class F> void register_class(const std::string &class_name, F &&factory) {
        register_impl(class_name, std::forward<F>(factory), detail::NoSetter{}, false);
    }
    /// Same, with a setter for injection (inject): setter(U &object, std::string_view key, cr::Value
    /// value), called once per dependency; take objects from `value` with take_as<T>().
    template <class F, class S, std::enable_if_t<std::is_invocable_v<std::decay_t<F> &, Args>, int> = 0>
    void register_class(const std::string &class_name, F &&factory, S &&setter) {
        static_assert(
            std::is_invocable_v<std::decay_t<S> &, typename detail::ClassBox<std::decay_t<F>, std::decay_t<S>>::Object &,
                                std::string_view, Value>,
            "the setter must be callable as setter(U &object, std::string_view key, controllerreg::Value value)");
        register_impl(class_name, std::forward<F>(factory), std::forward<S>(setter), false);
    }
    /// Like register_class, but replaces a class already registered under the name.
    template <class F> void replace_class(const std::string &class_name, F &&factory) {
        register_impl(class_name, std::forward<F>(factory), detail::NoSetter{}, true);
    }
    /// Registers a raw C class (callbacks and user_data as in cr_register_class). Objects that
    /// create<T>() returns for it are destroyed with its destroy callback.
    void register_class(const std::string &class_name, const cr_class &cls, void *user_data) {
        detail::check(cr_register_class(handle(), detail::c_text(class_name, "a class name"), &cls, user_data));
    }
    /// Adds a class-name template such as "{name}ViewController" (convention over configuration).
    void add_name_template(const std::string &name_template) {
        detail::check(cr_add_name_template(handle(), detail::c_text(name_template, "a name template")));
    }

    // -- configs and entries --------------------------------------------------------------------

    /// Loads a config file (all-or-nothing). Throws IoError, Syntax, Schema, Cycle, Duplicate, ...
    void load_file(const std::string &path, const LoadOptions &options = {}) {
        cr_load_options o = c_options(options);
        CEnvironment env(options, o);
        detail::check(cr_load_file_with(handle(), detail::c_text(path, "a path"), &o));
    }
    void load_file(const std::string &path, Format format) { load_file(path, LoadOptions{format, false, {}}); }
    /// Loads several config files as one transaction (they may refer to each other).
    void load_files(const std::vector<std::string> &paths, const LoadOptions &options = {}) {
        std::vector<const char *> cpaths;
        cpaths.reserve(paths.size());
        for (const auto &p : paths) cpaths.push_back(detail::c_text(p, "a path"));
        cr_load_options o = c_options(options);
        CEnvironment env(options, o);
        detail::check(cr_load_files_with(handle(), cpaths.data(), cpaths.size(), &o));
    }
    /// Loads config text (need not be NUL-terminated); errors name options.source_name.
    void load_string(std::string_view text, const LoadOptions &options = {}) {
        cr_load_options o = c_options(options);
        CEnvironment env(options, o);
        detail::check(cr_load_string_with(handle(), text.data(), text.size(), &o));
    }
    void load_string(std::string_view text, Format format) { load_string(text, LoadOptions{format, false, {}}); }

    /// Adds one entry from code: `dependencies` read with the config's rules ("@text" a literal,
    /// another string a reference, {"Provider": "Name"} a provider). Validated like a file.
    void add_entry(const std::string &name, const std::string &class_name, Lifestyle lifestyle = Lifestyle::Transient,
                   const Props &dependencies = Props()) {
        detail::check(cr_add_entry(handle(), detail::c_text(name, "an entry name"), detail::c_text(class_name, "a class name"),
                                   static_cast<cr_lifestyle>(lifestyle), dependencies.checked()));
    }
    /// Removes an entry (fails if another entry refers to it). Throws NotFound, ...
    void remove_entry(const std::string &name) {
        detail::check(cr_remove_entry(handle(), detail::c_text(name, "an entry name")));
    }
    /// Every entry (a child lists its parent's too, with its own overrides).
    std::vector<EntryInfo> entries() const {
        std::unique_ptr<cr_value, void (*)(cr_value *)> list(cr_registry_entries(handle()), &cr_value_free);
        if (!list) detail::throw_last_error();
        Value all(list.get());
        std::vector<EntryInfo> out;
        out.reserve(all.size());
        for (std::size_t i = 0, n = all.size(); i < n; ++i) {
            Value e = all[i];
            EntryInfo info;
            info.name = e.get<std::string>("name");
            info.class_name = e.get<std::string>("class");
            auto lifestyle = e.get<std::string_view>("lifestyle");
            info.lifestyle = lifestyle == "singleton" ? Lifestyle::Singleton
                : lifestyle == "graph"                ? Lifestyle::Graph
                                                      : Lifestyle::Transient;
            info.description = e.find<std::string>("description");
            // "tags" lists every tag; "tag" (the first) is what older libraries give.
            auto tag = e.find_value("tags");
            if (!tag) tag = e.find_value("tag");
            if (tag) {
                auto text = [](Value t) { return t.kind() == Kind::Int ? std::to_string(t.as<int64_t>()) : t.as<std::string>(); };
                if (tag->kind() == Kind::List) {
                    for (std::size_t j = 0; j < tag->size(); ++j) info.tags.push_back(text((*tag)[j]));
                } else {
                    info.tags.push_back(text(*tag));
                }
            }
            out.push_back(std::move(info));
        }
        return out;
    }

    /// Reads again every file loaded into the registry and rebuilds it from its history (text and
    /// code changes applied again), validated whole, in one atomic swap (cr_registry_reload_with).
    /// Returns what changed. On any problem it throws (IoError for a file gone, Syntax, Cycle, ...:
    /// every problem in the exception's problems()) and nothing changes. Singletons of changed and
    /// removed entries are destroyed once no running create can reach them; others are kept.
    ReloadChanges reload() {
        cr_value *raw = nullptr;
        detail::check(cr_registry_reload_with(handle(), &raw));
        std::unique_ptr<cr_value, void (*)(cr_value *)> owned(raw, &cr_value_free);
        Value map(owned.get());
        auto names = [&](const char *key) {
            std::vector<std::string> out;
            Value list = map[key];
            out.reserve(list.size());
            for (std::size_t i = 0, n = list.size(); i < n; ++i) out.push_back(list[i].as<std::string>());
            return out;
        };
        return ReloadChanges{names("added"), names("removed"), names("changed")};
    }

    // -- registries -----------------------------------------------------------------------------

    /// A child registry: names and classes fall back to this one; the child's own definitions win
    /// for creates through the child. Destroy children before their parent.
    Registry new_child() {
        cr_registry *child = cr_registry_new_child(handle());
        if (!child) detail::throw_last_error();
        return Registry(child, true);
    }
    /// Sets a limit for later loads and creates (value >= 1). Throws InvalidArgument.
    void set_limit(LimitKind limit, int64_t value) {
        detail::check(cr_registry_set_limit(handle(), static_cast<cr_limit>(limit), value));
    }
    /// The current value of a limit.
    int64_t limit(LimitKind limit) const {
        int64_t v = cr_registry_get_limit(handle(), static_cast<cr_limit>(limit));
        if (v < 0) detail::throw_last_error();
        return v;
    }
    /// Builds every eager singleton now (`Eager: true`).
    void start() { detail::check(cr_registry_start(handle())); }

    // -- objects --------------------------------------------------------------------------------

    /// Builds the entry `name` and returns it owned by the caller (destroyed with its class's
    /// destroyer) — except a singleton, which the registry keeps (its Ptr does not delete).
    /// For a class registered from C++, T must be the factory's type (TypeError otherwise; a
    /// singleton, for which the library reports no destroyer, is not checked).
    /// Throws NotFound, ClassNotRegistered, CreateFailed, Limit, InvalidArgument, TypeError.
    template <class T> Ptr<T> create(const char *name, const cr_value *props = nullptr) {
        // The library writes the destroyer on every call it accepts the options of (success or
        // failure), so it needs no initial value; the owner is not asked for (`adopt`).
        cr_destroyer destroyer;
        cr_create_options o = CR_CREATE_OPTIONS_INIT;
        o.props = props;
        o.destroyer = &destroyer;
        void *object = cr_registry_create_with(handle(), name, &o);
        if (!object) detail::throw_last_error();
        return detail::adopt<T>(object, destroyer, name);
    }
    template <class T> Ptr<T> create(const std::string &name) {
        return create<T>(detail::c_text(name, "an entry name"), nullptr);
    }
    template <class T> Ptr<T> create(const std::string &name, const Props &props) {
        return create<T>(detail::c_text(name, "an entry name"), props.checked());
    }
    template <class T> Ptr<T> create(const std::string &name, std::initializer_list<std::pair<std::string, PropValue>> props) {
        const char *n = detail::c_text(name, "an entry name");
        Props p(props);
        return create<T>(n, p.get());
    }

    /// Injects entry `name`'s dependencies into `object`, made elsewhere, through its class's setter.
    template <class T> void inject(const std::string &name, T *object) {
        detail::check(
            cr_inject(handle(), detail::c_text(name, "an entry name"), const_cast<void *>(static_cast<const void *>(object))));
    }

private:
    Registry(cr_registry *reg, bool owned) noexcept : reg_(reg), owned_(owned) {}

    void reset() noexcept {
        if (reg_ && owned_) cr_registry_free(reg_);
        reg_ = nullptr;
    }
    cr_registry *handle() const {
        if (!reg_) used_after_move();
        return reg_;
    }
    [[noreturn]] CONTROLLERREG_COLD static void used_after_move() {
        throw std::logic_error("controllerreg::Registry used after move");
    }
    /// The options' environment as a CR_MAP of CR_STRING set into `o` for one call (freed after it).
    class CEnvironment {
    public:
        CEnvironment(const LoadOptions &options, cr_load_options &o) {
            if (!options.environment) return;
            map_ = cr_map_new();
            if (!map_) detail::throw_last_error();
            for (const auto &[name, value] : *options.environment) {
                if (name.find('\0') != std::string::npos || value.find('\0') != std::string::npos) {
                    cr_value_free(map_);
                    map_ = nullptr;
                    detail::nul_in("an environment variable's name or value");
                }
                if (cr_map_set_string(map_, name.c_str(), value.c_str()) != CR_OK) {
                    cr_value_free(map_);
                    map_ = nullptr;
                    detail::throw_last_error();
                }
            }
            o.environment = map_;
        }
        ~CEnvironment() {
            if (map_) cr_value_free(map_);
        }
        CEnvironment(const CEnvironment &) = delete;
        CEnvironment &operator=(const CEnvironment &) = delete;

    private:
        cr_value *map_ = nullptr;
    };

    /// Throws std::invalid_argument for a source name holding a NUL.
    static cr_load_options c_options(const LoadOptions &options) {
        cr_load_options o = CR_LOAD_OPTIONS_INIT;
        o.format = static_cast<cr_format>(options.format);
        o.flags = options.override_existing ? CR_LOAD_OVERRIDE : 0u;
        o.source_name = options.source_name.empty() ? nullptr : detail::c_text(options.source_name, "a source name");
        return o;
    }

    template <class F, class S> void register_impl(const std::string &class_name, F &&factory, S &&setter, bool replace) {
        using Box = detail::ClassBox<std::decay_t<F>, std::decay_t<S>>;
        static_assert(std::is_invocable_v<std::decay_t<F> &, Args>,
                      "the factory must be callable as factory(controllerreg::Args)");
        static_assert(detail::factory_result<typename Box::Result>::valid, "the factory must return T* or std::unique_ptr<T>");
        cr_registry *reg = handle();
        const char *name = detail::c_text(class_name, "a class name");
        cr_class cls = Box::make_class();
        auto *box = new Box(std::forward<F>(factory), std::forward<S>(setter));
        // On failure the library calls cls.release(box) itself, so the box is never leaked.
        detail::check(replace ? cr_replace_class(reg, name, &cls, box) : cr_register_class(reg, name, &cls, box));
    }

    cr_registry *reg_ = nullptr;
    bool owned_ = false;
};

/// A lazy factory for one entry, received in args (`{Provider: Name}` in a config) instead of an
/// object: call create<T>() whenever an object is needed, also long after the create that injected
/// it. Move-only; owns its cr_provider (taken from args with cr_value_provider) and frees it when
/// destroyed. After its registry has been freed, create() throws InvalidArgument.
class Provider {
public:
    Provider() noexcept = default;
    /// Takes ownership of `p` (from cr_value_provider).
    explicit Provider(cr_provider *p) noexcept : p_(p) {}
    Provider(const Provider &) = delete;
    Provider &operator=(const Provider &) = delete;
    Provider(Provider &&o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
    Provider &operator=(Provider &&o) noexcept {
        if (this != &o) {
            reset();
            p_ = std::exchange(o.p_, nullptr);
        }
        return *this;
    }
    ~Provider() { reset(); }

    explicit operator bool() const noexcept { return p_ != nullptr; }
    cr_provider *get() const noexcept { return p_; }
    /// The name of the entry this provider creates.
    std::string name() const { return p_ ? cr_provider_name(p_) : ""; }

    /// Creates the provider's entry now (props merged over its dependencies); same rules as
    /// Registry::create<T>.
    template <class T> Ptr<T> create(const cr_value *props = nullptr) {
        if (!p_) empty_provider();
        cr_destroyer destroyer{nullptr, nullptr};
        cr_create_options o = CR_CREATE_OPTIONS_INIT;
        o.props = props;
        o.destroyer = &destroyer;
        void *object = cr_provider_create_with(p_, &o);
        if (!object) detail::throw_last_error();
        return detail::adopt<T>(object, destroyer, cr_provider_name(p_));
    }
    template <class T> Ptr<T> create(const Props &props) { return create<T>(props.checked()); }
    template <class T> Ptr<T> create(std::initializer_list<std::pair<std::string, PropValue>> props) {
        Props p(props);
        return create<T>(p.get());
    }

    /// Frees the provider now.
    void reset() noexcept { cr_provider_free(std::exchange(p_, nullptr)); }
    /// Gives up ownership (free it with cr_provider_free).
    cr_provider *release() noexcept { return std::exchange(p_, nullptr); }

private:
    [[noreturn]] CONTROLLERREG_COLD static void empty_provider() { throw std::logic_error("controllerreg::Provider is empty"); }

    cr_provider *p_ = nullptr;
};

inline Provider Value::as_provider() const { return provider_impl(nullptr); }
inline Provider Value::provider(const char *key) const { return Value(require(key)).provider_impl(key); }
inline Provider Value::provider_impl(const char *key) const {
    if (kind() != Kind::Provider) throw type_error(key, "a provider");
    // The library gives a provider once (a second read is refused): the first cr::Provider owns it.
    cr_provider *p = cr_value_provider(v_);
    if (!p)
        throw TypeError((key ? std::string("'") + key + "': " : std::string()) +
                        "the provider was taken already by an earlier provider(): the first cr::Provider owns it; "
                        "take a provider once and move it");
    return Provider(p);
}
inline Provider Value::provider(const std::string &key) const { return provider(detail::c_text(key, "a key")); }

} // namespace controllerreg

#endif // CONTROLLERREG_HPP
