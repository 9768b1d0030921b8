#pragma once
// base64 lives in core/hash (Mega-Cache blobs need it without Redis); the remote code keeps its names.
#include "hash/base64.hpp"

namespace kiln::remote {
using hash::base64_decode;
using hash::base64_encode;
}  // namespace kiln::remote
