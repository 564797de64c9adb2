//===- CApi.cpp - C interface of the bundle runtime -----------------------===//
//
// Part of the Mirage MLIR project.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/mirage_runtime_c.h"

#include "mirage_runtime/Executable.h"

#include <cstring>

using namespace mirage::runtime;

struct MirageExecutable {
  std::unique_ptr<Executable> executable;
};

static void writeError(const std::string &message, char *error, size_t size) {
  if (!error || size == 0)
    return;
  size_t length = std::min(message.size(), size - 1);
  std::memcpy(error, message.data(), length);
  error[length] = '\0';
}

MirageExecutable *mirage_executable_load(const char *bundle_dir, char *error,
                                         size_t size) {
  Expected<std::unique_ptr<Executable>> loaded = Executable::load(bundle_dir);
  if (!loaded) {
    writeError(loaded.status().message(), error, size);
    return nullptr;
  }
  return new MirageExecutable{std::move(*loaded)};
}

int mirage_executable_run(MirageExecutable *executable, const uint64_t *inputs,
                          size_t num_inputs, const uint64_t *outputs,
                          size_t num_outputs, void *stream, char *error,
                          size_t size) {
  Status status = executable->executable->run(
      std::vector<uint64_t>(inputs, inputs + num_inputs),
      std::vector<uint64_t>(outputs, outputs + num_outputs),
      static_cast<CUstream_st *>(stream));
  if (status.ok())
    return 1;
  writeError(status.message(), error, size);
  return 0;
}

int mirage_executable_check(MirageExecutable *executable, void *stream,
                            char *error, size_t size) {
  Status status =
      executable->executable->check(static_cast<CUstream_st *>(stream));
  if (status.ok())
    return 1;
  writeError(status.message(), error, size);
  return 0;
}

int mirage_executable_has_megakernel(const MirageExecutable *executable) {
  return executable->executable->hasMegaKernel() ? 1 : 0;
}

void mirage_executable_free(MirageExecutable *executable) { delete executable; }
