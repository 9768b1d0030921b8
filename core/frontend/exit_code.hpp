#pragma once
// kiln-cli's exit status, HACKING.md's rule in one place: 0 ok, 1 the work failed, 2 bad input or
// usage. Bad input is what the user named and can fix on the command line: an argument that is
// malformed or out of range (invalid_argument), unsupported (unsupported), or a path, key, symbol or
// event that does not exist (not_found). Everything that goes wrong while the work runs exits 1:
// I/O, a cache file that does not decode (parse, limit), a compiler, worker or server that fails
// (external, timeout), a tool or driver that is missing (unavailable).
#include "util/result.hpp"

namespace kiln::frontend {

int exit_code(const Error& e);

// The same error, as bad input: for text the user typed that a parser rejected (an expression
// given with --expr, a tuning spec), whose parse errors would otherwise exit 1.
Error as_bad_input(Error e);

}  // namespace kiln::frontend
