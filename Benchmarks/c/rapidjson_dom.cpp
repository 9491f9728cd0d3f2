// rapidjson_dom.cpp — rapidjson's DOM parse (Debian's rapidjson-dev, header-only) for bench.c:
// the JSON comparison row. Document::Parse with default flags copies every string, as our loader does.
#include "rapidjson_dom.h"

#ifdef HAVE_RAPIDJSON
#include <rapidjson/document.h>

extern "C" void *rj_parse(const char *text, size_t len) {
    auto *doc = new rapidjson::Document();
    doc->Parse(text, len);
    if (doc->HasParseError()) {
        delete doc;
        return nullptr;
    }
    return doc;
}

extern "C" void rj_free(void *doc) { delete static_cast<rapidjson::Document *>(doc); }
#else
#include <cstdio>
#include <cstdlib>

extern "C" void *rj_parse(const char *, size_t) {
    std::fputs("bench: built without rapidjson (install rapidjson-dev)\n", stderr);
    std::exit(3);
}
extern "C" void rj_free(void *) {}
#endif
