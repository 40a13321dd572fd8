# Sources of engine/models: every network (MONAI's layout: networks/nets and
# networks/blocks), XImpl + TORCH_MODULE + an options struct each.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_blocks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_coders.cpp
  ${CMAKE_CURRENT_LIST_DIR}/autoencoder_kl.cpp
  ${CMAKE_CURRENT_LIST_DIR}/controlnet_maisi.cpp
  ${CMAKE_CURRENT_LIST_DIR}/conv3d_forward.cpp
  ${CMAKE_CURRENT_LIST_DIR}/convolution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diffusion_model_unet.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diffusion_unet_blocks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_autoencoder_blocks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nearest_upsample_conv.cpp
  ${CMAKE_CURRENT_LIST_DIR}/patch_discriminator.cpp
  ${CMAKE_CURRENT_LIST_DIR}/radimagenet_resnet.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resnet3d.cpp
  ${CMAKE_CURRENT_LIST_DIR}/resnet_feature_weights.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spatial_attention.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spatial_transformer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/split_convolution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unet_conditioning.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unet_levels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vector_quantizer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/vqgan.cpp)
