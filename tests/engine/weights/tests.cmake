# Tests of engine/weights.
# torch.save files (zip and legacy) read without Python; fixtures by data/make_torch_save_fixtures.py.
medsynth_add_test(NAME weights_torch_archive_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/torch_archive_test.cpp
  LIBS medsynth_engine
  LABELS unit)
target_compile_definitions(weights_torch_archive_test PRIVATE MEDSYNTH_TORCH_SAVE_TEST_DATA="${CMAKE_CURRENT_LIST_DIR}/data/torch_save")
