# Helpers shared by Kiln's CMake files.

# Adds LLVM/MLIR include directories and definitions to the calling directory
# only. Call it at the top of every compiler directory (Dialect, Conversion,
# Target, Import, tools that link MLIR); never from lib/IO, lib/Reference,
# lib/Cost or runtime/.
macro(kiln_compiler_scope)
  include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  include_directories(${KILN_SOURCE_DIR}/include ${KILN_BINARY_DIR}/include)
  separate_arguments(_kiln_llvm_defs NATIVE_COMMAND ${LLVM_DEFINITIONS})
  add_definitions(${_kiln_llvm_defs})
endmacro()

# A GoogleTest executable registered with ctest.
function(kiln_add_unittest name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60
    WORKING_DIRECTORY ${KILN_SOURCE_DIR})
endfunction()
