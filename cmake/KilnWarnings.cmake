# One INTERFACE target carries the project's warning flags; every Kiln target links it.
add_library(kiln_warnings INTERFACE)
target_compile_options(kiln_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers
  $<$<BOOL:${KILN_WERROR}>:-Werror>)
# GCC 12 reports -Wrestrict on `"literal" + std::string` when optimising (GCC bug 105329, a false
# positive fixed in GCC 13); with KILN_WERROR it would fail correct code in Release builds.
target_compile_options(kiln_warnings INTERFACE
  $<$<AND:$<CXX_COMPILER_ID:GNU>,$<VERSION_LESS:$<CXX_COMPILER_VERSION>,13>>:-Wno-restrict>)
# -Wsubobject-linkage is meant for headers: in a unity batch every source is #included, so a test
# fixture in an anonymous namespace looks like one defined in a header to GCC.
if(CMAKE_UNITY_BUILD)
  target_compile_options(kiln_warnings INTERFACE $<$<CXX_COMPILER_ID:GNU>:-Wno-subobject-linkage>)
endif()
