# Sources of engine/metrics: image metrics (PSNR, SSIM), losses, survival
# metrics and distribution metrics (FID, MMD), as MONAI's metrics/ and losses/.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/distribution_metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image_metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/losses.cpp
  ${CMAKE_CURRENT_LIST_DIR}/perceptual_loss.cpp
  ${CMAKE_CURRENT_LIST_DIR}/survival_metrics.cpp)
