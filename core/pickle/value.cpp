#include "pickle/value.hpp"

#include <cstdio>

#include "pickle/buffer.hpp"
#include "pickle/text.hpp"

namespace kiln::pickle {

const char* kind_name(Kind k) {
    switch (k) {
        case Kind::none: return "none";
        case Kind::boolean: return "bool";
        case Kind::integer: return "int";
        case Kind::floating: return "float";
        case Kind::string: return "str";
        case Kind::bytes: return "bytes";
        case Kind::bytearray: return "bytearray";
        case Kind::list: return "list";
        case Kind::tuple: return "tuple";
        case Kind::dict: return "dict";
        case Kind::set: return "set";
        case Kind::frozenset: return "frozenset";
        case Kind::global: return "global";
        case Kind::call: return "object";
        case Kind::persistent: return "persistent_id";
        case Kind::buffer: return "out_of_band_buffer";
    }
    return "?";
}

namespace {
const std::vector<Ref> kNoItems;
const std::vector<Entry> kNoEntries;
}  // namespace

Int Value::as_int() const {
    if (kind_ == Kind::boolean) return Int{scalar_.b ? 1 : 0, {}};
    if (kind_ != Kind::integer) return Int{};
    return Int{scalar_.i, text_};
}

std::string_view Value::name() const { return more_ ? more_->name : std::string_view{}; }
const std::vector<Ref>& Value::items() const { return more_ ? more_->items : kNoItems; }
const std::vector<Entry>& Value::entries() const { return more_ ? more_->entries : kNoEntries; }
Ref Value::callable() const { return more_ ? more_->callable : nullptr; }
Ref Value::args() const { return more_ ? more_->args : nullptr; }
Ref Value::kwargs() const { return more_ ? more_->kwargs : nullptr; }
Ref Value::state() const { return more_ ? more_->state : nullptr; }

bool Value::is_container() const {
    switch (kind_) {
        case Kind::list:
        case Kind::tuple:
        case Kind::dict:
        case Kind::set:
        case Kind::frozenset:
        case Kind::call:
        case Kind::persistent: return true;
        default: return false;
    }
}

std::size_t Value::size() const {
    if (kind_ == Kind::dict) return entries().size();
    if (kind_ == Kind::call) return items().size() + entries().size();
    return items().size();
}

std::string Value::qualified_name() const {
    if (kind_ != Kind::global) return {};
    std::string s(text_);
    s += '.';
    s += name();
    return s;
}

std::string Value::call_type() const {
    Ref c = callable();
    return (kind_ == Kind::call && c) ? c->qualified_name() : std::string{};
}

Ref Value::get(std::string_view key) const {
    const Value* d = this;
    if (kind_ == Kind::call) d = state();
    if (!d || d->kind_ != Kind::dict) return nullptr;
    const auto& es = d->entries();
    for (auto it = es.rbegin(); it != es.rend(); ++it)
        if (it->first->kind_ == Kind::string && it->first->text_ == key) return it->second;
    return nullptr;
}

std::string_view Document::bytes() const { return buffer_ ? buffer_->bytes() : std::string_view{}; }

namespace {

void append_quoted(std::string& out, std::string_view s, std::size_t budget) {
    out += '\'';
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        // Stop only between characters so the result stays valid UTF-8.
        if (out.size() >= budget && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            out += "...";
            break;
        }
        if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\'' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
            out += buf;
        } else out += c;
    }
    out += '\'';
}

void repr_into(std::string& out, Ref v, std::size_t budget, int depth) {
    if (out.size() >= budget) return;
    if (!v) {
        out += "<null>";
        return;
    }
    switch (v->kind()) {
        case Kind::none: out += "None"; return;
        case Kind::boolean: out += v->as_bool() ? "True" : "False"; return;
        case Kind::integer: out += v->as_int().to_decimal(); return;
        case Kind::floating: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.17g", v->as_double());
            out += buf;
            return;
        }
        case Kind::string: append_quoted(out, v->text(), budget); return;
        case Kind::bytes:
        case Kind::bytearray:
            out += '<';
            out += kind_name(v->kind());
            out += " of ";
            out += std::to_string(v->text().size());
            out += '>';
            return;
        case Kind::global: out += v->qualified_name(); return;
        case Kind::buffer:
            out += "<out-of-band buffer ";
            out += std::to_string(v->buffer_index());
            out += '>';
            return;
        case Kind::persistent: out += "persistent_id("; break;
        case Kind::call: {
            std::string t = v->call_type();
            out += t.empty() ? "<call>" : t;
            out += '(';
            break;
        }
        case Kind::list: out += '['; break;
        case Kind::tuple: out += '('; break;
        case Kind::dict:
        case Kind::set: out += '{'; break;
        case Kind::frozenset: out += "frozenset({"; break;
    }
    if (depth > 3) {
        out += "...";
    } else if (v->kind() == Kind::call) {
        Ref a = v->args();
        if (a && a->size()) repr_into(out, a, budget, depth + 1);
    } else {
        bool first = true;
        for (Ref item : v->items()) {
            if (!first) out += ", ";
            first = false;
            if (out.size() >= budget) {
                out += "...";
                break;
            }
            repr_into(out, item, budget, depth + 1);
        }
        for (const auto& [k, val] : v->entries()) {
            if (!first) out += ", ";
            first = false;
            if (out.size() >= budget) {
                out += "...";
                break;
            }
            repr_into(out, k, budget, depth + 1);
            out += ": ";
            repr_into(out, val, budget, depth + 1);
        }
    }
    switch (v->kind()) {
        case Kind::list: out += ']'; break;
        case Kind::tuple: out += v->size() == 1 ? ",)" : ")"; break;
        case Kind::dict:
        case Kind::set: out += '}'; break;
        case Kind::frozenset: out += "})"; break;
        default: out += ')';
    }
}

}  // namespace

std::string short_repr(Ref v, std::size_t max_chars) {
    std::string out;
    repr_into(out, v, max_chars, 0);
    if (out.size() > max_chars + 3) {
        out.resize(utf8_prefix(out, max_chars).size());
        out += "...";
    }
    return out;
}

std::vector<Child> children(Ref v) {
    std::vector<Child> out;
    if (!v) return out;
    if (v->kind() == Kind::call) {
        if (v->callable()) out.push_back({"callable", v->callable()});
        if (v->args()) out.push_back({"args", v->args()});
        if (v->kwargs()) out.push_back({"kwargs", v->kwargs()});
        if (v->state()) out.push_back({"state", v->state()});
    }
    const auto& items = v->items();
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string label = std::to_string(i);
        label.insert(label.begin(), '[');
        label += ']';
        out.push_back({std::move(label), items[i]});
    }
    for (const auto& [k, val] : v->entries()) out.push_back({short_repr(k, 60), val});
    return out;
}

}  // namespace kiln::pickle
