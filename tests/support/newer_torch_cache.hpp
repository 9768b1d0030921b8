#pragma once
// A cache as a torch newer than 2.11 leaves it, made from the H100 fixture (never invented formats):
// folders 2.11 never writes (`cutedsl_compile_cache/` with a CuTe-DSL object and its sidecar,
// `aot_compile/`), and one
// FX graph entry whose key has components 2.11 does not write. The entry's debug lines are text in its
// pickle: two of them are rewritten in place, each to a line of the same length (so every opcode's
// length and the pickle's frames stay right): `joint_custom_pre_pass: None` becomes
// `pre_grad_pass_timing: False`, `_custom_partitioner_fn: None` becomes `provenance_tracking_level: 0`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace kiln::test {

struct NewerTorchCache {
    std::filesystem::path root;       // the cache root
    std::filesystem::path new_entry;  // the FX entry with the new key components
    std::filesystem::path old_entry;  // the same entry in the fixture, as torch 2.11 wrote it
};

inline NewerTorchCache make_newer_torch_cache(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    NewerTorchCache c;
    c.root = dir / "inductor";
    fs::copy(h100_root(), c.root, fs::copy_options::recursive);
    // CuTe-DSL objects are compiled code: a complete ELF object stands for one (a fixture's .so).
    fs::create_directories(c.root / "cutedsl_compile_cache");
    const std::string hex = "3f1e9c0b7a5d2e8f4c6b1a0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f";
    for (const auto& e : fs::recursive_directory_iterator(c.root))
        if (e.path().extension() == ".so") {
            fs::copy_file(e.path(), c.root / "cutedsl_compile_cache" / (hex + ".o"));
            break;
        }
    std::ofstream(c.root / "cutedsl_compile_cache" / (hex + ".json")) << "{}";
    fs::create_directories(c.root / "aot_compile");
    std::ofstream(c.root / "aot_compile" / "model.pt2") << "PK";
    const fs::path key_dir = "fxgraph/yg/fygldk366xeatlz7nfvy2zsl3k55ym5kcn2c366ejalbhhojodnz";
    for (const auto& e : fs::directory_iterator(c.root / key_dir)) c.new_entry = e.path();
    c.old_entry = h100_root() / key_dir / c.new_entry.filename();
    std::string bytes = read_file(c.new_entry);
    for (auto [from, to] :
         {std::pair<std::string, std::string>{"joint_custom_pre_pass: None", "pre_grad_pass_timing: False"},
          {"_custom_partitioner_fn: None", "provenance_tracking_level: 0"}}) {
        EXPECT_EQ(from.size(), to.size());
        auto at = bytes.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) bytes.replace(at, from.size(), to);
    }
    std::ofstream(c.new_entry, std::ios::binary | std::ios::trunc) << bytes;
    return c;
}

}  // namespace kiln::test
