# Tests that need a GPU (label cuda): the trainer's fp16/bf16/NaN/resume paths,
# GPU-vs-CPU numerics, an NCCL group and the engine binary on cuda:0. Without
# a GPU every case skips and prints why (tests/gpu/README.md runs them).
medsynth_add_test(NAME cuda_training_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/training_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS cuda
  TIMEOUT 600)
medsynth_add_test(NAME cuda_numerics_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/numerics_test.cpp
  LIBS medsynth_engine
  LABELS cuda)
target_compile_definitions(cuda_numerics_test PRIVATE MEDSYNTH_MODELS_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/engine/models/data")
medsynth_add_test(NAME cuda_nccl_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/nccl_process_group_test.cpp
  LIBS medsynth_engine
  LABELS cuda
  TIMEOUT 120)
medsynth_add_test(NAME cuda_engine_cli_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/engine_cli_cuda_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS cuda
  TIMEOUT 900)
add_dependencies(cuda_engine_cli_test medsynth-engine)
target_compile_definitions(cuda_engine_cli_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
