# How the engine's programs are linked: which library each C++ runtime symbol binds to.
medsynth_add_test(NAME torch_linkage_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/torch_linkage_test.cpp
  LIBS medsynth::torch
  LABELS unit)
medsynth_add_test(NAME remove_tree_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/remove_tree_test.cpp
  LIBS medsynth_core
  LABELS unit)
# Issue 50 item 8: a stranger's JSON file is bounded by its size before parsing.
medsynth_add_test(NAME bounded_json_file_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/bounded_json_file_test.cpp
  LIBS medsynth_core nlohmann_json::nlohmann_json
  LABELS unit)
