# Sources of engine/data (owned by that folder): phantoms, transforms,
# datasets, cache, loader, the patch grid and sliding-window inference over it.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/batch_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/case_listing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ct_phantom.cpp
  ${CMAKE_CURRENT_LIST_DIR}/intensity_transforms.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_batch_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_grid.cpp
  ${CMAKE_CURRENT_LIST_DIR}/preprocess.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sliding_window_inference.cpp
  ${CMAKE_CURRENT_LIST_DIR}/smart_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spatial_transforms.cpp
  ${CMAKE_CURRENT_LIST_DIR}/survival_data.cpp
  ${CMAKE_CURRENT_LIST_DIR}/survival_labels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_dataset.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_listing.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_tensor.cpp)
