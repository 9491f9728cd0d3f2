# The `controllerreg` command-line tool, built natively from the same Swift sources as the
# SwiftPM product (Sources/ControllerRegTool + Sources/controllerreg) on top of the static
# ControllerReg / ControllerRegConfig modules, and installed next to the library.
#
# Included from the top-level CMakeLists.txt after the ControllerReg and ControllerRegConfig
# targets and `controllerreg_swift_flags` are defined:
#
#   include(cmake/ControllerRegTool.cmake)
#
# swift-argument-parser is compiled here from its sources (two static modules, no install
# rules of its own). Its sources come from FetchContent (the version Package.swift resolves);
# for offline builds point CMake at a checkout:
#   -DFETCHCONTENT_SOURCE_DIR_SWIFT_ARGUMENT_PARSER=/path/to/swift-argument-parser
# (after `swift package resolve` there is one in .build/checkouts/swift-argument-parser, which
# is used automatically when present).

option(CONTROLLERREG_BUILD_TOOL "Build and install the controllerreg command-line tool" ON)
if(NOT CONTROLLERREG_BUILD_TOOL)
  return()
endif()

include(FetchContent)
set(controllerreg_argument_parser_checkout ${PROJECT_SOURCE_DIR}/.build/checkouts/swift-argument-parser)
if(NOT FETCHCONTENT_SOURCE_DIR_SWIFT_ARGUMENT_PARSER AND EXISTS ${controllerreg_argument_parser_checkout}/Sources/ArgumentParser)
  set(FETCHCONTENT_SOURCE_DIR_SWIFT_ARGUMENT_PARSER ${controllerreg_argument_parser_checkout})
endif()
FetchContent_Declare(swift_argument_parser
  GIT_REPOSITORY https://github.com/apple/swift-argument-parser
  GIT_TAG 1.8.2
  GIT_SHALLOW TRUE)
FetchContent_GetProperties(swift_argument_parser)
if(NOT swift_argument_parser_POPULATED)
  # Populate only: its own CMakeLists would add install rules, examples and shared libraries.
  FetchContent_Populate(swift_argument_parser)
endif()
set(controllerreg_ap_dir ${swift_argument_parser_SOURCE_DIR}/Sources)

# ArgumentParser is written for the Swift 5 language mode (its Package.swift tools version).
set(controllerreg_ap_flags -swift-version 5 -parse-as-library "SHELL:-Xcc -fPIC"
  -I${CMAKE_Swift_MODULE_DIRECTORY} ${controllerreg_swift_wmo})

add_library(ControllerRegArgumentParserToolInfo STATIC ${controllerreg_ap_dir}/ArgumentParserToolInfo/ToolInfo.swift)
set_target_properties(ControllerRegArgumentParserToolInfo PROPERTIES Swift_MODULE_NAME ArgumentParserToolInfo)
target_compile_options(ControllerRegArgumentParserToolInfo PRIVATE ${controllerreg_ap_flags})
controllerreg_swift_target(ControllerRegArgumentParserToolInfo MODULE ArgumentParserToolInfo)

file(GLOB_RECURSE controllerreg_ap_sources CONFIGURE_DEPENDS ${controllerreg_ap_dir}/ArgumentParser/*.swift)
add_library(ControllerRegArgumentParser STATIC ${controllerreg_ap_sources})
set_target_properties(ControllerRegArgumentParser PROPERTIES Swift_MODULE_NAME ArgumentParser)
target_compile_options(ControllerRegArgumentParser PRIVATE ${controllerreg_ap_flags})
target_link_libraries(ControllerRegArgumentParser PRIVATE ControllerRegArgumentParserToolInfo)
controllerreg_swift_target(ControllerRegArgumentParser MODULE ArgumentParser
  DEPENDS ${CMAKE_Swift_MODULE_DIRECTORY}/ArgumentParserToolInfo.swiftmodule)

# The tool's logic and its command line, as in Package.swift.
controllerreg_swift_sources(controllerreg_tool_sources ControllerRegTool)
add_library(ControllerRegTool STATIC ${controllerreg_tool_sources})
target_compile_options(ControllerRegTool PRIVATE ${controllerreg_swift_flags})
target_link_libraries(ControllerRegTool PRIVATE ControllerReg ControllerRegConfig)
controllerreg_swift_target(ControllerRegTool MODULE ControllerRegTool DEPENDS
  ${CMAKE_Swift_MODULE_DIRECTORY}/ControllerReg.swiftmodule ${CMAKE_Swift_MODULE_DIRECTORY}/ControllerRegConfig.swiftmodule)

controllerreg_swift_sources(controllerreg_cli_sources controllerreg)
add_executable(controllerreg-cli ${controllerreg_cli_sources})
set_target_properties(controllerreg-cli PROPERTIES
  OUTPUT_NAME controllerreg
  Swift_MODULE_NAME controllerreg_cli
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
target_compile_options(controllerreg-cli PRIVATE ${controllerreg_swift_flags})
# The Swift runtime is linked in statically, like the library's, so the tool runs on hosts
# without a Swift toolchain. ArgumentParser uses Foundation, whose static archives need their
# two helper libraries named explicitly (SwiftPM's --static-swift-stdlib does the same).
target_link_options(controllerreg-cli PRIVATE -static-stdlib -l_FoundationCollections -l_FoundationCShims)
target_link_libraries(controllerreg-cli PRIVATE
  ControllerRegTool ControllerReg ControllerRegConfig PkgConfig::YAML
  ControllerRegArgumentParser ControllerRegArgumentParserToolInfo)
controllerreg_swift_target(controllerreg-cli MODULE controllerreg_cli DEPENDS
  ${CMAKE_Swift_MODULE_DIRECTORY}/ControllerRegTool.swiftmodule ${CMAKE_Swift_MODULE_DIRECTORY}/ControllerReg.swiftmodule
  ${CMAKE_Swift_MODULE_DIRECTORY}/ControllerRegConfig.swiftmodule ${CMAKE_Swift_MODULE_DIRECTORY}/ArgumentParser.swiftmodule)

install(TARGETS controllerreg-cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/schema/controllerreg.schema.json
  DESTINATION ${CMAKE_INSTALL_DATADIR}/controllerreg)

# Smoke tests of the installed-to-be binary (the full tests are `swift test`'s ControllerRegToolTests).
if(CONTROLLERREG_BUILD_TESTS)
  enable_testing()
  add_test(NAME tool-version COMMAND controllerreg-cli --version)
  set_tests_properties(tool-version PROPERTIES PASS_REGULAR_EXPRESSION "^${PROJECT_VERSION}\n")
  add_test(NAME tool-check-example COMMAND controllerreg-cli check ${PROJECT_SOURCE_DIR}/Tests/Fixtures/example.yaml)
  add_test(NAME tool-check-invalid COMMAND controllerreg-cli check ${PROJECT_SOURCE_DIR}/Tests/Fixtures/schema/invalid/unknown-key.yaml)
  set_tests_properties(tool-check-invalid PROPERTIES WILL_FAIL TRUE)
  add_test(NAME tool-gen-c COMMAND controllerreg-cli gen --lang c ${PROJECT_SOURCE_DIR}/Tests/Fixtures/example.yaml
    -o ${CMAKE_BINARY_DIR}/tool-example-names.h)
  add_test(NAME tool-graph-dot COMMAND controllerreg-cli graph ${PROJECT_SOURCE_DIR}/Tests/Fixtures/example.yaml)
endif()
