#pragma once
// A real compiler behind a shell wrapper that records each call, so tests can prove a hit never
// runs the compiler. Control files in its directory change its behaviour:
//   slow -> sleep 0.5 s first (widens races)   hang -> write a partial output, then sleep (to be killed)
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.hpp"

namespace kiln::test {

class CountingCompiler {
public:
    CountingCompiler(const std::filesystem::path& dir, const std::string& real = "g++") : dir_(dir) {
        std::filesystem::create_directories(dir);
        path_ = dir / "counting-cxx";
        std::ofstream(path_) << "#!/bin/sh\n"
                             << "d='" << dir.string() << "'\n"
                             << "[ \"$1\" = --version ] && exec " << real << " --version\n"  // not a build
                             << "echo $$ >> \"$d/calls\"\n"
                             << "[ -f \"$d/slow\" ] && sleep 0.5\n"
                             << "if [ -f \"$d/hang\" ]; then\n"
                             << "  prev=; for a; do [ \"$prev\" = -o ] && printf partial > \"$a\"; prev=$a; done\n"
                             << "  echo $$ > \"$d/hang.pid\"\n"
                             << "  exec sleep 60\n"  // exec: the killed pid is the one holding our pipe
                             << "fi\n"
                             << "exec " << real << " \"$@\"\n";
        ::chmod(path_.c_str(), 0755);
    }
    const std::filesystem::path& path() const { return path_; }
    int calls() const {
        std::ifstream in(dir_ / "calls");
        int n = 0;
        for (std::string line; std::getline(in, line);) ++n;
        return n;
    }
    void set(const std::string& control, bool on) const {
        if (on) std::ofstream(dir_ / control) << "1";
        else std::filesystem::remove(dir_ / control);
    }
    std::filesystem::path dir() const { return dir_; }

private:
    std::filesystem::path dir_;
    std::filesystem::path path_;
};

inline constexpr const char* kAddOneSource = R"(
extern "C" int add_one(int x) { return x + 1; }
)";

}  // namespace kiln::test
