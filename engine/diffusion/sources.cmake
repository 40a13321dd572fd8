# Sources of engine/diffusion: noise schedules, the diffusion UNet, latent sampling.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ddim_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ddpm_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diffusion_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/discrete_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/noise_schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rectified_flow_scheduler.cpp)
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/controlnet_maisi.cpp
  ${CMAKE_CURRENT_LIST_DIR}/controlnet_guidance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diffusion_model_unet.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diffusion_unet_blocks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/spatial_transformer.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unet_conditioning.cpp
  ${CMAKE_CURRENT_LIST_DIR}/unet_levels.cpp)
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/encode_stage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generate_stage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/latent_autoencoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/latent_batch_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/latent_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ldm_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ldm_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_import.cpp)
# Provenance in generated files: no LibTorch, so the console links it too.
target_sources(medsynth_provenance PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/generation_provenance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/volume_provenance.cpp)
