#include "util/temp_cleanup.hpp"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace kiln {

std::filesystem::path temp_directory() {
    for (const char* var : {"TMPDIR", "TEMP", "TMP"})
        if (const char* v = std::getenv(var); v && *v) return v;
    return "/tmp";
}

bool is_under_temp_directory(const std::filesystem::path& path) {
    std::error_code ec;
    const auto dir = std::filesystem::absolute(temp_directory(), ec).lexically_normal();
    const auto p = std::filesystem::absolute(path, ec).lexically_normal();
    auto d = dir.begin(), q = p.begin();
    for (; d != dir.end(); ++d, ++q) {
        if (d->empty() && std::next(d) == dir.end()) break;  // "/tmp/" ends in an empty component
        if (q == p.end() || *d != *q) return false;
    }
    return true;
}

namespace {

enum SlotState : int { free_slot = 0, writing = 1, armed = 2, removing = 3 };

struct Slot {
    std::atomic<int> state{free_slot};
    char path[PATH_MAX];
};
std::array<Slot, 64> slots;

struct FileSlot {
    std::atomic<int> state{free_slot};
    int dir_fd = -1;  // owned while the slot is taken
    char name[NAME_MAX + 1];
};
std::array<FileSlot, 256> file_slots;

constexpr std::array<int, 3> kSignals = {SIGTERM, SIGINT, SIGHUP};
std::array<struct sigaction, 3> previous{};
static_assert(std::atomic<int>::is_always_lock_free, "the signal handler needs lock-free atomics");

// Removes `name` in `dir_fd` and, for a folder, everything beneath it, with async-signal-safe calls
// only (no opendir: it allocates). Symlinks are removed, never followed. True when it is gone.
bool remove_entry(int dir_fd, const char* name, int depth) {
    if (::unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT) return true;
    if ((errno != EISDIR && errno != EPERM) || depth > 32) return false;
    int fd = ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    alignas(8) char buf[2048];
    // Removing entries while reading the folder may make getdents skip some: read again from the start
    // while a pass removed anything.
    for (bool removed = true; removed;) {
        removed = false;
        if (::lseek(fd, 0, SEEK_SET) != 0) break;
        for (;;) {
            long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n <= 0) break;
            for (long off = 0; off < n;) {
                unsigned short reclen = 0;  // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name
                std::memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char* entry = buf + off + 19;
                const bool dots = entry[0] == '.' && (entry[1] == '\0' || (entry[1] == '.' && entry[2] == '\0'));
                if (!dots && remove_entry(fd, entry, depth + 1)) removed = true;
                if (reclen == 0) break;
                off += reclen;
            }
        }
    }
    ::close(fd);
    return ::unlinkat(dir_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT;
}

void on_signal(int sig, siginfo_t* info, void* context) {
    const int saved_errno = errno;
    for (auto& s : slots) {
        int expected = armed;
        if (s.state.compare_exchange_strong(expected, removing)) remove_entry(AT_FDCWD, s.path, 0);
    }
    for (auto& f : file_slots) {
        int expected = armed;
        if (f.state.compare_exchange_strong(expected, removing)) ::unlinkat(f.dir_fd, f.name, 0);
    }
    std::size_t i = 0;
    while (i < kSignals.size() && kSignals[i] != sig) ++i;
    if (i == kSignals.size()) return;
    const struct sigaction& old = previous[i];
    if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) {
        old.sa_sigaction(sig, info, context);
    } else if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
        old.sa_handler(sig);
    } else {
        // End the process as the signal would have: the default action, delivered once this returns
        // (the signal is blocked while its handler runs).
        ::sigaction(sig, &old, nullptr);
        ::raise(sig);
    }
    errno = saved_errno;
}

void install_handlers() {
    static std::once_flag once;
    std::call_once(once, [] {
        for (std::size_t i = 0; i < kSignals.size(); ++i) {
            struct sigaction old {};
            if (::sigaction(kSignals[i], nullptr, &old) != 0) continue;
            if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;  // nohup: stays ignored
            previous[i] = old;
            struct sigaction sa {};
            sa.sa_sigaction = on_signal;
            sa.sa_flags = SA_SIGINFO | SA_RESTART;
            sigfillset(&sa.sa_mask);  // one cleanup at a time
            ::sigaction(kSignals[i], &sa, nullptr);
        }
    });
}

}  // namespace

TempCleanup::TempCleanup(const std::filesystem::path& dir) {
    std::error_code ec;
    const std::string path = std::filesystem::absolute(dir, ec).string();
    if (ec || path.empty() || path.size() >= PATH_MAX) return;
    install_handlers();
    for (std::size_t i = 0; i < slots.size(); ++i) {
        int expected = free_slot;
        if (!slots[i].state.compare_exchange_strong(expected, writing)) continue;
        std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
        slots[i].state.store(armed);
        slot_ = static_cast<int>(i);
        return;
    }
}

TempCleanup& TempCleanup::operator=(TempCleanup&& o) noexcept {
    if (this != &o) {
        release();
        slot_ = o.slot_;
        o.slot_ = -1;
    }
    return *this;
}

void TempCleanup::release() {
    if (slot_ < 0) return;
    int expected = armed;  // a slot a handler is removing stays taken: the process is ending
    slots[static_cast<std::size_t>(slot_)].state.compare_exchange_strong(expected, free_slot);
    slot_ = -1;
}

TempFileCleanup::TempFileCleanup(int dir_fd, const std::string& name) {
    if (name.empty() || name.size() > NAME_MAX || name.find('/') != std::string::npos) return;
    install_handlers();
    for (std::size_t i = 0; i < file_slots.size(); ++i) {
        int expected = free_slot;
        if (!file_slots[i].state.compare_exchange_strong(expected, writing)) continue;
        // A descriptor of its own: the caller's may be closed first, and a path could be swapped.
        const int fd = ::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            file_slots[i].state.store(free_slot);
            return;
        }
        file_slots[i].dir_fd = fd;
        std::memcpy(file_slots[i].name, name.c_str(), name.size() + 1);
        file_slots[i].state.store(armed);
        slot_ = static_cast<int>(i);
        return;
    }
}

TempFileCleanup& TempFileCleanup::operator=(TempFileCleanup&& o) noexcept {
    if (this != &o) {
        release();
        slot_ = o.slot_;
        o.slot_ = -1;
    }
    return *this;
}

void TempFileCleanup::release() {
    if (slot_ < 0) return;
    auto& s = file_slots[static_cast<std::size_t>(slot_)];
    const int fd = s.dir_fd;  // read before the slot can be taken again
    int expected = armed;     // a slot a handler is removing stays taken: the process is ending
    if (s.state.compare_exchange_strong(expected, free_slot)) ::close(fd);
    slot_ = -1;
}

}  // namespace kiln
