// The safe unpickler. It follows CPython's _pickle.c semantics for the stack, the MARK stack
// and the memo, but every "call" becomes an inert node: nothing is imported or executed.
#include "pickle/decoder.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <span>
#include <unordered_map>

#include "pickle/bigint.hpp"
#include "pickle/opcodes.hpp"
#include "pickle/text.hpp"

namespace kiln::pickle {

class Decoder {
public:
    Decoder(std::shared_ptr<const Buffer> buf, const Limits& limits)
        : doc_(std::make_shared<Document>()), limits_(limits) {
        doc_->buffer_ = std::move(buf);
        in_ = doc_->buffer_->bytes();
        elisions_ = doc_->buffer_->elisions();
        source_size_ = doc_->buffer_->source_size();
    }

    Result<std::shared_ptr<const Document>> run() {
        while (true) {
            if (pos_ >= in_.size()) return fail(Errc::parse, "the data ended before STOP");
            op_pos_ = pos_;
            if (!elisions_.empty()) track_elisions();
            code_ = static_cast<std::uint8_t>(in_[pos_++]);
            const OpInfo& info = op_info(code_);
            if (!info.name) return fail(Errc::parse, "not a pickle opcode");
            RawArg arg;
            if (const char* why = read_arg(in_, pos_, info.arg, arg)) return fail(Errc::parse, why);
            if (code_ == op::STOP) {
                if (!check_stack(1)) return fail(Errc::parse, "STOP with an empty stack");
                doc_->root_ = stack_.back();
                return std::shared_ptr<const Document>(std::move(doc_));
            }
            if (const char* why = step(arg)) return fail(failure_code_, why);
        }
    }

private:
    // ---- errors -------------------------------------------------------------------------
    Error fail(Errc code, std::string why) const {
        std::string ctx = doc_->buffer_->origin() + ": byte " + std::to_string(op_pos_ + skipped_);
        if (const char* n = op_info(code_).name) ctx += std::string(", opcode ") + n;
        else ctx += ", byte value " + std::to_string(code_);
        return make_error(code, std::move(why), std::move(ctx),
                          code == Errc::limit ? "raise the decoder limit if the input is trusted" : "");
    }
    const char* limit(const char* why) {
        failure_code_ = Errc::limit;
        return why;
    }

    // ---- nodes --------------------------------------------------------------------------
    Value* node(Kind k) {
        if (doc_->nodes_.size() >= limits_.max_nodes) return nullptr;
        Value& v = doc_->nodes_.emplace();
        v.kind_ = k;
        v.offset_ = op_pos_ + skipped_;
        return &v;
    }
    // ---- skimmed input (skim.hpp) ---------------------------------------------------------
    // Offsets stay the file's: `skipped_` is the payload bytes left out before the current opcode.
    void track_elisions() {
        while (next_elision_ < elisions_.size() && elisions_[next_elision_].at < op_pos_)
            skipped_ += elisions_[next_elision_++].length;
        op_elided_ = next_elision_ < elisions_.size() && elisions_[next_elision_].at == op_pos_;
    }
    const char* push_bytes(Kind k, std::string_view data) {
        if (!op_elided_) return push_text(k, data);
        Value* v = node(k);
        if (v) {
            v->flags_ |= Value::kElided;
            v->scalar_.u = elisions_[next_elision_].length;
        }
        return push(v);
    }
    Value::More& more(Value* v) {
        if (!v->more_) v->more_ = &doc_->more_.emplace();
        return *v->more_;
    }
    std::string_view own(std::string s) { return doc_->owned_.emplace_back(std::move(s)); }

    // ---- stack --------------------------------------------------------------------------
    std::size_t fence() const { return marks_.empty() ? 0 : marks_.back(); }
    // At least `n` values above the current MARK.
    bool check_stack(std::size_t n) const { return stack_.size() >= fence() + n; }
    const char* push(Ref v) {
        if (!v) return limit("too many nodes");
        if (stack_.size() >= limits_.max_stack) return limit("the stack exceeds its limit");
        stack_.push_back(v);
        return nullptr;
    }
    Ref pop() {
        Ref v = stack_.back();
        stack_.pop_back();
        return v;
    }
    // Removes the last MARK; `k` is where the values pushed since it start on the stack.
    bool take_mark(std::size_t& k) {
        if (marks_.empty()) return false;
        k = marks_.back();
        marks_.pop_back();
        return true;
    }
    // The values from stack position `k` up (valid until the stack changes).
    std::span<const Ref> from(std::size_t k) const { return {stack_.data() + k, stack_.size() - k}; }
    std::vector<Ref> pop_from(std::size_t k) {
        std::vector<Ref> out(stack_.begin() + static_cast<std::ptrdiff_t>(k), stack_.end());
        stack_.resize(k);
        return out;
    }
    // The values pushed since the last MARK; removes them and the MARK.
    bool pop_mark(std::vector<Ref>& out) {
        std::size_t k = 0;
        if (!take_mark(k)) return false;
        out = pop_from(k);
        return true;
    }
    // A mutable view of a node already on the stack (nodes are only mutated while decoding).
    static Value* mut(Ref v) { return const_cast<Value*>(v); }

    // ---- memo ---------------------------------------------------------------------------
    const char* memo_put(std::uint64_t idx) {
        if (!check_stack(1)) return "memo store with an empty stack";
        Ref top = stack_.back();
        if (idx < memo_dense_.size()) {
            if (!memo_dense_[idx]) ++memo_count_;
            memo_dense_[idx] = top;
            return nullptr;
        }
        if (memo_count_ >= limits_.max_memo) return limit("the memo exceeds its limit");
        // MEMOIZE and BINPUT count up from 0; keep those dense, anything else in a map. The dense
        // table stays under 2x the entries (+64), so spread-out indices cannot inflate memory.
        if (idx < 2 * memo_count_ + 64) {
            memo_dense_.resize(static_cast<std::size_t>(idx) + 1, nullptr);
            memo_dense_[idx] = top;
            ++memo_count_;
            return nullptr;
        }
        auto [it, inserted] = memo_sparse_.insert_or_assign(idx, top);
        (void)it;
        if (inserted) ++memo_count_;
        return nullptr;
    }
    const char* memo_get(std::uint64_t idx) {
        Ref v = nullptr;
        if (idx < memo_dense_.size()) v = memo_dense_[idx];
        else if (auto it = memo_sparse_.find(idx); it != memo_sparse_.end()) v = it->second;
        if (!v) return "memo reference to an index that was never stored";
        return push(v);
    }

    // ---- scalars ------------------------------------------------------------------------
    const char* push_int(std::int64_t i) {
        Value* v = node(Kind::integer);
        if (v) v->scalar_.i = i;
        return push(v);
    }
    const char* push_big(std::string_view le) {
        le = minimal_le(le);
        std::int64_t small = 0;
        if (le_to_int64(le, small)) return push_int(small);
        Value* v = node(Kind::integer);
        if (v) v->text_ = le;
        return push(v);
    }
    const char* push_text(Kind k, std::string_view s) {
        Value* v = node(k);
        if (v) v->text_ = s;
        return push(v);
    }
    const char* push_utf8(std::string_view s) {
        if (!valid_utf8(s)) return "invalid UTF-8 in a str";
        return push_text(Kind::string, s);
    }
    const char* push_decimal(std::string_view text, bool is_long) {
        if (is_long && !text.empty() && text.back() == 'L') text.remove_suffix(1);
        if (!is_long && (text == "00" || text == "01")) {  // protocol 0 booleans
            Value* v = node(Kind::boolean);
            if (v) v->scalar_.b = text == "01";
            return push(v);
        }
        std::int64_t small = 0;
        std::string big;
        if (const char* why = parse_decimal_int(text, small, big)) return why;
        if (big.empty()) return push_int(small);
        return push_big(own(std::move(big)));
    }
    const char* push_float(double f) {
        Value* v = node(Kind::floating);
        if (v) v->scalar_.f = f;
        return push(v);
    }
    const char* push_global(std::string_view module, std::string_view name) {
        Value* v = node(Kind::global);
        if (!v) return push(v);
        v->text_ = module;
        more(v).name = name;
        return push(v);
    }

    // ---- containers and calls -----------------------------------------------------------
    const char* push_seq(Kind k, std::vector<Ref> items) {
        Value* v = node(k);
        if (v && !items.empty()) more(v).items = std::move(items);
        return push(v);
    }
    const char* push_call(Ref callable, Ref args, Ref kwargs, bool newobj) {
        Value* v = node(Kind::call);
        if (!v) return push(v);
        auto& m = more(v);
        m.callable = callable;
        m.args = args;
        m.kwargs = kwargs;
        if (newobj) v->flags_ |= Value::kNewobj;
        return push(v);
    }
    // APPEND(S) / ADDITEMS target: a list (set for ADDITEMS) or an object that takes them.
    // The values come straight off the stack: no temporary vector per APPEND or SETITEM.
    const char* add_items(Ref target, Kind want, std::span<const Ref> values) {
        if (!(target->kind() == want || target->kind() == Kind::call))
            return want == Kind::set ? "ADDITEMS to something that is not a set"
                                     : "APPEND to something that is not a list";
        auto& items = more(mut(target)).items;
        items.insert(items.end(), values.begin(), values.end());
        return nullptr;
    }
    const char* set_items(Ref target, std::span<const Ref> kv) {
        if (!(target->kind() == Kind::dict || target->kind() == Kind::call))
            return "SETITEM on something that is not a dict";
        auto& entries = more(mut(target)).entries;
        // Grow geometrically (a plain reserve per SETITEM would copy the entries every time).
        if (std::size_t need = entries.size() + kv.size() / 2; need > entries.capacity())
            entries.reserve(std::max(need, 2 * entries.capacity()));
        for (std::size_t i = 0; i + 1 < kv.size(); i += 2) entries.emplace_back(kv[i], kv[i + 1]);
        return nullptr;
    }

    const char* step(const RawArg& a);

    std::shared_ptr<Document> doc_;
    Limits limits_;
    std::string_view in_;
    std::size_t pos_ = 0, op_pos_ = 0;
    std::uint8_t code_ = 0;
    Errc failure_code_ = Errc::parse;
    std::vector<Ref> stack_;
    std::vector<std::size_t> marks_;
    std::vector<Ref> memo_dense_;
    std::unordered_map<std::uint64_t, Ref> memo_sparse_;
    std::size_t memo_count_ = 0;
    std::uint64_t next_buffer_ = 0;
    std::span<const Elision> elisions_;
    std::uint64_t source_size_ = 0, skipped_ = 0;
    std::size_t next_elision_ = 0;
    bool op_elided_ = false;
};

const char* Decoder::step(const RawArg& a) {
    switch (code_) {
        case op::PROTO:
            if (a.u > 5) return "unsupported pickle protocol (newer than 5)";
            doc_->protocol_ = static_cast<int>(a.u);
            return nullptr;
        case op::FRAME:
            // Frames only group opcodes for buffered reading; the whole input is in memory.
            if (a.u > source_size_ - (pos_ + skipped_)) return "FRAME length exceeds the bytes left";
            return nullptr;
        case op::MARK:
            if (marks_.size() >= limits_.max_depth) return limit("MARK nesting exceeds the depth limit");
            marks_.push_back(stack_.size());
            return nullptr;
        case op::POP:
            if (!marks_.empty() && stack_.size() == marks_.back()) marks_.pop_back();  // pops a MARK, as CPython
            else if (stack_.empty()) return "POP from an empty stack";
            else stack_.pop_back();
            return nullptr;
        case op::POP_MARK: {
            std::size_t k = 0;
            if (!take_mark(k)) return "POP_MARK without a MARK";
            stack_.resize(k);
            return nullptr;
        }
        case op::DUP:
            if (!check_stack(1)) return "DUP with an empty stack";
            return push(stack_.back());

        case op::NONE: return push(node(Kind::none));
        case op::NEWTRUE:
        case op::NEWFALSE: {
            Value* v = node(Kind::boolean);
            if (v) v->scalar_.b = code_ == op::NEWTRUE;
            return push(v);
        }
        case op::BININT: return push_int(a.i);
        case op::BININT1:
        case op::BININT2: return push_int(static_cast<std::int64_t>(a.u));
        case op::INT: return push_decimal(a.data, false);
        case op::LONG: return push_decimal(a.data, true);
        case op::LONG1:
        case op::LONG4: return push_big(a.data);
        case op::BINFLOAT: return push_float(a.f);
        case op::FLOAT: {
            std::string t(a.data);
            char* end = nullptr;
            double f = std::strtod(t.c_str(), &end);  // Python's float() text: digits, inf, nan
            if (t.empty() || end != t.c_str() + t.size()) return "invalid FLOAT text";
            return push_float(f);
        }

        case op::SHORT_BINUNICODE:
        case op::BINUNICODE:
        case op::BINUNICODE8: return push_utf8(a.data);
        case op::UNICODE: {
            std::string s;
            if (const char* why = decode_raw_unicode_escape(a.data, s)) return why;
            return push_text(Kind::string, own(std::move(s)));
        }
        case op::STRING: {
            std::string s;
            if (const char* why = decode_string_escapes(a.data, s)) return why;
            return push_text(Kind::string, own(std::move(s)));
        }
        case op::BINSTRING:
        case op::SHORT_BINSTRING:
            // Python 2 str: ASCII stays a view; other bytes are read as latin-1.
            return push_text(Kind::string, is_ascii(a.data) ? a.data : own(latin1_to_utf8(a.data)));
        case op::BINBYTES:
        case op::SHORT_BINBYTES:
        case op::BINBYTES8: return push_bytes(Kind::bytes, a.data);
        case op::BYTEARRAY8: return push_bytes(Kind::bytearray, a.data);
        case op::NEXT_BUFFER: {
            Value* v = node(Kind::buffer);
            if (v) v->scalar_.u = next_buffer_++;
            return push(v);
        }
        case op::READONLY_BUFFER: {
            if (!check_stack(1)) return "READONLY_BUFFER with an empty stack";
            Ref top = stack_.back();
            if (top->kind() == Kind::buffer) mut(top)->flags_ |= Value::kReadonly;
            else if (top->kind() != Kind::bytes && top->kind() != Kind::bytearray)
                return "READONLY_BUFFER on a value that is not a buffer";
            return nullptr;
        }

        case op::EMPTY_LIST: return push(node(Kind::list));
        case op::EMPTY_TUPLE: return push(node(Kind::tuple));
        case op::EMPTY_DICT: return push(node(Kind::dict));
        case op::EMPTY_SET: return push(node(Kind::set));
        case op::LIST:
        case op::TUPLE:
        case op::FROZENSET: {
            std::vector<Ref> items;
            if (!pop_mark(items)) return "no MARK for the collection";
            Kind k = code_ == op::LIST ? Kind::list : code_ == op::TUPLE ? Kind::tuple : Kind::frozenset;
            return push_seq(k, std::move(items));
        }
        case op::TUPLE1:
        case op::TUPLE2:
        case op::TUPLE3: {
            std::size_t n = code_ - op::TUPLE1 + 1u;
            if (!check_stack(n)) return "not enough values on the stack for the tuple";
            std::vector<Ref> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
            stack_.resize(stack_.size() - n);
            return push_seq(Kind::tuple, std::move(items));
        }
        case op::DICT: {
            std::size_t k = 0;
            if (!take_mark(k)) return "no MARK for DICT";
            if ((stack_.size() - k) % 2) return "odd number of items for DICT";
            Value* v = node(Kind::dict);
            if (v) set_items(v, from(k));
            stack_.resize(k);
            return push(v);
        }
        case op::APPEND: {
            if (!check_stack(2)) return "APPEND needs a list and a value";
            const std::size_t k = stack_.size() - 1;
            const char* why = add_items(stack_[k - 1], Kind::list, from(k));
            stack_.resize(k);
            return why;
        }
        case op::APPENDS:
        case op::ADDITEMS: {
            std::size_t k = 0;
            if (!take_mark(k)) return "no MARK for APPENDS/ADDITEMS";
            if (k == 0 || k <= fence()) return "APPENDS/ADDITEMS without a target";
            const char* why = add_items(stack_[k - 1], code_ == op::APPENDS ? Kind::list : Kind::set, from(k));
            stack_.resize(k);
            return why;
        }
        case op::SETITEM: {
            if (!check_stack(3)) return "SETITEM needs a dict, a key and a value";
            const std::size_t k = stack_.size() - 2;
            const char* why = set_items(stack_[k - 1], from(k));
            stack_.resize(k);
            return why;
        }
        case op::SETITEMS: {
            std::size_t k = 0;
            if (!take_mark(k)) return "no MARK for SETITEMS";
            if ((stack_.size() - k) % 2) return "odd number of items for SETITEMS";
            if (k == 0 || k <= fence()) return "SETITEMS without a target";
            const char* why = set_items(stack_[k - 1], from(k));
            stack_.resize(k);
            return why;
        }

        case op::PUT: {
            std::int64_t idx = 0;
            std::string big;
            if (parse_decimal_int(a.data, idx, big) || !big.empty() || idx < 0) return "invalid PUT index";
            return memo_put(static_cast<std::uint64_t>(idx));
        }
        case op::BINPUT:
        case op::LONG_BINPUT: return memo_put(a.u);
        case op::MEMOIZE: return memo_put(memo_count_);
        case op::GET: {
            std::int64_t idx = 0;
            std::string big;
            if (parse_decimal_int(a.data, idx, big) || !big.empty() || idx < 0) return "invalid GET index";
            return memo_get(static_cast<std::uint64_t>(idx));
        }
        case op::BINGET:
        case op::LONG_BINGET: return memo_get(a.u);

        case op::GLOBAL:
            // CPython decodes the module and name as strict UTF-8.
            if (!valid_utf8(a.data) || !valid_utf8(a.data2)) return "GLOBAL module or name is not UTF-8";
            return push_global(a.data, a.data2);
        case op::STACK_GLOBAL: {
            if (!check_stack(2)) return "STACK_GLOBAL needs a module and a name";
            Ref name = pop();
            Ref module = pop();
            if (name->kind() != Kind::string || module->kind() != Kind::string) return "STACK_GLOBAL requires str";
            return push_global(module->text(), name->text());
        }
        case op::EXT1:
        case op::EXT2:
        case op::EXT4: {
            // An extension-registry code (copyreg); kept as a global that names the code.
            std::int64_t ext = code_ == op::EXT4 ? a.i : static_cast<std::int64_t>(a.u);
            if (ext <= 0) return "EXT code must be positive";
            return push_global("copyreg.extension", own(std::to_string(ext)));
        }
        case op::REDUCE: {
            if (!check_stack(2)) return "REDUCE needs a callable and arguments";
            Ref args = pop();
            Ref callable = pop();
            return push_call(callable, args, nullptr, false);
        }
        case op::NEWOBJ: {
            if (!check_stack(2)) return "NEWOBJ needs a class and arguments";
            Ref args = pop();
            Ref cls = pop();
            return push_call(cls, args, nullptr, true);
        }
        case op::NEWOBJ_EX: {
            if (!check_stack(3)) return "NEWOBJ_EX needs a class, arguments and keyword arguments";
            Ref kwargs = pop();
            Ref args = pop();
            Ref cls = pop();
            return push_call(cls, args, kwargs, true);
        }
        case op::INST: {
            if (!valid_utf8(a.data) || !valid_utf8(a.data2)) return "INST module or name is not UTF-8";
            std::vector<Ref> args;
            if (!pop_mark(args)) return "no MARK for INST";
            Value* cls = node(Kind::global);
            if (!cls) return limit("too many nodes");
            cls->text_ = a.data;
            more(cls).name = a.data2;
            Value* tup = node(Kind::tuple);
            if (!tup) return limit("too many nodes");
            if (!args.empty()) more(tup).items = std::move(args);
            return push_call(cls, tup, nullptr, false);
        }
        case op::OBJ: {
            std::vector<Ref> items;
            if (!pop_mark(items)) return "no MARK for OBJ";
            if (items.empty()) return "OBJ without a class";
            Ref cls = items.front();
            items.erase(items.begin());
            Value* tup = node(Kind::tuple);
            if (!tup) return limit("too many nodes");
            if (!items.empty()) more(tup).items = std::move(items);
            return push_call(cls, tup, nullptr, false);
        }
        case op::BUILD: {
            if (!check_stack(2)) return "BUILD needs an object and its state";
            Ref state = pop();
            Ref obj = stack_.back();
            if (obj->kind() != Kind::call) return "BUILD on a value that is not an object";
            more(mut(obj)).state = state;
            return nullptr;
        }
        case op::PERSID: {
            if (!is_ascii(a.data)) return "PERSID id is not ASCII";  // as CPython
            Value* v = node(Kind::persistent);
            if (v) v->text_ = a.data;
            return push(v);
        }
        case op::BINPERSID: {
            if (!check_stack(1)) return "BINPERSID with an empty stack";
            Ref pid = pop();
            return push_seq(Kind::persistent, {pid});
        }
    }
    return "opcode not handled";
}

Result<std::shared_ptr<const Document>> decode(std::shared_ptr<const Buffer> buffer, const Limits& limits) {
    if (!buffer) return make_error(Errc::invalid_argument, "no buffer to decode");
    return Decoder(std::move(buffer), limits).run();
}

Result<std::shared_ptr<const Document>> decode_bytes(std::string_view bytes, std::string origin, const Limits& limits) {
    return decode(own_bytes(std::string(bytes), std::move(origin)), limits);
}

Result<std::shared_ptr<const Document>> decode_file(const std::filesystem::path& path, const Limits& limits) {
    KILN_TRY(auto buffer, load_file(path));
    return decode(std::move(buffer), limits);
}

}  // namespace kiln::pickle
