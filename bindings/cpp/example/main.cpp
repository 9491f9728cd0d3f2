// The EMControllerManager example with the C++ binding: two "view controller" classes, a config
// that wires Test2 into Test1, and a create with caller props.
//
//   controllerreg_cpp_example [config-file]     (without a file, the config below is used)
#include <controllerreg.hpp>

#include <cstdint>
#include <iostream>
#include <memory>
#include <string>

namespace cr = controllerreg;

namespace {

const char *const kConfig = R"(# The EMControllerManager example, as a controllerreg config.
Test1:
  ClassName: Test1ViewController
  Description: The first screen
  Dependencies:
    dependentString: "@Yes, you can inject a string using the config file"
    dependentInt: 1000
    dependentBool: true
    test2ViewController: Test2
Test2: Test2ViewController
)";

struct ViewController {
    virtual ~ViewController() = default;
    virtual std::string describe() const = 0;
};

struct Test2ViewController : ViewController {
    std::string describe() const override { return "Test2ViewController"; }
};

struct Test1ViewController : ViewController {
    std::string color;
    int64_t number = 0;
    std::string dependentString;
    int64_t dependentInt = 0;
    bool dependentBool = false;
    cr::Ptr<Test2ViewController> test2ViewController; // owned: the registry built it for this object

    std::string describe() const override {
        return "Test1ViewController color=" + color + " number=" + std::to_string(number) + " dependentString=\"" +
            dependentString + "\" dependentInt=" + std::to_string(dependentInt) +
            " dependentBool=" + (dependentBool ? "true" : "false") +
            " test2ViewController=" + (test2ViewController ? test2ViewController->describe() : "null");
    }
};

} // namespace

int main(int argc, char **argv) {
    try {
        cr::Registry reg;

        reg.register_class("Test2ViewController", [](cr::Args) { return std::make_unique<Test2ViewController>(); });

        reg.register_class("Test1ViewController", [](cr::Args args) {
            auto vc = std::make_unique<Test1ViewController>();
            vc->color = args.get_or<std::string>("color", "white"); // from props
            vc->number = args.get_or<int64_t>("number", 0);         // from props
            vc->dependentString = args.get<std::string>("dependentString");
            vc->dependentInt = args.get<int64_t>("dependentInt");
            vc->dependentBool = args.get<bool>("dependentBool");
            // Taken into an owning cr::Ptr: if anything here throws, nothing leaks.
            vc->test2ViewController = args.take<Test2ViewController>("test2ViewController");
            return vc;
        });

        if (argc > 1)
            reg.load_file(argv[1]);
        else
            reg.load_string(kConfig, {cr::Format::Yaml, false, "example.yaml"});

        // create<T> takes the factory's type; ptr_cast converts the owning pointer to a base.
        cr::Ptr<ViewController> test1 =
            cr::ptr_cast<ViewController>(reg.create<Test1ViewController>("Test1", {{"color", "red"}, {"number", 1}}));
        std::cout << test1->describe() << "\n";

        // Errors are exceptions carrying the library's code and message.
        try {
            reg.create<Test1ViewController>("Test3");
        } catch (const cr::NotFound &e) {
            std::cout << "error " << e.code() << " (" << e.status_name() << "): " << e.what() << "\n";
        }
        return 0;
    } catch (const cr::Error &e) {
        std::cerr << "controllerreg error " << e.code() << " (" << e.status_name() << "): " << e.what() << "\n";
        return 1;
    }
}
