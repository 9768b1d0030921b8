// kiln-cli's own _exit and _Exit (exported: see app/CMakeLists.txt). A kernel benchmarked
// --in-process that ends the process with them binds here instead of libc, so the session saves what
// it measured and the run exits 1 rather than 0 (tuning/in_process_watch.hpp). Everything else,
// kiln-cli's own calls included, gets libc's behaviour: the exit_group system call.
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "tuning/in_process_watch.hpp"

extern "C" [[noreturn]] void _exit(int status) {
    kiln::tuning::in_process_exit_hook();
    ::syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

extern "C" [[noreturn]] void _Exit(int status) noexcept {
    kiln::tuning::in_process_exit_hook();
    ::syscall(SYS_exit_group, status);
    __builtin_unreachable();
}
