/* rapidjson_dom.h — rapidjson's DOM parse behind a C interface, the JSON comparison of bench.c. */
#ifndef CONTROLLERREG_RAPIDJSON_DOM_H
#define CONTROLLERREG_RAPIDJSON_DOM_H
#include <stddef.h>
#ifdef __cplusplus
extern "C" {
#endif
/** Parses `len` bytes into a new rapidjson::Document (strings copied); NULL on a parse error. */
void *rj_parse(const char *text, size_t len);
/** Frees a document made by rj_parse. */
void rj_free(void *doc);
#ifdef __cplusplus
}
#endif
#endif
