# ctest checks of the packages (label `packaging`): the .deb builds; its desktop and AppStream files
# validate; unpacked with dpkg -x into a scratch root its programs run from there; lintian has no
# errors. check_package.sh does the work; the first test builds the .deb the others read.
set(_check "${CMAKE_CURRENT_SOURCE_DIR}/check_package.sh")
set(_work "${CMAKE_BINARY_DIR}/packaging-check")
set(_gui "$<IF:$<BOOL:${KILN_BUILD_GUI}>,1,0>")

add_test(NAME packaging.deb_builds COMMAND bash "${_check}" build "${CMAKE_BINARY_DIR}" "${_work}")
set_tests_properties(packaging.deb_builds PROPERTIES FIXTURES_SETUP kiln_deb LABELS packaging TIMEOUT 170
  RESOURCE_LOCK kiln_cpack)

add_test(NAME packaging.tarball_runs COMMAND bash "${_check}" tarball_runs "${CMAKE_BINARY_DIR}" "${_work}" ${_gui})
set_tests_properties(packaging.tarball_runs PROPERTIES FIXTURES_REQUIRED kiln_deb LABELS packaging TIMEOUT 170
  RESOURCE_LOCK kiln_cpack)

foreach(step IN ITEMS unpacked_runs lintian)
  add_test(NAME packaging.${step} COMMAND bash "${_check}" ${step} "${CMAKE_BINARY_DIR}" "${_work}" ${_gui})
  set_tests_properties(packaging.${step} PROPERTIES FIXTURES_REQUIRED kiln_deb LABELS packaging TIMEOUT 170)
endforeach()
if(KILN_BUILD_GUI)
  foreach(step IN ITEMS desktop_file_valid appstream_valid)
    add_test(NAME packaging.${step} COMMAND bash "${_check}" ${step} "${CMAKE_BINARY_DIR}" "${_work}" 1)
    set_tests_properties(packaging.${step} PROPERTIES FIXTURES_REQUIRED kiln_deb LABELS packaging TIMEOUT 60)
  endforeach()
endif()
