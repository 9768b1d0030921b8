#include "portability/cache_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <string_view>
#include <tuple>

#include <nlohmann/json.hpp>

#include "hash/sha256.hpp"
#include "portability/key_env.hpp"
#include "portability/py_value.hpp"
#include "util/python_json.hpp"
#include "util/regular_file.hpp"
#include "util/text_scan.hpp"

namespace kiln::portability {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

namespace {

// At most `max` bytes from the start of a file (a relative path: relative to `dirfd`).
Result<OpenedFile> open_with_dir(int dirfd, const fs::path& path) {
    if (dirfd == AT_FDCWD || path.is_absolute()) return open_regular_file(path);
    return open_regular_file_at(dirfd, path.c_str(), path.string());
}

Result<std::string> read_prefix(const fs::path& path, std::size_t max, int dirfd = AT_FDCWD) {
    // util's open: O_NOATIME where permitted, regular files only (a FIFO never blocks).
    KILN_TRY(OpenedFile file, open_with_dir(dirfd, path));
    return kiln::read_prefix(file, std::min<std::uint64_t>(max, file.size + 1), path.string());
}

PyValue to_py(const ojson& j) {
    if (j.is_string()) return PyValue::str(j.get<std::string>());
    if (j.is_boolean()) return PyValue::boolean(j.get<bool>());
    if (j.is_number_integer()) return PyValue::integer(j.get<std::int64_t>());
    if (j.is_object()) {
        PyDict d;
        for (const auto& [k, v] : j.items()) d.emplace_back(k, to_py(v));
        return PyValue::dict(std::move(d));
    }
    return PyValue::none();
}

}  // namespace

Fingerprint TimingCacheSystem::as_components(const std::string& source) const {
    Fingerprint fp;
    fp.origin = source;
    auto add = [&](std::string_view name, const std::string& value, bool absent) {
        fp.set({std::string(name), value, "", scope_of(name), true, absent, false, false, source});
    };
    add(names::device, has_device ? device_value : "(not in the key: no GPU in that process)", !has_device);
    add(names::version, has_device ? version_value : "(not in the key: no GPU in that process)", !has_device);
    add(names::system_hash, hash, false);
    return fp;
}

Result<TimingCacheSystem> read_timing_system(const fs::path& file, std::string rel_path, int dirfd) {
    KILN_TRY(std::string text, read_prefix(file, 1 << 20, dirfd));
    std::size_t key = text.find("\"system\"");
    std::size_t open = key == std::string::npos ? key : text.find('{', key);
    std::string_view block = open == std::string::npos ? std::string_view() : kiln::json_object_at(text, open);
    if (block.empty())
        return make_error(Errc::parse, "no \"system\" object in the first MB of the timing cache", file.string(),
                          "an Inductor timing cache starts with {\"system\": {...}, \"cache\": ...}");
    ojson sys = ojson::parse(block, nullptr, false);
    if (sys.is_discarded() || !sys.is_object())
        return make_error(Errc::parse, "the \"system\" block is not JSON", file.string());
    TimingCacheSystem out;
    out.rel_path = std::move(rel_path);
    out.hash = sys.contains("hash") && sys["hash"].is_string() ? sys["hash"].get<std::string>() : std::string();
    if (sys.contains("device") && sys["device"].is_object()) {
        out.has_device = true;
        out.device_value = py_str(to_py(sys["device"]));
        const auto& d = sys["device"];
        out.device_name = d.contains("name") && d["name"].is_string() ? d["name"].get<std::string>() : std::string();
        out.version_value = sys.contains("version") ? py_str(to_py(sys["version"])) : std::string("{}");
    }
    return out;
}

std::vector<TimingCacheSystem> read_timing_systems(const fs::path& root) {
    std::vector<TimingCacheSystem> out;
    std::error_code ec;
    std::vector<fs::path> files;
    for (fs::directory_iterator it(root / "cache", ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().filename().string().size() == 64) files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
        if (auto s = read_timing_system(f, "cache/" + f.filename().string())) out.push_back(std::move(s).value());
    return out;
}

namespace {

// Triton writes its metadata with json.dumps (", " and ": "): the fields needed are found without a
// full parse: the "target" object (parsed on its own), and the top-level "triton_version",
// "ptx_version" and "name" (the last key). Anything else falls back to a full parse.
std::optional<TritonTarget> quick_triton_meta(std::string_view text) {
    std::size_t t = text.find("\"target\": {");
    std::string_view obj = t == std::string_view::npos ? std::string_view() : kiln::json_object_at(text, t + 10);
    ojson target = obj.empty() ? ojson() : ojson::parse(obj, nullptr, false);
    if (!target.is_object()) return std::nullopt;
    auto string_after = [&](std::string_view key, bool last) -> std::optional<std::string> {
        std::size_t k = last ? text.rfind(key) : text.find(key);
        if (k == std::string_view::npos) return std::nullopt;
        std::size_t v = k + key.size();
        if (text.substr(v, 4) == "null") return std::string();
        if (v >= text.size() || text[v] != '"') return std::nullopt;
        std::size_t end = text.find('"', v + 1);
        if (end == std::string_view::npos) return std::nullopt;
        return std::string(text.substr(v + 1, end - v - 1));
    };
    auto version = string_after("\"triton_version\": ", false);
    auto ptx = string_after("\"ptx_version\": ", false);
    auto name = string_after(", \"name\": ", true);
    if (!version || !name) return std::nullopt;
    auto text_of = [](const ojson& v) {
        return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
    };
    TritonTarget out;
    out.kernel = *name;
    out.backend = text_of(target.value("backend", ojson()));
    out.arch = text_of(target.value("arch", ojson()));
    out.warp_size = text_of(target.value("warp_size", ojson()));
    out.triton_version = *version;
    out.ptx_version = ptx.value_or(std::string());
    return out;
}

}  // namespace

Result<TritonTarget> read_triton_target(const fs::path& dir, const std::vector<std::string>& files, int dirfd) {
    std::vector<std::string> listed;
    if (files.empty()) {
        std::error_code ec;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            listed.push_back(it->path().filename().string());
    }
    fs::path meta;
    std::string abi;
    for (const auto& n : files.empty() ? listed : files) {
        if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0 && n.rfind("__grp__", 0) != 0) {
            meta = dir / n;
            break;
        }
        // cuda_utils.cpython-312-x86_64-linux-gnu.so: Triton's launcher, built for one Python ABI.
        if (auto p = n.find(".cpython-");
            p != std::string::npos && n.size() > 3 && n.compare(n.size() - 3, 3, ".so") == 0)
            abi = n.substr(p + 1, n.find('-', p + 9) - p - 1);
    }
    if (meta.empty() && !abi.empty()) {
        TritonTarget out;
        out.kernel = dir.filename().string();
        out.python_abi = abi;
        return out;
    }
    if (meta.empty()) return make_error(Errc::not_found, "no <kernel>.json in the Triton kernel dir", dir.string());
    KILN_TRY(std::string text, read_prefix(meta, 1 << 20, dirfd));
    if (auto quick = quick_triton_meta(text)) return *quick;
    ojson j = ojson::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("target") || !j["target"].is_object())
        return make_error(Errc::parse, "Triton metadata without a \"target\" object", meta.string());
    auto text_of = [](const ojson& v) {
        return v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump();
    };
    const ojson& t = j["target"];
    TritonTarget out;
    out.kernel = text_of(j.value("name", ojson()));
    out.backend = text_of(t.value("backend", ojson()));
    out.arch = text_of(t.value("arch", ojson()));
    out.warp_size = text_of(t.value("warp_size", ojson()));
    out.triton_version = text_of(j.value("triton_version", ojson()));
    out.ptx_version = text_of(j.value("ptx_version", ojson()));
    return out;
}

std::optional<std::pair<std::string, std::string>> common_triton_arch(const fs::path& root) {
    std::optional<std::pair<std::string, std::string>> found;
    std::error_code ec;
    for (fs::directory_iterator dev(root / "triton", ec), end; !ec && dev != end; dev.increment(ec)) {
        std::error_code ec2;
        for (fs::directory_iterator k(dev->path(), ec2); !ec2 && k != end; k.increment(ec2)) {
            auto t = read_triton_target(k->path());
            if (!t || t->arch.empty()) continue;  // unreadable, or a launcher module
            if (!found) found = {{t->arch, fs::relative(k->path(), root, ec2).generic_string()}};
            else if (found->first != t->arch) return std::nullopt;
        }
    }
    return found;
}

std::string best_config_name(std::string_view module_basename, const std::string& tag,
                             const std::string& torch_key_hex) {
    if (torch_key_hex.size() != 64 || !std::all_of(torch_key_hex.begin(), torch_key_hex.end(),
                                                   [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
        return {};
    std::string inner = hash::sha256_hex(std::string(module_basename) + ":" + tag);
    std::string key;
    for (std::size_t i = 0; i + 1 < torch_key_hex.size(); i += 2)
        key += static_cast<char>(std::stoi(torch_key_hex.substr(i, 2), nullptr, 16));
    return hash::sha256_hex(inner + key);
}

KernelModuleTarget read_kernel_module_target(const fs::path& module, int dirfd) {
    KernelModuleTarget out;
    auto text = read_prefix(module, 16 * 1024, dirfd);
    if (!text) return out;
    if (auto props = find_device_properties(*text)) {
        out.multi_processor_count = props->multi_processor_count;
        out.cc = props->cc;
        out.warp_size = props->warp_size;
    }
    out.backend_hash = find_backend_hash(*text);
    return out;
}

std::optional<DevicePropertiesText> find_device_properties(std::string_view text) {
    using namespace scan;
    constexpr std::string_view head = "DeviceProperties(type='";
    std::size_t paren = 0;  // the first ')' at or after the last place asked (npos: none)
    for (std::size_t at = text.find(head); at != std::string_view::npos; at = text.find(head, at + 1)) {
        DevicePropertiesText out;
        std::size_t p = at + head.size();
        // Each field: the literal before it, then its \w+ or \d+ run.
        for (auto [literal, value, word] : {std::tuple<std::string_view, std::string*, bool>{"", &out.type, true},
                                            {"', index=", nullptr, false},
                                            {", multi_processor_count=", &out.multi_processor_count, false},
                                            {", cc=", &out.cc, false}}) {
            if (p == std::string_view::npos || !has_at(text, p, literal)) {
                p = std::string_view::npos;
                break;
            }
            const std::size_t start = p + literal.size(),
                              end = word ? skip_word(text, start) : skip_digits(text, start);
            if (end == start) {
                p = std::string_view::npos;
                break;
            }
            if (value) *value = std::string(text.substr(start, end - start));
            p = end;
        }
        if (p == std::string_view::npos || !has_at(text, p, ",")) continue;
        // `,[^)]*warp_size=(\d+)\)`: the text before the first ')' ends in warp_size=<digits>.
        if (paren != std::string_view::npos && paren < p + 1) paren = text.find(')', p + 1);
        if (paren == std::string_view::npos) return std::nullopt;  // no later match can close either
        std::size_t digits = paren;
        while (digits > p + 1 && is_digit(text[digits - 1])) --digits;
        constexpr std::string_view warp = "warp_size=";
        if (digits == paren || digits < p + 1 + warp.size() || !has_at(text, digits - warp.size(), warp)) continue;
        out.warp_size = std::string(text.substr(digits, paren - digits));
        return out;
    }
    return std::nullopt;
}

std::string find_backend_hash(std::string_view text, std::size_t digits) {
    constexpr std::string_view head = "'backend_hash': '";
    for (std::size_t at = text.find(head); at != std::string_view::npos; at = text.find(head, at + 1)) {
        const std::size_t start = at + head.size();
        const std::size_t end =
            scan::skip_while(text, start, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
        if (end > start && (digits == 0 || end - start == digits) && scan::has_at(text, end, "'"))
            return std::string(text.substr(start, end - start));
    }
    return {};
}

std::string python_abi_of(const std::string& v) {
    std::size_t dot1 = v.find('.');
    std::size_t dot2 = dot1 == std::string::npos ? dot1 : v.find_first_not_of("0123456789", dot1 + 1);
    if (dot1 == std::string::npos || dot1 == 0) return {};
    return "cpython-" + v.substr(0, dot1) +
           v.substr(dot1 + 1, (dot2 == std::string::npos ? v.size() : dot2) - dot1 - 1);
}

std::string triton_version_of_key(const std::string& key) {
    std::string first = key.substr(0, key.find('-'));
    if (first.size() <= 64) return {};
    std::string tail = first.substr(first.size() - 64);
    if (!std::all_of(tail.begin(), tail.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
        return {};
    return first.substr(0, first.size() - 64);
}

}  // namespace kiln::portability
