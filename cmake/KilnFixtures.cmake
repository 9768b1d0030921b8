# The test fixtures are real Inductor caches, committed unchanged in tests/data/ (copies of the
# shared fixtures) so a plain clone tests on its own. Tests read them from the build tree,
# extracted once per configure (never edited). Only test builds include this file: running and
# packaging Kiln never need test data.
set(KILN_TEST_DATA_DIR "${CMAKE_SOURCE_DIR}/tests/data")
set(KILN_FIXTURE_DIR "${CMAKE_BINARY_DIR}/fixtures")
set(KILN_FIXTURE_ARCHIVES
  "h100:inductor-h100-torch2.11.tar.xz"
  "two:inductor-two-entries-torch2.11.tar.xz"
  "h100h200:inductor-h100-then-h200-torch2.11.tar.xz"
  "pgo:inductor-pgo-torch2.11.tar.xz")
# Caches Kiln's own sessions made on the GPU machine (bench/gpu/model_cache.sh), trimmed to what the
# tests read; not in ../shared, so not compared with it. tests/data/README.md says what each holds.
set(KILN_OWN_FIXTURE_ARCHIVES
  "model:model-h100-torch2.11.tar.xz"
  "ranks:ranks-h100x4-torch2.11.tar.xz"
  "startup:startup-ab-h100-torch2.11.tar.xz"
  "startupcpp:startup-ab-cpp-libs-h200-torch2.11.tar.xz")
foreach(pair IN LISTS KILN_FIXTURE_ARCHIVES KILN_OWN_FIXTURE_ARCHIVES)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 archive)
  set(src "${KILN_TEST_DATA_DIR}/${archive}")
  if(NOT EXISTS "${src}")
    message(FATAL_ERROR "Kiln: test data ${src} is missing from the checkout (git checkout -- tests/data), "
      "or configure with -DKILN_BUILD_TESTS=OFF to build without tests.")
  endif()
  set(dst "${KILN_FIXTURE_DIR}/${name}")
  set(stamp "${dst}/.extracted")
  if(NOT EXISTS "${stamp}" OR "${src}" IS_NEWER_THAN "${stamp}")
    file(REMOVE_RECURSE "${dst}")
    file(ARCHIVE_EXTRACT INPUT "${src}" DESTINATION "${dst}")
    file(TOUCH "${stamp}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${src}")
endforeach()
