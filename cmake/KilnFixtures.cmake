# The shared fixtures are real Inductor caches; tests read them from the build tree,
# extracted once per configure (never edited, never committed).
set(KILN_FIXTURE_DIR "${CMAKE_BINARY_DIR}/fixtures")
set(_kiln_fixtures
  "h100:inductor-h100-torch2.11.tar.xz"
  "two:inductor-two-entries-torch2.11.tar.xz")
foreach(pair IN LISTS _kiln_fixtures)
  string(REPLACE ":" ";" pair "${pair}")
  list(GET pair 0 name)
  list(GET pair 1 archive)
  set(src "${KILN_SHARED_DIR}/fixtures/${archive}")
  if(NOT EXISTS "${src}")
    message(FATAL_ERROR "Kiln: fixture ${src} is missing. Tests need the shared fixtures; "
      "set -DKILN_SHARED_DIR=<path to shared/> or configure with -DKILN_BUILD_TESTS=OFF.")
  endif()
  set(dst "${KILN_FIXTURE_DIR}/${name}")
  set(stamp "${dst}/.extracted")
  if(NOT EXISTS "${stamp}" OR "${src}" IS_NEWER_THAN "${stamp}")
    file(REMOVE_RECURSE "${dst}")
    file(ARCHIVE_EXTRACT INPUT "${src}" DESTINATION "${dst}")
    file(TOUCH "${stamp}")
  endif()
endforeach()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  "${KILN_SHARED_DIR}/fixtures/inductor-h100-torch2.11.tar.xz"
  "${KILN_SHARED_DIR}/fixtures/inductor-two-entries-torch2.11.tar.xz")
