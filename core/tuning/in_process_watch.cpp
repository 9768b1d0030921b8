#include "tuning/in_process_watch.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace kiln::tuning {
namespace {

std::atomic<InProcessWatch*> g_armed{nullptr};

void exit_handler() { in_process_exit_hook(); }

void register_exit_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        std::atexit(exit_handler);
        std::at_quick_exit(exit_handler);
    });
}

}  // namespace

InProcessWatch::InProcessWatch(std::chrono::milliseconds timeout, std::function<void(const std::string&)> save)
    : timeout_(timeout), save_(std::move(save)) {
    register_exit_handlers();
    thread_ = std::thread([this] { watch(); });
}

InProcessWatch::~InProcessWatch() {
    {
        std::lock_guard lk(m_);
        stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
    InProcessWatch* self = this;
    g_armed.compare_exchange_strong(self, nullptr);
}

void InProcessWatch::arm(const std::string& choice) {
    {
        std::lock_guard lk(m_);
        choice_ = choice.empty() ? "?" : choice;
        started_ = std::chrono::steady_clock::now();
    }
    armed_choice_ = choice_;  // read by the exit hook without the lock (same thread)
    g_armed.store(this);
    cv_.notify_all();
}

void InProcessWatch::disarm() {
    g_armed.store(nullptr);
    std::lock_guard lk(m_);
    choice_.clear();
}

void InProcessWatch::watch() {
    std::unique_lock lk(m_);
    while (!stopping_) {
        if (choice_.empty()) {
            cv_.wait(lk);
            continue;
        }
        auto deadline = started_ + timeout_;
        if (std::chrono::steady_clock::now() < deadline) {
            cv_.wait_until(lk, deadline);
            continue;
        }
        std::string why = "choice " + choice_ + " gave no result within " +
                          std::to_string(std::chrono::duration<double>(timeout_).count()) +
                          " s (--result-timeout); an in-process benchmark cannot be stopped, so the run ends";
        lk.unlock();
        abort(why);
    }
}

void InProcessWatch::abort(const std::string& why) {
    std::call_once(aborted_, [&] {
        std::fprintf(stderr, "kiln-cli: in-process benchmark: %s\n", why.c_str());
        if (save_) save_(why);
        std::fprintf(stderr, "kiln-cli: the results measured before it were saved (timing cache, session log)\n");
        std::fflush(stderr);
    });
    // The raw system call: exit() would run the exit handlers again, and _exit may be the hook's.
    ::syscall(SYS_exit_group, 1);
    __builtin_unreachable();
}

void in_process_exit_hook() {
    InProcessWatch* w = g_armed.exchange(nullptr);
    if (!w) return;
    // The choice running is the one this thread armed (exits come from the kernel's own thread).
    w->abort("choice " + w->armed_choice() +
             " ended the process during its benchmark (exit, quick_exit or _exit): that is no result");
}

}  // namespace kiln::tuning
