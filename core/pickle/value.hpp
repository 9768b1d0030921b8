#pragma once
// The value tree a pickle decodes to. Nothing is ever resolved or executed: classes are inert
// `Global` nodes and object construction is an inert `Call` node carrying its arguments and any
// BUILD state / appended items. Nodes live in a `Document` arena and point at each other with
// plain pointers; a memo reference (BINGET) shares the node, so the tree is a DAG and may even
// contain cycles (a list that contains itself). Walk it with a visited set or a depth limit.
//
// Strings and bytes are views (`std::string_view`) into the document's bytes whenever the pickle
// stores them verbatim (BINUNICODE*, BINBYTES*, ...); the Document keeps those bytes alive.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::pickle {

class Buffer;  // buffer.hpp: the file's bytes (mapped or owned)

enum class Kind : std::uint8_t {
    none,
    boolean,
    integer,     // arbitrary precision, see Int
    floating,
    string,      // UTF-8 text
    bytes,
    bytearray,   // BYTEARRAY8
    list,
    tuple,
    dict,
    set,
    frozenset,
    global,      // a class or function reference: module + name, never imported
    call,        // REDUCE / NEWOBJ / NEWOBJ_EX / INST / OBJ: callable(*args, **kwargs) + BUILD state
    persistent,  // PERSID / BINPERSID: the persistent id, inert
    buffer,      // NEXT_BUFFER: out-of-band data the pickle does not contain
};

const char* kind_name(Kind k);

// An exact integer. Small values (the usual case) live in `small`; LONG1/LONG4 (and protocol-0
// LONG text) values beyond int64 keep their little-endian two's-complement bytes in `big_le`.
struct Int {
    std::int64_t small = 0;
    std::string_view big_le;  // empty when the value fits in int64
    bool fits_int64() const { return big_le.empty(); }
    // |value| < 2^53, i.e. representable exactly as a JSON/double number.
    bool fits_53_bits() const { return fits_int64() && small > -(std::int64_t{1} << 53) && small < (std::int64_t{1} << 53); }
    std::string to_decimal() const;
};

struct Value;
using Ref = const Value*;

struct Call {
    Ref callable = nullptr;  // usually a Global
    Ref args = nullptr;      // usually a tuple
    Ref kwargs = nullptr;    // NEWOBJ_EX only, else null
    Ref state = nullptr;     // BUILD argument, null when none
    bool newobj = false;     // NEWOBJ/NEWOBJ_EX (cls.__new__) rather than REDUCE (callable(*args))
    std::vector<Ref> items;                      // APPEND(S)/ADDITEMS applied to the object
    std::vector<std::pair<Ref, Ref>> entries;    // SETITEM(S) applied to the object
};

struct Value {
    Kind kind = Kind::none;
    bool boolean = false;
    double floating = 0.0;
    Int integer;
    // string/bytes/bytearray: the data; global: the module; persistent (PERSID): the id text.
    std::string_view text;
    std::string_view name;                      // global: the qualified name
    std::vector<Ref> items;                     // list, tuple, set, frozenset; persistent (BINPERSID): [pid]
    std::vector<std::pair<Ref, Ref>> entries;   // dict, in insertion order (duplicates kept as written)
    std::unique_ptr<Call> call;                 // kind == call
    std::uint64_t buffer_index = 0;             // kind == buffer: the n-th out-of-band buffer
    bool readonly = false;                      // kind == buffer: READONLY_BUFFER seen
    std::uint64_t offset = 0;                   // byte offset of the opcode that created the node

    bool is(Kind k) const { return kind == k; }
    bool is_container() const;
    // "module.name" for a global, else empty.
    std::string qualified_name() const;
    // For a call whose callable is a global: its "module.name" (the object's class), else empty.
    std::string call_type() const;
    // For a dict (or a call's BUILD state dict): the value under string key `key`, or null.
    Ref get(std::string_view key) const;
};

// Owns the bytes the views point into and every node. Immutable once decoded.
class Document {
public:
    Ref root() const { return root_; }
    int protocol() const { return protocol_; }               // from PROTO, 0 when absent
    std::size_t node_count() const { return nodes_.size(); }
    std::string_view bytes() const;                         // the whole input
    const std::shared_ptr<const Buffer>& buffer() const { return buffer_; }

private:
    friend class Decoder;
    std::shared_ptr<const Buffer> buffer_;
    std::deque<Value> nodes_;         // stable addresses
    std::deque<std::string> owned_;   // decoded text that is not a verbatim view (protocol 0)
    Ref root_ = nullptr;
    int protocol_ = 0;
};

// Human-readable one-line form of a value, shortened to about `max_chars`
// (strings quoted, containers with their size, objects as `module.Class(...)`).
std::string short_repr(Ref v, std::size_t max_chars = 80);

// Children of a node for a lazy tree walk (GUI object tree, --json): a label and the child.
struct Child {
    std::string label;   // "[3]", "'key'", "callable", "args", "state", ...
    Ref value = nullptr;
};
std::vector<Child> children(Ref v);

}  // namespace kiln::pickle
