#include "inductor/python_sniff.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <thread>

#include "inductor/classify.hpp"
#include "util/regular_file.hpp"
#include "util/rel_path.hpp"
#include "util/unique_fd.hpp"

namespace kiln::inductor {

namespace {

struct Run {
    std::size_t begin = 0, end = 0;  // indices into rels: files of one directory
};

// Opens `dir` beneath `root_fd` one component at a time, never following a symlink.
UniqueFd open_beneath(int root_fd, std::string_view dir, int& err) {
    UniqueFd cur(::openat(root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    std::string part;
    while (cur.get() >= 0 && !dir.empty()) {
        auto slash = dir.find('/');
        part.assign(dir.substr(0, slash));
        dir = slash == std::string_view::npos ? std::string_view() : dir.substr(slash + 1);
        cur = UniqueFd(::openat(cur.get(), part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    if (cur.get() < 0) err = errno;
    return cur;
}

void sniff_run(int root_fd, const std::vector<std::string_view>& rels, Run run, std::vector<SniffOutcome>& out) {
    int err = 0;
    UniqueFd dir = open_beneath(root_fd, rel_dir(rels[run.begin]), err);
    char buf[kPythonSniffBytes];
    std::string name;
    for (std::size_t i = run.begin; i < run.end; ++i) {
        if (dir.get() < 0) {
            out[i].err = err;
            continue;
        }
        std::string_view rel = rels[i];
        auto slash = rel.rfind('/');
        name.assign(slash == std::string_view::npos ? rel : rel.substr(slash + 1));
        long got = read_head_at(dir.get(), name.c_str(), buf, sizeof buf);
        if (got < 0) out[i].err = static_cast<int>(-got);
        else out[i].output_code = python_is_output_code(std::string_view(buf, static_cast<std::size_t>(got)));
    }
}

}  // namespace

std::vector<SniffOutcome> sniff_python_heads(int root_fd, const std::vector<std::string_view>& rels, unsigned threads,
                                             const std::atomic<bool>* cancel) {
    std::vector<SniffOutcome> out(rels.size());
    std::vector<Run> runs;
    for (std::size_t i = 0; i < rels.size(); ++i) {
        if (runs.empty() || rel_dir(rels[i]) != rel_dir(rels[runs.back().begin])) runs.push_back({i, i});
        runs.back().end = i + 1;
    }
    if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
    // Few files: threads cost more than they overlap.
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, rels.size() / 64 + 1));
    std::atomic<std::size_t> next{0};
    auto work = [&] {
        for (std::size_t r; (r = next.fetch_add(1)) < runs.size();) {
            if (cancel && cancel->load(std::memory_order_relaxed)) return;
            sniff_run(root_fd, rels, runs[r], out);
        }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    return out;
}

}  // namespace kiln::inductor
