#pragma once
// A bounded queue between threads: producers wait while it is full, consumers while it is empty.
// close() ends it: push() then drops its item and returns false (a consumer gave up), pop() still
// drains what is queued and returns nullopt once nothing is left (the producer is done).
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace kiln {

template <class T>
class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity) : capacity_(capacity ? capacity : 1) {}

    bool push(T item) {
        std::unique_lock lock(mu_);
        room_.wait(lock, [&] { return items_.size() < capacity_ || closed_; });
        if (closed_) return false;
        items_.push_back(std::move(item));
        lock.unlock();
        ready_.notify_one();
        return true;
    }

    std::optional<T> pop() {
        std::unique_lock lock(mu_);
        ready_.wait(lock, [&] { return !items_.empty() || closed_; });
        if (items_.empty()) return std::nullopt;
        std::optional<T> item(std::move(items_.front()));
        items_.pop_front();
        lock.unlock();
        room_.notify_one();
        return item;
    }

    void close() {
        {
            std::lock_guard lock(mu_);
            closed_ = true;
        }
        ready_.notify_all();
        room_.notify_all();
    }

    bool closed() const {
        std::lock_guard lock(mu_);
        return closed_;
    }

private:
    const std::size_t capacity_;
    mutable std::mutex mu_;
    std::condition_variable ready_, room_;
    std::deque<T> items_;
    bool closed_ = false;
};

}  // namespace kiln
