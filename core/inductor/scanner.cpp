// One walk with openat/fstatat relative to directory descriptors: no symlink is ever followed
// (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), no path is resolved twice, and the only allocations per file
// are its Artifact's strings.
#include "inductor/scanner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <unordered_map>

#include "inductor/classify.hpp"
#include "inductor/roots.hpp"
#include "util/regular_file.hpp"

namespace kiln::inductor {

namespace {

constexpr int kMaxDepth = 32;  // Inductor's deepest path has 4 levels; deeper trees are not caches

std::int64_t to_ns(const struct timespec& ts) {
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

class Walker {
public:
    Walker(ScanResult& out, const ScanOptions& opt) : out_(out), opt_(opt) {}

    Status run() {
        path_ = out_.root;
        while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
        out_.root = path_;
        rel_offset_ = static_cast<std::uint32_t>(path_.size() + 1);
        // openat(fd, ".") opens the same directory with an offset of its own (a dup would share it).
        int fd = opt_.root_fd >= 0 ? ::openat(opt_.root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                   : ::open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            int err = errno;
            if (err == ENOENT || err == ENOTDIR)
                return make_error(Errc::not_found, "no cache directory here", path_,
                                  "pass the cache root (ROOT or --root) or set TORCHINDUCTOR_CACHE_DIR");
            return io_error("cannot open the cache root", path_, err);
        }
        struct stat st;
        if (::fstat(fd, &st) == 0) {
            out_.root_dev = static_cast<std::uint64_t>(st.st_dev);
            out_.root_ino = static_cast<std::uint64_t>(st.st_ino);
        }
        Status s = walk_dir(fd, 0);
        finish_groups();
        report_progress();
        return s;
    }

private:
    ScanResult& out_;
    const ScanOptions& opt_;
    std::string path_;  // absolute path of the entry being visited
    std::uint32_t rel_offset_ = 0;
    std::uint64_t bytes_ = 0;
    std::unordered_map<std::string, GroupId> group_index_;
    GroupId last_group_ = kNoGroup;
    std::string_view last_group_rel_;
    // best_config files wait for the kernel module of their directory (see classify_code_file).
    std::vector<std::uint32_t> pending_best_configs_;

    std::string_view rel() const {
        return path_.size() > rel_offset_ ? std::string_view(path_).substr(rel_offset_) : std::string_view();
    }

    void note_unreadable(const std::string& what, int err) {
        ++out_.unreadable;
        if (out_.errors.size() < opt_.max_errors) out_.errors.push_back(io_error(what, path_, err));
    }

    bool cancelled() const { return opt_.cancel && opt_.cancel->load(std::memory_order_relaxed); }

    void report_progress() {
        if (!opt_.progress) return;
        ScanProgress p;
        p.files = out_.artifacts.size();
        p.dirs = out_.dirs;
        p.bytes = bytes_;
        p.current_dir = rel();
        opt_.progress(p);
    }

    Status walk_dir(int fd, int depth) {
        DIR* dir = ::fdopendir(fd);
        if (!dir) {
            int err = errno;
            ::close(fd);
            note_unreadable("cannot list directory", err);
            return ok_status();
        }
        ++out_.dirs;
        Status status;
        const std::size_t base_len = path_.size();
        errno = 0;
        while (struct dirent* e = ::readdir(dir)) {
            const char* name = e->d_name;
            if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
            path_.resize(base_len);
            path_ += '/';
            path_ += name;
            status = visit(::dirfd(dir), name, e->d_type, depth);
            if (!status.ok()) break;
            errno = 0;
        }
        if (status.ok() && errno != 0) {
            path_.resize(base_len);
            note_unreadable("cannot read directory", errno);
        }
        path_.resize(base_len);
        ::closedir(dir);
        return status;
    }

    Status visit(int dfd, const char* name, unsigned char d_type, int depth) {
        if (cancelled()) return make_error(Errc::cancelled, "scan cancelled", out_.root);
        struct stat st;
        if (d_type == DT_LNK) {
            ++out_.symlinks;
            return ok_status();
        }
        // Directories need no stat (nothing of theirs is recorded): open them straight away;
        // O_NOFOLLOW keeps a racing swap to a symlink from being followed.
        if (d_type == DT_DIR) return enter_dir(dfd, name, depth);
        if (::fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            note_unreadable("cannot stat", errno);
            return ok_status();
        }
        if (S_ISLNK(st.st_mode)) {
            ++out_.symlinks;
            return ok_status();
        }
        if (S_ISDIR(st.st_mode)) return enter_dir(dfd, name, depth);
        if (!S_ISREG(st.st_mode)) return ok_status();  // sockets, fifos: never part of a cache
        add_file(dfd, name, st);
        if (opt_.progress && opt_.progress_every && out_.artifacts.size() % opt_.progress_every == 0) report_progress();
        return ok_status();
    }

    Status enter_dir(int dfd, const char* name, int depth) {
        if (depth + 1 > kMaxDepth) {
            note_unreadable("directory nesting too deep", ELOOP);
            return ok_status();
        }
        int sub = ::openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) {
            int err = errno;
            if (err == ELOOP) ++out_.symlinks;  // became a symlink since readdir
            else note_unreadable("cannot open directory", err);
            return ok_status();
        }
        return walk_dir(sub, depth + 1);
    }

    void add_file(int dfd, const char* name, const struct stat& st) {
        Classification c = classify_path(rel(), out_.kind);
        if (c.needs_python_sniff)
            c.category = sniff_python(dfd, name) ? Category::output_code : Category::kernel_module;
        Artifact a;
        a.path = path_;
        a.rel_offset = rel_offset_;
        a.category = c.category;
        a.size = static_cast<std::uint64_t>(st.st_size);
        a.mtime_ns = to_ns(st.st_mtim);
        a.atime_ns = to_ns(st.st_atim);
        a.key.assign(c.key);
        a.ino = static_cast<std::uint64_t>(st.st_ino);
        bytes_ += a.size;
        auto index = static_cast<std::uint32_t>(out_.artifacts.size());
        if (c.category == Category::best_config) {
            pending_best_configs_.push_back(index);
        } else {
            std::string_view group_rel = c.group_kind == GroupKind::single_file ? rel() : c.group_rel;
            a.group = group_for(group_rel, c, index, dfd);
        }
        out_.artifacts.push_back(std::move(a));
    }

    bool sniff_python(int dfd, const char* name) {
        if (!opt_.sniff_python) return false;
        // util's open: O_NOATIME where permitted (Kiln's own reads must not make a module look recently
        // used to eviction), never a symlink, and a FIFO named *.py is refused instead of blocking.
        auto file = open_regular_file_at(dfd, name, path_);
        if (!file) {
            ++out_.unreadable;
            if (out_.errors.size() < opt_.max_errors) out_.errors.push_back(std::move(file.error()));
            return false;
        }
        auto head = read_prefix(*file, kPythonSniffBytes, path_);
        if (!head) {
            note_unreadable("cannot read module", EIO);
            return false;
        }
        return python_is_output_code(*head);
    }

    // dfd: the directory of the file being added; a key/kernel dir group made from it records its inode.
    GroupId group_for(std::string_view group_rel, const Classification& c, std::uint32_t index, int dfd = -1) {
        // Files of one group arrive together (one directory, or one module's files in a shard
        // dir): reuse the last group without building a lookup key.
        if (last_group_ != kNoGroup && group_rel == last_group_rel_) {
            out_.groups[last_group_].artifacts.push_back(index);
            return last_group_;
        }
        auto [it, inserted] =
            group_index_.try_emplace(std::string(group_rel), static_cast<GroupId>(out_.groups.size()));
        if (inserted) {
            Group g;
            g.id = it->second;
            g.kind = c.group_kind;
            g.path = out_.root;
            g.path += '/';
            g.path += group_rel;
            g.key.assign(c.key);
            std::string_view r = rel();
            auto slash = r.rfind('/');
            struct stat st;
            if (dfd >= 0 && c.group_kind != GroupKind::module && c.group_kind != GroupKind::single_file &&
                slash != std::string_view::npos && r.substr(0, slash) == group_rel && ::fstat(dfd, &st) == 0)
                g.ino = static_cast<std::uint64_t>(st.st_ino);
            out_.groups.push_back(std::move(g));
        }
        out_.groups[it->second].artifacts.push_back(index);
        last_group_ = it->second;
        last_group_rel_ = it->first;  // the map's node keeps the key alive and in place
        return it->second;
    }

    // A module group's main category is its most telling member: the module, then its sources.
    static int module_rank(Category c) {
        switch (c) {
            case Category::output_code: return 0;
            case Category::kernel_module: return 1;
            case Category::cpp_source: return 2;
            case Category::cuda_source: return 3;
            case Category::cpp_library: return 4;
            default: return 10;
        }
    }

    void finish_groups() {
        // Join each best_config to the only kernel module of its directory, else keep it alone.
        // Keys are copies: group_for() below may grow out_.groups and move the paths.
        std::unordered_map<std::string, std::pair<GroupId, int>> modules_by_dir;
        for (const Group& g : out_.groups) {
            if (g.kind != GroupKind::module) continue;
            bool has_py = false;
            for (auto i : g.artifacts)
                has_py |= out_.artifacts[i].category == Category::kernel_module ||
                          out_.artifacts[i].category == Category::output_code;
            if (!has_py) continue;
            std::string dir = g.path.substr(0, g.path.rfind('/'));
            auto& slot = modules_by_dir.try_emplace(dir, g.id, 0).first->second;
            ++slot.second;
        }
        for (auto index : pending_best_configs_) {
            Artifact& a = out_.artifacts[index];
            auto it = modules_by_dir.find(a.path.substr(0, a.path.rfind('/')));
            if (it != modules_by_dir.end() && it->second.second == 1) {
                a.group = it->second.first;
                out_.groups[a.group].artifacts.push_back(index);
            } else {
                Classification c{Category::best_config, GroupKind::single_file, a.key, {}, false};
                a.group = group_for(a.rel_path(), c, index);
            }
        }
        for (Group& g : out_.groups) {
            int best = 100;
            for (auto i : g.artifacts) {
                const Artifact& a = out_.artifacts[i];
                g.bytes += a.size;
                if (a.last_use_ns() > g.last_use_ns) g.last_use_ns = a.last_use_ns();
                int rank = g.kind == GroupKind::module ? module_rank(a.category) : 0;
                if (rank < best) {
                    best = rank;
                    g.category = a.category;
                }
            }
        }
    }
};

}  // namespace

std::uint64_t ScanResult::total_bytes() const {
    std::uint64_t sum = 0;
    for (const auto& a : artifacts) sum += a.size;
    return sum;
}

Result<ScanResult> scan_cache(const std::filesystem::path& root, const ScanOptions& options) {
    ScanResult out;
    out.root = std::filesystem::absolute(root).lexically_normal().string();
    out.kind = options.kind ? *options.kind : detect_root_kind(out.root).value_or(RootKind::inductor);
    Walker walker(out, options);
    KILN_CHECK(walker.run());
    return out;
}

}  // namespace kiln::inductor
