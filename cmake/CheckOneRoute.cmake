# Fails if a source under ROOT (core/ ui/ app/ tests/ bench/ fuzz/) opens a cache some way other than
# the one route (issue 44): frontend::open_cache names the root (Inductor's default read from
# $TORCHINDUCTOR_CACHE_DIR only in core/inductor/roots.cpp) and opens it once; core functions take that
# opened root and never resolve or open it again by its path.
#   - inductor::resolve_root is gone: no source names it;
#   - TORCHINDUCTOR_CACHE_DIR is read from the environment only in core/inductor/roots.cpp;
#   - open_root_dir (a root opened by path) is called only where a root is first opened (frontend,
#     roots, the scanner's path overload for tests, bundle diff's directories) or again through its
#     descriptor (the scanner, check);
#   - an opened cache's path (`cache->root`, `opened.root`) is never passed on as the root to read:
#     commands pass `cache->opened()`;
#   - no entry, timing or text file is read by the root's path joined with a name (`root / "cache"`):
#     beneath a root, files are read through its descriptor (inductor/beneath_root.hpp);
#   - the readers moved last read nothing by path: re-tuning (core/retune, the GUI's reader of a
#     child's logs included; kiln-worker's kernel binaries beneath the root it inherits, --root-fd),
#     a key prefix's lookup (core/frontend/entry_ref.cpp), the inspector's kernel join, and retune
#     --write's timing cache (core/handback/timing_cache_write.cpp: its lock, file and folders),
#     handback's recorded files (core/handback/measured_op.cpp, plan_handback: the CLI's and the GUI's)
#     and --pin's Triton benchmark modules (core/handback/lookup_table.cpp);
#   - the GUI's re-tune child is handed the opened root (ui/runs/retune_controller.cpp passes
#     `kiln-cli retune --root-fd`), never left to open ROOT again by its path.
# SELFTEST=DIR: writes a file with each mistake under DIR and checks that instead (it must fail).
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
if(SELFTEST)
  set(ROOT "${SELFTEST}")
  file(REMOVE_RECURSE "${ROOT}")
  file(WRITE "${ROOT}/core/a/resolve.cpp" "auto r = inductor::resolve_root(arg);\n")
  file(WRITE "${ROOT}/core/a/env.cpp" "const char* d = std::getenv(\"TORCHINDUCTOR_CACHE_DIR\");\n")
  file(WRITE "${ROOT}/ui/b/reopen.cpp" "KILN_TRY(UniqueFd fd, inductor::open_root_dir(scan.root));\n")
  file(WRITE "${ROOT}/core/inductor/roots.cpp" "if (const char* v = env(\"TORCHINDUCTOR_CACHE_DIR\")) return v;\n")
  file(WRITE "${ROOT}/app/cli/cmd_c.cpp" "auto list = trace::list_named_graphs(cache->root, trace);\n")
  file(WRITE "${ROOT}/core/d/rows.cpp" "auto entry = skim_graph_entry(root / row.path);\n")
  file(WRITE "${ROOT}/ui/e/ops.cpp" "auto set = timings::collect_timings({root / \"cache\"});\n")
  file(WRITE "${ROOT}/ui/f/panel.cpp" "auto s = overview::ops_section(scan.root);\n")
  file(WRITE "${ROOT}/core/retune/inventory.cpp" "for (const auto& e : fs::directory_iterator(root / \"cache\", ec))\n")
  file(WRITE "${ROOT}/core/retune/run_progress.cpp" "for (const auto& e : fs::directory_iterator(dir, ec))\n")
  file(WRITE "${ROOT}/core/handback/timing_cache_write.cpp" "KILN_TRY(auto lock, FileLock::acquire(root / name));\n")
  file(WRITE "${ROOT}/core/frontend/entry_ref.cpp" "for (fs::directory_iterator it(root / \"fxgraph\", ec), end; ;)\n")
  file(WRITE "${ROOT}/core/worker/executor_compiled.cpp" "auto f = open_regular_file_at(AT_FDCWD, b.cubin.c_str(), b.cubin);\n")
  file(WRITE "${ROOT}/ui/inspector/summary_html.cpp" "const std::filesystem::path root = req.root.toStdString();\n")
  file(WRITE "${ROOT}/core/handback/lookup_table.cpp" "std::string module = timings::kernel_module_for_key(root, key);\n")
  file(WRITE "${ROOT}/ui/runs/retune_controller.cpp" "QStringList args{QStringLiteral(\"retune\"), request.cacheRoot};\n")
  file(WRITE "${ROOT}/core/handback/measured_op.cpp" "auto file = inductor::read_cache_file(root / \"cache\" / r.system_hash);\n")
endif()
set(dirs core ui app tests bench fuzz)
set(files "")
foreach(d IN LISTS dirs)
  file(GLOB_RECURSE found "${ROOT}/${d}/*.hpp" "${ROOT}/${d}/*.cpp" "${ROOT}/${d}/*.h")
  list(APPEND files ${found})
endforeach()
# core/trace/misses.cpp: startup's root found beside the logs (no command was given it), opened once there;
# core/ranks/rank_agreement.cpp: each rank's root, found in its folder, opened once to write its timing cache.
set(opens_allowed core/inductor/roots.cpp core/inductor/roots.hpp core/frontend/open_cache.cpp
    core/inductor/scanner.cpp core/health/check.cpp core/bundle/diff.cpp core/trace/misses.cpp
    core/ranks/rank_agreement.cpp tests/support/opened_dir.hpp)
# Sources that read a cache only beneath its opened root, and what in them would be a read by path.
set(by_path_primitives "(directory_iterator|read_text_file|read_cache_file|read_regular_file|open_regular_file(_at)?[ \t]*\\(|kernel_module_for_key|is_regular_file|symlink_status)")
set(beneath_only "")
file(GLOB retune_sources RELATIVE "${ROOT}" "${ROOT}/core/retune/*.cpp")
foreach(f IN LISTS retune_sources)
  list(APPEND beneath_only "${f}=${by_path_primitives}")
endforeach()
list(APPEND beneath_only
     "core/worker/executor_compiled.cpp=AT_FDCWD|open_regular_file[ \t]*\\("  # the worker's kernel binaries
     "core/frontend/entry_ref.cpp=directory_iterator"                         # a key prefix's lookup
     "ui/inspector/summary_html.cpp=std::filesystem|collect_timings[ \t]*\\(" # the kernel join
     # retune --write's timing cache: lock, folders and file opened beneath the root's descriptor
     "core/handback/timing_cache_write.cpp=root[ \t]*/|is_directory|FileLock::acquire[ \t]*\\(|MergedWrite::open[ \t]*\\("
     # handback's reads: the recorded timing files (plan_handback) and --pin's benchmark modules
     "core/handback/measured_op.cpp=root[ \t]*/|read_cache_file[ \t]*\\(|read_regular_file|read_text_file"
     "core/handback/lookup_table.cpp=root[ \t]*/|kernel_module_for_key|read_text_file")
# Readers that take the opened root (an inductor::OpenedRoot): never handed a root's path.
set(readers_of_opened "(ops_section|compute_overview|list_graphs|list_named_graphs|for_each_graph_batch|for_each_named_graph_batch|read_key_components|load_keyed_entries|explain_guard_miss|mark_used_by|keyed_by_newer_torch)")
set(bad "")
foreach(f IN LISTS files)
  file(RELATIVE_PATH rel "${ROOT}" "${f}")
  file(STRINGS "${f}" lines REGEX "resolve_root")
  if(lines)
    string(APPEND bad "  ${rel}: names resolve_root (open the cache with frontend::open_cache)\n")
  endif()
  if(NOT rel STREQUAL "core/inductor/roots.cpp")
    file(STRINGS "${f}" lines
         REGEX "(getenv|[^A-Za-z_]env|qEnvironmentVariable[A-Za-z]*)[ \t]*\\([ \t]*\"TORCHINDUCTOR_CACHE_DIR\"")
    if(lines)
      string(APPEND bad "  ${rel}: reads TORCHINDUCTOR_CACHE_DIR (frontend::default_cache_root says it)\n")
    endif()
  endif()
  if(NOT rel IN_LIST opens_allowed AND NOT rel MATCHES "^tests/")
    file(STRINGS "${f}" lines REGEX "open_root_dir[ \t]*\\(")
    if(lines)
      string(APPEND bad "  ${rel}: opens a root by its path (take the opened root: inductor::OpenedRoot)\n")
    endif()
  endif()
  foreach(rule IN LISTS beneath_only)
    string(FIND "${rule}" "=" eq)
    string(SUBSTRING "${rule}" 0 ${eq} only)
    math(EXPR from "${eq} + 1")
    string(SUBSTRING "${rule}" ${from} -1 primitives)
    if(rel STREQUAL only)
      file(STRINGS "${f}" lines REGEX "${primitives}")
      if(lines)
        string(APPEND bad "  ${rel}: reads the cache by path (read beneath the opened root: inductor/beneath_root.hpp)\n")
      endif()
    endif()
  endforeach()
  if(NOT rel MATCHES "^tests/")
    file(STRINGS "${f}" lines REGEX "(cache|opened)(->|\\.)root[ \t]*[,)]")
    file(STRINGS "${f}" readers REGEX "${readers_of_opened}[ \t]*\\([^;]*(->|\\.)root[ \t]*[,)]")
    list(APPEND lines ${readers})
    if(lines)
      string(APPEND bad "  ${rel}: passes a root's path where its descriptor is read (pass cache->opened())\n")
    endif()
    file(STRINGS "${f}" lines
         REGEX "(skim_graph_entry|load_graph_entry|read_text_file|read_regular_file|open_regular_file|collect_timings)[ \t]*\\([ \t]*{?[^)]*root[ \t]*/")
    if(lines)
      string(APPEND bad "  ${rel}: reads beneath a root by its path (read through its descriptor: inductor/beneath_root.hpp)\n")
    endif()
  endif()
endforeach()
# Children handed the opened root as a descriptor, and the flag that hands it.
foreach(rule "ui/runs/retune_controller.cpp=--root-fd")
  string(FIND "${rule}" "=" eq)
  string(SUBSTRING "${rule}" 0 ${eq} starter)
  math(EXPR from "${eq} + 1")
  string(SUBSTRING "${rule}" ${from} -1 flag)
  if(EXISTS "${ROOT}/${starter}")
    file(STRINGS "${ROOT}/${starter}" lines REGEX "${flag}")
    if(NOT lines)
      string(APPEND bad "  ${starter}: starts a child that opens the root by its path (hand it the descriptor: ${flag})\n")
    endif()
  endif()
endforeach()
if(bad)
  message(FATAL_ERROR "a cache is opened once, by frontend::open_cache, and passed down (issue 44):\n${bad}")
endif()
list(LENGTH files n)
message(STATUS "checked ${n} files: one route to open a cache")
