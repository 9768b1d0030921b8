# Included by tests/CMakeLists.txt: the core tests (scripts/asan-smoke says which) under
# AddressSanitizer + UBSan inside ctest (label `sanitize`), so `./scripts/kiln test` (CI) runs them on
# every change. One clang tree, <build>/asan-smoke (the `asan` preset), holds them and the libFuzzer
# targets: `sanitize.build` builds both (the longest step of CI: it gets every core of the machine),
# then `sanitize.asan_ubsan` and the `fuzz.*` runs (fuzz/smoke.cmake) use it side by side.
set(KILN_ASAN_TREE "${CMAKE_BINARY_DIR}/asan-smoke")
cmake_host_system_information(RESULT _kiln_cores QUERY NUMBER_OF_LOGICAL_CORES)
add_test(NAME sanitize.build COMMAND "${CMAKE_SOURCE_DIR}/scripts/asan-smoke" "${KILN_ASAN_TREE}" --build-only)
set_tests_properties(sanitize.build PROPERTIES
  LABELS "sanitize;fuzz"
  TIMEOUT 2400
  COST 10000  # first in a fresh clone (no timings yet): the sanitized runs and fuzzers wait for it
  FIXTURES_SETUP kiln_asan_tree
  ENVIRONMENT "KILN_JOBS=${_kiln_cores}")
add_test(NAME sanitize.asan_ubsan COMMAND "${CMAKE_SOURCE_DIR}/scripts/asan-smoke" "${KILN_ASAN_TREE}" --run-only)
set_tests_properties(sanitize.asan_ubsan PROPERTIES
  LABELS "sanitize"
  TIMEOUT 1200
  FIXTURES_REQUIRED kiln_asan_tree)
