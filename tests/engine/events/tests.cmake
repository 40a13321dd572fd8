# Tests of engine/events: event stream, TensorBoard files, progress bar, logger.
medsynth_add_test(NAME events_test
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/crc32c_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensorboard_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensorboard_image_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/event_writer_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/event_schema_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/pipeline_eta_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/progress_bar_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/progress_lines_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/run_logger_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/tensorboard_reader.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/png_reader.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json PNG::PNG
  LABELS unit)
target_compile_definitions(events_test PRIVATE MEDSYNTH_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
