#include "codecache/compile_command.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cuda/driver.hpp"
#include "cuda/nvcc.hpp"

namespace kiln::codecache {
namespace {

std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> words;
    std::istringstream in(s);
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

// Compute capability of device 0 ("90"), through the one CUDA loader (no GPU: empty).
std::string device_arch() {
    static const std::string arch = [] {
        auto facts = cuda::device_facts(0);
        return facts.ok() && facts->cc_major > 0 ? std::to_string(facts->cc_major) + std::to_string(facts->cc_minor)
                                                 : std::string();
    }();
    return arch;
}

Result<std::vector<std::string>> cpp_command(const CodeCacheOptions& opt, const CompileRequest& req) {
    auto argv = cxx_words(opt);
    argv.push_back(kInputPlaceholder);
    if (!opt.opt_level.empty()) argv.push_back(opt.opt_level);
    if (!opt.march.empty()) argv.push_back(opt.march);
    argv.push_back("-std=c++17");
    argv.push_back("-fPIC");
    if (req.out_ext == "so") {
        argv.push_back("-shared");
    } else if (req.out_ext == "o") {
        argv.push_back("-c");
    } else if (req.out_ext != "exe") {
        return make_error(Errc::invalid_argument, "unsupported output '" + req.out_ext + "' for C++", {},
                          "C++ sources compile to so, o or exe");
    }
    for (const auto& d : opt.include_dirs) argv.push_back("-I" + d);
    argv.insert(argv.end(), req.flags.begin(), req.flags.end());
    argv.push_back("-o");
    argv.push_back(kOutputPlaceholder);
    if (req.out_ext != "o") {
        for (const auto& d : opt.library_dirs) argv.push_back("-L" + d);
        for (const auto& l : opt.libraries) argv.push_back("-l" + l);
    }
    return argv;
}

Result<std::vector<std::string>> cuda_command(const CodeCacheOptions& opt, const CompileRequest& req) {
    std::string nvcc = cuda::find_nvcc(opt.nvcc);
    if (nvcc.empty())
        return make_error(Errc::unavailable, "nvcc not found", "$CUDACXX, $CUDA_HOME/bin/nvcc, /usr/local/cuda, PATH",
                          "install the CUDA toolkit or set $CUDACXX");
    std::string arch = cuda_arch(opt);
    if (arch == "90") arch = "90a";  // as the seed: CUTLASS's sm90 paths need the "a" features
    const std::string& ext = req.out_ext;
    std::vector<std::string> argv{nvcc, "-t=0", "-w"};
    // A cubin is SASS for one real architecture and a PTX file is for one virtual one; the other
    // outputs embed both, as the seed's -gencode does.
    if (ext == "cubin") {
        argv.push_back("-arch=sm_" + arch);
    } else if (ext == "ptx") {
        argv.push_back("-arch=compute_" + arch);
    } else {
        argv.push_back("-gencode=arch=compute_" + arch + ",code=[sm_" + arch + ",compute_" + arch + "]");
    }
    argv.insert(argv.end(),
                {opt.opt_level.empty() ? "-O3" : opt.opt_level, "-std=c++17", "--expt-relaxed-constexpr", "-DNDEBUG"});
    argv.insert(argv.end(), req.flags.begin(), req.flags.end());
    for (const char* h : {"-fPIC", "-fno-strict-aliasing", "-fvisibility=hidden"})
        argv.push_back(std::string("-Xcompiler=") + h);
    for (const auto& d : opt.include_dirs) argv.push_back("-I" + d);
    if (ext == "so" || ext == "exe") {
        auto lib64 = (std::filesystem::path(nvcc).parent_path().parent_path() / "lib64").string();
        argv.insert(argv.end(), {"-L" + lib64, "-Xlinker", "-rpath=" + lib64});
        for (const auto& d : opt.library_dirs) argv.push_back("-L" + d);
        for (const auto& l : opt.libraries) argv.push_back("-l" + l);
        argv.push_back("-lcudart");
    }
    if (ext == "so") argv.push_back("-shared");
    else if (ext == "o") argv.push_back("-c");
    else if (ext == "cubin") argv.push_back("-cubin");
    else if (ext == "ptx") argv.push_back("-ptx");
    else if (ext == "fatbin") argv.push_back("-fatbin");
    else if (ext != "exe")
        return make_error(Errc::invalid_argument, "unsupported output '" + ext + "' for CUDA", {},
                          "CUDA sources compile to so, o, cubin, ptx, fatbin or exe");
    argv.insert(argv.end(), {"-o", kOutputPlaceholder, kInputPlaceholder});
    return argv;
}

}  // namespace

const char* source_ext(Lang lang) { return lang == Lang::Cuda ? "cu" : "cpp"; }

std::vector<std::string> cxx_words(const CodeCacheOptions& opt) {
    std::string cxx = opt.cxx;
    if (cxx.empty()) {
        const char* env = std::getenv("CXX");
        cxx = (env && *env) ? env : "g++";
    }
    auto words = split_words(cxx);
    if (words.empty()) words.push_back("g++");
    return words;
}

std::string cuda_arch(const CodeCacheOptions& opt) {
    if (!opt.cuda_arch.empty()) return opt.cuda_arch;
    std::string dev = device_arch();
    return dev.empty() ? "90" : dev;
}

Result<std::vector<std::string>> command_template(const CodeCacheOptions& opt, const CompileRequest& req) {
    return req.lang == Lang::Cuda ? cuda_command(opt, req) : cpp_command(opt, req);
}

std::vector<std::string> substitute(std::vector<std::string> argv, const std::string& input,
                                    const std::string& output) {
    for (auto& a : argv) {
        if (a == kInputPlaceholder) a = input;
        else if (a == kOutputPlaceholder) a = output;
    }
    return argv;
}

}  // namespace kiln::codecache
