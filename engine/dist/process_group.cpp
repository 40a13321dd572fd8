#include "dist/process_group.hpp"

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <unistd.h>

#include <thread>

#include "core/error.hpp"
#include "dist/backend_factory.hpp"
#include "dist/listen_socket.hpp"
#include "dist/local_address.hpp"

namespace medsynth {
namespace {

std::string host_name() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof(buffer) - 1) != 0) return "unknown-host";
  return buffer;
}

bool is_loopback(const std::string& address) {
  return address == "localhost" || address.rfind("127.", 0) == 0 || address == "::1";
}

double seconds(std::chrono::milliseconds ms) { return static_cast<double>(ms.count()) / 1000.0; }

std::string seconds_text(std::chrono::milliseconds ms) {
  std::string s = std::to_string(seconds(ms));
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s + " s";
}

c10::intrusive_ptr<c10d::Store> open_store(const DistEnvironment& env, const ProcessGroupOptions& options) {
  c10d::TCPStoreOptions o;
  o.port = static_cast<std::uint16_t>(env.master_port);
  o.timeout = options.join_timeout;
  o.waitWorkers = false;
  const bool host = env.rank == 0 && !env.store_hosted_by_agent;
  std::unique_ptr<ListenSocket> socket;
  if (host) {
    socket = std::make_unique<ListenSocket>(env.master_addr, env.master_port);
    o.isServer = true;
    o.masterListenFd = socket->fd();
  }
  c10::intrusive_ptr<c10d::Store> store;
  try {
    store = c10::make_intrusive<c10d::TCPStore>(env.master_addr, o);
  } catch (const std::exception& e) {
    throw RuntimeError("rank " + std::to_string(env.rank) + " cannot reach the rendezvous store at " + env.master_addr + ":" +
                       std::to_string(env.master_port) + " within " + seconds_text(options.join_timeout) + ": " + e.what());
  }
  if (socket) socket->release();  // the store's server owns the descriptor now
  // Keys of an earlier attempt (a restart) must not satisfy this one's waits.
  return c10::make_intrusive<c10d::PrefixStore>("medsynth/attempt" + std::to_string(env.restart_count), store);
}

// Every rank announces itself; then all wait for all, so a rank that never
// comes is named instead of surfacing as an anonymous socket timeout.
void wait_for_all_ranks(c10d::Store& store, const DistEnvironment& env, std::chrono::milliseconds timeout) {
  store.set("joined/" + std::to_string(env.rank), host_name() + " node " + std::to_string(env.node_rank));
  std::vector<bool> joined(static_cast<std::size_t>(env.world_size), false);
  joined[static_cast<std::size_t>(env.rank)] = true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string store_error;
  for (;;) {
    bool all = true;
    try {
      for (int r = 0; r < env.world_size; ++r) {
        const auto i = static_cast<std::size_t>(r);
        if (!joined[i]) joined[i] = store.check({"joined/" + std::to_string(r)});
        all = all && joined[i];
      }
    } catch (const std::exception& e) {
      // The store's host gave up first (it has the same deadline): report
      // what this rank saw rather than a bare socket error.
      store_error = e.what();
      all = false;
    }
    if (all) return;
    if (!store_error.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::string missing;
  int count = 0;
  for (int r = 0; r < env.world_size; ++r)
    if (!joined[static_cast<std::size_t>(r)]) missing += (count++ ? ", " : "") + std::to_string(r);
  throw RuntimeError("rank" + std::string(count > 1 ? "s " : " ") + missing + " never joined the process group within " +
                     seconds_text(timeout) + " (world size " + std::to_string(env.world_size) + ", rendezvous " + env.master_addr +
                     ":" + std::to_string(env.master_port) + (store_error.empty() ? ")" : "; the store closed)"));
}

}  // namespace

std::string gloo_interface_address(const DistEnvironment& env, const EnvLookup& lookup) {
  if (auto a = lookup("MEDSYNTH_GLOO_ADDRESS"); a && !a->empty()) return *a;
  // --gloo-interface (the launcher passes it on), then torch's own variable.
  for (const char* variable : {"MEDSYNTH_GLOO_INTERFACE", "GLOO_SOCKET_IFNAME"})
    if (auto name = lookup(variable); name && !name->empty()) {
      // GLOO_SOCKET_IFNAME may list several interfaces; Gloo would use the first.
      return interface_address(name->substr(0, name->find(',')));
    }
  if (is_loopback(env.master_addr)) return "127.0.0.1";
  // Not the host name: Debian maps it to 127.0.1.1, which other nodes cannot reach.
  return local_address_routing_to(env.master_addr);
}

std::unique_ptr<DistContext> DistContext::connect(const DistEnvironment& env, const ProcessGroupOptions& options,
                                                  const c10::Device& device) {
  std::unique_ptr<DistContext> ctx(new DistContext());
  ctx->env_ = env;
  ctx->options_ = options;
  ctx->device_ = device;
  ctx->backend_name_ = options.backend == "auto" ? (device.is_cuda() ? "nccl" : "gloo") : options.backend;
  if (ctx->backend_name_ == "nccl" && !device.is_cuda())
    throw UsageError("distributed.backend: nccl needs CUDA devices; this rank runs on " + device.str() + " (use gloo or auto)");
  ctx->store_ = open_store(env, options);
  wait_for_all_ranks(*ctx->store_, env, options.join_timeout);
  auto pg_store = c10::make_intrusive<c10d::PrefixStore>("pg/", ctx->store_);
  try {
    if (ctx->backend_name_ == "nccl")
      ctx->backend_ = make_nccl_backend(pg_store, env.rank, env.world_size, options.timeout);
    else {
      ctx->peer_address_ = gloo_interface_address(env, process_environment());
      ctx->backend_ = make_gloo_backend(pg_store, env.rank, env.world_size, options.timeout, ctx->peer_address_);
    }
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw RuntimeError("rank " + std::to_string(env.rank) + ": creating the " + ctx->backend_name_ + " process group failed: " + e.what());
  }
  return ctx;
}

void DistContext::shutdown() {
  if (!backend_) return;
  try {
    backend_->shutdown();
  } catch (const std::exception& e) {
    throw RuntimeError("rank " + std::to_string(env_.rank) + ": shutting the " + backend_name_ + " process group down failed: " + e.what());
  }
  backend_.reset();
}

DistContext::~DistContext() {
  // Releasing the backend closes its connections; peers that are still in a
  // collective then fail at once instead of waiting for the timeout.
  backend_.reset();
  store_.reset();
}

void DistContext::fail(const char* what, const std::string& detail) const {
  throw RuntimeError("rank " + std::to_string(env_.rank) + ": collective '" + what + "' failed (" + backend_name_ + ", timeout " +
                     seconds_text(options_.timeout) + "): " + detail + " — a peer rank died, stopped or lost its connection");
}

c10::intrusive_ptr<c10d::Work> DistContext::all_reduce_sum_async(std::vector<at::Tensor>& tensors) {
  c10d::AllreduceOptions o;
  o.reduceOp = c10d::ReduceOp::SUM;
  o.timeout = options_.timeout;
  return backend_->allreduce(tensors, o);
}

void DistContext::wait_work(const c10::intrusive_ptr<c10d::Work>& work, const char* what) {
  try {
    work->wait(options_.timeout);
  } catch (const std::exception& e) {
    fail(what, e.what());
  }
}

void DistContext::all_reduce_sum(std::vector<at::Tensor>& tensors, const char* what) {
  c10::intrusive_ptr<c10d::Work> work;
  try {
    work = all_reduce_sum_async(tensors);
  } catch (const std::exception& e) {
    fail(what, e.what());
  }
  wait_work(work, what);
}

std::vector<double> DistContext::all_reduce_sum(const std::vector<double>& values, const char* what) {
  if (values.empty()) return values;
  at::Tensor t = at::tensor(values, at::TensorOptions().dtype(at::kDouble)).to(device_);
  std::vector<at::Tensor> list{t};
  all_reduce_sum(list, what);
  t = list[0].cpu();
  return {t.data_ptr<double>(), t.data_ptr<double>() + t.numel()};
}

void DistContext::broadcast(const std::vector<at::Tensor>& tensors, int root, const char* what) {
  if (tensors.empty()) return;
  // One flat buffer per call: a single collective instead of one per tensor.
  // Double holds float32 weights and integer buffers (< 2^53) exactly.
  std::vector<at::Tensor> flat_parts;
  for (const auto& t : tensors) flat_parts.push_back(t.detach().reshape({-1}).to(device_, at::kDouble));
  std::vector<at::Tensor> list{at::cat(flat_parts)};
  c10d::BroadcastOptions o;
  o.rootRank = root;
  o.timeout = options_.timeout;
  try {
    auto work = backend_->broadcast(list, o);
    wait_work(work, what);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    fail(what, e.what());
  }
  std::int64_t offset = 0;
  at::NoGradGuard no_grad;
  for (const auto& t : tensors) {
    const std::int64_t n = t.numel();
    at::Tensor(t).copy_(list[0].narrow(0, offset, n).view(t.sizes()));
    offset += n;
  }
}

void DistContext::barrier(const char* what) {
  std::vector<double> token{1.0};
  all_reduce_sum(token, what);  // a barrier that honours our timeout and error translation on every backend
}

std::string DistContext::share_from_rank0(const std::string& key, const std::string& value) {
  const std::string full = "shared/" + key_scope_ + key;
  try {
    if (env_.rank == 0) {
      store_->set(full, value);
      return value;
    }
    const std::vector<std::uint8_t> bytes = store_->get(full);
    return {bytes.begin(), bytes.end()};
  } catch (const std::exception& e) {
    fail("share", e.what());
  }
}

}  // namespace medsynth
