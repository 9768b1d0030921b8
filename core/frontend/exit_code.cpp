#include "frontend/exit_code.hpp"

namespace kiln::frontend {

int exit_code(const Error& e) {
    switch (e.code) {
        case Errc::invalid_argument:
        case Errc::unsupported:
        case Errc::not_found: return 2;
        default: return 1;
    }
}

Error as_bad_input(Error e) {
    if (exit_code(e) != 2) e.code = Errc::invalid_argument;
    return e;
}

}  // namespace kiln::frontend
