/* The C API driven from C (capi/tests/c_api.rs builds this against liboneshader_c.a and
 * liboneshader_c.so and runs it, also under valgrind). argv[1] is the repository's root.
 * Prints one line per failed check and exits 1 when any failed. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oneshader.h"

static int failures = 0;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fprintf(stderr, "\n");                                          \
        }                                                                   \
    } while (0)

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    buf[n] = 0;
    *len = (size_t)n;
    return buf;
}

static os_compiler *new_compiler(const char *const *args, size_t n, const os_include_handler *h) {
    os_result *err = NULL;
    os_compiler *c = os_compiler_new(args, n, h, &err);
    if (!c) {
        fprintf(stderr, "os_compiler_new failed: %s\n", os_result_message(err));
        os_result_free(err);
        exit(2);
    }
    return c;
}

static int is_spirv(const os_result *r) {
    size_t len = 0;
    const uint8_t *p = os_result_output(r, &len);
    return len >= 20 && len % 4 == 0 && p[0] == 0x03 && p[1] == 0x02 && p[2] == 0x23 && p[3] == 0x07;
}

/* Every example shader, for SPIR-V and for each text target. */
static void examples(const char *root) {
    static const struct { const char *file, *entry, *profile; } shaders[] = {
        {"blur.hlsl", "main", "cs_6_0"},      {"histogram.hlsl", "main", "cs_6_0"},
        {"particles.hlsl", "main", "cs_6_0"}, {"prefix_sum.hlsl", "main", "cs_6_0"},
        {"tonemap.hlsl", "main", "cs_6_0"},   {"textured.hlsl", "VSMain", "vs_6_0"},
        {"textured.hlsl", "PSMain", "ps_6_0"}, {"lit.hlsl", "VSMain", "vs_6_0"},
        {"lit.hlsl", "PSMain", "ps_6_0"},
    };
    static const char *const args[] = {"-fspv-target-env=vulkan1.2"};
    os_compiler *c = new_compiler(args, 1, NULL);
    for (size_t i = 0; i < sizeof shaders / sizeof shaders[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/examples/hlsl/%s", root, shaders[i].file);
        size_t len;
        char *src = read_file(path, &len);
        os_result *r = os_compile(c, path, (const uint8_t *)src, len, shaders[i].entry,
                                  shaders[i].profile, OS_TARGET_SPIRV);
        CHECK(os_result_status(r) == OS_OK, "%s %s: %s", path, shaders[i].entry,
              os_result_diagnostics_text(r, NULL));
        CHECK(is_spirv(r), "%s: not SPIR-V", path);
        size_t rlen = 0;
        const char *refl = os_result_reflection(r, &rlen);
        CHECK(refl && rlen == strlen(refl) && strstr(refl, "\"entry_points\""), "%s: reflection", path);
        CHECK(os_result_dependency_count(r) >= 1 &&
                  strcmp(os_result_dependency(r, 0), path) == 0,
              "%s: first dependency %s", path, os_result_dependency(r, 0));
        CHECK(os_result_dependency(r, os_result_dependency_count(r)) == NULL, "past the end");
        if (strcmp(shaders[i].file, "lit.hlsl") == 0) {
            CHECK(os_result_dependency_count(r) == 2 &&
                      strstr(os_result_dependency(r, 1), "lighting.hlsli"),
                  "lit.hlsl reads lighting.hlsli");
        }
        /* The key computed before compiling is the compilation's. */
        uint8_t key[16], pre[16], out_key[16], pre_out[16];
        CHECK(os_result_module_key(r, key) && os_result_output_key(r, out_key), "keys");
        os_result *k = os_compiler_key(c, path, (const uint8_t *)src, len, shaders[i].entry,
                                       shaders[i].profile, OS_TARGET_SPIRV);
        CHECK(os_result_status(k) == OS_OK && os_result_module_key(k, pre) &&
                  os_result_output_key(k, pre_out),
              "os_compiler_key: %s", os_result_message(k));
        CHECK(memcmp(key, pre, 16) == 0 && memcmp(out_key, pre_out, 16) == 0,
              "%s: key before compiling differs", path);
        os_result_free(k);
        os_result_free(r);

        static const os_target texts[] = {OS_TARGET_GLSL, OS_TARGET_WGSL, OS_TARGET_MSL,
                                          OS_TARGET_SPIRV_ASM, OS_TARGET_IR};
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
            r = os_compile(c, path, (const uint8_t *)src, len, shaders[i].entry,
                           shaders[i].profile, texts[t]);
            size_t olen = 0;
            const char *text = (const char *)os_result_output(r, &olen);
            CHECK(os_result_status(r) == OS_OK && olen > 0 && strlen(text) == olen,
                  "%s target %u: %s", path, texts[t], os_result_message(r));
            os_result_free(r);
        }
        free(src);
    }
    os_compiler_free(c);
}

/* Errors carry their positions, one diagnostic at a time and rendered. */
static void diagnostics(void) {
    os_compiler *c = new_compiler(NULL, 0, NULL);
    const char *bad = "float4 main() : SV_Target\n{\n    return missing;\n}\n";
    os_result *r = os_compile(c, "shaders/bad.hlsl", (const uint8_t *)bad, strlen(bad), "main",
                              "ps_6_0", OS_TARGET_SPIRV);
    CHECK(os_result_status(r) == OS_ERROR_COMPILE, "status %u", os_result_status(r));
    CHECK(os_result_diagnostic_count(r) == 1, "count %zu", os_result_diagnostic_count(r));
    os_diagnostic d;
    CHECK(os_result_diagnostic(r, 0, &d), "diagnostic 0");
    CHECK(d.severity == OS_SEVERITY_ERROR, "severity %u", d.severity);
    CHECK(strcmp(d.code, "OSH1001") == 0, "code %s", d.code);
    CHECK(strcmp(d.file, "shaders/bad.hlsl") == 0, "file %s", d.file);
    CHECK(d.line == 3 && d.column == 12, "at %u:%u", d.line, d.column);
    CHECK(strstr(d.message, "missing") != NULL, "message %s", d.message);
    CHECK(!os_result_diagnostic(r, 1, &d), "index past the end");
    CHECK(!os_result_diagnostic(r, 0, NULL), "null out");
    const char *text = os_result_diagnostics_text(r, NULL);
    CHECK(strstr(text, "shaders/bad.hlsl:3:12: error[OSH1001]") != NULL, "rendered: %s", text);
    CHECK(strstr(os_result_message(r), "shaders/bad.hlsl:3:12") != NULL, "message: %s",
          os_result_message(r));
    size_t len = 99;
    os_result_output(r, &len);
    CHECK(len == 0, "no output on failure");
    CHECK(os_result_reflection(r, NULL) == NULL, "no reflection on failure");
    uint8_t key[16];
    CHECK(!os_result_module_key(r, key), "no key on failure");
    os_result_free(r);

    /* A warning on success: -WX turns it into an error. */
    const char *warn = "float4 main() : SV_Target { int z = 0; return 1 / z + 1 / 0; }";
    r = os_compile(c, "warn.hlsl", (const uint8_t *)warn, strlen(warn), "main", "ps_6_0",
                   OS_TARGET_SPIRV);
    CHECK(os_result_status(r) == OS_OK, "%s", os_result_diagnostics_text(r, NULL));
    int warned = 0;
    for (size_t i = 0; i < os_result_diagnostic_count(r); i++) {
        os_result_diagnostic(r, i, &d);
        warned |= d.severity == OS_SEVERITY_WARNING && d.line == 1 && d.column > 0;
    }
    CHECK(warned, "a positioned warning: %s", os_result_diagnostics_text(r, NULL));
    os_result_free(r);
    os_compiler_free(c);

    static const char *const wx[] = {"-WX"};
    c = new_compiler(wx, 1, NULL);
    r = os_compile(c, "warn.hlsl", (const uint8_t *)warn, strlen(warn), "main", "ps_6_0",
                   OS_TARGET_SPIRV);
    CHECK(os_result_status(r) == OS_ERROR_COMPILE &&
              strstr(os_result_diagnostics_text(r, NULL), "OSC0060"),
          "-WX: %s", os_result_diagnostics_text(r, NULL));
    os_result_free(r);
    os_compiler_free(c);
}

static const char LIBRARY[] =
    "export float scale(float x, float k) { return x * k; }\n"
    "export void accumulate(inout float total, float x) { total += x; }\n";

static const char SHADER[] =
    "float scale(float x, float k);\n"
    "void accumulate(inout float total, float x);\n"
    "RWStructuredBuffer<float> data;\n"
    "[numthreads(4, 1, 1)]\n"
    "void main(uint id : SV_DispatchThreadID) {\n"
    "    float t = 1.0;\n"
    "    accumulate(t, data[id]);\n"
    "    data[id] = scale(t, 3.0);\n"
    "}\n";

static os_module *compile_osir(const os_compiler *c, const char *name, const char *src,
                               const char *profile) {
    os_result *r = os_compile(c, name, (const uint8_t *)src, strlen(src), "main", profile,
                              OS_TARGET_OSIR);
    CHECK(os_result_status(r) == OS_OK, "%s: %s", name, os_result_diagnostics_text(r, NULL));
    size_t len = 0;
    const uint8_t *bytes = os_result_output(r, &len);
    os_result *err = NULL;
    os_module *m = os_module_load(bytes, len, &err);
    CHECK(m != NULL, "load %s: %s", name, os_result_message(err));
    uint8_t a[16], b[16];
    CHECK(os_result_module_key(r, a) && os_module_key(m, b) && memcmp(a, b, 16) == 0,
          "the .osir carries the module key");
    os_result_free(err);
    os_result_free(r);
    return m;
}

/* Two .osir modules linked, then emitted for every target. */
static void linking(void) {
    os_compiler *c = new_compiler(NULL, 0, NULL);
    os_module *lib = compile_osir(c, "lib.hlsl", LIBRARY, "lib_6_3");
    os_module *shader = compile_osir(c, "shader.hlsl", SHADER, "cs_6_0");
    if (!lib || !shader) {
        os_module_free(lib);
        os_module_free(shader);
        os_compiler_free(c);
        return;
    }
    const os_module *inputs[] = {shader, lib};
    os_result *err = NULL;
    os_module *linked = os_module_link(inputs, 2, false, &err);
    CHECK(linked != NULL, "link: %s", os_result_diagnostics_text(err, NULL));
    os_result_free(err);

    os_result *r = os_compiler_emit(c, linked, "linked", NULL, OS_TARGET_SPIRV);
    CHECK(os_result_status(r) == OS_OK && is_spirv(r), "emit SPIR-V: %s",
          os_result_diagnostics_text(r, NULL));
    CHECK(os_result_reflection(r, NULL) && strstr(os_result_reflection(r, NULL), "\"data\""),
          "reflection of the linked module");
    os_result_free(r);
    static const os_target texts[] = {OS_TARGET_GLSL, OS_TARGET_WGSL, OS_TARGET_MSL};
    for (size_t t = 0; t < 3; t++) {
        r = os_compiler_emit(c, linked, "linked", NULL, texts[t]);
        const char *text = (const char *)os_result_output(r, NULL);
        CHECK(os_result_status(r) == OS_OK && strstr(text, "main"), "emit %u: %s", texts[t],
              os_result_diagnostics_text(r, NULL));
        os_result_free(r);
    }

    /* Saved and loaded again, the linked module is the same bytes with the same key. */
    os_result *saved = os_module_save(linked);
    size_t len = 0;
    const uint8_t *bytes = os_result_output(saved, &len);
    os_module *again = os_module_load(bytes, len, NULL);
    CHECK(again != NULL, "reload the linked module");
    os_result *saved2 = os_module_save(again);
    size_t len2 = 0;
    const uint8_t *bytes2 = os_result_output(saved2, &len2);
    CHECK(len == len2 && memcmp(bytes, bytes2, len) == 0, "save, load, save: same bytes");
    uint8_t k1[16], k2[16];
    CHECK(os_module_key(linked, k1) && os_result_module_key(saved, k2) && memcmp(k1, k2, 16) == 0,
          "linked key");
    os_result_free(saved2);
    os_module_free(again);

    /* A damaged copy: every byte flipped in turn in the header, and a few in the body. */
    uint8_t *copy = malloc(len);
    for (size_t i = 0; i < len; i += (i < 64 ? 1 : len / 16 + 1)) {
        memcpy(copy, bytes, len);
        copy[i] ^= 0x5a;
        os_result *e = NULL;
        os_module *m = os_module_load(copy, len, &e);
        CHECK(m == NULL && os_result_status(e) == OS_ERROR_INVALID_OSIR &&
                  os_result_diagnostic_count(e) >= 1,
              "flipped byte %zu: loaded anyway", i);
        os_module_free(m);
        os_result_free(e);
    }
    for (size_t n = 0; n < len; n += 7) {
        os_result *e = NULL;
        os_module *m = os_module_load(bytes, n, &e);
        CHECK(m == NULL && os_result_status(e) == OS_ERROR_INVALID_OSIR, "truncated to %zu", n);
        os_module_free(m);
        os_result_free(e);
    }
    free(copy);
    os_result_free(saved);

    /* The shader alone does not link: its imports have no export. */
    const os_module *alone[] = {shader};
    err = NULL;
    os_module *none = os_module_link(alone, 1, false, &err);
    CHECK(none == NULL && os_result_status(err) == OS_ERROR_LINK, "unresolved imports");
    os_diagnostic d;
    CHECK(os_result_diagnostic(err, 0, &d) && strncmp(d.code, "OSK", 3) == 0, "code %s",
          os_result_diagnostic_count(err) ? d.code : "(none)");
    os_result_free(err);

    os_module_free(linked);
    os_module_free(lib);
    os_module_free(shader);
    os_compiler_free(c);
}

/* The include handler: files from the host, each released once. */
struct files {
    int loads, releases;
};

static int load_include(void *user, const char *path, const uint8_t **data, size_t *len) {
    static const char common[] = "#define GROUP 32\nfloat twice(float x) { return 2 * x; }\n";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(base, "common.hlsli") != 0) return 1;
    struct files *f = user;
    f->loads++;
    char *copy = malloc(sizeof common);
    memcpy(copy, common, sizeof common);
    *data = (const uint8_t *)copy;
    *len = sizeof common - 1;
    return 0;
}

static void release_include(void *user, const uint8_t *data, size_t len) {
    (void)len;
    ((struct files *)user)->releases++;
    free((void *)data);
}

static void includes(void) {
    struct files f = {0, 0};
    os_include_handler h = {load_include, release_include, &f};
    static const char *const args[] = {"-T", "cs_6_0", "-E", "main"};
    os_compiler *c = new_compiler(args, 4, &h);
    const char *src =
        "#include \"common.hlsli\"\n"
        "RWStructuredBuffer<float> o;\n"
        "[numthreads(GROUP, 1, 1)] void main(uint i : SV_DispatchThreadID) { o[i] = twice(i); }\n";
    os_result *r = os_compile(c, "src/main.hlsl", (const uint8_t *)src, strlen(src), NULL, NULL,
                              OS_TARGET_DEFAULT);
    CHECK(os_result_status(r) == OS_OK && is_spirv(r), "%s", os_result_diagnostics_text(r, NULL));
    CHECK(f.loads >= 1 && f.loads == f.releases, "loads %d releases %d", f.loads, f.releases);
    CHECK(os_result_dependency_count(r) == 2 &&
              strstr(os_result_dependency(r, 1), "common.hlsli"),
          "the include is a dependency");
    CHECK(strstr(os_result_reflection(r, NULL), "32") != NULL, "GROUP from the include");
    os_result_free(r);

    /* A file the handler does not have: an error at the directive; the disk is not read. */
    const char *missing = "\n#include \"api_test.c\"\n";
    r = os_compile(c, "main.hlsl", (const uint8_t *)missing, strlen(missing), NULL, NULL,
                   OS_TARGET_SPIRV);
    os_diagnostic d;
    CHECK(os_result_status(r) == OS_ERROR_COMPILE && os_result_diagnostic(r, 0, &d) &&
              strcmp(d.code, "OSP0005") == 0 && d.line == 2 && d.column > 1,
          "missing include: %s", os_result_diagnostics_text(r, NULL));
    os_result_free(r);
    os_compiler_free(c);

    os_include_handler no_load = {NULL, NULL, NULL};
    os_result *err = NULL;
    CHECK(os_compiler_new(NULL, 0, &no_load, &err) == NULL &&
              os_result_status(err) == OS_ERROR_NULL_ARGUMENT,
          "a handler without load");
    os_result_free(err);
}

static void expect_error(os_result *r, os_status status, const char *code, const char *what) {
    os_diagnostic d;
    CHECK(os_result_status(r) == status, "%s: status %u, not %u", what, os_result_status(r), status);
    CHECK(os_result_diagnostic(r, 0, &d) && strcmp(d.code, code) == 0, "%s: code %s, not %s",
          what, os_result_diagnostic_count(r) ? d.code : "(none)", code);
    CHECK(strlen(os_result_message(r)) > 0, "%s: a message", what);
    os_result_free(r);
}

static os_result *bad_compiler(const char *const *args, size_t n) {
    os_result *err = NULL;
    os_compiler *c = os_compiler_new(args, n, NULL, &err);
    CHECK(c == NULL, "made a compiler from bad arguments");
    os_compiler_free(c);
    return err;
}

/* Bad input: an error result with a code and a message, never a crash. */
static void bad_input(void) {
    os_compiler *c = new_compiler(NULL, 0, NULL);
    const char *ok = "float4 main() : SV_Target { return 1; }";
    const uint8_t *src = (const uint8_t *)ok;
    size_t n = strlen(ok);
    expect_error(os_compile(NULL, "a.hlsl", src, n, "main", "ps_6_0", OS_TARGET_SPIRV),
                 OS_ERROR_NULL_ARGUMENT, "OSA0001", "null compiler");
    expect_error(os_compile(c, NULL, src, n, "main", "ps_6_0", OS_TARGET_SPIRV),
                 OS_ERROR_NULL_ARGUMENT, "OSA0001", "null name");
    expect_error(os_compile(c, "a.hlsl", NULL, n, "main", "ps_6_0", OS_TARGET_SPIRV),
                 OS_ERROR_NULL_ARGUMENT, "OSA0001", "null source");
    expect_error(os_compile(c, "bad\xff.hlsl", src, n, "main", "ps_6_0", OS_TARGET_SPIRV),
                 OS_ERROR_INVALID_UTF8, "OSA0002", "name not UTF-8");
    expect_error(os_compile(c, "a.hlsl", src, n, "ma\xc0in", "ps_6_0", OS_TARGET_SPIRV),
                 OS_ERROR_INVALID_UTF8, "OSA0002", "entry not UTF-8");
    static const uint8_t binary[] = {0x03, 0x02, 0x23, 0x07, 0xff, 0xfe, 0x00, 0x80};
    expect_error(os_compile(c, "a.hlsl", binary, sizeof binary, "main", "ps_6_0", OS_TARGET_SPIRV),
                 OS_ERROR_NOT_TEXT, "OSA0003", "binary source");
    expect_error(os_compile(c, "a.hlsl", (const uint8_t *)"float\0x", 7, "main", "ps_6_0",
                            OS_TARGET_SPIRV),
                 OS_ERROR_NOT_TEXT, "OSA0003", "a NUL in the source");
    expect_error(os_compile(c, "a.hlsl", src, n, "main", "ps_6_0", 99), OS_ERROR_INVALID_OPTIONS,
                 "OSA0006", "unknown target");
    expect_error(os_compile(c, "a.hlsl", src, n, "main", "xx_9_9", OS_TARGET_SPIRV),
                 OS_ERROR_COMPILE, "OSH1022", "bad profile");
    expect_error(os_compiler_key(c, "a.hlsl", src, n, "main", "xx_9_9", OS_TARGET_SPIRV),
                 OS_ERROR_COMPILE, "OSH1022", "bad profile, key");
    expect_error(os_compile(c, "empty.hlsl", NULL, 0, "main", "ps_6_0", OS_TARGET_SPIRV),
                 OS_ERROR_COMPILE, "OSH1020", "empty source");

    static const char *const missing_value[] = {"-T"};
    expect_error(bad_compiler(missing_value, 1), OS_ERROR_INVALID_OPTIONS, "OSC0050", "-T alone");
    static const char *const refused[] = {"-T", "ps_6_0", "-Zs"};
    expect_error(bad_compiler(refused, 3), OS_ERROR_INVALID_OPTIONS, "OSC0050", "-Zs");
    static const char *const unknown[] = {"--no-such-option"};
    expect_error(bad_compiler(unknown, 1), OS_ERROR_INVALID_OPTIONS, "OSC0050", "unknown");
    static const char *const env[] = {"-fspv-target-env=vulkan9"};
    expect_error(bad_compiler(env, 1), OS_ERROR_INVALID_OPTIONS, "OSC0055", "target env");
    static const char *const input[] = {"shader.hlsl"};
    expect_error(bad_compiler(input, 1), OS_ERROR_INVALID_OPTIONS, "OSA0004", "an input file");
    static const char *const output[] = {"-Fo", "out.spv"};
    expect_error(bad_compiler(output, 2), OS_ERROR_INVALID_OPTIONS, "OSA0004", "-Fo");
    static const char *const not_utf8[] = {"-D\xffX=1"};
    expect_error(bad_compiler(not_utf8, 1), OS_ERROR_INVALID_UTF8, "OSA0002", "args not UTF-8");
    static const char *const null_arg[] = {"-Od", NULL};
    expect_error(bad_compiler(null_arg, 2), OS_ERROR_NULL_ARGUMENT, "OSA0001", "a null argument");
    expect_error(bad_compiler(NULL, 3), OS_ERROR_NULL_ARGUMENT, "OSA0001", "null args");
    CHECK(os_compiler_new(missing_value, 1, NULL, NULL) == NULL, "no error pointer");

    /* Damaged or foreign .osir bytes. */
    os_result *err = NULL;
    CHECK(os_module_load(binary, sizeof binary, &err) == NULL, "SPIR-V is not .osir");
    expect_error(err, OS_ERROR_INVALID_OSIR, "OSL0002", "not .osir");
    err = NULL;
    CHECK(os_module_load(NULL, 0, &err) == NULL, "empty .osir");
    CHECK(os_result_status(err) == OS_ERROR_INVALID_OSIR, "empty: %u", os_result_status(err));
    os_result_free(err);
    err = NULL;
    CHECK(os_module_load(NULL, 10, &err) == NULL, "null .osir");
    expect_error(err, OS_ERROR_NULL_ARGUMENT, "OSA0001", "null data");

    /* Null modules. */
    const os_module *nulls[] = {NULL};
    err = NULL;
    CHECK(os_module_link(nulls, 1, false, &err) == NULL, "link a null module");
    expect_error(err, OS_ERROR_NULL_ARGUMENT, "OSA0001", "null module");
    expect_error(os_compiler_emit(c, NULL, NULL, NULL, OS_TARGET_SPIRV), OS_ERROR_NULL_ARGUMENT,
                 "OSA0001", "emit null");
    expect_error(os_module_save(NULL), OS_ERROR_NULL_ARGUMENT, "OSA0001", "save null");
    uint8_t key[16];
    CHECK(!os_module_key(NULL, key), "key of null");

    /* Accessors take null results. */
    size_t len = 7;
    CHECK(os_result_status(NULL) == OS_ERROR_NULL_ARGUMENT, "status of null");
    CHECK(os_result_output(NULL, &len) == NULL && len == 0, "output of null");
    CHECK(os_result_reflection(NULL, NULL) == NULL, "reflection of null");
    CHECK(os_result_diagnostics_text(NULL, NULL) == NULL, "text of null");
    CHECK(os_result_message(NULL) == NULL, "message of null");
    CHECK(os_result_diagnostic_count(NULL) == 0 && os_result_dependency_count(NULL) == 0, "counts");
    CHECK(!os_result_module_key(NULL, key) && !os_result_output_key(NULL, key), "keys of null");
    os_result_free(NULL);
    os_module_free(NULL);
    os_compiler_free(NULL);
    os_compiler_free(c);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: api_test REPO_ROOT\n");
        return 2;
    }
    CHECK(strlen(os_version()) > 0 && strstr(os_identity(), os_version()), "version %s, identity %s",
          os_version(), os_identity());
    examples(argv[1]);
    diagnostics();
    linking();
    includes();
    bad_input();
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
