# One source for the version: CMake's project(controllerreg VERSION ...) (passed as VERSION). Every
# copy that cannot be generated from it must agree: the header's CR_VERSION_* macros (which the
# library's cr_version / cr_version_number and the tool's --version are compiled from) and the
# Python package's version strings. Fails naming each copy that disagrees.
string(REPLACE "." ";" parts "${VERSION}")
list(GET parts 0 major)
list(GET parts 1 minor)
list(GET parts 2 patch)
math(EXPR number "${major} * 1000000 + ${minor} * 1000 + ${patch}")

set(problems "")
file(READ "${SOURCE_DIR}/include/controllerreg.h" header)
foreach(pair "MAJOR;${major}" "MINOR;${minor}" "PATCH;${patch}" "STRING;\"${VERSION}\"" "NUMBER;${number}")
  list(GET pair 0 name)
  list(GET pair 1 expected)
  if(NOT header MATCHES "#define CR_VERSION_${name} ([^\n]+)\n")
    string(APPEND problems "include/controllerreg.h: no CR_VERSION_${name}\n")
  elseif(NOT CMAKE_MATCH_1 STREQUAL expected)
    string(APPEND problems "include/controllerreg.h: CR_VERSION_${name} is ${CMAKE_MATCH_1}, expected ${expected} (from CMakeLists.txt)\n")
  endif()
endforeach()

# The Python package: a literal version (or none, when it is read dynamically).
foreach(file pyproject.toml bindings/python/src/controllerreg/__init__.py)
  if(EXISTS "${SOURCE_DIR}/${file}")
    file(STRINGS "${SOURCE_DIR}/${file}" lines REGEX "^(__)?version(__)? *= *\"")
    foreach(line IN LISTS lines)
      string(REGEX REPLACE "^[^\"]*\"([^\"]*)\".*$" "\\1" found "${line}")
      if(NOT found STREQUAL VERSION)
        string(APPEND problems "${file}: version is ${found}, expected ${VERSION} (from CMakeLists.txt)\n")
      endif()
    endforeach()
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "version copies disagree with project(controllerreg VERSION ${VERSION}):\n${problems}")
endif()
message("every version copy says ${VERSION} (CR_VERSION_NUMBER ${number})")
