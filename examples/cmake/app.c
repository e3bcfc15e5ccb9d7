/* Checks that each file named on the command line is SPIR-V, then compiles a shader in
 * process through the C API. */
#include <stdio.h>
#include <string.h>

#include "oneshader.h"

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        unsigned char magic[4] = {0};
        FILE *f = fopen(argv[i], "rb");
        if (!f || fread(magic, 1, 4, f) != 4 || magic[0] != 0x03 || magic[3] != 0x07) {
            fprintf(stderr, "%s is not SPIR-V\n", argv[i]);
            return 1;
        }
        fclose(f);
    }
    printf("%d SPIR-V files\n", argc - 1);

    const char *args[] = {"-T", "cs_6_0", "-E", "main"};
    os_result *error = NULL;
    os_compiler *compiler = os_compiler_new(args, 4, NULL, &error);
    if (!compiler) {
        fprintf(stderr, "%s\n", os_result_message(error));
        os_result_free(error);
        return 1;
    }
    const char *source = "RWStructuredBuffer<float> data : register(u0);\n"
                         "[numthreads(8, 1, 1)]\n"
                         "void main(uint3 id : SV_DispatchThreadID) { data[id.x] += 1.0; }\n";
    os_result *r = os_compile(compiler, "inline.hlsl", (const uint8_t *)source, strlen(source),
                              NULL, NULL, OS_TARGET_SPIRV);
    int status = os_result_status(r);
    size_t len = 0;
    os_result_output(r, &len);
    printf("OneShader %s compiled inline.hlsl in process: %s (%zu bytes)\n", os_version(),
           status == OS_OK ? "ok" : os_result_diagnostics_text(r, NULL), len);
    os_result_free(r);
    os_compiler_free(compiler);
    return status == OS_OK ? 0 : 1;
}
