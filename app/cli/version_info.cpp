#include "version_info.hpp"

#include <openssl/crypto.h>
#include <openssl/opensslv.h>

#include "cuda/nvcc.hpp"
#include "kiln/version.hpp"
#include "util/install_paths.hpp"

namespace kiln::cli {

std::string version_report(const std::string& program, const std::string& qt_version) {
    std::string s = program + " " KILN_VERSION_FULL "\n";
    s += std::string("OpenSSL ") + OpenSSL_version(OPENSSL_VERSION) + "\n";
    s += qt_version.empty() ? std::string("Qt not linked (") + program + " is Qt-free)\n" : "Qt " + qt_version + "\n";
    s += "CUDA " + kiln::cuda::cuda_version_summary() + "\n";
    auto worker = kiln::find_worker_executable();
    s += "kiln-worker " + (worker.ok() ? worker->string() : std::string("not found (") + worker.error().context + ")");
    return s;
}

}  // namespace kiln::cli
