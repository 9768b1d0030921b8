# Fails if a ui/ feature folder includes another feature's headers (run as a ctest, ROOT = ui/).
# ui/ has floors (ARCHITECTURE.md): the ground floor (theme common jobs) includes only itself; the
# shared views several features build on (browser: the cache tree and its scan; charts) include only
# the ground floor; a feature includes the ground floor, the shared views and its own folder; the
# shell, the roof, includes anything: what joins two features (the Overview's ops from the shared
# read of the timings, the Autotune view's runs: shell/tune_runs_install) is wired there, so the
# features never point at each other (issue 44 took out overview -> tuning and tuning -> runs).
# A few arrows between features remain, each listed with why in `allowed`.
# SELFTEST=DIR: writes a tree with each mistake under DIR and checks that instead (it must fail).
if(SELFTEST)
  set(ROOT "${SELFTEST}")
  file(REMOVE_RECURSE "${ROOT}")
  file(WRITE "${ROOT}/overview/overview_panel.cpp" "#include \"ui/tuning/root_timings.hpp\"\n")
  file(WRITE "${ROOT}/tuning/timings_install.cpp" "#include \"ui/runs/handback_bar.hpp\"\n#include \"ui/charts/chart.hpp\"\n")
  file(WRITE "${ROOT}/common/view_host.hpp" "#  include \"ui/browser/cache_browser.hpp\"\n")
  file(WRITE "${ROOT}/charts/chart.hpp" "#include \"ui/theme/palette.hpp\"\n#include \"ui/tuning/op_list_texts.hpp\"\n")
  file(WRITE "${ROOT}/shell/install_views.cpp" "#include \"ui/tuning/timings_install.hpp\"\n#include \"ui/runs/retune_dialog.hpp\"\n")
  file(WRITE "${ROOT}/inspector/inspector_widget.cpp" "#include \"ui/source/code_view.hpp\"\n")
endif()
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
set(ground theme common jobs)
set(shared browser charts)
list(JOIN ground " " ground_text)
list(JOIN shared " " shared_text)
# feature>feature: an arrow kept, and why.
set(allowed
    inspector>source  # the inspector shows an artifact's text through the source views (code, hex)
    overview>health   # the Overview's health count is the window's shared check (ScanHealth)
    remote>inspector) # a Redis entry is shown in the inspector, summarised as the inspector summarises
file(GLOB_RECURSE files RELATIVE "${ROOT}" "${ROOT}/*.hpp" "${ROOT}/*.h" "${ROOT}/*.cpp")
set(bad "")
foreach(rel IN LISTS files)
  string(REGEX REPLACE "/.*" "" from "${rel}")
  if(from STREQUAL "shell")
    continue()
  endif()
  file(STRINGS "${ROOT}/${rel}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"ui/[^/\"]+/")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"ui/([^/\"]+)/.*" "\\1" to "${line}")
    if(to STREQUAL from OR to IN_LIST ground)
      continue()
    endif()
    if(from IN_LIST ground)
      list(APPEND bad "${rel}: includes ui/${to}/, but the ground floor (${ground_text}) includes only itself")
    elseif(from IN_LIST shared)
      list(APPEND bad "${rel}: includes ui/${to}/, but a shared view (${shared_text}) includes only the ground floor")
    elseif(NOT to IN_LIST shared AND NOT "${from}>${to}" IN_LIST allowed)
      list(APPEND bad "${rel}: includes ui/${to}/: one feature never includes another (the shell joins them)")
    endif()
  endforeach()
endforeach()
if(bad)
  list(REMOVE_DUPLICATES bad)
  list(JOIN bad "\n  " text)
  message(FATAL_ERROR "arrows between ui folders:\n  ${text}")
endif()
list(LENGTH files n)
message(STATUS "checked the includes of ${n} ui files: no arrow between features")
