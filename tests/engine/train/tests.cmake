# Trainer, checkpoints and schedules.
medsynth_add_test(NAME train_checkpoint_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/checkpoint_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
medsynth_add_test(NAME train_trainer_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/trainer_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS unit)
target_include_directories(train_trainer_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
target_include_directories(train_checkpoint_test PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
medsynth_add_test(NAME train_sliding_window_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/sliding_window_test.cpp
  LIBS medsynth_engine
  LABELS unit)
