#include "dist/gradient_sync.hpp"

#include <ATen/ATen.h>

#include <chrono>

#include "core/error.hpp"

namespace medsynth {

GradientSync::GradientSync(DistContext& context, std::vector<std::vector<at::Tensor>> groups, GradientSyncOptions options)
    : context_(context), options_(options) {
  const auto cap_bytes = static_cast<std::int64_t>(options_.bucket_cap_mb * 1024.0 * 1024.0);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    Group g;
    g.params = std::move(groups[gi]);
    g.bucket_of.resize(g.params.size());
    g.slot_of.resize(g.params.size());
    g.ready.assign(g.params.size(), false);
    // Reverse registration order approximates the order backward fills the
    // gradients (DDP does the same before it has observed one iteration).
    std::int64_t bucket_bytes = 0;
    for (std::size_t k = g.params.size(); k-- > 0;) {
      const at::Tensor& p = g.params[k];
      const std::int64_t bytes = p.numel() * static_cast<std::int64_t>(p.element_size());
      if (g.buckets.empty() || (bucket_bytes > 0 && bucket_bytes + bytes > cap_bytes)) {
        g.buckets.emplace_back();
        bucket_bytes = 0;
      }
      Bucket& b = g.buckets.back();
      g.bucket_of[k] = g.buckets.size() - 1;
      g.slot_of[k] = b.params.size();
      b.offsets.push_back(b.params.empty() ? 0 : b.offsets.back() + g.params[b.params.back()].numel());
      b.params.push_back(k);
      bucket_bytes += bytes;
    }
    for (Bucket& b : g.buckets) {
      const at::Tensor& last = g.params[b.params.back()];
      b.flat = at::zeros({b.offsets.back() + last.numel()}, last.options().requires_grad(false));
    }
    groups_.push_back(std::move(g));
  }
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    for (std::size_t k = 0; k < groups_[gi].params.size(); ++k) {
      at::Tensor p = groups_[gi].params[k];
      const unsigned id = p.register_hook([this, gi, k](const at::Tensor& grad) { on_gradient(gi, k, grad); });
      hooks_.emplace_back(p, id);
    }
  }
}

GradientSync::~GradientSync() {
  for (auto& [tensor, id] : hooks_) tensor.remove_hook(id);
}

std::size_t GradientSync::bucket_count(std::size_t group) const { return groups_.at(group).buckets.size(); }

void GradientSync::prepare(std::size_t group) {
  std::lock_guard<std::mutex> lock(mutex_);
  Group& g = groups_.at(group);
  g.armed = true;
  g.next_launch = 0;
  std::fill(g.ready.begin(), g.ready.end(), false);
  for (Bucket& b : g.buckets) {
    b.ready = 0;
    b.work.reset();
  }
}

void GradientSync::on_gradient(std::size_t group, std::size_t param, const at::Tensor& grad) {
  std::lock_guard<std::mutex> lock(mutex_);
  Group& g = groups_[group];
  if (!g.armed || g.ready[param]) return;
  // The hook sees this backward's contribution before autograd adds it to
  // .grad; earlier micro-steps of the window are already in .grad.
  const at::Tensor& p = g.params[param];
  const at::Tensor previous = p.grad();
  mark_ready(g, param, previous.defined() ? previous + grad : grad, true);
}

void GradientSync::mark_ready(Group& g, std::size_t param, const at::Tensor& full_grad, bool in_backward) {
  Bucket& b = g.buckets[g.bucket_of[param]];
  const at::Tensor& p = g.params[param];
  at::Tensor slot = b.flat.narrow(0, b.offsets[g.slot_of[param]], p.numel()).view(p.sizes());
  at::NoGradGuard no_grad;
  if (full_grad.defined())
    slot.copy_(full_grad);
  else
    slot.zero_();  // a parameter this rank did not use: contributes zero, as DDP's find_unused_parameters
  g.ready[param] = true;
  ++b.ready;
  if (options_.overlap || !in_backward) launch_ready_buckets(g, in_backward);
}

void GradientSync::launch_ready_buckets(Group& g, bool in_backward) {
  while (g.next_launch < g.buckets.size()) {
    Bucket& b = g.buckets[g.next_launch];
    if (b.ready < b.params.size()) return;
    std::vector<at::Tensor> list{b.flat};
    try {
      b.work = context_.all_reduce_sum_async(list);
    } catch (const std::exception& e) {
      throw RuntimeError(std::string("rank ") + std::to_string(context_.rank()) + ": launching a gradient all-reduce failed: " + e.what());
    }
    ++stats_.buckets_launched;
    if (in_backward) ++stats_.buckets_launched_in_backward;
    stats_.bytes_reduced += b.flat.numel() * static_cast<std::int64_t>(b.flat.element_size());
    ++g.next_launch;
  }
}

void GradientSync::finish(std::size_t group) {
  std::unique_lock<std::mutex> lock(mutex_);
  Group& g = groups_.at(group);
  if (!g.armed) throw RuntimeError("GradientSync::finish without prepare for group " + std::to_string(group));
  for (std::size_t k = 0; k < g.params.size(); ++k)
    if (!g.ready[k]) mark_ready(g, k, g.params[k].grad(), false);
  launch_ready_buckets(g, false);
  g.armed = false;
  const auto started = std::chrono::steady_clock::now();
  for (Bucket& b : g.buckets) context_.wait_work(b.work, "gradient all-reduce");
  stats_.exposed_wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  ++stats_.syncs;
  const double inverse_world = 1.0 / context_.world_size();
  at::NoGradGuard no_grad;
  for (Bucket& b : g.buckets) {
    b.flat.mul_(inverse_world);
    for (std::size_t s = 0; s < b.params.size(); ++s) {
      at::Tensor& p = g.params[b.params[s]];
      at::Tensor averaged = b.flat.narrow(0, b.offsets[s], p.numel()).view(p.sizes());
      if (p.grad().defined())
        p.mutable_grad().copy_(averaged);
      else
        p.mutable_grad() = averaged.clone();
    }
    b.work.reset();
  }
}

}  // namespace medsynth
