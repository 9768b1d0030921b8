#include "util/gate.hpp"

#include <chrono>

namespace kiln {

void Gate::open() {
    {
        const std::lock_guard lock(mutex_);
        open_ = true;
    }
    opened_.notify_all();
}

bool Gate::is_open() const {
    const std::lock_guard lock(mutex_);
    return open_;
}

bool Gate::wait(const std::atomic<bool>* cancel) const {
    std::unique_lock lock(mutex_);
    // The cancel flag is a plain atomic (no one notifies this wait): looked at every 50 ms.
    while (!open_) {
        if (cancel && cancel->load()) return false;
        opened_.wait_for(lock, std::chrono::milliseconds(50));
    }
    return !(cancel && cancel->load());
}

}  // namespace kiln
