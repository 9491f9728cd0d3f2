// bench_cpp.cpp — the C++ binding's create cost against the same create through the C ABI.
//
// Both sides run in this one process on one registry config (the C benchmark's Leaf and Node
// entries), timed as interleaved A/B pairs (Benchmarks/c/pairbench.h):
//   cpp.create.leaf  reg.create<Leaf>("Leaf")         vs  c.cr.leaf  cr_registry_create + free
//   cpp.create.node5 reg.create<Node>("Node")         vs  c.cr.node5 cr_registry_create + node_destroy
// Node has 2 references (Leaf, LeafB) and 3 literals (string, int, double); its C++ factory takes
// both leaves as cr::Ptr and reads the literals with get<T>, the C one reads all five with
// cr_map_get + cr_value_*. Each op builds and destroys the object.
//
//   controllerreg-bench-cpp pairs        PAIR lines for Benchmarks/scripts/driver.py
//   controllerreg-bench-cpp cg-list      the operation names
//   controllerreg-bench-cpp cg OP N      OP (one of the names above) N times inside
//                                        pb_measured_region, for callgrind:
//     valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*pb_measured_region*' ...
//   controllerreg-bench-cpp cg SPEC N    a load through the binding, N times, each in the region:
//     cppload:json:FILE   Registry::load_string into a new Registry (freed outside the region)
//     cppfail:json:FILE   the same of a config that must fail (a hostile one): the throw, the
//                         catch, what() and problem_count() (what a host reads); the exception
//                         is released outside the region, as the registry is
// Prints only; asserts nothing about speed.
#include <controllerreg.hpp>

#include "pairbench.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <string_view>

namespace cr = controllerreg;

namespace {

const char *const kConfig = "Leaf: Leaf\n"
                            "LeafB: Leaf\n"
                            "Node:\n"
                            "  ClassName: Node\n"
                            "  Dependencies: {a: Leaf, b: LeafB, title: \"@Home screen\", count: 3, ratio: 0.5}\n";

volatile uintptr_t sink;

// ---- C classes (as in Benchmarks/c/bench.c) ----------------------------------------------------

struct leaf_t {
    int64_t id;
};
struct node_t {
    leaf_t *a, *b;
    char title[24];
    int64_t count;
    double ratio;
};

void copy_title(char *dst, const char *src, size_t n) {
    if (n > 23) n = 23;
    std::memcpy(dst, src, n);
    dst[n] = 0;
}

void *c_leaf_create(const cr_value *, void *) {
    auto *l = static_cast<leaf_t *>(std::malloc(sizeof(leaf_t)));
    l->id = 1;
    return l;
}
void c_plain_destroy(void *o, void *) { std::free(o); }
void *c_node_create(const cr_value *args, void *) {
    auto *n = static_cast<node_t *>(std::malloc(sizeof(node_t)));
    n->a = static_cast<leaf_t *>(cr_value_object(cr_map_get(args, "a")));
    n->b = static_cast<leaf_t *>(cr_value_object(cr_map_get(args, "b")));
    const char *title = cr_value_string(cr_map_get(args, "title"));
    copy_title(n->title, title, title ? std::strlen(title) : 0);
    n->count = cr_value_int(cr_map_get(args, "count"));
    n->ratio = cr_value_double(cr_map_get(args, "ratio"));
    return n;
}
void c_node_destroy(void *o, void *) {
    auto *n = static_cast<node_t *>(o);
    std::free(n->a);
    std::free(n->b);
    std::free(n);
}

// ---- C++ classes through the binding -----------------------------------------------------------

struct Leaf {
    int64_t id = 1;
};
struct Node {
    cr::Ptr<Leaf> a, b;
    char title[24];
    int64_t count;
    double ratio;
};

// ---- the two registries and the ops ------------------------------------------------------------

cr_registry *c_reg;
cr::Registry *cpp_reg;

void op_c_leaf(void *) {
    void *o = cr_registry_create(c_reg, "Leaf", nullptr);
    sink = reinterpret_cast<uintptr_t>(o);
    std::free(o);
}
void op_c_node(void *) {
    void *o = cr_registry_create(c_reg, "Node", nullptr);
    sink = reinterpret_cast<uintptr_t>(o);
    c_node_destroy(o, nullptr);
}
void op_cpp_leaf(void *) {
    auto leaf = cpp_reg->create<Leaf>("Leaf");
    sink = reinterpret_cast<uintptr_t>(leaf.get());
}
void op_cpp_node(void *) {
    auto node = cpp_reg->create<Node>("Node");
    sink = reinterpret_cast<uintptr_t>(node.get());
}

struct NamedOp {
    const char *name;
    pb_op op;
};
const NamedOp kOps[] = {
    {"c.cr.leaf", op_c_leaf}, {"c.cr.node5", op_c_node}, {"cpp.create.leaf", op_cpp_leaf}, {"cpp.create.node5", op_cpp_node}};

void setup() {
    c_reg = cr_registry_new();
    cr_class leaf{};
    leaf.create = c_leaf_create;
    leaf.destroy = c_plain_destroy;
    cr_class node{};
    node.create = c_node_create;
    node.destroy = c_node_destroy;
    if (cr_register_class(c_reg, "Leaf", &leaf, nullptr) || cr_register_class(c_reg, "Node", &node, nullptr) ||
        cr_load_string(c_reg, kConfig, std::strlen(kConfig), CR_FORMAT_YAML)) {
        std::fprintf(stderr, "bench-cpp: %s\n", cr_last_error_message());
        std::exit(1);
    }
    cpp_reg = new cr::Registry();
    cpp_reg->register_class("Leaf", [](cr::Args) { return new Leaf(); });
    cpp_reg->register_class("Node", [](cr::Args args) {
        auto n = std::make_unique<Node>();
        n->a = args.take<Leaf>("a");
        n->b = args.take<Leaf>("b");
        auto title = args.get<std::string_view>("title");
        copy_title(n->title, title.data(), title.size());
        n->count = args.get<int64_t>("count");
        n->ratio = args.get<double>("ratio");
        return n;
    });
    cpp_reg->load_string(kConfig, cr::Format::Yaml);
    // Both sides build what they should.
    auto n = cpp_reg->create<Node>("Node");
    auto *c = static_cast<node_t *>(cr_registry_create(c_reg, "Node", nullptr));
    if (!n->a || !n->b || n->count != 3 || std::strcmp(n->title, "Home screen") != 0 || !c || c->count != 3 ||
        std::strcmp(c->title, "Home screen") != 0) {
        std::fprintf(stderr, "bench-cpp: the Node objects are not what the config says\n");
        std::exit(1);
    }
    c_node_destroy(c, nullptr);
}

// ---- loads through the binding (the hostile rows: an error path against its success path) ------

struct LoadSpec {
    bool must_fail = false;
    std::string text;
    cr::Registry *reg = nullptr; // the last load's registry, freed outside the region
    std::exception_ptr error;    // the last failure, released outside the region
};

void op_cpp_load(void *c) {
    auto *s = static_cast<LoadSpec *>(c);
    s->reg = new cr::Registry();
    try {
        s->reg->load_string(s->text, cr::Format::Json);
    } catch (const cr::Error &e) {
        sink += std::strlen(e.what()) + e.problem_count();
        s->error = std::current_exception();
    }
    if ((s->error != nullptr) != s->must_fail) {
        std::fprintf(stderr, "bench-cpp: the load %s\n", s->must_fail ? "did not fail" : "failed");
        std::exit(1);
    }
}

/** `cppload:json:FILE` / `cppfail:json:FILE` N times (false: not a load spec). */
bool count_loads(const char *spec, long n) {
    LoadSpec s;
    const char *path;
    if (std::strncmp(spec, "cppload:json:", 13) == 0)
        path = spec + 13;
    else if (std::strncmp(spec, "cppfail:json:", 13) == 0) {
        path = spec + 13;
        s.must_fail = true;
    } else
        return false;
    std::FILE *f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "bench-cpp: cannot read %s\n", path);
        std::exit(2);
    }
    char buffer[65536];
    for (std::size_t got; (got = std::fread(buffer, 1, sizeof buffer, f)) > 0;) s.text.append(buffer, got);
    std::fclose(f);
    for (long i = 0; i < n; i++) {
        pb_measured_region(op_cpp_load, &s, 1);
        delete s.reg;
        s.reg = nullptr;
        s.error = nullptr;
    }
    return true;
}

} // namespace

int main(int argc, char **argv) {
    pb_init_from_env();
    const char *mode = argc > 1 ? argv[1] : "";
    if (std::strcmp(mode, "pairs") == 0) {
        setup();
        pb_pair_ops("cpp.create.leaf", op_cpp_leaf, nullptr, "c.cr.leaf", op_c_leaf, nullptr);
        pb_pair_ops("cpp.create.node5", op_cpp_node, nullptr, "c.cr.node5", op_c_node, nullptr);
    } else if (std::strcmp(mode, "cg-list") == 0) {
        for (const auto &op : kOps) std::printf("%s\n", op.name);
        return 0;
    } else if (std::strcmp(mode, "cg") == 0 && argc > 3 && count_loads(argv[2], std::atol(argv[3]))) {
        return 0;
    } else if (std::strcmp(mode, "cg") == 0 && argc > 3) {
        setup();
        for (const auto &op : kOps)
            if (std::strcmp(op.name, argv[2]) == 0) {
                pb_count(op.op, nullptr, 1000, std::atol(argv[3]));
                delete cpp_reg;
                cr_registry_free(c_reg);
                return 0;
            }
        std::fprintf(stderr, "bench-cpp: unknown op %s\n", argv[2]);
        return 2;
    } else {
        std::fprintf(
            stderr,
            "usage: controllerreg-bench-cpp pairs | cg-list | cg c.cr.leaf|c.cr.node5|cpp.create.leaf|cpp.create.node5 N\n"
            "       controllerreg-bench-cpp cg cppload:json:FILE|cppfail:json:FILE N\n");
        return 2;
    }
    delete cpp_reg;
    cr_registry_free(c_reg);
    return 0;
}
