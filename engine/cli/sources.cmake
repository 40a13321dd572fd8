# Sources of engine/cli: the thin medsynth-engine executable.
target_sources(medsynth-engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/main.cpp)
