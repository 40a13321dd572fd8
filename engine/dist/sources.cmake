# Sources of engine/dist: environment, rendezvous socket, process group,
# gradient sync, the launcher (agent) and its worker processes.
target_sources(medsynth_engine PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/agent.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dist_environment.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gloo_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/gradient_sync.cpp
  ${CMAKE_CURRENT_LIST_DIR}/listen_socket.cpp
  ${CMAKE_CURRENT_LIST_DIR}/local_address.cpp
  ${CMAKE_CURRENT_LIST_DIR}/nccl_backend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/parameter_check.cpp
  ${CMAKE_CURRENT_LIST_DIR}/process_group.cpp
  ${CMAKE_CURRENT_LIST_DIR}/worker_process.cpp)
