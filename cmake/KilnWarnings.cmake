# One INTERFACE target carries the project's warning flags; every Kiln target links it.
add_library(kiln_warnings INTERFACE)
target_compile_options(kiln_warnings INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers
  $<$<BOOL:${KILN_WERROR}>:-Werror>)
