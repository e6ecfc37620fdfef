// Shards of a sweep (--shard K/N): configurations split by functional configuration and balanced by
// estimated work, and the shard sweep-merge names when a part is missing (tools/doc/sweeps.md
// "Shards and clusters").
#include "tools/commands/sweep_internal.h"

#include <queue>

namespace tbdr::sweep {
namespace {

// Estimated work of a functional configuration's group: one simulation per trace, then a re-costing
// per trace for each other configuration of the group. A re-costing took about 1/20 of a simulation
// (the default scene, 16 configurations differing in dram.bytes_per_cycle, -j 1: 14.3 s simulating
// each, 1.65 s simulating one and re-costing 15; tools/doc/sweeps.md "Shards and clusters").
constexpr uint64_t k_simulation_units = 20, k_recosting_units = 1;

}  // namespace

std::vector<unsigned> assign_shards(const std::vector<uint32_t>& functional_group, unsigned shards) {
  struct Group {
    size_t first = 0, configurations = 0;
  };
  std::map<uint32_t, Group> groups;
  for (size_t i = 0; i < functional_group.size(); ++i) {
    auto [it, added] = groups.try_emplace(functional_group[i], Group{i, 0});
    ++it->second.configurations;
  }
  std::vector<std::pair<uint64_t, uint32_t>> order;  // (work, group): largest first, then first index
  for (const auto& [id, g] : groups)
    order.push_back({k_simulation_units + k_recosting_units * (g.configurations - 1), id});
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : groups[a.second].first < groups[b.second].first;
  });
  // Longest processing time first (Graham 1969): each group to the least loaded shard, the lowest K
  // on a tie; the same for every shard of the sweep, whatever the one running.
  // A min-heap of (load, K) over at most one shard per group: while every load is 0 the first groups
  // take shards 1, 2, ... in turn, so a shard past the number of groups would get none anyway.
  using Load = std::pair<uint64_t, unsigned>;
  std::priority_queue<Load, std::vector<Load>, std::greater<Load>> loads;
  for (unsigned k = 1; k <= std::min<size_t>(shards, groups.size()); ++k) loads.push({0, k});
  std::map<uint32_t, unsigned> shard_of_group;
  for (const auto& [work, id] : order) {
    const auto [load, k] = loads.top();
    loads.pop();
    loads.push({load + work, k});
    shard_of_group[id] = k;
  }
  std::vector<unsigned> out(functional_group.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = shard_of_group[functional_group[i]];
  return out;
}

std::string missing_parts_message(const std::vector<size_t>& missing, size_t count, const ShardOwners& owners) {
  std::set<unsigned> to_resubmit;
  bool unknown = false;
  for (size_t i : missing) {
    const auto it = owners.shard_of.find(i);
    if (it != owners.shard_of.end()) to_resubmit.insert(it->second);
    else unknown = true;
  }
  // A configuration no given folder lists belongs to a shard whose folder was not given (or to a
  // folder written before shards listed their configurations).
  if (unknown && owners.shards > 0)
    for (unsigned k = 1; k <= owners.shards; ++k)
      if (!owners.given.count(k)) to_resubmit.insert(k);
  std::string text = std::to_string(missing.size()) + " of " + std::to_string(count) +
                     " configurations have no part (first: configuration " + std::to_string(missing.front()) + ")";
  if (to_resubmit.empty() || owners.shards == 0) return text + "; finish every shard first";
  std::vector<std::string> ks;
  for (unsigned k : to_resubmit) ks.push_back(std::to_string(k));
  const std::string n = std::to_string(owners.shards);
  return text + ": resubmit shard" + (ks.size() == 1 ? " " : "s ") + join(ks, ", ") + " of " + n + " (tbdrsim sweep ... --shard " +
         ks.front() + "/" + n + "; with Slurm: sbatch --array=" + join(ks, ",") + " tools/slurm_sweep.sbatch --shards " + n +
         " OUT ...), then merge again";
}

}  // namespace tbdr::sweep
