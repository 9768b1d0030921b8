# Included by tests/CMakeLists.txt: the core tests (scripts/asan-smoke says which) under
# AddressSanitizer + UBSan inside ctest (label `sanitize`), so `./scripts/kiln test` (CI) runs them on
# every change. The sanitized build is the longest step of CI: it gets every core of the machine.
# scripts/asan-smoke configures the `asan` preset into <build>/asan-smoke and builds only those
# test targets and what they link.
add_test(NAME sanitize.asan_ubsan
  COMMAND "${CMAKE_SOURCE_DIR}/scripts/asan-smoke" "${CMAKE_BINARY_DIR}/asan-smoke")
cmake_host_system_information(RESULT _kiln_cores QUERY NUMBER_OF_LOGICAL_CORES)
set_tests_properties(sanitize.asan_ubsan PROPERTIES
  LABELS "sanitize"
  TIMEOUT 1800
  ENVIRONMENT "KILN_JOBS=${_kiln_cores}")
