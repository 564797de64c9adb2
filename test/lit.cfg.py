# -*- Python -*-
# Lit configuration for the Mirage IR and pass tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MIRAGE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".c"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mirage_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Unit"]

llvm_config.use_default_substitutions()
config.substitutions.append(("%mirage_src_root", config.mirage_src_root))
config.substitutions.append(("%mirage_obj_root", config.mirage_obj_root))
config.substitutions.append(
    ("%examples", os.path.join(config.mirage_src_root, "examples"))
)

tool_dirs = [config.mirage_tools_dir, config.llvm_tools_dir]
tools = [
    "mirage-opt",
    "mirage-bundle",
    "mirage-bench-interpreter",
    "mirage-capi-test",
    "mirage-check-bundle",
    "not",
    "count",
    ToolSubst("%PYTHON", config.python_executable),
]
# mirage-fuzz exists where the compiler has libFuzzer (clang).
if os.path.exists(os.path.join(config.mirage_tools_dir, "mirage-fuzz")):
    config.available_features.add("libfuzzer")
    tools.append("mirage-fuzz")
llvm_config.add_tool_substitutions(tools, tool_dirs)

# %cmake_project: cmake configuring a project with this build's generator,
# compilers, launcher and linker (test/Embedding builds one against the
# install tree).
cmake_project = [config.cmake_command, "-G", "Ninja",
                 "-DCMAKE_MAKE_PROGRAM=" + config.make_program,
                 "-DCMAKE_BUILD_TYPE=Release",
                 "-DCMAKE_C_COMPILER=" + config.c_compiler,
                 "-DCMAKE_CXX_COMPILER=" + config.cxx_compiler]
if config.compiler_launcher:
    cmake_project.append("-DCMAKE_CXX_COMPILER_LAUNCHER=" + config.compiler_launcher)
if config.llvm_use_linker:
    cmake_project.append("-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=" + config.llvm_use_linker)
config.substitutions.append(("%cmake_project", " ".join(cmake_project)))
config.substitutions.append(("%cmake", config.cmake_command))

# scripts/sanitize-lit.sh gives the documented commands more time.
llvm_config.with_system_environment(["MIRAGE_DOC_COMMAND_TIMEOUT"])

# Cubin generation needs ptxas from the CUDA toolkit.
if config.ptxas_path:
    config.available_features.add("ptxas")
    llvm_config.with_environment(
        "PATH", os.path.dirname(config.ptxas_path), append_path=True
    )
