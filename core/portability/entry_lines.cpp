#include "portability/entry_lines.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "inductor/debug_lines.hpp"
#include "inductor/graph_entry.hpp"
#include "pickle/opcodes.hpp"
#include "util/regular_file.hpp"

namespace kiln::portability {

namespace {

namespace op = pickle::op;

bool is_text_op(std::uint8_t c) { return c == op::SHORT_BINUNICODE || c == op::BINUNICODE || c == op::BINUNICODE8; }
// Opcodes that may sit between the strings of one list: memo writes, batching, frames.
bool is_list_glue(std::uint8_t c) {
    return c == op::MEMOIZE || c == op::BINPUT || c == op::LONG_BINPUT || c == op::MARK || c == op::APPENDS ||
           c == op::APPEND || c == op::FRAME;
}

// The walk's state: waiting for the field's name, just past it, or inside its list of lines.
struct Walker {
    EntryKind kind;
    std::string_view field;
    std::vector<std::vector<std::string_view>>& lists;
    enum { idle, armed, collecting } state = idle;
    int armed_ops = 0;
    std::vector<std::string_view> current;
    std::vector<std::uint64_t> field_at;  // memo indices that hold the field's name
    std::string_view last_text;
    bool last_was_text = false;

    void end_list() {
        lists.push_back(std::move(current));
        current.clear();
        state = idle;
    }
    // "[" + 51 hash characters + "] ": the shape of a line (split_component_view checks the rest).
    static bool line_shaped(std::string_view s) { return s.size() > 53 && s[0] == '[' && s[52] == ']' && s[53] == ' '; }
    // A str pushed (directly or from the memo). Returns true when the walk is finished.
    bool text(std::string_view s) {
        if (state == collecting) {
            if (line_shaped(s)) {
                current.push_back(s);
                return false;
            }
            end_list();
            if (kind == EntryKind::fx_graph) return true;
        } else if (state == armed && line_shaped(s)) {
            state = collecting;
            current.push_back(s);
            return false;
        }
        if (state == idle && s == field) {
            state = armed;
            armed_ops = 0;
        }
        return false;
    }
    // Any other opcode. Returns true when the walk is finished.
    bool other(std::uint8_t c) {
        if (state == collecting && !is_list_glue(c)) {
            end_list();
            return kind == EntryKind::fx_graph;
        }
        // The field's value starts within a few opcodes (AOT: a tuple of the key and the list);
        // a None or an empty list leaves the walk armed, so give up on it after a while.
        if (state == armed && ++armed_ops > 12) state = idle;
        return false;
    }
    // A memo write: only the field's name is ever looked up again (AOT: compiled_bw's attribute name).
    void put(std::uint64_t index) {
        if (last_was_text && last_text == field) field_at.push_back(index);
        memo_next = std::max(memo_next, index + 1);
    }
    std::uint64_t memo_next = 0;  // where MEMOIZE stores: len(memo), as pickle numbers its puts
};

}  // namespace

WalkResult walk_entry_lines(std::string_view in, bool complete, EntryKind kind,
                            std::vector<std::vector<std::string_view>>& lists, std::string& why) {
    lists.clear();
    Walker w{kind, kind == EntryKind::fx_graph ? "_fx_graph_cache_debug_lines" : "fx_graph_cache_info", lists};
    std::size_t pos = 0;
    while (pos < in.size()) {
        auto code = static_cast<std::uint8_t>(in[pos]);
        const pickle::OpInfo& info = pickle::op_info(code);
        if (!info.name) {
            why = "unknown opcode at byte " + std::to_string(pos);
            return WalkResult::unsupported;
        }
        ++pos;
        pickle::RawArg arg;
        if (const char* err = pickle::read_arg(in, pos, info.arg, arg)) {
            if (!complete) return WalkResult::need_more;
            why = std::string(err) + " (opcode " + info.name + ")";
            return WalkResult::unsupported;
        }
        bool finished = false;
        bool was_text = false;
        if (is_text_op(code)) {
            finished = w.text(arg.data);
            w.last_text = arg.data;
            was_text = true;
        } else if (code == op::BINGET || code == op::LONG_BINGET) {
            if (w.state == Walker::collecting) {  // a line shared through the memo: never seen in torch's
                why = "a memo reference inside the debug lines";  // entries; the full decoder handles it
                return WalkResult::unsupported;
            }
            if (std::find(w.field_at.begin(), w.field_at.end(), arg.u) != w.field_at.end()) finished = w.text(w.field);
            else finished = w.other(code);
        } else if (code == op::MEMOIZE) {
            w.put(w.memo_next);
            finished = w.other(code);
        } else if (code == op::BINPUT || code == op::LONG_BINPUT) {
            w.put(arg.u);
            finished = w.other(code);
        } else if (code == op::STOP) {
            if (w.state == Walker::collecting) w.end_list();
            return WalkResult::done;
        } else {
            finished = w.other(code);
        }
        if (code != op::MEMOIZE && code != op::BINPUT && code != op::LONG_BINPUT) w.last_was_text = was_text;
        if (finished) return WalkResult::done;
    }
    if (!complete) return WalkResult::need_more;
    why = "the pickle ends without STOP";
    return WalkResult::unsupported;
}

namespace {

Result<EntryLines> decode_fully(const std::filesystem::path& path, EntryKind kind, std::uint64_t size) {
    KILN_TRY(auto entry, inductor::load_graph_entry(path));
    auto owned = std::make_shared<std::vector<std::vector<std::string>>>();
    if (kind == EntryKind::fx_graph) {
        owned->push_back(entry.debug_lines());
    } else {
        if (auto fw = entry.forward_debug_lines(); !fw.empty()) owned->push_back(std::move(fw));
        if (auto bw = entry.backward_debug_lines(); !bw.empty()) owned->push_back(std::move(bw));
    }
    EntryLines out;
    out.decoded = true;
    out.bytes_read = size;
    for (const auto& list : *owned) out.lists.emplace_back(list.begin(), list.end());
    out.storage = std::move(owned);
    return out;
}

// The decoder opens paths itself: a path relative to `dirfd` goes through /proc/self/fd.
std::filesystem::path via_dirfd(const std::filesystem::path& path, int dirfd) {
    if (dirfd == AT_FDCWD || path.is_absolute()) return path;
    return std::filesystem::path("/proc/self/fd") / std::to_string(dirfd) / path;
}

}  // namespace

Result<EntryLines> read_entry_lines(const std::filesystem::path& path, EntryKind kind, std::string* scratch,
                                    int dirfd) {
    // util's open: O_NOATIME where permitted (reading an entry must not change eviction order),
    // regular files only (a FIFO never blocks).
    auto opened = dirfd == AT_FDCWD || path.is_absolute() ? open_regular_file(path)
                                                          : open_regular_file_at(dirfd, path.c_str(), path.string());
    if (!opened) return std::move(opened.error());
    const int fd = opened->fd.get();
    std::shared_ptr<std::string> storage;
    if (!scratch) storage = std::make_shared<std::string>();
    std::string& buf = scratch ? *scratch : *storage;
    buf.clear();
    std::size_t want = 120 * 1024;  // the debug lines of torch's FX entries end within ~110 KB
    bool eof = false;
    for (;;) {
        std::size_t have = buf.size();
        buf.resize(want);
        while (have < want) {
            ssize_t n = ::pread(fd, buf.data() + have, want - have, static_cast<off_t>(have));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return io_error("read", path.string(), errno);
            if (n == 0) {
                eof = true;
                break;
            }
            have += static_cast<std::size_t>(n);
        }
        buf.resize(have);
        EntryLines out;
        out.bytes_read = have;
        std::string why;
        switch (walk_entry_lines(buf, eof, kind, out.lists, why)) {
            case WalkResult::done: out.storage = storage; return out;
            case WalkResult::unsupported: return decode_fully(via_dirfd(path, dirfd), kind, have);
            case WalkResult::need_more: break;
        }
        if (eof) return decode_fully(via_dirfd(path, dirfd), kind, have);
        want *= 4;
    }
}

}  // namespace kiln::portability
