/* In-process compilation through the C API against one `oneshader compile` process per file,
 * over the vertex, fragment and compute rows of the HLSL corpus manifest (by hand, not in CI):
 *
 *   cargo build --release -p oneshader-capi && cargo build --release --bin oneshader
 *   cc -O2 -Icapi/include capi/bench/corpus.c target/release/liboneshader_c.a -lpthread -ldl -lm -o corpus
 *   ./corpus ../shared/corpus/hlsl target/release/oneshader
 *
 * Both sides compile each row to SPIR-V with the same arguments (-T, -E, the row's flags,
 * -fspv-target-env); the CLI writes to /dev/null. Prints the rows, how many compiled on each
 * side, the wall time of each and the ratio. */

#define _POSIX_C_SOURCE 200809L
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "oneshader.h"

extern char **environ;

#define MAX_ARGS 64

struct row {
    char path[4096];
    char *args[MAX_ARGS];
    int nargs;
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static char *field(char **line) {
    char *start = *line;
    char *tab = strchr(start, '\t');
    if (tab) {
        *tab = 0;
        *line = tab + 1;
    } else {
        char *nl = strchr(start, '\n');
        if (nl) *nl = 0;
        *line = start + strlen(start);
    }
    return start;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    size_t got = fread(buf, 1, (size_t)n, f);
    fclose(f);
    buf[got] = 0;
    *len = got;
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: corpus CORPUS_DIR ONESHADER_CLI\n");
        return 2;
    }
    char manifest[4096];
    snprintf(manifest, sizeof manifest, "%s/manifest.tsv", argv[1]);
    FILE *m = fopen(manifest, "r");
    if (!m) {
        fprintf(stderr, "cannot open %s\n", manifest);
        return 2;
    }
    struct row *rows = calloc(4096, sizeof *rows);
    int n = 0;
    char line[8192];
    if (!fgets(line, sizeof line, m)) return 2; /* the header */
    while (n < 4096 && fgets(line, sizeof line, m)) {
        char *p = line;
        char *path = field(&p), *stage = field(&p), *entry = field(&p), *profile = field(&p);
        char *flags = field(&p);
        field(&p);
        field(&p);
        field(&p);
        char *env = field(&p);
        if (strcmp(stage, "vertex") && strcmp(stage, "fragment") && strcmp(stage, "compute"))
            continue;
        struct row *r = &rows[n++];
        snprintf(r->path, sizeof r->path, "%s/%s", argv[1], path);
        r->args[r->nargs++] = strdup("-T");
        r->args[r->nargs++] = strdup(profile);
        r->args[r->nargs++] = strdup("-E");
        r->args[r->nargs++] = strdup(entry);
        for (char *tok = strtok(flags, " "); tok && r->nargs < MAX_ARGS - 2; tok = strtok(NULL, " "))
            r->args[r->nargs++] = strdup(tok);
        if (*env) {
            char e[128];
            snprintf(e, sizeof e, "-fspv-target-env=%s", env);
            r->args[r->nargs++] = strdup(e);
        }
    }
    fclose(m);

    /* In process: one compiler per row (its arguments), each file read and compiled. */
    int ok_api = 0;
    double t0 = now();
    for (int i = 0; i < n; i++) {
        struct row *r = &rows[i];
        os_compiler *c = os_compiler_new((const char *const *)r->args, (size_t)r->nargs, NULL, NULL);
        if (!c) continue;
        size_t len = 0;
        char *src = read_all(r->path, &len);
        if (src) {
            os_result *res = os_compile(c, r->path, (const uint8_t *)src, len, NULL, NULL,
                                        OS_TARGET_SPIRV);
            ok_api += os_result_status(res) == OS_OK;
            os_result_free(res);
            free(src);
        }
        os_compiler_free(c);
    }
    double api = now() - t0;

    /* One process per file. */
    int ok_cli = 0;
    t0 = now();
    for (int i = 0; i < n; i++) {
        struct row *r = &rows[i];
        char *av[MAX_ARGS + 8];
        int k = 0;
        av[k++] = argv[2];
        av[k++] = "compile";
        av[k++] = r->path;
        for (int j = 0; j < r->nargs; j++) av[k++] = r->args[j];
        av[k++] = "-o";
        av[k++] = "/dev/null";
        av[k] = NULL;
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", 1, 0);
        pid_t pid;
        if (posix_spawn(&pid, argv[2], &fa, NULL, av, environ) == 0) {
            int status = 0;
            waitpid(pid, &status, 0);
            ok_cli += WIFEXITED(status) && WEXITSTATUS(status) == 0;
        }
        posix_spawn_file_actions_destroy(&fa);
    }
    double cli = now() - t0;

    printf("rows: %d (vertex, fragment, compute)\n", n);
    printf("C API, in process: %d compiled, %.2f s (%.2f ms a file)\n", ok_api, api, 1e3 * api / n);
    printf("CLI, a process a file: %d compiled, %.2f s (%.2f ms a file)\n", ok_cli, cli, 1e3 * cli / n);
    printf("ratio (CLI / C API): %.2f\n", cli / api);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < rows[i].nargs; j++) free(rows[i].args[j]);
    free(rows);
    return 0;
}
