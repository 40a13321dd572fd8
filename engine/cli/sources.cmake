# Sources of engine/cli: the thin medsynth-engine executable.
target_sources(medsynth-engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/main.cpp
  ${CMAKE_CURRENT_LIST_DIR}/engine_tasks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/signals.cpp
  ${CMAKE_CURRENT_LIST_DIR}/slurm_requeue.cpp
  ${CMAKE_CURRENT_LIST_DIR}/job_arguments.cpp
  ${CMAKE_CURRENT_LIST_DIR}/train_arguments.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generate_arguments.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_launch.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_train.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_eval.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_evaluate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_export_dicom.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_prepare_label.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_regenerate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sweep_plan.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_sweep.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_dataset_card.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_import_maisi.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_export_maisi.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_info.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cuda_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_latent.cpp
  ${CMAKE_CURRENT_LIST_DIR}/generate_events.cpp
  ${CMAKE_CURRENT_LIST_DIR}/usage_suggestions.cpp
  ${CMAKE_CURRENT_LIST_DIR}/seed_flags.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_group_from_environment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_validate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/verb_completion.cpp)
target_compile_definitions(medsynth-engine PRIVATE MEDSYNTH_VERSION="${PROJECT_VERSION}")
