#pragma once
#include <string>

namespace kiln::cli {
// "kiln-cli 0.1.0 (git ...)" plus the library and CUDA versions found at run time.
std::string version_report(const std::string& program);
}
