# Thin wrappers around the upstream MLIR CMake helpers, in the CIRCT style:
# every Mirage library is recorded in MIRAGE_ALL_LIBS so tools can link them all.

# add_mirage_dialect(<td-basename> <namespace>): ops, types, dialect .inc files.
function(add_mirage_dialect dialect dialect_namespace)
  add_mlir_dialect(${dialect} ${dialect_namespace})
  add_dependencies(mirage-headers MLIR${dialect}IncGen)
endfunction()

# add_mirage_doc(<td-basename> <output-path> <tblgen-flags...>): Markdown under
# ${CMAKE_BINARY_DIR}/docs, built by the `mirage-doc` target.
function(add_mirage_doc td_filename output_file)
  set(LLVM_TARGET_DEFINITIONS ${td_filename}.td)
  mlir_tablegen(${output_file}.md ${ARGN})
  set(gen_doc_file ${MIRAGE_BINARY_DIR}/docs/${output_file}.md)
  add_custom_command(
    OUTPUT ${gen_doc_file}
    COMMAND ${CMAKE_COMMAND} -E copy
            ${CMAKE_CURRENT_BINARY_DIR}/${output_file}.md ${gen_doc_file}
    DEPENDS ${CMAKE_CURRENT_BINARY_DIR}/${output_file}.md)
  string(REPLACE "/" "-" target_suffix ${output_file})
  add_custom_target(mirage-doc-${target_suffix} DEPENDS ${gen_doc_file})
  add_dependencies(mirage-doc mirage-doc-${target_suffix})
endfunction()

# add_mirage_library(<name> <sources...> [DEPENDS ...] [LINK_LIBS ...])
# Installed with the CMake package (MirageInstall.cmake), not as MLIR's.
function(add_mirage_library name)
  set_property(GLOBAL APPEND PROPERTY MIRAGE_ALL_LIBS ${name})
  add_mlir_library(${ARGV} DISABLE_INSTALL)
  # Generated headers of every dialect must exist before any Mirage TU compiles.
  add_dependencies(${name} mirage-headers)
  if(TARGET obj.${name})
    add_dependencies(obj.${name} mirage-headers)
  endif()
  # A sanitized library needs its runtime wherever it is linked, downstream
  # projects of the install tree included.
  if(MIRAGE_SANITIZERS)
    list(JOIN MIRAGE_SANITIZERS "," sanitizers)
    target_link_options(${name} INTERFACE -fsanitize=${sanitizers})
  endif()
endfunction()
