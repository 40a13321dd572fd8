// The survival task's loss and metric (seed 004):
//  - cox_partial_likelihood_loss: the negative Cox partial log-likelihood with
//    Breslow's handling of tied times (every subject tied at an event time is
//    in that time's risk set), averaged over events; 0 (with a zero gradient)
//    for a batch without events.
//  - harrell_c_index: the share of comparable pairs (i had the event before j's
//    time) in which i has the higher risk, ties in risk counting one half;
//    pairs with equal times are not comparable. NaN when no pair is comparable.
#pragma once

#include <ATen/core/Tensor.h>

#include <vector>

namespace medsynth {

// risk [N] (any float type), time [N], event [N] (0/1).
at::Tensor cox_partial_likelihood_loss(const at::Tensor& risk, const at::Tensor& time, const at::Tensor& event);

double harrell_c_index(const std::vector<double>& risk, const std::vector<double>& time, const std::vector<int>& event);

}  // namespace medsynth
