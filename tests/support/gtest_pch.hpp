// The precompiled header of the GoogleTest targets (cmake/KilnPch.cmake): third-party and std headers
// only, each one that many test files include. Every test file still includes what it uses.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
