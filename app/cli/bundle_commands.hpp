#pragma once
// kiln-cli bundle ls|show|diff|unpack|pack: torch's Mega-Cache blobs (cmd_bundle.cpp registers them;
// bundle_inspect.cpp reads, bundle_write.cpp writes).
#include <string>
#include <vector>

#include "entry_print.hpp"
#include "util/result.hpp"

namespace kiln::cli::bundle_cmd {

struct BlobArgs {
    std::string blob;
    bool json = false;
    bool no_verify = false;  // read a blob whose checksum does not match
    std::string max_size;    // bound on the blob read into memory
};

struct ShowArgs {
    BlobArgs blob;
    std::string key;
    EntryPrintOptions print;
    bool bytes = false;  // the artifact's raw bytes to stdout
};

struct DiffArgs {
    std::string a, b;
    bool json = false;
};

struct UnpackArgs {
    BlobArgs blob;
    std::string into;
    bool dry_run = false, force = false, ignore_unknown = false;
};

struct PackArgs {
    std::string root, out;
    std::vector<std::string> select;
    std::string since, max_size;
    bool include_pgo = false, no_precompile = false, json = false;
    bool timings = false;  // --timings: refused (bundle/pack.hpp timings_refusal)
};

int run_ls(const BlobArgs& a);
int run_show(const ShowArgs& a);
int run_diff(const DiffArgs& a);
int run_unpack(const UnpackArgs& a);
int run_pack(const PackArgs& a);

}  // namespace kiln::cli::bundle_cmd
