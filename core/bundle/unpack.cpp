#include "bundle/unpack.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "codecache/atomic_file.hpp"
#include "inductor/evict_fs.hpp"

namespace kiln::bundle {
namespace {

using inductor::evict_fs::Fd;
using inductor::evict_fs::open_dir_beneath;

std::pair<std::string, std::string> split_target(const std::string& target) {
    auto slash = target.rfind('/');
    if (slash == std::string::npos) return {{}, target};
    return {target.substr(0, slash), target.substr(slash + 1)};
}

// What is at `name` in `dir_fd` compared with `content`: absent, same bytes, other bytes, or no file.
enum class Existing { absent, same, different, not_a_file };

Existing compare_existing(int dir_fd, const std::string& name, std::string_view content) {
    int fd = ::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return errno == ENOENT ? Existing::absent : Existing::not_a_file;
    Fd file(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return Existing::not_a_file;
    if (static_cast<std::uint64_t>(st.st_size) != content.size()) return Existing::different;
    char buf[65536];
    std::size_t off = 0;
    while (off < content.size()) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0 || static_cast<std::size_t>(n) > content.size() - off) return Existing::different;
        if (std::memcmp(buf, content.data() + off, static_cast<std::size_t>(n)) != 0) return Existing::different;
        off += static_cast<std::size_t>(n);
    }
    return Existing::same;
}

// The blob's writes in torch's load order (dict of the last group per type, in first-seen type order).
std::vector<const BlobArtifact*> load_order(const Blob& blob) {
    std::vector<const BlobArtifact*> out;
    std::vector<std::string> types;
    for (const auto& g : blob.groups)
        if (std::find(types.begin(), types.end(), g.type) == types.end()) types.push_back(g.type);
    for (const auto& t : types)
        for (const auto& a : blob.artifacts)
            if (!a.ignored_by_torch && blob.groups[a.group].type == t) out.push_back(&a);
    return out;
}

Status refuse_invalid_keys(const Blob& blob) {
    for (const auto& a : blob.artifacts)
        if (!a.key_problem.empty())
            return make_error(Errc::invalid_argument,
                              "refusing to unpack: key '" + a.key + "' (" + std::string(artifact_type_name(a.kind)) + ", byte " +
                                  std::to_string(a.offset) + ") is " + a.key_problem + "; " + std::to_string(blob.invalid_keys()) +
                                  " such key(s)",
                              blob.origin(), "torch would write such keys wherever they point; `bundle ls` lists them");
    return ok_status();
}

std::vector<std::string> skipped_notes(const Blob& blob) {
    std::vector<std::string> notes;
    for (const auto& g : blob.groups)
        if (g.ignored_by_torch)
            notes.push_back("group '" + g.type + "' at byte " + std::to_string(g.offset) + " (" + std::to_string(g.count) +
                            " artifacts) is ignored by torch: a later group has the same type");
    for (const auto& a : blob.artifacts)
        if (a.superseded) notes.push_back("'" + a.key + "' at byte " + std::to_string(a.offset) + " is superseded by a later copy (last wins)");
    for (const auto& t : blob.unknown_types()) notes.push_back("type '" + t + "' skipped: " + std::string(unknown_type_note(t)));
    return notes;
}

}  // namespace

std::string_view unpack_action_name(UnpackAction a) {
    switch (a) {
        case UnpackAction::write: return "write";
        case UnpackAction::same: return "same";
        case UnpackAction::replace: return "replace";
        case UnpackAction::conflict: return "conflict";
    }
    return "write";
}

std::size_t UnpackReport::conflicts() const {
    std::size_t n = 0;
    for (const auto& s : steps) n += s.action == UnpackAction::conflict;
    return n;
}

Result<UnpackReport> unpack_blob(const Blob& blob, const std::string& root, const UnpackOptions& options) {
    KILN_CHECK(refuse_invalid_keys(blob));
    auto unknown = blob.unknown_types();
    if (!unknown.empty() && !options.ignore_unknown)
        return make_error(Errc::unsupported, "type '" + unknown.front() + "': " + std::string(unknown_type_note(unknown.front())),
                          blob.origin(), "--ignore-unknown unpacks the known types anyway");
    UnpackReport report;
    report.root = root;
    report.dry_run = options.dry_run;
    report.notes = skipped_notes(blob);

    std::error_code ec;
    if (!options.dry_run) std::filesystem::create_directories(root, ec);  // the root as named; beneath it nothing is followed
    int rfd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0 && !(options.dry_run && errno == ENOENT)) return io_error("cannot open the cache root", root, errno);
    Fd root_fd(rfd);

    struct Pending {
        UnpackStep step;
        std::string_view content;
    };
    std::vector<Pending> plan;
    auto add = [&](const BlobArtifact& a, std::string target, std::string_view content, bool lock) {
        UnpackStep s{std::move(target), blob.groups[a.group].type, a.key, content.size(), UnpackAction::write, {}, lock};
        if (root_fd.valid()) {
            auto [dir, name] = split_target(s.target);
            auto dfd = open_dir_beneath(root_fd.get(), dir, s.target);
            if (!dfd.ok()) {
                // A missing directory is fine (made on write); a symlink or file in the way is a conflict.
                if (dfd.error().code != Errc::not_found) {
                    s.action = UnpackAction::conflict;
                    s.why = dfd.error().message;
                }
            } else {
                Existing e = lock ? (::faccessat(dfd->get(), name.c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0 ? Existing::same : Existing::absent)
                                  : compare_existing(dfd->get(), name, content);
                if (e == Existing::same) s.action = UnpackAction::same;
                if (e == Existing::different) {
                    s.action = options.force ? UnpackAction::replace : UnpackAction::conflict;
                    s.why = "a file with other bytes is there";
                }
                if (e == Existing::not_a_file) {
                    s.action = UnpackAction::conflict;
                    s.why = "something that is not a regular file (a symlink or directory) is there";
                }
            }
        }
        plan.push_back({std::move(s), content});
    };
    for (const BlobArtifact* a : load_order(blob)) {
        if (!a->effective()) continue;
        add(*a, a->target, a->content, false);
        if (a->kind == ArtifactType::pgo) add(*a, pgo_lock_target(a->key), {}, true);
    }
    for (auto& p : plan) {
        if (p.step.action == UnpackAction::write || p.step.action == UnpackAction::replace) {
            ++report.files_written;
            report.bytes_written += p.step.bytes;
        }
        report.refused |= p.step.action == UnpackAction::conflict;
    }
    if (!options.dry_run && !report.refused) {
        for (auto& p : plan) {
            if (p.step.action != UnpackAction::write && p.step.action != UnpackAction::replace) continue;
            auto [dir, name] = split_target(p.step.target);
            KILN_TRY(Fd dfd, open_dir_beneath(root_fd.get(), dir, p.step.target, true));
            if (p.step.lock_file) {
                // FileLock's file: created empty, never truncated if it appeared meanwhile.
                int fd = ::openat(dfd.get(), name.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
                if (fd < 0) return io_error("cannot create", root + "/" + p.step.target, errno);
                ::close(fd);
            } else {
                KILN_CHECK(codecache::write_atomic_at(dfd.get(), name, p.content, root + "/" + p.step.target));
            }
        }
    }
    for (auto& p : plan) report.steps.push_back(std::move(p.step));
    return report;
}

}  // namespace kiln::bundle
