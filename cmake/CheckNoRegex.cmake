# Fails if a source under ROOT uses the standard library's regex (run as a ctest, ROOT = core/).
# libstdc++'s regex executor recurses once per character, so one long line or a long run of spaces
# in a hostile cache file or log overflowed the stack (issue 42); core scans text by hand
# (util/text_scan.hpp) instead.
# SELFTEST=DIR: writes a file with each form under DIR and checks that instead (it must fail).
if(SELFTEST)
  set(ROOT "${SELFTEST}")
  file(REMOVE_RECURSE "${ROOT}")
  file(WRITE "${ROOT}/a/include.cpp" "#include <regex>\n")
  file(WRITE "${ROOT}/a/search.hpp" "inline bool f(const char* s) { return std::regex_search(s, r); }\n")
  file(WRITE "${ROOT}/b/match.cpp" "std::smatch m;\n")
  file(WRITE "${ROOT}/b/clean.cpp" "// no regexes here: regex_like(s)\n")
endif()
file(GLOB_RECURSE files "${ROOT}/*.hpp" "${ROOT}/*.cpp" "${ROOT}/*.h" "${ROOT}/*.in")
set(bad "")
foreach(f IN LISTS files)
  file(STRINGS "${f}" lines
       REGEX "#[ \t]*include[ \t]*<regex>|std::[a-z_]*regex|std::w?[cs]match|std::w?[cs]sub_match")
  if(lines)
    file(RELATIVE_PATH rel "${ROOT}" "${f}")
    string(APPEND bad "  ${rel}\n")
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "core/ must not use the standard library's regex (util/text_scan.hpp says why):\n${bad}")
endif()
list(LENGTH files n)
message(STATUS "checked ${n} files: no regex")
