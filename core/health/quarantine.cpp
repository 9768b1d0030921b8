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
#include <set>
#include <tuple>

#include "inductor/evict.hpp"
#include "inductor/evict_fs.hpp"
#include "inductor/roots.hpp"
#include "inductor/scanner.hpp"
#include "util/atomic_file.hpp"
#include "util/file_lock.hpp"
#include "util/json_in.hpp"
#include "util/json_out.hpp"
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

// A quarantine held: its folder and the lock on <id>/.lock, which every change to it takes (a quarantine
// run adding to it, a restore emptying it), as git's index.lock serializes writers of one index.
constexpr const char* kLock = ".lock";
struct HeldQuarantine {
    std::string id;
    UniqueFd qroot;  // <root>/.kiln-quarantine
    UniqueFd dir;    // <root>/.kiln-quarantine/<id>
    FileLock lock;
    bool made = false;  // by this run
};

// Locks the quarantine whose folder `dir` is; Errc::not_found when it was removed (restored) meanwhile.
Status lock_quarantine(HeldQuarantine& q) {
    KILN_TRY(q.lock, FileLock::acquire_at(q.dir.get(), kLock, q.id + "/" + kLock));
    struct stat held, named;
    if (::fstat(q.dir.get(), &held) != 0 || ::fstatat(q.qroot.get(), q.id.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 ||
        held.st_ino != named.st_ino || held.st_dev != named.st_dev)
        return make_error(Errc::not_found, "no such quarantine (restored meanwhile)", q.id,
                          "`kiln-cli check --list-quarantine`");
    return ok_status();
}

// A fresh <root>/.kiln-quarantine/<id>/ with id from the time and the pid, locked.
Result<HeldQuarantine> make_quarantine(int root_fd) {
    HeldQuarantine q;
    KILN_TRY(q.qroot, open_dir_beneath(root_fd, inductor::kQuarantineDirName, "quarantine folder", true));
    std::string base = utc_now(UtcFormat::compact) + "-" + std::to_string(::getpid());
    for (int n = 0; n < 100; ++n) {
        std::string id = n ? base + "-" + std::to_string(n) : base;
        if (::mkdirat(q.qroot.get(), id.c_str(), 0700) == 0) {
            q.id = id;
            q.made = true;
            KILN_TRY(q.dir, open_dir_beneath(q.qroot.get(), id, id));
            KILN_CHECK(lock_quarantine(q));
            return q;
        }
        if (errno == ENOENT && n < 99) {
            // A restore that emptied .kiln-quarantine removed it after we opened it: make it again.
            KILN_TRY(q.qroot, open_dir_beneath(root_fd, inductor::kQuarantineDirName, "quarantine folder", true));
            continue;
        }
        if (errno != EEXIST) return io_error("cannot make the quarantine folder", id, errno);
    }
    return make_error(Errc::busy, "no free quarantine id", base);
}

// The existing quarantine `id`, locked.
Result<HeldQuarantine> open_quarantine(int root_fd, const std::string& id) {
    if (!valid_id(id))
        return make_error(Errc::invalid_argument, "not a quarantine id", id,
                          "`kiln-cli check --list-quarantine` names them");
    HeldQuarantine q;
    q.id = id;
    auto qroot = open_dir_beneath(root_fd, inductor::kQuarantineDirName, id);
    auto dir = qroot ? open_dir_beneath(qroot->get(), id, id) : Result<UniqueFd>(qroot.error());
    if (!dir && dir.error().code == Errc::invalid_argument)  // ELOOP / ENOTDIR: never followed
        return make_error(Errc::invalid_argument,
                          "the quarantine (or .kiln-quarantine) is a symbolic link or not a directory: refused", id,
                          "Kiln follows no link inside a cache; a quarantine it made is a plain folder");
    if (!dir) return make_error(Errc::not_found, "no such quarantine", id, "`kiln-cli check --list-quarantine`");
    q.qroot = std::move(*qroot);
    q.dir = std::move(*dir);
    KILN_CHECK(lock_quarantine(q));
    return q;
}

// Through the byte-safe writer: a file name of any bytes (not UTF-8) is written as \udcXX and read
// back byte for byte (parse_json_bytes); nlohmann's dump() would throw after the moves.
Status write_manifest(int dir_fd, const QuarantineManifest& m) {
    return write_atomic_at(dir_fd, kManifest, dump_json(to_json(m), 2) + "\n", m.id + "/" + kManifest);
}

Result<QuarantineManifest> read_manifest(int dir_fd, const std::string& id) {
    KILN_TRY(OpenedFile f, open_regular_file_at(dir_fd, kManifest, id + "/" + kManifest));
    KILN_TRY(std::string text, read_prefix(f, f.size, id + "/" + kManifest));
    auto j = parse_json_bytes(text);
    if (j.is_discarded()) return make_error(Errc::parse, "manifest is not JSON", id + "/" + kManifest);
    return manifest_from_json(j);
}

// Removes a quarantine's bookkeeping once nothing of it is left to restore: the folders under files/
// along `items` that are empty, files/, the manifest, the lock file, the folder and .kiln-quarantine
// when empty. Nothing else: a file that is still there (one a forged manifest did not name) stays.
void remove_bookkeeping(int root_fd, HeldQuarantine& q, const std::vector<std::string>& items) {
    if (auto files = open_dir_beneath(q.dir.get(), kFiles, q.id)) {
        std::set<std::string> dirs;
        for (const auto& rel : items)
            for (auto [parent, name] = split_parent(rel); !parent.empty();
                 std::tie(parent, name) = split_parent(parent))
                dirs.insert(parent);
        // Deepest first: a parent is empty only once its children are gone.
        std::vector<std::string> order(dirs.begin(), dirs.end());
        std::sort(order.begin(), order.end(), [](const std::string& a, const std::string& b) {
            return std::count(a.begin(), a.end(), '/') > std::count(b.begin(), b.end(), '/');
        });
        for (const auto& d : order) {
            auto [parent, name] = split_parent(d);
            if (auto at = open_dir_beneath(files->get(), parent, d)) ::unlinkat(at->get(), name.c_str(), AT_REMOVEDIR);
        }
    }
    ::unlinkat(q.dir.get(), std::string(kFiles).c_str(), AT_REMOVEDIR);
    ::unlinkat(q.dir.get(), kManifest, 0);
    ::unlinkat(q.dir.get(), kLock, 0);  // still held: a waiter sees the folder gone and stops
    ::unlinkat(q.qroot.get(), q.id.c_str(), AT_REMOVEDIR);
    ::unlinkat(root_fd, std::string(inductor::kQuarantineDirName).c_str(), AT_REMOVEDIR);  // if now empty
}

std::vector<std::string> item_paths(const QuarantineManifest& m) {
    std::vector<std::string> out;
    for (const auto& g : m.groups)
        for (const auto& i : g.items) out.push_back(i.path);
    return out;
}

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

// What one requested group would move.
struct Planned {
    const QuarantineRequest* request = nullptr;
    const inductor::Group* group = nullptr;
    bool is_dir = false;
    std::vector<std::pair<std::string, std::uint64_t>> items;  // relative path, inode at scan time
};

// Groups locked and re-checked at a time: each held lock is a descriptor.
constexpr std::size_t kLockedAtOnce = 256;

struct Locked {
    const Planned* plan = nullptr;
    FileLock lock;
};

// The groups of `locked` whose problems are gone now that their locks are held (a compile that held one
// while the check read a half-written .so has finished it since), named by their relative paths. A group
// sent for being stale stays: stale is about its versions, which no lock guards. So does a lock file (an
// orphan lock): this run holds it now, so checked again it would look in use. A group with a file this
// user may not read is never moved (as quarantine_requests decides).
Result<std::set<std::string>> healed_groups(const inductor::ScanResult& scan, const std::vector<Locked>& locked,
                                            const CheckOptions& options) {
    std::vector<inductor::GroupId> ids;
    for (const auto& l : locked)
        if (l.plan->group->category != inductor::Category::lock) ids.push_back(l.plan->group->id);
    if (ids.empty()) return std::set<std::string>{};
    KILN_TRY(HealthReport now, check_groups(scan, ids, options));
    std::set<std::string> bad, unreadable;
    for (const auto& p : now.problems) (p.kind == ProblemKind::unreadable ? unreadable : bad).emplace(p.group());
    std::set<std::string> healed;
    for (const auto& l : locked) {
        const auto& req = *l.plan->request;
        if (l.plan->group->category == inductor::Category::lock) continue;
        bool stale = std::find(req.problems.begin(), req.problems.end(), "stale") != req.problems.end();
        if (unreadable.count(req.group) || (!stale && !bad.count(req.group))) healed.insert(req.group);
    }
    return healed;
}

Result<QuarantineOutcome> quarantine_at(const inductor::OpenedRoot& root,
                                        const std::vector<QuarantineRequest>& requests, const std::string& into_id,
                                        const CheckOptions& check) {
    const int root_fd = root.fd;
    inductor::ScanOptions so;
    so.sniff_python = false;  // categories do not matter here, only groups and identities
    KILN_TRY(inductor::ScanResult scan, inductor::scan_cache(root, so));
    std::map<std::string, const inductor::Group*> by_rel;
    for (const auto& g : scan.groups)
        if (!g.rel.empty()) by_rel[std::string(g.rel)] = &g;

    QuarantineOutcome out;
    std::vector<Planned> plan;
    for (const auto& req : requests) {
        auto it = by_rel.find(req.group);
        if (it == by_rel.end()) {
            out.skipped.push_back(req.group + ": not in the cache any more");
            continue;
        }
        Planned p{&req, it->second, false, {}};
        const inductor::Group& g = *p.group;
        p.is_dir = g.kind == inductor::GroupKind::key_dir || g.kind == inductor::GroupKind::triton_kernel_dir;
        if (p.is_dir) p.items.emplace_back(req.group, g.ino);
        else
            for (auto i : g.artifacts)
                p.items.emplace_back(std::string(scan.artifacts[i].rel_path()), scan.artifacts[i].ino);
        plan.push_back(std::move(p));
    }
    if (plan.empty()) return out;  // nothing to move: no quarantine made

    // The quarantine, held until its manifest is final: a restore of it waits.
    Result<HeldQuarantine> held = into_id.empty() ? make_quarantine(root_fd) : open_quarantine(root_fd, into_id);
    if (!held && !into_id.empty() && held.error().code == Errc::not_found) held = make_quarantine(root_fd);
    if (!held) return std::move(held.error());
    HeldQuarantine& q = *held;
    if (!q.made) {
        auto m = read_manifest(q.dir.get(), q.id);
        if (m) out.manifest = std::move(*m);
        else if (m.error().code != Errc::not_found) return std::move(m.error());
    }
    out.manifest.id = q.id;
    if (out.manifest.created.empty()) out.manifest.created = utc_now(UtcFormat::iso);
    if (out.manifest.root.empty()) out.manifest.root = scan.root;

    // The manifest first, naming everything about to move: whatever stops this run half-way (a crash, a
    // failing write), what was moved is on record and restorable (restore passes over what is absent).
    QuarantineManifest planned = out.manifest;
    for (const auto& p : plan) {
        QuarantinedGroup g{p.request->group, p.request->problems, {}};
        for (const auto& item : p.items) g.items.push_back({item.first, p.is_dir});
        planned.groups.push_back(std::move(g));
    }
    if (Status s = write_manifest(q.dir.get(), planned); !s.ok()) {
        if (q.made) remove_bookkeeping(root_fd, q, {});
        return std::move(s.error());
    }
    // The verdict was taken before this run held any lock: each group is checked again under the lock a
    // compile takes for it (torch's locks/<key>.lock), and moved only if still broken, before the lock goes.
    const CheckOptions& recheck = check;  // through the directory the scan walked (check_groups)
    for (std::size_t from = 0; from < plan.size(); from += kLockedAtOnce) {
        std::vector<Locked> locked;
        for (std::size_t i = from; i < std::min(plan.size(), from + kLockedAtOnce); ++i) {
            const inductor::Group& g = *plan[i].group;
            auto lock = inductor::evict_fs::try_lock_key(
                root_fd, scan.kind == inductor::RootKind::inductor ? g.key : "", g.path());
            if (lock) locked.push_back({&plan[i], std::move(*lock)});
            else out.skipped.push_back(plan[i].request->group + ": " + lock.error().str());
        }
        if (locked.empty()) continue;
        auto healed = healed_groups(scan, locked, recheck);
        if (!healed) {  // nothing more is moved; what was is on record
            if (q.made && out.manifest.groups.empty()) remove_bookkeeping(root_fd, q, item_paths(planned));
            else KILN_CHECK(write_manifest(q.dir.get(), out.manifest));
            return std::move(healed.error());
        }
        for (const auto& l : locked) {
            const Planned& p = *l.plan;
            if (healed->count(p.request->group)) {
                out.skipped.push_back(p.request->group +
                                      ": no problem when checked again under its lock (written meanwhile); left alone");
                continue;
            }
            QuarantinedGroup moved{p.request->group, p.request->problems, {}};
            for (const auto& [rel, ino] : p.items) {
                Status s = move_item(root_fd, q.dir.get(), rel, p.is_dir, ino, "", kFiles);
                if (s.ok()) moved.items.push_back({rel, p.is_dir});
                else out.skipped.push_back(rel + ": " + s.error().str());
            }
            if (!moved.items.empty()) out.manifest.groups.push_back(std::move(moved));
        }
    }
    if (q.made && out.manifest.groups.empty()) {  // nothing could be moved: no quarantine is left behind
        remove_bookkeeping(root_fd, q, item_paths(planned));
        out.manifest = {};
        return out;
    }
    KILN_CHECK(write_manifest(q.dir.get(), out.manifest));
    return out;
}

}  // namespace

Result<QuarantineOutcome> quarantine_groups(const inductor::OpenedRoot& root,
                                            const std::vector<QuarantineRequest>& requests,
                                            const std::string& into_id) {
    return quarantine_at(root, requests, into_id, CheckOptions{});
}

Result<RestoreOutcome> restore_quarantine(const inductor::OpenedRoot& root, const std::string& id) {
    const int root_fd = root.fd;
    auto held = open_quarantine(root_fd, id);
    if (!held) return std::move(held.error()).with_context(root.path.string());
    HeldQuarantine& q = *held;
    auto manifest = read_manifest(q.dir.get(), id);
    if (!manifest && manifest.error().code == Errc::not_found) {
        // An empty shell (a run that moved nothing was removing it as this one came): nothing to restore.
        remove_bookkeeping(root_fd, q, {});
        return make_error(Errc::not_found, "no such quarantine (it holds no manifest)", id,
                          "`kiln-cli check --list-quarantine`");
    }
    if (!manifest) return std::move(manifest.error());
    const QuarantineManifest& m = *manifest;
    RestoreOutcome out;
    QuarantineManifest left = m;
    left.groups.clear();
    for (const auto& g : m.groups) {
        QuarantinedGroup rest{g.group, g.problems, {}};
        for (const auto& i : g.items) {
            Status s = move_item(q.dir.get(), root_fd, i.path, i.dir, 0, kFiles, "");
            if (s.ok()) out.restored.push_back(i.path);
            else if (s.error().code == Errc::not_found)  // never moved (a run stopped after its plan)
                out.skipped.push_back(i.path + ": not in the quarantine (never moved); dropped from the manifest");
            else {
                out.skipped.push_back(i.path + ": " + s.error().str());
                rest.items.push_back(i);
            }
        }
        if (!rest.items.empty()) left.groups.push_back(std::move(rest));
    }
    if (!left.groups.empty()) {
        KILN_CHECK(write_manifest(q.dir.get(), left));
        return out;
    }
    // Everything is back: only the manifest items' folders (if empty) and the bookkeeping go.
    remove_bookkeeping(root_fd, q, item_paths(m));
    return out;
}

std::vector<QuarantineRequest> quarantine_requests(const HealthReport& r, bool strict) {
    std::map<std::string, std::vector<std::string>> by_group;
    auto add = [&](const std::string& group, std::string kind) {
        auto& kinds = by_group[group];
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(std::move(kind));
    };
    // A group with a file this user may not read is never moved: nothing is known of its health.
    std::set<std::string> unreadable;
    for (const auto& p : r.problems)
        if (p.kind == ProblemKind::unreadable) unreadable.emplace(p.group());
    for (const auto& p : r.problems)
        if (!unreadable.count(std::string(p.group())))
            add(std::string(p.group()), std::string(problem_kind_name(p.kind)));
    if (strict)
        for (const auto& s : r.stale)
            if (!unreadable.count(s.group)) add(s.group, "stale");
    std::vector<QuarantineRequest> out;
    for (auto& [g, kinds] : by_group) out.push_back({g, std::move(kinds)});
    return out;
}

Result<QuarantineRun> quarantine_problems(const inductor::OpenedRoot& root, const CheckOptions& options, bool strict) {
    // One descriptor of the root for every check and every move: a root path that is a symlink swapped
    // meanwhile cannot send a round to another cache.
    QuarantineRun run;
    KILN_TRY(run.before, check_cache(root, options));
    run.after = run.before;
    for (int round = 0; round < 8 && !run.after.healthy(strict); ++round) {
        auto requests = quarantine_requests(run.after, strict);
        if (requests.empty()) break;  // only problems no quarantine can help (unreadable files)
        KILN_TRY(QuarantineOutcome step, quarantine_at(root, requests, run.moved.manifest.id, options));
        // The same quarantine grows; a new one when it was restored meanwhile.
        std::size_t moved_before = step.manifest.id == run.moved.manifest.id ? run.moved.manifest.groups.size() : 0;
        bool moved_more = step.manifest.groups.size() > moved_before;
        if (!step.manifest.id.empty()) run.moved.manifest = std::move(step.manifest);
        for (auto& s : step.skipped) run.moved.skipped.push_back(std::move(s));
        if (!moved_more) {  // nothing more could be moved: what is left, as it is now (some healed under a lock)
            if (!step.skipped.empty()) {
                KILN_TRY(run.after, check_cache(root, options));
            }
            break;
        }
        KILN_TRY(run.after, check_cache(root, options));
    }
    return run;
}

std::vector<QuarantineManifest> list_quarantines(const inductor::OpenedRoot& root) {
    std::vector<QuarantineManifest> out;
    auto qroot = open_dir_beneath(root.fd, inductor::kQuarantineDirName, inductor::kQuarantineDirName);
    if (!qroot) return out;
    UniqueFd listed(::openat(qroot->get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    DIR* dir = listed.valid() ? ::fdopendir(listed.get()) : nullptr;
    if (!dir) return out;
    listed.release();  // closedir closes it
    while (const struct dirent* e = ::readdir(dir)) {
        const std::string id = e->d_name;
        if (!valid_id(id)) continue;  // ".", "..", the lock, anything a quarantine is not named
        UniqueFd qdir(::openat(qroot->get(), id.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!qdir.valid()) continue;
        if (auto m = read_manifest(qdir.get(), id)) out.push_back(std::move(*m));
    }
    ::closedir(dir);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return out;
}

}  // namespace kiln::health
