# Included by tests/CMakeLists.txt: a short libFuzzer run of every target (the pickle decoder, the blob
# reader, the guard engine, the timing-cache readers; the TORCH_TRACE, fingerprint, saved re-tune, fleet
# value, kernel module and kernel metadata readers in tests of their own) inside ctest (label `fuzz`), so
# `./scripts/kiln test` exercises the fuzz build. The fuzzers are built by `sanitize.build`
# (cmake/KilnAsanSmoke.cmake) in the ASan tree they share with the sanitized tests; each is fuzzed for
# 30 s (the TORCH_TRACE and fingerprint readers for 15 s, the newer ones for 10 s), replaying
# fuzz/regressions first.
# The seed is fixed (a CI finding reproduces with the same command); an input may take 60 s before it
# counts as a hang, since these runs share a small CI machine with the sanitized tests.
add_test(NAME fuzz.pickle_decode_smoke
  COMMAND "${CMAKE_SOURCE_DIR}/scripts/fuzz" 30)
set_tests_properties(fuzz.pickle_decode_smoke PROPERTIES
  LABELS "fuzz"
  TIMEOUT 600
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK kiln_fuzz_smoke_build
  FIXTURES_REQUIRED kiln_asan_tree
  ENVIRONMENT "KILN_FUZZ_BUILD_DIR=${CMAKE_BINARY_DIR}/asan-smoke;KILN_FUZZ_PREBUILT=1;KILN_FUZZ_SEED=1;KILN_FUZZ_TIMEOUT=60;KILN_FUZZ_TARGETS=pickle_decode blob_reader guard_parser timing_cache")
# The TORCH_TRACE readers and the fingerprint reader: 15 s each (the same fuzz build, one at a time).
foreach(target IN ITEMS trace_reader fingerprint_reader)
  add_test(NAME fuzz.${target}_smoke COMMAND "${CMAKE_SOURCE_DIR}/scripts/fuzz" 15)
  set_tests_properties(fuzz.${target}_smoke PROPERTIES
    LABELS "fuzz"
    TIMEOUT 600
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK kiln_fuzz_smoke_build
    FIXTURES_REQUIRED kiln_asan_tree
    ENVIRONMENT "KILN_FUZZ_BUILD_DIR=${CMAKE_BINARY_DIR}/asan-smoke;KILN_FUZZ_PREBUILT=1;KILN_FUZZ_SEED=1;KILN_FUZZ_TIMEOUT=60;KILN_FUZZ_TARGETS=${target}")
endforeach()
# The saved re-tune (`handback --from`), fleet value (`handback --fetch`), kernel module / stderr log and
# kernel metadata (Triton key dir) readers: 10 s each (issue 42's hostile inputs are replayed first).
foreach(target IN ITEMS retune_run fleet_value kernel_module_reader kernel_metadata)
  add_test(NAME fuzz.${target}_smoke COMMAND "${CMAKE_SOURCE_DIR}/scripts/fuzz" 10)
  set_tests_properties(fuzz.${target}_smoke PROPERTIES
    LABELS "fuzz"
    TIMEOUT 600
    SKIP_RETURN_CODE 77
    RESOURCE_LOCK kiln_fuzz_smoke_build
    FIXTURES_REQUIRED kiln_asan_tree
    ENVIRONMENT "KILN_FUZZ_BUILD_DIR=${CMAKE_BINARY_DIR}/asan-smoke;KILN_FUZZ_PREBUILT=1;KILN_FUZZ_SEED=1;KILN_FUZZ_TIMEOUT=60;KILN_FUZZ_TARGETS=${target}")
endforeach()
# startup's span reader and report (issue 42): 10 s, seeded with the trace fuzzer's fixture pieces and
# fuzz/regressions-startup_spans (spans backwards, timestamps of 1e308, metrics of -5 s).
add_test(NAME fuzz.startup_spans_smoke COMMAND "${CMAKE_SOURCE_DIR}/scripts/fuzz" 10)
set_tests_properties(fuzz.startup_spans_smoke PROPERTIES
  LABELS "fuzz"
  TIMEOUT 600
  SKIP_RETURN_CODE 77
  RESOURCE_LOCK kiln_fuzz_smoke_build
  FIXTURES_REQUIRED kiln_asan_tree
  ENVIRONMENT "KILN_FUZZ_BUILD_DIR=${CMAKE_BINARY_DIR}/asan-smoke;KILN_FUZZ_PREBUILT=1;KILN_FUZZ_SEED=1;KILN_FUZZ_TIMEOUT=60;KILN_FUZZ_TARGETS=startup_spans")
