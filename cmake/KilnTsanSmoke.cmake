# Included by tests/CMakeLists.txt: the tests of the threaded code (scripts/tsan-smoke says which)
# under ThreadSanitizer inside ctest (label `sanitize`). scripts/tsan-smoke configures the `tsan`
# preset into <build>/tsan-smoke and builds only those test targets and what they link; the tuning
# pool's children are this build's kiln-worker.
if(TARGET kiln-worker)
  add_test(NAME sanitize.tsan
    COMMAND "${CMAKE_SOURCE_DIR}/scripts/tsan-smoke" "${CMAKE_BINARY_DIR}/tsan-smoke")
  cmake_host_system_information(RESULT _kiln_cores QUERY NUMBER_OF_LOGICAL_CORES)
  set_tests_properties(sanitize.tsan PROPERTIES
    LABELS "sanitize"
    TIMEOUT 1800
    COST 9000  # started right after sanitize.build: the two longest tests, so neither is left for the end
    ENVIRONMENT "KILN_JOBS=${_kiln_cores};KILN_WORKER=$<TARGET_FILE:kiln-worker>")
endif()
