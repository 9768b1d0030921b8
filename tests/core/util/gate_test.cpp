// The gate a job waits at until another's work is in (the "used by graph" marks after the first
// screen; the check's entries after the window's read of them).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "util/gate.hpp"

namespace {

using kiln::Gate;

TEST(Gate, AWaiterGoesOnOnlyOnceTheGateOpens) {
    Gate gate;
    std::atomic<bool> through{false};
    std::thread waiter([&] {
        EXPECT_TRUE(gate.wait(nullptr));
        through = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(120));
    EXPECT_FALSE(through.load());
    EXPECT_FALSE(gate.is_open());
    gate.open();
    waiter.join();
    EXPECT_TRUE(through.load());
    EXPECT_TRUE(gate.is_open());
    EXPECT_TRUE(gate.wait(nullptr));  // open for good
}

TEST(Gate, ACancelEndsTheWaitWithFalse) {
    Gate gate;
    std::atomic<bool> cancel{false};
    std::atomic<int> result{-1};
    std::thread waiter([&] { result = gate.wait(&cancel) ? 1 : 0; });
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    cancel = true;
    waiter.join();
    EXPECT_EQ(result.load(), 0);
    EXPECT_FALSE(gate.is_open());
    // Cancelled before it opened, a wait still says so.
    gate.open();
    EXPECT_FALSE(gate.wait(&cancel));
}

}  // namespace
