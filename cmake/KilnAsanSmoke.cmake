# Included by tests/CMakeLists.txt: the util, pickle, guards and codecache tests under AddressSanitizer +
# UBSan inside ctest (label `sanitize`), so `./scripts/kiln test` (CI) runs them on every change.
# scripts/asan-smoke configures the `asan` preset into <build>/asan-smoke and builds only those
# test targets and what they link.
add_test(NAME sanitize.asan_ubsan
  COMMAND "${CMAKE_SOURCE_DIR}/scripts/asan-smoke" "${CMAKE_BINARY_DIR}/asan-smoke")
set_tests_properties(sanitize.asan_ubsan PROPERTIES
  LABELS "sanitize"
  TIMEOUT 1800
  ENVIRONMENT "KILN_JOBS=2")
