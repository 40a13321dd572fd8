# Sources of engine/events (owned by that folder): event stream, TensorBoard
# files (with PNG images, through libpng), progress bar and run logger. No
# LibTorch includes here.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/crc32c.cpp
  ${CMAKE_CURRENT_LIST_DIR}/protobuf_wire.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gray_png.cpp
  ${CMAKE_CURRENT_LIST_DIR}/tensorboard_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/time_format.cpp
  ${CMAKE_CURRENT_LIST_DIR}/event_writer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pipeline_eta.cpp
  ${CMAKE_CURRENT_LIST_DIR}/progress_bar.cpp
  ${CMAKE_CURRENT_LIST_DIR}/progress_lines.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_logger.cpp)
