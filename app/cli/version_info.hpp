#pragma once
#include <string>

namespace kiln::cli {
// "kiln-cli 0.1.0 (git ...)" plus the versions of the libraries found at run time: OpenSSL, Qt
// (`qt_version` from qVersion() in the GUI; empty for the Qt-free CLI), the CUDA driver and
// toolkit, and where kiln-worker was found.
std::string version_report(const std::string& program, const std::string& qt_version = {});
}  // namespace kiln::cli
