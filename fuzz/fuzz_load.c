/* libFuzzer target: one loader (chosen at compile time with -DFUZZ_FORMAT=json|yaml|xmlplist|bplist).
 *
 * Every input is loaded into a fresh registry with cr_load_string. A load may fail, but it must
 * fail with a known status code and a message, never crash, hang, leak or read out of bounds, and
 * a failed load must leave the registry empty. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "controllerreg.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    uint8_t *copy = NULL;
    cr_format format;
#if defined(FUZZ_JSON)
    format = CR_FORMAT_JSON;
#elif defined(FUZZ_YAML)
    format = CR_FORMAT_YAML;
#elif defined(FUZZ_XMLPLIST)
    /* Keep this target on the XML parser: the plist loader dispatches on the "bplist" magic. */
    if (size >= 6 && memcmp(data, "bplist", 6) == 0) return 0;
    format = CR_FORMAT_PLIST;
#elif defined(FUZZ_BPLIST)
    /* Keep this target on the binary parser: force the "bplist00" magic. */
    copy = malloc(size + 8);
    if (!copy) return 0;
    memcpy(copy, "bplist00", 8);
    if (size >= 8 && memcmp(data, "bplist", 6) == 0) {
        memcpy(copy, data, size);
    } else {
        memcpy(copy + 8, data, size);
        size += 8;
    }
    text = (const char *)copy;
    format = CR_FORMAT_PLIST;
#else
#error "define one of FUZZ_JSON, FUZZ_YAML, FUZZ_XMLPLIST, FUZZ_BPLIST"
#endif
    cr_registry *reg = cr_registry_new();
    CHECK(!(!reg));
    fuzz_tight_limits(reg);
    int rc = cr_load_string(reg, text, size, format);
    fuzz_check_status(rc);
    if (rc != CR_OK) {
        cr_value *entries = cr_registry_entries(reg);
        CHECK(!(!entries || cr_value_count(entries) != 0)); /* a failed load changed the registry */
        cr_value_free(entries);
    }
    cr_registry_free(reg);
    free(copy);
    return 0;
}
