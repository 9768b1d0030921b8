#pragma once
// What a background job shares with the UI: a cancel flag the work polls in its loops, and
// progress counters the UI samples on a timer (so progress costs the worker two relaxed stores
// and never floods the event loop).
#include <atomic>
#include <cstdint>

namespace kiln::ui {

class JobControl {
public:
    bool cancelled() const { return cancel_.load(std::memory_order_relaxed); }
    void requestCancel() { cancel_.store(true, std::memory_order_relaxed); }
    // The flag core APIs take (`std::atomic<bool>*`) to stop early.
    std::atomic<bool>* cancelFlag() { return &cancel_; }

    void setProgress(std::int64_t done, std::int64_t total) {
        total_.store(total, std::memory_order_relaxed);
        done_.store(done, std::memory_order_relaxed);
    }
    std::int64_t done() const { return done_.load(std::memory_order_relaxed); }
    std::int64_t total() const { return total_.load(std::memory_order_relaxed); }

private:
    std::atomic<bool> cancel_{false};
    std::atomic<std::int64_t> done_{0};
    std::atomic<std::int64_t> total_{0};
};

}  // namespace kiln::ui
