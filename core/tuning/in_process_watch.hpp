#pragma once
// The guard of `autotune --in-process`, which is otherwise unguarded: a kernel runs on this
// process's own thread, so it can hang it, crash it or end it. Two things are still caught:
// - a benchmark that outlives the result timeout: a watchdog thread reports it, lets the session
//   save what it measured so far (timing cache and session log) and exits 1;
// - a kernel that ends the process while it is being benchmarked (exit, quick_exit, _exit, _Exit):
//   the process's exit paths call in_process_exit_hook(), which does the same with exit status 1,
//   so such a run never looks like success. exit and quick_exit are caught with atexit and
//   at_quick_exit handlers; _exit and _Exit only where the executable routes them to the hook
//   (kiln-cli defines both and exports them, so a kernel's call binds to them).
// A SIGSEGV or SIGKILL still ends the run: use the worker processes (the default) for kernels
// that may crash.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace kiln::tuning {

class InProcessWatch {
public:
    // `save(why)`: saves the results so far; called at most once, from the watchdog or an exit path.
    InProcessWatch(std::chrono::milliseconds timeout, std::function<void(const std::string& why)> save);
    ~InProcessWatch();
    InProcessWatch(const InProcessWatch&) = delete;
    InProcessWatch& operator=(const InProcessWatch&) = delete;

    void arm(const std::string& choice);  // a benchmark of `choice` starts
    void disarm();                        // it returned

    // Reports `why` on stderr, saves, and ends the process with status 1. Never returns.
    [[noreturn]] void abort(const std::string& why);
    const std::string& armed_choice() const { return armed_choice_; }

private:
    void watch();

    std::chrono::milliseconds timeout_;
    std::function<void(const std::string&)> save_;
    std::mutex m_;
    std::condition_variable cv_;
    std::string choice_;  // armed while not empty
    std::string armed_choice_;
    std::chrono::steady_clock::time_point started_;
    bool stopping_ = false;
    std::once_flag aborted_;
    std::thread thread_;
};

// Called on every way out of the process (see above): aborts the armed watch, if any; else returns.
void in_process_exit_hook();

}  // namespace kiln::tuning
