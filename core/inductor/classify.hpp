#pragma once
// The classification rules of docs/inductor-cache-format.md §2 as a pure function of the path
// relative to the root. The scanner applies them during its walk; .py files additionally need
// their first 4 KB (python_is_output_code) to tell the graph's wrapper module from a kernel module.
#include <cstddef>
#include <string_view>

#include "inductor/scanner.hpp"

namespace kiln::inductor {

// Kind of group a file joins; `group_rel` names it (relative path of the dir, or of the module
// path without extension) so files of one unit meet in one group.
struct Classification {
    Category category = Category::other;
    GroupKind group_kind = GroupKind::single_file;
    std::string_view key;  // views into the relative path given to classify_path
    std::string_view group_rel;
    bool needs_python_sniff = false;  // c<51>.py: output_code or kernel_module, decided by content
};

// A file that lives and dies alone (the classifiers' most common answer).
inline Classification single_file(Category c, std::string_view rel, std::string_view key = {}) {
    return {c, GroupKind::single_file, key, rel, false};
}

// `rel` uses '/' separators and names a regular file.
Classification classify_path(std::string_view rel, RootKind kind);

// The §2 rule "contains `def call(`", decided from the first ≤ 4 KB of the module: the call itself,
// or what guarantees it further down: the wrapper header (`# AOT ID:`, `AsyncCompile()`), or the
// benchmark harness Inductor appends to kernel modules that record `kernel_num_gb`.
bool python_is_output_code(std::string_view head);
inline constexpr std::size_t kPythonSniffBytes = 4096;

// Name checks shared with roots.cpp.
bool is_code_key(std::string_view s);     // "c" + 51 chars of lower-case base32 (a-z, 2-7)
bool is_triton_hash(std::string_view s);  // 52 chars of upper-case base32
bool is_hex64(std::string_view s);
bool is_atomic_temp_name(std::string_view name);  // ".<pid>.<tid>.tmp"
bool is_build_temp_name(std::string_view name);   // ".<key>.<pid>.<tid>.tmp.<ext>": a compiler's output in flight

}  // namespace kiln::inductor
