# Sources of engine/weights: reading foreign weight files (torch.save archives
# through a restricted unpickler) and writing them (export-maisi) and loading state dicts by name, all of one
# or (pretrained backbones) the part a network shares. Depends on core/ only.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/name_prefixes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/partial_state_loading.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pickle_globals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pickle_graph.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pickle_machine.cpp
  ${CMAKE_CURRENT_LIST_DIR}/pretrained_layouts.cpp
  ${CMAKE_CURRENT_LIST_DIR}/state_dict_loading.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torch_archive.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torch_archive_contents.cpp
  ${CMAKE_CURRENT_LIST_DIR}/torch_file_writer.cpp)
