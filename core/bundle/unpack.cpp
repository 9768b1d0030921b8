#include "bundle/unpack.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "inductor/evict_fs.hpp"
#include "util/atomic_file.hpp"
#include "util/utf8.hpp"

namespace kiln::bundle {
namespace {

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
    UniqueFd file(fd);
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

// What is at a lock file's name: absent, a regular file (any content: FileLock's file is empty but
// whatever is there serves), or something else (a FIFO, a symlink, a directory).
Existing lock_existing(int dir_fd, const std::string& name) {
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? Existing::absent : Existing::not_a_file;
    return S_ISREG(st.st_mode) ? Existing::same : Existing::not_a_file;
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
                              "refusing to unpack: key '" + printable_name(a.key) + "' (" +
                                  std::string(artifact_type_name(a.kind)) + ", byte " + std::to_string(a.offset) +
                                  ") is " + a.key_problem + "; " + std::to_string(blob.invalid_keys()) + " such key(s)",
                              blob.origin(), "torch would write such keys wherever they point; `bundle ls` lists them");
    return ok_status();
}

std::vector<std::string> skipped_notes(const Blob& blob) {
    std::vector<std::string> notes;
    for (const auto& g : blob.groups)
        if (g.ignored_by_torch)
            notes.push_back("group '" + printable_name(g.type) + "' at byte " + std::to_string(g.offset) + " (" +
                            std::to_string(g.count) +
                            " artifacts) is ignored by torch: a later group has the same type");
    for (const auto& a : blob.artifacts)
        if (a.superseded)
            notes.push_back("'" + printable_name(a.key) + "' at byte " + std::to_string(a.offset) +
                            " is superseded by a later copy (last wins)");
    for (const auto& t : blob.unknown_types())
        notes.push_back("type '" + printable_name(t) + "' skipped: " + std::string(unknown_type_note(t)));
    return notes;
}

struct Pending {
    UnpackStep step;
    std::string_view content;
};

// What writing `step.target` would do, looked at through the root's descriptor (-1: no root yet).
Pending plan_step(int root_fd, UnpackStep step, std::string_view content, bool force) {
    if (root_fd >= 0) {
        auto [dir, name] = split_target(step.target);
        auto dfd = open_dir_beneath(root_fd, dir, step.target);
        Existing e = Existing::absent;
        if (dfd.ok())
            e = step.lock_file ? lock_existing(dfd->get(), name) : compare_existing(dfd->get(), name, content);
        else if (dfd.error().code != Errc::not_found)  // a symlink or a file where a directory goes
            e = Existing::not_a_file;
        if (e == Existing::same) step.action = UnpackAction::same;
        if (e == Existing::different) {
            step.action = force ? UnpackAction::replace : UnpackAction::conflict;
            step.why = "a file with other bytes is there";
        }
        if (e == Existing::not_a_file) {
            step.action = UnpackAction::conflict;
            step.why = dfd.ok() ? "something that is not a regular file (a symlink, a directory) is there"
                                : dfd.error().message;
        }
    }
    return {std::move(step), content};
}

Status apply_step(int root_fd, const std::string& root, const Pending& p) {
    if (p.step.action != UnpackAction::write && p.step.action != UnpackAction::replace) return ok_status();
    auto [dir, name] = split_target(p.step.target);
    const std::string context = root + "/" + p.step.target;
    KILN_TRY(UniqueFd dfd, open_dir_beneath(root_fd, dir, context, true));
    if (p.step.lock_file) {
        // FileLock's file: created empty, never truncated if it appeared meanwhile. Non-blocking: a FIFO
        // planted there since the plan must not hold unpack forever (opening a FIFO for writing with no
        // reader fails with ENXIO instead), and anything but a regular file is refused.
        int fd = ::openat(dfd.get(), name.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
        if (fd < 0) return io_error("create the lock file", context, errno);
        UniqueFd lock(fd);
        struct stat st {};
        if (::fstat(fd, &st) != 0) return io_error("stat the lock file", context, errno);
        if (!S_ISREG(st.st_mode))
            return make_error(Errc::invalid_argument, "the lock file's name holds something that is not a regular file",
                              context, "remove it (a FIFO or device there is not torch's FileLock file)");
        return ok_status();
    }
    // A file that appeared since the plan is not replaced unless --force asked for replacing.
    return write_atomic_at(dfd.get(), name, p.content, context, p.step.action == UnpackAction::replace);
}

// Writes the files of a scratch root (UnpackOptions::scratch_root), each directory opened once for the
// run of files that goes into it (a blob's artifacts of one type come together: 200,000 PGO profiles
// all go to dynamo/).
class ScratchWriter {
public:
    ScratchWriter(int root_fd, const std::string& root) : root_fd_(root_fd), root_(root) {}
    Status write(const Pending& p) {
        if (p.step.action != UnpackAction::write) return ok_status();
        auto [dir, name] = split_target(p.step.target);
        const std::string context = root_ + "/" + p.step.target;
        if (!dir_fd_.valid() || dir != dir_) {
            dir_fd_.reset();
            KILN_TRY(dir_fd_, open_dir_beneath(root_fd_, dir, context, true));
            dir_ = dir;
        }
        return write_new_at(dir_fd_.get(), name, p.step.lock_file ? std::string_view() : p.content, context);
    }

private:
    int root_fd_;
    const std::string& root_;
    std::string dir_;
    UniqueFd dir_fd_;
};

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
        return make_error(
            Errc::unsupported,
            "type '" + printable_name(unknown.front()) + "': " + std::string(unknown_type_note(unknown.front())),
            blob.origin(), "--ignore-unknown unpacks the known types anyway");
    UnpackReport report;
    report.root = root;
    report.dry_run = options.dry_run;
    report.notes = skipped_notes(blob);

    std::error_code ec;
    if (!options.dry_run)
        std::filesystem::create_directories(root, ec);  // the root as named; beneath it nothing is followed
    int rfd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0 && !(options.dry_run && errno == ENOENT)) return io_error("cannot open the cache root", root, errno);
    UniqueFd root_fd(rfd);

    std::vector<Pending> plan;
    const int compare_fd = options.scratch_root ? -1 : root_fd.get();  // a new root holds nothing yet
    for (const BlobArtifact* a : load_order(blob)) {
        if (!a->effective()) continue;
        const std::string& type = blob.groups[a->group].type;
        plan.push_back(plan_step(compare_fd, {a->target, type, a->key, a->content.size()}, a->content, options.force));
        if (a->kind == ArtifactType::pgo)
            plan.push_back(plan_step(compare_fd,
                                     {pgo_lock_target(a->key), type, a->key, 0, UnpackAction::write, {}, true}, {},
                                     options.force));
    }
    for (const auto& p : plan) {
        bool writes = p.step.action == UnpackAction::write || p.step.action == UnpackAction::replace;
        report.files_written += writes;
        report.bytes_written += writes ? p.step.bytes : 0;
        report.refused |= p.step.action == UnpackAction::conflict;
    }
    if (!options.dry_run && !report.refused && options.scratch_root) {
        ScratchWriter writer(root_fd.get(), root);
        for (const auto& p : plan) KILN_CHECK(writer.write(p));
    } else if (!options.dry_run && !report.refused) {
        for (const auto& p : plan) KILN_CHECK(apply_step(root_fd.get(), root, p));
    }
    for (auto& p : plan) report.steps.push_back(std::move(p.step));
    return report;
}

}  // namespace kiln::bundle
