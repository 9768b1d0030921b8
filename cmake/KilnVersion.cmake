# Version = project version plus `git describe` when the source is a git checkout.
set(KILN_GIT_DESCRIBE "")
find_package(Git QUIET)
if(GIT_FOUND AND EXISTS "${CMAKE_SOURCE_DIR}/.git")
  execute_process(COMMAND "${GIT_EXECUTABLE}" describe --always --dirty
    WORKING_DIRECTORY "${CMAKE_SOURCE_DIR}" OUTPUT_VARIABLE KILN_GIT_DESCRIBE
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
endif()
if(KILN_GIT_DESCRIBE)
  set(KILN_VERSION_FULL "${PROJECT_VERSION} (git ${KILN_GIT_DESCRIBE})")
else()
  set(KILN_VERSION_FULL "${PROJECT_VERSION}")
endif()
configure_file("${CMAKE_SOURCE_DIR}/core/util/version.hpp.in" "${CMAKE_BINARY_DIR}/generated/kiln/version.hpp" @ONLY)
