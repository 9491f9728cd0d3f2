// Tests of the C++ binding against the real libcontrollerreg.so.
//
//   controllerreg_cpp_tests            runs every case
//   controllerreg_cpp_tests NAME       runs one case (ctest runs each case as its own test)
//   controllerreg_cpp_tests --list     lists the cases
#include <controllerreg.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace cr = controllerreg;

namespace controllerreg {
std::ostream &operator<<(std::ostream &os, Owner o) { return os << "Owner(" << static_cast<int>(o) << ")"; }
std::ostream &operator<<(std::ostream &os, Kind k) { return os << kind_name(k); }
} // namespace controllerreg

namespace {

// ---------------------------------------------------------------------------------------------
// A tiny test harness.

// Derives from std::exception so a CHECK failing inside a factory reaches the create's message.
struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

std::map<std::string, std::function<void()>> &cases() {
    static std::map<std::string, std::function<void()>> c;
    return c;
}

struct Case {
    Case(const char *name, std::function<void()> fn) { cases()[name] = std::move(fn); }
};

#define TEST_CASE(name)                                   \
    static void name();                                   \
    static const Case name##_registration(#name, &name);  \
    static void name()

#define CHECK(cond)                                                                                 \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            std::ostringstream os_;                                                                 \
            os_ << __FILE__ << ":" << __LINE__ << ": CHECK(" #cond ") failed";                    \
            throw Failure{os_.str()};                                                               \
        }                                                                                           \
    } while (0)

#define CHECK_EQ(a, b)                                                                              \
    do {                                                                                            \
        auto va_ = (a);                                                                             \
        auto vb_ = (b);                                                                             \
        if (!(va_ == vb_)) {                                                                        \
            std::ostringstream os_;                                                                 \
            os_ << __FILE__ << ":" << __LINE__ << ": CHECK_EQ(" #a ", " #b ") failed: " << va_     \
                << " != " << vb_;                                                                   \
            throw Failure{os_.str()};                                                               \
        }                                                                                           \
    } while (0)

// Runs `body`, expects a controllerreg::Error with `code`, returns its message.
template <class F> std::string expect_error(int code, F &&body, const char *file, int line) {
    try {
        body();
    } catch (const cr::Error &e) {
        if (e.code() != code) {
            std::ostringstream os;
            os << file << ":" << line << ": expected error code " << code << ", got " << e.code() << ": " << e.what();
            throw Failure{os.str()};
        }
        return e.what();
    }
    std::ostringstream os;
    os << file << ":" << line << ": expected error code " << code << ", nothing thrown";
    throw Failure{os.str()};
}
#define EXPECT_ERROR(code, ...) expect_error((code), [&] { __VA_ARGS__; }, __FILE__, __LINE__)

bool contains(const std::string &haystack, const std::string &needle) { return haystack.find(needle) != std::string::npos; }

const std::string kFixtures = CONTROLLERREG_FIXTURES;

const char *const kExampleYaml = R"(
Test1:
  ClassName: Test1ViewController
  Dependencies:
    dependentString: "@Yes, you can inject a string using the config file"
    dependentInt: 1000
    dependentBool: true
    test2ViewController: Test2
Test2: Test2ViewController
)";

// Live-object counting, to check destruction.
std::atomic<int> g_live{0};

struct Base {
    virtual ~Base() = default;
    int base_tag = 7;
};

struct Test2 {
    Test2() { ++g_live; }
    ~Test2() { --g_live; }
    std::string name = "Test2";
};

struct Test1 {
    Test1() { ++g_live; }
    ~Test1() { --g_live; }
    std::string dependentString;
    int64_t dependentInt = 0;
    bool dependentBool = false;
    std::string color;
    int64_t number = 0;
    std::unique_ptr<Test2> test2;
};

// Second base first, so Derived* -> Base* needs a pointer adjustment.
struct Padding {
    virtual ~Padding() = default;
    double pad[3] = {1, 2, 3};
};
struct Derived : Padding, Base {
    Derived() { ++g_live; }
    ~Derived() override { --g_live; }
};

void register_example(cr::Registry &reg) {
    reg.register_class("Test2ViewController", [](cr::Args) { return new Test2(); });
    reg.register_class("Test1ViewController", [](cr::Args args) {
        auto t = std::make_unique<Test1>();
        t->dependentString = args.get<std::string>("dependentString");
        t->dependentInt = args.get<int64_t>("dependentInt");
        t->dependentBool = args.get<bool>("dependentBool");
        t->color = args.get_or<std::string>("color", "none");
        t->number = args.get_or<int64_t>("number", -1);
        t->test2.reset(args.object<Test2>("test2ViewController"));
        return t;
    });
}

// ---------------------------------------------------------------------------------------------
// Cases

TEST_CASE(registry_raii_and_move) {
    cr::Registry a;
    CHECK(a.get() != nullptr);
    CHECK(a.owns());
    cr_registry *raw = a.get();
    cr::Registry b(std::move(a));
    CHECK(a.get() == nullptr);
    CHECK(b.get() == raw);
    EXPECT_ERROR(CR_ERR_INVALID_ARGUMENT, a.load_string("A: B"));
    cr::Registry c;
    c = std::move(b);
    CHECK(c.get() == raw);
    CHECK(std::string(cr::version()) == CR_VERSION_STRING);
}

TEST_CASE(shared_registry_view) {
    {
        cr::Registry s = cr::Registry::shared();
        CHECK(s.get() == cr_shared());
        CHECK(!s.owns());
        s.register_class("SharedViewCppClass", [](cr::Args) { return new int(42); });
        s.load_string("SharedViewCppEntry: SharedViewCppClass");
    } // the view's destructor must not free the shared registry
    cr::Registry again = cr::Registry::shared();
    auto p = again.create<int>("SharedViewCppEntry");
    CHECK_EQ(*p, 42);
    void *raw = cr_create("SharedViewCppEntry", nullptr); // the C shared registry sees it too
    CHECK(raw != nullptr);
    delete static_cast<int *>(raw);
}

TEST_CASE(load_string_and_file) {
    for (const char *file : {"example.yaml", "example.json", "example.plist", "example-binary.plist"}) {
        cr::Registry reg;
        register_example(reg);
        reg.load_file(kFixtures + "/" + file);
        auto t1 = reg.create<Test1>("Test1");
        CHECK_EQ(t1->dependentInt, 1000);
    }
    cr::Registry reg;
    register_example(reg);
    reg.load_string(kExampleYaml, cr::Format::Yaml);
    CHECK(reg.create<Test1>("Test1") != nullptr);
    cr::Registry json;
    json.load_string(R"({"A": "AClass"})", cr::Format::Json);
    auto dup = EXPECT_ERROR(CR_ERR_DUPLICATE, reg.load_files({kFixtures + "/example.json"}, cr::Format::Json));
    CHECK(contains(dup, "already defined"));
    cr::Registry both;
    both.load_files({kFixtures + "/example.json"}, cr::Format::Json);
}

TEST_CASE(load_errors) {
    cr::Registry reg;
    auto io = EXPECT_ERROR(CR_ERR_IO, reg.load_file(kFixtures + "/does-not-exist.yaml"));
    CHECK(contains(io, "does-not-exist"));
    auto syntax = EXPECT_ERROR(CR_ERR_SYNTAX, reg.load_string("{\"a\": ", cr::Format::Json));
    CHECK(contains(syntax, "<string>"));
    auto cycle = EXPECT_ERROR(CR_ERR_CYCLE, reg.load_string(R"(
Test1: {ClassName: A, Dependencies: {next: Test2}}
Test2: {ClassName: B, Dependencies: {back: Test1}}
)"));
    CHECK(contains(cycle, "Test1 -> Test2 -> Test1"));
    EXPECT_ERROR(CR_ERR_MISSING_REFERENCE, reg.load_string("A: {ClassName: X, Dependencies: {b: Nope}}"));
    try {
        reg.load_string("A: {ClassName: X, Dependencies: {b: Nope}}");
    } catch (const cr::Error &e) {
        CHECK(std::string(e.status_name()).size() > 0);
        CHECK(dynamic_cast<const std::runtime_error *>(&e) != nullptr);
    }
    // A failed load changes nothing.
    EXPECT_ERROR(CR_ERR_NOT_FOUND, reg.create<int>("Test1"));
}

TEST_CASE(create_example_entry) {
    g_live = 0;
    {
        cr::Registry reg;
        register_example(reg);
        reg.load_file(kFixtures + "/example.yaml");
        auto t1 = reg.create<Test1>("Test1", {{"color", "red"}, {"number", 1}});
        CHECK_EQ(t1->color, std::string("red"));
        CHECK_EQ(t1->number, 1);
        CHECK_EQ(t1->dependentString, std::string("Yes, you can inject a string using the config file"));
        CHECK_EQ(t1->dependentInt, 1000);
        CHECK(t1->dependentBool);
        CHECK(t1->test2 != nullptr);
        CHECK_EQ(t1->test2->name, std::string("Test2"));
        CHECK_EQ(g_live.load(), 2);
        auto t2 = reg.create<Test2>("Test2");
        CHECK_EQ(g_live.load(), 3);
        t2.reset();
        CHECK_EQ(g_live.load(), 2);
    }
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(props_builder) {
    cr::Registry reg;
    std::string seen;
    reg.register_class("Echo", [&seen](cr::Args args) {
        std::ostringstream os;
        for (const auto &k : args.keys()) os << k << ":" << cr::kind_name(args[k].kind()) << " ";
        seen = os.str();
        return new int(0);
    });
    reg.load_string("E: Echo");
    int object = 5;
    reg.create<int>("E", {{"n", nullptr}, {"b", true}, {"i", 3}, {"u", 4u}, {"l", int64_t(-5)}, {"d", 2.5},
                          {"s", "text"}, {"ss", std::string("x")}, {"o", &object},
                          {"list", cr::PropValue::list({1, "two", 3.0})},
                          {"map", cr::PropValue::map({{"k", "v"}})}});
    CHECK_EQ(seen, std::string("n:null b:bool i:int u:int l:int d:double s:string ss:string o:object list:list map:map "));

    cr::Props chained;
    chained.set("color", "red").set("number", 1).set("color", "blue"); // replacing a key
    CHECK_EQ(chained.size(), std::size_t(2));
    CHECK_EQ(chained.view().get<std::string>("color"), std::string("blue"));
    auto moved = cr::Props().set("a", 1).set("b", 2);
    CHECK_EQ(moved.size(), std::size_t(2));
    cr::Props target = std::move(moved);
    CHECK_EQ(target.size(), std::size_t(2));
    CHECK_EQ(moved.size(), std::size_t(0));
    EXPECT_ERROR(CR_ERR_INVALID_ARGUMENT, moved.set("x", 1));
    EXPECT_ERROR(CR_ERR_INVALID_ARGUMENT, target.set("nul", std::string("a\0b", 3)));
    reg.create<int>("E", target);
    CHECK_EQ(seen, std::string("a:int b:int "));
}

TEST_CASE(args_typed_access) {
    cr::Registry reg;
    bool ran = false;
    reg.register_class("Typed", [&ran](cr::Args args) {
        CHECK_EQ(args.get<int64_t>("i"), 42);
        CHECK_EQ(args.get<int>("i"), 42);
        CHECK_EQ(args.get<uint8_t>("i"), 42);
        CHECK_EQ(args.get<double>("i"), 42.0); // ints read as doubles
        CHECK_EQ(args.get<double>("d"), 1.5);
        CHECK_EQ(args.get<float>("d"), 1.5f);
        CHECK_EQ(args.get<bool>("b"), false);
        CHECK_EQ(args.get<std::string>("s"), std::string("hello"));
        CHECK(args.get<std::string_view>("s") == "hello");
        CHECK_EQ(args.get<std::string>("empty"), std::string(""));
        CHECK(args.has("i"));
        CHECK(!args.has("absent"));
        CHECK(!args.find<int64_t>("absent").has_value());
        CHECK_EQ(*args.find<int64_t>("i"), 42);
        CHECK_EQ(args.get_or<int64_t>("absent", 9), 9);
        CHECK(args.get<std::optional<int64_t>>("nul") == std::nullopt);
        CHECK(args.get<int *>("nul") == nullptr);
        CHECK(args["nul"].is_null());
        CHECK_EQ(args.owner("i"), cr::Owner::None);
        CHECK_EQ(args.size(), std::size_t(6)); // props replaced "i", not added
        ran = true;
        return new int(1);
    });
    reg.load_string(R"(
T:
  ClassName: Typed
  Dependencies: {i: 42, d: 1.5, b: false, s: "@hello", empty: "@", nul: null}
)");
    reg.create<int>("T", {{"i", 42}});
    CHECK(ran);
}

TEST_CASE(args_wrong_kind_and_missing) {
    cr::Registry reg;
    std::vector<std::string> messages;
    reg.register_class("Strict", [&messages](cr::Args args) {
        auto record = [&](int code, auto &&body) {
            try {
                body();
            } catch (const cr::Error &e) {
                CHECK_EQ(e.code(), code);
                messages.push_back(e.what());
                return;
            }
            throw Failure{"no error thrown"};
        };
        record(CR_ERR_TYPE, [&] { args.get<int64_t>("s"); });
        record(CR_ERR_TYPE, [&] { args.get<std::string>("i"); });
        record(CR_ERR_TYPE, [&] { args.get<bool>("i"); });
        record(CR_ERR_TYPE, [&] { args.get<int8_t>("big"); });
        record(CR_ERR_TYPE, [&] { args.get<uint32_t>("neg"); });
        record(CR_ERR_TYPE, [&] { args.get<double>("s"); });
        record(CR_ERR_TYPE, [&] { args.object<int>("i"); });
        record(CR_ERR_TYPE, [&] { args["i"][0]; });
        record(CR_ERR_TYPE, [&] { args["i"]["k"]; });
        record(CR_ERR_TYPE, [&] { args.find<std::string>("i"); }); // present with the wrong kind
        record(CR_ERR_NOT_FOUND, [&] { args.get<int64_t>("absent"); });
        return new int(0);
    });
    reg.load_string("S: {ClassName: Strict, Dependencies: {s: \"@x\", i: 1, big: 1000, neg: -1}}");
    reg.create<int>("S");
    CHECK_EQ(messages.size(), std::size_t(11));
    CHECK(contains(messages[0], "'s'"));
    CHECK(contains(messages[0], "expected int, got string"));
    CHECK(contains(messages[10], "absent"));
}

TEST_CASE(nested_values) {
    cr::Registry reg;
    bool ran = false;
    reg.register_class("Nested", [&ran](cr::Args args) {
        cr::Value list = args["list"];
        CHECK(list.is_list());
        CHECK_EQ(list.size(), std::size_t(3));
        CHECK_EQ(list[0].as<int64_t>(), 1);
        CHECK_EQ(list[1].as<std::string>(), std::string("two"));
        CHECK(list[2].is_map());
        CHECK_EQ(list[2]["deep"].as<bool>(), true);
        EXPECT_ERROR(CR_ERR_LIMIT, list[3]);
        auto ints = args.get<std::vector<int64_t>>("ints");
        CHECK_EQ(ints.size(), std::size_t(3));
        CHECK_EQ(ints[2], 30);
        cr::Value map = args["map"];
        CHECK_EQ(map.kind(), cr::Kind::Map);
        CHECK_EQ(map.keys().size(), std::size_t(2));
        CHECK(map.key_at(0) == "a");
        CHECK_EQ(map.value_at(1).as<std::string>(), std::string("b-value"));
        CHECK_EQ(map.get<int64_t>("a"), 1);
        auto inner = map.find_value("zzz");
        CHECK(!inner.has_value());
        // Messages name the path of the value.
        auto message = EXPECT_ERROR(CR_ERR_TYPE, list[2]["deep"].as<int64_t>());
        CHECK(contains(message, "list[2].deep"));
        ran = true;
        return new int(0);
    });
    reg.load_string(R"(
N:
  ClassName: Nested
  Dependencies:
    list: [1, "@two", {deep: true}]
    ints: [10, 20, 30]
    map: {a: 1, b: "@b-value"}
)");
    reg.create<int>("N");
    CHECK(ran);
}

struct Counter {
    std::shared_ptr<int> calls;
};

TEST_CASE(factory_captures_and_release) {
    auto calls = std::make_shared<int>(0);
    std::weak_ptr<int> watch = calls;
    {
        cr::Registry reg;
        reg.register_class("Counting", [calls](cr::Args) {
            ++*calls;
            return new int(*calls);
        });
        calls.reset(); // the factory's copy keeps it alive
        CHECK(!watch.expired());
        reg.load_string("C: Counting");
        CHECK_EQ(*reg.create<int>("C"), 1);
        CHECK_EQ(*reg.create<int>("C"), 2);
        // A mutable, move-only callable.
        auto owned = std::make_unique<int>(100);
        reg.register_class("MoveOnly", [owned = std::move(owned)](cr::Args) mutable { return new int((*owned)++); });
        reg.load_string("M: MoveOnly");
        CHECK_EQ(*reg.create<int>("M"), 100);
        CHECK_EQ(*reg.create<int>("M"), 101);
    }
    CHECK(watch.expired()); // freed with the registry (release callback)
}

TEST_CASE(factory_exception_fails_create) {
    cr::Registry reg;
    reg.register_class("Throws", [](cr::Args) -> int * { throw std::runtime_error("the screen could not be built"); });
    reg.register_class("ThrowsInt", [](cr::Args) -> int * { throw 42; });
    reg.load_string("T: Throws\nU: ThrowsInt");
    auto message = EXPECT_ERROR(CR_ERR_CREATE_FAILED, reg.create<int>("T"));
    CHECK(contains(message, "the screen could not be built"));
    auto other = EXPECT_ERROR(CR_ERR_CREATE_FAILED, reg.create<int>("U"));
    CHECK(contains(other, "unknown C++ exception"));
    // The registry is still usable.
    message = EXPECT_ERROR(CR_ERR_CREATE_FAILED, reg.create<int>("T"));
    CHECK(contains(message, "the screen could not be built"));
}

TEST_CASE(factory_null_fails_create) {
    cr::Registry reg;
    reg.register_class("NullFactory", [](cr::Args) -> int * { return nullptr; });
    reg.register_class("NullUnique", [](cr::Args) { return std::unique_ptr<int>(); });
    reg.load_string("Nil: NullFactory\nU: NullUnique"); // (a bare N or Null would be YAML null)
    auto message = EXPECT_ERROR(CR_ERR_CREATE_FAILED, reg.create<int>("Nil"));
    CHECK(contains(message, "null"));
    EXPECT_ERROR(CR_ERR_CREATE_FAILED, reg.create<int>("U"));
}

TEST_CASE(rollback_destroys_dependencies) {
    g_live = 0;
    cr::Registry reg;
    reg.register_class("Test2ViewController", [](cr::Args) { return new Test2(); });
    reg.register_class("Failing", [](cr::Args args) -> Test1 * {
        std::unique_ptr<Test2> a(args.object<Test2>("a")); // taken: the factory's for good
        CHECK(a != nullptr);
        CHECK_EQ(args.owner("a"), cr::Owner::Receiver);
        CHECK_EQ(g_live.load(), 2);
        throw std::runtime_error("nope"); // `a` is freed by its owner, `b` (never taken) by the registry
    });
    reg.load_string("T2: Test2ViewController\nF: {ClassName: Failing, Dependencies: {a: T2, b: T2}}");
    EXPECT_ERROR(CR_ERR_CREATE_FAILED, reg.create<Test1>("F"));
    CHECK_EQ(g_live.load(), 0); // both Test2s destroyed, each once
}

TEST_CASE(unique_ptr_factory) {
    g_live = 0;
    {
        cr::Registry reg;
        reg.register_class("U", [](cr::Args) { return std::make_unique<Test2>(); });
        reg.load_string("U: U");
        auto p = reg.create<Test2>("U");
        CHECK_EQ(g_live.load(), 1);
        auto raw = reg.create_raw("U");
        CHECK_EQ(g_live.load(), 2);
        delete static_cast<Test2 *>(raw);
        CHECK_EQ(g_live.load(), 1);
    }
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(base_class_create) {
    g_live = 0;
    {
        cr::Registry reg;
        reg.register_class("Derived", [](cr::Args) { return new Derived(); });
        reg.load_string("D: Derived");
        cr::Ptr<Base> b = reg.create<Base>("D");
        CHECK(b != nullptr);
        CHECK_EQ(b->base_tag, 7);
        CHECK(dynamic_cast<Derived *>(b.get()) != nullptr);
        CHECK_EQ(g_live.load(), 1);
        b.reset(); // deleted as Derived, from the adjusted Base pointer
        CHECK_EQ(g_live.load(), 0);
        auto d = reg.create<Derived>("D");
        auto p = reg.create<Padding>("D");
        CHECK_EQ(g_live.load(), 2);
    }
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(wrong_type_create) {
    g_live = 0;
    cr::Registry reg;
    reg.register_class("Test2ViewController", [](cr::Args) { return new Test2(); });
    reg.load_string("T2: Test2ViewController");
    auto message = EXPECT_ERROR(CR_ERR_TYPE, reg.create<Base>("T2"));
    CHECK(contains(message, "T2"));
    CHECK_EQ(g_live.load(), 0); // not leaked
}

TEST_CASE(not_found_and_class_errors) {
    cr::Registry reg;
    register_example(reg);
    reg.load_string(kExampleYaml);
    auto missing = EXPECT_ERROR(CR_ERR_NOT_FOUND, reg.create<Test1>("Test3"));
    CHECK(contains(missing, "Test3"));
    reg.load_string("Lonely: UnregisteredClass");
    auto cls = EXPECT_ERROR(CR_ERR_CLASS_NOT_REGISTERED, reg.create<int>("Lonely"));
    CHECK(contains(cls, "UnregisteredClass"));
}

TEST_CASE(class_exists) {
    auto calls = std::make_shared<int>(0);
    std::weak_ptr<int> watch = calls;
    cr::Registry reg;
    reg.register_class("A", [](cr::Args) { return new int(1); });
    EXPECT_ERROR(CR_ERR_CLASS_EXISTS, reg.register_class("A", [calls](cr::Args) { return new int(2); }));
    calls.reset();
    CHECK(watch.expired()); // the rejected factory was released, not leaked
    reg.load_string("A: A");
    CHECK_EQ(*reg.create<int>("A"), 1);
}

TEST_CASE(replace_class) {
    cr::Registry reg;
    reg.register_class("A", [](cr::Args) { return new int(1); });
    reg.load_string("A: A");
    reg.replace_class("A", [](cr::Args) { return new int(2); });
    CHECK_EQ(*reg.create<int>("A"), 2);
}

TEST_CASE(objects_in_props) {
    g_live = 0;
    cr::Registry reg;
    Test2 mine; // owned by this test
    Test2 *seen = nullptr;
    cr::Owner owner = cr::Owner::None;
    reg.register_class("Holder", [&](cr::Args args) {
        seen = args.object<Test2>("view");
        owner = args.owner("view");
        return new int(0);
    });
    reg.load_string("H: Holder");
    reg.create<int>("H", {{"view", &mine}});
    CHECK(seen == &mine);
    CHECK_EQ(owner, cr::Owner::Caller);
    CHECK_EQ(g_live.load(), 1);
}

TEST_CASE(reentrant_create) {
    g_live = 0;
    {
        cr::Registry reg;
        reg.register_class("Test2ViewController", [](cr::Args) { return new Test2(); });
        cr::Registry *self = &reg;
        reg.register_class("Outer", [self](cr::Args) {
            auto inner = self->create<Test2>("T2"); // a create inside a factory
            auto t = std::make_unique<Test1>();
            t->test2 = std::unique_ptr<Test2>(inner.release());
            return t;
        });
        reg.load_string("T2: Test2ViewController\nO: Outer");
        auto o = reg.create<Test1>("O"); // the deleter must be Outer's, not the inner create's
        CHECK(o->test2 != nullptr);
        CHECK_EQ(g_live.load(), 2);
    }
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(threads) {
    g_live = 0;
    {
        cr::Registry reg;
        register_example(reg);
        reg.load_string(kExampleYaml);
        std::atomic<int> ok{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&reg, &ok, t] {
                for (int i = 0; i < 200; ++i) {
                    auto p = reg.create<Test1>("Test1", {{"number", t * 1000 + i}});
                    if (p->number == t * 1000 + i && p->test2) ++ok;
                    try {
                        reg.create<Test1>("Missing");
                    } catch (const cr::Error &e) {
                        if (e.code() == CR_ERR_NOT_FOUND) ++ok;
                    }
                }
            });
        }
        for (auto &th : threads) th.join();
        CHECK_EQ(ok.load(), 4 * 200 * 2);
    }
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(singleton_owned_by_registry) {
    g_live = 0;
    {
        cr::Registry reg;
        reg.register_class("Test2ViewController", [](cr::Args) { return new Test2(); });
        reg.register_class("User", [](cr::Args args) {
            CHECK_EQ(args.owner("svc"), cr::Owner::Registry);
            auto t = std::make_unique<Test1>();
            t->dependentString = std::to_string(reinterpret_cast<uintptr_t>(args.object<Test2>("svc")));
            return t; // does not adopt the singleton
        });
        reg.load_string("S: {ClassName: Test2ViewController, Lifestyle: singleton}\n"
                        "U: {ClassName: User, Dependencies: {svc: S}}");
        Test2 *first = nullptr;
        {
            auto s1 = reg.create<Test2>("S");
            CHECK(!s1.get_deleter().owns());
            first = s1.get();
        } // the no-op deleter leaves it alone
        CHECK_EQ(g_live.load(), 1);
        auto s2 = reg.create<Test2>("S");
        CHECK(s2.get() == first);
        auto u = reg.create<Test1>("U");
        CHECK_EQ(u->dependentString, std::to_string(reinterpret_cast<uintptr_t>(first)));
        CHECK(u.get_deleter().owns());
        EXPECT_ERROR(CR_ERR_INVALID_ARGUMENT, reg.create<Test2>("S", {{"x", 1}})); // singletons take no props
        CHECK_EQ(g_live.load(), 2);
    } // the registry destroys the singleton
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(graph_objects_shared) {
    g_live = 0;
    {
        cr::Registry reg;
        std::vector<cr::Owner> owners;
        reg.register_class("Ctx", [](cr::Args) { return new Test2(); });
        reg.register_class("Holder", [&owners](cr::Args args) {
            owners.push_back(args.owner("ctx"));
            auto t = std::make_unique<Test1>();
            if (args.owner("ctx") == cr::Owner::Receiver) t->test2.reset(args.object<Test2>("ctx")); // first use owns it
            return t;
        });
        reg.register_class("Pair", [](cr::Args args) {
            auto a = std::unique_ptr<Test1>(args.object<Test1>("a"));
            auto b = std::unique_ptr<Test1>(args.object<Test1>("b"));
            return new std::pair<std::unique_ptr<Test1>, std::unique_ptr<Test1>>(std::move(a), std::move(b));
        });
        reg.load_string("C: {ClassName: Ctx, Lifestyle: graph}\n"
                        "H: {ClassName: Holder, Dependencies: {ctx: C}}\n"
                        "P: {ClassName: Pair, Dependencies: {a: H, b: H}}");
        auto p = reg.create<std::pair<std::unique_ptr<Test1>, std::unique_ptr<Test1>>>("P");
        CHECK_EQ(owners.size(), std::size_t(2));
        CHECK_EQ(owners[0], cr::Owner::Receiver);
        CHECK_EQ(owners[1], cr::Owner::Shared);
        CHECK_EQ(g_live.load(), 3); // one Test2 shared by two Test1
    }
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(providers) {
    g_live = 0;
    {
        cr::Registry reg;
        struct Lazy {
            cr::Provider next;
        };
        reg.register_class("Test2ViewController", [](cr::Args) { return new Test2(); });
        reg.register_class("Lazy", [](cr::Args args) {
            CHECK_EQ(args["next"].kind(), cr::Kind::Provider);
            return new Lazy{args.provider("next")};
        });
        reg.register_class("Failing", [](cr::Args args) -> Lazy * {
            auto p = args.provider("next"); // destroyed by the exception: the registry frees it, not us
            throw std::runtime_error("no");
        });
        reg.load_string("T2: Test2ViewController\n"
                        "S: {ClassName: Test2ViewController, Lifestyle: singleton}\n"
                        "L: {ClassName: Lazy, Dependencies: {next: {Provider: T2}}}\n"
                        "LS: {ClassName: Lazy, Dependencies: {next: {Provider: S}}}\n"
                        "F: {ClassName: Failing, Dependencies: {next: {Provider: T2}}}");
        auto lazy = reg.create<Lazy>("L");
        CHECK(lazy->next);
        CHECK_EQ(lazy->next.name(), std::string("T2"));
        CHECK_EQ(g_live.load(), 0); // nothing built yet
        {
            auto t2 = lazy->next.create<Test2>();
            CHECK(t2.get_deleter().owns());
            CHECK_EQ(g_live.load(), 1);
        }
        CHECK_EQ(g_live.load(), 0);
        auto single = reg.create<Test2>("S"); // built by the registry first
        auto lazy_single = reg.create<Lazy>("LS");
        auto again = lazy_single->next.create<Test2>();
        CHECK(again.get() == single.get());
        CHECK(!again.get_deleter().owns()); // already existed: the registry's
        EXPECT_ERROR(CR_ERR_CREATE_FAILED, reg.create<Lazy>("F"));
        lazy.reset();
    }
    CHECK_EQ(g_live.load(), 0);
}

TEST_CASE(children_overrides_templates_start) {
    g_live = 0;
    {
        cr::Registry parent;
        parent.register_class("Real", [](cr::Args) { return new std::string("real"); });
        parent.register_class("Fake", [](cr::Args) { return new std::string("fake"); });
        parent.register_class("Test2ViewController", [](cr::Args) { return new Test2(); });
        parent.load_string("Dep: Real");
        {
            cr::Registry child = parent.new_child();
            child.load_string("Dep: Fake", cr::Format::Yaml, cr::Registry::Load::Override);
            CHECK_EQ(*child.create<std::string>("Dep"), std::string("fake"));
        }
        CHECK_EQ(*parent.create<std::string>("Dep"), std::string("real"));
        EXPECT_ERROR(CR_ERR_DUPLICATE, parent.load_string("Dep: Fake"));
        parent.load_string("Dep: Fake", cr::Format::Auto, cr::Registry::Load::Override);
        CHECK_EQ(*parent.create<std::string>("Dep"), std::string("fake"));
        parent.add_name_template("{name}ViewController");
        CHECK(parent.create<Test2>("Test2") != nullptr);
        parent.load_string("E: {ClassName: Test2ViewController, Lifestyle: singleton, Eager: true}");
        CHECK_EQ(g_live.load(), 0);
        parent.start();
        CHECK_EQ(g_live.load(), 1);
    }
    CHECK_EQ(g_live.load(), 0);
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::string> selected;
    if (argc > 1 && std::strcmp(argv[1], "--list") == 0) {
        for (const auto &c : cases()) std::cout << c.first << "\n";
        return 0;
    }
    if (argc > 1 && std::strcmp(argv[1], "--check-list") == 0) {
        // Every case must be registered with ctest (CMakeLists.txt passes its list).
        std::map<std::string, bool> listed;
        for (int i = 2; i < argc; ++i) listed[argv[i]] = true;
        int missing = 0;
        for (const auto &c : cases())
            if (!listed.count(c.first)) {
                std::cerr << "case not registered with ctest: " << c.first << "\n";
                ++missing;
            }
        for (const auto &l : listed)
            if (!cases().count(l.first)) {
                std::cerr << "ctest names an unknown case: " << l.first << "\n";
                ++missing;
            }
        return missing == 0 ? 0 : 1;
    }
    for (int i = 1; i < argc; ++i) selected.push_back(argv[i]);
    if (selected.empty())
        for (const auto &c : cases()) selected.push_back(c.first);
    int failed = 0;
    for (const auto &name : selected) {
        auto it = cases().find(name);
        if (it == cases().end()) {
            std::cerr << "unknown case: " << name << "\n";
            ++failed;
            continue;
        }
        try {
            it->second();
            std::cout << "ok   " << name << "\n";
        } catch (const Failure &f) {
            std::cout << "FAIL " << name << ": " << f.what() << "\n";
            ++failed;
        } catch (const std::exception &e) {
            std::cout << "FAIL " << name << ": unexpected exception: " << e.what() << "\n";
            ++failed;
        }
    }
    std::cout << (selected.size() - failed) << "/" << selected.size() << " passed\n";
    return failed == 0 ? 0 : 1;
}
