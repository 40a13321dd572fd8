# Tests of engine/config (the job-spec library): reading, errors, overrides,
# validation, writing and hashing. Fast and torch-free.
medsynth_add_test(NAME medsynth_config_tests
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/did_you_mean_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_fields_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_reader_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_validation_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_overrides_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/job_writer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/maisi_network_config_test.cpp
  LIBS medsynth_config
  LABELS unit)
# job_fields_test reads docs/job-file.md.
target_compile_definitions(medsynth_config_tests PRIVATE MEDSYNTH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
# Issue 38: the planner, checked against real runs of the engine.
medsynth_add_test(NAME config_job_plan_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/job_plan_test.cpp
  LIBS medsynth_config nlohmann_json::nlohmann_json
  LABELS unit)
add_dependencies(config_job_plan_test medsynth-engine)
target_compile_definitions(config_job_plan_test PRIVATE MEDSYNTH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
