// Compiled, not run (ctest cpp_binding.strict_warnings_*): the header must stay free of warnings
// under the strict sets hosts build with (-Wconversion, -Wdouble-promotion, -Wold-style-cast, ...)
// in C++17 and C++20, with GCC and with the Swift toolchain's Clang. Every template a host
// typically instantiates is instantiated here.
#include <controllerreg.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cr = controllerreg;

namespace {
struct Leaf {
    float ratio = 0;
    double weight = 0;
    int small = 0;
    uint8_t byte = 0;
    std::string text;
};
} // namespace

int main() {
    cr::Registry reg;
    reg.register_class("Leaf", [](cr::Args args) {
        auto leaf = std::make_unique<Leaf>();
        leaf->ratio = args.get<float>("ratio");
        leaf->weight = args.get_or<double>("weight", 1.0);
        leaf->small = args.get<int>("small");
        leaf->byte = args.get<uint8_t>("byte");
        leaf->text = args.get<std::string>(std::string("text"));
        std::optional<int64_t> n = args.find<int64_t>("n");
        if (n && args.has("list")) leaf->small += static_cast<int>(args["list"].size());
        return leaf;
    });
    reg.load_string("L: {ClassName: Leaf, Dependencies: {ratio: 1.5, small: 2, byte: 3, text: '@t', list: [1]}}\n");
    float f = 0.25f;
    cr::Props props{{"ratio", f}, {"u", 7u}, {"l", int64_t(-1)}, {"s", "text"}, {"list", cr::PropValue::list({1, 2.5, "x"})}};
    cr::Ptr<Leaf> leaf = reg.create<Leaf>("L", props);
    std::vector<cr::EntryInfo> entries = reg.entries();
    return leaf && !entries.empty() ? 0 : 1;
}
