# `cmake --install`: the Mirage libraries with an exported CMake package
# (find_package(Mirage); MirageConfig.cmake.in), the headers, the generated
# .inc and the ODS .td files, the C API, and the tools. Included last by the
# top-level CMakeLists.txt, once every library exists.

include(CMakePackageConfigHelpers)

set(MIRAGE_VERSION 0.1.0)
set(MIRAGE_INSTALL_INCLUDE_DIR include)
set(MIRAGE_INSTALL_LIB_DIR lib${LLVM_LIBDIR_SUFFIX})
set(MIRAGE_INSTALL_TOOLS_DIR bin)
set(MIRAGE_INSTALL_CMAKE_DIR ${MIRAGE_INSTALL_LIB_DIR}/cmake/mirage)

get_property(mirage_libs GLOBAL PROPERTY MIRAGE_ALL_LIBS)
foreach(lib ${mirage_libs})
  target_include_directories(${lib} INTERFACE
    $<INSTALL_INTERFACE:${MIRAGE_INSTALL_INCLUDE_DIR}>)
endforeach()

# One target bringing every dialect, pass and pipeline.
add_library(MirageAll INTERFACE)
target_link_libraries(MirageAll INTERFACE ${mirage_libs})
target_include_directories(MirageAll INTERFACE
  $<INSTALL_INTERFACE:${MIRAGE_INSTALL_INCLUDE_DIR}>)

install(TARGETS ${mirage_libs} MirageAll
  EXPORT MirageTargets
  COMPONENT mirage
  ARCHIVE DESTINATION ${MIRAGE_INSTALL_LIB_DIR}
  LIBRARY DESTINATION ${MIRAGE_INSTALL_LIB_DIR}
  RUNTIME DESTINATION ${MIRAGE_INSTALL_TOOLS_DIR})
install(TARGETS mirage-opt mirage-bundle
  COMPONENT mirage
  RUNTIME DESTINATION ${MIRAGE_INSTALL_TOOLS_DIR})

# Headers and ODS sources, then what tablegen generated next to them.
install(DIRECTORY ${MIRAGE_SOURCE_DIR}/include/mirage
                  ${MIRAGE_SOURCE_DIR}/include/mirage-c
  DESTINATION ${MIRAGE_INSTALL_INCLUDE_DIR}
  COMPONENT mirage
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td"
  PATTERN "CMakeLists.txt" EXCLUDE)
install(DIRECTORY ${MIRAGE_BINARY_DIR}/include/mirage
  DESTINATION ${MIRAGE_INSTALL_INCLUDE_DIR}
  COMPONENT mirage
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.h"
  PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT MirageTargets
  NAMESPACE Mirage::
  DESTINATION ${MIRAGE_INSTALL_CMAKE_DIR}
  COMPONENT mirage)
set(mirage_config_dir ${MIRAGE_BINARY_DIR}/lib/cmake/mirage)
configure_package_config_file(
  ${MIRAGE_SOURCE_DIR}/cmake/modules/MirageConfig.cmake.in
  ${mirage_config_dir}/MirageConfig.cmake
  INSTALL_DESTINATION ${MIRAGE_INSTALL_CMAKE_DIR}
  PATH_VARS MIRAGE_INSTALL_INCLUDE_DIR MIRAGE_INSTALL_TOOLS_DIR)
write_basic_package_version_file(
  ${mirage_config_dir}/MirageConfigVersion.cmake
  VERSION ${MIRAGE_VERSION}
  COMPATIBILITY SameMinorVersion)
install(FILES ${mirage_config_dir}/MirageConfig.cmake
              ${mirage_config_dir}/MirageConfigVersion.cmake
  DESTINATION ${MIRAGE_INSTALL_CMAKE_DIR}
  COMPONENT mirage)
