#pragma once
// A Triton template choice's benchmark module (`<root>/<hh>/c<hash>.py`, written by Inductor's
// select_algorithm) read without running it: the kernel's name, its triton_meta signature in
// order (constexprs and `constants` marked), the config (config_args plus num_warps and
// num_stages), and the kernel body's size assignments (`M = ks0`, `stride_am = ks2`) that say
// which problem size each scalar argument carries.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "inductor/opened_root.hpp"
#include "util/result.hpp"

namespace kiln::retune {

struct TemplateModule {
    std::string path;
    std::string kernel;                                          // the def under @triton.jit
    std::vector<std::pair<std::string, std::string>> signature;  // name -> Triton type, in order
    std::vector<std::string> constants;                          // triton_meta's constants' names
    nlohmann::ordered_json config = nlohmann::ordered_json::object();
    std::map<std::string, std::string> assignments;  // "M" -> "ks0": simple `NAME = name` lines of the body
    bool tensor_descriptors = false;                 // a tensordesc argument or a device-side TMA descriptor
};

// The module `rel` beneath the opened root, read through its descriptor (path: path_beneath(root, rel)).
Result<TemplateModule> read_template_module(const inductor::OpenedRoot& root, std::string_view rel);
// The same from the module's text (tests, and files already read).
Result<TemplateModule> parse_template_module(const std::string& text, const std::string& path);

}  // namespace kiln::retune
