# Finds every third-party package once, for all targets.
#
# LibTorch: found through find_package(Torch). installer/install.sh pip-installs
# the pinned PyTorch wheel into a venv linked at .deps/venv, found through its
# Python (MEDSYNTH_TORCH_PYTHON, below); a user's Torch_DIR or
# CMAKE_PREFIX_PATH (the pytorch.org LibTorch zip, a conda env's
# site-packages/torch) or MEDSYNTH_TORCH_PYTHON wins.
find_package(Threads REQUIRED)
find_package(ZLIB REQUIRED)
# SHA-256 of the files a generated volume's provenance names (issue 37): a
# maintained digest (Debian's OpenSSL libcrypto), not a hand-written one.
find_package(OpenSSL 3 REQUIRED COMPONENTS Crypto)
# Validation slices as PNG files and TensorBoard images (engine/events/gray_png.cpp).
find_package(PNG REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)

# ITKGDCM is named because engine/volume uses GDCM's own headers and
# libraries (ITKGDCM_INCLUDE_DIRS): ITKIOGDCM depends on it privately, so
# only an ITKConfig that loads every module (Debian's does) would define them
# otherwise.
find_package(ITK 5.2 REQUIRED COMPONENTS
  ITKCommon ITKIOImageBase ITKIONIFTI ITKGDCM ITKIOGDCM ITKIONRRD ITKIOMeta)
# DICOM-SEG export of label maps (engine/volume/dcmtk_seg_writer.cpp, issue
# 39): DCMTK's dcmseg (Debian libdcmtk-dev), beside GDCM which writes the image
# series. Required unless MEDSYNTH_REQUIRE_DCMTK is OFF (a GPU node's
# engine-only build, tests/gpu/run-on-gpu-node.sh, carries no DCMTK): then the
# SEG export says the engine was built without it.
option(MEDSYNTH_REQUIRE_DCMTK "Fail when DCMTK (DICOM-SEG export) is not found" ON)
if(MEDSYNTH_REQUIRE_DCMTK)
  find_package(DCMTK REQUIRED CONFIG)
else()
  find_package(DCMTK CONFIG QUIET)
endif()
# ITK_USE_FILE is included nowhere (it would register IO factories and add
# ITK's include dirs for every target of a directory): medsynth_volume sets
# its ImageIO explicitly and uses ITK_INCLUDE_DIRS privately
# (engine/volume/sources.cmake).

# MEDSYNTH_TORCH_PYTHON: a Python whose `torch` to build against, found
# through its torch.utils.cmake_prefix_path: a cluster node's pip or conda
# PyTorch, or by default the pip venv that installer/install.sh makes
# (.deps/venv, a link into ~/.cache/medsynth). When it is set, it decides
# Torch_DIR; a Torch_DIR or CMAKE_PREFIX_PATH given alone (the pytorch.org
# LibTorch zip) is used as it is.
set(MEDSYNTH_TORCH_PYTHON "" CACHE FILEPATH "Build against this Python's torch (its torch.utils.cmake_prefix_path)")
set(_medsynth_venv_python ${CMAKE_SOURCE_DIR}/.deps/venv/bin/python)
if(NOT MEDSYNTH_TORCH_PYTHON AND NOT Torch_DIR AND EXISTS ${_medsynth_venv_python})
  set(MEDSYNTH_TORCH_PYTHON ${_medsynth_venv_python} CACHE FILEPATH "Build against this Python's torch" FORCE)
endif()
if(MEDSYNTH_TORCH_PYTHON)
  execute_process(
    COMMAND ${MEDSYNTH_TORCH_PYTHON} -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
    OUTPUT_VARIABLE _medsynth_torch_prefix OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_VARIABLE _medsynth_torch_error RESULT_VARIABLE _medsynth_torch_result)
  if(NOT _medsynth_torch_result EQUAL 0)
    message(FATAL_ERROR "MEDSYNTH_TORCH_PYTHON=${MEDSYNTH_TORCH_PYTHON}: cannot import torch: ${_medsynth_torch_error}")
  endif()
  set(Torch_DIR ${_medsynth_torch_prefix}/Torch CACHE PATH "LibTorch CMake package directory" FORCE)
endif()
# A CUDA build of LibTorch otherwise compiles a CUDA test program at configure
# time to detect local GPUs (and CMake 3.25 cannot build it: "CUDA20"). We
# compile no CUDA code ourselves; the list only names the targets' archs.
if(NOT DEFINED TORCH_CUDA_ARCH_LIST AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(TORCH_CUDA_ARCH_LIST "8.0;8.6;9.0" CACHE STRING "CUDA archs named to LibTorch's CMake package")
endif()
find_package(Torch QUIET)
if(NOT Torch_FOUND)
  message(FATAL_ERROR
    "LibTorch not found. Run installer/install.sh (it pip-installs the pinned PyTorch wheel "
    "into a venv linked at .deps/venv), or name a Python whose torch to use with "
    "-DMEDSYNTH_TORCH_PYTHON=/path/to/python, or point CMake at an existing LibTorch with "
    "-DCMAKE_PREFIX_PATH=/path/to/libtorch (the pytorch.org zip) or "
    "-DTorch_DIR=<env>/lib/python3.X/site-packages/torch/share/cmake/Torch (conda/pip).")
endif()
message(STATUS "LibTorch ${Torch_VERSION} from ${Torch_DIR}")

# libstdc++ ahead of LibTorch. PyTorch 2.11's wheel exports a copy of 64
# std::filesystem functions from libtorch.so (and directory iterators from
# libtorch_cpu.so): RHEL devtoolset 13's libstdc++_nonshared, linked into it
# and left visible. Its remove_all calls recursive_directory_iterator::__erase
# through a weak reference that a C++ runtime older than GCC 13's leaves
# null: remove_all of any non-empty folder died of SIGSEGV at address 0 (the
# five cuda tests' TempDir teardown on the GPU nodes; import-maisi and
# export-dicom too). A reference binds to the first library that defines the
# symbol, at link time (which library records it) and at run time (DT_NEEDED
# order), and the compiler driver names libstdc++ last. So libstdc++ is named
# twice more: before the objects (the first library needed, for the dynamic
# linker) and just before LibTorch's libraries (so that a static libstdc++
# also defines, before libtorch.so does, what the objects and our archives
# use). docs/performance.md, "The five crashes";
# tests/engine/core/torch_linkage_test.cpp. Our own code removes folders
# with core/remove_tree.hpp, which uses no C++ runtime function at all.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE)
  set(_medsynth_libstdcxx_options "LINKER:--push-state,--no-as-needed" "-lstdc++" "LINKER:--pop-state")
  set(_medsynth_libstdcxx_first "-Wl,--push-state,--no-as-needed" stdc++ "-Wl,--pop-state")
endif()

# medsynth::torch - LibTorch as our targets use it. A wheel-based LibTorch
# resolves its CUDA runtime (cudart, NCCL, cuDNN ...) from the nvidia/*/lib
# folders beside torch/; they must be seen by the linker (-rpath-link) and come
# first at run time (-rpath), before any older copy in /usr/local/cuda.
add_library(medsynth_torch INTERFACE)
add_library(medsynth::torch ALIAS medsynth_torch)
target_link_libraries(medsynth_torch INTERFACE ${_medsynth_libstdcxx_first} ${TORCH_LIBRARIES})
target_link_options(medsynth_torch INTERFACE ${_medsynth_libstdcxx_options})
target_compile_options(medsynth_torch INTERFACE ${TORCH_CXX_FLAGS})
file(GLOB _medsynth_nvidia_dirs LIST_DIRECTORIES true "${TORCH_INSTALL_PREFIX}/../nvidia/*/lib")
foreach(_dir IN LISTS _medsynth_nvidia_dirs)
  get_filename_component(_dir "${_dir}" ABSOLUTE)
  target_link_options(medsynth_torch INTERFACE "LINKER:-rpath-link,${_dir}" "LINKER:-rpath,${_dir}")
endforeach()
