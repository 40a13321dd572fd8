# Sources of engine/schedulers: noise schedules and the DDPM, DDIM and
# rectified-flow samplers (MONAI's networks/schedulers).
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ddim_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ddpm_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/diffusion_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/discrete_scheduler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/noise_schedule.cpp
  ${CMAKE_CURRENT_LIST_DIR}/rectified_flow_scheduler.cpp)
