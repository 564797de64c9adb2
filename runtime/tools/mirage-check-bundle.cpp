//===- mirage-check-bundle.cpp - Checks bundles without a GPU -------------===//
//
// Part of the Mirage MLIR project.
//
// mirage-check-bundle BUNDLE_DIR...: reads each bundle's manifest with the
// runtime's own parser, which checks everything mirage-run relies on (every
// index in range, every mega-kernel task in exactly one queue), and its
// binary's presence. Needs no GPU driver: the compiler's tests run it on
// what mirage-bundle writes. Prints a line per bundle; exits with 1 when one
// is malformed, 2 on a usage error.
//
//===----------------------------------------------------------------------===//

#include "mirage_runtime/Manifest.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>

using namespace mirage::runtime;

int main(int argc, char **argv) {
  if (argc < 2 || std::strcmp(argv[1], "--help") == 0 ||
      std::strcmp(argv[1], "-h") == 0) {
    std::fprintf(argc < 2 ? stderr : stdout,
                 "usage: mirage-check-bundle BUNDLE_DIR...\n"
                 "Checks each bundle's manifest.json as mirage-run reads it, "
                 "without a GPU.\n");
    return argc < 2 ? 2 : 0;
  }
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    std::string bundle = argv[i];
    Expected<Manifest> manifest = loadManifest(bundle);
    if (!manifest) {
      std::printf("%s: error: %s\n", bundle.c_str(),
                  manifest.status().message().c_str());
      status = 1;
      continue;
    }
    // The PTX is what every runner can load (the cubin is optional).
    std::string ptx =
        (std::filesystem::path(bundle) / manifest->ptxFile).string();
    if (!std::filesystem::exists(ptx)) {
      std::printf("%s: error: its PTX %s is missing\n", bundle.c_str(),
                  ptx.c_str());
      status = 1;
      continue;
    }
    size_t megaKernels = 0;
    for (const Step &step : manifest->steps)
      megaKernels += step.kind == Step::Kind::MegaKernel;
    std::printf("%s: ok: version %d, %zu kernels, %zu steps (%zu "
                "mega-kernels)\n",
                bundle.c_str(), static_cast<int>(manifest->version),
                manifest->kernels.size(), manifest->steps.size(), megaKernels);
  }
  return status;
}
