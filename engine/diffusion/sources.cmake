# Sources of engine/diffusion: the latent diffusion pipeline (encode, train,
# generate stages, the ldm task, ControlNet guidance) and the MAISI importer and exporter.
# Its networks are in models/, its samplers in schedulers/.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/controlnet_guidance.cpp
  ${CMAKE_CURRENT_LIST_DIR}/controlnet_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/encode_stage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dataset_card.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generate_stage.cpp
  ${CMAKE_CURRENT_LIST_DIR}/latent_autoencoder.cpp
  ${CMAKE_CURRENT_LIST_DIR}/latent_batch_loader.cpp
  ${CMAKE_CURRENT_LIST_DIR}/latent_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ldm_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ldm_task.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_embedding_files.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_embedding_metadata.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_export.cpp
  ${CMAKE_CURRENT_LIST_DIR}/maisi_import.cpp
  ${CMAKE_CURRENT_LIST_DIR}/region_inpainting.cpp
  ${CMAKE_CURRENT_LIST_DIR}/reverse_process.cpp
  ${CMAKE_CURRENT_LIST_DIR}/translation_task.cpp)
