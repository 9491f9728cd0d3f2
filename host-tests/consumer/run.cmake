# Installs the build tree to a temporary prefix, then builds the consumer against it twice:
# with find_package(controllerreg) (CMake package) and with pkg-config (controllerreg.pc).
file(REMOVE_RECURSE "${WORK_DIR}")
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed: ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/controllerreg.h lib/libcontrollerreg.so lib/libcontrollerreg.so.${SOVERSION} lib/libcontrollerreg.so.${VERSION}
          lib/pkgconfig/controllerreg.pc lib/cmake/controllerreg/controllerreg-config.cmake
          lib/cmake/controllerreg/controllerreg-config-version.cmake lib/cmake/controllerreg/controllerreg-targets.cmake)
  if(NOT EXISTS "${prefix}/${f}")
    # GNUInstallDirs may pick lib64 or a multiarch dir on some systems.
    string(REPLACE "lib/" "lib*/" pattern "${f}")
    file(GLOB found "${prefix}/${pattern}")
    if(NOT found)
      message(FATAL_ERROR "not installed: ${f}")
    endif()
  endif()
endforeach()
if(NOT IS_SYMLINK "${prefix}/lib/libcontrollerreg.so" AND NOT IS_SYMLINK "${prefix}/lib64/libcontrollerreg.so")
  message(FATAL_ERROR "libcontrollerreg.so is not installed as a symlink")
endif()

# 1. CMake package.
run(${CMAKE_COMMAND} -G "${GENERATOR}" -S "${CONSUMER_SOURCE}" -B "${WORK_DIR}/consumer-build"
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${CC})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/consumer-build")
run("${WORK_DIR}/consumer-build/consumer" "${FIXTURE}")
message("find_package: ${last_output}")
# It linked the installed copy, not the build tree's.
run(ldd "${WORK_DIR}/consumer-build/consumer")
if(NOT last_output MATCHES "${prefix}/lib[^ ]*/libcontrollerreg\\.so\\.${SOVERSION}")
  message(FATAL_ERROR "the consumer does not use the installed library:\n${last_output}")
endif()

# 2. pkg-config.
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  file(GLOB pcdir "${prefix}/lib*/pkgconfig")
  set(ENV{PKG_CONFIG_PATH} "${pcdir}")
  run(${PKG_CONFIG} --modversion controllerreg)
  string(STRIP "${last_output}" version)
  if(NOT version STREQUAL "${VERSION}")
    message(FATAL_ERROR "pkg-config version is '${version}'")
  endif()
  run(${PKG_CONFIG} --cflags --libs controllerreg)
  string(STRIP "${last_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  set(libdir "")
  foreach(flag IN LISTS flags)
    if(flag MATCHES "^-L(.+)$")
      set(libdir "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  run(${CC} -std=c99 "${CONSUMER_SOURCE}/main.c" ${flags} -Wl,-rpath,${libdir} -o "${WORK_DIR}/consumer-pc")
  run("${WORK_DIR}/consumer-pc" "${FIXTURE}")
  message("pkg-config: ${last_output}")
else()
  message("pkg-config not found: skipped the pkg-config consumer")
endif()
