# Copies libcontrollerreg.so* alone into a fresh folder, links a small C host against that copy
# (no rpath), and runs it with LD_LIBRARY_PATH naming only that folder. Also checks that neither
# the library nor the host needs any libswift* library.
get_filename_component(libdir "${LIBRARY}" DIRECTORY)
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}/lib")
file(GLOB libs "${libdir}/libcontrollerreg.so*")
file(COPY ${libs} DESTINATION "${WORK_DIR}/lib")  # keeps the .so -> .so.MAJOR -> .so.MAJOR.MINOR.PATCH links

execute_process(
  COMMAND ${CC} -std=c99 -I${HEADER_DIR} ${HOST_SOURCE} -L${WORK_DIR}/lib -lcontrollerreg -o ${WORK_DIR}/host
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not build the host against the copied library")
endif()

# A clean environment: no Swift on PATH, no library path but the copy.
set(env env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=${WORK_DIR}/lib)

execute_process(COMMAND ${env} ldd ${WORK_DIR}/host OUTPUT_VARIABLE ldd_out RESULT_VARIABLE rc)
message("ldd host:\n${ldd_out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ldd failed")
endif()
if(ldd_out MATCHES "libswift" OR ldd_out MATCHES "not found")
  message(FATAL_ERROR "the host needs a Swift library or misses one:\n${ldd_out}")
endif()
string(REGEX MATCH "libcontrollerreg\\.so\\.${SOVERSION} => [^ ]+" resolved "${ldd_out}")
if(NOT resolved MATCHES "${WORK_DIR}/lib/libcontrollerreg\\.so\\.${SOVERSION}")
  message(FATAL_ERROR "libcontrollerreg.so.${SOVERSION} did not resolve to the copy: ${resolved}")
endif()

execute_process(COMMAND ldd ${LIBRARY} OUTPUT_VARIABLE lib_ldd)
if(lib_ldd MATCHES "libswift")
  message(FATAL_ERROR "libcontrollerreg.so needs a Swift runtime library:\n${lib_ldd}")
endif()
execute_process(COMMAND readelf -d ${LIBRARY} OUTPUT_VARIABLE dyn)
if(dyn MATCHES "R(UN)?PATH")
  message(FATAL_ERROR "libcontrollerreg.so carries an rpath:\n${dyn}")
endif()

execute_process(COMMAND ${env} ${WORK_DIR}/host ${FIXTURE} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
message("${out}${err}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "works without Swift")
  message(FATAL_ERROR "the host failed with the copied library (exit ${rc})")
endif()
