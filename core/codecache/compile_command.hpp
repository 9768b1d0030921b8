#pragma once
// Compiler command lines for C++ and CUDA (the seed's cpp_compile_command / cuda_compile_command).
// Commands are built with the placeholders dummy_input / dummy_output, as Inductor does for the key's
// `extra`; the real paths are substituted only when the compiler runs.
#include <string>
#include <vector>

#include "codecache/code_cache.hpp"
#include "util/result.hpp"

namespace kiln::codecache {

inline constexpr const char* kInputPlaceholder = "dummy_input";
inline constexpr const char* kOutputPlaceholder = "dummy_output";

// argv with placeholders; errors for an unsupported out_ext or a missing nvcc.
Result<std::vector<std::string>> command_template(const CodeCacheOptions& opt, const CompileRequest& req);

// Replaces the placeholder words with real paths.
std::vector<std::string> substitute(std::vector<std::string> argv, const std::string& input, const std::string& output);

// The C++ compiler: opt.cxx, else $CXX, else "g++" (may be several words, e.g. "ccache g++").
std::vector<std::string> cxx_words(const CodeCacheOptions& opt);

// "90" from the configuration, else the first device's compute capability, else "90".
std::string cuda_arch(const CodeCacheOptions& opt);

// The source file extension for a language: "cpp" or "cu".
const char* source_ext(Lang lang);

}  // namespace kiln::codecache
