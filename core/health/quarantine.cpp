#include "health/quarantine.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <map>

#include "inductor/evict.hpp"
#include "inductor/evict_fs.hpp"
#include "inductor/roots.hpp"
#include "inductor/scanner.hpp"
#include "util/atomic_file.hpp"
#include "util/regular_file.hpp"
#include "util/utc_time.hpp"

namespace kiln::health {

namespace fs = std::filesystem;
using inductor::evict_fs::open_dir_beneath;

namespace {

constexpr const char* kManifest = "manifest.json";
constexpr std::string_view kFiles = "files";  // moved items live under <id>/files/<their relative path>

std::pair<std::string, std::string> split_parent(std::string_view rel) {
    auto slash = rel.rfind('/');
    if (slash == std::string_view::npos) return {{}, std::string(rel)};
    return {std::string(rel.substr(0, slash)), std::string(rel.substr(slash + 1))};
}

std::string join(std::string_view a, std::string_view b) {
    return a.empty() ? std::string(b) : std::string(a) + "/" + std::string(b);
}

// rename without replacing what is at the destination (a file Inductor wrote back meanwhile).
Status move_no_replace(int from_dir, const std::string& from_name, int to_dir, const std::string& to_name,
                       const std::string& context) {
    if (::renameat2(from_dir, from_name.c_str(), to_dir, to_name.c_str(), RENAME_NOREPLACE) == 0) return ok_status();
    if (errno == EEXIST)
        return make_error(Errc::busy, "already exists at the destination; left where it is", context,
                          "remove one of the two copies, then run again");
    if (errno != EINVAL && errno != ENOSYS) return io_error("cannot move", context, errno);
    struct stat st;  // a file system without RENAME_NOREPLACE: check, then rename
    if (::fstatat(to_dir, to_name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
        return make_error(Errc::busy, "already exists at the destination; left where it is", context);
    if (::renameat(from_dir, from_name.c_str(), to_dir, to_name.c_str()) != 0)
        return io_error("cannot move", context, errno);
    return ok_status();
}

// Moves `rel` from beneath `from_fd` to the same relative path beneath `to_fd` (parents made there),
// if it still is what the scan saw (`ino`, 0: not checked) and of the expected type.
Status move_item(int from_fd, int to_fd, const std::string& rel, bool dir, std::uint64_t ino,
                 std::string_view from_prefix, std::string_view to_prefix) {
    auto [parent, name] = split_parent(rel);
    KILN_TRY(UniqueFd src, open_dir_beneath(from_fd, join(from_prefix, parent), rel));
    KILN_TRY(UniqueFd dst, open_dir_beneath(to_fd, join(to_prefix, parent), rel, true));
    struct stat st;
    if (::fstatat(src.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return io_error("cannot stat", rel, errno);
    if ((dir && !S_ISDIR(st.st_mode)) || (!dir && S_ISDIR(st.st_mode)) ||
        (ino && static_cast<std::uint64_t>(st.st_ino) != ino))
        return make_error(Errc::busy, "changed since the scan (replaced or moved); left alone", rel);
    return move_no_replace(src.get(), name, dst.get(), name, rel);
}

bool valid_id(std::string_view id) {
    if (id.empty() || id.size() > 64 || id[0] == '.') return false;
    for (char c : id)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_')) return false;
    return true;
}

Result<UniqueFd> open_root(const fs::path& root_arg, fs::path& root) {
    KILN_TRY(root, inductor::resolve_root(root_arg.string()));
    int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return io_error("cannot open the cache root", root.string(), errno);
    return UniqueFd(fd);
}

// A fresh <root>/.kiln-quarantine/<id>/ with id from the time and the pid.
Result<std::pair<std::string, UniqueFd>> make_quarantine_dir(int root_fd) {
    KILN_TRY(UniqueFd q, open_dir_beneath(root_fd, inductor::kQuarantineDirName, "quarantine folder", true));
    std::string base = utc_now(UtcFormat::compact) + "-" + std::to_string(::getpid());
    for (int n = 0; n < 100; ++n) {
        std::string id = n ? base + "-" + std::to_string(n) : base;
        if (::mkdirat(q.get(), id.c_str(), 0700) == 0) {
            KILN_TRY(UniqueFd dir, open_dir_beneath(q.get(), id, id));
            return std::pair{id, std::move(dir)};
        }
        if (errno != EEXIST) return io_error("cannot make the quarantine folder", id, errno);
    }
    return make_error(Errc::busy, "no free quarantine id", base);
}

// Removes <root>/.kiln-quarantine/<id> when it holds nothing but empty folders (rmdir only: a file in
// it, should one have arrived, keeps it).
void remove_empty_quarantine(int root_fd, const std::string& id) {
    auto q = open_dir_beneath(root_fd, inductor::kQuarantineDirName, "quarantine folder");
    if (!q) return;
    std::function<bool(int, const std::string&, int)> rmdir_tree = [&](int parent, const std::string& name, int depth) {
        int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) return false;
        DIR* d = ::fdopendir(fd);
        if (!d) {
            ::close(fd);
            return false;
        }
        std::vector<std::string> subdirs;
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            if (n != "." && n != "..") subdirs.push_back(std::move(n));
        }
        bool ok = depth < 16;
        for (const auto& s : subdirs) ok = ok && rmdir_tree(::dirfd(d), s, depth + 1);
        ::closedir(d);
        return ok && ::unlinkat(parent, name.c_str(), AT_REMOVEDIR) == 0;
    };
    (void)rmdir_tree(q->get(), id, 0);
}

Status write_manifest(int dir_fd, const QuarantineManifest& m) {
    return write_atomic_at(dir_fd, kManifest, to_json(m).dump(2) + "\n", m.id + "/" + kManifest);
}

Result<UniqueFd> open_quarantine(int root_fd, const std::string& id) {
    if (!valid_id(id))
        return make_error(Errc::invalid_argument, "not a quarantine id", id,
                          "`kiln-cli check --list-quarantine` names them");
    auto dir = open_dir_beneath(root_fd, std::string(inductor::kQuarantineDirName) + "/" + id, id);
    if (dir) return dir;
    if (dir.error().code == Errc::not_found)
        return make_error(Errc::not_found, "no such quarantine", id, "`kiln-cli check --list-quarantine`");
    if (dir.error().code == Errc::invalid_argument)  // ELOOP / ENOTDIR: never followed
        return make_error(Errc::invalid_argument,
                          "the quarantine (or .kiln-quarantine) is a symbolic link or not a directory: refused", id,
                          "Kiln follows no link inside a cache; a quarantine it made is a plain folder");
    return std::move(dir.error());
}

Result<QuarantineManifest> read_manifest(int dir_fd, const std::string& id);

}  // namespace

nlohmann::ordered_json to_json(const QuarantineManifest& m) {
    nlohmann::ordered_json groups = nlohmann::ordered_json::array();
    for (const auto& g : m.groups) {
        nlohmann::ordered_json items = nlohmann::ordered_json::array();
        for (const auto& i : g.items) items.push_back({{"path", i.path}, {"dir", i.dir}});
        groups.push_back({{"group", g.group}, {"problems", g.problems}, {"items", items}});
    }
    return {{"kiln_quarantine", 1}, {"id", m.id}, {"created", m.created}, {"root", m.root}, {"groups", groups}};
}

Result<QuarantineManifest> manifest_from_json(const nlohmann::json& j) {
    try {
        QuarantineManifest m;
        m.id = j.at("id").get<std::string>();
        m.created = j.value("created", "");
        m.root = j.value("root", "");
        for (const auto& g : j.at("groups")) {
            QuarantinedGroup q;
            q.group = g.at("group").get<std::string>();
            q.problems = g.value("problems", std::vector<std::string>{});
            for (const auto& i : g.at("items"))
                q.items.push_back({i.at("path").get<std::string>(), i.value("dir", false)});
            m.groups.push_back(std::move(q));
        }
        return m;
    } catch (const nlohmann::json::exception& e) {
        return make_error(Errc::parse, std::string("not a quarantine manifest: ") + e.what());
    }
}

namespace {
Result<QuarantineManifest> read_manifest(int dir_fd, const std::string& id) {
    KILN_TRY(OpenedFile f, open_regular_file_at(dir_fd, kManifest, id + "/" + kManifest));
    KILN_TRY(std::string text, read_prefix(f, f.size, id + "/" + kManifest));
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return make_error(Errc::parse, "manifest is not JSON", id + "/" + kManifest);
    return manifest_from_json(j);
}
}  // namespace

Result<QuarantineOutcome> quarantine_groups(const fs::path& root_arg, const std::vector<QuarantineRequest>& requests,
                                            const std::string& into_id) {
    fs::path root;
    KILN_TRY(UniqueFd root_fd, open_root(root_arg, root));
    inductor::ScanOptions so;
    so.root_fd = root_fd.get();
    so.sniff_python = false;  // categories do not matter here, only groups and identities
    KILN_TRY(inductor::ScanResult scan, inductor::scan_cache(root, so));
    std::map<std::string, const inductor::Group*> by_rel;
    for (const auto& g : scan.groups)
        if (g.path.size() > scan.root.size() + 1) by_rel[std::string(g.path.substr(scan.root.size() + 1))] = &g;

    QuarantineOutcome out;
    std::pair<std::string, UniqueFd> made;
    if (!into_id.empty()) {
        KILN_TRY(made.second, open_quarantine(root_fd.get(), into_id));
        KILN_TRY(out.manifest, read_manifest(made.second.get(), into_id));
    }
    // A new quarantine is made when the first item is about to move: when every group is locked or
    // gone, no empty folder and manifest are left behind (and the outcome has no id).
    auto quarantine_fd = [&]() -> Result<int> {
        if (!made.second.valid()) {
            KILN_TRY(made, make_quarantine_dir(root_fd.get()));
            out.manifest.id = made.first;
            out.manifest.created = utc_now(UtcFormat::iso);
            out.manifest.root = scan.root;
        }
        return made.second.get();
    };
    const std::size_t kept = out.manifest.groups.size();
    for (const auto& req : requests) {
        auto it = by_rel.find(req.group);
        if (it == by_rel.end()) {
            out.skipped.push_back(req.group + ": not in the cache any more");
            continue;
        }
        const inductor::Group& g = *it->second;
        auto lock = inductor::evict_fs::try_lock_key(root_fd.get(),
                                                     scan.kind == inductor::RootKind::inductor ? g.key : "", g.path);
        if (!lock) {
            out.skipped.push_back(req.group + ": " + lock.error().str());
            continue;
        }
        QuarantinedGroup q{req.group, req.problems, {}};
        bool is_dir = g.kind == inductor::GroupKind::key_dir || g.kind == inductor::GroupKind::triton_kernel_dir;
        std::vector<std::pair<std::string, std::uint64_t>> items;
        if (is_dir) items.emplace_back(req.group, g.ino);
        else
            for (auto i : g.artifacts)
                items.emplace_back(std::string(scan.artifacts[i].rel_path()), scan.artifacts[i].ino);
        KILN_TRY(int qfd, quarantine_fd());
        for (const auto& [rel, ino] : items) {
            Status s = move_item(root_fd.get(), qfd, rel, is_dir, ino, "", kFiles);
            if (s.ok()) q.items.push_back({rel, is_dir});
            else out.skipped.push_back(rel + ": " + s.error().str());
        }
        if (!q.items.empty()) out.manifest.groups.push_back(std::move(q));
    }
    if (!made.second.valid()) return out;  // nothing was movable: no quarantine made
    if (into_id.empty() && out.manifest.groups.empty()) {
        // Made for a group whose items then all failed to move: leave no empty quarantine behind.
        remove_empty_quarantine(root_fd.get(), made.first);
        out.manifest = QuarantineManifest{};
        return out;
    }
    int qfd = made.second.get();
    Status written = write_manifest(qfd, out.manifest);
    if (!written.ok()) {
        for (std::size_t n = kept; n < out.manifest.groups.size(); ++n)  // unrestorable without it: undo
            for (const auto& i : out.manifest.groups[n].items)
                (void)move_item(qfd, root_fd.get(), i.path, i.dir, 0, kFiles, "");
        return std::move(written.error());
    }
    return out;
}

Result<RestoreOutcome> restore_quarantine(const fs::path& root_arg, const std::string& id) {
    fs::path root;
    KILN_TRY(UniqueFd root_fd, open_root(root_arg, root));
    auto qdir = open_quarantine(root_fd.get(), id);
    if (!qdir) return std::move(qdir.error()).with_context(root.string());
    KILN_TRY(QuarantineManifest m, read_manifest(qdir->get(), id));
    RestoreOutcome out;
    QuarantineManifest left = m;
    left.groups.clear();
    for (const auto& g : m.groups) {
        QuarantinedGroup rest{g.group, g.problems, {}};
        for (const auto& i : g.items) {
            Status s = move_item(qdir->get(), root_fd.get(), i.path, i.dir, 0, kFiles, "");
            if (s.ok()) out.restored.push_back(i.path);
            else {
                out.skipped.push_back(i.path + ": " + s.error().str());
                rest.items.push_back(i);
            }
        }
        if (!rest.items.empty()) left.groups.push_back(std::move(rest));
    }
    if (!left.groups.empty()) {
        KILN_CHECK(write_manifest(qdir->get(), left));
        return out;
    }
    // Everything is back: only empty folders and the manifest remain.
    KILN_TRY(UniqueFd q, open_dir_beneath(root_fd.get(), inductor::kQuarantineDirName, id));
    auto removal = inductor::evict_fs::remove_tree_at(q.get(), id.c_str(), {}, id);
    if (!removal.status.ok()) return std::move(removal.status.error());
    ::unlinkat(root_fd.get(), std::string(inductor::kQuarantineDirName).c_str(), AT_REMOVEDIR);  // if now empty
    return out;
}

std::vector<QuarantineRequest> quarantine_requests(const HealthReport& r, bool strict) {
    std::map<std::string, std::vector<std::string>> by_group;
    auto add = [&](const std::string& group, std::string kind) {
        auto& kinds = by_group[group];
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(std::move(kind));
    };
    for (const auto& p : r.problems) add(std::string(p.group()), std::string(problem_kind_name(p.kind)));
    if (strict)
        for (const auto& s : r.stale) add(s.group, "stale");
    std::vector<QuarantineRequest> out;
    for (auto& [g, kinds] : by_group) out.push_back({g, std::move(kinds)});
    return out;
}

Result<QuarantineRun> quarantine_problems(const fs::path& root, const CheckOptions& options, bool strict) {
    QuarantineRun run;
    KILN_TRY(run.before, check_cache(root, options));
    run.after = run.before;
    for (int round = 0; round < 8 && !run.after.healthy(strict); ++round) {
        auto requests = quarantine_requests(run.after, strict);
        KILN_TRY(QuarantineOutcome step, quarantine_groups(root, requests, run.moved.manifest.id));
        std::size_t moved_before = run.moved.manifest.groups.size();
        run.moved.manifest = std::move(step.manifest);
        for (auto& s : step.skipped) run.moved.skipped.push_back(std::move(s));
        KILN_TRY(run.after, check_cache(root, options));
        if (run.moved.manifest.groups.size() == moved_before) break;  // nothing more could be moved
    }
    return run;
}

std::vector<QuarantineManifest> list_quarantines(const fs::path& root) {
    std::vector<QuarantineManifest> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(root / inductor::kQuarantineDirName, ec)) {
        auto text = read_regular_file(e.path() / kManifest, 64ull << 20);
        if (!text) continue;
        auto j = nlohmann::json::parse(*text, nullptr, false);
        if (j.is_discarded()) continue;
        if (auto m = manifest_from_json(j)) out.push_back(std::move(*m));
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return out;
}

}  // namespace kiln::health
