#pragma once
// What an output-code module (the wrapper `<xx>/c<key>.py` an fxgraph entry's cache_key names) launches,
// read from its text without running it: each Triton kernel it defines with
// `async_compile.triton('name', '''source''')`, each C++ kernel (`async_compile.cpp_pybinding(...,
// r'''source''')`) and each extern call (`extern_kernels.mm(...)`), with how often `call()` launches it.
// A Triton kernel's module file is `<k[1:3]>/<k>.py` with k = code_hash(source.strip()), which is
// where PyCodeCache.load writes it; a C++ kernel's library is the `<k>.main.so` beside the `.main.cpp`
// whose kernel part is the same text (its key includes the machine's compile command, so only the
// text joins them).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/result.hpp"

namespace kiln::inductor {

enum class KernelKind : std::uint8_t { triton, cpp, extern_aten };
std::string_view kernel_kind_name(KernelKind k);

struct KernelRef {
    std::string name;  // triton_tem_fused_mm_relu_0, cpp_fused_mul_0, mm (for extern_kernels.mm)
    KernelKind kind = KernelKind::triton;
    std::string module_key;      // triton: code_hash of the source: the module PyCodeCache loads
    std::string kernel_path;     // triton: "<xx>/<key>.py" from the `# kernel path:` comment (may differ for templates)
    std::string source_sha256;   // cpp: hex sha256 of the stripped source, the join key to a .main.cpp
    std::uint32_t launches = 0;  // call sites in the module (X.run(, cpp_fused_X(, extern_kernels.X()

    // "pointwise", "reduction", "persistent_reduction", "template", "foreach", "split_scan" from the
    // triton_<poi|red|per|tem|for|spl>_ prefix; empty for others.
    std::string_view triton_category() const;
    std::string module_rel_path() const;  // "<xx>/<module_key>.py" (triton only)
};

struct OutputCode {
    std::string aot_id;              // "['5_inference']" from the first line; empty: not an output module
    std::vector<KernelRef> kernels;  // in definition order; extern calls in order of first use
};

// Parses the module text. Errors only for text that is not Python Inductor wrote (an unterminated
// kernel literal, a bad escape); anything it does not recognise is ignored.
Result<OutputCode> parse_output_code(std::string_view source);

// The stripped kernel part of a `.main.cpp` (the text before its Python bindings) as a join key.
std::optional<std::string> cpp_main_source_sha256(std::string_view main_cpp_text);

// Python's decoding of a non-raw string literal body (\n, \t, \\, \', \xhh, \ooo, \uXXXX, line
// continuations, ...) into UTF-8. \N{name} is an error (Inductor never writes it).
Result<std::string> decode_python_escapes(std::string_view body);

}  // namespace kiln::inductor
