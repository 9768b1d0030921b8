#include "portability/py_value.hpp"

#include <cstdio>

#include "hash/sha256.hpp"

namespace kiln::portability {

namespace {

void put_le(std::string& out, std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// LONG1: the minimal little-endian two's-complement bytes of v (pickle's encode_long).
std::string long_bytes(std::int64_t v) {
    std::string b;
    put_le(b, static_cast<std::uint64_t>(v), 8);
    while (b.size() > 1) {
        auto last = static_cast<unsigned char>(b.back());
        auto prev = static_cast<unsigned char>(b[b.size() - 2]);
        if ((last == 0x00 && !(prev & 0x80)) || (last == 0xff && (prev & 0x80))) b.pop_back();
        else break;
    }
    return b;
}

struct Writer {
    int protocol;
    std::string out;

    void str(const std::string& s) {
        if (protocol >= 4 && s.size() < 256) {
            out += '\x8c';
            out += static_cast<char>(s.size());
        } else {
            out += 'X';
            put_le(out, s.size(), 4);
        }
        out += s;
    }
    void integer(std::int64_t v) {
        if (v >= 0 && v <= 0xff) {
            out += 'K';
            put_le(out, static_cast<std::uint64_t>(v), 1);
        } else if (v >= 0 && v <= 0xffff) {
            out += 'M';
            put_le(out, static_cast<std::uint64_t>(v), 2);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            out += 'J';
            put_le(out, static_cast<std::uint64_t>(static_cast<std::uint32_t>(static_cast<std::int32_t>(v))), 4);
        } else {
            std::string b = long_bytes(v);
            out += '\x8a';
            out += static_cast<char>(b.size());
            out += b;
        }
    }
    void tuple(const PyTuple& t) {
        if (t.empty()) {
            out += ')';
            return;
        }
        if (t.size() <= 3) {
            for (const auto& x : t) save(x);
            out += static_cast<char>(0x84 + t.size());  // TUPLE1..TUPLE3
            return;
        }
        out += '(';
        for (const auto& x : t) save(x);
        out += 't';
    }
    void dict(const PyDict& d) {
        out += '}';
        if (d.size() == 1) {
            str(d[0].first);
            save(d[0].second);
            out += 's';
            return;
        }
        for (std::size_t i = 0; i < d.size(); i += 1000) {  // batched like CPython (SETITEMS per 1000)
            out += '(';
            for (std::size_t j = i; j < d.size() && j < i + 1000; ++j) {
                str(d[j].first);
                save(d[j].second);
            }
            out += 'u';
        }
    }
    void save(const PyValue& v) {
        struct Visit {
            Writer& w;
            void operator()(PyValue::None) { w.out += 'N'; }
            void operator()(bool b) { w.out += b ? '\x88' : '\x89'; }
            void operator()(std::int64_t i) { w.integer(i); }
            void operator()(const std::string& s) { w.str(s); }
            void operator()(const std::shared_ptr<PyTuple>& t) { w.tuple(*t); }
            void operator()(const std::shared_ptr<PyDict>& d) { w.dict(*d); }
        };
        std::visit(Visit{*this}, v.v);
    }
};

}  // namespace

std::string py_pickle(const PyValue& value, int protocol) {
    Writer w{protocol, {}};
    w.save(value);
    w.out += '.';
    std::string head;
    head += '\x80';
    head += static_cast<char>(protocol);
    // Protocol 4+ frames the body when it is at least 4 bytes (CPython's FRAME_SIZE_MIN).
    if (protocol >= 4 && w.out.size() >= 4) {
        head += '\x95';
        put_le(head, w.out.size(), 8);
    }
    return head + w.out;
}

std::string component_hash(const PyValue& value, int protocol) { return hash::sha256_hash(py_pickle(value, protocol)); }

std::string py_repr_str(const std::string& s) {
    char quote = (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) ? '"' : '\'';
    std::string out(1, quote);
    for (char ch : s) {
        auto c = static_cast<unsigned char>(ch);
        if (ch == quote || ch == '\\') {
            out += '\\';
            out += ch;
        } else if (ch == '\n') {
            out += "\\n";
        } else if (ch == '\r') {
            out += "\\r";
        } else if (ch == '\t') {
            out += "\\t";
        } else if (c < 0x20 || c == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        } else {
            out += ch;  // printable ASCII, and UTF-8 (non-ASCII is printable in the names seen here)
        }
    }
    out += quote;
    return out;
}

namespace {
std::string repr(const PyValue& v);
std::string repr_tuple(const PyTuple& t) {
    std::string s = "(";
    for (std::size_t i = 0; i < t.size(); ++i) s += (i ? ", " : "") + repr(t[i]);
    return s + (t.size() == 1 ? ",)" : ")");
}
std::string repr_dict(const PyDict& d) {
    std::string s = "{";
    for (std::size_t i = 0; i < d.size(); ++i)
        s += (i ? ", " : "") + py_repr_str(d[i].first) + ": " + repr(d[i].second);
    return s + "}";
}
std::string repr(const PyValue& v) {
    struct Visit {
        std::string operator()(PyValue::None) { return "None"; }
        std::string operator()(bool b) { return b ? "True" : "False"; }
        std::string operator()(std::int64_t i) { return std::to_string(i); }
        std::string operator()(const std::string& s) { return py_repr_str(s); }
        std::string operator()(const std::shared_ptr<PyTuple>& t) { return repr_tuple(*t); }
        std::string operator()(const std::shared_ptr<PyDict>& d) { return repr_dict(*d); }
    };
    return std::visit(Visit{}, v.v);
}
}  // namespace

std::string py_str(const PyValue& value) {
    if (const auto* s = std::get_if<std::string>(&value.v)) return *s;
    return repr(value);
}

}  // namespace kiln::portability
