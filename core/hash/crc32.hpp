#pragma once
// CRC-32 as zlib computes it (CRC-32/ISO-HDLC: reflected polynomial 0xEDB88320, initial value and
// final xor 0xFFFFFFFF), the checksum of torch's Mega-Cache blobs (`zlib.crc32(blob[4:])`).
// Table-driven, eight bytes a step (slicing-by-8); no dependency.
#include <cstdint>
#include <string_view>

namespace kiln::hash {

// `previous` continues a running checksum: crc32(b, crc32(a)) == crc32(a + b), like zlib.crc32(b, crc).
std::uint32_t crc32(std::string_view bytes, std::uint32_t previous = 0);

}  // namespace kiln::hash
