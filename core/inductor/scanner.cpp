// One walk with openat/fstatat relative to directory descriptors: no symlink is ever followed
// (O_NOFOLLOW, AT_SYMLINK_NOFOLLOW), no path is resolved twice, and no allocation per file: a kept
// file's path is appended to the scan's PathStore, a streamed one views the walker's buffer. The
// heads of .py files are read after the walk, in parallel.
#include "inductor/scanner.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <unordered_map>
#include <vector>

#include "inductor/classify.hpp"
#include "inductor/python_sniff.hpp"
#include "inductor/roots.hpp"
#include "util/rel_path.hpp"
#include "util/unique_fd.hpp"

namespace kiln::inductor {

namespace {

constexpr int kMaxDepth = 32;  // Inductor's deepest path has 4 levels; deeper trees are not caches

std::int64_t to_ns(const struct timespec& ts) {
    return static_cast<std::int64_t>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

bool is_dot_or_dotdot(const char* name) { return name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0)); }

// Whether `part` lies within the bytes of `whole` (addresses compared through std::less_equal:
// ordering pointers into unrelated arrays with <= is unspecified).
bool within(std::string_view part, std::string_view whole) {
    std::less_equal<const char*> le;
    return !part.empty() && le(whole.data(), part.data()) && le(part.data() + part.size(), whole.data() + whole.size());
}

class Walker {
public:
    Walker(ScanResult& out, ScanStorage& storage, const ScanOptions& opt, int root_fd)
        : out_(out), st_(storage), opt_(opt), root_fd_(root_fd) {}

    Status run() {
        path_ = out_.root;
        while (path_.size() > 1 && path_.back() == '/') path_.pop_back();
        out_.root = path_;
        st_.root = path_;
        rel_offset_ = static_cast<std::uint32_t>(path_.size() + 1);
        // openat(fd, ".") opens the same directory with an offset of its own (a dup would share it).
        KILN_TRY(UniqueFd opened, open_root_dir(path_, root_fd_));
        int fd = opened.release();
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
    ScanStorage& st_;
    const ScanOptions& opt_;
    int root_fd_;       // the opened root (not closed here)
    std::string path_;  // absolute path of the entry being visited
    std::uint32_t rel_offset_ = 0;
    // Keyed by the relative part of each group's stored path: no second copy of the paths.
    std::unordered_map<std::string_view, GroupId> group_index_;
    GroupId last_group_ = kNoGroup;
    std::string_view last_group_rel_;
    static constexpr std::uint32_t kNoIndex = 0xffffffffu;
    // best_config files wait for the kernel module of their directory (see classify_code_file);
    // .py files for their heads to be read (sniff_pending). Indices into held().
    std::vector<std::uint32_t> pending_best_configs_;
    std::vector<std::uint32_t> pending_py_;
    std::vector<Artifact> held_;             // streaming only: the pending files themselves
    PathStore held_paths_;                   // streaming only: their paths
    std::vector<std::uint32_t> join_order_;  // kept only: artifact indices as they joined their groups
    std::vector<int> best_rank_;             // per group: module_rank of its category so far
    std::vector<char> has_py_;               // per group: has a .py member

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
        auto visit_named = [&](const char* name, unsigned char d_type) {
            path_.resize(base_len);
            path_ += '/';
            path_ += name;
            return visit(::dirfd(dir), name, d_type, depth);
        };
        if (depth == 0 && opt_.on_graph_dirs && opt_.keep_artifacts && out_.kind == RootKind::inductor) {
            status = walk_root_graphs_first(dir, visit_named);
        } else {
            errno = 0;
            while (struct dirent* e = ::readdir(dir)) {
                const char* name = e->d_name;
                if (is_dot_or_dotdot(name)) continue;
                status = visit_named(name, e->d_type);
                if (!status.ok()) break;
                errno = 0;
            }
            if (status.ok() && errno != 0) {
                path_.resize(base_len);
                note_unreadable("cannot read directory", errno);
            }
        }
        path_.resize(base_len);
        ::closedir(dir);
        return status;
    }

    // The root's names listed first (a root has a few thousand), fxgraph/ and aotautograd/ walked
    // before the others, then on_graph_dirs with the files found in them.
    template <class Visit>
    Status walk_root_graphs_first(DIR* dir, Visit& visit_named) {
        std::vector<std::pair<std::string, unsigned char>> names;
        errno = 0;
        while (struct dirent* e = ::readdir(dir)) {
            const char* name = e->d_name;
            if (is_dot_or_dotdot(name)) continue;
            names.emplace_back(name, e->d_type);
            errno = 0;
        }
        if (errno != 0) note_unreadable("cannot read directory", errno);
        auto graphs = [](const std::string& n) { return n == "fxgraph" || n == "aotautograd"; };
        std::stable_partition(names.begin(), names.end(), [&](const auto& n) { return graphs(n.first); });
        const std::size_t first = out_.artifacts.size();
        bool handed = false;
        for (const auto& [name, type] : names) {
            if (!handed && !graphs(name)) {
                handed = true;
                opt_.on_graph_dirs(std::span<const Artifact>(out_.artifacts).subspan(first));
            }
            KILN_CHECK(visit_named(name.c_str(), type));
        }
        if (!handed) opt_.on_graph_dirs(std::span<const Artifact>(out_.artifacts).subspan(first));
        return ok_status();
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
            if (is_dot_or_dotdot(n)) continue;
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
        const bool sniff = c.needs_python_sniff && opt_.sniff_python;
        const bool waits = sniff || c.category == Category::best_config;
        Artifact a;
        // Kept files, and streamed ones that wait for the end of the walk, need bytes of their own.
        a.set_path(&st_.root, opt_.keep_artifacts ? st_.paths.add(rel()) : waits ? held_paths_.add(rel()) : rel());
        a.category = c.category;
        a.size = static_cast<std::uint64_t>(st.st_size);
        a.mtime_ns = to_ns(st.st_mtim);
        a.atime_ns = to_ns(st.st_atim);
        if (within(c.key, rel())) {  // classify_path's key views rel(): the same place in a.rel_path()
            a.key_offset = static_cast<std::uint16_t>(c.key.data() - rel().data());
            a.key_size = static_cast<std::uint16_t>(c.key.size());
        }
        a.ino = static_cast<std::uint64_t>(st.st_ino);
        ++out_.files;
        out_.bytes += a.size;
        if (c.needs_python_sniff) a.category = Category::kernel_module;  // until its head is read
        if (c.category != Category::best_config) {
            std::string_view group_rel = c.group_kind == GroupKind::single_file ? rel() : c.group_rel;
            a.group = group_for(group_rel, c.key, c.group_kind, rel(),
                                opt_.keep_artifacts ? a.rel_path() : std::string_view(), dfd);
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
            join_order_.push_back(index == kNoIndex ? static_cast<std::uint32_t>(out_.artifacts.size()) : index);
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

    // group_rel and key view `file_rel` (the relative path of the file being added); `kept` is its copy
    // in the scan's store, or empty. dfd: the file's directory; a key/kernel dir group made from it records
    // its inode.
    GroupId group_for(std::string_view group_rel, std::string_view key, GroupKind kind, std::string_view file_rel,
                      std::string_view kept, int dfd = -1) {
        // Files of one group arrive together (one directory, or one module's files in a shard
        // dir): reuse the last group without a lookup.
        if (last_group_ != kNoGroup && group_rel == last_group_rel_) return last_group_;
        if (auto it = group_index_.find(group_rel); it != group_index_.end()) {
            last_group_ = it->second;
            last_group_rel_ = it->first;
            return it->second;
        }
        Group g;
        g.id = static_cast<GroupId>(out_.groups.size());
        g.kind = kind;
        // The group's path is a prefix of its first file's when that file is kept: no bytes of its own.
        g.root = &st_.root;
        if (!kept.empty() && group_rel.data() == file_rel.data()) g.rel = kept.substr(0, group_rel.size());
        else g.rel = st_.paths.add(group_rel);
        const std::string_view stored_rel = g.rel;
        if (within(key, group_rel))
            g.key = stored_rel.substr(static_cast<std::size_t>(key.data() - group_rel.data()), key.size());
        else if (!key.empty()) g.key = st_.paths.add(key);
        auto slash = file_rel.rfind('/');
        struct stat st;
        if (dfd >= 0 && kind != GroupKind::module && kind != GroupKind::single_file &&
            slash != std::string_view::npos && file_rel.substr(0, slash) == group_rel && ::fstat(dfd, &st) == 0)
            g.ino = static_cast<std::uint64_t>(st.st_ino);
        out_.groups.push_back(g);
        best_rank_.push_back(100);
        has_py_.push_back(0);
        group_index_.emplace(stored_rel, g.id);
        last_group_ = g.id;
        last_group_rel_ = stored_rel;
        return g.id;
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
                path_.assign(a.path());
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
        // Keys view the groups' stored paths, which stay in place while out_.groups grows.
        std::unordered_map<std::string_view, std::pair<GroupId, int>> modules_by_dir;
        for (const Group& g : out_.groups) {
            if (g.kind != GroupKind::module || !has_py_[g.id]) continue;
            auto& slot = modules_by_dir.try_emplace(rel_dir(g.rel), g.id, 0).first->second;
            ++slot.second;
        }
        last_group_ = kNoGroup;
        for (auto index : pending_best_configs_) {
            Artifact& a = held(index);
            auto it = modules_by_dir.find(rel_dir(a.rel_path()));
            if (it != modules_by_dir.end() && it->second.second == 1) {
                a.group = it->second.first;
            } else {
                std::string_view kept = opt_.keep_artifacts ? a.rel_path() : std::string_view();
                a.group = group_for(a.rel_path(), a.key(), GroupKind::single_file, a.rel_path(), kept);
            }
            join(a, a.group, index);
            if (opt_.on_artifact) opt_.on_artifact(a);
        }
        if (opt_.keep_artifacts) lay_out_members();
    }

    // The member lists as one array, a run per group in the order its members joined.
    void lay_out_members() {
        std::vector<std::uint32_t>& members = st_.members;
        members.resize(join_order_.size());
        std::vector<std::uint32_t> next(out_.groups.size());
        std::uint32_t offset = 0;
        for (Group& g : out_.groups) {
            next[g.id] = offset;
            g.artifacts = std::span<const std::uint32_t>(members.data() + offset, g.files);
            offset += g.files;
        }
        for (auto index : join_order_) members[next[out_.artifacts[index].group]++] = index;
        join_order_ = {};
    }
};

}  // namespace

Result<ScanResult> scan_cache(const OpenedRoot& root, const ScanOptions& options) {
    ScanResult out;
    out.root = std::filesystem::absolute(root.path).lexically_normal().string();
    if (root.fd < 0)  // a programming error: the caller opens the root (frontend::open_cache)
        return make_error(Errc::invalid_argument, "the cache root was not opened", out.root);
    auto storage = std::make_shared<ScanStorage>();
    KILN_TRY(storage->root_fd, open_root_dir(out.root, root.fd));
    out.kind =
        options.kind ? *options.kind : detect_root_kind(OpenedRoot{root.path, root.fd}).value_or(RootKind::inductor);
    {
        Walker walker(out, *storage, options, root.fd);
        KILN_CHECK(walker.run());
    }
    out.storage = std::move(storage);
    return out;
}

Result<ScanResult> scan_cache(const std::filesystem::path& root, const ScanOptions& options) {
    KILN_TRY(UniqueFd fd, open_root_dir(root));
    return scan_cache(OpenedRoot{root, fd.get()}, options);
}

}  // namespace kiln::inductor
