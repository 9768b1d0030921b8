# Precompiled headers for the test targets (KILN_PCH). A test executable is mostly one source file, so
# a unity batch does not help it: each one parsed GoogleTest, nlohmann/json and the std headers again
# (~2 CPU s), and each Qt Test one Qt's widget and test headers (~5 CPU s of an 11 s TU). One PCH per
# kind, built once by a donor target and reused by every test target of that kind (REUSE_FROM), parses
# them once (bench/RESULTS.md, "Third round"). Only third-party and std headers go in: CMake marks the
# PCH a system header, which would silence warnings in Kiln's own.
option(KILN_PCH "Precompile the test targets' third-party headers (one PCH per kind of test)" ON)

# ccache caches a compile that uses a GCC PCH only with this sloppiness (its manual, "Precompiled
# headers"); without it every such compile is a miss. Set here for these targets, so that a plain
# `-DCMAKE_CXX_COMPILER_LAUNCHER=ccache` configure needs no ccache.conf change.
function(_kiln_pch_ccache target)
  if(CMAKE_CXX_COMPILER_LAUNCHER MATCHES "ccache")
    set_property(TARGET ${target} PROPERTY CXX_COMPILER_LAUNCHER
      env "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      ${CMAKE_CXX_COMPILER_LAUNCHER})
  endif()
endfunction()

# kiln_test_pch(TARGET DONOR HEADER): TARGET compiles with DONOR's PCH of HEADER; the first target to
# name DONOR makes it the donor (it precompiles HEADER itself). Donor and users must be compiled with
# the same options (-Winvalid-pch, an error under KILN_WERROR, says when they are not).
function(kiln_test_pch target donor header)
  if(NOT KILN_PCH)
    return()
  endif()
  get_property(_has TARGET ${donor} PROPERTY PRECOMPILE_HEADERS SET)
  if(NOT _has)
    target_precompile_headers(${donor} PRIVATE "${header}")
    _kiln_pch_ccache(${donor})
  endif()
  if(NOT target STREQUAL donor)
    target_precompile_headers(${target} REUSE_FROM ${donor})
    _kiln_pch_ccache(${target})
  endif()
endfunction()
