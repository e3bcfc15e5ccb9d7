// The C API from C++ (capi/tests/c_api.rs builds it against liboneshader_c.a and liboneshader_c.so
// and runs it, also under valgrind): the header compiles as C++, results are held by
// unique_ptr, and one compiler (with an include handler) serves several threads at once.
// argv[1] is the repository's root.

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "oneshader.h"

namespace {

struct ResultFree {
    void operator()(os_result *r) const { os_result_free(r); }
};
struct CompilerFree {
    void operator()(os_compiler *c) const { os_compiler_free(c); }
};
using Result = std::unique_ptr<os_result, ResultFree>;
using CompilerPtr = std::unique_ptr<os_compiler, CompilerFree>;

std::atomic<int> failures{0};

void check(bool ok, const std::string &what) {
    if (!ok) {
        failures++;
        std::fprintf(stderr, "check failed: %s\n", what.c_str());
    }
}

// The handler serves one header from memory; counts stay balanced across threads.
struct Includes {
    std::string header = "#define SCALE 3.0\n";
    std::atomic<int> loads{0};
    std::atomic<int> releases{0};
};

int load(void *user, const char *path, const uint8_t **data, size_t *len) {
    auto *inc = static_cast<Includes *>(user);
    std::string p(path);
    const std::string want = "scale.hlsli";
    if (p.size() < want.size() || p.compare(p.size() - want.size(), want.size(), want) != 0)
        return 1;
    inc->loads++;
    *data = reinterpret_cast<const uint8_t *>(inc->header.data());
    *len = inc->header.size();
    return 0;
}

void release(void *user, const uint8_t *, size_t) { static_cast<Includes *>(user)->releases++; }

std::string read(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: api_test REPO_ROOT\n");
        return 2;
    }
    const std::string root = argv[1];
    Includes inc;
    os_include_handler handler{load, release, &inc};
    const char *args[] = {"-T", "cs_6_0", "-E", "main", "-O3"};
    os_result *err = nullptr;
    CompilerPtr compiler(os_compiler_new(args, 5, &handler, &err));
    Result error(err);
    if (!compiler) {
        std::fprintf(stderr, "os_compiler_new: %s\n", os_result_message(error.get()));
        return 1;
    }

    // Several threads, one compiler, each compiling its own variant.
    const int threads = 4;
    std::vector<std::vector<uint8_t>> keys(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++) {
        pool.emplace_back([&, t] {
            std::string src = "#include \"scale.hlsli\"\nRWStructuredBuffer<float> o;\n"
                              "[numthreads(" + std::to_string(8 * (t + 1)) +
                              ", 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = SCALE * i; }\n";
            for (int round = 0; round < 2; round++) {
                Result r(os_compile(compiler.get(), "k.hlsl",
                                    reinterpret_cast<const uint8_t *>(src.data()), src.size(),
                                    nullptr, nullptr, OS_TARGET_SPIRV));
                check(os_result_status(r.get()) == OS_OK,
                      "thread " + std::to_string(t) + ": " +
                          os_result_diagnostics_text(r.get(), nullptr));
                size_t len = 0;
                const uint8_t *words = os_result_output(r.get(), &len);
                check(len > 20 && words[0] == 0x03, "SPIR-V from thread " + std::to_string(t));
                std::string refl = os_result_reflection(r.get(), nullptr);
                check(refl.find(std::to_string(8 * (t + 1))) != std::string::npos,
                      "the thread's own workgroup size");
                uint8_t key[16];
                check(os_result_module_key(r.get(), key), "a key");
                std::vector<uint8_t> k(key, key + 16);
                if (round == 0) keys[t] = k;
                else check(keys[t] == k, "the same source gives the same key");
            }
        });
    }
    for (auto &th : pool) th.join();
    check(inc.loads == 2 * threads && inc.loads == inc.releases,
          "loads " + std::to_string(inc.loads) + ", releases " + std::to_string(inc.releases));
    for (int a = 0; a < threads; a++)
        for (int b = a + 1; b < threads; b++) check(keys[a] != keys[b], "variants differ in key");

    // An example shader from disk, through a compiler without a handler (the disk is read).
    CompilerPtr disk(os_compiler_new(nullptr, 0, nullptr, nullptr));
    std::string path = root + "/examples/hlsl/textured.hlsl";
    std::string src = read(path);
    Result ps(os_compile(disk.get(), path.c_str(), reinterpret_cast<const uint8_t *>(src.data()),
                         src.size(), "PSMain", "ps_6_0", OS_TARGET_GLSL));
    check(os_result_status(ps.get()) == OS_OK, os_result_diagnostics_text(ps.get(), nullptr));
    std::string glsl(reinterpret_cast<const char *>(os_result_output(ps.get(), nullptr)));
    check(glsl.find("#version 450") != std::string::npos, "GLSL: " + glsl.substr(0, 80));

    // A bad shader: the diagnostic's position.
    const char *bad = "[numthreads(1,1,1)]\nvoid main() { undefined_call(); }\n";
    Result r(os_compile(compiler.get(), "bad.hlsl", reinterpret_cast<const uint8_t *>(bad),
                        std::strlen(bad), nullptr, nullptr, OS_TARGET_SPIRV));
    os_diagnostic d{};
    check(os_result_status(r.get()) == OS_ERROR_COMPILE && os_result_diagnostic(r.get(), 0, &d) &&
              std::string(d.file) == "bad.hlsl" && d.line == 2 && d.column == 15,
          std::string("bad shader: ") + os_result_diagnostics_text(r.get(), nullptr));

    if (failures) {
        std::fprintf(stderr, "%d checks failed\n", failures.load());
        return 1;
    }
    std::printf("all checks passed\n");
    return 0;
}
