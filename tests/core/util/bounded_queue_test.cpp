// The queue between the check walk and its workers, and between the Redis fetcher and the browser.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "util/bounded_queue.hpp"

namespace {

using kiln::BoundedQueue;

TEST(BoundedQueue, DeliversEveryItemInOrderAcrossThreads) {
    BoundedQueue<int> q(4);
    std::thread producer([&] {
        for (int i = 0; i < 10000; ++i) ASSERT_TRUE(q.push(i));
        q.close();
    });
    std::vector<int> got;
    while (auto v = q.pop()) got.push_back(*v);
    producer.join();
    ASSERT_EQ(got.size(), 10000u);
    for (int i = 0; i < 10000; ++i) ASSERT_EQ(got[static_cast<std::size_t>(i)], i);
}

TEST(BoundedQueue, AFullQueueHoldsTheProducerUntilAnItemIsTaken) {
    BoundedQueue<int> q(2);
    ASSERT_TRUE(q.push(1));
    ASSERT_TRUE(q.push(2));
    std::atomic<bool> third{false};
    std::thread producer([&] {
        q.push(3);
        third = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(third.load());  // still waiting for room
    EXPECT_EQ(q.pop(), 1);
    producer.join();
    EXPECT_TRUE(third.load());
    EXPECT_EQ(q.pop(), 2);
    EXPECT_EQ(q.pop(), 3);
}

TEST(BoundedQueue, CloseDrainsForConsumersAndReleasesAWaitingProducer) {
    BoundedQueue<int> q(1);
    ASSERT_TRUE(q.push(7));
    std::atomic<int> pushed{-1};
    std::thread producer([&] { pushed = q.push(8) ? 1 : 0; });  // waits: the queue is full
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    q.close();
    producer.join();
    EXPECT_EQ(pushed.load(), 0);  // dropped: the consumer gave up
    EXPECT_TRUE(q.closed());
    EXPECT_EQ(q.pop(), 7);  // what was queued is still delivered
    EXPECT_EQ(q.pop(), std::nullopt);
    EXPECT_FALSE(q.push(9));
}

}  // namespace
