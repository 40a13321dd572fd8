# The medsynth-engine executable end to end (real processes and files).
medsynth_add_test(NAME cli_engine_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/engine_cli_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(cli_engine_test medsynth-engine)
medsynth_add_test(NAME cli_quickstart_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/quickstart_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS slow
  TIMEOUT 2700  # ~4.2 min with native bf16, ~7.8 min in fp32 on an AVX-512 EPYC, ~12.7 min AVX2-only
  PROCESSORS 2)
add_dependencies(cli_quickstart_test medsynth-engine)
target_compile_definitions(cli_quickstart_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Real public MR data (nibabel's anatomical.nii, python3-nibabel) and its NRRD
# and MetaImage copies written by ITK, trained on for a few steps: seconds.
# Skips, printing why, when the data is absent.
medsynth_add_test(NAME cli_real_mri_smoke_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/real_mri_smoke_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/engine/volume/itk_fixtures.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json ${ITK_LIBRARIES}
  LABELS integration
  TIMEOUT 120)
target_include_directories(cli_real_mri_smoke_test SYSTEM PRIVATE ${ITK_INCLUDE_DIRS})
target_include_directories(cli_real_mri_smoke_test PRIVATE ${PROJECT_SOURCE_DIR}/tests/engine/volume)
add_dependencies(cli_real_mri_smoke_test medsynth-engine)
# Every GPU memory preset validates and states its peak (docs/gpu-presets.md).
add_test(NAME cli_presets_validate
  COMMAND ${CMAKE_CURRENT_LIST_DIR}/presets_validate.sh $<TARGET_FILE:medsynth-engine> ${PROJECT_SOURCE_DIR})
set_tests_properties(cli_presets_validate PROPERTIES LABELS unit TIMEOUT 120)
# Issue 38: sweeps (the plan through --dry-run, and two real runs).
medsynth_add_test(NAME cli_sweep_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/sweep_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(cli_sweep_test medsynth-engine)
target_compile_definitions(cli_sweep_test PRIVATE MEDSYNTH_SOURCE_DIR="${CMAKE_SOURCE_DIR}")
# Issue 50 item 1: every verb that writes, past `ulimit -f` and on a full
# tmpfs (root): exit 4, no cut file under its final name, no temporary.
medsynth_add_test(NAME cli_write_failure_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/write_failure_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(cli_write_failure_test medsynth-engine)
target_compile_definitions(cli_write_failure_test PRIVATE
  MEDSYNTH_DIFFUSION_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/engine/diffusion/data")
