# What `cmake --install` puts in place, by component (docs/install.md):
#   runtime      lib/libkiln-runtime.so.*
#   development  include/kiln/runtime.h, lib/libkiln-runtime.so, lib/cmake/KilnRuntime/
#                (find_package(KilnRuntime) -> Kiln::Runtime)
#   tools        bin/kiln-compile, kiln-run, kiln-synth, ... (those built),
#                share/kiln/targets/*.json
#   python       the kiln package (python/CMakeLists.txt)
include(CMakePackageConfigHelpers)

set(KILN_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/KilnRuntime)

install(TARGETS kiln_runtime_shared EXPORT KilnRuntimeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          NAMELINK_COMPONENT development)
install(FILES ${KILN_SOURCE_DIR}/runtime/include/kiln/runtime.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln COMPONENT development)
install(EXPORT KilnRuntimeTargets NAMESPACE Kiln::
  DESTINATION ${KILN_CMAKE_INSTALL_DIR} COMPONENT development)
configure_package_config_file(${KILN_SOURCE_DIR}/cmake/KilnRuntimeConfig.cmake.in
  ${KILN_BINARY_DIR}/cmake/KilnRuntimeConfig.cmake
  INSTALL_DESTINATION ${KILN_CMAKE_INSTALL_DIR})
# 0.x: a new minor version may change the C API.
write_basic_package_version_file(${KILN_BINARY_DIR}/cmake/KilnRuntimeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${KILN_BINARY_DIR}/cmake/KilnRuntimeConfig.cmake
              ${KILN_BINARY_DIR}/cmake/KilnRuntimeConfigVersion.cmake
  DESTINATION ${KILN_CMAKE_INSTALL_DIR} COMPONENT development)

# share/kiln/targets: the shipped target descriptors, which an installed kiln-compile reads
# (stage::defaultTargetDirectory).
if(TARGET kiln-compile)
  install(DIRECTORY ${KILN_SOURCE_DIR}/targets/ DESTINATION share/kiln/targets COMPONENT tools
          FILES_MATCHING PATTERN "*.json")
endif()
foreach(tool kiln-compile kiln-run kiln-bench kiln-synth kiln-ref kiln-calibrate kiln-opt kiln-translate)
  if(TARGET ${tool})
    install(TARGETS ${tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT tools)
  endif()
endforeach()
