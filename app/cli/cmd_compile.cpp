// kiln-cli compile SOURCE: build C++ or CUDA source through Kiln's content-addressed code cache
// (Inductor's layout and keys), printing the key, paths, hit/miss, time and the key's command.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "codecache/code_cache.hpp"
#include "command_registry.hpp"
#include "util/json_out.hpp"
#include "util/regular_file.hpp"

namespace kiln::cli {
namespace {

using namespace kiln::codecache;

struct CompileArgs {
    std::string source;
    bool cuda = false;
    std::string out_ext = "so";
    std::vector<std::string> flags;
    bool force = false;
    std::string cache_dir;
    bool json = false;
};

Result<std::string> read_source(const std::string& path) { return read_regular_file(path, 256u << 20); }

int report_failure(const Error& e, bool json) {
    // A compiler failure's message is "<what> (exit status N)\n<compiler output>".
    auto nl = e.message.find('\n');
    std::string what = e.message.substr(0, nl);
    std::string output = nl == std::string::npos ? std::string() : e.message.substr(nl + 1);
    if (json) {
        nlohmann::ordered_json j;
        j["error"] = what;
        j["command"] = e.context;
        j["compiler_output"] = output;
        j["hint"] = e.hint;
        std::cout << dump_json(j) << "\n";
    } else {
        std::fputs(output.c_str(), stderr);
        std::fprintf(stderr, "kiln-cli: %s\n  command: %s\n", what.c_str(), e.context.c_str());
    }
    return 1;
}

int run_compile(const CompileArgs& args) {
    auto source = read_source(args.source);
    if (!source.ok()) return fail(frontend::as_bad_input(source.error()));
    CodeCacheOptions options;
    options.root = args.cache_dir.empty() ? default_code_cache_dir() : std::filesystem::path(args.cache_dir);
    CodeCache cache(options);
    CompileRequest req{.source = std::move(source).value(),
                       .lang = args.cuda ? Lang::Cuda : Lang::Cpp,
                       .out_ext = args.out_ext,
                       .flags = args.flags,
                       .force = args.force};
    auto out = cache.compile(req);
    if (!out.ok()) {
        const Error& e = out.error();
        if (e.code == Errc::external) return report_failure(e, args.json);
        return fail(e);
    }
    if (args.json) {
        std::cout << dump_json(to_json(*out)) << "\n";
    } else {
        std::printf("key      %s\nsource   %s\noutput   %s\nresult   %s in %.3f s\ncommand  %s\n", out->key.c_str(),
                    out->source_path.c_str(), out->output_path.c_str(), out->hit ? "hit" : "compiled", out->seconds,
                    out->command.c_str());
        if (!out->compiler_output.empty()) std::fputs(out->compiler_output.c_str(), stderr);
    }
    return 0;
}

Registration compile_command{
    "compile", 60, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<CompileArgs>();
        auto* cmd =
            app.add_subcommand("compile", "Compile C++/CUDA source through Kiln's content-addressed code cache");
        cmd->add_option("SOURCE", args->source, "Source file (C++, or CUDA with --cuda)")->required();
        cmd->add_flag("--cuda", args->cuda, "Compile with nvcc ($CUDACXX, $CUDA_HOME/bin/nvcc, PATH)");
        cmd->add_option("--out-ext", args->out_ext, "Output kind: so|o|exe (C++), also cubin|ptx|fatbin (CUDA)")
            ->check(CLI::IsMember({"so", "o", "cubin", "ptx", "fatbin", "exe"}));
        cmd->add_option("--flag", args->flags, "Extra compiler flag, written --flag=-O2 (repeatable; part of the key)")
            ->allow_extra_args(false);
        cmd->add_flag("--force", args->force, "Rebuild even if cached; the previous build record is kept as history");
        cmd->add_option(
            "--cache-dir", args->cache_dir,
            "Cache root (default: $KILN_CODE_CACHE_DIR, else $XDG_CACHE_HOME/kiln/code, else ~/.cache/kiln/code)");
        cmd->add_flag("--json", args->json,
                      "Print JSON: key, source, output, hit, seconds, command (the key's `extra`)");
        cmd->callback([args, &outcome] { outcome.exit_code = run_compile(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
