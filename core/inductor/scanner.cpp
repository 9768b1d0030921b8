// One walk with openat/fstatat relative to directory descriptors: no symlink is ever followed
// (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), no path is resolved twice, and the only allocations per file
// are its Artifact's strings. The heads of .py files are read after the walk, in parallel.
#include "inductor/scanner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <unordered_map>

#include "inductor/classify.hpp"
#include "inductor/python_sniff.hpp"
#include "inductor/roots.hpp"
#include "util/unique_fd.hpp"

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
        // The sniff reads beneath the same directory after the walk has closed its descriptor.
        UniqueFd sniff_root(::openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        Status s = walk_dir(fd, 0);
        if (s.ok() && !pending_py_.empty()) sniff_pending(sniff_root.get());
        if (s.ok() && cancelled()) s = make_error(Errc::cancelled, "scan cancelled", out_.root);
        finish_groups();
        report_progress();
        return s;
    }

private:
    ScanResult& out_;
    const ScanOptions& opt_;
    std::string path_;  // absolute path of the entry being visited
    std::uint32_t rel_offset_ = 0;
    std::unordered_map<std::string, GroupId> group_index_;
    GroupId last_group_ = kNoGroup;
    std::string_view last_group_rel_;
    static constexpr std::uint32_t kNoIndex = 0xffffffffu;
    // best_config files wait for the kernel module of their directory (see classify_code_file);
    // .py files for their heads to be read (sniff_pending). Indices into held().
    std::vector<std::uint32_t> pending_best_configs_;
    std::vector<std::uint32_t> pending_py_;
    std::vector<Artifact> held_;  // streaming only: the pending files themselves
    std::vector<int> best_rank_;  // per group: module_rank of its category so far
    std::vector<char> has_py_;    // per group: has a .py member

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
        p.files = out_.files;
        p.dirs = out_.dirs;
        p.bytes = out_.bytes;
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
        if (depth == 0 && name == kQuarantineDirName) {
            count_quarantine(dfd, name);
            return ok_status();
        }
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
        add_file(dfd, st);
        if (opt_.progress && opt_.progress_every && out_.files % opt_.progress_every == 0) report_progress();
        return ok_status();
    }

    // Sizes only, never symlinks, at most kMaxDepth levels.
    void count_quarantine(int dfd, const char* name, int depth = 0) {
        int fd = ::openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return;  // a file of that name, or gone: nothing quarantined
        DIR* dir = ::fdopendir(fd);
        if (!dir) {
            ::close(fd);
            return;
        }
        while (struct dirent* e = ::readdir(dir)) {
            const char* n = e->d_name;
            if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0))) continue;
            struct stat st;
            if (::fstatat(::dirfd(dir), n, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
            if (S_ISDIR(st.st_mode) && depth + 1 < kMaxDepth) {
                count_quarantine(::dirfd(dir), n, depth + 1);
            } else if (S_ISREG(st.st_mode)) {
                ++out_.quarantine_files;
                out_.quarantine_bytes += static_cast<std::uint64_t>(st.st_size);
            }
        }
        ::closedir(dir);
        return;
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

    void add_file(int dfd, const struct stat& st) {
        Classification c = classify_path(rel(), out_.kind);
        Artifact a;
        a.path = path_;
        a.rel_offset = rel_offset_;
        a.category = c.category;
        a.size = static_cast<std::uint64_t>(st.st_size);
        a.mtime_ns = to_ns(st.st_mtim);
        a.atime_ns = to_ns(st.st_atim);
        a.key.assign(c.key);
        a.ino = static_cast<std::uint64_t>(st.st_ino);
        ++out_.files;
        out_.bytes += a.size;
        const bool sniff = c.needs_python_sniff && opt_.sniff_python;
        if (c.needs_python_sniff) a.category = Category::kernel_module;  // until its head is read
        if (c.category != Category::best_config) {
            std::string_view group_rel = c.group_kind == GroupKind::single_file ? rel() : c.group_rel;
            a.group = group_for(group_rel, c, dfd);
        }
        if (sniff) {
            pending_py_.push_back(hold(std::move(a)));
        } else if (c.category == Category::best_config) {
            pending_best_configs_.push_back(hold(std::move(a)));
        } else {
            join(a, a.group);
            emit(std::move(a));
        }
    }

    // Files whose category or group waits for the end of the walk: kept in place (an index into
    // out_.artifacts) or, when streaming, held here until then.
    std::uint32_t hold(Artifact&& a) {
        if (opt_.keep_artifacts) {
            out_.artifacts.push_back(std::move(a));
            return static_cast<std::uint32_t>(out_.artifacts.size() - 1);
        }
        held_.push_back(std::move(a));
        return static_cast<std::uint32_t>(held_.size() - 1);
    }
    Artifact& held(std::uint32_t i) { return opt_.keep_artifacts ? out_.artifacts[i] : held_[i]; }

    // A final artifact: kept, streamed, or both.
    void emit(Artifact&& a) {
        if (opt_.on_artifact) opt_.on_artifact(a);
        if (opt_.keep_artifacts) out_.artifacts.push_back(std::move(a));
    }

    // Adds a member to its group's totals; `index` is its place in out_.artifacts when kept.
    void join(const Artifact& a, GroupId id, std::uint32_t index = kNoIndex) {
        Group& g = out_.groups[id];
        if (opt_.keep_artifacts)
            g.artifacts.push_back(index == kNoIndex ? static_cast<std::uint32_t>(out_.artifacts.size()) : index);
        ++g.files;
        g.bytes += a.size;
        if (a.last_use_ns() > g.last_use_ns) g.last_use_ns = a.last_use_ns();
        int rank = g.kind == GroupKind::module ? module_rank(a.category) : 0;
        if (rank < best_rank_[id]) {
            best_rank_[id] = rank;
            g.category = a.category;
        }
        if (a.category == Category::kernel_module || a.category == Category::output_code) has_py_[id] = 1;
    }

    // dfd: the directory of the file being added; a key/kernel dir group made from it records its inode.
    GroupId group_for(std::string_view group_rel, const Classification& c, int dfd = -1) {
        // Files of one group arrive together (one directory, or one module's files in a shard
        // dir): reuse the last group without building a lookup key.
        if (last_group_ != kNoGroup && group_rel == last_group_rel_) return last_group_;
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
            best_rank_.push_back(100);
            has_py_.push_back(0);
        }
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

    // Reads the heads of the .py files found by the walk, in parallel, and settles their category.
    void sniff_pending(int root_fd) {
        std::vector<std::string_view> rels;
        rels.reserve(pending_py_.size());
        for (auto i : pending_py_) rels.push_back(held(i).rel_path());
        auto outcomes = sniff_python_heads(root_fd, rels, opt_.sniff_threads, opt_.cancel);
        for (std::size_t k = 0; k < pending_py_.size(); ++k) {
            Artifact& a = held(pending_py_[k]);
            if (outcomes[k].err) {
                path_ = a.path;
                note_unreadable("cannot read module", outcomes[k].err);
            }
            a.category = outcomes[k].output_code ? Category::output_code : Category::kernel_module;
            join(a, a.group, pending_py_[k]);
            if (opt_.on_artifact) opt_.on_artifact(a);
        }
        path_ = out_.root;
    }

    void finish_groups() {
        // Join each best_config to the only kernel module of its directory, else keep it alone.
        // Keys are copies: group_for() below may grow out_.groups and move the paths.
        std::unordered_map<std::string, std::pair<GroupId, int>> modules_by_dir;
        for (const Group& g : out_.groups) {
            if (g.kind != GroupKind::module || !has_py_[g.id]) continue;
            std::string dir = g.path.substr(0, g.path.rfind('/'));
            auto& slot = modules_by_dir.try_emplace(dir, g.id, 0).first->second;
            ++slot.second;
        }
        last_group_ = kNoGroup;
        for (auto index : pending_best_configs_) {
            Artifact& a = held(index);
            auto it = modules_by_dir.find(a.path.substr(0, a.path.rfind('/')));
            if (it != modules_by_dir.end() && it->second.second == 1) {
                a.group = it->second.first;
            } else {
                Classification c{Category::best_config, GroupKind::single_file, a.key, {}, false};
                a.group = group_for(a.rel_path(), c);
            }
            join(a, a.group, index);
            if (opt_.on_artifact) opt_.on_artifact(a);
        }
    }
};

}  // namespace

Result<ScanResult> scan_cache(const std::filesystem::path& root, const ScanOptions& options) {
    ScanResult out;
    out.root = std::filesystem::absolute(root).lexically_normal().string();
    out.kind = options.kind ? *options.kind : detect_root_kind(out.root).value_or(RootKind::inductor);
    Walker walker(out, options);
    KILN_CHECK(walker.run());
    return out;
}

}  // namespace kiln::inductor
