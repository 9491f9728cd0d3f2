import CControllerRegHeader
import ControllerRegC
import Testing

#if canImport(Glibc)
import Glibc
#endif

// The `@_cdecl` functions of ControllerRegC agree with include/controllerreg.h in their types, not
// only their names: each implementation is assigned to a variable whose type is the header's own
// declaration (as the Clang importer reads it), so the file does not compile if a parameter or
// result type
// differs (an `int` implemented as `Int`, a `size_t` as `Int32`, a `cr_provider *` as a raw
// pointer...). Only conversions that keep the C representation are accepted (a non-optional result
// where the header's pointer may be NULL). At run time the test checks that every function the
// header declares is in the list below.

@Suite("C ABI matches the header")
struct HeaderAgreementTests {
    @Test func everyFunctionHasTheHeadersTypes() throws {
        var checked: Set<String> = []
        do {
            var f = CControllerRegHeader.cr_add_entry
            f = ControllerRegC.cr_add_entry
            _ = f
            checked.insert("cr_add_entry")
        }
        do {
            var f = CControllerRegHeader.cr_add_name_template
            f = ControllerRegC.cr_add_name_template
            _ = f
            checked.insert("cr_add_name_template")
        }
        do {
            var f = CControllerRegHeader.cr_clear_error
            f = ControllerRegC.cr_clear_error
            _ = f
            checked.insert("cr_clear_error")
        }
        do {
            var f = CControllerRegHeader.cr_create
            f = ControllerRegC.cr_create
            _ = f
            checked.insert("cr_create")
        }
        do {
            var f = CControllerRegHeader.cr_inject
            f = ControllerRegC.cr_inject
            _ = f
            checked.insert("cr_inject")
        }
        do {
            var f = CControllerRegHeader.cr_last_error_code
            f = ControllerRegC.cr_last_error_code
            _ = f
            checked.insert("cr_last_error_code")
        }
        do {
            var f = CControllerRegHeader.cr_last_error_count
            f = ControllerRegC.cr_last_error_count
            _ = f
            checked.insert("cr_last_error_count")
        }
        do {
            var f = CControllerRegHeader.cr_last_error_message
            f = ControllerRegC.cr_last_error_message
            _ = f
            checked.insert("cr_last_error_message")
        }
        do {
            var f = CControllerRegHeader.cr_last_error_keep
            f = ControllerRegC.cr_last_error_keep
            _ = f
            checked.insert("cr_last_error_keep")
        }
        do {
            var f = CControllerRegHeader.cr_error_code
            f = ControllerRegC.cr_error_code
            _ = f
            checked.insert("cr_error_code")
        }
        do {
            var f = CControllerRegHeader.cr_error_message
            f = ControllerRegC.cr_error_message
            _ = f
            checked.insert("cr_error_message")
        }
        do {
            var f = CControllerRegHeader.cr_error_count
            f = ControllerRegC.cr_error_count
            _ = f
            checked.insert("cr_error_count")
        }
        do {
            var f = CControllerRegHeader.cr_error_problem
            f = ControllerRegC.cr_error_problem
            _ = f
            checked.insert("cr_error_problem")
        }
        do {
            var f = CControllerRegHeader.cr_error_free
            f = ControllerRegC.cr_error_free
            _ = f
            checked.insert("cr_error_free")
        }
        do {
            var f = CControllerRegHeader.cr_last_error_problem
            f = ControllerRegC.cr_last_error_problem
            _ = f
            checked.insert("cr_last_error_problem")
        }
        do {
            var f = CControllerRegHeader.cr_list_at
            f = ControllerRegC.cr_list_at
            _ = f
            checked.insert("cr_list_at")
        }
        do {
            var f = CControllerRegHeader.cr_list_new
            f = ControllerRegC.cr_list_new
            _ = f
            checked.insert("cr_list_new")
        }
        do {
            var f = CControllerRegHeader.cr_list_push_bool
            f = ControllerRegC.cr_list_push_bool
            _ = f
            checked.insert("cr_list_push_bool")
        }
        do {
            var f = CControllerRegHeader.cr_list_push_double
            f = ControllerRegC.cr_list_push_double
            _ = f
            checked.insert("cr_list_push_double")
        }
        do {
            var f = CControllerRegHeader.cr_list_push_int
            f = ControllerRegC.cr_list_push_int
            _ = f
            checked.insert("cr_list_push_int")
        }
        do {
            var f = CControllerRegHeader.cr_list_push_null
            f = ControllerRegC.cr_list_push_null
            _ = f
            checked.insert("cr_list_push_null")
        }
        do {
            var f = CControllerRegHeader.cr_list_push_object
            f = ControllerRegC.cr_list_push_object
            _ = f
            checked.insert("cr_list_push_object")
        }
        do {
            var f = CControllerRegHeader.cr_list_push_string
            f = ControllerRegC.cr_list_push_string
            _ = f
            checked.insert("cr_list_push_string")
        }
        do {
            var f = CControllerRegHeader.cr_list_push_value
            f = ControllerRegC.cr_list_push_value
            _ = f
            checked.insert("cr_list_push_value")
        }
        do {
            var f = CControllerRegHeader.cr_load_file
            f = ControllerRegC.cr_load_file
            _ = f
            checked.insert("cr_load_file")
        }
        do {
            var f = CControllerRegHeader.cr_load_file_with
            f = ControllerRegC.cr_load_file_with
            _ = f
            checked.insert("cr_load_file_with")
        }
        do {
            var f = CControllerRegHeader.cr_load_files
            f = ControllerRegC.cr_load_files
            _ = f
            checked.insert("cr_load_files")
        }
        do {
            var f = CControllerRegHeader.cr_load_files_with
            f = ControllerRegC.cr_load_files_with
            _ = f
            checked.insert("cr_load_files_with")
        }
        do {
            var f = CControllerRegHeader.cr_load_string
            f = ControllerRegC.cr_load_string
            _ = f
            checked.insert("cr_load_string")
        }
        do {
            var f = CControllerRegHeader.cr_load_string_with
            f = ControllerRegC.cr_load_string_with
            _ = f
            checked.insert("cr_load_string_with")
        }
        do {
            var f = CControllerRegHeader.cr_map_get
            f = ControllerRegC.cr_map_get
            _ = f
            checked.insert("cr_map_get")
        }
        do {
            var f = CControllerRegHeader.cr_map_key_at
            f = ControllerRegC.cr_map_key_at
            _ = f
            checked.insert("cr_map_key_at")
        }
        do {
            var f = CControllerRegHeader.cr_map_new
            f = ControllerRegC.cr_map_new
            _ = f
            checked.insert("cr_map_new")
        }
        do {
            var f = CControllerRegHeader.cr_map_set_bool
            f = ControllerRegC.cr_map_set_bool
            _ = f
            checked.insert("cr_map_set_bool")
        }
        do {
            var f = CControllerRegHeader.cr_map_set_double
            f = ControllerRegC.cr_map_set_double
            _ = f
            checked.insert("cr_map_set_double")
        }
        do {
            var f = CControllerRegHeader.cr_map_set_int
            f = ControllerRegC.cr_map_set_int
            _ = f
            checked.insert("cr_map_set_int")
        }
        do {
            var f = CControllerRegHeader.cr_map_set_null
            f = ControllerRegC.cr_map_set_null
            _ = f
            checked.insert("cr_map_set_null")
        }
        do {
            var f = CControllerRegHeader.cr_map_set_object
            f = ControllerRegC.cr_map_set_object
            _ = f
            checked.insert("cr_map_set_object")
        }
        do {
            var f = CControllerRegHeader.cr_map_set_string
            f = ControllerRegC.cr_map_set_string
            _ = f
            checked.insert("cr_map_set_string")
        }
        do {
            var f = CControllerRegHeader.cr_map_set_value
            f = ControllerRegC.cr_map_set_value
            _ = f
            checked.insert("cr_map_set_value")
        }
        do {
            var f = CControllerRegHeader.cr_map_value_at
            f = ControllerRegC.cr_map_value_at
            _ = f
            checked.insert("cr_map_value_at")
        }
        do {
            var f = CControllerRegHeader.cr_provider_create
            f = ControllerRegC.cr_provider_create
            _ = f
            checked.insert("cr_provider_create")
        }
        do {
            var f = CControllerRegHeader.cr_provider_create_with
            f = ControllerRegC.cr_provider_create_with
            _ = f
            checked.insert("cr_provider_create_with")
        }
        do {
            var f = CControllerRegHeader.cr_provider_free
            f = ControllerRegC.cr_provider_free
            _ = f
            checked.insert("cr_provider_free")
        }
        do {
            var f = CControllerRegHeader.cr_provider_name
            f = ControllerRegC.cr_provider_name
            _ = f
            checked.insert("cr_provider_name")
        }
        do {
            var f = CControllerRegHeader.cr_register_class
            f = ControllerRegC.cr_register_class
            _ = f
            checked.insert("cr_register_class")
        }
        do {
            var f = CControllerRegHeader.cr_registry_create
            f = ControllerRegC.cr_registry_create
            _ = f
            checked.insert("cr_registry_create")
        }
        do {
            var f = CControllerRegHeader.cr_registry_create_with
            f = ControllerRegC.cr_registry_create_with
            _ = f
            checked.insert("cr_registry_create_with")
        }
        do {
            var f = CControllerRegHeader.cr_registry_entries
            f = ControllerRegC.cr_registry_entries
            _ = f
            checked.insert("cr_registry_entries")
        }
        do {
            var f = CControllerRegHeader.cr_registry_free
            f = ControllerRegC.cr_registry_free
            _ = f
            checked.insert("cr_registry_free")
        }
        do {
            var f = CControllerRegHeader.cr_registry_get_limit
            f = ControllerRegC.cr_registry_get_limit
            _ = f
            checked.insert("cr_registry_get_limit")
        }
        do {
            var f = CControllerRegHeader.cr_registry_new
            f = ControllerRegC.cr_registry_new
            _ = f
            checked.insert("cr_registry_new")
        }
        do {
            var f = CControllerRegHeader.cr_registry_new_child
            f = ControllerRegC.cr_registry_new_child
            _ = f
            checked.insert("cr_registry_new_child")
        }
        do {
            var f = CControllerRegHeader.cr_registry_set_limit
            f = ControllerRegC.cr_registry_set_limit
            _ = f
            checked.insert("cr_registry_set_limit")
        }
        do {
            var f = CControllerRegHeader.cr_registry_start
            f = ControllerRegC.cr_registry_start
            _ = f
            checked.insert("cr_registry_start")
        }
        do {
            var f = CControllerRegHeader.cr_registry_reload
            f = ControllerRegC.cr_registry_reload
            _ = f
            checked.insert("cr_registry_reload")
        }
        do {
            var f = CControllerRegHeader.cr_registry_reload_with
            f = ControllerRegC.cr_registry_reload_with
            _ = f
            checked.insert("cr_registry_reload_with")
        }
        do {
            var f = CControllerRegHeader.cr_remove_entry
            f = ControllerRegC.cr_remove_entry
            _ = f
            checked.insert("cr_remove_entry")
        }
        do {
            var f = CControllerRegHeader.cr_replace_class
            f = ControllerRegC.cr_replace_class
            _ = f
            checked.insert("cr_replace_class")
        }
        do {
            var f = CControllerRegHeader.cr_report_error
            f = ControllerRegC.cr_report_error
            _ = f
            checked.insert("cr_report_error")
        }
        do {
            var f = CControllerRegHeader.cr_shared
            f = ControllerRegC.cr_shared
            _ = f
            checked.insert("cr_shared")
        }
        do {
            var f = CControllerRegHeader.cr_status_name
            f = ControllerRegC.cr_status_name
            _ = f
            checked.insert("cr_status_name")
        }
        do {
            var f = CControllerRegHeader.cr_value_bool
            f = ControllerRegC.cr_value_bool
            _ = f
            checked.insert("cr_value_bool")
        }
        do {
            var f = CControllerRegHeader.cr_value_count
            f = ControllerRegC.cr_value_count
            _ = f
            checked.insert("cr_value_count")
        }
        do {
            var f = CControllerRegHeader.cr_value_double
            f = ControllerRegC.cr_value_double
            _ = f
            checked.insert("cr_value_double")
        }
        do {
            var f = CControllerRegHeader.cr_value_free
            f = ControllerRegC.cr_value_free
            _ = f
            checked.insert("cr_value_free")
        }
        do {
            var f = CControllerRegHeader.cr_value_int
            f = ControllerRegC.cr_value_int
            _ = f
            checked.insert("cr_value_int")
        }
        do {
            var f = CControllerRegHeader.cr_value_kind
            f = ControllerRegC.cr_value_kind
            _ = f
            checked.insert("cr_value_kind")
        }
        do {
            var f = CControllerRegHeader.cr_value_object
            f = ControllerRegC.cr_value_object
            _ = f
            checked.insert("cr_value_object")
        }
        do {
            var f = CControllerRegHeader.cr_add_entry_with
            f = ControllerRegC.cr_add_entry_with
            _ = f
            checked.insert("cr_add_entry_with")
        }
        do {
            var f = CControllerRegHeader.cr_value_take_object
            f = ControllerRegC.cr_value_take_object
            _ = f
            checked.insert("cr_value_take_object")
        }
        do {
            var f = CControllerRegHeader.cr_value_take_object_with_owner
            f = ControllerRegC.cr_value_take_object_with_owner
            _ = f
            checked.insert("cr_value_take_object_with_owner")
        }
        do {
            var f = CControllerRegHeader.cr_value_string_with_length
            f = ControllerRegC.cr_value_string_with_length
            _ = f
            checked.insert("cr_value_string_with_length")
        }
        do {
            var f = CControllerRegHeader.cr_value_owner
            f = ControllerRegC.cr_value_owner
            _ = f
            checked.insert("cr_value_owner")
        }
        do {
            var f = CControllerRegHeader.cr_value_provider
            f = ControllerRegC.cr_value_provider
            _ = f
            checked.insert("cr_value_provider")
        }
        do {
            var f = CControllerRegHeader.cr_value_string
            f = ControllerRegC.cr_value_string
            _ = f
            checked.insert("cr_value_string")
        }
        do {
            var f = CControllerRegHeader.cr_value_string_length
            f = ControllerRegC.cr_value_string_length
            _ = f
            checked.insert("cr_value_string_length")
        }
        do {
            var f = CControllerRegHeader.cr_version
            f = ControllerRegC.cr_version
            _ = f
            checked.insert("cr_version")
        }
        do {
            var f = CControllerRegHeader.cr_version_number
            f = ControllerRegC.cr_version_number
            _ = f
            checked.insert("cr_version_number")
        }

        let declaredNames = try headerFunctionNames()
        #expect(declaredNames.count > 40)
        let missing = declaredNames.subtracting(checked)
        #expect(missing.isEmpty, "declared in controllerreg.h but not checked here: \(missing.sorted())")
        let extra = checked.subtracting(declaredNames)
        #expect(extra.isEmpty, "checked here but not declared in controllerreg.h: \(extra.sorted())")
    }

    /// The names of the functions include/controllerreg.h declares (`cr_name(` after a space or `*`).
    private func headerFunctionNames() throws -> Set<String> {
        let path = #filePath.split(separator: "/").dropLast(3).joined(separator: "/")
        let header = try #require(readFile("/" + path + "/include/controllerreg.h"))
        var names: Set<String> = []
        var rest = header[...]
        while let r = rest.firstRange(of: "cr_") {
            let before = r.lowerBound == header.startIndex ? " " : header[header.index(before: r.lowerBound)]
            var end = r.upperBound
            while end < header.endIndex, header[end].isLetter || header[end].isNumber || header[end] == "_" {
                end = header.index(after: end)
            }
            if before == " " || before == "*", end < header.endIndex, header[end] == "(" {
                names.insert(String(header[r.lowerBound..<end]))
            }
            rest = header[end...]
        }
        return names
    }

    private func readFile(_ path: String) -> String? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n == 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
