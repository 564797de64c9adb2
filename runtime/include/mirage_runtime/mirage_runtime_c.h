/*===- mirage_runtime_c.h - C interface of the bundle runtime -----*- C -*-===
 *
 * Part of the Mirage MLIR project.
 *
 * libmirage_runtime_c.so: mirage::runtime::Executable for callers without
 * C++ (Python's ctypes in mirage_mlir.runtime). Every function that can fail
 * returns 0 (or null) and writes a message into `error` (at most `size`
 * bytes, terminated).
 *
 *===----------------------------------------------------------------------===*/

#ifndef MIRAGE_RUNTIME_C_H
#define MIRAGE_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct MirageExecutable MirageExecutable;

/* Loads the bundle in `bundle_dir` into the current CUDA context. */
MirageExecutable *mirage_executable_load(const char *bundle_dir, char *error,
                                         size_t size);

/* Enqueues the bundle on `stream` (a CUstream; null: the default stream)
 * with its inputs and outputs at these device addresses, in manifest order;
 * outputs may not overlap inputs or each other. On a created stream, the
 * bundle's kernels after its first launch with programmatic dependent
 * launch. Returns 1 on success. */
int mirage_executable_run(MirageExecutable *executable, const uint64_t *inputs,
                          size_t num_inputs, const uint64_t *outputs,
                          size_t num_outputs, void *stream, char *error,
                          size_t size);

/* Waits for `stream` and fails with the first hang a mega-kernel step
 * recorded since the last check (the outputs of those runs are not valid;
 * the counters are reset). Returns 1, without waiting, for bundles without
 * a mega-kernel. */
int mirage_executable_check(MirageExecutable *executable, void *stream,
                            char *error, size_t size);

/* 1 when the bundle has a mega-kernel step, else 0. */
int mirage_executable_has_megakernel(const MirageExecutable *executable);

void mirage_executable_free(MirageExecutable *executable);

#ifdef __cplusplus
}
#endif

#endif /* MIRAGE_RUNTIME_C_H */
