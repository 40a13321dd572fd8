# engine/dist: environment parsing (unit), real multi-process Gloo groups and
# the launcher end to end (label dist).
medsynth_add_test(NAME dist_environment_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dist_environment_test.cpp
  LIBS medsynth_engine
  LABELS unit)
medsynth_add_test(NAME dist_process_group_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/process_group_test.cpp
  LIBS medsynth_engine
  LABELS dist
  TIMEOUT 120)
medsynth_add_test(NAME dist_launch_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/launch_test.cpp
  LIBS medsynth_engine nlohmann_json::nlohmann_json
  LABELS dist
  TIMEOUT 300)
add_dependencies(dist_launch_test medsynth-engine)
