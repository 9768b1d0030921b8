// kiln-cli dis FILE: the pickle's opcodes, one a line (offset, opcode, argument), like Python's
// `pickletools.dis`. A truncated or malformed file lists what can be read, then says why it stopped.
#include <cstdio>

#include "command_registry.hpp"
#include "pickle/buffer.hpp"
#include "pickle/disassemble.hpp"

namespace kiln::cli {
namespace {

struct DisArgs {
    std::string file;
    std::size_t max_arg = 200;
};

int run_dis(const DisArgs& a) {
    auto buffer = pickle::load_file(a.file);
    if (!buffer.ok()) return fail(buffer.error());
    pickle::DisassembleOptions options;
    options.max_arg_chars = a.max_arg == 0 ? SIZE_MAX : a.max_arg;
    Error err;
    auto ops = pickle::disassemble_prefix((*buffer)->bytes(), &err, options);
    for (const auto& op : ops) std::printf("%s\n", pickle::format_op(op).c_str());
    std::fflush(stdout);
    if (!err.message.empty()) return fail(std::move(err).with_context(a.file));
    return 0;
}

Registration dis_command{
    "dis", 41, [](CLI::App& app, Outcome& outcome) {
        auto args = std::make_shared<DisArgs>();
        auto* cmd =
            app.add_subcommand("dis", "List a pickle's opcodes (offset, opcode, argument), like pickletools.dis");
        cmd->add_option("FILE", args->file, "A pickle file (e.g. a graph entry)")->required()->check(CLI::ExistingFile);
        cmd->add_option("--max-arg", args->max_arg, "Shorten str/bytes arguments to this many characters (0: never)")
            ->capture_default_str();
        cmd->callback([args, &outcome] { outcome.exit_code = run_dis(*args); });
    }};

}  // namespace
}  // namespace kiln::cli
