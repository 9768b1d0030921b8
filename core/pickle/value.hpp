#pragma once
// The value tree a pickle decodes to. Nothing is ever resolved or executed: classes are inert
// `global` nodes and object construction is an inert `call` node carrying its arguments and any
// BUILD state / appended items. Nodes live in a `Document` arena and point at each other with
// plain pointers (`Ref`); a memo reference (BINGET) shares the node, so the tree is a DAG and
// may even contain cycles (a list that contains itself): walk it with a visited set or a depth
// limit. Nodes are 48 bytes; container payloads live out of line so scalars stay small.
//
// Strings and bytes are views into the document's bytes whenever the pickle stores them
// verbatim (BINUNICODE*, BINBYTES*, ...); the Document keeps those bytes alive.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::pickle {

class Buffer;  // buffer.hpp: the bytes (a file read once, or owned)

enum class Kind : std::uint8_t {
    none,
    boolean,
    integer,  // arbitrary precision, see Int
    floating,
    string,  // UTF-8 text
    bytes,
    bytearray,  // BYTEARRAY8
    list,
    tuple,
    dict,
    set,
    frozenset,
    global,      // a class or function reference: module + name, never imported (also EXTn codes)
    call,        // REDUCE / NEWOBJ / NEWOBJ_EX / INST / OBJ: callable(*args, **kwargs) + BUILD state
    persistent,  // PERSID / BINPERSID: the persistent id, inert
    buffer,      // NEXT_BUFFER: out-of-band data the pickle does not contain
};

const char* kind_name(Kind k);

// An exact integer. Small values (the usual case) are `small`; LONG1/LONG4 (and protocol-0
// decimal) values beyond int64 keep their minimal little-endian two's-complement bytes.
struct Int {
    std::int64_t small = 0;
    std::string_view big_le;  // empty when the value fits in int64
    bool fits_int64() const { return big_le.empty(); }
    // |value| < 2^53: exactly representable as a JSON (double) number.
    bool fits_53_bits() const {
        return fits_int64() && small > -(std::int64_t{1} << 53) && small < (std::int64_t{1} << 53);
    }
    bool negative() const;
    // Exact decimal text; integers over 2048 bytes (> ~4900 digits, beyond what Python itself
    // prints by default) are given as exact hexadecimal "0x..." / "-0x..." to stay linear.
    std::string to_decimal() const;
};

class Value;
using Ref = const Value*;
using Entry = std::pair<Ref, Ref>;

class Value {
public:
    Kind kind() const { return kind_; }
    bool is(Kind k) const { return kind_ == k; }
    std::uint64_t offset() const { return offset_; }  // byte offset of the opcode that made it

    bool as_bool() const { return scalar_.b; }       // boolean
    double as_double() const { return scalar_.f; }   // floating
    Int as_int() const;                              // integer (also boolean as 0/1)
    std::string_view text() const { return text_; }  // string, bytes, bytearray, global module, PERSID text
    // bytes / bytearray of a skimmed document (skim.hpp) whose payload was left out: text() is empty.
    bool elided() const { return flags_ & kElided; }
    std::uint64_t byte_size() const { return elided() ? scalar_.u : text_.size(); }  // string, bytes, bytearray
    std::string_view module() const { return text_; }                                // global
    std::string_view name() const;                                                   // global: the qualified name
    std::uint64_t buffer_index() const { return scalar_.u; }  // buffer: the n-th out-of-band buffer
    bool readonly() const { return flags_ & kReadonly; }      // buffer: READONLY_BUFFER applied

    // list, tuple, set, frozenset: elements; call: APPEND(S)/ADDITEMS applied to the object;
    // persistent from BINPERSID: [pid]. Empty for other kinds.
    const std::vector<Ref>& items() const;
    // dict: items in insertion order (duplicate keys kept as written; get() finds the last);
    // call: SETITEM(S) applied to the object.
    const std::vector<Entry>& entries() const;

    // call only (null otherwise).
    Ref callable() const;                                // usually a global: the class or function
    Ref args() const;                                    // usually a tuple
    Ref kwargs() const;                                  // NEWOBJ_EX only
    Ref state() const;                                   // the BUILD argument, null when none
    bool is_newobj() const { return flags_ & kNewobj; }  // cls.__new__(cls, *args) rather than callable(*args)

    bool is_container() const;
    std::size_t size() const;            // elements / entries; 0 for scalars
    std::string qualified_name() const;  // global: "module.name"; else empty
    std::string call_type() const;       // call with a global callable: its "module.name"; else empty
    // dict or call-with-dict-state: the value under string key `key` (last occurrence), or null.
    Ref get(std::string_view key) const;

private:
    friend class Decoder;
    friend class Document;
    static constexpr std::uint8_t kReadonly = 1, kNewobj = 2, kElided = 4;
    struct More {
        std::vector<Ref> items;
        std::vector<Entry> entries;
        Ref callable = nullptr, args = nullptr, kwargs = nullptr, state = nullptr;
        std::string_view name;
    };
    Kind kind_ = Kind::none;
    std::uint8_t flags_ = 0;
    std::uint64_t offset_ = 0;
    union {
        bool b;
        double f;
        std::int64_t i;
        std::uint64_t u;
    } scalar_{};
    std::string_view text_;
    More* more_ = nullptr;  // owned by the Document
};

// Stable-address storage that grows in geometric chunks, constructing elements only as they
// are added: a document of n nodes costs O(log n) allocations (std::deque made one per 10
// nodes) and never touches memory it does not use.
template <class T>
class Arena {
public:
    Arena() = default;
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;
    ~Arena() {
        for (std::size_t c = 0; c < chunks_.size(); ++c) {
            std::size_t n = c + 1 == chunks_.size() ? used_ : chunks_[c].cap;
            for (std::size_t k = 0; k < n; ++k) chunks_[c].data[k].~T();
            ::operator delete(chunks_[c].data);
        }
    }
    T& emplace() {
        if (used_ == cap_) grow();
        ++size_;
        return *::new (static_cast<void*>(chunks_.back().data + used_++)) T();
    }
    std::size_t size() const { return size_; }

private:
    static constexpr std::size_t kFirst = 16, kMax = 8192;  // small first chunk: a tiny pickle stays tiny
    struct Chunk {
        T* data;
        std::size_t cap;
    };
    void grow() {
        cap_ = cap_ ? std::min(cap_ * 2, kMax) : kFirst;
        chunks_.reserve(chunks_.size() + 1);  // so push_back below cannot throw after the allocation
        chunks_.push_back(Chunk{static_cast<T*>(::operator new(cap_ * sizeof(T))), cap_});
        used_ = 0;
    }
    std::vector<Chunk> chunks_;
    std::size_t used_ = 0, cap_ = 0, size_ = 0;
};

// Owns the bytes the views point into and every node. Immutable once decoded.
class Document {
public:
    Ref root() const { return root_; }
    int protocol() const { return protocol_; }  // from PROTO, 0 when absent
    std::size_t node_count() const { return nodes_.size(); }
    std::string_view bytes() const;  // the whole input
    const std::shared_ptr<const Buffer>& buffer() const { return buffer_; }

private:
    friend class Decoder;
    std::shared_ptr<const Buffer> buffer_;
    Arena<Value> nodes_;             // stable addresses
    Arena<Value::More> more_;        // container / call payloads
    std::deque<std::string> owned_;  // decoded text that is not a verbatim view (protocol 0, big ints)
    Ref root_ = nullptr;
    int protocol_ = 0;
};

// Human-readable one-line form of a value, shortened to about `max_chars` (strings quoted,
// containers with their size, objects as `module.Class(...)`).
std::string short_repr(Ref v, std::size_t max_chars = 80);

// Children of a node for a lazy tree walk (GUI object tree): a label and the child.
struct Child {
    std::string label;  // "[3]", "'key'", "callable", "args", "kwargs", "state", ...
    Ref value = nullptr;
};
std::vector<Child> children(Ref v);

}  // namespace kiln::pickle
