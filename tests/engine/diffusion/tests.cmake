# Noise schedulers (closed forms), the diffusion UNet (MONAI parity) and latent sampling.
medsynth_add_test(NAME diffusion_scheduler_test
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/scheduler_test.cpp
  LIBS medsynth_engine
  LABELS unit)
