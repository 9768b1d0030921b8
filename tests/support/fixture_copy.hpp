#pragma once
// Copies of the fixtures for tests that change a cache (the fixtures themselves are never modified).
#include <filesystem>

#include "test_support.hpp"

namespace kiln::test {

// A copy of the H100 fixture's cache at d/root; returns d/root.
std::filesystem::path copy_h100(const ScratchDir& d);

}  // namespace kiln::test
