#pragma once
// A one-way gate between threads: wait() blocks until open() (final) or until the waiter's cancel
// flag rises. Kiln's jobs use it to run after another's read rather than beside it.
#include <atomic>
#include <condition_variable>
#include <mutex>

namespace kiln {

class Gate {
public:
    void open();
    bool is_open() const;
    // Until open() or `cancel` is raised; false when cancelled.
    bool wait(const std::atomic<bool>* cancel) const;

private:
    mutable std::mutex mutex_;
    mutable std::condition_variable opened_;
    bool open_ = false;
};

}  // namespace kiln
