#pragma once
// The bodies of kiln-cli's Redis variants (`stats --redis`, …), kept beside the code they drive
// so each command's own file changes by a few lines under #ifdef KILN_HAVE_REMOTE. They print to
// stdout/stderr and return the exit status (0 ok, 1 the work failed, 2 bad input).
#include <string>

namespace kiln::remote {

// `kiln-cli stats --redis [URL] [--json]`; an empty URL means torch's variables.
int run_remote_stats(const std::string& url, bool json);

}  // namespace kiln::remote
