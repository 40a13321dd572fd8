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
