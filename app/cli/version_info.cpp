#include "version_info.hpp"

#include <openssl/crypto.h>
#include <openssl/opensslv.h>

#include "kiln/version.hpp"
#include "util/cuda_probe.hpp"

namespace kiln::cli {

std::string version_report(const std::string& program) {
    std::string s = program + " " KILN_VERSION_FULL "\n";
    s += std::string("OpenSSL ") + OpenSSL_version(OPENSSL_VERSION) + "\n";
    s += "CUDA " + kiln::cuda_version_summary();
    return s;
}

}  // namespace kiln::cli
