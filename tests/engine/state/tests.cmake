# Tests of engine/state: checkpoint files (atomic, refused when corrupt) and best-k rotation.
medsynth_add_test(NAME state_checkpoint_store_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/checkpoint_store_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
target_include_directories(state_checkpoint_store_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
