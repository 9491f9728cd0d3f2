// Compiled, not run (ctest cpp_binding.strict_warnings_*): the header must stay free of warnings
// under the strict sets hosts build with (-Wconversion, -Wdouble-promotion, -Wold-style-cast, ...)
// in C++17 and C++20, with GCC and with the Swift toolchain's Clang. Every template of the header
// is instantiated here, with the argument types hosts use (every integer width, strings, views,
// optionals, vectors, objects, providers, casts), since a warning in a template only shows when a
// host instantiates it.
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

struct Base {
    virtual ~Base() = default;
    int tag = 0;
};
struct Mixin {
    virtual ~Mixin() = default;
    long mixin = 0;
};
struct Derived : Mixin, Base {};

struct Screen {
    std::string title;
    cr::Ptr<Leaf> leaf;
};

// Every integer width and signedness, through get, find, get_or and as, and back through PropValue.
struct Numbers {
    int8_t i8 = 0;
    int16_t i16 = 0;
    int32_t i32 = 0;
    int64_t i64 = 0;
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    long l = 0;
    unsigned long ul = 0;
    long long ll = 0;
    unsigned long long ull = 0;
    short sh = 0;
    std::size_t size = 0;
};

Numbers read_numbers(const cr::Args &args) {
    Numbers n;
    n.i8 = args.get<int8_t>("i8");
    n.i16 = args.get_or<int16_t>("i16", int16_t{1});
    n.i32 = args.find<int32_t>(std::string("i32")).value_or(0);
    n.i64 = args["i64"].as<int64_t>();
    n.u16 = args.get<uint16_t>(std::string("u16"));
    n.u32 = args.get_or<uint32_t>(std::string("u32"), 2u);
    n.u64 = args.find<uint64_t>("u64").value_or(3u);
    n.l = args.get<long>("l");
    n.ul = args.get<unsigned long>("ul");
    n.ll = args.get<long long>("ll");
    n.ull = args.get<unsigned long long>("ull");
    n.sh = args.get<short>("sh");
    n.size = args.get<std::size_t>("size");
    return n;
}

cr::Props number_props() {
    return cr::Props{
        {"i8", int8_t{-1}},       {"i16", int16_t{2}}, {"i32", -3}, {"i64", int64_t{4}}, {"u16", uint16_t{5}}, {"u32", 6u},
        {"u64", uint64_t{7}},     {"l", 8L},           {"ul", 9UL}, {"ll", 10LL},        {"ull", 11ULL},       {"sh", short{12}},
        {"size", std::size_t{13}}};
}

void read_everything(const cr::Args &args) {
    // Views, optionals, vectors, nested values, keys and indexes of every width.
    std::string_view view = args.get<std::string_view>("text");
    std::optional<std::string> maybe = args.get<std::optional<std::string>>("maybe");
    std::vector<std::string> words = args.get<std::vector<std::string>>("words");
    std::vector<double> numbers = args["numbers"].as<std::vector<double>>();
    std::vector<std::optional<int>> holes = args.get<std::vector<std::optional<int>>>("holes");
    cr::Value list = args["numbers"];
    cr::Value first = list[0];
    cr::Value second = list[1u];
    cr::Value third = list[std::size_t{2}];
    cr::Value fourth = list[int64_t{3}];
    cr::Value fifth = list[short{4}];
    std::vector<std::string> keys = args.keys();
    std::string_view key = args.key_at(0);
    cr::Value value = args.value_at(std::size_t{0});
    std::optional<cr::Value> found = args.find_value(std::string("text"));
    bool flag = args.get_or<bool>("flag", false);
    float ratio = args.get<float>("ratio");
    (void)view, (void)maybe, (void)words, (void)numbers, (void)holes, (void)first, (void)second;
    (void)third, (void)fourth, (void)fifth, (void)keys, (void)key, (void)value, (void)found, (void)flag;
    (void)ratio;
}
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

    // Factories returning a raw pointer, a unique_ptr of a derived type; a setter; replacing.
    reg.register_class("Numbers", [](cr::Args args) { return new Numbers(read_numbers(args)); });
    reg.register_class("Everything", [](cr::Args args) {
        read_everything(args);
        return std::make_unique<Leaf>();
    });
    reg.register_class("Derived", [](cr::Args) { return std::make_unique<Derived>(); });
    reg.register_class(
        "Screen",
        [](cr::Args args) {
            auto screen = std::make_unique<Screen>();
            screen->title = args.get_or<std::string>("title", "untitled");
            screen->leaf = args.take<Leaf>("leaf");
            const Leaf *borrowed = args.object<const Leaf>(std::string("shared"));
            std::vector<cr::Ptr<Leaf>> all = args.take_list<Leaf>(std::string("all"));
            cr::Ptr<Leaf> one = args["one"].take_as<Leaf>();
            (void)borrowed, (void)all, (void)one;
            return screen;
        },
        [](Screen &screen, std::string_view key, cr::Value value) {
            if (key == "leaf") screen.leaf = value.take_as<Leaf>();
            if (key == "title") screen.title = value.as<std::string>();
        });
    reg.replace_class("Everything", [](cr::Args) { return new Leaf(); });
    reg.register_class("Lazy", [](cr::Args args) {
        cr::Provider provider = args.provider(std::string("next"));
        cr::Ptr<Leaf> a = provider.create<Leaf>();
        cr::Ptr<Leaf> b = provider.create<Leaf>(cr::Props{{"small", 1}});
        cr::Ptr<Leaf> c = provider.create<Leaf>({{"small", 2}, {"text", std::string("x")}});
        cr::Provider again = args["again"].as_provider();
        (void)a, (void)b, (void)c, (void)again;
        return new Leaf();
    });

    // Every create overload, a cast to a base at another address, const, injection.
    cr::Ptr<Numbers> numbers = reg.create<Numbers>(std::string("Numbers"), number_props());
    cr::Ptr<const Leaf> constant = reg.create<const Leaf>(std::string("L"));
    cr::Ptr<Leaf> listed = reg.create<Leaf>(std::string("L"), {{"small", 3}, {"ratio", 0.5}, {"weight", 2.0f}});
    cr::Ptr<Leaf> plain = reg.create<Leaf>("L");
    cr::Ptr<Base> base = cr::ptr_cast<Base>(reg.create<Derived>("D"));
    cr::Ptr<const Base> const_base = cr::ptr_cast<const Base>(std::move(base));
    Screen elsewhere;
    reg.inject("Screen", &elsewhere);
    const Leaf *pointer = leaf.get();
    cr::Props objects{{"leaf", pointer},
                      {"view", static_cast<void *>(nullptr)},
                      {"text", std::string_view("v")},
                      {"map", cr::PropValue::map({{"k", 1}, {"n", nullptr}, {"b", true}})}};
    (void)objects, (void)constant, (void)listed, (void)plain, (void)const_base;
    return leaf && numbers && !entries.empty() ? 0 : 1;
}
