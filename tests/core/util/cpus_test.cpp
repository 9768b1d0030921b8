#include "util/cpus.hpp"

#include <sched.h>

#include <gtest/gtest.h>

using kiln::cpus_of_quota;

TEST(CpusOfQuota, QuotaOverPeriodRoundedUp) {
    EXPECT_EQ(cpus_of_quota("200000 100000"), 2u);
    EXPECT_EQ(cpus_of_quota("200000 100000\n"), 2u);  // as the file reads
    EXPECT_EQ(cpus_of_quota("150000 100000"), 2u);    // 1.5 CPUs: both may run
    EXPECT_EQ(cpus_of_quota("50000 100000"), 1u);
    EXPECT_EQ(cpus_of_quota("1600000 100000"), 16u);
}

TEST(CpusOfQuota, NoLimitOrNotALine) {
    EXPECT_EQ(cpus_of_quota("max 100000"), 0u);
    EXPECT_EQ(cpus_of_quota("max"), 0u);
    EXPECT_EQ(cpus_of_quota(""), 0u);
    EXPECT_EQ(cpus_of_quota("0 100000"), 0u);
    EXPECT_EQ(cpus_of_quota("100000 0"), 0u);
    EXPECT_EQ(cpus_of_quota("12x 100000"), 0u);
    EXPECT_EQ(cpus_of_quota("-1 100000"), 0u);
}

TEST(UsableCpus, NeverMoreThanTheAffinityMask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
    const unsigned n = kiln::usable_cpus();
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, static_cast<unsigned>(CPU_COUNT(&set)));
}
