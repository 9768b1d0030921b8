#pragma once
// The simple Python values that environment-bound key components hold (str, None, bool, int,
// tuples, str-keyed dicts), with the two things Inductor derives from them: the printed form of a
// debug line (`str(value)`) and the component hash (`sha256_hash` of the value pickled by
// `FxGraphCachePickler`: the default protocol, `fast=True`, so no memo opcodes).
// Enough to recompute a component's hash from its value, and to tell which pickle protocol (4 up
// to Python 3.13, 5 from 3.14) made the hashes of a key.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace kiln::portability {

struct PyValue;
using PyTuple = std::vector<PyValue>;
using PyDict = std::vector<std::pair<std::string, PyValue>>;  // insertion order, str keys

struct PyValue {
    struct None {};
    std::variant<None, bool, std::int64_t, std::string, std::shared_ptr<PyTuple>, std::shared_ptr<PyDict>> v;

    static PyValue none() { return {}; }
    static PyValue boolean(bool b) { return {{b}}; }
    static PyValue integer(std::int64_t i) { return {{i}}; }
    static PyValue str(std::string s) { return {{std::move(s)}}; }
    static PyValue tuple(PyTuple items) { return {{std::make_shared<PyTuple>(std::move(items))}}; }
    static PyValue dict(PyDict items) { return {{std::make_shared<PyDict>(std::move(items))}}; }
};

// pickle.dumps(value, protocol) as CPython's Pickler writes it with fast=True. Protocols 2-5.
std::string py_pickle(const PyValue& value, int protocol);
// sha256_hash(py_pickle(value, protocol)): the 51-character component hash of a debug line.
std::string component_hash(const PyValue& value, int protocol);
// Python's str(value) (repr for the items inside containers), as a debug line prints it.
std::string py_str(const PyValue& value);
// Python's repr() of a str: single quotes unless the text has ' and no ", escapes as CPython.
std::string py_repr_str(const std::string& s);

}  // namespace kiln::portability
