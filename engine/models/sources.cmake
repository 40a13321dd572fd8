# Sources of engine/models (owned by that folder), plus the loss and metric
# files of engine/train that belong to the models' work.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/conv3d_forward.cpp
  ${CMAKE_CURRENT_LIST_DIR}/convolution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/split_convolution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_autoencoder_blocks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spatial_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_blocks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_coders.cpp
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_discriminator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resnet3d.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vector_quantizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vqgan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../train/losses.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../train/image_metrics.cpp)
