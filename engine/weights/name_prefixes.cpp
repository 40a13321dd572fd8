#include "weights/name_prefixes.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace medsynth {
namespace {

// `under`: every name of `all` that starts with `prefix` (which ends in '.', or is empty at the root).
void cover(const std::string& prefix, const std::vector<std::string>& under, const std::set<std::string>& chosen,
           std::vector<std::string>& out) {
  const auto picked =
      std::count_if(under.begin(), under.end(), [&](const std::string& n) { return chosen.count(n) > 0; });
  if (picked == 0) return;
  if (static_cast<std::size_t>(picked) == under.size() && !prefix.empty()) {
    // One tensor under a module says more by its own name than as "conv1.*".
    out.push_back(under.size() == 1 ? under.front() : prefix + "*");
    return;
  }
  std::map<std::string, std::vector<std::string>> children;  // by the next component, with its dot
  for (const auto& name : under) {
    const auto dot = name.find('.', prefix.size());
    children[dot == std::string::npos ? name : name.substr(0, dot + 1)].push_back(name);
  }
  for (const auto& [child, names] : children) {
    if (child.back() != '.') {  // a name with no further component
      if (chosen.count(child)) out.push_back(child);
    } else {
      cover(child, names, chosen, out);
    }
  }
}

}  // namespace

std::vector<std::string> covering_prefixes(const std::vector<std::string>& chosen,
                                           const std::vector<std::string>& all) {
  std::vector<std::string> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<std::string> out;
  cover("", sorted, std::set<std::string>(chosen.begin(), chosen.end()), out);
  return out;
}

}  // namespace medsynth
