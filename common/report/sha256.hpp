// SHA-256 (FIPS 180-4), for the digest a run file carries. Written out here so the binary needs
// no crypto library on the lab machines.
#pragma once

#include <string>
#include <string_view>

namespace cudalab {

// 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

}  // namespace cudalab
