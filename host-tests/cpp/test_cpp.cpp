// C++17 host tests: the C header used directly from C++ (no wrapper), with C++ objects, lambdas
// as callbacks, std::thread and std::string.
#include <controllerreg.h>

#include "check.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#ifndef CR_SOURCE_DIR
#error "CR_SOURCE_DIR must name the source tree"
#endif

namespace {

const std::string fixtures = std::string(CR_SOURCE_DIR) + "/Tests/Fixtures/";

struct Test2ViewController {
    std::string title;
};

struct Test1ViewController {
    std::string dependentString;
    std::int64_t dependentInt = 0;
    bool dependentBool = false;
    std::unique_ptr<Test2ViewController> test2ViewController;
    std::string color;
    std::int64_t number = 0;
};

struct Counters {
    std::atomic<int> creates{0};
    std::atomic<int> destroys{0};
    std::atomic<int> releases{0};
};

std::string str(const cr_value *v) {
    const char *s = cr_value_kind(v) == CR_STRING ? cr_value_string(v) : nullptr;
    return s ? std::string(s, cr_value_string_length(v)) : std::string();
}

// cr_class built field by field (designated initialisers are C++20).
cr_class test1Class() {
    cr_class c{};
    c.create = [](const cr_value *args, void *user_data) -> void * {
        auto *counters = static_cast<Counters *>(user_data);
        auto t = std::make_unique<Test1ViewController>();
        t->dependentString = str(cr_map_get(args, "dependentString"));
        t->dependentInt = cr_value_int(cr_map_get(args, "dependentInt"));
        t->dependentBool = cr_value_bool(cr_map_get(args, "dependentBool")) != 0;
        const cr_value *t2 = cr_map_get(args, "test2ViewController");
        if (cr_value_kind(t2) != CR_OBJECT || cr_value_owner(t2) != CR_OWNER_RECEIVER) return nullptr;
        t->test2ViewController.reset(static_cast<Test2ViewController *>(cr_value_object(t2)));
        t->color = str(cr_map_get(args, "color"));
        if (const cr_value *n = cr_map_get(args, "number")) t->number = cr_value_int(n);
        counters->creates++;
        return t.release();
    };
    c.destroy = [](void *object, void *user_data) {
        static_cast<Counters *>(user_data)->destroys++;
        delete static_cast<Test1ViewController *>(object);
    };
    c.release = [](void *user_data) { static_cast<Counters *>(user_data)->releases++; };
    return c;
}

cr_class test2Class() {
    cr_class c{};
    c.create = [](const cr_value *args, void *user_data) -> void * {
        static_cast<Counters *>(user_data)->creates++;
        return new Test2ViewController{str(cr_map_get(args, "title"))};
    };
    c.destroy = [](void *object, void *user_data) {
        static_cast<Counters *>(user_data)->destroys++;
        delete static_cast<Test2ViewController *>(object);
    };
    c.release = [](void *user_data) { static_cast<Counters *>(user_data)->releases++; };
    return c;
}

void checkExample(Test1ViewController *t, bool withProps) {
    if (!CHECK(t != nullptr)) return;
    CHECK(t->dependentString == "Yes, you can inject a string using the config file");
    CHECK_INT(t->dependentInt, 1000);
    CHECK(t->dependentBool);
    CHECK(t->test2ViewController != nullptr);
    if (withProps) {
        CHECK(t->color == "red");
        CHECK_INT(t->number, 1);
    } else {
        CHECK(t->color.empty());
    }
}

void exampleEndToEnd() {
    for (const char *name : {"example.yaml", "example.json", "example.plist", "example-binary.plist"}) {
        std::string path = fixtures + name;
        if (std::FILE *f = std::fopen(path.c_str(), "rb")) {
            std::fclose(f);
        } else {
            check_note("skipping %s: not present", name);
            continue;
        }
        Counters c1, c2;
        cr_registry *reg = cr_registry_new();
        cr_class t1 = test1Class(), t2 = test2Class();
        CHECK_STATUS(cr_register_class(reg, "Test1ViewController", &t1, &c1), CR_OK);
        CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &t2, &c2), CR_OK);
        CHECK_STATUS(cr_load_file(reg, path.c_str(), CR_FORMAT_AUTO), CR_OK);
        cr_value *props = cr_map_new();
        cr_map_set_string(props, "color", "red");
        cr_map_set_int(props, "number", 1);
        std::unique_ptr<Test1ViewController> t(static_cast<Test1ViewController *>(cr_registry_create(reg, "Test1", props)));
        cr_value_free(props);
        checkExample(t.get(), true);
        std::unique_ptr<Test1ViewController> u(static_cast<Test1ViewController *>(cr_registry_create(reg, "Test1", nullptr)));
        checkExample(u.get(), false);
        CHECK_INT(c1.creates.load(), 2);
        CHECK_INT(c2.creates.load(), 2);
        cr_registry_free(reg);
        CHECK_INT(c1.releases.load(), 1);
        CHECK_INT(c2.releases.load(), 1);
        CHECK_INT(c1.destroys.load(), 0);
    }
}

void errorsAsStrings() {
    cr_registry *reg = cr_registry_new();
    Counters c;
    cr_class n = test2Class();
    CHECK_STATUS(cr_register_class(reg, "N", &n, &c), CR_OK);
    std::string cyclic = "A:\n  ClassName: N\n  Dependencies: {b: B}\nB:\n  ClassName: N\n  Dependencies: {a: A}\n";
    CHECK_STATUS(cr_load_string(reg, cyclic.data(), cyclic.size(), CR_FORMAT_YAML), CR_ERR_CYCLE);
    std::string message = cr_last_error_message();
    CHECK(message.find("A -> B -> A") != std::string::npos);
    CHECK(std::string(cr_status_name(CR_ERR_CYCLE)).size() > 0);
    CHECK(cr_registry_create(reg, "A", nullptr) == nullptr);
    CHECK_LAST_ERROR(CR_ERR_NOT_FOUND);
    // A std::string with an embedded NUL byte, passed with its length.
    std::string withNul("A: N\0", 5);
    CHECK(cr_load_string(reg, withNul.data(), withNul.size(), CR_FORMAT_YAML) != CR_OK);
    cr_registry_free(reg);
}

void threads() {
    Counters c1, c2;
    cr_registry *reg = cr_registry_new();
    cr_class t1 = test1Class(), t2 = test2Class();
    CHECK_STATUS(cr_register_class(reg, "Test1ViewController", &t1, &c1), CR_OK);
    CHECK_STATUS(cr_register_class(reg, "Test2ViewController", &t2, &c2), CR_OK);
    CHECK_STATUS(cr_load_file(reg, (fixtures + "example.yaml").c_str(), CR_FORMAT_AUTO), CR_OK);
    const char *quick = std::getenv("CR_TEST_QUICK");
    const int iterations = quick && *quick && std::string(quick) != "0" ? 100 : 2000;
    std::atomic<int> good{0};
    std::atomic<bool> stop{false};
    std::vector<std::thread> pool;
    for (int i = 0; i < 4; i++) {
        pool.emplace_back([&] {
            for (int k = 0; k < iterations; k++) {
                std::unique_ptr<Test1ViewController> t(
                    static_cast<Test1ViewController *>(cr_registry_create(reg, "Test1", nullptr)));
                if (t && t->dependentInt == 1000 && t->test2ViewController) good++;
            }
        });
    }
    std::thread loader([&] {
        for (int k = 0; !stop.load(); k++) {
            std::string text = "More" + std::to_string(k) + ":\n  ClassName: Test2ViewController\n  Dependencies: {title: \"@t" +
                std::to_string(k) + "\"}\n";
            if (cr_load_string(reg, text.data(), text.size(), CR_FORMAT_YAML) != CR_OK) break;
            std::unique_ptr<Test2ViewController> m(
                static_cast<Test2ViewController *>(cr_registry_create(reg, ("More" + std::to_string(k)).c_str(), nullptr)));
            CHECK(m && m->title == "t" + std::to_string(k));
            if (k > 2000) break;
        }
    });
    for (auto &t : pool) t.join();
    stop = true;
    loader.join();
    CHECK_INT(good.load(), 4 * iterations);
    CHECK_INT(c1.creates.load(), 4 * iterations);
    cr_registry_free(reg);
}

} // namespace

int main() {
    exampleEndToEnd();
    errorsAsStrings();
    threads();
    return check_finish();
}
