# Sources of engine/contract: what the engine and the console share, without
# LibTorch or Qt: the run directory's layout, the names of generated files,
# the event schema (header-only) and the provenance of generated volumes.
target_sources(medsynth_contract PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/generated_file_names.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generation_provenance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/run_directory.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_provenance.cpp)
